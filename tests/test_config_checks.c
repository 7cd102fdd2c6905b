/* Start-up checks of the configuration (component/cryo_config.c, namelists/README.md):
 *  - the mEVP stability condition (component/cryo_config.c, check_mevp): on
 *    8 km cells with dt = 120 s and the cyclone's rheology, gamma = 71614.6,
 *    so alpha = beta = 134 ((2 alpha - 1)(2 beta + 1) = 71823) starts and 133
 *    (70755) is refused naming both numbers and the smallest alpha = beta;
 *  - initial thicknesses above the state check's bound are refused;
 *  - the keys of the dynamics options (docs/seaice.md): values out of range
 *    and combinations that cannot work are refused, each naming the key;
 *  - every namelist shipped in namelists/ passes, with no warning;
 *  - options the run ignores are listed with the setting that makes them so,
 *    each once, and the output file keeps the list in its attribute
 *    `warnings`. */
#include "cryo_config.h"
#include "cryo_test.h"
#include "test_component.h"

#include <dirent.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void option_case(const char *run, const char *seaice, int status, const char *needle) {
  char text[1024];
  snprintf(text, sizeof text,
           "&cryo_run model = 'seaice', run_length = 3600, coupling_interval = 3600%s /\n"
           "&cryo_grid nx = 16, ny = 16, dx = 8000., dy = 8000. /\n"
           "&cryo_seaice %s /\n",
           run, seaice);
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(read_text(&cfg, text, &err), status);
  if (needle) CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
}

static void test_options(void) {
  option_case("", "tensile_k = -0.1", CRYO_ERR_RANGE,
              "t.nml:3: &cryo_seaice: tensile_k = -0.1 is out of range [0, 0.99]");
  option_case("", "tensile_k = 1", CRYO_ERR_RANGE, "tensile_k = 1 is out of range [0, 0.99]");
  option_case("", "turning_angle = 120", CRYO_ERR_RANGE,
              "turning_angle = 120 is out of range [-90, 90] degrees");
  option_case("", "adaptive_evp = .true., aevp_c = 0", CRYO_ERR_RANGE,
              "aevp_c = 0 is out of range [0.001, 10]");
  option_case("", "adaptive_evp = .true., aevp_alpha_min = 0.5", CRYO_ERR_RANGE,
              "aevp_alpha_min = 0.5 is out of range [1, 1000000]");
  option_case("", "basal_stress = .true., bathymetry_file = 'b.nc', basal_k2 = -15", CRYO_ERR_RANGE,
              "basal_k2 = -15 is out of range [0, 1000] N m-3");
  option_case("", "basal_stress = .true., bathymetry_file = 'b.nc', basal_u0 = 0", CRYO_ERR_RANGE,
              "basal_u0 = 0 is out of range [1e-08, 1] m s-1");
  option_case("", "basal_stress = .true.", CRYO_ERR_MISSING,
              "t.nml: &cryo_seaice basal_stress = .true. needs bathymetry_file");
  option_case("", "ssh_tilt = .true.", CRYO_ERR_RANGE,
              "t.nml: &cryo_seaice ssh_tilt = .true. takes the sea-surface height from the "
              "forcing (field 'ssh'), but forcing = 'analytic' has none");
  option_case(", forcing = 'host'", "init = 'uniform', ssh_tilt = .true., gravity = 9.8", CRYO_OK,
              NULL);
  /* alpha = beta = 1 fail the fixed mEVP condition; the adaptive one sets its own */
  option_case("", "alpha = 1, beta = 1", CRYO_ERR_RANGE, "fail the mEVP stability condition");
  option_case("", "alpha = 1, beta = 1, adaptive_evp = .true.", CRYO_OK, NULL);
  /* BBM (docs/seaice.md, The BBM rheology): the mEVP condition does not apply,
   * the sub-step rule does (16.05 s at 8 km with the defaults) */
  option_case("", "rheology = 'bbm', alpha = 1, beta = 1", CRYO_OK, NULL);
  option_case("", "rheology = 'bbm', n_bbm = 7", CRYO_ERR_RANGE,
              "t.nml: &cryo_seaice rheology = 'bbm': the elastic sub-step dt / n_bbm = 120 s / 7 "
              "= 17.1429 s exceeds");
  option_case("", "rheology = 'bbm', n_bbm = 7", CRYO_ERR_RANGE, "raise n_bbm to at least 8");
  option_case("", "rheology = 'bbm', n_bbm = 8", CRYO_OK, NULL);
  option_case("", "rheology = 'ebp'", CRYO_ERR_RANGE, "rheology = 'ebp' is not one of 'vp', 'bbm'");
  option_case("", "rheology = 'bbm', bbm_poisson = 0.5", CRYO_ERR_RANGE,
              "bbm_poisson = 0.5 is out of range [0, 0.49]");
  option_case("", "rheology = 'bbm', bbm_alpha = 0", CRYO_ERR_RANGE,
              "bbm_alpha = 0 is out of range [1, 20]");
  option_case("", "rheology = 'bbm', bbm_t_heal = 0", CRYO_ERR_RANGE,
              "bbm_t_heal = 0 is out of range [1, 1000000000000] s");
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

/* Every shipped namelist reads without error or warning. Those naming a grid
 * file read it from CRYO_GRID_DIR (tests/config_checks.test writes them). */
static void test_shipped(void) {
  const char *top = getenv("top_srcdir"), *grids = getenv("CRYO_GRID_DIR");
  char dir[1024], cwd[512];
  CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
  if (top && top[0] == '/')
    snprintf(dir, sizeof dir, "%s/namelists", top);
  else
    snprintf(dir, sizeof dir, "%s/%s/namelists", cwd, top ? top : ".");
  if (grids) CU_ASSERT_EQUAL_FATAL(chdir(grids), 0);
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
    if (status != CRYO_OK || cfg.warnings[0])
      fprintf(stderr, "%s: %s%s\n", path, err.msg, cfg.warnings);
    CU_ASSERT_EQUAL(status, CRYO_OK);
    CU_ASSERT_STRING_EQUAL(cfg.warnings, "");
    count++;
  }
  closedir(d);
  CU_ASSERT_EQUAL(chdir(cwd), 0);
  CU_ASSERT(count >= 20);
}

