/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Land-ice Newton-Krylov solver (kernels/landice_solver.c) on analytic cases.
 *
 * 1. Slab (docs/benchmarks.md): periodic 4 x 4 columns, H = 1000 m,
 *    alpha = 3 deg (n = 1, A = 2.140373e-7 Pa-1 a-1) or 0.5 deg (n = 3,
 *    A = 1e-16 Pa-3 a-1), rho = 910, g = 9.81, no slip or beta2 = 1000 Pa a m-1.
 *    Exact first-order solution u = rho g H t / beta2 + (1 + 4 t^2)^(-(n+1)/2)
 *    2A/(n+1) (rho g t)^n (H^(n+1) - (s - z)^(n+1)), v = 0, t = tan(alpha):
 *    u depends on s(x) - z, so u_x = t u_z at fixed z and the first-order
 *    strain rate and stress divergence pick up the 4 t^2 terms; the
 *    shallow-ice formula is the t -> 0 limit (n = 1: 100.137 m/a there,
 *    99.049 m/a with the factor 1 / (1 + 4 t^2) = 0.98913).
 *    Asserts: L2(z) error of the piecewise-linear profile (5-point Gauss per
 *    layer) relative to the surface speed <= 3e-2 at nz = 5; the ratio of
 *    errors nz = 5 -> 10 and 10 -> 20 within [3.5, 4.5] (second order);
 *    |v| <= 1e-9 max |u|; n = 1 no slip: nodal surface speed within 1e-9
 *    relative of the exact 99.049 m/a (linear elements are nodally exact
 *    for this 1-D linear problem).
 * 2. Newton on ISMIP-HOM A (L = 80 km, 8 x 8 x 4, linear_rtol = 1e-12):
 *    converges to newton_rtol = 1e-10, and once |R_k| / |R_0| < 1e-3 every
 *    following step has log(r_(k+1)) / log(r_k) >= 1.6 for r = |R| / |R_0|
 *    (quadratic convergence gives about 2).
 * 3. A solve that cannot converge (newton_max_iter = 2) returns
 *    CRYO_ERR_SOLVER with the numbers in the message.
 * 4. Bad input is an error naming the value: n_layers = 0, glen_n = 0.5,
 *    rate_factor = -1, eps_reg = 0 (CRYO_ERR_RANGE); an odd periodic cell
 *    count (CRYO_ERR_RANGE); a zero node thickness (CRYO_ERR_DATA); an
 *    ISMIP-HOM domain_length that differs from the grid (CRYO_ERR_RANGE);
 *    a geometry case without analytic geometry (CRYO_ERR_RANGE).
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

#define TEST_PI 3.14159265358979323846

typedef struct slab_result {
  double l2_rel, vmax, usurf, usurf_exact;
} slab_result;

static double slab_exact(const cryo_landice_params *p, double depth, double alpha) {
  double n = p->glen_n, tau = p->rho_ice * p->gravity * tan(alpha), h = p->thickness;
  double slide = p->no_slip ? 0.0 : tau * h / p->beta2;
  /* first-order (x derivatives at fixed z included) correction of the thin-film formula */
  double fo = pow(1.0 + 4.0 * tan(alpha) * tan(alpha), -0.5 * (n + 1.0));
  return slide + fo * 2.0 * p->rate_factor / (n + 1.0) * pow(tau, n) *
                     (pow(h, n + 1.0) - pow(depth, n + 1.0));
}

