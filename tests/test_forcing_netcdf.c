/* mpi-run ranks: 1 2 3 4 (tests/mpi-run runs this program once per count) */
/* Tests of the exchange layer (coupling/cryo_exchange.h): the table of
 * coupling fields, the netcdf forcing provider, the host provider and provider
 * selection. Run under MPI with any number of ranks (1, 2, 3, 4 checked):
 * rank 0 writes small NetCDF files into a temporary directory, every rank reads.
 *
 * What is asserted, with tolerances:
 * - values at the record times equal the file's values exactly (==), on owned
 *   cells and on the halo ring, which repeats the nearest domain cell at the
 *   domain edge (clamped) or wraps when periodic;
 * - halfway and quarter-way between records the value is (1-w) a + w b to
 *   1e-15 absolute (values are O(1));
 * - stepping through the file a quarter interval at a time reads each record
 *   exactly once per field (two-record cache); going back reads two again;
 * - a sub-block (i0, j0 != 0) reads exactly its hyperslab plus ring;
 * - "hours since" and "days since" units with a reference date that is not the
 *   start date, in the standard and the noleap calendar (which differ by the
 *   29 February), give records at the exact expected model times; standard
 *   and gregorian count 1500 as the model clock does (proleptic Gregorian);
 * - CF-packed variables (short with scale_factor and add_offset, float with
 *   scale_factor) arrive unpacked, exactly packed * scale + offset;
 * - NaN, Inf, _FillValue, missing_value beside a _FillValue, records never
 *   written (default fill) and values outside the field's plausible range
 *   (1e30 and 12 m s-1 of ocean velocity) are CRYO_ERR_DATA naming the
 *   variable, the record, the cell and the value (and the range);
 * - land ice reads smb and basal_melt exactly; units other than the table's
 *   (or a common spelling of them) are CRYO_ERR_FORMAT;
 * - every bad file gives its error class (cryo_status) and a message naming
 *   the file and the variable (or dimension) concerned; ssh is required only
 *   when the exchange is asked for it (with_ssh);
 * - host provider: get returns exactly what was set, the ring (corners
 *   included) from the neighbour ranks through the halo exchange, clamped or
 *   wrapped as above, with each direction closed or periodic; missing fields
 *   and wrong sizes are errors; put/get_field round-trip exactly;
 * - "oasis" without --with-oasis is CRYO_ERR_UNSUPPORTED naming the flag; with
 *   it, creating the exchange before joining the coupled run is CRYO_ERR_STATE
 *   telling what to call first.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "cryo_test.h"

#include <dirent.h>
#include <math.h>
#include <mpi.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cryo_clock.h"
#include "cryo_exchange.h"

#define NXG   7
#define NYG   5
#define NT    4
#define DT    3600.0
#define START "2000-01-01 00:00:00"

static char tmpdir[256];
static int rank, nrank;

static const int sea_in[4] = {CRYO_F_UWIND, CRYO_F_VWIND, CRYO_F_UOCEAN, CRYO_F_VOCEAN};
static const int land_in[2] = {CRYO_F_SMB, CRYO_F_BASAL_MELT};

/* The value of field number q (0..3 in sea_in order, 4..5 in land_in order)
 * at record k, cell (i, j): m s-1 of order 1 for sea ice, kg m-2 s-1 of order
 * 1e-4 for land ice (inside the plausible ranges of exchange_netcdf.c). */
static double value(int q, int k, int j, int i) {
  return (q < 4 ? 1.0 : 1e-4) * sin(1.0 + q + 0.7 * k + 0.3 * j + 0.11 * i);
}

/* CF packing of the packed test file: uwind as short (scale 0.001, offset
 * 0.5), vocean as float (scale 0.5); these give the values a reader must
 * return. */
#define PACK_SCALE  0.001
#define PACK_OFFSET 0.5
static short packed_short(double v) {
  return (short)lround((v - PACK_OFFSET) / PACK_SCALE);
}
static float packed_float(double v) {
  return (float)(v / 0.5);
}

