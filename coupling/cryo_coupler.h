/* Joining and leaving an OASIS3-MCT coupled run (docs/design.md, Coupling).
 *
 * With OASIS the component's communicator is the local one the coupler hands
 * out, so joining the coupled run must come before cryo_init builds the grid
 * decomposition. The driver program (or a host that embeds cryodyn as an OASIS
 * component) therefore does, on every rank of MPI_COMM_WORLD:
 *
 *   MPI_Init(&argc, &argv);
 *   int coupled;  char name[64];  MPI_Comm comm = MPI_COMM_WORLD;
 *   if (cryo_coupler_wanted(nml, &coupled, name, sizeof name) != CRYO_OK)
 *     print cryo_coupler_last_error(); if (coupled) cryo_coupler_abort(1); else exit
 *   if (coupled && cryo_coupler_init(name, &comm) != CRYO_OK)
 *     print cryo_coupler_last_error(); cryo_coupler_abort(1);
 *   cryo_init(&c, nml, comm);      // the "oasis" exchange provider checks comm
 *   ... cryo_run ...; on any error: print it; if (coupled) cryo_coupler_abort(1);
 *   cryo_finalize(&c);
 *   if (coupled) cryo_coupler_finalize();                          // oasis_terminate
 *   MPI_Finalize();
 *
 * Aborting matters: the partners wait in OASIS calls, and only an abort of
 * MPI_COMM_WORLD stops them (docs/design.md, Coupling: OASIS3-MCT).
 *
 * The calls a driver makes are public: cryodyn.h declares them for host
 * programs, and they are declared again here because coupling/ sits below the
 * component and does not include its header (component/cryo_coupler_wanted.c
 * sees both, so the compiler checks that they agree). cryo_coupler_get is for
 * the exchange provider, cryo_coupler_error for cryo_coupler_wanted. In a build
 * without OASIS, cryo_coupler_init returns CRYO_ERR_UNSUPPORTED naming the
 * configure flag. */
#ifndef CRYO_COUPLER_H
#define CRYO_COUPLER_H

#include <mpi.h>

#include "cryo_error.h"

/* Public (cryodyn.h, where their contracts are). */
int cryo_coupler_init(const char *component, MPI_Comm *local);
int cryo_coupler_finalize(void);
int cryo_coupler_joined(void);
const char *cryo_coupler_last_error(void);
void cryo_coupler_abort(int code);

/* The record cryo_coupler_last_error reads; cryo_coupler_wanted (component/)
 * fills it, since its calls too come before a component exists. */
cryo_err *cryo_coupler_error(void);

/* For the "oasis" exchange provider: the component name given to
 * cryo_coupler_init and the communicator it returned. CRYO_ERR_STATE, telling
 * the driver what to call, when the run has not been joined. */
int cryo_coupler_get(const char **component, MPI_Comm *local, cryo_err *err);

#endif
