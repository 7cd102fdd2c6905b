/* Halo line pack/unpack: one launch per line for up to four fields.
 * Bytes: 2 x 8 x count x nlev per field (read the line, write the buffer). */
#include "halo.h"
#include "cryo_acc.h"

void cryo_halo_line_copy(const cryo_block *b, cryo_location loc, int axis, int index, int first,
                         int count, int nlev, double *f0, double *f1, double *f2, double *f3,
                         double *buf, int unpack) {
  const long base = cryo_halo_line_base(b, loc, axis, index, first);
  const long step = cryo_halo_line_step(b, loc, axis);
  const long n = (long)count * nlev;
  const int nfield = f3 ? 4 : f2 ? 3 : f1 ? 2 : 1;
  CRYO_DEVICE_LOOP((f0, f1, f2, f3, buf))
  for (long q = 0; q < nfield * n; ++q) {
    long f = q / n, r = q - f * n;
    long p = r / nlev, k = r - p * nlev;
    double *a = f == 0 ? f0 : f == 1 ? f1 : f == 2 ? f2 : f3;
    long at = (base + p * step) * nlev + k;
    if (unpack)
      a[at] = buf[q];
    else
      buf[q] = a[at];
  }
}
