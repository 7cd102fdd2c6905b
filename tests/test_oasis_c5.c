/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* The OASIS3-MCT 5.x C-API path of coupling/oasis_c.c, built against the
 * stand-in of tests/fake_oasis5 (no 5.x is installed here): a component joins,
 * defines a box partition and two fields, describes its grid, ends the
 * definitions, puts, gets and leaves, every call answered as 5.0 answers a
 * success. In particular oasis_c_start_grids_writing returns 1, its obsolete
 * flag, which must not count as a failure (it stopped every coupled run on a
 * native 5.x at start-up). Exact integer checks. */
#include "cryo_oasis.h"

#include <CUnit/Basic.h>
#include <oasis_c.h>
#include <string.h>

static void test_lifecycle(void) {
  cryo_err err;
  cryo_err_clear(&err);
  int comp, part, in, out, kinfo;
  MPI_Comm local;
  CU_ASSERT_EQUAL_FATAL(cryo_oasis_init_comp(&comp, "cryody", &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_get_localcomm(&local, &err), CRYO_OK);
  int k[CRYO_OASIS_BOX_PARAMS];
  CU_ASSERT_EQUAL(cryo_oasis_box_kparal(k, 0, 0, 4, 3, 4, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_def_partition(&part, k, CRYO_OASIS_BOX_PARAMS, 12, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_def_var(&in, "I_OCurx1", part, CRYO_OASIS_IN, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_def_var(&out, "I_IceFrc", part, CRYO_OASIS_OUT, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_oasis_write_plane_grid("cryt", 4, 3, 0, 0, 1e4, 1e4, &err), CRYO_OK);
  if (err.msg[0]) printf("\n%s\n", err.msg);
  CU_ASSERT_EQUAL(oasis_fake_grids_written, 1);
  CU_ASSERT_EQUAL(cryo_oasis_enddef(&err), CRYO_OK);
  double field[12] = {0};
  CU_ASSERT_EQUAL(cryo_oasis_put(out, 0, 4, 3, field, &kinfo, &err), CRYO_OK);
  CU_ASSERT_EQUAL(kinfo, 4);
  CU_ASSERT_EQUAL(cryo_oasis_get(in, 0, 4, 3, field, &kinfo, &err), CRYO_OK);
  CU_ASSERT_EQUAL(kinfo, 3);
  CU_ASSERT_EQUAL(cryo_oasis_terminate(&err), CRYO_OK);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("oasis_c5", NULL, NULL);
  CU_add_test(s, "5.x C API: join, define, grid, exchange, leave", test_lifecycle);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
