/* Cell-centred fields the sea ice sends to an ocean (docs/seaice.md):
 * ice velocity as the mean of the cell's 4 nodes, concentration and thickness
 * as the cell means (dG coefficient 0), and the stress of the ocean on the
 * ice A rho_o C_o |u_o - u| R (u_o - u) as the mean of its 4 node values, R
 * the rotation by the turning angle theta sign(f) (seaice_velocity.c).
 * Bytes per owned cell: reads 4 node values of u, v, uocn, vocn (shared with
 * neighbours: about 4 x 8 each), h, a, mask (24); writes 6 x 8 = 48. */
#include "seaice.h"
#include "cryo_acc.h"

#include <math.h>

void cryo_seaice_coupling_fields(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                                 const double *v, const double *uocn, const double *vocn,
                                 const double *h, const double *a, const double *mask, double *uice,
                                 double *vice, double *aice, double *hice, double *taux,
                                 double *tauy) {
  const int nx = b->nx, nxn = b->nx + 3;
  const long ncells = (long)b->nx * b->ny;
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const double drag = p->rho_ocean * p->c_ocean;
  const double turn = p->turning_angle * (CRYO_PI / 180.0) * (p->coriolis < 0.0 ? -1.0 : 1.0);
  const double cosw = cos(turn), sinw = sin(turn);
  CRYO_DEVICE_LOOP((u, v, uocn, vocn, h, a, mask, uice, vice, aice, hice, taux, tauy))
  for (long q = 0; q < ncells; ++q) {
    const int i = (int)(q % nx), j = (int)(q / nx);
    const long c = (long)(j + 1) * (nx + 2) + (i + 1);
    const long n0 = (long)(j + 1) * nxn + (i + 1);
    const long nodes[4] = {n0, n0 + 1, n0 + nxn, n0 + nxn + 1};
    double su = 0, sv = 0, tx = 0, ty = 0;
    for (int k = 0; k < 4; ++k) {
      const double du = uocn[nodes[k]] - u[nodes[k]], dv = vocn[nodes[k]] - v[nodes[k]];
      const double s = drag * sqrt(du * du + dv * dv);
      su += u[nodes[k]];
      sv += v[nodes[k]];
      tx += s * (cosw * du - sinw * dv);
      ty += s * (sinw * du + cosw * dv);
    }
    const double on = mask[c], conc = a[c * na];
    uice[c] = on * 0.25 * su;
    vice[c] = on * 0.25 * sv;
    aice[c] = on * conc;
    hice[c] = on * h[c * na];
    taux[c] = on * conc * 0.25 * tx;
    tauy[c] = on * conc * 0.25 * ty;
  }
}
