/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Land-ice margins (docs/landice.md, Margins): ice-free cells, the
 * hydrostatic load on margin faces (kernels/landice_front.c), and the mass
 * budget of the thickness step with melt and calving
 * (kernels/landice_thickness.c).
 *
 * 1. Unconfined ice shelf, flowline: uniform thickness H over x in [0, L]
 *    (cells of dx, 2 columns periodic in y), ice-free cells beyond the front
 *    at x = L, floating over a bed at -2000 m (marine, z_sl = 0), free slip
 *    at x = 0 (the divide), n = 3, A = 1e-16 Pa-3 a-1, rho_i 910,
 *    rho_w 1028. The shallow-shelf solution (Weertman 1957; e.g. Greve and
 *    Blatter 2009, Sect. 6.4.1) is plug flow with a uniform strain rate
 *      u_x = A (rho_i g H (1 - rho_i / rho_w) / 4)^n,  u = u_x x.
 *    First-order Stokes with the same front load keeps the depth-integrated
 *    balance of SSA; only the load's depth profile (ice pressure minus water
 *    pressure, not uniform in z) bends the flow near the front, over a few
 *    ice thicknesses. Asserts: the friction coefficient (beta2 = 1e3 under
 *    floating ice) has no effect (the shelf floats); the depth-averaged
 *    velocity at x = L/2 within 1e-6 of u_x L/2 for H/L = 1/100 and 1/200
 *    (measured 2.3e-9: the Newton tolerance; the depth profile of the load
 *    bends the flow only within a few H of the front, and the depth-
 *    integrated load is integrated exactly); the velocity at the bed and at
 *    the surface at x = L/2 within 1e-6 of each other (plug flow); the
 *    velocity at ice-free nodes exactly 0; at the last node before the front,
 *    where the two part, the depth-averaged velocity within 1e-4 of SSA's
 *    for H/L = 1/100 (measured 4.0e-5) and the difference smaller by a
 *    factor 0.6 for H/L = 1/200 (1.95e-5: first order in H/L).
 *    Without the front load the shelf would not move (u = 0 everywhere): the
 *    test fails for a missing or wrongly signed load.
 *    The same shelf with a free edge at x = 0 is held by nothing: the solve
 *    stops with CRYO_ERR_SOLVER saying so ("held by nothing");
 *    cryo_landice_remove_icebergs then removes all its 40 columns into the
 *    calving budget (500 m each), and the solve succeeds (no ice, u = 0).
 * 2. A land-terminating block (thk 400 m on a flat bed at 0 over 6 x 6 of
 *    10 x 10 cells, no slip at the bed, free edges): its faces are pushed
 *    out by rho_i g (s - z): the velocity is outward and symmetric (u at x
 *    mirrored nodes equal and opposite to 1e-9 relative), zero at ice-free
 *    nodes.
 * 3. Mass budget over 100 thickness steps of 0.1 a: ice thickening from
 *    100 m at x = 0 to 600 m at x = 25 km, 600 m beyond, on a bed deepening
 *    from 0 at x = 0 to -600 m at the front (the outer part floats), a
 *    calving mask ending 2 cells before the front, surface balance 0.3 m/a,
 *    the MISMIP+ melt with Omega = 0.02 a-1, a free edge at x = 0 through
 *    which the ice leaves, the velocity solved every 10 steps:
 *    V(100) - V(0) = smb - melt - calving - outflow (cryo_landice_budget) to
 *    1e-12 of V(0) (measured 4e-15); each of calving, melt, outflow > 0, and
 *    no ice outside the mask.
 * 4. Icebergs (kernels/landice_icebergs.c) on 16 x 8 columns of 1 km, marine,
 *    bed -100 m under columns 0-3 (grounded, 500 m of ice) and -1000 m
 *    beyond: a shelf of 400 m over columns 4-7, rows 0-3; one column (8, 4)
 *    touching the shelf only at a corner node; a berg of 300 m over columns
 *    11-13, rows 2-5; a berg of 200 m at (15, 6..7) on the east and north
 *    edges; 0.5 m (below min_thickness) at (10, 0). With free edges: both
 *    bergs removed (14 columns), the corner column, the shelf and the thin
 *    cell kept bit for bit; each removed column's thickness in its calving
 *    budget exactly; node thickness 0 around the bergs; the velocity solve
 *    then converges. With free-slip edges the edge berg is held (12 removed).
 *    Removing again removes nothing. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_landice_common.h"

