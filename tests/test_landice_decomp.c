/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Decomposition independence of the land-ice solver (kernels/landice_solver.c,
 * docs/design.md, Reproducibility) without MPI: P "ranks" are threads, each with its own
 * block and arrays, and a cryo_comm_ops whose halo copies from the owning
 * block's arrays and whose reductions combine all ranks (barrier-synchronized,
 * SPMD like MPI).
 * Setup: ISMIP-HOM A, L = 80 km, 12 x 10 columns (dx != dy), 4 layers, solved
 * on 1 block, 2 x 1 blocks (6 + 6) and 2 x 2 blocks with uneven sizes (5 + 7
 * by 4 + 6). Then 3 thickness steps of 5 years with the computed velocity.
 * Asserts: velocity at every computed node [0,nx] x [0,ny], the Newton
 * residual log and the thickness of every owned cell are bit-identical to the
 * single-block run.
 * The adjoint gradient (cryo_landice_misfit_gradient, docs/landice.md,
 * Adjoint gradient) on the same grid and blocks, the bed sliding by the
 * Weertman law with C = 1e4 exp(0.3 sin(2 pi gi / 12) cos(2 pi gj / 10)) per
 * cell, observations u_obs = 30 + gi, v_obs = gj - 5 m/a and weights
 * 1 / (1 + (gi + gj) % 3) per node, gamma = 1e3: the two costs and the
 * gradient of every owned cell are bit-identical to the single block's.
 */
#define _POSIX_C_SOURCE 200809L
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>

#include "test_landice_common.h"

#define NXG  12
#define NYG  10
#define NZ   4
#define MAXR 4

typedef struct world {
  int nranks;
  int adjoint;        /* 1: Weertman bed, then the misfit gradient */
  int preconditioner; /* enum cryo_landice_preconditioner */
  pthread_barrier_t barrier;
  cryo_block blocks[MAXR];
  cryo_block level[MAXR];      /* published by halo(): each rank's block of the exchange */
  double *const *fields[MAXR]; /* published by halo() */
  double *exact[MAXR];         /* published by sum_exact() */
  long long isum[MAXR][4];
  double dmax[MAXR][4];
} world;

typedef struct rank_ctx {
  world *w;
  int rank;
  cryo_landice_params p;
  cryo_landice_state s;
  cryo_landice_newton_log hist[32];
  int nlog, status;
  double cost[2], *grad; /* the adjoint run's */
} rank_ctx;

/* Rank whose block (of the exchange's level) owns global cell column gi,
 * row gj (wrapped on a grid of nxg x nyg cells). */
static int owner(const world *w, int gi, int gj, int nxg, int nyg) {
  gi = ((gi % nxg) + nxg) % nxg;
  gj = ((gj % nyg) + nyg) % nyg;
  for (int r = 0; r < w->nranks; ++r) {
    const cryo_block *b = &w->level[r];
    if (gi >= b->i0 && gi < b->i0 + b->nx && gj >= b->j0 && gj < b->j0 + b->ny) return r;
  }
  return -1;
}

static int dec_halo_block(void *ctx, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                          double *const *fields) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  const int nxg = b->nx_global, nyg = b->ny_global;
  int node = loc == CRYO_AT_NODE;
  w->fields[rc->rank] = fields;
  w->level[rc->rank] = *b;
  pthread_barrier_wait(&w->barrier);
  int hx = node ? b->nx + 1 : b->nx, hy = node ? b->ny + 1 : b->ny;
  for (int j = -1; j <= hy; ++j)
    for (int i = -1; i <= hx; ++i) {
      if (i >= 0 && i < hx && j >= 0 && j < hy) continue;
      int gi = ((b->i0 + i) % nxg + nxg) % nxg, gj = ((b->j0 + j) % nyg + nyg) % nyg;
      int r = owner(w, gi, gj, nxg, nyg);
      const cryo_block *ob = &w->level[r];
      long src =
          node ? CRYO_NODE(ob, gi - ob->i0, gj - ob->j0) : CRYO_CELL(ob, gi - ob->i0, gj - ob->j0);
      long dst = node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j);
      for (int f = 0; f < nfield; ++f)
        memcpy(fields[f] + dst * nlev, w->fields[r][f] + src * nlev, sizeof(double) * nlev);
    }
  pthread_barrier_wait(&w->barrier);
  return CRYO_OK;
}

