/* OASIS3-MCT provider (forcing = 'oasis', docs/design.md, Coupling):
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
 * - The component describes its own grid to OASIS as grid
 *   cfg->oasis_grid_name (default default_grid_name; "" skips it, for
 *   same-grid couplings that need no remapping), before enddef, where OASIS
 *   writes grids.nc, masks.nc and areas.nc one component at a time and
 *   computes any SCRIP weights. The built-in box (cryo_oasis_write_plane_grid):
 *   the block's global grid of dx x dy cells with its lower-left corner at the
 *   origin, laid along the equator, every cell valid; rank 0 computes it from
 *   the grid geometry (no gather: the grid is uniform). A grid file
 *   (describe_file_grid): every rank's owned cells gathered to rank 0, as the
 *   file gives them: centres and the 4 corners in the file's order, which is
 *   the counterclockwise order SCRIP's conservative remapping needs (its line
 *   integrals give the area with that sign); on the sphere longitudes and
 *   latitudes in degrees, a planar file's metres laid along the equator as
 *   the box is (cryo_oasis_plane_point). Areas in m2 (OASIS3-MCT divides them
 *   by its Earth radius squared for its CONSERV post-processing; SCRIP itself
 *   computes its own from the corners): the file's area, else the area 4 d0
 *   the dynamics integrates with. The mask in OASIS's convention, 0 valid and
 *   1 masked (SCRIP's scriprmp and the CONSERV post-processing of
 *   OASIS3-MCT 2.0 take mask 0 as the active points): land cells of the file
 *   or of mask_file are masked. A namcouple without remapping never reads the
 *   files, so the same-grid setups are unaffected; writing always keeps one
 *   code path and costs one global grid on rank 0 (11 doubles a cell) once per
 *   run.
 * - A grid file periodic in x is described as it is, no column repeated;
 *   a T fold's copied half of the top row is masked with the land, so that
 *   remappings and OASIS's global integrals count each cell once
 *   (docs/global.md, Coupling through OASIS). Before enddef rank 0 checks
 *   that every namcouple grid line naming the grid gives its sizes and
 *   'P 0' (periodic grid file) or 'R 0' (any other grid).
 * - Land ice may receive the Glen rate factor per layer
 *   (cfg->oasis_rate_factor: PREFIX01 ... PREFIXnn, cryo_exchange_get_layers).
 * - Sea ice receives wind as well as ocean current (I_Uwind1, I_Vwind1): the
 *   partner sends whatever wind it has (examples/toy_ocean sends a uniform
 *   one), so one coupled setup needs no forcing file.
 */
#include "cryo_coupler.h"
#include "cryo_exchange.h"
#include "cryo_gridfile.h"
#include "cryo_mpi.h"
#include "cryo_oasis.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
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
    [CRYO_F_SSH] = "I_SSHght",
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
  /* land ice: the rate factor's namcouple name prefix ("" when it is not
   * received), its layers and their OASIS variable ids */
  char rf_prefix[CRYO_OASIS_VAR_NAME_MAX - 1];
  int rf_nlev;
  int *rf_var;
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
  const cryo_block *b = &x->grid.block;
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
  CRYO_CALL(cryo_halo_exchange(x->halo, CRYO_AT_CELL, 1, 1, &buf, err));
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
  const cryo_block *b = &x->grid.block;
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

/* The namcouple name of the rate factor's layer k (0 = at the bed). */
static void rf_name(const oasis_impl *o, int k, char name[CRYO_OASIS_VAR_NAME_MAX + 1]) {
  /* k < 99 (set_names); the modulo tells the compiler so */
  snprintf(name, CRYO_OASIS_VAR_NAME_MAX + 1, "%s%02u", o->rf_prefix, (unsigned)(k + 1) % 100u);
}

static int oasis_get_layers(cryo_exchange *x, double time, int nlev, double *values,
                            cryo_err *err) {
  oasis_impl *o = impl_of(x);
  const cryo_block *b = &x->grid.block;
  CRYO_CHECK(o->rf_nlev > 0, err, CRYO_ERR_STATE,
             "forcing = 'oasis': no field with layers is received (&cryo_coupling rate_factor "
             "is '')");
  CRYO_CHECK(nlev == o->rf_nlev, err, CRYO_ERR_ARG,
             "forcing = 'oasis': %d layers of the rate factor asked for, %d coupled", nlev,
             o->rf_nlev);
  const long n = (long)b->nx * b->ny;
  for (int k = 0; k < nlev; ++k) {
    char name[CRYO_OASIS_VAR_NAME_MAX + 1];
    int date, kinfo;
    rf_name(o, k, name);
    CRYO_CALL(to_date(time, "get", name, &date, err));
    CRYO_CALL(cryo_oasis_get(o->rf_var[k], date, b->nx, b->ny, o->owned, &kinfo, err));
    CRYO_CHECK(kinfo != 0, err, CRYO_ERR_COUPLING,
               "forcing = 'oasis': field %s (rate factor, layer %d of %d from the bed) was not "
               "received at %d s: its coupling period in the namcouple must equal &cryo_run "
               "coupling_interval, and the partner must send it at every coupling date",
               name, k + 1, nlev, date);
    for (long q = 0; q < n; ++q)
      values[q * nlev + k] = o->owned[q];
    o->have_get = 1;
    o->step_date = date;
  }
  return CRYO_OK;
}

