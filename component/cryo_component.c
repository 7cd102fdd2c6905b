/* The component object: init / run / finalize (docs/design.md, Lifecycle), and
 * the services (halo exchange, exact global sums) that numerical drivers
 * reach through cryo_comm_ops. The top of component/: it calls output,
 * restart and the dynamical cores, which call the state (cryo_state.h). */
#include "config.h"
#include "cryo_gridfile.h"
#include "cryo_impl.h"
#include "cryo_namelist.h"
#include "cryo_output.h"
#include "cryo_restart.h"
#include "halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed cryo_init may leave no component behind: its message lives here. */
static cryo_err init_error;

const char *cryo_version(void) {
  return PACKAGE_VERSION;
}

const char *cryo_last_error(const cryo_component *c) {
  return c ? c->err.msg : init_error.msg;
}

const char *cryo_warnings(const cryo_component *c) {
  return c ? c->cfg.warnings : "";
}

static int ops_halo(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields) {
  cryo_component *c = ctx;
  return cryo_halo_exchange(c->halo, loc, nlev, nfield, fields, &c->err);
}

static int ops_halo_signed(void *ctx, cryo_location loc, int nlev, int nfield,
                           double *const *fields, const int *sign) {
  cryo_component *c = ctx;
  return cryo_halo_exchange_signed(c->halo, loc, nlev, nfield, fields, sign, &c->err);
}

static int ops_halo_begin(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields,
                          const int *sign) {
  cryo_component *c = ctx;
  return cryo_halo_exchange_begin(c->halo, loc, nlev, nfield, fields, sign, &c->err);
}

static int ops_halo_end(void *ctx) {
  cryo_component *c = ctx;
  return cryo_halo_exchange_end(c->halo, &c->err);
}

static int ops_halo_block(void *ctx, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                          double *const *fields) {
  cryo_component *c = ctx;
  return cryo_halo_exchange_block(c->halo, b, loc, nlev, nfield, fields, &c->err);
}

/* The field's host copy of a device array that lies in one of its fields
 * (kernels hand device addresses to the services): the values cross to the
 * host, their bits are summed as integers (exact: one rank holds each
 * non-zero value), and they cross back. */
static int ops_sum_exact(void *ctx, double *values, long n) {
  cryo_component *c = ctx;
  if (c->size == 1) return CRYO_OK;
  for (int k = 0; k < c->nfields; ++k) {
    cryo_field *f = &c->fields[k];
    if (values < f->dev || values + n > f->dev + f->n) continue;
    const long at = (long)(values - f->dev);
    cryo_device_to_host(&c->dev, f->host, at, n);
    /* a double's bits as a 64-bit integer, the sum of one value and zeros */
    CRYO_CALL(cryo_mpi_check(
        MPI_Allreduce(MPI_IN_PLACE, f->host + at, (int)n, MPI_LONG_LONG, MPI_SUM, c->comm),
        "MPI_Allreduce (exact sum)", &c->err));
    cryo_device_to_device(&c->dev, f->host, at, n);
    return CRYO_OK;
  }
  return CRYO_ERROR(&c->err, CRYO_ERR_ARG, "exact sum: %ld values at %p lie in no field", n,
                    (void *)values);
}

static int ops_sum_int64(void *ctx, long long *vals, int n) {
  cryo_component *c = ctx;
  if (c->size == 1) return CRYO_OK;
  return cryo_mpi_check(MPI_Allreduce(MPI_IN_PLACE, vals, n, MPI_LONG_LONG, MPI_SUM, c->comm),
                        "MPI_Allreduce (sum)", &c->err);
}

static int ops_max_double(void *ctx, double *vals, int n) {
  cryo_component *c = ctx;
  if (c->size == 1) return CRYO_OK;
  return cryo_mpi_check(MPI_Allreduce(MPI_IN_PLACE, vals, n, MPI_DOUBLE, MPI_MAX, c->comm),
                        "MPI_Allreduce (max)", &c->err);
}

static int init_clock(cryo_component *c) {
  const cryo_run_config *r = &c->cfg.run;
  return cryo_clock_init(&c->clock, r->start, r->calendar, r->run_length, r->coupling_interval,
                         c->cfg.source, &c->err);
}

static int select_model(cryo_component *c) {
  if (!strcmp(c->cfg.run.model, "seaice"))
    c->model = &cryo_seaice_model;
  else
    c->model = &cryo_landice_model;
  return CRYO_OK;
}

