/* Run-time state checks (namelists/README.md, State check): one fused pass per coupling interval
 * over a rank's prognostic arrays that finds the first value which is NaN, Inf or beyond its bound,
 * on the device, as an integer min-reduction of key = point * COUNT + check, point = j (nx + 1) + i
 * over nodes (i, j) in [0,nx] x [0,ny] (the cell (i, j) is checked with its lower-left node when i
 * < nx and j < ny), check the enum below. Integers only, so the key does not depend on the thread
 * count; row-major order within the block is row-major order in the global grid, so the smallest
 * global key over ranks is the first bad value of the domain. Only the key leaves the device; the
 * caller fetches the few values at the point it names to write its message. CRYO_STATE_OK when all
 * pass.
 */
#ifndef CRYO_CHECK_H
#define CRYO_CHECK_H

#include <limits.h>

#include "cryo_block.h"

#define CRYO_STATE_OK LLONG_MAX

/* What failed, in the order checked at one point. */
enum cryo_seaice_check {
  CRYO_SEAICE_CHECK_VELOCITY = 0, /* node: |(u, v)| finite and <= max_speed */
  CRYO_SEAICE_CHECK_S11,          /* cell: the 3 stress coefficients finite */
  CRYO_SEAICE_CHECK_S12,
  CRYO_SEAICE_CHECK_S22,
  CRYO_SEAICE_CHECK_H, /* cell: mean in [0, max_thickness], slopes finite */
  CRYO_SEAICE_CHECK_A, /* cell: mean in [0, 1], slopes finite */
  CRYO_SEAICE_CHECK_COUNT
};

enum cryo_landice_check {
  CRYO_LANDICE_CHECK_VELOCITY = 0, /* node: every level finite, speed <= max_speed */
  CRYO_LANDICE_CHECK_THK_NODE,     /* node: in [0, max_thickness] */
  CRYO_LANDICE_CHECK_THK,          /* cell: in [0, max_thickness] */
  CRYO_LANDICE_CHECK_COUNT
};

/* Host side: the point (i, j) of the block and the check a rank's key names,
 * and the same key in the global grid (nodes nx_global + 1 per row), whose
 * smallest value over ranks is the first bad value of the domain. */
static inline long long cryo_check_global_key(const cryo_block *b, long long key, int count, int *i,
                                              int *j, int *check) {
  if (key == CRYO_STATE_OK) return CRYO_STATE_OK;
  const long long point = key / count;
  *check = (int)(key % count);
  *i = (int)(point % (b->nx + 1));
  *j = (int)(point / (b->nx + 1));
  return ((long long)(b->j0 + *j) * (b->nx_global + 1) + b->i0 + *i) * count + *check;
}

/* Sea ice: u, v (m s-1) at nodes; s11, s12, s22 (3 coefficients, N m-1), h (m)
 * and a (na = 1 or 3 coefficients) at cells. max_speed m s-1, max_thickness m.
 * Returns the smallest failing key, or CRYO_STATE_OK. */
long long cryo_seaice_check_state(const cryo_block *b, int na, double max_speed,
                                  double max_thickness, const double *u, const double *v,
                                  const double *s11, const double *s12, const double *s22,
                                  const double *h, const double *a);

/* Land ice: vel (node, 2 (n_layers + 1) values (u, v) per level, m a-1),
 * thk_node (node, m), thk (cell, m); max_speed m a-1, max_thickness m. */
long long cryo_landice_check_state(const cryo_block *b, int n_layers, double max_speed,
                                   double max_thickness, const double *vel, const double *thk_node,
                                   const double *thk);

#endif
