/* NetCDF forcing provider (forcing = 'netcdf', the standalone harness of
 * docs/design.md, Files; format: namelists/README.md, NetCDF forcing file).
 *
 * The file has dimensions time, y, x (x, y: the component grid's cell centres,
 * sizes nx_global, ny_global), a variable time(time) with units
 * "<seconds|minutes|hours|days> since YYYY-MM-DD[ hh:mm[:ss]]" and an optional
 * calendar attribute (standard, gregorian, proleptic_gregorian, noleap,
 * 365_day; absent means standard), and one variable (time, y, x) per IN field
 * of the model, named as the field or as cfg->var_names says. Dates follow the
 * model clock (services/cryo_clock.c): standard and gregorian are proleptic
 * Gregorian, before 1582 as well. Variables may be CF-packed and may mark
 * missing data (services/cryo_ncvar.h); every value must lie in its field's
 * plausible range (limits[] below). Values are interpolated linearly in time
 * between the two records that bracket the model time. Each rank reads only
 * its block plus the halo ring (nc_get_vara_double; across a north fold the
 * halo exchange fills the ring), and keeps at most two
 * records per field, reading a record only when the time moves into a new
 * interval.
 *
 * Error classes, every message naming the file and the variable:
 *   file cannot be read                               CRYO_ERR_FILE
 *   the NetCDF library fails (text of nc_strerror)    CRYO_ERR_NETCDF
 *   missing dimension, variable                       CRYO_ERR_MISSING
 *   wrong sizes, dimension order, time units/calendar,
 *   field units other than the table's (absent is ok) CRYO_ERR_FORMAT
 *   non-monotonic time, model time outside the file,
 *   NaN/Inf, fill or missing values, values outside
 *   the plausible range (with record and cell)        CRYO_ERR_DATA
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strcasecmp, access */

#include "cryo_exchange.h"

#include "cryo_clock.h"
#include "cryo_ncvar.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define ATT_LEN 256

/* Runs of consecutive global indices that supply local indices -1..n (the
 * block and its ring) along one dimension: at most the ring cell before, the
 * owned cells, the ring cell after. */
typedef struct seg_list {
  int n;
  int g0[3], count[3], l0[3]; /* global start, length, local start */
} seg_list;

/* Plausible range of each IN field, in the table's units (namelists/README.md
 * lists them): beyond it a value is a unit mistake or a corrupt file, not
 * weather, and left in, it ends as NaN velocities or ice thickness. */
static const struct {
  double lo, hi;
  const char *what;
} limits[CRYO_NFIELD] = {
    /* the strongest 10 m winds measured (tropical cyclones) stay below 100 m s-1 */
    [CRYO_F_UWIND] = {-100.0, 100.0, "10 m wind component"},
    [CRYO_F_VWIND] = {-100.0, 100.0, "10 m wind component"},
    /* the fastest surface currents (tidal races) stay below 10 m s-1 */
    [CRYO_F_UOCEAN] = {-10.0, 10.0, "ocean surface velocity component"},
    [CRYO_F_VOCEAN] = {-10.0, 10.0, "ocean surface velocity component"},
    /* dynamic topography and the largest tides stay within +-10 m */
    [CRYO_F_SSH] = {-20.0, 20.0, "sea surface height"},
    /* 1e-2 kg m-2 s-1 is 315 m water equivalent a year, 20 times the largest
     * ablation or shelf melt observed; kg m-2 per day or mm a-1 fall outside */
    [CRYO_F_SMB] = {-1e-2, 1e-2, "surface mass balance"},
    [CRYO_F_BASAL_MELT] = {-1e-2, 1e-2, "basal melt rate"},
};

typedef struct nc_field {
  int varid;
  cryo_ncvar nv; /* CF packing and missing values */
  int rec[2];    /* record held in slot[k], -1 for none */
  double *slot[2];
} nc_field;

typedef struct nc_impl {
  char *path;
  int ncid;
  int nt;
  double *t;      /* record times, s since the run start */
  double *t_file; /* the same in the file's units, for messages */
  char time_units[ATT_LEN];
  char start_date[ATT_LEN];
  char *names[CRYO_NFIELD]; /* variable names of the model's IN fields */
  nc_field f[CRYO_NFIELD];
  seg_list sx, sy;
  double *tmp; /* one rectangle of a record */
  long reads;  /* records read so far, all fields */
} nc_impl;

