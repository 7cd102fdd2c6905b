/* The parts of the exchange layer that every provider shares
 * (docs/design.md, Coupling): the table of coupling fields, provider
 * selection, argument checks, and the halo-ring fill for providers that only
 * know this rank's owned cells. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* CRYO_HAVE_OASIS */
#endif

#include "cryo_exchange.h"

#include <stdlib.h>
#include <string.h>

const cryo_field_info cryo_exchange_fields[CRYO_NFIELD] = {
    [CRYO_F_UWIND] = {"uwind", "m s-1", "x_wind", "wind velocity along x", CRYO_FIELD_IN,
                      CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_VWIND] = {"vwind", "m s-1", "y_wind", "wind velocity along y", CRYO_FIELD_IN,
                      CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_UOCEAN] = {"uocean", "m s-1", "sea_water_x_velocity", "ocean surface velocity along x",
                       CRYO_FIELD_IN, CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_VOCEAN] = {"vocean", "m s-1", "sea_water_y_velocity", "ocean surface velocity along y",
                       CRYO_FIELD_IN, CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_UICE] = {"uice", "m s-1", "sea_ice_x_velocity", "sea ice velocity along x",
                     CRYO_FIELD_OUT, CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_VICE] = {"vice", "m s-1", "sea_ice_y_velocity", "sea ice velocity along y",
                     CRYO_FIELD_OUT, CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_AICE] = {"aice", "1", "sea_ice_area_fraction", "sea ice concentration", CRYO_FIELD_OUT,
                     CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_HICE] = {"hice", "m", "sea_ice_thickness", "sea ice thickness (volume per cell area)",
                     CRYO_FIELD_OUT, CRYO_AT_CELL, CRYO_MODEL_SEAICE},
    [CRYO_F_TAUX_IO] = {"taux_io", "Pa", "upward_x_stress_at_sea_ice_base",
                        "stress of the ocean on the sea ice along x", CRYO_FIELD_OUT, CRYO_AT_CELL,
                        CRYO_MODEL_SEAICE},
    [CRYO_F_TAUY_IO] = {"tauy_io", "Pa", "upward_y_stress_at_sea_ice_base",
                        "stress of the ocean on the sea ice along y", CRYO_FIELD_OUT, CRYO_AT_CELL,
                        CRYO_MODEL_SEAICE},
    [CRYO_F_SMB] = {"smb", "kg m-2 s-1", "land_ice_surface_specific_mass_balance_flux",
                    "surface mass balance (positive for mass gain)", CRYO_FIELD_IN, CRYO_AT_CELL,
                    CRYO_MODEL_LANDICE},
    [CRYO_F_BASAL_MELT] = {"basal_melt", "kg m-2 s-1", "",
                           "sub-shelf melt flux (positive for mass loss)", CRYO_FIELD_IN,
                           CRYO_AT_CELL, CRYO_MODEL_LANDICE},
    [CRYO_F_THK] = {"thk", "m", "land_ice_thickness", "land ice thickness", CRYO_FIELD_OUT,
                    CRYO_AT_CELL, CRYO_MODEL_LANDICE},
    [CRYO_F_USURF] = {"usurf", "m", "surface_altitude", "ice surface elevation", CRYO_FIELD_OUT,
                      CRYO_AT_CELL, CRYO_MODEL_LANDICE},
    [CRYO_F_ICEMASK] = {"icemask", "1", "land_ice_area_fraction", "land ice mask (1: ice)",
                        CRYO_FIELD_OUT, CRYO_AT_CELL, CRYO_MODEL_LANDICE},
};

/* Plan of the halo-ring fill: for each rank, which of our owned cells it needs
 * (send) and which of our ring cells it owns (recv), both in the order of a
 * row-major walk over the receiver's ring, so the two lists match. */
struct cryo_exchange_ring {
  int nrank;
  long nlocal; /* ring cells whose source is one of our own cells */
  long *local_dst, *local_src;
  int *recv_off, *send_off; /* per rank, nrank + 1 offsets */
  long *recv_idx, *send_idx;
  double *recv_buf, *send_buf;
  MPI_Request *req;
};

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

