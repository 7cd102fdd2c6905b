/* Joining and leaving an OASIS3-MCT coupled run (DESIGN.md section 7).
 *
 * With OASIS the component's communicator is the local one the coupler hands
 * out, so joining the coupled run must come before cryo_init builds the grid
 * decomposition. The driver program (or a host that embeds cryodyn as an OASIS
 * component) therefore does, on every rank of MPI_COMM_WORLD:
 *
 *   MPI_Init(&argc, &argv);
 *   cryo_coupler_wanted(nml, &coupled, name, sizeof name, &err);  // reads the namelist
 *   MPI_Comm comm = MPI_COMM_WORLD;
 *   if (coupled) cryo_coupler_init(name, &comm, &err);            // oasis_init_comp
 *   cryo_init(&c, nml, comm);      // the "oasis" exchange provider checks comm
 *   ... cryo_run ...
 *   cryo_finalize(&c);
 *   if (coupled) cryo_coupler_finalize(&err);                     // oasis_terminate
 *   MPI_Finalize();
 *
 * and on any error while coupled prints its message and calls
 * cryo_coupler_abort: the partners wait in OASIS calls and only an abort of
 * MPI_COMM_WORLD stops them (shared/notes/oasis.md, pitfalls 1 and 4).
 *
 * In a build without OASIS (configure found no OASIS3-MCT) init returns
 * CRYO_ERR_UNSUPPORTED naming the configure flag. */
#ifndef CRYO_COUPLER_H
#define CRYO_COUPLER_H

#include <mpi.h>
#include <stddef.h>

#include "cryo_error.h"

/* Read the namelist at `namelist_path` (with all of cryo_init's checks) and
 * say whether the run is coupled through OASIS (&cryo_run forcing = 'oasis'):
 * *coupled = 1 or 0; component: &cryo_coupling component (default "cryody"),
 * copied into `len` bytes. Namelist errors are returned as cryo_init would
 * return them. */
int cryo_coupler_wanted(const char *namelist_path, int *coupled, char *component, size_t len,
                        cryo_err *err);

/* Join the coupled run as OASIS component `component` (at most 6 characters,
 * its $NBMODEL name in the namcouple) and return the component's own
 * communicator in *local, for cryo_init. Call it once, after MPI_Init.
 * CRYO_ERR_STATE if already joined; CRYO_ERR_COUPLING with the OASIS text. */
int cryo_coupler_init(const char *component, MPI_Comm *local, cryo_err *err);

/* Leave the coupled run (oasis_terminate) after cryo_finalize; MPI stays
 * initialised (the driver calls MPI_Finalize). CRYO_ERR_STATE if not joined. */
int cryo_coupler_finalize(cryo_err *err);

/* 1 between cryo_coupler_init and cryo_coupler_finalize, else 0. */
int cryo_coupler_joined(void);

/* For the "oasis" exchange provider: the component name given to
 * cryo_coupler_init and the communicator it returned. CRYO_ERR_STATE, telling
 * the driver what to call, when the run has not been joined. */
int cryo_coupler_get(const char **component, MPI_Comm *local, cryo_err *err);

/* For driver programs only, after they printed the error: flush and stop
 * every process of the coupled run with exit code `code` (non-zero; OASIS's
 * own abort exits 0, which hides failures from scripts). Does not return. */
void cryo_coupler_abort(int code);

#endif
