/* Toy atmosphere: an OASIS partner for cryodyn's land ice (docs/design.md, Coupling),
 * and with --melt mismip a stand-in ocean (docs/landice.md, Sub-shelf melt).
 *
 * OASIS component "toyatm" on an nx x ny grid (the land-ice grid: no remapping)
 * split into bands of rows over its ranks (apple partition). Every coupling
 * period it sends the surface mass balance A_LiSmb1 (kg m-2 s-1, > 0 gain) and,
 * standing in for an ocean, a sub-shelf melt A_LiBmt1 (kg m-2 s-1, > 0 loss);
 * it receives the ice thickness A_LiThk1 (m), surface elevation A_LiSrf1 (m)
 * and ice mask A_LiMsk1.
 *
 *   cryodyn-toy-atmosphere [--nx N] [--ny N] [--run SECONDS] [--period SECONDS]
 *                          [--smb pattern|elevation] [--rate KG_M2_S_PER_M] [--ela M]
 *                          [--rho-ice KG_M3] [--melt zero|mismip] [--geometry FILE]
 *                          [--rho-water KG_M3] [--sea-level M] [--omega PER_A] [--z0 M]
 *                          [--hc0 M] [--record FILE] [--start DATE]
 *                          [--rate-factor-layers N]
 *
 * --smb pattern (default): the fixed pattern toy_smb_pattern() below, the same
 *   doubles that tests/coupled_landice.sh writes into the NetCDF forcing file of
 *   the standalone run (dyadic values: exact in the file's decimal text);
 * --smb elevation: the elevation-dependent balance smb = rate (z - ela), z the
 *   surface elevation received at the end of the previous interval; on the first
 *   interval nothing has been received yet and smb = 0.
 * --melt zero (default): the melt sent is 0.
 * --melt mismip: the MISMIP+ Ice1 melt (Asay-Davis et al. 2016, GMD 9,
 *   2471-2497, doi:10.5194/gmd-9-2471-2016, Eq. 17) per cell,
 *     m = omega tanh(H_c / hc0) max(z0 - z_d, 0)   (m a-1 of ice),
 *   z_d = max(b, sea_level - (rho_ice / rho_water) H) the draft, H_c = z_d - b,
 *   b the cell-centred bed topg of --geometry FILE (the (y, x) geometry file of
 *   cryodyn's case = 'file') and H the thickness received at the end of the
 *   previous interval, on the first interval the file's thk. Sent as
 *   m rho_ice / 31536000 kg m-2 s-1. Defaults: the MISMIP+ omega 0.2 a-1,
 *   z0 -100 m, hc0 75 m, rho_water 1028 kg m-3, sea_level 0 m; rho_ice 910 kg m-3
 *   (cryodyn's default; MISMIP+ uses 918). Each must equal the namelist's value.
 * --rate-factor-layers N (1 to 14, needs --geometry): the toy also sends, standing in
 *   for a thermal model, the Glen rate factor of N layers from the bed up,
 *   A_LiRf01 ... A_LiRfNN, each interval the same: the variable rate_factor
 *   (layer, y, x) of FILE (Pa-n a-1, as cryodyn's geometry files hold it), sent
 *   as it is (cryodyn's &cryo_coupling rate_factor; tests/coupled_landice_rate.sh).
 * --record FILE: every field sent (smb and basal_melt) is also written, gathered
 *   on rank 0, to FILE in the format of cryodyn's forcing = 'netcdf'
 *   (coupling/exchange_netcdf.c): record k holds interval k's values at time
 *   k period (seconds since --start, default "2000-01-01 00:00:00": the
 *   namelist's start), NetCDF doubles, and one more record at the end of the
 *   run repeats the last interval's. cryodyn reads a record time exactly, so a
 *   standalone run from FILE receives the same doubles at every coupling date
 *   (tests/coupled_landice_melt.sh).
 * Checks on every interval (that what arrives makes physical sense):
 *   mask:   the mask is 1 where the thickness is > 0 and 0 elsewhere, thickness
 *           >= 0 and finite;
 *   bed:    surface minus thickness (the bed) does not change from one interval
 *           to the next: |d(usurf) - d(thk)| <= 1e-9 m per cell (the two fields
 *           round differently at the 1e-13 m level of a 1000 m sum); with --melt
 *           mismip the ice is marine, and a cell may instead have the surface of
 *           floating ice, sea_level + (1 - rho_ice / rho_water) thk to 1e-9 m, or
 *           have floated before and now rest at or above its flotation level;
 *   mass:   over interval n >= 1 the volume change per unit area, sum(dH), equals
 *           the mass balance sent, S = sum(smb - melt) period / rho_ice, because ice
 *           flow only moves ice around a periodic domain. Tolerance 1e-12 m per
 *           cell times the cell count plus 1e-9 of sum (|smb| + melt) period /
 *           rho_ice: each cell's thickness update rounds at the 1e-13 m level of a
 *           1000 m thickness, and the kg -> m a-1 -> m conversions at the 1e-16
 *           relative level. With --melt mismip cryodyn applies the melt to the
 *           floating share of each cell only (docs/landice.md, Sub-shelf melt),
 *           which the toy does not know: S <= sum(dH) <= S + sum(melt) period /
 *           rho_ice, within the same tolerance, and the melt sent over the run
 *           must be > 0. Both forms need a domain that no ice leaves (periodic, or
 *           walls with no calving: namelists/coupled_landice_melt.nml).
 * The OASIS side (join, partition, fields, the exchange loop, abort and
 * terminate) is examples/toy_partner.c; this file is the atmosphere's table:
 * its fields, its mass balance, its melt, its record and its checks.
 * Prints "cryodyn-toy-atmosphere: PASS ..." on rank 0 and exits 0 when every check held;
 * otherwise stops the coupled run with a message and a non-zero exit code.
 * Launch (MPMD): mpirun -np 2 cryodyn coupled_landice.nml : -np 1 cryodyn-toy-atmosphere
 * --nx 16 --ny 16 --run R --period P (namelists/coupled_landice.nml; with the melt,
 * namelists/coupled_landice_melt.nml). */
