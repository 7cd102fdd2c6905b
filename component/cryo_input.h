/* Input fields of a component from NetCDF files (cryo_input.c): masks,
 * initial states and geometries that the dynamical cores read at init. */
#ifndef CRYO_INPUT_H
#define CRYO_INPUT_H

#include "cryo_state.h"

/* Rank 0 only: read (y, x) variable `var` of an open NetCDF file into global
 * (nx_global * ny_global values), checking its dimension names and sizes,
 * unpacking CF-packed data, and checking that no value is missing
 * (cryo_ncvar.h) and every value is finite and in [lo, hi]; an absent
 * variable is an error unless `optional` (then *found = 0). `what` names the
 * namelist key of the file in messages. */
int cryo_read_global_cells(cryo_component *c, int ncid, const char *path, const char *what,
                           const char *var, int optional, double lo, double hi, double *global,
                           int *found);
/* The same for a variable of dimensions (layer, y, x) with nlev layers
 * (nlev > 0; 0: (y, x)) into global[layer * nx_global * ny_global + cell],
 * whose units attribute must be `units` exactly unless units is NULL. */
int cryo_read_global_layers(cryo_component *c, int ncid, const char *path, const char *what,
                            const char *var, int nlev, const char *units, int optional, double lo,
                            double hi, double *global, int *found);
/* Collective: read `count` such variables of file `path` into level 0 of the
 * owned cells of the host copies of fields[k] (halos untouched). */
int cryo_read_cell_fields(cryo_component *c, const char *path, const char *what, int count,
                          const char *const *vars, const double *lo, const double *hi,
                          cryo_field *const *fields);

#endif
