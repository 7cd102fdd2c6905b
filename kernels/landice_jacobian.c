/* First-order Stokes Jacobian kernels (docs/landice.md): the exact
 * (hand-derived, landice_element.h) 16x16 element matrices, assembled into
 * the fixed 27-neighbour block pattern of landice.h by the same 8-colour
 * element scatter as the residual, hence deterministic without atomics. Four
 * threads share an element, each forming 9 of the 36 blocks of its upper
 * triangle (landice_elem_jacobian_pairs) and writing every block and its
 * transpose, so the assembled matrix is exactly symmetric. */
#include "landice_element.h"

/* Neighbour slot (0..26) of local node m in the block row of local node a. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE int jacobian_slot(int a, int m) {
  int ca = a & 3, la = a >> 2, cm = m & 3, lm = m >> 2;
  return (lm - la + 1) * 9 + ((cm >> 1) - (ca >> 1) + 1) * 3 + ((cm & 1) - (ca & 1) + 1);
}

void cryo_landice_jacobian_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                  const double *vel, const double *bed, const double *thk_node,
                                  const double *thk, const double *beta2, const double *afac,
                                  double *matrix) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers;
  const long mlev = 108L * (nz + 1);
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, stride = b->nx + 3, nx = b->nx;
  const double hmin = p->min_thickness;
  const landice_colour col = landice_colour_make(b, nz, colour);
  const int fi = col.fi, ni = col.ni, fj = col.fj, fk = col.fk, nk = col.nk;
  const long nwork = 4L * col.ni * col.nj * col.nk; /* (element, pair thread) */
  CRYO_DEVICE_LOOP((vel, bed, thk_node, thk, beta2, afac, matrix))
  for (long w = 0; w < nwork; ++w) {
    int t = (int)(w % 4);
    long e = w / 4;
    int k = fk + 2 * (int)(e % nk), i = fi + 2 * (int)(e / nk % ni);
    int j = fj + 2 * (int)(e / ((long)nk * ni));
    if (!landice_column_exists(i0 + i, j0 + j, nxg, nyg, px, py)) continue;
    if (!landice_column_active(thk, i, j, nx, hmin)) continue;
    long n[4];
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m)
      n[m] = (long)(j + 1 + (m >> 1)) * stride + (i + 1 + (m & 1));
    landice_elem_in in;
    double kb[9][4];
    landice_elem_gather(&c, n, k, nz, vel, bed, thk_node, beta2, &in);
    in.afac = afac[((long)(j + 1) * (nx + 2) + (i + 1)) * nz + k];
    landice_elem_jacobian_pairs(&c, &in, t, kb);
    CRYO_LANDICE_UNROLL
    for (int s = 0; s < 9; ++s) {
      int ra, rm;
      landice_pair_block(t, s, &ra, &rm);
      /* row nodes from the bits of ra and rm, not n[]: a run-time index
       * would put n in local memory */
      long na = (long)(j + 1 + ((ra & 3) >> 1)) * stride + (i + 1 + (ra & 1));
      double *blk = matrix + na * mlev + 108L * (k + (ra >> 2)) + 4 * jacobian_slot(ra, rm);
      /* a diagonal block's u-v and v-u entries are equal in exact
       * arithmetic; one of them serves both, so that the block is symmetric
       * to the bit as well */
      blk[0] += kb[s][0];
      blk[1] += kb[s][1];
      blk[2] += rm == ra ? kb[s][1] : kb[s][2];
      blk[3] += kb[s][3];
      if (rm == ra) continue;
      long nm = (long)(j + 1 + ((rm & 3) >> 1)) * stride + (i + 1 + (rm & 1));
      double *tr = matrix + nm * mlev + 108L * (k + (rm >> 2)) + 4 * jacobian_slot(rm, ra);
      tr[0] += kb[s][0];
      tr[1] += kb[s][2];
      tr[2] += kb[s][1];
      tr[3] += kb[s][3];
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
