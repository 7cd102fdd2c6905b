/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Namelist schema and cross-checks (namelists/README.md): the
 * defaults are the cyclone benchmark's, values land in the right places, and
 * every inconsistent combination is an error naming the file and the names
 * involved. Syntax errors of the reader itself: test_namelist.c. */
#include "cryo_config.h"
#include "cryo_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *good =
    "&cryo_run\n"
    "  model = 'seaice', run_length = 172800, coupling_interval = 3600\n"
    "  output_interval = 21600, restart_interval = 86400, output_file = 'o.nc'\n"
    "/\n"
    "&cryo_grid nx = 128, ny = 128, dx = 4000., dy = 4000. /\n"
    "&cryo_seaice dt = 120, n_evp = 100, alpha = 800, beta = 800 /\n";

static void test_defaults(void) {
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_config_read_string(&cfg, good, "good.nml", &err), CRYO_OK);
  CU_ASSERT_EQUAL(cfg.run.run_length, 172800);
  CU_ASSERT_EQUAL(cfg.run.restart_interval, 86400);
  CU_ASSERT_EQUAL(cfg.grid.nx, 128);
  CU_ASSERT_EQUAL(cfg.grid.dx, 4000.0);
  /* cyclone benchmark values (docs/benchmarks.md) */
  CU_ASSERT_EQUAL(cfg.seaice.p.pstar, 27500.0);
  CU_ASSERT_EQUAL(cfg.seaice.p.c_strength, 20.0);
  CU_ASSERT_EQUAL(cfg.seaice.p.delta_min, 2e-9);
  CU_ASSERT_EQUAL(cfg.seaice.p.rho_ice, 900.0);
  CU_ASSERT_EQUAL(cfg.seaice.p.rho_air, 1.3);
  CU_ASSERT_EQUAL(cfg.seaice.p.rho_ocean, 1026.0);
  CU_ASSERT_EQUAL(cfg.seaice.p.c_air, 1.2e-3);
  CU_ASSERT_EQUAL(cfg.seaice.p.c_ocean, 5.5e-3);
  CU_ASSERT_EQUAL(cfg.seaice.p.coriolis, 1.46e-4);
  CU_ASSERT_STRING_EQUAL(cfg.run.forcing, "analytic");
  CU_ASSERT_STRING_EQUAL(cfg.run.calendar, "proleptic_gregorian");
  /* without grid_file: the built-in box, vectors along east and north */
  CU_ASSERT_STRING_EQUAL(cfg.grid.grid_file, "");
  CU_ASSERT_STRING_EQUAL(cfg.grid.vector_frame, "east_north");
  CU_ASSERT_EQUAL(cfg.grid.east_north, 1);
  CU_ASSERT_EQUAL(cfg.grid.earth_radius, 6371229.0);
  CU_ASSERT_EQUAL(cfg.seaice.p.quad, 0);
}

typedef struct {
  const char *text;
  int status;
  const char *needle;
} bad_case;

