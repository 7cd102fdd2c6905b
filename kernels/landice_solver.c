/* The Newton driver of the first-order Stokes velocity solve
 * (docs/landice.md, Newton-Krylov solver): the state a solve works on, damped Newton steps with the
 * line search of landice_linesearch.c and the conjugate gradients of landice_cg.c, the diagnostics
 * of the converged velocity. */
#include <math.h>
#include <stddef.h>

#include "landice_solver_impl.h"

/* Surface velocity and depth average (trapezoid over the sigma levels, exact
 * for the piecewise-linear profile) at every node, halo included. */
static void landice_diagnostics(const cryo_block *b, const cryo_landice_params *p,
                                cryo_landice_state *s) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const long n = CRYO_NNODE(b);
  const double *vel = s->vel;
  double *us = s->u_surf, *vs = s->v_surf, *ub = s->ubar;
  CRYO_DEVICE_LOOP((vel, us, vs, ub))
  for (long e = 0; e < n; ++e) {
    const double *v = vel + e * nlev;
    double su = 0.0, sv = 0.0;
    for (int k = 0; k < nz; ++k) {
      su += 0.5 * (v[2 * k] + v[2 * k + 2]);
      sv += 0.5 * (v[2 * k + 1] + v[2 * k + 3]);
    }
    us[e] = v[2 * nz];
    vs[e] = v[2 * nz + 1];
    ub[2 * e] = su / nz;
    ub[2 * e + 1] = sv / nz;
  }
}

/* Zero the fixed velocity components that hold no value of their own:
 * every level of ice-free nodes, the bed with no slip, the normal component
 * on free-slip edges (values on lateral Dirichlet edges stay). Node rows
 * [0,nx] x [0,ny]; the caller exchanges the halo. */
static void landice_fix_velocity(const cryo_block *b, const cryo_landice_params *p,
                                 const double *thk, double *vel) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1), nx = b->nx, stride = b->nx + 3;
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y, no_slip = p->no_slip;
  const int lat =
      p->lateral_bc == CRYO_LANDICE_LATERAL_DIRICHLET ? CRYO_LANDICE_LATERAL_FREE : p->lateral_bc;
  const double hmin = p->min_thickness;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((thk, vel))
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    double *v = vel + ((long)(j + 1) * stride + (i + 1)) * nlev;
    int idle = !landice_node_active(thk, i, j, i0, j0, nx, nxg, nyg, px, py, hmin);
    for (int k = 0; k <= nz; ++k) {
      int fixed = idle ? 3 : landice_node_fixed(i0 + i, j0 + j, k, nxg, nyg, px, py, no_slip, lat);
      if (fixed & 1) v[2 * k] = 0.0;
      if (fixed & 2) v[2 * k + 1] = 0.0;
    }
  }
}

/* Node and cell thickness >= 0 and finite (the active set and the
 * geometry rest on them). */
static int landice_check_thickness(const cryo_block *b, const cryo_landice_state *s,
                                   const cryo_comm_ops *ops, cryo_err *err) {
  const double *h = s->thk_node, *hc = s->thk;
  const int nx = b->nx, ny = b->ny, stride = b->nx + 3;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  double m = -INFINITY;
  CRYO_DEVICE_LOOP_REDUCE((h, hc), max, m)
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    /* node rows [0,nx] x [0,ny], owned cells [0,nx) x [0,ny) */
    double hn = h[(long)(j + 1) * stride + i + 1];
    double hcell = (i < nx && j < ny) ? hc[(long)(j + 1) * (nx + 2) + i + 1] : 0.0;
    m = fmax(m, (hn >= 0.0 && hcell >= 0.0 && isfinite(hn) && isfinite(hcell)) ? -1.0 : 1.0);
  }
  CRYO_CALL(ops->max_double(ops->ctx, &m, 1));
  CRYO_CHECK(m < 0.0, err, CRYO_ERR_DATA,
             "land-ice velocity: a node or cell thickness is negative, NaN or Inf");
  return CRYO_OK;
}

