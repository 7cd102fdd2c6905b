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

/* e1 of node (i, j): along its grid line of constant j, centred where both
 * neighbours exist, one-sided at the edge of the domain. */
static vec3 node_e1(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j) {
  const point p = node_point(b, g, i, j);
  const int west = node_ok(b, g, i - 1, j), east = node_ok(b, g, i + 1, j);
  vec3 t;
  if (west && east)
    t = sub(node_point(b, g, i + 1, j).r, node_point(b, g, i - 1, j).r);
  else if (east)
    t = sub(node_point(b, g, i + 1, j).r, p.r);
  else
    t = sub(p.r, node_point(b, g, i - 1, j).r);
  return tangent_unit(t, p.n);
}

/* geom of cell (i, j) (quad_cell_geometry, shared with kernels that compute
 * it as they go) and rot, the cell frame's E1 against east at the centre */
static void cell_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, int i, int j,
                          double *geom, double *rot) {
  const int ci[4] = {i, i + 1, i, i + 1}, cj[4] = {j, j, j + 1, j + 1};
  double r[12], e1[12];
  for (int k = 0; k < 4; ++k) {
    const vec3 p = node_point(b, g, ci[k], cj[k]).r, e = node_e1(b, g, ci[k], cj[k]);
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

void cryo_seaice_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, double *geom,
                          double *rot, double *fcor, double *nrot) {
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const long q = CRYO_CELL(b, i, j);
      double *gq = geom + q * CRYO_SEAICE_NGEOM, *rq = rot + q * 2;
      for (int k = 0; k < CRYO_SEAICE_NGEOM; ++k)
        gq[k] = 0.0;
      rq[0] = rq[1] = 0.0;
      if (g->cell_ok[q] && node_ok(b, g, i, j) && node_ok(b, g, i + 1, j) &&
          node_ok(b, g, i, j + 1) && node_ok(b, g, i + 1, j + 1))
        cell_geometry(b, g, i, j, gq, rq);
    }
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      const long n = CRYO_NODE(b, i, j);
      fcor[n] = nrot[2 * n] = nrot[2 * n + 1] = 0.0;
      if (!node_ok(b, g, i, j)) continue;
      const point p = node_point(b, g, i, j);
      const vec3 e1 = node_e1(b, g, i, j);
      const double ce = dot(e1, p.east), cn = dot(e1, p.north), norm = sqrt(ce * ce + cn * cn);
      nrot[2 * n] = ce / norm;
      nrot[2 * n + 1] = cn / norm;
      fcor[n] =
          g->spherical ? 2.0 * g->omega * sin(g->node_y[ring2(b, i, j)] * DEGREE) : g->f_plane;
    }
}

void cryo_seaice_node_frames(const cryo_block *b, const cryo_seaice_grid_points *g, double *pos,
                             double *e1) {
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      const long n = CRYO_NODE(b, i, j);
      vec3 r = {0.0, 0.0, 0.0}, e = {0.0, 0.0, 0.0};
      if (node_ok(b, g, i, j)) {
        r = node_point(b, g, i, j).r;
        e = node_e1(b, g, i, j);
      }
      pos[3 * n] = r.x, pos[3 * n + 1] = r.y, pos[3 * n + 2] = r.z;
      e1[3 * n] = e.x, e1[3 * n + 1] = e.y, e1[3 * n + 2] = e.z;
    }
}
