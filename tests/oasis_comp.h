/* The cryodyn side of the OASIS exchange tests (tests/oasis_exchange_comp.c,
 * tests/oasis_remap_comp.c; docs/design.md, Coupling): a stand-in "cryody"
 * component that joins the coupled run as the cryodyn driver does
 * (cryo_coupler_init), splits its grid into a balanced 2-D block decomposition
 * (MPI_Dims_create) and creates the sea-ice exchange with provider "oasis" on
 * its block, so that what it receives is what cryodyn's exchange layer hands
 * the sea ice. Each coupling interval [t, t + period] it gets the four fields
 * the toy ocean sends at t (toy_ocean_fields.h order) and puts the six ice
 * fields at t + period. A test is one table: its grid and three callbacks. */
#ifndef OASIS_COMP_H
#define OASIS_COMP_H

#include "cryo_coupler.h"
#include "cryo_exchange.h"
#include "toy_ocean_fields.h"

#include <mpi.h>

typedef struct oasis_comp {
  const char *program; /* prefix of the error message, e.g. "oasis_exchange_comp" */
  int nx, ny;          /* grid, cells */
  double dx, dy;       /* grid, m */
  int periodic_x;      /* 1: the grid wraps around in x */
  int run, period;     /* run length and coupling period, s */
  /* Field k (TOY_OCN_U ...) received at step `step`: owned cells and halo ring of b. */
  void (*received)(void *ctx, const cryo_block *b, int k, int step, const double *buf, int rank);
  /* The owned cells of ice field k (TOY_ICE_U ...) to put at the end of step `step`. */
  void (*fill)(void *ctx, const cryo_block *b, int k, int step, double *buf);
  /* After the last step: reduce the test's counts over comm (every rank calls it). */
  int (*finish)(void *ctx, const cryo_block *b, long values, MPI_Comm comm, cryo_err *err);
} oasis_comp;

/* MPI_Init, join the coupled run and couple the whole run of c (parsed: the
 * status of the caller's option parsing, message in err; a bad option still
 * joins, so that the abort stops every component). An error is printed as
 * "<program>: error: <message> [<status>]" and stops the whole run with exit
 * code 2. values: the received values the callbacks saw on all ranks
 * (cells with ring x 4 fields x steps). *rank: the rank in the component's
 * communicator. On return MPI is still initialized: the caller reports and
 * calls MPI_Finalize. */
void oasis_comp_run(const oasis_comp *c, int parsed, void *ctx, int *rank, cryo_err *err);

#endif
