/* mpi-run ranks: 1 2 (tests/mpi-run runs this program once per count) */
/* Basal and rheology fields set by a host through the public API
 * (cryo_set_field / cryo_get_field; docs/landice.md, Basal and rheology
 * fields), on 1 and 2 ranks. A periodic slab (case 'slab') of 8 x 4 columns
 * of 5 km, H = 1000 m, slope 0.5 deg, Weertman sliding (C = 1e4
 * Pa m^(-1/3) a^(1/3), m = 1/3), 4 layers, one coupling interval of a day.
 *  - Before any is set, sliding_c, coulomb_c and rate_factor read back as the
 *    namelist's values (1e4, 0.5, 1e-16 in each of the 4 layers).
 *  - Refused, with the status and a message naming the field, the value's
 *    index and the allowed range, and nothing changed: sliding_c -5
 *    (CRYO_ERR_DATA, "must be in [0, 1e+12]"), NaN (CRYO_ERR_DATA),
 *    coulomb_c -0.1 and rate_factor 0 (CRYO_ERR_DATA), an array one value
 *    short and a rate factor of one value per cell instead of one per cell
 *    and layer (CRYO_ERR_ARG, "this rank's block needs").
 *  - The three fields set to the namelist's values give the velocity bits of
 *    the run that sets none; C = 1.5e4 on the columns with global i >= 4
 *    gives other bits and a slower slab there.
 *  - The restart of that run carries the field: a run continued from it
 *    reads back the same sliding_c bits it never set, and the namelist's
 *    rate factor, which no one set. */
#include "cryo_test.h"
#include "test_component.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NZ = 4 };

static const char *const slab_nml =
    "&cryo_run model = 'landice', start = '2000-01-01 00:00:00', run_length = %d,\n"
    "  coupling_interval = 86400, forcing = 'analytic', restart_out = '%s' %s /\n"
    "&cryo_grid nx = 8, ny = 4, dx = 5000., dy = 5000. /\n"
    "&cryo_landice case = 'slab', periodic = .true., slope = 0.5, thickness = 1000.,\n"
    "  basal = 'friction', sliding_law = 'weertman', n_layers = 4, newton_rtol = 1.e-10,\n"
    "  linear_rtol = 1.e-8 /\n";

static cryo_component *start(const char *name, int days, const char *prefix, const char *extra) {
  char text[1024], path[64];
  snprintf(text, sizeof text, slab_nml, 86400 * days, prefix, extra);
  snprintf(path, sizeof path, "%s.nml", name);
  test_write_file(MPI_COMM_WORLD, path, text);
  cryo_component *c = NULL;
  int status = cryo_init(&c, path, MPI_COMM_WORLD);
  if (status != CRYO_OK) printf("\n  %s: %s", path, cryo_last_error(c));
  CU_ASSERT_FATAL(status == CRYO_OK);
  return c;
}

/* This rank's cells. */
static long cells(cryo_component *c, int *i0, int *nx) {
  int ny;
  cryo_get_block(c, i0, NULL, nx, &ny, NULL, NULL);
  return (long)*nx * ny;
}

static int all_equal(const double *v, long n, double want) {
  for (long q = 0; q < n; ++q)
    if (v[q] != want) return 0;
  return 1;
}

static void test_defaults_and_errors(void) {
  cryo_component *c = start("errors", 1, "", "");
  int i0, nx;
  const long n = cells(c, &i0, &nx);
  double *v = malloc(sizeof *v * n * NZ);
  CU_ASSERT_FATAL(v != NULL);
  CU_ASSERT(cryo_get_field(c, "sliding_c", v, n) == CRYO_OK && all_equal(v, n, 1.0e4));
  CU_ASSERT(cryo_get_field(c, "coulomb_c", v, n) == CRYO_OK && all_equal(v, n, 0.5));
  CU_ASSERT(cryo_get_field(c, "rate_factor", v, n * NZ) == CRYO_OK &&
            all_equal(v, n * NZ, 1.0e-16));
  for (long q = 0; q < n; ++q)
    v[q] = 1.0e4;
  v[n - 1] = -5.0;
  CU_ASSERT(cryo_set_field(c, "sliding_c", v, n) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(cryo_last_error(c), "cryo_set_field('sliding_c'): value") != NULL);
  CU_ASSERT(strstr(cryo_last_error(c), "is -5 Pa m^(-m) a^m, must be in [0, 1e+12]") != NULL);
  v[n - 1] = NAN;
  CU_ASSERT(cryo_set_field(c, "sliding_c", v, n) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(cryo_last_error(c), "is nan") != NULL);
  v[n - 1] = 1.0e4;
  CU_ASSERT(cryo_set_field(c, "sliding_c", v, n - 1) == CRYO_ERR_ARG);
  CU_ASSERT(strstr(cryo_last_error(c), "this rank's block needs") != NULL);
  for (long q = 0; q < n; ++q)
    v[q] = 0.5;
  v[0] = -0.1;
  CU_ASSERT(cryo_set_field(c, "coulomb_c", v, n) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(cryo_last_error(c), "must be in [1e-06, 1000]") != NULL);
  for (long q = 0; q < n * NZ; ++q)
    v[q] = 1.0e-16;
  CU_ASSERT(cryo_set_field(c, "rate_factor", v, n) == CRYO_ERR_ARG);
  v[NZ - 1] = 0.0;
  CU_ASSERT(cryo_set_field(c, "rate_factor", v, n * NZ) == CRYO_ERR_DATA);
  CU_ASSERT(strstr(cryo_last_error(c), "is 0 Pa-n a-1, must be in [1e-30, 1]") != NULL);
  /* nothing was taken */
  CU_ASSERT(cryo_get_field(c, "sliding_c", v, n) == CRYO_OK && all_equal(v, n, 1.0e4));
  CU_ASSERT(cryo_get_field(c, "rate_factor", v, n * NZ) == CRYO_OK &&
            all_equal(v, n * NZ, 1.0e-16));
  free(v);
  cryo_finalize(&c);
}

