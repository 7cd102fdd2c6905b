/* Error records and status names. */
#include "cryo_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cryo_err_set(cryo_err *err, int status, const char *file, int line, const char *func,
                 const char *fmt, ...) {
  if (!err) return status;
  err->status = status;
  err->file = file;
  err->line = line;
  err->func = func;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return status;
}

void cryo_err_clear(cryo_err *err) {
  if (!err) return;
  err->status = CRYO_OK;
  err->msg[0] = '\0';
  err->file = NULL;
  err->line = 0;
  err->func = NULL;
}

const char *cryo_status_name(int status) {
  static const char *const names[CRYO_STATUS_COUNT] = {
      "CRYO_OK",           "CRYO_ERR_ARG",      "CRYO_ERR_MEMORY",      "CRYO_ERR_FILE",
      "CRYO_ERR_SYNTAX",   "CRYO_ERR_UNKNOWN",  "CRYO_ERR_TYPE",        "CRYO_ERR_DUPLICATE",
      "CRYO_ERR_MISSING",  "CRYO_ERR_RANGE",    "CRYO_ERR_NETCDF",      "CRYO_ERR_FORMAT",
      "CRYO_ERR_CHECKSUM", "CRYO_ERR_DATA",     "CRYO_ERR_MPI",         "CRYO_ERR_DEVICE",
      "CRYO_ERR_SOLVER",   "CRYO_ERR_COUPLING", "CRYO_ERR_UNSUPPORTED", "CRYO_ERR_STATE"};
  if (status < 0 || status >= CRYO_STATUS_COUNT) return "CRYO_ERR_UNKNOWN_STATUS";
  return names[status];
}
