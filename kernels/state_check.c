/* Run-time state checks (cryo_check.h): one loop over the nodes of the block,
 * the cell of each node checked in the same iteration, and an integer
 * min-reduction of the first failing key. Comparisons are written so that a
 * NaN fails them (every comparison with NaN is false).
 *
 * Bytes per point, sea ice with dG0 tracers: u, v, 9 stress coefficients, h, a
 * read once, 13 x 8 B; land ice: 2 (n_layers + 1) + 2 values, 8 B each.
 */
#include <float.h>
#include <math.h>

#include "cryo_acc.h"
#include "cryo_check.h"

/* 1 when every one of the n values at q is finite. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline int all_finite(const double *q, int n) {
  int ok = 1;
  for (int k = 0; k < n; ++k)
    ok &= fabs(q[k]) <= DBL_MAX;
  return ok;
}

long long cryo_seaice_check_state(const cryo_block *b, int na, double max_speed,
                                  double max_thickness, const double *u, const double *v,
                                  const double *s11, const double *s12, const double *s22,
                                  const double *h, const double *a) {
  const int nx = b->nx, ny = b->ny;
  const long npoint = (long)(nx + 1) * (ny + 1);
  const double speed2 = max_speed * max_speed;
  long long first = CRYO_STATE_OK;
  CRYO_DEVICE_LOOP_REDUCE((u, v, s11, s12, s22, h, a), min, first)
  for (long e = 0; e < npoint; ++e) {
    const int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    const long n = (long)(j + 1) * (nx + 3) + (i + 1);
    int bad = -1;
    if (!(u[n] * u[n] + v[n] * v[n] <= speed2)) bad = CRYO_SEAICE_CHECK_VELOCITY;
    if (bad < 0 && i < nx && j < ny) {
      const long c = (long)(j + 1) * (nx + 2) + (i + 1);
      if (!all_finite(s11 + 3 * c, 3))
        bad = CRYO_SEAICE_CHECK_S11;
      else if (!all_finite(s12 + 3 * c, 3))
        bad = CRYO_SEAICE_CHECK_S12;
      else if (!all_finite(s22 + 3 * c, 3))
        bad = CRYO_SEAICE_CHECK_S22;
      else if (!(h[na * c] >= 0.0 && h[na * c] <= max_thickness) || !all_finite(h + na * c, na))
        bad = CRYO_SEAICE_CHECK_H;
      else if (!(a[na * c] >= 0.0 && a[na * c] <= 1.0) || !all_finite(a + na * c, na))
        bad = CRYO_SEAICE_CHECK_A;
    }
    if (bad >= 0) {
      const long long key = (long long)e * CRYO_SEAICE_CHECK_COUNT + bad;
      first = key < first ? key : first;
    }
  }
  return first;
}

long long cryo_landice_check_state(const cryo_block *b, int n_layers, double max_speed,
                                   double max_thickness, const double *vel, const double *thk_node,
                                   const double *thk) {
  const int nx = b->nx, ny = b->ny, nlev = 2 * (n_layers + 1);
  const long npoint = (long)(nx + 1) * (ny + 1);
  const double speed2 = max_speed * max_speed;
  long long first = CRYO_STATE_OK;
  CRYO_DEVICE_LOOP_REDUCE((vel, thk_node, thk), min, first)
  for (long e = 0; e < npoint; ++e) {
    const int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    const long n = (long)(j + 1) * (nx + 3) + (i + 1);
    int bad = -1;
    for (int k = 0; k <= n_layers; ++k) {
      const double uk = vel[n * nlev + 2 * k], vk = vel[n * nlev + 2 * k + 1];
      if (!(uk * uk + vk * vk <= speed2)) bad = CRYO_LANDICE_CHECK_VELOCITY;
    }
    if (bad < 0 && !(thk_node[n] >= 0.0 && thk_node[n] <= max_thickness))
      bad = CRYO_LANDICE_CHECK_THK_NODE;
    if (bad < 0 && i < nx && j < ny) {
      const double t = thk[(long)(j + 1) * (nx + 2) + (i + 1)];
      if (!(t >= 0.0 && t <= max_thickness)) bad = CRYO_LANDICE_CHECK_THK;
    }
    if (bad >= 0) {
      const long long key = (long long)e * CRYO_LANDICE_CHECK_COUNT + bad;
      first = key < first ? key : first;
    }
  }
  return first;
}
