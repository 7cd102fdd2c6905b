/* One advective macro step with the BBM rheology (docs/seaice.md, The BBM
 * rheology; Olason et al. 2022, section 3): healing, n_bbm elastic sub-steps
 * of dt_e = dt / n_bbm, then transport of h, a and the damage with the
 * velocity averaged over the sub-steps, as neXtSIM-DG's brittle dynamics
 * kernel does.
 *
 * Each sub-step: the BBM stress and damage kernel over every cell with ice,
 * halo ring included (so that every rank holds its ring's stress and damage
 * without an exchange, as in the mEVP sub-cycle); the momentum update, which
 * is the mEVP node kernel with beta = 0, time step dt_e and the current
 * velocity as its start velocity:
 *   m v^(k+1) = m v^k + dt_e (div s + tau_a + tau_o(v^(k+1)) - m f k x (v^(k+1) - v_o)),
 * explicit in the stress, implicit in the ocean drag and Coriolis; the node
 * halo exchange; the running mean of the velocity.
 */
#include "cryo_acc.h"
#include "cryo_error.h"
#include "seaice.h"

/* The damage carried by the tracer transport kernels, which move pairs (h, a):
 * the damage takes the place of a in both and the pair's first member is a
 * scratch copy, so that the bounds of a keep it in [0, 1]. t holds the
 * average velocity; h_work and a_work are free once h and a have moved. */
static int transport_damage(const cryo_seaice_params *p, const cryo_block *b,
                            const cryo_seaice_state *t, const cryo_comm_ops *ops) {
  double *d = t->damage, *hw = t->h_work, *aw = t->a_work;
  if (p->tracer_order == 0) {
    cryo_seaice_advect_kernel(p, b, t->u, t->v, t->mask, d, d, hw, aw);
    cryo_seaice_advect_finish_kernel(p, b, hw, aw, hw, d);
    return CRYO_OK;
  }
  double *work[2] = {hw, aw};
  double *pair[2] = {hw, d};
  /* Heun's RK2 as cryo_seaice_transport: stage 1 into (hw, aw), both the same */
  cryo_seaice_advect_dg1_kernel(p, b, t->u, t->v, t->mask, 0.0, d, d, d, d, hw, aw);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, work, cryo_seaice_dg_sign));
  cryo_seaice_limit_dg1_kernel(b, t->mask, hw, aw);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, work, cryo_seaice_dg_sign));
  /* stage 2 reads aw (and the base d of its own cell only) and writes (hw, d) */
  cryo_seaice_advect_dg1_kernel(p, b, t->u, t->v, t->mask, 0.5, d, d, aw, aw, hw, d);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, pair, cryo_seaice_dg_sign));
  cryo_seaice_limit_dg1_kernel(b, t->mask, hw, d);
  cryo_seaice_bound_dg1_kernel(b, hw, d);
  return CRYO_OK;
}

/* The momentum update over the nodes `which` (cryo_seaice_velocity_fn): the
 * mEVP node kernel with beta = 0 over dt_e (p), its start velocity the
 * current one (each node reads its own u before it writes it). */
static void bbm_momentum(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                         cryo_seaice_nodes which) {
  cryo_seaice_velocity_kernel(p, b, which, s->s11, s->s12, s->s22, s->h, s->a, s->ice_mask, s->uair,
                              s->vair, s->uocn, s->vocn, s->u, s->v, s, s->u, s->v);
}

int cryo_seaice_bbm_step(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                         const cryo_comm_ops *ops) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  double *tracers[3] = {s->h, s->a, s->damage};
  double *stress[3] = {s->s11, s->s12, s->s22};
  double *vel[2] = {s->u, s->v};
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, na, 3, tracers, cryo_seaice_dg_sign));
  CRYO_CALL(
      cryo_seaice_halo_signed(ops, CRYO_AT_CELL, CRYO_SEAICE_NS, 3, stress, cryo_seaice_dg_sign));
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_NODE, 1, 2, vel, cryo_seaice_vector_sign));
  cryo_seaice_ice_cells_kernel(p, b, s);
  cryo_seaice_bbm_heal_kernel(p, b, s);
  /* the momentum update (bbm_momentum) over dt_e, without relaxation */
  const double dte = p->dt / p->n_bbm;
  cryo_seaice_params pe = *p;
  pe.dt = dte;
  pe.beta = 0.0;
  pe.adaptive_evp = 0;
  for (int k = 0; k < p->n_bbm; ++k) {
    cryo_seaice_bbm_stress_kernel(p, b, dte, s);
    CRYO_CALL(cryo_seaice_velocity_halo(&pe, b, s, ops, bbm_momentum));
    cryo_seaice_bbm_average_kernel(b, k == 0, 1.0 / p->n_bbm, s);
  }
  CRYO_DEVICE_WAIT;
  cryo_seaice_state t = *s;
  t.u = s->u_avg;
  t.v = s->v_avg;
  CRYO_CALL(cryo_seaice_transport(p, b, &t, ops));
  return transport_damage(p, b, &t, ops);
}
