/* dG1 transport of ice thickness and concentration on general quadrilateral
 * cells (docs/seaice.md, Transport and Curvilinear grids on the sphere;
 * Jendersie et al. 2025, Eq. 1 without sources): the upwind discontinuous
 * Galerkin stage, minmod limiter and bounds of seaice_advect_dg1.c with each
 * cell's bilinear map (kernels/seaice.h, geometry layout) in place of dx x dy
 * rectangles. The Heun RK2 driver is shared (seaice_step.c).
 *
 * Basis {1, phi_1, phi_2} = {1, X - Xc, Y - Yc} in the cell's reference
 * coordinates, (Xc, Yc) = (d1, d2) / (3 d0) its centroid. With
 * det = d0 + d1 X + d2 Y the mass matrix M_kl = int phi_k phi_l det dX dY is
 *   M00 = 4 d0, M01 = M02 = 0, M11 = 4 d0 (1/3 - Xc^2),
 *   M22 = 4 d0 (1/3 - Yc^2), M12 = -4 d0 Xc Yc,
 * so coefficient 0 is the cell mean, its equation is apart from the slopes',
 * and the 2x2 slope block is solved exactly. Weak form on a cell K:
 *   M dq/dt = int_K q U . grad phi_l dA - sum_faces int_f phi_l q_up U . n ds,
 * U the bilinear velocity of the corners rotated into the cell's frame.
 * Through the map, (U . grad phi) det = phi_X (u y_Y - v x_Y) + phi_Y (v x_X - u y_X)
 * (contravariant fluxes): a polynomial that the 2x2 Gauss points integrate
 * exactly. The edges are straight: the east face (X = 1) has
 * n ds = (y_Y, -x_Y) dY = (A2y + A3y, -(A2x + A3x)) dY, the north face (Y = 1)
 * n ds = (-(A1y + A3y), A1x + A3x) dX; two Gauss points per face, where the
 * normal velocity is the linear interpolation of the face's two nodes and
 * q_up the trace of the upwind cell, each cell's trace in its own basis.
 *
 * Conservation: a face's two point fluxes are computed from the geometry of
 * its lower-index cell (the face is that cell's east or north face) by one
 * helper that both cells call with the same operands, so they agree bit for
 * bit; the mean equation of a cell is the sum of its faces' fluxes, and
 * sum(h area) = sum(4 d0 h_0) changes by round-off only. Each cell weights
 * the same point fluxes with its own phi_l in its slope equations. A face next
 * to a mask-0 cell carries no flux (closed walls) and reads none of that
 * cell's geometry, which is 0 outside the domain. A face of a north fold is
 * the north face of two cells: one computes it, the other takes it from the
 * image above it (fold_face), so the fold conserves to round-off as well.
 *
 * On rectangles (d1 = d2 = 0, A3 = 0, no rotation) every formula is that of
 * seaice_advect_dg1.c up to round-off.
 *
 * Minimum bytes per owned cell: stage, 6 tracer coefficients and mask read
 * (neighbours shared), node u, v (shared), the cell's 14 geometry values
 * (neighbours' shared), 6 coefficients of the RK base read (second stage) and
 * 6 written: 35 x 8 B = 280 B; limiter as on the rectangles, 88 B; bound,
 * 6 read and 6 written, mask and the 6 values of the bilinear map: 152 B.
 */
#include <math.h>

#include "cryo_acc.h"
#include "halo.h"
#include "seaice.h"
#include "seaice_quad_cell.h"

#define WNEAR 0.78867513459481288225 /* (1 + 1/sqrt(3)) / 2: weight of the nearer node */
#define WFAR  0.21132486540518711775 /* (1 - 1/sqrt(3)) / 2 */

/* Centroid of cell c in its reference coordinates; (0, 0) for a mask-0 cell,
 * whose geometry is 0 outside the domain. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
cell_centroid(const double *geom, const double *mask, long c, double *xc, double *yc) {
  *xc = 0.0;
  *yc = 0.0;
  if (mask[c] == 0.0) return;
  double d0, d1, d2;
  quad_det_coeffs(geom + c * CRYO_SEAICE_NGEOM, &d0, &d1, &d2);
  quad_centroid(d0, d1, d2, xc, yc);
}

/* Upwind point fluxes at the face's points a (nearer its first node) and b:
 * normal velocities wa, wb times the trace tl0 + tl1 s of the lower cell or
 * tr0 + tr1 s of the upper one, s = -G at a and +G at b. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void upwind(double wa, double wb, double tl0,
                                                         double tl1, double tr0, double tr1,
                                                         double *fa, double *fb) {
  *fa = wa > 0.0 ? wa * (tl0 - QUAD_GAUSS * tl1) : wa * (tr0 - QUAD_GAUSS * tr1);
  *fb = wb > 0.0 ? wb * (tl0 + QUAD_GAUSS * tl1) : wb * (tr0 + QUAD_GAUSS * tr1);
}

typedef struct {
  /* point fluxes of h and a: (U . n ds / dY) q_up on an east face, (U . n ds / dX) q_up on a
   * north face; m2 s-1 times the unit of q */
  double ha, hb, aa, ab;
} face_fluxes;

