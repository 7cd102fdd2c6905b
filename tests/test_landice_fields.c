/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Per-cell basal and rheology fields of the land-ice state (kernels/landice.h,
 * cryo_landice_fields_prepare; docs/landice.md, Basal and rheology fields):
 * the sliding coefficient C and the Coulomb limit C_max per cell, the Glen
 * rate factor A per cell and layer, and the node field beta2.
 *
 * 1. A slab (case 'slab': periodic, H = 1000 m, alpha = 0.5 deg, rho 910,
 *    g 9.81) of 32 x 2 columns of 40 km (1280 km along x), whose field
 *    takes one value in the columns i < 16 and another in i >= 16: two jumps,
 *    at x = 0 and x = 640 km. Far from them, at the nodes x = 320 km and
 *    x = 960 km (320 H from either jump), the slab must flow as a slab of
 *    that half's value: its surface speed is compared with the run of that
 *    value uniform over the whole slab (relative tolerance tol_far), and the
 *    uniform runs with the analytic slab (tests/test_landice_sliding.c:
 *    basal speed the law inverted, plus the first-order deformation
 *    fo 2 A / (n + 1) (rho g t)^n H^(n+1), fo = (1 + 4 t^2)^(-(n+1)/2)),
 *    within 1e-3 (6e-3 without sliding: the deformation's error, second order
 *    in nz, is 5.0e-3 at nz = 10). The halves couple through longitudinal
 *    stresses over a length that grows with the sliding speed: the far speed
 *    of the Weertman case is 16 % from its half's at 16 km, 6.7e-4 at
 *    160 km and 2.7e-5 at 320 km, and the same at half the dx (it is the
 *    distance, not the grid); measured at 320 km: Weertman 2.7e-5, Schoof
 *    1.1e-3 (the fast Coulomb half, 1.1 km/a, nearly a plug), beta2 1.1e-6,
 *    A 6e-8; tol_far is 1e-4, 2e-3, 1e-5, 1e-6. The two halves' analytic
 *    speeds differ by a factor >= 1.9, so a field read in the wrong cells,
 *    ignored, or averaged fails.
 *    Cases (nz = 10, n = 3, eps_reg 1e-8, Newton rtol 1e-10):
 *      - Weertman, C = 1e4 | 1.3e4 Pa m^(-1/3) a^(1/3), m = 1/3;
 *      - Schoof, C = 1e4, C_max = 0.0105 | 0.035 (the Coulomb limit matters:
 *        |tau_b| is 83 %, then 25 %, of C_max N);
 *      - linear, beta2 = 150 | 400 Pa a m-1 (node field: its nodes at the
 *        jumps take the mean, as a geometry file's cell values do);
 *      - no slip, A = 1e-16 | 2e-16 Pa-3 a-1 in every layer.
 * 2. A rate factor varying with depth (3-D): no slip, glen_n = 1 (the linear
 *    elements are then exact at the nodes for a coefficient constant in each
 *    layer), 4 x 2 columns of 1 km, slope 3 deg, nz = 8,
 *    A_k = 2.14e-7 (1 + 3 (nz - 1 - k) / (nz - 1)) Pa-1 a-1 (4 times softer
 *    at the bed). Surface speed against
 *      u_s = fo 2 rho g t sum_k A_k ((H - z_k)^2 - (H - z_k+1)^2) / 2
 *    within 1e-9 relative; the speed of the layer-mean A is off by > 10 %.
 * 3. Bit for bit: each field given with the uniform namelist value (Weertman
 *    C, Tsai C and C_max, Schoof C_max, A) gives the same velocity bits as
 *    the field not given (the params value).
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "test_landice_common.h"

#define TEST_PI 3.14159265358979323846

enum field_kind { FIELD_SLIDING_C, FIELD_COULOMB_C, FIELD_BETA2, FIELD_RATE_FACTOR };

static const char *const field_names[] = {"sliding_c", "coulomb_c", "beta2", "rate_factor"};

/* Values of the field by global column: left for i < nx / 2, right from there. */
typedef struct halves {
  double left, right;
} halves;

static double half_value(halves h, int gi, int nx) {
  gi = (gi % nx + nx) % nx;
  return gi < nx / 2 ? h.left : h.right;
}

/* Give the field `kind` of s the halves' values (halo included). */
static void give_field(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                       int kind, halves h) {
  const int nz = p->n_layers;
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      double v = half_value(h, i, b->nx_global);
      long q = CRYO_CELL(b, i, j);
      if (kind == FIELD_SLIDING_C) s->sliding_c[q] = v;
      if (kind == FIELD_COULOMB_C) s->coulomb_c[q] = v;
      if (kind == FIELD_RATE_FACTOR)
        for (int k = 0; k < nz; ++k)
          s->rate_factor[q * nz + k] = v;
    }
  if (kind == FIELD_SLIDING_C) s->given |= CRYO_LANDICE_GIVEN_SLIDING_C;
  if (kind == FIELD_COULOMB_C) s->given |= CRYO_LANDICE_GIVEN_COULOMB_C;
  if (kind == FIELD_RATE_FACTOR) s->given |= CRYO_LANDICE_GIVEN_RATE_FACTOR;
  if (kind == FIELD_BETA2) /* a node takes the mean of its 4 cells, as the geometry file's beta2 */
    for (int j = -1; j <= b->ny + 1; ++j)
      for (int i = -1; i <= b->nx + 1; ++i)
        s->beta2[CRYO_NODE(b, i, j)] =
            0.5 * (half_value(h, i - 1, b->nx_global) + half_value(h, i, b->nx_global));
}

