/* Basal friction of the nonlinear sliding laws (Weertman 1957; Schoof 2005,
 * Proc. R. Soc. A 461; Tsai et al. 2015, J. Glaciol. 61; landice_element.h,
 * landice_sliding_law) in kernels of
 * their own, one thread per bed face (layer 0), as the body force has: an
 * untaken branch inside the element kernels costs them registers on the GPU
 * (landice_element.h). The linear law stays inside the element kernels, so
 * its bits are those it always had.
 *
 * Deterministic without atomics: a launch covers the bed faces of one of 4
 * colours (parities of the global column indices), so no two threads of a
 * launch touch the same node; colours run in a fixed order after the
 * element colours. */
#include "landice_element.h"

/* Effective pressure at the corners of a bed face for the Tsai law,
 * N = rho_i g H - rho_w g max(z_sl - b, 0) >= 0 as landice_elem_gather
 * computes it for the Schoof law: filled here so that the element kernels,
 * which never need N, keep their code. */
CRYO_LANDICE_ROUTINE
static inline void sliding_npress_fill(const landice_coef *c, const long n[4], const double *bed,
                                       const double *thk_node, landice_elem_in *in) {
  if (c->law != CRYO_LANDICE_SLIDING_TSAI) return;
  CRYO_LANDICE_UNROLL
  for (int m = 0; m < 4; ++m)
    in->npress[m] =
        fmax(c->rhog * thk_node[n[m]] - c->rhowg * fmax(c->sea_level - bed[n[m]], 0.0), 0.0);
}

/* The coefficients of cell `cell` (index of the cell arrays, halo
 * included): C and C_max are constant over each bed face (docs/landice.md,
 * Basal and rheology fields). */
CRYO_LANDICE_ROUTINE
static inline landice_coef sliding_coef_at(const landice_coef *c, const double *sliding_c,
                                           const double *coulomb_c, long cell) {
  landice_coef ce = *c;
  ce.slide_c = sliding_c[cell];
  ce.slide_c1m = c->law == CRYO_LANDICE_SLIDING_WEERTMAN ? 0.0 : pow(ce.slide_c, c->inv_m);
  ce.coulomb_c = coulomb_c[cell];
  return ce;
}

void cryo_landice_sliding_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                 const double *vel, const double *bed, const double *thk_node,
                                 const double *thk, const double *beta2, const double *sliding_c,
                                 const double *coulomb_c, double *res) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour & 3);
  const int fi = col.fi, ni = col.ni, fj = col.fj;
  const long nface = (long)col.ni * col.nj;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, sliding_c, coulomb_c, res))
  for (long e = 0; e < nface; ++e) {
    int i = fi + 2 * (int)(e % ni), j = fj + 2 * (int)(e / ni);
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    const landice_coef ce =
        sliding_coef_at(&c, sliding_c, coulomb_c, (long)(j + 1) * (nx + 2) + i + 1);
    landice_elem_in in;
    double r[16];
    landice_elem_gather(&ce, n, 0, nz, vel, bed, thk_node, beta2, &in);
    sliding_npress_fill(&ce, n, bed, thk_node, &in);
    CRYO_LANDICE_UNROLL
    for (int a = 0; a < 8; ++a)
      r[a] = 0.0;
    landice_elem_sliding_residual(&ce, &in, r);
    for (int m = 0; m < 4; ++m) {
      double *rm = res + n[m] * nlev;
      rm[0] += r[2 * m];
      rm[1] += r[2 * m + 1];
    }
  }
}

void cryo_landice_sliding_jacobian_colour(const cryo_block *b, const cryo_landice_params *p,
                                          int colour, const double *vel, const double *bed,
                                          const double *thk_node, const double *thk,
                                          const double *beta2, const double *sliding_c,
                                          const double *coulomb_c, double *matrix) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers;
  const long mlev = 108L * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour & 3);
  const int fi = col.fi, ni = col.ni, fj = col.fj;
  const long nwork = 4L * col.ni * col.nj; /* (bed face, local row node) */
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, sliding_c, coulomb_c, matrix))
  for (long w = 0; w < nwork; ++w) {
    int a = (int)(w % 4);
    long e = w / 4;
    int i = fi + 2 * (int)(e % ni), j = fj + 2 * (int)(e / ni);
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    const landice_coef ce =
        sliding_coef_at(&c, sliding_c, coulomb_c, (long)(j + 1) * (nx + 2) + i + 1);
    landice_elem_in in;
    double kr[2][16];
    landice_elem_gather(&ce, n, 0, nz, vel, bed, thk_node, beta2, &in);
    sliding_npress_fill(&ce, n, bed, thk_node, &in);
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 8; ++m) {
      kr[0][m] = 0.0;
      kr[1][m] = 0.0;
    }
    landice_elem_sliding_rows(&ce, &in, a, kr);
    /* the row node from a's bits (landice_jacobian.c says why); level 0 */
    long na = (long)(j + 1 + (a >> 1)) * stride + (i + 1 + (a & 1));
    double *row = matrix + na * mlev;
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      int nb = 9 + ((m >> 1) - (a >> 1) + 1) * 3 + ((m & 1) - (a & 1) + 1);
      double *blk = row + 4 * nb;
      blk[0] += kr[0][2 * m];
      blk[1] += kr[0][2 * m + 1];
      blk[2] += kr[1][2 * m];
      blk[3] += kr[1][2 * m + 1];
    }
  }
}