static void oasis_destroy(cryo_exchange *x) {
  oasis_impl *o = impl_of(x);
  if (!o) return;
  free(o->rf_var);
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
    .get_layers = oasis_get_layers,
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
  CRYO_MPI(MPI_Comm_compare(x->grid.comm, local, &cmp), "forcing = 'oasis': MPI_Comm_compare", err);
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
  CRYO_MPI(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, x->grid.comm),
           "forcing = 'oasis': MPI_Allreduce (ranks' status)", err);
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
  const cryo_block *b = &x->grid.block;
  o->owned = malloc(sizeof(double) * (size_t)b->nx * b->ny);
  CRYO_CHECK(o->owned, err, CRYO_ERR_MEMORY, "oasis exchange: out of memory for %d x %d cells",
             b->nx, b->ny);
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    o->var[f] = -1;
    if (cryo_exchange_fields[f].model != x->model || !cryo_exchange_field_used(cfg, f)) continue;
    const char *n =
        cfg->oasis_names[f] && cfg->oasis_names[f][0] ? cfg->oasis_names[f] : default_names[f];
    CRYO_CHECK(strlen(n) <= CRYO_OASIS_VAR_NAME_MAX, err, CRYO_ERR_RANGE,
               "forcing = 'oasis': OASIS name '%s' of field %s has more than %d characters", n,
               cryo_exchange_fields[f].name, CRYO_OASIS_VAR_NAME_MAX);
    strcpy(o->names[f], n);
  }
  const char *rf = cfg->oasis_rate_factor;
  if (x->model != CRYO_MODEL_LANDICE || !rf || !rf[0]) return CRYO_OK;
  CRYO_CHECK(strlen(rf) < sizeof o->rf_prefix, err, CRYO_ERR_RANGE,
             "forcing = 'oasis': rate factor name prefix '%s' has more than %d characters (two "
             "digits of the layer follow it)",
             rf, (int)sizeof o->rf_prefix - 1);
  CRYO_CHECK(cfg->n_layers >= 1 && cfg->n_layers <= 99, err, CRYO_ERR_RANGE,
             "forcing = 'oasis': the rate factor is received in %d layers; OASIS names give room "
             "for 1 to 99",
             cfg->n_layers);
  o->rf_var = malloc(sizeof(int) * (size_t)cfg->n_layers);
  CRYO_CHECK(o->rf_var, err, CRYO_ERR_MEMORY, "oasis exchange: out of memory");
  strcpy(o->rf_prefix, rf);
  o->rf_nlev = cfg->n_layers;
  return CRYO_OK;
}

/* What describe_file_grid gathers of each cell: centre, corners, area, mask. */
enum {
  CELL_LON,
  CELL_LAT,
  CELL_CLON,
  CELL_CLAT = CELL_CLON + CRYO_OASIS_NCORNER,
  CELL_AREA = CELL_CLAT + CRYO_OASIS_NCORNER,
  CELL_MASK,
  CELL_NVAL
};

/* lon shifted by whole turns to within 180 degrees of ref: a cell's corners
 * on the same side of the date line as its centre. */
static double lon_near(double lon, double ref) {
  return lon - 360.0 * round((lon - ref) / 360.0);
}

/* Point (x, y) of the grid file (degrees on the sphere, metres in a plane)
 * as OASIS's longitude and latitude. */
static int file_point(const cryo_gridfile *gf, double x, double y, double *lon, double *lat,
                      cryo_err *err) {
  if (gf->points.spherical) {
    *lon = x;
    *lat = y;
    return CRYO_OK;
  }
  cryo_oasis_plane_point(x, y, lon, lat);
  CRYO_CHECK(fabs(*lat) <= 80.0 && fabs(*lon - 10.0) <= 170.0, err, CRYO_ERR_RANGE,
             "forcing = 'oasis': the planar grid file's point (%g, %g) m lies at longitude %g, "
             "latitude %g degrees when laid along the equator for OASIS: planar grids must stay "
             "within 80 degrees of latitude (8900 km) and 170 of longitude of their origin",
             x, y, *lon, *lat);
  return CRYO_OK;
}

