/* Brittle Bingham-Maxwell (BBM) rheology: the stress and damage update of one
 * elastic sub-step, healing, and the sub-step average of the velocity
 * (docs/seaice.md, The BBM rheology; Olason et al. 2022, JAMES 14,
 * e2021MS002685, Eq. 7-9, 22, 25, 29-33; Dansereau et al. 2016, The
 * Cryosphere 10, 1339-1359). The damage d is 0 for undamaged ice and 1 for
 * fully damaged ice; neXtSIM-DG stores 1 - d.
 *
 * Per cell with ice (ice_mask 2), at each of the 2 x 2 Gauss points, with the
 * strain e of the bilinear velocity, h, A and d of the cell's dG fields there,
 * D = 1 - d and the old stress s (vertically integrated, N m-1):
 *   E = Y D e^(-C (1 - A)),  lambda = lambda_0 (D e^(-C (1 - A)))^(alpha - 1),
 *   P_max = P_0 h^(3/2) h e^(-C (1 - A))   (the stress is thickness integrated),
 *   P~ = min(1, -P_max / s_n) for s_n = (s11 + s22) / 2 < 0, else 0,
 *   s = lambda / (lambda + (1 - P~) dt_e) (s + dt_e h E / (1 - nu^2) K:e),
 *     K:e = (e11 + nu e22, nu e11 + e22, (1 - nu) e12),
 * then the Mohr-Coulomb envelope tau + mu s_n <= c h (tau = sqrt((s11 - s22)^2
 * / 4 + s12^2), c the cohesion scaled with the cell size, Eq. 22) and the
 * compressive cap s_n >= -c_cap c h give d_crit = c h / (tau + mu s_n) (or
 * -c_cap c h / s_n beyond the cap) where exceeded, 1 inside; with the
 * characteristic time t_d = L sqrt(2 (1 + nu) rho_i / E) (Eq. 29) the damage
 * grows and the stress relaxes by f = (1 - d_crit) dt_e / t_d:
 *   d += (1 - d) f,  s -= s f.
 * Stress and damage are projected back onto their dG coefficients (weights
 * 1/4, 3/4, 3/4 of the basis {1, X, Y}, as the mEVP stress kernel).
 *
 * Byte floor per cell and sub-step (doubles, dG0 tracers): 4 node velocities
 * shared with neighbours, 2 x 8 B; h, a, ice_mask 3 x 8 B; damage read and
 * written 2 x 8 B; stress 9 x 8 B read and 9 x 8 B written: 200 B (dG1
 * tracers: h, a, d with 3 coefficients, 248 B).
 */
#include <math.h>

#include "cryo_acc.h"
#include "cryo_math.h"
#include "seaice.h"

#define GAUSS_X 0.57735026918962576451 /* 1/sqrt(3) */

/* The smallest 1 - d in the viscous time: lambda stays positive (neXtSIM-DG's bound). */
#define BBM_UNDAMAGED_MIN 1e-12

typedef struct {
  double rdx2, rdy2;     /* 1 / (2 dx), 1 / (2 dy), m-1 */
  double dte;            /* elastic sub-step, s */
  double young, nu, rnu; /* Y (Pa), nu, 1 / (1 - nu^2) */
  double lambda0;        /* s */
  double alpha1;         /* alpha - 1, an integer */
  double p0, cstr;       /* P_0 (Pa), C */
  double mu, coh, compr; /* mu, cohesion c (Pa), c_cap c (Pa) */
  double rtd_fac;        /* 1 / (L sqrt(2 (1 + nu) rho_i)): 1 / t_d = sqrt(E) rtd_fac */
} bbm_consts;

typedef struct {
  bbm_consts k;
  long nxc, ncell; /* cells per row and in all, halo ring included */
  const double *u, *v, *h, *a, *ice_mask;
  double *s11, *s12, *s22, *damage;
} bbm_args;

static bbm_args bbm_dev;
CRYO_DEVICE_ARGS(bbm_dev)

