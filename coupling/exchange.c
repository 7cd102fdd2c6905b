/* The parts of the exchange layer that every provider shares
 * (docs/design.md, Coupling): provider selection (the table of coupling
 * fields is base/cryo_fields.c), argument checks, and the halo that fills the
 * ring of get's buffer for providers that only know this rank's owned cells
 * (the services' halo exchange on host arrays, clamped at the domain edge). */
#ifdef HAVE_CONFIG_H
#include "config.h" /* CRYO_HAVE_OASIS */
#endif

#include "cryo_exchange.h"
#include "cryo_mpi.h"

#include <stdlib.h>
#include <string.h>

static const char *const model_names[] = {"seaice", "landice"};

int cryo_exchange_field_find(const char *name, int *field, cryo_err *err) {
  CRYO_CHECK(name && field, err, CRYO_ERR_ARG, "cryo_exchange_field_find: NULL argument");
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    const cryo_field_info *fi = &cryo_exchange_fields[f];
    if (strcmp(name, fi->name) == 0 ||
        (fi->standard_name[0] && strcmp(name, fi->standard_name) == 0)) {
      *field = f;
      return CRYO_OK;
    }
  }
  return CRYO_ERROR(err, CRYO_ERR_UNKNOWN,
                    "unknown coupling field '%s' (give a short name such as 'uwind' or a CF "
                    "standard name such as 'sea_ice_thickness')",
                    name);
}

#ifndef CRYO_HAVE_OASIS
/* Builds without --with-oasis have no exchange_oasis.c; say which flag adds it. */
int cryo_exchange_oasis_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  (void)x;
  (void)cfg;
  return CRYO_ERROR(err, CRYO_ERR_UNSUPPORTED,
                    "forcing = 'oasis': this cryodyn was built without OASIS3-MCT; "
                    "reconfigure with --with-oasis[=DIR]");
}
#endif

static const struct {
  const char *name;
  int (*create)(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err);
} providers[] = {
    {"netcdf", cryo_exchange_netcdf_create},
    {"host", cryo_exchange_host_create},
    {"oasis", cryo_exchange_oasis_create},
};

static int check_block(const cryo_block *b, cryo_err *err) {
  CRYO_CHECK(b->nx >= 1 && b->ny >= 1 && b->i0 >= 0 && b->j0 >= 0 &&
                 b->i0 + b->nx <= b->nx_global && b->j0 + b->ny <= b->ny_global,
             err, CRYO_ERR_ARG,
             "exchange: block of %d x %d cells at (%d, %d) does not fit the %d x %d grid", b->nx,
             b->ny, b->i0, b->j0, b->nx_global, b->ny_global);
  return CRYO_OK;
}

/* A folded grid's halo gathers the rows next to the fold within the top
 * process row: the exchange's grid gets its own copy of that row's
 * communicator and of the blocks' first columns. */
static int copy_fold(cryo_exchange *e, const cryo_grid *grid, cryo_err *err) {
  if (!grid->block.fold) return CRYO_OK;
  e->grid.i_start = malloc(sizeof(int) * (size_t)(grid->px_count + 1));
  e->grid.j_start = malloc(sizeof(int) * (size_t)(grid->py_count + 1));
  CRYO_CHECK(e->grid.i_start && e->grid.j_start, err, CRYO_ERR_MEMORY,
             "exchange: out of memory for the blocks of a folded grid");
  memcpy(e->grid.i_start, grid->i_start, sizeof(int) * (size_t)(grid->px_count + 1));
  memcpy(e->grid.j_start, grid->j_start, sizeof(int) * (size_t)(grid->py_count + 1));
  if (grid->fold_comm == MPI_COMM_NULL) return CRYO_OK;
  return cryo_mpi_check(MPI_Comm_dup(grid->fold_comm, &e->grid.fold_comm),
                        "exchange: MPI_Comm_dup (north fold)", err);
}

int cryo_exchange_create(cryo_exchange **x, const char *provider, cryo_model_kind model,
                         const cryo_grid *grid, const cryo_exchange_config *cfg, cryo_err *err) {
  CRYO_CHECK(x && provider && grid && cfg, err, CRYO_ERR_ARG,
             "cryo_exchange_create: NULL argument");
  *x = NULL;
  CRYO_CHECK(model == CRYO_MODEL_SEAICE || model == CRYO_MODEL_LANDICE, err, CRYO_ERR_ARG,
             "cryo_exchange_create: model %d is neither sea ice nor land ice", (int)model);
  CRYO_CALL(check_block(&grid->block, err));
  int p = -1;
  for (int k = 0; k < (int)(sizeof providers / sizeof providers[0]); ++k)
    if (strcmp(provider, providers[k].name) == 0) p = k;
  CRYO_CHECK(p >= 0, err, CRYO_ERR_RANGE,
             "forcing = '%s' is not a known provider; allowed: 'netcdf', 'host', 'oasis'",
             provider);
  cryo_exchange *e = calloc(1, sizeof *e);
  CRYO_CHECK(e, err, CRYO_ERR_MEMORY, "exchange: out of memory");
  e->model = model;
  e->grid = *grid;
  e->grid.i_start = e->grid.j_start = NULL;
  e->grid.fold_comm = MPI_COMM_NULL;
  int mpi_status =
      cryo_mpi_check(MPI_Comm_dup(grid->comm, &e->grid.comm), "exchange: MPI_Comm_dup", err);
  if (mpi_status != CRYO_OK) {
    free(e);
    return mpi_status;
  }
  int status = copy_fold(e, grid, err);
  if (status == CRYO_OK) status = cryo_halo_create(&e->halo, &e->grid, NULL, 1, err);
  if (status == CRYO_OK) {
    cryo_halo_set_clamp(e->halo, 1);
    status = providers[p].create(e, cfg, err);
  }
  if (status != CRYO_OK) {
    cryo_exchange_destroy(&e);
    return status;
  }
  *x = e;
  return CRYO_OK;
}

