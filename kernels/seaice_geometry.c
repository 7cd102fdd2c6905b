/* Geometry of general quadrilateral cells (kernels/seaice.h, docs/seaice.md,
 * Curvilinear grids on the sphere): node frames, cell planes, the bilinear
 * map of each cell and the rotations between frames, from node positions.
 * Host code run once per run; the kernels read its arrays on the device.
 *
 * Every value of a cell or node is computed from the positions of that cell's
 * corners or that node's neighbours alone, in a fixed order, so the ranks that
 * hold a cell (its owner, and neighbours in their halo ring) compute it bit for
 * bit alike.
 */
#include <math.h>

#include "halo.h"
#include "seaice.h"
#include "seaice_quad_cell.h"

#define DEGREE 0.017453292519943295769 /* pi / 180 */

typedef struct {
  double x, y, z;
} vec3;

static vec3 sub(vec3 a, vec3 b) {
  return (vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static vec3 scale(vec3 a, double s) {
  return (vec3){a.x * s, a.y * s, a.z * s};
}

static double dot(vec3 a, vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

static vec3 unit(vec3 a) {
  return scale(a, 1.0 / sqrt(dot(a, a)));
}

/* The part of t in the plane normal to n (a unit vector), normalized. */
static vec3 tangent_unit(vec3 t, vec3 n) {
  return unit(sub(t, scale(n, dot(t, n))));
}

/* Position (m), unit normal and the unit vectors east and north of a point
 * given as lon/lat (degrees) on the sphere or x/y (m) in the plane. At the
 * poles east is still defined by the longitude given. */
typedef struct {
  vec3 r, n, east, north;
} point;

static point point_at(const cryo_seaice_grid_points *g, double x, double y) {
  point p;
  if (!g->spherical) {
    p.r = (vec3){x, y, 0.0};
    p.n = (vec3){0.0, 0.0, 1.0};
    p.east = (vec3){1.0, 0.0, 0.0};
    p.north = (vec3){0.0, 1.0, 0.0};
    return p;
  }
  const double deg = DEGREE;
  const double cl = cos(x * deg), sl = sin(x * deg), cp = cos(y * deg), sp = sin(y * deg);
  p.n = (vec3){cp * cl, cp * sl, sp};
  p.r = scale(p.n, g->radius);
  p.east = (vec3){-sl, cl, 0.0};
  p.north = (vec3){-sp * cl, -sp * sl, cp};
  return p;
}

/* Index of node (i, j), i in [-2, nx+2], j in [-2, ny+2], in the two-ring layout. */
static long ring2(const cryo_block *b, int i, int j) {
  return (long)(j + 2) * (b->nx + 5) + (i + 2);
}

static int node_ok(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j) {
  return g->node_ok[ring2(b, i, j)] != 0;
}

static point node_point(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j) {
  const long k = ring2(b, i, j);
  return point_at(g, g->node_x[k], g->node_y[k]);
}

/* A node as the walks below see it: whether it is in the domain, and its
 * position and frame (computed from its stored coordinates even when it is
 * not, as they are never used then). */
typedef struct {
  int ok;
  point p;
} node_at;

/* Node (i, j); one outside the two rings (beyond the last node a walk
 * looks ahead to) is absent. */
static node_at node_load(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j) {
  if (i < -2 || i > b->nx + 2 || j < -2 || j > b->ny + 2)
    return (node_at){0, point_at(g, 0.0, 0.0)};
  return (node_at){node_ok(b, g, i, j), node_point(b, g, i, j)};
}

/* e1 of node c between its neighbours w and e on its grid line of constant
 * j: centred where both exist, one-sided at the edge of the domain. */
static vec3 node_e1(const node_at *w, const node_at *c, const node_at *e) {
  vec3 t;
  if (w->ok && e->ok)
    t = sub(e->p.r, w->p.r);
  else if (e->ok)
    t = sub(e->p.r, c->p.r);
  else
    t = sub(c->p.r, w->p.r);
  return tangent_unit(t, c->p.n);
}

/* A walk along row j of nodes: nodes i-1 to i+2 and the e1 of nodes i and
 * i+1. Each node's position and frame is computed once per walk, not once
 * for every cell and neighbour that uses it (four sines and cosines each,
 * the bulk of the geometry's time on a large grid). */
typedef struct {
  const cryo_block *b;
  const cryo_seaice_grid_points *g;
  int i, j;
  node_at n[4];
  vec3 e1[2];
} row_walk;

static void walk_start(row_walk *w, const cryo_block *b, const cryo_seaice_grid_points *g, int i,
                       int j) {
  w->b = b, w->g = g, w->i = i, w->j = j;
  for (int k = 0; k < 4; ++k)
    w->n[k] = node_load(b, g, i - 1 + k, j);
  w->e1[0] = node_e1(&w->n[0], &w->n[1], &w->n[2]);
  w->e1[1] = node_e1(&w->n[1], &w->n[2], &w->n[3]);
}

static void walk_next(row_walk *w) {
  w->i++;
  for (int k = 0; k < 3; ++k)
    w->n[k] = w->n[k + 1];
  w->n[3] = node_load(w->b, w->g, w->i + 2, w->j);
  w->e1[0] = w->e1[1];
  w->e1[1] = node_e1(&w->n[1], &w->n[2], &w->n[3]);
}

/* geom of cell (i, j) (quad_cell_geometry, shared with kernels that compute
 * it as they go) and rot, the cell frame's E1 against east at the centre;
 * lo and hi walk rows j and j + 1 and stand at node i. */
static void cell_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j,
                          const row_walk *lo, const row_walk *hi, double *geom, double *rot) {
  const row_walk *row[4] = {lo, lo, hi, hi};
  double r[12], e1[12];
  for (int k = 0; k < 4; ++k) {
    const vec3 p = row[k]->n[1 + k % 2].p.r, e = row[k]->e1[k % 2];
    r[3 * k] = p.x, r[3 * k + 1] = p.y, r[3 * k + 2] = p.z;
    e1[3 * k] = e.x, e1[3 * k + 1] = e.y, e1[3 * k + 2] = e.z;
  }
  double frame[3];
  quad_cell_geometry(r, e1, geom, frame);
  const vec3 E1 = {frame[0], frame[1], frame[2]};
  const long q = CRYO_CELL(b, i, j);
  const point pc = point_at(g, g->cell_x[q], g->cell_y[q]);
  const double ce = dot(E1, pc.east), cn = dot(E1, pc.north), norm = sqrt(ce * ce + cn * cn);
  rot[0] = ce / norm;
  rot[1] = cn / norm;
}

/* fcor and nrot of node (i, j) from its node data and grid direction e1. */
static void node_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j,
                          const node_at *node, vec3 e1, double *fcor, double *nrot) {
  const long n = CRYO_NODE(b, i, j);
  fcor[n] = nrot[2 * n] = nrot[2 * n + 1] = 0.0;
  if (!node->ok) return;
  const point *p = &node->p;
  const double ce = dot(e1, p->east), cn = dot(e1, p->north), norm = sqrt(ce * ce + cn * cn);
  /* an F fold's pivot has both neighbours on its row at one point: no
   * direction (it is land, cryo_seaice.c) */
  if (!(norm > 0.0)) return;
  nrot[2 * n] = ce / norm;
  nrot[2 * n + 1] = cn / norm;
  fcor[n] = g->spherical ? 2.0 * g->omega * sin(g->node_y[ring2(b, i, j)] * DEGREE) : g->f_plane;
}

/* Whether a cell has a frame: not one of a T fold's flat pivot cells, nor a
 * cell at an F fold's pivot node, which has no direction. Those are land
 * (namelists/README.md, Grid files; cryo_seaice.c): they get the geometry of
 * a cell outside the domain, zeros, which carry no flux and no force. */
static int cell_finite(const double *geom, const double *rot) {
  int ok = isfinite(rot[0]) && isfinite(rot[1]);
  for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
    ok = ok && isfinite(geom[k]);
  return ok;
}

static void cell_clear(double *geom, double *rot) {
  for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
    geom[k] = 0.0;
  rot[0] = rot[1] = 0.0;
}

/* Cell rows walked together: each node row is walked once per band of
 * GEOMETRY_ROWS cell rows and twice only at the band's edges, instead of
 * twice for every row (9 walks for 8 rows rather than 16: the node rows'
 * positions and frames were half of the geometry's time on the 2 km Arctic).
 * The walks live on the stack (about 4 kB). */
#define GEOMETRY_ROWS 8

/* Bands of cell rows: walk r of a band stands on node row j0 + r; the cells
 * of row j0 + r lie between walks r and r + 1, whose lower walk gives that
 * node row's nodes too (the last cell row's upper walk the top row). */
void cryo_seaice_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, double *geom,
                          double *rot, double *fcor, double *nrot) {
  for (int j0 = -1; j0 <= b->ny; j0 += GEOMETRY_ROWS) {
    const int nr = b->ny + 1 - j0 < GEOMETRY_ROWS ? b->ny + 1 - j0 : GEOMETRY_ROWS;
    row_walk w[GEOMETRY_ROWS + 1];
    for (int r = 0; r <= nr; ++r)
      walk_start(&w[r], b, g, -1, j0 + r);
    for (int i = -1; i <= b->nx; ++i) {
      if (i > -1)
        for (int r = 0; r <= nr; ++r)
          walk_next(&w[r]);
      for (int r = 0; r < nr; ++r) {
        const int j = j0 + r;
        const row_walk *lo = &w[r], *hi = &w[r + 1];
        const long q = CRYO_CELL(b, i, j);
        double *gq = geom + q * CRYO_SEAICE_NGEOM, *rq = rot + q * 2;
        for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
          gq[k] = 0.0;
        rq[0] = rq[1] = 0.0;
        if (g->cell_ok[q] && lo->n[1].ok && lo->n[2].ok && hi->n[1].ok && hi->n[2].ok)
          cell_geometry(b, g, i, j, lo, hi, gq, rq);
        if (!cell_finite(gq, rq)) cell_clear(gq, rq);
        node_geometry(b, g, i, j, &lo->n[1], lo->e1[0], fcor, nrot);
        if (j == b->ny) node_geometry(b, g, i, j + 1, &hi->n[1], hi->e1[0], fcor, nrot);
      }
    }
    /* the last node of each row (and of the top row) */
    for (int r = 0; r < nr; ++r) {
      const int j = j0 + r;
      node_geometry(b, g, b->nx + 1, j, &w[r].n[2], w[r].e1[1], fcor, nrot);
      if (j == b->ny)
        node_geometry(b, g, b->nx + 1, j + 1, &w[r + 1].n[2], w[r + 1].e1[1], fcor, nrot);
    }
  }
}