/* x^n for a small non-negative integer n held as a double (no library pow on the device). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double ipow(double x, double n) {
  double r = 1.0;
  for (double k = 0.0; k < n; k += 1.0)
    r *= x;
  return r;
}

/* What the update needs of h, A and d at a point: h >= 0, d in [0, 1], E,
 * lambda, P_max and 1 / t_d. */
typedef struct {
  double hq, dq, young, lambda, pmax, rtd;
} bbm_material;

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) bbm_material
bbm_material_at(const bbm_consts *k, double hg, double ag, double dg) {
  bbm_material m;
  m.hq = cryo_max(hg, 0.0);
  m.dq = cryo_bound(dg, 0.0, 1.0);
  const double und = cryo_max(1.0 - m.dq, BBM_UNDAMAGED_MIN);
  const double expc = cryo_exp(-k->cstr * (1.0 - cryo_bound(ag, 0.0, 1.0)));
  /* Eq. 8, 9, 25, 29 */
  m.young = k->young * und * expc;
  m.lambda = k->lambda0 * ipow(und * expc, k->alpha1);
  m.pmax = k->p0 * m.hq * sqrt(m.hq) * m.hq * expc;
  m.rtd = sqrt(m.young) * k->rtd_fac;
  return m;
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
bbm_cell(long c, long n00, long nxn, const bbm_consts *k, int na, const double *u, const double *v,
         const double *h, const double *a, double *s11, double *s12, double *s22, double *damage) {
  const long n10 = n00 + 1, n01 = n00 + nxn, n11 = n01 + 1;
  /* strain of the bilinear velocity as c0 + c1 X + c2 Y (as the mEVP stress kernel) */
  const double dub = u[n10] - u[n00], dut = u[n11] - u[n01];
  const double dul = u[n01] - u[n00], dur = u[n11] - u[n10];
  const double dvb = v[n10] - v[n00], dvt = v[n11] - v[n01];
  const double dvl = v[n01] - v[n00], dvr = v[n11] - v[n10];
  const double ux0 = k->rdx2 * (dub + dut), ux2 = k->rdx2 * (dut - dub);
  const double uy0 = k->rdy2 * (dul + dur), uy1 = k->rdy2 * (dur - dul);
  const double vx0 = k->rdx2 * (dvb + dvt), vx2 = k->rdx2 * (dvt - dvb);
  const double vy0 = k->rdy2 * (dvl + dvr), vy1 = k->rdy2 * (dvr - dvl);
  const double e12c = 0.5 * (uy0 + vx0), e12x = 0.5 * uy1, e12y = 0.5 * vx2;
  const long i3 = c * 3;
  const double s11c[3] = {s11[i3], s11[i3 + 1], s11[i3 + 2]};
  const double s12c[3] = {s12[i3], s12[i3 + 1], s12[i3 + 2]};
  const double s22c[3] = {s22[i3], s22[i3 + 1], s22[i3 + 2]};
  /* dG0 tracers: one material per cell (exp and sqrt once, not per Gauss point) */
  const bbm_material mc =
      na == 1 ? bbm_material_at(k, h[c], a[c], damage[c]) : (bbm_material){0, 0, 0, 0, 0, 0};
  double p11[3] = {0, 0, 0}, p12[3] = {0, 0, 0}, p22[3] = {0, 0, 0}, pd[3] = {0, 0, 0};
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const double gx = (g & 1) ? GAUSS_X : -GAUSS_X;
    const double gy = (g & 2) ? GAUSS_X : -GAUSS_X;
    const double phi[3] = {1.0, gx, gy};
    const bbm_material m =
        na == 1 ? mc
                : bbm_material_at(k, h[c * 3] + h[c * 3 + 1] * gx + h[c * 3 + 2] * gy,
                                  a[c * 3] + a[c * 3 + 1] * gx + a[c * 3 + 2] * gy,
                                  damage[c * 3] + damage[c * 3 + 1] * gx + damage[c * 3 + 2] * gy);
    const double e11 = ux0 + ux2 * gy;
    const double e22 = vy0 + vy1 * gx;
    const double e12 = e12c + e12x * gx + e12y * gy;
    double t11 = s11c[0] + s11c[1] * gx + s11c[2] * gy;
    double t12 = s12c[0] + s12c[1] * gx + s12c[2] * gy;
    double t22 = s22c[0] + s22c[1] * gx + s22c[2] * gy;
    /* Eq. 7b: the viscous part acts only beyond the ridging pressure */
    const double sn0 = 0.5 * (t11 + t22);
    const double ptilde = sn0 < 0.0 ? cryo_min(-m.pmax / sn0, 1.0) : 0.0;
    const double mult = m.lambda / (m.lambda + (1.0 - ptilde) * k->dte);
    /* Eq. 12, 33 */
    const double kf = k->dte * m.hq * m.young * k->rnu;
    t11 = (t11 + kf * (e11 + k->nu * e22)) * mult;
    t22 = (t22 + kf * (k->nu * e11 + e22)) * mult;
    t12 = (t12 + kf * (1.0 - k->nu) * e12) * mult;
    /* Mohr-Coulomb envelope and compressive cap (Eq. 30, Plante and Tremblay's form) */
    const double sn = 0.5 * (t11 + t22);
    const double tau = sqrt(0.25 * (t11 - t22) * (t11 - t22) + t12 * t12);
    const double ch = k->coh * m.hq, cap = k->compr * m.hq, env = tau + k->mu * sn;
    const double dcrit = sn < -cap ? -cap / sn : env > ch ? ch / env : 1.0;
    /* Eq. 29: damage grows and the stress relaxes over t_d */
    const double f = (1.0 - dcrit) * k->dte * m.rtd;
    const double dnew = m.dq + (1.0 - m.dq) * f;
    t11 -= t11 * f;
    t12 -= t12 * f;
    t22 -= t22 * f;
#pragma GCC unroll 3
    for (int q = 0; q < 3; ++q) {
      p11[q] += phi[q] * t11;
      p12[q] += phi[q] * t12;
      p22[q] += phi[q] * t22;
      pd[q] += phi[q] * dnew;
    }
  }
  const double wk[3] = {0.25, 0.75, 0.75};
#pragma GCC unroll 3
  for (int q = 0; q < 3; ++q) {
    s11[i3 + q] = wk[q] * p11[q];
    s12[i3 + q] = wk[q] * p12[q];
    s22[i3 + q] = wk[q] * p22[q];
  }
  if (na == 1) {
    damage[c] = 0.25 * pd[0];
  } else {
#pragma GCC unroll 3
    for (int q = 0; q < 3; ++q)
      damage[c * 3 + q] = wk[q] * pd[q];
  }
}