#include "toy_partner.h"

#include "cryo_ncvar.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEND         2
#define NRECV         3
#define MAX_RF_LAYERS 14 /* with the NSEND fields, TOY_PARTNER_MAX_FIELDS */
static const char *const send_names[NSEND] = {"A_LiSmb1", "A_LiBmt1"};
static const char *const recv_names[NRECV] = {"A_LiThk1", "A_LiSrf1", "A_LiMsk1"};
enum { SEND_SMB, SEND_MELT };
enum { RECV_THK, RECV_SRF, RECV_MSK };

/* Seconds in the 365-day year of the land-ice kernels (CRYO_LANDICE_YEAR). */
#define TOY_YEAR 31536000.0

typedef struct options {
  int nx, ny, run, period;
  int elevation;        /* 1: smb = rate (z - ela); 0: toy_smb_pattern */
  double rate;          /* kg m-2 s-1 per m of elevation */
  double ela;           /* equilibrium-line altitude, m */
  double rho_ice;       /* kg m-3, for the mass check and the melt's unit */
  int mismip;           /* 1: --melt mismip; 0: --melt zero */
  double rho_water;     /* kg m-3 */
  double sea_level;     /* m */
  double omega;         /* a-1, MISMIP+ Omega */
  double z0;            /* m, MISMIP+ z_0 */
  double hc0;           /* m, MISMIP+ H_c0 */
  const char *geometry; /* NetCDF file with topg and thk (y, x), or NULL */
  const char *record;   /* NetCDF forcing file to write, or NULL */
  const char *start;    /* reference date of the record's time axis */
  int rf_layers;        /* --rate-factor-layers: layers of the rate factor sent, 0 for none */
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
                 .rho_ice = 910.0,
                 .mismip = 0,
                 .rho_water = 1028.0,
                 .sea_level = 0.0,
                 .omega = 0.2,
                 .z0 = -100.0,
                 .hc0 = 75.0,
                 .geometry = NULL,
                 .record = NULL,
                 .start = "2000-01-01 00:00:00",
                 .rf_layers = 0};
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
    else if (!strcmp(flag, "--rho-water"))
      CRYO_CALL(parse_real(flag, val, 1, 1e4, &o->rho_water, err));
    else if (!strcmp(flag, "--sea-level"))
      CRYO_CALL(parse_real(flag, val, -1e4, 1e4, &o->sea_level, err));
    else if (!strcmp(flag, "--omega"))
      CRYO_CALL(parse_real(flag, val, 0, 1e3, &o->omega, err));
    else if (!strcmp(flag, "--z0"))
      CRYO_CALL(parse_real(flag, val, -1e4, 1e4, &o->z0, err));
    else if (!strcmp(flag, "--hc0"))
      CRYO_CALL(parse_real(flag, val, 1e-3, 1e4, &o->hc0, err));
    else if (!strcmp(flag, "--geometry"))
      o->geometry = val;
    else if (!strcmp(flag, "--rate-factor-layers")) {
      CRYO_CALL(parse_int(flag, val, &o->rf_layers, err));
      CRYO_CHECK(o->rf_layers <= MAX_RF_LAYERS, err, CRYO_ERR_RANGE,
                 "cryodyn-toy-atmosphere: --rate-factor-layers %d: at most %d", o->rf_layers,
                 MAX_RF_LAYERS);
    } else if (!strcmp(flag, "--record"))
      o->record = val;
    else if (!strcmp(flag, "--start"))
      o->start = val;
    else if (!strcmp(flag, "--melt")) {
      CRYO_CHECK(!strcmp(val, "zero") || !strcmp(val, "mismip"), err, CRYO_ERR_RANGE,
                 "cryodyn-toy-atmosphere: --melt %s: must be zero or mismip", val);
      o->mismip = !strcmp(val, "mismip");
    } else if (!strcmp(flag, "--smb")) {
      CRYO_CHECK(!strcmp(val, "pattern") || !strcmp(val, "elevation"), err, CRYO_ERR_RANGE,
                 "cryodyn-toy-atmosphere: --smb %s: must be pattern or elevation", val);
      o->elevation = !strcmp(val, "elevation");
    } else
      return CRYO_ERROR(
          err, CRYO_ERR_UNKNOWN,
          "cryodyn-toy-atmosphere: unknown option %s (known: --nx --ny --run --period "
          "--smb --rate --ela --rho-ice --melt --geometry --rho-water --sea-level --omega --z0 "
          "--hc0 --record --start --rate-factor-layers)",
          flag);
  }
  CRYO_CHECK(!o->rf_layers || o->geometry, err, CRYO_ERR_ARG,
             "cryodyn-toy-atmosphere: --rate-factor-layers needs --geometry FILE (its "
             "rate_factor)");
  CRYO_CHECK(!o->mismip || o->geometry, err, CRYO_ERR_ARG,
             "cryodyn-toy-atmosphere: --melt mismip needs --geometry FILE (its bed topg and "
             "initial thickness thk)");
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
  double mass_err_max; /* largest mass-check error over intervals >= 1, in tolerances (global) */
  double dv_sum;       /* sum over intervals of |dV|, m (global), to show ice changed */
  double melt_sum;     /* sum over intervals of the melt sent, sum m period / rho_ice, m */
  double melt_max;     /* largest melt sent, kg m-2 s-1 */
} tally;

