/* Sea-ice forcing at the nodes: the analytic cyclone benchmark
 * (seaice_cyclone.h, docs/benchmarks.md) and the interpolation of cell-centred
 * forcing fields (NetCDF forcing, docs/seaice.md) to the nodes.
 *
 * Minimum bytes: cyclone, 4 x 8 B written per node; cell-to-node average,
 * 4 x 8 B read (cells shared by 4 nodes) and 4 x 8 B written per node.
 */
#include "cryo_acc.h"
#include "seaice.h"
#include "seaice_cyclone.h"

void cryo_seaice_forcing_cyclone(const cryo_block *b, double t, double *uair, double *vair,
                                 double *uocn, double *vocn) {
  const long nxn = b->nx + 3, nnode = CRYO_NNODE(b);
  const long i0 = b->i0, j0 = b->j0;
  const double dx = b->dx, dy = b->dy;
  CRYO_DEVICE_LOOP((uair, vair, uocn, vocn))
  for (long e = 0; e < nnode; ++e) {
    const long j = e / nxn - 1, i = e % nxn - 1;
    const double x = (double)(i0 + i) * dx, y = (double)(j0 + j) * dy;
    cryo_cyclone_wind(x, y, t, &uair[e], &vair[e]);
    cryo_cyclone_ocean(x, y, &uocn[e], &vocn[e]);
  }
}

/* node (i, j) = mean of cells (i-1,j-1), (i,j-1), (i-1,j), (i,j) in that order */
void cryo_seaice_forcing_to_nodes(const cryo_block *b, const double *uair_c, const double *vair_c,
                                  const double *uocn_c, const double *vocn_c, double *uair,
                                  double *vair, double *uocn, double *vocn) {
  const long nx = b->nx, nnode = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((uair_c, vair_c, uocn_c, vocn_c, uair, vair, uocn, vocn))
  for (long e = 0; e < nnode; ++e) {
    const long j = e / (nx + 1), i = e - j * (nx + 1);
    const long n = (j + 1) * (nx + 3) + i + 1;
    const long cur = (j + 1) * (nx + 2) + i + 1, cul = cur - 1, clr = cur - (nx + 2), cll = clr - 1;
    uair[n] = 0.25 * (uair_c[cll] + uair_c[clr] + uair_c[cul] + uair_c[cur]);
    vair[n] = 0.25 * (vair_c[cll] + vair_c[clr] + vair_c[cul] + vair_c[cur]);
    uocn[n] = 0.25 * (uocn_c[cll] + uocn_c[clr] + uocn_c[cul] + uocn_c[cur]);
    vocn[n] = 0.25 * (vocn_c[cll] + vocn_c[clr] + vocn_c[cul] + vocn_c[cur]);
  }
}
