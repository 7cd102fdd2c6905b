/* mpi-run ranks: 1 2 (tests/mpi-run runs this program once per count) */
/* Run-time state checks (namelists/README.md, State check), on 1 and 2 ranks:
 *  - kernels (kernels/state_check.c) on one 6 x 4 block: no key for a valid
 *    state; the first bad value in (j, i, check) order for NaN stress, a
 *    thickness above its bound, an Inf dG slope, a NaN land-ice velocity;
 *  - a sea-ice run with every option in its range that runs away (light ice,
 *    no ocean drag, no Coriolis: the wind accelerates it without bound, then
 *    the transport goes unstable and the volume reached 7e95 m3 by 8 h while
 *    the run went on): with the cyclone's rheology now refused at start by
 *    the mEVP condition; in free drift it stops at 9 h, when the unstable
 *    transport has piled 171 m of ice into one cell, with CRYO_ERR_DATA naming
 *    h, the cell and max_thickness, the same on 1 and 2 ranks;
 *  - a wind of 1e30 m/s from the host stops the first coupling interval on
 *    max_speed, and one of 1e200 m/s on the NaN stress it leaves (NaN used to
 *    pass: the progress line printed a speed and volume of 0);
 *  - the slab with rate factor 1 Pa-1 a-1 (4.5e7 m/a) stops on land-ice
 *    max_speed. */
#include "cryo_check.h"
#include "cryo_test.h"
#include "test_component.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

enum { NX = 6, NY = 4 };

static const cryo_block block = {
    .nx = NX, .ny = NY, .nx_global = NX, .ny_global = NY, .dx = 1e3, .dy = 1e3};

static long point(int i, int j) {
  return (long)j * (NX + 1) + i;
}

static void test_seaice_kernel(void) {
  const long nc = CRYO_NCELL(&block), nn = CRYO_NNODE(&block);
  double *u = calloc(nn, sizeof *u), *v = calloc(nn, sizeof *v);
  double *s[3], *h = calloc(3 * nc, sizeof *h), *a = calloc(3 * nc, sizeof *a);
  for (int k = 0; k < 3; ++k)
    s[k] = calloc(3 * nc, sizeof *s[k]);
  for (long q = 0; q < nn; ++q)
    u[q] = 0.5, v[q] = -0.5;
  for (long q = 0; q < nc; ++q)
    h[3 * q] = 2.0, a[3 * q] = 1.0;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  CRYO_STATE_OK);
  /* Halo values are not the block's: they never fail it. */
  u[CRYO_NODE(&block, -1, 2)] = NAN;
  h[3 * CRYO_CELL(&block, NX, 1)] = 1e9;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  CRYO_STATE_OK);
  h[3 * CRYO_CELL(&block, 4, 2)] = 11.0;
  s[1][3 * CRYO_CELL(&block, 2, 3) + 2] = NAN;
  a[3 * CRYO_CELL(&block, 1, 3) + 1] = INFINITY;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  point(4, 2) * CRYO_SEAICE_CHECK_COUNT + CRYO_SEAICE_CHECK_H);
  /* With dG0 tracers the slopes are not read. */
  h[3 * CRYO_CELL(&block, 4, 2)] = 2.0;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  point(1, 3) * CRYO_SEAICE_CHECK_COUNT + CRYO_SEAICE_CHECK_A);
  /* The velocity of node (6, 4) is the block's (nodes [0, nx] x [0, ny]). */
  a[3 * CRYO_CELL(&block, 1, 3) + 1] = 0.0;
  u[CRYO_NODE(&block, NX, NY)] = 0.9;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  point(2, 3) * CRYO_SEAICE_CHECK_COUNT + CRYO_SEAICE_CHECK_S12);
  s[1][3 * CRYO_CELL(&block, 2, 3) + 2] = 0.0;
  CU_ASSERT_EQUAL(cryo_seaice_check_state(&block, 3, 1.0, 10.0, u, v, s[0], s[1], s[2], h, a),
                  point(NX, NY) * CRYO_SEAICE_CHECK_COUNT + CRYO_SEAICE_CHECK_VELOCITY);
  free(u), free(v), free(h), free(a);
  for (int k = 0; k < 3; ++k)
    free(s[k]);
}

static void test_landice_kernel(void) {
  const int nz = 2, nlev = 2 * (nz + 1);
  const long nc = CRYO_NCELL(&block), nn = CRYO_NNODE(&block);
  double *vel = calloc(nn * nlev, sizeof *vel), *tn = calloc(nn, sizeof *tn);
  double *t = calloc(nc, sizeof *t);
  for (long q = 0; q < nn; ++q)
    tn[q] = 1000.0;
  for (long q = 0; q < nc; ++q)
    t[q] = 1000.0;
  CU_ASSERT_EQUAL(cryo_landice_check_state(&block, nz, 100.0, 5000.0, vel, tn, t), CRYO_STATE_OK);
  vel[CRYO_NODE(&block, 3, 1) * nlev + 2 * nz + 1] = NAN;
  t[CRYO_CELL(&block, 5, 0)] = -1.0;
  CU_ASSERT_EQUAL(cryo_landice_check_state(&block, nz, 100.0, 5000.0, vel, tn, t),
                  point(5, 0) * CRYO_LANDICE_CHECK_COUNT + CRYO_LANDICE_CHECK_THK);
  t[CRYO_CELL(&block, 5, 0)] = 1000.0;
  CU_ASSERT_EQUAL(cryo_landice_check_state(&block, nz, 100.0, 5000.0, vel, tn, t),
                  point(3, 1) * CRYO_LANDICE_CHECK_COUNT + CRYO_LANDICE_CHECK_VELOCITY);
  free(vel), free(tn), free(t);
}

