/* libFuzzer target: the restart reader (cryo_restart_read of
 * component/cryo_restart.c, through nc_open and the HDF5 or classic NetCDF
 * readers under it). Each input is written to a file and read back into a
 * sea-ice component of the grid the seed restarts were written on
 * (tests/fuzz/restart.nml), as `restart_in` would.
 *
 * Any input must give CRYO_OK or an error class with a message naming the
 * file; a crash, a sanitizer report or another outcome is a finding. Built
 * by `make fuzz`, which also writes the seed corpus (docs/testing.md). */
#include "cryo_impl.h"
#include "cryo_restart.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cryo_component *component;
static char restart_path[64];

/* Classes cryo_restart_read returns for a bad file (cryo_restart.c). */
static int fuzz_expected(int status) {
  switch (status) {
  case CRYO_ERR_FILE:
  case CRYO_ERR_FORMAT:
  case CRYO_ERR_MISSING:
  case CRYO_ERR_NETCDF:
  case CRYO_ERR_CHECKSUM:
  case CRYO_ERR_RANGE:
    return 1;
  default:
    return 0;
  }
}

/* MPI and one component for the whole fuzzing run: creating a component per
 * input would spend the time in MPI and allocation instead of the reader.
 * The namelist path comes from CRYO_FUZZ_NAMELIST (make fuzz-run sets it). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  const char *nml = getenv("CRYO_FUZZ_NAMELIST");
  if (!nml || cryo_init(&component, nml, MPI_COMM_WORLD) != CRYO_OK) {
    fprintf(stderr, "fuzz_restart: cryo_init(%s): %s\n", nml ? nml : "(CRYO_FUZZ_NAMELIST unset)",
            cryo_last_error(component));
    exit(1);
  }
  snprintf(restart_path, sizeof restart_path, "%s/cryodyn-fuzz-%ld.nc",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(restart_path, "wb");
  if (!f) return 0;
  size_t written = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || written != size) return 0;
  int status = cryo_restart_read(component, restart_path);
  const char *msg = cryo_last_error(component);
  if (status != CRYO_OK && (!fuzz_expected(status) || !strstr(msg, restart_path))) {
    fprintf(stderr, "fuzz_restart: unexpected %s: '%s'\n", cryo_status_name(status), msg);
    abort();
  }
  remove(restart_path);
  return 0;
}
