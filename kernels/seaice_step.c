/* One advective macro step of the sea-ice dynamics (docs/seaice.md):
 * mEVP sub-cycling then transport. Launches per mEVP iteration: one element
 * kernel, one node kernel, one node halo exchange of (u, v).
 *
 * Halo logic: the element kernel also updates the halo ring of cells from the
 * halo nodes, so every rank holds the same stress in the ring as the ring's
 * owner and the node kernel gathers its 4 cells without exchanging stress.
 * h, a and the stress are exchanged once per macro step (they are constant
 * during the sub-cycling, or kept equal by the ring update; the exchange makes
 * a restarted or freshly initialized state consistent too).
 */
#include "cryo_acc.h"
#include "cryo_error.h"
#include "seaice.h"

/* Heun RK2 of the limited dG1 transport; each stage's result needs its halo
 * before the limiter (neighbour means) and again before the next stage
 * (neighbour traces). h and a have their halo filled on entry. */
static int transport_dg1(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                         const cryo_comm_ops *ops) {
  double *work[2] = {s->h_work, s->a_work};
  double *tracers[2] = {s->h, s->a};
  cryo_seaice_advect_dg1_kernel(p, b, s->u, s->v, s->mask, 0.0, s->h, s->a, s->h, s->a, s->h_work,
                                s->a_work);
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 3, 2, work));
  cryo_seaice_limit_dg1_kernel(b, s->mask, s->h_work, s->a_work);
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 3, 2, work));
  cryo_seaice_advect_dg1_kernel(p, b, s->u, s->v, s->mask, 0.5, s->h, s->a, s->h_work, s->a_work,
                                s->h, s->a);
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 3, 2, tracers));
  cryo_seaice_limit_dg1_kernel(b, s->mask, s->h, s->a);
  cryo_seaice_bound_dg1_kernel(b, s->h, s->a);
  return CRYO_OK;
}

int cryo_seaice_transport(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                          const cryo_comm_ops *ops) {
  if (p->tracer_order == 1) return transport_dg1(p, b, s, ops);
  cryo_seaice_advect_kernel(p, b, s->u, s->v, s->mask, s->h, s->a, s->h_work, s->a_work);
  cryo_seaice_advect_finish_kernel(p, b, s->h_work, s->a_work, s->h, s->a);
  return CRYO_OK;
}

int cryo_seaice_step(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                     const cryo_comm_ops *ops) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  double *tracers[2] = {s->h, s->a};
  double *stress[3] = {s->s11, s->s12, s->s22};
  double *vel[2] = {s->u, s->v};
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, na, 2, tracers));
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, CRYO_SEAICE_NS, 3, stress));
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_NODE, 1, 2, vel));
  cryo_seaice_velocity_save_kernel(b, s->u, s->v, s->u_n, s->v_n);
  for (int it = 0; it < p->n_evp; ++it) {
    cryo_seaice_stress_kernel(p, b, s->u, s->v, s->h, s->a, s->mask, s->s11, s->s12, s->s22);
    cryo_seaice_velocity_kernel(p, b, s->s11, s->s12, s->s22, s->h, s->a, s->mask, s->uair, s->vair,
                                s->uocn, s->vocn, s->u_n, s->v_n, s->u, s->v);
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_NODE, 1, 2, vel));
  }
  /* the sub-cycle's kernels are queued asynchronously (cryo_acc.h) */
  CRYO_DEVICE_WAIT;
  return cryo_seaice_transport(p, b, s, ops);
}
