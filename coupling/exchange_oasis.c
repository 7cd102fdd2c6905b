/* OASIS3-MCT provider (forcing = 'oasis', docs/design.md, Coupling; issue 5):
 * forcing comes from and results go to partner executables through the
 * coupler, over the layer of coupling/cryo_oasis.h.
 *
 * - The program joined the coupled run before cryo_init (cryo_coupler_init,
 *   coupling/cryo_coupler.h) and the component runs on the local communicator
 *   OASIS returned; create checks both, because OASIS routes by the ranks of
 *   that communicator.
 * - The OASIS partition is the component's own decomposition: one box of the
 *   rank's owned cells (x fastest, as C arrays [ny][nx] and OASIS's Fortran
 *   (nx, ny) agree).
 * - Every field of the model is declared with its namcouple name
 *   (cfg->oasis_names, else default_names below, NEMO/SI3 style). A name that
 *   no $STRINGS entry couples is an error naming the field, so a namcouple
 *   missing a field or misspelling one stops the run at create.
 * - Dates: OASIS names a coupling step by its start, as NEMO does (a step's
 *   receives and sends share one date). get(t) receives at date t, the start
 *   of the interval; the component puts its results at the end of the
 *   interval, t + coupling_interval, and put sends them with the date of the
 *   interval's get. (Sending at the end date would also fail on the last
 *   step: that date equals $RUNTIME, which OASIS refuses.)
 * - A get or put that OASIS answers with "nothing exchanged" (kinfo 0) means
 *   the namcouple period differs from &cryo_run coupling_interval: an error,
 *   not a silent reuse of stale values.
 * - The component describes its own grid to OASIS (cryo_oasis_write_plane_grid)
 *   as grid cfg->oasis_grid_name (default default_grid_name; "" skips it,
 *   for same-grid couplings that need no remapping): the block's global grid of dx x dy cells with
 *   its lower-left corner at the origin, laid along the equator, every cell
 *   valid. Rank 0 computes the global arrays from the grid geometry (no gather:
 *   the grid is uniform) before enddef, where OASIS writes grids.nc, masks.nc
 *   and areas.nc one component at a time and computes any SCRIP weights. A
 *   namcouple without remapping never reads the files, so the same-grid setups
 *   are unaffected; writing always keeps one code path and costs one global
 *   grid on rank 0 (11 doubles a cell) once per run.
 * - Sea ice receives wind as well as ocean current (I_Uwind1, I_Vwind1): the
 *   partner sends whatever wind it has (examples/toy_ocean sends a uniform
 *   one), so one coupled setup needs no forcing file.
 */
#include "cryo_coupler.h"
#include "cryo_exchange.h"
#include "cryo_oasis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Default namcouple names. Sea-ice names follow NEMO's sbccpl style
 * (namelists/namcouple_seaice_toyocean); the stress is the ocean's on the ice,
 * as in the field table (an ocean model takes its negative). */
static const char *const default_names[CRYO_NFIELD] = {
    [CRYO_F_UWIND] = "I_Uwind1",   [CRYO_F_VWIND] = "I_Vwind1", [CRYO_F_UOCEAN] = "I_OCurx1",
    [CRYO_F_VOCEAN] = "I_OCury1",  [CRYO_F_UICE] = "I_IceVx1",  [CRYO_F_VICE] = "I_IceVy1",
    [CRYO_F_AICE] = "I_IceFrc",    [CRYO_F_HICE] = "I_IceTck",  [CRYO_F_TAUX_IO] = "I_OTaux1",
    [CRYO_F_TAUY_IO] = "I_OTauy1", [CRYO_F_SMB] = "I_LiSmb1",   [CRYO_F_BASAL_MELT] = "I_LiBmt1",
    [CRYO_F_THK] = "I_LiThk1",     [CRYO_F_USURF] = "I_LiSrf1", [CRYO_F_ICEMASK] = "I_LiMsk1",
};

/* Grid name of cryodyn's cells in the namcouple (namelists/namcouple_seaice_remap). */
static const char default_grid_name[] = "cryt";

typedef struct oasis_impl {
  /* namcouple names, "" for fields of the other model */
  char names[CRYO_NFIELD][CRYO_OASIS_VAR_NAME_MAX + 1];
  int var[CRYO_NFIELD]; /* OASIS variable ids, -1 for fields of the other model */
  double *owned;        /* nx*ny owned cells, x fastest */
  int have_get;         /* a get happened: step_date is valid */
  int step_date;        /* s, date of the latest get: the start of the current interval */
} oasis_impl;

static oasis_impl *impl_of(cryo_exchange *x) {
  return (oasis_impl *)x->impl;
}

