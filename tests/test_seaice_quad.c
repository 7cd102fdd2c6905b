/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* The sea-ice kernels of general quadrilateral cells (kernels/seaice_quad*.c)
 * on one block with a no-op halo, against the rectangle kernels and analytic
 * solutions.
 *
 * 1. Cartesian grid as geometry (node (i, j) at (i dx, j dy), 32 x 32 cells of
 *    16 km, Mehlmann cyclone, 6 h = 180 steps, dG0 and dG1): u, v, h, a and the
 *    stress equal the rectangle kernels' to 1e-12 of each field's largest
 *    value. Not bit for bit: the quadrilateral formulas take the same values
 *    in another order (d0 = A1 x A2 for dx dy / 4, gradients through J^-1).
 *    Likewise (dG0) with a turning angle of 25 degrees, tensile strength
 *    k_t = 0.1 and the adaptive EVP, whose alpha per cell agrees to 1e-12 too.
 * 2. The same box rotated by 30 and by 123 degrees, the forcing given as east
 *    and north components of the rotated cyclone fields at the cell centres:
 *    the node velocities, turned back to east and north (nrot) and rotated
 *    back, equal the unrotated run's to 1e-10 of the largest speed; h and a to
 *    1e-10 relative.
 * 3. Free drift (P* = 0) on a polar stereographic grid around the North
 *    Pole (30 x 30 cells of 200 km, latitudes down to 55 N, two land cells)
 *    with f = 2 Omega sin(lat) per node and a wind and current uniform in the
 *    map plane, given as east/north components at the cell centres: the node
 *    forcing, turned to east/north, is the map field to 1e-4 (averaging the
 *    cell-centre vectors to the nodes is second order in cell size over
 *    radius), and every node with 4 ocean cells reaches the steady state of
 *    its own f and forcing to 1e-9 relative:
 *    u - u_o of speed s = sqrt((-m^2 f^2 + sqrt(m^4 f^4 + 4 k^2 t^2)) / (2 k^2))
 *    at the angle atan(m f / (k s)) to the right of the wind stress t
 *    (k = rho_o C_o, m = rho_i H), the analytic free drift of docs/benchmarks.md.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seaice.h"
#include "test_seaice_common.h"
#include "seaice_cyclone.h"

#define DEG    0.017453292519943295769
#define RADIUS 6371229.0
#define OMEGA  7.292115e-5

/* Node and cell-centre positions of a grid from a function of (i, j)
 * (fractional at the centres), for cryo_seaice_geometry. */
typedef void position_fn(const void *ctx, double i, double j, double *x, double *y);

static void geometry_from(const cryo_block *b, int spherical, double f_plane, position_fn *pos,
                          const void *ctx, cryo_seaice_state *s) {
  const long nring = (long)(b->nx + 5) * (b->ny + 5);
  double *nx_ = calloc(nring, sizeof(double)), *ny_ = calloc(nring, sizeof(double));
  double *cx = calloc(CRYO_NCELL(b), sizeof(double)), *cy = calloc(CRYO_NCELL(b), sizeof(double));
  unsigned char *nok = calloc(nring, 1), *cok = calloc(CRYO_NCELL(b), 1);
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      const long k = (long)(j + 2) * (b->nx + 5) + (i + 2);
      nok[k] = i >= 0 && i <= b->nx && j >= 0 && j <= b->ny;
      if (nok[k]) pos(ctx, i, j, &nx_[k], &ny_[k]);
    }
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      cok[c] = 1;
      pos(ctx, i + 0.5, j + 0.5, &cx[c], &cy[c]);
    }
  const cryo_seaice_grid_points g = {spherical, RADIUS, OMEGA, f_plane, nx_, ny_, nok, cx, cy, cok};
  test_si_geometry(b, &g, s);
  free(nx_), free(ny_), free(cx), free(cy), free(nok), free(cok);
}

typedef struct {
  double dx, angle; /* cell size (m), rotation of the box (radians) */
} box;

