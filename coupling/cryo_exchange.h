/* The exchange layer (docs/design.md, Coupling): one interface through which a
 * dynamical core gets its forcing and puts its results, filled by one of three
 * providers chosen by name at run time:
 *   "netcdf"  forcing files of the standalone harness (coupling/exchange_netcdf.c)
 *   "host"    a host model in the same process sets and reads fields through
 *             cryo_set_field / cryo_get_field (coupling/exchange_host.c)
 *   "oasis"   the OASIS3-MCT coupler (coupling/exchange_oasis.c, built with
 *             --with-oasis; otherwise creating it is CRYO_ERR_UNSUPPORTED)
 *
 * One table of coupling fields, cryo_exchange_fields[] (base/cryo_fields.h),
 * serves every provider and the output writer.
 *
 * Life cycle, on every rank of `comm`, all ranks making the same calls in the
 * same order (host and oasis providers communicate inside get):
 *   cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, &grid, &cfg, err);
 *   each coupling step: cryo_exchange_get(x, t, CRYO_F_UWIND, buf, err); ...
 *                       cryo_exchange_put(x, t, CRYO_F_UICE, buf, err); ...
 *   cryo_exchange_destroy(&x);
 *
 * Buffers of get and put are laid out like the component's cell arrays
 * (base/cryo_block.h): CRYO_NCELL(block) doubles indexed by CRYO_CELL, block
 * being this rank's block of the grid. get fills this rank's owned cells and
 * the one-cell halo ring around them; the ring holds the neighbouring ranks'
 * values, wrapped where the block is periodic and clamped at the global domain
 * edge otherwise (the ring cell outside the domain repeats the nearest domain
 * cell), so the caller can average cells to nodes without a halo exchange. put
 * reads the owned cells only.
 *
 * Times are seconds since the start of the run. Errors return a CRYO_ERR_*
 * class and fill `err` with a message that names the file, variable and value.
 * Data errors of the netcdf provider (NaN in a rank's part of a file) are
 * found by that rank alone: the caller agrees on the status across ranks.
 */
#ifndef CRYO_EXCHANGE_H
#define CRYO_EXCHANGE_H

#include <mpi.h>

#include "cryo_error.h"
#include "cryo_block.h"
#include "cryo_fields.h"
#include "cryo_grid.h"

/* Find a field by its short name ("uwind") or its CF standard name
 * ("sea_ice_thickness"). *field: its cryo_field_id. CRYO_ERR_UNKNOWN if none. */
int cryo_exchange_field_find(const char *name, int *field, cryo_err *err);

/* Settings a provider may use; zero-initialise and set what applies. Strings
 * are copied by create. */
typedef struct cryo_exchange_config {
  /* netcdf: forcing file path (required). */
  const char *forcing_file;
  /* netcdf: run start date "YYYY-MM-DD hh:mm:ss" ("YYYY-MM-DD" means 00:00:00),
   * in the calendar of the file's time axis (required). */
  const char *start_date;
  /* netcdf: variable name of each IN field in the file; NULL keeps the short name. */
  const char *var_names[CRYO_NFIELD];
  /* oasis: component name ($NBMODEL) and each field's namcouple name; NULL
   * entries take the provider's defaults. */
  const char *oasis_component;
  const char *oasis_names[CRYO_NFIELD];
  /* oasis: name under which the component describes its grid to OASIS
   * (grids.nc, masks.nc, areas.nc); NULL = "cryt", "" = do not write it. */
  const char *oasis_grid_name;
  /* oasis: the cells of a grid file (&cryo_grid grid_file), described to OASIS
   * as they are: this rank's part of the file (services/cryo_gridfile.h), the
   * cells' area in m2 from the component's geometry (used where the file has
   * none; read only while the exchange is created) and the mask (1 ocean,
   * 0 land), both host arrays in block layout. NULL gridfile: the built-in box
   * of block.dx x block.dy cells. */
  const struct cryo_gridfile *gridfile;
  const double *cell_area, *mask;
  /* oasis, land ice: the namcouple name prefix of the Glen rate factor
   * received per layer, PREFIX01 ... PREFIXnn for the n_layers layers from the
   * bed up (&cryo_coupling rate_factor); NULL or "" when it is not received. */
  const char *oasis_rate_factor;
  int n_layers;
  /* 1: the sea-surface height (field ssh) is received too; 0: the providers
   * neither read nor couple it (a run without &cryo_seaice ssh_tilt). */
  int with_ssh;
} cryo_exchange_config;

/* Whether the exchange created with cfg moves field f (ssh only with_ssh). */
static inline int cryo_exchange_field_used(const cryo_exchange_config *cfg, int f) {
  return f != CRYO_F_SSH || cfg->with_ssh;
}

