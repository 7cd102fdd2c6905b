/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Decomposition independence of the sea-ice macro step without MPI: the
 * cyclone forcing on a 24x20 grid of 16 km cells with a land island, run as
 * 1 block and as 2 (x split 11 + 13), 3 (y split 6 + 7 + 7) and 4 (2 x 2)
 * blocks, each block in its own thread with a halo exchange and global
 * reductions done here through barriers. After 4 macro steps (50 mEVP
 * iterations each) every owned value of u, v, s11, s12, s22, h, a and the
 * totals from cryo_seaice_diag_totals must equal the 1-block run bit for bit,
 * for dG0 and dG1 tracers.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */

#include <CUnit/Basic.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cryodyn.h"
#include "seaice.h"

#define GNX   24
#define GNY   20
#define MAXB  4
#define STEPS 4

typedef struct {
  int nb;
  const cryo_seaice_params *p;
  cryo_block blk[MAXB];
  cryo_seaice_state st[MAXB];
  double totals[MAXB][3];
  int status[MAXB];
  pthread_barrier_t bar;
  pthread_mutex_t mu;
  long long isum[8];
  double dmax[8];
} world;

typedef struct {
  world *w;
  int r;
} rank_ctx;

static int land(int gi, int gj) {
  return gi >= 14 && gi < 17 && gj >= 8 && gj < 10;
}

static double cell_mask(int gi, int gj) {
  return (gi >= 0 && gi < GNX && gj >= 0 && gj < GNY && !land(gi, gj)) ? 1.0 : 0.0;
}

/* offset of the state member that `field` is, in block r */
static size_t member_offset(world *w, int r, const double *field) {
  const cryo_seaice_array_info *t;
  const int n = cryo_seaice_arrays(w->p, &t);
  for (int k = 0; k < n; ++k)
    if (*(double **)((char *)&w->st[r] + t[k].offset) == field) return t[k].offset;
  return (size_t)-1;
}

/* block owning (computing) cell or node (gi, gj); -1 outside the domain */
static int owner(world *w, int node, int gi, int gj) {
  for (int q = 0; q < w->nb; ++q) {
    const cryo_block *b = &w->blk[q];
    const int hi_i = b->i0 + b->nx + node, hi_j = b->j0 + b->ny + node;
    if (gi >= b->i0 && gi < hi_i && gj >= b->j0 && gj < hi_j) return q;
  }
  return -1;
}

static int halo(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  const int r = rc->r, node = loc == CRYO_AT_NODE;
  const cryo_block *b = &w->blk[r];
  pthread_barrier_wait(&w->bar);
  for (int f = 0; f < nfield; ++f) {
    const size_t off = member_offset(w, r, fields[f]);
    if (off == (size_t)-1) return CRYO_ERR_ARG;
    for (int j = -1; j <= b->ny + node; ++j)
      for (int i = -1; i <= b->nx + node; ++i) {
        if (i >= 0 && i < b->nx + node && j >= 0 && j < b->ny + node) continue;
        const int gi = b->i0 + i, gj = b->j0 + j, q = owner(w, node, gi, gj);
        if (q < 0) continue;
        const cryo_block *bq = &w->blk[q];
        const double *src = *(double **)((char *)&w->st[q] + off);
        const long d = node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j);
        const long s = node ? CRYO_NODE(bq, gi - bq->i0, gj - bq->j0)
                            : CRYO_CELL(bq, gi - bq->i0, gj - bq->j0);
        for (int k = 0; k < nlev; ++k)
          fields[f][d * nlev + k] = src[s * nlev + k];
      }
  }
  pthread_barrier_wait(&w->bar);
  return CRYO_OK;
}

static int sum_int64(void *ctx, long long *vals, int n) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  if (rc->r == 0) memset(w->isum, 0, sizeof w->isum);
  pthread_barrier_wait(&w->bar);
  pthread_mutex_lock(&w->mu);
  for (int k = 0; k < n; ++k)
    w->isum[k] += vals[k];
  pthread_mutex_unlock(&w->mu);
  pthread_barrier_wait(&w->bar);
  for (int k = 0; k < n; ++k)
    vals[k] = w->isum[k];
  pthread_barrier_wait(&w->bar);
  return CRYO_OK;
}

