/* Transport of ice thickness and concentration (Jendersie et al. 2025,
 * Eq. 1 without thermodynamic sources; docs/seaice.md, Transport): first-order upwind
 * finite volumes for the dG0 tracers, forward Euler over the macro step.
 *
 * The normal velocity of a face is the mean of its two nodes' velocity (exact
 * face mean of the bilinear velocity). A face next to a mask-0 cell (land, or
 * outside the domain) carries no flux, which closes the walls and conserves
 * h and a exactly up to round-off. Each face flux is computed by both of its
 * cells with the same operands in the same order, so the two agree bit for bit.
 * Stable and sign-preserving while dt (|u|/dx + |v|/dy) <= 1 per cell.
 *
 * Minimum bytes per owned cell: h, a, mask read (neighbours shared), node u, v
 * read (shared), h_work, a_work written: 7 x 8 B = 56 B; finish: 4 x 8 B = 32 B.
 */
#include <math.h>

#include "cryo_acc.h"
#include "seaice.h"

/* Upwind flux density uf q through a face from cell l to cell r (m s-1 times q). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double upwind(double u_lo, double u_hi, double ml,
                                                           double mr, double ql, double qr) {
  const double uf = 0.5 * (u_lo + u_hi) * (ml * mr);
  return uf > 0.0 ? uf * ql : uf * qr;
}

void cryo_seaice_advect_kernel(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                               const double *v, const double *mask, const double *h,
                               const double *a, double *h_work, double *a_work) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const double cx = p->dt / b->dx, cy = p->dt / b->dy;
  CRYO_DEVICE_LOOP((u, v, mask, h, a, h_work, a_work))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1, cw = c - 1, ce = c + 1;
    const long cs = c - (nx + 2), cn = c + (nx + 2);
    const long n00 = (j + 1) * (nx + 3) + i + 1, n10 = n00 + 1, n01 = n00 + nx + 3, n11 = n01 + 1;
    const double m = mask[c];
    const double hw = upwind(u[n00], u[n01], mask[cw], m, h[cw], h[c]);
    const double he = upwind(u[n10], u[n11], m, mask[ce], h[c], h[ce]);
    const double hs = upwind(v[n00], v[n10], mask[cs], m, h[cs], h[c]);
    const double hn = upwind(v[n01], v[n11], m, mask[cn], h[c], h[cn]);
    const double aw = upwind(u[n00], u[n01], mask[cw], m, a[cw], a[c]);
    const double ae = upwind(u[n10], u[n11], m, mask[ce], a[c], a[ce]);
    const double as = upwind(v[n00], v[n10], mask[cs], m, a[cs], a[c]);
    const double an = upwind(v[n01], v[n11], m, mask[cn], a[c], a[cn]);
    h_work[c] = h[c] - cx * (he - hw) - cy * (hn - hs);
    a_work[c] = a[c] - cx * (ae - aw) - cy * (an - as);
  }
}

void cryo_seaice_advect_finish_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                      const double *h_work, const double *a_work, double *h,
                                      double *a) {
  const long nx = b->nx, na = CRYO_SEAICE_NA(p->tracer_order), ncell = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((h_work, a_work, h, a))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = ((j + 1) * (nx + 2) + i + 1) * na;
    h[c] = cryo_bound(h_work[c], 0.0, INFINITY);
    a[c] = cryo_bound(a_work[c], 0.0, 1.0);
  }
}
