/* mpi-run ranks: 1 3 (three ranks are not bound to a core each: the scans take threads) */
/* Unpacking of NetCDF input values (services/cryo_ncvar.h) on arrays long
 * enough to be scanned in bands on several threads (services/cryo_threads.h,
 * 2^22 values a band at least): the first bad value in order is named,
 * whichever band finds it, and the unpacked values are those of the formula
 * value by value. With one CPU the scan is one band and the same holds. */
#include "cryo_ncvar.h"
#include "cryo_test.h"
#include "cryo_threads.h"

#include <math.h>
#include <stdlib.h>

#define N (9L << 20) /* two bands on two CPUs, more on more */

static cryo_ncvar packed(void) {
  cryo_ncvar v = {.scale = 0.5, .offset = 3.0, .nfill = 1};
  v.fill[0] = -999.0;
  v.fill_what[0] = "_FillValue";
  return v;
}

static double *filled(void) {
  double *x = malloc(sizeof *x * (size_t)N);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  for (long q = 0; q < N; ++q)
    x[q] = (double)(q % 1000) - 400.0;
  return x;
}

static void test_clean(void) {
  const cryo_ncvar v = packed();
  double *x = filled();
  const char *what = "unset";
  CU_ASSERT_EQUAL(cryo_ncvar_unpack(&v, x, N, &what), -1);
  CU_ASSERT_PTR_NULL(what);
  long wrong = 0;
  for (long q = 0; q < N; ++q)
    wrong += x[q] != ((double)(q % 1000) - 400.0) * 0.5 + 3.0;
  CU_ASSERT_EQUAL(wrong, 0);
  free(x);
}

static void test_first_bad(void) {
  const cryo_ncvar v = packed();
  const long early = 100, late = 7L << 20, later = 8L << 20;
  double *x = filled();
  const char *what = NULL;
  /* a fill value in the last band alone: found, named */
  x[later] = -999.0;
  CU_ASSERT_EQUAL(cryo_ncvar_unpack(&v, x, N, &what), later);
  CU_ASSERT_PTR_NOT_NULL(what);
  if (what) CU_ASSERT_STRING_EQUAL(what, "_FillValue");
  free(x);
  /* NaN before it, in the same band: the NaN, not finite (no attribute) */
  x = filled();
  x[later] = -999.0;
  x[late] = NAN;
  CU_ASSERT_EQUAL(cryo_ncvar_unpack(&v, x, N, &what), late);
  CU_ASSERT_PTR_NULL(what);
  free(x);
  /* and one in the first band: that one, though later bands found theirs */
  x = filled();
  x[later] = -999.0;
  x[late] = NAN;
  x[early] = INFINITY;
  CU_ASSERT_EQUAL(cryo_ncvar_unpack(&v, x, N, &what), early);
  CU_ASSERT_PTR_NULL(what);
  free(x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"unpacked values of a long array", test_clean},
                         {"first bad value of a long array", test_first_bad},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("ncvar", tests);
  return cryo_test_run();
}
