/* LOCAL PLACEHOLDER, not committed */
#include <stdlib.h>
#include "seaice.h"
void cryo_seaice_quad_advect_dg1_kernel(const cryo_seaice_params *p, const cryo_block *b, const cryo_seaice_state *s, double w_base, const double *h_base, const double *a_base, const double *h, const double *a, double *h_out, double *a_out) { abort(); }
void cryo_seaice_quad_limit_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h, double *a) { abort(); }
void cryo_seaice_quad_bound_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h, double *a) { abort(); }
