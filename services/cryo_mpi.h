/* MPI errors, translated at the boundary: every MPI call of the library is
 * checked, through
 *   CRYO_MPI(call, what, err)   return CRYO_ERR_MPI with MPI's own text if
 *                               call does not return MPI_SUCCESS
 * or, where the caller must clean up first, cryo_mpi_check. */
#ifndef CRYO_MPI_H
#define CRYO_MPI_H

#include <mpi.h>

#include "cryo_error.h"

/* Translate the status of an MPI call into a cryodyn one: CRYO_OK for
 * MPI_SUCCESS, else CRYO_ERR_MPI recorded in err as "MPI error in <what>:
 * <MPI's text>". */
int cryo_mpi_check(int mpi_status, const char *what, cryo_err *err);

#define CRYO_MPI(call, what, err) CRYO_CALL(cryo_mpi_check((call), (what), (err)))

#endif
