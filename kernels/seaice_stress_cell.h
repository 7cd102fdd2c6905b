/* The stress update of one cell, written once for two working precisions:
 * kernels/seaice_stress.c includes this file twice, with
 *
 *   STRESS_REAL    double or float: the type of every intermediate
 *   STRESS_SUFFIX  a name suffix (stress_cell_double, stress_cell_float)
 *   STRESS_EXP, STRESS_SQRT   exp/sqrt of that type
 *
 * The state (velocity, h, a) stays double either way, and the stress is
 * stored as seaice_store says (kernels/seaice_store.h, state_precision):
 * velocity differences are taken in double before they are rounded, and the
 * relaxation s += (proj - s) / alpha adds a rounded projection to the stored
 * stress in double, rounded once where it is stored. In double every cast
 * below is the identity, so the double variant computes exactly what it did
 * before the single variant existed. */
#define STRESS_JOIN2(a, b) a##_##b
#define STRESS_JOIN(a, b)  STRESS_JOIN2(a, b)
#define R                  STRESS_REAL

/* P = P* h exp(-C (1 - a)) with h >= 0 and a in [0, 1] (Hibler 1979) */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) R
STRESS_JOIN(strength, STRESS_SUFFIX)(R hq, R aq, R pstar, R cstr) {
  const R zero = 0, one = 1;
  return pstar * (hq > zero ? hq : zero) *
         STRESS_EXP(-cstr * (one - (aq > zero ? (aq < one ? aq : one) : zero)));
}

/* The launch arguments g (kernels/seaice_stress.c) are read where they are
 * used, through copies of g made opaque (CRYO_OPAQUE, kernels/cryo_acc.h):
 * the parameters and the dG1 tracers once per Gauss point, the stress arrays
 * at the end, so that GCC neither hoists them out of the cell loop nor keeps
 * them live from the top of the cell to their last use. On the GPU that takes
 * 102 -> 72 registers (dG0, double; dG1 130 -> 72; docs/performance.md,
 * "Stress kernel registers"); every value is computed by the same operations
 * in the same order as before. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
STRESS_JOIN(stress_cell, STRESS_SUFFIX)(long c, long n00, long nxn, const stress_args *g, int na,
                                        int adaptive) {
  const R half = (R)0.5, two = 2, four = 4, gauss = (R)GAUSS_X;
  const long n10 = n00 + 1, n01 = n00 + nxn, n11 = n01 + 1;
  /* dG0 tracers: one strength per cell (exp once, not per Gauss point) */
  const R pc = na == 1 ? STRESS_JOIN(strength, STRESS_SUFFIX)((R)g->h[c], (R)g->a[c], (R)g->k.pstar,
                                                              (R)g->k.cstr)
                       : 0;

  R p11[3] = {0, 0, 0}, p12[3] = {0, 0, 0}, p22[3] = {0, 0, 0};
  R zsum = 0; /* adaptive EVP: sum of zeta over the Gauss points */
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const stress_args *gq = g;
    CRYO_OPAQUE(gq);
    const R k1 = (R)gq->k.k1, k2 = (R)gq->k.k2, k3 = (R)gq->k.k3;
    /* dG0: the velocity gradients recomputed at each Gauss point from the velocities read
     * again, rather than kept (78 -> 72 registers); dG1, whose strength at each Gauss point
     * needs more registers than these, computes them once (recomputed: up to 8 more) */
    const stress_args *gv = na == 1 ? gq : g;
    const double *u = gv->u, *v = gv->v;
    const R rdx2 = (R)gv->k.rdx2, rdy2 = (R)gv->k.rdy2;
    /* gradients of the bilinear velocity as c0 + c1 X (or c0 + c2 Y) */
    const R dub = (R)(u[n10] - u[n00]), dut = (R)(u[n11] - u[n01]);
    const R dul = (R)(u[n01] - u[n00]), dur = (R)(u[n11] - u[n10]);
    const R dvb = (R)(v[n10] - v[n00]), dvt = (R)(v[n11] - v[n01]);
    const R dvl = (R)(v[n01] - v[n00]), dvr = (R)(v[n11] - v[n10]);
    const R ux0 = rdx2 * (dub + dut), ux2 = rdx2 * (dut - dub);
    const R uy0 = rdy2 * (dul + dur), uy1 = rdy2 * (dur - dul);
    const R vx0 = rdx2 * (dvb + dvt), vx2 = rdx2 * (dvt - dvb);
    const R vy0 = rdy2 * (dvl + dvr), vy1 = rdy2 * (dvr - dvl);
    const R e12c = half * (uy0 + vx0), e12x = half * uy1, e12y = half * vx2;
    const R gx = (q & 1) ? gauss : -gauss;
    const R gy = (q & 2) ? gauss : -gauss;
    const double *h = gq->h, *a = gq->a;
    const R pg = na == 1 ? pc
                         : STRESS_JOIN(strength, STRESS_SUFFIX)(
                               (R)h[c * 3] + (R)h[c * 3 + 1] * gx + (R)h[c * 3 + 2] * gy,
                               (R)a[c * 3] + (R)a[c * 3 + 1] * gx + (R)a[c * 3 + 2] * gy,
                               (R)gq->k.pstar, (R)gq->k.cstr);
    const R e11 = ux0 + ux2 * gy;
    const R e22 = vy0 + vy1 * gx;
    const R e12 = e12c + e12x * gx + e12y * gy;
    const R delta = STRESS_SQRT((R)gq->k.dmin2 + k1 * (e11 * e11 + e22 * e22) +
                                two * k2 * e11 * e22 + four * k3 * e12 * e12);
    /* shifted ellipse: zeta = (1 + k_t) P / (2 Delta), pressure (1 - k_t) P / 2 */
    const R zeta = pg * (R)gq->k.tens_p / (two * delta);
    const R t11 = zeta * (k1 * e11 + k2 * e22) - half * pg * (R)gq->k.tens_m;
    const R t22 = zeta * (k1 * e22 + k2 * e11) - half * pg * (R)gq->k.tens_m;
    zsum += zeta;
    const R t12 = two * zeta * k3 * e12;
    const R phi[3] = {1, gx, gy};
