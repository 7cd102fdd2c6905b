/* Geometry of general quadrilateral cells (kernels/seaice.h, docs/seaice.md,
 * Curvilinear grids on the sphere): node frames, cell planes, the bilinear
 * map of each cell and the rotations between frames, from node positions.
 * Run once per run, on the device: the host packs the grid file's points
 * into two tables (cryo_seaice_geometry_points), the component puts them on
 * the device, and four loops fill the geometry arrays there: one over the
 * nodes of the two rings turning each node's longitude and latitude into
 * their cosines and sines (the only trigonometry a node costs, once), one
 * over the nodes storing each node's grid direction e1 (once, not for each
 * of the 4 cells that use it: recomputed per cell, the geometry took 1.34
 * times as long on the CPU), then one over cells and one over nodes reading
 * those.
 *
 * Every value of a cell or node is computed from the positions of that cell's
 * corners or that node's neighbours alone, in a fixed order, so the ranks that
 * hold a cell (its owner, and neighbours in their halo ring) compute it bit for
 * bit alike. Each point is rebuilt from its node's stored cosines and sines
 * with the products a direct evaluation would use, so the values are those of
 * evaluating every node where it is used (the geometry's host code before it
 * moved to the device, the same bits on the CPU build).
 */
#include <float.h>
#include <math.h>

#include "cryo_acc.h"
#include "halo.h"
#include "seaice.h"
#include "seaice_quad_cell.h"

#define DEGREE 0.017453292519943295769 /* pi / 180 */

/* Values of a node in the node table: in-domain flag, then x, y as read;
 * on the sphere the geometry turns x, y into cos x, sin x, cos y, sin y;
 * then the node's grid direction e1 (3 values), which the geometry fills. */
enum { NODE_OK = 0, NODE_X, NODE_Y, NODE_CY, NODE_SY, NODE_E1 };
/* Values of a cell in the cell table: in-domain flag, centre x, y. */
enum { CELL_OK = 0, CELL_X, CELL_Y };