/* Whether surface z of a cell of thickness h is that of floating ice,
 * z_sl + (1 - rho_i / rho_w) h, to 1e-9 m. */
static int floats(const options *o, double h, double z) {
  return fabs(z - (o->sea_level + (1.0 - o->rho_ice / o->rho_water) * h)) <= 1e-9;
}

/* Per-point checks of interval `step`: mask and bed. prev: the fields received
 * at the previous interval (NULL on the first). With --melt mismip the ice is
 * marine: a cell's surface is either that of floating ice, or its bed
 * (usurf - thk) is unchanged, or it was floating and now rests at or above
 * its flotation level (the grounding line advanced over it). */
static void check_points(const options *o, long npts, double *const rcv[NRECV],
                         double *const prev[NRECV], tally *t) {
  for (long p = 0; p < npts; p++) {
    double h = rcv[RECV_THK][p], m = rcv[RECV_MSK][p], z = rcv[RECV_SRF][p];
    if (!(isfinite(h) && h >= 0.0 && m == (h > 0.0 ? 1.0 : 0.0) && isfinite(z))) ++t->bad_mask;
    if (prev) {
      double hp = prev[RECV_THK][p], zp = prev[RECV_SRF][p];
      int ok = fabs((z - zp) - (h - hp)) <= 1e-9;
      if (o->mismip && !ok)
        ok = floats(o, h, z) ||
             (floats(o, hp, zp) && z - h >= o->sea_level - o->rho_ice / o->rho_water * h - 1e-9);
      if (!ok) ++t->bad_bed;
    }
    ++t->checked;
  }
}

