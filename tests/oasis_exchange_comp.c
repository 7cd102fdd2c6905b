/* Test component "cryody" for the OASIS exchange provider (coupling/exchange_oasis.c)
 * against the toy ocean (tests/test_oasis_exchange.sh; docs/design.md, Coupling; issue 5).
 *
 * It joins the coupled run as the cryodyn driver does (cryo_coupler_init), splits
 * the nx x ny grid into a 2-D block decomposition (MPI_Dims_create) and creates the
 * sea-ice exchange with provider "oasis" on that block, so OASIS gets one box
 * partition per rank. Each coupling interval [t, t + period] it gets the four IN
 * fields at t (ocean current and wind from the toy) and, like the component, puts
 * the six OUT fields at t + period, filled with toy_pattern() values of the step,
 * which the toy ocean checks with --check pattern.
 * Asserted, exactly (tolerance 0: the coupler and the ring fill only move values):
 * every received owned cell equals toy_forcing() at that global cell, and every
 * halo-ring cell equals toy_forcing() at the cell that supplies it (wrapped with
 * --periodic-x, else clamped to the domain edge). Prints
 * "oasis_exchange_comp: PASS ..." on local rank 0 and exits 0, or prints FAIL and
 * exits 1; a cryodyn error is printed as "oasis_exchange_comp: error: <message>"
 * and stops the whole run with exit code 2.
 *
 *   oasis_exchange_comp [toy options: --nx --ny --run --period --ocean --u0 --v0
 *                        --uwind --vwind] [--periodic-x 0|1] [--check ...] */
#include "cryo_coupler.h"
#include "cryo_exchange.h"
#include "toy_ocean_fields.h"

#include <mpi.h>

/* The exchange's field for each toy field. */
static const int recv_field[TOY_NOCN] = {[TOY_OCN_U] = CRYO_F_UOCEAN,
                                         [TOY_OCN_V] = CRYO_F_VOCEAN,
                                         [TOY_AIR_U] = CRYO_F_UWIND,
                                         [TOY_AIR_V] = CRYO_F_VWIND};
static const int send_field[TOY_NICE] = {
    [TOY_ICE_U] = CRYO_F_UICE,   [TOY_ICE_V] = CRYO_F_VICE,       [TOY_ICE_FRC] = CRYO_F_AICE,
    [TOY_ICE_TCK] = CRYO_F_HICE, [TOY_ICE_TAUX] = CRYO_F_TAUX_IO, [TOY_ICE_TAUY] = CRYO_F_TAUY_IO};

typedef struct options {
  toy_setup s;
  int periodic_x;
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  toy_setup_defaults(&o->s);
  o->periodic_x = 0;
  for (int a = 1; a < argc; a++) {
    char msg[256];
    int used = toy_parse_option(argc, argv, &a, &o->s, msg, sizeof msg);
    CRYO_CHECK(used >= 0, err, CRYO_ERR_RANGE, "%s", msg);
    if (used) continue;
    /* Besides the shared options: --periodic-x 0|1, and the toy ocean's --check,
     * which the test script passes to both programs and this one ignores. */
    const char *flag = argv[a];
    CRYO_CHECK(!strcmp(flag, "--periodic-x") || !strcmp(flag, "--check"), err, CRYO_ERR_UNKNOWN,
               "unknown option %s", flag);
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "option %s needs a value", flag);
    const char *val = argv[++a];
    if (!strcmp(flag, "--periodic-x")) {
      CRYO_CHECK(!strcmp(val, "0") || !strcmp(val, "1"), err, CRYO_ERR_RANGE,
                 "--periodic-x %s: must be 0 or 1", val);
      o->periodic_x = val[0] == '1';
    }
  }
  CRYO_CHECK(o->s.run % o->s.period == 0, err, CRYO_ERR_RANGE,
             "--run %d s is not a multiple of --period %d s", o->s.run, o->s.period);
  return CRYO_OK;
}

/* This rank's block of a balanced 2-D decomposition of nx x ny over `size` ranks. */
static int decompose(int rank, int size, const options *o, cryo_block *b, cryo_err *err) {
  int dims[2] = {0, 0}, nx = o->s.nx, ny = o->s.ny;
  CRYO_CHECK(MPI_Dims_create(size, 2, dims) == MPI_SUCCESS, err, CRYO_ERR_MPI,
             "MPI_Dims_create(%d, 2) failed", size);
  CRYO_CHECK(dims[0] <= nx && dims[1] <= ny, err, CRYO_ERR_RANGE,
             "%d x %d ranks do not fit a %d x %d grid", dims[0], dims[1], nx, ny);
  int pi = rank % dims[0], pj = rank / dims[0];
  *b = (cryo_block){
      .nx_global = nx, .ny_global = ny, .dx = 1e4, .dy = 1e4, .periodic_x = o->periodic_x};
  b->i0 = (int)((long)pi * nx / dims[0]);
  b->nx = (int)((long)(pi + 1) * nx / dims[0]) - b->i0;
  b->j0 = (int)((long)pj * ny / dims[1]);
  b->ny = (int)((long)(pj + 1) * ny / dims[1]) - b->j0;
  return CRYO_OK;
}

