/* Newton-Krylov solver for the first-order Stokes velocity
 * (docs/landice.md): damped Newton with a backtracking line search on the convex
 * functional E(U) (or on |R|), conjugate gradients on the symmetric positive
 * definite Jacobian with a column (vertical line) block-Jacobi preconditioner.
 *
 * Rows [0,nx] x [0,ny] are computed on every block that holds them (elements
 * [-1,nx] x [-1,ny] redundantly), so only the direction vector needs a node
 * halo exchange per CG iteration. Every floating-point sum is a fixed-point
 * reproducible sum over owned nodes (cryo_reprosum.h): a node is owned once
 * globally (i in [0,nx), plus i = nx on the last block of a non-periodic x;
 * likewise j), so the iterates are bit-identical for any decomposition. */
#include <math.h>
#include <stddef.h>

#include "cryo_error.h"
#include "cryo_reprosum.h"
#include "landice_column.h"

/* Owned node range: [0, nxo) x [0, nyo). */
static void landice_owned(const cryo_block *b, int *nxo, int *nyo) {
  *nxo = b->nx + ((!b->periodic_x && b->i0 + b->nx == b->nx_global) ? 1 : 0);
  *nyo = b->ny + ((!b->periodic_y && b->j0 + b->ny == b->ny_global) ? 1 : 0);
}

/* The reductions of one pass: the reduction clause takes one macro argument,
 * and a list in it stays one argument because the directive's own parentheses
 * hold its commas. */
#define LANDICE_MAX_XY_XW   max_xy, max_xw
#define LANDICE_FIXED_XY_XW hi_xy, lo_xy, hi_xw, lo_xw

/* m[0] = max |x y| and, unless w is NULL, m[1] = max |x w| over owned nodes. */
static void landice_maxabs_prod(const cryo_block *b, int nlev, const double *x, const double *y,
                                const double *w, double m[2]) {
  int nxo, nyo;
  landice_owned(b, &nxo, &nyo);
  const int stride = b->nx + 3;
  const long n = (long)nxo * nyo;
  double max_xy = 0.0, max_xw = 0.0;
  /* a dot product reads what the CG loop's queued kernels wrote */
  CRYO_DEVICE_WAIT;
  CRYO_DEVICE_LOOP_REDUCE((x, y, w), max, LANDICE_MAX_XY_XW)
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / nxo + 1) * stride + (e % nxo + 1);
    for (int k = 0; k < nlev; ++k) {
      max_xy = fmax(max_xy, fabs(x[node * nlev + k] * y[node * nlev + k]));
      if (w) max_xw = fmax(max_xw, fabs(x[node * nlev + k] * w[node * nlev + k]));
    }
  }
  m[0] = max_xy;
  m[1] = max_xw;
}

/* Fixed-point parts s = (hi, lo) of sum x y and, unless w is NULL, of sum
 * x w over owned nodes, on the grids scale[0] and scale[1], in one pass: all
 * four are exact integer sums, so any order gives the same bits. */
static void landice_fixed_parts(const cryo_block *b, int nlev, const double *x, const double *y,
                                const double *w, const double scale[2], long long s[4]) {
  int nxo, nyo;
  landice_owned(b, &nxo, &nyo);
  const int stride = b->nx + 3;
  const long n = (long)nxo * nyo;
  const double scale_xy = scale[0], scale_xw = scale[1];
  long long hi_xy = 0, lo_xy = 0, hi_xw = 0, lo_xw = 0;
  CRYO_DEVICE_LOOP_REDUCE((x, y, w), +, LANDICE_FIXED_XY_XW)
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / nxo + 1) * stride + (e % nxo + 1);
    for (int k = 0; k < nlev; ++k) {
      long long hi, lo;
      cryo_fixed_split(x[node * nlev + k] * y[node * nlev + k], scale_xy, &hi, &lo);
      hi_xy += hi;
      lo_xy += lo;
      if (w) {
        cryo_fixed_split(x[node * nlev + k] * w[node * nlev + k], scale_xw, &hi, &lo);
        hi_xw += hi;
        lo_xw += lo;
      }
    }
  }
  s[0] = hi_xy;
  s[1] = lo_xy;
  s[2] = hi_xw;
  s[3] = lo_xw;
}

