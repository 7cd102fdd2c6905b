/* Gradient of a surface-velocity misfit with respect to the per-cell log C
 * of the nonlinear sliding laws, by the adjoint of the Newton-converged
 * velocity solve (docs/landice.md, Adjoint gradient; MacAyeal 1993,
 * J. Glaciol. 39; Petra et al. 2012, J. Glaciol. 58; Perego et al. 2014,
 * J. Geophys. Res. Earth Surf. 119):
 *   J(C) = 1/2 sum_n w_n |u_s,n - u_obs,n|^2                  (owned surface nodes)
 *        + gamma/2 sum_faces (log C_i - log C_j)^2 A_f / d_f^2    (A_f = dx dy)
 *   K lambda = -dJ/du  (K the exact Jacobian, symmetric: the adjoint is one more CG solve)
 *   dJ/dlog C_c = C_c (dR/dC_c)^T lambda + d(regularization)/dlog C_c.
 * Kernels: one loop each, a gather per node or per cell (no atomics), so
 * the gradient is the same bits for any decomposition. */
#include <math.h>
#include <stddef.h>

#include "landice_solver_impl.h"

/* Node rows [0,nx] x [0,ny], surface level nz: g = w (u_s - u_obs) (the
 * misfit's gradient, zero below the surface) and d = u_s - u_obs, both
 * zeroed beforehand by the caller. */
static void landice_misfit_nodes(const cryo_block *b, const cryo_landice_params *p,
                                 const double *vel, const double *u_obs, const double *v_obs,
                                 const double *weight, double *g, double *d) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1), nx = b->nx, stride = b->nx + 3;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((vel, u_obs, v_obs, weight, g, d))
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / (nx + 1) + 1) * stride + (e % (nx + 1) + 1);
    long at = node * nlev + 2 * nz;
    double du = vel[at] - u_obs[node], dv = vel[at + 1] - v_obs[node];
    d[at] = du;
    d[at + 1] = dv;
    g[at] = weight[node] * du;
    g[at + 1] = weight[node] * dv;
  }
}

/* Per owned cell c: share[c] = gamma/2 of the squared log C jumps across its
 * east and north faces (each face counted once, by the cell west or south of
 * it; faces to a column outside a non-periodic domain do not exist), each
 * weighted by A_f / d_f^2 (dy / dx across x, dx / dy across y: the discrete
 * 1/2 gamma int |grad log C|^2 dA), and grad[c] += its derivative, gamma sum
 * over the existing neighbours of (log C_c - log C_nb) A_f / d_f^2. The cell
 * halo of sliding_c must be filled. */
static void landice_log_c_regularization(const cryo_block *b, double gamma, const double *sliding_c,
                                         double *share, double *grad) {
  const int nx = b->nx, cs = b->nx + 2, i0 = b->i0, j0 = b->j0;
  const int nxg = b->nx_global, nyg = b->ny_global, px = b->periodic_x, py = b->periodic_y;
  const double fx = b->dy / b->dx, fy = b->dx / b->dy;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((sliding_c, share, grad))
  for (long e = 0; e < n; ++e) {
    const int i = (int)(e % nx), j = (int)(e / nx);
    const long c = (long)(j + 1) * cs + (i + 1);
    const double lc = log(sliding_c[c]);
    double half = 0.0, g = 0.0;
    for (int f = 0; f < 4; ++f) {
      /* f: 0 east, 1 west, 2 north, 3 south */
      const int di = f == 0 ? 1 : f == 1 ? -1 : 0, dj = f == 2 ? 1 : f == 3 ? -1 : 0;
      if (!landice_column_exists(i0 + i + di, j0 + j + dj, nxg, nyg, px, py)) continue;
      const double wf = di ? fx : fy, jump = lc - log(sliding_c[c + dj * cs + di]);
      g += wf * jump;
      if (f == 0 || f == 2) half += wf * jump * jump;
    }
    share[c] = 0.5 * gamma * half;
    grad[c] += gamma * g;
  }
}

