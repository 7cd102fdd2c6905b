/* kernels/seaice_quad.c with the sub-cycle's stress and alpha stored as
 * float (state_precision = 'single'; kernels/seaice_store.h): its kernels
 * under the names *_single, reading and writing the state's *_f arrays. */
#define CRYO_SEAICE_STORE_SINGLE 1
#include "seaice_quad.c"
