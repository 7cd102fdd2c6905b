/* Assembly of the first-order Stokes residual and exact Jacobian from the
 * element kernels, in the fixed colour order that makes the sums the same
 * bits on every decomposition (docs/landice.md, Newton-Krylov solver). */
#include <stddef.h>

#include "landice_solver_impl.h"

int cryo_landice_residual(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, double *res,
                          cryo_err *err) {
  CRYO_CALL(cryo_landice_params_check(p, err));
  cryo_landice_fields_prepare(b, p, s);
  cryo_landice_zero(CRYO_NNODE(b) * 2 * (p->n_layers + 1), res);
  for (int colour = 0; colour < 8; ++colour)
    cryo_landice_residual_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2, s->afac,
                                 res);
  for (int colour = 0; colour < 4 && landice_nonlinear_friction(p); ++colour)
    cryo_landice_sliding_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                s->sliding_c, s->coulomb_c, res);
  for (int colour = 0; colour < 8 && s->body_force; ++colour)
    cryo_landice_force_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                              s->body_force, res);
  if (s->front_load) cryo_landice_axpby(b, 2 * (p->n_layers + 1), -1.0, s->front_load, 1.0, res);
  cryo_landice_dirichlet(b, p, s->thk, res, NULL);
  return CRYO_OK;
}

int cryo_landice_jacobian(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, cryo_err *err) {
  CRYO_CALL(cryo_landice_params_check(p, err));
  cryo_landice_fields_prepare(b, p, s);
  cryo_landice_zero(CRYO_NNODE(b) * 108L * (p->n_layers + 1), s->matrix);
  for (int colour = 0; colour < 8; ++colour)
    cryo_landice_jacobian_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2, s->afac,
                                 s->matrix);
  for (int colour = 0; colour < 4 && landice_nonlinear_friction(p); ++colour)
    cryo_landice_sliding_jacobian_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                         s->sliding_c, s->coulomb_c, s->matrix);
  cryo_landice_dirichlet(b, p, s->thk, NULL, s->matrix);
  return CRYO_OK;
}
