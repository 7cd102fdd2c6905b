/* First-order Stokes Jacobian kernels (docs/landice.md): the exact
 * (hand-derived, landice_element.h) 16x16 element matrices, assembled into
 * the fixed 27-neighbour block pattern of landice.h by the same 8-colour
 * element scatter as the residual, hence deterministic without atomics. One
 * thread computes the two rows of one local node of one element. */
#include "landice_element.h"

void cryo_landice_jacobian_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                  const double *vel, const double *bed, const double *thk_node,
                                  const double *thk, const double *beta2, double *matrix) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers;
  const long mlev = 108L * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour);
  const int fi = col.fi, ni = col.ni, fj = col.fj, fk = col.fk, nk = col.nk;
  const long nwork = 8L * col.ni * col.nj * col.nk; /* (element, local row node) */
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, matrix))
  for (long w = 0; w < nwork; ++w) {
    int a = (int)(w % 8);
    long e = w / 8;
    int k = fk + 2 * (int)(e % nk), i = fi + 2 * (int)(e / nk % ni);
    int j = fj + 2 * (int)(e / ((long)nk * ni));
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    landice_elem_in in;
    double kr[2][16];
    landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
    landice_elem_jacobian_rows(&c, &in, a, kr);
    /* the row node from a's bits, not n[a & 3]: a run-time index would put
     * n in local memory */
    int ca = a & 3, la = a >> 2;
    long na = (long)(j + 1 + (ca >> 1)) * stride + (i + 1 + (ca & 1));
    double *row = matrix + na * mlev + 108L * (k + la);
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 8; ++m) {
      int cm = m & 3, lm = m >> 2;
      int nb = (lm - la + 1) * 9 + ((cm >> 1) - (ca >> 1) + 1) * 3 + ((cm & 1) - (ca & 1) + 1);
      double *blk = row + 4 * nb;
      blk[0] += kr[0][2 * m];
      blk[1] += kr[0][2 * m + 1];
      blk[2] += kr[1][2 * m];
      blk[3] += kr[1][2 * m + 1];
    }
  }
}

void cryo_landice_dirichlet(const cryo_block *b, const cryo_landice_params *p, const double *thk,
                            double *res, double *matrix) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1), nx = b->nx, stride = b->nx + 3;
  const long mlev = 108L * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, no_slip = p->no_slip, lat = p->lateral_bc;
  const double hmin = p->min_thickness;
  const long nrow = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((thk, res, matrix))
  for (long e = 0; e < nrow; ++e) {
    int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    long node = (long)(j + 1) * stride + (i + 1);
    /* An ice-free node's row holds nothing: no active element touches it, so
     * no entry of an active row refers to it either. */
    int idle = !landice_node_active(thk, i, j, i0, j0, nx, nxg, nyg, px, py, hmin);
    for (int k = 0; k <= nz; ++k) {
      int fixed = idle ? 3 : landice_node_fixed(i0 + i, j0 + j, k, nxg, nyg, px, py, no_slip, lat);
      if (res) {
        if (fixed & 1) res[node * nlev + 2 * k] = 0.0;
        if (fixed & 2) res[node * nlev + 2 * k + 1] = 0.0;
      }
      if (!matrix) continue;
      double *row = matrix + node * mlev + 108L * k;
      for (int nb = 0; nb < 27; ++nb) {
        int di = nb % 3 - 1, dj = (nb / 3) % 3 - 1, dk = nb / 9 - 1;
        int col_fixed = (k + dk >= 0 && k + dk <= nz)
                            ? landice_node_fixed(i0 + i + di, j0 + j + dj, k + dk, nxg, nyg, px, py,
                                                 no_slip, lat)
                            : 0;
        /* entry 2 r + c of the block: row component r, column component c */
        for (int rc = 0; rc < 4; ++rc) {
          int r = rc >> 1, cc = rc & 1;
          if (!((fixed >> r) & 1) && !((col_fixed >> cc) & 1)) continue;
          row[4 * nb + rc] = (nb == 13 && r == cc && ((fixed >> r) & 1)) ? 1.0 : 0.0;
        }
      }
    }
  }
}