static int dec_halo(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields) {
  rank_ctx *rc = ctx;
  return dec_halo_block(ctx, &rc->w->blocks[rc->rank], loc, nlev, nfield, fields);
}

static int dec_sum(void *ctx, long long *vals, int n) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  for (int k = 0; k < n; ++k)
    w->isum[rc->rank][k] = vals[k];
  pthread_barrier_wait(&w->barrier);
  for (int k = 0; k < n; ++k) {
    vals[k] = 0;
    for (int r = 0; r < w->nranks; ++r)
      vals[k] += w->isum[r][k];
  }
  pthread_barrier_wait(&w->barrier);
  return CRYO_OK;
}

/* Each rank's values become the sum of the bits of all ranks' (at most one
 * non-zero per entry), as the component's MPI_Allreduce of 64-bit integers. */
static int dec_sum_exact(void *ctx, double *values, long n) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  long long *sum = calloc((size_t)n, sizeof *sum);
  if (!sum) return CRYO_ERR_MEMORY;
  w->exact[rc->rank] = values;
  pthread_barrier_wait(&w->barrier);
  for (long k = 0; k < n; ++k)
    for (int r = 0; r < w->nranks; ++r) {
      long long bits;
      memcpy(&bits, &w->exact[r][k], sizeof bits);
      sum[k] += bits;
    }
  pthread_barrier_wait(&w->barrier);
  memcpy(values, sum, sizeof(double) * (size_t)n);
  free(sum);
  return CRYO_OK;
}

static int dec_max(void *ctx, double *vals, int n) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  for (int k = 0; k < n; ++k)
    w->dmax[rc->rank][k] = vals[k];
  pthread_barrier_wait(&w->barrier);
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < w->nranks; ++r)
      vals[k] = fmax(vals[k], w->dmax[r][k]);
  pthread_barrier_wait(&w->barrier);
  return CRYO_OK;
}

static void *rank_main(void *arg) {
  rank_ctx *rc = arg;
  const cryo_block *b = &rc->w->blocks[rc->rank];
  cryo_comm_ops ops = {rc, dec_halo, dec_sum, dec_max, dec_halo_block, dec_sum_exact, NULL};
  cryo_err err;
  cryo_err_clear(&err);
  cryo_landice_params_default(&rc->p);
  rc->p.n_layers = NZ;
  rc->p.preconditioner = rc->w->preconditioner;
  rc->p.geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  rc->p.domain_length = 80.0e3;
  rc->p.dt = 5.0 * CRYO_LANDICE_YEAR;
  rc->status = test_li_alloc(b, &rc->p, &rc->s) ? CRYO_OK : CRYO_ERR_MEMORY;
  if (rc->status == CRYO_OK) rc->status = cryo_landice_geometry(b, &rc->p, &rc->s, &err);
  if (rc->status == CRYO_OK)
    rc->status =
        cryo_landice_solve_velocity(b, &rc->p, &rc->s, &ops, rc->hist, 32, &rc->nlog, &err);
  for (int step = 0; step < 3 && rc->status == CRYO_OK && !rc->w->adjoint; ++step)
    rc->status = cryo_landice_evolve_thickness(b, &rc->p, &rc->s, &ops, NULL, &err);
  return NULL;
}

/* The adjoint run of a rank: the fields from global indices, a solve with
 * the Weertman law, the cost and gradient. */
