/* Test component "cryody" for the same-grid OASIS exchange test
 * (tests/test_oasis_exchange.sh; DESIGN.md section 7, issue 5).
 *
 * Its ranks split the nx x ny grid into a 2-D block decomposition (MPI_Dims_create)
 * and give OASIS one box partition per rank, as cryodyn does. Each coupling step
 * it receives the toy ocean's gyre (I_OCurx1, I_OCury1) and sends the six ice
 * fields filled with toy_pattern() values, which the toy ocean checks with
 * --check pattern.
 * Asserted, exactly (tolerance 0: the coupler only moves values): every received
 * value equals toy_gyre() at that global point, and every get at a coupling date
 * returns a received code. Prints "oasis_exchange_comp: PASS ..." on local rank 0
 * and exits 0, or prints FAIL and exits 1; a coupling error stops the whole run
 * with its message and exit code 2.
 *
 *   oasis_exchange_comp [--nx N] [--ny N] [--run SECONDS] [--period SECONDS] [--u0 M_PER_S] */
#include "cryo_oasis.h"
#include "toy_ocean_fields.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
  int nx, ny, run, period; /* grid size; run length and coupling period in s */
  double u0;               /* the toy ocean's gyre speed, m s-1 */
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  *o = (options){.nx = 40, .ny = 30, .run = 14400, .period = 3600, .u0 = 0.1};
  for (int a = 1; a < argc; a += 2) {
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "option %s needs a value", argv[a]);
    char *end;
    errno = 0;
    if (!strcmp(argv[a], "--u0")) {
      o->u0 = strtod(argv[a + 1], &end);
    } else {
      long v = strtol(argv[a + 1], &end, 10);
      CRYO_CHECK(v >= 1 && v <= 10000000L, err, CRYO_ERR_RANGE, "%s %s: must be 1 to 1e7", argv[a],
                 argv[a + 1]);
      if (!strcmp(argv[a], "--nx"))
        o->nx = (int)v;
      else if (!strcmp(argv[a], "--ny"))
        o->ny = (int)v;
      else if (!strcmp(argv[a], "--run"))
        o->run = (int)v;
      else if (!strcmp(argv[a], "--period"))
        o->period = (int)v;
      else
        return CRYO_ERROR(err, CRYO_ERR_UNKNOWN, "unknown option %s", argv[a]);
    }
    CRYO_CHECK(errno == 0 && *end == '\0', err, CRYO_ERR_SYNTAX, "%s %s: not a number", argv[a],
               argv[a + 1]);
  }
  CRYO_CHECK(o->run % o->period == 0, err, CRYO_ERR_RANGE,
             "--run %d s is not a multiple of --period %d s", o->run, o->period);
  return CRYO_OK;
}

typedef struct block {
  int i0, j0, nxl, nyl; /* first global point (0-based) and size of this rank's box */
} block;

/* Balanced 2-D block decomposition of nx x ny over `size` ranks. */
static int decompose(int rank, int size, int nx, int ny, block *b, cryo_err *err) {
  int dims[2] = {0, 0};
  CRYO_CHECK(MPI_Dims_create(size, 2, dims) == MPI_SUCCESS, err, CRYO_ERR_MPI,
             "MPI_Dims_create(%d, 2) failed", size);
  CRYO_CHECK(dims[0] <= nx && dims[1] <= ny, err, CRYO_ERR_RANGE,
             "%d x %d ranks do not fit a %d x %d grid", dims[0], dims[1], nx, ny);
  int pi = rank % dims[0], pj = rank / dims[0];
  b->i0 = (int)((long)pi * nx / dims[0]);
  b->nxl = (int)((long)(pi + 1) * nx / dims[0]) - b->i0;
  b->j0 = (int)((long)pj * ny / dims[1]);
  b->nyl = (int)((long)(pj + 1) * ny / dims[1]) - b->j0;
  return CRYO_OK;
}

/* Couple for the whole run; *bad: received values (all ranks) that differ from
 * what the toy ocean sent; *checked: values compared. */
