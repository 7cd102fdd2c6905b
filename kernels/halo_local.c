/* The halo of a block that this rank fills alone (kernels/halo.h,
 * cryo_halo_local_source): every point it writes, of every field and level,
 * in one launch that maps nothing and is queued behind the kernels that wrote
 * the fields, so that on one rank an exchange costs one queued launch instead
 * of a wait and five synchronous launches (docs/performance.md, "One-rank
 * halo"). Bytes: 2 x 8 per value written. */
#include "cryo_acc.h"
#include "halo.h"

static cryo_halo_local local_dev;
CRYO_DEVICE_ARGS(local_dev)

/* The points the launch visits: the halo ring, and with a fold the owned
 * row below the north halo too. */
static long local_points(const cryo_halo_local *a) {
  const long ncol = a->nx + 2 + a->node, rows = a->ny + a->node; /* owned rows */
  return a->fold ? ncol * 3 + 2 * (rows - 1) : ncol * 2 + 2 * rows;
}

/* Points in the order of local_points: the full rows (the south
 * halo, with a fold the row below the north halo, the north halo), then the
 * two halo columns of the other owned rows; values field by field, levels
 * fastest. */
static void local_fill(void) {
  CRYO_DEVICE_LOOP_NOMAP
  for (long q = 0; q < local_dev.nfield * local_dev.nlev * local_dev.points; ++q) {
    const cryo_halo_local *a = &local_dev;
    const long per_field = a->nlev * a->points;
    const long f = q / per_field, rest = q - f * per_field;
    const long p = rest / a->nlev, k = rest - p * a->nlev;
    const long ncol = a->nx + 2 + a->node, band = a->fold ? 3 : 2, ye = a->ny + a->node;
    int i, j;
    if (p < band * ncol) {
      const long r = p / ncol;
      i = (int)(p - r * ncol) - 1;
      j = (int)(r == 0 ? -1 : ye - band + 1 + r);
    } else {
      const long c = p - band * ncol;
      i = c % 2 ? (int)(a->nx + a->node) : -1;
      j = (int)(c / 2);
    }
    int si, sj;
    const int how = cryo_halo_local_source(a, i, j, &si, &sj);
    if (!how) continue;
    double *v = a->f[f];
    const double s = v[((long)(sj + 1) * ncol + si + 1) * a->nlev + k];
    v[((long)(j + 1) * ncol + i + 1) * a->nlev + k] = how < 0 && (a->flip >> k) & 1 ? -s : s;
  }
}

void cryo_halo_local_fill(const cryo_halo_local *a) {
  cryo_halo_local fresh = *a;
  fresh.points = local_points(a);
  cryo_device_args_acquire(&local_dev, &fresh, sizeof fresh);
  local_fill();
  cryo_device_args_release();
}
