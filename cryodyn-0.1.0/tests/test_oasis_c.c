/* Unit tests of coupling/oasis_c.c that need no coupled run: the checks made
 * before any OASIS call (each one prevents an OASIS abort that exits 0, or a
 * silent misuse) and the helpers. The exchange itself is tested by
 * tests/test_oasis_exchange.sh. Values are integers and strings: compared exactly. */
#include "cryo_oasis.h"

#include <CUnit/Basic.h>
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

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("oasis_c", NULL, NULL);
  CU_add_test(s, "box kparal", test_box_kparal);
  CU_add_test(s, "kinfo names", test_kinfo_names);
  CU_add_test(s, "component name length", test_comp_name_length);
  CU_add_test(s, "bad ids and partitions", test_bad_ids_and_partitions);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}
