/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* The geometry of general quadrilateral cells (kernels/seaice_geometry.c),
 * the device loops of cryo_seaice_geometry over the point tables of
 * cryo_seaice_geometry_points, against a direct evaluation written here:
 * every node's position and frame computed from its longitude and latitude
 * where it is used, with the formulas of docs/seaice.md (Curvilinear grids
 * on the sphere), as the geometry's host code did before it moved to the
 * device.
 *
 * 1. A polar stereographic block of 21 x 17 cells of 150 km around the North
 *    Pole, the block's corner at global (5, 3) of a 40 x 30 grid whose domain
 *    starts at global (7, 2): the block's west and south rings lie outside
 *    it and its edge nodes take one-sided frames; one cell inside is taken
 *    out. geom, rot, fcor, nrot and the node frames (position, e1) equal the
 *    direct evaluation bit for bit on this build (a GPU build may differ in
 *    the last bits by contraction; the GPU check compares it with the CPU
 *    build within its tolerance).
 * 2. The same in the plane (x, y in metres, f-plane): bit for bit.
 * 3. The narrowest cell (cryo_seaice_narrowest_cell) over the owned cells
 *    with mask 1 equals the host minimum of 2 min(|A1|, |A2|) exactly, also
 *    when the narrowest cell is masked out, and is INFINITY when every cell
 *    is land.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seaice.h"
#include "seaice_quad_cell.h"

#define DEG    0.017453292519943295769
#define RADIUS 6371229.0
#define NXG    40
#define NYG    30

typedef struct {
  double x, y, z;
} v3;

