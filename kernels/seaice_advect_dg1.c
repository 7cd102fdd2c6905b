/* dG1 transport of ice thickness and concentration (Jendersie et al. 2025,
 * Eq. 1 without sources, upwind discontinuous Galerkin; docs/seaice.md, Transport) with a
 * minmod slope limiter and Heun's two-stage Runge-Kutta scheme (SSP RK2):
 *   q1 = q + dt L(q), limit; q = q/2 + (q1 + dt L(q1))/2, limit, bound.
 *
 * Weak form on a cell K with basis {1, X, Y} (mass |K| {1, 1/3, 1/3}):
 *   M_k dq_k/dt = int_K q v . grad phi_k - sum_faces int_f phi_k (v . n) q_up,
 * volume integrals with 2x2 Gauss points (exact for bilinear v times linear q),
 * face integrals with 2 Gauss points per face, q_up the trace of the upwind
 * cell at each point. A face next to a mask-0 cell carries no flux (closed
 * walls). Both cells of a face compute its two point fluxes with the same
 * operands in the same order, so the cell means are conserved to round-off.
 *
 * Minimum bytes per owned cell: stage, 6 tracer coefficients and mask read
 * (neighbours shared), node u, v (shared), 6 coefficients of the RK base read
 * (second stage) and 6 written: 21 x 8 B = 168 B; limiter, 6 read + 4 written
 * (+ mask): 88 B; bound, 6 read and 6 written: 96 B.
 */
#include <math.h>

#include "cryo_acc.h"
#include "seaice.h"

#define GAUSS_X 0.57735026918962576451 /* 1/sqrt(3) */
#define WNEAR   0.78867513459481288225 /* (1 + 1/sqrt(3)) / 2: weight of the nearer node */
#define WFAR    0.21132486540518711775 /* (1 - 1/sqrt(3)) / 2 */

/* Upwind point fluxes at the two Gauss points (-G, +G along the face) of a face
 * from cell L (lower index) to cell R. v_lo, v_hi: normal velocity at the face's
 * end nodes; tl0 + tl1 s and tr0 + tr1 s: the traces of L and R along the face. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void face_flux(double v_lo, double v_hi, double open,
                                                            double tl0, double tl1, double tr0,
                                                            double tr1, double *fa, double *fb) {
  const double va = (WNEAR * v_lo + WFAR * v_hi) * open;
  const double vb = (WFAR * v_lo + WNEAR * v_hi) * open;
  *fa = va > 0.0 ? va * (tl0 - GAUSS_X * tl1) : va * (tr0 - GAUSS_X * tr1);
  *fb = vb > 0.0 ? vb * (tl0 + GAUSS_X * tl1) : vb * (tr0 + GAUSS_X * tr1);
}

typedef struct {
  double r0, r1, r2; /* dq_k/dt */
} tendency;

/* L(q) of one tracer in cell c: volume terms from the 4 node velocities, then
 * the 4 faces. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) tendency
dg1_tendency(const double *q, long c, long cw, long ce, long cs, long cn, const double *mask,
             const double un[4], const double vn[4], double dx, double dy) {
  const double q0 = q[c * 3], q1 = q[c * 3 + 1], q2 = q[c * 3 + 2];
  double vol_x = 0.0, vol_y = 0.0;
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const double X = (g & 1) ? GAUSS_X : -GAUSS_X, Y = (g & 2) ? GAUSS_X : -GAUSS_X;
    const double xi = 0.5 * (1.0 + X), eta = 0.5 * (1.0 + Y);
    const double w00 = (1.0 - xi) * (1.0 - eta), w10 = xi * (1.0 - eta);
    const double w01 = (1.0 - xi) * eta, w11 = xi * eta;
    const double qg = q0 + q1 * X + q2 * Y;
    vol_x += (w00 * un[0] + w10 * un[1] + w01 * un[2] + w11 * un[3]) * qg;
    vol_y += (w00 * vn[0] + w10 * vn[1] + w01 * vn[2] + w11 * vn[3]) * qg;
  }
  const double m = mask[c];
  double wa, wb, ea, eb, sa, sb, na, nb;
  /* x-faces: traces q0 +- q1 + q2 Y; y-faces: q0 +- q2 + q1 X */
  face_flux(un[0], un[2], mask[cw] * m, q[cw * 3] + q[cw * 3 + 1], q[cw * 3 + 2], q0 - q1, q2, &wa,
            &wb);
  face_flux(un[1], un[3], m * mask[ce], q0 + q1, q2, q[ce * 3] - q[ce * 3 + 1], q[ce * 3 + 2], &ea,
            &eb);
  face_flux(vn[0], vn[1], mask[cs] * m, q[cs * 3] + q[cs * 3 + 2], q[cs * 3 + 1], q0 - q2, q1, &sa,
            &sb);
  face_flux(vn[2], vn[3], m * mask[cn], q0 + q2, q1, q[cn * 3] - q[cn * 3 + 2], q[cn * 3 + 1], &na,
            &nb);
  const double hx = 0.5 * dy, hy = 0.5 * dx, rarea = 1.0 / (dx * dy);
  tendency t;
  t.r0 = rarea * (hx * ((wa + wb) - (ea + eb)) + hy * ((sa + sb) - (na + nb)));
  t.r1 =
      3.0 * rarea * (hx * (vol_x - (wa + wb) - (ea + eb)) + hy * GAUSS_X * ((sb - sa) - (nb - na)));
  t.r2 =
      3.0 * rarea * (hy * (vol_y - (sa + sb) - (na + nb)) + hx * GAUSS_X * ((wb - wa) - (eb - ea)));
  return t;
}