typedef struct shelf_case {
  int ncell;     /* cells of the shelf along x */
  double dx;     /* m */
  double thk;    /* H, m */
  double bed;    /* bed at x = 0, m */
  double bed_dx; /* bed slope */
  int nz;
} shelf_case;

/* Set up the flowline shelf of c on an (ncell + 2) x 2 block; returns 0 on failure. */
static int shelf_setup(const shelf_case *c, cryo_block *b, cryo_landice_params *p,
                       cryo_landice_state *s, test_li_ctx *ctx) {
  *b = test_li_block(c->ncell + 2, 2, c->dx, c->dx, 0);
  b->periodic_y = 1;
  cryo_landice_params_default(p);
  p->n_layers = c->nz;
  p->no_slip = 0;
  p->beta2 = 1000.0;
  p->marine = 1;
  p->sea_level = 0.0;
  p->lateral_bc = CRYO_LANDICE_LATERAL_FREE_SLIP;
  p->newton_rtol = 1e-10;
  p->linear_rtol = 1e-8;
  p->linear_max_iter = 5000;
  if (!test_li_alloc(b, p, s)) return 0;
  ctx->b = b;
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i)
      s->thk[CRYO_CELL(b, i, j)] = (i >= 0 && i < c->ncell) ? c->thk : 0.0;
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      long n = CRYO_NODE(b, i, j);
      s->bed[n] = c->bed + c->bed_dx * i * c->dx;
      s->beta2[n] = p->beta2;
    }
  test_li_nodes_from_cells(ctx, p, s);
  return 1;
}

/* Depth average of u at node (i, 0). */
static double column_mean(const cryo_landice_params *p, const cryo_block *b,
                          const cryo_landice_state *s, int i) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const double *v = s->vel + CRYO_NODE(b, i, 0) * nlev;
  double sum = 0.0;
  for (int k = 0; k < nz; ++k)
    sum += 0.5 * (v[2 * k] + v[2 * k + 2]);
  return sum / nz;
}

/* Solve the shelf of c; returns the relative difference of the depth-averaged
 * velocity at x = L/2 from SSA's (-1 on failure), and in *front that at the
 * last node before the front. */
static double shelf_solve(const shelf_case *c, double beta2, double *front) {
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  test_li_ctx ctx;
  if (!shelf_setup(c, &b, &p, &s, &ctx)) return -1.0;
  for (long n = 0; n < CRYO_NNODE(&b); ++n)
    s.beta2[n] = beta2;
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_err err;
  cryo_err_clear(&err);
  int rc = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err);
  if (rc != CRYO_OK) printf("\n  %s\n", err.msg);
  CU_ASSERT_FATAL(rc == CRYO_OK);
  const double r = p.rho_ice / p.rho_water;
  const double ux = p.rate_factor * pow(p.rho_ice * p.gravity * c->thk * (1.0 - r) / 4.0, 3.0);
  const int half = c->ncell / 2, nz = p.n_layers, nlev = 2 * (nz + 1);
  const double x = half * c->dx, mean = column_mean(&p, &b, &s, half);
  const double *v = s.vel + CRYO_NODE(&b, half, 0) * nlev;
  double plug = fabs(v[2 * nz] - v[0]) / fabs(v[2 * nz]);
  CU_ASSERT(plug <= 1e-6);
  /* nodes beyond the front's: no ice around them */
  for (int i = c->ncell + 1; i <= b.nx; ++i)
    for (int k = 0; k < nlev; ++k)
      CU_ASSERT(s.vel[CRYO_NODE(&b, i, 0) * nlev + k] == 0.0);
  double rel = fabs(mean - ux * x) / (ux * x);
  const int last = c->ncell - 1;
  *front = fabs(column_mean(&p, &b, &s, last) / (ux * last * c->dx) - 1.0);
  const double *vf = s.vel + CRYO_NODE(&b, last, 0) * nlev;
  printf("\n  shelf H/L = 1/%.0f, dx = %.0f m, nz = %d: ubar(L/2) = %.6f m/a, SSA %.6f m/a, "
         "rel %.2e, bed/surface %.2e; one cell from the front: ubar %.2e, bed %.2e, surface "
         "%.2e relative to SSA",
         c->ncell * c->dx / c->thk, c->dx, nz, mean, ux * x, rel, plug,
         column_mean(&p, &b, &s, last) / (ux * last * c->dx) - 1.0,
         vf[0] / (ux * last * c->dx) - 1.0, vf[2 * nz] / (ux * last * c->dx) - 1.0);
  test_li_free(&p, &s);
  return rel;
}

