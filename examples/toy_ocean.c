/* Toy ocean: an OASIS partner for cryodyn's sea ice (DESIGN.md section 7).
 *
 * OASIS component "toyoce" on an nx x ny grid split into bands of rows over its
 * ranks (apple partition). Every coupling period it sends a steady gyre
 * (O_OCurx1, O_OCury1, toy_gyre in toy_ocean_fields.h) and receives the six ice
 * fields (O_IceVx1 ... O_OTauy1). Every get must return a received code: a
 * namcouple period different from --period is reported, not ignored.
 *
 *   toy_ocean [--nx N] [--ny N] [--run SECONDS] [--period SECONDS] [--u0 M_PER_S]
 *             [--check pattern|stress|none]
 *
 * --check pattern: every received value must equal toy_pattern() (the OASIS
 *   exchange test, tests/test_oasis_exchange.sh);
 * --check stress: where there is ice, the stress on the ocean must not oppose the
 *   ice velocity relative to the ocean, tau . (u_ice - u_ocean) >= 0.
 * Prints "toy_ocean: PASS ..." on rank 0 and exits 0 when every check held;
 * otherwise stops the coupled run with a message and a non-zero exit code.
 * Launch (MPMD): mpirun -np 2 cryodyn x.nml : -np 1 toy_ocean --nx 40 --ny 30 ... */
#include "cryo_oasis.h"
#include "toy_ocean_fields.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum check_kind { CHECK_NONE, CHECK_PATTERN, CHECK_STRESS };

typedef struct options {
  int nx, ny;      /* global grid size */
  int run, period; /* run length and coupling period, s */
  double u0;       /* gyre speed, m s-1 */
  enum check_kind check;
} options;

static int parse_int(const char *flag, const char *text, int min, int *value, cryo_err *err) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  CRYO_CHECK(errno == 0 && *end == '\0' && end != text && v >= min && v <= 2147483647L, err,
             CRYO_ERR_RANGE, "toy_ocean: %s %s: must be an integer >= %d", flag, text, min);
  *value = (int)v;
  return CRYO_OK;
}

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  *o = (options){.nx = 40, .ny = 30, .run = 14400, .period = 3600, .u0 = 0.1, .check = CHECK_NONE};
  for (int a = 1; a < argc; a++) {
    const char *flag = argv[a];
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "toy_ocean: option %s needs a value", flag);
    const char *val = argv[++a];
    if (!strcmp(flag, "--nx"))
      CRYO_CALL(parse_int(flag, val, 1, &o->nx, err));
    else if (!strcmp(flag, "--ny"))
      CRYO_CALL(parse_int(flag, val, 1, &o->ny, err));
    else if (!strcmp(flag, "--run"))
      CRYO_CALL(parse_int(flag, val, 1, &o->run, err));
    else if (!strcmp(flag, "--period"))
      CRYO_CALL(parse_int(flag, val, 1, &o->period, err));
    else if (!strcmp(flag, "--u0")) {
      char *end;
      o->u0 = strtod(val, &end);
      CRYO_CHECK(*end == '\0' && end != val && fabs(o->u0) < 10.0, err, CRYO_ERR_RANGE,
                 "toy_ocean: --u0 %s: must be a speed in m s-1 below 10", val);
    } else if (!strcmp(flag, "--check")) {
      if (!strcmp(val, "pattern"))
        o->check = CHECK_PATTERN;
      else if (!strcmp(val, "stress"))
        o->check = CHECK_STRESS;
      else if (!strcmp(val, "none"))
        o->check = CHECK_NONE;
      else
        return CRYO_ERROR(err, CRYO_ERR_RANGE,
                          "toy_ocean: --check %s: must be pattern, stress or none", val);
    } else {
      return CRYO_ERROR(
          err, CRYO_ERR_UNKNOWN,
          "toy_ocean: unknown option %s (known: --nx --ny --run --period --u0 --check)", flag);
    }
  }
  CRYO_CHECK(o->run % o->period == 0, err, CRYO_ERR_RANGE,
             "toy_ocean: --run %d s is not a multiple of --period %d s", o->run, o->period);
  CRYO_CHECK((long)o->nx * o->ny <= 10000000L, err, CRYO_ERR_RANGE,
             "toy_ocean: grid %d x %d has more than 1e7 points", o->nx, o->ny);
  return CRYO_OK;
}

/* Count values that fail the requested check on this rank (rows j0.., nyl rows). */
static long count_bad(const options *o, int step, int j0, int nyl, double *const ice[TOY_NICE],
                      const double *uo, const double *vo, long *first_bad) {
  long bad = 0;
  long npts = (long)o->nx * nyl;
  for (long p = 0; p < npts; p++) {
    long g = (long)j0 * o->nx + p;
    if (o->check == CHECK_PATTERN) {
      for (int k = 0; k < TOY_NICE; k++)
        if (ice[k][p] != toy_pattern(k, step, g, (long)o->nx * o->ny)) {
          if (bad == 0) *first_bad = g * TOY_NICE + k;
          bad++;
        }
    } else if (o->check == CHECK_STRESS && ice[TOY_ICE_FRC][p] > 0.0) {
      double du = ice[TOY_ICE_U][p] - uo[p], dv = ice[TOY_ICE_V][p] - vo[p];
      if (ice[TOY_ICE_TAUX][p] * du + ice[TOY_ICE_TAUY][p] * dv < 0.0) {
        if (bad == 0) *first_bad = g * TOY_NICE;
        bad++;
      }
    }
  }
  return bad;
}

