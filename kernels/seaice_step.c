/* One advective macro step of the sea-ice dynamics (docs/seaice.md):
 * mEVP sub-cycling then transport. Launches per mEVP iteration: one element
 * kernel, one node kernel, one node halo exchange of (u, v); or, where the
 * exchange overlaps (docs/multi-gpu.md, Overlap), the node kernel over the
 * ring of nodes the exchange sends, the exchange's begin, the node kernel
 * over the inner nodes while the lines travel, the exchange's end. Which cells hold
 * ice is settled once per macro step (cryo_seaice_ice_cells_kernel): the
 * sub-steps skip open water as they skip land.
 *
 * Halo logic: the element kernel also updates the halo ring of cells from the
 * halo nodes, so every rank holds the same stress in the ring as the ring's
 * owner and the node kernel gathers its 4 cells without exchanging stress.
 * h, a and the stress are exchanged once per macro step (they are constant
 * during the sub-cycling, or kept equal by the ring update; the exchange makes
 * a restarted or freshly initialized state consistent too).
 *
 * With state_precision = 'single' (p->state_single) the sub-cycle works on
 * float copies of the stress, made after the exchange and copied back before
 * the transport: the double arrays hold the stored values exactly between
 * macro steps, for the halo, output and restarts.
 *
 * Across a north fold (docs/seaice.md, The north fold) the grid's i and j
 * reverse: velocity components and the slopes of dG fields change sign,
 * cell means and the stress tensor's components do not.
 */
#include "cryo_acc.h"
#include "cryo_error.h"
#include "seaice.h"

const int cryo_seaice_vector_sign[1] = {-1};
const int cryo_seaice_dg_sign[3] = {1, -1, -1};

int cryo_seaice_halo_signed(const cryo_comm_ops *ops, cryo_location loc, int nlev, int nfield,
                            double *const *fields, const int *sign) {
  if (!ops->halo_signed) return ops->halo(ops->ctx, loc, nlev, nfield, fields);
  return ops->halo_signed(ops->ctx, loc, nlev, nfield, fields, sign);
}

/* Heun RK2 of the limited dG1 transport; each stage's result needs its halo
 * before the limiter (neighbour means) and again before the next stage
 * (neighbour traces). h and a have their halo filled on entry. */
static void dg1_stage(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                      double w_base, const double *h, const double *a, double *h_out,
                      double *a_out) {
  if (p->quad)
    cryo_seaice_quad_advect_dg1_kernel(p, b, s, w_base, s->h, s->a, h, a, h_out, a_out);
  else
    cryo_seaice_advect_dg1_kernel(p, b, s->u, s->v, s->mask, w_base, s->h, s->a, h, a, h_out,
                                  a_out);
}

static void dg1_limit(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                      double *h, double *a) {
  if (p->quad)
    cryo_seaice_quad_limit_dg1_kernel(b, s, h, a);
  else
    cryo_seaice_limit_dg1_kernel(b, s->mask, h, a);
}

static int transport_dg1(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                         const cryo_comm_ops *ops) {
  double *work[2] = {s->h_work, s->a_work};
  double *tracers[2] = {s->h, s->a};
  dg1_stage(p, b, s, 0.0, s->h, s->a, s->h_work, s->a_work);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, work, cryo_seaice_dg_sign));
  dg1_limit(p, b, s, s->h_work, s->a_work);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, work, cryo_seaice_dg_sign));
  dg1_stage(p, b, s, 0.5, s->h_work, s->a_work, s->h, s->a);
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, 3, 2, tracers, cryo_seaice_dg_sign));
  dg1_limit(p, b, s, s->h, s->a);
  if (p->quad)
    cryo_seaice_quad_bound_dg1_kernel(b, s, s->h, s->a);
  else
    cryo_seaice_bound_dg1_kernel(b, s->h, s->a);
  return CRYO_OK;
}

int cryo_seaice_transport(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                          const cryo_comm_ops *ops) {
  if (p->tracer_order == 1) {
    CRYO_CALL(transport_dg1(p, b, s, ops));
  } else {
    if (p->quad)
      cryo_seaice_quad_advect_kernel(p, b, s);
    else
      cryo_seaice_advect_kernel(p, b, s->u, s->v, s->mask, s->h, s->a, s->h_work, s->a_work);
    cryo_seaice_advect_finish_kernel(p, b, s->h_work, s->a_work, s->h, s->a);
  }
  if (b->fold != CRYO_FOLD_T) return CRYO_OK;
  /* a T fold's top row holds half of its cells twice: the copies take their
   * originals' new values, so that output and restarts see one value each */
  double *tracers[2] = {s->h, s->a};
  return cryo_seaice_halo_signed(ops, CRYO_AT_CELL, CRYO_SEAICE_NA(p->tracer_order), 2, tracers,
                                 cryo_seaice_dg_sign);
}

