/* North fold of the halo exchange (kernels/halo.h, cryo_halo_fold_source;
 * docs/design.md, Folded grids): the rows next to the fold packed column by
 * column, and the points the fold writes filled from the global rows, one
 * launch each for up to four fields, so the same loops run on the host and on
 * the device. Bytes: 2 x 8 per value packed; 2 x 8 per value written. */
#include "cryo_acc.h"
#include "halo.h"

static int field_count(const double *f1, const double *f2, const double *f3) {
  return f3 ? 4 : f2 ? 3 : f1 ? 2 : 1;
}

void cryo_halo_fold_pack(const cryo_block *b, cryo_location loc, int nlev, double *f0, double *f1,
                         double *f2, double *f3, double *buf) {
  const int nfield = field_count(f1, f2, f3);
  const long row = cryo_halo_line_step(b, loc, 0);
  const long first =
      cryo_halo_line_base(b, loc, 1, cryo_halo_fold_row0(b->fold, loc, b->ny_global) - b->j0, 0);
  const long n = (long)b->nx * 2 * nfield * nlev;
  CRYO_DEVICE_LOOP((f0, f1, f2, f3, buf))
  for (long q = 0; q < n; ++q) {
    const long k = q % nlev, rest = q / nlev;
    const long f = rest % nfield, ir = rest / nfield;
    const long r = ir % 2, i = ir / 2;
    const double *a = f == 0 ? f0 : f == 1 ? f1 : f == 2 ? f2 : f3;
    buf[q] = a[(first + r * row + i) * nlev + k];
  }
}

void cryo_halo_fold_unpack(const cryo_block *b, cryo_location loc, int nlev, unsigned flip,
                           double *f0, double *f1, double *f2, double *f3, const double *rows) {
  const int nfield = field_count(f1, f2, f3), node = loc == CRYO_AT_NODE;
  const int nxg = b->nx_global, nyg = b->ny_global, fold = b->fold, i0 = b->i0, j0 = b->j0;
  const int row0 = cryo_halo_fold_row0(fold, loc, nyg);
  /* the block's columns [-1, nx + node] of its rows [ny - 1, ny + node]:
   * every row the fold writes */
  const int ncol = b->nx + 2 + node, jlo = b->ny - 1;
  const long row = cryo_halo_line_step(b, loc, 0);
  const long n = (long)ncol * (2 + node) * nfield * nlev;
  CRYO_DEVICE_LOOP((f0, f1, f2, f3, rows))
  for (long q = 0; q < n; ++q) {
    const long k = q % nlev, rest = q / nlev;
    const long f = rest % nfield, p = rest / nfield;
    const int il = (int)(p % ncol) - 1, jl = jlo + (int)(p / ncol);
    const int gi = ((i0 + il) % nxg + nxg) % nxg;
    int si, sj;
    if (!cryo_halo_fold_source(fold, loc, nxg, nyg, gi, j0 + jl, &si, &sj)) continue;
    double *a = f == 0 ? f0 : f == 1 ? f1 : f == 2 ? f2 : f3;
    const double v = rows[(((long)si * 2 + (sj - row0)) * nfield + f) * nlev + k];
    a[((long)(jl + 1) * row + il + 1) * nlev + k] = (flip >> k) & 1u ? -v : v;
  }
}