static void test_inconsistent(void) {
  static const bad_case cases[] = {
      {"&cryo_run model='seaice', run_length=7000, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n",
       CRYO_ERR_RANGE, "run_length = 7000 s is not a multiple of coupling_interval"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, output_interval=5000 "
       "/\n&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_RANGE, "output_interval = 5000"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, "
       "restart_interval=1800 /\n&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_RANGE, "restart_interval = 1800"},
      {"&cryo_run model='seaice', run_length=7200.5, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n",
       CRYO_ERR_RANGE, "whole"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n&cryo_seaice dt = 7000 /\n",
       CRYO_ERR_RANGE, "not a multiple of the seaice time step dt = 7000"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, forcing='netcdf' /\n"
       "&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_MISSING, "forcing_file"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, start='2001-02-30' "
       "/\n&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_RANGE, "2001-02-30"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n&cryo_seaice init = 'uniform' /\n",
       CRYO_ERR_RANGE, "init = 'cyclone'"},
      {"&cryo_run model='landice', run_length=86400, coupling_interval=86400 /\n&cryo_grid "
       "nx=8, ny=8 /\n&cryo_landice dt = 50000 /\n",
       CRYO_ERR_RANGE, "landice time step"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n", CRYO_ERR_MISSING,
       "cryo_grid"},
      {"&cryo_run model='ocean', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n",
       CRYO_ERR_RANGE, "ocean"},
      {"&cryo_run run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_MISSING, "model"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8 /\n",
       CRYO_ERR_MISSING, "ny"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8 /\n&cryo_seaice alpha = 0 /\n",
       CRYO_ERR_RANGE, "alpha"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8, dx=-1 /\n",
       CRYO_ERR_RANGE, "dx"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, calendar='julian' "
       "/\n&cryo_grid nx=8, ny=8 /\n",
       CRYO_ERR_RANGE, "julian"},
      {"&cryo_run model='landice', run_length=86400, coupling_interval=86400 /\n&cryo_grid "
       "nx=8, ny=8 /\n&cryo_landice n_layers = 0 /\n",
       CRYO_ERR_RANGE, "n_layers"},
      {"&cryo_run model='landice', run_length=86400, coupling_interval=86400 /\n&cryo_grid "
       "nx=8, ny=8 /\n&cryo_landice case = 'ismip-hom-b' /\n",
       CRYO_ERR_RANGE, "ismip-hom-b"},
      /* &cryo_grid grid_file (namelists/README.md, Grid files): refused
       * before the file is opened */
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid "
       "grid_file='g.nc' /\n",
       CRYO_ERR_RANGE, "forcing = 'analytic' is the cyclone benchmark of the built-in box"},
      {"&cryo_run model='landice', run_length=86400, coupling_interval=86400 /\n&cryo_grid "
       "grid_file='g.nc' /\n",
       CRYO_ERR_RANGE, "case.nml:2: &cryo_grid: grid_file = 'g.nc' is for model = 'seaice'"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600, forcing='host' /\n"
       "&cryo_grid nx=8, ny=8, vector_frame='north' /\n",
       CRYO_ERR_RANGE, "vector_frame"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid nx=8, "
       "ny=8, earth_radius=6371. /\n",
       CRYO_ERR_RANGE, "earth_radius"},
      {"&cryo_run model='seaice', run_length=7200, coupling_interval=3600 /\n&cryo_grid ny=8 /\n",
       CRYO_ERR_MISSING, "required name nx"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    cryo_config cfg;
    cryo_err err = {0};
    int status = cryo_config_read_string(&cfg, cases[k].text, "case.nml", &err);
    CU_ASSERT_EQUAL(status, cases[k].status);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "case.nml"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[k].needle));
    if (status != cases[k].status || !strstr(err.msg, cases[k].needle))
      fprintf(stderr, "case %zu: got %s '%s'\n", k, cryo_status_name(status), err.msg);
  }
}

/* &cryo_run halo_device_buffers: 'auto' by default, the three choices
 * parse on every build (CPU ones included), anything else names the key. */
static void test_halo_device_buffers(void) {
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_config_read_string(&cfg, good, "good.nml", &err), CRYO_OK);
  CU_ASSERT_STRING_EQUAL(cfg.run.halo_device_buffers, "auto");
  static const char *const choices[] = {"auto", "yes", "no"};
  for (int k = 0; k < 3; ++k) {
    char text[512];
    snprintf(text, sizeof text,
             "&cryo_run model = 'seaice', run_length = 7200, coupling_interval = 3600,\n"
             "  halo_device_buffers = '%s' /\n&cryo_grid nx = 8, ny = 8 /\n",
             choices[k]);
    CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "halo.nml", &err), CRYO_OK);
    CU_ASSERT_STRING_EQUAL(cfg.run.halo_device_buffers, choices[k]);
  }
  const char *bad = "&cryo_run model = 'seaice', run_length = 7200, coupling_interval = 3600,\n"
                    "  halo_device_buffers = 'always' /\n&cryo_grid nx = 8, ny = 8 /\n";
  CU_ASSERT_NOT_EQUAL(cryo_config_read_string(&cfg, bad, "halo.nml", &err), CRYO_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "halo.nml"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "halo_device_buffers"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "always"));
}

/* A two-choice string key of &cryo_run: `deflt` without it, each of
 * choices parses to itself, anything else names the key and the value.
 * value(cfg) is the member the key sets. */
static void check_run_choice(const char *key, const char *deflt, const char *const choices[2],
                             const char *(*value)(const cryo_config *)) {
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_config_read_string(&cfg, good, "good.nml", &err), CRYO_OK);
  CU_ASSERT_STRING_EQUAL(value(&cfg), deflt);
  for (int k = 0; k < 3; ++k) {
    const char *given = k < 2 ? choices[k] : "maybe";
    char text[512];
    snprintf(text, sizeof text,
             "&cryo_run model = 'seaice', run_length = 7200, coupling_interval = 3600,\n"
             "  %s = '%s' /\n&cryo_grid nx = 8, ny = 8 /\n",
             key, given);
    const int status = cryo_config_read_string(&cfg, text, "choice.nml", &err);
    if (k < 2) {
      CU_ASSERT_EQUAL(status, CRYO_OK);
      CU_ASSERT_STRING_EQUAL(value(&cfg), given);
    } else {
      CU_ASSERT_NOT_EQUAL(status, CRYO_OK);
      CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "choice.nml"));
      CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, key));
      CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "maybe"));
    }
  }
}