static int clampi(int g, int n) {
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* How a test file deviates from a good one. */
typedef struct file_opts {
  int nx, ny, nt;           /* 0: NXG, NYG, NT */
  const char *units;        /* time units; NULL: standard, "": none */
  const char *calendar;     /* NULL: no attribute */
  const double *times;      /* NULL: k * DT */
  const char *skip_var;     /* a variable left out */
  const char *rename_uwind; /* write uwind under this name */
  int swap_uwind;           /* uwind with dimensions (time, x, y) */
  const char *ydim;         /* name of the y dimension; NULL: "y" */
  int no_time_var;
  const char *uwind_units; /* units attribute of uwind; NULL: none */
  int landice;             /* write smb and basal_melt instead of the sea-ice fields */
  int bad_kind;            /* in vocean at (bad_k, 1, 3): 1 NaN, 2 Inf, 3 _FillValue -999,
                              4 missing_value -888 (beside _FillValue -999), 5 1e30, 6 12 */
  int bad_k;
  int packed;        /* uwind and vocean CF-packed (packed_short, packed_float) */
  int uwind_records; /* records of uwind written (the others never are); 0: all */
} file_opts;

static void ncok(int s) {
  if (s != NC_NOERR) {
    fprintf(stderr, "test file: %s\n", nc_strerror(s));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* Rank 0 writes tmpdir/name as the options say; every rank gets the path. */
static const char *write_file(const char *name, const file_opts *o) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads an older file of that name any more */
  if (rank == 0) {
    int nx = o->nx ? o->nx : NXG, ny = o->ny ? o->ny : NYG, nt = o->nt ? o->nt : NT;
    int ncid, d[3], tv;
    ncok(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    ncok(nc_def_dim(ncid, "time", (size_t)nt, &d[0]));
    ncok(nc_def_dim(ncid, o->ydim ? o->ydim : "y", (size_t)ny, &d[1]));
    ncok(nc_def_dim(ncid, "x", (size_t)nx, &d[2]));
    if (!o->no_time_var) {
      ncok(nc_def_var(ncid, "time", NC_DOUBLE, 1, d, &tv));
      const char *u = o->units ? o->units : "seconds since " START;
      if (u[0]) ncok(nc_put_att_text(ncid, tv, "units", strlen(u), u));
      if (o->calendar)
        ncok(nc_put_att_text(ncid, tv, "calendar", strlen(o->calendar), o->calendar));
    }
    int var[4], nvar = o->landice ? 2 : 4;
    for (int q = 0; q < nvar; ++q) {
      const char *vn = cryo_exchange_fields[o->landice ? land_in[q] : sea_in[q]].name;
      var[q] = -1;
      if (o->skip_var && strcmp(vn, o->skip_var) == 0) continue;
      if (q == 0 && o->rename_uwind) vn = o->rename_uwind;
      int dd[3] = {d[0], d[1], d[2]};
      if (q == 0 && o->swap_uwind) dd[1] = d[2], dd[2] = d[1];
      nc_type type = o->packed && q == 0 ? NC_SHORT : (o->packed && q == 3 ? NC_FLOAT : NC_DOUBLE);
      ncok(nc_def_var(ncid, vn, type, 3, dd, &var[q]));
      if (o->packed && q == 0) {
        double sc = PACK_SCALE, off = PACK_OFFSET;
        ncok(nc_put_att_double(ncid, var[q], "scale_factor", NC_DOUBLE, 1, &sc));
        ncok(nc_put_att_double(ncid, var[q], "add_offset", NC_DOUBLE, 1, &off));
      }
      if (o->packed && q == 3) {
        float sc = 0.5f;
        ncok(nc_put_att_float(ncid, var[q], "scale_factor", NC_FLOAT, 1, &sc));
      }
      if (q == 0 && o->uwind_units)
        ncok(nc_put_att_text(ncid, var[q], "units", strlen(o->uwind_units), o->uwind_units));
      if (q == 3 && (o->bad_kind == 3 || o->bad_kind == 4)) {
        double fill = -999.0, missing = -888.0;
        ncok(nc_put_att_double(ncid, var[q], "_FillValue", NC_DOUBLE, 1, &fill));
        if (o->bad_kind == 4)
          ncok(nc_put_att_double(ncid, var[q], "missing_value", NC_DOUBLE, 1, &missing));
      }
    }
    ncok(nc_enddef(ncid));
    if (!o->no_time_var) {
      double *t = malloc(sizeof(double) * (size_t)nt);
      for (int k = 0; k < nt; ++k)
        t[k] = o->times ? o->times[k] : k * DT;
      ncok(nc_put_var_double(ncid, tv, t));
      free(t);
    }
    double *rec = malloc(sizeof(double) * (size_t)nx * ny);
    short *rec_short = malloc(sizeof(short) * (size_t)nx * ny);
    float *rec_float = malloc(sizeof(float) * (size_t)nx * ny);
    const double bad[7] = {0, NAN, INFINITY, -999.0, -888.0, 1e30, 12.0};
    for (int q = 0; q < nvar; ++q) {
      if (var[q] < 0) continue;
      for (int k = 0; k < nt; ++k) {
        if (q == 0 && o->uwind_records && k >= o->uwind_records) continue;
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            size_t c = (size_t)j * nx + i;
            rec[c] = value(o->landice ? q + 4 : q, k, j, i);
            rec_short[c] = packed_short(rec[c]);
            rec_float[c] = packed_float(rec[c]);
          }
        if (q == 3 && o->bad_kind && k == o->bad_k) rec[1 * nx + 3] = bad[o->bad_kind];
        size_t start[3] = {(size_t)k, 0, 0}, count[3] = {1, (size_t)ny, (size_t)nx};
        if (q == 0 && o->swap_uwind) count[1] = (size_t)nx, count[2] = (size_t)ny;
        if (o->packed && q == 0)
          ncok(nc_put_vara_short(ncid, var[q], start, count, rec_short));
        else if (o->packed && q == 3)
          ncok(nc_put_vara_float(ncid, var[q], start, count, rec_float));
        else
          ncok(nc_put_vara_double(ncid, var[q], start, count, rec));
      }
    }
    free(rec);
    free(rec_short);
    free(rec_float);
    ncok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

static cryo_block block_at(int i0, int j0, int nx, int ny) {
  cryo_block b = {.nx = nx,
                  .ny = ny,
                  .i0 = i0,
                  .j0 = j0,
                  .nx_global = NXG,
                  .ny_global = NYG,
                  .dx = 1000.0,
                  .dy = 1000.0};
  return b;
}

/* This rank's block of an MPI_Dims_create decomposition of the test grid. */
static cryo_block my_block(void) {
  int dims[2] = {0, 0};
  MPI_Dims_create(nrank, 2, dims); /* dims[0] >= dims[1]: more blocks along x (7 cells) */
  int px = dims[0], py = dims[1], ri = rank % px, rj = rank / px;
  int i0 = ri * NXG / px, i1 = (ri + 1) * NXG / px;
  int j0 = rj * NYG / py, j1 = (rj + 1) * NYG / py;
  return block_at(i0, j0, i1 - i0, j1 - j0);
}

/* Block b as the exchange's grid, without neighbours: enough for the netcdf
 * provider, which reads the ring from the file itself. The exchange copies
 * the grid, so one static grid serves every call. */
static const cryo_grid *alone(const cryo_block *b) {
  static cryo_grid g;
  g = (cryo_grid){.block = *b,
                  .comm = MPI_COMM_WORLD,
                  .rank = rank,
                  .size = nrank,
                  .west = MPI_PROC_NULL,
                  .east = MPI_PROC_NULL,
                  .south = MPI_PROC_NULL,
                  .north = MPI_PROC_NULL};
  return &g;
}

static cryo_exchange *open_nc(const char *path, const cryo_block *b, const char *const *names,
                              int *status, cryo_err *err) {
  cryo_exchange_config cfg = {.forcing_file = path, .start_date = START};
  if (names)
    for (int f = 0; f < CRYO_NFIELD; ++f)
      cfg.var_names[f] = names[f];
  cryo_exchange *x = NULL;
  cryo_err_clear(err);
  *status = cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(b), &cfg, err);
  return x;
}

/* Number of cells of buf (ring included) that differ from the expected
 * (1-w) rec k + w rec k+1 by more than tol; the source cell of a ring cell
 * is clamped, or wrapped along a periodic direction. */
static int count_bad(const cryo_block *b, const double *buf, int q, int k, double w, double tol) {
  int bad = 0;
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      int gi = b->i0 + i, gj = b->j0 + j;
      gi = b->periodic_x ? (gi + NXG) % NXG : clampi(gi, NXG);
      gj = b->periodic_y ? (gj + NYG) % NYG : clampi(gj, NYG);
      double want = w == 0.0 ? value(q, k, gj, gi)
                             : (1.0 - w) * value(q, k, gj, gi) + w * value(q, k + 1, gj, gi);
      double got = buf[CRYO_CELL(b, i, j)];
      if (tol == 0.0 ? got != want : !(fabs(got - want) <= tol)) ++bad;
    }
  return bad;
}

static void test_field_table(void) {
  int f = -1, counts[2][2] = {{0, 0}, {0, 0}};
  cryo_err err;
  CU_ASSERT_EQUAL(cryo_exchange_field_find("uwind", &f, &err), CRYO_OK);
  CU_ASSERT_EQUAL(f, CRYO_F_UWIND);
  CU_ASSERT_EQUAL(cryo_exchange_field_find("sea_ice_thickness", &f, &err), CRYO_OK);
  CU_ASSERT_EQUAL(f, CRYO_F_HICE);
  CU_ASSERT_EQUAL(cryo_exchange_field_find("snow", &f, &err), CRYO_ERR_UNKNOWN);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'snow'"));
  for (int k = 0; k < CRYO_NFIELD; ++k) {
    const cryo_field_info *fi = &cryo_exchange_fields[k];
    CU_ASSERT(fi->name && fi->name[0] && fi->units && fi->units[0] && fi->long_name[0]);
    counts[fi->model][fi->dir]++;
  }
  CU_ASSERT_EQUAL(counts[CRYO_MODEL_SEAICE][CRYO_FIELD_IN], 5);
  CU_ASSERT_EQUAL(counts[CRYO_MODEL_SEAICE][CRYO_FIELD_OUT], 6);
  CU_ASSERT_EQUAL(counts[CRYO_MODEL_LANDICE][CRYO_FIELD_IN], 2);
  CU_ASSERT_EQUAL(counts[CRYO_MODEL_LANDICE][CRYO_FIELD_OUT], 3);
}

/* Exact values at every record time, then interpolation, on this rank's block. */
static void test_records_and_interpolation(void) {
  file_opts o = {0};
  const char *path = write_file("good.nc", &o);
  cryo_block b = my_block();
  cryo_err err;
  int st;
  cryo_exchange *x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  CU_ASSERT_STRING_EQUAL(cryo_exchange_provider(x), "netcdf");
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  for (int k = 0; k < NT; ++k)
    for (int q = 0; q < 4; ++q) {
      CU_ASSERT_EQUAL(cryo_exchange_get(x, k * DT, sea_in[q], buf, &err), CRYO_OK);
      CU_ASSERT_EQUAL(count_bad(&b, buf, q, k, 0.0, 0.0), 0);
    }
  /* halfway and a quarter of the way, also going back in time */
  const double ws[2] = {0.5, 0.25};
  const int ks[3] = {0, 2, 1};
  for (int n = 0; n < 3; ++n)
    for (int m = 0; m < 2; ++m)
      for (int q = 0; q < 4; ++q) {
        CU_ASSERT_EQUAL(cryo_exchange_get(x, (ks[n] + ws[m]) * DT, sea_in[q], buf, &err), CRYO_OK);
        CU_ASSERT_EQUAL(count_bad(&b, buf, q, ks[n], ws[m], 1e-15), 0);
      }
  /* the two-record cache: a fresh exchange stepping forwards reads each record once */
  cryo_exchange_destroy(&x);
  x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  for (int m = 0; m <= 4 * (NT - 1); ++m)
    CU_ASSERT_EQUAL(cryo_exchange_get(x, m * 0.25 * DT, CRYO_F_VWIND, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_netcdf_reads(x), NT);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.5 * DT, CRYO_F_VWIND, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_netcdf_reads(x), NT + 2);
  /* wrong direction and wrong model are argument errors */
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UICE, buf, &err), CRYO_ERR_ARG);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_SMB, buf, &err), CRYO_ERR_ARG);
  CU_ASSERT_EQUAL(cryo_exchange_put(x, 0.0, CRYO_F_UICE, buf, &err), CRYO_OK);
  cryo_exchange_destroy(&x);
  CU_ASSERT_PTR_NULL(x);
  free(buf);
}