/* Sums over this rank's points: [0] sum dH (m), [1] sum (smb - melt) period /
 * rho_ice (m), [2] sum |smb| period / rho_ice (m), [3] sum melt period /
 * rho_ice (m). */
static void mass_sums(const options *o, long npts, double *const rcv[NRECV],
                      double *const prev[NRECV], double *const snd[NSEND], double out[4]) {
  out[0] = out[1] = out[2] = out[3] = 0.0;
  for (long p = 0; p < npts; p++) {
    out[0] += rcv[RECV_THK][p] - prev[RECV_THK][p];
    out[1] += (snd[SEND_SMB][p] - snd[SEND_MELT][p]) * o->period / o->rho_ice;
    out[2] += fabs(snd[SEND_SMB][p]) * o->period / o->rho_ice;
    out[3] += snd[SEND_MELT][p] * o->period / o->rho_ice;
  }
}

/* The toy atmosphere's state through the run: its options, the check's
 * tallies, with --melt mismip this band's bed and initial thickness, and with
 * --record the open file on rank 0 and the global arrays it gathers into. */
typedef struct atmosphere {
  const options *o;
  tally t;
  double *topg, *thk0; /* this band, m; NULL without --geometry */
  double *rf;          /* this band's rate factor, rf_layers planes; NULL without */
  int ncid;            /* --record file on rank 0, -1 otherwise */
  int var_time, var_smb, var_melt;
  double *global;     /* nx ny values on rank 0 */
  int *counts, *offs; /* of the gather, per rank, on rank 0 */
} atmosphere;

/* Read this band's rows of (y, x) variable `var` of the open geometry file. */
static int read_band(const options *o, int ncid, const char *var, const toy_band *b, double *out,
                     cryo_err *err) {
  int id, ndims, dims[NC_MAX_VAR_DIMS];
  size_t len[2] = {0, 0};
  char name[2][NC_MAX_NAME + 1] = {"", ""};
  CRYO_NC(nc_inq_varid(ncid, var, &id), err, "cryodyn-toy-atmosphere: --geometry %s: '%s'",
          o->geometry, var);
  CRYO_NC(nc_inq_varndims(ncid, id, &ndims), err, "cryodyn-toy-atmosphere: --geometry %s: '%s'",
          o->geometry, var);
  CRYO_CHECK(ndims == 2, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-atmosphere: --geometry %s: '%s' has %d dimensions, must be (y, x)",
             o->geometry, var, ndims);
  CRYO_NC(nc_inq_vardimid(ncid, id, dims), err, "cryodyn-toy-atmosphere: --geometry %s: '%s'",
          o->geometry, var);
  for (int k = 0; k < 2; k++) {
    CRYO_NC(nc_inq_dim(ncid, dims[k], name[k], &len[k]), err,
            "cryodyn-toy-atmosphere: --geometry %s: '%s'", o->geometry, var);
  }
  CRYO_CHECK(!strcmp(name[0], "y") && !strcmp(name[1], "x") && len[0] == (size_t)o->ny &&
                 len[1] == (size_t)o->nx,
             err, CRYO_ERR_FORMAT,
             "cryodyn-toy-atmosphere: --geometry %s: '%s' has dimensions (%s, %s) = (%zu, %zu), "
             "must be (y, x) = (%d, %d) (--ny, --nx)",
             o->geometry, var, name[0], name[1], len[0], len[1], o->ny, o->nx);
  size_t start[2] = {(size_t)b->j0, 0}, count[2] = {(size_t)b->nyl, (size_t)o->nx};
  CRYO_NC(nc_get_vara_double(ncid, id, start, count, out), err,
          "cryodyn-toy-atmosphere: --geometry %s: reading '%s'", o->geometry, var);
  for (long p = 0; p < b->npts; p++)
    CRYO_CHECK(isfinite(out[p]) && fabs(out[p]) < 1e5, err, CRYO_ERR_DATA,
               "cryodyn-toy-atmosphere: --geometry %s: '%s' at (y, x) = (%ld, %ld) is %g, must "
               "be finite and below 1e5 m in magnitude",
               o->geometry, var, b->j0 + p / o->nx, p % o->nx, out[p]);
  return CRYO_OK;
}