/* Run nml to its end or first error; the status and a copy of the message. */
static int run_to_error(const char *nml, char *msg, size_t len) {
  cryo_component *c = NULL;
  int status = cryo_init(&c, nml, MPI_COMM_WORLD);
  while (status == CRYO_OK && !cryo_is_done(c))
    status = cryo_run(c);
  snprintf(msg, len, "%s", cryo_last_error(c));
  cryo_finalize(&c);
  return status;
}

static void test_seaice_runaway(void) {
  const char *run = "&cryo_run model = 'seaice', run_length = 86400, coupling_interval = 3600 /\n"
                    "&cryo_grid nx = 32, ny = 32, dx = 2000., dy = 2000. /\n"
                    "&cryo_seaice dt = 600., n_evp = 20, rho_ice = 10., c_ocean = 0.,\n"
                    "  coriolis = 0.%s /\n";
  char text[512], msg[1024];
  /* With the cyclone's rheology this light ice fails the mEVP condition. */
  snprintf(text, sizeof text, run, "");
  test_write_file(MPI_COMM_WORLD, "runaway.nml", text);
  CU_ASSERT_EQUAL(run_to_error("runaway.nml", msg, sizeof msg), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mEVP stability condition"));
  /* In free drift it starts, and the transport runs away. */
  snprintf(text, sizeof text, run, ", pstar = 0.");
  test_write_file(MPI_COMM_WORLD, "runaway.nml", text);
  CU_ASSERT_EQUAL(run_to_error("runaway.nml", msg, sizeof msg), CRYO_ERR_DATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "sea ice at t = 50400 s (2000-01-01 14:00:00)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "thickness h = 103.675 m at cell (i, j) = (31, 0)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "max_thickness = 100 m"));
}

/* One coupling interval of host-forced sea ice under a uniform wind uwind
 * (m s-1); its status and message. */
static int run_wind(double uwind, char *msg, size_t len) {
  char text[1024];
  test_seaice_namelist(text, sizeof text, 16, 16, 2400, "forcing = 'host'");
  test_write_file(MPI_COMM_WORLD, "wind.nml", text);
  cryo_component *c = NULL;
  int status = cryo_init(&c, "wind.nml", MPI_COMM_WORLD);
  int nx = 0, ny = 0;
  cryo_get_block(c, NULL, NULL, &nx, &ny, NULL, NULL);
  double *w = malloc(sizeof *w * nx * ny);
  for (long q = 0; q < (long)nx * ny; ++q)
    w[q] = uwind;
  if (status == CRYO_OK) status = cryo_set_field(c, "uwind", w, (long)nx * ny);
  if (status == CRYO_OK) status = cryo_run(c);
  snprintf(msg, len, "%s", cryo_last_error(c));
  free(w);
  cryo_finalize(&c);
  return status;
}

static void test_seaice_wind(void) {
  char msg[1024];
  CU_ASSERT_EQUAL(run_wind(1e30, msg, sizeof msg), CRYO_ERR_DATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "sea ice at t = 1200 s (2000-01-01 00:20:00)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "at node (i, j) = (1, 1): speed 3173.09 m s-1 exceeds"));
  /* Enough to overflow the air stress: NaN, first in the stress of cell 0. */
  CU_ASSERT_EQUAL(run_wind(1e200, msg, sizeof msg), CRYO_ERR_DATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "stress s11 at cell (i, j) = (0, 0) is not finite"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nan"));
}

static void test_landice_runaway(void) {
  test_write_file(MPI_COMM_WORLD, "fast.nml",
                  "&cryo_run model = 'landice', run_length = 86400, coupling_interval = 86400 /\n"
                  "&cryo_grid nx = 8, ny = 8, dx = 1000., dy = 1000. /\n"
                  "&cryo_landice case = 'slab', slope = 3., thickness = 1000., n_layers = 4,\n"
                  "  glen_n = 1., rate_factor = 1. /\n");
  char msg[1024];
  CU_ASSERT_EQUAL(run_to_error("fast.nml", msg, sizeof msg), CRYO_ERR_DATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "land ice at t = 86400 s (2000-01-02 00:00:00)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "at node (i, j) = (0, 0), level 1 of 0..4"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "exceeds max_speed = 100000 m a-1"));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"sea-ice check kernel", test_seaice_kernel},
                         {"land-ice check kernel", test_landice_kernel},
                         {"sea ice running away stops", test_seaice_runaway},
                         {"sea ice under an absurd wind stops", test_seaice_wind},
                         {"land ice running away stops", test_landice_runaway},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("state check", tests);
  return cryo_test_run();
}
