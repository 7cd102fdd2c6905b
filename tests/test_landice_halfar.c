/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Halfar similarity solution (docs/landice.md, Margins): a dome with a moving
 * margin against the analytic shallow-ice solution.
 *
 * Halfar (1983); Bueler et al. (2005), Test B: n = 3, flat bed,
 * no sliding, no surface balance, radially symmetric,
 *   H(r, t) = H0 (t0/t)^(1/9) [1 - ((t0/t)^(1/18) r / R0)^(4/3)]^(3/7),
 *   R(t) = R0 (t/t0)^(1/18),
 *   t0 = (1 / (18 Gamma)) (7/4)^3 R0^4 / H0^7,  Gamma = 2 A (rho g)^3 / 5,
 * with Test B's H0 = 3600 m, R0 = 750 km (aspect ratio H0/R0 = 0.0048),
 * A = 1e-16 Pa-3 a-1, rho 910 kg m-3, g 9.81 m s-2: t0 = 422.45 a.
 * The solution is the shallow-ice approximation's; first-order Stokes
 * approaches it as the aspect ratio goes to 0.
 *
 * Setup: the quarter dome, its centre at node (0, 0), mirror planes
 * (lateral = free_slip) at x = 0 and y = 0, the far edges at 1.25 R0
 * ice-free; no slip at the bed, 4 layers, min_thickness 1 m (the margin is
 * a cliff with the hydrostatic load on its face, docs/landice.md, Margins).
 * Cell thickness is the analytic H at the cell centres at t0; the velocity
 * is solved before each explicit thickness step; dt is the diffusive limit
 * dx^2 / (4 D_max) of the dome at t0, D_max = max_r 2 A (rho g)^3 H^5
 * |grad H|^2 / 5 = 0.126 Gamma H0^7 / R0^2. Run from t0 to 2 t0 on
 * 10 x 10, 20 x 20 and 30 x 30 cells (dx = R0/8, R0/16, R0/24 = 93.75,
 * 46.88, 31.25 km; 10, 39 and 87 steps of 42.2, 10.8 and 4.86 a).
 *
 * Measured at 2 t0 (dx = R0/8, R0/16, R0/24), and asserted (about 1.5x):
 *   centre cell thickness, relative error: 1.50e-2, 8.02e-3, 6.20e-3
 *     (<= 2.3e-2, 1.2e-2, 9.3e-3; the model's dome is too thick: it thins
 *     slower than Halfar's, and less so with finer grids and more layers,
 *     6.33e-3 with 6 layers on the middle grid);
 *   L1 thickness error / L1 norm of H: 5.49e-2, 4.53e-2, 2.80e-2
 *     (<= 8.2e-2, 6.8e-2, 4.2e-2);
 *   margin: radius of the quarter circle with the area of the cells with
 *     ice (thk >= min_thickness) minus R(2 t0): +0.71, +0.56, +0.64 dx =
 *     66.8, 26.2, 20.0 km (within 1 dx; the upwind margin runs ahead by
 *     its numerical diffusion); at t0 (the cell quantization of the
 *     initial margin) +0.14, +0.08, -0.04 dx;
 *   each of the three errors smaller on each finer grid (the radius's in
 *     metres);
 *   volume conserved to 1e-12 (measured 1e-15; no surface balance).
 * On 40 x 40 cells (dx = R0/32, not run here: about 60 s) the errors are
 * 5.25e-3, 1.68e-2 and +0.60 dx. The centre error falls 1.9x from R0/8 to
 * R0/16 (first order) and more slowly beyond, where the 4 layers' error
 * shows; the margin stays about half a cell ahead.
 * Aspect ratio (measured with R0 = 1500 and 375 km, the same cells per R0
 * and t / t0; H0/R0 = 0.0024, 0.0048, 0.0096, grid R0/24): the centre error
 * is 5.77e-3, 6.20e-3, 6.09e-3 and the margin +0.64, +0.64, +0.59 dx, so
 * these are the discretization's, not first-order Stokes' departure from
 * the shallow-ice solution; the L1 error, 3.45e-2, 2.80e-2, 2.12e-2, is
 * smaller for the steeper domes, the opposite of a first-order-Stokes-to-
 * shallow-ice difference (which vanishes as H0/R0 -> 0); its cause is not
 * identified (the element shape H/dx changes with it).
 * Wrong rate factors fail the centre assert on the middle grid: A x 0.5
 * gives +4.0e-2, A x 2 gives -3.8e-2 (A x 0.8: +2.0e-2).
 *
 * References: Halfar, P. (1983): On the dynamics of the ice sheets 2.
 * J. Geophys. Res. 88(C10), 6043-6051, doi:10.1029/JC088iC10p06043.
 * Bueler, E., Lingle, C. S., Kallen-Brown, J. A., Covey, D. N. and
 * Bowman, L. N. (2005): Exact solutions and verification of numerical
 * models for isothermal ice sheets. J. Glaciol. 51(173), 291-306,
 * doi:10.3189/172756505781829449.
 * Run time about 24 s on one CPU core (the 30 x 30 grid 20 s). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "test_landice_common.h"

