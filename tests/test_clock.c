/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Clock and calendar arithmetic (namelists/README.md, `&cryo_run`): exact integer seconds.
 * Expected values are calendar facts (leap years 2000 and 2004, 1900 not
 * leap in the Gregorian calendar; 365-day years in noleap). Years 1 to 9999
 * are supported: from 0001-01-01 to 10000-01-01 are 3652059 days in
 * the Gregorian calendar and 9999 x 365 in noleap. */
#include "cryo_clock.h"
#include "cryo_test.h"

#include <string.h>

static cryo_date date(const char *s) {
  cryo_date d;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_date_parse(s, CRYO_CAL_GREGORIAN, &d, "test", &err), CRYO_OK);
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
  const cryo_calendar g = CRYO_CAL_GREGORIAN;
  CU_ASSERT_EQUAL(cryo_date_parse("2000-13-01", g, &d, "x.nml start", &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.nml start"));
  CU_ASSERT_EQUAL(cryo_date_parse("2001-02-29", g, &d, "s", &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_parse("yesterday", g, &d, "s", &err), CRYO_ERR_FORMAT);
  CU_ASSERT_EQUAL(cryo_date_parse("2000-01-01 25:00:00", g, &d, "s", &err), CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_parse("2000-01-01 10:00", g, &d, "s", &err), CRYO_ERR_FORMAT);
  cryo_calendar cal;
  CU_ASSERT_EQUAL(cryo_calendar_parse("julian", &cal, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "julian"));
  CU_ASSERT_EQUAL(cryo_calendar_parse("365_day", &cal, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cal, CRYO_CAL_NOLEAP);
}

/* One parser for the namelist and CF time units (cryo_date_scan): the CF
 * forms take blanks around the date, 'T', minutes without seconds, a
 * fraction of a second and 'Z' or 'UTC'; the namelist's forms refuse them;
 * both refuse a day the calendar lacks. */
static void test_cf_forms(void) {
  cryo_date d;
  cryo_err err = {0};
  double frac = -1.0;
  const cryo_calendar g = CRYO_CAL_GREGORIAN;
  CU_ASSERT_EQUAL(
      cryo_date_scan(" 2000-01-02T03:04:05.25Z ", g, CRYO_DATE_CF, &d, &frac, "u", &err), CRYO_OK);
  CU_ASSERT(d.year == 2000 && d.month == 1 && d.day == 2 && d.hour == 3 && d.minute == 4 &&
            d.second == 5 && frac == 0.25);
  CU_ASSERT_EQUAL(cryo_date_scan("2000-01-02 03:04 UTC", g, CRYO_DATE_CF, &d, &frac, "u", &err),
                  CRYO_OK);
  CU_ASSERT(d.hour == 3 && d.minute == 4 && d.second == 0 && frac == 0.0);
  CU_ASSERT_EQUAL(cryo_date_scan("2000-01-02", g, CRYO_DATE_CF, &d, &frac, "u", &err), CRYO_OK);
  CU_ASSERT_EQUAL(
      cryo_date_scan("2000-01-02 03:04 UTC", g, CRYO_DATE_NAMELIST, &d, NULL, "u", &err),
      CRYO_ERR_FORMAT);
  CU_ASSERT_EQUAL(cryo_date_scan("2001-02-29 00:00", g, CRYO_DATE_CF, &d, &frac, "u", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_scan("2000-01-02 03:04:60", g, CRYO_DATE_CF, &d, &frac, "u", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_scan("2000-01-02 x", g, CRYO_DATE_CF, &d, &frac, "u", &err),
                  CRYO_ERR_FORMAT);
}

/* The calendar decides whether Feb 29 exists, and years outside 1..9999
 * are refused, never wrapped through int overflow (2^32 + 2000 must not
 * read as 2000). */
static void test_calendar_and_year_range(void) {
  cryo_date d;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_date_parse("2000-02-29", CRYO_CAL_GREGORIAN, &d, "s", &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_date_parse("2000-02-29", CRYO_CAL_NOLEAP, &d, "x.nml start", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.nml start: '2000-02-29'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "noleap"));
  const char *bad_years[] = {"4294969296-01-01", "10000-01-01", "0000-12-31",
                             "99999999999999999999-01-01"};
  for (int k = 0; k < 4; ++k) {
    CU_ASSERT_EQUAL(cryo_date_parse(bad_years[k], CRYO_CAL_GREGORIAN, &d, "s", &err),
                    CRYO_ERR_RANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "years 1 to 9999"));
  }
  CU_ASSERT_EQUAL(cryo_date_parse("2000-4294967297-01", CRYO_CAL_GREGORIAN, &d, "s", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_EQUAL(cryo_date_parse("-2000-01-01", CRYO_CAL_GREGORIAN, &d, "s", &err),
                  CRYO_ERR_FORMAT);
  CU_ASSERT_EQUAL(cryo_date_parse("9999-12-31 23:59:59", CRYO_CAL_NOLEAP, &d, "s", &err), CRYO_OK);
}

/* Date arithmetic over the whole range, in constant time per call (the old
 * month-by-month walk took seconds for a 10^15 s run and overflowed the year). */
static void test_whole_range(void) {
  char buf[32];
  const cryo_date first = date("0001-01-01"), last = date("9999-12-31 23:59:59");
  const long long g_span = 3652059LL * 86400 - 1, n_span = 9999LL * 365 * 86400 - 1;
  CU_ASSERT_EQUAL(cryo_date_diff(first, last, CRYO_CAL_GREGORIAN), g_span);
  CU_ASSERT_EQUAL(cryo_date_diff(first, last, CRYO_CAL_NOLEAP), n_span);
  cryo_date_format(cryo_date_add(first, g_span, CRYO_CAL_GREGORIAN), buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "9999-12-31 23:59:59");
  cryo_date_format(cryo_date_add(first, n_span, CRYO_CAL_NOLEAP), buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "9999-12-31 23:59:59");
  cryo_date_format(cryo_date_add(last, -g_span, CRYO_CAL_GREGORIAN), buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "0001-01-01 00:00:00");
  CU_ASSERT_EQUAL(CRYO_CLOCK_MAX_SECONDS, g_span + 1);
  /* a million calls across the range finish at once, and invert diff */
  int inverse = 1;
  for (long long s = 0; s < g_span; s += g_span / 1000003)
    inverse &= cryo_date_diff(first, cryo_date_add(first, s, CRYO_CAL_GREGORIAN),
                              CRYO_CAL_GREGORIAN) == s &&
               cryo_date_diff(first, cryo_date_add(first, s % n_span, CRYO_CAL_NOLEAP),
                              CRYO_CAL_NOLEAP) == s % n_span;
  CU_ASSERT(inverse);
}

/* The clock of a run: its end must stay within the calendar's years. */
static void test_clock_init(void) {
  cryo_clock k;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_clock_init(&k, "2000-01-01", "noleap", 86400, 3600, "x.nml", &err), CRYO_OK);
  CU_ASSERT_EQUAL(k.calendar, CRYO_CAL_NOLEAP);
  CU_ASSERT_EQUAL(k.run_length, 86400);
  CU_ASSERT_EQUAL(k.interval, 3600);
  CU_ASSERT_EQUAL(k.time, 0);
  CU_ASSERT_EQUAL(cryo_clock_init(&k, "2000-02-29", "noleap", 86400, 3600, "x.nml", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.nml: &cryo_run: start"));
  CU_ASSERT_EQUAL(cryo_clock_init(&k, "2000-01-01", "julian", 86400, 3600, "x.nml", &err),
                  CRYO_ERR_RANGE);
  /* 9999-12-31 24:00:00 is the last end: 8000 years of 365 days from 2000 in noleap */
  const long long last = 8000LL * 365 * 86400;
  CU_ASSERT_EQUAL(cryo_clock_init(&k, "2000-01-01", "noleap", last, 3600, "x.nml", &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_clock_init(&k, "2000-01-01", "noleap", last + 3600, 3600, "x.nml", &err),
                  CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run_length = 252288003600 s"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "at most 252288000000 s"));
  CU_ASSERT_EQUAL(
      cryo_clock_init(&k, "2000-01-01", "noleap", 9000000000000000000LL, 3600, "x.nml", &err),
      CRYO_ERR_RANGE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"date differences", test_diff},
                         {"date addition", test_add},
                         {"bad dates and calendars", test_bad},
                         {"CF forms of one date parser", test_cf_forms},
                         {"calendar days and year range", test_calendar_and_year_range},
                         {"whole year range in constant time", test_whole_range},
                         {"run clock", test_clock_init},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("clock", tests);
  return cryo_test_run();
}
