/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Unit tests of coupling/oasis_c.c that need no coupled run: the checks made
 * before any OASIS call (each one prevents an OASIS abort that exits 0, or a
 * silent misuse) and the helpers. The exchange itself is tested by
 * tests/test_oasis_exchange.sh, the grid writing by tests/coupled_remap.sh.
 * Values are integers and strings, compared exactly; the plane grid's degrees
 * are compared to 1e-12 degrees (a few ulps of values below 20) and its areas
 * exactly (dx * dy). */
#include "cryo_oasis.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Box {2, j0*nx_global + i0, nx_local, ny_local, nx_global}: rows j0.. of a 40-wide grid. */
static void test_box_kparal(void) {
  cryo_err err;
  cryo_err_clear(&err);
  int k[CRYO_OASIS_BOX_PARAMS];
  CU_ASSERT_EQUAL(cryo_oasis_box_kparal(k, 20, 15, 20, 15, 40, &err), CRYO_OK);
  CU_ASSERT_EQUAL(k[0], CRYO_OASIS_BOX);
  CU_ASSERT_EQUAL(k[1], 15 * 40 + 20);
  CU_ASSERT_EQUAL(k[2], 20);
  CU_ASSERT_EQUAL(k[3], 15);
  CU_ASSERT_EQUAL(k[4], 40);
  CU_ASSERT_EQUAL(cryo_oasis_box_kparal(k, 30, 0, 20, 15, 40, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "size 20 x 15 must lie inside a grid 40 points wide"));
}

static void test_kinfo_names(void) {
  CU_ASSERT_STRING_EQUAL(cryo_oasis_kinfo_name(3), "OASIS_Recvd");
  CU_ASSERT_STRING_EQUAL(cryo_oasis_kinfo_name(4), "OASIS_Sent");
  CU_ASSERT_STRING_EQUAL(cryo_oasis_kinfo_name(-1), "OASIS_Var_Uncpl");
  CU_ASSERT_STRING_EQUAL(cryo_oasis_kinfo_name(99), "unknown OASIS return code");
}

