/* The run configuration: every namelist option with its default, read from
 * the groups &cryo_run, &cryo_grid, &cryo_seaice, &cryo_landice,
 * &cryo_invert and &cryo_coupling (namelists/README.md documents each). */
#ifndef CRYO_CONFIG_H
#define CRYO_CONFIG_H

#include "cryo_error.h"
#include "landice.h"
#include "seaice.h"

#define CRYO_PATH_LEN        512
#define CRYO_NAME_LEN        64
#define CRYO_COUPLING_FIELDS 16 /* CRYO_NFIELD of coupling/cryo_exchange.h */

typedef struct cryo_run_config {
  char model[CRYO_NAME_LEN];       /* 'seaice' | 'landice' */
  char task[CRYO_NAME_LEN];        /* 'forward' | 'invert' (land ice: the basal inversion) */
  char start[CRYO_NAME_LEN];       /* 'YYYY-MM-DD hh:mm:ss' */
  char calendar[CRYO_NAME_LEN];    /* 'proleptic_gregorian' | 'noleap' */
  long long run_length;            /* s */
  long long coupling_interval;     /* s */
  long long output_interval;       /* s, 0 = no output */
  long long restart_interval;      /* s, 0 = only at the end of the run */
  char output_file[CRYO_PATH_LEN]; /* '' = no output */
  /* 'copy': a grid file's coordinates go into the output; 'reference': the
   * output names the grid file instead (1.4 GB less at the 2 km Arctic) */
  char output_grid[CRYO_NAME_LEN];
  char restart_out[CRYO_PATH_LEN]; /* file-name prefix, '' = no restarts */
  char restart_in[CRYO_PATH_LEN];  /* '' = cold start */
  char forcing[CRYO_NAME_LEN];     /* 'analytic' | 'netcdf' | 'oasis' | 'host' */
  char forcing_file[CRYO_PATH_LEN];
  char forcing_vars[4][CRYO_NAME_LEN]; /* variable names in the forcing file */
  char device[CRYO_NAME_LEN];          /* 'auto' | 'cpu' | 'gpu' */
  /* 'auto' | 'yes' | 'no': MPI moves the packed halo lines straight from
   * device memory (CUDA-aware MPI) instead of through host copies */
  char halo_device_buffers[CRYO_NAME_LEN];
  /* 'yes' | 'no': the sea-ice sub-steps' node halo exchange travels while
   * the inner nodes are updated (docs/multi-gpu.md, Overlap) */
  char halo_overlap[CRYO_NAME_LEN];
  /* 'auto' | 'no': neighbours whose GPUs share a node write their halo lines
   * into each other's device memory (CUDA IPC) instead of staging them */
  char halo_peer[CRYO_NAME_LEN];
} cryo_run_config;

typedef struct cryo_grid_config {
  int nx, ny;                    /* cells (with grid_file: the file's) */
  double dx, dy;                 /* m, the built-in box only */
  char mask_file[CRYO_PATH_LEN]; /* '' = all ocean / all ice-covered domain */
  char mask_var[CRYO_NAME_LEN];
  int nprocs_x, nprocs_y;            /* 0 = automatic */
  char decomposition[CRYO_NAME_LEN]; /* 'ocean' (grid_file's ocean cells shared) | 'even' */
  char grid_file[CRYO_PATH_LEN];     /* '' = the built-in Cartesian box (sea ice only otherwise) */
  double earth_radius;               /* m, radius of the sphere of a lon/lat grid file */
  /* 'east_north' | 'grid': the frame of vectors received as forcing and sent
   * to a coupler; east_north is 1 for 'east_north' */
  char vector_frame[CRYO_NAME_LEN];
  int east_north;
  int spherical;  /* grid_file holds lon/lat (1) or planar x/y in m (0) */
  int periodic_x; /* grid_file closes in x (its global attribute periodic_x) */
  int fold;       /* cryo_fold: how grid_file's top row folds (its global attribute north_fold) */
} cryo_grid_config;

typedef struct cryo_seaice_config {
  cryo_seaice_params p;
  char init[CRYO_NAME_LEN]; /* 'cyclone' | 'uniform' | 'file' */
  double h_init, a_init;    /* m, 1 */
  char init_file[CRYO_PATH_LEN];
  char stress_precision[CRYO_NAME_LEN]; /* 'double' | 'single' */
  char rheology[CRYO_NAME_LEN];         /* 'vp' (mEVP) | 'bbm' */
  char state_precision[CRYO_NAME_LEN];  /* 'double' | 'single': storage of the mEVP stress */
  double max_speed;                     /* m s-1: a larger ice speed stops the run (state check) */
  double max_thickness;                 /* m: likewise for the cell-mean thickness */
  char bathymetry_file[CRYO_PATH_LEN];  /* water depth for the basal stress (basal_stress) */
  char bathymetry_var[CRYO_NAME_LEN];   /* its variable, m, positive down */
} cryo_seaice_config;