/* Largest number of values per point a halo exchange will carry. */
static int halo_capacity(const cryo_component *c) {
  int nlev = 3;
  if (c->model == &cryo_landice_model) nlev = 2 * (c->cfg.landice.p.n_layers + 1);
  int most = CRYO_HALO_MAX_FIELDS * nlev;
  /* a folded grid file exchanges the cells' geometry once (cryo_seaice.c) */
  if (c->cfg.grid.fold && most < CRYO_SEAICE_NGEOM) most = CRYO_SEAICE_NGEOM;
  /* the multigrid exchanges the halo of each level's matrix rows */
  if (c->model == &cryo_landice_model &&
      c->cfg.landice.p.preconditioner == CRYO_LANDICE_PC_MULTIGRID) {
    int matrix = 108 * (c->cfg.landice.p.n_layers + 1);
    most = matrix > most ? matrix : most;
  }
  return most;
}

/* Packed halo lines to MPI from device memory or through host buffers
 * (&cryo_run halo_device_buffers). */
static int select_halo_path(cryo_component *c) {
  char aware_why[160], why[CRYO_HALO_PATH_LEN];
  int aware = cryo_halo_mpi_cuda_aware(aware_why, (int)sizeof aware_why), device_buffers = 0;
  CRYO_CALL(cryo_halo_choose(c->cfg.run.halo_device_buffers, c->cfg.source, c->dev.offload,
                             c->dev.description, aware, aware_why, &device_buffers, why,
                             (int)sizeof why, &c->err));
  cryo_halo_set_path(c->halo, device_buffers, why);
  return cryo_halo_connect_peers(c->halo, !strcmp(c->cfg.run.halo_peer, "auto"), &c->err);
}

static double now(void) {
  return MPI_Wtime();
}

/* Share the grid file's ocean cells evenly between the process columns and
 * rows (&cryo_grid decomposition = 'ocean'): land costs the sea-ice kernels
 * a flag read, ocean their whole work, so equal rectangles of the Arctic
 * give the ranks unequal work. Rank 0 counts, every rank splits. */
static int balance_ocean(cryo_component *c) {
  const cryo_block *b = &c->grid.block;
  const int nx = b->nx_global, ny = b->ny_global;
  long *counts = calloc((size_t)(nx + ny + 1), sizeof *counts);
  CRYO_CHECK(counts, &c->err, CRYO_ERR_MEMORY, "out of memory for the ocean counts");
  int has_mask = 0, status = CRYO_OK;
  if (c->rank == 0)
    status =
        cryo_gridfile_ocean_counts(c->cfg.grid.grid_file, counts, counts + nx, &has_mask, &c->err);
  counts[nx + ny] = has_mask;
  status = cryo_status_from_root(c, status);
  if (status == CRYO_OK)
    status =
        cryo_mpi_check(MPI_Bcast(counts, nx + ny + 1, MPI_LONG, 0, c->comm), "MPI_Bcast", &c->err);
  if (status == CRYO_OK && counts[nx + ny]) cryo_grid_balance(&c->grid, counts, counts + nx);
  free(counts);
  return status;
}

/* The namelist is read once (a pipe can be read only once): from `path`
 * when `text` is NULL. */
