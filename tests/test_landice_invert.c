/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Twin experiment of the basal inversion (kernels/landice_invert.c,
 * cryo_landice_invert; docs/landice.md, Basal inversion): ISMIP-HOM C's
 * friction recovered from its own surface velocities.
 *
 * Setup: ISMIP-HOM C geometry (docs/benchmarks.md) at L = TWIN_L on a
 * periodic grid of TWIN_N x TWIN_N columns, TWIN_NZ layers, Glen n = 3,
 * A = 1e-16 Pa-3 a-1; Weertman sliding with m = 1, so that C is beta^2
 * (Pa a m-1), per cell. Truth: C = 1000 + 1000 sin(w x) sin(w y) at the cell
 * centres, w = 2 pi / L. Observations: the surface velocity of the truth at
 * the N = TWIN_N^2 nodes, sigma = 1 % of the node's speed (weight
 * 1 / sigma^2); with noise, each component plus sigma times a standard normal
 * number of a fixed-seed generator of this file (splitmix64 and Box-Muller).
 * First guess: C = 1000 everywhere. Solves: Newton to newton_rtol = 1e-10, CG
 * to linear_rtol = 1e-6, the adjoint to 1e-10. L-BFGS memory 10, Armijo
 * c1 = 1e-4, first step 1 in log C.
 *
 * With 2 N observed components, the misfit 1/2 sum w |u - u_obs|^2 of the
 * truth is about N (a chi-square of 2N degrees of freedom, halved): the noisy
 * inversion stops by the discrepancy principle at misfit <= TAU N.
 *
 * Asserts: every accepted iterate lowers the cost; the relative L2 error
 * |C - C_true| / |C_true| over the cells below the bounds stated at the
 * tests (measured, with margin); the clean inversion's misfit below 1e-5 of
 * the first guess's; the noisy one stops by the discrepancy principle, with
 * its misfit between 0.5 N and TAU N; bad options named.
 *
 * Measured (this setup, gamma = 1e-3): clean, 60 iterations (65 cost
 * evaluations), misfit 1.84e5 -> 0.52, error 0.033 (bound 0.05); 1 % noise,
 * the discrepancy reached after 14 iterations (16 evaluations, misfit 247.6
 * <= 256), error 0.049 (bound 0.07). Both together take 11 s on one core.
 */
#include <CUnit/Basic.h>
#include <stdint.h>
#include <stdio.h>

#include "test_landice_common.h"

#define TEST_PI 3.14159265358979323846
#define TWIN_L  80.0e3
#define TWIN_N  16
#define TWIN_NZ 5
#define TAU     1.0

/* Fixed-seed standard normal numbers, the same on every platform. */
static uint64_t rng_state = 20261128;