/* Sub-blocks away from the origin read their hyperslab; the ring comes from
 * the neighbouring cells inside the domain and is clamped outside it. */
static void test_subblock_hyperslab(void) {
  file_opts o = {0};
  const char *path = write_file("good.nc", &o);
  cryo_block blocks[3] = {block_at(4, 3, 3, 2), block_at(1, 1, 2, 3), block_at(0, 2, NXG, 2)};
  blocks[2].periodic_x = 1;
  cryo_err err;
  for (int n = 0; n < 3; ++n) {
    cryo_block *b = &blocks[n];
    int st;
    cryo_exchange *x = open_nc(path, b, NULL, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
    double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(b));
    for (int q = 0; q < 4; ++q) {
      CU_ASSERT_EQUAL(cryo_exchange_get(x, 2 * DT, sea_in[q], buf, &err), CRYO_OK);
      CU_ASSERT_EQUAL(count_bad(b, buf, q, 2, 0.0, 0.0), 0);
      CU_ASSERT_EQUAL(cryo_exchange_get(x, 2.5 * DT, sea_in[q], buf, &err), CRYO_OK);
      CU_ASSERT_EQUAL(count_bad(b, buf, q, 2, 0.5, 1e-15), 0);
    }
    /* spot checks of the clamp written out: corner ring cell of block 0 */
    if (n == 0) {
      CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UWIND, buf, &err), CRYO_OK);
      CU_ASSERT_EQUAL(buf[CRYO_CELL(b, 3, 2)], value(0, 0, 4, 6));
      CU_ASSERT_EQUAL(buf[CRYO_CELL(b, -1, -1)], value(0, 0, 2, 3));
    }
    cryo_exchange_destroy(&x);
    free(buf);
  }
}

