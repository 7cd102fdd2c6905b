/* Whether a run is coupled through OASIS3-MCT and as which component
 * (cryodyn.h, cryo_coupler_wanted). The answer is the component's own
 * configuration, &cryo_run forcing and &cryo_coupling component, so it is read
 * with the component's namelist schema; the driver asks before cryo_init,
 * because joining the coupled run decides the communicator cryo_init gets.
 * Errors go to the coupler's record (cryo_coupler_last_error). */
#include <stdlib.h>
#include <string.h>

#include "cryo_config.h"
#include "cryo_coupler.h"
#include "cryo_namelist.h"
#include "cryodyn.h"

static int wanted(const char *text, const char *source, int *coupled, char *component, int len,
                  char *forcing, int flen, cryo_err *err) {
  CRYO_CHECK(text && coupled && component && len > 0 && (!forcing || flen > 0), err, CRYO_ERR_ARG,
             "cryo_coupler_wanted: NULL argument or len <= 0");
  *coupled = 0;
  static cryo_config cfg; /* large (paths); static keeps it off the stack */
  int status = cryo_config_read_string(&cfg, text, source, err);
  /* Set even on error, as far as the namelist was read: a driver that knows the
   * run was meant to be coupled must abort it, or the partners wait forever. */
  *coupled = strcmp(cfg.run.forcing, "oasis") == 0;
  CRYO_CALL(status);
  CRYO_CHECK(strlen(cfg.coupling.component) < (size_t)len, err, CRYO_ERR_ARG,
             "cryo_coupler_wanted: %s: &cryo_coupling component = '%s' does not fit in %d bytes",
             source, cfg.coupling.component, len);
  CRYO_CHECK(!forcing || strlen(cfg.run.forcing) < (size_t)flen, err, CRYO_ERR_ARG,
             "cryo_coupler_wanted: %s: &cryo_run forcing = '%s' does not fit in %d bytes", source,
             cfg.run.forcing, flen);
  strcpy(component, cfg.coupling.component);
  if (forcing) strcpy(forcing, cfg.run.forcing);
  return CRYO_OK;
}

int cryo_coupler_wanted_text(const char *namelist_text, const char *source, int *coupled,
                             char *component, int len, char *forcing, int flen) {
  cryo_err *err = cryo_coupler_error();
  cryo_err_clear(err);
  return wanted(namelist_text, source ? source : "(namelist text)", coupled, component, len,
                forcing, flen, err);
}

int cryo_coupler_wanted(const char *namelist_path, int *coupled, char *component, int len) {
  cryo_err *err = cryo_coupler_error();
  cryo_err_clear(err);
  CRYO_CHECK(namelist_path && coupled, err, CRYO_ERR_ARG,
             "cryo_coupler_wanted: NULL argument or len <= 0");
  *coupled = 0;
  char *text;
  CRYO_CALL(cryo_file_read_text(namelist_path, &text, err));
  int status = wanted(text, namelist_path, coupled, component, len, NULL, 0, err);
  free(text);
  return status;
}
