/* The line search of the Newton solver (docs/landice.md, Newton-Krylov
 * solver, step 4): backtracking on the convex functional E(U) or on |R|, and
 * the further halving of a step that did not halve |R|. */
#include <math.h>
#include <stddef.h>

#include "landice_solver_impl.h"

/* E(U) as a reproducible sum of owned column energies. */
int cryo_landice_energy(const cryo_block *b, const cryo_landice_params *p,
                        const cryo_landice_state *s, const double *vel, const cryo_comm_ops *ops,
                        double *energy, cryo_err *err) {
  cryo_landice_fields_prepare(b, p, s);
  cryo_landice_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2, s->afac,
                              s->work_cell);
  if (landice_nonlinear_friction(p))
    cryo_landice_sliding_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                        s->sliding_c, s->coulomb_c, s->work_cell);
  if (s->body_force)
    cryo_landice_force_work_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2, s->body_force,
                                    s->work_cell);
  CRYO_CALL(cryo_landice_cell_sum(b, s->work_cell, ops, energy, err));
  if (s->front_load) {
    /* the margin load's work, -F . u over owned nodes */
    double work;
    CRYO_CALL(cryo_landice_dot(b, 2 * (p->n_layers + 1), s->front_load, vel, ops, &work, err));
    *energy -= work;
  }
  return CRYO_OK;
}

/* A step that did not halve |R|: halve alpha while the energy still falls,
 * a coarse search for the minimum of the convex E along du. Full Newton
 * steps overshoot where the linearization changes fast: on the power law
 * tau = C |u|^(m-1) u with m = 1/3 near u = 0, the Newton step for u^(1/3)
 * takes u to -2u. Such steps lower E a little each time, so the Armijo test
 * accepts them, and |R| then stalls for tens of steps (a stagnant node beside
 * a grounding line on a side wall of MISMIP+: 116 steps, 6 with this). On
 * return s->trial, s->cg_r, *rt and *et belong to *alpha. A step that halves
 * |R| never comes here. */
static int landice_step_shorten(const cryo_block *b, const cryo_landice_params *p,
                                cryo_landice_state *s, const cryo_comm_ops *ops, double *alpha,
                                double *rt, double *et, cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const long nnode = CRYO_NNODE(b);
  int moved = 0;
  for (int h = 0; h < 10; ++h) {
    double e;
    cryo_landice_waxpy(nnode, nlev, s->vel, 0.5 * *alpha, s->du, s->trial);
    CRYO_CALL(cryo_landice_energy(b, p, s, s->trial, ops, &e, err));
    if (!(e < *et)) break;
    *alpha *= 0.5;
    *et = e;
    moved = 1;
  }
  cryo_landice_waxpy(nnode, nlev, s->vel, *alpha, s->du, s->trial);
  if (!moved) return CRYO_OK;
  CRYO_CALL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, err));
  CRYO_CALL(cryo_landice_dot(b, nlev, s->cg_r, s->cg_r, ops, rt, err));
  *rt = sqrt(*rt);
  return CRYO_OK;
}

int cryo_landice_line_search(const cryo_block *b, const cryo_landice_params *p,
                             cryo_landice_state *s, const cryo_comm_ops *ops, int it, double rn,
                             double energy, double slope, double *alpha, double *rt, double *et,
                             cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const long nnode = CRYO_NNODE(b);
  /* Armijo on E, or sufficient decrease of |R| (E differences drown in
   * rounding near the solution, where the full step cuts |R| anyway). */
  int accepted = 0;
  *alpha = 1.0;
  for (int ls = 0; ls < 30 && !accepted; ++ls) {
    cryo_landice_waxpy(nnode, nlev, s->vel, *alpha, s->du, s->trial);
    CRYO_CALL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, err));
    CRYO_CALL(cryo_landice_dot(b, nlev, s->cg_r, s->cg_r, ops, rt, err));
    *rt = sqrt(*rt);
    CRYO_CALL(cryo_landice_energy(b, p, s, s->trial, ops, et, err));
    accepted = *rt <= (1.0 - 1.0e-4 * *alpha) * rn || *et <= energy + 1.0e-4 * *alpha * slope;
    if (!accepted) *alpha *= 0.5;
  }
  CRYO_CHECK(accepted, err, CRYO_ERR_SOLVER,
             "land-ice Newton: line search failed at step %d: |R| = %.6e, E = %.10e, "
             "E'(du) = %.3e",
             it, rn, energy, slope);
  if (*rt > 0.5 * rn) CRYO_CALL(landice_step_shorten(b, p, s, ops, alpha, rt, et, err));
  return CRYO_OK;
}
