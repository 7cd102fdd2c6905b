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

/* The lines of one axis that a halo exchange copies before its messages
 * (stage 0: pack the lines sent, copy those of a periodic wrap onto this
 * rank) or after them (stage 1: unpack the lines received, repeat the
 * nearest owned line at a clamped edge), both directions in one launch.
 * Line d is count points of up to CRYO_HALO_MAX_FIELDS fields (unused ones
 * NULL) from point from[d] to point to[d] (cryo_halo_line_base) with stride
 * step; -1 names line d's buffer buf[d] instead of a field (field f, point
 * p, level k at (f * count + p) * nlev + k; a buffer of this rank, or the
 * receive buffer of a rank of the same node, mapped here); both -1: line d
 * is not copied. 8-byte members only (they live on the device too:
 * kernels/cryo_acc.h, no-map launches). */
typedef struct cryo_halo_lines {
  double *f[CRYO_HALO_MAX_FIELDS];
  double *buf[2];
  long nfield, nlev, count, step;
  long from[2], to[2];
  long values; /* values the launch visits: set by cryo_halo_lines_copy */
} cryo_halo_lines;

/* Queue the copies of a on the device (a CPU build copies at once). axis,
 * stage and parity (each 0 or 1; the parity of the exchange, whose lines
 * between ranks of one node alternate between two buffers) pick one of
 * eight argument sets kept on the device, so that an exchange repeated with
 * the same fields, the mEVP sub-step's, sends no arguments. Whoever hands a
 * buffer to MPI, to the host or to another rank waits first
 * (services/cryo_device.c waits before any copy). */
void cryo_halo_lines_copy(const cryo_halo_lines *a, int axis, int stage, int parity);

/* The north fold (cryo_fold, docs/design.md, Folded grids) on a grid of
 * nxg x nyg cells (nxg even), in global indices with i wrapped to [0, nxg):
 * returns 1 and the point (*si, *sj) whose value (times -1 for a vector
 * component in the grid frame) point (i, j) takes, or 0 where the fold does
 * not write (i, j). The halo rows above the top take the mirror image of the
 * rows below the fold line; the points that the fold line maps onto other
 * owned points (half of the row it crosses, pivots excluded) take the values
 * of the other half, so that the two copies of a point agree to the bit.
 *   F pivot: cells (i, nyg) <- (nxg-1-i, nyg-1); nodes (i, nyg+1) <- (nxg-i, nyg-1),
 *            nodes (i, nyg) <- (nxg-i, nyg) for i > nxg/2;
 *   T pivot: cells (i, nyg) <- (nxg-i, nyg-2), cells (i, nyg-1) <- (nxg-i, nyg-1) for
 *            i > nxg/2; nodes (i, nyg+1) <- (nxg+1-i, nyg-2), (i, nyg) <- (nxg+1-i, nyg-1).
 * (NEMO's lbc_nfd, its indices shifted by its two cyclic columns.) */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline int cryo_halo_fold_source(int fold, cryo_location loc, int nxg, int nyg, int i, int j,
                                        int *si, int *sj) {
  const int node = loc == CRYO_AT_NODE, t = fold == CRYO_FOLD_T;
  const int shift = t ? node : -!node; /* mirror: i -> nxg + shift - i */
  const int top = nyg + node;          /* first row above the fold's own */
  *si = (nxg + shift - i + nxg) % nxg;
  if (j == top) {
    *sj = t ? nyg - 2 : nyg - 1;
    return 1;
  }
  if (j != top - 1) return 0;
  /* T nodes: the fold line runs through the cells of row nyg - 1, so the
   * top node row is the mirror of the one below it */
  *sj = t && node ? nyg - 1 : j;
  return (t && node) || ((t || node) && i > nxg / 2);
}

/* Whether owned cell (i, j) (global indices) takes the flux through its
 * north face from the cell across the fold, as that cell computes it
 * through its own north face, so that the face has one flux to the bit
 * (docs/seaice.md, The north fold). Each face of an F fold is the north face
 * of cells i and nxg-1-i: those with i >= nxg/2 take it. The north face of a
 * T fold's cell 0 < i < nxg/2 is the north face of cell (nxg-i, nyg-2),
 * below its copy: the cell takes it from there. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline int cryo_halo_fold_face(int fold, int nxg, int nyg, int i, int j) {
  if (!fold || j != nyg - 1) return 0;
  return fold == CRYO_FOLD_F ? i >= nxg / 2 : i > 0 && i < nxg / 2;
}

/* The first of the two global rows from which the fold takes its values. */
static inline int cryo_halo_fold_row0(int fold, cryo_location loc, int nyg) {
  return fold == CRYO_FOLD_F && loc == CRYO_AT_NODE ? nyg - 1 : nyg - 2;
}

