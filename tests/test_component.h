/* Helpers for tests that drive the whole component: write a namelist, run
 * it for a number of coupling intervals. */
#ifndef TEST_COMPONENT_H
#define TEST_COMPONENT_H

#include "cryodyn.h"

#include <stdio.h>
#include <string.h>

/* Write `text` to `path` on rank 0 of comm, then synchronize. */
static inline void test_write_file(MPI_Comm comm, const char *path, const char *text) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    FILE *f = fopen(path, "w");
    if (f) {
      fputs(text, f);
      fclose(f);
    }
  }
  MPI_Barrier(comm);
}

/* A small cyclone case: nx x ny cells of 32 km / nx, dt 600 s, 20 mEVP
 * iterations, coupling every 1200 s. `extra` goes into &cryo_run. */
static inline void test_seaice_namelist(char *buf, size_t len, int nx, int ny, long run_length,
                                        const char *extra) {
  snprintf(buf, len,
           "&cryo_run\n  model = 'seaice', run_length = %ld, coupling_interval = 1200\n  %s\n/\n"
           "&cryo_grid nx = %d, ny = %d, dx = %.17g, dy = %.17g /\n"
           "&cryo_seaice dt = 600., n_evp = 20 /\n",
           run_length, extra, nx, ny, 512000.0 / nx, 512000.0 / ny);
}

/* init + run to the end + finalize; returns the first failing status. */
static inline int test_run(const char *nml, MPI_Comm comm) {
  cryo_component *c = NULL;
  int status = cryo_init(&c, nml, comm);
  while (status == CRYO_OK && !cryo_is_done(c))
    status = cryo_run(c);
  if (status != CRYO_OK) fprintf(stderr, "%s: %s\n", nml, cryo_last_error(c));
  int end = cryo_finalize(&c);
  return status != CRYO_OK ? status : end;
}

#endif