/* OASIS dates are whole seconds in an int. */
static int to_date(double time, const char *what, const char *name, int *date, cryo_err *err) {
  CRYO_CHECK(time >= 0.0 && time <= 2147483647.0 && time == floor(time), err, CRYO_ERR_RANGE,
             "forcing = 'oasis': %s of field %s at time %.17g s: OASIS dates must be whole "
             "seconds from 0 to 2^31-1",
             what, name, time);
  *date = (int)time;
  return CRYO_OK;
}

static int oasis_get(cryo_exchange *x, double time, int field, double *buf, cryo_err *err) {
  oasis_impl *o = impl_of(x);
  const cryo_block *b = &x->block;
  const char *name = o->names[field];
  int date, kinfo;
  CRYO_CALL(to_date(time, "get", name, &date, err));
  CRYO_CALL(cryo_oasis_get(o->var[field], date, b->nx, b->ny, o->owned, &kinfo, err));
  /* kinfo is the same on every rank (it depends on the date only), so all
   * ranks leave together before the collective ring fill. */
  CRYO_CHECK(kinfo != 0, err, CRYO_ERR_COUPLING,
             "forcing = 'oasis': field %s (%s) was not received at %d s: its coupling period in "
             "the namcouple must equal &cryo_run coupling_interval, and the partner must send it "
             "at every coupling date",
             name, cryo_exchange_fields[field].name, date);
  o->have_get = 1;
  o->step_date = date;
  for (int j = 0; j < b->ny; ++j)
    memcpy(buf + CRYO_CELL(b, 0, j), o->owned + (size_t)j * b->nx, sizeof(double) * b->nx);
  CRYO_CALL(cryo_exchange_fill_ring(x, buf, err));
  /* A partner's NaN would spread through the dynamics; found by the rank that
   * holds it (the caller agrees on the status across ranks). */
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      CRYO_CHECK(isfinite(buf[CRYO_CELL(b, i, j)]), err, CRYO_ERR_DATA,
                 "forcing = 'oasis': field %s (%s) received at %d s is %g at global cell "
                 "(i, j) = (%d, %d)",
                 name, cryo_exchange_fields[field].name, date, buf[CRYO_CELL(b, i, j)], b->i0 + i,
                 b->j0 + j);
  return CRYO_OK;
}

static int oasis_put(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err) {
  oasis_impl *o = impl_of(x);
  const cryo_block *b = &x->block;
  const char *name = o->names[field];
  int end_date, kinfo;
  CRYO_CALL(to_date(time, "put", name, &end_date, err));
  int date = o->have_get ? o->step_date : end_date;
  CRYO_CHECK(end_date >= date, err, CRYO_ERR_ARG,
             "forcing = 'oasis': put of field %s at %d s comes before the interval's get at %d s",
             name, end_date, date);
  for (int j = 0; j < b->ny; ++j)
    memcpy(o->owned + (size_t)j * b->nx, buf + CRYO_CELL(b, 0, j), sizeof(double) * b->nx);
  CRYO_CALL(cryo_oasis_put(o->var[field], date, b->nx, b->ny, o->owned, &kinfo, err));
  CRYO_CHECK(kinfo != 0, err, CRYO_ERR_COUPLING,
             "forcing = 'oasis': field %s (%s) was not sent at %d s (results of the interval "
             "ending at %d s): its coupling period in the namcouple must equal &cryo_run "
             "coupling_interval",
             name, cryo_exchange_fields[field].name, date, end_date);
  return CRYO_OK;
}

static void oasis_destroy(cryo_exchange *x) {
  oasis_impl *o = impl_of(x);
  if (!o) return;
  free(o->owned);
  free(o);
  x->impl = NULL;
}

static const cryo_exchange_ops oasis_ops = {
    .name = "oasis",
    .get = oasis_get,
    .put = oasis_put,
    .set_field = NULL,
    .get_field = NULL,
    .destroy = oasis_destroy,
};

/* The exchange must run on the communicator OASIS gave the component (or a
 * duplicate of it): OASIS maps partition ranks through it. */
static int check_comm(cryo_exchange *x, const char *want_name, cryo_err *err) {
  const char *name;
  MPI_Comm local;
  CRYO_CALL(cryo_coupler_get(&name, &local, err));
  CRYO_CHECK(strcmp(name, want_name) == 0, err, CRYO_ERR_ARG,
             "forcing = 'oasis': &cryo_coupling component = '%s', but the program joined the "
             "coupled run as '%s'",
             want_name, name);
  int cmp;
  CRYO_CHECK(MPI_Comm_compare(x->comm, local, &cmp) == MPI_SUCCESS, err, CRYO_ERR_MPI,
             "forcing = 'oasis': MPI_Comm_compare failed");
  CRYO_CHECK(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, err, CRYO_ERR_ARG,
             "forcing = 'oasis': cryo_init got a communicator other than the local one OASIS "
             "returned to cryo_coupler_init('%s', &comm); pass that comm to cryo_init",
             name);
  return CRYO_OK;
}

