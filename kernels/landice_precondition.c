/* Preconditioners of the Newton systems (docs/landice.md, Newton-Krylov
 * solver and Multigrid): column block-Jacobi, whose pivots the multigrid's
 * smoother shares, and one multigrid V-cycle (kernels/landice_multigrid.c). */
#include <stddef.h>

#include "landice_solver_impl.h"

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

typedef struct {
  const double *matrix, *pc, *r;
  double *z;
  long nz, nx, n;
} landice_pc_args;

#if defined(_OPENACC)
static landice_pc_args pc_dev;
CRYO_DEVICE_ARGS(pc_dev)
#endif

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

int cryo_landice_precondition_setup(const cryo_block *b, const cryo_landice_params *p,
                                    const cryo_landice_state *s, const cryo_comm_ops *ops,
                                    cryo_landice_mg *mg, cryo_err *err) {
  landice_pc_factor(b, p, s->matrix, s->pc);
  if (p->preconditioner == CRYO_LANDICE_PC_MULTIGRID)
    CRYO_CALL(cryo_landice_mg_setup(b, p, s, ops, mg, err));
  return CRYO_OK;
}

int cryo_landice_precondition_apply(const cryo_block *b, const cryo_landice_params *p,
                                    const cryo_landice_state *s, const cryo_landice_mg *mg,
                                    const cryo_comm_ops *ops, const double *r, double *z) {
  if (p->preconditioner == CRYO_LANDICE_PC_MULTIGRID)
    return cryo_landice_mg_apply(mg, p, ops, r, z);
  landice_pc_apply(b, p, s->matrix, s->pc, r, z);
  return CRYO_OK;
}
