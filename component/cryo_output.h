/* The output file of a component (cryo_output.c): CF NetCDF, gathered to
 * rank 0, one record per output time. Called by the lifecycle
 * (cryo_component.c); reads the state through cryo_state.h. */
#ifndef CRYO_OUTPUT_H
#define CRYO_OUTPUT_H

#include "cryodyn.h"

typedef struct cryo_output cryo_output;

/* Collective: create output_file, or in a run continued from a restart
 * reopen it to append; *due: the record at the current time is to be
 * written (cryo_output_write). */
int cryo_output_open(cryo_component *c, int *due);
int cryo_output_write(cryo_component *c);
void cryo_output_close(cryo_component *c);
/* Rank 0, before any file is read or written: the directories of
 * output_file and restart_out exist, and neither the output nor any restart
 * this run may write is one of its input files (the namelist, restart_in,
 * mask, init, geometry and forcing files). */
int cryo_output_check_paths(cryo_component *c);

#endif