static int init_steps(cryo_component *c, const char *path, const char *text, const char *source,
                      MPI_Comm comm) {
  CRYO_MPI(MPI_Comm_dup(comm, &c->comm), "MPI_Comm_dup", &c->err);
  CRYO_MPI(MPI_Comm_rank(c->comm, &c->rank), "MPI_Comm_rank", &c->err);
  CRYO_MPI(MPI_Comm_size(c->comm, &c->size), "MPI_Comm_size", &c->err);
  if (text) {
    c->namelist_text = strdup(text);
    CRYO_CHECK(c->namelist_text, &c->err, CRYO_ERR_MEMORY, "%s: out of memory for the namelist",
               source);
  } else {
    CRYO_CALL(cryo_file_read_text(path, &c->namelist_text, &c->err));
  }
  CRYO_CALL(cryo_config_read_string(&c->cfg, c->namelist_text, source, &c->err));
  CRYO_CALL(init_clock(c));
  /* Before any input is read or output written: no output may land on an input. */
  CRYO_CALL(cryo_status_from_root(c, c->rank == 0 ? cryo_output_check_paths(c) : CRYO_OK));
  CRYO_CALL(select_model(c));
  cryo_startup_lap(c, CRYO_S_NAMELIST);
  CRYO_CALL(cryo_device_init(&c->dev, c->comm, !strcmp(c->cfg.run.device, "gpu"), &c->err));
  cryo_startup_lap(c, CRYO_S_DEVICE);
  int landice = c->model == &cryo_landice_model;
  const cryo_grid_config *g = &c->cfg.grid;
  CRYO_CALL(cryo_grid_create(&c->grid, c->comm, g->nx, g->ny, g->dx, g->dy, g->nprocs_x,
                             g->nprocs_y, landice ? c->cfg.landice.periodic : g->periodic_x,
                             landice && c->cfg.landice.periodic, &c->err));
  if (!landice && g->grid_file[0] && !strcmp(g->decomposition, "ocean"))
    CRYO_CALL(balance_ocean(c));
  if (landice && c->cfg.landice.p.preconditioner == CRYO_LANDICE_PC_MULTIGRID) {
    /* block edges where the multigrid's levels nest (kernels/landice_multigrid.c) */
    int ux, uy;
    cryo_landice_mg_units(g->nx, g->ny, c->cfg.landice.periodic, c->cfg.landice.periodic, &ux, &uy);
    cryo_grid_align(&c->grid, ux, uy);
  }
  if (!landice) CRYO_CALL(cryo_grid_set_fold(&c->grid, (cryo_fold)g->fold, &c->err));
  CRYO_CALL(cryo_halo_create(&c->halo, &c->grid, &c->dev, halo_capacity(c), &c->err));
  CRYO_CALL(select_halo_path(c));
  c->ops = (cryo_comm_ops){
      c,    ops_halo, ops_sum_int64, ops_max_double, ops_halo_block, ops_sum_exact, ops_halo_signed,
      NULL, NULL};
  /* one rank fills its halo in one launch: nothing to overlap */
  if (!strcmp(c->cfg.run.halo_overlap, "yes") && cryo_halo_overlaps(c->halo)) {
    c->ops.halo_begin = ops_halo_begin;
    c->ops.halo_end = ops_halo_end;
  }
  cryo_startup_lap(c, CRYO_S_DECOMP);
  /* the cores lap their parts; what follows their last lap is initial state */
  CRYO_CALL(c->model->create(c));
  cryo_startup_lap(c, CRYO_S_STATE);
  if (c->cfg.run.restart_in[0]) {
    CRYO_CALL(cryo_restart_read(c, c->cfg.run.restart_in));
    c->last_restart = c->clock.time;
    cryo_startup_lap(c, CRYO_S_RESTART);
  }
  return CRYO_OK;
}

static int init_component(cryo_component **cp, const char *path, const char *text,
                          const char *source, MPI_Comm comm) {
  *cp = NULL;
  int initialized = 0;
  CRYO_MPI(MPI_Initialized(&initialized), "cryo_init: MPI_Initialized", &init_error);
  if (!initialized)
    return CRYO_ERROR(&init_error, CRYO_ERR_MPI, "cryo_init: MPI_Init has not been called");
  cryo_component *c = calloc(1, sizeof *c);
  if (!c) return CRYO_ERROR(&init_error, CRYO_ERR_MEMORY, "cryo_init: out of memory");
  *cp = c;
  c->comm = MPI_COMM_NULL;
  static const char *const names[CRYO_T_COUNT] = {"init", "forcing", "dynamics", "output",
                                                  "restart"};
  for (int i = 0; i < CRYO_T_COUNT; ++i)
    c->timers[i].name = names[i];
  static const char *const parts[CRYO_S_COUNT] = {
      "namelist",     "device start", "decomposition", "allocation",    "grid read",
      "grid checks",  "block layout", "geometry",      "initial state", "exchange",
      "read restart", "output file",  "first record"};
  for (int i = 0; i < CRYO_S_COUNT; ++i)
    c->startup[i].name = parts[i];
  double t0 = now();
  c->lap_start = t0;
  int status = init_steps(c, path, text, source, comm);
  if (c->comm != MPI_COMM_NULL) status = cryo_status_agree(c, status);
  if (status == CRYO_OK && c->cfg.run.output_file[0]) {
    int due = 0;
    status = cryo_output_open(c, &due);
    cryo_startup_lap(c, CRYO_S_OUTPUT_FILE);
    if (status == CRYO_OK && due) status = cryo_status_agree(c, cryo_output_write(c));
    if (due) cryo_startup_lap(c, CRYO_S_FIRST_RECORD);
    c->last_output = c->clock.time;
  }
  c->timers[CRYO_T_INIT].seconds += now() - t0;
  c->timers[CRYO_T_INIT].calls++;
  if (status != CRYO_OK) init_error = c->err;
  return status;
}