static void box_position(const void *ctx, double i, double j, double *x, double *y) {
  const box *g = ctx;
  const double ca = cos(g->angle), sa = sin(g->angle);
  const double x0 = i * g->dx, y0 = j * g->dx;
  *x = g->angle == 0.0 ? x0 : ca * x0 - sa * y0;
  *y = g->angle == 0.0 ? y0 : sa * x0 + ca * y0;
}

static void cyclone_init(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const double x = (i + 0.5) * b->dx, y = (j + 0.5) * b->dy;
      s->h[c * na] = 0.3 + 0.005 * (sin(6e-5 * x) + sin(3e-5 * y));
      s->a[c * na] = 1.0;
      if (na == 3) {
        s->h[c * 3 + 1] = 0.5 * b->dx * 0.005 * 6e-5 * cos(6e-5 * x);
        s->h[c * 3 + 2] = 0.5 * b->dy * 0.005 * 3e-5 * cos(3e-5 * y);
      }
    }
}

/* Largest |x - y| over n values, relative to the largest |y|. */
static double rel_diff(const double *x, const double *y, long n) {
  double d = 0.0, m = 0.0;
  for (long k = 0; k < n; ++k) {
    d = fmax(d, fabs(x[k] - y[k]));
    m = fmax(m, fabs(y[k]));
  }
  return m > 0.0 ? d / m : d;
}

/* options: the turning angle, tensile strength and adaptive EVP on (both kernels) */
static void cartesian(int order, int options) {
  const int nx = 32, steps = 180;
  const cryo_block b = test_si_block(nx, nx, CRYO_CYCLONE_L / nx, CRYO_CYCLONE_L / nx);
  cryo_seaice_params p, q;
  cryo_seaice_params_cyclone(&p);
  p.tracer_order = order;
  if (options) {
    p.turning_angle = 25.0;
    p.tensile_k = 0.1;
    p.adaptive_evp = 1;
  }
  q = p;
  q.quad = 1;
  cryo_seaice_state r, s;
  test_si_state_alloc(&p, &b, &r);
  test_si_state_alloc(&q, &b, &s);
  r.alpha_evp = calloc((size_t)CRYO_NCELL(&b), sizeof(double));
  s.alpha_evp = calloc((size_t)CRYO_NCELL(&b), sizeof(double));
  const box g = {b.dx, 0.0};
  geometry_from(&b, 0, p.coriolis, box_position, &g, &s);
  cyclone_init(&p, &b, &r);
  cyclone_init(&q, &b, &s);
  for (int step = 0; step < steps; ++step) {
    cryo_seaice_forcing_cyclone(&b, step * p.dt, r.uair, r.vair, r.uocn, r.vocn);
    cryo_seaice_forcing_cyclone(&b, step * p.dt, s.uair, s.vair, s.uocn, s.vocn);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &r, &test_si_ops), 0);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&q, &b, &s, &test_si_ops), 0);
  }
  const long nn = CRYO_NNODE(&b), nc = CRYO_NCELL(&b), na = CRYO_SEAICE_NA(order);
  double du = rel_diff(s.u, r.u, nn), dv = rel_diff(s.v, r.v, nn);
  double dh = rel_diff(s.h, r.h, nc * na), da = rel_diff(s.a, r.a, nc * na);
  double ds = fmax(rel_diff(s.s11, r.s11, nc * 3),
                   fmax(rel_diff(s.s12, r.s12, nc * 3), rel_diff(s.s22, r.s22, nc * 3)));
  printf("\n  Cartesian geometry vs rectangles, dG%d%s, 6 h: u %.1e v %.1e h %.1e a %.1e stress "
         "%.1e",
         order, options ? " with options" : "", du, dv, dh, da, ds);
  CU_ASSERT(du <= 1e-12 && dv <= 1e-12 && dh <= 1e-12 && da <= 1e-12 && ds <= 1e-12);
  double umax = 0.0;
  for (long n = 0; n < nn; ++n)
    umax = fmax(umax, hypot(r.u[n], r.v[n]));
  CU_ASSERT(umax > 0.01); /* the comparison is not between two resting states */
  if (options) CU_ASSERT(rel_diff(s.alpha_evp, r.alpha_evp, nc) <= 1e-12);
  free(r.alpha_evp);
  free(s.alpha_evp);
  r.alpha_evp = s.alpha_evp = NULL;
  test_si_state_free(&p, &r);
  test_si_state_free(&q, &s);
}