typedef struct {
  const char *groups; /* &cryo_run and the rest of the namelist text */
  const char *warning;
} ignored_case;

#define SEAICE_RUN  "&cryo_run model = 'seaice', run_length = 3600, coupling_interval = 3600"
#define LANDICE_RUN "&cryo_run model = 'landice', run_length = 86400, coupling_interval = 86400"

static void test_ignored(void) {
  static const ignored_case cases[] = {
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice rheology = 'bbm', n_evp = 50 /\n",
       "&cryo_seaice: n_evp is ignored: rheology = 'bbm' (a key of the viscous-plastic mEVP)"},
      {SEAICE_RUN
       " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice rheology = 'bbm', state_precision = "
       "'single' /\n",
       "&cryo_seaice: state_precision is ignored: rheology = 'bbm' (a key of the viscous-plastic "
       "mEVP)"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice bbm_mu = 0.6 /\n",
       "&cryo_seaice: bbm_mu is ignored: rheology = 'vp'"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice\n h_init = 2. /\n",
       "t.nml:4: &cryo_seaice: h_init is ignored: init = 'cyclone' (only 'uniform' uses it)"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice a_init = .5 /\n",
       "&cryo_seaice: a_init is ignored: init = 'cyclone'"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice init_file = 'i.nc' /\n",
       "&cryo_seaice: init_file is ignored: init = 'cyclone' (only 'file' reads it)"},
      {SEAICE_RUN ", forcing = 'host' /\n&cryo_grid nx = 8, ny = 8 /\n"
                  "&cryo_seaice pstar = 0., ecc = 3. /\n",
       "&cryo_seaice: ecc is ignored: pstar = 0 (no internal stress)"},
      {SEAICE_RUN ", output_interval = 3600 /\n&cryo_grid nx = 8, ny = 8 /\n",
       "t.nml:1: &cryo_run: output_interval is ignored: output_file = ''"},
      {SEAICE_RUN ", restart_interval = 3600 /\n&cryo_grid nx = 8, ny = 8 /\n",
       "&cryo_run: restart_interval is ignored: restart_out = ''"},
      {SEAICE_RUN ", forcing_file = 'f.nc' /\n&cryo_grid nx = 8, ny = 8 /\n",
       "&cryo_run: forcing_file is ignored: forcing = 'analytic' (only 'netcdf' reads a file)"},
      {SEAICE_RUN ", forcing_vars = 'u' 'v' 'uo' 'vo' /\n&cryo_grid nx = 8, ny = 8 /\n",
       "&cryo_run: forcing_vars is ignored: forcing = 'analytic'"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8, mask_var = 'm' /\n",
       "&cryo_grid: mask_var is ignored: mask_file = ''"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8, vector_frame = 'grid' /\n",
       "&cryo_grid: vector_frame is ignored: grid_file = '' (the built-in box's grid directions"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8, earth_radius = 6.4e6 /\n",
       "t.nml:2: &cryo_grid: earth_radius is ignored: grid_file = '' (the built-in box is planar)"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_coupling component = 'ice' /\n",
       "&cryo_coupling: component is ignored: forcing = 'analytic' (only 'oasis' uses "
       "&cryo_coupling)"},
      {SEAICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice n_layers = 3 /\n",
       "&cryo_landice: n_layers is ignored: model = 'seaice'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice dt = 60. /\n",
       "&cryo_seaice: dt is ignored: model = 'landice'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8, mask_file = 'm.nc' /\n",
       "&cryo_grid: mask_file is ignored: model = 'landice'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice case = 'slab', beta2 = 50. /\n",
       "&cryo_landice: beta2 is ignored: basal = 'no_slip'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice beta2 = 50. /\n",
       "&cryo_landice: beta2 is ignored: case = 'ismip-hom-a' has no slip at the bed"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n"
                   "&cryo_landice case = 'ismip-hom-c', beta2 = 50. /\n",
       "&cryo_landice: beta2 is ignored: case = 'ismip-hom-c' sets beta2 = 1000"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice basal = 'friction' /\n",
       "&cryo_landice: basal is ignored: case = 'ismip-hom-a' sets basal = 'no_slip'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8, dx = 500. /\n",
       "&cryo_grid: dx is ignored: case = 'ismip-hom-a' with domain_length > 0 sets dx = dy = L "
       "/ nx"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice slope = 1. /\n",
       "&cryo_landice: slope is ignored: case = 'ismip-hom-a' (only 'slab' uses it)"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice thickness = 900. /\n",
       "&cryo_landice: thickness is ignored: case = 'ismip-hom-a' (only 'slab' uses it)"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n"
                   "&cryo_landice case = 'slab', domain_length = 1e4 /\n",
       "&cryo_landice: domain_length is ignored: case = 'slab' (only the ISMIP-HOM cases"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice geometry_file = 'g.nc' /\n",
       "&cryo_landice: geometry_file is ignored: case = 'ismip-hom-a' (only 'file' uses it)"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice background_slope = 1. /\n",
       "&cryo_landice: background_slope is ignored: case = 'ismip-hom-a'"},
      {LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n&cryo_landice lateral = 'dirichlet' /\n",
       "&cryo_landice: lateral is ignored: periodic = .true. (the domain has no edges)"},
      {LANDICE_RUN ", forcing = 'netcdf', forcing_file = 'f.nc', forcing_vars = 'a' 'b' 'c' "
                   "'d' /\n&cryo_grid nx = 8, ny = 8 /\n",
       "&cryo_run: forcing_vars is ignored: model = 'landice' reads smb and basal_melt"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    static cryo_config cfg;
    cryo_err err = {0};
    CU_ASSERT_EQUAL(read_text(&cfg, cases[k].groups, &err), CRYO_OK);
    const char *at = strstr(cfg.warnings, cases[k].warning);
    if (!at) fprintf(stderr, "case %zu: got '%s' (%s)\n", k, cfg.warnings, err.msg);
    CU_ASSERT_PTR_NOT_NULL(at);
    /* one line per ignored option */
    CU_ASSERT_PTR_NULL(strchr(cfg.warnings, '\n'));
  }
  /* The same options where their setting uses them: no warning. */
  static cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(read_text(&cfg,
                            SEAICE_RUN ", forcing = 'host' /\n&cryo_grid nx = 8, ny = 8 /\n"
                                       "&cryo_seaice init = 'uniform', h_init = 2. /\n",
                            &err),
                  CRYO_OK);
  CU_ASSERT_STRING_EQUAL(cfg.warnings, "");
  CU_ASSERT_EQUAL(read_text(&cfg,
                            LANDICE_RUN " /\n&cryo_grid nx = 8, ny = 8 /\n"
                                        "&cryo_landice case = 'slab', basal = 'friction', beta2 = "
                                        "50., periodic = .false., lateral = 'dirichlet' /\n",
                            &err),
                  CRYO_OK);
  CU_ASSERT_STRING_EQUAL(cfg.warnings, "");
}

