/* Clock and calendar arithmetic (issue 2, item 3): exact integer seconds.
 * Expected values are calendar facts (leap years 2000 and 2004, 1900 not
 * leap in the Gregorian calendar; 365-day years in noleap). */
#include "cryo_clock.h"
#include "cryo_test.h"

#include <string.h>

static cryo_date date(const char *s) {
  cryo_date d;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_date_parse(s, &d, "test", &err), CRYO_OK);
  return d;
}

static void test_diff(void) {
  CU_ASSERT_EQUAL(cryo_date_diff(date("2000-01-01"), date("2001-01-01"), CRYO_CAL_GREGORIAN),
                  366LL * 86400);
  CU_ASSERT_EQUAL(cryo_date_diff(date("2000-01-01"), date("2001-01-01"), CRYO_CAL_NOLEAP),
                  365LL * 86400);
  CU_ASSERT_EQUAL(cryo_date_diff(date("1900-02-28"), date("1900-03-01"), CRYO_CAL_GREGORIAN),
                  86400);
  CU_ASSERT_EQUAL(
      cryo_date_diff(date("2004-02-28 12:00:00"), date("2004-03-01 00:00:01"), CRYO_CAL_GREGORIAN),
      36LL * 3600 + 1);
  CU_ASSERT_EQUAL(cryo_date_diff(date("2001-01-01"), date("2000-01-01"), CRYO_CAL_GREGORIAN),
                  -366LL * 86400);
}

static void test_add(void) {
  char buf[32];
  cryo_date_format(cryo_date_add(date("2000-02-28 23:00:00"), 7200, CRYO_CAL_GREGORIAN), buf,
                   sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "2000-02-29 01:00:00");
  cryo_date_format(cryo_date_add(date("2000-02-28 23:00:00"), 7200, CRYO_CAL_NOLEAP), buf,
                   sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "2000-03-01 01:00:00");
  cryo_date_format(cryo_date_add(date("1999-12-31 23:59:59"), 1, CRYO_CAL_GREGORIAN), buf,
                   sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "2000-01-01 00:00:00");
  cryo_date_format(cryo_date_add(date("2000-03-01"), -86400, CRYO_CAL_GREGORIAN), buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "2000-02-29 00:00:00");
  /* add and diff are inverse over 10 years of seconds */
  cryo_date a = date("1995-06-15 06:30:00");
  long long s = 315569520LL + 12345;
  CU_ASSERT_EQUAL(cryo_date_diff(a, cryo_date_add(a, s, CRYO_CAL_GREGORIAN), CRYO_CAL_GREGORIAN),
                  s);
  CU_ASSERT_EQUAL(cryo_date_diff(a, cryo_date_add(a, s, CRYO_CAL_NOLEAP), CRYO_CAL_NOLEAP), s);
}

static void test_bad(void) {
  cryo_date d;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_date_parse("2000-13-01", &d, "x.nml start", &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.nml start"));
  CU_ASSERT_EQUAL(cryo_date_parse("2001-02-29", &d, "s", &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_parse("yesterday", &d, "s", &err), CRYO_ERR_FORMAT);
  CU_ASSERT_EQUAL(cryo_date_parse("2000-01-01 25:00:00", &d, "s", &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_parse("2000-01-01 10:00", &d, "s", &err), CRYO_ERR_FORMAT);
  cryo_calendar cal;
  CU_ASSERT_EQUAL(cryo_calendar_parse("julian", &cal, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "julian"));
  CU_ASSERT_EQUAL(cryo_calendar_parse("365_day", &cal, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cal, CRYO_CAL_NOLEAP);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"date differences", test_diff},
                         {"date addition", test_add},
                         {"bad dates and calendars", test_bad},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("clock", tests);
  return cryo_test_run();
}