static void test_cartesian_dg0(void) {
  cartesian(0, 0);
}

static void test_cartesian_dg1(void) {
  cartesian(1, 0);
}

static void test_cartesian_options(void) {
  cartesian(0, 1);
}

/* Cell-centred cyclone forcing at time t, vectors rotated by `angle` (the
 * forcing of the box rotated by that angle, along east and north). */
static void cell_forcing(const cryo_block *b, double t, double angle, double *f[4]) {
  const double ca = cos(angle), sa = sin(angle);
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const double x = (i + 0.5) * b->dx, y = (j + 0.5) * b->dy;
      double ua, va, uo, vo;
      cryo_cyclone_wind(x, y, t, &ua, &va);
      cryo_cyclone_ocean(x, y, &uo, &vo);
      f[0][c] = angle == 0.0 ? ua : ca * ua - sa * va;
      f[1][c] = angle == 0.0 ? va : sa * ua + ca * va;
      f[2][c] = angle == 0.0 ? uo : ca * uo - sa * vo;
      f[3][c] = angle == 0.0 ? vo : sa * uo + ca * vo;
    }
}

static void rotated(double degrees) {
  const int nx = 24, steps = 60;
  const cryo_block b = test_si_block(nx, nx, CRYO_CYCLONE_L / nx, CRYO_CYCLONE_L / nx);
  cryo_seaice_params p, q;
  cryo_seaice_params_cyclone(&p);
  q = p;
  q.quad = 1;
  cryo_seaice_state r, s;
  test_si_state_alloc(&p, &b, &r);
  test_si_state_alloc(&q, &b, &s);
  const double angle = degrees * DEG;
  const box g = {b.dx, angle};
  geometry_from(&b, 0, p.coriolis, box_position, &g, &s);
  cyclone_init(&p, &b, &r);
  cyclone_init(&q, &b, &s);
  double *fr[4], *fs[4];
  for (int k = 0; k < 4; ++k) {
    fr[k] = calloc(CRYO_NCELL(&b), sizeof(double));
    fs[k] = calloc(CRYO_NCELL(&b), sizeof(double));
  }
  for (int step = 0; step < steps; ++step) {
    cell_forcing(&b, step * p.dt, 0.0, fr);
    cell_forcing(&b, step * p.dt, angle, fs);
    cryo_seaice_forcing_to_nodes(&b, fr[0], fr[1], fr[2], fr[3], r.uair, r.vair, r.uocn, r.vocn);
    cryo_seaice_quad_forcing_to_nodes(&b, &s, 1, fs[0], fs[1], fs[2], fs[3]);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &r, &test_si_ops), 0);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&q, &b, &s, &test_si_ops), 0);
  }
  const long nn = CRYO_NNODE(&b), nc = CRYO_NCELL(&b);
  double *ue = calloc(nn, sizeof(double)), *vn = calloc(nn, sizeof(double));
  cryo_seaice_quad_east_north(&b, &s, ue, vn);
  const double ca = cos(angle), sa = sin(angle);
  double d = 0.0, umax = 0.0;
  for (int j = 0; j <= nx; ++j)
    for (int i = 0; i <= nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      const double ub = ca * ue[n] + sa * vn[n], vb = -sa * ue[n] + ca * vn[n];
      d = fmax(d, hypot(ub - r.u[n], vb - r.v[n]));
      umax = fmax(umax, hypot(r.u[n], r.v[n]));
    }
  const double dh = rel_diff(s.h, r.h, nc), da = rel_diff(s.a, r.a, nc);
  printf("\n  box rotated by %g deg: velocity %.1e of max speed %.3f m/s, h %.1e, a %.1e", degrees,
         d / umax, umax, dh, da);
  CU_ASSERT(umax > 0.01);
  CU_ASSERT(d <= 1e-10 * umax);
  CU_ASSERT(dh <= 1e-10 && da <= 1e-10);
  for (int k = 0; k < 4; ++k)
    free(fr[k]), free(fs[k]);
  free(ue), free(vn);
  test_si_state_free(&p, &r);
  test_si_state_free(&q, &s);
}