/* Copy the owned columns [0, nx) of the two rows from global row
 * cryo_halo_fold_row0 of up to CRYO_HALO_MAX_FIELDS fields into buf, column
 * slowest: buf[((i * 2 + r) * nfield + f) * nlev + k], so that the buffers of
 * the ranks of the top process row, laid end to end in x order, are the
 * global rows. Run on the ranks of the top process row. */
void cryo_halo_fold_pack(const cryo_block *b, cryo_location loc, int nlev, double *f0, double *f1,
                         double *f2, double *f3, double *buf);
/* Write every point of this block (halo included) that the fold writes
 * (cryo_halo_fold_source) from rows, the global rows as packed by
 * cryo_halo_fold_pack; level k changes sign where bit k of flip is set. */
void cryo_halo_fold_unpack(const cryo_block *b, cryo_location loc, int nlev, unsigned flip,
                           double *f0, double *f1, double *f2, double *f3, const double *rows);

/* A halo that this rank fills alone (one rank in x and y: each side wraps
 * onto the block itself, or is a closed edge), in one launch that reads every
 * halo point's value where the general exchange would finally have taken it
 * from: x over the owned rows, then y over whole rows, then the north fold.
 * How each side fills, after the general path's order: */
enum { CRYO_HALO_SIDE_LEFT = 0, CRYO_HALO_SIDE_WRAP = 1, CRYO_HALO_SIDE_CLAMP = 2 };

/* The arguments of cryo_halo_local_fill, 8-byte members only (they live on
 * the device too: kernels/cryo_acc.h, no-map launches). side: west, east,
 * south, north, each a CRYO_HALO_SIDE_*. */
typedef struct cryo_halo_local {
  double *f[CRYO_HALO_MAX_FIELDS];
  long nfield, nlev, flip, node;
  long nx, ny, i0, j0, nxg, nyg, fold;
  long side[4];
  long points; /* points the launch visits: set by cryo_halo_local_fill */
} cryo_halo_local;

/* The point (*si, *sj) (block indices) whose value point (i, j) of the halo
 * ring, or of the rows the fold writes, ends with after the general exchange:
 * returns 0 where that leaves (i, j) alone, 1 for a copy, -1 for a copy that
 * takes the fold's sign. The fold writes last, from owned points it never
 * writes; below it, a y halo row takes row *sj as x left it, and an x halo
 * column of an owned row takes column *si. A source is never a point the
 * fill writes: x sources lie in the same wrapped global column as their halo
 * point, so the fold writes both or neither, and the south halo reads row 0
 * (blocks have at least 2 rows) while the fold rewrites all of the north halo. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline int cryo_halo_local_source(const cryo_halo_local *a, int i, int j, int *si, int *sj) {
  const int nx = (int)a->nx, ny = (int)a->ny, node = (int)a->node;
  const int xe = nx + node, ye = ny + node; /* the east and north halo lines */
  if (a->fold) {
    const int nxg = (int)a->nxg, gi = (((int)a->i0 + i) % nxg + nxg) % nxg;
    if (cryo_halo_fold_source((int)a->fold, node ? CRYO_AT_NODE : CRYO_AT_CELL, nxg, (int)a->nyg,
                              gi, (int)a->j0 + j, si, sj)) {
      *si -= (int)a->i0;
      *sj -= (int)a->j0;
      return -1;
    }
  }
  *si = i;
  *sj = j;
  if (j == -1 || j == ye) {
    const long side = a->side[j == -1 ? 2 : 3];
    if (side == CRYO_HALO_SIDE_LEFT) return 0;
    const int wrap = side == CRYO_HALO_SIDE_WRAP;
    *sj = j == -1 ? (wrap ? ny - 1 : 0) : (wrap ? node : ye - 1);
  }
  if (i == -1 || i == xe) {
    const long side = a->side[i == -1 ? 0 : 1];
    const int wrap = side == CRYO_HALO_SIDE_WRAP;
    if (side != CRYO_HALO_SIDE_LEFT) *si = i == -1 ? (wrap ? nx - 1 : 0) : (wrap ? node : xe - 1);
  }
  return *si != i || *sj != j;
}

/* Fill the halo described by a (cryo_halo_local_source) in one launch for up
 * to CRYO_HALO_MAX_FIELDS fields, level k of a fold's copies changing sign
 * where bit k of a->flip is set. Queued behind the kernels queued before it
 * (kernels/cryo_acc.h): nothing waits. */
void cryo_halo_local_fill(const cryo_halo_local *a);

#endif