static nc_impl *impl_of(cryo_exchange *x) {
  return (nc_impl *)x->impl;
}

static int nc_fail(cryo_err *err, int ncstat, const char *path, const char *var, const char *what) {
  return cryo_nc_error(ncstat, CRYO_ERR_NETCDF, err, "forcing file '%s', variable '%s': %s", path,
                       var, what);
}

/* Text attribute `name` of varid into out; *present = 0 when it is absent. */
static int text_att(int ncid, int varid, const char *path, const char *var, const char *name,
                    char *out, int *present, cryo_err *err) {
  nc_type type;
  size_t len;
  int s = nc_inq_att(ncid, varid, name, &type, &len);
  *present = s == NC_NOERR;
  out[0] = '\0';
  if (s == NC_ENOTATT) return CRYO_OK;
  if (s != NC_NOERR) return nc_fail(err, s, path, var, name);
  if (type == NC_CHAR) {
    CRYO_CHECK(len < ATT_LEN, err, CRYO_ERR_FORMAT,
               "forcing file '%s', variable '%s': attribute '%s' is %zu characters long (at "
               "most %d)",
               path, var, name, len, ATT_LEN - 1);
    if ((s = nc_get_att_text(ncid, varid, name, out)) != NC_NOERR)
      return nc_fail(err, s, path, var, name);
    out[len] = '\0';
    return CRYO_OK;
  }
  CRYO_CHECK(type == NC_STRING && len == 1, err, CRYO_ERR_FORMAT,
             "forcing file '%s', variable '%s': attribute '%s' is not a text", path, var, name);
  char *str = NULL;
  if ((s = nc_get_att_string(ncid, varid, name, &str)) != NC_NOERR)
    return nc_fail(err, s, path, var, name);
  snprintf(out, ATT_LEN, "%s", str ? str : "");
  nc_free_string(1, &str);
  return CRYO_OK;
}

/* A date of the file's time units or the run start, in the CF forms of the
 * clock's parser (services/cryo_clock.c), so that file and clock agree on
 * every date; 0 when it is one. */
static int parse_date(const char *s, cryo_calendar cal, cryo_date *d, double *frac) {
  cryo_err scratch;
  cryo_err_clear(&scratch);
  return cryo_date_scan(s, cal, CRYO_DATE_CF, d, frac, "date", &scratch) != CRYO_OK;
}

/* Seconds per unit of a time-units word, 0 if unknown. */
static double unit_seconds(const char *w) {
  static const struct {
    const char *word;
    double s;
  } units[] = {{"seconds", 1},  {"second", 1},  {"secs", 1},  {"sec", 1},  {"s", 1},
               {"minutes", 60}, {"minute", 60}, {"mins", 60}, {"min", 60}, {"hours", 3600},
               {"hour", 3600},  {"hrs", 3600},  {"hr", 3600}, {"h", 3600}, {"days", 86400},
               {"day", 86400},  {"d", 86400}};
  for (size_t k = 0; k < sizeof units / sizeof units[0]; ++k)
    if (strcasecmp(w, units[k].word) == 0) return units[k].s;
  return 0;
}