/* Reproducible global dot products of node fields over owned nodes:
 * out[0] = x.y and, unless w is NULL, out[1] = x.w, the two from one max pass
 * and one fixed-point pass (and one global reduction each). */
static int landice_dots(const cryo_block *b, int nlev, const double *x, const double *y,
                        const double *w, const cryo_comm_ops *ops, double out[2], cryo_err *err) {
  const int npair = w ? 2 : 1;
  double m[2];
  landice_maxabs_prod(b, nlev, x, y, w, m);
  CRYO_CALL(ops->max_double(ops->ctx, m, npair));
  long long nterms = (long long)(b->nx_global + 1) * (b->ny_global + 1) * nlev;
  double scale[2] = {0.0, 0.0};
  for (int i = 0; i < npair; ++i) {
    CRYO_CHECK(isfinite(m[i]), err, CRYO_ERR_DATA,
               "land-ice solver: NaN or Inf in a dot product (max |x y| = %g)", m[i]);
    scale[i] = cryo_fixed_scale(m[i], (long)nterms);
  }
  long long s[4] = {0, 0, 0, 0};
  if (scale[0] != 0.0 || scale[1] != 0.0) landice_fixed_parts(b, nlev, x, y, w, scale, s);
  CRYO_CALL(ops->sum_int64(ops->ctx, s, 2 * npair));
  out[0] = cryo_fixed_join(s[0], s[1], scale[0]);
  out[1] = cryo_fixed_join(s[2], s[3], scale[1]);
  return CRYO_OK;
}

/* Reproducible global dot product x.y of node fields over owned nodes. */
static int landice_dot(const cryo_block *b, int nlev, const double *x, const double *y,
                       const cryo_comm_ops *ops, double *out, cryo_err *err) {
  double d[2];
  CRYO_CALL(landice_dots(b, nlev, x, y, NULL, ops, d, err));
  *out = d[0];
  return CRYO_OK;
}

static int landice_halo_node(const cryo_comm_ops *ops, int nlev, double *x) {
  double *f[1] = {x};
  return ops->halo(ops->ctx, CRYO_AT_NODE, nlev, 1, f);
}

/* Launch arguments of the CG loop's vector kernels, which launch regions that
 * map nothing (kernels/cryo_acc.h; docs/performance.md, "No-map launches"):
 * each kernel reads them from a file-scope struct of its own that lives on the
 * device too (8-byte members only). One struct per kernel, not per call: the
 * matvec and preconditioner get the same arrays at every call, so their
 * structs are copied to the device once; within the loop only the scalars
 * alpha (landice_cg_step) and beta (landice_axpby) change, one copy of 88 or
 * 56 B each per iteration, made right after a dot product has waited for the
 * queue (its passes are synchronous), so the wait in cryo_device_args_set
 * finds nothing queued. The scalars cannot be launch arguments: a launch that
 * passes anything maps it, which costs what the no-map launch saves.
 *
 * With OpenACC a launch holds this file's launch lock from setting its
 * arguments to the end of its loop, as the sea-ice kernels do. Without OpenACC
 * the loops read the caller's own struct instead: host threads may solve
 * different blocks at once (tests/test_landice_decomp.c runs its ranks as
 * threads), which one shared struct would mix up, and OpenMP threads share the
 * caller's locals. */
typedef struct {
  double a, c;
  const double *x;
  double *y;
  long nlev, nx, n; /* values per node, cells per row, nodes (nx + 1)(ny + 1) */
} landice_axpby_args;

typedef struct {
  const double *matrix, *x;
  double *y;
  long nz, nx, n;
  long ilo, ihi, jlo, jhi; /* nodes [ilo, ihi] x [jlo, jhi] exist */
} landice_matvec_args;

