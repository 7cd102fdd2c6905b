/* Grid files (&cryo_grid grid_file; namelists/README.md, Grid files): the
 * cells of a logically rectangular grid, on the sphere (longitude and
 * latitude in degrees) or in a plane (x and y in metres), with their corners
 * as CF bounds. Every rank reads its own block with two rings of nodes around
 * it (the node frames of kernels/seaice.h need them) and checks what it read;
 * every problem is an error naming the file, the variable and the cell. */
#ifndef CRYO_GRIDFILE_H
#define CRYO_GRIDFILE_H

#include "cryo_block.h"
#include "cryo_error.h"
#include "seaice.h"

/* Global size of the grid in a file and whether it lies on the sphere. */
int cryo_gridfile_inquire(const char *path, int *nx, int *ny, int *spherical, cryo_err *err);
/* How the grid in a file closes (docs/design.md, Folded grids): its global
 * attributes periodic_x (0 or 1) and north_fold (CRYO_FOLD_NONE, _T, _F). */
int cryo_gridfile_inquire_topology(const char *path, int *periodic_x, cryo_fold *fold,
                                   cryo_err *err);

/* Ocean cells (mask 1) of the grid file per column of cells (col[nx]) and per
 * row (row[ny]); *has_mask = 0, and nothing counted, when the file has no
 * mask. Read a band of rows at a time. Values other than 0 and 1 are left to
 * cryo_gridfile_read to name; here they count as land. */
int cryo_gridfile_ocean_counts(const char *path, long *col, long *row, int *has_mask,
                               cryo_err *err);

/* What a rank holds of a grid file. Outside the domain (beyond the edges of a
 * non-periodic grid) every *_ok is 0 and the values are 0. */
typedef struct cryo_gridfile {
  cryo_seaice_grid_points points; /* positions for cryo_seaice_geometry (arrays below) */
  double *node_x, *node_y;        /* nodes of the two rings, layout of points.node_x */
  unsigned char *node_ok;
  double *cell_x, *cell_y; /* centres, block layout (CRYO_CELL), halo ring included */
  unsigned char *cell_ok;
  /* corners of the cells read, 4 values each, counterclockwise from (i, j) as in CF: owned cell
   * (i, j) at [(corner_first + j * corner_row + i) * 4] (cryo_grid_gather_cells) */
  double *corner_x, *corner_y;
  long corner_first, corner_row;
  double *mask;          /* the file's mask variable (1 ocean, 0 land), 1 where it has none */
  double *area;          /* the file's cell area, m2, NAN where it has none */
  double check_seconds;  /* wall time of the checks of what was read, s */
  double layout_seconds; /* wall time of filling the block layouts above, s */
} cryo_gridfile;

/* Read and check this rank's part of the grid file `path` for block b (whose
 * nx_global, ny_global must be the file's). radius (m), omega (s-1) and
 * f_plane (s-1) go to gf->points. `source` names the setting in messages
 * ("&cryo_grid grid_file"). */
int cryo_gridfile_read(const char *path, const char *source, const cryo_block *b, double radius,
                       double omega, double f_plane, cryo_gridfile *gf, cryo_err *err);
void cryo_gridfile_free(cryo_gridfile *gf);

#endif
