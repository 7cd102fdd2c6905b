/* Reading cell-centred input fields (masks, initial states, geometry) from
 * NetCDF: one (y, x) variable of the global grid, read on rank 0 and checked
 * there, so that every such file gives the same errors. */
#include "cryo_impl.h"

#include <math.h>
#include <netcdf.h>
#include <stdlib.h>

int cryo_read_global_cells(cryo_component *c, int ncid, const char *path, const char *what,
                           const char *var, int optional, double lo, double hi, double *global,
                           int *found) {
  const cryo_block *b = &c->grid.block;
  int id, ndims, dims[NC_MAX_VAR_DIMS];
  size_t len[2] = {0, 0};
  *found = nc_inq_varid(ncid, var, &id) == NC_NOERR;
  if (!*found) {
    CRYO_CHECK(optional, &c->err, CRYO_ERR_MISSING, "%s %s: no variable '%s'", what, path, var);
    return CRYO_OK;
  }
  nc_inq_varndims(ncid, id, &ndims);
  nc_inq_vardimid(ncid, id, dims);
  if (ndims == 2) nc_inq_dimlen(ncid, dims[0], &len[0]), nc_inq_dimlen(ncid, dims[1], &len[1]);
  CRYO_CHECK(ndims == 2 && (int)len[0] == b->ny_global && (int)len[1] == b->nx_global, &c->err,
             CRYO_ERR_FORMAT,
             "%s %s: '%s' must be (y, x) = (%d, %d) cell centres, found %d dimensions (%zu, %zu)",
             what, path, var, b->ny_global, b->nx_global, ndims, len[0], len[1]);
  int s = nc_get_var_double(ncid, id, global);
  CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_NETCDF, "%s %s: '%s': %s", what, path, var,
             nc_strerror(s));
  size_t n = (size_t)b->nx_global * b->ny_global;
  for (size_t q = 0; q < n; ++q)
    CRYO_CHECK(isfinite(global[q]) && global[q] >= lo && global[q] <= hi, &c->err, CRYO_ERR_DATA,
               "%s %s: '%s' at (y, x) = (%zu, %zu) is %g, must be in [%g, %g]", what, path, var,
               q / b->nx_global, q % b->nx_global, global[q], lo, hi);
  return CRYO_OK;
}

int cryo_read_cell_fields(cryo_component *c, const char *path, const char *what, int count,
                          const char *const *vars, const double *lo, const double *hi,
                          cryo_field *const *fields) {
  const cryo_block *b = &c->grid.block;
  size_t n = (size_t)b->nx_global * b->ny_global;
  double *global = malloc(n * sizeof *global);
  double *local = malloc((size_t)CRYO_NCELL(b) * sizeof *local);
  int status = global && local
                   ? CRYO_OK
                   : CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory reading %s", path);
  int ncid = -1;
  if (c->rank == 0 && status == CRYO_OK) {
    int s = nc_open(path, NC_NOWRITE, &ncid);
    if (s != NC_NOERR)
      status = CRYO_ERROR(&c->err, CRYO_ERR_FILE, "%s %s: %s", what, path, nc_strerror(s));
  }
  status = cryo_status_agree(c, status);
  for (int k = 0; k < count && status == CRYO_OK; ++k) {
    int found;
    if (c->rank == 0)
      status =
          cryo_read_global_cells(c, ncid, path, what, vars[k], 0, lo[k], hi[k], global, &found);
    status = cryo_status_from_root(c, status);
    if (status == CRYO_OK)
      status = cryo_status_agree(
          c, cryo_grid_scatter(&c->grid, CRYO_AT_CELL, 1, global, local, &c->err));
    /* The value goes into level 0 (the cell mean) of the field. */
    for (long q = 0; status == CRYO_OK && q < CRYO_NCELL(b); ++q)
      fields[k]->host[q * fields[k]->nlev] = local[q];
  }
  if (ncid >= 0) nc_close(ncid);
  free(global);
  free(local);
  return status;
}
