/* cryodyn-cyclone-forcing: write the forcing file of the Mehlmann et al.
 * (2021) sea-ice cyclone benchmark (docs/benchmarks.md; JAMES 13,
 * e2021MS002523) for the netcdf forcing provider (coupling/exchange_netcdf.c).
 *
 *   cryodyn-cyclone-forcing OUT.nc NX NY [DAYS] [INTERVAL_S]
 *
 * The grid is the benchmark's 512 km square cut into NX x NY cells; the file
 * holds wind (uwind, vwind) and ocean velocity (uocean, vocean) in m s-1 at
 * the cell centres, every INTERVAL_S seconds (default 3600) from 0 to at least
 * DAYS days (default 2), NetCDF-4 with CF attributes, time in "seconds since
 * 2000-01-01 00:00:00": run with start date '2000-01-01 00:00:00'. The
 * formulas are those the analytic forcing uses (kernels/seaice_cyclone.h), so
 * a run on this file sees the same values at the record times.
 * Bad arguments or a failed write: "cryodyn-cyclone-forcing: error: ..." and exit 1.
 */
#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cryo_exchange.h"
#include "seaice_cyclone.h"

#define PROG       "cryodyn-cyclone-forcing"
#define TIME_UNITS "seconds since 2000-01-01 00:00:00"

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, PROG ": error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void usage(void) {
  fprintf(stderr, "usage: " PROG " OUT.nc NX NY [DAYS] [INTERVAL_S]\n"
                  "  NX, NY      cells along x and y of the 512 km square (1 to 65536)\n"
                  "  DAYS        length covered, days (default 2)\n"
                  "  INTERVAL_S  seconds between records (default 3600)\n");
}

static long parse_long(const char *s, const char *what, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi)
    die("%s = '%s' must be an integer in [%ld, %ld]", what, s, lo, hi);
  return v;
}

static double parse_double(const char *s, const char *what, double lo, double hi) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v > lo && v <= hi))
    die("%s = '%s' must be a number in (%g, %g]", what, s, lo, hi);
  return v;
}

static void check(int status, const char *path, const char *what) {
  if (status != NC_NOERR) die("%s: %s: %s", path, what, nc_strerror(status));
}

static void text_att(int ncid, int varid, const char *name, const char *value, const char *path) {
  check(nc_put_att_text(ncid, varid, name, strlen(value), value), path, name);
}