int cryo_init(cryo_component **cp, const char *namelist_path, MPI_Comm comm) {
  cryo_err_clear(&init_error);
  if (!cp || !namelist_path)
    return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_init: NULL component or namelist path");
  return init_component(cp, namelist_path, NULL, namelist_path, comm);
}

int cryo_init_text(cryo_component **cp, const char *namelist_text, const char *source,
                   MPI_Comm comm) {
  cryo_err_clear(&init_error);
  if (!cp || !namelist_text)
    return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_init_text: NULL component or namelist text");
  return init_component(cp, NULL, namelist_text, source ? source : "(namelist text)", comm);
}

int cryo_is_done(const cryo_component *c) {
  return c && c->clock.time >= c->clock.run_length;
}

long long cryo_get_time(const cryo_component *c) {
  return c ? c->clock.time : 0;
}

long long cryo_get_run_length(const cryo_component *c) {
  return c ? c->clock.run_length : 0;
}

static int timed(cryo_component *c, int which, int status_in, double t0) {
  c->timers[which].seconds += now() - t0;
  c->timers[which].calls++;
  return status_in;
}

int cryo_run(cryo_component *c) {
  if (!c) return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_run: NULL component");
  CRYO_CHECK(!cryo_is_done(c), &c->err, CRYO_ERR_STATE,
             "cryo_run: the run is complete (%lld s of %lld s)", c->clock.time,
             c->clock.run_length);
  cryo_clock *k = &c->clock;
  double t0 = now();
  int status = timed(c, CRYO_T_FORCING, c->model->get_forcing(c, k->time), t0);
  CRYO_CALL(cryo_status_agree(c, status));
  t0 = now();
  status = timed(c, CRYO_T_DYNAMICS, c->model->advance(c, k->interval), t0);
  CRYO_CALL(cryo_status_agree(c, status));
  k->time += k->interval;
  k->step += 1;
  t0 = now();
  status = timed(c, CRYO_T_FORCING, c->model->put_results(c, k->time), t0);
  CRYO_CALL(cryo_status_agree(c, status));

  const cryo_run_config *r = &c->cfg.run;
  if (r->output_file[0] && r->output_interval > 0 && k->time % r->output_interval == 0) {
    t0 = now();
    CRYO_CALL(timed(c, CRYO_T_OUTPUT, cryo_status_agree(c, cryo_output_write(c)), t0));
    c->last_output = k->time;
  }
  int due = r->restart_interval > 0 && k->time % r->restart_interval == 0;
  if (r->restart_out[0] && (due || cryo_is_done(c))) {
    char path[CRYO_PATH_LEN + 64];
    cryo_restart_name(c, c->clock.time, path, sizeof path);
    t0 = now();
    CRYO_CALL(timed(c, CRYO_T_RESTART, cryo_restart_write(c, path), t0));
    c->last_restart = k->time;
  }
  return CRYO_OK;
}

int cryo_finalize(cryo_component **cp) {
  if (!cp || !*cp) return CRYO_OK;
  cryo_component *c = *cp;
  int status = CRYO_OK;
  int ready = c->model && c->halo && c->comm != MPI_COMM_NULL && c->err.status == CRYO_OK;
  if (ready && c->cfg.run.restart_out[0] && c->clock.time > c->last_restart) {
    char path[CRYO_PATH_LEN + 64];
    cryo_restart_name(c, c->clock.time, path, sizeof path);
    status = cryo_restart_write(c, path);
  }
  cryo_output_close(c);
  if (c->model && c->model->destroy) c->model->destroy(c);
  for (int i = 0; i < c->nfields; ++i)
    cryo_device_free(&c->dev, &c->fields[i].host, c->fields[i].n);
  cryo_halo_destroy(&c->halo);
  cryo_grid_destroy(&c->grid);
  free(c->namelist_text);
  if (c->comm != MPI_COMM_NULL) {
    int freed = cryo_mpi_check(MPI_Comm_free(&c->comm), "cryo_finalize: MPI_Comm_free", &c->err);
    if (status == CRYO_OK) status = freed;
  }
  if (status != CRYO_OK) init_error = c->err;
  free(c);
  *cp = NULL;
  return status;
}

