/* Basal inversion: the per-cell log C that minimizes the surface-velocity
 * misfit plus the Tikhonov term of cryo_landice_misfit_gradient, by limited-
 * memory BFGS (Nocedal 1980, Math. Comp. 35, 773-782; Nocedal and Wright
 * 2006, Numerical Optimization, algorithms 7.4 and 7.5) with an Armijo
 * backtracking line search (docs/landice.md, Basal inversion).
 *
 * The optimizer's logic runs on the host: a handful of scalars per
 * iteration (dot products, step lengths, the (s, y) ring's order). Its
 * vectors are cell fields on the device, like the solver's, updated by the
 * loops below; every dot product and norm is the reproducible cell sum
 * (cryo_reprosum.h), so the iterates are the same bits for any
 * decomposition. */
#include <math.h>
#include <stddef.h>

#include "landice_solver_impl.h"

/* The work block's cell planes (cryo_landice_invert_doubles). */
enum { PLANE_THETA, PLANE_THETA_TRIAL, PLANE_GRAD, PLANE_DIR, PLANE_GRAD_TRIAL, PLANE_PAIRS };

/* Owned cell e of [0, nx ny) as an index of a cell array. */
#define OWNED_CELL(e, nx) (((e) / (nx) + 1) * ((nx) + 2) + (e) % (nx) + 1)

long cryo_landice_invert_doubles(const cryo_block *b, const cryo_landice_params *p, int memory) {
  return (PLANE_PAIRS + 2L * memory) * CRYO_NCELL(b) + CRYO_NNODE(b) * 2L * (p->n_layers + 1);
}

/* theta = log C over owned cells. */
static void cells_log(const cryo_block *b, const double *c, double *theta) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((c, theta))
  for (long e = 0; e < n; ++e)
    theta[OWNED_CELL(e, nx)] = log(c[OWNED_CELL(e, nx)]);
}

/* C = exp(theta) over owned cells. */
static void cells_exp(const cryo_block *b, const double *theta, double *c) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((theta, c))
  for (long e = 0; e < n; ++e)
    c[OWNED_CELL(e, nx)] = exp(theta[OWNED_CELL(e, nx)]);
}

/* y = a x + c y over owned cells; y = a x when c = 0 (y's old values, which
 * may be anything, are not read). */
static void cells_axpby(const cryo_block *b, double a, const double *x, double c, double *y) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((x, y))
  for (long e = 0; e < n; ++e) {
    const long q = OWNED_CELL(e, nx);
    y[q] = c == 0.0 ? a * x[q] : a * x[q] + c * y[q];
  }
}

/* w = x y over owned cells. */
static void cells_product(const cryo_block *b, const double *x, const double *y, double *w) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((x, y, w))
  for (long e = 0; e < n; ++e) {
    const long q = OWNED_CELL(e, nx);
    w[q] = x[q] * y[q];
  }
}

/* max |x| over owned cells of this block. */
static double cells_maxabs(const cryo_block *b, const double *x) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  double m = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((x), max, m)
  for (long e = 0; e < n; ++e)
    m = fmax(m, fabs(x[OWNED_CELL(e, nx)]));
  return m;
}

/* x.y over owned cells, the reproducible sum of the products (scratch w). */
static int cells_dot(const cryo_block *b, const double *x, const double *y, double *w,
                     const cryo_comm_ops *ops, double *out, cryo_err *err) {
  cells_product(b, x, y, w);
  return cryo_landice_cell_sum(b, w, ops, out, err);
}

/* The evaluation context: what every trial shares. */
typedef struct invert_ctx {
  const cryo_block *b;
  const cryo_landice_params *p;
  cryo_landice_state *s;
  const cryo_comm_ops *ops;
  const cryo_landice_misfit *obs;
  double *vel_accepted; /* the accepted iterate's velocity */
  long nvel;            /* its doubles */
  int evaluations, adjoint_iterations;
} invert_ctx;

/* C = exp(theta) (halo exchanged) and its velocity, solved from the
 * accepted iterate's. */