typedef struct cryo_exchange cryo_exchange;

/* Create the exchange for `model` on this rank's block of `grid` through
 * `provider` ("netcdf", "host" or "oasis"). Collective over grid->comm. The
 * exchange keeps a copy of the block and the neighbours, not the pointer. On
 * failure *x is NULL.
 * CRYO_ERR_RANGE for an unknown provider; CRYO_ERR_UNSUPPORTED for "oasis" in a
 * build without --with-oasis; the netcdf provider checks the whole file header
 * here (see exchange_netcdf.c for its error classes). */
int cryo_exchange_create(cryo_exchange **x, const char *provider, cryo_model_kind model,
                         const cryo_grid *grid, const cryo_exchange_config *cfg, cryo_err *err);

/* Fill buf (CRYO_NCELL(block) doubles, CRYO_CELL layout) with IN field `field`
 * of this exchange's model at `time` (s since the run start): owned cells and
 * the halo ring as described at the top of this file. */
int cryo_exchange_get(cryo_exchange *x, double time, int field, double *buf, cryo_err *err);

/* Hand over OUT field `field` at `time` from buf (CRYO_NCELL(block) doubles,
 * CRYO_CELL layout; owned cells are read). The netcdf provider accepts and
 * drops it (the component's output writer records results). */
int cryo_exchange_put(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err);

/* oasis provider, land ice with oasis_rate_factor set: the rate factor of
 * the interval starting at `time`, layer by layer, into values: nlev (=
 * n_layers) values per owned cell, the layer fastest, cells row-major
 * [ny][nx]. Unchecked values (the component checks them against its own
 * range). CRYO_ERR_STATE with another provider or when the rate factor is not
 * received; CRYO_ERR_ARG for another nlev; CRYO_ERR_COUPLING when OASIS
 * delivers nothing at that date. */
int cryo_exchange_get_layers(cryo_exchange *x, double time, int nlev, double *values,
                             cryo_err *err);

/* host provider: store the values of IN field `field` that the host model
 * gives, n = nx*ny owned cells, row-major [ny][nx]. CRYO_ERR_STATE with any
 * other provider; CRYO_ERR_ARG for a wrong n or a field that is not IN. */
int cryo_exchange_set_field(cryo_exchange *x, int field, const double *values, long n,
                            cryo_err *err);

/* host provider: copy the values of OUT field `field` last put into values
 * (n = nx*ny, row-major [ny][nx]). CRYO_ERR_MISSING before the first put. */
int cryo_exchange_get_field(cryo_exchange *x, int field, double *values, long n, cryo_err *err);

/* netcdf provider: number of records (one field at one time) read from the
 * file so far, for the log and for tests of the two-record cache; -1 with any
 * other provider. */
long cryo_exchange_netcdf_reads(const cryo_exchange *x);

/* Name of the provider in use ("netcdf", ...). */
const char *cryo_exchange_provider(const cryo_exchange *x);

/* Release everything and set *x = NULL; NULL is allowed. */
void cryo_exchange_destroy(cryo_exchange **x);

/* For providers only (exchange_*.c); components use the calls above. */

/* A provider's operations. get/put receive a valid field of x's model with the
 * right direction (checked by exchange.c). set_field/get_field may be NULL. */
typedef struct cryo_exchange_ops {
  const char *name;
  int (*get)(cryo_exchange *x, double time, int field, double *buf, cryo_err *err);
  int (*put)(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err);
  int (*set_field)(cryo_exchange *x, int field, const double *values, cryo_err *err);
  int (*get_field)(cryo_exchange *x, int field, double *values, cryo_err *err);
  /* may be NULL: only the oasis provider receives fields with layers */
  int (*get_layers)(cryo_exchange *x, double time, int nlev, double *values, cryo_err *err);
  void (*destroy)(cryo_exchange *x);
} cryo_exchange_ops;

struct cryo_exchange {
  const cryo_exchange_ops *ops;
  cryo_model_kind model;
  /* the caller's block and neighbours on a duplicate of its communicator,
   * which the exchange owns; the split tables (i_start, j_start) stay with the
   * caller's grid and are NULL here */
  cryo_grid grid;
  /* halo of host arrays, clamped at the domain edge: providers whose source
   * gives owned cells only (host, oasis) fill the ring of get's buffer with
   * cryo_halo_exchange(halo, CRYO_AT_CELL, 1, 1, &buf, err), collectively */
  cryo_halo *halo;
  void *impl; /* the provider's own state */
};

/* Provider constructors: set x->ops and x->impl (x->grid and model are set). */
int cryo_exchange_netcdf_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err);
int cryo_exchange_host_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err);
int cryo_exchange_oasis_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err);

#endif
