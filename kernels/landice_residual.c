/* First-order Stokes residual and functional kernels (docs/landice.md;
 * Antepara et al. 2024, Eq. 1 and Fig. 2 "optimized": per element one fused loop over
 * the Gauss points with local accumulation, then one scatter).
 *
 * Deterministic assembly without atomics: a launch covers the elements of one
 * of 8 colours (parities of the global column indices and of the layer), so
 * no two threads of a launch touch the same node. Every node therefore sums
 * its contributions in an order fixed by global indices only, identical for
 * any decomposition and thread count. The optional body force has kernels
 * of its own (landice_element.h says why), called after these. */
#include "landice_element.h"

void cryo_landice_zero(long n, double *a) {
  CRYO_DEVICE_LOOP((a))
  for (long e = 0; e < n; ++e)
    a[e] = 0.0;
}

void cryo_landice_fields_prepare(const cryo_block *b, const cryo_landice_params *p,
                                 const cryo_landice_state *s) {
  const int nz = p->n_layers;
  const double a0 = p->rate_factor, c0 = p->sliding_c, cmax0 = p->coulomb_c;
  const double minus_inv_n = -1.0 / p->glen_n;
  const int given_a = (s->given & CRYO_LANDICE_GIVEN_RATE_FACTOR) != 0;
  const int given_c = (s->given & CRYO_LANDICE_GIVEN_SLIDING_C) != 0;
  const int given_cmax = (s->given & CRYO_LANDICE_GIVEN_COULOMB_C) != 0;
  double *rate = s->rate_factor, *afac = s->afac, *slide = s->sliding_c, *cmax = s->coulomb_c;
  const long ncell = CRYO_NCELL(b);
  CRYO_DEVICE_LOOP((rate, afac, slide, cmax))
  for (long e = 0; e < ncell; ++e) {
    for (int k = 0; k < nz; ++k) {
      if (!given_a) rate[e * nz + k] = a0;
      afac[e * nz + k] = pow(rate[e * nz + k], minus_inv_n);
    }
    if (!given_c) slide[e] = c0;
    if (!given_cmax) cmax[e] = cmax0;
  }
}

void cryo_landice_residual_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                  const double *vel, const double *bed, const double *thk_node,
                                  const double *thk, const double *beta2, const double *afac,
                                  double *res) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour);
  const int fi = col.fi, ni = col.ni, fj = col.fj, fk = col.fk, nk = col.nk;
  const long nel = (long)col.ni * col.nj * col.nk;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, afac, res))
  for (long e = 0; e < nel; ++e) {
    int k = fk + 2 * (int)(e % nk), i = fi + 2 * (int)(e / nk % ni);
    int j = fj + 2 * (int)(e / ((long)nk * ni));
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    landice_elem_in in;
    double r[16];
    landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
    in.afac = afac[((long)(j + 1) * (nx + 2) + (i + 1)) * nz + k];
    landice_elem_residual(&c, &in, r);
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      double *rm = res + n[m] * nlev + 2 * k;
      rm[0] += r[2 * m];
      rm[1] += r[2 * m + 1];
      rm[2] += r[2 * m + 8];
      rm[3] += r[2 * m + 9];
    }
  }
}

void cryo_landice_energy_columns(const cryo_block *b, const cryo_landice_params *p,
                                 const double *vel, const double *bed, const double *thk_node,
                                 const double *thk, const double *beta2, const double *afac,
                                 double *energy) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nx = b->nx, stride = b->nx + 3;
  const double hmin = p->min_thickness;
  const long ncol = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, afac, energy))
  for (long e = 0; e < ncol; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    long n[4];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    double sum = 0.0;
    for (int k = 0; k < nz && landice_column_active(thk, i, j, nx, hmin); ++k) {
      landice_elem_in in;
      landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
      in.afac = afac[((long)(j + 1) * (nx + 2) + (i + 1)) * nz + k];
      sum += landice_elem_energy(&c, &in);
    }
    energy[(long)(j + 1) * (nx + 2) + (i + 1)] = sum;
  }
}

void cryo_landice_force_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                               const double *vel, const double *bed, const double *thk_node,
                               const double *thk, const double *beta2, const double *force,
                               double *res) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour);
  const int fi = col.fi, ni = col.ni, fj = col.fj, fk = col.fk, nk = col.nk;
  const long nel = (long)col.ni * col.nj * col.nk;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, force, res))
  for (long e = 0; e < nel; ++e) {
    int k = fk + 2 * (int)(e % nk), i = fi + 2 * (int)(e / nk % ni);
    int j = fj + 2 * (int)(e / ((long)nk * ni));
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    landice_elem_in in;
    double fe[16], r[16];
    landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
    landice_elem_gather_force(n, k, nz, force, fe);
    landice_elem_force(&c, &in, fe, r);
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      double *rm = res + n[m] * nlev + 2 * k;
      rm[0] += r[2 * m];
      rm[1] += r[2 * m + 1];
      rm[2] += r[2 * m + 8];
      rm[3] += r[2 * m + 9];
    }
  }
}

void cryo_landice_force_work_columns(const cryo_block *b, const cryo_landice_params *p,
                                     const double *vel, const double *bed, const double *thk_node,
                                     const double *thk, const double *beta2, const double *force,
                                     double *energy) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nx = b->nx, stride = b->nx + 3;
  const double hmin = p->min_thickness;
  const long ncol = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, force, energy))
  for (long e = 0; e < ncol; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    long n[4];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    double sum = 0.0;
    for (int k = 0; k < nz && landice_column_active(thk, i, j, nx, hmin); ++k) {
      landice_elem_in in;
      double fe[16];
      landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
      landice_elem_gather_force(n, k, nz, force, fe);
      sum += landice_elem_force_work(&c, &in, fe);
    }
    energy[(long)(j + 1) * (nx + 2) + (i + 1)] += sum;
  }
}