static void test_rotated_30(void) {
  rotated(30.0);
}

static void test_rotated_123(void) {
  rotated(123.0);
}

/* Polar stereographic map centred on the North Pole, true at the pole: map
 * point (X, Y) = rho (cos lon, sin lon), rho = 2 R tan((90 - lat) / 2). */
typedef struct {
  double dx, x0; /* cell size and the map x, y of node (0, 0), m */
} polar;

static void polar_lonlat(double X, double Y, double *lon, double *lat) {
  *lon = atan2(Y, X) / DEG;
  *lat = 90.0 - 2.0 * atan(hypot(X, Y) / (2.0 * RADIUS)) / DEG;
}

static void polar_position(const void *ctx, double i, double j, double *lon, double *lat) {
  const polar *g = ctx;
  polar_lonlat(g->x0 + i * g->dx, g->x0 + j * g->dx, lon, lat);
}

/* East and north components of the map-plane vector (wx, wy) at longitude lon. */
static void map_to_east_north(double lon, double wx, double wy, double *e, double *n) {
  const double cl = cos(lon * DEG), sl = sin(lon * DEG);
  *e = -sl * wx + cl * wy;
  *n = -cl * wx - sl * wy;
}

static void test_free_drift_polar(void) {
  const int nx = 30;
  const cryo_block b = test_si_block(nx, nx, 200e3, 200e3);
  const polar g = {200e3, -0.5 * nx * 200e3 + 0.3 * 200e3}; /* pole inside a cell, off-centre */
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.quad = 1;
  p.pstar = 0.0;
  p.n_evp = 5;
  p.alpha = p.beta = 50.0;
  p.dt = 3600.0;
  const double hice = 1.5;
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  geometry_from(&b, 1, 0.0, polar_position, &g, &s);
  for (long c = 0; c < CRYO_NCELL(&b); ++c) {
    s.h[c] = hice * s.mask[c];
    s.a[c] = s.mask[c];
  }
  s.mask[CRYO_CELL(&b, 4, 18)] = s.mask[CRYO_CELL(&b, 5, 18)] = 0.0; /* land */
  /* wind (8, -5) m/s and current (0.05, 0.02) m/s in the map plane */
  const double wx = 8.0, wy = -5.0, ox = 0.05, oy = 0.02;
  double *f[4];
  for (int k = 0; k < 4; ++k)
    f[k] = calloc(CRYO_NCELL(&b), sizeof(double));
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      double lon, lat;
      polar_position(&g, i + 0.5, j + 0.5, &lon, &lat);
      map_to_east_north(lon, wx, wy, &f[0][c], &f[1][c]);
      map_to_east_north(lon, ox, oy, &f[2][c], &f[3][c]);
    }
  cryo_seaice_quad_forcing_to_nodes(&b, &s, 1, f[0], f[1], f[2], f[3]);
  cryo_seaice_ice_cells_kernel(&p, &b, &s);
  for (int step = 0; step < 400; ++step) {
    cryo_seaice_velocity_save_kernel(&b, s.u, s.v, s.u_n, s.v_n);
    for (int it = 0; it < p.n_evp; ++it) {
      cryo_seaice_quad_stress_kernel(&p, &b, &s);
      cryo_seaice_quad_velocity_kernel(&p, &b, CRYO_SEAICE_NODES_ALL, &s);
    }
  }
  const long nn = CRYO_NNODE(&b);
  double *ue = calloc(nn, sizeof(double)), *vn = calloc(nn, sizeof(double));
  cryo_seaice_quad_east_north(&b, &s, ue, vn);
  const double k = p.rho_ocean * p.c_ocean, m = p.rho_ice * hice;
  double err = 0.0, ferr = 0.0, smin = 1e9, fmin_ = 1.0, fmax_ = 0.0;
  int checked = 0;
  for (int j = 0; j <= nx; ++j)
    for (int i = 0; i <= nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      const long cur = CRYO_CELL(&b, i, j);
      if (s.mask[cur] * s.mask[cur - 1] * s.mask[cur - nx - 2] * s.mask[cur - nx - 3] == 0.0)
        continue;
      double lon, lat, wex, wnx, oex, onx;
      polar_position(&g, i, j, &lon, &lat);
      map_to_east_north(lon, wx, wy, &wex, &wnx);
      map_to_east_north(lon, ox, oy, &oex, &onx);
      /* the node's own forcing along east and north */
      const double ca = s.nrot[2 * n], sa = s.nrot[2 * n + 1];
      const double we = ca * s.uair[n] - sa * s.vair[n], wn = sa * s.uair[n] + ca * s.vair[n];
      const double oe = ca * s.uocn[n] - sa * s.vocn[n], on = sa * s.uocn[n] + ca * s.vocn[n];
      ferr = fmax(ferr, fmax(hypot(we - wex, wn - wnx) / hypot(wx, wy),
                             hypot(oe - oex, on - onx) / hypot(ox, oy)));
      const double f = 2.0 * OMEGA * sin(lat * DEG), mf = m * f;
      const double ta = p.rho_air * p.c_air * hypot(we, wn);
      const double te = ta * we, tn = ta * wn, tau = ta * hypot(we, wn);
      const double sp =
          sqrt((-mf * mf + sqrt(mf * mf * mf * mf + 4.0 * k * k * tau * tau)) / (2.0 * k * k));
      const double th = -atan(mf / (k * sp)); /* to the right for f > 0 */
      const double ue_x = oe + sp * (cos(th) * te - sin(th) * tn) / tau;
      const double vn_x = on + sp * (sin(th) * te + cos(th) * tn) / tau;
      err = fmax(err, hypot(ue[n] - ue_x, vn[n] - vn_x) / sp);
      smin = fmin(smin, sp);
      fmin_ = fmin(fmin_, f);
      fmax_ = fmax(fmax_, f);
      ++checked;
    }
  printf("\n  free drift, polar stereographic: %d nodes, f in [%.3e, %.3e] s-1, max error %.1e "
         "of the local drift speed (>= %.3f m/s); node forcing within %.1e of the map field",
         checked, fmin_, fmax_, err, smin, ferr);
  CU_ASSERT(ferr <= 1e-4);
  CU_ASSERT(checked > 300);
  CU_ASSERT(fmax_ - fmin_ > 0.05 * fmax_); /* f does vary */
  CU_ASSERT(err <= 1e-9);
  for (int q = 0; q < 4; ++q)
    free(f[q]);
  free(ue), free(vn);
  test_si_state_free(&p, &s);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("sea ice on general quadrilaterals", NULL, NULL);
  CU_add_test(s, "Cartesian geometry = rectangles, dG0", test_cartesian_dg0);
  CU_add_test(s, "Cartesian geometry = rectangles, dG1", test_cartesian_dg1);
  CU_add_test(s, "Cartesian geometry = rectangles, turning angle, tensile strength, aEVP",
              test_cartesian_options);
  CU_add_test(s, "box rotated by 30 degrees", test_rotated_30);
  CU_add_test(s, "box rotated by 123 degrees", test_rotated_123);
  CU_add_test(s, "free drift on a polar stereographic grid", test_free_drift_polar);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
