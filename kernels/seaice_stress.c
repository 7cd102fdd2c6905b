/* mEVP stress update: one fused element kernel (seed 003 Listing 1, Eq. 3;
 * DESIGN.md section 5).
 *
 * Per active cell: strain of the bilinear velocity at the 2x2 Gauss points
 * (sym grad of a bilinear field lies in span{1, X, Y}, so this equals the
 * strain projected onto the dG stress space), ice strength
 * P = P* h exp(-C (1 - a)), Delta = sqrt(Delta_min^2 + (1 + e^-2)(e11^2 + e22^2)
 * + 2 (1 - e^-2) e11 e22 + 4 e^-2 e12^2), zeta = P / (2 Delta), VP stress
 * s_vp = zeta ((1 + e^-2) e11 + (1 - e^-2) e22) - P/2 (and 11 <-> 22),
 * s12_vp = 2 zeta e^-2 e12, its L2 projection onto {1, X, Y} (diagonal mass
 * matrix dx dy {1, 1/3, 1/3}, so coefficients are 1/4 sum, 3/4 sum X, 3/4 sum Y
 * over the Gauss points), then s += (proj - s) / alpha.
 *
 * Minimum bytes per cell (dG0 tracers, doubles): read 4 node velocities shared
 * with neighbours, 2 x 8 B per cell; h, a, mask 3 x 8 B; stress 9 x 8 B read and
 * 9 x 8 B written: 184 B per cell (dG1 tracers: 216 B).
 */
#include <math.h>

#include "cryo_acc.h"
#include "seaice.h"

#define GAUSS_X 0.57735026918962576451 /* 1/sqrt(3) */

/* Parameters the cell update needs, copied to private scalars before the loop. */
typedef struct {
  double rdx2, rdy2;    /* 1 / (2 dx), 1 / (2 dy) */
  double pstar, cstr;   /* P*, C */
  double k1, k2, k3;    /* 1 + e^-2, 1 - e^-2, e^-2 */
  double dmin2, ralpha; /* Delta_min^2, 1 / alpha */
} stress_consts;

/* P = P* h exp(-C (1 - a)) with h >= 0 and a in [0, 1] (seed 003 Listing 1 lines 5-11) */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double strength(double hq, double aq,
                                                             stress_consts k) {
  return k.pstar * cryo_seaice_max(hq, 0.0) *
         exp(-k.cstr * (1.0 - cryo_seaice_min(cryo_seaice_max(aq, 0.0), 1.0)));
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
stress_cell(long c, long n00, long nxn, stress_consts k, const double *u, const double *v,
            const double *h, const double *a, int na, double *s11, double *s12, double *s22) {
  const long n10 = n00 + 1, n01 = n00 + nxn, n11 = n01 + 1;
  /* gradients of the bilinear velocity as c0 + c1 X (or c0 + c2 Y) */
  const double dub = u[n10] - u[n00], dut = u[n11] - u[n01];
  const double dul = u[n01] - u[n00], dur = u[n11] - u[n10];
  const double dvb = v[n10] - v[n00], dvt = v[n11] - v[n01];
  const double dvl = v[n01] - v[n00], dvr = v[n11] - v[n10];
  const double ux0 = k.rdx2 * (dub + dut), ux2 = k.rdx2 * (dut - dub);
  const double uy0 = k.rdy2 * (dul + dur), uy1 = k.rdy2 * (dur - dul);
  const double vx0 = k.rdx2 * (dvb + dvt), vx2 = k.rdx2 * (dvt - dvb);
  const double vy0 = k.rdy2 * (dvl + dvr), vy1 = k.rdy2 * (dvr - dvl);
  const double e12c = 0.5 * (uy0 + vx0), e12x = 0.5 * uy1, e12y = 0.5 * vx2;

  /* dG0 tracers: one strength per cell (exp once, not per Gauss point) */
  const double pc = na == 1 ? strength(h[c], a[c], k) : 0.0;
  double p11[3] = {0.0, 0.0, 0.0}, p12[3] = {0.0, 0.0, 0.0}, p22[3] = {0.0, 0.0, 0.0};
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const double gx = (g & 1) ? GAUSS_X : -GAUSS_X;
    const double gy = (g & 2) ? GAUSS_X : -GAUSS_X;
    const double pg = na == 1 ? pc
                              : strength(h[c * 3] + h[c * 3 + 1] * gx + h[c * 3 + 2] * gy,
                                         a[c * 3] + a[c * 3 + 1] * gx + a[c * 3 + 2] * gy, k);
    const double e11 = ux0 + ux2 * gy;
    const double e22 = vy0 + vy1 * gx;
    const double e12 = e12c + e12x * gx + e12y * gy;
    const double delta = sqrt(k.dmin2 + k.k1 * (e11 * e11 + e22 * e22) + 2.0 * k.k2 * e11 * e22 +
                              4.0 * k.k3 * e12 * e12);
    const double zeta = pg / (2.0 * delta);
    const double t11 = zeta * (k.k1 * e11 + k.k2 * e22) - 0.5 * pg;
    const double t22 = zeta * (k.k1 * e22 + k.k2 * e11) - 0.5 * pg;
    const double t12 = 2.0 * zeta * k.k3 * e12;
    const double phi[3] = {1.0, gx, gy};
#pragma GCC unroll 3
    for (int m = 0; m < 3; ++m) {
      p11[m] += phi[m] * t11;
      p12[m] += phi[m] * t12;
      p22[m] += phi[m] * t22;
    }
  }
  /* projection weights: (w_g phi_k) / M_kk = {1/4, 3/4, 3/4} */
  const double wk[3] = {0.25, 0.75, 0.75};
#pragma GCC unroll 3
  for (int m = 0; m < 3; ++m) {
    const long i = c * 3 + m;
    s11[i] += (wk[m] * p11[m] - s11[i]) * k.ralpha;
    s12[i] += (wk[m] * p12[m] - s12[i]) * k.ralpha;
    s22[i] += (wk[m] * p22[m] - s22[i]) * k.ralpha;
  }
}

