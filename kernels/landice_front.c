/* Hydrostatic load on the faces of ice margins (docs/landice.md, Margins).
 *
 * Where an ice column borders an ice-free one, the side face between them is
 * a boundary of the ice. First-order Stokes keeps the pressure
 * rho_i g (s - z) inside the driving stress, so a free boundary, where the
 * full stress vanishes or balances sea water, has in its place the traction
 *   2 mu eps' . n = psi n,  psi = rho_i g (s - z) - rho_w g max(z_sl - z, 0)
 * (the water term only for marine ice): on land the ice's own overburden
 * pushes the face out, at a marine front sea water holds part of it back.
 * Its weak form adds -int_face psi n phi_a dA to the residual: a load that
 * does not depend on the velocity, assembled once per velocity solve.
 *
 * A face is vertical (x or y constant) with the element's terrain-following
 * levels; along the face it is integrated by the 2-point Gauss rule, over
 * depth exactly: psi is linear in z except for its kink at z_sl, so each
 * layer is split there and each piece gets a 2-point rule (exact for psi
 * times the linear basis). Same 8 element colours as the residual. */
#include "landice_element.h"

/* Over [za, zb] within a layer [z0, z0 + 1 / inv]: adds int psi(z) (1 - zeta)
 * dz to *lo and int psi(z) zeta dz to *hi, zeta = (z - z0) inv, by 2-point
 * Gauss (exact: the integrands are quadratic). */
CRYO_LANDICE_ROUTINE
static inline void landice_front_piece(double za, double zb, double z0, double inv, double s,
                                       double rhog, double rhowg, double z_sl, double *lo,
                                       double *hi) {
  double half = 0.5 * (zb - za), mid = 0.5 * (za + zb);
  for (int q = 0; q < 2; ++q) {
    double z = mid + (q ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP) * half;
    double psi = rhog * (s - z) - rhowg * fmax(z_sl - z, 0.0), zeta = (z - z0) * inv;
    *lo += half * psi * (1.0 - zeta);
    *hi += half * psi * zeta;
  }
}

void cryo_landice_front_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                               const double *bed, const double *thk_node, const double *thk,
                               double *load) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx, ny = b->ny;
  const double hmin = p->min_thickness, z_sl = p->sea_level;
  const landice_colour col = landice_colour_make(b, nz, colour);
  const int fi = col.fi, ni = col.ni, fj = col.fj, fk = col.fk, nk = col.nk;
  const long nel = (long)col.ni * col.nj * col.nk;
  CRYO_DEVICE_LOOP((bed, thk_node, thk, load))
  for (long e = 0; e < nel; ++e) {
    int k = fk + 2 * (int)(e % nk), i = fi + 2 * (int)(e / nk % ni);
    int j = fj + 2 * (int)(e / ((long)nk * ni));
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    /* sides: 0 west, 1 east, 2 south, 3 north */
    for (int side = 0; side < 4; ++side) {
      int along_x = side < 2, dir = (side & 1) ? 1 : -1;
      int ni_ = along_x ? i + dir : i, nj_ = along_x ? j : j + dir;
      int node_line = along_x ? i + (side & 1) : j + (side & 1);
      if (node_line < 0 || node_line > (along_x ? nx : ny)) continue;
      if (!landice_column_exists(i0 + ni_, j0 + nj_, nxg, nyg, px, py)) continue;
      if (landice_column_active(thk, ni_, nj_, nx, hmin)) continue;
      /* the face's two corners m (cx + 2 cy), tangential coordinate -1, +1 */
      int ma = along_x ? (side & 1) : 2 * (side & 1), mb = ma + (along_x ? 2 : 1);
      double half_t = along_x ? c.half_dy : c.half_dx;
      double zlo[2], zhi[2], sf[2];
      for (int q = 0; q < 2; ++q) {
        int m = q ? mb : ma;
        long n = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
        double hm = thk_node[n], lower = bed[n];
        if (c.marine) lower = fmax(lower, z_sl - c.float_ratio * hm);
        zlo[q] = lower + (double)k / nz * hm;
        zhi[q] = lower + (double)(k + 1) / nz * hm;
        sf[q] = lower + hm;
      }
      double f[2][2] = {{0.0, 0.0}, {0.0, 0.0}}; /* [corner][level] */
      for (int g = 0; g < 2; ++g) {
        double t = g ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
        double wa = 0.5 * (1.0 - t), wb = 0.5 * (1.0 + t);
        double z0 = wa * zlo[0] + wb * zlo[1], z1 = wa * zhi[0] + wb * zhi[1];
        double s = wa * sf[0] + wb * sf[1];
        if (!(z1 > z0)) continue;
        /* split at sea level, where psi has its kink */
        double inv = 1.0 / (z1 - z0), zk = c.marine ? fmin(fmax(z_sl, z0), z1) : z1;
        double ilo = 0.0, ihi = 0.0;
        if (zk > z0) landice_front_piece(z0, zk, z0, inv, s, c.rhog, c.rhowg, z_sl, &ilo, &ihi);
        if (z1 > zk) landice_front_piece(zk, z1, z0, inv, s, c.rhog, c.rhowg, z_sl, &ilo, &ihi);
        f[0][0] += half_t * wa * ilo;
        f[0][1] += half_t * wa * ihi;
        f[1][0] += half_t * wb * ilo;
        f[1][1] += half_t * wb * ihi;
      }
      int comp = along_x ? 0 : 1;
      for (int q = 0; q < 2; ++q) {
        int m = q ? mb : ma;
        long n = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
        load[n * nlev + 2 * k + comp] += dir * f[q][0];
        load[n * nlev + 2 * (k + 1) + comp] += dir * f[q][1];
      }
    }
  }
}
