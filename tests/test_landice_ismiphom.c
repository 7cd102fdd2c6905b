/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* ISMIP-HOM experiments A and C (Pattyn et al. 2008; docs/benchmarks.md) at
 * L = 80 km on a coarse mesh, through the whole numerical core (geometry,
 * Newton-Krylov solve, diagnostics). Speeds are |(u_s, v_s)| at the surface
 * nodes along y = L/4.
 *
 * A: 20 x 20 columns, 5 layers, no slip, newton_rtol 1e-8. This code gives
 *   max 86.5 m/a here and 88.2 / 88.4 / 88.5 m/a on 40x40x10 / 80x80x10 /
 *   40x40x20 (converging). Asserts: converges; max in [80, 100] m/a, i.e.
 *   within 10 % of the refined value and below the shallow-ice speed at the
 *   thickest ice (2A/(n+1) (rho g tan a)^n H^(n+1) = 119.7 m/a at H = 1500 m);
 *   min in [1.48, 5] m/a (above the shallow-ice speed at H = 500 m, 1.48
 *   m/a); the field is symmetric about y = L/4 (the geometry is, and the flow
 *   is along x): u_s(x, y) = u_s(x, L/2 - y) to 1e-6 relative.
 * C: 20 x 20 columns, 5 layers, beta2 = 1000 + 1000 sin sin. This code gives
 *   max 56.6 m/a (59.6 on 40x40x10). Asserts: converges; mean surface speed
 *   above 15.8 m/a (uniform beta2 = 1000 gives 15.6 m/a sliding + 0.2 m/a
 *   deformation, docs/benchmarks.md; the slippery half slides more than the sticky
 *   half slows) and below 2 x 15.8; max along y = L/4 in [45, 70] m/a.
 * Reproducibility: A at 12 x 12 x 4 solved twice, with 1 thread and with 4
 *   OpenMP threads when built with -fopenmp: velocities bit-identical.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "test_landice_common.h"

typedef struct hom_result {
  double vmax, vmin, vmean;
  int newton_steps;
} hom_result;

static hom_result run_hom(int kind, int nx, int nz, double length, cryo_landice_state *sout,
                          cryo_block *bout) {
  hom_result out = {0};
  cryo_block b = test_li_block(nx, nx, length / nx, length / nx, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = nz;
  p.geometry_case = kind;
  p.domain_length = length;
  p.newton_rtol = 1e-8;
  p.linear_rtol = 1e-6;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  out.newton_steps = nlog - 1;
  int jq = nx / 4;
  out.vmin = INFINITY;
  for (int i = 0; i < nx; ++i) {
    long n = CRYO_NODE(&b, i, jq);
    double sp = hypot(s.u_surf[n], s.v_surf[n]);
    out.vmax = fmax(out.vmax, sp);
    out.vmin = fmin(out.vmin, sp);
  }
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      long n = CRYO_NODE(&b, i, j);
      out.vmean += hypot(s.u_surf[n], s.v_surf[n]) / (nx * nx);
    }
  printf("\n  %s L = %.0f km, %dx%dx%d: Newton %d steps, along y = L/4 max %.3f min %.3f m/a, "
         "mean %.3f m/a",
         kind == CRYO_LANDICE_CASE_ISMIP_HOM_A ? "A" : "C", length / 1e3, nx, nx, nz,
         out.newton_steps, out.vmax, out.vmin, out.vmean);
  *sout = s;
  *bout = b;
  return out;
}

static void test_hom_a_80km(void) {
  cryo_landice_state s;
  cryo_block b;
  hom_result r = run_hom(CRYO_LANDICE_CASE_ISMIP_HOM_A, 20, 5, 80.0e3, &s, &b);
  CU_ASSERT(r.vmax >= 80.0 && r.vmax <= 100.0);
  CU_ASSERT(r.vmin >= 1.48 && r.vmin <= 5.0);
  /* sin(wy) is even about y = L/4: mirror j -> ny/2 - j (mod ny) */
  double asym = 0.0;
  for (int j = 0; j <= b.ny; ++j)
    for (int i = 0; i <= b.nx; ++i) {
      int jm = ((b.ny / 2 - j) % b.ny + b.ny) % b.ny;
      double a = s.u_surf[CRYO_NODE(&b, i, j)], m = s.u_surf[CRYO_NODE(&b, i, jm)];
      asym = fmax(asym, fabs(a - m));
    }
  printf("\n  mirror asymmetry %.3e m/a", asym);
  CU_ASSERT(asym <= 1e-6 * r.vmax);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 5;
  test_li_free(&p, &s);
}

static void test_hom_c_80km(void) {
  cryo_landice_state s;
  cryo_block b;
  hom_result r = run_hom(CRYO_LANDICE_CASE_ISMIP_HOM_C, 20, 5, 80.0e3, &s, &b);
  CU_ASSERT(r.vmean > 15.8 && r.vmean < 2.0 * 15.8);
  CU_ASSERT(r.vmax >= 45.0 && r.vmax <= 70.0);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 5;
  test_li_free(&p, &s);
}

static void solve_small_a(int threads, cryo_landice_state *s, cryo_block *b,
                          cryo_landice_params *p) {
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  *b = test_li_block(12, 12, 80.0e3 / 12, 80.0e3 / 12, 1);
  test_li_ctx ctx = {b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params_default(p);
  p->n_layers = 4;
  p->geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  p->domain_length = 80.0e3;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(b, p, s));
  CU_ASSERT_FATAL(cryo_landice_geometry(b, p, s, &err) == CRYO_OK);
  CU_ASSERT_FATAL(cryo_landice_solve_velocity(b, p, s, &ops, NULL, 0, NULL, &err) == CRYO_OK);
}

static void test_threads_bitwise(void) {
  cryo_landice_state s1, s4;
  cryo_block b1, b4;
  cryo_landice_params p1, p4;
  solve_small_a(1, &s1, &b1, &p1);
  solve_small_a(4, &s4, &b4, &p4);
  size_t bytes = sizeof(double) * CRYO_NNODE(&b1) * 2 * (p1.n_layers + 1);
  CU_ASSERT(memcmp(s1.vel, s4.vel, bytes) == 0);
  test_li_free(&p1, &s1);
  test_li_free(&p4, &s4);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_ismiphom", NULL, NULL);
  CU_add_test(suite, "ISMIP-HOM A 80 km", test_hom_a_80km);
  CU_add_test(suite, "ISMIP-HOM C 80 km", test_hom_c_80km);
  CU_add_test(suite, "1 and 4 threads bit-identical", test_threads_bitwise);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