static stress_consts stress_consts_make(const cryo_seaice_params *p, const cryo_block *b) {
  const double re2 = 1.0 / (p->ecc * p->ecc);
  stress_consts k = {0.5 / b->dx,   0.5 / b->dy, p->pstar, p->c_strength,
                     1.0 + re2,     1.0 - re2,   re2,      p->delta_min * p->delta_min,
                     1.0 / p->alpha};
  return k;
}

/* Everything a launch needs, in one struct that lives on the device too, so
 * that the launch maps nothing (kernels/cryo_acc.h; docs/performance.md,
 * "No-map launches"). 8-byte members only. */
typedef struct {
  stress_consts k;
  long nxc, ncell; /* cells per row and in all, halo ring included */
  const double *u, *v, *h, *a, *mask;
  double *s11, *s12, *s22;
} stress_args;

static stress_args stress_dev;
CRYO_DEVICE_ARGS(stress_dev)

/* Cells (i, j) over the whole array, halo ring included: cell index e equals
 * CRYO_CELL(b, i, j) and its lower-left node is e + j + 1 (rows of nodes are
 * one longer than rows of cells). */
static void stress_dg0(void) {
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < stress_dev.ncell; ++e) {
    const stress_args *g = &stress_dev;
    if (g->mask[e] != 0.0)
      stress_cell(e, e + (int)e / (int)g->nxc, g->nxc + 1, g->k, g->u, g->v, g->h, g->a, 1, g->s11,
                  g->s12, g->s22);
  }
}

static void stress_dg1(void) {
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < stress_dev.ncell; ++e) {
    const stress_args *g = &stress_dev;
    if (g->mask[e] != 0.0)
      stress_cell(e, e + (int)e / (int)g->nxc, g->nxc + 1, g->k, g->u, g->v, g->h, g->a, 3, g->s11,
                  g->s12, g->s22);
  }
}

void cryo_seaice_stress_kernel(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                               const double *v, const double *h, const double *a,
                               const double *mask, double *s11, double *s12, double *s22) {
  const stress_args fresh = {
      stress_consts_make(p, b), b->nx + 2, CRYO_NCELL(b), u, v, h, a, mask, s11, s12, s22};
  cryo_device_args_set(&stress_dev, &fresh, sizeof fresh);
  if (p->tracer_order == 1)
    stress_dg1();
  else
    stress_dg0();
}