/* The bed face of active column (i, j) (nx columns per row): its 4 nodes n,
 * cell index, coefficients with the cell's C and C_max, and the element
 * inputs at the bed. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void sliding_bed_gather(const landice_coef *c, int i, int j, int nx, int nz,
                                            const double *vel, const double *bed,
                                            const double *thk_node, const double *beta2,
                                            const double *sliding_c, const double *coulomb_c,
                                            long n[4], long *cell, landice_coef *ce,
                                            landice_elem_in *in) {
  const int stride = nx + 3;
  for (int m = 0; m < 4; ++m)
    n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
  *cell = (long)(j + 1) * (nx + 2) + (i + 1);
  *ce = sliding_coef_at(c, sliding_c, coulomb_c, *cell);
  landice_elem_gather(ce, n, 0, nz, vel, bed, thk_node, beta2, in);
  sliding_npress_fill(ce, n, bed, thk_node, in);
}

void cryo_landice_sliding_energy_columns(const cryo_block *b, const cryo_landice_params *p,
                                         const double *vel, const double *bed,
                                         const double *thk_node, const double *thk,
                                         const double *beta2, const double *sliding_c,
                                         const double *coulomb_c, double *energy) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nx = b->nx;
  const double hmin = p->min_thickness;
  const long ncol = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, sliding_c, coulomb_c, energy))
  for (long e = 0; e < ncol; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4], cell;
    landice_coef ce;
    landice_elem_in in;
    sliding_bed_gather(&c, i, j, nx, nz, vel, bed, thk_node, beta2, sliding_c, coulomb_c, n, &cell,
                       &ce, &in);
    energy[cell] += landice_elem_sliding_energy(&ce, &in);
  }
}

/* C d(tau_b)/dC = C (d beta / dC) u at one bed point, as the factor of u
 * (docs/landice.md, Adjoint gradient): Weertman beta itself (linear in C);
 * Tsai beta on the power branch C r^m < C_max N and 0 on the Coulomb branch
 * (the kink C r^m = C_max N counts as Coulomb, as in landice_sliding_law:
 * the derivative from above); Schoof beta q^(1/m) / D (beta = C q r^(m-1)
 * D^(-m), D = q^(1/m) + C^(1/m) r). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double sliding_c_share(const landice_coef *c, double npress, double ub,
                                           double vb) {
  double beta, dbeta;
  landice_sliding_law(c, npress, ub, vb, &beta, &dbeta);
  if (c->law == CRYO_LANDICE_SLIDING_WEERTMAN) return beta;
  double q = c->coulomb_c * npress;
  if (c->law == CRYO_LANDICE_SLIDING_TSAI) {
    double r = sqrt(ub * ub + vb * vb + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
    return (c->slide_c * pow(r, c->slide_m) < q) ? beta : 0.0;
  }
  double r = sqrt(ub * ub + vb * vb + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
  double q1m = pow(q, c->inv_m);
  return beta * q1m / (q1m + c->slide_c1m * r);
}

void cryo_landice_sliding_c_gradient(const cryo_block *b, const cryo_landice_params *p,
                                     const double *vel, const double *lambda, const double *bed,
                                     const double *thk_node, const double *thk, const double *beta2,
                                     const double *sliding_c, const double *coulomb_c,
                                     double *grad) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nlev = 2 * (nz + 1), nx = b->nx;
  const double hmin = p->min_thickness;
  const long ncol = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((vel, lambda, bed, thk_node, thk, beta2, sliding_c, coulomb_c, grad))
  for (long e = 0; e < ncol; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4], cell;
    landice_coef ce;
    landice_elem_in in;
    sliding_bed_gather(&c, i, j, nx, nz, vel, bed, thk_node, beta2, sliding_c, coulomb_c, n, &cell,
                       &ce, &in);
    /* lambda at the bed (level 0) of the 4 corners, in the layout of in.u */
    double lb[8];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      lb[2 * m] = lambda[n[m] * nlev];
      lb[2 * m + 1] = lambda[n[m] * nlev + 1];
    }
    double w = ce.half_dx * ce.half_dy * in.gfrac, sum = 0.0;
    for (int q = 0; q < 4; ++q) {
      double np, ub, vb;
      landice_bed_point(&in, q, &np, &ub, &vb);
      double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double lu = 0.0, lv = 0.0;
      CRYO_LANDICE_UNROLL
      for (int m = 0; m < 4; ++m) {
        double psi = landice_bed_basis(m, xi, eta);
        lu += psi * lb[2 * m];
        lv += psi * lb[2 * m + 1];
      }
      sum += w * sliding_c_share(&ce, np, ub, vb) * (ub * lu + vb * lv);
    }
    grad[cell] += sum;
  }
}