/* Record k of a file whose time axis, converted to model time, puts record
 * `at` at model time 0: the get at 0 returns that record exactly. */
static void check_record_at_zero(const char *path, int at) {
  cryo_block b = block_at(0, 0, NXG, NYG);
  cryo_err err;
  int st;
  cryo_exchange *x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_VWIND, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(count_bad(&b, buf, 1, at, 0.0, 0.0), 0);
  cryo_exchange_destroy(&x);
  free(buf);
}

static void test_time_units_and_calendars(void) {
  const double hours[NT] = {1, 2, 3, 4};
  file_opts o = {.units = "hours since 1999-12-31 23:00:00", .times = hours};
  check_record_at_zero(write_file("hours.nc", &o), 0);
  /* start 2000-03-01; file days since 2000-02-28: 2 days before the start in
   * the standard calendar (2000 is a leap year), 1 day in noleap */
  const double days[NT] = {0, 1, 2, 3};
  file_opts s = {.units = "days since 2000-02-28", .times = days, .calendar = "standard"};
  file_opts n = {.units = "days since 2000-02-28", .times = days, .calendar = "noleap"};
  const char *ps = write_file("days_standard.nc", &s);
  cryo_block b = block_at(0, 0, NXG, NYG);
  cryo_exchange_config cfg = {.forcing_file = ps, .start_date = "2000-03-01 00:00:00"};
  cryo_exchange *x = NULL;
  cryo_err err;
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  CU_ASSERT_EQUAL_FATAL(
      cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UOCEAN, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(count_bad(&b, buf, 2, 2, 0.0, 0.0), 0);
  cryo_exchange_destroy(&x);
  cfg.forcing_file = write_file("days_noleap.nc", &n);
  CU_ASSERT_EQUAL_FATAL(
      cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UOCEAN, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(count_bad(&b, buf, 2, 1, 0.0, 0.0), 0);
  /* 12 h after the start: halfway between records 1 and 2 */
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 43200.0, CRYO_F_UOCEAN, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(count_bad(&b, buf, 2, 1, 0.5, 1e-15), 0);
  cryo_exchange_destroy(&x);
  /* standard (and gregorian) is proleptic Gregorian before 1582 too, as for
   * the model clock: 1500 is not a leap year, so 1500-03-01 is 59 days after
   * 1500-01-01 (60 in the Julian part of a mixed Julian/Gregorian calendar),
   * and record 1 lies at the start */
  const double d1500[NT] = {58, 59, 60, 61};
  cryo_date jan = {1500, 1, 1, 0, 0, 0}, mar = {1500, 3, 1, 0, 0, 0};
  CU_ASSERT_EQUAL(cryo_date_diff(jan, mar, CRYO_CAL_GREGORIAN), 59 * 86400LL);
  const char *cals[2] = {"standard", "gregorian"};
  for (int k = 0; k < 2; ++k) {
    file_opts o1500 = {.units = "days since 1500-01-01", .times = d1500, .calendar = cals[k]};
    cfg.forcing_file = write_file("days_1500.nc", &o1500);
    cfg.start_date = "1500-03-01 00:00:00";
    CU_ASSERT_EQUAL_FATAL(
        cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UOCEAN, buf, &err), CRYO_OK);
    CU_ASSERT_EQUAL(count_bad(&b, buf, 2, 1, 0.0, 0.0), 0);
    cryo_exchange_destroy(&x);
  }
  cfg.forcing_file = write_file("days_noleap.nc", &n);
  /* a start date that does not exist in noleap is an argument error */
  cfg.start_date = "2000-02-29 00:00:00";
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                  CRYO_ERR_ARG);
  CU_ASSERT_PTR_NULL(x);
  free(buf);
}