/* With --rate-factor-layers: this band's rows of the (layer, y, x) variable
 * rate_factor of the open geometry file, plane by plane. */
static int read_rate_factor(atmosphere *at, int ncid, const toy_band *b, cryo_err *err) {
  const options *o = at->o;
  int id, ndims, dims[NC_MAX_VAR_DIMS];
  size_t len[3];
  CRYO_NC(nc_inq_varid(ncid, "rate_factor", &id), err,
          "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor'", o->geometry);
  CRYO_NC(nc_inq_varndims(ncid, id, &ndims), err,
          "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor'", o->geometry);
  CRYO_CHECK(ndims == 3, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor' has %d dimensions, must be "
             "(layer, y, x)",
             o->geometry, ndims);
  CRYO_NC(nc_inq_vardimid(ncid, id, dims), err,
          "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor'", o->geometry);
  for (int k = 0; k < 3; k++)
    CRYO_NC(nc_inq_dimlen(ncid, dims[k], &len[k]), err,
            "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor'", o->geometry);
  CRYO_CHECK(len[0] == (size_t)o->rf_layers && len[1] == (size_t)o->ny && len[2] == (size_t)o->nx,
             err, CRYO_ERR_FORMAT,
             "cryodyn-toy-atmosphere: --geometry %s: 'rate_factor' is %zu x %zu x %zu, must be "
             "%d x %d x %d (--rate-factor-layers, --ny, --nx)",
             o->geometry, len[0], len[1], len[2], o->rf_layers, o->ny, o->nx);
  at->rf = malloc(sizeof(double) * (size_t)o->rf_layers * (size_t)(b->npts > 0 ? b->npts : 1));
  CRYO_CHECK(at->rf, err, CRYO_ERR_MEMORY, "cryodyn-toy-atmosphere: no memory for rate_factor");
  for (int k = 0; k < o->rf_layers; k++) {
    size_t start[3] = {(size_t)k, (size_t)b->j0, 0}, count[3] = {1, (size_t)b->nyl, (size_t)o->nx};
    CRYO_NC(nc_get_vara_double(ncid, id, start, count, at->rf + (size_t)k * b->npts), err,
            "cryodyn-toy-atmosphere: --geometry %s: reading 'rate_factor'", o->geometry);
  }
  return CRYO_OK;
}

/* With --geometry: this band's bed topg and initial thickness thk. */
static int read_geometry(atmosphere *at, const toy_band *b, cryo_err *err) {
  const options *o = at->o;
  size_t n = (size_t)(b->npts > 0 ? b->npts : 1);
  at->topg = malloc(sizeof(double) * n);
  at->thk0 = malloc(sizeof(double) * n);
  CRYO_CHECK(at->topg && at->thk0, err, CRYO_ERR_MEMORY,
             "cryodyn-toy-atmosphere: no memory for the geometry");
  int ncid;
  CRYO_CALL(cryo_nc_error(nc_open(o->geometry, NC_NOWRITE, &ncid), CRYO_ERR_FILE, err,
                          "cryodyn-toy-atmosphere: --geometry %s", o->geometry));
  int status = read_band(o, ncid, "topg", b, at->topg, err);
  if (status == CRYO_OK) status = read_band(o, ncid, "thk", b, at->thk0, err);
  if (status == CRYO_OK && o->rf_layers) status = read_rate_factor(at, ncid, b, err);
  nc_close(ncid);
  return status;
}

