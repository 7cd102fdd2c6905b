/* Flotation of marine land ice (docs/landice.md, Floating ice): the
 * grounded fraction of each cell's bed, the diagnostic of the weights by
 * which the element kernels scale basal friction (landice_elem_gather;
 * grounded-area weighting, one of the sub-element schemes of Seroussi et al.
 * 2014, The Cryosphere 8). */
#include "landice_element.h"

void cryo_landice_grounded_fraction(const cryo_block *b, const cryo_landice_params *p,
                                    const double *bed, const double *thk_node, const double *thk,
                                    double *gfrac) {
  const int nx = b->nx, stride = b->nx + 3, marine = p->marine;
  const double hmin = p->min_thickness;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water;
  const long ncol = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((bed, thk_node, thk, gfrac))
  for (long e = 0; e < ncol; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    double phi[4];
    for (int m = 0; m < 4; ++m) {
      long n = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
      phi[m] = ratio * thk_node[n] + bed[n] - z_sl;
    }
    /* an ice-free cell has no grounded ice */
    double f = marine ? landice_grounded_fraction(phi) : 1.0;
    gfrac[(long)(j + 1) * (nx + 2) + (i + 1)] =
        landice_column_active(thk, i, j, nx, hmin) ? f : 0.0;
  }
}