static v3 vsub(v3 a, v3 b) {
  return (v3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static v3 vscale(v3 a, double s) {
  return (v3){a.x * s, a.y * s, a.z * s};
}
static double vdot(v3 a, v3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Position, unit normal, east and north of a point of the grid. */
typedef struct {
  v3 r, n, east, north;
} pt;

static pt pt_at(int spherical, double x, double y) {
  pt p;
  if (!spherical) {
    p.r = (v3){x, y, 0.0};
    p.n = (v3){0.0, 0.0, 1.0};
    p.east = (v3){1.0, 0.0, 0.0};
    p.north = (v3){0.0, 1.0, 0.0};
    return p;
  }
  const double cl = cos(x * DEG), sl = sin(x * DEG), cp = cos(y * DEG), sp = sin(y * DEG);
  p.n = (v3){cp * cl, cp * sl, sp};
  p.r = vscale(p.n, RADIUS);
  p.east = (v3){-sl, cl, 0.0};
  p.north = (v3){-sp * cl, -sp * sl, cp};
  return p;
}

/* A block, its grid points (two node rings) and the tables and results. */
typedef struct {
  cryo_block b;
  cryo_seaice_grid_points g;
  double *nx_, *ny_, *cx, *cy; /* node and cell coordinates */
  unsigned char *nok, *cok;
} grid;

static long ring(const cryo_block *b, int i, int j) {
  return (long)(j + 2) * (b->nx + 5) + (i + 2);
}

/* Node (global gi, gj) of the polar stereographic map (true at the pole),
 * or in the plane a sheared, stretched box, so that no two cells agree. */
static void map_point(int spherical, double gi, double gj, double *x, double *y) {
  const double d = 150e3, X = (gi - 0.5 * NXG + 0.3) * d, Y = (gj - 0.5 * NYG + 0.2) * d;
  if (spherical) {
    *x = atan2(Y, X) / DEG;
    *y = 90.0 - 2.0 * atan(hypot(X, Y) / (2.0 * RADIUS)) / DEG;
  } else {
    *x = X + 0.21 * Y + 1e-7 * X * Y;
    *y = 0.93 * Y - 2e-7 * X * X;
  }
}

static void grid_make(grid *t, int spherical) {
  memset(t, 0, sizeof *t);
  t->b = (cryo_block){21, 17, 5, 3, NXG, NYG, 1.0, 1.0, 0, 0, CRYO_FOLD_NONE};
  const cryo_block *b = &t->b;
  const long nr = (long)(b->nx + 5) * (b->ny + 5), nc = CRYO_NCELL(b);
  t->nx_ = calloc((size_t)nr, sizeof(double));
  t->ny_ = calloc((size_t)nr, sizeof(double));
  t->nok = calloc((size_t)nr, 1);
  t->cx = calloc((size_t)nc, sizeof(double));
  t->cy = calloc((size_t)nc, sizeof(double));
  t->cok = calloc((size_t)nc, 1);
  CU_ASSERT_FATAL(t->nx_ && t->ny_ && t->nok && t->cx && t->cy && t->cok);
  /* the domain: global i >= 7, j >= 2, so that the block's west and south
   * rings lie outside it and its nodes there have one-sided frames */
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      const int gi = b->i0 + i, gj = b->j0 + j;
      const long k = ring(b, i, j);
      t->nok[k] = gi >= 7 && gj >= 2 && gi <= NXG && gj <= NYG;
      if (t->nok[k]) map_point(spherical, gi, gj, &t->nx_[k], &t->ny_[k]);
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const int gi = b->i0 + i, gj = b->j0 + j;
      const long q = CRYO_CELL(b, i, j);
      t->cok[q] = gi >= 7 && gj >= 2 && gi < NXG && gj < NYG && !(i == 9 && j == 6);
      if (t->cok[q]) map_point(spherical, gi + 0.45, gj + 0.55, &t->cx[q], &t->cy[q]);
    }
  t->g = (cryo_seaice_grid_points){spherical, RADIUS, 7.292115e-5, 1.46e-4, t->nx_,
                                   t->ny_,    t->nok, t->cx,       t->cy,   t->cok};
}

static void grid_free(grid *t) {
  free(t->nx_), free(t->ny_), free(t->nok), free(t->cx), free(t->cy), free(t->cok);
}

static pt node_pt(const grid *t, int i, int j) {
  const long k = ring(&t->b, i, j);
  return pt_at(t->g.spherical, t->nx_[k], t->ny_[k]);
}

/* e1 of node (i, j): centred between its row neighbours in the domain,
 * one-sided at the domain's edge. */
static v3 node_e1_ref(const grid *t, int i, int j) {
  const pt c = node_pt(t, i, j);
  const int w = t->nok[ring(&t->b, i - 1, j)], e = t->nok[ring(&t->b, i + 1, j)];
  v3 d;
  if (w && e)
    d = vsub(node_pt(t, i + 1, j).r, node_pt(t, i - 1, j).r);
  else if (e)
    d = vsub(node_pt(t, i + 1, j).r, c.r);
  else
    d = vsub(c.r, node_pt(t, i - 1, j).r);
  const v3 p = vsub(d, vscale(c.n, vdot(d, c.n)));
  return vscale(p, 1.0 / sqrt(vdot(p, p)));
}

/* The direct evaluation: geom, rot, fcor, nrot, pos, e1 as the arrays of
 * kernels/seaice.h. */
static void geometry_ref(const grid *t, double *geom, double *rot, double *fcor, double *nrot,
                         double *pos, double *e1) {
  const cryo_block *b = &t->b;
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const long q = CRYO_CELL(b, i, j);
      double *gq = geom + q * CRYO_SEAICE_NGEOM;
      int ok = t->cok[q];
      for (int k = 0; k < 4; ++k)
        ok = ok && t->nok[ring(b, i + k % 2, j + k / 2)];
      if (!ok) continue;
      double r[12], e[12], frame[3];
      for (int k = 0; k < 4; ++k) {
        const v3 p = node_pt(t, i + k % 2, j + k / 2).r, d = node_e1_ref(t, i + k % 2, j + k / 2);
        r[3 * k] = p.x, r[3 * k + 1] = p.y, r[3 * k + 2] = p.z;
        e[3 * k] = d.x, e[3 * k + 1] = d.y, e[3 * k + 2] = d.z;
      }
      quad_cell_geometry(r, e, gq, frame);
      const v3 E1 = {frame[0], frame[1], frame[2]};
      const pt c = pt_at(t->g.spherical, t->cx[q], t->cy[q]);
      const double ce = vdot(E1, c.east), cn = vdot(E1, c.north), m = sqrt(ce * ce + cn * cn);
      rot[2 * q] = ce / m;
      rot[2 * q + 1] = cn / m;
    }
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      const long n = CRYO_NODE(b, i, j);
      if (!t->nok[ring(b, i, j)]) continue;
      const pt p = node_pt(t, i, j);
      const v3 d = node_e1_ref(t, i, j);
      const double ce = vdot(d, p.east), cn = vdot(d, p.north), m = sqrt(ce * ce + cn * cn);
      nrot[2 * n] = ce / m;
      nrot[2 * n + 1] = cn / m;
      fcor[n] = t->g.spherical ? 2.0 * t->g.omega * sin(t->ny_[ring(b, i, j)] * DEG) : t->g.f_plane;
      pos[3 * n] = p.r.x, pos[3 * n + 1] = p.r.y, pos[3 * n + 2] = p.r.z;
      e1[3 * n] = d.x, e1[3 * n + 1] = d.y, e1[3 * n + 2] = d.z;
    }
}

/* Arrays of both evaluations; [0] the kernels', [1] the reference. */
typedef struct {
  double *geom[2], *rot[2], *fcor[2], *nrot[2], *pos[2], *e1[2];
} results;