static int check_field(const cryo_exchange *x, int field, cryo_field_dir dir, const char *what,
                       cryo_err *err) {
  CRYO_CHECK(field >= 0 && field < CRYO_NFIELD, err, CRYO_ERR_ARG,
             "%s: field index %d outside [0, %d)", what, field, CRYO_NFIELD);
  const cryo_field_info *fi = &cryo_exchange_fields[field];
  CRYO_CHECK(fi->model == x->model, err, CRYO_ERR_ARG, "%s: field '%s' belongs to %s, not %s", what,
             fi->name, model_names[fi->model], model_names[x->model]);
  CRYO_CHECK(fi->dir == dir, err, CRYO_ERR_ARG, "%s: field '%s' is an %s field", what, fi->name,
             fi->dir == CRYO_FIELD_IN ? "input" : "output");
  return CRYO_OK;
}

int cryo_exchange_get(cryo_exchange *x, double time, int field, double *buf, cryo_err *err) {
  CRYO_CHECK(x && buf, err, CRYO_ERR_ARG, "cryo_exchange_get: NULL argument");
  CRYO_CALL(check_field(x, field, CRYO_FIELD_IN, "cryo_exchange_get", err));
  return x->ops->get(x, time, field, buf, err);
}

int cryo_exchange_put(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err) {
  CRYO_CHECK(x && buf, err, CRYO_ERR_ARG, "cryo_exchange_put: NULL argument");
  CRYO_CALL(check_field(x, field, CRYO_FIELD_OUT, "cryo_exchange_put", err));
  return x->ops->put(x, time, field, buf, err);
}

int cryo_exchange_get_layers(cryo_exchange *x, double time, int nlev, double *values,
                             cryo_err *err) {
  CRYO_CHECK(x && values, err, CRYO_ERR_ARG, "cryo_exchange_get_layers: NULL argument");
  CRYO_CHECK(x->ops->get_layers, err, CRYO_ERR_STATE,
             "cryo_exchange_get_layers: fields with layers (the land-ice rate factor) come "
             "through forcing = 'oasis' only (this run uses '%s')",
             x->ops->name);
  return x->ops->get_layers(x, time, nlev, values, err);
}

static int check_host_call(const cryo_exchange *x, int field, cryo_field_dir dir, long n,
                           const char *what, cryo_err *err) {
  CRYO_CHECK(x->ops->set_field && x->ops->get_field, err, CRYO_ERR_STATE,
             "%s works with forcing = 'host' only (this run uses '%s')", what, x->ops->name);
  CRYO_CALL(check_field(x, field, dir, what, err));
  long want = (long)x->grid.block.nx * x->grid.block.ny;
  CRYO_CHECK(n == want, err, CRYO_ERR_ARG,
             "%s: field '%s' has %ld values on this rank (%d x %d cells), not %ld", what,
             cryo_exchange_fields[field].name, want, x->grid.block.nx, x->grid.block.ny, n);
  return CRYO_OK;
}

int cryo_exchange_set_field(cryo_exchange *x, int field, const double *values, long n,
                            cryo_err *err) {
  CRYO_CHECK(x && values, err, CRYO_ERR_ARG, "cryo_set_field: NULL argument");
  CRYO_CALL(check_host_call(x, field, CRYO_FIELD_IN, n, "cryo_set_field", err));
  return x->ops->set_field(x, field, values, err);
}

int cryo_exchange_get_field(cryo_exchange *x, int field, double *values, long n, cryo_err *err) {
  CRYO_CHECK(x && values, err, CRYO_ERR_ARG, "cryo_get_field: NULL argument");
  CRYO_CALL(check_host_call(x, field, CRYO_FIELD_OUT, n, "cryo_get_field", err));
  return x->ops->get_field(x, field, values, err);
}

const char *cryo_exchange_provider(const cryo_exchange *x) {
  return x && x->ops ? x->ops->name : "";
}

void cryo_exchange_destroy(cryo_exchange **x) {
  if (!x || !*x) return;
  cryo_exchange *e = *x;
  if (e->ops && e->ops->destroy) e->ops->destroy(e);
  cryo_halo_destroy(&e->halo);
  if (e->grid.comm != MPI_COMM_NULL) MPI_Comm_free(&e->grid.comm);
  if (e->grid.fold_comm != MPI_COMM_NULL) MPI_Comm_free(&e->grid.fold_comm);
  free(e->grid.i_start);
  free(e->grid.j_start);
  free(e);
  *x = NULL;
}
