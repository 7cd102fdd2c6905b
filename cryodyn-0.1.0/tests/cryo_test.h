/* Shared by the CUnit test programs: MPI start-up, running the registered
 * suites, and an exit status that is non-zero when any assertion failed on
 * any rank. */
#ifndef CRYO_TEST_H
#define CRYO_TEST_H

#include <CUnit/Basic.h>
#include <mpi.h>
#include <stdio.h>

/* Run every registered suite and finish MPI; returns the process status. */
static inline int cryo_test_run(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CU_basic_set_mode(rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
  CU_basic_run_tests();
  int failed = (int)CU_get_number_of_failures() + (CU_get_error() != CUE_SUCCESS), any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (failed && rank != 0) fprintf(stderr, "rank %d: %d assertion(s) failed\n", rank, failed);
  CU_cleanup_registry();
  MPI_Finalize();
  return any ? 1 : 0;
}

/* Register one suite with its tests, given as {name, function} pairs ending
 * in CU_TEST_INFO_NULL. */
static inline int cryo_test_suite(const char *name, CU_TestInfo *tests) {
  CU_SuiteInfo suites[] = {{name, NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
  return CU_register_suites(suites) == CUE_SUCCESS ? 0 : 1;
}

#endif
