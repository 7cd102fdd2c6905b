/* The OASIS partner machinery that the toy partners share (examples/toy_ocean.c,
 * examples/toy_atmosphere.c; docs/design.md, Coupling): join the coupled run as
 * an OASIS component, split the nx x ny grid into bands of rows over the ranks
 * (apple partition), declare the fields of the partner's table, and each
 * coupling period put every field it sends and get every field it receives,
 * then hand them to the partner's check. A partner is one table: its names, its
 * fields and three callbacks. */
#ifndef TOY_PARTNER_H
#define TOY_PARTNER_H

#include "cryo_oasis.h"

#include <mpi.h>

/* This rank's band of rows: global rows j0 .. j0 + nyl - 1 of an nx x ny grid,
 * npts = nx nyl points stored row by row. */
typedef struct toy_band {
  int nx, ny, j0, nyl;
  long npts;
  int rank, size; /* in the component's local communicator */
  MPI_Comm comm;  /* the component's local communicator */
} toy_band;

/* One partner: what it is called, what it exchanges and what it does with it. */
typedef struct toy_partner {
  const char *program;   /* prefix of every message, e.g. "cryodyn-toy-ocean" */
  const char *component; /* OASIS component name, e.g. "toyoce" */
  int nsend, nrecv;      /* at most TOY_PARTNER_MAX_FIELDS each */
  const char *const *send_names, *const *recv_names; /* namcouple names */
  /* 1: a field the namcouple does not couple is skipped with a note on rank 0
   * (an ocean model reading its coupled fields from the namcouple); 0: it is an
   * error. recv_required (with skip_uncoupled): a received field the namcouple
   * lacks is an error all the same (a check needs it). */
  int skip_uncoupled, recv_required;
  /* Called before oasis_enddef (e.g. to describe the grid); may be NULL. */
  int (*define)(void *ctx, const toy_band *band, cryo_err *err);
  /* Fill snd[0 .. nsend-1] for coupling step `step`; prev: the fields received
   * at the previous step, NULL on step 0. */
  void (*fill)(void *ctx, int step, const toy_band *band, double *const snd[],
               double *const prev[]);
  /* The fields of step `step` have arrived (a field not coupled holds NaN);
   * prev as in fill. */
  int (*received)(void *ctx, int step, const toy_band *band, double *const snd[],
                  double *const rcv[], double *const prev[], cryo_err *err);
  /* After the last step, before the buffers are freed; may be NULL. */
  int (*finish)(void *ctx, const toy_band *band, cryo_err *err);
} toy_partner;

#define TOY_PARTNER_MAX_FIELDS 16

/* The run of one partner, start to end: with parsed == CRYO_OK, couple
 * run / period steps of `period` s on an nx x ny grid, leaving the partner with
 * exit code 3 and no oasis_terminate at step die_at (-1: never; the partner
 * failure test); with parsed an error (a bad option, message in err), only join
 * the run so that the abort stops every component instead of a hang. Any error
 * aborts the coupled run through OASIS with its message; otherwise OASIS is
 * terminated. *rank: this rank in the component (0 if it never got one).
 * Returns only after a successful termination. */
void toy_partner_couple(const toy_partner *p, int parsed, int nx, int ny, int run, int period,
                        int die_at, void *ctx, int *rank, cryo_err *err);

#endif
