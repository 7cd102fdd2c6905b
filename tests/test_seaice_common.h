/* Shared scaffolding of the sea-ice unit tests: one non-periodic block on one
 * rank, a cryo_comm_ops with nothing to exchange (the halo ring lies outside
 * the domain) and no-op reductions, state allocation from the
 * cryo_seaice_arrays() table, and the geometry of grid points. */
#ifndef TEST_SEAICE_COMMON_H
#define TEST_SEAICE_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "seaice.h"

static inline int test_si_halo_none(void *ctx, cryo_location loc, int nlev, int nfield,
                                    double *const *fields) {
  (void)ctx, (void)loc, (void)nlev, (void)nfield, (void)fields;
  return 0;
}
static inline int test_si_sum_none(void *ctx, long long *vals, int n) {
  (void)ctx, (void)vals, (void)n;
  return 0;
}
static inline int test_si_max_none(void *ctx, double *vals, int n) {
  (void)ctx, (void)vals, (void)n;
  return 0;
}

/* Halo of a single block periodic in x and y; ctx is the block. Cells repeat
 * every nx, nodes too (node nx is node 0). */
static inline int test_si_halo_periodic(void *ctx, cryo_location loc, int nlev, int nfield,
                                        double *const *fields) {
  const cryo_block *b = ctx;
  const int node = loc == CRYO_AT_NODE, last = node ? b->nx + 1 : b->nx;
  for (int f = 0; f < nfield; ++f)
    for (int j = -1; j <= last; ++j)
      for (int i = -1; i <= last; ++i) {
        if (i >= 0 && i < b->nx && j >= 0 && j < b->ny) continue;
        const int is = (i + b->nx) % b->nx, js = (j + b->ny) % b->ny;
        const long d = node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j);
        const long s = node ? CRYO_NODE(b, is, js) : CRYO_CELL(b, is, js);
        for (int k = 0; k < nlev; ++k)
          fields[f][d * nlev + k] = fields[f][s * nlev + k];
      }
  return 0;
}

static const cryo_comm_ops test_si_ops = {NULL, test_si_halo_none, test_si_sum_none,
                                          test_si_max_none};

/* nx x ny cells of dx x dy, the whole (non-periodic) domain */
static inline cryo_block test_si_block(int nx, int ny, double dx, double dy) {
  cryo_block b = {.nx = nx, .ny = ny, .nx_global = nx, .ny_global = ny, .dx = dx, .dy = dy};
  return b;
}

static inline double **test_si_member(cryo_seaice_state *s, const cryo_seaice_array_info *t) {
  return (double **)((char *)s + t->offset);
}

/* values of an array of the table */
static inline long test_si_length(const cryo_block *b, const cryo_seaice_array_info *t) {
  return (t->loc == CRYO_AT_CELL ? CRYO_NCELL(b) : CRYO_NNODE(b)) * t->nlev;
}

/* Zeroed arrays from the table of p (with the geometry arrays when p->quad);
 * mask 1 on owned cells, 0 on the ring. */
static inline void test_si_state_alloc(const cryo_seaice_params *p, const cryo_block *b,
                                       cryo_seaice_state *s) {
  *s = (cryo_seaice_state){0};
  const cryo_seaice_array_info *t;
  const int n = cryo_seaice_arrays(p, &t);
  for (int k = 0; k < n; ++k)
    *test_si_member(s, &t[k]) = calloc((size_t)test_si_length(b, &t[k]), sizeof(double));
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      s->mask[CRYO_CELL(b, i, j)] = 1.0;
}

/* The geometry arrays of s (geom, rot, fcor, nrot) from the grid points g:
 * the point tables of cryo_seaice_geometry_points, then the geometry's
 * loops (host arrays: the tests run the kernels on the host). */
static inline void test_si_geometry(const cryo_block *b, const cryo_seaice_grid_points *g,
                                    cryo_seaice_state *s) {
  double *nodes = calloc((size_t)(b->nx + 5) * (b->ny + 5) * CRYO_SEAICE_GNODE, sizeof(double));
  double *cells = calloc((size_t)CRYO_NCELL(b) * CRYO_SEAICE_GCELL, sizeof(double));
  if (!nodes || !cells) {
    fprintf(stderr, "test_si_geometry: out of memory\n");
    exit(EXIT_FAILURE);
  }
  cryo_seaice_geometry_points(b, g, nodes, cells);
  cryo_seaice_geometry(b, g, nodes, cells, s->geom, s->rot, s->fcor, s->nrot);
  free(nodes);
  free(cells);
}

static inline void test_si_state_free(const cryo_seaice_params *p, cryo_seaice_state *s) {
  const cryo_seaice_array_info *t;
  const int n = cryo_seaice_arrays(p, &t);
  for (int k = 0; k < n; ++k) {
    free(*test_si_member(s, &t[k]));
    *test_si_member(s, &t[k]) = NULL;
  }
}

#endif