static int rank_adjoint(rank_ctx *rc, const cryo_block *b, const cryo_comm_ops *ops,
                        cryo_err *err) {
  const long nn = CRYO_NNODE(b);
  cryo_landice_params *p = &rc->p;
  p->no_slip = 0;
  p->sliding_law = CRYO_LANDICE_SLIDING_WEERTMAN;
  p->sliding_c = 1.0e4;
  p->sliding_m = 1.0 / 3.0;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      double x = 2.0 * 3.14159265358979323846 * (b->i0 + i) / b->nx_global;
      double y = 2.0 * 3.14159265358979323846 * (b->j0 + j) / b->ny_global;
      rc->s.sliding_c[CRYO_CELL(b, i, j)] = 1.0e4 * exp(0.3 * sin(x) * cos(y));
    }
  rc->s.given |= CRYO_LANDICE_GIVEN_SLIDING_C;
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, &rc->s.sliding_c));
  double *uo = calloc((size_t)nn, sizeof(double)), *vo = calloc((size_t)nn, sizeof(double));
  double *wt = calloc((size_t)nn, sizeof(double));
  rc->grad = calloc((size_t)CRYO_NCELL(b), sizeof(double));
  if (!uo || !vo || !wt || !rc->grad) return CRYO_ERR_MEMORY;
  for (int j = 0; j <= b->ny; ++j)
    for (int i = 0; i <= b->nx; ++i) {
      int gi = (b->i0 + i) % b->nx_global, gj = (b->j0 + j) % b->ny_global;
      long n = CRYO_NODE(b, i, j);
      uo[n] = 30.0 + gi;
      vo[n] = gj - 5.0;
      wt[n] = 1.0 / (1.0 + (gi + gj) % 3);
    }
  int st = cryo_landice_solve_velocity(b, p, &rc->s, ops, rc->hist, 32, &rc->nlog, err);
  cryo_landice_misfit obs = {uo, vo, wt, 1.0e3, 1e-10};
  if (st == CRYO_OK)
    st = cryo_landice_misfit_gradient(b, p, &rc->s, ops, &obs, rc->cost, rc->grad, NULL, NULL, err);
  free(uo);
  free(vo);
  free(wt);
  return st;
}

static void *rank_adjoint_main(void *arg) {
  rank_ctx *rc = arg;
  const cryo_block *b = &rc->w->blocks[rc->rank];
  cryo_comm_ops ops = {rc, dec_halo, dec_sum, dec_max, dec_halo_block, dec_sum_exact, NULL};
  cryo_err err;
  cryo_err_clear(&err);
  cryo_landice_params_default(&rc->p);
  rc->p.n_layers = NZ;
  rc->p.preconditioner = rc->w->preconditioner;
  rc->p.geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  rc->p.domain_length = 80.0e3;
  rc->status = test_li_alloc(b, &rc->p, &rc->s) ? CRYO_OK : CRYO_ERR_MEMORY;
  if (rc->status == CRYO_OK) rc->status = cryo_landice_geometry(b, &rc->p, &rc->s, &err);
  if (rc->status == CRYO_OK) rc->status = rank_adjoint(rc, b, &ops, &err);
  if (rc->status != CRYO_OK) printf("\n  rank %d: %s", rc->rank, err.msg);
  return NULL;
}

/* Run P ranks with the given x and y splits; fill ctx[]. */
static void run_world(world *w, int pc, int px, int py, const int *xs, const int *ys,
                      rank_ctx *rc) {
  int nxg = 0, nyg = 0;
  for (int q = 0; q < px; ++q)
    nxg += xs[q];
  for (int q = 0; q < py; ++q)
    nyg += ys[q];
  w->nranks = px * py;
  w->preconditioner = pc;
  pthread_barrier_init(&w->barrier, NULL, (unsigned)w->nranks);
  int r = 0;
  for (int bj = 0, j0 = 0; bj < py; j0 += ys[bj++])
    for (int bi = 0, i0 = 0; bi < px; i0 += xs[bi++], ++r) {
      cryo_block b = {xs[bi],       ys[bj],       i0, j0, nxg,           nyg,
                      80.0e3 / nxg, 80.0e3 / nyg, 1,  1,  CRYO_FOLD_NONE};
      w->blocks[r] = b;
    }
  pthread_t th[MAXR];
  for (r = 0; r < w->nranks; ++r) {
    rc[r].w = w;
    rc[r].rank = r;
    pthread_create(&th[r], NULL, w->adjoint ? rank_adjoint_main : rank_main, &rc[r]);
  }
  for (r = 0; r < w->nranks; ++r)
    pthread_join(th[r], NULL);
  pthread_barrier_destroy(&w->barrier);
}