/* Expect create on `path` to fail with `status` and a message containing the
 * path and `word`. */
static void expect_create_error(const char *path, const char *const *names, int status,
                                const char *word) {
  cryo_block b = block_at(0, 0, NXG, NYG);
  cryo_err err;
  int st;
  cryo_exchange *x = open_nc(path, &b, names, &st, &err);
  CU_ASSERT_EQUAL(st, status);
  CU_ASSERT_PTR_NULL(x);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, word));
  if (st != status || !strstr(err.msg, path) || !strstr(err.msg, word))
    fprintf(stderr, "  expected %s with '%s', got %s: %s\n", cryo_status_name(status), word,
            cryo_status_name(st), err.msg);
}

static void test_bad_headers(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/does_not_exist.nc", tmpdir);
  expect_create_error(path, NULL, CRYO_ERR_FILE, "cannot be read");
  snprintf(path, sizeof path, "%s/not_netcdf.nc", tmpdir);
  if (rank == 0) {
    FILE *fp = fopen(path, "w");
    fputs("this is not a NetCDF file\n", fp);
    fclose(fp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_create_error(path, NULL, CRYO_ERR_NETCDF, "NetCDF");

  file_opts o = {.skip_var = "vocean"};
  expect_create_error(write_file("no_vocean.nc", &o), NULL, CRYO_ERR_MISSING, "'vocean'");
  const char *names[CRYO_NFIELD] = {[CRYO_F_UWIND] = "U10"};
  file_opts good = {0};
  expect_create_error(write_file("good.nc", &good), names, CRYO_ERR_MISSING, "'U10'");
  file_opts ren = {.rename_uwind = "U10"};
  expect_create_error(write_file("renamed.nc", &ren), NULL, CRYO_ERR_MISSING, "'uwind'");
  /* the sea-surface height is read only by a run that uses it (&cryo_seaice ssh_tilt): the
   * files above have none and open; asked for, its absence is named */
  {
    cryo_block b = block_at(0, 0, NXG, NYG);
    cryo_exchange_config cfg = {
        .forcing_file = write_file("good.nc", &good), .start_date = START, .with_ssh = 1};
    cryo_exchange *x = NULL;
    cryo_err err;
    cryo_err_clear(&err);
    CU_ASSERT_EQUAL(cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                    CRYO_ERR_MISSING);
    CU_ASSERT_PTR_NULL(x);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'ssh'"));
  }
  file_opts noy = {.ydim = "lat"};
  expect_create_error(write_file("no_ydim.nc", &noy), NULL, CRYO_ERR_MISSING, "'y'");
  file_opts size = {.nx = NXG - 1};
  expect_create_error(write_file("wrong_size.nc", &size), NULL, CRYO_ERR_FORMAT, "(y, x)");
  file_opts swap = {.swap_uwind = 1};
  expect_create_error(write_file("swapped.nc", &swap), NULL, CRYO_ERR_FORMAT, "'uwind'");
  file_opts notime = {.no_time_var = 1};
  expect_create_error(write_file("no_time.nc", &notime), NULL, CRYO_ERR_MISSING, "'time'");
  file_opts nounits = {.units = ""};
  expect_create_error(write_file("no_units.nc", &nounits), NULL, CRYO_ERR_FORMAT, "'time'");
  file_opts badunits = {.units = "fortnights since 2000-01-01"};
  expect_create_error(write_file("bad_units.nc", &badunits), NULL, CRYO_ERR_FORMAT, "fortnights");
  file_opts baddate = {.units = "seconds since 2000-13-01 00:00:00"};
  expect_create_error(write_file("bad_date.nc", &baddate), NULL, CRYO_ERR_FORMAT, "'time'");
  file_opts cal = {.calendar = "360_day"};
  expect_create_error(write_file("cal360.nc", &cal), NULL, CRYO_ERR_FORMAT, "360_day");
  const double flat[NT] = {0, 3600, 3600, 7200};
  file_opts mono = {.times = flat};
  expect_create_error(write_file("non_monotonic.nc", &mono), NULL, CRYO_ERR_DATA,
                      "variable 'time' is not strictly increasing");
  const double nant[NT] = {0, 3600, NAN, 7200};
  file_opts tnan = {.times = nant};
  expect_create_error(write_file("time_nan.nc", &tnan), NULL, CRYO_ERR_DATA, "index 2");
  /* 1e306 days is finite in the file but Inf in seconds: a time no record
   * can be at. */
  const double huge[NT] = {0, 1, 2, 1e306};
  file_opts thuge = {.units = "days since 2000-01-01", .times = huge};
  expect_create_error(write_file("time_huge.nc", &thuge), NULL, CRYO_ERR_DATA,
                      "variable 'time': value 1e+306 at index 3");
  cryo_block b = block_at(0, 0, NXG, NYG);
  cryo_exchange *x = NULL;
  cryo_err err;
  cryo_exchange_config cfg = {.start_date = START};
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                  CRYO_ERR_MISSING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "forcing_file"));
}