int cryo_exchange_create(cryo_exchange **x, const char *provider, cryo_model_kind model,
                         const cryo_block *block, MPI_Comm comm, const cryo_exchange_config *cfg,
                         cryo_err *err) {
  CRYO_CHECK(x && provider && block && cfg, err, CRYO_ERR_ARG,
             "cryo_exchange_create: NULL argument");
  *x = NULL;
  CRYO_CHECK(model == CRYO_MODEL_SEAICE || model == CRYO_MODEL_LANDICE, err, CRYO_ERR_ARG,
             "cryo_exchange_create: model %d is neither sea ice nor land ice", (int)model);
  CRYO_CALL(check_block(block, err));
  int p = -1;
  for (int k = 0; k < (int)(sizeof providers / sizeof providers[0]); ++k)
    if (strcmp(provider, providers[k].name) == 0) p = k;
  CRYO_CHECK(p >= 0, err, CRYO_ERR_RANGE,
             "forcing = '%s' is not a known provider; allowed: 'netcdf', 'host', 'oasis'",
             provider);
  cryo_exchange *e = calloc(1, sizeof *e);
  CRYO_CHECK(e, err, CRYO_ERR_MEMORY, "exchange: out of memory");
  e->model = model;
  e->block = *block;
  if (MPI_Comm_dup(comm, &e->comm) != MPI_SUCCESS) {
    free(e);
    return CRYO_ERROR(err, CRYO_ERR_MPI, "exchange: MPI_Comm_dup failed");
  }
  int status = providers[p].create(e, cfg, err);
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

static int check_host_call(const cryo_exchange *x, int field, cryo_field_dir dir, long n,
                           const char *what, cryo_err *err) {
  CRYO_CHECK(x->ops->set_field && x->ops->get_field, err, CRYO_ERR_STATE,
             "%s works with forcing = 'host' only (this run uses '%s')", what, x->ops->name);
  CRYO_CALL(check_field(x, field, dir, what, err));
  long want = (long)x->block.nx * x->block.ny;
  CRYO_CHECK(n == want, err, CRYO_ERR_ARG,
             "%s: field '%s' has %ld values on this rank (%d x %d cells), not %ld", what,
             cryo_exchange_fields[field].name, want, x->block.nx, x->block.ny, n);
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

static void ring_destroy(cryo_exchange_ring *r) {
  if (!r) return;
  free(r->local_dst);
  free(r->local_src);
  free(r->recv_off);
  free(r->send_off);
  free(r->recv_idx);
  free(r->send_idx);
  free(r->recv_buf);
  free(r->send_buf);
  free(r->req);
  free(r);
}

void cryo_exchange_destroy(cryo_exchange **x) {
  if (!x || !*x) return;
  cryo_exchange *e = *x;
  if (e->ops && e->ops->destroy) e->ops->destroy(e);
  ring_destroy(e->ring);
  if (e->comm != MPI_COMM_NULL) MPI_Comm_free(&e->comm);
  free(e);
  *x = NULL;
}

/* Global cell that supplies global ring position g in a dimension of n cells:
 * wrapped when periodic, else clamped to the nearest domain cell. */
static int ring_source(int g, int n, int periodic) {
  if (periodic) return (g % n + n) % n;
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* Rank whose block (boxes[4r..4r+3] = i0, j0, nx, ny) owns global cell (gi, gj). */
static int ring_owner(const int *boxes, int nrank, int gi, int gj) {
  for (int r = 0; r < nrank; ++r) {
    const int *bx = boxes + 4 * r;
    if (gi >= bx[0] && gi < bx[0] + bx[2] && gj >= bx[1] && gj < bx[1] + bx[3]) return r;
  }
  return -1;
}

/* RING_FOR(w, li, si, sj, BODY) walks the ring of box w.bx row by row and runs
 * BODY with li, the ring cell's index in that box's CRYO_CELL layout, and
 * (si, sj), the global cell that supplies it. */
typedef struct ring_walk {
  const cryo_block *b;
  const int *bx;
} ring_walk;

#define RING_FOR(w, li, si, sj, BODY)                                                              \
  for (int rj_ = -1; rj_ <= (w).bx[3]; ++rj_)                                                      \
    for (int ri_ = -1; ri_ <= (w).bx[2]; ++ri_) {                                                  \
      if (ri_ >= 0 && ri_ < (w).bx[2] && rj_ >= 0 && rj_ < (w).bx[3]) continue;                    \
      long li = (long)(rj_ + 1) * ((w).bx[2] + 2) + (ri_ + 1);                                     \
      int si = ring_source((w).bx[0] + ri_, (w).b->nx_global, (w).b->periodic_x);                  \
      int sj = ring_source((w).bx[1] + rj_, (w).b->ny_global, (w).b->periodic_y);                  \
      BODY                                                                                         \
    }

static int ring_plan(cryo_exchange *x, cryo_err *err) {
  const cryo_block *b = &x->block;
  int nrank, me;
  MPI_Comm_size(x->comm, &nrank);
  MPI_Comm_rank(x->comm, &me);
  int mine[4] = {b->i0, b->j0, b->nx, b->ny};
  int *boxes = malloc(sizeof(int) * 4 * (size_t)nrank);
  cryo_exchange_ring *r = calloc(1, sizeof *r);
  if (!boxes || !r) {
    free(boxes);
    free(r);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory for the halo-ring plan");
  }
  x->ring = r;
  r->nrank = nrank;
  if (MPI_Allgather(mine, 4, MPI_INT, boxes, 4, MPI_INT, x->comm) != MPI_SUCCESS) {
    free(boxes);
    return CRYO_ERROR(err, CRYO_ERR_MPI, "exchange: MPI_Allgather of the block extents failed");
  }
  long nring = 2L * (b->nx + 2) + 2L * b->ny;
  r->recv_off = calloc((size_t)nrank + 1, sizeof(int));
  r->send_off = calloc((size_t)nrank + 1, sizeof(int));
  r->local_dst = malloc(sizeof(long) * (size_t)nring);
  r->local_src = malloc(sizeof(long) * (size_t)nring);
  r->recv_idx = malloc(sizeof(long) * (size_t)nring);
  r->req = malloc(sizeof(MPI_Request) * 2 * (size_t)nrank);
  int status = CRYO_OK;
  if (!r->recv_off || !r->send_off || !r->local_dst || !r->local_src || !r->recv_idx || !r->req)
    status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory for the halo-ring plan");
  /* Our ring: local copies, and per owner rank the cells to receive. */
  ring_walk w = {b, mine};
  int *fill = NULL;
  if (status == CRYO_OK) {
    RING_FOR(w, li, si, sj, {
      (void)li;
      int q = ring_owner(boxes, nrank, si, sj);
      if (q < 0 && status == CRYO_OK)
        status = CRYO_ERROR(err, CRYO_ERR_ARG,
                            "exchange: no rank owns global cell (%d, %d): the blocks do not "
                            "cover the %d x %d grid",
                            si, sj, b->nx_global, b->ny_global);
      if (q >= 0 && q != me) r->recv_off[q + 1]++;
    })
  }
  if (status == CRYO_OK) {
    for (int q = 0; q < nrank; ++q)
      r->recv_off[q + 1] += r->recv_off[q];
    fill = malloc(sizeof(int) * (size_t)nrank);
    if (!fill) status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory");
  }
  if (status == CRYO_OK) {
    memcpy(fill, r->recv_off, sizeof(int) * (size_t)nrank);
    RING_FOR(w, li, si, sj, {
      int q = ring_owner(boxes, nrank, si, sj);
      if (q == me) {
        r->local_dst[r->nlocal] = li;
        r->local_src[r->nlocal++] = CRYO_CELL(b, si - b->i0, sj - b->j0);
      } else {
        r->recv_idx[fill[q]++] = li;
      }
    })
    /* Other ranks' rings, walked in the same order: the cells we own. */
    for (int q = 0; q < nrank; ++q) {
      if (q == me) continue;
      ring_walk wq = {b, boxes + 4 * q};
      RING_FOR(wq, li, si, sj, {
        (void)li;
        if (ring_owner(mine, 1, si, sj) == 0) r->send_off[q + 1]++;
      })
    }
    for (int q = 0; q < nrank; ++q)
      r->send_off[q + 1] += r->send_off[q];
    r->send_idx = malloc(sizeof(long) * ((size_t)r->send_off[nrank] + 1));
    r->send_buf = malloc(sizeof(double) * ((size_t)r->send_off[nrank] + 1));
    r->recv_buf = malloc(sizeof(double) * ((size_t)r->recv_off[nrank] + 1));
    if (!r->send_idx || !r->send_buf || !r->recv_buf)
      status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory");
  }
  if (status == CRYO_OK) {
    long n = 0;
    for (int q = 0; q < nrank; ++q) {
      if (q == me) continue;
      ring_walk wq = {b, boxes + 4 * q};
      RING_FOR(wq, li, si, sj, {
        (void)li;
        if (ring_owner(mine, 1, si, sj) == 0)
          r->send_idx[n++] = CRYO_CELL(b, si - b->i0, sj - b->j0);
      })
    }
  }
  free(fill);
  free(boxes);
  if (status != CRYO_OK) {
    ring_destroy(r);
    x->ring = NULL;
  }
  return status;
}

int cryo_exchange_fill_ring(cryo_exchange *x, double *buf, cryo_err *err) {
  if (!x->ring) CRYO_CALL(ring_plan(x, err));
  cryo_exchange_ring *r = x->ring;
  const int tag = 731;
  int nreq = 0, ok = 1;
  for (int q = 0; q < r->nrank; ++q) {
    int n = r->recv_off[q + 1] - r->recv_off[q];
    if (n > 0)
      ok &= MPI_Irecv(r->recv_buf + r->recv_off[q], n, MPI_DOUBLE, q, tag, x->comm,
                      &r->req[nreq++]) == MPI_SUCCESS;
  }
  for (int q = 0; q < r->nrank; ++q) {
    int n = r->send_off[q + 1] - r->send_off[q];
    for (int k = r->send_off[q]; k < r->send_off[q + 1]; ++k)
      r->send_buf[k] = buf[r->send_idx[k]];
    if (n > 0)
      ok &= MPI_Isend(r->send_buf + r->send_off[q], n, MPI_DOUBLE, q, tag, x->comm,
                      &r->req[nreq++]) == MPI_SUCCESS;
  }
  for (long k = 0; k < r->nlocal; ++k)
    buf[r->local_dst[k]] = buf[r->local_src[k]];
  ok &= MPI_Waitall(nreq, r->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
  CRYO_CHECK(ok, err, CRYO_ERR_MPI, "exchange: MPI failed while filling the halo ring");
  for (int k = 0; k < r->recv_off[r->nrank]; ++k)
    buf[r->recv_idx[k]] = r->recv_buf[k];
  return CRYO_OK;
}