/* Points of this rank's block that cryo_get_field/cryo_set_field copy. */
static long field_points(const cryo_component *c, const cryo_field *f, int *ni, int *nj) {
  const cryo_block *b = &c->grid.block;
  *ni = b->nx + (f->loc == CRYO_AT_NODE);
  *nj = b->ny + (f->loc == CRYO_AT_NODE);
  return (long)*ni * *nj * f->nlev;
}

static int find_by_any_name(cryo_component *c, const char *name) {
  int k = cryo_field_find(c, name);
  for (int i = 0; k < 0 && i < c->nfields; ++i)
    if (c->fields[i].standard_name[0] && !strcmp(c->fields[i].standard_name, name)) k = i;
  return k;
}

int cryo_get_field(cryo_component *c, const char *name, double *values, long n) {
  if (!c) return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_get_field: NULL component");
  CRYO_CHECK(name && values, &c->err, CRYO_ERR_ARG, "cryo_get_field: NULL name or array");
  int k = find_by_any_name(c, name);
  CRYO_CHECK(k >= 0, &c->err, CRYO_ERR_UNKNOWN, "cryo_get_field: no field named '%s'", name);
  cryo_field *f = &c->fields[k];
  int ni, nj;
  long want = field_points(c, f, &ni, &nj);
  CRYO_CHECK(n == want, &c->err, CRYO_ERR_ARG,
             "cryo_get_field('%s'): array of %ld values, this rank's block needs %ld", name, n,
             want);
  if (f->role == CRYO_ROLE_DIAGNOSTIC && c->model->diagnose) CRYO_CALL(c->model->diagnose(c));
  cryo_field_to_host(c, f);
  const cryo_block *b = &c->grid.block;
  for (int j = 0; j < nj; ++j)
    for (int i = 0; i < ni; ++i) {
      long at = f->loc == CRYO_AT_CELL ? CRYO_CELL(b, i, j) : CRYO_NODE(b, i, j);
      memcpy(values + ((long)j * ni + i) * f->nlev, f->host + at * f->nlev,
             (size_t)f->nlev * sizeof *values);
    }
  return CRYO_OK;
}

int cryo_set_field(cryo_component *c, const char *name, const double *values, long n) {
  if (!c) return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_set_field: NULL component");
  CRYO_CHECK(name && values, &c->err, CRYO_ERR_ARG, "cryo_set_field: NULL name or array");
  int k = find_by_any_name(c, name);
  CRYO_CHECK(k >= 0, &c->err, CRYO_ERR_UNKNOWN, "cryo_set_field: no field named '%s'", name);
  cryo_field *f = &c->fields[k];
  int ni, nj;
  long want = field_points(c, f, &ni, &nj);
  CRYO_CHECK(n == want, &c->err, CRYO_ERR_ARG,
             "cryo_set_field('%s'): array of %ld values, this rank's block needs %ld", name, n,
             want);
  const cryo_block *b = &c->grid.block;
  for (long q = 0; q < n; ++q) {
    CRYO_CHECK(values[q] == values[q] && values[q] - values[q] == 0.0, &c->err, CRYO_ERR_DATA,
               "cryo_set_field('%s'): value %ld is %g", name, q, values[q]);
    CRYO_CHECK(values[q] >= f->lo && values[q] <= f->hi, &c->err, CRYO_ERR_DATA,
               "cryo_set_field('%s'): value %ld is %g %s, must be in [%g, %g]", name, q, values[q],
               f->units ? f->units : "", f->lo, f->hi);
  }
  f->given = 1;
  for (int j = 0; j < nj; ++j)
    for (int i = 0; i < ni; ++i) {
      long at = f->loc == CRYO_AT_CELL ? CRYO_CELL(b, i, j) : CRYO_NODE(b, i, j);
      memcpy(f->host + at * f->nlev, values + ((long)j * ni + i) * f->nlev,
             (size_t)f->nlev * sizeof *values);
    }
  cryo_field_to_device(c, f);
  return cryo_field_halo(c, f);
}

int cryo_get_block(const cryo_component *c, int *i0, int *j0, int *nx, int *ny, int *nx_global,
                   int *ny_global) {
  if (!c) return CRYO_ERROR(&init_error, CRYO_ERR_ARG, "cryo_get_block: NULL component");
  const cryo_block *b = &c->grid.block;
  if (i0) *i0 = b->i0;
  if (j0) *j0 = b->j0;
  if (nx) *nx = b->nx;
  if (ny) *ny = b->ny;
  if (nx_global) *nx_global = b->nx_global;
  if (ny_global) *ny_global = b->ny_global;
  return CRYO_OK;
}