/* Read time(time), convert it to seconds since the run start, check it. */
static int read_time_axis(nc_impl *p, int dim_t, const cryo_exchange_config *cfg, cryo_err *err) {
  const char *path = p->path;
  int varid, ndims, dimids[NC_MAX_VAR_DIMS], s, present;
  s = nc_inq_varid(p->ncid, "time", &varid);
  CRYO_CHECK(s != NC_ENOTVAR, err, CRYO_ERR_MISSING,
             "forcing file '%s' has no variable 'time' (the time axis of the records)", path);
  if (s != NC_NOERR) return nc_fail(err, s, path, "time", "nc_inq_varid");
  if ((s = nc_inq_var(p->ncid, varid, NULL, NULL, &ndims, dimids, NULL)) != NC_NOERR)
    return nc_fail(err, s, path, "time", "nc_inq_var");
  CRYO_CHECK(ndims == 1 && dimids[0] == dim_t, err, CRYO_ERR_FORMAT,
             "forcing file '%s', variable 'time': must have the single dimension 'time'", path);
  CRYO_CALL(text_att(p->ncid, varid, path, "time", "units", p->time_units, &present, err));
  CRYO_CHECK(present, err, CRYO_ERR_FORMAT,
             "forcing file '%s', variable 'time': no 'units' attribute (expected e.g. "
             "\"seconds since 2000-01-01 00:00:00\")",
             path);
  char cal_name[ATT_LEN];
  CRYO_CALL(text_att(p->ncid, varid, path, "time", "calendar", cal_name, &present, err));
  if (!present) snprintf(cal_name, sizeof cal_name, "standard"); /* the CF default */
  /* CF calendar names are case-insensitive; the clock spells them in lower case. */
  for (char *q = cal_name; *q; ++q)
    *q = (char)tolower((unsigned char)*q);
  cryo_calendar cal;
  cryo_err cal_err;
  CRYO_CHECK(cryo_calendar_parse(cal_name, &cal, &cal_err) == CRYO_OK, err, CRYO_ERR_FORMAT,
             "forcing file '%s', variable 'time': calendar '%s' is not supported (allowed: "
             "standard, gregorian, proleptic_gregorian, noleap, 365_day; standard and gregorian "
             "are proleptic Gregorian, as in the model clock)",
             path, cal_name);
  char word[ATT_LEN];
  int n = 0;
  double unit = 0, ref_frac = 0, start_frac = 0;
  cryo_date ref, start;
  int ok = sscanf(p->time_units, "%255s since %n", word, &n) == 1 && n > 0;
  if (ok) unit = unit_seconds(word);
  CRYO_CHECK(ok && unit > 0 && parse_date(p->time_units + n, cal, &ref, &ref_frac) == 0, err,
             CRYO_ERR_FORMAT,
             "forcing file '%s', variable 'time': units \"%s\" are not \"<seconds|minutes|hours|"
             "days> since YYYY-MM-DD hh:mm:ss\" with a valid date",
             path, p->time_units);
  CRYO_CHECK(parse_date(cfg->start_date, cal, &start, &start_frac) == 0, err, CRYO_ERR_ARG,
             "run start date '%s' is not a valid 'YYYY-MM-DD hh:mm:ss' in the calendar of forcing "
             "file '%s' (variable 'time', calendar '%s')",
             cfg->start_date, path, cal_name);
  double ref_to_start = (double)cryo_date_diff(start, ref, cal) + (ref_frac - start_frac);
  p->t = malloc(sizeof(double) * (size_t)p->nt);
  p->t_file = malloc(sizeof(double) * (size_t)p->nt);
  CRYO_CHECK(p->t && p->t_file, err, CRYO_ERR_MEMORY, "forcing file '%s': out of memory", path);
  if ((s = nc_get_var_double(p->ncid, varid, p->t_file)) != NC_NOERR)
    return nc_fail(err, s, path, "time", "nc_get_var_double");
  for (int k = 0; k < p->nt; ++k) {
    CRYO_CHECK(isfinite(p->t_file[k]), err, CRYO_ERR_DATA,
               "forcing file '%s', variable 'time': value %g at index %d", path, p->t_file[k], k);
    CRYO_CHECK(k == 0 || p->t_file[k] > p->t_file[k - 1], err, CRYO_ERR_DATA,
               "forcing file '%s', variable 'time' is not strictly increasing: time[%d] = %.10g "
               "after time[%d] = %.10g",
               path, k, p->t_file[k], k - 1, k > 0 ? p->t_file[k - 1] : 0.0);
    p->t[k] = p->t_file[k] * unit + ref_to_start;
    /* A finite value in days or hours can still pass a double's range in
     * seconds, and an infinite time would match no model time. */
    CRYO_CHECK(isfinite(p->t[k]), err, CRYO_ERR_DATA,
               "forcing file '%s', variable 'time': value %g at index %d (units \"%s\") is "
               "beyond the range of a double in seconds from the run start",
               path, p->t_file[k], k, p->time_units);
  }
  return CRYO_OK;
}

