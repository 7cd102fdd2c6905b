/* Solid-body rotation (Williamson et al. 1992, J. Comput. Phys. 102,
 * 211-224, test 1) on the tripolar grid files that tests/seaice_rotation.test
 * writes into ROTATION_DIR with scripts/make_grid.py (T and F fold, 5 and 2.5
 * degrees, land only in the pivots' cells): the transport kernels alone (dG0
 * and dG1, cryo_seaice_transport of kernels/seaice_step.c) carry two cosine
 * bells of height 1 on a background of 1 (h; a is a quarter of h, so that
 * neither is clipped and the totals must hold to round-off) an eighth of a
 * turn about the Earth's axis, which passes through the North Pole on the
 * fold: one of radius 11 degrees at 82 N across the fold, one of radius 25
 * degrees at 20 N across the seam. The velocity at each node is the
 * rotation's along the node's grid lines; the halo is the services' exchange
 * across the seam and the fold, with its signs. Time step 0.4 (dG0) and 0.2
 * (dG1) of the shortest crossing of an active cell (the cells next to the
 * pivots are the smallest). Asserted, per fold type and tracer order:
 * - ice volume and area at the end equal the initial ones to round-off
 *   (relative 1e-13; the exact fixed-point sums of cryo_seaice_diag_totals),
 *   the fold's faces included;
 * - the L1 error of the cell means against the exact means of the turned
 *   bells, relative to the bells' volume, falls from 5 to 2.5 degrees by at
 *   least 2^1.7 for dG1 (second order; 2.0-2.1 measured) and 2^0.5 for dG0
 *   (first order in the limit; 0.6 measured, the bells still 35-55 %
 *   smeared by upwind diffusion at these sizes), and dG1's error is below
 *   dG0's.
 * Each run prints its steps, error and conservation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cryo_grid.h"
#include "cryo_gridfile.h"
#include "cryo_test.h"
#include "seaice.h"
#include "seaice_quad_cell.h"
#include "test_seaice_common.h"

#define DEG    0.017453292519943295769
#define RADIUS 6371229.0

static const char *dir;
static cryo_grid grid;
static cryo_halo *halo;
static cryo_err herr;

static int halo_plain(void *ctx, cryo_location loc, int nlev, int nfield, double *const *f) {
  (void)ctx;
  return cryo_halo_exchange(halo, loc, nlev, nfield, f, &herr);
}
static int halo_signed(void *ctx, cryo_location loc, int nlev, int nfield, double *const *f,
                       const int *sign) {
  (void)ctx;
  return cryo_halo_exchange_signed(halo, loc, nlev, nfield, f, sign, &herr);
}
static int sum_int64(void *ctx, long long *v, int n) {
  (void)ctx;
  return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}
static int max_double(void *ctx, double *v, int n) {
  (void)ctx;
  return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* An array with the fold's signs of the named state array. */
static void exchange(const char *name, cryo_location loc, int nlev, double *f) {
  const unsigned flip = cryo_seaice_array_flip(name, nlev);
  int sign[CRYO_SEAICE_NGEOM];
  for (int k = 0; k < nlev; ++k)
    sign[k] = (flip >> k) & 1u ? -1 : 1;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange_signed(halo, loc, nlev, 1, &f, sign, &herr), CRYO_OK);
}

static void unit_of(double lon, double lat, double r[3]) {
  r[0] = cos(lat * DEG) * cos(lon * DEG);
  r[1] = cos(lat * DEG) * sin(lon * DEG);
  r[2] = sin(lat * DEG);
}

/* The two bells at a point of the unit sphere turned back by `turn` about
 * the Earth's axis, on a background of 1: the field at that time. */
static double bells(const double q[3], double turn) {
  static const double centre[2][3] = {{55.0, 82.0, 11.0}, {-125.0, 20.0, 25.0}};
  const double c = cos(turn), s = sin(turn);
  const double r[3] = {c * q[0] + s * q[1], c * q[1] - s * q[0], q[2]};
  const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  double h = 1.0;
  for (int b = 0; b < 2; ++b) {
    double e[3];
    unit_of(centre[b][0], centre[b][1], e);
    const double d = acos(fmin(1.0, fmax(-1.0, (r[0] * e[0] + r[1] * e[1] + r[2] * e[2]) / n)));
    if (d < centre[b][2] * DEG) h += 0.5 * (1.0 + cos(M_PI * d / (centre[b][2] * DEG)));
  }
  return h;
}

typedef struct result {
  double l1, dvol, darea;
  long steps;
} result;

