/* CF-1.8 NetCDF-4 output, gathered to rank 0 (DESIGN.md section 8): one
 * record per output time, coordinates x, y at cell centres and x_node,
 * y_node at cell corners, a `time` axis in seconds since the start date. */
#include "cryo_impl.h"

#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cryo_output {
  int ncid;
  int time_var;
  int var[CRYO_MAX_OUTPUT];
  size_t nrec;
};

#define NC_TRY(c, expr, what)                                                                      \
  do {                                                                                             \
    int nc_try_status_ = (expr);                                                                   \
    if (nc_try_status_ != NC_NOERR)                                                                \
      return CRYO_ERROR(&(c)->err, CRYO_ERR_NETCDF, "%s: %s: %s", (c)->cfg.run.output_file, what,  \
                        nc_strerror(nc_try_status_));                                              \
  } while (0)

static int put_text(cryo_component *c, int ncid, int var, const char *name, const char *value) {
  if (!value || !value[0]) return CRYO_OK;
  NC_TRY(c, nc_put_att_text(ncid, var, name, strlen(value), value), name);
  return CRYO_OK;
}

static int write_axis(cryo_component *c, int ncid, int var, int n, double step, double shift) {
  double *v = malloc((size_t)n * sizeof *v);
  CRYO_CHECK(v, &c->err, CRYO_ERR_MEMORY, "out of memory writing coordinates");
  for (int i = 0; i < n; ++i)
    v[i] = (i + shift) * step;
  int s = nc_put_var_double(ncid, var, v);
  free(v);
  NC_TRY(c, s, "writing a coordinate");
  return CRYO_OK;
}

/* Create the file and define every variable (rank 0). */
static int output_create(cryo_component *c) {
  cryo_output *o = calloc(1, sizeof *o);
  CRYO_CHECK(o, &c->err, CRYO_ERR_MEMORY, "out of memory for the output file");
  c->output = o;
  o->ncid = -1;
  const char *path = c->cfg.run.output_file;
  NC_TRY(c, nc_create(path, NC_NETCDF4 | NC_CLOBBER, &o->ncid), "creating the file");
  int ncid = o->ncid;
  const cryo_block *b = &c->grid.block;
  int dt, dx, dy, dxn, dyn, dz = -1;
  NC_TRY(c, nc_def_dim(ncid, "time", NC_UNLIMITED, &dt), "defining time");
  NC_TRY(c, nc_def_dim(ncid, "x", (size_t)b->nx_global, &dx), "defining x");
  NC_TRY(c, nc_def_dim(ncid, "y", (size_t)b->ny_global, &dy), "defining y");
  NC_TRY(c, nc_def_dim(ncid, "x_node", (size_t)b->nx_global + 1, &dxn), "defining x_node");
  NC_TRY(c, nc_def_dim(ncid, "y_node", (size_t)b->ny_global + 1, &dyn), "defining y_node");
  if (c->nlevels > 0)
    NC_TRY(c, nc_def_dim(ncid, "level", (size_t)c->nlevels, &dz), "defining level");

  struct {
    const char *name, *std, *lname;
    int dim;
    int id;
  } axes[4] = {{"x", "projection_x_coordinate", "x of cell centres", dx, 0},
               {"y", "projection_y_coordinate", "y of cell centres", dy, 0},
               {"x_node", "projection_x_coordinate", "x of cell corners", dxn, 0},
               {"y_node", "projection_y_coordinate", "y of cell corners", dyn, 0}};
  for (int a = 0; a < 4; ++a) {
    NC_TRY(c, nc_def_var(ncid, axes[a].name, NC_DOUBLE, 1, &axes[a].dim, &axes[a].id),
           axes[a].name);
    CRYO_CALL(put_text(c, ncid, axes[a].id, "units", "m"));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "standard_name", axes[a].std));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "long_name", axes[a].lname));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "axis", a % 2 ? "Y" : "X"));
  }
  char units[96], start[32];
  cryo_date_format(c->clock.start, start, sizeof start);
  snprintf(units, sizeof units, "seconds since %s", start);
  NC_TRY(c, nc_def_var(ncid, "time", NC_DOUBLE, 1, &dt, &o->time_var), "defining time");
  CRYO_CALL(put_text(c, ncid, o->time_var, "units", units));
  CRYO_CALL(put_text(c, ncid, o->time_var, "calendar", cryo_calendar_name(c->clock.calendar)));
  CRYO_CALL(put_text(c, ncid, o->time_var, "standard_name", "time"));
  CRYO_CALL(put_text(c, ncid, o->time_var, "axis", "T"));
  if (dz >= 0) {
    int zid;
    NC_TRY(c, nc_def_var(ncid, "level", NC_DOUBLE, 1, &dz, &zid), "defining level");
    CRYO_CALL(put_text(c, ncid, zid, "long_name",
                       "terrain-following level, 0 at the bed, 1 at the surface"));
    CRYO_CALL(put_text(c, ncid, zid, "units", "1"));
    CRYO_CALL(put_text(c, ncid, zid, "positive", "up"));
  }
  for (int v = 0; v < c->noutvars; ++v) {
    const cryo_output_var *ov = &c->outvars[v];
    const cryo_field *f = &c->fields[ov->field];
    int node = f->loc == CRYO_AT_NODE;
    int dims[4], nd = 0;
    dims[nd++] = dt;
    if (ov->count > 1) dims[nd++] = dz;
    dims[nd++] = node ? dyn : dy;
    dims[nd++] = node ? dxn : dx;
    NC_TRY(c, nc_def_var(ncid, ov->name, NC_DOUBLE, nd, dims, &o->var[v]), ov->name);
    CRYO_CALL(put_text(c, ncid, o->var[v], "units", ov->units));
    CRYO_CALL(put_text(c, ncid, o->var[v], "standard_name", ov->standard_name));
    CRYO_CALL(put_text(c, ncid, o->var[v], "long_name", ov->long_name));
    CRYO_CALL(put_text(c, ncid, o->var[v], "coordinates", node ? "y_node x_node" : "y x"));
  }
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "title", c->model->name));
  char source[64];
  snprintf(source, sizeof source, "cryodyn %s", cryo_version());
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "source", source));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "namelist_file", c->cfg.source));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "namelist", c->namelist_text));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "warnings", c->cfg.warnings));
  NC_TRY(c, nc_enddef(ncid), "ending definitions");
  CRYO_CALL(write_axis(c, ncid, axes[0].id, b->nx_global, b->dx, 0.5));
  CRYO_CALL(write_axis(c, ncid, axes[1].id, b->ny_global, b->dy, 0.5));
  CRYO_CALL(write_axis(c, ncid, axes[2].id, b->nx_global + 1, b->dx, 0.0));
  CRYO_CALL(write_axis(c, ncid, axes[3].id, b->ny_global + 1, b->dy, 0.0));
  if (dz >= 0) {
    int zid;
    NC_TRY(c, nc_inq_varid(ncid, "level", &zid), "level");
    CRYO_CALL(write_axis(c, ncid, zid, c->nlevels, 1.0 / (c->nlevels - 1), 0.0));
  }
  return CRYO_OK;
}