void cryo_seaice_advect_dg1_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                   const double *u, const double *v, const double *mask,
                                   double w_base, const double *h_base, const double *a_base,
                                   const double *h, const double *a, double *h_out, double *a_out) {
  const int nx = b->nx;
  const long ncell = (long)b->nx * b->ny;
  const double dx = b->dx, dy = b->dy, dt = p->dt, w_new = 1.0 - w_base;
  CRYO_DEVICE_LOOP((u, v, mask, h_base, a_base, h, a, h_out, a_out))
  for (long e = 0; e < ncell; ++e) {
    const int j = (int)e / nx, i = (int)e - j * nx;
    const long c = (long)(j + 1) * (nx + 2) + i + 1;
    const long n00 = (long)(j + 1) * (nx + 3) + i + 1, n01 = n00 + nx + 3;
    const double un[4] = {u[n00], u[n00 + 1], u[n01], u[n01 + 1]};
    const double vn[4] = {v[n00], v[n00 + 1], v[n01], v[n01 + 1]};
    const double live = mask[c] != 0.0 ? dt : 0.0;
    const tendency th =
        dg1_tendency(h, c, c - 1, c + 1, c - (nx + 2), c + nx + 2, mask, un, vn, dx, dy);
    const tendency ta =
        dg1_tendency(a, c, c - 1, c + 1, c - (nx + 2), c + nx + 2, mask, un, vn, dx, dy);
    const double hb0 = h_base[c * 3], hb1 = h_base[c * 3 + 1], hb2 = h_base[c * 3 + 2];
    const double ab0 = a_base[c * 3], ab1 = a_base[c * 3 + 1], ab2 = a_base[c * 3 + 2];
    h_out[c * 3] = w_base * hb0 + w_new * (h[c * 3] + live * th.r0);
    h_out[c * 3 + 1] = w_base * hb1 + w_new * (h[c * 3 + 1] + live * th.r1);
    h_out[c * 3 + 2] = w_base * hb2 + w_new * (h[c * 3 + 2] + live * th.r2);
    a_out[c * 3] = w_base * ab0 + w_new * (a[c * 3] + live * ta.r0);
    a_out[c * 3 + 1] = w_base * ab1 + w_new * (a[c * 3 + 1] + live * ta.r1);
    a_out[c * 3 + 2] = w_base * ab2 + w_new * (a[c * 3 + 2] + live * ta.r2);
  }
}

/* minmod(s, d1, d2): the smallest in magnitude if all share a sign, else 0 */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double minmod(double s, double d1, double d2) {
  if (s > 0.0 && d1 > 0.0 && d2 > 0.0) return cryo_min(s, cryo_min(d1, d2));
  if (s < 0.0 && d1 < 0.0 && d2 < 0.0) return cryo_max(s, cryo_max(d1, d2));
  return 0.0;
}

/* Limited slopes of one tracer in cell c from the neighbours' means; a mask-0
 * neighbour sets no bound. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void limit_cell(double *q, long c, long cw, long ce,
                                                             long cs, long cn, const double *mask) {
  const double m = q[c * 3], s1 = q[c * 3 + 1], s2 = q[c * 3 + 2];
  const double de = mask[ce] != 0.0 ? q[ce * 3] - m : s1;
  const double dw = mask[cw] != 0.0 ? m - q[cw * 3] : s1;
  const double dn = mask[cn] != 0.0 ? q[cn * 3] - m : s2;
  const double ds = mask[cs] != 0.0 ? m - q[cs * 3] : s2;
  q[c * 3 + 1] = minmod(s1, de, dw);
  q[c * 3 + 2] = minmod(s2, dn, ds);
}

void cryo_seaice_limit_dg1_kernel(const cryo_block *b, const double *mask, double *h, double *a) {
  const int nx = b->nx;
  const long ncell = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((mask, h, a))
  for (long e = 0; e < ncell; ++e) {
    const int j = (int)e / nx, i = (int)e - j * nx;
    const long c = (long)(j + 1) * (nx + 2) + i + 1;
    if (mask[c] == 0.0) continue;
    limit_cell(h, c, c - 1, c + 1, c - (nx + 2), c + nx + 2, mask);
    limit_cell(a, c, c - 1, c + 1, c - (nx + 2), c + nx + 2, mask);
  }
}

void cryo_seaice_bound_dg1_kernel(const cryo_block *b, double *h, double *a) {
  const int nx = b->nx;
  const long ncell = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((h, a))
  for (long e = 0; e < ncell; ++e) {
    const int j = (int)e / nx, i = (int)e - j * nx;
    const long c = ((long)(j + 1) * (nx + 2) + i + 1) * 3;
    /* h >= 0 at the cell corners, hence everywhere in the cell */
    const double h0 = cryo_bound(h[c], 0.0, INFINITY);
    const double hs = fabs(h[c + 1]) + fabs(h[c + 2]);
    const double th = hs > h0 ? h0 / hs : 1.0;
    h[c] = h0;
    h[c + 1] *= th;
    h[c + 2] *= th;
    /* 0 <= a <= 1 likewise */
    const double a0 = cryo_bound(a[c], 0.0, 1.0);
    const double as = fabs(a[c + 1]) + fabs(a[c + 2]);
    const double room = cryo_min(a0, 1.0 - a0);
    const double ta = as > room ? room / as : 1.0;
    a[c] = a0;
    a[c + 1] *= ta;
    a[c + 2] *= ta;
  }
}
