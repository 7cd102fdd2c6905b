/* A cryodyn grid file as the toy ocean's own grid (examples/toy_ocean.c
 * --gridfile): the toy then sits on the very cells of the ice model, a global
 * tripolar grid included, as an ocean model that hosts cryodyn on its grid does
 * (docs/global.md, Coupling through OASIS). */
#ifndef TOY_GRIDFILE_H
#define TOY_GRIDFILE_H

#include "toy_partner.h" /* cryo_err and the statuses, as every toy partner has them */

/* A grid file's cells, x fastest (q = j nx + i). */
typedef struct toy_gridfile {
  int nx, ny;
  int periodic_x;      /* global attribute periodic_x */
  char fold;           /* global attribute north_fold: 'T', 'F', or 0 for none */
  double *lon, *lat;   /* centres, degrees */
  double *clon, *clat; /* corners, degrees, corner k of cell q at k nx ny + q, counterclockwise */
  double *area;        /* m2, the file's variable area */
  int *oasis_mask;     /* OASIS's convention: 0 valid, 1 masked (land and a T fold's copies) */
} toy_gridfile;

/* Read `path` (lon, lat, lon_bnds, lat_bnds and area are required, mask and the
 * topology attributes optional). Each corner's longitude is moved by whole turns
 * to within 180 degrees of its cell's centre, and the cells OASIS must not see
 * are masked with the rule cryodyn's own grid description follows
 * (coupling/exchange_oasis.c): land (mask 0) and, on a T fold, the copies
 * (i > nx/2, ny - 1) of the top row's cells. CRYO_ERR_FILE, CRYO_ERR_FORMAT,
 * CRYO_ERR_NETCDF or CRYO_ERR_MEMORY naming the file and what is wrong. */
int toy_gridfile_read(const char *path, toy_gridfile *g, cryo_err *err);

/* Free what toy_gridfile_read allocated; g may be partly filled. */
void toy_gridfile_free(toy_gridfile *g);

#endif