/* Gauss-point projection of the bells on cell c (corners p[4][3] in the
 * kernels' order (i,j), (i+1,j), (i,j+1), (i+1,j+1)): the mean, and for dG1
 * the slopes of the basis {1, X - Xc, Y - Yc}. */
static void project(const double *g, const double p[4][3], double turn, int na, double *q) {
  double d0, d1, d2, xc, yc;
  quad_det_coeffs(g, &d0, &d1, &d2);
  xc = d1 / (3.0 * d0), yc = d2 / (3.0 * d0);
  double m = 0, mx = 0, my = 0, mxx = 0, mxy = 0, myy = 0, w = 0;
  const double gp = 1.0 / sqrt(3.0);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const double X = a ? gp : -gp, Y = b ? gp : -gp;
      const double f[4] = {(1 - X) * (1 - Y) / 4, (1 + X) * (1 - Y) / 4, (1 - X) * (1 + Y) / 4,
                           (1 + X) * (1 + Y) / 4};
      double r[3] = {0, 0, 0};
      for (int k = 0; k < 4; ++k)
        for (int x = 0; x < 3; ++x)
          r[x] += f[k] * p[k][x];
      const double det = d0 + d1 * X + d2 * Y, v = bells(r, turn), dx = X - xc, dy = Y - yc;
      w += det, m += det * v;
      mx += det * v * dx, my += det * v * dy;
      mxx += det * dx * dx, mxy += det * dx * dy, myy += det * dy * dy;
    }
  q[0] = m / w;
  if (na == 1) return;
  const double inv = 1.0 / (mxx * myy - mxy * mxy);
  q[1] = (myy * mx - mxy * my) * inv;
  q[2] = (mxx * my - mxy * mx) * inv;
}