static void test_shelf_flowline(void) {
  const shelf_case coarse = {20, 2500.0, 500.0, -2000.0, 0.0, 4};
  const shelf_case thin = {40, 2500.0, 500.0, -2000.0, 0.0, 4};
  double f1, f0, f2;
  double r1 = shelf_solve(&coarse, 1000.0, &f1), r0 = shelf_solve(&coarse, 0.0, &f0);
  double r2 = shelf_solve(&thin, 1000.0, &f2);
  CU_ASSERT(r1 >= 0.0 && r1 <= 1e-6);
  CU_ASSERT(r1 == r0 && f1 == f0);
  CU_ASSERT(r2 >= 0.0 && r2 <= 1e-6);
  /* near the front the difference halves with the aspect ratio */
  CU_ASSERT(f1 < 1e-4 && f2 < 0.6 * f1);
}

/* The shelf with a free edge at x = 0 instead of the divide: nothing holds
 * the floating ice against its front load, the Jacobian is singular, and
 * the error says so in terms of the ice, not only of the matrix. */
static void test_unheld_shelf(void) {
  const shelf_case c = {20, 2500.0, 500.0, -2000.0, 0.0, 4};
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  test_li_ctx ctx;
  CU_ASSERT_FATAL(shelf_setup(&c, &b, &p, &s, &ctx));
  p.lateral_bc = CRYO_LANDICE_LATERAL_FREE;
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_ERR_SOLVER);
  CU_ASSERT(strstr(err.msg, "not positive definite") != NULL);
  CU_ASSERT(strstr(err.msg, "held by nothing") != NULL);
  printf("\n  %s", err.msg);
  long long removed = -1;
  int sweeps = -1;
  CU_ASSERT_FATAL(cryo_landice_remove_icebergs(&b, &p, &s, &ops, &removed, &sweeps, &err) ==
                  CRYO_OK);
  CU_ASSERT(removed == 2 * c.ncell);
  int calved = 1;
  for (int j = 0; j < b.ny; ++j)
    for (int i = 0; i < c.ncell; ++i) {
      long q = CRYO_CELL(&b, i, j);
      calved = calved && s.thk[q] == 0.0 &&
               s.budget[q * CRYO_LANDICE_BUDGET_COUNT + CRYO_LANDICE_BUDGET_CALVING] == c.thk;
    }
  CU_ASSERT(calved);
  CU_ASSERT(cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_OK);
  double umax = 0.0;
  for (long q = 0; q < CRYO_NNODE(&b) * 2 * (p.n_layers + 1); ++q)
    umax = fmax(umax, fabs(s.vel[q]));
  CU_ASSERT(umax == 0.0);
  printf("\n  removed as an iceberg: %lld columns in %d sweeps", removed, sweeps);
  test_li_free(&p, &s);
}

static void test_land_block(void) {
  cryo_block b = test_li_block(10, 10, 1000.0, 1000.0, 0);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 4;
  p.no_slip = 1;
  p.lateral_bc = CRYO_LANDICE_LATERAL_FREE;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  test_li_ctx ctx = {&b};
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i)
      s.thk[CRYO_CELL(&b, i, j)] = (i >= 2 && i < 8 && j >= 2 && j < 8) ? 400.0 : 0.0;
  for (long n = 0; n < CRYO_NNODE(&b); ++n)
    s.bed[n] = 0.0;
  test_li_nodes_from_cells(&ctx, &p, &s);
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err) == CRYO_OK);
  const int nz = p.n_layers, nlev = 2 * (nz + 1);
  double umax = 0.0, asym = 0.0;
  for (int j = 0; j <= b.ny; ++j)
    for (int i = 0; i <= b.nx; ++i) {
      const double *v = s.vel + CRYO_NODE(&b, i, j) * nlev;
      const double *m = s.vel + CRYO_NODE(&b, b.nx - i, j) * nlev;
      umax = fmax(umax, fabs(v[2 * nz]));
      asym = fmax(asym, fabs(v[2 * nz] + m[2 * nz]));
      if (i < 2 || i > 8 || j < 2 || j > 8)
        for (int k = 0; k < nlev; ++k)
          CU_ASSERT(v[k] == 0.0);
    }
  /* the east face's surface nodes move east, the west face's west */
  CU_ASSERT(s.vel[CRYO_NODE(&b, 8, 5) * nlev + 2 * nz] > 0.0);
  CU_ASSERT(s.vel[CRYO_NODE(&b, 2, 5) * nlev + 2 * nz] < 0.0);
  CU_ASSERT(asym <= 1e-9 * umax);
  printf("\n  land block: max |u_s| %.4f m/a, asymmetry %.1e", umax, asym / umax);
  test_li_free(&p, &s);
}