/* Compare a decomposed run with the reference: counts of differing values. */
static long compare(const world *ref, const rank_ctx *rref, const world *w, const rank_ctx *rc) {
  const int nlev = 2 * (NZ + 1);
  const cryo_block *b0 = &ref->blocks[0];
  long diff = 0;
  for (int r = 0; r < w->nranks; ++r) {
    const cryo_block *b = &w->blocks[r];
    for (int j = 0; j <= b->ny; ++j)
      for (int i = 0; i <= b->nx; ++i) {
        int gi = b->i0 + i, gj = b->j0 + j;
        const double *a = rc[r].s.vel + CRYO_NODE(b, i, j) * nlev;
        const double *e = rref->s.vel + CRYO_NODE(b0, gi, gj) * nlev;
        diff += memcmp(a, e, sizeof(double) * nlev) != 0;
        if (i < b->nx && j < b->ny)
          diff += rc[r].s.thk[CRYO_CELL(b, i, j)] != rref->s.thk[CRYO_CELL(b0, gi, gj)];
      }
    diff += rc[r].nlog != rref->nlog;
    for (int k = 0; k < rc[r].nlog && k < rref->nlog; ++k)
      diff += rc[r].hist[k].residual_norm != rref->hist[k].residual_norm;
  }
  return diff;
}

static void test_decompositions(void) {
  static world wref, w2, w4;
  static rank_ctx cref[1], c2[2], c4[4];
  const int x1[1] = {NXG}, y1[1] = {NYG}, x2[2] = {6, 6}, x4[2] = {5, 7}, y4[2] = {4, 6};
  run_world(&wref, CRYO_LANDICE_PC_COLUMN, 1, 1, x1, y1, cref);
  run_world(&w2, CRYO_LANDICE_PC_COLUMN, 2, 1, x2, y1, c2);
  run_world(&w4, CRYO_LANDICE_PC_COLUMN, 2, 2, x4, y4, c4);
  int ok = cref[0].status == CRYO_OK;
  for (int r = 0; r < 2; ++r)
    ok &= c2[r].status == CRYO_OK;
  for (int r = 0; r < 4; ++r)
    ok &= c4[r].status == CRYO_OK;
  CU_ASSERT_FATAL(ok);
  long d2 = compare(&wref, &cref[0], &w2, c2), d4 = compare(&wref, &cref[0], &w4, c4);
  printf("\n  Newton steps %d, final |R| %.6e; differing values: 2 ranks %ld, 4 ranks %ld",
         cref[0].nlog - 1, cref[0].hist[cref[0].nlog - 1].residual_norm, d2, d4);
  CU_ASSERT(d2 == 0);
  CU_ASSERT(d4 == 0);
  test_li_free(&cref[0].p, &cref[0].s);
  for (int r = 0; r < 2; ++r)
    test_li_free(&c2[r].p, &c2[r].s);
  for (int r = 0; r < 4; ++r)
    test_li_free(&c4[r].p, &c4[r].s);
}