#pragma GCC unroll 3
    for (int m = 0; m < 3; ++m) {
      p11[m] += phi[m] * t11;
      p12[m] += phi[m] * t12;
      p22[m] += phi[m] * t22;
    }
  }
  const stress_args *ge = g;
  CRYO_OPAQUE(ge);
  /* projection weights: (w_g phi_k) / M_kk = {1/4, 3/4, 3/4} */
  const R wk[3] = {(R)0.25, (R)0.75, (R)0.75};
  double ralpha = ge->k.ralpha;
  if (adaptive) {
    /* alpha = max(sqrt(c* gamma), alpha_min), gamma = zeta (c pi)^2 dt / (A_c m) with the
     * cell-mean zeta and m = rho_i max(h, h_min) (Kimmritz et al. 2016) */
    const double hc = ge->h[c * na], h_min = ge->k.h_min, alpha_min = ge->k.alpha_min;
    const double hm = hc > h_min ? hc : h_min;
    const double alpha = sqrt(ge->k.aevp_fac * (double)(zsum * (R)0.25) / hm);
    const double alpha_c = alpha > alpha_min ? alpha : alpha_min;
    ge->alpha_evp[c] = alpha_c;
    ralpha = 1.0 / alpha_c;
  }
  seaice_store *s11 = ge->s11, *s12 = ge->s12, *s22 = ge->s22;
#pragma GCC unroll 3
  for (int m = 0; m < 3; ++m) {
    const long i = c * 3 + m;
    s11[i] += ((double)(wk[m] * p11[m]) - s11[i]) * ralpha;
    s12[i] += ((double)(wk[m] * p12[m]) - s12[i]) * ralpha;
    s22[i] += ((double)(wk[m] * p22[m]) - s22[i]) * ralpha;
  }
}

#undef R
#undef STRESS_JOIN
#undef STRESS_JOIN2