static void test_mass_budget(void) {
  /* the bed deepens from 0 at x = 0 to -600 m at the front: the outer part floats */
  const shelf_case c = {20, 2500.0, 600.0, 0.0, -600.0 / 50000.0, 3};
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s;
  test_li_ctx ctx;
  CU_ASSERT_FATAL(shelf_setup(&c, &b, &p, &s, &ctx));
  p.melt_source = CRYO_LANDICE_MELT_MISMIP;
  p.melt_omega = 0.02;
  p.lateral_bc = CRYO_LANDICE_LATERAL_FREE;
  p.dt = 0.1 * CRYO_LANDICE_YEAR;
  p.rate_factor = 1.0e-17;
  p.newton_rtol = 1e-6;
  p.linear_rtol = 1e-6;
  /* thinning towards x = 0, where ice leaves through the free edge */
  for (int j = -1; j <= b.ny; ++j)
    for (int i = 0; i < 10; ++i)
      s.thk[CRYO_CELL(&b, i, j)] = 100.0 + 50.0 * i;
  test_li_nodes_from_cells(&ctx, &p, &s);
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i) {
      long q = CRYO_CELL(&b, i, j);
      s.smb[q] = 0.3;
      s.calving_mask[q] = i < c.ncell - 2 ? 1.0 : 0.0;
    }
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_err err;
  cryo_err_clear(&err);
  double v0, v1, terms[CRYO_LANDICE_BUDGET_COUNT];
  CU_ASSERT_FATAL(cryo_landice_volume(&b, &s, &ops, &v0, &err) == CRYO_OK);
  for (int step = 0; step < 100; ++step) {
    if (step % 10 == 0) {
      int rc = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err);
      if (rc != CRYO_OK) printf("\n  step %d: %s\n", step, err.msg);
      CU_ASSERT_FATAL(rc == CRYO_OK);
    }
    CU_ASSERT_FATAL(cryo_landice_evolve_thickness(&b, &p, &s, &ops, NULL, &err) == CRYO_OK);
  }
  CU_ASSERT_FATAL(cryo_landice_volume(&b, &s, &ops, &v1, &err) == CRYO_OK);
  CU_ASSERT_FATAL(cryo_landice_budget(&b, &s, &ops, terms, &err) == CRYO_OK);
  double change = terms[CRYO_LANDICE_BUDGET_SMB] - terms[CRYO_LANDICE_BUDGET_MELT] -
                  terms[CRYO_LANDICE_BUDGET_CALVING] - terms[CRYO_LANDICE_BUDGET_OUTFLOW];
  double gap = fabs(v1 - v0 - change) / v0;
  printf("\n  budget over 100 steps: V %.6e -> %.6e m3; smb %.4e, melt %.4e, calving %.4e, "
         "outflow %.4e m3; gap %.1e of V0",
         v0, v1, terms[0], terms[1], terms[2], terms[3], gap);
  CU_ASSERT(gap <= 1e-12);
  CU_ASSERT(terms[CRYO_LANDICE_BUDGET_CALVING] > 0.0);
  CU_ASSERT(terms[CRYO_LANDICE_BUDGET_MELT] > 0.0);
  CU_ASSERT(terms[CRYO_LANDICE_BUDGET_OUTFLOW] > 0.0);
  for (int j = 0; j < b.ny; ++j)
    for (int i = c.ncell - 2; i < b.nx; ++i)
      CU_ASSERT(s.thk[CRYO_CELL(&b, i, j)] == 0.0);
  test_li_free(&p, &s);
}

/* The iceberg geometry of test 4 with lateral condition lat; returns the
 * columns removed, -1 on failure. */