/* Point fluxes through the east (north = 0) or north face (north = 1) of
 * cell l, whose lower-left node is n, from l to its neighbour across it;
 * nxc cells per row, nxc + 1 nodes. Both cells of the face call this with
 * the same arguments. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) face_fluxes
quad_face(long l, long n, int north, long nxc, const double *geom, const double *mask,
          const double *u, const double *v, const double *h, const double *a) {
  face_fluxes f = {0.0, 0.0, 0.0, 0.0};
  const long r = north ? l + nxc : l + 1;
  if (mask[l] * mask[r] == 0.0) return f;
  const double *g = geom + l * CRYO_SEAICE_NGEOM;
  /* the face's nodes: corners 1 and 3 (east) or 2 and 3 (north) of l */
  const long na = north ? n + nxc + 1 : n + 1, nb = n + nxc + 2;
  double ua, va, ub, vb;
  quad_to_cell(g, north ? 2 : 1, u[na], v[na], &ua, &va);
  quad_to_cell(g, 3, u[nb], v[nb], &ub, &vb);
  double nx, ny;
  if (north) {
    nx = -(g[CRYO_GEOM_A1Y] + g[CRYO_GEOM_A3Y]);
    ny = g[CRYO_GEOM_A1X] + g[CRYO_GEOM_A3X];
  } else {
    nx = g[CRYO_GEOM_A2Y] + g[CRYO_GEOM_A3Y];
    ny = -(g[CRYO_GEOM_A2X] + g[CRYO_GEOM_A3X]);
  }
  const double za = ua * nx + va * ny, zb = ub * nx + vb * ny;
  const double wa = WNEAR * za + WFAR * zb, wb = WFAR * za + WNEAR * zb;
  double xl, yl, xr, yr;
  cell_centroid(geom, mask, l, &xl, &yl);
  cell_centroid(geom, mask, r, &xr, &yr);
  /* traces along the face: at X = +1 (l) and X = -1 (r) as functions of
   * s = Y for the east face; at Y = +1 and Y = -1 as functions of s = X for
   * the north face */
  const long il = l * 3, ir = r * 3;
  if (north) {
    upwind(wa, wb, h[il] - h[il + 1] * xl + h[il + 2] * (1.0 - yl), h[il + 1],
           h[ir] - h[ir + 1] * xr + h[ir + 2] * (-1.0 - yr), h[ir + 1], &f.ha, &f.hb);
    upwind(wa, wb, a[il] - a[il + 1] * xl + a[il + 2] * (1.0 - yl), a[il + 1],
           a[ir] - a[ir + 1] * xr + a[ir + 2] * (-1.0 - yr), a[ir + 1], &f.aa, &f.ab);
  } else {
    upwind(wa, wb, h[il] + h[il + 1] * (1.0 - xl) - h[il + 2] * yl, h[il + 2],
           h[ir] + h[ir + 1] * (-1.0 - xr) - h[ir + 2] * yr, h[ir + 2], &f.ha, &f.hb);
    upwind(wa, wb, a[il] + a[il + 1] * (1.0 - xl) - a[il + 2] * yl, a[il + 2],
           a[ir] + a[ir + 1] * (-1.0 - xr) - a[ir + 2] * yr, a[ir + 2], &f.aa, &f.ab);
  }
  return f;
}

