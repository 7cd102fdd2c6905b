/* Conjugate gradients on the symmetric positive definite Newton system of
 * the first-order Stokes velocity (docs/landice.md, Newton-Krylov solver),
 * with its matrix-vector product. */
#include <math.h>
#include <stddef.h>

#include "landice_solver_impl.h"

typedef struct {
  const double *matrix, *x;
  double *y;
  long nz, nx, n;
  long ilo, ihi, jlo, jhi; /* nodes [ilo, ihi] x [jlo, jhi] exist */
} landice_matvec_args;

#if defined(_OPENACC)
static landice_matvec_args matvec_dev;
CRYO_DEVICE_ARGS(matvec_dev)
#endif

/* y = J x, queued (cryo_landice_matvec waits for it). */
static void landice_matvec(const cryo_block *b, const cryo_landice_params *p, const double *matrix,
                           const double *x, double *y) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const landice_span sp = landice_span_make(b);
  const landice_matvec_args fresh = {matrix, x,      y,      p->n_layers, b->nx,
                                     n,      sp.ilo, sp.ihi, sp.jlo,      sp.jhi};
  LANDICE_ARGS_SET(matvec_dev, fresh);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < LANDICE_ARGS(matvec_dev, fresh)->n; ++e) {
    const landice_matvec_args *g = LANDICE_ARGS(matvec_dev, fresh);
    const int nz = (int)g->nz, nlev = 2 * (nz + 1), nx = (int)g->nx, stride = nx + 3;
    int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    long node = (long)(j + 1) * stride + (i + 1);
    for (int k = 0; k <= nz; ++k) {
      double out[2];
      landice_row_product(g->matrix + node * 108L * (nz + 1) + 108L * k, g->x, i, j, k, nz, stride,
                          g->ilo, g->ihi, g->jlo, g->jhi, out);
      g->y[node * nlev + 2 * k] = out[0];
      g->y[node * nlev + 2 * k + 1] = out[1];
    }
  }
  LANDICE_ARGS_DONE;
}

void cryo_landice_matvec(const cryo_block *b, const cryo_landice_params *p, const double *matrix,
                         const double *x, double *y) {
  landice_matvec(b, p, matrix, x, y);
  /* the caller reads y */
  CRYO_DEVICE_WAIT;
}

/* du += alpha p, r -= alpha q and, with the column preconditioner,
 * z = M^-1 r: one kernel, one node column each */
typedef struct {
  double alpha;
  const double *matrix, *pc, *p, *q;
  double *du, *r, *z;
  long nz, nx, n;
  long column; /* 1: also z = M^-1 r (the multigrid's z comes after) */
} landice_step_args;

#if defined(_OPENACC)
static landice_step_args step_dev;
CRYO_DEVICE_ARGS(step_dev)
#endif

/* The CG update after alpha, fused over node rows [0,nx] x [0,ny]:
 * du = alpha p + du, r = -alpha q + r (the values landice_axpby computes with
 * c = 1), then with the column preconditioner z = M^-1 r from the column just
 * written. */
static void landice_cg_step(const cryo_block *b, const cryo_landice_params *p, double alpha,
                            cryo_landice_state *s) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const landice_step_args fresh = {alpha,   s->matrix, s->pc,
                                   s->cg_p, s->cg_q,   s->du,
                                   s->cg_r, s->cg_z,   p->n_layers,
                                   b->nx,   n,         p->preconditioner == CRYO_LANDICE_PC_COLUMN};
  LANDICE_ARGS_SET(step_dev, fresh);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < LANDICE_ARGS(step_dev, fresh)->n; ++e) {
    const landice_step_args *g = LANDICE_ARGS(step_dev, fresh);
    const int nz = (int)g->nz, nlev = 2 * (nz + 1), nx = (int)g->nx;
    const double a = g->alpha;
    long node = (long)(e / (nx + 1) + 1) * (nx + 3) + (e % (nx + 1) + 1);
    double *du = g->du + node * nlev, *r = g->r + node * nlev;
    const double *pp = g->p + node * nlev, *q = g->q + node * nlev;
    for (int k = 0; k < nlev; ++k) {
      du[k] = a * pp[k] + du[k];
      r[k] = -a * q[k] + r[k];
    }
    if (g->column)
      landice_column_solve(nz, g->matrix + node * 108L * (nz + 1), g->pc + node * 4L * (nz + 1), r,
                           g->z + node * nlev);
  }
  LANDICE_ARGS_DONE;
}