static void compare(int spherical) {
  grid t;
  grid_make(&t, spherical);
  const cryo_block *b = &t.b;
  const size_t nc = (size_t)CRYO_NCELL(b), nn = (size_t)CRYO_NNODE(b);
  results r;
  for (int k = 0; k < 2; ++k) {
    r.geom[k] = calloc(nc * CRYO_SEAICE_NGEOM, sizeof(double));
    r.rot[k] = calloc(2 * nc, sizeof(double));
    r.fcor[k] = calloc(nn, sizeof(double));
    r.nrot[k] = calloc(2 * nn, sizeof(double));
    r.pos[k] = calloc(3 * nn, sizeof(double));
    r.e1[k] = calloc(3 * nn, sizeof(double));
    CU_ASSERT_FATAL(r.geom[k] && r.rot[k] && r.fcor[k] && r.nrot[k] && r.pos[k] && r.e1[k]);
  }
  double *nodes = calloc((size_t)(b->nx + 5) * (b->ny + 5) * CRYO_SEAICE_GNODE, sizeof(double));
  double *cells = calloc(nc * CRYO_SEAICE_GCELL, sizeof(double));
  CU_ASSERT_FATAL(nodes && cells);
  cryo_seaice_geometry_points(b, &t.g, nodes, cells);
  cryo_seaice_geometry(b, &t.g, nodes, cells, r.geom[0], r.rot[0], r.fcor[0], r.nrot[0]);
  cryo_seaice_node_frames(b, &t.g, nodes, r.pos[0], r.e1[0]);
  geometry_ref(&t, r.geom[1], r.rot[1], r.fcor[1], r.nrot[1], r.pos[1], r.e1[1]);
  const struct {
    const char *name;
    double **v;
    size_t n;
  } arrays[6] = {{"geom", r.geom, nc * CRYO_SEAICE_NGEOM},
                 {"rot", r.rot, 2 * nc},
                 {"fcor", r.fcor, nn},
                 {"nrot", r.nrot, 2 * nn},
                 {"pos", r.pos, 3 * nn},
                 {"e1", r.e1, 3 * nn}};
  for (int a = 0; a < 6; ++a) {
    long differ = 0, nonzero = 0;
    for (size_t k = 0; k < arrays[a].n; ++k) {
      differ += memcmp(&arrays[a].v[0][k], &arrays[a].v[1][k], sizeof(double)) != 0;
      nonzero += arrays[a].v[1][k] != 0.0;
    }
    printf("\n  %s, %s: %ld of %zu values differ from the direct evaluation (%ld non-zero)",
           spherical ? "sphere" : "plane", arrays[a].name, differ, arrays[a].n, nonzero);
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT(nonzero > (long)arrays[a].n / 3);
  }
  /* the narrowest owned cell of mask 1, and with that cell masked out */
  double *mask = calloc(nc, sizeof(double));
  CU_ASSERT_FATAL(mask != NULL);
  for (int round = 0; round < 3; ++round) {
    double want = INFINITY;
    long at = -1;
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i) {
        const long q = CRYO_CELL(b, i, j);
        const double *g = r.geom[1] + q * CRYO_SEAICE_NGEOM;
        if (round == 0) mask[q] = t.cok[q] ? 1.0 : 0.0;
        if (round == 2) mask[q] = 0.0;
        if (mask[q] == 0.0) continue;
        const double w = 2.0 * fmin(hypot(g[CRYO_GEOM_A1X], g[CRYO_GEOM_A1Y]),
                                    hypot(g[CRYO_GEOM_A2X], g[CRYO_GEOM_A2Y]));
        if (w < want) want = w, at = q;
      }
    const double got = cryo_seaice_narrowest_cell(b, r.geom[0], mask);
    printf("\n  %s, narrowest cell (round %d): %.17g m, direct %.17g m",
           spherical ? "sphere" : "plane", round, got, want);
    CU_ASSERT(round == 2 ? isinf(got) && got > 0 : got == want && want > 0.0);
    if (at >= 0) mask[at] = 0.0; /* round 1: the next narrowest */
  }
  free(mask);
  free(nodes);
  free(cells);
  for (int k = 0; k < 2; ++k)
    free(r.geom[k]), free(r.rot[k]), free(r.fcor[k]), free(r.nrot[k]), free(r.pos[k]),
        free(r.e1[k]);
  grid_free(&t);
}

static void test_sphere(void) {
  compare(1);
}

static void test_plane(void) {
  compare(0);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("geometry of quadrilateral cells", NULL, NULL);
  CU_add_test(s, "polar stereographic block: direct evaluation bit for bit", test_sphere);
  CU_add_test(s, "planar block: direct evaluation bit for bit", test_plane);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