/* Cells over the whole array, halo ring included (as the mEVP stress kernel):
 * cell e's lower-left node is e + e / nxc. */
#define BBM_LOOP(name, na)                                                                         \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP                                                                         \
    for (long e = 0; e < bbm_dev.ncell; ++e) {                                                     \
      const bbm_args *g = &bbm_dev;                                                                \
      if (g->ice_mask[e] == 2.0)                                                                   \
        bbm_cell(e, e + (int)e / (int)g->nxc, g->nxc + 1, &g->k, na, g->u, g->v, g->h, g->a,       \
                 g->s11, g->s12, g->s22, g->damage);                                               \
    }                                                                                              \
  }
BBM_LOOP(bbm_dg0, 1)
BBM_LOOP(bbm_dg1, 3)

double cryo_seaice_bbm_cohesion(const cryo_seaice_params *p, const cryo_block *b) {
  return p->bbm_cohesion_lab * sqrt(p->bbm_lab_scale / sqrt(b->dx * b->dy));
}

double cryo_seaice_bbm_max_substep(const cryo_seaice_params *p, const cryo_block *b) {
  const double wave = sqrt(p->bbm_young / (2.0 * (1.0 + p->bbm_poisson) * p->rho_ice));
  return sqrt(b->dx * b->dy) / wave;
}