/* Names longer than OASIS 2.0 keeps would silently not match $NBMODEL. */
static void test_comp_name_length(void) {
  cryo_err err;
  cryo_err_clear(&err);
  int id;
  CU_ASSERT_EQUAL(cryo_oasis_init_comp(&id, "cryodyn", &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'cryodyn' has 7 characters, must have 1 to 6"));
  CU_ASSERT_EQUAL(cryo_oasis_init_comp(&id, "", &err), CRYO_ERR_RANGE);
}

/* Malformed partitions, unknown partition and variable ids are caught before OASIS. */
static void test_bad_ids_and_partitions(void) {
  cryo_err err;
  cryo_err_clear(&err);
  int id;
  const int box_too_wide[CRYO_OASIS_BOX_PARAMS] = {CRYO_OASIS_BOX, 0, 50, 10, 40};
  CU_ASSERT_EQUAL(cryo_oasis_def_partition(&id, box_too_wide, 5, 1200, &err), CRYO_ERR_ARG);
  const int apple_too_long[3] = {CRYO_OASIS_APPLE, 0, 1300};
  CU_ASSERT_EQUAL(cryo_oasis_def_partition(&id, apple_too_long, 3, 1200, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "within 1200 global points"));
  const int unknown[3] = {7, 0, 10};
  CU_ASSERT_EQUAL(cryo_oasis_def_partition(&id, unknown, 3, 1200, &err), CRYO_ERR_ARG);

  CU_ASSERT_EQUAL(cryo_oasis_def_var(&id, "I_OCurx1", 5, CRYO_OASIS_IN, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'I_OCurx1': partition id 5 was not defined"));
  CU_ASSERT_EQUAL(cryo_oasis_def_var(&id, "I_OCurx1", 5, 3, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kinout = 3"));

  double field[4] = {0};
  int kinfo;
  CU_ASSERT_EQUAL(cryo_oasis_put(17, 0, 2, 2, field, &kinfo, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "OASIS variable id 17 was not defined"));
  CU_ASSERT_EQUAL(cryo_oasis_get(17, 0, 2, 2, field, &kinfo, &err), CRYO_ERR_ARG);
}

/* Plane laid along the equator: lon = 10 + x / R, lat = y / R degrees, R = 6371 km;
 * 3 x 2 cells of 10 x 20 km from (-5, -10) km. Corners anticlockwise from the lower left. */
static void test_plane_grid(void) {
  cryo_err err;
  cryo_err_clear(&err);
  enum { NX = 3, NY = 2, N = NX * NY };
  double lon[N], lat[N], clon[4 * N], clat[4 * N], area[N];
  const double deg = 180.0 / (3.14159265358979323846 * 6371.0e3), tol = 1e-12;
  CU_ASSERT_EQUAL(
      cryo_oasis_plane_grid(NX, NY, -5e3, -1e4, 1e4, 2e4, lon, lat, clon, clat, area, &err),
      CRYO_OK);
  /* cell (i, j) = (2, 1): centre (20, 20) km, corners x 15 / 25 km, y 10 / 30 km */
  int q = 1 * NX + 2;
  CU_ASSERT_DOUBLE_EQUAL(lon[q], 10.0 + 2e4 * deg, tol);
  CU_ASSERT_DOUBLE_EQUAL(lat[q], 2e4 * deg, tol);
  const double cx[4] = {1.5e4, 2.5e4, 2.5e4, 1.5e4}, cy[4] = {1e4, 1e4, 3e4, 3e4};
  for (int k = 0; k < 4; k++) {
    CU_ASSERT_DOUBLE_EQUAL(clon[k * N + q], 10.0 + cx[k] * deg, tol);
    CU_ASSERT_DOUBLE_EQUAL(clat[k * N + q], cy[k] * deg, tol);
  }
  /* cell (0, 0) is centred at the origin: (10, 0) degrees */
  CU_ASSERT_DOUBLE_EQUAL(lon[0], 10.0, tol);
  CU_ASSERT_DOUBLE_EQUAL(lat[0], 0.0, tol);
  for (int p = 0; p < N; p++)
    CU_ASSERT_EQUAL(area[p], 2e8);
  CU_ASSERT_EQUAL(cryo_oasis_plane_grid(0, NY, 0, 0, 1e4, 1e4, lon, lat, clon, clat, area, &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_oasis_plane_grid(NX, NY, 0, 0, -1e4, 1e4, lon, lat, clon, clat, area, &err),
                  CRYO_ERR_RANGE);
  /* 1e7 m north is 90 degrees: beyond the 80 allowed */
  CU_ASSERT_EQUAL(cryo_oasis_plane_grid(NX, NY, 0, 1e7, 1e4, 1e4, lon, lat, clon, clat, area, &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must stay within 80 and 170"));
}

/* Grid descriptions are checked before OASIS sees them (its 2.0 routines abort
 * with exit 0): name, sizes, and the definition phase. */
static void test_write_grid_checks(void) {
  cryo_err err;
  cryo_err_clear(&err);
  double a[4] = {0};
  int m[1] = {0};
  CU_ASSERT_EQUAL(cryo_oasis_write_grid("cr.t", 1, 1, a, a, a, a, m, a, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'cr.t' has 4 characters, must have 1 to 8 and no '.'"));
  CU_ASSERT_EQUAL(cryo_oasis_write_grid("cryodyn_t", 1, 1, a, a, a, a, m, a, &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_oasis_write_grid("cryt", 0, 1, a, a, a, a, m, a, &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_oasis_write_grid("cryt", 1, 1, a, a, NULL, a, m, a, &err), CRYO_ERR_ARG);
  CU_ASSERT_EQUAL(cryo_oasis_write_grid("cryt", 1, 1, a, a, a, a, m, a, &err), CRYO_ERR_STATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no component has joined"));
  CU_ASSERT_EQUAL(cryo_oasis_write_plane_grid("cryt", 2, 2, 0, 0, 1e4, 1e4, &err), CRYO_ERR_STATE);
}

/* Writes `text` to ./namcouple.test (the test runs in a scratch directory). */
static const char *namcouple(const char *text) {
  FILE *f = fopen("namcouple.test", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
  return "namcouple.test";
}

#define GOOD_HEAD   " $NFIELDS\n    1\n $END\n"
#define GOOD_MODELS " $NBMODEL\n    2  cryody  toyocn\n $END\n"
#define GOOD_TAIL                                                                                  \
  " $RUNTIME\n    14400\n $END\n $NLOGPRT\n    0\n $END\n $STRINGS\n"                              \
  "O_OCurx1 I_OCurx1 1 3600 1 r.nc EXPORTED\n40 30 40 30 ocnt cryt LAG=0\nR 0 R 0\n"               \
  "LOCTRANS\nINSTANT\n $END\n"

/* A missing or malformed namcouple makes OASIS abort with exit code 0 and no
 * message the user sees: it is checked first, and the message says what is
 * wrong (docs/design.md, Coupling). */
static void test_namcouple_check(void) {
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_EQUAL(
      cryo_oasis_check_namcouple(namcouple(GOOD_HEAD GOOD_MODELS GOOD_TAIL), "cryody", &err),
      CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple("no_such_namcouple", "cryody", &err), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no_such_namcouple: cannot open"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run directory"));
  CU_ASSERT_EQUAL(
      cryo_oasis_check_namcouple(namcouple("this is not a namcouple\n"), "cryody", &err),
      CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:1: 'this is not a namcouple'"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple(namcouple(GOOD_MODELS GOOD_TAIL), "cryody", &err),
                  CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test: no $NFIELDS section"));
  CU_ASSERT_EQUAL(
      cryo_oasis_check_namcouple(namcouple(" $NFIELDS\n    two\n $END\n" GOOD_MODELS GOOD_TAIL),
                                 "cryody", &err),
      CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:2: $NFIELDS: 'two'"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple(namcouple(" $NFIELDS\n    1\n" GOOD_MODELS GOOD_TAIL),
                                             "cryody", &err),
                  CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:3: $NBMODEL inside $NFIELDS"));
  CU_ASSERT_EQUAL(
      cryo_oasis_check_namcouple(namcouple(GOOD_HEAD GOOD_MODELS GOOD_TAIL), "cryodx", &err),
      CRYO_ERR_COUPLING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'cryodx' is not among the models of $NBMODEL"));
  const char *blank = GOOD_HEAD GOOD_MODELS
      " $RUNTIME\n    14400\n $END\n $STRINGS\nO_OCurx1 I_OCurx1 1 3600 1 r.nc EXPORTED\n\n"
      "40 30 40 30 ocnt cryt LAG=0\nR 0 R 0\nLOCTRANS\nINSTANT\n $END\n";
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple(namcouple(blank), "cryody", &err), CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:12: blank line in $STRINGS"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple(
                      namcouple(GOOD_HEAD GOOD_MODELS " $STRINGS\nA B 1 3600 1 r.nc EXPORTED\n"),
                      "cryody", &err),
                  CRYO_ERR_FORMAT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "$STRINGS (line 7) has no $END"));
}

/* A namcouple's grid lines against the component's grid
 * (cryo_oasis_check_namcouple_grid, docs/global.md, Coupling through OASIS):
 * sizes, and 'P 0' for a periodic grid, 'R 0' for a regional one. */
#define GRID_ENTRY(sizes, per)                                                                     \
  " $STRINGS\n# a comment\nO_OCurx1 I_OCurx1 1 3600 1 r.nc EXPORTED\n" sizes " LAG=0\n" per        \
  "\nLOCTRANS\nINSTANT\n $END\n"
static void test_namcouple_grid(void) {
  cryo_err err;
  cryo_err_clear(&err);
  const char *periodic =
      namcouple(GOOD_HEAD GOOD_MODELS GRID_ENTRY("36 29 36 29 toyt cryt", "P 0 P 0"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(periodic, "cryt", 36, 29, 1, &err), CRYO_OK);
  /* a grid the namcouple does not name is not checked */
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(periodic, "icet", 40, 30, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(periodic, "cryt", 36, 29, 0, &err),
                  CRYO_ERR_COUPLING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:11: periodicity 'P 0' of grid 'cryt' "
                                         "(the target grid) says periodic, but the grid is "
                                         "regional"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(periodic, "cryt", 36, 30, 1, &err),
                  CRYO_ERR_COUPLING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "namcouple.test:10: grid 'cryt' (the target grid) is 36 x "
                                         "29 there, but the component's grid has 36 x 30 cells"));
  const char *regional =
      namcouple(GOOD_HEAD GOOD_MODELS GRID_ENTRY("36 29 36 29 cryt toyt", "R 0 P 0"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(regional, "cryt", 36, 29, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(regional, "cryt", 36, 29, 1, &err),
                  CRYO_ERR_COUPLING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "periodicity 'R 0' of grid 'cryt' (the source grid) says "
                                         "regional, but the grid is periodic in x"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "write 'P 0'"));
  const char *nemo =
      namcouple(GOOD_HEAD GOOD_MODELS GRID_ENTRY("38 29 36 29 toyt cryt", "P 2 P 2"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid(nemo, "toyt", 38, 29, 1, &err),
                  CRYO_ERR_COUPLING);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "says its last 2 column(s) repeat the first, but the "
                                         "component's grid repeats none: write 'P 0'"));
  CU_ASSERT_EQUAL(cryo_oasis_check_namcouple_grid("no_such_namcouple", "cryt", 1, 1, 0, &err),
                  CRYO_ERR_FILE);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("oasis_c", NULL, NULL);
  CU_add_test(s, "box kparal", test_box_kparal);
  CU_add_test(s, "kinfo names", test_kinfo_names);
  CU_add_test(s, "component name length", test_comp_name_length);
  CU_add_test(s, "bad ids and partitions", test_bad_ids_and_partitions);
  CU_add_test(s, "plane grid", test_plane_grid);
  CU_add_test(s, "write grid checks", test_write_grid_checks);
  CU_add_test(s, "namcouple check", test_namcouple_check);
  CU_add_test(s, "namcouple grid check", test_namcouple_grid);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}
