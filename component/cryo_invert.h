/* The basal inversion of &cryo_run task = 'invert' inside the land-ice
 * component (cryo_invert.c; docs/landice.md, Basal inversion): the observed
 * surface velocities, the run of cryo_landice_invert, its log and its result
 * file. */
#ifndef CRYO_INVERT_H
#define CRYO_INVERT_H

#include "cryo_state.h"
#include "landice.h"

typedef struct cryo_invert cryo_invert;

/* Register the observation arrays and the optimizer's work block as fields,
 * read &cryo_invert obs_file (rank 0, checked, scattered, on the device) and
 * set the discrepancy target. Collective; *out is freed by
 * cryo_invert_destroy. */
int cryo_invert_create(cryo_component *c, cryo_invert **out);

/* Invert for s->sliding_c from its current values (the first guess), which
 * becomes a given field; then write log_file and result_file on rank 0. On
 * return s holds the last accepted iterate and its velocity. Collective. */
int cryo_invert_run(cryo_component *c, cryo_invert *inv, cryo_landice_state *s);

/* One line on the inversion done (empty before it ran). */
void cryo_invert_summary(const cryo_invert *inv, char *buf, int len);

void cryo_invert_destroy(cryo_invert **inv);

#endif