static int dim_id(nc_impl *p, const char *name, int *id, size_t *len, cryo_err *err) {
  int s = nc_inq_dimid(p->ncid, name, id);
  CRYO_CHECK(s != NC_EBADDIM, err, CRYO_ERR_MISSING,
             "forcing file '%s' has no dimension '%s' (forcing variables need (time, y, x))",
             p->path, name);
  if (s == NC_NOERR) s = nc_inq_dimlen(p->ncid, *id, len);
  if (s != NC_NOERR) return nc_fail(err, s, p->path, name, "dimension");
  return CRYO_OK;
}

/* Whether a units attribute means the table's units: the table's spelling or
 * a common equivalent, ignoring case and spaces. A file in other units (km/h,
 * cm/s) must be converted before use rather than read as if it were m s-1. */
static int units_match(const char *table, const char *att) {
  static const char *const aliases[][6] = {
      {"m s-1", "m/s", "m s^-1", "m s**-1", "m.s-1", "meter second-1"},
      {"kg m-2 s-1", "kg/m2/s", "kg m^-2 s^-1", "kg m**-2 s**-1", "kg.m-2.s-1", "kg/(m2 s)"}};
  char a[ATT_LEN], c[ATT_LEN];
  size_t n = 0;
  for (const char *q = att; *q && n + 1 < sizeof a; ++q)
    if (!isspace((unsigned char)*q)) a[n++] = (char)tolower((unsigned char)*q);
  a[n] = '\0';
  for (size_t r = 0; r < sizeof aliases / sizeof aliases[0]; ++r) {
    if (strcmp(aliases[r][0], table) != 0) continue;
    for (int k = 0; k < 6; ++k) {
      n = 0;
      for (const char *q = aliases[r][k]; *q; ++q)
        if (!isspace((unsigned char)*q)) c[n++] = *q;
      c[n] = '\0';
      if (strcmp(a, c) == 0) return 1;
    }
  }
  return strcmp(att, table) == 0;
}

/* Find the variable of IN field f and check its dimensions, units and fill
 * value. */
static int open_field(nc_impl *p, const int dims[3], int f, long ncell, cryo_err *err) {
  const char *var = p->names[f];
  nc_field *fd = &p->f[f];
  int s = nc_inq_varid(p->ncid, var, &fd->varid);
  CRYO_CHECK(s != NC_ENOTVAR, err, CRYO_ERR_MISSING,
             "forcing file '%s' has no variable '%s' (field %s: %s, %s)", p->path, var,
             cryo_exchange_fields[f].name, cryo_exchange_fields[f].long_name,
             cryo_exchange_fields[f].units);
  if (s != NC_NOERR) return nc_fail(err, s, p->path, var, "nc_inq_varid");
  int ndims, dimids[NC_MAX_VAR_DIMS];
  if ((s = nc_inq_var(p->ncid, fd->varid, NULL, NULL, &ndims, dimids, NULL)) != NC_NOERR)
    return nc_fail(err, s, p->path, var, "nc_inq_var");
  if (ndims != 3 || dimids[0] != dims[0] || dimids[1] != dims[1] || dimids[2] != dims[2]) {
    char got[3 * (NC_MAX_NAME + 2)] = "";
    for (int k = 0; k < ndims && k < 3; ++k) {
      char dn[NC_MAX_NAME + 1] = "?";
      nc_inq_dimname(p->ncid, dimids[k], dn);
      strcat(got, k ? ", " : "");
      strcat(got, dn);
    }
    return CRYO_ERROR(err, CRYO_ERR_FORMAT,
                      "forcing file '%s', variable '%s': dimensions (%s%s), expected (time, y, x)",
                      p->path, var, got, ndims > 3 ? ", ..." : "");
  }
  char units[ATT_LEN];
  int present;
  CRYO_CALL(text_att(p->ncid, fd->varid, p->path, var, "units", units, &present, err));
  CRYO_CHECK(!present || units_match(cryo_exchange_fields[f].units, units), err, CRYO_ERR_FORMAT,
             "forcing file '%s', variable '%s': units '%s', expected '%s' (convert the data)",
             p->path, var, units, cryo_exchange_fields[f].units);
  char where[ATT_LEN + NC_MAX_NAME + 64];
  snprintf(where, sizeof where, "forcing file '%s', variable '%s'", p->path, var);
  CRYO_CALL(cryo_ncvar_open(&fd->nv, p->ncid, fd->varid, where, err));
  for (int k = 0; k < 2; ++k) {
    fd->rec[k] = -1;
    fd->slot[k] = malloc(sizeof(double) * (size_t)ncell);
  }
  CRYO_CHECK(fd->slot[0] && fd->slot[1], err, CRYO_ERR_MEMORY,
             "forcing file '%s', variable '%s': out of memory", p->path, var);
  return CRYO_OK;
}

