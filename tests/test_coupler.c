/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Unit tests of coupling/coupler.c, component/cryo_coupler_wanted.c and the
 * checks of the "oasis" exchange provider (coupling/exchange_oasis.c) that need
 * no coupled run: what a driver learns from the namelist before cryo_init, and
 * the errors that tell a driver
 * it called things in the wrong order. The coupled exchange itself is tested by
 * tests/test_oasis_exchange.sh, tests/coupled_seaice.sh and
 * tests/coupled_failures.sh. Flags, classes and strings: compared exactly. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */

#include "cryo_coupler.h"
#include "cryo_exchange.h"
#include "cryo_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A sea-ice namelist with the given &cryo_run forcing lines, &cryo_seaice dt
 * (s) and &cryo_coupling lines, written to a temporary file whose name goes
 * into path (64 bytes). */
static void write_namelist(char *path, const char *forcing, double dt, const char *coupling) {
  strcpy(path, "/tmp/test_coupler_XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  CU_ASSERT_FATAL(f != NULL);
  fprintf(f,
          "&cryo_run\n model = 'seaice'\n run_length = 14400\n coupling_interval = 3600\n"
          " %s\n/\n&cryo_grid\n nx = 40, ny = 30\n dx = 1e4, dy = 1e4\n/\n"
          "&cryo_seaice\n dt = %g\n/\n%s",
          forcing, dt, coupling);
  fclose(f);
}

static void test_wanted(void) {
  char path[64], comp[16];
  int coupled = -1;
  write_namelist(path, "forcing = 'oasis'", 600, "");
  CU_ASSERT_EQUAL(cryo_coupler_wanted(path, &coupled, comp, (int)sizeof comp), CRYO_OK);
  CU_ASSERT_EQUAL(coupled, 1);
  CU_ASSERT_STRING_EQUAL(comp, "cryody"); /* the default $NBMODEL name */
  unlink(path);

  write_namelist(path, "forcing = 'oasis'", 600, "&cryo_coupling\n component = 'seaic1'\n/\n");
  CU_ASSERT_EQUAL(cryo_coupler_wanted(path, &coupled, comp, (int)sizeof comp), CRYO_OK);
  CU_ASSERT_EQUAL(coupled, 1);
  CU_ASSERT_STRING_EQUAL(comp, "seaic1");
  /* The name does not fit in 4 bytes: an error, nothing copied. */
  CU_ASSERT_EQUAL(cryo_coupler_wanted(path, &coupled, comp, 4), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_coupler_last_error(), "'seaic1' does not fit in 4 bytes"));
  unlink(path);

  write_namelist(path, "forcing = 'netcdf'\n forcing_file = 'f.nc'", 600, "");
  CU_ASSERT_EQUAL(cryo_coupler_wanted(path, &coupled, comp, (int)sizeof comp), CRYO_OK);
  CU_ASSERT_EQUAL(coupled, 0);
  CU_ASSERT_STRING_EQUAL(cryo_coupler_last_error(), "");
  unlink(path);
}

/* A namelist error of a coupled run still says "coupled", so that the driver
 * aborts the partners instead of leaving them waiting. */
static void test_wanted_error_still_coupled(void) {
  char path[64], comp[16];
  int coupled = -1;
  write_namelist(path, "forcing = 'oasis'", 700, "");
  int status = cryo_coupler_wanted(path, &coupled, comp, (int)sizeof comp);
  CU_ASSERT_NOT_EQUAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(coupled, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_coupler_last_error(),
                                "coupling_interval = 3600 s is not a multiple of the seaice time "
                                "step dt = 700 s"));
  unlink(path);
}

static void test_order_errors(void) {
  CU_ASSERT_EQUAL(cryo_coupler_joined(), 0);
  CU_ASSERT_EQUAL(cryo_coupler_finalize(), CRYO_ERR_STATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_coupler_last_error(), "has not joined a coupled run"));

  /* forcing = 'oasis' in cryo_init without cryo_coupler_init first. */
  cryo_grid g;
  cryo_exchange_config cfg = {0};
  cryo_exchange *x = NULL;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_SELF, 40, 30, 1e4, 1e4, 0, 0, 0, 0, &err),
                        CRYO_OK);
  int status = cryo_exchange_create(&x, "oasis", CRYO_MODEL_SEAICE, &g, &cfg, &err);
  cryo_grid_destroy(&g);
#ifdef CRYO_HAVE_OASIS
  CU_ASSERT_EQUAL(status, CRYO_ERR_STATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the driver must call cryo_coupler_init(component, "
                                         "&comm) before cryo_init"));
#else
  CU_ASSERT_EQUAL(status, CRYO_ERR_UNSUPPORTED);
#endif
  CU_ASSERT_PTR_NULL(x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_TestInfo tests[] = {{"namelist says coupled or not", test_wanted},
                         {"namelist error still says coupled", test_wanted_error_still_coupled},
                         {"calls out of order", test_order_errors},
                         CU_TEST_INFO_NULL};
  if (cryo_test_suite("coupler", tests)) return 2;
  return cryo_test_run();
}
