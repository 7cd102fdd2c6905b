/* Model clock in integer seconds since the start date, so that restarts and
 * coupling dates are exact. Calendars: proleptic_gregorian and noleap. */
#ifndef CRYO_CLOCK_H
#define CRYO_CLOCK_H

#include "cryo_error.h"

typedef enum { CRYO_CAL_GREGORIAN = 0, CRYO_CAL_NOLEAP = 1 } cryo_calendar;

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

/* Parse 'YYYY-MM-DD hh:mm:ss' (the time part optional); `what` names the
 * source for messages. */
int cryo_date_parse(const char *text, cryo_date *d, const char *what, cryo_err *err);
/* Parse a calendar name ("proleptic_gregorian", "gregorian", "standard",
 * "noleap", "365_day"). */
int cryo_calendar_parse(const char *name, cryo_calendar *cal, cryo_err *err);
/* Seconds from a to b in a calendar. */
long long cryo_date_diff(cryo_date a, cryo_date b, cryo_calendar cal);
/* The date `seconds` after d. */
cryo_date cryo_date_add(cryo_date d, long long seconds, cryo_calendar cal);
/* 'YYYY-MM-DD hh:mm:ss' into buf (at least 20 bytes). */
void cryo_date_format(cryo_date d, char *buf, int len);
const char *cryo_calendar_name(cryo_calendar cal);

#endif
