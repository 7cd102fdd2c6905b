/* Start-up checks of the configuration (issue 9):
 *  - the mEVP stability condition (component/cryo_config.c, check_mevp): on
 *    8 km cells with dt = 120 s and the cyclone's rheology, gamma = 71614.6,
 *    so alpha = beta = 134 ((2 alpha - 1)(2 beta + 1) = 71823) starts and 133
 *    (70755) is refused naming both numbers and the smallest alpha = beta;
 *  - initial thicknesses above the state check's bound are refused;
 *  - every namelist shipped in namelists/ passes. */
#include "cryo_config.h"
#include "cryo_test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int read_text(cryo_config *cfg, const char *text, cryo_err *err) {
  return cryo_config_read_string(cfg, text, "t.nml", err);
}

static void mevp_case(double alpha, int status, const char *needle) {
  char text[512];
  snprintf(text, sizeof text,
           "&cryo_run model = 'seaice', run_length = 3600, coupling_interval = 3600 /\n"
           "&cryo_grid nx = 64, ny = 64, dx = 8000., dy = 9000. /\n"
           "&cryo_seaice dt = 120., alpha = %g, beta = %g /\n",
           alpha, alpha);
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(read_text(&cfg, text, &err), status);
  if (needle) CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
}

static void test_mevp(void) {
  mevp_case(134, CRYO_OK, NULL);
  mevp_case(133, CRYO_ERR_RANGE,
            "t.nml: &cryo_seaice: alpha = 133, beta = 133 fail the mEVP stability condition "
            "(2 alpha - 1)(2 beta + 1) > gamma: 70755 <= 2 (1 + ecc^-2) pstar dt");
  mevp_case(133, CRYO_ERR_RANGE, "= 71614.6 with ecc = 2, pstar = 27500 N m-2, dt = 120 s");
  mevp_case(1, CRYO_ERR_RANGE, "min(dx, dy) = 8000 m");
  mevp_case(1, CRYO_ERR_RANGE, "raise alpha = beta to at least 134");
  /* Free drift has no stress to iterate. */
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(read_text(&cfg,
                            "&cryo_run model = 'seaice', run_length = 3600, "
                            "coupling_interval = 3600, forcing = 'host' /\n"
                            "&cryo_grid nx = 8, ny = 8 /\n"
                            "&cryo_seaice alpha = 1, beta = 1, pstar = 0 /\n",
                            &err),
                  CRYO_OK);
}

static void test_bounds(void) {
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(read_text(&cfg,
                            "&cryo_run model = 'seaice', run_length = 3600, "
                            "coupling_interval = 3600, forcing = 'host' /\n"
                            "&cryo_grid nx = 8, ny = 8 /\n"
                            "&cryo_seaice init = 'uniform', h_init = 150. /\n",
                            &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "h_init = 150 m is above max_thickness = 100 m"));
  CU_ASSERT_EQUAL(
      read_text(&cfg,
                "&cryo_run model = 'landice', run_length = 86400, "
                "coupling_interval = 86400 /\n"
                "&cryo_grid nx = 8, ny = 8 /\n"
                "&cryo_landice case = 'slab', thickness = 2e4, max_thickness = 1.5e4 /\n",
                &err),
      CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "thickness = 20000 m is above max_thickness = 15000 m"));
}

static void test_shipped(void) {
  const char *top = getenv("top_srcdir");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/namelists", top ? top : ".");
  DIR *d = opendir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".nml")) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    static cryo_config cfg;
    cryo_err err = {0};
    int status = cryo_config_read(&cfg, path, &err);
    if (status != CRYO_OK) fprintf(stderr, "%s: %s\n", path, err.msg);
    CU_ASSERT_EQUAL(status, CRYO_OK);
    count++;
  }
  closedir(d);
  CU_ASSERT(count >= 20);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"mEVP stability condition", test_mevp},
                         {"initial thickness within the state bounds", test_bounds},
                         {"shipped namelists start", test_shipped},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("configuration checks", tests);
  return cryo_test_run();
}