int cryo_timer_report(const cryo_component *c, char *buf, int len) {
  if (!c || !buf || len <= 0) return CRYO_ERR_ARG;
  int used = snprintf(buf, (size_t)len, "%-16s %10s %8s\n", "phase", "seconds", "calls");
  for (int i = 0; i < CRYO_T_COUNT && used < len; ++i) {
    used += snprintf(buf + used, (size_t)(len - used), "%-16s %10.3f %8ld\n", c->timers[i].name,
                     c->timers[i].seconds, c->timers[i].calls);
    /* the parts of init that this run had, rank 0's wall clock as init's */
    for (int k = 0; i == CRYO_T_INIT && k < CRYO_S_COUNT && used < len; ++k)
      if (c->startup[k].calls)
        used += snprintf(buf + used, (size_t)(len - used), "  %-14s %10.3f %8ld\n",
                         c->startup[k].name, c->startup[k].seconds, c->startup[k].calls);
  }
  double halo_s = 0.0;
  long halo_calls = 0;
  long long halo_bytes = 0;
  if (c->halo) cryo_halo_stats(c->halo, &halo_s, &halo_calls, &halo_bytes);
  if (used < len)
    used += snprintf(buf + used, (size_t)(len - used),
                     "%-16s %10.3f %8ld  (within forcing and dynamics; %lld B sent)\n", "halo",
                     halo_s, halo_calls, halo_bytes);
  /* Without a device copy the update calls still count (tests compare the
   * counts with a GPU run's) but copy nothing: reporting them as transfers
   * would claim host-device traffic that a CPU run does not have. */
  const cryo_device *d = &c->dev;
  if (used < len && d->offload)
    snprintf(buf + used, (size_t)(len - used),
             "transfers  to device %lld B in %lld updates, to host %lld B in %lld updates\n",
             d->total_bytes_to_device, d->total_updates_to_device, d->total_bytes_to_host,
             d->total_updates_to_host);
  else if (used < len)
    snprintf(buf + used, (size_t)(len - used),
             "transfers  none (no GPU in use: the arrays live on the host)\n");
  return CRYO_OK;
}

int cryo_banner(const cryo_component *c, char *buf, int len) {
  if (!c || !buf || len <= 0) return CRYO_ERR_ARG;
#if defined(_OPENACC)
  const char *build = "OpenACC";
#elif defined(_OPENMP)
  const char *build = "OpenMP";
#else
  const char *build = "serial loops";
#endif
  /* GCC's __VERSION__ is the bare number; other compilers name themselves. */
#if defined(__GNUC__) && !defined(__clang__)
  const char *compiler = "GCC ";
#else
  const char *compiler = "";
#endif
  const cryo_device *d = &c->dev;
  char gpus[64] = "no GPU";
  if (d->devices_used > 0)
    snprintf(gpus, sizeof gpus, "%d GPU(s) in use, up to %d rank(s) per GPU", d->devices_used,
             (d->node_ranks + d->node_devices - 1) / d->node_devices);
  snprintf(buf, (size_t)len,
           "cryodyn %s (compiler %s%s, %s)\n"
           "  device:   %s\n"
           "  ranks:    %d on %d node(s), %s\n"
           "  halo:     %s%s%s\n"
           "  model:    %s on %d x %d cells\n",
           cryo_version(), compiler, __VERSION__, build, d->description, c->size, d->nodes, gpus,
           c->halo ? cryo_halo_path(c->halo) : "none",
           c->size > 1                           ? ""
           : c->halo && cryo_halo_alone(c->halo) ? "; 1 rank: no messages, one launch per exchange"
                                                 : "; 1 rank: no messages",
           c->ops.halo_begin && c->model == &cryo_seaice_model
               ? "; sub-step exchanges overlap the inner nodes' update (halo_overlap = 'yes')"
               : "",
           c->cfg.run.model, c->cfg.grid.nx, c->cfg.grid.ny);
  return CRYO_OK;
}

int cryo_summary(cryo_component *c, char *buf, int len) {
  if (!c || !buf || len <= 0) return CRYO_ERR_ARG;
  buf[0] = '\0';
  if (c->model && c->model->summary) return c->model->summary(c, buf, len);
  return CRYO_OK;
}

int cryo_is_root(const cryo_component *c) {
  return c && c->rank == 0;
}