/* Errors found when reading: time outside the file, NaN/Inf/fill values. */
static void test_bad_data(void) {
  cryo_block b = block_at(0, 0, NXG, NYG);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  cryo_err err;
  int st;
  file_opts good = {0};
  const char *path = write_file("good.nc", &good);
  cryo_exchange *x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  const double outside[2] = {(NT - 1) * DT + 1.0, -1.0};
  for (int n = 0; n < 2; ++n) {
    cryo_err_clear(&err);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, outside[n], CRYO_F_UWIND, buf, &err), CRYO_ERR_DATA);
    char t[64];
    snprintf(t, sizeof t, "%.10g s", outside[n]);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, t));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "0 to 10800 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'uwind'"));
  }
  cryo_exchange_destroy(&x);
  /* message texts of bad_kind 1..6: CF missing data, then values outside the
   * plausible range of an ocean velocity (a wind of 1e30 left NaN velocities
   * in the model before) */
  const char *what[6][2] = {
      {"non-finite value nan", ""},         {"non-finite value inf", ""},
      {"fill value -999 (_FillValue)", ""}, {"fill value -888 (missing_value)", ""},
      {"value 1e+30", "[-10, 10] m s-1"},   {"value 12", "[-10, 10] m s-1"}};
  for (int kind = 1; kind <= 6; ++kind) {
    char name[64];
    snprintf(name, sizeof name, "bad_value_%d.nc", kind);
    file_opts o = {.bad_kind = kind, .bad_k = 2};
    path = write_file(name, &o);
    x = open_nc(path, &b, NULL, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
    /* records 0 and 1 are clean */
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.5 * DT, CRYO_F_VOCEAN, buf, &err), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 1.5 * DT, CRYO_F_VOCEAN, buf, &err), CRYO_ERR_DATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'vocean'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what[kind - 1][0]));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what[kind - 1][1]));
    if (!strstr(err.msg, what[kind - 1][0]) || !strstr(err.msg, what[kind - 1][1]))
      fprintf(stderr, "  bad_kind %d: %s\n", kind, err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "time index 2, y 1, x 3"));
    cryo_exchange_destroy(&x);
  }
  free(buf);
}

/* Records never written hold the default fill value: an error naming the
 * record and the cell, not 9.97e36 m s-1 of wind. */
static void test_unwritten_records(void) {
  cryo_block b = block_at(0, 0, NXG, NYG);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  cryo_err err;
  int st;
  file_opts o = {.uwind_records = 2};
  const char *path = write_file("unwritten.nc", &o);
  cryo_exchange *x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.5 * DT, CRYO_F_UWIND, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 1.5 * DT, CRYO_F_UWIND, buf, &err), CRYO_ERR_DATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'uwind'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "never written"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "time index 2, y 0, x 0"));
  cryo_exchange_destroy(&x);
  free(buf);
}

/* CF-packed variables arrive unpacked, packed * scale_factor + add_offset
 * computed as here (exact), for a short and a float packed type, on this
 * rank's owned cells at every record. */
