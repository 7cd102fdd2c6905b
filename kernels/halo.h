/* Packing of halo layers into contiguous buffers on the device, so that only
 * the packed layers cross to the host for MPI (docs/design.md, Host and device). */
#ifndef CRYO_HALO_KERNELS_H
#define CRYO_HALO_KERNELS_H

#include "cryo_block.h"

#define CRYO_HALO_MAX_FIELDS 4

/* Where the line of cryo_halo_line_copy lies in a field: point p at
 * cryo_halo_line_base + p * cryo_halo_line_step (points; times nlev for values). */
static inline long cryo_halo_line_step(const cryo_block *b, cryo_location loc, int axis) {
  return axis == 0 ? b->nx + 2 + (loc == CRYO_AT_NODE) : 1;
}
static inline long cryo_halo_line_base(const cryo_block *b, cryo_location loc, int axis, int index,
                                       int first) {
  const long row = cryo_halo_line_step(b, loc, 0);
  return axis == 0 ? (long)(first + 1) * row + (index + 1) : (long)(index + 1) * row + (first + 1);
}

/* Copy one line of points of up to CRYO_HALO_MAX_FIELDS fields (unused ones
 * NULL) into buf, or back (unpack = 1). axis 0: the column i = index, rows
 * j in [first, first + count); axis 1: the row j = index, columns i in
 * [first, first + count). buf holds field f, point p, level k at
 * (f * count + p) * nlev + k. */
void cryo_halo_line_copy(const cryo_block *b, cryo_location loc, int axis, int index, int first,
                         int count, int nlev, double *f0, double *f1, double *f2, double *f3,
                         double *buf, int unpack);

#endif