static int max_double(void *ctx, double *vals, int n) {
  rank_ctx *rc = ctx;
  world *w = rc->w;
  if (rc->r == 0)
    for (int k = 0; k < 8; ++k)
      w->dmax[k] = -INFINITY;
  pthread_barrier_wait(&w->bar);
  pthread_mutex_lock(&w->mu);
  for (int k = 0; k < n; ++k)
    w->dmax[k] = fmax(w->dmax[k], vals[k]);
  pthread_mutex_unlock(&w->mu);
  pthread_barrier_wait(&w->bar);
  for (int k = 0; k < n; ++k)
    vals[k] = w->dmax[k];
  pthread_barrier_wait(&w->bar);
  return CRYO_OK;
}

static void *run_rank(void *arg) {
  rank_ctx *rc = arg;
  world *w = rc->w;
  const int r = rc->r;
  const cryo_comm_ops ops = {rc, halo, sum_int64, max_double, NULL, NULL, NULL};
  cryo_seaice_state *s = &w->st[r];
  const cryo_block *b = &w->blk[r];
  for (int step = 0; step < STEPS && !w->status[r]; ++step) {
    cryo_seaice_forcing_cyclone(b, step * w->p->dt, s->uair, s->vair, s->uocn, s->vocn);
    w->status[r] = cryo_seaice_step(w->p, b, s, &ops);
  }
  if (!w->status[r])
    w->status[r] = cryo_seaice_diag_totals(w->p, b, s, &ops, &w->totals[r][0], &w->totals[r][1],
                                           &w->totals[r][2]);
  return NULL;
}

static void setup(world *w, const cryo_seaice_params *p, int nbx, const int *xs, int nby,
                  const int *ys) {
  memset(w, 0, sizeof *w);
  w->p = p;
  w->nb = nbx * nby;
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const cryo_seaice_array_info *t;
  const int narr = cryo_seaice_arrays(p, &t);
  for (int by = 0, r = 0, j0 = 0; by < nby; j0 += ys[by++])
    for (int bx = 0, i0 = 0; bx < nbx; i0 += xs[bx++], ++r) {
      cryo_block *b = &w->blk[r];
      *b = (cryo_block){.nx = xs[bx],
                        .ny = ys[by],
                        .i0 = i0,
                        .j0 = j0,
                        .nx_global = GNX,
                        .ny_global = GNY,
                        .dx = 16.0e3,
                        .dy = 16.0e3};
      cryo_seaice_state *s = &w->st[r];
      for (int k = 0; k < narr; ++k) {
        const long len = (t[k].loc == CRYO_AT_CELL ? CRYO_NCELL(b) : CRYO_NNODE(b)) * t[k].nlev;
        *(double **)((char *)s + t[k].offset) = calloc(len, sizeof(double));
      }
      for (int j = -1; j <= b->ny; ++j)
        for (int i = -1; i <= b->nx; ++i) {
          const int gi = i0 + i, gj = j0 + j;
          const long c = CRYO_CELL(b, i, j);
          const double x = (gi + 0.5) * b->dx, y = (gj + 0.5) * b->dy;
          s->mask[c] = cell_mask(gi, gj);
          s->h[c * na] = s->mask[c] * (0.3 + 0.005 * (sin(6e-5 * x) + sin(3e-5 * y)));
          s->a[c * na] = s->mask[c] * (0.9 + 0.1 * cos(2e-5 * x));
          if (na == 3) s->h[c * 3 + 1] = s->mask[c] * 0.002 * sin(1e-5 * y);
        }
    }
  pthread_barrier_init(&w->bar, NULL, (unsigned)w->nb);
  pthread_mutex_init(&w->mu, NULL);
}

