/* The component object's private definition, shared by the files of
 * component/. Hosts see only the opaque cryo_component of cryodyn.h. */
#ifndef CRYO_IMPL_H
#define CRYO_IMPL_H

#include <mpi.h>

#include "cryo_clock.h"
#include "cryo_config.h"
#include "cryo_device.h"
#include "cryo_error.h"
#include "cryo_grid.h"
#include "cryodyn.h"

/* What an array is for: restarts hold PROGNOSTIC arrays, coupling moves
 * FORCING ones, STATIC ones are set once at init, the rest are recomputed. */
typedef enum cryo_role {
  CRYO_ROLE_PROGNOSTIC = 0,
  CRYO_ROLE_FORCING,
  CRYO_ROLE_STATIC,
  CRYO_ROLE_DIAGNOSTIC,
  CRYO_ROLE_WORK
} cryo_role;

/* One array of the model state, allocated on host and device. */
typedef struct cryo_field {
  const char *name, *units, *standard_name, *long_name;
  cryo_location loc;
  int nlev; /* values per cell or node */
  cryo_role role;
  long n;       /* values in the block with its halo */
  double *host; /* host copy, valid after an update to the host */
  double *dev;  /* what kernels use */
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

typedef struct cryo_timer {
  const char *name;
  double seconds;
  long calls;
} cryo_timer;

enum { CRYO_T_INIT, CRYO_T_FORCING, CRYO_T_DYNAMICS, CRYO_T_OUTPUT, CRYO_T_RESTART, CRYO_T_COUNT };

typedef struct cryo_model_ops cryo_model_ops;
typedef struct cryo_exchange cryo_exchange;
typedef struct cryo_output cryo_output;

struct cryo_component {
  cryo_err err;
  MPI_Comm comm;
  int rank, size;
  cryo_config cfg;
  char *namelist_text;
  cryo_clock clock;
  cryo_grid grid;
  cryo_device dev;
  cryo_halo *halo;
  cryo_comm_ops ops; /* what numerical drivers call back into */

  cryo_field fields[CRYO_MAX_FIELDS];
  int nfields;
  cryo_output_var outvars[CRYO_MAX_OUTPUT];
  int noutvars;
  int nlevels; /* vertical levels of 3-D output (land ice), 0 for 2-D */

  const cryo_model_ops *model;
  void *model_data;
  cryo_exchange *exchange;
  cryo_output *output;
  long long last_output, last_restart;
  cryo_timer timers[CRYO_T_COUNT];
};

/* A dynamical core plugged into the component. */
struct cryo_model_ops {
  const char *name;
  /* register fields and output variables, set the initial state */
  int (*create)(cryo_component *c);
  /* advance the state from c->clock.time by `seconds` with current forcing */
  int (*advance)(cryo_component *c, long long seconds);
  /* bring forcing from the exchange into device fields for time t */
  int (*get_forcing)(cryo_component *c, long long t);
  /* send results through the exchange at time t */
  int (*put_results)(cryo_component *c, long long t);
  /* fill the diagnostic fields that output needs (called when output is due) */
  int (*diagnose)(cryo_component *c);
  /* one-line state summary for the progress log */
  int (*summary)(cryo_component *c, char *buf, int len);
  void (*destroy)(cryo_component *c);
};

extern const cryo_model_ops cryo_seaice_model;
extern const cryo_model_ops cryo_landice_model;

/* Register an array of the state: allocated on host and device, zeroed. */
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

/* Output and restart files (cryo_output.c, cryo_restart.c). */
/* Collective: create output_file, or in a run continued from a restart
 * reopen it to append; *due: the record at the current time is to be
 * written (cryo_output_write). */
int cryo_output_open(cryo_component *c, int *due);
int cryo_output_write(cryo_component *c);
void cryo_output_close(cryo_component *c);
int cryo_restart_write(cryo_component *c, const char *path);
int cryo_restart_read(cryo_component *c, const char *path);
/* Restart file name for time t (s since start), e.g. 'rst/cyclone.2000-01-02-00000.nc'. */
void cryo_restart_name(const cryo_component *c, long long t, char *buf, int len);
/* Rank 0, before any file is read or written: the directories of
 * output_file and restart_out exist, and neither the output nor any restart
 * this run may write is one of its input files (the namelist, restart_in,
 * mask, init, geometry and forcing files). */
int cryo_output_check_paths(cryo_component *c);

/* Input fields (cryo_input.c). Rank 0 only: read (y, x) variable `var` of an
 * open NetCDF file into global (nx_global * ny_global values), checking its
 * dimension names and sizes, unpacking CF-packed data, and checking that no
 * value is missing (cryo_ncvar.h) and every value is finite and in [lo, hi];
 * an absent variable is an error unless `optional` (then *found = 0). `what`
 * names the namelist key of the file in messages. */
int cryo_read_global_cells(cryo_component *c, int ncid, const char *path, const char *what,
                           const char *var, int optional, double lo, double hi, double *global,
                           int *found);
/* Collective: read `count` such variables of file `path` into level 0 of the
 * owned cells of the host copies of fields[k] (halos untouched). */
int cryo_read_cell_fields(cryo_component *c, const char *path, const char *what, int count,
                          const char *const *vars, const double *lo, const double *hi,
                          cryo_field *const *fields);

/* Rank 0's status and message, made every rank's (collective). */
int cryo_status_from_root(cryo_component *c, int status);
/* Every rank's status: the first failing rank's status and message (collective). */
int cryo_status_agree(cryo_component *c, int status);

#endif
