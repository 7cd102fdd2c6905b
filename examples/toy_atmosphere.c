/* Toy atmosphere: an OASIS partner for cryodyn's land ice (docs/design.md, Coupling;
 * issue 5 item 4).
 *
 * OASIS component "toyatm" on an nx x ny grid (the land-ice grid: no remapping)
 * split into bands of rows over its ranks (apple partition). Every coupling
 * period it sends the surface mass balance A_LiSmb1 (kg m-2 s-1, > 0 gain) and,
 * standing in for an ocean, a zero sub-shelf melt A_LiBmt1; it receives the ice
 * thickness A_LiThk1 (m), surface elevation A_LiSrf1 (m) and ice mask A_LiMsk1.
 *
 *   cryodyn-toy-atmosphere [--nx N] [--ny N] [--run SECONDS] [--period SECONDS]
 *                          [--smb pattern|elevation] [--rate KG_M2_S_PER_M] [--ela M]
 *                          [--rho-ice KG_M3]
 *
 * --smb pattern (default): the fixed pattern toy_smb_pattern() below, the same
 *   doubles that tests/coupled_landice.sh writes into the NetCDF forcing file of
 *   the standalone run (dyadic values: exact in the file's decimal text);
 * --smb elevation: the elevation-dependent balance smb = rate (z - ela), z the
 *   surface elevation received at the end of the previous interval; on the first
 *   interval nothing has been received yet and smb = 0.
 * Checks on every interval, whatever the mode (the "physical sense" of issue 5):
 *   mask:   the mask is 1 where the thickness is > 0 and 0 elsewhere, thickness
 *           >= 0 and finite;
 *   bed:    surface minus thickness (the bed) does not change from one interval
 *           to the next: |d(usurf) - d(thk)| <= 1e-9 m per cell (the two fields
 *           round differently at the 1e-13 m level of a 1000 m sum);
 *   mass:   over interval n >= 1 the volume change per unit area, sum(dH), equals
 *           the mass balance sent, sum(smb - melt) period / rho_ice, because ice
 *           flow only moves ice around a periodic domain. Tolerance 1e-12 m per
 *           cell times the cell count plus 1e-9 of sum |smb| period / rho_ice:
 *           each cell's thickness update rounds at the 1e-13 m level of a 1000 m
 *           thickness, and the kg -> m a-1 -> m conversions at the 1e-16 relative
 *           level.
 * The OASIS side (join, partition, fields, the exchange loop, abort and
 * terminate) is examples/toy_partner.c; this file is the atmosphere's table:
 * its fields, its mass balance and its checks.
 * Prints "cryodyn-toy-atmosphere: PASS ..." on rank 0 and exits 0 when every check held;
 * otherwise stops the coupled run with a message and a non-zero exit code.
 * Launch (MPMD): mpirun -np 2 cryodyn coupled_landice.nml : -np 1 cryodyn-toy-atmosphere
 * --nx 16 --ny 16 --run R --period P (namelists/coupled_landice.nml). */
#include "toy_partner.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEND 2
#define NRECV 3
static const char *const send_names[NSEND] = {"A_LiSmb1", "A_LiBmt1"};
static const char *const recv_names[NRECV] = {"A_LiThk1", "A_LiSrf1", "A_LiMsk1"};
enum { SEND_SMB, SEND_MELT };
enum { RECV_THK, RECV_SRF, RECV_MSK };

typedef struct options {
  int nx, ny, run, period;
  int elevation;  /* 1: smb = rate (z - ela); 0: toy_smb_pattern */
  double rate;    /* kg m-2 s-1 per m of elevation */
  double ela;     /* equilibrium-line altitude, m */
  double rho_ice; /* kg m-3, for the mass check */
} options;

/* Fixed mass balance at global cell (i, j) on coupling step `step`, kg m-2 s-1:
 * a multiple of 2^-18 (about 0.13 m of ice a year) from -8 to 8 times it, so the
 * value is exact in decimal text and in the standalone test's forcing file
 * (tests/coupled_landice.sh computes the same formula in Python). */
static double toy_smb_pattern(int i, int j, int step) {
  return ldexp((double)((7 * i + 3 * j + 5 * step) % 17 - 8), -18);
}

static int parse_int(const char *flag, const char *val, int *out, cryo_err *err) {
  char *end;
  errno = 0;
  long v = strtol(val, &end, 10);
  CRYO_CHECK(!errno && end != val && !*end && v >= 1 && v <= 2000000000L, err, CRYO_ERR_RANGE,
             "cryodyn-toy-atmosphere: %s %s: must be an integer from 1 to 2e9", flag, val);
  *out = (int)v;
  return CRYO_OK;
}

