/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Adjoint gradient of the surface-velocity misfit with respect to log C
 * (kernels/landice_adjoint.c, cryo_landice_misfit_gradient; docs/landice.md,
 * Adjoint gradient) against central finite differences of the cost.
 *
 * Setup: the slab on a plane of docs/benchmarks.md on a periodic grid of
 * 16 x 16 columns of 2.5 km (L = 40 km), H = 1000 m, alpha = 0.5 deg, n = 3,
 * A = 1e-16 Pa-3 a-1, nz = 5, sliding m = 1/3, with a smooth per-cell
 * log C = log 1e4 + sum of 4 Fourier modes (wavenumbers 1, 2 in x and y,
 * random amplitudes up to 0.15 and phases: C within exp(+-0.6) times 1e4
 * Pa m^(-1/3) a^(1/3)). Observations: the surface velocity of the same slab
 * with another such field, u_obs, v_obs; weights 1 / sigma^2 with sigma
 * 0.5 .. 2 m/a random per node; gamma = 1e4. Solves: Newton to
 * newton_rtol = newton_atol = 1e-13 with inexact steps (CG to linear_rtol =
 * 1e-6), the adjoint CG to adjoint_rtol = 1e-13 (asserted reached), each
 * finite-difference solve warm-started from the base state.
 * Cost J recomputed here by loops of its own (misfit over the owned nodes
 * [0,16) x [0,16), regularization over the 512 faces). Weertman also on the
 * same slab cut out with free lateral edges (not periodic: flat bed and the
 * plane's slope, the nodes [0,16] x [0,16] and the 480 faces inside the
 * domain, so that the edge cells' regularization and the edge nodes' misfit
 * count as in a non-periodic run).
 *
 * Asserts, per law (Weertman; Schoof with C_max = 0.0175, as in
 * tests/test_landice_sliding.c; Tsai with C_max = 0.0099, so that
 * C_max N = 88.4 kPa caps the traction of the stickiest cells: both
 * branches hold at least 8 of the 1024 bed points (862 and 162), and every
 * bed point is at least 5e-4 relative from the kink |C r^m / (C_max N) - 1|
 * (6.3e-4), 50 times the largest relative change of C that a step makes, so
 * that the differences see one branch):
 *   - the library's cost equals the one recomputed here to 1e-12 relative;
 *   - at 6 cells, |g_adj - g_fd| <= 1e-6 |g_fd| with the central difference
 *     (J(theta + h e_c) - J(theta - h e_c)) / 2h, h = 1e-5 in log C
 *     (measured: at most 3e-9; with Tsai two of the cells lie wholly on the
 *     Coulomb branch);
 *   - along a random direction d (entries in [-1, 1] per cell), g . d
 *     against the central difference with h = 1e-6 (all cells move: the
 *     truncation error of h = 1e-5 is 7e-8 relative, of 1e-4 8e-6): within
 *     1e-6 relative (measured at most 3e-9 Weertman and Tsai, 5e-8 Schoof,
 *     whose g . d is a difference of shares 2 to 3 times larger);
 *   - both shares matter: the regularization part and the adjoint part of
 *     g . d each differ from g . d by more than 1e-3 relative (so a missing
 *     term or a flipped sign of lambda fails the 1e-6 test: checked by
 *     breaking the code (Weertman, Tsai): lambda's sign flipped gives 1.7
 *     and 2.0 relative, gamma dropped 0.17 and 9e-3, Tsai's Coulomb branch given the power
 *     branch's share 0.10);
 *   - bad input: a linear law is CRYO_ERR_RANGE, gamma < 0 and
 *     adjoint_rtol < 0 CRYO_ERR_RANGE, a zero C CRYO_ERR_DATA.
 * For Tsai the cells on the Coulomb branch have no adjoint share of their
 * own (C does not enter their traction): their gradient is the
 * regularization's, and the differences agree.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

#define TEST_PI 3.14159265358979323846
#define NXY     16

typedef struct adj_case {
  cryo_block b;
  test_li_ctx ctx;
  cryo_comm_ops ops;
  cryo_landice_params p;
  cryo_landice_state s;
  double *u_obs, *v_obs, *weight, *grad, *vel0, *theta;
  cryo_landice_misfit obs;
} adj_case;

/* Smooth random log C / C_ref of cell (i, j): 4 Fourier modes. */
typedef struct modes {
  double amp[4], phase[4];
} modes;

static modes modes_random(void) {
  modes m;
  for (int k = 0; k < 4; ++k) {
    m.amp[k] = 0.15 * rand() / (double)RAND_MAX;
    m.phase[k] = 2.0 * TEST_PI * rand() / (double)RAND_MAX;
  }
  return m;
}

static double modes_at(const modes *m, int i, int j) {
  double x = 2.0 * TEST_PI * (i + 0.5) / NXY, y = 2.0 * TEST_PI * (j + 0.5) / NXY;
  return m->amp[0] * sin(x + m->phase[0]) + m->amp[1] * cos(2.0 * y + m->phase[1]) +
         m->amp[2] * sin(x + y + m->phase[2]) + m->amp[3] * cos(2.0 * x - y + m->phase[3]);
}

/* sliding_c = exp(theta) on every cell, halo the periodic images */
static void set_c(adj_case *a, const double *theta) {
  for (int j = 0; j < NXY; ++j)
    for (int i = 0; i < NXY; ++i) {
      long c = CRYO_CELL(&a->b, i, j);
      a->s.sliding_c[c] = exp(theta[c]);
    }
  test_li_halo(&a->ctx, CRYO_AT_CELL, 1, 1, &a->s.sliding_c);
  a->s.given |= CRYO_LANDICE_GIVEN_SLIDING_C;
}

static int solve(adj_case *a) {
  cryo_err err;
  cryo_err_clear(&err);
  int st = cryo_landice_solve_velocity(&a->b, &a->p, &a->s, &a->ops, NULL, 0, NULL, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  return st;
}

/* J recomputed from s.vel and theta (loops of this test, not the library's):
 * periodic, the nodes [0,16) x [0,16) and every face once (wrapped);
 * otherwise the nodes [0,16] x [0,16] and the faces inside the domain. */
static double cost_here(adj_case *a, const double *theta) {
  const int nlev = 2 * (a->p.n_layers + 1), nz = a->p.n_layers, per = a->b.periodic_x;
  const int nn = per ? NXY : NXY + 1;
  double mis = 0.0, reg = 0.0;
  for (int j = 0; j < nn; ++j)
    for (int i = 0; i < nn; ++i) {
      long n = CRYO_NODE(&a->b, i, j);
      double du = a->s.vel[n * nlev + 2 * nz] - a->u_obs[n];
      double dv = a->s.vel[n * nlev + 2 * nz + 1] - a->v_obs[n];
      mis += 0.5 * a->weight[n] * (du * du + dv * dv);
      if (i == NXY || j == NXY) continue;
      long c = CRYO_CELL(&a->b, i, j);
      if (per || i + 1 < NXY) {
        double te = theta[CRYO_CELL(&a->b, (i + 1) % NXY, j)];
        reg += 0.5 * a->obs.gamma * (theta[c] - te) * (theta[c] - te) * a->b.dy / a->b.dx;
      }
      if (per || j + 1 < NXY) {
        double tn = theta[CRYO_CELL(&a->b, i, (j + 1) % NXY)];
        reg += 0.5 * a->obs.gamma * (theta[c] - tn) * (theta[c] - tn) * a->b.dx / a->b.dy;
      }
    }
  return mis + reg;
}

/* J at theta + h d (warm start from the base velocity). */
static double cost_at(adj_case *a, const double *d, double h) {
  const long nc = CRYO_NCELL(&a->b);
  const int nlev = 2 * (a->p.n_layers + 1);
  double *t = malloc(sizeof(double) * nc);
  for (long q = 0; q < nc; ++q)
    t[q] = a->theta[q] + h * d[q];
  set_c(a, t);
  memcpy(a->s.vel, a->vel0, sizeof(double) * CRYO_NNODE(&a->b) * nlev);
  CU_ASSERT_FATAL(solve(a) == CRYO_OK);
  double j = cost_here(a, t);
  free(t);
  return j;
}

static void adj_setup(adj_case *a, int law, int periodic) {
  memset(a, 0, sizeof *a);
  a->b = test_li_block(NXY, NXY, 2500.0, 2500.0, periodic);
  a->ctx.b = &a->b;
  a->ops = test_li_ops(&a->ctx);
  cryo_landice_params *p = &a->p;
  cryo_landice_params_default(p);
  p->n_layers = 5;
  p->slope_deg = 0.5;
  p->thickness = 1000.0;
  p->geometry_case = CRYO_LANDICE_CASE_SLAB;
  p->no_slip = 0;
  p->sliding_law = law;
  p->sliding_c = 1.0e4;
  p->sliding_m = 1.0 / 3.0;
  p->coulomb_c = law == CRYO_LANDICE_SLIDING_SCHOOF ? 0.0175 : 0.0099;
  p->newton_rtol = 1e-13;
  p->newton_atol = 1e-13;
  p->newton_max_iter = 100;
  p->linear_rtol = 1e-6;
  p->linear_max_iter = 2000;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&a->b, p, &a->s));
  if (periodic) {
    CU_ASSERT_FATAL(cryo_landice_geometry(&a->b, p, &a->s, &err) == CRYO_OK);
  } else {
    /* the same slab cut out with free edges: flat bed, the plane's slope */
    p->slope_x = -tan(p->slope_deg * TEST_PI / 180.0);
    test_li_nodes_from_cells(&a->ctx, p, &a->s);
  }
  const long nc = CRYO_NCELL(&a->b), nn = CRYO_NNODE(&a->b);
  const int nlev = 2 * (p->n_layers + 1);
  a->u_obs = calloc(nn, sizeof(double));
  a->v_obs = calloc(nn, sizeof(double));
  a->weight = calloc(nn, sizeof(double));
  a->grad = calloc(nc, sizeof(double));
  a->theta = calloc(nc, sizeof(double));
  a->vel0 = calloc((size_t)nn * nlev, sizeof(double));
  CU_ASSERT_FATAL(a->u_obs && a->v_obs && a->weight && a->grad && a->theta && a->vel0);
  srand(2025);
  modes truth = modes_random(), guess = modes_random();
  /* observations: the surface velocity with the true field */
  for (int j = 0; j < NXY; ++j)
    for (int i = 0; i < NXY; ++i)
      a->theta[CRYO_CELL(&a->b, i, j)] = log(p->sliding_c) + modes_at(&truth, i, j);
  set_c(a, a->theta);
  CU_ASSERT_FATAL(solve(a) == CRYO_OK);
  for (int j = 0; j <= NXY; ++j)
    for (int i = 0; i <= NXY; ++i) {
      long n = CRYO_NODE(&a->b, i, j);
      a->u_obs[n] = a->s.u_surf[n];
      a->v_obs[n] = a->s.v_surf[n];
      double sigma = 0.5 + 1.5 * rand() / (double)RAND_MAX;
      a->weight[n] = 1.0 / (sigma * sigma);
    }
  test_li_images(&a->b, 1, a->weight);
  a->obs = (cryo_landice_misfit){a->u_obs, a->v_obs, a->weight, 1.0e4, 1e-13};
  /* the state the gradient is taken at */
  for (int j = 0; j < NXY; ++j)
    for (int i = 0; i < NXY; ++i)
      a->theta[CRYO_CELL(&a->b, i, j)] = log(p->sliding_c) + modes_at(&guess, i, j);
  test_li_halo(&a->ctx, CRYO_AT_CELL, 1, 1, &a->theta);
  set_c(a, a->theta);
  CU_ASSERT_FATAL(solve(a) == CRYO_OK);
  memcpy(a->vel0, a->s.vel, sizeof(double) * nn * nlev);
}

