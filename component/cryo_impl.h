/* The component object's private definition, shared by the files of
 * component/. Hosts see only the opaque cryo_component of cryodyn.h. The
 * calls on it are declared by tier: cryo_state.h (state registry, status
 * agreement), cryo_input.h, cryo_output.h and cryo_restart.h, and the
 * lifecycle in cryodyn.h. */
#ifndef CRYO_IMPL_H
#define CRYO_IMPL_H

#include <mpi.h>

#include "cryo_clock.h"
#include "cryo_config.h"
#include "cryo_device.h"
#include "cryo_error.h"
#include "cryo_grid.h"
#include "cryo_state.h"
#include "cryodyn.h"

typedef struct cryo_timer {
  const char *name;
  double seconds;
  long calls;
} cryo_timer;

enum { CRYO_T_INIT, CRYO_T_FORCING, CRYO_T_DYNAMICS, CRYO_T_OUTPUT, CRYO_T_RESTART, CRYO_T_COUNT };

/* The parts of init (docs/arctic.md, Start-up), printed indented under it:
 * cryo_startup_lap (cryo_state.h) adds the time since the last lap to one
 * of them, so they add up to init. */
enum {
  CRYO_S_NAMELIST,     /* namelist, clock, output paths */
  CRYO_S_DEVICE,       /* choosing and starting the device */
  CRYO_S_DECOMP,       /* grid, block decomposition (ocean counts of a grid file), halo */
  CRYO_S_ALLOC,        /* the state arrays on host and device */
  CRYO_S_GRID_READ,    /* grid file: opening, reading this rank's window */
  CRYO_S_GRID_CHECK,   /* grid file: the checks of what was read */
  CRYO_S_LAYOUT,       /* grid file: the window into block layouts */
  CRYO_S_GEOMETRY,     /* geometry tables, their upload, the geometry kernels, mask */
  CRYO_S_STATE,        /* initial state (and input files) */
  CRYO_S_EXCHANGE,     /* the exchange provider */
  CRYO_S_RESTART,      /* restart read */
  CRYO_S_OUTPUT_FILE,  /* output file created or opened */
  CRYO_S_FIRST_RECORD, /* the initial output record */
  CRYO_S_COUNT
};

typedef struct cryo_model_ops cryo_model_ops;
typedef struct cryo_exchange cryo_exchange;

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
  struct cryo_gridfile *gridfile; /* this rank's part of &cryo_grid grid_file, NULL for the box */
  struct cryo_output *output;     /* cryo_output.h */
  long long last_output, last_restart;
  cryo_timer timers[CRYO_T_COUNT];
  cryo_timer startup[CRYO_S_COUNT]; /* calls: the laps added */
  double lap_start;                 /* MPI_Wtime of the last cryo_startup_lap */
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

#endif
