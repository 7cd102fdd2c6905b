/* libFuzzer target: the namelist reader (services/cryo_namelist.c) through
 * the whole run configuration (component/cryo_config.c), from a buffer.
 *
 * Any input must give CRYO_OK or one of the namelist's error classes with a
 * message that names the source; anything else (a crash, a sanitizer
 * report, another class, an empty message) is a finding. Built by
 * `make fuzz` (docs/testing.md). */
#include "cryo_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The classes cryo_namelist_read_string (cryo_namelist.h) and the checks of
 * cryo_config.c and cryo_date_parse (a malformed start date is
 * CRYO_ERR_FORMAT) return for bad text. */
static int fuzz_expected(int status) {
  switch (status) {
  case CRYO_ERR_SYNTAX:
  case CRYO_ERR_UNKNOWN:
  case CRYO_ERR_TYPE:
  case CRYO_ERR_DUPLICATE:
  case CRYO_ERR_RANGE:
  case CRYO_ERR_MISSING:
  case CRYO_ERR_FORMAT:
    return 1;
  default:
    return 0;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The reader takes NUL-terminated text, as read from a file. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  cryo_config *cfg = malloc(sizeof *cfg);
  cryo_err err;
  cryo_err_clear(&err);
  int status = cfg ? cryo_config_read_string(cfg, text, "fuzz.nml", &err) : CRYO_OK;
  if (status != CRYO_OK &&
      (!fuzz_expected(status) || err.status != status || strncmp(err.msg, "fuzz.nml", 8) != 0)) {
    fprintf(stderr, "fuzz_namelist: unexpected %s: '%s'\n", cryo_status_name(status), err.msg);
    abort();
  }
  free(cfg);
  free(text);
  return 0;
}