static slab_result run_slab(double glen_n, int no_slip, int nz) {
  slab_result out = {0};
  cryo_block b = test_li_block(4, 4, 2000.0, 2000.0, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = nz;
  p.glen_n = glen_n;
  p.rate_factor = glen_n == 1.0 ? 2.140373e-7 : 1.0e-16;
  p.slope_deg = glen_n == 1.0 ? 3.0 : 0.5;
  p.thickness = 1000.0;
  p.geometry_case = CRYO_LANDICE_CASE_SLAB;
  p.no_slip = no_slip;
  p.beta2 = 1000.0;
  p.newton_rtol = 1e-10;
  p.linear_rtol = 1e-12;
  p.eps_reg = 1e-8;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  const int nlev = 2 * (nz + 1);
  const double alpha = p.slope_deg * TEST_PI / 180.0, h = p.thickness;
  const double gp[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                        0.9061798459386640};
  const double gw[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                        0.4786286704993665, 0.2369268850561891};
  out.usurf_exact = slab_exact(&p, 0.0, alpha);
  double e2 = 0.0, umax = 0.0;
  for (int j = 0; j < b.ny; ++j)
    for (int i = 0; i < b.nx; ++i) {
      const double *v = s.vel + CRYO_NODE(&b, i, j) * nlev;
      for (int k = 0; k <= nz; ++k) {
        out.vmax = fmax(out.vmax, fabs(v[2 * k + 1]));
        umax = fmax(umax, fabs(v[2 * k]));
      }
      for (int k = 0; k < nz; ++k)
        for (int q = 0; q < 5; ++q) {
          double t = 0.5 * (1.0 + gp[q]);
          double uh = (1.0 - t) * v[2 * k] + t * v[2 * k + 2];
          double depth = h * (1.0 - (k + t) / nz);
          double d = uh - slab_exact(&p, depth, alpha);
          e2 += 0.5 * gw[q] * (h / nz) * d * d;
        }
      if (i == 0 && j == 0) out.usurf = v[2 * nz];
    }
  out.l2_rel = sqrt(e2 / (b.nx * b.ny * h)) / out.usurf_exact;
  out.vmax /= umax;
  printf("\n  slab n=%g no_slip=%d nz=%2d: Newton steps %d, u_s = %.6f (exact %.6f), "
         "L2 rel %.3e",
         glen_n, no_slip, nz, nlog - 1, out.usurf, out.usurf_exact, out.l2_rel);
  test_li_free(&p, &s);
  return out;
}

static void slab_series(double glen_n, int no_slip) {
  slab_result r5 = run_slab(glen_n, no_slip, 5);
  slab_result r10 = run_slab(glen_n, no_slip, 10);
  slab_result r20 = run_slab(glen_n, no_slip, 20);
  double q1 = r5.l2_rel / r10.l2_rel, q2 = r10.l2_rel / r20.l2_rel;
  printf("\n  ratios %.3f %.3f", q1, q2);
  CU_ASSERT(r5.l2_rel <= 3e-2);
  CU_ASSERT(q1 >= 3.5 && q1 <= 4.5);
  CU_ASSERT(q2 >= 3.5 && q2 <= 4.5);
  CU_ASSERT(r20.vmax <= 1e-9);
  if (glen_n == 1.0 && no_slip) {
    CU_ASSERT(fabs(r5.usurf - r5.usurf_exact) <= 1e-9 * r5.usurf_exact);
  }
}

static void test_slab_n1_noslip(void) {
  slab_series(1.0, 1);
}
static void test_slab_n1_sliding(void) {
  slab_series(1.0, 0);
}
static void test_slab_n3_noslip(void) {
  slab_series(3.0, 1);
}
static void test_slab_n3_sliding(void) {
  slab_series(3.0, 0);
}

static int setup_ismip_a(cryo_block *b, cryo_landice_params *p, cryo_landice_state *s, int nx,
                         int nz, double length, cryo_err *err) {
  *b = test_li_block(nx, nx, length / nx, length / nx, 1);
  cryo_landice_params_default(p);
  p->n_layers = nz;
  p->geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  p->domain_length = length;
  if (!test_li_alloc(b, p, s)) return CRYO_ERR_MEMORY;
  return cryo_landice_geometry(b, p, s, err);
}

static void test_newton_quadratic(void) {
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(setup_ismip_a(&b, &p, &s, 8, 4, 80.0e3, &err) == CRYO_OK);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  p.newton_rtol = 1e-10;
  p.linear_rtol = 1e-12;
  p.linear_max_iter = 2000;
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  double r0 = hist[0].residual_norm;
  int checked = 0;
  for (int k = 0; k < nlog; ++k) {
    printf("\n  step %2d |R| = %.6e  E = %.12e  CG %4d (%.1e)  alpha %.4f", k,
           hist[k].residual_norm, hist[k].energy, hist[k].linear_iterations,
           hist[k].linear_residual, hist[k].step_length);
    double rk = hist[k].residual_norm / r0;
    if (k + 1 < nlog && rk < 1e-3) {
      double rn = hist[k + 1].residual_norm / r0;
      printf("  order %.2f", log(rn) / log(rk));
      CU_ASSERT(log(rn) / log(rk) >= 1.6);
      ++checked;
    }
  }
  CU_ASSERT(checked >= 1);
  test_li_free(&p, &s);
}

static void test_newton_failure(void) {
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(setup_ismip_a(&b, &p, &s, 4, 3, 80.0e3, &err) == CRYO_OK);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  p.newton_max_iter = 2;
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, &nlog, &err);
  CU_ASSERT(st == CRYO_ERR_SOLVER);
  CU_ASSERT(strstr(err.msg, "newton_max_iter = 2") != NULL);
  test_li_free(&p, &s);
}