static double rng_uniform(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return ((z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double rng_normal(void) {
  double u1 = rng_uniform(), u2 = rng_uniform();
  return sqrt(-2.0 * log(u1)) * cos(2.0 * TEST_PI * u2);
}

typedef struct twin {
  cryo_block b;
  test_li_ctx ctx;
  cryo_comm_ops ops;
  cryo_landice_params p;
  cryo_landice_state s;
  double *u_obs, *v_obs, *weight, *c_true, *work;
  cryo_landice_misfit obs;
  cryo_landice_invert_opts opts;
} twin;

static double c_true_at(int i, int j) {
  const double w = 2.0 * TEST_PI / TWIN_N;
  return 1000.0 + 1000.0 * sin(w * (i + 0.5)) * sin(w * (j + 0.5));
}

static void set_c(twin *t, double (*f)(int, int)) {
  for (int j = 0; j < TWIN_N; ++j)
    for (int i = 0; i < TWIN_N; ++i)
      t->s.sliding_c[CRYO_CELL(&t->b, i, j)] = f(i, j);
  test_li_halo(&t->ctx, CRYO_AT_CELL, 1, 1, &t->s.sliding_c);
  t->s.given |= CRYO_LANDICE_GIVEN_SLIDING_C;
}

static double c_uniform(int i, int j) {
  (void)i;
  (void)j;
  return 1000.0;
}

static void twin_setup(twin *t, int noise) {
  memset(t, 0, sizeof *t);
  t->b = test_li_block(TWIN_N, TWIN_N, TWIN_L / TWIN_N, TWIN_L / TWIN_N, 1);
  t->ctx.b = &t->b;
  t->ops = test_li_ops(&t->ctx);
  cryo_landice_params *p = &t->p;
  cryo_landice_params_default(p);
  p->n_layers = TWIN_NZ;
  p->geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_C;
  p->domain_length = TWIN_L;
  p->no_slip = 0;
  p->sliding_law = CRYO_LANDICE_SLIDING_WEERTMAN;
  p->sliding_m = 1.0;
  p->newton_rtol = 1e-10;
  p->linear_rtol = 1e-6;
  p->linear_max_iter = 2000;
  p->newton_max_iter = 100;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&t->b, p, &t->s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&t->b, p, &t->s, &err) == CRYO_OK);
  const long nn = CRYO_NNODE(&t->b), nc = CRYO_NCELL(&t->b);
  t->u_obs = calloc(nn, sizeof(double));
  t->v_obs = calloc(nn, sizeof(double));
  t->weight = calloc(nn, sizeof(double));
  t->c_true = calloc(nc, sizeof(double));
  t->opts = (cryo_landice_invert_opts){.max_iter = 60,
                                       .memory = 10,
                                       .max_backtrack = 20,
                                       .gtol = 1e-6,
                                       .ftol = 0.0,
                                       .misfit_target = noise ? TAU * TWIN_N * TWIN_N : 0.0,
                                       .step_max = 1.0,
                                       .armijo = 1e-4};
  t->work = calloc(cryo_landice_invert_doubles(&t->b, p, t->opts.memory), sizeof(double));
  CU_ASSERT_FATAL(t->u_obs && t->v_obs && t->weight && t->c_true && t->work);
  set_c(t, c_true_at);
  for (long q = 0; q < nc; ++q)
    t->c_true[q] = t->s.sliding_c[q];
  int st = cryo_landice_solve_velocity(&t->b, p, &t->s, &t->ops, NULL, 0, NULL, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  rng_state = 20261128;
  for (int j = 0; j < TWIN_N; ++j)
    for (int i = 0; i < TWIN_N; ++i) {
      long n = CRYO_NODE(&t->b, i, j);
      double u = t->s.u_surf[n], v = t->s.v_surf[n], sigma = 0.01 * hypot(u, v);
      t->u_obs[n] = u + (noise ? sigma * rng_normal() : 0.0);
      t->v_obs[n] = v + (noise ? sigma * rng_normal() : 0.0);
      t->weight[n] = 1.0 / (sigma * sigma);
    }
  test_li_images(&t->b, 1, t->u_obs);
  test_li_images(&t->b, 1, t->v_obs);
  test_li_images(&t->b, 1, t->weight);
  t->obs = (cryo_landice_misfit){t->u_obs, t->v_obs, t->weight, 0.0, 1e-10};
  set_c(t, c_uniform);
  memset(t->s.vel, 0, sizeof(double) * nn * 2 * (TWIN_NZ + 1));
}

static void twin_free(twin *t) {
  test_li_free(&t->p, &t->s);
  free(t->u_obs);
  free(t->v_obs);
  free(t->weight);
  free(t->c_true);
  free(t->work);
}

static double rel_error(twin *t) {
  double num = 0.0, den = 0.0;
  for (int j = 0; j < TWIN_N; ++j)
    for (int i = 0; i < TWIN_N; ++i) {
      long c = CRYO_CELL(&t->b, i, j);
      num += (t->s.sliding_c[c] - t->c_true[c]) * (t->s.sliding_c[c] - t->c_true[c]);
      den += t->c_true[c] * t->c_true[c];
    }
  return sqrt(num / den);
}

/* Runs the inversion; returns the relative L2 error of C. */
static double run_twin(twin *t, double gamma, cryo_landice_invert_log *hist, int *n, int *stop) {
  cryo_err err;
  cryo_err_clear(&err);
  t->obs.gamma = gamma;
  int st = cryo_landice_invert(&t->b, &t->p, &t->s, &t->ops, &t->obs, &t->opts, t->work, hist, 100,
                               n, stop, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  for (int k = 0; k < *n; ++k) {
    printf("\n  %3d J %.6e misfit %.6e reg %.4e |g| %.3e step %.3g evals %d", hist[k].iter,
           hist[k].cost, hist[k].misfit, hist[k].regularization, hist[k].grad_norm, hist[k].step,
           hist[k].evaluations);
    if (k > 0) CU_ASSERT(hist[k].cost < hist[k - 1].cost);
  }
  double e = rel_error(t);
  printf("\n  stop %d after %d iterations, %d evaluations: relative L2 error of C %.4f", *stop,
         hist[*n - 1].iter, hist[*n - 1].evaluations, e);
  return e;
}

static void test_twin_clean(void) {
  twin t;
  twin_setup(&t, 0);
  cryo_landice_invert_log hist[100];
  int n = 0, stop = -1;
  double e = run_twin(&t, 1e-3, hist, &n, &stop);
  CU_ASSERT(hist[n - 1].misfit <= 1e-5 * hist[0].misfit);
  CU_ASSERT(e <= 0.05);
  twin_free(&t);
}

static void test_twin_noise(void) {
  twin t;
  twin_setup(&t, 1);
  cryo_landice_invert_log hist[100];
  int n = 0, stop = -1;
  double e = run_twin(&t, 1e-3, hist, &n, &stop);
  CU_ASSERT(stop == CRYO_LANDICE_STOP_DISCREPANCY);
  CU_ASSERT(hist[n - 1].misfit <= TAU * TWIN_N * TWIN_N);
  CU_ASSERT(hist[n - 1].misfit >= 0.5 * TWIN_N * TWIN_N);
  CU_ASSERT(e <= 0.07);
  twin_free(&t);
}

static void test_bad_options(void) {
  twin t;
  twin_setup(&t, 0);
  const cryo_landice_invert_opts good = t.opts;
  struct {
    cryo_landice_invert_opts o;
    const char *name;
  } bad[5] = {
      {good, "max_iter"}, {good, "memory"}, {good, "memory"}, {good, "armijo"}, {good, "step_max"}};
  bad[0].o.max_iter = 0;
  bad[1].o.memory = 0;
  bad[2].o.memory = CRYO_LANDICE_LBFGS_MAX + 1;
  bad[3].o.armijo = 1.0;
  bad[4].o.step_max = -1.0;
  for (int k = 0; k < 5; ++k) {
    cryo_err err;
    cryo_err_clear(&err);
    CU_ASSERT(cryo_landice_invert(&t.b, &t.p, &t.s, &t.ops, &t.obs, &bad[k].o, t.work, NULL, 0,
                                  NULL, NULL, &err) == CRYO_ERR_RANGE);
    CU_ASSERT(strstr(err.msg, bad[k].name) != NULL);
  }
  twin_free(&t);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_invert", NULL, NULL);
  CU_add_test(suite, "twin clean", test_twin_clean);
  CU_add_test(suite, "twin 1% noise", test_twin_noise);
  CU_add_test(suite, "bad options", test_bad_options);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