typedef struct {
  const double *matrix, *pc, *r;
  double *z;
  long nz, nx, n;
} landice_pc_args;

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
static landice_axpby_args axpby_dev;
static landice_matvec_args matvec_dev;
static landice_pc_args pc_dev;
static landice_step_args step_dev;
CRYO_DEVICE_ARGS(axpby_dev)
CRYO_DEVICE_ARGS(matvec_dev)
CRYO_DEVICE_ARGS(pc_dev)
CRYO_DEVICE_ARGS(step_dev)
#define LANDICE_ARGS_SET(dev, own) cryo_device_args_acquire(&(dev), &(own), sizeof(own))
#define LANDICE_ARGS(dev, own)     (&(dev))
#define LANDICE_ARGS_DONE          cryo_device_args_release()
#else
#define LANDICE_ARGS_SET(dev, own) ((void)0)
#define LANDICE_ARGS(dev, own)     (&(own))
#define LANDICE_ARGS_DONE          ((void)0)
#endif

/* y = a x + c y over node rows [0,nx] x [0,ny] (nlev values each). */
static void landice_axpby(const cryo_block *b, int nlev, double a, const double *x, double c,
                          double *y) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const landice_axpby_args fresh = {a, c, x, y, nlev, b->nx, n};
  LANDICE_ARGS_SET(axpby_dev, fresh);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < LANDICE_ARGS(axpby_dev, fresh)->n; ++e) {
    const landice_axpby_args *g = LANDICE_ARGS(axpby_dev, fresh);
    const int nl = (int)g->nlev, nx = (int)g->nx;
    const double ga = g->a, gc = g->c;
    long node = (long)(e / (nx + 1) + 1) * (nx + 3) + (e % (nx + 1) + 1);
    for (int k = 0; k < nl; ++k)
      g->y[node * nl + k] = ga * g->x[node * nl + k] + gc * g->y[node * nl + k];
  }
  LANDICE_ARGS_DONE;
}

/* z = x + a y over all nodes, halo included. */
static void landice_waxpy(long nnode, int nlev, const double *x, double a, const double *y,
                          double *z) {
  const long n = nnode * nlev;
  CRYO_DEVICE_LOOP((x, y, z))
  for (long e = 0; e < n; ++e)
    z[e] = x[e] + a * y[e];
}

/* y = J x, queued (cryo_landice_matvec waits for it). */
static void landice_matvec(const cryo_block *b, const cryo_landice_params *p, const double *matrix,
                           const double *x, double *y) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  /* the nodes that exist, in local indices (all of [-1, nx+1] where periodic) */
  const long ilo = b->periodic_x ? -1 : -b->i0,
             ihi = b->periodic_x ? b->nx + 1 : b->nx_global - b->i0;
  const long jlo = b->periodic_y ? -1 : -b->j0,
             jhi = b->periodic_y ? b->ny + 1 : b->ny_global - b->j0;
  const landice_matvec_args fresh = {matrix, x, y, p->n_layers, b->nx, n, ilo, ihi, jlo, jhi};
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

/* Column block-Jacobi: each node column's block-tridiagonal (2x2 blocks)
 * matrix factored into its inverted pivots (landice_column_factor). */
static void landice_pc_factor(const cryo_block *b, const cryo_landice_params *p,
                              const double *matrix, double *pc) {
  const int nz = p->n_layers, nx = b->nx, stride = b->nx + 3;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((matrix, pc))
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / (nx + 1) + 1) * stride + (e % (nx + 1) + 1);
    landice_column_factor(nz, matrix + node * 108L * (nz + 1), pc + node * 4L * (nz + 1));
  }
}