static int invert_solve(invert_ctx *x, const double *theta, cryo_err *err) {
  cells_exp(x->b, theta, x->s->sliding_c);
  CRYO_CALL(x->ops->halo(x->ops->ctx, CRYO_AT_CELL, 1, 1, &x->s->sliding_c));
  cryo_landice_waxpy(x->nvel, 1, x->vel_accepted, 0.0, x->vel_accepted, x->s->vel);
  return cryo_landice_solve_velocity(x->b, x->p, x->s, x->ops, NULL, 0, NULL, err);
}

/* Cost and gradient at theta. *ok = 0 (and no error) when the velocity
 * solve does not converge there, so that the line search shortens the step;
 * any other failure is an error. */
static int invert_evaluate(invert_ctx *x, const double *theta, double cost[2], double *grad,
                           int *ok, cryo_err *err) {
  int status = invert_solve(x, theta, err);
  *ok = status == CRYO_OK;
  cost[0] = cost[1] = NAN;
  if (status == CRYO_ERR_SOLVER) {
    cryo_err_clear(err);
    return CRYO_OK;
  }
  CRYO_CALL(status);
  ++x->evaluations;
  CRYO_CALL(cryo_landice_misfit_gradient(x->b, x->p, x->s, x->ops, x->obs, cost, grad,
                                         &x->adjoint_iterations, NULL, err));
  *ok = isfinite(cost[0] + cost[1]);
  return CRYO_OK;
}

static int invert_check_opts(const cryo_landice_invert_opts *o, cryo_err *err) {
  CRYO_CHECK(o->max_iter >= 1, err, CRYO_ERR_RANGE,
             "land-ice inversion: max_iter = %d, must be >= 1", o->max_iter);
  CRYO_CHECK(o->memory >= 1 && o->memory <= CRYO_LANDICE_LBFGS_MAX, err, CRYO_ERR_RANGE,
             "land-ice inversion: memory = %d, must be in [1, %d]", o->memory,
             CRYO_LANDICE_LBFGS_MAX);
  CRYO_CHECK(o->max_backtrack >= 1, err, CRYO_ERR_RANGE,
             "land-ice inversion: max_backtrack = %d, must be >= 1", o->max_backtrack);
  CRYO_CHECK(o->gtol >= 0.0 && o->ftol >= 0.0 && o->misfit_target >= 0.0, err, CRYO_ERR_RANGE,
             "land-ice inversion: gtol = %g, ftol = %g, misfit_target = %g must be >= 0", o->gtol,
             o->ftol, o->misfit_target);
  CRYO_CHECK(o->step_max > 0.0 && isfinite(o->step_max), err, CRYO_ERR_RANGE,
             "land-ice inversion: step_max = %g, must be finite and > 0", o->step_max);
  CRYO_CHECK(o->armijo > 0.0 && o->armijo < 1.0, err, CRYO_ERR_RANGE,
             "land-ice inversion: armijo = %g, must be in (0, 1)", o->armijo);
  return CRYO_OK;
}

/* The L-BFGS memory: pair i of npairs (0 the oldest) in plane slot[(first + i) % m]. */
typedef struct lbfgs_pairs {
  int m, npairs, first;
  double rho[CRYO_LANDICE_LBFGS_MAX]; /* 1 / s.y */
  double yy;                          /* y.y of the newest pair */
} lbfgs_pairs;

/* d = -H g by the two-loop recursion (Nocedal and Wright 2006, algorithm
 * 7.4), H_0 = (s.y / y.y) I of the newest pair. */