static void test_packed(void) {
  file_opts o = {.packed = 1};
  const char *path = write_file("packed.nc", &o);
  cryo_block b = my_block();
  cryo_err err;
  int st;
  cryo_exchange *x = open_nc(path, &b, NULL, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  double *u = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  double *v = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  for (int k = 0; k < NT; ++k) {
    CU_ASSERT_EQUAL(cryo_exchange_get(x, k * DT, CRYO_F_UWIND, u, &err), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, k * DT, CRYO_F_VOCEAN, v, &err), CRYO_OK);
    int bad = 0;
    for (int j = 0; j < b.ny; ++j)
      for (int i = 0; i < b.nx; ++i) {
        long c = CRYO_CELL(&b, i, j);
        double wu = packed_short(value(0, k, b.j0 + j, b.i0 + i)) * PACK_SCALE + PACK_OFFSET;
        double wv = (double)packed_float(value(3, k, b.j0 + j, b.i0 + i)) * 0.5;
        bad += u[c] != wu || v[c] != wv;
      }
    CU_ASSERT_EQUAL(bad, 0);
  }
  cryo_exchange_destroy(&x);
  free(u);
  free(v);
}

/* Land ice reads its own IN fields; a sea-ice file lacks them. */
static void test_landice_fields(void) {
  file_opts o = {.landice = 1};
  cryo_block b = my_block();
  cryo_exchange_config cfg = {.forcing_file = write_file("landice.nc", &o), .start_date = START};
  cryo_exchange *x = NULL;
  cryo_err err;
  CU_ASSERT_EQUAL_FATAL(
      cryo_exchange_create(&x, "netcdf", CRYO_MODEL_LANDICE, alone(&b), &cfg, &err), CRYO_OK);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  for (int q = 0; q < 2; ++q) {
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 3 * DT, land_in[q], buf, &err), CRYO_OK);
    CU_ASSERT_EQUAL(count_bad(&b, buf, q + 4, 3, 0.0, 0.0), 0);
  }
  CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UWIND, buf, &err), CRYO_ERR_ARG);
  cryo_exchange_destroy(&x);
  free(buf);
  file_opts sea = {0};
  cfg.forcing_file = write_file("good.nc", &sea);
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "netcdf", CRYO_MODEL_LANDICE, alone(&b), &cfg, &err),
                  CRYO_ERR_MISSING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'smb'"));
}

/* Units: the table's or a common equivalent spelling pass, others fail. */
static void test_field_units(void) {
  const char *ok[3] = {"m s-1", "m/s", "M S**-1"};
  for (int k = 0; k < 3; ++k) {
    file_opts o = {.uwind_units = ok[k]};
    cryo_block b = block_at(0, 0, NXG, NYG);
    cryo_err err;
    int st;
    cryo_exchange *x = open_nc(write_file("units.nc", &o), &b, NULL, &st, &err);
    CU_ASSERT_EQUAL(st, CRYO_OK);
    cryo_exchange_destroy(&x);
  }
  file_opts kmh = {.uwind_units = "km/h"};
  expect_create_error(write_file("units_kmh.nc", &kmh), NULL, CRYO_ERR_FORMAT, "'uwind'");
  expect_create_error(write_file("units_kmh.nc", &kmh), NULL, CRYO_ERR_FORMAT, "'km/h'");
}

/* Variable-name overrides: the file's U10 serves as uwind. */
static void test_name_override(void) {
  file_opts ren = {.rename_uwind = "U10"};
  const char *path = write_file("renamed.nc", &ren);
  const char *names[CRYO_NFIELD] = {[CRYO_F_UWIND] = "U10"};
  cryo_block b = block_at(2, 1, 3, 3);
  cryo_err err;
  int st;
  cryo_exchange *x = open_nc(path, &b, names, &st, &err);
  CU_ASSERT_EQUAL_FATAL(st, CRYO_OK);
  double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
  CU_ASSERT_EQUAL(cryo_exchange_get(x, DT, CRYO_F_UWIND, buf, &err), CRYO_OK);
  CU_ASSERT_EQUAL(count_bad(&b, buf, 0, 1, 0.0, 0.0), 0);
  cryo_exchange_destroy(&x);
  free(buf);
}

/* Host provider on this rank's block of the component's decomposition
 * (cryo_grid_create), each direction closed or periodic: the ring, corners
 * included, comes from the neighbours and the domain edge, none of it from
 * what the buffer held (NaN before every get). */