static int parse_real(const char *flag, const char *val, double lo, double hi, double *out,
                      cryo_err *err) {
  char *end;
  errno = 0;
  double v = strtod(val, &end);
  CRYO_CHECK(!errno && end != val && !*end && v >= lo && v <= hi, err, CRYO_ERR_RANGE,
             "cryodyn-toy-atmosphere: %s %s: must be a number in [%g, %g]", flag, val, lo, hi);
  *out = v;
  return CRYO_OK;
}

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  *o = (options){.nx = 16,
                 .ny = 16,
                 .run = 345600,
                 .period = 86400,
                 .elevation = 0,
                 .rate = 1.0e-7,
                 .ela = -40.0,
                 .rho_ice = 910.0};
  for (int a = 1; a < argc; a++) {
    const char *flag = argv[a];
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "cryodyn-toy-atmosphere: option %s needs a value",
               flag);
    const char *val = argv[++a];
    if (!strcmp(flag, "--nx"))
      CRYO_CALL(parse_int(flag, val, &o->nx, err));
    else if (!strcmp(flag, "--ny"))
      CRYO_CALL(parse_int(flag, val, &o->ny, err));
    else if (!strcmp(flag, "--run"))
      CRYO_CALL(parse_int(flag, val, &o->run, err));
    else if (!strcmp(flag, "--period"))
      CRYO_CALL(parse_int(flag, val, &o->period, err));
    else if (!strcmp(flag, "--rate"))
      CRYO_CALL(parse_real(flag, val, -1e-3, 1e-3, &o->rate, err));
    else if (!strcmp(flag, "--ela"))
      CRYO_CALL(parse_real(flag, val, -1e4, 1e4, &o->ela, err));
    else if (!strcmp(flag, "--rho-ice"))
      CRYO_CALL(parse_real(flag, val, 1, 1e4, &o->rho_ice, err));
    else if (!strcmp(flag, "--smb")) {
      CRYO_CHECK(!strcmp(val, "pattern") || !strcmp(val, "elevation"), err, CRYO_ERR_RANGE,
                 "cryodyn-toy-atmosphere: --smb %s: must be pattern or elevation", val);
      o->elevation = !strcmp(val, "elevation");
    } else
      return CRYO_ERROR(
          err, CRYO_ERR_UNKNOWN,
          "cryodyn-toy-atmosphere: unknown option %s (known: --nx --ny --run --period "
          "--smb --rate --ela --rho-ice)",
          flag);
  }
  CRYO_CHECK(o->run % o->period == 0, err, CRYO_ERR_RANGE,
             "cryodyn-toy-atmosphere: --run %d s is not a multiple of --period %d s", o->run,
             o->period);
  CRYO_CHECK((long)o->nx * o->ny <= 10000000L, err, CRYO_ERR_RANGE,
             "cryodyn-toy-atmosphere: grid %d x %d has more than 1e7 points", o->nx, o->ny);
  return CRYO_OK;
}

/* Tallies of the checks over the whole run (this rank's part). */
typedef struct tally {
  long bad_mask, bad_bed, checked;
  double mass_err_max; /* largest |dV - S| / tolerance over intervals >= 1 (global) */
  double dv_sum;       /* sum over intervals of |dV|, m (global), to show ice changed */
} tally;

/* Per-point checks of interval `step`: mask and bed. prev: the fields received
 * at the previous interval (NULL on the first). */
static void check_points(long npts, double *const rcv[NRECV], double *const prev[NRECV], tally *t) {
  for (long p = 0; p < npts; p++) {
    double h = rcv[RECV_THK][p], m = rcv[RECV_MSK][p];
    if (!(isfinite(h) && h >= 0.0 && m == (h > 0.0 ? 1.0 : 0.0) && isfinite(rcv[RECV_SRF][p])))
      ++t->bad_mask;
    if (prev) {
      double dh = h - prev[RECV_THK][p], ds = rcv[RECV_SRF][p] - prev[RECV_SRF][p];
      if (!(fabs(ds - dh) <= 1e-9)) ++t->bad_bed;
    }
    ++t->checked;
  }
}

/* Sums over this rank's points: [0] sum dH (m), [1] sum (smb - melt) period /
 * rho_ice (m), [2] sum |smb| period / rho_ice (m). */