static int lbfgs_direction(const cryo_block *b, const cryo_comm_ops *ops, const lbfgs_pairs *l,
                           double *const *sp, double *const *yp, const double *g, double *d,
                           double *w, cryo_err *err) {
  double alpha[CRYO_LANDICE_LBFGS_MAX];
  cells_axpby(b, 1.0, g, 0.0, d);
  for (int i = l->npairs - 1; i >= 0; --i) {
    const int k = (l->first + i) % l->m;
    double sq;
    CRYO_CALL(cells_dot(b, sp[k], d, w, ops, &sq, err));
    alpha[i] = l->rho[k] * sq;
    cells_axpby(b, -alpha[i], yp[k], 1.0, d);
  }
  const int newest = (l->first + l->npairs - 1) % l->m;
  cells_axpby(b, 0.0, g, 1.0 / (l->rho[newest] * l->yy), d);
  for (int i = 0; i < l->npairs; ++i) {
    const int k = (l->first + i) % l->m;
    double yq;
    CRYO_CALL(cells_dot(b, yp[k], d, w, ops, &yq, err));
    cells_axpby(b, alpha[i] - l->rho[k] * yq, sp[k], 1.0, d);
  }
  cells_axpby(b, -1.0, d, 0.0, d);
  return CRYO_OK;
}

static void log_record(cryo_landice_invert_log *history, int capacity, int *held,
                       const cryo_landice_invert_log *r) {
  if (!history || capacity <= 0) return;
  history[*held < capacity ? *held : capacity - 1] = *r;
  if (*held < capacity) ++*held;
}