/* CRYO_ERR_DATA unless every owned cell's C is positive and finite. */
static int landice_check_sliding_c(const cryo_block *b, const double *sliding_c,
                                   const cryo_comm_ops *ops, cryo_err *err) {
  const int nx = b->nx, cs = b->nx + 2;
  const long n = (long)b->nx * b->ny;
  double m = -INFINITY;
  CRYO_DEVICE_LOOP_REDUCE((sliding_c), max, m)
  for (long e = 0; e < n; ++e) {
    double cv = sliding_c[(e / nx + 1) * cs + e % nx + 1];
    m = fmax(m, (cv > 0.0 && isfinite(cv)) ? -1.0 : 1.0);
  }
  CRYO_CALL(ops->max_double(ops->ctx, &m, 1));
  CRYO_CHECK(m < 0.0, err, CRYO_ERR_DATA,
             "land-ice adjoint gradient: sliding_c is zero, negative, NaN or Inf in a cell; "
             "log C needs C > 0");
  return CRYO_OK;
}

int cryo_landice_misfit_gradient(const cryo_block *b, const cryo_landice_params *p,
                                 cryo_landice_state *s, const cryo_comm_ops *ops,
                                 const cryo_landice_misfit *obs, double cost[2], double *grad,
                                 int *iters, double *rel, cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const long nnode = CRYO_NNODE(b);
  CRYO_CHECK(landice_nonlinear_friction(p), err, CRYO_ERR_RANGE,
             "land-ice adjoint gradient: sliding_law = %d with no_slip = %d; the gradient with "
             "respect to log sliding_c needs a friction bed (no_slip = .false.) and "
             "sliding_law 'weertman', 'schoof' or 'tsai'",
             p->sliding_law, p->no_slip);
  CRYO_CHECK(obs && obs->u_obs && obs->v_obs && obs->weight, err, CRYO_ERR_ARG,
             "land-ice adjoint gradient: u_obs, v_obs and weight are required");
  CRYO_CHECK(isfinite(obs->gamma) && obs->gamma >= 0.0, err, CRYO_ERR_RANGE,
             "land-ice adjoint gradient: gamma = %g, must be finite and >= 0", obs->gamma);
  CRYO_CHECK(isfinite(obs->adjoint_rtol) && obs->adjoint_rtol >= 0.0, err, CRYO_ERR_RANGE,
             "land-ice adjoint gradient: adjoint_rtol = %g, must be finite and >= 0 (0: "
             "linear_rtol)",
             obs->adjoint_rtol);
  cryo_landice_params pa = *p;
  if (obs->adjoint_rtol > 0.0) pa.linear_rtol = obs->adjoint_rtol;
  CRYO_CALL(cryo_landice_jacobian(b, p, s, s->vel, err));
  CRYO_CALL(landice_check_sliding_c(b, s->sliding_c, ops, err));
  /* misfit and its gradient: g in s->res (the CG's right-hand side), d in s->trial */
  cryo_landice_zero(nnode * nlev, s->res);
  cryo_landice_zero(nnode * nlev, s->trial);
  landice_misfit_nodes(b, p, s->vel, obs->u_obs, obs->v_obs, obs->weight, s->res, s->trial);
  double wdd;
  CRYO_CALL(cryo_landice_dot(b, nlev, s->res, s->trial, ops, &wdd, err));
  cost[0] = 0.5 * wdd;
  /* fixed dofs do not depend on C: their rows are identity, their lambda 0 */
  cryo_landice_dirichlet(b, p, s->thk, s->res, NULL);
  cryo_landice_mg mg;
  double r;
  int it;
  CRYO_CALL(cryo_landice_precondition_setup(b, &pa, s, ops, &mg, err));
  /* K du = -g: du = lambda */
  CRYO_CALL(cryo_landice_cg(b, &pa, s, &mg, ops, &it, &r, err));
  if (iters) *iters = it;
  if (rel) *rel = r;
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, &s->sliding_c));
  cryo_landice_zero(CRYO_NCELL(b), grad);
  cryo_landice_zero(CRYO_NCELL(b), s->work_cell);
  landice_log_c_regularization(b, obs->gamma, s->sliding_c, s->work_cell, grad);
  CRYO_CALL(cryo_landice_cell_sum(b, s->work_cell, ops, &cost[1], err));
  cryo_landice_sliding_c_gradient(b, p, s->vel, s->du, s->bed, s->thk_node, s->thk, s->beta2,
                                  s->sliding_c, s->coulomb_c, grad);
  CRYO_DEVICE_WAIT;
  return CRYO_OK;
}