static void run(world *w) {
  pthread_t th[MAXB];
  rank_ctx rc[MAXB];
  for (int r = 0; r < w->nb; ++r) {
    rc[r] = (rank_ctx){w, r};
    pthread_create(&th[r], NULL, run_rank, &rc[r]);
  }
  for (int r = 0; r < w->nb; ++r)
    pthread_join(th[r], NULL);
}

static void teardown(world *w) {
  const cryo_seaice_array_info *t;
  const int narr = cryo_seaice_arrays(w->p, &t);
  for (int r = 0; r < w->nb; ++r)
    for (int k = 0; k < narr; ++k)
      free(*(double **)((char *)&w->st[r] + t[k].offset));
  pthread_barrier_destroy(&w->bar);
  pthread_mutex_destroy(&w->mu);
}

/* count of owned values of block run `w` that differ in any bit from `ref` */
static long differences(world *ref, world *w) {
  const int na = CRYO_SEAICE_NA(w->p->tracer_order);
  const cryo_block *rb = &ref->blk[0];
  const cryo_seaice_state *rs = &ref->st[0];
  long diff = 0;
  for (int r = 0; r < w->nb; ++r) {
    const cryo_block *b = &w->blk[r];
    const cryo_seaice_state *s = &w->st[r];
    for (int j = 0; j <= b->ny; ++j)
      for (int i = 0; i <= b->nx; ++i) {
        const long n = CRYO_NODE(b, i, j), m = CRYO_NODE(rb, b->i0 + i, b->j0 + j);
        diff += memcmp(&s->u[n], &rs->u[m], sizeof(double)) != 0;
        diff += memcmp(&s->v[n], &rs->v[m], sizeof(double)) != 0;
      }
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i) {
        const long c = CRYO_CELL(b, i, j), m = CRYO_CELL(rb, b->i0 + i, b->j0 + j);
        diff += memcmp(&s->s11[c * 3], &rs->s11[m * 3], 3 * sizeof(double)) != 0;
        diff += memcmp(&s->s12[c * 3], &rs->s12[m * 3], 3 * sizeof(double)) != 0;
        diff += memcmp(&s->s22[c * 3], &rs->s22[m * 3], 3 * sizeof(double)) != 0;
        diff += memcmp(&s->h[c * na], &rs->h[m * na], na * sizeof(double)) != 0;
        diff += memcmp(&s->a[c * na], &rs->a[m * na], na * sizeof(double)) != 0;
      }
    diff += memcmp(w->totals[r], ref->totals[0], sizeof w->totals[r]) != 0;
  }
  return diff;
}

static void decomposition(int order) {
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.n_evp = 50;
  p.tracer_order = order;
  static world ref, w;
  const int all_x[] = {GNX}, all_y[] = {GNY}, two_x[] = {11, 13}, three_y[] = {6, 7, 7},
            two_y[] = {9, 11};
  setup(&ref, &p, 1, all_x, 1, all_y);
  run(&ref);
  CU_ASSERT_EQUAL(ref.status[0], CRYO_OK);
  CU_ASSERT(ref.totals[0][2] > 0.01 && ref.totals[0][2] < 0.5);
  const struct {
    int nbx, nby;
    const int *xs, *ys;
  } cases[] = {{2, 1, two_x, all_y}, {1, 3, all_x, three_y}, {2, 2, two_x, two_y}};
  for (int k = 0; k < 3; ++k) {
    setup(&w, &p, cases[k].nbx, cases[k].xs, cases[k].nby, cases[k].ys);
    run(&w);
    for (int r = 0; r < w.nb; ++r)
      CU_ASSERT_EQUAL(w.status[r], CRYO_OK);
    CU_ASSERT_EQUAL(differences(&ref, &w), 0);
    teardown(&w);
  }
  teardown(&ref);
}

static void test_decomposition_dg0(void) {
  decomposition(0);
}

static void test_decomposition_dg1(void) {
  decomposition(1);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("seaice_decomp", NULL, NULL);
  CU_add_test(s, "1, 2, 3, 4 blocks bit for bit, dG0 tracers", test_decomposition_dg0);
  CU_add_test(s, "1, 2, 3, 4 blocks bit for bit, dG1 tracers", test_decomposition_dg1);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