/* With --record, on rank 0: create the forcing file of cryodyn's forcing =
 * 'netcdf' (coupling/exchange_netcdf.c): time(time) in seconds since --start,
 * smb and basal_melt (time, y, x) in kg m-2 s-1, NetCDF doubles. */
static int record_create(atmosphere *at, const toy_band *b, cryo_err *err) {
  const options *o = at->o;
  at->counts = malloc(sizeof(int) * (size_t)b->size);
  at->offs = malloc(sizeof(int) * (size_t)b->size);
  at->global = malloc(sizeof(double) * (size_t)o->nx * o->ny);
  CRYO_CHECK(at->counts && at->offs && at->global, err, CRYO_ERR_MEMORY,
             "cryodyn-toy-atmosphere: no memory for --record");
  for (int r = 0; r < b->size; r++) {
    int j0 = (int)((long)r * o->ny / b->size), j1 = (int)((long)(r + 1) * o->ny / b->size);
    at->offs[r] = j0 * o->nx;
    at->counts[r] = (j1 - j0) * o->nx;
  }
  int ncid, dt, dy, dx;
  CRYO_CALL(cryo_nc_error(nc_create(o->record, NC_CLOBBER | NC_NETCDF4, &ncid), CRYO_ERR_FILE, err,
                          "cryodyn-toy-atmosphere: --record %s", o->record));
  at->ncid = ncid;
  char units[128];
  snprintf(units, sizeof units, "seconds since %s", o->start);
  const char *what = "cryodyn-toy-atmosphere: --record";
  int dims[3];
  CRYO_NC(nc_def_dim(ncid, "time", NC_UNLIMITED, &dt), err, "%s %s", what, o->record);
  CRYO_NC(nc_def_dim(ncid, "y", (size_t)o->ny, &dy), err, "%s %s", what, o->record);
  CRYO_NC(nc_def_dim(ncid, "x", (size_t)o->nx, &dx), err, "%s %s", what, o->record);
  dims[0] = dt;
  dims[1] = dy;
  dims[2] = dx;
  CRYO_NC(nc_def_var(ncid, "time", NC_DOUBLE, 1, dims, &at->var_time), err, "%s %s", what,
          o->record);
  CRYO_NC(nc_put_att_text(ncid, at->var_time, "units", strlen(units), units), err, "%s %s", what,
          o->record);
  const char *names[2] = {"smb", "basal_melt"};
  int *ids[2] = {&at->var_smb, &at->var_melt};
  for (int k = 0; k < 2; k++) {
    CRYO_NC(nc_def_var(ncid, names[k], NC_DOUBLE, 3, dims, ids[k]), err, "%s %s", what, o->record);
    CRYO_NC(nc_put_att_text(ncid, *ids[k], "units", 10, "kg m-2 s-1"), err, "%s %s", what,
            o->record);
  }
  CRYO_NC(nc_enddef(ncid), err, "%s %s", what, o->record);
  return CRYO_OK;
}

static int atmosphere_define(void *ctx, const toy_band *b, cryo_err *err) {
  atmosphere *at = ctx;
  if (at->o->geometry) CRYO_CALL(read_geometry(at, b, err));
  if (at->o->record && b->rank == 0) CRYO_CALL(record_create(at, b, err));
  return CRYO_OK;
}

/* With --record: append the fields sent on interval `step` as record `rec`
 * at time rec * period (gathered on rank 0, written there). */
