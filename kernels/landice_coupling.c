/* Cell fields the land ice sends to an atmosphere (docs/landice.md, Coupling fields; the
 * exchange table of coupling/exchange.c): surface elevation at the cell centre,
 * the cell's bed (mean of its 4 corner nodes) plus its thickness plus the
 * background plane slope_x x + slope_y y that the analytic cases keep out of the
 * periodic arrays (landice.h) (where marine ice floats, the floating lower
 * surface z_sl - (rho_i / rho_w) H replaces the bed), and the ice mask, 1 where the thickness is
 * positive. The thickness itself is sent from the state array thk.
 * Bytes per owned cell: reads 4 node values of bed (shared with neighbours:
 * about 8) and thk (8); writes 2 x 8 = 16. */
#include <math.h>

#include "landice.h"
#include "cryo_acc.h"

void cryo_landice_coupling_fields(const cryo_block *b, const cryo_landice_params *p,
                                  const double *thk, const double *bed, double *usurf,
                                  double *icemask) {
  const int nx = b->nx, nxn = b->nx + 3, i0 = b->i0, j0 = b->j0;
  const long ncells = (long)b->nx * b->ny;
  const double dx = b->dx, dy = b->dy, sx = p->slope_x, sy = p->slope_y;
  const int marine = p->marine;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water;
  CRYO_DEVICE_LOOP((thk, bed, usurf, icemask))
  for (long q = 0; q < ncells; ++q) {
    const int i = (int)(q % nx), j = (int)(q / nx);
    const long c = (long)(j + 1) * (nx + 2) + (i + 1);
    const long n0 = (long)(j + 1) * nxn + (i + 1);
    double bed_c = 0.25 * (bed[n0] + bed[n0 + 1] + bed[n0 + nxn] + bed[n0 + nxn + 1]);
    if (marine) bed_c = fmax(bed_c, z_sl - ratio * thk[c]);
    const double plane = sx * ((i0 + i + 0.5) * dx) + sy * ((j0 + j + 0.5) * dy);
    usurf[c] = plane + bed_c + thk[c];
    icemask[c] = thk[c] > 0.0 ? 1.0 : 0.0;
  }
}

/* True elevations at every node of the block: lower surface + thickness
 * (the lower surface is the bed, or where marine ice floats z_sl - (rho_i /
 * rho_w) H) and bed, plus
 * the background plane slope_x x + slope_y y that the state keeps out of its
 * arrays (landice.h), so that output under the CF names surface_altitude and
 * bedrock_altitude means what the names say. Bytes per node: reads 2 x 8,
 * writes 2 x 8. */
void cryo_landice_altitudes(const cryo_block *b, const cryo_landice_params *p,
                            const double *thk_node, const double *bed, double *surface,
                            double *bedrock) {
  const int nxn = b->nx + 3, i0 = b->i0, j0 = b->j0;
  const long nnodes = (long)(b->nx + 3) * (b->ny + 3);
  const double dx = b->dx, dy = b->dy, sx = p->slope_x, sy = p->slope_y;
  const int marine = p->marine;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water;
  CRYO_DEVICE_LOOP((thk_node, bed, surface, bedrock))
  for (long q = 0; q < nnodes; ++q) {
    const int i = (int)(q % nxn) - 1, j = (int)(q / nxn) - 1;
    const double plane = sx * ((i0 + i) * dx) + sy * ((j0 + j) * dy);
    double lower = bed[q];
    if (marine) lower = fmax(lower, z_sl - ratio * thk_node[q]);
    surface[q] = plane + lower + thk_node[q];
    bedrock[q] = plane + bed[q];
  }
}