/* The multigrid (kernels/landice_multigrid.c) on 16 x 8 periodic cells,
 * which halve to 8 x 4, 4 x 2 and 2 x 2 (a periodic level keeps an even
 * count): blocks whose edges fall on multiples of 8 cells in x and 4 in y
 * (cryo_landice_mg_units) keep every level, and 2 x 1 blocks (8 + 8) and
 * 2 x 2 (8 + 8 by 4 + 4) give the single block's bits. On 12 x 10 cells
 * (6 x 10 below), 3 x 1 blocks of 4 cells and 2 x 2 of 8 + 4 by 4 + 6 give
 * theirs. Blocks that do not nest (12 x 10 in 5 + 7 by 4 + 6; 16 x 8 in
 * 5 + 11 by 3 + 5, or in 6 + 10, which nests on the first coarse level only)
 * keep the same hierarchy with its lower levels whole on every rank
 * (agglomerated through cryo_comm_ops.sum_exact), and give the same bits
 * too. */
static void test_multigrid_decompositions(void) {
  static world wref, w2, w4, wref12, w3, w4b, wu, wa, wb;
  static rank_ctx cref[1], c2[2], c4[4], cref12[1], c3[3], c4b[4], cu[4], ca[4], cb[2];
  const int pc = CRYO_LANDICE_PC_MULTIGRID;
  const int x1[1] = {16}, y1[1] = {8}, x2[2] = {8, 8}, y2[2] = {4, 4};
  const int x12[1] = {12}, y10[1] = {10}, x3[3] = {4, 4, 4}, x4[2] = {8, 4}, y4[2] = {4, 6},
            xu[2] = {5, 7};
  run_world(&wref, pc, 1, 1, x1, y1, cref);
  run_world(&w2, pc, 2, 1, x2, y1, c2);
  run_world(&w4, pc, 2, 2, x2, y2, c4);
  run_world(&wref12, pc, 1, 1, x12, y10, cref12);
  run_world(&w3, pc, 3, 1, x3, y10, c3);
  run_world(&w4b, pc, 2, 2, x4, y4, c4b);
  run_world(&wu, pc, 2, 2, xu, y4, cu);
  /* 16 x 8 in blocks that nest on no coarse level (5 + 11 by 3 + 5), and in
   * blocks that nest on the first only (6 + 10): the levels below are whole
   * on every rank */
  const int xa[2] = {5, 11}, ya[2] = {3, 5}, xb[2] = {6, 10};
  run_world(&wa, pc, 2, 2, xa, ya, ca);
  run_world(&wb, pc, 2, 1, xb, y1, cb);
  int ok = cref[0].status == CRYO_OK && cref12[0].status == CRYO_OK;
  for (int r = 0; r < 4; ++r)
    ok &= (r >= 2 || c2[r].status == CRYO_OK) && (r >= 3 || c3[r].status == CRYO_OK) &&
          c4[r].status == CRYO_OK && c4b[r].status == CRYO_OK && cu[r].status == CRYO_OK &&
          ca[r].status == CRYO_OK && (r >= 2 || cb[r].status == CRYO_OK);
  CU_ASSERT_FATAL(ok);
  long d2 = compare(&wref, &cref[0], &w2, c2), d4 = compare(&wref, &cref[0], &w4, c4);
  long d3 = compare(&wref12, &cref12[0], &w3, c3), d4b = compare(&wref12, &cref12[0], &w4b, c4b);
  printf("\n  multigrid 16 x 8: Newton steps %d, first step %d CG iterations; differing values: "
         "2 ranks %ld, 4 ranks %ld\n  12 x 10: 3 ranks %ld, 4 ranks %ld",
         cref[0].nlog - 1, cref[0].hist[0].linear_iterations, d2, d4, d3, d4b);
  CU_ASSERT(d2 == 0);
  CU_ASSERT(d4 == 0);
  CU_ASSERT(d3 == 0);
  CU_ASSERT(d4b == 0);
  long du = compare(&wref12, &cref12[0], &wu, cu), da = compare(&wref, &cref[0], &wa, ca),
       db = compare(&wref, &cref[0], &wb, cb);
  printf("\n  blocks that do not nest (coarse levels whole on every rank), differing values: "
         "12 x 10 in 5 + 7 by 4 + 6 %ld, 16 x 8 in 5 + 11 by 3 + 5 %ld, in 6 + 10 %ld",
         du, da, db);
  CU_ASSERT(du == 0);
  CU_ASSERT(da == 0);
  CU_ASSERT(db == 0);
  test_li_free(&cref[0].p, &cref[0].s);
  test_li_free(&cref12[0].p, &cref12[0].s);
  for (int r = 0; r < 4; ++r) {
    if (r < 2) test_li_free(&c2[r].p, &c2[r].s);
    if (r < 3) test_li_free(&c3[r].p, &c3[r].s);
    test_li_free(&c4[r].p, &c4[r].s);
    test_li_free(&c4b[r].p, &c4b[r].s);
    test_li_free(&cu[r].p, &cu[r].s);
    test_li_free(&ca[r].p, &ca[r].s);
    if (r < 2) test_li_free(&cb[r].p, &cb[r].s);
  }
}