static void make_segments(int g0, int n_local, int n_global, int periodic, seg_list *sl) {
  sl->n = 0;
  for (int l = -1; l <= n_local; ++l) {
    int g = g0 + l;
    g = periodic ? (g % n_global + n_global) % n_global
                 : (g < 0 ? 0 : (g >= n_global ? n_global - 1 : g));
    int k = sl->n - 1;
    if (k >= 0 && sl->g0[k] + sl->count[k] == g) {
      sl->count[k]++;
    } else {
      sl->g0[++k] = g;
      sl->count[k] = 1;
      sl->l0[k] = l;
      sl->n = k + 1;
    }
  }
}

/* Read record rec of field f into dst (CRYO_CELL layout, ring included). */
static int read_record(cryo_exchange *x, int f, int rec, double *dst, cryo_err *err) {
  nc_impl *p = impl_of(x);
  const cryo_block *b = &x->grid.block;
  const nc_field *fd = &p->f[f];
  const char *var = p->names[f];
  for (int ky = 0; ky < p->sy.n; ++ky)
    for (int kx = 0; kx < p->sx.n; ++kx) {
      size_t start[3] = {(size_t)rec, (size_t)p->sy.g0[ky], (size_t)p->sx.g0[kx]};
      size_t count[3] = {1, (size_t)p->sy.count[ky], (size_t)p->sx.count[kx]};
      int s = nc_get_vara_double(p->ncid, fd->varid, start, count, p->tmp);
      if (s != NC_NOERR) return nc_fail(err, s, p->path, var, "nc_get_vara_double");
      long n = (long)p->sy.count[ky] * p->sx.count[kx];
      const char *fill;
      long bad = cryo_ncvar_unpack(&fd->nv, p->tmp, n, &fill);
      CRYO_CHECK(bad < 0 || fill, err, CRYO_ERR_DATA,
                 "forcing file '%s', variable '%s': non-finite value %g at time index %d, y %ld, "
                 "x %ld (0-based)",
                 p->path, var, p->tmp[bad], rec, p->sy.g0[ky] + bad / p->sx.count[kx],
                 p->sx.g0[kx] + bad % p->sx.count[kx]);
      CRYO_CHECK(bad < 0, err, CRYO_ERR_DATA,
                 "forcing file '%s', variable '%s': fill value %g (%s) at time index %d, y %ld, "
                 "x %ld (0-based)",
                 p->path, var, p->tmp[bad], fill, rec, p->sy.g0[ky] + bad / p->sx.count[kx],
                 p->sx.g0[kx] + bad % p->sx.count[kx]);
      double lo = limits[f].lo, hi = limits[f].hi;
      for (int jj = 0; jj < p->sy.count[ky]; ++jj)
        for (int ii = 0; ii < p->sx.count[kx]; ++ii) {
          double v = p->tmp[(size_t)jj * p->sx.count[kx] + ii];
          CRYO_CHECK(v >= lo && v <= hi, err, CRYO_ERR_DATA,
                     "forcing file '%s', variable '%s': value %g at time index %d, y %d, x %d "
                     "(0-based) is outside [%g, %g] %s, the plausible range of a %s",
                     p->path, var, v, rec, p->sy.g0[ky] + jj, p->sx.g0[kx] + ii, lo, hi,
                     cryo_exchange_fields[f].units, limits[f].what);
          dst[CRYO_CELL(b, p->sx.l0[kx] + ii, p->sy.l0[ky] + jj)] = v;
        }
    }
  return CRYO_OK;
}

