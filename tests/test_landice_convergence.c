/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Horizontal convergence order of the land-ice discretization (kernels/
 * landice_residual.c + solver), by self-convergence on the ISMIP-HOM A
 * geometry (Pattyn et al. 2008): the same problem on 8, 16, 32 and 64 columns
 * per side (4 layers), differences d_h = max |u_s,h - u_s,h/2| of the surface
 * x velocity at the coarse nodes (the vertical discretization is identical
 * at every resolution, so d_h measures the horizontal error; second order
 * gives d_h / d_h/2 -> 4).
 *   n = 1 (A = 2.5e-7 Pa-1 a-1), L = 20 km: the ratios d_8/d_16 over d_16/d_32 and
 *     d_16/d_32 over d_32/d_64 within [3.5, 4.5].
 *   n = 3 (A = 1e-16 Pa-3 a-1), L = 80 km, 8/16/32 only: ratios >= 2.8
 *     (3.24 and 3.07 measured; the nonlinear problem is pre-asymptotic here).
 * Tolerances: Newton and CG to 1e-10 so that solver error stays far below d_h.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

static double *solve_surface_u(double glen_n, int nx, double length, cryo_block *b,
                               cryo_landice_params *p, cryo_landice_state *s) {
  *b = test_li_block(nx, nx, length / nx, length / nx, 1);
  test_li_ctx ctx = {b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params_default(p);
  p->n_layers = 4;
  p->geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  p->domain_length = length;
  p->glen_n = glen_n;
  p->rate_factor = glen_n == 1.0 ? 2.5e-7 : 1.0e-16;
  p->newton_rtol = 1e-10;
  p->linear_rtol = 1e-10;
  p->linear_max_iter = 5000;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(b, p, s));
  CU_ASSERT_FATAL(cryo_landice_geometry(b, p, s, &err) == CRYO_OK);
  int st = cryo_landice_solve_velocity(b, p, s, &ops, NULL, 0, NULL, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  return s->u_surf;
}

static void self_convergence(double glen_n, double length, int levels, double lo, double hi) {
  const int n0 = 8;
  cryo_block b[4];
  cryo_landice_params p[4];
  cryo_landice_state s[4];
  double *u[4], d[3];
  for (int r = 0; r < levels; ++r)
    u[r] = solve_surface_u(glen_n, n0 << r, length, &b[r], &p[r], &s[r]);
  for (int r = 0; r + 1 < levels; ++r) {
    d[r] = 0.0;
    for (int j = 0; j < n0; ++j)
      for (int i = 0; i < n0; ++i) {
        double a = u[r][CRYO_NODE(&b[r], i << r, j << r)];
        double f = u[r + 1][CRYO_NODE(&b[r + 1], i << (r + 1), j << (r + 1))];
        d[r] = fmax(d[r], fabs(a - f));
      }
    printf("\n  n=%g L=%.0f km: max |u_%d - u_%d| = %.4e m/a", glen_n, length / 1e3, n0 << r,
           n0 << (r + 1), d[r]);
  }
  for (int r = 0; r + 2 < levels; ++r) {
    double q = d[r] / d[r + 1];
    printf("\n  ratio %.3f (order %.2f)", q, log2(q));
    CU_ASSERT(q >= lo && q <= hi);
  }
  for (int r = 0; r < levels; ++r)
    test_li_free(&p[r], &s[r]);
}

static void test_x_order_n1(void) {
  self_convergence(1.0, 20.0e3, 4, 3.5, 4.5);
}

static void test_x_order_n3(void) {
  self_convergence(3.0, 80.0e3, 3, 2.8, 4.5);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_convergence", NULL, NULL);
  CU_add_test(suite, "second order in x, n = 1", test_x_order_n1);
  CU_add_test(suite, "convergence in x, n = 3", test_x_order_n3);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