static int record_write(atmosphere *at, const toy_band *b, int rec, double *const snd[],
                        cryo_err *err) {
  const options *o = at->o;
  const int vars[2] = {at->var_smb, at->var_melt};
  for (int k = 0; k < 2; k++) {
    CRYO_CHECK(MPI_Gatherv(snd[k], (int)b->npts, MPI_DOUBLE, at->global, at->counts, at->offs,
                           MPI_DOUBLE, 0, b->comm) == MPI_SUCCESS,
               err, CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Gatherv for --record failed");
    if (b->rank != 0) continue;
    size_t start[3] = {(size_t)rec, 0, 0}, count[3] = {1, (size_t)o->ny, (size_t)o->nx};
    CRYO_NC(nc_put_vara_double(at->ncid, vars[k], start, count, at->global), err,
            "cryodyn-toy-atmosphere: --record %s: record %d", o->record, rec);
  }
  if (b->rank == 0) {
    size_t start = (size_t)rec;
    double time = (double)rec * o->period;
    CRYO_NC(nc_put_var1_double(at->ncid, at->var_time, &start, &time), err,
            "cryodyn-toy-atmosphere: --record %s: time of record %d", o->record, rec);
  }
  return CRYO_OK;
}

/* MISMIP+ Ice1 melt (Asay-Davis et al. 2016, Eq. 17), m a-1 of ice, of a cell
 * of thickness h (m) on bed b (m): m = Omega tanh(H_c / H_c0) max(z_0 - z_d,
 * 0), z_d = max(b, z_sl - (rho_i / rho_w) h) the draft, H_c = z_d - b. */
static double mismip_melt(const options *o, double h, double b) {
  double draft = fmax(b, o->sea_level - o->rho_ice / o->rho_water * h);
  return o->omega * tanh((draft - b) / o->hc0) * fmax(o->z0 - draft, 0.0);
}

/* The fields to send on interval `step`; prev: the fields received at the end
 * of the previous interval (NULL on the first). */
static void atmosphere_fill(void *ctx, int step, const toy_band *b, double *const snd[],
                            double *const prev[]) {
  const atmosphere *at = ctx;
  const options *o = at->o;
  for (int j = 0; j < b->nyl; j++)
    for (int i = 0; i < o->nx; i++) {
      long p = (long)j * o->nx + i;
      double smb, melt = 0.0;
      if (!o->elevation)
        smb = toy_smb_pattern(i, b->j0 + j, step);
      else
        smb = step == 0 ? 0.0 : o->rate * (prev[RECV_SRF][p] - o->ela);
      if (o->mismip) {
        double h = step == 0 ? at->thk0[p] : prev[RECV_THK][p];
        melt = mismip_melt(o, h, at->topg[p]) * o->rho_ice / TOY_YEAR;
      }
      snd[SEND_SMB][p] = smb;
      snd[SEND_MELT][p] = melt;
      for (int k = 0; k < o->rf_layers; k++)
        snd[NSEND + k][p] = at->rf[(long)k * b->npts + p];
    }
}

/* The record of interval `step` (and after the last one the same values at
 * the end of the run, so that the file covers it), the checks of interval
 * `step`: mask and bed at every point, and from the second interval on the
 * mass balance over all ranks. */
static int atmosphere_received(void *ctx, int step, const toy_band *b, double *const snd[],
                               double *const rcv[], double *const prev[], cryo_err *err) {
  atmosphere *at = ctx;
  const options *o = at->o;
  if (o->record) {
    CRYO_CALL(record_write(at, b, step, snd, err));
    if (step == o->run / o->period - 1) CRYO_CALL(record_write(at, b, step + 1, snd, err));
  }
  for (long p = 0; p < b->npts; p++)
    at->t.melt_max = fmax(at->t.melt_max, snd[SEND_MELT][p]);
  check_points(o, b->npts, rcv, prev, &at->t);
  if (step == 0) return CRYO_OK;
  double local[4], sum[4];
  mass_sums(o, b->npts, rcv, prev, snd, local);
  CRYO_CHECK(MPI_Allreduce(local, sum, 4, MPI_DOUBLE, MPI_SUM, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Allreduce failed");
  double tol = 1e-12 * (double)o->nx * o->ny + 1e-9 * (sum[2] + sum[3]);
  /* Without melt, dV = S. With --melt mismip the land ice applies the melt to
   * the floating share of each cell only (docs/landice.md, Sub-shelf melt), a
   * share the toy does not know: S <= dV <= S + melt sent. */
  double e = o->mismip ? fmax(fmax(sum[1] - sum[0], sum[0] - (sum[1] + sum[3])), 0.0) / tol
                       : fabs(sum[0] - sum[1]) / tol;
  if (b->rank == 0) {
    printf("cryodyn-toy-atmosphere: interval %d: sum dH %.12e m, sum (smb - melt) dt/rho %.12e m, "
           "|diff| %.3e m (tolerance %.3e m)",
           step, sum[0], sum[1], fabs(sum[0] - sum[1]), tol);
    if (o->mismip)
      printf(", melt sent %.12e m, share applied %.6f", sum[3],
             sum[3] > 0.0 ? 1.0 - (sum[0] - sum[1]) / sum[3] : 0.0);
    printf("\n");
  }
  at->t.mass_err_max = fmax(at->t.mass_err_max, e);
  at->t.dv_sum += fabs(sum[0]);
  at->t.melt_sum += sum[3];
  return CRYO_OK;
}

/* The point counts and the largest melt over all ranks; the record closed. */
static int atmosphere_finish(void *ctx, const toy_band *b, cryo_err *err) {
  atmosphere *at = ctx;
  tally *t = &at->t;
  long local[3] = {t->bad_mask, t->bad_bed, t->checked}, total[3];
  CRYO_CHECK(MPI_Allreduce(local, total, 3, MPI_LONG, MPI_SUM, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Allreduce of the check counts failed");
  t->bad_mask = total[0];
  t->bad_bed = total[1];
  t->checked = total[2];
  double m = t->melt_max;
  CRYO_CHECK(MPI_Allreduce(&m, &t->melt_max, 1, MPI_DOUBLE, MPI_MAX, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-atmosphere: MPI_Allreduce of the melt failed");
  if (at->ncid >= 0) {
    int ncid = at->ncid;
    at->ncid = -1;
    CRYO_NC(nc_close(ncid), err, "cryodyn-toy-atmosphere: --record %s", at->o->record);
  }
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank;
  int status = parse_options(argc, argv, &o, &err);
  atmosphere at = {.o = &o, .t = {0, 0, 0, 0.0, 0.0, 0.0, 0.0}, .ncid = -1};
  /* the fields sent: the table's, then the rate factor's layers */
  char rf_names[MAX_RF_LAYERS][12];
  const char *send_all[NSEND + MAX_RF_LAYERS] = {send_names[0], send_names[1]};
  for (int k = 0; k < o.rf_layers && status == CRYO_OK; k++) {
    snprintf(rf_names[k], sizeof rf_names[k], "A_LiRf%02d", k + 1);
    send_all[NSEND + k] = rf_names[k];
  }
  toy_partner p = {.program = "cryodyn-toy-atmosphere",
                   .component = "toyatm",
                   .nsend = NSEND + (status == CRYO_OK ? o.rf_layers : 0),
                   .nrecv = NRECV,
                   .send_names = send_all,
                   .recv_names = recv_names,
                   .define = atmosphere_define,
                   .fill = atmosphere_fill,
                   .received = atmosphere_received,
                   .finish = atmosphere_finish};
  toy_partner_couple(&p, status, o.nx, o.ny, o.run, o.period, -1, &at, &rank, &err);
  const tally t = at.t;
  int nsteps = o.run / o.period;
  int ok = t.bad_mask == 0 && t.bad_bed == 0 && t.mass_err_max <= 1.0 && t.checked > 0 &&
           (nsteps < 2 || t.dv_sum > 0.0) && (!o.mismip || nsteps < 2 || t.melt_sum > 0.0);
  if (rank == 0)
    printf("cryodyn-toy-atmosphere: %s: smb %s, melt %s, %d steps of %d s on a %d x %d grid: %ld "
           "points checked, %ld bad mask/thickness, %ld bad bed (d usurf != d thk), mass balance "
           "error at most %.3g of its tolerance, sum |dV| %.6e m, melt sent at most %.6e kg m-2 "
           "s-1\n",
           ok ? "PASS" : "FAIL", o.elevation ? "elevation" : "pattern",
           o.mismip ? "mismip" : "zero", nsteps, o.period, o.nx, o.ny, t.checked, t.bad_mask,
           t.bad_bed, t.mass_err_max, t.dv_sum, t.melt_max);
  free(at.topg);
  free(at.thk0);
  free(at.rf);
  free(at.global);
  free(at.counts);
  free(at.offs);
  return ok ? 0 : 1;
}
