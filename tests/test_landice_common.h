/* Shared scaffolding of the land-ice unit tests: one block on one rank, a
 * cryo_comm_ops whose halo does the periodic wrap (non-periodic halos are
 * filled with NaN so that any use of them shows), and state allocation from
 * the cryo_landice_arrays() table. */
#ifndef TEST_LANDICE_COMMON_H
#define TEST_LANDICE_COMMON_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cryo_error.h"
#include "landice.h"

typedef struct test_li_ctx {
  const cryo_block *b;
} test_li_ctx;

static inline void test_li_wrap(const cryo_block *b, int nodes, int nlev, double *f) {
  int ex = nodes ? b->nx + 1 : b->nx, ey = nodes ? b->ny + 1 : b->ny; /* first halo index */
  int sx = nodes ? 1 : 0, sy = nodes ? 1 : 0;                         /* source of the high halo */
  long stride = nodes ? b->nx + 3 : b->nx + 2;
#define TLI_AT(i, j) (f + (((long)(j) + 1) * stride + (i) + 1) * nlev)
  for (int j = 0; j < ey; ++j) {
    double *lo = TLI_AT(-1, j), *hi = TLI_AT(ex, j);
    for (int k = 0; k < nlev; ++k) {
      lo[k] = b->periodic_x ? TLI_AT(b->nx - 1, j)[k] : NAN;
      hi[k] = b->periodic_x ? TLI_AT(sx, j)[k] : NAN;
    }
  }
  for (int i = -1; i <= ex; ++i) {
    double *lo = TLI_AT(i, -1), *hi = TLI_AT(i, ey);
    for (int k = 0; k < nlev; ++k) {
      lo[k] = b->periodic_y ? TLI_AT(i, b->ny - 1)[k] : NAN;
      hi[k] = b->periodic_y ? TLI_AT(i, sy)[k] : NAN;
    }
  }
#undef TLI_AT
}

static inline int test_li_halo(void *ctx, cryo_location loc, int nlev, int nfield,
                               double *const *fields) {
  test_li_ctx *c = ctx;
  for (int f = 0; f < nfield; ++f)
    test_li_wrap(c->b, loc == CRYO_AT_NODE, nlev, fields[f]);
  return CRYO_OK;
}

static inline int test_li_halo_block(void *ctx, const cryo_block *b, cryo_location loc, int nlev,
                                     int nfield, double *const *fields) {
  (void)ctx;
  for (int f = 0; f < nfield; ++f)
    test_li_wrap(b, loc == CRYO_AT_NODE, nlev, fields[f]);
  return CRYO_OK;
}

static inline int test_li_sum_exact(void *ctx, double *values, long n) {
  (void)ctx;
  (void)values;
  (void)n;
  return CRYO_OK;
}

static inline int test_li_sum(void *ctx, long long *vals, int n) {
  (void)ctx;
  (void)vals;
  (void)n;
  return CRYO_OK;
}

static inline int test_li_max(void *ctx, double *vals, int n) {
  (void)ctx;
  (void)vals;
  (void)n;
  return CRYO_OK;
}

static inline cryo_comm_ops test_li_ops(test_li_ctx *ctx) {
  cryo_comm_ops ops = {
      ctx, test_li_halo, test_li_sum, test_li_max, test_li_halo_block, test_li_sum_exact, NULL};
  return ops;
}

static inline cryo_block test_li_block(int nx, int ny, double dx, double dy, int periodic) {
  cryo_block b = {nx, ny, 0, 0, nx, ny, dx, dy, periodic, periodic};
  return b;
}

/* Allocate every array of the table (zeroed); every cell carries ice (thk
 * 1 km: the tests that build node geometry by hand solve on ice columns
 * only, and set thk themselves where they want ice-free cells) and the
 * calving mask is 1 (ice may be anywhere). Returns 0 on failure. */
static inline int test_li_alloc(const cryo_block *b, const cryo_landice_params *p,
                                cryo_landice_state *s) {
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  memset(s, 0, sizeof *s);
  for (int a = 0; a < n; ++a) {
    long pts = t[a].loc == CRYO_AT_NODE ? CRYO_NNODE(b) : CRYO_NCELL(b);
    double **slot = (double **)((char *)s + t[a].offset);
    *slot = calloc((size_t)pts * t[a].nlev, sizeof(double));
    if (!*slot) return 0;
  }
  /* the multigrid's levels, sized for it whatever p selects: a test may
   * switch preconditioners on one state */
  cryo_landice_params mg = *p;
  mg.preconditioner = CRYO_LANDICE_PC_MULTIGRID;
  s->mg = calloc((size_t)cryo_landice_mg_doubles(b, &mg, 1), sizeof(double));
  if (!s->mg) return 0;
  for (long q = 0; q < CRYO_NCELL(b); ++q) {
    s->thk[q] = 1000.0;
    s->calving_mask[q] = 1.0;
  }
  return 1;
}

/* Node thickness and surface from s->thk and s->bed as the thickness step
 * makes them (cryo_landice_thickness_nodes), halo filled. */
static inline void test_li_nodes_from_cells(test_li_ctx *ctx, const cryo_landice_params *p,
                                            cryo_landice_state *s) {
  cryo_landice_thickness_nodes(ctx->b, p, s->thk, s->bed, s->thk_node, s->usrf);
  double *f[2] = {s->thk_node, s->usrf};
  test_li_halo(ctx, CRYO_AT_NODE, 1, 2, f);
}

static inline void test_li_free(const cryo_landice_params *p, cryo_landice_state *s) {
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  for (int a = 0; a < n; ++a) {
    double **slot = (double **)((char *)s + t[a].offset);
    free(*slot);
    *slot = NULL;
  }
  free(s->mg);
  s->mg = NULL;
}

/* Copy periodic images: node nx <- node 0 and ny <- 0 (the owner's value). */
static inline void test_li_images(const cryo_block *b, int nlev, double *f) {
  long stride = b->nx + 3;
  for (int j = 0; j <= b->ny; ++j)
    for (int i = 0; i <= b->nx; ++i) {
      int si = (b->periodic_x && i == b->nx) ? 0 : i, sj = (b->periodic_y && j == b->ny) ? 0 : j;
      if (si == i && sj == j) continue;
      memcpy(f + ((j + 1) * stride + i + 1) * nlev, f + ((sj + 1) * stride + si + 1) * nlev,
             sizeof(double) * nlev);
    }
}

#endif