void cryo_seaice_node_frames(const cryo_block *b, const cryo_seaice_grid_points *g, double *pos,
                             double *e1) {
  for (int j = -1; j <= b->ny + 1; ++j) {
    row_walk w;
    walk_start(&w, b, g, -1, j);
    for (int i = -1; i <= b->nx + 1; ++i) {
      if (i > -1) walk_next(&w);
      const long n = CRYO_NODE(b, i, j);
      vec3 r = {0.0, 0.0, 0.0}, e = {0.0, 0.0, 0.0};
      if (w.n[1].ok) {
        r = w.n[1].p.r;
        e = w.e1[0];
      }
      pos[3 * n] = r.x, pos[3 * n + 1] = r.y, pos[3 * n + 2] = r.z;
      e1[3 * n] = e.x, e1[3 * n + 1] = e.y, e1[3 * n + 2] = e.z;
    }
  }
}

void cryo_seaice_geometry_fold(const cryo_block *b, double *geom) {
  if (!b->fold) return;
  const int nxg = b->nx_global, nyg = b->ny_global;
  for (int j = b->ny - 1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      int si, sj;
      const int gi = ((b->i0 + i) % nxg + nxg) % nxg;
      if (!cryo_halo_fold_source(b->fold, CRYO_AT_CELL, nxg, nyg, gi, b->j0 + j, &si, &sj))
        continue;
      double *g = geom + CRYO_CELL(b, i, j) * CRYO_SEAICE_NGEOM + CRYO_GEOM_C00;
      for (int k = 0; k < 2; ++k) /* corners k and 3 - k, cosine and sine */
        for (int m = 0; m < 2; ++m) {
          const double t = g[2 * k + m];
          g[2 * k + m] = g[2 * (3 - k) + m];
          g[2 * (3 - k) + m] = t;
        }
    }
}
