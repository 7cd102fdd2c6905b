/* NetCDF errors translated into cryodyn errors, one way for every reader and
 * writer:
 *   CRYO_NC(call, err, fmt, ...)   return the error if call fails
 *   cryo_nc_error(s, class, err, fmt, ...)   where the caller goes on
 * and numeric NetCDF input variables read as the CF conventions say (CF-1.8
 * sections 2.5.1 and 8.1), shared by every reader of input files (forcing,
 * mask, initial state, geometry):
 *   - packed data: unpacked = packed * scale_factor + add_offset, for integer
 *     and floating-point packed types (absent attributes: 1 and 0);
 *   - missing data: a packed value equal to _FillValue, to one of the
 *     missing_value values, or, without _FillValue, to the NetCDF default fill
 *     of the type (a value never written; byte types have none) is missing.
 */
#ifndef CRYO_NCVAR_H
#define CRYO_NCVAR_H

#include "cryo_error.h"

/* CRYO_OK when nc_status is NC_NOERR; otherwise record "<context>:
 * <nc_strerror(nc_status)>" in err, context formatted from fmt like printf,
 * and return CRYO_ERR_FILE for a system error (a positive nc_status is an
 * errno: ENOSPC, EDQUOT...), else `status` (CRYO_ERR_NETCDF, or the class of
 * the failure at that place, e.g. CRYO_ERR_FORMAT for a file that NetCDF
 * cannot open). */
int cryo_nc_error(int nc_status, int status, cryo_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define CRYO_NC(call, err, ...)                                                                    \
  CRYO_CALL(cryo_nc_error((call), CRYO_ERR_NETCDF, (err), __VA_ARGS__))

#define CRYO_NCVAR_NFILL 5 /* _FillValue, up to 3 missing_value, the default fill */

typedef struct cryo_ncvar {
  double scale, offset; /* unpacked = packed * scale + offset */
  int nfill;
  double fill[CRYO_NCVAR_NFILL];           /* packed values meaning "no data" */
  const char *fill_what[CRYO_NCVAR_NFILL]; /* where each comes from, for messages */
} cryo_ncvar;

/* Read the packing and missing-data attributes of variable varid of the open
 * file ncid into v. `where` starts every message ("forcing file 'f.nc',
 * variable 'uwind'"). CRYO_ERR_FORMAT when scale_factor, add_offset,
 * _FillValue or missing_value is not a number (or, but for missing_value, not
 * a single one); CRYO_ERR_NETCDF when the library fails. */
int cryo_ncvar_open(cryo_ncvar *v, int ncid, int varid, const char *where, cryo_err *err);

/* Unpack n values read with nc_get_var*_double in place. Returns -1 when all
 * are present and finite; otherwise the index of the first that is missing
 * (*what: which attribute says so) or not finite (*what = NULL), left packed
 * as read, with the values before it unpacked (and others after it may be).
 * Long arrays are scanned in bands on the process's CPUs
 * (services/cryo_threads.h); the index is the first in order all the same. */
long cryo_ncvar_unpack(const cryo_ncvar *v, double *x, long n, const char **what);

#endif