/* z = M^-1 r, column by column. */
static void landice_pc_apply(const cryo_block *b, const cryo_landice_params *p,
                             const double *matrix, const double *pc, const double *r, double *z) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const landice_pc_args fresh = {matrix, pc, r, z, p->n_layers, b->nx, n};
  LANDICE_ARGS_SET(pc_dev, fresh);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < LANDICE_ARGS(pc_dev, fresh)->n; ++e) {
    const landice_pc_args *g = LANDICE_ARGS(pc_dev, fresh);
    const int nz = (int)g->nz, nlev = 2 * (nz + 1), nx = (int)g->nx;
    long node = (long)(e / (nx + 1) + 1) * (nx + 3) + (e % (nx + 1) + 1);
    landice_column_solve(nz, g->matrix + node * 108L * (nz + 1), g->pc + node * 4L * (nz + 1),
                         g->r + node * nlev, g->z + node * nlev);
  }
  LANDICE_ARGS_DONE;
}

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

/* Friction by a nonlinear law: the sliding kernels (kernels/landice_sliding.c). */
static int landice_nonlinear_friction(const cryo_landice_params *p) {
  return !p->no_slip && p->sliding_law != CRYO_LANDICE_SLIDING_LINEAR;
}

int cryo_landice_residual(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, double *res,
                          cryo_err *err) {
  CRYO_CALL(cryo_landice_params_check(p, err));
  cryo_landice_zero(CRYO_NNODE(b) * 2 * (p->n_layers + 1), res);
  for (int colour = 0; colour < 8; ++colour)
    cryo_landice_residual_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2, res);
  for (int colour = 0; colour < 4 && landice_nonlinear_friction(p); ++colour)
    cryo_landice_sliding_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2, res);
  for (int colour = 0; colour < 8 && s->body_force; ++colour)
    cryo_landice_force_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                              s->body_force, res);
  if (s->front_load) landice_axpby(b, 2 * (p->n_layers + 1), -1.0, s->front_load, 1.0, res);
  cryo_landice_dirichlet(b, p, s->thk, res, NULL);
  return CRYO_OK;
}

int cryo_landice_jacobian(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, cryo_err *err) {
  CRYO_CALL(cryo_landice_params_check(p, err));
  cryo_landice_zero(CRYO_NNODE(b) * 108L * (p->n_layers + 1), s->matrix);
  for (int colour = 0; colour < 8; ++colour)
    cryo_landice_jacobian_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                 s->matrix);
  for (int colour = 0; colour < 4 && landice_nonlinear_friction(p); ++colour)
    cryo_landice_sliding_jacobian_colour(b, p, colour, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                         s->matrix);
  cryo_landice_dirichlet(b, p, s->thk, NULL, s->matrix);
  return CRYO_OK;
}

static double landice_cells_maxabs(const cryo_block *b, const double *w) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  double m = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((w), max, m)
  for (long e = 0; e < n; ++e)
    m = fmax(m, fabs(w[(e / nx + 1) * (nx + 2) + e % nx + 1]));
  return m;
}

static long long landice_cells_fixed_part(const cryo_block *b, const double *w, double scale,
                                          int low) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  long long acc = 0;
  CRYO_DEVICE_LOOP_REDUCE((w), +, acc)
  for (long e = 0; e < n; ++e) {
    long long hi, lo;
    cryo_fixed_split(w[(e / nx + 1) * (nx + 2) + e % nx + 1], scale, &hi, &lo);
    acc += low ? lo : hi;
  }
  return acc;
}

int cryo_landice_cell_sum(const cryo_block *b, const double *w, const cryo_comm_ops *ops,
                          double *sum, cryo_err *err) {
  double m = landice_cells_maxabs(b, w);
  CRYO_CALL(ops->max_double(ops->ctx, &m, 1));
  CRYO_CHECK(isfinite(m), err, CRYO_ERR_DATA, "land-ice: NaN or Inf in a cell field being summed");
  double scale = cryo_fixed_scale(m, (long)b->nx_global * b->ny_global);
  long long part[2] = {0, 0};
  if (scale != 0.0) {
    part[0] = landice_cells_fixed_part(b, w, scale, 0);
    part[1] = landice_cells_fixed_part(b, w, scale, 1);
  }
  CRYO_CALL(ops->sum_int64(ops->ctx, part, 2));
  *sum = cryo_fixed_join(part[0], part[1], scale);
  return CRYO_OK;
}