/* Costs and owned-cell gradients of a decomposed adjoint run against the
 * reference: counts of differing values. */
static long compare_gradient(const world *ref, const rank_ctx *rref, const world *w,
                             const rank_ctx *rc) {
  const cryo_block *b0 = &ref->blocks[0];
  long diff = 0;
  for (int r = 0; r < w->nranks; ++r) {
    const cryo_block *b = &w->blocks[r];
    diff += rc[r].cost[0] != rref->cost[0];
    diff += rc[r].cost[1] != rref->cost[1];
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i)
        diff += rc[r].grad[CRYO_CELL(b, i, j)] != rref->grad[CRYO_CELL(b0, b->i0 + i, b->j0 + j)];
  }
  return diff;
}

static void test_adjoint_decompositions(void) {
  static world wref, w2, w4;
  static rank_ctx cref[1], c2[2], c4[4];
  const int x1[1] = {NXG}, y1[1] = {NYG}, x2[2] = {6, 6}, x4[2] = {5, 7}, y4[2] = {4, 6};
  wref.adjoint = w2.adjoint = w4.adjoint = 1;
  run_world(&wref, CRYO_LANDICE_PC_COLUMN, 1, 1, x1, y1, cref);
  run_world(&w2, CRYO_LANDICE_PC_COLUMN, 2, 1, x2, y1, c2);
  run_world(&w4, CRYO_LANDICE_PC_COLUMN, 2, 2, x4, y4, c4);
  int ok = cref[0].status == CRYO_OK;
  for (int r = 0; r < 2; ++r)
    ok &= c2[r].status == CRYO_OK;
  for (int r = 0; r < 4; ++r)
    ok &= c4[r].status == CRYO_OK;
  CU_ASSERT_FATAL(ok);
  long d2 = compare_gradient(&wref, &cref[0], &w2, c2);
  long d4 = compare_gradient(&wref, &cref[0], &w4, c4);
  printf("\n  adjoint: misfit %.9e, regularization %.9e; differing values: 2 ranks %ld, "
         "4 ranks %ld",
         cref[0].cost[0], cref[0].cost[1], d2, d4);
  CU_ASSERT(cref[0].cost[0] > 0.0 && cref[0].cost[1] > 0.0);
  CU_ASSERT(d2 == 0);
  CU_ASSERT(d4 == 0);
  rank_ctx *all[3] = {cref, c2, c4};
  const int count[3] = {1, 2, 4};
  for (int q = 0; q < 3; ++q)
    for (int r = 0; r < count[q]; ++r) {
      test_li_free(&all[q][r].p, &all[q][r].s);
      free(all[q][r].grad);
    }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_decomp", NULL, NULL);
  CU_add_test(suite, "1, 2, 4 blocks bit-identical", test_decompositions);
  CU_add_test(suite, "multigrid: any blocks bit-identical", test_multigrid_decompositions);
  CU_add_test(suite, "adjoint gradient: 1, 2, 4 blocks bit-identical", test_adjoint_decompositions);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
