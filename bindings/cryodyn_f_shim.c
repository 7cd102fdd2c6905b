/* C side of the Fortran binding (bindings/cryodyn_f.F90; docs/design.md, Lifecycle).
 * Everything else in the binding calls cryodyn.h directly through
 * ISO_C_BINDING; these two functions cover what Fortran cannot reach:
 * a Fortran MPI communicator handle (MPI_Fint, converted with MPI_Comm_f2c),
 * and the size of this rank's block, which a host needs to dimension the
 * arrays of cryo_set_field / cryo_get_field. */
#include "cryodyn.h"

int cryo_init_f(cryo_component **c, const char *namelist_path, MPI_Fint comm) {
  return cryo_init(c, namelist_path, MPI_Comm_f2c(comm));
}

/* Owned cells of this rank: global index of the first one (0-based), counts,
 * and the global grid size. Nodes of a block are (nx + 1) x (ny + 1). */
int cryo_get_block_f(const cryo_component *c, int *i0, int *j0, int *nx, int *ny, int *nx_global,
                     int *ny_global) {
  if (!c || !i0 || !j0 || !nx || !ny || !nx_global || !ny_global) return CRYO_ERR_ARG;
  return cryo_get_block(c, i0, j0, nx, ny, nx_global, ny_global);
}