typedef struct {
  double x, y, z;
} vec3;

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline vec3 sub(vec3 a, vec3 b) {
  return (vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline vec3 scale(vec3 a, double s) {
  return (vec3){a.x * s, a.y * s, a.z * s};
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline double dot(vec3 a, vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* The part of t in the plane normal to n (a unit vector), normalized. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline vec3 tangent_unit(vec3 t, vec3 n) {
  const vec3 p = sub(t, scale(n, dot(t, n)));
  return scale(p, 1.0 / sqrt(dot(p, p)));
}

/* Position (m), unit normal and the unit vectors east and north of a point,
 * from the cosines and sines of its longitude and latitude (cl, sl, cp, sp)
 * on the sphere of radius `radius`, or its x, y (m) in the plane. At the
 * poles east is still defined by the longitude given. */
typedef struct {
  vec3 r, n, east, north;
} point;

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline point point_of(int spherical, double radius, double cl, double sl, double cp,
                             double sp) {
  point p;
  if (!spherical) {
    p.r = (vec3){cl, sl, 0.0};
    p.n = (vec3){0.0, 0.0, 1.0};
    p.east = (vec3){1.0, 0.0, 0.0};
    p.north = (vec3){0.0, 1.0, 0.0};
    return p;
  }
  p.n = (vec3){cp * cl, cp * sl, sp};
  p.r = scale(p.n, radius);
  p.east = (vec3){-sl, cl, 0.0};
  p.north = (vec3){-sp * cl, -sp * sl, cp};
  return p;
}

/* Node (i, j), i in [-2, nx+2], j in [-2, ny+2], of the node table (nxr =
 * nx + 5 nodes a row), after cryo_seaice_geometry's first loop. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline point node_at(const double *nodes, int nxr, int spherical, double radius, int i,
                            int j) {
  const double *t = nodes + ((long)(j + 2) * nxr + (i + 2)) * CRYO_SEAICE_GNODE;
  return point_of(spherical, radius, t[NODE_X], t[NODE_Y], t[NODE_CY], t[NODE_SY]);
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline int node_ok(const double *nodes, int nxr, int i, int j) {
  return nodes[((long)(j + 2) * nxr + (i + 2)) * CRYO_SEAICE_GNODE + NODE_OK] != 0.0;
}

/* e1 of node (i, j) between its neighbours on its grid line of constant j:
 * centred where both are in the domain, one-sided at the edge of the domain;
 * c is the node's own point. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline vec3 node_e1_of(const double *nodes, int nxr, int spherical, double radius, int i,
                              int j, const point *c) {
  const int w_ok = node_ok(nodes, nxr, i - 1, j), e_ok = node_ok(nodes, nxr, i + 1, j);
  vec3 t;
  if (w_ok && e_ok)
    t = sub(node_at(nodes, nxr, spherical, radius, i + 1, j).r,
            node_at(nodes, nxr, spherical, radius, i - 1, j).r);
  else if (e_ok)
    t = sub(node_at(nodes, nxr, spherical, radius, i + 1, j).r, c->r);
  else
    t = sub(c->r, node_at(nodes, nxr, spherical, radius, i - 1, j).r);
  return tangent_unit(t, c->n);
}

/* e1 of node (i, j), i in [-1, nx+1], j in [-1, ny+1], as node_e1s stored it. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline vec3 node_e1(const double *nodes, int nxr, int i, int j) {
  const double *t = nodes + ((long)(j + 2) * nxr + (i + 2)) * CRYO_SEAICE_GNODE + NODE_E1;
  return (vec3){t[0], t[1], t[2]};
}

void cryo_seaice_geometry_points(const cryo_block *b, const cryo_seaice_grid_points *g,
                                 double *nodes, double *cells) {
  const long nring = (long)(b->nx + 5) * (b->ny + 5);
  for (long k = 0; k < nring; ++k) {
    double *t = nodes + k * CRYO_SEAICE_GNODE;
    t[NODE_OK] = g->node_ok[k] ? 1.0 : 0.0;
    t[NODE_X] = g->node_x[k];
    t[NODE_Y] = g->node_y[k];
    for (int k = NODE_CY; k < CRYO_SEAICE_GNODE; ++k)
      t[k] = 0.0;
  }
  for (long q = 0; q < CRYO_NCELL(b); ++q) {
    double *t = cells + q * CRYO_SEAICE_GCELL;
    t[CELL_OK] = g->cell_ok[q] ? 1.0 : 0.0;
    t[CELL_X] = g->cell_x[q];
    t[CELL_Y] = g->cell_y[q];
  }
}

/* On the sphere, each node's longitude and latitude in degrees become
 * their cosines and sines (point_of's cl, sl, cp, sp), in place. */
static void node_trig(const cryo_block *b, const cryo_seaice_grid_points *g, double *nodes) {
  const long nring = (long)(b->nx + 5) * (b->ny + 5);
  if (!g->spherical) return;
  CRYO_DEVICE_LOOP((nodes))
  for (long k = 0; k < nring; ++k) {
    double *t = nodes + k * CRYO_SEAICE_GNODE;
    const double x = t[NODE_X] * DEGREE, y = t[NODE_Y] * DEGREE;
    t[NODE_X] = cos(x);
    t[NODE_Y] = sin(x);
    t[NODE_CY] = cos(y);
    t[NODE_SY] = sin(y);
  }
}

/* e1 of every node of the block in the domain (the block's nodes and one
 * ring, whose neighbours the table holds), each computed once for the 4
 * cells and the node that use it. */
static void node_e1s(const cryo_block *b, const cryo_seaice_grid_points *g, double *nodes) {
  const int nxn = b->nx + 3, nxr = b->nx + 5, spherical = g->spherical;
  const double radius = g->radius;
  const long nnode = CRYO_NNODE(b);
  CRYO_DEVICE_LOOP((nodes))
  for (long n = 0; n < nnode; ++n) {
    const int i = (int)(n % nxn) - 1, j = (int)(n / nxn) - 1;
    if (!node_ok(nodes, nxr, i, j)) continue;
    const point p = node_at(nodes, nxr, spherical, radius, i, j);
    const vec3 e = node_e1_of(nodes, nxr, spherical, radius, i, j, &p);
    double *t = nodes + ((long)(j + 2) * nxr + (i + 2)) * CRYO_SEAICE_GNODE + NODE_E1;
    t[0] = e.x, t[1] = e.y, t[2] = e.z;
  }
}

/* geom and rot of every cell of the block (halo ring included) with its 4
 * corners in the domain, else zeros: the map and corner rotations of
 * quad_cell_geometry, and the cell frame's E1 against east at the centre.
 * A cell without a frame (a T fold's flat pivot cell, or one at an F fold's
 * pivot node, which has no direction) is land (namelists/README.md, Grid
 * files; cryo_seaice.c) and gets the zeros of a cell outside the domain,
 * which carry no flux and no force. */
static void cell_geometry(const cryo_block *b, const cryo_seaice_grid_points *g,
                          const double *nodes, const double *cells, double *geom, double *rot) {
  const int nxc = b->nx + 2, nxr = b->nx + 5, spherical = g->spherical;
  const double radius = g->radius;
  const long ncell = CRYO_NCELL(b);
  CRYO_DEVICE_LOOP((nodes, cells, geom, rot))
  for (long q = 0; q < ncell; ++q) {
    const int i = (int)(q % nxc) - 1, j = (int)(q / nxc) - 1;
    double *gq = geom + q * CRYO_SEAICE_NGEOM, *rq = rot + 2 * q;
    for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
      gq[k] = 0.0;
    rq[0] = rq[1] = 0.0;
    int ok = cells[q * CRYO_SEAICE_GCELL + CELL_OK] != 0.0;
    for (int k = 0; k < 4; ++k)
      ok = ok && node_ok(nodes, nxr, i + k % 2, j + k / 2);
    if (!ok) continue;
    /* corners (i, j), (i+1, j), (i, j+1), (i+1, j+1) */
    double r[12], e1[12];
    for (int k = 0; k < 4; ++k) {
      const int ik = i + k % 2, jk = j + k / 2;
      const vec3 p = node_at(nodes, nxr, spherical, radius, ik, jk).r;
      const vec3 e = node_e1(nodes, nxr, ik, jk);
      r[3 * k] = p.x, r[3 * k + 1] = p.y, r[3 * k + 2] = p.z;
      e1[3 * k] = e.x, e1[3 * k + 1] = e.y, e1[3 * k + 2] = e.z;
    }
    double frame[3];
    quad_cell_geometry(r, e1, gq, frame);
    const vec3 E1 = {frame[0], frame[1], frame[2]};
    const double *c = cells + q * CRYO_SEAICE_GCELL;
    const double x = c[CELL_X] * DEGREE, y = c[CELL_Y] * DEGREE;
    const point pc = spherical ? point_of(1, radius, cos(x), sin(x), cos(y), sin(y))
                               : point_of(0, radius, c[CELL_X], c[CELL_Y], 0.0, 0.0);
    const double ce = dot(E1, pc.east), cn = dot(E1, pc.north), norm = sqrt(ce * ce + cn * cn);
    rq[0] = ce / norm;
    rq[1] = cn / norm;
    int finite = isfinite(rq[0]) && isfinite(rq[1]);
    for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
      finite = finite && isfinite(gq[k]);
    if (finite) continue;
    for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
      gq[k] = 0.0;
    rq[0] = rq[1] = 0.0;
  }
}

/* fcor and nrot of every node of the block in the domain (others 0): the
 * Coriolis parameter and the node's grid direction e1 against east. */
static void node_geometry(const cryo_block *b, const cryo_seaice_grid_points *g,
                          const double *nodes, double *fcor, double *nrot) {
  const int nxn = b->nx + 3, nxr = b->nx + 5, spherical = g->spherical;
  const double radius = g->radius, two_omega = 2.0 * g->omega, f_plane = g->f_plane;
  const long nnode = CRYO_NNODE(b);
  CRYO_DEVICE_LOOP((nodes, fcor, nrot))
  for (long n = 0; n < nnode; ++n) {
    const int i = (int)(n % nxn) - 1, j = (int)(n / nxn) - 1;
    fcor[n] = nrot[2 * n] = nrot[2 * n + 1] = 0.0;
    if (!node_ok(nodes, nxr, i, j)) continue;
    const point p = node_at(nodes, nxr, spherical, radius, i, j);
    const vec3 e1 = node_e1(nodes, nxr, i, j);
    const double ce = dot(e1, p.east), cn = dot(e1, p.north), norm = sqrt(ce * ce + cn * cn);
    /* an F fold's pivot has both neighbours on its row at one point: no
     * direction (it is land, cryo_seaice.c) */
    if (!(norm > 0.0)) continue;
    nrot[2 * n] = ce / norm;
    nrot[2 * n + 1] = cn / norm;
    /* sin(lat) is the node's stored sine: 2 omega sin(lat) (Coriolis) */
    fcor[n] = spherical
                  ? two_omega * nodes[((long)(j + 2) * nxr + (i + 2)) * CRYO_SEAICE_GNODE + NODE_SY]
                  : f_plane;
  }
}

void cryo_seaice_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, double *nodes,
                          const double *cells, double *geom, double *rot, double *fcor,
                          double *nrot) {
  node_trig(b, g, nodes);
  node_e1s(b, g, nodes);
  cell_geometry(b, g, nodes, cells, geom, rot);
  node_geometry(b, g, nodes, fcor, nrot);
}

double cryo_seaice_narrowest_cell(const cryo_block *b, const double *geom, const double *mask) {
  const int nx = b->nx, nxc = b->nx + 2;
  const long nown = (long)b->nx * b->ny;
  double width = INFINITY;
  /* a minimum is exact: the same in any order of the cells */
  CRYO_DEVICE_LOOP_REDUCE((geom, mask), min, width)
  for (long e = 0; e < nown; ++e) {
    const long q = (e / nx + 1) * nxc + e % nx + 1; /* CRYO_CELL(b, e % nx, e / nx) */
    const double *gq = geom + q * CRYO_SEAICE_NGEOM;
    const double w1 = 2.0 * hypot(gq[CRYO_GEOM_A1X], gq[CRYO_GEOM_A1Y]);
    const double w2 = 2.0 * hypot(gq[CRYO_GEOM_A2X], gq[CRYO_GEOM_A2Y]);
    const double w = mask[q] != 0.0 ? fmin(w1, w2) : INFINITY;
    width = fmin(width, w);
  }
  /* OpenACC starts each gang's minimum at the largest finite double */
  return width < DBL_MAX ? width : INFINITY;
}

void cryo_seaice_node_frames(const cryo_block *b, const cryo_seaice_grid_points *g,
                             const double *nodes, double *pos, double *e1) {
  const int nxn = b->nx + 3, nxr = b->nx + 5, spherical = g->spherical;
  const double radius = g->radius;
  const long nnode = CRYO_NNODE(b);
  CRYO_DEVICE_LOOP((nodes, pos, e1))
  for (long n = 0; n < nnode; ++n) {
    const int i = (int)(n % nxn) - 1, j = (int)(n / nxn) - 1;
    vec3 r = {0.0, 0.0, 0.0}, e = {0.0, 0.0, 0.0};
    if (node_ok(nodes, nxr, i, j)) {
      const point p = node_at(nodes, nxr, spherical, radius, i, j);
      r = p.r;
      e = node_e1(nodes, nxr, i, j);
    }
    pos[3 * n] = r.x, pos[3 * n + 1] = r.y, pos[3 * n + 2] = r.z;
    e1[3 * n] = e.x, e1[3 * n + 1] = e.y, e1[3 * n + 2] = e.z;
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