static int run_exchange(const options *o, int *compid, int *rank, long *bad, long *checked,
                        cryo_err *err) {
  CRYO_CALL(cryo_oasis_init_comp(compid, "cryody", err));
  MPI_Comm comm;
  CRYO_CALL(cryo_oasis_get_localcomm(&comm, err));
  int size;
  MPI_Comm_rank(comm, rank);
  MPI_Comm_size(comm, &size);
  block b = {0};
  CRYO_CALL(decompose(*rank, size, o->nx, o->ny, &b, err));
  int kparal[CRYO_OASIS_BOX_PARAMS], part;
  CRYO_CALL(cryo_oasis_box_kparal(kparal, b.i0, b.j0, b.nxl, b.nyl, o->nx, err));
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, CRYO_OASIS_BOX_PARAMS, o->nx * o->ny, err));
  int id_recv[TOY_NOCN], id_send[TOY_NICE];
  for (int k = 0; k < TOY_NOCN; k++)
    CRYO_CALL(cryo_oasis_def_var(&id_recv[k], toy_ice_recv[k], part, CRYO_OASIS_IN, err));
  for (int k = 0; k < TOY_NICE; k++)
    CRYO_CALL(cryo_oasis_def_var(&id_send[k], toy_ice_send[k], part, CRYO_OASIS_OUT, err));
  CRYO_CALL(cryo_oasis_enddef(err));

  long npts = (long)b.nxl * b.nyl, nglobal = (long)o->nx * o->ny;
  double *buf = malloc(sizeof(double) * (size_t)(npts > 0 ? npts : 1) * 2);
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "no memory for %ld points", npts);
  double *recv[TOY_NOCN] = {buf, buf + npts}, *send = buf;
  int status = CRYO_OK, nsteps = o->run / o->period;
  long nbad = 0;
  for (int s = 0; s < nsteps && status == CRYO_OK; s++) {
    int date = s * o->period, kinfo;
    for (int k = 0; k < TOY_NOCN && status == CRYO_OK; k++) {
      for (long p = 0; p < npts; p++)
        recv[k][p] = NAN;
      status = cryo_oasis_get(id_recv[k], date, b.nxl, b.nyl, recv[k], &kinfo, err);
      if (status == CRYO_OK && kinfo == 0)
        status = CRYO_ERROR(err, CRYO_ERR_COUPLING,
                            "field %s was not received at date %d s: the namcouple coupling "
                            "period must equal --period %d",
                            toy_ice_recv[k], date, o->period);
    }
    for (int j = 0; j < b.nyl && status == CRYO_OK; j++)
      for (int i = 0; i < b.nxl; i++) {
        double u, v;
        toy_gyre(b.i0 + i, b.j0 + j, o->nx, o->ny, o->u0, &u, &v);
        long p = (long)j * b.nxl + i;
        int nwrong = (recv[0][p] != u) + (recv[1][p] != v);
        if (nwrong > 0) {
          if (nbad == 0)
            fprintf(stderr,
                    "rank %d step %d point (%d, %d): received (%.17g, %.17g), sent (%.17g, "
                    "%.17g)\n",
                    *rank, s, b.i0 + i, b.j0 + j, recv[0][p], recv[1][p], u, v);
          nbad += nwrong;
        }
      }
    for (int k = 0; k < TOY_NICE && status == CRYO_OK; k++) {
      for (int j = 0; j < b.nyl; j++)
        for (int i = 0; i < b.nxl; i++)
          send[(long)j * b.nxl + i] =
              toy_pattern(k, s, (long)(b.j0 + j) * o->nx + b.i0 + i, nglobal);
      status = cryo_oasis_put(id_send[k], date, b.nxl, b.nyl, send, &kinfo, err);
    }
  }
  free(buf);
  CRYO_CALL(status);
  long local[2] = {nbad, npts * TOY_NOCN * nsteps}, total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "MPI_Allreduce of the check counts failed");
  *bad = total[0];
  *checked = total[1];
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int compid = -1, rank = 0;
  long bad = 0, checked = 0;
  int status = parse_options(argc, argv, &o, &err);
  if (status != CRYO_OK) {
    /* Still join the run, so that the abort stops every component instead of a hang. */
    int ignored;
    cryo_err join_err;
    cryo_oasis_init_comp(&ignored, "cryody", &join_err);
  } else {
    status = run_exchange(&o, &compid, &rank, &bad, &checked, &err);
  }
  if (status != CRYO_OK)
    cryo_oasis_abort(compid, cryo_status_name(status), err.msg, err.file, err.line, 2);
  if (cryo_oasis_terminate(&err) != CRYO_OK)
    cryo_oasis_abort(compid, "cryo_oasis_terminate", err.msg, err.file, err.line, 2);
  if (bad > 0) {
    if (rank == 0)
      printf("oasis_exchange_comp: FAIL: %ld of %ld received values differ from the sent ones\n",
             bad, checked);
    return 1;
  }
  if (rank == 0)
    printf("oasis_exchange_comp: PASS: %ld received values equal the sent ones exactly "
           "(%d steps, %d x %d grid)\n",
           checked, o.run / o.period, o.nx, o.ny);
  return 0;
}
