/* Calendar arithmetic through day numbers: exact, integer-only. */
#include "cryo_clock.h"

#include <stdio.h>
#include <string.h>

static int is_leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m, cryo_calendar cal) {
  static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return dm[m - 1] + (m == 2 && cal == CRYO_CAL_GREGORIAN && is_leap(y));
}

/* Days since 0000-03-01 style epoch: any fixed epoch works for differences. */
static long long day_number(int y, int m, int d, cryo_calendar cal) {
  if (cal == CRYO_CAL_NOLEAP) {
    long long n = (long long)y * 365;
    for (int k = 1; k < m; ++k)
      n += days_in_month(y, k, cal);
    return n + d - 1;
  }
  /* Gregorian: shift the year to start in March so the leap day is last. */
  long long yy = y - (m <= 2);
  long long era = (yy >= 0 ? yy : yy - 399) / 400;
  long long yoe = yy - era * 400;
  long long mp = (m + 9) % 12;
  long long doy = (153 * mp + 2) / 5 + d - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe;
}

static long long date_seconds(cryo_date d, cryo_calendar cal) {
  return day_number(d.year, d.month, d.day, cal) * 86400LL + d.hour * 3600LL + d.minute * 60LL +
         d.second;
}

int cryo_date_parse(const char *text, cryo_date *d, const char *what, cryo_err *err) {
  cryo_date t = {0};
  int n = 0, used = 0;
  n = sscanf(text, "%d-%d-%d%n", &t.year, &t.month, &t.day, &used);
  CRYO_CHECK(n == 3, err, CRYO_ERR_FORMAT, "%s: '%s' is not a date 'YYYY-MM-DD hh:mm:ss'", what,
             text);
  const char *rest = text + used;
  while (*rest == ' ' || *rest == 'T')
    ++rest;
  if (*rest) {
    int used2 = 0;
    n = sscanf(rest, "%d:%d:%d%n", &t.hour, &t.minute, &t.second, &used2);
    CRYO_CHECK(n == 3 && rest[used2] == '\0', err, CRYO_ERR_FORMAT,
               "%s: '%s' is not a date 'YYYY-MM-DD hh:mm:ss'", what, text);
  }
  CRYO_CHECK(t.month >= 1 && t.month <= 12 && t.day >= 1 &&
                 t.day <= days_in_month(t.year, t.month, CRYO_CAL_GREGORIAN) && t.hour >= 0 &&
                 t.hour < 24 && t.minute >= 0 && t.minute < 60 && t.second >= 0 && t.second < 60,
             err, CRYO_ERR_RANGE, "%s: '%s' is not a valid date", what, text);
  *d = t;
  return CRYO_OK;
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

long long cryo_date_diff(cryo_date a, cryo_date b, cryo_calendar cal) {
  return date_seconds(b, cal) - date_seconds(a, cal);
}

cryo_date cryo_date_add(cryo_date d, long long seconds, cryo_calendar cal) {
  long long s = d.hour * 3600LL + d.minute * 60LL + d.second + seconds;
  long long days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  s -= days * 86400;
  cryo_date r = d;
  r.hour = (int)(s / 3600);
  r.minute = (int)(s % 3600 / 60);
  r.second = (int)(s % 60);
  /* Walk whole days; runs are short enough in days for this to be cheap. */
  while (days > 0) {
    int left = days_in_month(r.year, r.month, cal) - r.day;
    if (days <= left) {
      r.day += (int)days;
      days = 0;
    } else {
      days -= left + 1;
      r.day = 1;
      if (++r.month > 12) r.month = 1, ++r.year;
    }
  }
  while (days < 0) {
    if (-days < r.day) {
      r.day += (int)days;
      days = 0;
    } else {
      days += r.day;
      if (--r.month < 1) r.month = 12, --r.year;
      r.day = days_in_month(r.year, r.month, cal);
    }
  }
  return r;
}

void cryo_date_format(cryo_date d, char *buf, int len) {
  snprintf(buf, (size_t)len, "%04d-%02d-%02d %02d:%02d:%02d", d.year, d.month, d.day, d.hour,
           d.minute, d.second);
}

const char *cryo_calendar_name(cryo_calendar cal) {
  return cal == CRYO_CAL_NOLEAP ? "noleap" : "proleptic_gregorian";
}