int cryo_landice_invert(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                        const cryo_comm_ops *ops, const cryo_landice_misfit *obs,
                        const cryo_landice_invert_opts *opts, double *work,
                        cryo_landice_invert_log *history, int capacity, int *n_log, int *stop,
                        cryo_err *err) {
  CRYO_CALL(invert_check_opts(opts, err));
  const long nc = CRYO_NCELL(b);
  double *theta = work + PLANE_THETA * nc, *tt = work + PLANE_THETA_TRIAL * nc;
  double *g = work + PLANE_GRAD * nc;
  double *d = work + PLANE_DIR * nc, *gt = work + PLANE_GRAD_TRIAL * nc, *w = s->work_cell;
  double *sp[CRYO_LANDICE_LBFGS_MAX], *yp[CRYO_LANDICE_LBFGS_MAX];
  for (int k = 0; k < opts->memory; ++k) {
    sp[k] = work + (PLANE_PAIRS + k) * nc;
    yp[k] = work + (PLANE_PAIRS + opts->memory + k) * nc;
  }
  invert_ctx x = {b,
                  p,
                  s,
                  ops,
                  obs,
                  work + (PLANE_PAIRS + 2L * opts->memory) * nc,
                  CRYO_NNODE(b) * 2L * (p->n_layers + 1),
                  0,
                  0};
  int held = 0, why = CRYO_LANDICE_STOP_MAX_ITER, ok;
  if (n_log) *n_log = 0;
  s->given |= CRYO_LANDICE_GIVEN_SLIDING_C;
  cells_log(b, s->sliding_c, theta);
  /* the first guess: its solve must converge */
  cells_exp(b, theta, s->sliding_c);
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, &s->sliding_c));
  CRYO_CALL(cryo_landice_solve_velocity(b, p, s, ops, NULL, 0, NULL, err));
  cryo_landice_waxpy(x.nvel, 1, s->vel, 0.0, s->vel, x.vel_accepted);
  double cost[2], cost_t[2], gg;
  CRYO_CALL(invert_evaluate(&x, theta, cost, g, &ok, err));
  CRYO_CHECK(ok, err, CRYO_ERR_DATA,
             "land-ice inversion: the cost at the first guess is not finite (misfit %g, "
             "regularization %g)",
             cost[0], cost[1]);
  CRYO_CALL(cells_dot(b, g, g, w, ops, &gg, err));
  const double gnorm0 = sqrt(gg);
  cryo_landice_invert_log rec = {
      0, cost[0] + cost[1], cost[0], cost[1], gnorm0, 0.0, x.evaluations, x.adjoint_iterations};
  log_record(history, capacity, &held, &rec);
  lbfgs_pairs l = {opts->memory, 0, 0, {0}, 0.0};
  for (int k = 1;; ++k) {
    const double j = cost[0] + cost[1];
    if (opts->misfit_target > 0.0 && cost[0] <= opts->misfit_target) {
      why = CRYO_LANDICE_STOP_DISCREPANCY;
      break;
    }
    if (sqrt(gg) <= opts->gtol * gnorm0) {
      why = CRYO_LANDICE_STOP_GTOL;
      break;
    }
    if (k > opts->max_iter) break;
    double slope = 0.0;
    if (l.npairs > 0) {
      CRYO_CALL(lbfgs_direction(b, ops, &l, sp, yp, g, d, w, err));
      CRYO_CALL(cells_dot(b, g, d, w, ops, &slope, err));
    }
    if (!(slope < 0.0)) {
      /* no memory yet, or H lost positive definiteness: steepest descent,
       * its largest cell change step_max, and the memory restarts */
      double gmax = cells_maxabs(b, g);
      CRYO_CALL(ops->max_double(ops->ctx, &gmax, 1));
      cells_axpby(b, -opts->step_max / gmax, g, 0.0, d);
      l.npairs = l.first = 0;
      CRYO_CALL(cells_dot(b, g, d, w, ops, &slope, err));
    }
    double a = 1.0;
    int accepted = 0;
    for (int t = 0; t < opts->max_backtrack && !accepted; ++t) {
      cells_axpby(b, 1.0, theta, 0.0, tt);
      cells_axpby(b, a, d, 1.0, tt);
      CRYO_CALL(invert_evaluate(&x, tt, cost_t, gt, &ok, err));
      const double jt = cost_t[0] + cost_t[1];
      accepted = ok && jt <= j + opts->armijo * a * slope;
      if (accepted) break;
      /* the minimum of the quadratic through J, J'(0) and J(a), kept in
       * [a / 10, a / 2]; a quarter where the trial failed */
      double q = ok ? -slope * a * a / (2.0 * (jt - j - slope * a)) : 0.25 * a;
      a = fmin(fmax(q, 0.1 * a), 0.5 * a);
    }
    if (!accepted) {
      why = CRYO_LANDICE_STOP_LINE_SEARCH;
      CRYO_CALL(invert_solve(&x, theta, err));
      break;
    }
    /* the new pair: s = a d, y = g_t - g, in the oldest pair's planes when
     * the memory is full; kept when s.y > 0 (curvature), else that slot is
     * dropped (a full memory has lost its oldest pair) */
    const int slot = (l.first + l.npairs) % l.m;
    double sy, yy;
    cells_axpby(b, a, d, 0.0, sp[slot]);
    cells_axpby(b, 1.0, gt, 0.0, yp[slot]);
    cells_axpby(b, -1.0, g, 1.0, yp[slot]);
    CRYO_CALL(cells_dot(b, sp[slot], yp[slot], w, ops, &sy, err));
    CRYO_CALL(cells_dot(b, yp[slot], yp[slot], w, ops, &yy, err));
    if (sy > 0.0) {
      l.rho[slot] = 1.0 / sy;
      l.yy = yy;
      if (l.npairs < l.m)
        ++l.npairs;
      else
        l.first = (l.first + 1) % l.m;
    } else if (l.npairs == l.m) {
      l.first = (l.first + 1) % l.m;
      --l.npairs;
    }
    cells_axpby(b, 1.0, tt, 0.0, theta);
    cells_axpby(b, 1.0, gt, 0.0, g);
    cryo_landice_waxpy(x.nvel, 1, s->vel, 0.0, s->vel, x.vel_accepted);
    cost[0] = cost_t[0];
    cost[1] = cost_t[1];
    CRYO_CALL(cells_dot(b, g, g, w, ops, &gg, err));
    rec = (cryo_landice_invert_log){
        k, cost[0] + cost[1], cost[0], cost[1], sqrt(gg), a, x.evaluations, x.adjoint_iterations};
    log_record(history, capacity, &held, &rec);
    if (j - (cost[0] + cost[1]) <= opts->ftol * j) {
      why = CRYO_LANDICE_STOP_FTOL;
      break;
    }
  }
  CRYO_DEVICE_WAIT;
  if (n_log) *n_log = held;
  if (stop) *stop = why;
  return CRYO_OK;
}
