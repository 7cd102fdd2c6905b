/* Node-column operations on the assembled first-order Stokes matrix, shared by
 * the Krylov solver and the multigrid levels (private to kernels/landice_*.c).
 *
 * Matrix layout (kernels/landice.h): row (node, k) holds 27 neighbour 2x2
 * blocks, neighbour nb = (dk+1)*9 + (dj+1)*3 + (di+1), entry
 * [((k * 27) + nb) * 4 + 2 * c_row + c_col]. A node column's own blocks
 * (di = dj = 0) form a block-tridiagonal matrix in k: diagonal nb = 13, below
 * nb = 4, above nb = 22.
 */
#ifndef CRYO_LANDICE_COLUMN_H
#define CRYO_LANDICE_COLUMN_H

#include "landice_element.h"

/* Factor one node column's block-tridiagonal matrix (rows at m) by block
 * Gaussian elimination into its inverted pivots s (4 per level):
 * S_0 = D_0, S_k = D_k - L_k S_(k-1)^-1 U_(k-1). A dof whose diagonal is
 * exactly zero has a zero row and column (a coarse multigrid dof that
 * interpolates only to fixed fine dofs): its pivot is taken as 1, so that it
 * stays decoupled and its value follows its right-hand side, which is zero. */
CRYO_LANDICE_ROUTINE
static inline void landice_column_factor(int nz, const double *m, double *s) {
  double si[4] = {0.0, 0.0, 0.0, 0.0};
  for (int k = 0; k <= nz; ++k) {
    const double *d = m + 108L * k + 4 * 13;
    double a0 = d[0] == 0.0 ? 1.0 : d[0], a1 = d[1], a2 = d[2], a3 = d[3] == 0.0 ? 1.0 : d[3];
    if (k > 0) {
      const double *l = m + 108L * k + 4 * 4;        /* A(k, k-1) */
      const double *u = m + 108L * (k - 1) + 4 * 22; /* A(k-1, k) */
      double t0 = si[0] * u[0] + si[1] * u[2], t1 = si[0] * u[1] + si[1] * u[3];
      double t2 = si[2] * u[0] + si[3] * u[2], t3 = si[2] * u[1] + si[3] * u[3];
      a0 -= l[0] * t0 + l[1] * t2;
      a1 -= l[0] * t1 + l[1] * t3;
      a2 -= l[2] * t0 + l[3] * t2;
      a3 -= l[2] * t1 + l[3] * t3;
    }
    double inv = 1.0 / (a0 * a3 - a1 * a2);
    si[0] = a3 * inv;
    si[1] = -a1 * inv;
    si[2] = -a2 * inv;
    si[3] = a0 * inv;
    for (int q = 0; q < 4; ++q)
      s[4 * k + q] = si[q];
  }
}

/* zz = M^-1 rr in one node column, whose matrix rows start at m and pivots
 * at s: forward then backward block substitution. zz may be rr. */
CRYO_LANDICE_ROUTINE
static inline __attribute__((always_inline)) void
landice_column_solve(int nz, const double *m, const double *s, const double *rr, double *zz) {
  zz[0] = rr[0];
  zz[1] = rr[1];
  for (int k = 1; k <= nz; ++k) {
    const double *sp = s + 4 * (k - 1), *l = m + 108L * k + 4 * 4;
    double t0 = sp[0] * zz[2 * k - 2] + sp[1] * zz[2 * k - 1];
    double t1 = sp[2] * zz[2 * k - 2] + sp[3] * zz[2 * k - 1];
    zz[2 * k] = rr[2 * k] - (l[0] * t0 + l[1] * t1);
    zz[2 * k + 1] = rr[2 * k + 1] - (l[2] * t0 + l[3] * t1);
  }
  for (int k = nz; k >= 0; --k) {
    double w0 = zz[2 * k], w1 = zz[2 * k + 1];
    if (k < nz) {
      const double *u = m + 108L * k + 4 * 22;
      w0 -= u[0] * zz[2 * k + 2] + u[1] * zz[2 * k + 3];
      w1 -= u[2] * zz[2 * k + 2] + u[3] * zz[2 * k + 3];
    }
    const double *sk = s + 4 * k;
    zz[2 * k] = sk[0] * w0 + sk[1] * w1;
    zz[2 * k + 1] = sk[2] * w0 + sk[3] * w1;
  }
}

/* The nodes that exist, in local indices of block (i0, nx) of a grid of nxg
 * cells: all of [-1, nx+1] where periodic, else the global [0, nxg]. */
typedef struct landice_span {
  long ilo, ihi, jlo, jhi;
} landice_span;

static inline landice_span landice_span_make(const cryo_block *b) {
  landice_span r;
  r.ilo = b->periodic_x ? -1 : -b->i0;
  r.ihi = b->periodic_x ? b->nx + 1 : b->nx_global - b->i0;
  r.jlo = b->periodic_y ? -1 : -b->j0;
  r.jhi = b->periodic_y ? b->ny + 1 : b->ny_global - b->j0;
  return r;
}

/* (J x) at row (i, j, k) of a block whose node rows are stride = nx + 3
 * apart: out[0] the u row, out[1] the v row. Neighbours outside
 * [ilo, ihi] x [jlo, jhi] or the column are skipped (their halo may hold
 * anything). */
CRYO_LANDICE_ROUTINE
static inline __attribute__((always_inline)) void
landice_row_product(const double *row, const double *x, int i, int j, int k, int nz, int stride,
                    long ilo, long ihi, long jlo, long jhi, double out[2]) {
  const int nlev = 2 * (nz + 1);
  double yu = 0.0, yv = 0.0;
  for (int nb = 0; nb < 27; ++nb) {
    int di = nb % 3 - 1, dj = (nb / 3) % 3 - 1, kk = k + nb / 9 - 1;
    if (kk < 0 || kk > nz || i + di < ilo || i + di > ihi || j + dj < jlo || j + dj > jhi) continue;
    const double *xv = x + ((long)(j + dj + 1) * stride + (i + di + 1)) * nlev + 2 * kk;
    yu += row[4 * nb] * xv[0] + row[4 * nb + 1] * xv[1];
    yv += row[4 * nb + 2] * xv[0] + row[4 * nb + 3] * xv[1];
  }
  out[0] = yu;
  out[1] = yv;
}

#endif