static void test_output_attribute(void) {
  test_write_file(MPI_COMM_WORLD, "warn.nml",
                  SEAICE_RUN ", output_file = 'warn.nc', restart_interval = 3600 /\n"
                             "&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice h_init = 2. /\n");
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "warn.nml", MPI_COMM_WORLD), CRYO_OK);
  const char *want = "warn.nml:1: &cryo_run: restart_interval is ignored: restart_out = ''\n"
                     "warn.nml:3: &cryo_seaice: h_init is ignored: init = 'cyclone' (only "
                     "'uniform' uses it)";
  CU_ASSERT_STRING_EQUAL(cryo_warnings(c), want);
  CU_ASSERT_EQUAL(cryo_finalize(&c), CRYO_OK);
  int rank, ncid;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  CU_ASSERT_EQUAL_FATAL(nc_open("warn.nc", NC_NOWRITE, &ncid), NC_NOERR);
  size_t len = 0;
  char text[1024] = "";
  CU_ASSERT_EQUAL(nc_inq_attlen(ncid, NC_GLOBAL, "warnings", &len), NC_NOERR);
  if (len < sizeof text)
    CU_ASSERT_EQUAL(nc_get_att_text(ncid, NC_GLOBAL, "warnings", text), NC_NOERR);
  CU_ASSERT_STRING_EQUAL(text, want);
  nc_close(ncid);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"mEVP stability condition", test_mevp},
                         {"initial thickness within the state bounds", test_bounds},
                         {"dynamics options: ranges and combinations", test_options},
                         {"shipped namelists start without warnings", test_shipped},
                         {"ignored options are listed", test_ignored},
                         {"warnings in the output file", test_output_attribute},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("configuration checks", tests);
  return cryo_test_run();
}
