/* Calendar arithmetic through day numbers: exact, integer-only, constant time.
 * The Gregorian day number and its inverse are the era-based algorithms of
 * H. Hinnant, "chrono-compatible low-level date algorithms" (2013). */
#include "cryo_clock.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
/* Days of a 365-day year before the first of each month. */
static const int days_before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

static int is_leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m, cryo_calendar cal) {
  return month_days[m - 1] + (m == 2 && cal == CRYO_CAL_GREGORIAN && is_leap(y));
}

/* Days since a fixed epoch: any works for differences. */
static long long day_number(int y, int m, int d, cryo_calendar cal) {
  if (cal == CRYO_CAL_NOLEAP) return (long long)y * 365 + days_before[m - 1] + d - 1;
  /* Gregorian: shift the year to start in March so the leap day is last. */
  long long yy = y - (m <= 2);
  long long era = (yy >= 0 ? yy : yy - 399) / 400;
  long long yoe = yy - era * 400;
  long long mp = (m + 9) % 12;
  long long doy = (153 * mp + 2) / 5 + d - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe;
}

/* Inverse of day_number. */
static void civil_date(long long n, cryo_calendar cal, cryo_date *r) {
  if (cal == CRYO_CAL_NOLEAP) {
    long long y = (n >= 0 ? n : n - 364) / 365;
    int doy = (int)(n - y * 365), m = 12;
    while (days_before[m - 1] > doy)
      --m;
    r->year = (int)y;
    r->month = m;
    r->day = doy - days_before[m - 1] + 1;
    return;
  }
  long long era = (n >= 0 ? n : n - 146096) / 146097;
  long long doe = n - era * 146097;
  long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long long mp = (5 * doy + 2) / 153;
  r->day = (int)(doy - (153 * mp + 2) / 5 + 1);
  r->month = (int)(mp < 10 ? mp + 3 : mp - 9);
  r->year = (int)(yoe + era * 400 + (r->month <= 2));
}

static long long date_seconds(cryo_date d, cryo_calendar cal) {
  return day_number(d.year, d.month, d.day, cal) * 86400LL + d.hour * 3600LL + d.minute * 60LL +
         d.second;
}

/* Digits at *s as a number, saturated at 10^12 (beyond every valid field, and
 * far from overflow); 0 when *s is not a digit. */
static int read_number(const char **s, long long *v) {
  if (!isdigit((unsigned char)**s)) return 0;
  long long n = 0;
  for (; isdigit((unsigned char)**s); ++*s)
    if (n < 1000000000000LL) n = n * 10 + (**s - '0');
  *v = n;
  return 1;
}

/* "<number><sep>..." for each separator of seps, then the last number. */
static int read_fields(const char **s, const char *seps, long long *f) {
  for (int k = 0;; ++k) {
    if (!read_number(s, &f[k])) return 0;
    if (!seps[k]) return 1;
    if (**s != seps[k]) return 0;
    ++*s;
  }
}

/* Seconds at *s: whole digits and, with `fraction`, a decimal fraction;
 * *whole saturated as read_number, *frac in [0, 1). */
static int read_seconds(const char **s, int fraction, long long *whole, double *frac) {
  const char *start = *s;
  if (!read_number(s, whole)) return 0;
  *frac = 0.0;
  if (!fraction || **s != '.') return 1;
  char *end;
  double v = strtod(start, &end);
  *s = end;
  *frac = v - (double)*whole;
  return *frac >= 0.0 && *frac < 1.0;
}

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t')
    ++s;
  return s;
}