static const char *halo_overlap_of(const cryo_config *cfg) {
  return cfg->run.halo_overlap;
}

static const char *halo_peer_of(const cryo_config *cfg) {
  return cfg->run.halo_peer;
}

/* &cryo_run halo_overlap: 'no' by default, 'yes' or 'no'. */
static void test_halo_overlap(void) {
  static const char *const choices[2] = {"yes", "no"};
  check_run_choice("halo_overlap", "no", choices, halo_overlap_of);
}

/* &cryo_run halo_peer: 'auto' by default, 'auto' or 'no'. */
static void test_halo_peer(void) {
  static const char *const choices[2] = {"auto", "no"};
  check_run_choice("halo_peer", "auto", choices, halo_peer_of);
}

static void test_missing_file(void) {
  cryo_config cfg;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_config_read(&cfg, "no/such/file.nml", &err), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/such/file.nml"));
}

/* Each numeric parameter has one range (kernels/cryo_params.h), which the
 * namelist and the core's own check both apply: for every entry of both
 * tables, the core's check takes the defaults with the member at each bound
 * and refuses it just outside, naming the key; and a value the namelist
 * refuses (alpha = 0.5: [1, 1e6]) the core's check refuses too (it took any
 * alpha > 0 before the tables). */
static void test_one_range(void) {
  cryo_err err = {0};
  const cryo_param_range *t;
  long bad = 0;
  for (int core = 0; core < 2; ++core) {
    cryo_seaice_params sp;
    cryo_landice_params lp;
    cryo_seaice_params_cyclone(&sp);
    cryo_landice_params_default(&lp);
    void *p = core ? (void *)&lp : (void *)&sp;
    int n = core ? cryo_landice_param_ranges(&t) : cryo_seaice_param_ranges(&t);
    for (int k = 0; k < n; ++k) {
      char *at = (char *)p + t[k].offset;
      const double keep = t[k].is_int ? *(int *)at : *(double *)at;
      for (int side = 0; side < 4; ++side) {
        double bound = side % 2 ? t[k].hi : t[k].lo, v = bound;
        if (side >= 2)
          v = t[k].is_int ? bound + (side % 2 ? 1 : -1)
                          : bound + (side % 2 ? 1 : -1) * fmax(1.0, fabs(bound)) * 1e-3;
        if (t[k].is_int)
          *(int *)at = (int)v;
        else
          *(double *)at = v;
        int status =
            core ? cryo_landice_params_check(&lp, &err) : cryo_seaice_params_check(&sp, &err);
        int want = side < 2 ? CRYO_OK : CRYO_ERR_RANGE;
        if (status != want || (want != CRYO_OK && !strstr(err.msg, t[k].key))) {
          printf("\n  %s = %g: status %d, expected %d (%s)", t[k].key, v, status, want, err.msg);
          ++bad;
        }
      }
      if (t[k].is_int)
        *(int *)at = (int)keep;
      else
        *(double *)at = keep;
    }
  }
  CU_ASSERT_EQUAL(bad, 0);

  cryo_seaice_params sp;
  cryo_seaice_params_cyclone(&sp);
  sp.alpha = 0.5;
  CU_ASSERT_EQUAL(cryo_seaice_params_check(&sp, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "alpha = 0.5, must be in [1, 1e+06]"));
  cryo_config cfg;
  const char *text = "&cryo_run model = 'seaice', run_length = 3600, coupling_interval = 600 /\n"
                     "&cryo_grid nx = 8, ny = 8 /\n&cryo_seaice alpha = 0.5 /\n";
  CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "a.nml", &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "alpha"));
  printf("\n  namelist: %s", err.msg);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"defaults and values", test_defaults},
                         {"one range per parameter", test_one_range},
                         {"inconsistent settings", test_inconsistent},
                         {"missing file", test_missing_file},
                         {"halo_device_buffers", test_halo_device_buffers},
                         {"halo_overlap", test_halo_overlap},
                         {"halo_peer", test_halo_peer},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("config", tests);
  return cryo_test_run();
}