static void test_bad_input(void) {
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(setup_ismip_a(&b, &p, &s, 4, 3, 80.0e3, &err) == CRYO_OK);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params q = p;
  q.n_layers = 0;
  CU_ASSERT(cryo_landice_params_check(&q, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "n_layers = 0") != NULL);
  q = p;
  q.glen_n = 0.5;
  CU_ASSERT(cryo_landice_params_check(&q, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "glen_n = 0.5") != NULL);
  q = p;
  q.rate_factor = -1.0;
  CU_ASSERT(cryo_landice_solve_velocity(&b, &q, &s, &ops, NULL, 0, NULL, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "rate_factor = -1") != NULL);
  q = p;
  q.eps_reg = 0.0;
  CU_ASSERT(cryo_landice_params_check(&q, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "eps_reg = 0") != NULL);
  s.thk_node[CRYO_NODE(&b, 2, 1)] = -1.0;
  CU_ASSERT(cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(err.msg, "thickness is negative, NaN or Inf") != NULL);
  s.thk_node[CRYO_NODE(&b, 2, 1)] = 1000.0;
  s.thk[CRYO_CELL(&b, 1, 2)] = NAN;
  CU_ASSERT(cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(err.msg, "thickness is negative, NaN or Inf") != NULL);
  cryo_block odd = test_li_block(5, 4, 1000.0, 1000.0, 1);
  CU_ASSERT(cryo_landice_solve_velocity(&odd, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "nx_global = 5") != NULL);
  q = p;
  q.domain_length = 40.0e3;
  CU_ASSERT(cryo_landice_geometry(&b, &q, &s, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "domain_length = 40000") != NULL);
  q = p;
  q.geometry_case = CRYO_LANDICE_CASE_FILE;
  CU_ASSERT(cryo_landice_geometry(&b, &q, &s, &err) == CRYO_ERR_RANGE);
  test_li_free(&p, &s);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_solver", NULL, NULL);
  CU_add_test(suite, "slab n=1 no slip", test_slab_n1_noslip);
  CU_add_test(suite, "slab n=1 sliding", test_slab_n1_sliding);
  CU_add_test(suite, "slab n=3 no slip", test_slab_n3_noslip);
  CU_add_test(suite, "slab n=3 sliding", test_slab_n3_sliding);
  CU_add_test(suite, "Newton quadratic (ISMIP-HOM A)", test_newton_quadratic);
  CU_add_test(suite, "Newton failure is an error", test_newton_failure);
  CU_add_test(suite, "bad input is an error", test_bad_input);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