void cryo_seaice_bbm_stress_kernel(const cryo_seaice_params *p, const cryo_block *b, double dt_e,
                                   cryo_seaice_state *s) {
  const double nu = p->bbm_poisson, coh = cryo_seaice_bbm_cohesion(p, b);
  const bbm_consts k = {0.5 / b->dx,
                        0.5 / b->dy,
                        dt_e,
                        p->bbm_young,
                        nu,
                        1.0 / (1.0 - nu * nu),
                        p->bbm_lambda0,
                        (double)(p->bbm_alpha - 1),
                        p->bbm_p0,
                        p->c_strength,
                        p->bbm_mu,
                        coh,
                        p->bbm_compr_cap * coh,
                        1.0 / (sqrt(b->dx * b->dy) * sqrt(2.0 * (1.0 + nu) * p->rho_ice))};
  const bbm_args fresh = {k,    b->nx + 2,   CRYO_NCELL(b), s->u,   s->v,   s->h,
                          s->a, s->ice_mask, s->s11,        s->s12, s->s22, s->damage};
  cryo_device_args_acquire(&bbm_dev, &fresh, sizeof fresh);
  if (p->tracer_order == 1)
    bbm_dg1();
  else
    bbm_dg0();
  cryo_device_args_release();
}

void cryo_seaice_bbm_heal_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                 cryo_seaice_state *s) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const long ncell = CRYO_NCELL(b);
  const double heal = p->dt / p->bbm_t_heal;
  const double *ice_mask = s->ice_mask;
  double *damage = s->damage;
  CRYO_DEVICE_LOOP((ice_mask, damage))
  for (long c = 0; c < ncell; ++c) {
    /* linear healing (Dansereau et al. 2016, as neXtSIM-DG); no ice, no damage */
    const double d0 = ice_mask[c] == 2.0 ? cryo_max(damage[c * na] - heal, 0.0) : 0.0;
    damage[c * na] = d0;
    if (na == 3) {
      /* slopes scaled so that the linear field stays in [0, 1] over the cell */
      const double slope = fabs(damage[c * 3 + 1]) + fabs(damage[c * 3 + 2]);
      const double room = cryo_min(d0, 1.0 - d0);
      const double scale = slope > room ? room / slope : 1.0;
      damage[c * 3 + 1] *= scale;
      damage[c * 3 + 2] *= scale;
    }
  }
}

/* The sub-step accumulation runs n_bbm times per macro step with the same
 * arguments: a no-map launch (kernels/cryo_acc.h). */
typedef struct {
  long nnode;
  double w;
  const double *u, *v;
  double *u_avg, *v_avg;
} average_args;

static average_args average_dev;
CRYO_DEVICE_ARGS(average_dev)

static void average_add(void) {
  CRYO_DEVICE_LOOP_NOMAP
  for (long n = 0; n < average_dev.nnode; ++n) {
    const average_args *g = &average_dev;
    g->u_avg[n] += g->w * g->u[n];
    g->v_avg[n] += g->w * g->v[n];
  }
}

void cryo_seaice_bbm_average_kernel(const cryo_block *b, int first, double w,
                                    cryo_seaice_state *s) {
  const long nnode = CRYO_NNODE(b);
  if (first) {
    double *u_avg = s->u_avg, *v_avg = s->v_avg;
    CRYO_DEVICE_LOOP((u_avg, v_avg))
    for (long n = 0; n < nnode; ++n) {
      u_avg[n] = 0.0;
      v_avg[n] = 0.0;
    }
  }
  const average_args fresh = {nnode, w, s->u, s->v, s->u_avg, s->v_avg};
  cryo_device_args_acquire(&average_dev, &fresh, sizeof fresh);
  average_add();
  cryo_device_args_release();
}
