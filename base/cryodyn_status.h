/* cryodyn status codes: what every cryodyn function returns, CRYO_OK or the
 * class of what went wrong. Installed next to cryodyn.h, which includes it;
 * includes nothing, so that every layer of cryodyn (kernels included) can use
 * the codes without MPI or NetCDF. */
#ifndef CRYODYN_STATUS_H
#define CRYODYN_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cryo_status {
  CRYO_OK = 0,
  CRYO_ERR_ARG,         /* invalid argument to an API call */
  CRYO_ERR_MEMORY,      /* allocation failed */
  CRYO_ERR_FILE,        /* a file cannot be opened, read, written or renamed */
  CRYO_ERR_SYNTAX,      /* malformed namelist text (unterminated group or string, bad token) */
  CRYO_ERR_UNKNOWN,     /* unknown namelist group or name, or unknown field name */
  CRYO_ERR_TYPE,        /* a value of the wrong type */
  CRYO_ERR_DUPLICATE,   /* a namelist name given twice */
  CRYO_ERR_MISSING,     /* a required value, variable or dimension is absent */
  CRYO_ERR_RANGE,       /* a value outside its allowed range or set */
  CRYO_ERR_NETCDF,      /* the NetCDF library reported an error */
  CRYO_ERR_FORMAT,      /* a file has the wrong dimensions, sizes or attributes */
  CRYO_ERR_CHECKSUM,    /* restart data does not match its checksum */
  CRYO_ERR_DATA,        /* NaN/Inf values, non-monotonic time, time outside a file's range */
  CRYO_ERR_MPI,         /* MPI reported an error, or ranks disagree */
  CRYO_ERR_DEVICE,      /* the accelerator is missing or failed */
  CRYO_ERR_SOLVER,      /* a nonlinear or linear solver did not converge */
  CRYO_ERR_COUPLING,    /* the coupler (OASIS) failed or a partner misbehaved */
  CRYO_ERR_UNSUPPORTED, /* a feature this build was not configured with */
  CRYO_ERR_STATE,       /* call out of order (e.g. cryo_run after the end of the run) */
  CRYO_STATUS_COUNT
} cryo_status;

/* Name of a status code, e.g. "CRYO_ERR_RANGE"; "CRYO_ERR_UNKNOWN_STATUS"
 * for a value that is none of them. */
const char *cryo_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