typedef struct cryo_landice_config {
  cryo_landice_params p;
  char geometry_case[CRYO_NAME_LEN]; /* 'slab' | 'ismip-hom-a' | 'ismip-hom-c' | 'file' */
  char geometry_file[CRYO_PATH_LEN];
  char fields_file[CRYO_PATH_LEN];    /* parameter fields (sliding_c, ...), '' = none */
  char solver_log[CRYO_PATH_LEN];     /* one line per Newton step, '' = none */
  double background_slope;            /* degrees, x tilt under a file geometry */
  char basal[CRYO_NAME_LEN];          /* 'no_slip' | 'friction' */
  char sliding_law[CRYO_NAME_LEN];    /* 'linear' | 'weertman' | 'schoof' | 'tsai' (friction) */
  char preconditioner[CRYO_NAME_LEN]; /* 'column' | 'multigrid' */
  char lateral[CRYO_NAME_LEN];        /* 'free' | 'dirichlet' | 'free_slip' (non-periodic edges) */
  char melt_cells[CRYO_NAME_LEN];     /* 'fraction' | 'floating' (marine basal melt) */
  char calving[CRYO_NAME_LEN];        /* 'all' | 'floating': ice removed outside calving_mask */
  char melt_source[CRYO_NAME_LEN];    /* 'received' | 'mismip+' */
  int periodic;                       /* periodic in x and y */
  int evolve_thickness;
  int remove_icebergs;  /* marine ice held by nothing is removed before each solve */
  double max_speed;     /* m a-1: a larger ice speed at any level stops the run */
  double max_thickness; /* m: likewise for the thickness */
} cryo_landice_config;

/* &cryo_invert: the basal inversion of task = 'invert' (docs/landice.md,
 * Basal inversion). */
typedef struct cryo_invert_config {
  char obs_file[CRYO_PATH_LEN];    /* u_obs, v_obs, sigma at the nodes */
  char result_file[CRYO_PATH_LEN]; /* sliding_c written here, read back as fields_file */
  char log_file[CRYO_PATH_LEN];    /* one line per iteration, '' = none */
  double gamma;                    /* Tikhonov weight on |grad log C|^2 */
  double adjoint_rtol;             /* CG tolerance of the adjoint, 0: linear_rtol */
  double discrepancy;              /* tau: stop at misfit <= tau N_obs / 2, 0 = off */
  cryo_landice_invert_opts opts;   /* misfit_target set from discrepancy at init */
} cryo_invert_config;

typedef struct cryo_coupling_config {
  char component[CRYO_NAME_LEN]; /* OASIS component name (6 characters at most) */
  char grid_name[CRYO_NAME_LEN]; /* OASIS grid name of the component, '' = not written */
  char names[CRYO_COUPLING_FIELDS][CRYO_NAME_LEN]; /* OASIS field names, in table order */
  /* land ice: namcouple name prefix of the Glen rate factor received per
   * layer (PREFIX01 ...), '' = not received (docs/landice.md) */
  char rate_factor[CRYO_NAME_LEN];
  int nnames;
} cryo_coupling_config;

#define CRYO_WARNINGS_LEN 4096

typedef struct cryo_config {
  char source[CRYO_PATH_LEN]; /* the namelist file read */
  /* Options given that the chosen settings ignore, one per line
   * "<source>:<line>: &group: name is ignored: <why>"; '' when none. */
  char warnings[CRYO_WARNINGS_LEN];
  cryo_run_config run;
  cryo_grid_config grid;
  cryo_seaice_config seaice;
  cryo_landice_config landice;
  cryo_invert_config invert;
  cryo_coupling_config coupling;
} cryo_config;

/* Fill every option with its default. */
void cryo_config_defaults(cryo_config *cfg);

/* Read and check a namelist file into cfg (defaults first); cfg->warnings
 * lists the options given that the run will ignore. */
int cryo_config_read(cryo_config *cfg, const char *path, cryo_err *err);

/* Same from text; `source` names it in messages (used by tests). */
int cryo_config_read_string(cryo_config *cfg, const char *text, const char *source, cryo_err *err);

/* The mEVP stability condition of the sea-ice parameters for cells no
 * narrower than `width` m (cryo_config.c explains it); CRYO_ERR_RANGE naming
 * the parameters otherwise. A grid file's sea ice is checked with its
 * narrowest cell once the geometry is known. */
int cryo_config_check_mevp(const cryo_config *cfg, double width, cryo_err *err);

#endif
