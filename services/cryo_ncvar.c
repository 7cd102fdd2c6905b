/* CF packed and missing data of NetCDF input variables (cryo_ncvar.h).
 * References: CF conventions 1.8, sections 2.5.1 (missing data) and 8.1
 * (packed data); NetCDF Users Guide, "Fill values" (default fill per type,
 * none assumed for byte types because every byte value is usually data). */
#include "cryo_ncvar.h"
#include "cryo_threads.h"

#include <math.h>
#include <netcdf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cryo_nc_error(int nc_status, int status, cryo_err *err, const char *fmt, ...) {
  if (nc_status == NC_NOERR) return CRYO_OK;
  char context[CRYO_ERR_MSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(context, sizeof context, fmt, ap);
  va_end(ap);
  return CRYO_ERROR(err, nc_status > 0 ? CRYO_ERR_FILE : status, "%s: %s", context,
                    nc_strerror(nc_status));
}

/* Numeric attribute `name` of varid: *count values (at most max) into out;
 * *count = 0 when it is absent. */
static int num_att(int ncid, int varid, const char *name, int max, double *out, int *count,
                   const char *where, cryo_err *err) {
  nc_type type;
  size_t len;
  int s = nc_inq_att(ncid, varid, name, &type, &len);
  *count = 0;
  if (s == NC_ENOTATT) return CRYO_OK;
  CRYO_NC(s, err, "%s: attribute '%s'", where, name);
  CRYO_CHECK(type != NC_CHAR && type != NC_STRING && len >= 1 && len <= (size_t)max, err,
             CRYO_ERR_FORMAT, "%s: attribute '%s' must be %s number%s (found %zu %s)", where, name,
             max == 1 ? "one" : "at most 3", max == 1 ? "" : "s", len,
             type == NC_CHAR || type == NC_STRING ? "characters or strings" : "numbers");
  CRYO_NC(nc_get_att_double(ncid, varid, name, out), err, "%s: attribute '%s'", where, name);
  *count = (int)len;
  return CRYO_OK;
}

/* The NetCDF default fill value of a type, as a double; 0 for byte and char
 * types, which have none to assume. */
static int default_fill(nc_type type, double *fill) {
  switch (type) {
  case NC_SHORT:
    *fill = NC_FILL_SHORT;
    return 1;
  case NC_USHORT:
    *fill = NC_FILL_USHORT;
    return 1;
  case NC_INT:
    *fill = NC_FILL_INT;
    return 1;
  case NC_UINT:
    *fill = NC_FILL_UINT;
    return 1;
  case NC_INT64:
    *fill = (double)NC_FILL_INT64;
    return 1;
  case NC_UINT64:
    *fill = (double)NC_FILL_UINT64;
    return 1;
  case NC_FLOAT:
    *fill = NC_FILL_FLOAT;
    return 1;
  case NC_DOUBLE:
    *fill = NC_FILL_DOUBLE;
    return 1;
  default:
    return 0;
  }
}

int cryo_ncvar_open(cryo_ncvar *v, int ncid, int varid, const char *where, cryo_err *err) {
  int n;
  v->scale = 1.0;
  v->offset = 0.0;
  v->nfill = 0;
  CRYO_CALL(num_att(ncid, varid, "scale_factor", 1, &v->scale, &n, where, err));
  CRYO_CALL(num_att(ncid, varid, "add_offset", 1, &v->offset, &n, where, err));
  CRYO_CALL(num_att(ncid, varid, "_FillValue", 1, v->fill, &n, where, err));
  int has_fill_att = n == 1;
  if (has_fill_att) v->fill_what[v->nfill++] = "_FillValue";
  CRYO_CALL(num_att(ncid, varid, "missing_value", 3, v->fill + v->nfill, &n, where, err));
  for (int k = 0; k < n; ++k)
    v->fill_what[v->nfill++] = "missing_value";
  nc_type type;
  int no_fill = 0, s = nc_inq_vartype(ncid, varid, &type);
  if (s == NC_NOERR) s = nc_inq_var_fill(ncid, varid, &no_fill, NULL);
  CRYO_NC(s, err, "%s", where);
  /* A variable written without fill (NC_NOFILL) holds garbage where it was
   * not written, which no value can tell apart. */
  if (!has_fill_att && !no_fill && default_fill(type, &v->fill[v->nfill]))
    v->fill_what[v->nfill++] = "the default fill value: never written";
  return CRYO_OK;
}

/* cryo_ncvar_unpack over values [from, to). */
static long unpack_range(const cryo_ncvar *v, double *x, long from, long to, const char **what) {
  for (long q = from; q < to; ++q) {
    *what = NULL;
    if (!isfinite(x[q])) return q;
    for (int k = 0; k < v->nfill; ++k)
      if (x[q] == v->fill[k]) {
        *what = v->fill_what[k];
        return q;
      }
    /* Unpacked data pass unchanged, -0.0 included (bit-for-bit checks). */
    if (v->scale != 1.0 || v->offset != 0.0) x[q] = x[q] * v->scale + v->offset;
  }
  *what = NULL;
  return -1;
}

/* A band of a long unpack: its range, and the first bad value found in it. */
typedef struct unpack_band {
  const cryo_ncvar *v;
  double *x;
  long from, to, bad;
  const char *what;
} unpack_band;

static void unpack_band_run(void *arg, int band) {
  unpack_band *u = (unpack_band *)arg + band;
  u->bad = unpack_range(u->v, u->x, u->from, u->to, &u->what);
}

/* Values per band at least: shorter scans stay on one thread. */
#define UNPACK_BAND (1L << 22)

long cryo_ncvar_unpack(const cryo_ncvar *v, double *x, long n, const char **what) {
  long nband = cryo_threads_available();
  if (nband > n / UNPACK_BAND) nband = n / UNPACK_BAND;
  unpack_band *u = nband > 1 ? calloc((size_t)nband, sizeof *u) : NULL;
  if (!u) return unpack_range(v, x, 0, n, what);
  for (long b = 0; b < nband; ++b)
    u[b] = (unpack_band){v, x, n * b / nband, n * (b + 1) / nband, -1, NULL};
  cryo_threads_run((int)nband, unpack_band_run, u);
  long bad = -1;
  *what = NULL;
  for (long b = 0; b < nband && bad < 0; ++b)
    if (u[b].bad >= 0) {
      bad = u[b].bad;
      *what = u[b].what;
    }
  free(u);
  return bad;
}