/* Whether global cell (gi, gj) is a T fold's copy of another top-row cell
 * (kernels/halo.h, cryo_halo_fold_source): OASIS must see each cell of the
 * sphere once, or a conservative remapping and its global integrals count
 * the copied cells twice. */
static int fold_copy(const cryo_block *b, int gi, int gj) {
  return b->fold == CRYO_FOLD_T && gj == b->ny_global - 1 && gi > b->nx_global / 2;
}

/* This rank's owned cells, x fastest, CELL_NVAL values each. */
static int pack_cells(const cryo_block *b, const cryo_exchange_config *cfg, double *out,
                      cryo_err *err) {
  const cryo_gridfile *gf = cfg->gridfile;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long q = CRYO_CELL(b, i, j);
      /* the corners as the reader keeps them (cryo_gridfile.h) */
      const long r = (gf->corner_first + (long)j * gf->corner_row + i) * CRYO_OASIS_NCORNER;
      double *v = out + ((long)j * b->nx + i) * CELL_NVAL;
      CRYO_CALL(file_point(gf, gf->cell_x[q], gf->cell_y[q], &v[CELL_LON], &v[CELL_LAT], err));
      for (int k = 0; k < CRYO_OASIS_NCORNER; ++k) {
        double *lon = &v[CELL_CLON + k], *lat = &v[CELL_CLAT + k];
        CRYO_CALL(file_point(gf, gf->corner_x[r + k], gf->corner_y[r + k], lon, lat, err));
        *lon = lon_near(*lon, v[CELL_LON]);
      }
      v[CELL_AREA] = isfinite(gf->area[q]) ? gf->area[q] : cfg->cell_area[q];
      v[CELL_MASK] = cfg->mask[q] != 0.0 && !fold_copy(b, b->i0 + i, b->j0 + j) ? 0.0 : 1.0;
    }
  return CRYO_OK;
}

/* Rank 0: every rank's packed cells (boxes: i0, j0, nx, ny of each) into
 * the global arrays of cryo_oasis_write_grid, and write them. */
static int write_file_grid(const char *grid, const cryo_block *b, int size, const int *boxes,
                           const int *displs, const double *all, cryo_err *err) {
  const long n = (long)b->nx_global * b->ny_global;
  double *a = malloc(sizeof(double) * (size_t)n * (3 + 2 * CRYO_OASIS_NCORNER));
  int *mask = malloc(sizeof(int) * (size_t)n);
  if (!a || !mask) {
    free(a);
    free(mask);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "OASIS grid '%s': out of memory for %d x %d cells",
                      grid, b->nx_global, b->ny_global);
  }
  double *lon = a, *lat = a + n, *area = a + 2 * n, *clon = a + 3 * n,
         *clat = clon + CRYO_OASIS_NCORNER * n;
  for (int r = 0; r < size; ++r) {
    const int *box = boxes + 4 * r;
    for (int j = 0; j < box[3]; ++j)
      for (int i = 0; i < box[2]; ++i) {
        const long g = (long)(box[1] + j) * b->nx_global + box[0] + i;
        const double *v = all + displs[r] + ((long)j * box[2] + i) * CELL_NVAL;
        lon[g] = v[CELL_LON];
        lat[g] = v[CELL_LAT];
        area[g] = v[CELL_AREA];
        mask[g] = (int)v[CELL_MASK];
        for (int k = 0; k < CRYO_OASIS_NCORNER; ++k) {
          clon[k * n + g] = v[CELL_CLON + k];
          clat[k * n + g] = v[CELL_CLAT + k];
        }
      }
  }
  int status = cryo_oasis_write_grid(grid, b->nx_global, b->ny_global, lon, lat, clon, clat, mask,
                                     area, err);
  free(a);
  free(mask);
  return status;
}

/* The cells of a grid file gathered to rank 0 and described to OASIS
 * (collective over x->grid.comm). */