/* Global cell that supplies position g of a dimension of n cells (exchange.c's rule). */
static int source(int g, int n, int periodic) {
  if (periodic) return (g % n + n) % n;
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* Compare field k of buf (owned cells and ring) with what the toy sent. */
static long count_wrong(const options *o, const cryo_block *b, int k, const double *buf, int rank,
                        int step, long nbad_before) {
  long bad = 0;
  for (int j = -1; j <= b->ny; j++)
    for (int i = -1; i <= b->nx; i++) {
      int si = source(b->i0 + i, b->nx_global, b->periodic_x);
      int sj = source(b->j0 + j, b->ny_global, 0);
      double want[TOY_NOCN], got = buf[CRYO_CELL(b, i, j)];
      toy_forcing(&o->s, si, sj, want);
      if (got != want[k]) {
        if (nbad_before + bad == 0)
          fprintf(stderr,
                  "rank %d step %d field %s cell (%d, %d) (local %d, %d): received %.17g, "
                  "sent %.17g\n",
                  rank, step, toy_ice_recv[k], b->i0 + i, b->j0 + j, i, j, got, want[k]);
        bad++;
      }
    }
  return bad;
}

/* Couple for the whole run; *bad: received values (all ranks) that differ from
 * what the toy ocean sent; *checked: values compared. */
static int run_exchange(const options *o, MPI_Comm comm, long *bad, long *checked, cryo_err *err) {
  const toy_setup *s = &o->s;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  cryo_block b;
  CRYO_CALL(decompose(rank, size, o, &b, err));
  cryo_exchange_config cfg = {.oasis_component = "cryody"};
  cryo_exchange *x;
  CRYO_CALL(cryo_exchange_create(&x, "oasis", CRYO_MODEL_SEAICE, &b, comm, &cfg, err));
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  if (!buf) cryo_exchange_destroy(&x);
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "no memory for %ld cells", CRYO_NCELL(&b));
  long nglobal = (long)s->nx * s->ny, nbad = 0;
  int status = CRYO_OK, nsteps = s->run / s->period;
  for (int step = 0; step < nsteps && status == CRYO_OK; step++) {
    double t = (double)step * s->period;
    for (int k = 0; k < TOY_NOCN && status == CRYO_OK; k++) {
      for (long q = 0; q < CRYO_NCELL(&b); q++)
        buf[q] = NAN;
      status = cryo_exchange_get(x, t, recv_field[k], buf, err);
      if (status == CRYO_OK) nbad += count_wrong(o, &b, k, buf, rank, step, nbad);
    }
    for (int k = 0; k < TOY_NICE && status == CRYO_OK; k++) {
      for (int j = 0; j < b.ny; j++)
        for (int i = 0; i < b.nx; i++)
          buf[CRYO_CELL(&b, i, j)] =
              toy_pattern(k, step, (long)(b.j0 + j) * s->nx + b.i0 + i, nglobal);
      status = cryo_exchange_put(x, t + s->period, send_field[k], buf, err);
    }
  }
  free(buf);
  cryo_exchange_destroy(&x);
  CRYO_CALL(status);
  long local[2] = {nbad, CRYO_NCELL(&b) * TOY_NOCN * nsteps}, total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "MPI_Allreduce of the check counts failed");
  *bad = total[0];
  *checked = total[1];
  return CRYO_OK;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank = 0;
  long bad = 0, checked = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
  int status = parse_options(argc, argv, &o, &err);
  /* Join even after a bad option, so that the abort stops every component instead
   * of leaving the toy ocean waiting. */
  int joined = cryo_coupler_init("cryody", &comm);
  if (status == CRYO_OK && joined != CRYO_OK)
    status =
        cryo_err_set(&err, joined, __FILE__, __LINE__, __func__, "%s", cryo_coupler_last_error());
  if (status == CRYO_OK) {
    MPI_Comm_rank(comm, &rank);
    status = run_exchange(&o, comm, &bad, &checked, &err);
  }
  if (status == CRYO_OK && cryo_coupler_finalize() != CRYO_OK)
    status = cryo_err_set(&err, CRYO_ERR_COUPLING, __FILE__, __LINE__, __func__, "%s",
                          cryo_coupler_last_error());
  if (status != CRYO_OK) {
    fprintf(stderr, "oasis_exchange_comp: error: %s [%s]\n", err.msg, cryo_status_name(status));
    cryo_coupler_abort(2);
  }
  if (bad > 0) {
    if (rank == 0)
      printf("oasis_exchange_comp: FAIL: %ld of %ld received values differ from the sent ones\n",
             bad, checked);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0)
    printf("oasis_exchange_comp: PASS: %ld received values equal the sent ones exactly "
           "(owned cells and halo ring, %d steps, %d x %d grid)\n",
           checked, o.s.run / o.s.period, o.s.nx, o.s.ny);
  MPI_Finalize();
  return 0;
}