/* OASIS has one definition phase per process, ended by enddef. */
static int defined;

/* Every rank of the component learns whether any failed, so that all go on
 * to the next collective OASIS call (def_partition, enddef) or none does: a
 * rank that failed alone would leave the others waiting there for ever,
 * while it waits for them in cryo_init. The failed ranks keep their message. */
static int agree(cryo_exchange *x, int status, const char *before, cryo_err *err) {
  int failed = status != CRYO_OK, any = 0;
  CRYO_CHECK(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, x->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "forcing = 'oasis': MPI_Allreduce failed before %s", before);
  if (failed) return status;
  CRYO_CHECK(!any, err, CRYO_ERR_COUPLING,
             "forcing = 'oasis': another rank of the component failed before %s (its message "
             "says why); no rank calls it",
             before);
  return CRYO_OK;
}

static int set_names(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  oasis_impl *o = calloc(1, sizeof *o);
  CRYO_CHECK(o, err, CRYO_ERR_MEMORY, "oasis exchange: out of memory");
  x->impl = o;
  x->ops = &oasis_ops;
  const cryo_block *b = &x->block;
  o->owned = malloc(sizeof(double) * (size_t)b->nx * b->ny);
  CRYO_CHECK(o->owned, err, CRYO_ERR_MEMORY, "oasis exchange: out of memory for %d x %d cells",
             b->nx, b->ny);
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    o->var[f] = -1;
    if (cryo_exchange_fields[f].model != x->model) continue;
    const char *n =
        cfg->oasis_names[f] && cfg->oasis_names[f][0] ? cfg->oasis_names[f] : default_names[f];
    CRYO_CHECK(strlen(n) <= CRYO_OASIS_VAR_NAME_MAX, err, CRYO_ERR_RANGE,
               "forcing = 'oasis': OASIS name '%s' of field %s has more than %d characters", n,
               cryo_exchange_fields[f].name, CRYO_OASIS_VAR_NAME_MAX);
    strcpy(o->names[f], n);
  }
  return CRYO_OK;
}

/* Partition, fields and (on rank 0) the grid: everything before enddef. */
static int define(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  oasis_impl *o = impl_of(x);
  const cryo_block *b = &x->block;
  int kparal[CRYO_OASIS_BOX_PARAMS], part;
  CRYO_CALL(cryo_oasis_box_kparal(kparal, b->i0, b->j0, b->nx, b->ny, b->nx_global, err));
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, CRYO_OASIS_BOX_PARAMS,
                                     b->nx_global * b->ny_global, err));
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    if (!o->names[f][0]) continue;
    int kinout = cryo_exchange_fields[f].dir == CRYO_FIELD_IN ? CRYO_OASIS_IN : CRYO_OASIS_OUT;
    CRYO_CALL(cryo_oasis_def_var(&o->var[f], o->names[f], part, kinout, err));
  }
  int rank;
  CRYO_CHECK(MPI_Comm_rank(x->comm, &rank) == MPI_SUCCESS, err, CRYO_ERR_MPI,
             "forcing = 'oasis': MPI_Comm_rank failed");
  /* x->comm is congruent with OASIS's local communicator (check_comm): its
   * rank 0 is the component's root, the one rank the grid API accepts. */
  const char *grid = cfg->oasis_grid_name ? cfg->oasis_grid_name : default_grid_name;
  if (rank == 0 && grid[0])
    CRYO_CALL(
        cryo_oasis_write_plane_grid(grid, b->nx_global, b->ny_global, 0.0, 0.0, b->dx, b->dy, err));
  return CRYO_OK;
}

int cryo_exchange_oasis_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  const char *comp =
      cfg->oasis_component && cfg->oasis_component[0] ? cfg->oasis_component : "cryody";
  CRYO_CHECK(!defined, err, CRYO_ERR_STATE,
             "forcing = 'oasis': this process already defined its OASIS coupling fields; "
             "OASIS3-MCT allows one exchange per process and run");
  CRYO_CALL(check_comm(x, comp, err));
  defined = 1;
  CRYO_CALL(agree(x, set_names(x, cfg, err), "oasis_def_partition", err));
  /* An error after this leaves OASIS in its definition phase; the driver
   * aborts the coupled run (cryo_coupler_abort), the only way to stop the
   * partners. */
  CRYO_CALL(agree(x, define(x, cfg, err), "oasis_enddef", err));
  return cryo_oasis_enddef(err);
}