static void test_host_provider(void) {
  int dims[2] = {0, 0};
  MPI_Dims_create(nrank, 2, dims);
  for (int periodic = 0; periodic < 4; ++periodic) {
    cryo_grid g;
    cryo_err err;
    CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, NXG, NYG, 1000.0, 1000.0, dims[0],
                                           dims[1], periodic & 1, periodic >> 1, &err),
                          CRYO_OK);
    const cryo_block b = g.block;
    cryo_exchange_config cfg = {0};
    cryo_exchange *x = NULL;
    CU_ASSERT_EQUAL_FATAL(cryo_exchange_create(&x, "host", CRYO_MODEL_SEAICE, &g, &cfg, &err),
                          CRYO_OK);
    cryo_grid_destroy(&g);
    long n = (long)b.nx * b.ny;
    double *vals = malloc(sizeof(double) * (size_t)n);
    double *buf = malloc(sizeof(double) * (size_t)CRYO_NCELL(&b));
    for (int j = 0; j < b.ny; ++j)
      for (int i = 0; i < b.nx; ++i)
        vals[j * b.nx + i] = value(0, 3, b.j0 + j, b.i0 + i);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UWIND, buf, &err), CRYO_ERR_MISSING);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'uwind'"));
    CU_ASSERT_EQUAL(cryo_exchange_set_field(x, CRYO_F_UWIND, vals, n, &err), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_exchange_set_field(x, CRYO_F_UWIND, vals, n - 1, &err), CRYO_ERR_ARG);
    CU_ASSERT_EQUAL(cryo_exchange_set_field(x, CRYO_F_UICE, vals, n, &err), CRYO_ERR_ARG);
    for (long q = 0; q < CRYO_NCELL(&b); ++q)
      buf[q] = NAN;
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_UWIND, buf, &err), CRYO_OK);
    CU_ASSERT_EQUAL(count_bad(&b, buf, 0, 3, 0.0, 0.0), 0);
    CU_ASSERT_EQUAL(cryo_exchange_get(x, 0.0, CRYO_F_VWIND, buf, &err), CRYO_ERR_MISSING);
    /* results: put reads owned cells, get_field returns them row-major */
    CU_ASSERT_EQUAL(cryo_exchange_get_field(x, CRYO_F_HICE, vals, n, &err), CRYO_ERR_MISSING);
    for (int j = -1; j <= b.ny; ++j)
      for (int i = -1; i <= b.nx; ++i)
        buf[CRYO_CELL(&b, i, j)] = 100.0 * j + i;
    CU_ASSERT_EQUAL(cryo_exchange_put(x, 60.0, CRYO_F_HICE, buf, &err), CRYO_OK);
    CU_ASSERT_EQUAL(cryo_exchange_get_field(x, CRYO_F_HICE, vals, n, &err), CRYO_OK);
    int bad = 0;
    for (int j = 0; j < b.ny; ++j)
      for (int i = 0; i < b.nx; ++i)
        bad += vals[j * b.nx + i] != 100.0 * j + i;
    CU_ASSERT_EQUAL(bad, 0);
    cryo_exchange_destroy(&x);
    free(vals);
    free(buf);
  }
}

static void test_provider_selection(void) {
  cryo_block b = my_block();
  cryo_exchange_config cfg = {0};
  cryo_exchange *x = NULL;
  cryo_err err;
#ifdef CRYO_HAVE_OASIS
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "oasis", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                  CRYO_ERR_STATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cryo_coupler_init"));
#else
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "oasis", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                  CRYO_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--with-oasis"));
#endif
  CU_ASSERT_PTR_NULL(x);
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "grib", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'grib'"));
  cryo_block wrong = block_at(5, 0, 3, 2); /* 5 + 3 > 7 */
  CU_ASSERT_EQUAL(cryo_exchange_create(&x, "host", CRYO_MODEL_SEAICE, alone(&wrong), &cfg, &err),
                  CRYO_ERR_ARG);
  /* set_field is for the host provider only */
  file_opts good = {0};
  cfg.forcing_file = write_file("good.nc", &good);
  cfg.start_date = START;
  CU_ASSERT_EQUAL_FATAL(
      cryo_exchange_create(&x, "netcdf", CRYO_MODEL_SEAICE, alone(&b), &cfg, &err), CRYO_OK);
  double v[NXG * NYG] = {0};
  CU_ASSERT_EQUAL(cryo_exchange_set_field(x, CRYO_F_UWIND, v, (long)b.nx * b.ny, &err),
                  CRYO_ERR_STATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'host'"));
  cryo_exchange_destroy(&x);
  cryo_exchange_destroy(&x); /* NULL is allowed */
}

/* Remove the temporary files (rank 0, at exit, after MPI has finished). */
static void remove_tmpdir(void) {
  DIR *d = opendir(tmpdir);
  if (!d) return;
  char path[600];
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(tmpdir);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);
  if (rank == 0) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cryo_test_forcing_XXXXXX");
    if (!mkdtemp(tmpdir)) {
      perror("mkdtemp");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    atexit(remove_tmpdir);
  }
  MPI_Bcast(tmpdir, sizeof tmpdir, MPI_CHAR, 0, MPI_COMM_WORLD);
  CU_TestInfo tests[] = {{"field table", test_field_table},
                         {"records and interpolation", test_records_and_interpolation},
                         {"sub-block hyperslab and ring", test_subblock_hyperslab},
                         {"time units and calendars", test_time_units_and_calendars},
                         {"bad headers", test_bad_headers},
                         {"bad data", test_bad_data},
                         {"unwritten records", test_unwritten_records},
                         {"CF-packed variables", test_packed},
                         {"variable name override", test_name_override},
                         {"land-ice fields", test_landice_fields},
                         {"field units", test_field_units},
                         {"host provider", test_host_provider},
                         {"provider selection", test_provider_selection},
                         CU_TEST_INFO_NULL};
  if (CU_initialize_registry() != CUE_SUCCESS || cryo_test_suite("forcing_netcdf", tests)) return 2;
  return cryo_test_run();
}
