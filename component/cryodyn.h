/* cryodyn: land-ice / sea-ice dynamics component for Earth-system models.
 *
 * The only exported header. A host model (or the `cryodyn` driver) calls
 *   cryo_init -> cryo_run (once per coupling interval) -> cryo_finalize.
 * Every function returns CRYO_OK or one of the error classes of cryodyn_status.h; after an
 * error, cryo_last_error() gives a message naming the file, variable, namelist
 * line or value that was wrong. The library never exits or aborts.
 * Architecture and numerics: docs/design.md, docs/seaice.md, docs/landice.md.
 */
#ifndef CRYODYN_H
#define CRYODYN_H

#include <mpi.h>

#include "cryodyn_status.h" /* cryo_status: CRYO_OK and the error classes */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cryo_component cryo_component;

/* Read the namelist, build grid and decomposition, allocate state on host and
 * device, read a restart if asked, define coupling fields. `comm` is the
 * component's communicator (with OASIS: the local one OASIS returns).
 * On failure *c may still be non-NULL so that cryo_last_error(*c) works; call
 * cryo_finalize on it in every case. */
int cryo_init(cryo_component **c, const char *namelist_path, MPI_Comm comm);

/* As cryo_init, from the namelist's text (for a driver that read it from a
 * pipe, which can be read only once); `source` names it in messages. */
int cryo_init_text(cryo_component **c, const char *namelist_text, const char *source,
                   MPI_Comm comm);

/* Advance one coupling interval: get forcing, run the dynamics, put results,
 * write output and restart when due. CRYO_ERR_STATE once the run is complete. */
int cryo_run(cryo_component *c);

/* Write a final restart if asked, release device and host memory, set *c = NULL. */
int cryo_finalize(cryo_component **c);

/* Message of the last error on c (or of the last failed cryo_init when c is
 * NULL); "" when there was none. The string stays valid until the next call. */
const char *cryo_last_error(const cryo_component *c);

/* Options of the namelist that the run ignores (e.g. h_init with
 * init = 'cyclone'), one per line "<file>:<line>: &group: name is ignored:
 * <the setting that makes it so>"; "" when none. Valid from a successful
 * cryo_init until cryo_finalize; the output file keeps them in its global
 * attribute `warnings`. */
const char *cryo_warnings(const cryo_component *c);

/* 1 once the clock has reached the end of the run, 0 otherwise. */
int cryo_is_done(const cryo_component *c);

/* Simulated time since the start, and the length of the run, in seconds. */
long long cryo_get_time(const cryo_component *c);
long long cryo_get_run_length(const cryo_component *c);

/* This rank's block of the grid: first owned cell (0-based global indices
 * i0, j0), owned cells nx x ny, and the global grid size; what a host needs to
 * size the arrays of cryo_set_field / cryo_get_field. Any pointer may be NULL. */
int cryo_get_block(const cryo_component *c, int *i0, int *j0, int *nx, int *ny, int *nx_global,
                   int *ny_global);

/* Copy a named field (e.g. "sea_ice_thickness") from or into the caller's
 * array on this rank's own cells or nodes, row-major [ny_local][nx_local].
 * `n` is the caller's array length; a wrong length is CRYO_ERR_ARG. */
int cryo_get_field(cryo_component *c, const char *name, double *values, long n);
int cryo_set_field(cryo_component *c, const char *name, const double *values, long n);

/* Table of per-phase wall times (init, forcing, dynamics, output, restart)
 * of this rank, then the host <-> device transfers of the whole run (bytes and
 * update calls each way; "none" where no GPU is in use), into buf. */
int cryo_timer_report(const cryo_component *c, char *buf, int len);

/* One-line summary of the state (e.g. maximum ice speed, volume) for a
 * progress log; collective over the component's ranks. */
int cryo_summary(cryo_component *c, char *buf, int len);

/* A few lines for the start of a log: library version and compiler, the
 * device this rank computes on (GPU model and memory, or CPU threads), ranks,
 * nodes and GPUs in use, model and grid. Every rank may call it; rank 0's
 * is the one to print. */
int cryo_banner(const cryo_component *c, char *buf, int len);

/* 1 on the component's rank 0 (the one that should print logs). */
int cryo_is_root(const cryo_component *c);

/* Coupled runs through OASIS3-MCT (&cryo_run forcing = 'oasis'): the
 * component runs on the communicator OASIS hands out, so a driver joins the
 * coupled run before cryo_init and leaves it after cryo_finalize:
 *   cryo_coupler_wanted(nml, &coupled, name, len);
 *   if (coupled) cryo_coupler_init(name, &comm);   else comm = MPI_COMM_WORLD
 *   cryo_init(&c, nml, comm); ... cryo_finalize(&c);
 *   if (coupled) cryo_coupler_finalize();
 * On any error in a coupled run, print it and call cryo_coupler_abort(code):
 * the partners would otherwise wait forever inside OASIS. */

/* Read the namelist and say whether the run is coupled (*coupled = 1 or 0)
 * and under which OASIS component name (&cryo_coupling component). */
int cryo_coupler_wanted(const char *namelist_path, int *coupled, char *component, int len);
/* As cryo_coupler_wanted, from the namelist's text; `source` names it in
 * messages. When forcing is not NULL it gets &cryo_run forcing ('analytic',
 * 'netcdf', 'oasis' or 'host') in flen bytes. */
int cryo_coupler_wanted_text(const char *namelist_text, const char *source, int *coupled,
                             char *component, int len, char *forcing, int flen);
/* Join the coupled run as `component` (at most 6 characters); *local gets
 * the component's communicator. CRYO_ERR_UNSUPPORTED without OASIS. */
int cryo_coupler_init(const char *component, MPI_Comm *local);
/* Leave the coupled run (oasis_terminate); MPI stays initialized. */
int cryo_coupler_finalize(void);
/* 1 between cryo_coupler_init and cryo_coupler_finalize, else 0. */
int cryo_coupler_joined(void);
/* Message of the last failed cryo_coupler_* call, "" if none. */
const char *cryo_coupler_last_error(void);
/* Driver programs only: flush and stop every process of the coupled run
 * with exit status `code` (non-zero). Does not return. */
void cryo_coupler_abort(int code);

/* Version string of the library, e.g. "0.1.0". */
const char *cryo_version(void);

#ifdef __cplusplus
}
#endif
#endif