static void rotate(const char *name, int order, result *res) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int nx, ny, sp, periodic;
  cryo_fold fold;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_gridfile_inquire(path, &nx, &ny, &sp, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_gridfile_inquire_topology(path, &periodic, &fold, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(
      cryo_grid_create(&grid, MPI_COMM_WORLD, nx, ny, 1.0, 1.0, 0, 0, periodic, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_set_fold(&grid, fold, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&halo, &grid, NULL, CRYO_SEAICE_NGEOM, &err), CRYO_OK);
  const cryo_block *b = &grid.block;
  cryo_gridfile gf;
  int status = cryo_gridfile_read(path, "test", b, RADIUS, 7.292115e-5, 0.0, &gf, &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.quad = 1;
  p.tracer_order = order;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, b, &s);
  test_si_geometry(b, &gf.points, &s);
  exchange("geom", CRYO_AT_CELL, CRYO_SEAICE_NGEOM, s.geom);
  exchange("rot", CRYO_AT_CELL, 2, s.rot);
  exchange("nrot", CRYO_AT_NODE, 2, s.nrot);
  cryo_seaice_geometry_fold(b, s.geom);
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      s.mask[CRYO_CELL(b, i, j)] = gf.mask[CRYO_CELL(b, i, j)];
  exchange("mask", CRYO_AT_CELL, 1, s.mask);
  /* node velocities: omega z x r along east, in the node's grid frame; a
   * turn a day, run for a quarter */
  const double omega = 2.0 * M_PI / 86400.0;
  for (int j = 0; j <= b->ny; ++j)
    for (int i = 0; i <= b->nx; ++i) {
      const long k = (long)(j + 2) * (b->nx + 5) + i + 2, n = CRYO_NODE(b, i, j);
      const double east = omega * RADIUS * cos(gf.node_y[k] * DEG);
      s.u[n] = s.nrot[2 * n] * east;
      s.v[n] = -s.nrot[2 * n + 1] * east;
    }
  exchange("u", CRYO_AT_NODE, 1, s.u);
  exchange("v", CRYO_AT_NODE, 1, s.v);
  /* the bells, and the time step from the narrowest crossing of an active cell */
  double crossing = INFINITY;
  double *exact = calloc((size_t)CRYO_NCELL(b), sizeof(double));
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      if (s.mask[c] == 0.0) continue;
      const double *g = s.geom + c * CRYO_SEAICE_NGEOM;
      double corners[4][3];
      static const int at[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
      double speed = 0.0;
      for (int m = 0; m < 4; ++m) {
        const long k = (long)(j + at[m][1] + 2) * (b->nx + 5) + i + at[m][0] + 2;
        unit_of(gf.node_x[k], gf.node_y[k], corners[m]);
        speed = fmax(speed, omega * RADIUS * cos(gf.node_y[k] * DEG));
      }
      project(g, corners, 0.0, na, s.h + c * na);
      for (int k = 0; k < na; ++k)
        s.a[c * na + k] = 0.25 * s.h[c * na + k];
      double end[3];
      project(g, corners, 0.25 * M_PI, 1, end);
      exact[c] = end[0];
      const double width = 2.0 * fmin(hypot(g[CRYO_GEOM_A1X], g[CRYO_GEOM_A1Y]),
                                      hypot(g[CRYO_GEOM_A2X], g[CRYO_GEOM_A2Y]));
      crossing = fmin(crossing, width / speed);
    }
  MPI_Allreduce(MPI_IN_PLACE, &crossing, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  const long steps = (long)ceil(0.125 * 86400.0 / ((order ? 0.2 : 0.4) * crossing));
  p.dt = 0.125 * 86400.0 / (double)steps;
  const cryo_comm_ops ops = {NULL, halo_plain, sum_int64, max_double, NULL, NULL, halo_signed};
  double v0, a0, v1, a1, speed;
  double *tracers[2] = {s.h, s.a};
  static const int dg_sign[3] = {1, -1, -1};
  CU_ASSERT_EQUAL(halo_signed(NULL, CRYO_AT_CELL, na, 2, tracers, dg_sign), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, b, &s, &ops, &v0, &a0, &speed), CRYO_OK);
  for (long n = 0; n < steps; ++n) {
    CU_ASSERT_EQUAL(halo_signed(NULL, CRYO_AT_CELL, na, 2, tracers, dg_sign), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_seaice_transport(&p, b, &s, &ops), CRYO_OK);
  }
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, b, &s, &ops, &v1, &a1, &speed), CRYO_OK);
  /* L1 of the means, a T fold's copies of half its top row left out */
  double l1[2] = {0.0, 0.0};
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const int copy = fold == CRYO_FOLD_T && b->j0 + j == ny - 1 && b->i0 + i > nx / 2;
      if (s.mask[c] == 0.0 || copy) continue;
      const double *g = s.geom + c * CRYO_SEAICE_NGEOM;
      const double area =
          4.0 * (g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X]);
      l1[0] += area * fabs(s.h[c * na] - exact[c]);
      l1[1] += area * fabs(exact[c] - 1.0);
    }
  MPI_Allreduce(MPI_IN_PLACE, l1, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  res->l1 = l1[0] / l1[1];
  res->dvol = fabs(v1 - v0) / v0;
  res->darea = fabs(a1 - a0) / a0;
  res->steps = steps;
  if (grid.rank == 0)
    printf("\n  %s dG%d: %ld steps, L1 error %.4e, volume %.17g -> change %.1e, area change %.1e",
           name, order, steps, res->l1, v0, res->dvol, res->darea);
  free(exact);
  test_si_state_free(&p, &s);
  cryo_gridfile_free(&gf);
  cryo_halo_destroy(&halo);
  cryo_grid_destroy(&grid);
}

static void test_rotation(void) {
  double dg0 = 0.0;
  for (int f = 0; f < 2; ++f)
    for (int order = 0; order <= 1; ++order) {
      result coarse, fine;
      char name[64];
      snprintf(name, sizeof name, "rot%c_72.nc", "TF"[f]);
      rotate(name, order, &coarse);
      snprintf(name, sizeof name, "rot%c_144.nc", "TF"[f]);
      rotate(name, order, &fine);
      const double rate = log2(coarse.l1 / fine.l1);
      if (grid.rank == 0) printf("\n  %c fold, dG%d: observed order %.2f", "TF"[f], order, rate);
      CU_ASSERT(rate >= (order ? 1.7 : 0.5));
      CU_ASSERT(coarse.dvol < 1e-13 && fine.dvol < 1e-13);
      CU_ASSERT(coarse.darea < 1e-13 && fine.darea < 1e-13);
      if (order == 0)
        dg0 = fine.l1;
      else
        CU_ASSERT(fine.l1 < dg0);
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  dir = getenv("ROTATION_DIR");
  if (!dir || !dir[0]) {
    fprintf(stderr, "test_seaice_rotation: set ROTATION_DIR (tests/seaice_rotation.test)\n");
    MPI_Finalize();
    return 1;
  }
  CU_TestInfo tests[] = {{"solid-body rotation across the fold and the seam", test_rotation},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("sea-ice transport on tripolar grids", tests);
  return cryo_test_run();
}
