/* MPI errors into cryodyn errors (cryo_mpi.h). */
#include "cryo_mpi.h"

int cryo_mpi_check(int mpi_status, const char *what, cryo_err *err) {
  if (mpi_status == MPI_SUCCESS) return CRYO_OK;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(mpi_status, text, &len);
  return CRYO_ERROR(err, CRYO_ERR_MPI, "MPI error in %s: %s", what, text);
}