static void mass_sums(const options *o, long npts, double *const rcv[NRECV],
                      double *const prev[NRECV], double *const snd[NSEND], double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (long p = 0; p < npts; p++) {
    out[0] += rcv[RECV_THK][p] - prev[RECV_THK][p];
    out[1] += (snd[SEND_SMB][p] - snd[SEND_MELT][p]) * o->period / o->rho_ice;
    out[2] += fabs(snd[SEND_SMB][p]) * o->period / o->rho_ice;
  }
}

/* The toy atmosphere's state through the run: its options, the check's tallies. */
typedef struct atmosphere {
  const options *o;
  tally t;
} atmosphere;

/* The fields to send on interval `step`; prev: the fields received at the end
 * of the previous interval (NULL on the first). */
static void atmosphere_fill(void *ctx, int step, const toy_band *b, double *const snd[],
                            double *const prev[]) {
  const options *o = ((const atmosphere *)ctx)->o;
  for (int j = 0; j < b->nyl; j++)
    for (int i = 0; i < o->nx; i++) {
      long p = (long)j * o->nx + i;
      double smb;
      if (!o->elevation)
        smb = toy_smb_pattern(i, b->j0 + j, step);
      else
        smb = step == 0 ? 0.0 : o->rate * (prev[RECV_SRF][p] - o->ela);
      snd[SEND_SMB][p] = smb;
      snd[SEND_MELT][p] = 0.0;
    }
}

/* The checks of interval `step`: mask and bed at every point, and from the
 * second interval on the mass balance over all ranks. */
static int atmosphere_received(void *ctx, int step, const toy_band *b, double *const snd[],
                               double *const rcv[], double *const prev[], cryo_err *err) {
  atmosphere *at = ctx;
  const options *o = at->o;
  check_points(b->npts, rcv, prev, &at->t);
  if (step == 0) return CRYO_OK;
  double local[3], sum[3];
  mass_sums(o, b->npts, rcv, prev, snd, local);
  CRYO_CHECK(MPI_Allreduce(local, sum, 3, MPI_DOUBLE, MPI_SUM, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Allreduce failed");
  double tol = 1e-12 * (double)o->nx * o->ny + 1e-9 * sum[2];
  double e = fabs(sum[0] - sum[1]) / tol;
  if (b->rank == 0)
    printf("cryodyn-toy-atmosphere: interval %d: sum dH %.12e m, sum smb dt/rho %.12e m, "
           "|diff| %.3e m (tolerance %.3e m)\n",
           step, sum[0], sum[1], fabs(sum[0] - sum[1]), tol);
  at->t.mass_err_max = fmax(at->t.mass_err_max, e);
  at->t.dv_sum += fabs(sum[0]);
  return CRYO_OK;
}

/* The point counts over all ranks. */
static int atmosphere_finish(void *ctx, const toy_band *b, cryo_err *err) {
  tally *t = &((atmosphere *)ctx)->t;
  long local[3] = {t->bad_mask, t->bad_bed, t->checked}, total[3];
  CRYO_CHECK(MPI_Allreduce(local, total, 3, MPI_LONG, MPI_SUM, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Allreduce of the check counts failed");
  t->bad_mask = total[0];
  t->bad_bed = total[1];
  t->checked = total[2];
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank;
  int status = parse_options(argc, argv, &o, &err);
  atmosphere at = {.o = &o, .t = {0, 0, 0, 0.0, 0.0}};
  toy_partner p = {.program = "cryodyn-toy-atmosphere",
                   .component = "toyatm",
                   .nsend = NSEND,
                   .nrecv = NRECV,
                   .send_names = send_names,
                   .recv_names = recv_names,
                   .fill = atmosphere_fill,
                   .received = atmosphere_received,
                   .finish = atmosphere_finish};
  toy_partner_couple(&p, status, o.nx, o.ny, o.run, o.period, -1, &at, &rank, &err);
  const tally t = at.t;
  int nsteps = o.run / o.period;
  int ok = t.bad_mask == 0 && t.bad_bed == 0 && t.mass_err_max <= 1.0 && t.checked > 0 &&
           (nsteps < 2 || t.dv_sum > 0.0);
  if (rank == 0)
    printf("cryodyn-toy-atmosphere: %s: smb %s, %d steps of %d s on a %d x %d grid: %ld points "
           "checked, "
           "%ld bad mask/thickness, %ld bad bed (d usurf != d thk), mass balance error at most "
           "%.3g of its tolerance, sum |dV| %.6e m\n",
           ok ? "PASS" : "FAIL", o.elevation ? "elevation" : "pattern", nsteps, o.period, o.nx,
           o.ny, t.checked, t.bad_mask, t.bad_bed, t.mass_err_max, t.dv_sum);
  return ok ? 0 : 1;
}