/* Preconditioned CG for J du = -res; du zero on entry.
 *
 * An iteration (not the last) is, besides the halo exchange of p: 3 launches
 * that map nothing, queued (matvec; landice_cg_step; the p update), and 4
 * synchronous reductions (max and fixed-point passes of p.q, then of r.r and
 * r.z together), with a wait before each dot product and 2 argument copies
 * (alpha, beta); 4 global reductions. The converged iteration skips the p
 * update. */
int cryo_landice_cg(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                    const cryo_landice_mg *mg, const cryo_comm_ops *ops, int *iters, double *rel,
                    cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const int multigrid = p->preconditioner == CRYO_LANDICE_PC_MULTIGRID;
  double pq, d[2]; /* d = (r.r, r.z) */
  cryo_landice_zero(CRYO_NNODE(b) * nlev, s->du);
  cryo_landice_axpby(b, nlev, -1.0, s->res, 0.0, s->cg_r);
  CRYO_CALL(cryo_landice_precondition_apply(b, p, s, mg, ops, s->cg_r, s->cg_z));
  CRYO_CALL(cryo_landice_dots(b, nlev, s->cg_r, s->cg_r, s->cg_z, ops, d, err));
  const double bb = d[0];
  double rz = d[1];
  *iters = 0;
  *rel = 0.0;
  if (bb == 0.0) return CRYO_OK;
  cryo_landice_axpby(b, nlev, 1.0, s->cg_z, 0.0, s->cg_p);
  for (int it = 1; it <= p->linear_max_iter; ++it) {
    CRYO_CALL(cryo_landice_halo_node(ops, nlev, s->cg_p));
    landice_matvec(b, p, s->matrix, s->cg_p, s->cg_q);
    CRYO_CALL(cryo_landice_dot(b, nlev, s->cg_p, s->cg_q, ops, &pq, err));
    /* The exact Jacobian is positive definite whenever every piece of ice is
     * held (friction on a grounded bed, or a fixed edge); a direction of no
     * resistance is a body that can move freely. */
    CRYO_CHECK(pq > 0.0, err, CRYO_ERR_SOLVER,
               "land-ice CG: p.Jp = %g at iteration %d, the Jacobian is not positive definite: "
               "usually some ice is held by nothing (no grounded bed with friction, no fixed or "
               "free-slip edge: an iceberg, a shelf whose grounded part has gone, a floating "
               "domain with free edges), so its velocity is not unique; in marine runs "
               "remove_icebergs = .true. removes such ice before the solve",
               pq, it);
    /* z and r.z are computed before the convergence test, which they do not
     * change: one pass for r.r and r.z instead of two */
    landice_cg_step(b, p, rz / pq, s);
    /* the column preconditioner was applied inside the step */
    if (multigrid) CRYO_CALL(cryo_landice_precondition_apply(b, p, s, mg, ops, s->cg_r, s->cg_z));
    CRYO_CALL(cryo_landice_dots(b, nlev, s->cg_r, s->cg_r, s->cg_z, ops, d, err));
    *iters = it;
    *rel = sqrt(d[0] / bb);
    if (*rel <= p->linear_rtol) break;
    cryo_landice_axpby(b, nlev, 1.0, s->cg_z, d[1] / rz, s->cg_p);
    rz = d[1];
  }
  /* the last direction update when linear_max_iter ends the loop */
  CRYO_DEVICE_WAIT;
  return CRYO_OK;
}