/* Couple for the whole run; *bad_total: values that failed the check on all ranks. */
static int run_ocean(const options *o, int *compid, int *local_rank, long *bad_total, long *checked,
                     cryo_err *err) {
  CRYO_CALL(cryo_oasis_init_comp(compid, "toyoce", err));
  MPI_Comm comm;
  CRYO_CALL(cryo_oasis_get_localcomm(&comm, err));
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  *local_rank = rank;
  CRYO_CHECK(size <= o->ny, err, CRYO_ERR_RANGE, "toy_ocean: %d ranks for %d rows", size, o->ny);
  int j0 = (int)((long)rank * o->ny / size), j1 = (int)((long)(rank + 1) * o->ny / size);
  int nyl = j1 - j0;
  long npts = (long)o->nx * nyl;

  int kparal[3] = {CRYO_OASIS_APPLE, j0 * o->nx, (int)npts};
  int part;
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, 3, o->nx * o->ny, err));
  int id_send[TOY_NOCN], id_recv[TOY_NICE];
  for (int k = 0; k < TOY_NOCN; k++)
    CRYO_CALL(cryo_oasis_def_var(&id_send[k], toy_ocn_send[k], part, CRYO_OASIS_OUT, err));
  for (int k = 0; k < TOY_NICE; k++)
    CRYO_CALL(cryo_oasis_def_var(&id_recv[k], toy_ocn_recv[k], part, CRYO_OASIS_IN, err));
  CRYO_CALL(cryo_oasis_enddef(err));

  double *buf = malloc(sizeof(double) * (size_t)(npts > 0 ? npts : 1) * (TOY_NOCN + TOY_NICE));
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "toy_ocean: no memory for %ld points", npts);
  double *uo = buf, *vo = buf + npts, *ice[TOY_NICE];
  for (int k = 0; k < TOY_NICE; k++)
    ice[k] = buf + (2 + k) * npts;
  for (int j = 0; j < nyl; j++)
    for (int i = 0; i < o->nx; i++)
      toy_gyre(i, j0 + j, o->nx, o->ny, o->u0, &uo[(long)j * o->nx + i], &vo[(long)j * o->nx + i]);

  int status = CRYO_OK;
  long bad = 0, first_bad = -1;
  int nsteps = o->run / o->period;
  for (int s = 0; s < nsteps && status == CRYO_OK; s++) {
    int date = s * o->period, kinfo;
    status = cryo_oasis_put(id_send[0], date, o->nx, nyl, uo, &kinfo, err);
    if (status == CRYO_OK) status = cryo_oasis_put(id_send[1], date, o->nx, nyl, vo, &kinfo, err);
    for (int k = 0; k < TOY_NICE && status == CRYO_OK; k++) {
      for (long p = 0; p < npts; p++)
        ice[k][p] = NAN;
      status = cryo_oasis_get(id_recv[k], date, o->nx, nyl, ice[k], &kinfo, err);
      if (status == CRYO_OK && kinfo == 0)
        status = CRYO_ERROR(err, CRYO_ERR_COUPLING,
                            "toy_ocean: field %s was not received at date %d s: the namcouple "
                            "coupling period must equal --period %d",
                            toy_ocn_recv[k], date, o->period);
    }
    if (status == CRYO_OK) bad += count_bad(o, s, j0, nyl, ice, uo, vo, &first_bad);
  }
  free(buf);
  CRYO_CALL(status);
  if (bad > 0)
    fprintf(stderr, "toy_ocean rank %d: %ld values fail --check, first: field %s at point %ld\n",
            rank, bad, toy_ocn_recv[first_bad % TOY_NICE], first_bad / TOY_NICE);
  long local[2] = {bad, o->check == CHECK_PATTERN ? npts * TOY_NICE * nsteps : npts * nsteps};
  long total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "toy_ocean: MPI_Allreduce of the check counts failed");
  *bad_total = total[0];
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
    /* Still join the run, so that OASIS stops every component instead of hanging. */
    int ignored;
    cryo_err join_err;
    cryo_oasis_init_comp(&ignored, "toyoce", &join_err);
  } else {
    status = run_ocean(&o, &compid, &rank, &bad, &checked, &err);
  }
  if (status != CRYO_OK)
    cryo_oasis_abort(compid, cryo_status_name(status), err.msg, err.file, err.line, 2);
  if (cryo_oasis_terminate(&err) != CRYO_OK)
    cryo_oasis_abort(compid, "terminate", err.msg, err.file, err.line, 2);
  const char *what = o.check == CHECK_PATTERN  ? "received values equal the sent pattern"
                     : o.check == CHECK_STRESS ? "ice points have stress along u_ice - u_ocean"
                                               : "steps coupled (no check)";
  if (bad > 0) {
    if (rank == 0) printf("toy_ocean: FAIL: %ld of %ld values fail --check\n", bad, checked);
    return 1;
  }
  if (rank == 0)
    printf("toy_ocean: PASS: %ld %s, %d steps of %d s on a %d x %d grid\n", checked, what,
           o.run / o.period, o.period, o.nx, o.ny);
  return 0;
}