int cryo_date_scan(const char *text, cryo_calendar cal, int forms, cryo_date *d, double *frac,
                   const char *what, cryo_err *err) {
  const int cf = forms == CRYO_DATE_CF;
  long long f[6] = {0};
  double part = 0.0;
  const char *s = cf ? skip_blanks(text) : text;
  int ok = read_fields(&s, "--", f);
  if (cf) {
    /* a time follows 'T', or a blank and a digit: "hh:mm[:ss[.f]]" */
    if (ok && (*s == 'T' || (*s == ' ' && isdigit((unsigned char)s[1])))) {
      ++s;
      ok = read_fields(&s, ":", f + 3);
      if (ok && *s == ':') {
        ++s;
        ok = read_seconds(&s, 1, &f[5], &part);
      }
    }
    s = skip_blanks(s);
    if (*s == 'Z')
      ++s;
    else if (strncmp(s, "UTC", 3) == 0)
      s += 3;
    ok = ok && *skip_blanks(s) == '\0';
  } else {
    while (ok && (*s == ' ' || *s == 'T'))
      ++s;
    if (ok && *s) ok = read_fields(&s, "::", f + 3) && *s == '\0';
  }
  CRYO_CHECK(ok, err, CRYO_ERR_FORMAT, "%s: '%s' is not a date 'YYYY-MM-DD hh:mm:ss'", what, text);
  CRYO_CHECK(f[0] >= CRYO_YEAR_MIN && f[0] <= CRYO_YEAR_MAX, err, CRYO_ERR_RANGE,
             "%s: '%s': year %lld is out of range; cryodyn supports years %d to %d", what, text,
             f[0], CRYO_YEAR_MIN, CRYO_YEAR_MAX);
  CRYO_CHECK(f[1] >= 1 && f[1] <= 12 && f[2] >= 1 &&
                 f[2] <= days_in_month((int)f[0], (int)f[1], cal) && f[3] < 24 && f[4] < 60 &&
                 f[5] < 60,
             err, CRYO_ERR_RANGE, "%s: '%s' is not a valid date in the %s calendar", what, text,
             cryo_calendar_name(cal));
  *d = (cryo_date){(int)f[0], (int)f[1], (int)f[2], (int)f[3], (int)f[4], (int)f[5]};
  if (frac) *frac = part;
  return CRYO_OK;
}

int cryo_date_parse(const char *text, cryo_calendar cal, cryo_date *d, const char *what,
                    cryo_err *err) {
  return cryo_date_scan(text, cal, CRYO_DATE_NAMELIST, d, NULL, what, err);
}

int cryo_calendar_parse(const char *name, cryo_calendar *cal, cryo_err *err) {
  if (!strcmp(name, "proleptic_gregorian") || !strcmp(name, "gregorian") ||
      !strcmp(name, "standard")) {
    *cal = CRYO_CAL_GREGORIAN;
    return CRYO_OK;
  }
  if (!strcmp(name, "noleap") || !strcmp(name, "365_day")) {
    *cal = CRYO_CAL_NOLEAP;
    return CRYO_OK;
  }
  return CRYO_ERROR(err, CRYO_ERR_RANGE,
                    "calendar '%s' is not supported (proleptic_gregorian, gregorian, standard, "
                    "noleap, 365_day)",
                    name);
}

int cryo_clock_init(cryo_clock *k, const char *start, const char *calendar, long long run_length,
                    long long interval, const char *source, cryo_err *err) {
  cryo_clock c = {.run_length = run_length, .interval = interval};
  char what[CRYO_ERR_MSG_LEN / 2];
  CRYO_CALL(cryo_calendar_parse(calendar, &c.calendar, err));
  snprintf(what, sizeof what, "%s: &cryo_run: start", source);
  CRYO_CALL(cryo_date_parse(start, c.calendar, &c.start, what, err));
  const cryo_date end = {CRYO_YEAR_MAX + 1, 1, 1, 0, 0, 0};
  long long longest = cryo_date_diff(c.start, end, c.calendar);
  CRYO_CHECK(run_length >= 0 && run_length <= longest, err, CRYO_ERR_RANGE,
             "%s: &cryo_run: run_length = %lld s from start '%s' would end after year %d in the "
             "%s calendar: at most %lld s",
             source, run_length, start, CRYO_YEAR_MAX, cryo_calendar_name(c.calendar), longest);
  *k = c;
  return CRYO_OK;
}

long long cryo_date_diff(cryo_date a, cryo_date b, cryo_calendar cal) {
  return date_seconds(b, cal) - date_seconds(a, cal);
}

cryo_date cryo_date_add(cryo_date d, long long seconds, cryo_calendar cal) {
  /* Beyond twice the span of supported dates the result is out of range
   * anyway; clamping keeps the sum below overflow. */
  const long long bound = 2 * CRYO_CLOCK_MAX_SECONDS;
  long long s = date_seconds(d, cal) + (seconds > bound    ? bound
                                        : seconds < -bound ? -bound
                                                           : seconds);
  long long days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  s -= days * 86400;
  cryo_date r;
  civil_date(days, cal, &r);
  r.hour = (int)(s / 3600);
  r.minute = (int)(s % 3600 / 60);
  r.second = (int)(s % 60);
  return r;
}

void cryo_date_format(cryo_date d, char *buf, int len) {
  snprintf(buf, (size_t)len, "%04d-%02d-%02d %02d:%02d:%02d", d.year, d.month, d.day, d.hour,
           d.minute, d.second);
}

const char *cryo_calendar_name(cryo_calendar cal) {
  return cal == CRYO_CAL_NOLEAP ? "noleap" : "proleptic_gregorian";
}