/* The point fluxes out of cell c through its north face where that face is
 * the north face of cell t across the fold (cryo_halo_fold_face), whose
 * image is the cell cn above c: t's own quad_face from the same operands,
 * to the bit, with the opposite sign and its points swapped (t's first
 * node is c's second). cn holds t's geometry with A3 negated and corners 0,
 * 1 being t's 3, 2, its nodes n01, n11 (corners 0, 1) t's velocities
 * negated, and t's slopes negated, as c's image holds c's. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) face_fluxes
fold_face(long c, long cn, long n01, long n11, const double *geom, const double *mask,
          const double *u, const double *v, const double *h, const double *a) {
  face_fluxes f = {0.0, 0.0, 0.0, 0.0};
  if (mask[cn] * mask[c] == 0.0) return f;
  const double *g = geom + cn * CRYO_SEAICE_NGEOM;
  double ua, va, ub, vb;
  quad_to_cell(g, 1, -u[n11], -v[n11], &ua, &va);
  quad_to_cell(g, 0, -u[n01], -v[n01], &ub, &vb);
  const double nx = -(g[CRYO_GEOM_A1Y] + -g[CRYO_GEOM_A3Y]);
  const double ny = g[CRYO_GEOM_A1X] + -g[CRYO_GEOM_A3X];
  const double za = ua * nx + va * ny, zb = ub * nx + vb * ny;
  const double wa = WNEAR * za + WFAR * zb, wb = WFAR * za + WNEAR * zb;
  double xl, yl, xr, yr;
  cell_centroid(geom, mask, cn, &xl, &yl);
  cell_centroid(geom, mask, c, &xr, &yr);
  xl = -xl, yl = -yl, xr = -xr, yr = -yr;
  const long il = cn * 3, ir = c * 3;
  double t[4];
  upwind(wa, wb, h[il] - -h[il + 1] * xl + -h[il + 2] * (1.0 - yl), -h[il + 1],
         h[ir] - -h[ir + 1] * xr + -h[ir + 2] * (-1.0 - yr), -h[ir + 1], &t[0], &t[1]);
  upwind(wa, wb, a[il] - -a[il + 1] * xl + -a[il + 2] * (1.0 - yl), -a[il + 1],
         a[ir] - -a[ir + 1] * xr + -a[ir + 2] * (-1.0 - yr), -a[ir + 1], &t[2], &t[3]);
  f.ha = -t[1], f.hb = -t[0], f.aa = -t[3], f.ab = -t[2];
  return f;
}

/* dq/dt of one tracer from its volume integrals vol1, vol2 (int q F, int q G)
 * and the point fluxes of the 4 faces (west and south flowing in, east and
 * north out): the right-hand sides in the shifted basis are those of the
 * basis {1, X, Y} minus (Xc, Yc) times the mean's, then M^-1. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
quad_solve(double vol1, double vol2, double wa, double wb, double ea, double eb, double sa,
           double sb, double na, double nb, double d0, double xc, double yc, double *r) {
  const double r0 = (wa + wb) - (ea + eb) + ((sa + sb) - (na + nb));
  const double r1 = vol1 - (wa + wb) - (ea + eb) + QUAD_GAUSS * ((sb - sa) - (nb - na)) - xc * r0;
  const double r2 = vol2 - (sa + sb) - (na + nb) + QUAD_GAUSS * ((wb - wa) - (eb - ea)) - yc * r0;
  const double rd = 1.0 / (4.0 * d0);
  const double m11 = 1.0 / 3.0 - xc * xc, m22 = 1.0 / 3.0 - yc * yc, m12 = -xc * yc;
  const double rm = rd / (m11 * m22 - m12 * m12);
  r[0] = r0 * rd;
  r[1] = (m22 * r1 - m12 * r2) * rm;
  r[2] = (m11 * r2 - m12 * r1) * rm;
}

/* L(h) and L(a) of active cell c (lower-left node n00; nxc cells per row). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
quad_tendency(long c, long n00, long nxc, int across, const double *geom, const double *mask,
              const double *u, const double *v, const double *h, const double *a, double th[3],
              double ta[3]) {
  const double *g = geom + c * CRYO_SEAICE_NGEOM;
  const long nk[4] = {n00, n00 + 1, n00 + nxc + 1, n00 + nxc + 2};
  double uc[4], vc[4];
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m)
    quad_to_cell(g, m, u[nk[m]], v[nk[m]], &uc[m], &vc[m]);
  double d0, d1, d2, xc, yc;
  quad_det_coeffs(g, &d0, &d1, &d2);
  quad_centroid(d0, d1, d2, &xc, &yc);
  const long i = c * 3;
  double hF = 0.0, hG = 0.0, aF = 0.0, aG = 0.0;
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const double X = (q & 1) ? QUAD_GAUSS : -QUAD_GAUSS;
    const double Y = (q & 2) ? QUAD_GAUSS : -QUAD_GAUSS;
    const double xi = 0.5 * (1.0 + X), eta = 0.5 * (1.0 + Y);
    const double w00 = (1.0 - xi) * (1.0 - eta), w10 = xi * (1.0 - eta);
    const double w01 = (1.0 - xi) * eta, w11 = xi * eta;
    const double ug = w00 * uc[0] + w10 * uc[1] + w01 * uc[2] + w11 * uc[3];
    const double vg = w00 * vc[0] + w10 * vc[1] + w01 * vc[2] + w11 * vc[3];
    const quad_jac J = quad_jacobian(g, X, Y);
    const double F = ug * J.yY - vg * J.xY, G = vg * J.xX - ug * J.yX;
    const double hq = h[i] + h[i + 1] * (X - xc) + h[i + 2] * (Y - yc);
    const double aq = a[i] + a[i + 1] * (X - xc) + a[i + 2] * (Y - yc);
    hF += hq * F;
    hG += hq * G;
    aF += aq * F;
    aG += aq * G;
  }
  const long nxn = nxc + 1;
  const face_fluxes fe = quad_face(c, n00, 0, nxc, geom, mask, u, v, h, a);
  const face_fluxes fw = quad_face(c - 1, n00 - 1, 0, nxc, geom, mask, u, v, h, a);
  const face_fluxes fn =
      across ? fold_face(c, c + nxc, n00 + nxc + 1, n00 + nxc + 2, geom, mask, u, v, h, a)
             : quad_face(c, n00, 1, nxc, geom, mask, u, v, h, a);
  const face_fluxes fs = quad_face(c - nxc, n00 - nxn, 1, nxc, geom, mask, u, v, h, a);
  quad_solve(hF, hG, fw.ha, fw.hb, fe.ha, fe.hb, fs.ha, fs.hb, fn.ha, fn.hb, d0, xc, yc, th);
  quad_solve(aF, aG, fw.aa, fw.ab, fe.aa, fe.ab, fs.aa, fs.ab, fn.aa, fn.ab, d0, xc, yc, ta);
}

void cryo_seaice_quad_advect_dg1_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                        const cryo_seaice_state *s, double w_base,
                                        const double *h_base, const double *a_base, const double *h,
                                        const double *a, double *h_out, double *a_out) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const int fold = b->fold, i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const double dt = p->dt, w_new = 1.0 - w_base;
  const double *u = s->u, *v = s->v, *mask = s->mask, *geom = s->geom;
  CRYO_DEVICE_LOOP((u, v, mask, geom, h_base, a_base, h, a, h_out, a_out))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1, n00 = (j + 1) * (nx + 3) + i + 1;
    const int across = cryo_halo_fold_face(fold, nxg, nyg, i0 + (int)i, j0 + (int)j);
    double th[3] = {0.0, 0.0, 0.0}, ta[3] = {0.0, 0.0, 0.0};
    if (mask[c] != 0.0) quad_tendency(c, n00, nx + 2, across, geom, mask, u, v, h, a, th, ta);
#pragma GCC unroll 3
    for (int k = 0; k < 3; ++k) {
      const long q = c * 3 + k;
      h_out[q] = w_base * h_base[q] + w_new * (h[q] + dt * th[k]);
      a_out[q] = w_base * a_base[q] + w_new * (a[q] + dt * ta[k]);
    }
  }
}

/* The reference coordinates span [-1, 1] as on the rectangles, and the
 * shifted basis leaves the mean alone, so the rectangles' minmod of each slope
 * against the neighbours' mean differences applies unchanged. */