#define HALFAR_H0  3600.0  /* dome height at t0, m */
#define HALFAR_R0  750.0e3 /* margin radius at t0, m */
#define HALFAR_TAU 2.0     /* final time / t0 */

/* One grid: cells per R0, and the tolerances of its errors at 2 t0. */
typedef struct halfar_grid {
  int per_r0;
  double centre_tol; /* relative error of the centre cell's thickness */
  double l1_tol;     /* L1 thickness error relative to L1 of H */
} halfar_grid;

typedef struct halfar_result {
  double centre;  /* relative error of the centre cell's thickness */
  double l1;      /* L1 thickness error / L1 norm of the analytic thickness */
  double radius;  /* area-equivalent margin radius - R(t), m */
  double volume;  /* ice volume, m3 */
  double seconds; /* CPU time of the run */
} halfar_result;

/* Gamma = 2 A (rho g)^n / (n + 2), Pa-3 a-1 (Bueler et al. 2005). */
static double halfar_gamma(const cryo_landice_params *p) {
  return 2.0 * p->rate_factor * pow(p->rho_ice * p->gravity, 3.0) / 5.0;
}

/* t0 = (1 / (18 Gamma)) (7/4)^3 R0^4 / H0^7, a (Bueler et al. 2005, Eq. 9). */
static double halfar_t0(const cryo_landice_params *p) {
  return pow(7.0 / 4.0, 3.0) * pow(HALFAR_R0, 4.0) / pow(HALFAR_H0, 7.0) / (18.0 * halfar_gamma(p));
}

/* H(r, t) of the dome at tau = t / t0, m (Halfar 1983; Bueler et al.
 * 2005); 0 beyond the margin R(t) = R0 tau^(1/18). */
static double halfar_thk(double r, double tau) {
  double inside = 1.0 - pow(pow(tau, -1.0 / 18.0) * r / HALFAR_R0, 4.0 / 3.0);
  return inside > 0.0 ? HALFAR_H0 * pow(tau, -1.0 / 9.0) * pow(inside, 3.0 / 7.0) : 0.0;
}

/* Errors of s->thk against the dome at tau. */
static void halfar_errors(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, double tau, halfar_result *r) {
  double err1 = 0.0, norm1 = 0.0, vol = 0.0, area = 0.0;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      double h = s->thk[CRYO_CELL(b, i, j)];
      double e = halfar_thk(hypot((i + 0.5) * b->dx, (j + 0.5) * b->dy), tau);
      err1 += fabs(h - e);
      norm1 += e;
      vol += h * b->dx * b->dy;
      if (h >= p->min_thickness) area += b->dx * b->dy;
    }
  double e0 = halfar_thk(hypot(0.5 * b->dx, 0.5 * b->dy), tau);
  r->centre = (s->thk[CRYO_CELL(b, 0, 0)] - e0) / e0;
  r->l1 = err1 / norm1;
  r->volume = vol;
  /* the ice covers a quarter circle of the same area */
  r->radius = sqrt(4.0 * area / M_PI) - HALFAR_R0 * pow(tau, 1.0 / 18.0);
}

/* Run the quarter dome of g from t0 to HALFAR_TAU t0 (setup in the header);
 * *r0 and *r hold the errors at t0 and at the end. */