static int describe_file_grid(cryo_exchange *x, const cryo_exchange_config *cfg, const char *grid,
                              cryo_err *err) {
  const cryo_block *b = &x->grid.block;
  int size, rank;
  CRYO_MPI(MPI_Comm_size(x->grid.comm, &size), "forcing = 'oasis': MPI_Comm_size", err);
  CRYO_MPI(MPI_Comm_rank(x->grid.comm, &rank), "forcing = 'oasis': MPI_Comm_rank", err);
  const long nown = (long)b->nx * b->ny;
  int status = CRYO_OK;
  if ((long)b->nx_global * b->ny_global > INT_MAX / CELL_NVAL)
    status = CRYO_ERROR(err, CRYO_ERR_RANGE,
                        "OASIS grid '%s': %d x %d cells are too many to gather (%d values a cell "
                        "must fit MPI's int counts)",
                        grid, b->nx_global, b->ny_global, CELL_NVAL);
  double *mine = malloc(sizeof(double) * (size_t)(nown > 0 ? nown : 1) * CELL_NVAL);
  int *boxes = rank == 0 ? malloc(sizeof(int) * 6 * (size_t)size) : NULL;
  double *all =
      rank == 0 ? malloc(sizeof(double) * (size_t)b->nx_global * b->ny_global * CELL_NVAL) : NULL;
  if (status == CRYO_OK && (!mine || (rank == 0 && (!boxes || !all))))
    status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "OASIS grid '%s': out of memory for %d x %d cells",
                        grid, b->nx_global, b->ny_global);
  if (status == CRYO_OK) status = pack_cells(b, cfg, mine, err);
  status = agree(x, status, "the gather of the grid description", err);
  if (status == CRYO_OK) {
    const int box[4] = {b->i0, b->j0, b->nx, b->ny};
    int *counts = boxes ? boxes + 4 * size : NULL, *displs = boxes ? boxes + 5 * size : NULL;
    status = cryo_mpi_check(MPI_Gather(box, 4, MPI_INT, boxes, 4, MPI_INT, 0, x->grid.comm),
                            "forcing = 'oasis': MPI_Gather (grid boxes)", err);
    if (status == CRYO_OK && rank == 0)
      for (int r = 0, at = 0; r < size; at += counts[r], ++r) {
        counts[r] = boxes[4 * r + 2] * boxes[4 * r + 3] * CELL_NVAL;
        displs[r] = at;
      }
    if (status == CRYO_OK)
      status = cryo_mpi_check(MPI_Gatherv(mine, (int)nown * CELL_NVAL, MPI_DOUBLE, all, counts,
                                          displs, MPI_DOUBLE, 0, x->grid.comm),
                              "forcing = 'oasis': MPI_Gatherv (grid description)", err);
    if (status == CRYO_OK && rank == 0)
      status = write_file_grid(grid, b, size, boxes, displs, all, err);
  }
  free(mine);
  free(boxes);
  free(all);
  return status;
}

/* Partition, fields and (on rank 0) the grid: everything before enddef. */
static int define(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  oasis_impl *o = impl_of(x);
  const cryo_block *b = &x->grid.block;
  int kparal[CRYO_OASIS_BOX_PARAMS], part;
  CRYO_CALL(cryo_oasis_box_kparal(kparal, b->i0, b->j0, b->nx, b->ny, b->nx_global, err));
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, CRYO_OASIS_BOX_PARAMS,
                                     b->nx_global * b->ny_global, err));
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    if (!o->names[f][0]) continue;
    int kinout = cryo_exchange_fields[f].dir == CRYO_FIELD_IN ? CRYO_OASIS_IN : CRYO_OASIS_OUT;
    CRYO_CALL(cryo_oasis_def_var(&o->var[f], o->names[f], part, kinout, err));
  }
  for (int k = 0; k < o->rf_nlev; ++k) {
    char name[CRYO_OASIS_VAR_NAME_MAX + 1];
    rf_name(o, k, name);
    CRYO_CALL(cryo_oasis_def_var(&o->rf_var[k], name, part, CRYO_OASIS_IN, err));
  }
  int rank;
  CRYO_MPI(MPI_Comm_rank(x->grid.comm, &rank), "forcing = 'oasis': MPI_Comm_rank", err);
  /* x->grid.comm is congruent with OASIS's local communicator (check_comm): its
   * rank 0 is the component's root, the one rank the grid API accepts. */
  const char *grid = cfg->oasis_grid_name ? cfg->oasis_grid_name : default_grid_name;
  /* OASIS itself takes any sizes and periodicity for a grid it only
   * redistributes, and either periodicity for SCRIP's remappings. The
   * built-in box is regional on the sphere (a patch at the equator) even
   * where its block wraps around. */
  if (rank == 0 && grid[0])
    CRYO_CALL(cryo_oasis_check_namcouple_grid("namcouple", grid, b->nx_global, b->ny_global,
                                              cfg->gridfile && b->periodic_x, err));
  if (rank == 0 && grid[0] && !cfg->gridfile)
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
  const char *grid = cfg->oasis_grid_name ? cfg->oasis_grid_name : default_grid_name;
  if (grid[0] && cfg->gridfile)
    CRYO_CALL(agree(x, describe_file_grid(x, cfg, grid, err), "oasis_enddef", err));
  return cryo_oasis_enddef(err);
}
