/* The cryodyn side of the OASIS exchange tests (tests/oasis_comp.h). */
#include "oasis_comp.h"

/* The exchange's field for each toy field. */
static const int recv_field[TOY_NOCN] = {[TOY_OCN_U] = CRYO_F_UOCEAN,
                                         [TOY_OCN_V] = CRYO_F_VOCEAN,
                                         [TOY_AIR_U] = CRYO_F_UWIND,
                                         [TOY_AIR_V] = CRYO_F_VWIND};
static const int send_field[TOY_NICE] = {
    [TOY_ICE_U] = CRYO_F_UICE,   [TOY_ICE_V] = CRYO_F_VICE,       [TOY_ICE_FRC] = CRYO_F_AICE,
    [TOY_ICE_TCK] = CRYO_F_HICE, [TOY_ICE_TAUX] = CRYO_F_TAUX_IO, [TOY_ICE_TAUY] = CRYO_F_TAUY_IO};

/* A balanced 2-D decomposition of the grid over the ranks of comm
 * (MPI_Dims_create), as the component's own grid is. */
static int decompose(const oasis_comp *c, MPI_Comm comm, cryo_grid *g, cryo_err *err) {
  int size, dims[2] = {0, 0};
  CRYO_MPI(MPI_Comm_size(comm, &size), "MPI_Comm_size", err);
  CRYO_MPI(MPI_Dims_create(size, 2, dims), "MPI_Dims_create", err);
  return cryo_grid_create(g, comm, c->nx, c->ny, c->dx, c->dy, dims[0], dims[1], c->periodic_x, 0,
                          err);
}

/* Couple for the whole run. */
static int couple(const oasis_comp *c, MPI_Comm comm, void *ctx, cryo_err *err) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  cryo_grid g;
  int status = decompose(c, comm, &g, err);
  const cryo_block b = g.block;
  cryo_exchange_config cfg = {.oasis_component = "cryody"};
  cryo_exchange *x = NULL;
  if (status == CRYO_OK)
    status = cryo_exchange_create(&x, "oasis", CRYO_MODEL_SEAICE, &g, &cfg, err);
  cryo_grid_destroy(&g);
  CRYO_CALL(status);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  if (!buf) cryo_exchange_destroy(&x);
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "no memory for %ld cells", CRYO_NCELL(&b));
  const int nsteps = c->run / c->period;
  for (int step = 0; step < nsteps && status == CRYO_OK; step++) {
    double t = (double)step * c->period;
    for (int k = 0; k < TOY_NOCN && status == CRYO_OK; k++) {
      for (long q = 0; q < CRYO_NCELL(&b); q++)
        buf[q] = NAN;
      status = cryo_exchange_get(x, t, recv_field[k], buf, err);
      if (status == CRYO_OK) c->received(ctx, &b, k, step, buf, rank);
    }
    for (int k = 0; k < TOY_NICE && status == CRYO_OK; k++) {
      c->fill(ctx, &b, k, step, buf);
      status = cryo_exchange_put(x, t + c->period, send_field[k], buf, err);
    }
  }
  free(buf);
  cryo_exchange_destroy(&x);
  CRYO_CALL(status);
  return c->finish(ctx, &b, CRYO_NCELL(&b) * TOY_NOCN * nsteps, comm, err);
}

void oasis_comp_run(const oasis_comp *c, int parsed, void *ctx, int *rank, cryo_err *err) {
  MPI_Init(NULL, NULL);
  MPI_Comm comm = MPI_COMM_WORLD;
  int status = parsed;
  *rank = 0;
  int joined = cryo_coupler_init("cryody", &comm);
  if (status == CRYO_OK && joined != CRYO_OK)
    status =
        cryo_err_set(err, joined, __FILE__, __LINE__, __func__, "%s", cryo_coupler_last_error());
  if (status == CRYO_OK) {
    MPI_Comm_rank(comm, rank);
    status = couple(c, comm, ctx, err);
  }
  if (status == CRYO_OK && cryo_coupler_finalize() != CRYO_OK)
    status = cryo_err_set(err, CRYO_ERR_COUPLING, __FILE__, __LINE__, __func__, "%s",
                          cryo_coupler_last_error());
  if (status != CRYO_OK) {
    fprintf(stderr, "%s: error: %s [%s]\n", c->program, err->msg, cryo_status_name(status));
    cryo_coupler_abort(2);
  }
}