static void halfar_run(const halfar_grid *g, halfar_result *r0, halfar_result *r) {
  const double dx = HALFAR_R0 / g->per_r0;
  const int ncell = g->per_r0 * 5 / 4;
  cryo_block b = test_li_block(ncell, ncell, dx, dx, 0);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 4;
  p.no_slip = 1;
  p.lateral_bc = CRYO_LANDICE_LATERAL_FREE_SLIP;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i) {
      int own = i >= 0 && j >= 0 && i < b.nx && j < b.ny;
      s.thk[CRYO_CELL(&b, i, j)] =
          own ? halfar_thk(hypot((i + 0.5) * dx, (j + 0.5) * dx), 1.0) : 0.0;
    }
  test_li_nodes_from_cells(&ctx, &p, &s);
  /* D_max = max_r Gamma H^5 |grad H|^2 = (16/49) (2 / 3^(3/2)) Gamma H0^7 / R0^2
   * (about 0.126 Gamma H0^7 / R0^2) at t0 */
  const double t0 = halfar_t0(&p);
  const double dmax = 0.126 * halfar_gamma(&p) * pow(HALFAR_H0, 7.0) / (HALFAR_R0 * HALFAR_R0);
  const int steps = (int)ceil((HALFAR_TAU - 1.0) * t0 / (dx * dx / (4.0 * dmax)));
  p.dt = (HALFAR_TAU - 1.0) * t0 / steps * CRYO_LANDICE_YEAR;
  halfar_errors(&b, &p, &s, 1.0, r0);
  cryo_err err;
  cryo_err_clear(&err);
  clock_t start = clock();
  int newton = 0;
  for (int n = 0; n < steps; ++n) {
    int n_log = 0;
    cryo_landice_newton_log log[64];
    int rc = cryo_landice_solve_velocity(&b, &p, &s, &ops, log, 64, &n_log, &err);
    if (rc != CRYO_OK) printf("\n  step %d: %s", n, err.msg);
    CU_ASSERT_FATAL(rc == CRYO_OK);
    newton += n_log;
    CU_ASSERT_FATAL(cryo_landice_evolve_thickness(&b, &p, &s, &ops, NULL, &err) == CRYO_OK);
  }
  r->seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  halfar_errors(&b, &p, &s, HALFAR_TAU, r);
  printf("\n  t0 %.2f a, dx %.2f km, %d x %d cells: %d steps of %.2f a, %d Newton records, %.1f s; "
         "centre %.3e, L1 %.3e, radius %+.2f dx (t0: %+.2f dx), volume change %.1e",
         t0, dx / 1e3, ncell, ncell, steps, p.dt / CRYO_LANDICE_YEAR, newton, r->seconds, r->centre,
         r->l1, r->radius / dx, r0->radius / dx, r->volume / r0->volume - 1.0);
  test_li_free(&p, &s);
}

static void test_halfar(void) {
  static const halfar_grid grids[] = {
      {8, 2.3e-2, 8.2e-2}, {16, 1.2e-2, 6.8e-2}, {24, 9.3e-3, 4.2e-2}};
  const int ng = (int)(sizeof grids / sizeof grids[0]);
  halfar_result r[3], r0;
  for (int g = 0; g < ng; ++g) {
    const double dx = HALFAR_R0 / grids[g].per_r0;
    halfar_run(&grids[g], &r0, &r[g]);
    CU_ASSERT(fabs(r[g].centre) <= grids[g].centre_tol);
    CU_ASSERT(r[g].l1 <= grids[g].l1_tol);
    CU_ASSERT(fabs(r[g].radius) <= dx);
    CU_ASSERT(fabs(r[g].volume / r0.volume - 1.0) <= 1e-12);
    if (g > 0) {
      CU_ASSERT(fabs(r[g].centre) < fabs(r[g - 1].centre));
      CU_ASSERT(r[g].l1 < r[g - 1].l1);
      CU_ASSERT(fabs(r[g].radius) < fabs(r[g - 1].radius));
    }
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_halfar", NULL, NULL);
  CU_add_test(suite, "Halfar dome from t0 to 2 t0 on three grids", test_halfar);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failed = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
