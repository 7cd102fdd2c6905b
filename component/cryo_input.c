/* Reading cell-centred input fields (masks, initial states, geometry) from
 * NetCDF: one (y, x) variable of the global grid, read on rank 0 and checked
 * there, so that every such file gives the same errors. */
#include "cryo_input.h"

#include "cryo_impl.h"

#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cryo_ncvar.h"

/* Dimensions (y, x) by name and size, or (layer, y, x) with nlev layers
 * when nlev > 0: a mask stored as (x, y) on a square grid has the right
 * sizes but would be read transposed. */
static int check_dims(cryo_component *c, int ncid, int id, const char *path, const char *what,
                      const char *var, int nlev) {
  const cryo_block *b = &c->grid.block;
  int ndims = 0, dims[NC_MAX_VAR_DIMS];
  int s = nc_inq_varndims(ncid, id, &ndims);
  if (s == NC_NOERR) s = nc_inq_vardimid(ncid, id, dims);
  /* "y, x = 4, 4": the names and sizes found, for the message */
  char names[4 * (NC_MAX_NAME + 2)] = "", sizes[4 * 24] = "";
  const int lead = nlev > 0;
  int ok = ndims == 2 + lead;
  for (int k = 0; k < ndims && k < 4 && s == NC_NOERR; ++k) {
    char name[NC_MAX_NAME + 1];
    size_t len;
    s = nc_inq_dimname(ncid, dims[k], name);
    if (s == NC_NOERR) s = nc_inq_dimlen(ncid, dims[k], &len);
    if (s != NC_NOERR) break;
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", name);
    snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu", k ? ", " : "", len);
    if (lead && k == 0)
      ok = ok && !strcmp(name, "layer") && (long)len == nlev;
    else if (k < 2 + lead)
      ok = ok && !strcmp(name, k > lead ? "x" : "y") &&
           (long)len == (k > lead ? b->nx_global : b->ny_global);
  }
  CRYO_NC(s, &c->err, "%s %s: '%s'", what, path, var);
  char want[64];
  snprintf(want, sizeof want, "%d, ", nlev);
  CRYO_CHECK(ok, &c->err, CRYO_ERR_FORMAT,
             "%s %s: '%s' has dimensions (%s%s) = (%s); it must be (%sy, x) = (%s%d, %d) cell "
             "centres (dimension names %sy and x, as cryodyn writes them)",
             what, path, var, names, ndims > 4 ? ", ..." : "", sizes, lead ? "layer, " : "",
             lead ? want : "", b->ny_global, b->nx_global, lead ? "layer, " : "");
  return CRYO_OK;
}

/* The variable's units attribute is `units` exactly: values in other units
 * would be read as if they were in these. */
static int check_units(cryo_component *c, int ncid, int id, const char *where, const char *units) {
  char got[NC_MAX_NAME + 1] = "";
  size_t len = 0;
  nc_type type = NC_NAT;
  int s = nc_inq_att(ncid, id, "units", &type, &len);
  CRYO_CHECK(s == NC_NOERR && type == NC_CHAR && len < sizeof got, &c->err, CRYO_ERR_FORMAT,
             "%s: no text attribute 'units'; it must be units = \"%s\"", where, units);
  CRYO_NC(nc_get_att_text(ncid, id, "units", got), &c->err, "%s: units", where);
  CRYO_CHECK(!strcmp(got, units), &c->err, CRYO_ERR_FORMAT, "%s: units \"%s\", must be \"%s\"",
             where, got, units);
  return CRYO_OK;
}

int cryo_read_global_cells(cryo_component *c, int ncid, const char *path, const char *what,
                           const char *var, int optional, double lo, double hi, double *global,
                           int *found) {
  return cryo_read_global_layers(c, ncid, path, what, var, 0, NULL, optional, lo, hi, global,
                                 found);
}

int cryo_read_global_layers(cryo_component *c, int ncid, const char *path, const char *what,
                            const char *var, int nlev, const char *units, int optional, double lo,
                            double hi, double *global, int *found) {
  const cryo_block *b = &c->grid.block;
  int id;
  *found = nc_inq_varid(ncid, var, &id) == NC_NOERR;
  if (!*found) {
    CRYO_CHECK(optional, &c->err, CRYO_ERR_MISSING, "%s %s: no variable '%s'", what, path, var);
    return CRYO_OK;
  }
  CRYO_CALL(check_dims(c, ncid, id, path, what, var, nlev));
  char where[CRYO_ERR_MSG_LEN / 2];
  snprintf(where, sizeof where, "%s %s: '%s'", what, path, var);
  if (units) CRYO_CALL(check_units(c, ncid, id, where, units));
  cryo_ncvar nv;
  CRYO_CALL(cryo_ncvar_open(&nv, ncid, id, where, &c->err));
  int s = nc_get_var_double(ncid, id, global);
  CRYO_NC(s, &c->err, "%s", where);
  long n = (long)b->nx_global * b->ny_global, nall = n * (nlev > 0 ? nlev : 1);
  const char *fill;
  long bad = cryo_ncvar_unpack(&nv, global, nall, &fill);
  /* "layer 2, " before (y, x) where the variable has layers */
  char at[32] = "";
  if (nlev > 0 && bad >= 0) snprintf(at, sizeof at, "layer %ld, ", bad / n);
  CRYO_CHECK(bad < 0 || fill, &c->err, CRYO_ERR_DATA,
             "%s at %s(y, x) = (%ld, %ld): non-finite value %g", where, at, bad % n / b->nx_global,
             bad % b->nx_global, global[bad]);
  CRYO_CHECK(bad < 0, &c->err, CRYO_ERR_DATA, "%s at %s(y, x) = (%ld, %ld): fill value %g (%s)",
             where, at, bad % n / b->nx_global, bad % b->nx_global, global[bad], fill);
  for (long q = 0; q < nall; ++q) {
    if (nlev > 0) snprintf(at, sizeof at, "layer %ld, ", q / n);
    CRYO_CHECK(global[q] >= lo && global[q] <= hi, &c->err, CRYO_ERR_DATA,
               "%s at %s(y, x) = (%ld, %ld) is %g%s%s, must be in [%g, %g]", where, at,
               q % n / b->nx_global, q % b->nx_global, global[q], units ? " " : "",
               units ? units : "", lo, hi);
  }
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
    if (s != NC_NOERR) status = cryo_nc_error(s, CRYO_ERR_FILE, &c->err, "%s %s", what, path);
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
    /* The value goes into level 0 (the cell mean) of the field; the scatter
     * fills the owned cells only, so the halo ring of local holds whatever
     * the heap held and must not be copied. */
    for (int j = 0; status == CRYO_OK && j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i) {
        long q = CRYO_CELL(b, i, j);
        fields[k]->host[q * fields[k]->nlev] = local[q];
      }
  }
  if (ncid >= 0) nc_close(ncid);
  free(global);
  free(local);
  return status;
}
