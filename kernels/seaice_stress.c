/* mEVP stress update: one fused element kernel (Jendersie et al. 2025,
 * Listing 1, Eq. 3; docs/seaice.md).
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
 * Tensile strength (Konig Beatty and Holland 2010): zeta = (1 + k_t) P / (2 Delta)
 * and pressure (1 - k_t) P / 2, the ellipse shifted to span [-P, k_t P] in the
 * mean normal stress. Adaptive EVP (Kimmritz et al. 2016): alpha of the cell
 * max(sqrt(c* gamma), alpha_min), gamma = zeta_mean (c pi)^2 dt / (dx dy rho_i
 * max(h, h_min)), stored for the velocity kernel's beta (8 B more per cell).
 *
 * Minimum bytes per cell (dG0 tracers, doubles): read 4 node velocities shared
 * with neighbours, 2 x 8 B per cell; h, a, ice_mask 3 x 8 B; stress 9 x 8 B read and
 * 9 x 8 B written: 184 B per cell (dG1 tracers: 216 B). With the stress stored as
 * float (seaice_stress_single.c, kernels/seaice_store.h) 9 x 4 B each way: 112 B
 * (dG1: 144 B).
 */
#include <math.h>

#include "cryo_acc.h"
#include "cryo_math.h"
#include "seaice.h"
#include "seaice_store.h"

#define GAUSS_X 0.57735026918962576451 /* 1/sqrt(3) */

/* Parameters the cell update needs, copied to private scalars before the loop. */
typedef struct {
  double rdx2, rdy2;     /* 1 / (2 dx), 1 / (2 dy) */
  double pstar, cstr;    /* P*, C */
  double k1, k2, k3;     /* 1 + e^-2, 1 - e^-2, e^-2 */
  double dmin2, ralpha;  /* Delta_min^2, 1 / alpha */
  double tens_p, tens_m; /* 1 + k_t, 1 - k_t (tensile strength) */
  double aevp_fac;       /* adaptive EVP: c* (c pi)^2 dt / (A_c rho_i), m3 kg-1 ... s */
  double h_min, alpha_min;
} stress_consts;

/* Everything a launch needs, in one struct that lives on the device too, so
 * that the launch maps nothing (kernels/cryo_acc.h; docs/performance.md,
 * "No-map launches"). 8-byte members only. */
typedef struct {
  stress_consts k;
  long nxc, ncell; /* cells per row and in all, halo ring included */
  const double *u, *v, *h, *a, *ice_mask;
  seaice_store *s11, *s12, *s22, *alpha_evp;
} stress_args;

#define STRESS_REAL   double
#define STRESS_SUFFIX double
#define STRESS_EXP    cryo_exp
#define STRESS_SQRT   sqrt
#include "seaice_stress_cell.h"
#undef STRESS_REAL
#undef STRESS_SUFFIX
#undef STRESS_EXP
#undef STRESS_SQRT
#define STRESS_REAL   float
#define STRESS_SUFFIX float
#define STRESS_EXP    expf
#define STRESS_SQRT   sqrtf
#include "seaice_stress_cell.h"

static stress_consts stress_consts_make(const cryo_seaice_params *p, const cryo_block *b) {
  const double re2 = 1.0 / (p->ecc * p->ecc);
  const double cpi = p->aevp_c * CRYO_PI;
  stress_consts k = {0.5 / b->dx,
                     0.5 / b->dy,
                     p->pstar,
                     p->c_strength,
                     1.0 + re2,
                     1.0 - re2,
                     re2,
                     p->delta_min * p->delta_min,
                     1.0 / p->alpha,
                     1.0 + p->tensile_k,
                     1.0 - p->tensile_k,
                     p->aevp_cstar * cpi * cpi * p->dt / (b->dx * b->dy * p->rho_ice),
                     p->h_min,
                     p->aevp_alpha_min};
  return k;
}

static stress_args stress_dev;
CRYO_DEVICE_ARGS(stress_dev)

/* Cells (i, j) over the whole array, halo ring included: cell index e equals
 * CRYO_CELL(b, i, j) and its lower-left node is e + j + 1 (rows of nodes are
 * one longer than rows of cells). */
/* One loop per tracer order (na = 1 or 3 a compile-time constant), working
 * precision and alpha (fixed, or adaptive: ad = 1). */
#define STRESS_LOOP(name, cell, na, ad)                                                            \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP                                                                         \
    for (long e = 0; e < stress_dev.ncell; ++e) {                                                  \
      const stress_args *g = &stress_dev;                                                          \
      CRYO_OPAQUE(g);                                                                              \
      if (g->ice_mask[e] == 2.0) cell(e, e + (int)e / (int)g->nxc, g->nxc + 1, g, na, ad);         \
    }                                                                                              \
  }