/* Define a coordinate variable along one axis: cell centres in m. */
static int def_axis(int ncid, int dim, const char *name, const char *std, const char *axis,
                    const char *path) {
  int varid;
  check(nc_def_var(ncid, name, NC_DOUBLE, 1, &dim, &varid), path, name);
  text_att(ncid, varid, "units", "m", path);
  text_att(ncid, varid, "standard_name", std, path);
  text_att(ncid, varid, "long_name", "cell centre coordinate", path);
  text_att(ncid, varid, "axis", axis, path);
  return varid;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 6) {
    usage();
    die("expected 3 to 5 arguments, got %d", argc - 1);
  }
  const char *path = argv[1];
  int nx = (int)parse_long(argv[2], "NX", 1, 65536);
  int ny = (int)parse_long(argv[3], "NY", 1, 65536);
  double days = argc > 4 ? parse_double(argv[4], "DAYS", 0.0, 3650.0) : 2.0;
  long interval = argc > 5 ? parse_long(argv[5], "INTERVAL_S", 1, 365L * 86400) : 3600;
  /* Records at 0, interval, ... up to the first at or after the end. */
  long nt = (long)ceil(days * 86400.0 / (double)interval) + 1;
  if (nt > 1000000) die("DAYS / INTERVAL_S gives %ld records (at most 1000000)", nt);

  int ncid, dims[3], time_var;
  check(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid), path, "nc_create");
  check(nc_def_dim(ncid, "time", (size_t)nt, &dims[0]), path, "time");
  check(nc_def_dim(ncid, "y", (size_t)ny, &dims[1]), path, "y");
  check(nc_def_dim(ncid, "x", (size_t)nx, &dims[2]), path, "x");
  check(nc_def_var(ncid, "time", NC_DOUBLE, 1, &dims[0], &time_var), path, "time");
  text_att(ncid, time_var, "units", TIME_UNITS, path);
  text_att(ncid, time_var, "calendar", "standard", path);
  text_att(ncid, time_var, "standard_name", "time", path);
  text_att(ncid, time_var, "axis", "T", path);
  int y_var = def_axis(ncid, dims[1], "y", "projection_y_coordinate", "Y", path);
  int x_var = def_axis(ncid, dims[2], "x", "projection_x_coordinate", "X", path);
  const int fields[4] = {CRYO_F_UWIND, CRYO_F_VWIND, CRYO_F_UOCEAN, CRYO_F_VOCEAN};
  int var[4];
  size_t chunk[3] = {1, (size_t)ny, (size_t)nx};
  for (int k = 0; k < 4; ++k) {
    const cryo_field_info *fi = &cryo_exchange_fields[fields[k]];
    check(nc_def_var(ncid, fi->name, NC_DOUBLE, 3, dims, &var[k]), path, fi->name);
    check(nc_def_var_chunking(ncid, var[k], NC_CHUNKED, chunk), path, fi->name);
    text_att(ncid, var[k], "units", fi->units, path);
    text_att(ncid, var[k], "standard_name", fi->standard_name, path);
    text_att(ncid, var[k], "long_name", fi->long_name, path);
  }
  text_att(ncid, NC_GLOBAL, "Conventions", "CF-1.8", path);
  text_att(ncid, NC_GLOBAL, "title", "Mehlmann et al. (2021) sea-ice cyclone benchmark forcing",
           path);
  text_att(ncid, NC_GLOBAL, "references",
           "Mehlmann, C. et al. (2021), J. Adv. Model. Earth Syst. 13, e2021MS002523", path);
  text_att(ncid, NC_GLOBAL, "source", "cryodyn examples/cyclone_forcing", path);
  check(nc_enddef(ncid), path, "nc_enddef");

  double *xc = malloc(sizeof(double) * (size_t)nx), *yc = malloc(sizeof(double) * (size_t)ny);
  double *rec[4];
  for (int k = 0; k < 4; ++k)
    rec[k] = malloc(sizeof(double) * (size_t)nx * (size_t)ny);
  if (!xc || !yc || !rec[0] || !rec[1] || !rec[2] || !rec[3])
    die("out of memory for %d x %d cells", nx, ny);
  for (int i = 0; i < nx; ++i)
    xc[i] = (i + 0.5) * (CRYO_CYCLONE_L / nx);
  for (int j = 0; j < ny; ++j)
    yc[j] = (j + 0.5) * (CRYO_CYCLONE_L / ny);
  check(nc_put_var_double(ncid, x_var, xc), path, "x");
  check(nc_put_var_double(ncid, y_var, yc), path, "y");
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      size_t c = (size_t)j * nx + i;
      cryo_cyclone_ocean(xc[i], yc[j], &rec[2][c], &rec[3][c]);
    }
  for (long n = 0; n < nt; ++n) {
    double t = (double)(n * interval);
    size_t one = (size_t)n;
    check(nc_put_var1_double(ncid, time_var, &one, &t), path, "time");
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        size_t c = (size_t)j * nx + i;
        cryo_cyclone_wind(xc[i], yc[j], t, &rec[0][c], &rec[1][c]);
      }
    size_t start[3] = {(size_t)n, 0, 0}, count[3] = {1, (size_t)ny, (size_t)nx};
    for (int k = 0; k < 4; ++k)
      check(nc_put_vara_double(ncid, var[k], start, count, rec[k]), path,
            cryo_exchange_fields[fields[k]].name);
  }
  check(nc_close(ncid), path, "nc_close");
  for (int k = 0; k < 4; ++k)
    free(rec[k]);
  free(xc);
  free(yc);
  return 0;
}