/* Make the field's two slots hold records k and k + 1, reading only what is
 * not there yet. *lo, *hi: the slots holding them. */
static int load_pair(cryo_exchange *x, int f, int k, int *lo, int *hi, cryo_err *err) {
  nc_field *fd = &impl_of(x)->f[f];
  int want[2] = {k, k + 1}, at[2] = {-1, -1};
  for (int w = 0; w < 2; ++w)
    for (int s = 0; s < 2; ++s)
      if (fd->rec[s] == want[w]) at[w] = s;
  for (int w = 0; w < 2; ++w) {
    if (at[w] >= 0) continue;
    int s = at[1 - w] >= 0 ? 1 - at[1 - w] : w;
    fd->rec[s] = -1;
    CRYO_CALL(read_record(x, f, want[w], fd->slot[s], err));
    fd->rec[s] = want[w];
    impl_of(x)->reads++;
    at[w] = s;
  }
  *lo = at[0];
  *hi = at[1];
  return CRYO_OK;
}

/* The ring read from the file stops at the top row; above a north fold it is
 * the image of cells far along the top rows, which the halo exchange brings
 * (the fields are scalars or east and north components: no sign changes). */
static int fold_ring(cryo_exchange *x, double *buf, cryo_err *err) {
  if (!x->grid.block.fold) return CRYO_OK;
  return cryo_halo_exchange(x->halo, CRYO_AT_CELL, 1, 1, &buf, err);
}

static int nc_get(cryo_exchange *x, double time, int field, double *buf, cryo_err *err) {
  nc_impl *p = impl_of(x);
  const double *t = p->t;
  int nt = p->nt;
  CRYO_CHECK(time >= t[0] && time <= t[nt - 1], err, CRYO_ERR_DATA,
             "model time %.10g s after the run start (%s) is outside forcing file '%s' "
             "(variable '%s', time units \"%s\"): its records cover %.10g to %.10g s after the "
             "run start (time = %.10g to %.10g)",
             time, p->start_date, p->path, p->names[field], p->time_units, t[0], t[nt - 1],
             p->t_file[0], p->t_file[nt - 1]);
  /* Interval k: t[k] <= time < t[k+1], the last one closed at its end. */
  int k = 0;
  if (nt > 1) {
    int lo = 0, hi = nt - 2;
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      if (t[mid] <= time)
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
  }
  long ncell = CRYO_NCELL(&x->grid.block);
  if (nt == 1) {
    nc_field *fd = &p->f[field];
    if (fd->rec[0] != 0) {
      fd->rec[0] = -1;
      CRYO_CALL(read_record(x, field, 0, fd->slot[0], err));
      fd->rec[0] = 0;
      p->reads++;
    }
    memcpy(buf, fd->slot[0], sizeof(double) * (size_t)ncell);
    return fold_ring(x, buf, err);
  }
  int lo, hi;
  CRYO_CALL(load_pair(x, field, k, &lo, &hi, err));
  /* (1 - w) a + w b returns a and b exactly at the record times; a value
   * constant in time must arrive unchanged too, which the formula alone does
   * not guarantee for every w (it can be 1 ulp off). */
  double w = (time - t[k]) / (t[k + 1] - t[k]);
  const double *a = p->f[field].slot[lo], *bv = p->f[field].slot[hi];
  for (long c = 0; c < ncell; ++c)
    buf[c] = a[c] == bv[c] ? a[c] : (1.0 - w) * a[c] + w * bv[c];
  return fold_ring(x, buf, err);
}

static int nc_put(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err) {
  (void)x;
  (void)time;
  (void)field;
  (void)buf;
  (void)err;
  return CRYO_OK;
}

static void nc_destroy(cryo_exchange *x) {
  nc_impl *p = impl_of(x);
  if (!p) return;
  if (p->ncid >= 0) nc_close(p->ncid);
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    free(p->names[f]);
    free(p->f[f].slot[0]);
    free(p->f[f].slot[1]);
  }
  free(p->path);
  free(p->t);
  free(p->t_file);
  free(p->tmp);
  free(p);
  x->impl = NULL;
}

