/* Joining and leaving an OASIS3-MCT coupled run (coupling/cryo_coupler.h,
 * docs/design.md, Coupling). OASIS is process-global state, and so is the record
 * kept here of the component name and local communicator, which the "oasis"
 * exchange provider (coupling/exchange_oasis.c) checks against its own
 * communicator, and of the last error (these calls come before a component
 * exists to hold one). Whether a run is coupled at all is the component's
 * decision, read from its namelist (component/cryo_coupler_wanted.c). */
#ifdef HAVE_CONFIG_H
#include "config.h" /* CRYO_HAVE_OASIS */
#endif

#include "cryo_coupler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CRYO_HAVE_OASIS
#include "cryo_oasis.h"
#endif

static int joined;
static char joined_name[64]; /* OASIS takes at most 6 characters; more are refused */
static MPI_Comm joined_comm = MPI_COMM_NULL;
static cryo_err last_err;

#ifdef CRYO_HAVE_OASIS
static int join(const char *component, MPI_Comm *local, cryo_err *err) {
  CRYO_CHECK(component && local, err, CRYO_ERR_ARG, "cryo_coupler_init: NULL argument");
  CRYO_CHECK(!joined, err, CRYO_ERR_STATE,
             "cryo_coupler_init('%s'): this process already joined the coupled run as '%s'",
             component, joined_name);
  /* OASIS aborts on a bad namcouple with exit code 0 and no visible message. */
  CRYO_CALL(cryo_oasis_check_namcouple("namcouple", component, err));
  int compid;
  CRYO_CALL(cryo_oasis_init_comp(&compid, component, err));
  CRYO_CALL(cryo_oasis_get_localcomm(local, err));
  joined = 1;
  snprintf(joined_name, sizeof joined_name, "%s", component);
  joined_comm = *local;
  return CRYO_OK;
}

static int leave(cryo_err *err) {
  CRYO_CHECK(joined, err, CRYO_ERR_STATE,
             "cryo_coupler_finalize: this process has not joined a coupled run "
             "(cryo_coupler_init)");
  joined = 0;
  joined_comm = MPI_COMM_NULL;
  return cryo_oasis_terminate(err);
}
#else
static int join(const char *component, MPI_Comm *local, cryo_err *err) {
  (void)local;
  return CRYO_ERROR(err, CRYO_ERR_UNSUPPORTED,
                    "forcing = 'oasis' (component '%s'): this cryodyn was built without "
                    "OASIS3-MCT; reconfigure with --with-oasis[=DIR]",
                    component ? component : "");
}

static int leave(cryo_err *err) {
  return CRYO_ERROR(err, CRYO_ERR_STATE,
                    "cryo_coupler_finalize: this process has not joined a coupled run "
                    "(cryodyn was built without OASIS3-MCT)");
}
#endif

int cryo_coupler_init(const char *component, MPI_Comm *local) {
  cryo_err_clear(&last_err);
  return join(component, local, &last_err);
}

int cryo_coupler_finalize(void) {
  cryo_err_clear(&last_err);
  return leave(&last_err);
}

int cryo_coupler_joined(void) {
  return joined;
}

const char *cryo_coupler_last_error(void) {
  return last_err.msg;
}

cryo_err *cryo_coupler_error(void) {
  return &last_err;
}

int cryo_coupler_get(const char **component, MPI_Comm *local, cryo_err *err) {
  CRYO_CHECK(joined, err, CRYO_ERR_STATE,
             "forcing = 'oasis': the program has not joined the coupled run; the driver must "
             "call cryo_coupler_init(component, &comm) before cryo_init and pass that comm to "
             "cryo_init (coupling/cryo_coupler.h)");
  if (component) *component = joined_name;
  if (local) *local = joined_comm;
  return CRYO_OK;
}

void cryo_coupler_abort(int code) {
  fflush(stdout);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code != 0 ? code : 1);
}