static void slab_params(cryo_landice_params *p, int law) {
  cryo_landice_params_default(p);
  p->n_layers = 10;
  p->slope_deg = 0.5;
  p->thickness = 1000.0;
  p->geometry_case = CRYO_LANDICE_CASE_SLAB;
  p->no_slip = law < 0;
  p->sliding_law = law < 0 ? CRYO_LANDICE_SLIDING_LINEAR : law;
  p->sliding_c = 1.0e4;
  p->sliding_m = 1.0 / 3.0;
  p->coulomb_c = 0.0175;
  p->newton_rtol = 1e-10;
  p->linear_rtol = 1e-12;
  p->eps_reg = 1e-8;
}

/* Solve the slab of params p on nx x 2 columns of dx with field `kind`
 * given by halves h (kind < 0: none); the velocity into vel (CRYO_NNODE
 * 2 (nz + 1) values) when not NULL, the surface speed at the nodes i = nx/4,
 * 3 nx/4 into us[2]. */
static void solve_slab(const cryo_landice_params *p0, int nx, double dx, int kind, halves h,
                       double us[2], double *vel) {
  cryo_block b = test_li_block(nx, 2, dx, dx, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p = *p0;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  if (kind >= 0) give_field(&b, &p, &s, kind, h);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  const int nlev = 2 * (p.n_layers + 1);
  for (int q = 0; q < 2; ++q)
    us[q] = s.vel[CRYO_NODE(&b, (1 + 2 * q) * nx / 4, 1) * nlev + 2 * p.n_layers];
  if (vel) memcpy(vel, s.vel, (size_t)CRYO_NNODE(&b) * nlev * sizeof *vel);
  test_li_free(&p, &s);
}

/* Analytic surface speed of the uniform slab of params p (tests/test_landice_sliding.c). */
static double slab_speed(const cryo_landice_params *p) {
  const double t = tan(p->slope_deg * TEST_PI / 180.0), hh = p->thickness, n = p->glen_n;
  const double rhog = p->rho_ice * p->gravity, tau = rhog * hh * t;
  double fo = pow(1.0 + 4.0 * t * t, -0.5 * (n + 1.0));
  double us = fo * 2.0 * p->rate_factor / (n + 1.0) * pow(rhog * t, n) * pow(hh, n + 1.0);
  if (p->no_slip) return us;
  double r = tau / p->beta2;
  if (p->sliding_law != CRYO_LANDICE_SLIDING_LINEAR) {
    double x = pow(tau / p->sliding_c, 1.0 / p->sliding_m);
    r = x;
    if (p->sliding_law == CRYO_LANDICE_SLIDING_SCHOOF)
      r = x / (1.0 - pow(p->sliding_c / (p->coulomb_c * rhog * hh), 1.0 / p->sliding_m) * x);
    r = sqrt(r * r - CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
  }
  return us + r;
}

/* The params of a uniform slab with the field `kind` at value v. */
static cryo_landice_params with_value(const cryo_landice_params *p, int kind, double v) {
  cryo_landice_params q = *p;
  if (kind == FIELD_SLIDING_C) q.sliding_c = v;
  if (kind == FIELD_COULOMB_C) q.coulomb_c = v;
  if (kind == FIELD_BETA2) q.beta2 = v;
  if (kind == FIELD_RATE_FACTOR) q.rate_factor = v;
  return q;
}

/* Far-field speeds of the two-valued slab within tol_far of the uniform runs. */
static void check_halves(int law, int kind, halves h, double tol_far) {
  cryo_landice_params p;
  slab_params(&p, law);
  const int nx = 32;
  const double dx = 40000.0, tol_exact = p.no_slip ? 6e-3 : 1e-3;
  double us[2], left[2], right[2];
  solve_slab(&p, nx, dx, kind, h, us, NULL);
  cryo_landice_params pl = with_value(&p, kind, h.left), pr = with_value(&p, kind, h.right);
  solve_slab(&pl, nx, dx, -1, h, left, NULL);
  solve_slab(&pr, nx, dx, -1, h, right, NULL);
  double exact[2] = {slab_speed(&pl), slab_speed(&pr)}, uniform[2] = {left[0], right[1]};
  printf("\n  %s %g | %g: u_s far = %.6f | %.6f m/a, uniform runs %.6f | %.6f (rel %.1e | "
         "%.1e), analytic %.6f | %.6f",
         field_names[kind], h.left, h.right, us[0], us[1], uniform[0], uniform[1],
         fabs(us[0] - uniform[0]) / uniform[0], fabs(us[1] - uniform[1]) / uniform[1], exact[0],
         exact[1]);
  for (int q = 0; q < 2; ++q) {
    CU_ASSERT(fabs(us[q] - uniform[q]) <= tol_far * uniform[q]);
    CU_ASSERT(fabs(uniform[q] - exact[q]) <= tol_exact * exact[q]);
  }
  /* the halves are told apart: each far speed is far from the other half's */
  CU_ASSERT(fmax(exact[0], exact[1]) >= 1.9 * fmin(exact[0], exact[1]));
  CU_ASSERT(fabs(us[0] - exact[1]) > 0.3 * exact[1] && fabs(us[1] - exact[0]) > 0.3 * exact[0]);
}

static void test_halves_weertman_c(void) {
  check_halves(CRYO_LANDICE_SLIDING_WEERTMAN, FIELD_SLIDING_C, (halves){1.0e4, 1.3e4}, 1e-4);
}

static void test_halves_schoof_cmax(void) {
  check_halves(CRYO_LANDICE_SLIDING_SCHOOF, FIELD_COULOMB_C, (halves){0.0105, 0.035}, 2e-3);
}

static void test_halves_linear_beta2(void) {
  check_halves(CRYO_LANDICE_SLIDING_LINEAR, FIELD_BETA2, (halves){150.0, 400.0}, 1e-5);
}

static void test_halves_rate_factor(void) {
  check_halves(-1, FIELD_RATE_FACTOR, (halves){1.0e-16, 2.0e-16}, 1e-6);
}

static void test_layered_rate_factor(void) {
  cryo_landice_params p;
  slab_params(&p, -1);
  p.glen_n = 1.0;
  p.slope_deg = 3.0;
  p.n_layers = 8;
  const int nz = p.n_layers;
  const double a0 = 2.14e-7;
  cryo_block b = test_li_block(4, 2, 1000.0, 1000.0, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  double a[CRYO_LANDICE_MAX_LAYERS], amean = 0.0;
  for (int k = 0; k < nz; ++k) {
    a[k] = a0 * (1.0 + 3.0 * (nz - 1 - k) / (nz - 1.0));
    amean += a[k] / nz;
  }
  for (long q = 0; q < CRYO_NCELL(&b); ++q)
    for (int k = 0; k < nz; ++k)
      s.rate_factor[q * nz + k] = a[k];
  s.given = CRYO_LANDICE_GIVEN_RATE_FACTOR;
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  CU_ASSERT_FATAL(cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err) == CRYO_OK);
  const double t = tan(p.slope_deg * TEST_PI / 180.0), h = p.thickness;
  const double rhog = p.rho_ice * p.gravity, fo = 1.0 / (1.0 + 4.0 * t * t);
  double exact = 0.0, depth_top = h;
  for (int k = 0; k < nz; ++k) {
    double depth_bot = depth_top, dz = h / nz;
    depth_top = depth_bot - dz;
    exact += fo * 2.0 * rhog * t * a[k] * (depth_bot * depth_bot - depth_top * depth_top) / 2.0;
  }
  p.rate_factor = amean;
  const double mean_speed = slab_speed(&p);
  const int nlev = 2 * (nz + 1);
  double us = s.vel[CRYO_NODE(&b, 2, 1) * nlev + 2 * nz];
  printf("\n  layered A: u_s = %.9f m/a, analytic %.9f (rel %.1e); with the mean A %.3f", us, exact,
         fabs(us - exact) / exact, mean_speed);
  CU_ASSERT(fabs(us - exact) <= 1e-9 * exact);
  CU_ASSERT(fabs(mean_speed - exact) > 0.1 * exact);
  test_li_free(&p, &s);
}

/* Velocity of the 8 x 2 slab of law with field kind given at its params
 * value (kind >= 0) or not given. */
static void uniform_given(int law, int kind, double *vel) {
  cryo_landice_params p;
  slab_params(&p, law);
  double v = kind == FIELD_SLIDING_C   ? p.sliding_c
             : kind == FIELD_COULOMB_C ? p.coulomb_c
                                       : p.rate_factor;
  double us[2];
  solve_slab(&p, 8, 2000.0, kind, (halves){v, v}, us, vel);
}

static void check_same_bits(int law, int kind) {
  cryo_block b = test_li_block(8, 2, 2000.0, 2000.0, 1);
  const long n = CRYO_NNODE(&b) * 2 * 11;
  double *given = calloc((size_t)n, sizeof *given), *none = calloc((size_t)n, sizeof *none);
  CU_ASSERT_FATAL(given && none);
  uniform_given(law, kind, given);
  uniform_given(law, -1, none);
  CU_ASSERT(memcmp(given, none, (size_t)n * sizeof *given) == 0);
  CU_ASSERT(none[CRYO_NODE(&b, 4, 1) * 22 + 20] > 1.0);
  free(given);
  free(none);
}

static void test_uniform_bits(void) {
  check_same_bits(CRYO_LANDICE_SLIDING_WEERTMAN, FIELD_SLIDING_C);
  check_same_bits(CRYO_LANDICE_SLIDING_TSAI, FIELD_SLIDING_C);
  check_same_bits(CRYO_LANDICE_SLIDING_TSAI, FIELD_COULOMB_C);
  check_same_bits(CRYO_LANDICE_SLIDING_SCHOOF, FIELD_COULOMB_C);
  check_same_bits(CRYO_LANDICE_SLIDING_WEERTMAN, FIELD_RATE_FACTOR);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_fields", NULL, NULL);
  CU_add_test(suite, "halves weertman C", test_halves_weertman_c);
  CU_add_test(suite, "halves schoof C_max", test_halves_schoof_cmax);
  CU_add_test(suite, "halves linear beta2", test_halves_linear_beta2);
  CU_add_test(suite, "halves rate factor", test_halves_rate_factor);
  CU_add_test(suite, "layered rate factor", test_layered_rate_factor);
  CU_add_test(suite, "uniform fields bit for bit", test_uniform_bits);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