static void adj_free(adj_case *a) {
  test_li_free(&a->p, &a->s);
  free(a->u_obs);
  free(a->v_obs);
  free(a->weight);
  free(a->grad);
  free(a->theta);
  free(a->vel0);
}

/* Tsai at the base state: bed points on each branch and the least relative
 * distance |C r^m / (C_max N) - 1| from the kink (N = rho g H on land). */
static double kink_distance(adj_case *a, int *n_power, int *n_coulomb) {
  const int nlev = 2 * (a->p.n_layers + 1);
  const double gp = 0.57735026918962576451;
  double dmin = 1e30;
  *n_power = *n_coulomb = 0;
  for (int j = 0; j < NXY; ++j)
    for (int i = 0; i < NXY; ++i)
      for (int q = 0; q < 4; ++q) {
        double xi = (q & 1) ? gp : -gp, eta = (q & 2) ? gp : -gp, ub = 0.0, vb = 0.0, np = 0.0;
        for (int m = 0; m < 4; ++m) {
          long n = CRYO_NODE(&a->b, i + (m & 1), j + (m >> 1));
          double psi = 0.25 * (1.0 + ((m & 1) ? xi : -xi)) * (1.0 + ((m & 2) ? eta : -eta));
          ub += psi * a->s.vel[n * nlev];
          vb += psi * a->s.vel[n * nlev + 1];
          np += psi * a->p.rho_ice * a->p.gravity * a->s.thk_node[n];
        }
        double r = sqrt(ub * ub + vb * vb + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
        double ratio =
            a->s.sliding_c[CRYO_CELL(&a->b, i, j)] * pow(r, a->p.sliding_m) / (a->p.coulomb_c * np);
        if (ratio < 1.0)
          ++*n_power;
        else
          ++*n_coulomb;
        dmin = fmin(dmin, fabs(ratio - 1.0));
      }
  return dmin;
}

static void run_gradient(int law, int periodic) {
  adj_case a;
  adj_setup(&a, law, periodic);
  const long nc = CRYO_NCELL(&a.b);
  if (law == CRYO_LANDICE_SLIDING_TSAI) {
    int np, ncl;
    double kd = kink_distance(&a, &np, &ncl);
    printf("\n  tsai: %d bed points on the power law, %d at the Coulomb limit, nearest %.2e "
           "from the kink",
           np, ncl, kd);
    CU_ASSERT(np >= 8 && ncl >= 8);
    CU_ASSERT(kd >= 5e-4);
  }
  cryo_err err;
  cryo_err_clear(&err);
  double cost[2];
  int iters = 0;
  double cg_rel = 1.0;
  int st = cryo_landice_misfit_gradient(&a.b, &a.p, &a.s, &a.ops, &a.obs, cost, a.grad, &iters,
                                        &cg_rel, &err);
  if (st != CRYO_OK) printf("\n  gradient failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  const double j0 = cost_here(&a, a.theta);
  printf("\n  law %d periodic %d: J = %.9e (misfit %.6e, regularization %.6e), adjoint CG %d "
         "iterations to %.1e",
         law, periodic, j0, cost[0], cost[1], iters, cg_rel);
  CU_ASSERT(fabs(cost[0] + cost[1] - j0) <= 1e-12 * j0);
  CU_ASSERT(cg_rel <= 1e-13);
  /* the regularization's share alone (gamma) and the adjoint's (gamma = 0) */
  double *g_reg = calloc(nc, sizeof(double)), *g_mis = calloc(nc, sizeof(double));
  double *d = calloc(nc, sizeof(double));
  CU_ASSERT_FATAL(g_reg && g_mis && d);
  cryo_landice_misfit o0 = a.obs;
  o0.gamma = 0.0;
  double c0[2];
  CU_ASSERT_FATAL(cryo_landice_misfit_gradient(&a.b, &a.p, &a.s, &a.ops, &o0, c0, g_mis, NULL, NULL,
                                               &err) == CRYO_OK);
  for (long q = 0; q < nc; ++q)
    g_reg[q] = a.grad[q] - g_mis[q];
  /* single cells */
  const int cells[6][2] = {{3, 5}, {10, 2}, {7, 12}, {14, 14}, {0, 8}, {12, 9}};
  double worst = 0.0;
  for (int k = 0; k < 6; ++k) {
    long c = CRYO_CELL(&a.b, cells[k][0], cells[k][1]);
    memset(d, 0, sizeof(double) * nc);
    d[c] = 1.0;
    const double h = 1e-5;
    double fd = (cost_at(&a, d, h) - cost_at(&a, d, -h)) / (2.0 * h);
    double rel = fabs(a.grad[c] - fd) / fabs(fd);
    worst = fmax(worst, rel);
    printf("\n  cell (%2d,%2d): adjoint %+.10e fd %+.10e rel %.2e (regularization %+.3e)",
           cells[k][0], cells[k][1], a.grad[c], fd, rel, g_reg[c]);
    CU_ASSERT(rel <= 1e-6);
  }
  /* a random direction */
  double gd = 0.0, gd_reg = 0.0, gd_mis = 0.0;
  for (int j = 0; j < NXY; ++j)
    for (int i = 0; i < NXY; ++i) {
      long c = CRYO_CELL(&a.b, i, j);
      d[c] = 2.0 * rand() / (double)RAND_MAX - 1.0;
      gd += a.grad[c] * d[c];
      gd_reg += g_reg[c] * d[c];
      gd_mis += g_mis[c] * d[c];
    }
  test_li_halo(&a.ctx, CRYO_AT_CELL, 1, 1, &d);
  const double h = 1e-6;
  double fd = (cost_at(&a, d, h) - cost_at(&a, d, -h)) / (2.0 * h);
  double rel = fabs(gd - fd) / fabs(fd);
  printf("\n  direction: g.d %+.10e fd %+.10e rel %.2e (adjoint share %+.4e, regularization "
         "%+.4e); worst cell %.2e",
         gd, fd, rel, gd_mis, gd_reg, worst);
  CU_ASSERT(rel <= 1e-6);
  /* a missing share, or lambda's sign flipped, would be far outside 1e-6 */
  CU_ASSERT(fabs(gd_mis - fd) > 1e-3 * fabs(fd));
  CU_ASSERT(fabs(gd_reg - fd) > 1e-3 * fabs(fd));
  CU_ASSERT(fabs((gd_reg - gd_mis) - fd) > 1e-3 * fabs(fd));
  free(g_reg);
  free(g_mis);
  free(d);
  adj_free(&a);
}

static void test_gradient_weertman(void) {
  run_gradient(CRYO_LANDICE_SLIDING_WEERTMAN, 1);
}
static void test_gradient_tsai(void) {
  run_gradient(CRYO_LANDICE_SLIDING_TSAI, 1);
}

static void test_gradient_schoof(void) {
  run_gradient(CRYO_LANDICE_SLIDING_SCHOOF, 1);
}

static void test_gradient_free_edges(void) {
  run_gradient(CRYO_LANDICE_SLIDING_WEERTMAN, 0);
}

static void test_bad_input(void) {
  adj_case a;
  adj_setup(&a, CRYO_LANDICE_SLIDING_WEERTMAN, 1);
  cryo_err err;
  double cost[2];
  cryo_landice_params lin = a.p;
  lin.sliding_law = CRYO_LANDICE_SLIDING_LINEAR;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_misfit_gradient(&a.b, &lin, &a.s, &a.ops, &a.obs, cost, a.grad, NULL, NULL,
                                         &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "sliding_law") != NULL);
  cryo_landice_misfit o = a.obs;
  o.gamma = -1.0;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_misfit_gradient(&a.b, &a.p, &a.s, &a.ops, &o, cost, a.grad, NULL, NULL,
                                         &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "gamma") != NULL);
  o = a.obs;
  o.adjoint_rtol = -1e-8;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_misfit_gradient(&a.b, &a.p, &a.s, &a.ops, &o, cost, a.grad, NULL, NULL,
                                         &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, "adjoint_rtol") != NULL);
  a.s.sliding_c[CRYO_CELL(&a.b, 4, 4)] = 0.0;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_misfit_gradient(&a.b, &a.p, &a.s, &a.ops, &a.obs, cost, a.grad, NULL, NULL,
                                         &err) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(err.msg, "sliding_c") != NULL);
  adj_free(&a);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_adjoint", NULL, NULL);
  CU_add_test(suite, "gradient weertman", test_gradient_weertman);
  CU_add_test(suite, "gradient tsai", test_gradient_tsai);
  CU_add_test(suite, "gradient schoof", test_gradient_schoof);
  CU_add_test(suite, "gradient weertman free edges", test_gradient_free_edges);
  CU_add_test(suite, "bad input", test_bad_input);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