/* Rank 0: write record o->nrec of variable v from the gathered field. */
static int write_var(cryo_component *c, int v, const double *global) {
  const cryo_output_var *ov = &c->outvars[v];
  const cryo_field *f = &c->fields[ov->field];
  const cryo_block *b = &c->grid.block;
  int node = f->loc == CRYO_AT_NODE;
  size_t gx = (size_t)b->nx_global + node, gy = (size_t)b->ny_global + node;
  size_t npts = gx * gy;
  double *out = malloc(npts * (size_t)ov->count * sizeof *out);
  CRYO_CHECK(out, &c->err, CRYO_ERR_MEMORY, "out of memory writing '%s'", ov->name);
  for (int k = 0; k < ov->count; ++k)
    for (size_t p = 0; p < npts; ++p)
      out[(size_t)k * npts + p] = global[p * f->nlev + ov->offset + k * ov->stride];
  size_t startv[4] = {c->output->nrec, 0, 0, 0}, countv[4] = {1, 0, 0, 0};
  int nd = 1;
  if (ov->count > 1) countv[nd++] = (size_t)ov->count;
  countv[nd++] = gy;
  countv[nd++] = gx;
  int s = nc_put_vara_double(c->output->ncid, c->output->var[v], startv, countv, out);
  free(out);
  NC_TRY(c, s, ov->name);
  return CRYO_OK;
}

int cryo_output_write(cryo_component *c) {
  int status = c->model->diagnose ? c->model->diagnose(c) : CRYO_OK;
  if (status == CRYO_OK && c->rank == 0 && !c->output) status = output_create(c);
  const cryo_block *b = &c->grid.block;
  size_t most = (size_t)(b->nx_global + 1) * (b->ny_global + 1);
  int maxlev = 1;
  for (int v = 0; v < c->noutvars; ++v)
    if (c->fields[c->outvars[v].field].nlev > maxlev) maxlev = c->fields[c->outvars[v].field].nlev;
  double *global = c->rank == 0 ? malloc(most * (size_t)maxlev * sizeof *global) : NULL;
  if (c->rank == 0 && !global && status == CRYO_OK)
    status = CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory writing output");
  /* Every rank takes part in every gather, whatever rank 0's status. */
  for (int v = 0; v < c->noutvars; ++v) {
    cryo_field *f = &c->fields[c->outvars[v].field];
    cryo_field_to_host(c, f);
    int s = cryo_grid_gather(&c->grid, f->loc, f->nlev, f->host, global, &c->err);
    if (status == CRYO_OK) status = s;
    if (c->rank == 0 && status == CRYO_OK) status = write_var(c, v, global);
  }
  free(global);
  if (c->rank == 0 && status == CRYO_OK) {
    double t = (double)c->clock.time;
    size_t at = c->output->nrec;
    int s = nc_put_var1_double(c->output->ncid, c->output->time_var, &at, &t);
    if (s == NC_NOERR) s = nc_sync(c->output->ncid);
    if (s != NC_NOERR)
      status = CRYO_ERROR(&c->err, CRYO_ERR_NETCDF, "%s: writing time: %s", c->cfg.run.output_file,
                          nc_strerror(s));
    c->output->nrec++;
  }
  return status;
}

void cryo_output_close(cryo_component *c) {
  if (!c->output) return;
  if (c->output->ncid >= 0) nc_close(c->output->ncid);
  free(c->output);
  c->output = NULL;
}