static long long bergs_run(int lat) {
  cryo_block b = test_li_block(16, 8, 1000.0, 1000.0, 0);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 3;
  p.no_slip = 0;
  p.beta2 = 1000.0;
  p.marine = 1;
  p.lateral_bc = lat;
  p.newton_rtol = 1e-8;
  p.linear_rtol = 1e-8;
  p.linear_max_iter = 5000;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  for (int j = -1; j <= b.ny + 1; ++j)
    for (int i = -1; i <= b.nx + 1; ++i) {
      long n = CRYO_NODE(&b, i, j);
      s.bed[n] = i <= 4 ? -100.0 : -1000.0;
      s.beta2[n] = p.beta2;
    }
  double *h0 = calloc((size_t)CRYO_NCELL(&b), sizeof(double));
  CU_ASSERT_FATAL(h0 != NULL);
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i) {
      double h = 0.0;
      if (i >= 0 && i < 4 && j >= 0) h = 500.0;
      if (i >= 4 && i < 8 && j >= 0 && j < 4) h = 400.0;
      if (i == 8 && j == 4) h = 400.0;
      if (i >= 11 && i < 14 && j >= 2 && j < 6) h = 300.0;
      if (i == 15 && j >= 6 && j < 8) h = 200.0;
      if (i == 10 && j == 0) h = 0.5;
      s.thk[CRYO_CELL(&b, i, j)] = h0[CRYO_CELL(&b, i, j)] = h;
    }
  test_li_nodes_from_cells(&ctx, &p, &s);
  long long removed = -1, again = -1;
  int sweeps = 0;
  int rc = cryo_landice_remove_icebergs(&b, &p, &s, &ops, &removed, &sweeps, &err);
  if (rc != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(rc == CRYO_OK);
  int edge_held = lat == CRYO_LANDICE_LATERAL_FREE_SLIP, kept = 1, calved = 1;
  for (int j = 0; j < b.ny; ++j)
    for (int i = 0; i < b.nx; ++i) {
      long q = CRYO_CELL(&b, i, j);
      int berg = (i >= 11 && i < 14 && j >= 2 && j < 6) || (i == 15 && j >= 6 && !edge_held);
      double cb = s.budget[q * CRYO_LANDICE_BUDGET_COUNT + CRYO_LANDICE_BUDGET_CALVING];
      if (berg)
        calved = calved && s.thk[q] == 0.0 && cb == h0[q];
      else
        kept = kept && s.thk[q] == h0[q] && cb == 0.0;
    }
  CU_ASSERT(kept);
  CU_ASSERT(calved);
  double node_berg = 0.0;
  for (int j = 2; j <= 6; ++j)
    for (int i = 11; i <= 14; ++i)
      node_berg = fmax(node_berg, s.thk_node[CRYO_NODE(&b, i, j)]);
  CU_ASSERT(node_berg == 0.0);
  CU_ASSERT(s.thk_node[CRYO_NODE(&b, 9, 5)] == 400.0);
  CU_ASSERT(cryo_landice_remove_icebergs(&b, &p, &s, &ops, &again, NULL, &err) == CRYO_OK);
  CU_ASSERT(again == 0);
  if (lat == CRYO_LANDICE_LATERAL_FREE) {
    rc = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err);
    if (rc != CRYO_OK) printf("\n  %s", err.msg);
    CU_ASSERT(rc == CRYO_OK);
  }
  printf("\n  icebergs, %s edges: %lld columns removed in %d sweeps",
         lat == CRYO_LANDICE_LATERAL_FREE ? "free" : "free-slip", removed, sweeps);
  free(h0);
  test_li_free(&p, &s);
  return removed;
}

static void test_icebergs(void) {
  CU_ASSERT(bergs_run(CRYO_LANDICE_LATERAL_FREE) == 14);
  CU_ASSERT(bergs_run(CRYO_LANDICE_LATERAL_FREE_SLIP) == 12);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_margins", NULL, NULL);
  CU_add_test(suite, "shelf flowline against SSA", test_shelf_flowline);
  CU_add_test(suite, "floating ice held by nothing: named error, then removed", test_unheld_shelf);
  CU_add_test(suite, "land-terminating block", test_land_block);
  CU_add_test(suite, "mass budget with melt and calving", test_mass_budget);
  CU_add_test(suite, "icebergs removed, held ice kept", test_icebergs);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failed = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
