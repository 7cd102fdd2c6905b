/* Sea-ice diagnostics (docs/seaice.md): cell-centre shear and divergence
 * rates, the fields that show linear kinematic features, and global totals
 * (volume, area, maximum speed) that do not depend on the decomposition:
 * sums go through the fixed-point reproducible sum of cryo_reprosum.h.
 *
 * Minimum bytes: rates, 2 x 8 B node velocity (shared) + mask read + 2 x 8 B
 * written per cell = 40 B; totals, h, a, mask per cell and u, v per node, read
 * twice (maximum, then sum).
 */
#include <math.h>

#include "cryo_acc.h"
#include "cryo_reprosum.h"
#include "seaice.h"

void cryo_seaice_diag_rates(const cryo_block *b, const double *u, const double *v,
                            const double *mask, double *shear, double *divergence) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const double rdx2 = 0.5 / b->dx, rdy2 = 0.5 / b->dy;
  CRYO_DEVICE_LOOP((u, v, mask, shear, divergence))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1;
    const long n00 = (j + 1) * (nx + 3) + i + 1, n10 = n00 + 1, n01 = n00 + nx + 3, n11 = n01 + 1;
    const double ux = rdx2 * ((u[n10] - u[n00]) + (u[n11] - u[n01]));
    const double vx = rdx2 * ((v[n10] - v[n00]) + (v[n11] - v[n01]));
    const double uy = rdy2 * ((u[n01] - u[n00]) + (u[n11] - u[n10]));
    const double vy = rdy2 * ((v[n01] - v[n00]) + (v[n11] - v[n10]));
    divergence[c] = mask[c] * (ux + vy);
    shear[c] = mask[c] * sqrt((ux - vy) * (ux - vy) + (uy + vx) * (uy + vx));
  }
}

/* Reduction lists for CRYO_DEVICE_LOOP_REDUCE (a comma inside a macro
 * argument must be hidden behind a name). */
#define CELL_MAX_VARS hmax, amax
#define CELL_SUM_VARS hhi, hlo, ahi, alo

/* Weight of cell c in the totals: 1 on rectangles (times dx dy at the end),
 * its area 4 d0 on general quadrilaterals (kernels/seaice.h). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double cell_weight(const double *geom, long c) {
  if (!geom) return 1.0;
  const double *g = geom + c * CRYO_SEAICE_NGEOM;
  return 4.0 * (g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X]);
}

/* A T fold's top row holds half of its cells twice (kernels/halo.h): the
 * copies, the cells (i > nxg/2, nyg - 1), count 0. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double fold_count(int fold, int nxg, int nyg, long gi,
                                                               long gj) {
  return fold == CRYO_FOLD_T && gj == nyg - 1 && gi > nxg / 2 ? 0.0 : 1.0;
}

static void cell_max(const cryo_block *b, long ncell, const double *h, const double *a,
                     const double *mask, const double *geom, int na, double *hmax_out,
                     double *amax_out) {
  const long nx = b->nx;
  const int fold = b->fold, i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  double hmax = 0.0, amax = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((h, a, mask, geom), max, CELL_MAX_VARS)
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1;
    const double w = mask[c] * cell_weight(geom, c) * fold_count(fold, nxg, nyg, i0 + i, j0 + j);
    hmax = cryo_max(hmax, fabs(w * h[c * na]));
    amax = cryo_max(amax, fabs(w * a[c * na]));
  }
  *hmax_out = hmax;
  *amax_out = amax;
}

static double node_max_speed2(long nx, long nnode, const double *u, const double *v) {
  double smax = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((u, v), max, smax)
  for (long e = 0; e < nnode; ++e) {
    const long j = e / (nx + 1), i = e - j * (nx + 1);
    const long n = (j + 1) * (nx + 3) + i + 1;
    smax = cryo_max(smax, u[n] * u[n] + v[n] * v[n]);
  }
  return smax;
}

static void cell_sums(const cryo_block *b, long ncell, const double *h, const double *a,
                      const double *mask, const double *geom, int na, double hscale, double ascale,
                      long long sums[4]) {
  const long nx = b->nx;
  const int fold = b->fold, i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  long long hhi = 0, hlo = 0, ahi = 0, alo = 0;
  CRYO_DEVICE_LOOP_REDUCE((h, a, mask, geom), +, CELL_SUM_VARS)
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1;
    const double w = mask[c] * cell_weight(geom, c) * fold_count(fold, nxg, nyg, i0 + i, j0 + j);
    long long hi, lo;
    cryo_fixed_split(w * h[c * na], hscale, &hi, &lo);
    hhi += hi;
    hlo += lo;
    cryo_fixed_split(w * a[c * na], ascale, &hi, &lo);
    ahi += hi;
    alo += lo;
  }
  sums[0] = hhi;
  sums[1] = hlo;
  sums[2] = ahi;
  sums[3] = alo;
}

int cryo_seaice_diag_totals(const cryo_seaice_params *p, const cryo_block *b,
                            const cryo_seaice_state *s, const cryo_comm_ops *ops, double *volume,
                            double *area, double *max_speed) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const long ncell = (long)b->nx * b->ny, nnode = (long)(b->nx + 1) * (b->ny + 1);
  double m[3];
  const double *geom = p->quad ? s->geom : NULL;
  cell_max(b, ncell, s->h, s->a, s->mask, geom, na, &m[0], &m[1]);
  m[2] = node_max_speed2(b->nx, nnode, s->u, s->v);
  int status = ops->max_double(ops->ctx, m, 3);
  if (status) return status;
  const long nterms = (long)b->nx_global * b->ny_global;
  const double hscale = cryo_fixed_scale(m[0], nterms), ascale = cryo_fixed_scale(m[1], nterms);
  long long sums[4];
  cell_sums(b, ncell, s->h, s->a, s->mask, geom, na, hscale, ascale, sums);
  status = ops->sum_int64(ops->ctx, sums, 4);
  if (status) return status;
  const double cell_area = p->quad ? 1.0 : b->dx * b->dy;
  *volume = cryo_fixed_join(sums[0], sums[1], hscale) * cell_area;
  *area = cryo_fixed_join(sums[2], sums[3], ascale) * cell_area;
  *max_speed = sqrt(m[2]);
  return status;
}