/* The margin load (cryo_landice_front_colour) into s->front_load; where it
 * is zero everywhere (no margin: every column has ice, or no column borders
 * an ice-free one) out->front_load becomes NULL, so that the residual and
 * energy skip it: the same bits as without margins. All ranks decide alike. */
static int landice_front_state(const cryo_block *b, const cryo_landice_params *p,
                               cryo_landice_state *s, const cryo_comm_ops *ops,
                               cryo_landice_state *out, cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  if (!s->front_load) return CRYO_OK;
  cryo_landice_zero(CRYO_NNODE(b) * nlev, s->front_load);
  for (int colour = 0; colour < 8; ++colour)
    cryo_landice_front_colour(b, p, colour, s->bed, s->thk_node, s->thk, s->front_load);
  double m[2];
  cryo_landice_maxabs_prod(b, nlev, s->front_load, s->front_load, NULL, m);
  CRYO_CALL(ops->max_double(ops->ctx, m, 1));
  CRYO_CHECK(isfinite(m[0]), err, CRYO_ERR_DATA,
             "land-ice velocity: margin load is NaN or Inf (thickness or bed)");
  if (m[0] == 0.0) out->front_load = NULL;
  return CRYO_OK;
}

/* The state the solve works on: s itself, or where s->body_force is zero
 * everywhere (the component allocates every array, so a run without a force
 * holds zeros) a copy of its pointers without the force, so that the force
 * kernels are not launched: the same bits and cost as without the array.
 * All ranks decide alike (global max). */
static int landice_force_state(const cryo_block *b, const cryo_landice_params *p,
                               cryo_landice_state *s, const cryo_comm_ops *ops,
                               cryo_landice_state *out, cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  *out = *s;
  if (!s->body_force) return CRYO_OK;
  double m[2];
  cryo_landice_maxabs_prod(b, nlev, s->body_force, s->body_force, NULL, m);
  CRYO_CALL(ops->max_double(ops->ctx, m, 1));
  CRYO_CHECK(isfinite(m[0]), err, CRYO_ERR_DATA,
             "land-ice velocity: body_force max f^2 = %g Pa2 m-2, must be finite", m[0]);
  if (m[0] == 0.0) {
    out->body_force = NULL;
    return CRYO_OK;
  }
  return cryo_landice_halo_node(ops, nlev, s->body_force);
}

/* |F| = |R(0)|, the norm of the load (driving stress and body force): at
 * rest the viscous and basal terms vanish, so the residual is the load
 * alone. It scales the absolute floor of the Newton test: a state already
 * converged (a second coupling interval, a restart) starts with |R_0| at
 * rounding level, where |R| <= newton_rtol |R_0| is out of reach, but
 * |R| <= newton_atol |F| still says that the forces balance to newton_atol of
 * their size. Uses s->trial and s->cg_r as scratch. */
static int landice_load_norm(const cryo_block *b, const cryo_landice_params *p,
                             cryo_landice_state *s, const cryo_comm_ops *ops, double *norm,
                             cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  cryo_landice_zero(CRYO_NNODE(b) * nlev, s->trial);
  CRYO_CALL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, err));
  CRYO_CALL(cryo_landice_dot(b, nlev, s->cg_r, s->cg_r, ops, norm, err));
  *norm = sqrt(*norm);
  return CRYO_OK;
}

/* Append rec to the history; when it is full, rec replaces the last record
 * (the first capacity - 1 steps and the newest stay). */
static void landice_log_record(cryo_landice_newton_log *history, int capacity, int *n_log,
                               cryo_landice_newton_log rec) {
  if (!history || !n_log || capacity < 1) return;
  if (*n_log < capacity) ++*n_log;
  history[*n_log - 1] = rec;
}