/* E(U) as a reproducible sum of owned column energies. */
static int landice_energy(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, const cryo_comm_ops *ops,
                          double *energy, cryo_err *err) {
  cryo_landice_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2, s->work_cell);
  if (landice_nonlinear_friction(p))
    cryo_landice_sliding_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                        s->work_cell);
  if (s->body_force)
    cryo_landice_force_work_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2, s->body_force,
                                    s->work_cell);
  CRYO_CALL(cryo_landice_cell_sum(b, s->work_cell, ops, energy, err));
  if (s->front_load) {
    /* the margin load's work, -F . u over owned nodes */
    double work;
    CRYO_CALL(landice_dot(b, 2 * (p->n_layers + 1), s->front_load, vel, ops, &work, err));
    *energy -= work;
  }
  return CRYO_OK;
}

/* Preconditioned CG for J du = -res; du zero on entry.
 *
 * An iteration (not the last) is, besides the halo exchange of p: 3 launches
 * that map nothing, queued (matvec; landice_cg_step; the p update), and 4
 * synchronous reductions (max and fixed-point passes of p.q, then of r.r and
 * r.z together), with a wait before each dot product and 2 argument copies
 * (alpha, beta); 4 global reductions. The converged iteration skips the p
 * update. */
static int landice_cg(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                      const cryo_landice_mg *mg, const cryo_comm_ops *ops, int *iters, double *rel,
                      cryo_err *err) {
  const int nlev = 2 * (p->n_layers + 1);
  const int multigrid = p->preconditioner == CRYO_LANDICE_PC_MULTIGRID;
  double pq, d[2]; /* d = (r.r, r.z) */
  cryo_landice_zero(CRYO_NNODE(b) * nlev, s->du);
  landice_axpby(b, nlev, -1.0, s->res, 0.0, s->cg_r);
  if (multigrid)
    CRYO_CALL(cryo_landice_mg_apply(mg, p, ops, s->cg_r, s->cg_z));
  else
    landice_pc_apply(b, p, s->matrix, s->pc, s->cg_r, s->cg_z);
  CRYO_CALL(landice_dots(b, nlev, s->cg_r, s->cg_r, s->cg_z, ops, d, err));
  const double bb = d[0];
  double rz = d[1];
  *iters = 0;
  *rel = 0.0;
  if (bb == 0.0) return CRYO_OK;
  landice_axpby(b, nlev, 1.0, s->cg_z, 0.0, s->cg_p);
  for (int it = 1; it <= p->linear_max_iter; ++it) {
    CRYO_CALL(landice_halo_node(ops, nlev, s->cg_p));
    landice_matvec(b, p, s->matrix, s->cg_p, s->cg_q);
    CRYO_CALL(landice_dot(b, nlev, s->cg_p, s->cg_q, ops, &pq, err));
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
    if (multigrid) CRYO_CALL(cryo_landice_mg_apply(mg, p, ops, s->cg_r, s->cg_z));
    CRYO_CALL(landice_dots(b, nlev, s->cg_r, s->cg_r, s->cg_z, ops, d, err));
    *iters = it;
    *rel = sqrt(d[0] / bb);
    if (*rel <= p->linear_rtol) break;
    landice_axpby(b, nlev, 1.0, s->cg_z, d[1] / rz, s->cg_p);
    rz = d[1];
  }
  /* the last direction update when linear_max_iter ends the loop */
  CRYO_DEVICE_WAIT;
  return CRYO_OK;
}

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
  landice_maxabs_prod(b, nlev, s->front_load, s->front_load, NULL, m);
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
  landice_maxabs_prod(b, nlev, s->body_force, s->body_force, NULL, m);
  CRYO_CALL(ops->max_double(ops->ctx, m, 1));
  CRYO_CHECK(isfinite(m[0]), err, CRYO_ERR_DATA,
             "land-ice velocity: body_force max f^2 = %g Pa2 m-2, must be finite", m[0]);
  if (m[0] == 0.0) {
    out->body_force = NULL;
    return CRYO_OK;
  }
  return landice_halo_node(ops, nlev, s->body_force);
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
  CRYO_CALL(landice_dot(b, nlev, s->cg_r, s->cg_r, ops, norm, err));
  *norm = sqrt(*norm);
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
    landice_waxpy(nnode, nlev, s->vel, 0.5 * *alpha, s->du, s->trial);
    CRYO_CALL(landice_energy(b, p, s, s->trial, ops, &e, err));
    if (!(e < *et)) break;
    *alpha *= 0.5;
    *et = e;
    moved = 1;
  }
  landice_waxpy(nnode, nlev, s->vel, *alpha, s->du, s->trial);
  if (!moved) return CRYO_OK;
  CRYO_CALL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, err));
  CRYO_CALL(landice_dot(b, nlev, s->cg_r, s->cg_r, ops, rt, err));
  *rt = sqrt(*rt);
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
  CRYO_CALL(landice_halo_node(ops, nlev, s->vel));
  double rn, r0, energy, load;
  cryo_landice_mg mg;
  CRYO_CALL(landice_load_norm(b, p, s, ops, &load, err));
  const double r_floor = p->newton_atol * load;
  CRYO_CALL(cryo_landice_residual(b, p, s, s->vel, s->res, err));
  CRYO_CALL(landice_dot(b, nlev, s->res, s->res, ops, &rn, err));
  rn = sqrt(rn);
  r0 = rn;
  CRYO_CALL(landice_energy(b, p, s, s->vel, ops, &energy, err));
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
    landice_pc_factor(b, p, s->matrix, s->pc);
    if (p->preconditioner == CRYO_LANDICE_PC_MULTIGRID)
      CRYO_CALL(cryo_landice_mg_setup(b, p, s, ops, &mg, err));
    CRYO_CALL(landice_cg(b, p, s, &mg, ops, &rec.linear_iterations, &rec.linear_residual, err));
    CRYO_CALL(landice_halo_node(ops, nlev, s->du));
    double slope;
    CRYO_CALL(landice_dot(b, nlev, s->res, s->du, ops, &slope, err));
    /* Armijo on E, or sufficient decrease of |R| (E differences drown in
     * rounding near the solution, where the full step cuts |R| anyway). */
    double alpha = 1.0, rt = 0.0, et = 0.0;
    int accepted = 0;
    for (int ls = 0; ls < 30 && !accepted; ++ls) {
      landice_waxpy(nnode, nlev, s->vel, alpha, s->du, s->trial);
      CRYO_CALL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, err));
      CRYO_CALL(landice_dot(b, nlev, s->cg_r, s->cg_r, ops, &rt, err));
      rt = sqrt(rt);
      CRYO_CALL(landice_energy(b, p, s, s->trial, ops, &et, err));
      accepted = rt <= (1.0 - 1.0e-4 * alpha) * rn || et <= energy + 1.0e-4 * alpha * slope;
      if (!accepted) alpha *= 0.5;
    }
    CRYO_CHECK(accepted, err, CRYO_ERR_SOLVER,
               "land-ice Newton: line search failed at step %d: |R| = %.6e, E = %.10e, "
               "E'(du) = %.3e",
               it, rn, energy, slope);
    if (rt > 0.5 * rn) CRYO_CALL(landice_step_shorten(b, p, s, ops, &alpha, &rt, &et, err));
    rec.step_length = alpha;
    landice_log_record(history, history_capacity, n_log, rec);
    landice_waxpy(nnode, nlev, s->trial, 0.0, s->trial, s->vel);
    landice_waxpy(nnode, nlev, s->cg_r, 0.0, s->cg_r, s->res);
    rn = rt;
    energy = et;
  }
}
