/* Restart files of a component (cryo_restart.c): every prognostic array of
 * the state registry (cryo_state.h) in global layout, the clock and the
 * grid. Called by the lifecycle (cryo_component.c). */
#ifndef CRYO_RESTART_H
#define CRYO_RESTART_H

#include "cryodyn.h"

int cryo_restart_write(cryo_component *c, const char *path);
int cryo_restart_read(cryo_component *c, const char *path);
/* Restart file name for time t (s since start), e.g. 'rst/cyclone.2000-01-02-00000.nc'. */
void cryo_restart_name(const cryo_component *c, long long t, char *buf, int len);

#endif