/* One mEVP iteration's stress kernel, for the grid and the storage type of
 * the stress. */
static void mevp_stress(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s) {
  if (p->quad && p->state_single)
    cryo_seaice_quad_stress_kernel_single(p, b, s);
  else if (p->quad)
    cryo_seaice_quad_stress_kernel(p, b, s);
  else if (p->state_single)
    cryo_seaice_stress_kernel_single(p, b, s->u, s->v, s->h, s->a, s->ice_mask, s->s11_f, s->s12_f,
                                     s->s22_f, s->alpha_evp_f);
  else
    cryo_seaice_stress_kernel(p, b, s->u, s->v, s->h, s->a, s->ice_mask, s->s11, s->s12, s->s22,
                              s->alpha_evp);
}

/* Its velocity kernel over the nodes `which` (cryo_seaice_velocity_fn). */
static void mevp_velocity(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                          cryo_seaice_nodes which) {
  if (p->quad && p->state_single)
    cryo_seaice_quad_velocity_kernel_single(p, b, which, s);
  else if (p->quad)
    cryo_seaice_quad_velocity_kernel(p, b, which, s);
  else if (p->state_single)
    cryo_seaice_velocity_kernel_single(p, b, which, s->s11_f, s->s12_f, s->s22_f, s->h, s->a,
                                       s->ice_mask, s->uair, s->vair, s->uocn, s->vocn, s->u_n,
                                       s->v_n, s, s->u, s->v);
  else
    cryo_seaice_velocity_kernel(p, b, which, s->s11, s->s12, s->s22, s->h, s->a, s->ice_mask,
                                s->uair, s->vair, s->uocn, s->vocn, s->u_n, s->v_n, s, s->u, s->v);
}

int cryo_seaice_velocity_halo(const cryo_seaice_params *p, const cryo_block *b,
                              cryo_seaice_state *s, const cryo_comm_ops *ops,
                              cryo_seaice_velocity_fn *velocity) {
  double *vel[2] = {s->u, s->v};
  if (!ops->halo_begin || !cryo_seaice_nodes_split(b)) {
    velocity(p, b, s, CRYO_SEAICE_NODES_ALL);
    return cryo_seaice_halo_signed(ops, CRYO_AT_NODE, 1, 2, vel, cryo_seaice_vector_sign);
  }
  /* the inner nodes read no halo node and write no sent line */
  velocity(p, b, s, CRYO_SEAICE_NODES_RING);
  CRYO_CALL(ops->halo_begin(ops->ctx, CRYO_AT_NODE, 1, 2, vel, cryo_seaice_vector_sign));
  velocity(p, b, s, CRYO_SEAICE_NODES_INNER);
  return ops->halo_end(ops->ctx);
}

int cryo_seaice_step(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                     const cryo_comm_ops *ops) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  double *tracers[2] = {s->h, s->a};
  double *stress[3] = {s->s11, s->s12, s->s22};
  double *vel[2] = {s->u, s->v};
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_CELL, na, 2, tracers, cryo_seaice_dg_sign));
  CRYO_CALL(
      cryo_seaice_halo_signed(ops, CRYO_AT_CELL, CRYO_SEAICE_NS, 3, stress, cryo_seaice_dg_sign));
  CRYO_CALL(cryo_seaice_halo_signed(ops, CRYO_AT_NODE, 1, 2, vel, cryo_seaice_vector_sign));
  cryo_seaice_ice_cells_kernel(p, b, s);
  if (p->state_single) cryo_seaice_stress_to_single(b, s);
  cryo_seaice_velocity_save_kernel(b, s->u, s->v, s->u_n, s->v_n);
  for (int it = 0; it < p->n_evp; ++it) {
    mevp_stress(p, b, s);
    CRYO_CALL(cryo_seaice_velocity_halo(p, b, s, ops, mevp_velocity));
  }
  /* the sub-cycle's kernels are queued asynchronously (cryo_acc.h) */
  CRYO_DEVICE_WAIT;
  if (p->state_single) cryo_seaice_stress_from_single(b, s);
  return cryo_seaice_transport(p, b, s, ops);
}
