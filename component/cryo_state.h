/* The state of a component: the registry of its arrays (each allocated on
 * host and device by the device layer, described for output and restart) and
 * the agreement of all ranks on a status. The lowest tier of component/: the
 * lifecycle (cryo_component.c), output, restart, input and the dynamical
 * cores call it; it calls only the device layer and MPI. */
#ifndef CRYO_STATE_H
#define CRYO_STATE_H

#include "cryo_block.h"
#include "cryodyn.h"

/* What an array is for: restarts hold PROGNOSTIC arrays, coupling moves
 * FORCING ones, STATIC ones are set once at init, the rest are recomputed.
 * PARAMETER ones are static fields that a file, a host or a restart may
 * give per cell instead of a uniform namelist value: restarts hold those
 * that were given. */
typedef enum cryo_role {
  CRYO_ROLE_PROGNOSTIC = 0,
  CRYO_ROLE_FORCING,
  CRYO_ROLE_STATIC,
  CRYO_ROLE_DIAGNOSTIC,
  CRYO_ROLE_WORK,
  CRYO_ROLE_PARAMETER
} cryo_role;

/* One array of the model state, allocated on host and device. */
typedef struct cryo_field {
  const char *name, *units, *standard_name, *long_name;
  cryo_location loc;
  int nlev; /* values per cell or node */
  cryo_role role;
  int given;     /* PARAMETER: set per cell (file, host, restart), carried by restarts */
  double lo, hi; /* the values cryo_set_field accepts (-inf, inf unless narrowed) */
  long n;        /* values in the block with its halo */
  double *host;  /* host copy, valid after an update to the host */
  double *dev;   /* what kernels use */
  unsigned flip; /* bit k: level k changes sign across a north fold (cryo_field_halo) */
} cryo_field;

/* One variable of the output file: levels [offset, offset + count * stride)
 * with the given stride of a registered field; 3-D when count > 1. */
typedef struct cryo_output_var {
  const char *name, *units, *standard_name, *long_name;
  int field;
  int offset, stride, count;
} cryo_output_var;

#define CRYO_MAX_FIELDS 48
#define CRYO_MAX_OUTPUT 24

/* Register an array of the state: allocated on host and device, zeroed;
 * *dev gets the device address. CRYO_ERR_ARG for a name registered twice or
 * more than CRYO_MAX_FIELDS arrays. */
int cryo_field_add(cryo_component *c, const char *name, const char *units,
                   const char *standard_name, const char *long_name, cryo_location loc, int nlev,
                   cryo_role role, double **dev);
/* Index of a field by name, or -1. */
int cryo_field_find(const cryo_component *c, const char *name);
/* Add an output variable reading levels of a registered field. */
int cryo_output_var_add(cryo_component *c, const char *name, const char *units,
                        const char *standard_name, const char *long_name, const char *field,
                        int offset, int stride, int count);

/* Host <-> device for a whole field (counted by the device layer). */
void cryo_field_to_host(cryo_component *c, cryo_field *f);
void cryo_field_to_device(cryo_component *c, cryo_field *f);

/* Fill the halo of a field on the device, its levels changing sign across a
 * north fold as f->flip says (collective). */
int cryo_field_halo(cryo_component *c, cryo_field *f);

/* Rank 0's status and message, made every rank's (collective). */
int cryo_status_from_root(cryo_component *c, int status);
/* Every rank's status: the first failing rank's status and message (collective). */
int cryo_status_agree(cryo_component *c, int status);

/* Add the wall time since the last lap (or the start of init) to start-up
 * part `row` (CRYO_S_* of cryo_impl.h), after waiting for queued device work
 * so that a kernel's time goes to the part that launched it. Only during
 * init: here, below the lifecycle and the cores, so that both can call it. */
void cryo_startup_lap(cryo_component *c, int row);

#endif