void cryo_seaice_quad_limit_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h,
                                       double *a) {
  cryo_seaice_limit_dg1_kernel(b, s->mask, h, a);
}

void cryo_seaice_quad_bound_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h,
                                       double *a) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const double *mask = s->mask, *geom = s->geom;
  CRYO_DEVICE_LOOP((mask, geom, h, a))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1, q = c * 3;
    double xc, yc;
    cell_centroid(geom, mask, c, &xc, &yc);
    /* the largest |s1 (X - Xc) + s2 (Y - Yc)| over the cell, at a corner */
    const double wx = 1.0 + fabs(xc), wy = 1.0 + fabs(yc);
    const double h0 = cryo_bound(h[q], 0.0, INFINITY);
    const double hs = fabs(h[q + 1]) * wx + fabs(h[q + 2]) * wy;
    const double th = hs > h0 ? h0 / hs : 1.0;
    h[q] = h0;
    h[q + 1] *= th;
    h[q + 2] *= th;
    const double a0 = cryo_bound(a[q], 0.0, 1.0);
    const double as = fabs(a[q + 1]) * wx + fabs(a[q + 2]) * wy;
    const double room = cryo_min(a0, 1.0 - a0);
    const double ta = as > room ? room / as : 1.0;
    a[q] = a0;
    a[q + 1] *= ta;
    a[q + 2] *= ta;
  }
}