int cryo_landice_solve_velocity(const cryo_block *b, const cryo_landice_params *p,
                                cryo_landice_state *state, const cryo_comm_ops *ops,
                                cryo_landice_newton_log *history, int history_capacity, int *n_log,
                                cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const long nnode = CRYO_NNODE(b);
  CRYO_CALL(cryo_landice_params_check(p, err));
  /* pointers only: every array written below is the caller's */
  cryo_landice_state work;
  cryo_landice_state *s = &work;
  CRYO_CALL(landice_force_state(b, p, state, ops, s, err));
  /* Colours follow the parity of global column indices; only with an even
   * period do a node and its periodic image (node 0, node nx_global) sum their
   * element contributions in the same order, hence hold the same bits. */
  CRYO_CHECK(!(b->periodic_x && b->nx_global % 2) && !(b->periodic_y && b->ny_global % 2), err,
             CRYO_ERR_RANGE,
             "land-ice velocity: periodic directions need an even number of cells "
             "(nx_global = %d, ny_global = %d) for decomposition-independent results",
             b->nx_global, b->ny_global);
  CRYO_CALL(landice_check_thickness(b, s, ops, err));
  CRYO_CALL(landice_front_state(b, p, state, ops, s, err));
  if (p->marine && state->grounded_fraction)
    cryo_landice_grounded_fraction(b, p, s->bed, s->thk_node, s->thk, state->grounded_fraction);
  if (n_log) *n_log = 0;
  landice_fix_velocity(b, p, s->thk, s->vel);
  CRYO_CALL(cryo_landice_halo_node(ops, nlev, s->vel));
  double rn, r0, energy, load;
  cryo_landice_mg mg;
  CRYO_CALL(landice_load_norm(b, p, s, ops, &load, err));
  const double r_floor = p->newton_atol * load;
  CRYO_CALL(cryo_landice_residual(b, p, s, s->vel, s->res, err));
  CRYO_CALL(cryo_landice_dot(b, nlev, s->res, s->res, ops, &rn, err));
  rn = sqrt(rn);
  r0 = rn;
  CRYO_CALL(cryo_landice_energy(b, p, s, s->vel, ops, &energy, err));
  for (int it = 0;; ++it) {
    cryo_landice_newton_log rec = {it, rn, energy, 0, 0.0, 0.0};
    if (rn <= p->newton_rtol * r0 || rn <= r_floor) {
      landice_log_record(history, history_capacity, n_log, rec);
      landice_diagnostics(b, p, s);
      return CRYO_OK;
    }
    CRYO_CHECK(it < p->newton_max_iter, err, CRYO_ERR_SOLVER,
               "land-ice Newton: no convergence in newton_max_iter = %d steps: |R| = %.6e, "
               "|R_0| = %.6e, ratio %.3e > newton_rtol = %.3e, and |R| > newton_atol |F| = "
               "%.3e x %.6e (|F| = |R(0)|, the load)",
               p->newton_max_iter, rn, r0, rn / r0, p->newton_rtol, p->newton_atol, load);
    CRYO_CALL(cryo_landice_jacobian(b, p, s, s->vel, err));
    CRYO_CALL(cryo_landice_precondition_setup(b, p, s, ops, &mg, err));
    CRYO_CALL(
        cryo_landice_cg(b, p, s, &mg, ops, &rec.linear_iterations, &rec.linear_residual, err));
    CRYO_CALL(cryo_landice_halo_node(ops, nlev, s->du));
    double slope;
    CRYO_CALL(cryo_landice_dot(b, nlev, s->res, s->du, ops, &slope, err));
    double alpha, rt, et;
    CRYO_CALL(cryo_landice_line_search(b, p, s, ops, it, rn, energy, slope, &alpha, &rt, &et, err));
    rec.step_length = alpha;
    landice_log_record(history, history_capacity, n_log, rec);
    cryo_landice_waxpy(nnode, nlev, s->trial, 0.0, s->trial, s->vel);
    cryo_landice_waxpy(nnode, nlev, s->cg_r, 0.0, s->cg_r, s->res);
    rn = rt;
    energy = et;
  }
}
