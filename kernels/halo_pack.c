/* Halo lines of one axis, both directions in one launch that maps nothing
 * (kernels/cryo_acc.h), queued behind the kernels that wrote the fields.
 * A launch with data clauses cost 17-100 us in GCC 12 (docs/performance.md,
 * "No-map launches"), and an exchange between two ranks made four of them;
 * a queued no-map launch costs about 5 us (docs/performance.md, "Halo
 * launches"). Each (axis, stage, parity) keeps its own argument set on the
 * device, so the mEVP sub-step's exchange, the same lines of the same fields
 * every time, sends none. A line for a rank of the same node may be written
 * straight into its receive buffer (services/cryo_halo.c, peers). Bytes:
 * 2 x 8 per value copied. */
#include "cryo_acc.h"
#include "halo.h"

static cryo_halo_lines lines_dev[8];
CRYO_DEVICE_ARGS(lines_dev)

/* Value q of the launch: line d = q / n, then field, point, level. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline void lines_value(const cryo_halo_lines *a, long q) {
  const long n = a->nfield * a->count * a->nlev, d = q >= n;
  const long r = q - d * n, f = r / (a->count * a->nlev), rest = r - f * a->count * a->nlev;
  const long p = rest / a->nlev, k = rest - p * a->nlev;
  const long from = a->from[d], to = a->to[d];
  if (from < 0 && to < 0) return;
  double *field = a->f[f];
  const double v = from < 0 ? a->buf[d][r] : field[(from + p * a->step) * a->nlev + k];
  if (to < 0)
    a->buf[d][r] = v;
  else
    field[(to + p * a->step) * a->nlev + k] = v;
}

/* One launch per slot: the loop names its argument set by a constant, so the
 * region reads no host variable. */
#define LINES_LOOP(name, slot)                                                                     \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP_N(lines_dev[slot].values)                                               \
    for (long q = 0; q < lines_dev[slot].values; ++q)                                              \
      lines_value(&lines_dev[slot], q);                                                            \
  }
LINES_LOOP(lines_0, 0)
LINES_LOOP(lines_1, 1)
LINES_LOOP(lines_2, 2)
LINES_LOOP(lines_3, 3)
LINES_LOOP(lines_4, 4)
LINES_LOOP(lines_5, 5)
LINES_LOOP(lines_6, 6)
LINES_LOOP(lines_7, 7)

void cryo_halo_lines_copy(const cryo_halo_lines *a, int axis, int stage, int parity) {
  static void (*const launch[8])(void) = {lines_0, lines_1, lines_2, lines_3,
                                          lines_4, lines_5, lines_6, lines_7};
  const int slot = 4 * (parity != 0) + 2 * (axis != 0) + (stage != 0);
  cryo_halo_lines fresh = *a;
  fresh.values = 2 * a->nfield * a->count * a->nlev;
  cryo_device_args_acquire(&lines_dev[slot], &fresh, sizeof fresh);
  launch[slot]();
  cryo_device_args_release();
}
