/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* The multigrid preconditioner (kernels/landice_multigrid.c; docs/landice.md,
 * Multigrid) against the column preconditioner.
 *
 * Iterations: one velocity solve of ISMIP-HOM A (L = 80 km, 5 layers, no
 *   slip, newton_rtol 1e-8, linear_rtol 1e-4) at 16^2, 32^2 and 64^2 cells.
 *   CG iterations per Newton step, measured: column 12.1, 18.7, 36.4;
 *   multigrid 5.4, 5.1, 5.1. Iteration counts are deterministic, so the
 *   assertions are exact: with 'multigrid' the largest of the three counts is
 *   at most 1.5 times the smallest; with 'column' the count at 64^2 is at
 *   least 2.5 times the one at 16^2 (the growth the multigrid removes).
 * Same answers: ISMIP-HOM A and C at 16^2 x 5 and the inclined slab on a
 *   friction bed (8 x 8 x 10) solved with both: the surface velocities agree
 *   to 1e-6 of their maximum (both solves stop at |R| <= 1e-8 |R_0|; measured
 *   differences 1e-9 to 1e-8), and the multigrid takes at most one Newton
 *   step more.
 * The multigrid needs its level arrays and a coarse-block halo: without
 *   either the solve fails with CRYO_ERR_ARG naming what is missing.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

typedef struct solve_result {
  int newton_steps, cg_iterations;
  double per_step; /* CG iterations per Newton step */
} solve_result;

/* One velocity solve of `kind` on n x n periodic columns of nz layers with
 * preconditioner pc; on return *s holds the state (the caller frees it). */
static solve_result solve(int kind, int n, int nz, int pc, cryo_landice_state *s) {
  solve_result out = {0, 0, 0.0};
  const double length = kind == CRYO_LANDICE_CASE_SLAB ? 8000.0 : 80000.0;
  cryo_block b = test_li_block(n, n, length / n, length / n, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = nz;
  p.geometry_case = kind;
  p.domain_length = length;
  p.newton_rtol = 1e-8;
  p.linear_rtol = 1e-4;
  p.preconditioner = pc;
  if (kind == CRYO_LANDICE_CASE_SLAB) {
    p.slope_deg = 0.5;
    p.thickness = 1000.0;
    p.no_slip = 0;
    p.beta2 = 1000.0;
  }
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, s, &err) == CRYO_OK);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  out.newton_steps = hist[nlog - 1].step;
  for (int k = 0; k < nlog; ++k)
    out.cg_iterations += hist[k].linear_iterations;
  out.per_step = (double)out.cg_iterations / out.newton_steps;
  return out;
}

static void free_state(int nz, cryo_landice_state *s) {
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = nz;
  test_li_free(&p, s);
}

static void test_iterations(void) {
  static const int sizes[3] = {16, 32, 64};
  double per_step[2][3];
  for (int pc = 0; pc < 2; ++pc)
    for (int q = 0; q < 3; ++q) {
      cryo_landice_state s;
      solve_result r = solve(CRYO_LANDICE_CASE_ISMIP_HOM_A, sizes[q], 5, pc, &s);
      per_step[pc][q] = r.per_step;
      printf("\n  %-9s %2d^2 x 5: %d Newton steps, %d CG iterations, %.1f per step",
             pc ? "multigrid" : "column", sizes[q], r.newton_steps, r.cg_iterations, r.per_step);
      free_state(5, &s);
    }
  double lo = per_step[1][0], hi = per_step[1][0];
  for (int q = 1; q < 3; ++q) {
    lo = fmin(lo, per_step[1][q]);
    hi = fmax(hi, per_step[1][q]);
  }
  CU_ASSERT(hi <= 1.5 * lo);
  CU_ASSERT(per_step[0][2] >= 2.5 * per_step[0][0]);
}

/* max |surface velocity difference| / max |surface velocity| over the nodes. */
static double surface_difference(int n, const cryo_landice_state *a, const cryo_landice_state *c) {
  cryo_block b = test_li_block(n, n, 1.0, 1.0, 1);
  double diff = 0.0, top = 0.0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      long q = CRYO_NODE(&b, i, j);
      diff = fmax(diff, hypot(a->u_surf[q] - c->u_surf[q], a->v_surf[q] - c->v_surf[q]));
      top = fmax(top, hypot(a->u_surf[q], a->v_surf[q]));
    }
  return diff / top;
}

static void test_same_answers(void) {
  static const struct {
    const char *name;
    int kind, n, nz;
  } cases[3] = {{"ISMIP-HOM A", CRYO_LANDICE_CASE_ISMIP_HOM_A, 16, 5},
                {"ISMIP-HOM C", CRYO_LANDICE_CASE_ISMIP_HOM_C, 16, 5},
                {"slab, friction", CRYO_LANDICE_CASE_SLAB, 8, 10}};
  for (int k = 0; k < 3; ++k) {
    cryo_landice_state col, mg;
    solve_result rc = solve(cases[k].kind, cases[k].n, cases[k].nz, CRYO_LANDICE_PC_COLUMN, &col);
    solve_result rm = solve(cases[k].kind, cases[k].n, cases[k].nz, CRYO_LANDICE_PC_MULTIGRID, &mg);
    double d = surface_difference(cases[k].n, &col, &mg);
    printf("\n  %s: Newton steps %d / %d, CG per step %.1f / %.1f, surface velocity "
           "difference %.2e of the maximum",
           cases[k].name, rc.newton_steps, rm.newton_steps, rc.per_step, rm.per_step, d);
    CU_ASSERT(d <= 1e-6);
    CU_ASSERT(rm.newton_steps <= rc.newton_steps + 1);
    free_state(cases[k].nz, &col);
    free_state(cases[k].nz, &mg);
  }
}

/* A multigrid solve of ISMIP-HOM A on 8 x 8 x 3 without the coarse-block
 * halo (drop_halo) or without the level arrays; its status, err its message. */
static int solve_without(int drop_halo, cryo_err *err) {
  cryo_block b = test_li_block(8, 8, 1e4, 1e4, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 3;
  p.geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  p.domain_length = 8e4;
  p.preconditioner = CRYO_LANDICE_PC_MULTIGRID;
  cryo_landice_state s;
  cryo_err_clear(err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, err) == CRYO_OK);
  double *levels = s.mg;
  if (drop_halo)
    ops.halo_block = NULL;
  else
    s.mg = NULL;
  int status = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, err);
  printf("\n  %s", err->msg);
  s.mg = levels;
  free_state(3, &s);
  return status;
}

static void test_missing_parts(void) {
  cryo_err err;
  CU_ASSERT(solve_without(1, &err) == CRYO_ERR_ARG);
  CU_ASSERT(strstr(err.msg, "halo_block") != NULL);
  CU_ASSERT(solve_without(0, &err) == CRYO_ERR_ARG);
  CU_ASSERT(strstr(err.msg, "level arrays") != NULL);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_multigrid", NULL, NULL);
  CU_add_test(suite, "CG iterations per Newton step flat under refinement", test_iterations);
  CU_add_test(suite, "same answers as the column preconditioner", test_same_answers);
  CU_add_test(suite, "missing level arrays or coarse halo named", test_missing_parts);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