long cryo_exchange_netcdf_reads(const cryo_exchange *x) {
  if (!x || !x->ops || strcmp(x->ops->name, "netcdf") != 0) return -1;
  return ((const nc_impl *)x->impl)->reads;
}

static const cryo_exchange_ops netcdf_ops = {
    .name = "netcdf",
    .get = nc_get,
    .put = nc_put,
    .set_field = NULL,
    .get_field = NULL,
    .destroy = nc_destroy,
};

int cryo_exchange_netcdf_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  CRYO_CHECK(cfg->forcing_file && cfg->forcing_file[0], err, CRYO_ERR_MISSING,
             "forcing = 'netcdf' needs a forcing file (forcing_file)");
  CRYO_CHECK(cfg->start_date && cfg->start_date[0], err, CRYO_ERR_MISSING,
             "forcing = 'netcdf' needs the run start date");
  nc_impl *p = calloc(1, sizeof *p);
  CRYO_CHECK(p, err, CRYO_ERR_MEMORY, "netcdf exchange: out of memory");
  p->ncid = -1;
  x->impl = p;
  x->ops = &netcdf_ops;
  const cryo_block *b = &x->grid.block;
  p->path = strdup(cfg->forcing_file);
  p->tmp = malloc(sizeof(double) * (size_t)CRYO_NCELL(b));
  CRYO_CHECK(p->path && p->tmp, err, CRYO_ERR_MEMORY, "netcdf exchange: out of memory");
  snprintf(p->start_date, sizeof p->start_date, "%s", cfg->start_date);
  for (int f = 0; f < CRYO_NFIELD; ++f) {
    if (cryo_exchange_fields[f].model != x->model || cryo_exchange_fields[f].dir != CRYO_FIELD_IN ||
        !cryo_exchange_field_used(cfg, f))
      continue;
    const char *name = cfg->var_names[f] && cfg->var_names[f][0] ? cfg->var_names[f]
                                                                 : cryo_exchange_fields[f].name;
    p->names[f] = strdup(name);
    CRYO_CHECK(p->names[f], err, CRYO_ERR_MEMORY, "netcdf exchange: out of memory");
  }
  CRYO_CHECK(access(p->path, R_OK) == 0, err, CRYO_ERR_FILE, "forcing file '%s' cannot be read: %s",
             p->path, strerror(errno));
  int s = nc_open(p->path, NC_NOWRITE, &p->ncid);
  if (s != NC_NOERR) {
    p->ncid = -1;
    return cryo_nc_error(s, CRYO_ERR_NETCDF, err, "forcing file '%s' cannot be opened as NetCDF",
                         p->path);
  }
  int dims[3];
  size_t len[3];
  const char *dim_names[3] = {"time", "y", "x"};
  for (int k = 0; k < 3; ++k)
    CRYO_CALL(dim_id(p, dim_names[k], &dims[k], &len[k], err));
  CRYO_CHECK(len[0] >= 1, err, CRYO_ERR_FORMAT,
             "forcing file '%s': dimension 'time' is empty (variable 'time' has no records)",
             p->path);
  CRYO_CHECK(len[1] == (size_t)b->ny_global && len[2] == (size_t)b->nx_global, err, CRYO_ERR_FORMAT,
             "forcing file '%s': dimensions (y, x) = (%zu, %zu), but the grid has (ny, nx) = "
             "(%d, %d) cells; the forcing variables must be given at the cell centres",
             p->path, len[1], len[2], b->ny_global, b->nx_global);
  p->nt = (int)len[0];
  CRYO_CALL(read_time_axis(p, dims[0], cfg, err));
  for (int f = 0; f < CRYO_NFIELD; ++f)
    if (p->names[f]) CRYO_CALL(open_field(p, dims, f, CRYO_NCELL(b), err));
  make_segments(b->i0, b->nx, b->nx_global, b->periodic_x, &p->sx);
  make_segments(b->j0, b->ny, b->ny_global, b->periodic_y, &p->sy);
  return CRYO_OK;
}