enum { SET_NONE, SET_UNIFORM, SET_HALVES };

/* One day of the slab with the fields set as `how`; its velocity (this
 * rank's nodes, malloc'ed, *nv values). */
static double *day(int how, const char *prefix, long *nv) {
  cryo_component *c = start("day", 1, prefix, "");
  int i0, nx;
  const long n = cells(c, &i0, &nx);
  double *v = malloc(sizeof *v * n * NZ);
  CU_ASSERT_FATAL(v != NULL);
  if (how != SET_NONE) {
    for (long q = 0; q < n; ++q)
      v[q] = how == SET_HALVES && i0 + q % nx >= 4 ? 1.5e4 : 1.0e4;
    CU_ASSERT(cryo_set_field(c, "sliding_c", v, n) == CRYO_OK);
  }
  if (how == SET_UNIFORM) {
    for (long q = 0; q < n; ++q)
      v[q] = 0.5;
    CU_ASSERT(cryo_set_field(c, "coulomb_c", v, n) == CRYO_OK);
    for (long q = 0; q < n * NZ; ++q)
      v[q] = 1.0e-16;
    CU_ASSERT(cryo_set_field(c, "rate_factor", v, n * NZ) == CRYO_OK);
  }
  free(v);
  int status = cryo_run(c);
  if (status != CRYO_OK) printf("\n  run: %s", cryo_last_error(c));
  CU_ASSERT_FATAL(status == CRYO_OK);
  int ny;
  cryo_get_block(c, NULL, NULL, &nx, &ny, NULL, NULL);
  *nv = (long)(nx + 1) * (ny + 1) * 2 * (NZ + 1);
  double *vel = malloc(sizeof *vel * *nv);
  CU_ASSERT_FATAL(vel != NULL);
  CU_ASSERT(cryo_get_field(c, "velocity", vel, *nv) == CRYO_OK);
  CU_ASSERT(cryo_finalize(&c) == CRYO_OK);
  return vel;
}

static void test_bits_and_restart(void) {
  long n0, n1, n2;
  double *none = day(SET_NONE, "", &n0), *uniform = day(SET_UNIFORM, "", &n1);
  double *halves = day(SET_HALVES, "halves", &n2);
  CU_ASSERT_FATAL(n0 == n1 && n0 == n2);
  CU_ASSERT(memcmp(none, uniform, sizeof *none * n0) == 0);
  CU_ASSERT(memcmp(none, halves, sizeof *none * n0) != 0);
  /* surface u at a node inside the stiffer half (global i = 6), on the rank
   * that owns it: slower than the uniform slab */
  cryo_component *c = start("continued", 2, "", ", restart_in = 'halves.2000-01-02-00000.nc'");
  int i0, nx;
  const long n = cells(c, &i0, &nx);
  if (i0 <= 6 && 6 < i0 + nx) {
    long at = (6 - i0) * 2 * (NZ + 1) + 2 * NZ; /* node row 0 */
    printf("\n  surface u at i = 6: %.3f m/a, uniform %.3f m/a", halves[at], none[at]);
    CU_ASSERT(halves[at] < 0.7 * none[at]);
  }
  double *v = malloc(sizeof *v * n * NZ);
  CU_ASSERT_FATAL(v != NULL);
  CU_ASSERT(cryo_get_field(c, "sliding_c", v, n) == CRYO_OK);
  int same = 1;
  for (long q = 0; q < n; ++q)
    same = same && v[q] == (i0 + q % nx >= 4 ? 1.5e4 : 1.0e4);
  CU_ASSERT(same);
  CU_ASSERT(cryo_get_field(c, "rate_factor", v, n * NZ) == CRYO_OK &&
            all_equal(v, n * NZ, 1.0e-16));
  free(v);
  cryo_finalize(&c);
  free(none);
  free(uniform);
  free(halves);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"defaults and refused fields", test_defaults_and_errors},
                         {"uniform bits, halves, restart", test_bits_and_restart},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("landice host fields", tests);
  return cryo_test_run();
}