STRESS_LOOP(stress_dg0, stress_cell_double, 1, 0)
STRESS_LOOP(stress_dg1, stress_cell_double, 3, 0)
STRESS_LOOP(stress_dg0_single, stress_cell_float, 1, 0)
STRESS_LOOP(stress_dg1_single, stress_cell_float, 3, 0)
STRESS_LOOP(stress_dg0_aevp, stress_cell_double, 1, 1)
STRESS_LOOP(stress_dg1_aevp, stress_cell_double, 3, 1)
STRESS_LOOP(stress_dg0_single_aevp, stress_cell_float, 1, 1)
STRESS_LOOP(stress_dg1_single_aevp, stress_cell_float, 3, 1)

void SEAICE_STORE_NAME(cryo_seaice_stress_kernel)(const cryo_seaice_params *p, const cryo_block *b,
                                                  const double *u, const double *v, const double *h,
                                                  const double *a, const double *ice_mask,
                                                  seaice_store *s11, seaice_store *s12,
                                                  seaice_store *s22, seaice_store *alpha_evp) {
  const stress_args fresh = {stress_consts_make(p, b),
                             b->nx + 2,
                             CRYO_NCELL(b),
                             u,
                             v,
                             h,
                             a,
                             ice_mask,
                             s11,
                             s12,
                             s22,
                             alpha_evp};
  /* [single][adaptive][dG1] */
  static void (*const loops[2][2][2])(void) = {
      {{stress_dg0, stress_dg1}, {stress_dg0_aevp, stress_dg1_aevp}},
      {{stress_dg0_single, stress_dg1_single}, {stress_dg0_single_aevp, stress_dg1_single_aevp}}};
  cryo_device_args_acquire(&stress_dev, &fresh, sizeof fresh);
  loops[p->stress_single != 0][p->adaptive_evp != 0][p->tracer_order == 1]();
  cryo_device_args_release();
}

/* The kernels below have no stored stress of their own type: compiled once. */
#if !defined(CRYO_SEAICE_STORE_SINGLE)
void cryo_seaice_ice_cells_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                  cryo_seaice_state *s) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const long ncell = CRYO_NCELL(b);
  const double a_min = p->a_min;
  const double *mask = s->mask, *a = s->a;
  double *ice_mask = s->ice_mask, *s11 = s->s11, *s12 = s->s12, *s22 = s->s22;
  CRYO_DEVICE_LOOP((mask, a, ice_mask, s11, s12, s22))
  for (long c = 0; c < ncell; ++c) {
    const int ice = !(a[c * na] <= a_min); /* a NaN stays in the iteration, for the state check */
    ice_mask[c] = mask[c] == 0.0 ? 0.0 : ice ? 2.0 : 1.0;
    if (mask[c] != 0.0 && !ice)
      for (int m = 0; m < CRYO_SEAICE_NS; ++m) {
        s11[c * CRYO_SEAICE_NS + m] = 0.0;
        s12[c * CRYO_SEAICE_NS + m] = 0.0;
        s22[c * CRYO_SEAICE_NS + m] = 0.0;
      }
  }
}

void cryo_seaice_stress_to_single(const cryo_block *b, cryo_seaice_state *s) {
  const long n = CRYO_NCELL(b) * CRYO_SEAICE_NS;
  const double *s11 = s->s11, *s12 = s->s12, *s22 = s->s22;
  float *s11_f = s->s11_f, *s12_f = s->s12_f, *s22_f = s->s22_f;
  CRYO_DEVICE_LOOP((s11, s12, s22, s11_f, s12_f, s22_f))
  for (long i = 0; i < n; ++i) {
    s11_f[i] = (float)s11[i];
    s12_f[i] = (float)s12[i];
    s22_f[i] = (float)s22[i];
  }
}

void cryo_seaice_stress_from_single(const cryo_block *b, cryo_seaice_state *s) {
  const long n = CRYO_NCELL(b) * CRYO_SEAICE_NS;
  const float *s11_f = s->s11_f, *s12_f = s->s12_f, *s22_f = s->s22_f;
  double *s11 = s->s11, *s12 = s->s12, *s22 = s->s22;
  CRYO_DEVICE_LOOP((s11, s12, s22, s11_f, s12_f, s22_f))
  for (long i = 0; i < n; ++i) {
    s11[i] = s11_f[i];
    s12[i] = s12_f[i];
    s22[i] = s22_f[i];
  }
}
#endif
