/* Model clock in integer seconds since the start date, so that restarts and
 * coupling dates are exact. Calendars: proleptic_gregorian and noleap; years
 * 1 to 9999 (the four digits of 'YYYY-MM-DD' and of CF time units). */
#ifndef CRYO_CLOCK_H
#define CRYO_CLOCK_H

#include "cryo_error.h"

typedef enum { CRYO_CAL_GREGORIAN = 0, CRYO_CAL_NOLEAP = 1 } cryo_calendar;

#define CRYO_YEAR_MIN 1
#define CRYO_YEAR_MAX 9999
/* Longest span of dates in any calendar: 0001-01-01 to 10000-01-01 in the
 * Gregorian one (3652059 days), s. Run lengths and intervals beyond it are
 * refused before any date is computed. */
#define CRYO_CLOCK_MAX_SECONDS 315537897600LL

typedef struct cryo_date {
  int year, month, day, hour, minute, second;
} cryo_date;

typedef struct cryo_clock {
  cryo_date start;
  cryo_calendar calendar;
  long long time;       /* seconds since start */
  long long run_length; /* seconds */
  long long interval;   /* coupling interval, seconds */
  long long step;       /* coupling intervals done */
} cryo_clock;

/* Set up the clock of a run from the namelist's start date and calendar
 * names, run length and coupling interval (s), at time 0. CRYO_ERR_FORMAT or
 * CRYO_ERR_RANGE for a bad date or calendar, a day the calendar lacks, or a
 * run that would end after 9999-12-31 24:00:00 (the message gives the longest
 * run_length); `source` (the namelist file) starts every message. */
int cryo_clock_init(cryo_clock *k, const char *start, const char *calendar, long long run_length,
                    long long interval, const char *source, cryo_err *err);
/* The forms cryo_date_scan accepts: the namelist's 'YYYY-MM-DD hh:mm:ss'
 * (the time part optional, a space or 'T' before it), or also those of the
 * reference date of CF time units (a forcing file's "days since ..."):
 * blanks around it, seconds optional or with a fraction, a trailing 'Z' or
 * 'UTC'. */
enum cryo_date_forms { CRYO_DATE_NAMELIST = 0, CRYO_DATE_CF = 1 };

/* Parse text in the given forms as a date of calendar `cal` into *d, the
 * fraction of its second into *frac (may be NULL; 0 in the namelist's
 * forms). CRYO_ERR_FORMAT for bad syntax, CRYO_ERR_RANGE for a year outside
 * CRYO_YEAR_MIN..CRYO_YEAR_MAX or a date or time the calendar lacks; `what`
 * names the source for messages. The only date parser of cryodyn: the clock
 * and the forcing files agree on every date. */
int cryo_date_scan(const char *text, cryo_calendar cal, int forms, cryo_date *d, double *frac,
                   const char *what, cryo_err *err);

/* cryo_date_scan in the namelist's forms. */
int cryo_date_parse(const char *text, cryo_calendar cal, cryo_date *d, const char *what,
                    cryo_err *err);
/* Parse a calendar name ("proleptic_gregorian", "gregorian", "standard",
 * "noleap", "365_day"). */
int cryo_calendar_parse(const char *name, cryo_calendar *cal, cryo_err *err);
/* Seconds from a to b in a calendar. */
long long cryo_date_diff(cryo_date a, cryo_date b, cryo_calendar cal);
/* The date `seconds` after d, in constant time. The result must lie in years
 * 1 to 9999 (cryo_clock_init checks that every date of a run does); outside
 * them it is unspecified, though computed without overflow. */
cryo_date cryo_date_add(cryo_date d, long long seconds, cryo_calendar cal);
/* 'YYYY-MM-DD hh:mm:ss' into buf (at least 20 bytes). */
void cryo_date_format(cryo_date d, char *buf, int len);
const char *cryo_calendar_name(cryo_calendar cal);

#endif
