/* Private interface between the files of the land-ice Newton-Krylov solver
 * (docs/landice.md, Newton-Krylov solver), one job each: landice_solver.c the
 * Newton driver, landice_assemble.c the residual and Jacobian assembly,
 * landice_linesearch.c the line search on the energy, landice_cg.c conjugate
 * gradients, landice_precondition.c the preconditioners (column and
 * multigrid), landice_vector.c reproducible dot products and vector updates.
 *
 * Rows [0,nx] x [0,ny] are computed on every block that holds them (elements
 * [-1,nx] x [-1,ny] redundantly), so only the direction vector needs a node
 * halo exchange per CG iteration. Every floating-point sum is a fixed-point
 * reproducible sum over owned nodes (cryo_reprosum.h): a node is owned once
 * globally (i in [0,nx), plus i = nx on the last block of a non-periodic x;
 * likewise j), so the iterates are bit-identical for any decomposition. */
#ifndef CRYO_LANDICE_SOLVER_IMPL_H
#define CRYO_LANDICE_SOLVER_IMPL_H

#include "cryo_error.h"
#include "landice_column.h"

/* Launch arguments of the solver's vector kernels, which launch regions that
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
#if defined(_OPENACC)
#define LANDICE_ARGS_SET(dev, own) cryo_device_args_acquire(&(dev), &(own), sizeof(own))
#define LANDICE_ARGS(dev, own)     (&(dev))
#define LANDICE_ARGS_DONE          cryo_device_args_release()
#else
#define LANDICE_ARGS_SET(dev, own) ((void)0)
#define LANDICE_ARGS(dev, own)     (&(own))
#define LANDICE_ARGS_DONE          ((void)0)
#endif

/* Friction by a nonlinear law: the sliding kernels (kernels/landice_sliding.c). */
static inline int landice_nonlinear_friction(const cryo_landice_params *p) {
  return !p->no_slip && p->sliding_law != CRYO_LANDICE_SLIDING_LINEAR;
}

/* m[0] = max |x y| and, unless w is NULL, m[1] = max |x w| over owned nodes
 * (landice_vector.c). */
void cryo_landice_maxabs_prod(const cryo_block *b, int nlev, const double *x, const double *y,
                              const double *w, double m[2]);

/* Reproducible global dot products of node fields over owned nodes:
 * out[0] = x.y and, unless w is NULL, out[1] = x.w. */
int cryo_landice_dots(const cryo_block *b, int nlev, const double *x, const double *y,
                      const double *w, const cryo_comm_ops *ops, double out[2], cryo_err *err);
int cryo_landice_dot(const cryo_block *b, int nlev, const double *x, const double *y,
                     const cryo_comm_ops *ops, double *out, cryo_err *err);

/* Node halo of one field of nlev values per node. */
int cryo_landice_halo_node(const cryo_comm_ops *ops, int nlev, double *x);

/* y = a x + c y over node rows [0,nx] x [0,ny] (queued launch). */
void cryo_landice_axpby(const cryo_block *b, int nlev, double a, const double *x, double c,
                        double *y);

/* z = x + a y over all nodes, halo included. */
void cryo_landice_waxpy(long nnode, int nlev, const double *x, double a, const double *y,
                        double *z);

/* E(U) as a reproducible sum of owned column energies (landice_linesearch.c). */
int cryo_landice_energy(const cryo_block *b, const cryo_landice_params *p,
                        const cryo_landice_state *s, const double *vel, const cryo_comm_ops *ops,
                        double *energy, cryo_err *err);

/* Step length along s->du from s->vel (residual norm rn, energy, slope
 * R.du at alpha = 0, Newton step it for messages): on return s->trial
 * holds vel + alpha du, s->cg_r its residual, *rt its norm, *et its energy.
 * CRYO_ERR_SOLVER when no length in 30 halvings is accepted. */
int cryo_landice_line_search(const cryo_block *b, const cryo_landice_params *p,
                             cryo_landice_state *s, const cryo_comm_ops *ops, int it, double rn,
                             double energy, double slope, double *alpha, double *rt, double *et,
                             cryo_err *err);

/* Build the preconditioner of the Newton system in s->matrix: the column
 * pivots s->pc and, with 'multigrid', the levels mg (landice_precondition.c). */
int cryo_landice_precondition_setup(const cryo_block *b, const cryo_landice_params *p,
                                    const cryo_landice_state *s, const cryo_comm_ops *ops,
                                    cryo_landice_mg *mg, cryo_err *err);

/* z = M^-1 r at node rows [0,nx] x [0,ny] (queued launches). */
int cryo_landice_precondition_apply(const cryo_block *b, const cryo_landice_params *p,
                                    const cryo_landice_state *s, const cryo_landice_mg *mg,
                                    const cryo_comm_ops *ops, const double *r, double *z);

/* Preconditioned CG for J du = -res with du zero on entry (landice_cg.c):
 * *iters iterations, *rel the final |r| / |b|. */
int cryo_landice_cg(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                    const cryo_landice_mg *mg, const cryo_comm_ops *ops, int *iters, double *rel,
                    cryo_err *err);

#endif
