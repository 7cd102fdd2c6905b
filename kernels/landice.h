/* Land-ice dynamics: first-order Stokes (Blatter-Pattyn) velocity and
 * thickness evolution (docs/landice.md; Antepara et al. 2024, Eq. 1).
 *
 * Mesh: the 2-D block of cryo_block.h extruded into nz = n_layers
 * terrain-following layers. Node (i, j, k), k = 0 (bed) .. nz (surface), sits
 * at x = i dx, y = j dy, z = bed + (k / nz) thk_node + slope_x x + slope_y y.
 * Element (i, j, k) is the hexahedron between node columns (i..i+1, j..j+1) and
 * levels k, k+1; trilinear Q1 basis, 2x2x2 Gauss points, 16 local unknowns.
 *
 * Units: metres, pascals and years of 365 days (a). Velocity m a-1, rate
 * factor Pa-n a-1, beta2 Pa a m-1, smb and basal melt m a-1 of ice, viscosity
 * Pa a. Only the thickness step length dt is in seconds (namelist unit).
 *
 * Storage (a[index * nlev + level], cryo_block.h):
 *   velocity  node, nlev = 2 (nz + 1): u at 2k, v at 2k + 1 (interleaved per level)
 *   matrix    node, nlev = 108 (nz + 1): row (node, k) holds 27 neighbour 2x2
 *             blocks, neighbour nb = (dk+1)*9 + (dj+1)*3 + (di+1), entry
 *             [((k * 27) + nb) * 4 + 2 * c_row + c_col]
 *   2-D fields one value per node or cell.
 * Tilted analytic cases (slab, ISMIP-HOM) keep bed and surface periodic: the
 * background plane slope_x x + slope_y y is added inside each element (only
 * elevation differences within an element matter) and to the driving stress.
 *
 * Lateral boundaries: periodic (block->periodic_x/y, the halo wraps; the
 * solver needs an even number of cells in a periodic direction so that a node
 * and its periodic image hold the same bits), or on a
 * non-periodic global edge free (natural: zero lateral stress, elements
 * outside the domain do not exist), Dirichlet (velocity held at its value on
 * entry at the edge nodes) or free slip (normal velocity 0). Margins: columns
 * whose cell is thinner than min_thickness are ice-free (not assembled, their
 * nodes fixed at 0), and faces between ice and ice-free columns carry the
 * hydrostatic load of kernels/landice_front.c. Bed: no slip (u = 0) or friction by one of the
 * sliding laws (linear beta2 u, Weertman power law, Schoof regularized Coulomb).
 */
#ifndef CRYO_LANDICE_H
#define CRYO_LANDICE_H

#include <stddef.h>

#include "cryo_block.h"
#include "cryo_params.h"

/* Seconds in the model year (365 days). */
#define CRYO_LANDICE_YEAR 31536000.0

/* Largest number of layers: the column preconditioner and kernels keep
 * per-column scratch in fixed-size private arrays. */
#define CRYO_LANDICE_MAX_LAYERS 64

/* Non-periodic global edges: free (natural: zero lateral stress), Dirichlet
 * (velocity held at its value on entry), free slip (normal velocity 0,
 * tangential stress 0: a wall or a mirror plane, as MISMIP+'s side walls
 * and ice divide). */
enum cryo_landice_lateral {
  CRYO_LANDICE_LATERAL_FREE = 0,
  CRYO_LANDICE_LATERAL_DIRICHLET = 1,
  CRYO_LANDICE_LATERAL_FREE_SLIP = 2
};

/* Where basal melt acts on marine ice: on each cell's floating share
 * (rate x (1 - grounded fraction)), or only on wholly floating cells. */
enum cryo_landice_melt_cells { CRYO_LANDICE_MELT_FRACTION = 0, CRYO_LANDICE_MELT_FLOATING = 1 };

/* Basal melt: as received (file, host, OASIS) or the MISMIP+ Ice1 rate,
 * an analytic function of the ice draft (Asay-Davis et al. 2016, Eq. 17). */
enum cryo_landice_melt_source { CRYO_LANDICE_MELT_RECEIVED = 0, CRYO_LANDICE_MELT_MISMIP = 1 };

/* Budget terms accumulated per cell (s->budget, metres of ice since the
 * start of the run, restart included). */
enum cryo_landice_budget {
  CRYO_LANDICE_BUDGET_SMB = 0, /* surface balance applied (ablation limited by the ice there) */
  CRYO_LANDICE_BUDGET_MELT,    /* basal melt applied, > 0 loss */
  CRYO_LANDICE_BUDGET_CALVING, /* ice removed outside the calving mask, > 0 loss */
  CRYO_LANDICE_BUDGET_OUTFLOW, /* ice leaving through non-periodic domain edges, > 0 loss */
  CRYO_LANDICE_BUDGET_COUNT
};

/* Basal sliding law of the friction bed (docs/landice.md, Sliding laws). */
enum cryo_landice_sliding {
  CRYO_LANDICE_SLIDING_LINEAR = 0, /* tau_b = beta2 u */
  CRYO_LANDICE_SLIDING_WEERTMAN,   /* tau_b = C |u|^(m-1) u (Weertman 1957) */
  CRYO_LANDICE_SLIDING_SCHOOF,     /* regularized Coulomb (Schoof 2005) */
  CRYO_LANDICE_SLIDING_TSAI        /* Coulomb-limited power law (Tsai et al. 2015) */
};

/* Velocity regularizing |u| of the power-law and Coulomb laws, m a-1:
 * |u|^2 becomes |u|^2 + u_reg^2, so that the traction is differentiable at
 * u = 0; Newton differentiates this regularized law exactly. */
#define CRYO_LANDICE_U_REG 1.0e-3

/* Preconditioner of the Newton linear solves (docs/landice.md, Multigrid). */
enum cryo_landice_preconditioner {
  CRYO_LANDICE_PC_COLUMN = 0,   /* column (vertical line) block-Jacobi */
  CRYO_LANDICE_PC_MULTIGRID = 1 /* V-cycle: column Gauss-Seidel, horizontal coarsening */
};

enum cryo_landice_case {
  CRYO_LANDICE_CASE_FILE = 0, /* geometry supplied by the caller */
  CRYO_LANDICE_CASE_SLAB,
  CRYO_LANDICE_CASE_ISMIP_HOM_A,
  CRYO_LANDICE_CASE_ISMIP_HOM_C
};

typedef struct cryo_landice_params {
  int n_layers;         /* nz, 1 .. CRYO_LANDICE_MAX_LAYERS */
  double glen_n;        /* Glen exponent n, >= 1 */
  double rate_factor;   /* A, Pa-n a-1 */
  double rho_ice;       /* kg m-3 */
  double gravity;       /* m s-2 */
  double beta2;         /* uniform basal friction, Pa a m-1 (slab; ISMIP-HOM C mean) */
  int no_slip;          /* 1: u = 0 at the bed; 0: friction by sliding_law */
  int sliding_law;      /* enum cryo_landice_sliding */
  double sliding_c;     /* C of the Weertman, Schoof and Tsai laws, Pa m^(-m) a^m (uniform) */
  double sliding_m;     /* m of the Weertman, Schoof and Tsai laws, > 0 */
  double coulomb_c;     /* C_max of the Schoof and Tsai laws: |tau_b| <= C_max N, dimensionless */
  int marine;           /* 1: sea water at sea_level loads the bed (effective pressure) */
  double sea_level;     /* z_sl, m, on the bed's datum */
  double rho_water;     /* sea water density, kg m-3 */
  int lateral_bc;       /* enum cryo_landice_lateral, non-periodic edges only */
  double min_thickness; /* cells thinner than this are ice-free for the velocity solve, m */
  int melt_cells;       /* enum cryo_landice_melt_cells (marine runs) */
  int calve_floating;   /* 1: outside the calving mask only floating ice is removed (marine) */
  int melt_source;      /* enum cryo_landice_melt_source */
  double melt_omega;    /* MISMIP+ melt: Omega, a-1 */
  double melt_z0;       /* MISMIP+ melt: z_0, depth below which the draft melts, m */
  double melt_hc0;      /* MISMIP+ melt: H_c0, water-column scale, m */
  double eps_reg;       /* strain-rate regularization, a-1 */
  double slope_x;       /* background surface and bed slope ds/dx (set by the analytic cases) */
  double slope_y;       /* background slope ds/dy */
  int geometry_case;    /* enum cryo_landice_case */
  double domain_length; /* L of the analytic cases, m */
  double slope_deg;     /* slab surface slope alpha, degrees */
  double thickness;     /* slab thickness, m */
  double newton_rtol;   /* stop when |R| <= newton_rtol |R_0| */
  double newton_atol;   /* or when |R| <= newton_atol |R(0)| (the load: residual at rest) */
  int newton_max_iter;  /* Newton steps before CRYO_ERR_SOLVER */
  double linear_rtol;   /* CG stops when |r| <= linear_rtol |b| */
  int linear_max_iter;  /* CG iterations per Newton step (not converging is not an error) */
  int preconditioner;   /* enum cryo_landice_preconditioner */
  double dt;            /* thickness step, s */
} cryo_landice_params;

/* Defaults: ISMIP-HOM values (n = 3, A = 1e-16 Pa-3 a-1, rho 910, g 9.81),
 * 10 layers, no slip, free lateral edges, eps_reg 1e-5 a-1, Newton rtol 1e-8,
 * atol 1e-10, 50 Newton steps, CG rtol 1e-3 and 500 iterations, the multigrid preconditioner, dt
 * one day. */
void cryo_landice_params_default(cryo_landice_params *p);

/* State: every array allocated (device-resident) by the component with the
 * sizes of cryo_landice_arrays(); kernels take them as raw pointers. */
typedef struct cryo_landice_state {
  double *vel;        /* node, 2(nz+1): (u, v), m a-1 */
  double *thk;        /* cell: ice thickness, m */
  double *thk_node;   /* node: thickness used by the velocity solve, m */
  double *bed;        /* node: bed elevation above the background plane, m */
  double *usrf;       /* node: surface elevation above the background plane, m */
  double *beta2;      /* node: basal friction, Pa a m-1 */
  double *smb;        /* cell: surface mass balance, m a-1 */
  double *basal_melt; /* cell: basal melt rate, m a-1 */
  double *body_force; /* node, 2(nz+1): body force (f_x, f_y), Pa m-1; NULL or zero: none */
  double *u_surf;     /* node: surface x velocity, m a-1 */
  double *v_surf;     /* node: surface y velocity, m a-1 */
  double *ubar;       /* node, 2: depth-averaged (u, v), m a-1 */
  double *matrix;     /* node, 108(nz+1): Jacobian (layout above) */
  double *pc;         /* node, 4(nz+1): inverted column pivot blocks */
  double *res;        /* node, 2(nz+1): residual */
  double *du;         /* node, 2(nz+1): Newton step / CG iterate */
  double *cg_r;       /* node, 2(nz+1): CG work vectors */
  double *cg_z;
  double *cg_p;
  double *cg_q;
  double *trial;             /* node, 2(nz+1): line-search velocity */
  double *work_cell;         /* cell: per-column energies, thickness fluxes */
  double *grounded_fraction; /* cell: grounded share of the bed, 1; allocated only when marine */
  double *calving_mask;      /* cell: 1 where ice may exist, 0 where it calves (maximum extent) */
  double *budget;            /* cell, CRYO_LANDICE_BUDGET_COUNT: cumulative budget terms, m */
  double *front_load;        /* node, 2(nz+1): hydrostatic load on margin faces, N */
  double *held;              /* cell: 1 where the ice is held (iceberg search) */
  double *rate_factor;       /* cell, nz (layer 0 at the bed): Glen rate factor A, Pa-n a-1 */
  double *sliding_c;         /* cell: C of the nonlinear sliding laws, Pa m^(-m) a^m */
  double *coulomb_c;         /* cell: C_max of the Schoof and Tsai laws, 1 */
  double *afac;              /* cell, nz: A^(-1/n) of rate_factor, Pa a^(1/n) */
  unsigned given;            /* CRYO_LANDICE_GIVEN_* bits: fields not taken from params */
  double *mg; /* multigrid levels, cryo_landice_mg_doubles() values; NULL with 'column' */
} cryo_landice_state;

/* Parameter fields of the state given per cell (a geometry file, a host, a
 * restart) instead of the uniform namelist values that
 * cryo_landice_fields_prepare fills them with otherwise. */
enum {
  CRYO_LANDICE_GIVEN_RATE_FACTOR = 1,
  CRYO_LANDICE_GIVEN_SLIDING_C = 2,
  CRYO_LANDICE_GIVEN_COULOMB_C = 4
};

enum cryo_landice_role {
  CRYO_LANDICE_PROGNOSTIC = 0, /* restart */
  CRYO_LANDICE_FORCING,
  CRYO_LANDICE_STATIC,
  CRYO_LANDICE_DIAGNOSTIC,
  CRYO_LANDICE_WORK,
  CRYO_LANDICE_PARAMETER /* static; restarts carry it where it was given, not uniform */
};

typedef struct cryo_landice_array_info {
  const char *name;
  int loc;                                       /* CRYO_AT_CELL or CRYO_AT_NODE */
  int nlev;                                      /* values per cell or node */
  int role;                                      /* enum cryo_landice_role */
  size_t offset;                                 /* offsetof(cryo_landice_state, member) */
  const char *units, *standard_name, *long_name; /* standard_name "" when CF has none */
} cryo_landice_array_info;

/* Table of the state arrays for params p (nlev depends on n_layers); *t
 * points to static storage rewritten by each call. Returns the count. */
int cryo_landice_arrays(const cryo_landice_params *p, const cryo_landice_array_info **t);

/* One Newton step of cryo_landice_solve_velocity. */
typedef struct cryo_landice_newton_log {
  int step;             /* k: the record of U_k (0: the initial velocity) */
  double residual_norm; /* |R(U_k)| before the step, owned dofs, 2-norm */
  double energy;        /* functional E(U_k), J */
  int linear_iterations;
  double linear_residual; /* CG |r| / |b| at exit */
  double step_length;     /* line-search alpha */
} cryo_landice_newton_log;

/* ---- kernels (one loop each; device addresses) ---- */

/* Zero n doubles. */
void cryo_landice_zero(long n, double *a);

/* Add the element residuals of one of 8 colours (colour = px + 2 py + 4 pk:
 * parities of the global column indices i0 + i, j0 + j and of the layer k;
 * columns i in [-1, nx], j in [-1, ny]) to res. Calling colours 0..7 in
 * order assembles the full residual deterministically. */
void cryo_landice_residual_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                  const double *vel, const double *bed, const double *thk_node,
                                  const double *thk, const double *beta2, const double *afac,
                                  double *res);

/* Same elements: add the body-force terms -int f phi of the residual, with
 * force (layout of vel, halo filled) the nodal body force. */
void cryo_landice_force_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                               const double *vel, const double *bed, const double *thk_node,
                               const double *thk, const double *beta2, const double *force,
                               double *res);

/* Same elements: add the 16x16 element Jacobians to matrix. */
void cryo_landice_jacobian_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                  const double *vel, const double *bed, const double *thk_node,
                                  const double *thk, const double *beta2, const double *afac,
                                  double *matrix);

/* Bed faces (layer 0) of one of 4 colours (parities of the global column
 * indices): add the nonlinear sliding law's friction terms (Weertman,
 * Schoof; not the linear law, which the element kernels hold) to res, to
 * matrix, and per owned column its potential to energy[CRYO_CELL]. Called
 * after the element colours, colours 0..3 in order. */
void cryo_landice_sliding_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                                 const double *vel, const double *bed, const double *thk_node,
                                 const double *thk, const double *beta2, const double *sliding_c,
                                 const double *coulomb_c, double *res);
void cryo_landice_sliding_jacobian_colour(const cryo_block *b, const cryo_landice_params *p,
                                          int colour, const double *vel, const double *bed,
                                          const double *thk_node, const double *thk,
                                          const double *beta2, const double *sliding_c,
                                          const double *coulomb_c, double *matrix);
void cryo_landice_sliding_energy_columns(const cryo_block *b, const cryo_landice_params *p,
                                         const double *vel, const double *bed,
                                         const double *thk_node, const double *thk,
                                         const double *beta2, const double *sliding_c,
                                         const double *coulomb_c, double *energy);

/* Per owned cell column (i, j in [0, nx) x [0, ny)): the column's share of
 * the functional E(U) into energy[CRYO_CELL]. */
void cryo_landice_energy_columns(const cryo_block *b, const cryo_landice_params *p,
                                 const double *vel, const double *bed, const double *thk_node,
                                 const double *thk, const double *beta2, const double *afac,
                                 double *energy);

/* Every cell, halo included: the parameter fields not given
 * (s->given) set to the uniform params values, and afac = A^(-1/n) from
 * rate_factor (the power with the C library's pow, outside the element
 * kernels, which take no calls: docs/landice.md, Discretization). Called
 * before each assembly, so a changed field or params value always counts. */
void cryo_landice_fields_prepare(const cryo_block *b, const cryo_landice_params *p,
                                 const cryo_landice_state *s);

/* Same columns: add the body-force work -int f . u to energy[CRYO_CELL]. */
void cryo_landice_force_work_columns(const cryo_block *b, const cryo_landice_params *p,
                                     const double *vel, const double *bed, const double *thk_node,
                                     const double *thk, const double *beta2, const double *force,
                                     double *energy);

/* Per owned cell: the grounded fraction of its bed (landice_grounded_fraction:
 * exact for a flotation function linear in x and y) into gfrac[CRYO_CELL],
 * from the flotation function rho_i H + rho_w (b - z_sl) at the 4 corner
 * nodes; 1 unless p->marine; 0 in ice-free cells (thk < min_thickness). */
void cryo_landice_grounded_fraction(const cryo_block *b, const cryo_landice_params *p,
                                    const double *bed, const double *thk_node, const double *thk,
                                    double *gfrac);

/* Same elements: add the hydrostatic load of margin faces (landice_front.c:
 * int psi n phi over each side face bordering an existing ice-free column,
 * psi = rho_i g (s - z) - rho_w g max(z_sl - z, 0), the water term when
 * marine) to load, node rows [0,nx] x [0,ny]. The residual subtracts it. */
void cryo_landice_front_colour(const cryo_block *b, const cryo_landice_params *p, int colour,
                               const double *bed, const double *thk_node, const double *thk,
                               double *load);

/* Residual and matrix rows of the fixed dofs become identity: res = 0, row
 * and column zero, diagonal 1. Fixed are both components at ice-free nodes
 * (no active column around them, thk below min_thickness), on the bed with
 * no slip and on lateral Dirichlet edges, and the normal component on
 * free-slip edges. Either of res, matrix may be NULL. */
void cryo_landice_dirichlet(const cryo_block *b, const cryo_landice_params *p, const double *thk,
                            double *res, double *matrix);

/* Per owned cell: usurf = surface elevation at the cell centre (mean bed of
 * the 4 corner nodes + thk + background plane slope_x x + slope_y y, m) and
 * icemask = 1 where thk > 0, else 0 (coupling fields, docs/landice.md). */
void cryo_landice_coupling_fields(const cryo_block *b, const cryo_landice_params *p,
                                  const double *thk, const double *bed, double *usurf,
                                  double *icemask);

/* Every node: surface = bed + thk_node + plane, bedrock = bed + plane, with
 * the background plane slope_x x + slope_y y; true elevations in m. */
void cryo_landice_altitudes(const cryo_block *b, const cryo_landice_params *p,
                            const double *thk_node, const double *bed, double *surface,
                            double *bedrock);

/* ---- multigrid preconditioner (kernels/landice_multigrid.c) ---- */

/* Most levels of the hierarchy, the grid included. */
#define CRYO_LANDICE_MG_MAX_LEVELS 16

/* Cells per decomposition unit in x and y: a block whose edges fall on
 * multiples of the unit (or on the domain's end) coarsens with the global
 * grid on every level, which keeps the multigrid's iterates the same bits for
 * any such decomposition. The component splits the grid in these units. */
void cryo_landice_mg_units(int nx_global, int ny_global, int periodic_x, int periodic_y,
                           int *unit_x, int *unit_y);

/* The levels on which block b nests (its edges on multiples of the coarse
 * cells); the least over all ranks is where the levels stop being
 * distributed and become whole on every rank (kernels/landice_multigrid.c). */
int cryo_landice_mg_nesting(const cryo_block *b);

/* Values of s->mg that block b needs with params p when the levels from
 * `split` on are whole on every rank (the least cryo_landice_mg_nesting over
 * the ranks; 1 is enough for any decomposition): 0 unless p selects the
 * multigrid preconditioner. */
long cryo_landice_mg_doubles(const cryo_block *b, const cryo_landice_params *p, int split);

/* The hierarchy of one Newton step: this rank's block on each level (level 0
 * the grid), whether level l -> l + 1 halves x and y, and the device arrays
 * of each level (level 0's matrix and pivots are the state's; x and rhs
 * belong to the caller of cryo_landice_mg_apply). */
typedef struct cryo_landice_mg {
  int levels;
  int split; /* levels from split on are whole on every rank (agglomerated) */
  int coarsen_x[CRYO_LANDICE_MG_MAX_LEVELS], coarsen_y[CRYO_LANDICE_MG_MAX_LEVELS];
  cryo_block block[CRYO_LANDICE_MG_MAX_LEVELS];
  double *matrix[CRYO_LANDICE_MG_MAX_LEVELS], *pc[CRYO_LANDICE_MG_MAX_LEVELS];
  double *x[CRYO_LANDICE_MG_MAX_LEVELS], *rhs[CRYO_LANDICE_MG_MAX_LEVELS];
  double *res[CRYO_LANDICE_MG_MAX_LEVELS];
  double *mask; /* level 0: 1 for a free dof, 0 for a fixed one */
} cryo_landice_mg;

struct cryo_err;

/* Build the levels from the assembled Jacobian s->matrix (rows [0, nx] x
 * [0, ny]; its halo is filled here) and its column pivots s->pc: Galerkin
 * coarse matrices and their pivots, in s->mg. Errors: CRYO_ERR_ARG without
 * s->mg or ops->halo_block; those of the halo exchange. */
int cryo_landice_mg_setup(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const cryo_comm_ops *ops,
                          cryo_landice_mg *mg, struct cryo_err *err);

/* x = B rhs, B one V-cycle (symmetric positive definite), node rows [0, nx]
 * x [0, ny] of level 0; x's halo is overwritten. Returns the status of the
 * halo exchanges. */
int cryo_landice_mg_apply(const cryo_landice_mg *mg, const cryo_landice_params *p,
                          const cryo_comm_ops *ops, const double *rhs, double *x);

/* ---- drivers (host code calling kernels, halo and reductions) ---- */

/* Compute res = R(vel) at node rows [0,nx] x [0,ny] (Dirichlet rows zero).
 * vel must have a filled halo, and so must s->body_force unless it is NULL. */
int cryo_landice_residual(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, double *res,
                          struct cryo_err *err);

/* Assemble the Jacobian dR/dU at vel (halo filled) into s->matrix. */
int cryo_landice_jacobian(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const double *vel, struct cryo_err *err);

/* y = J x at rows [0,nx] x [0,ny]; x must have a filled halo. */
void cryo_landice_matvec(const cryo_block *b, const cryo_landice_params *p, const double *matrix,
                         const double *x, double *y);

/* Solve R(vel) = 0 by damped Newton (energy / residual line search) with
 * column-block-Jacobi CG, starting from s->vel; on return s->vel, u_surf,
 * v_surf and ubar hold the solution (vel halo filled). s->body_force may be
 * NULL; its halo is filled here, and where it is zero everywhere the solve
 * runs without it (the same bits as without the array). history (may be NULL)
 * receives one record per Newton step and a last one for the converged state
 * (linear_iterations 0, step_length 0); beyond history_capacity records the
 * last slot holds the newest, so that history[*n_log - 1].step is always the
 * number of steps taken; *n_log (may be NULL) the records held. Errors: CRYO_ERR_SOLVER with the
 * residual numbers when Newton reaches neither newton_rtol nor newton_atol in newton_max_iter steps
 * or the line search fails; CRYO_ERR_DATA for a negative, NaN or Inf node or cell thickness;
 * CRYO_ERR_RANGE for bad params or an odd cell count in a periodic direction. */
int cryo_landice_solve_velocity(const cryo_block *b, const cryo_landice_params *p,
                                cryo_landice_state *s, const cryo_comm_ops *ops,
                                cryo_landice_newton_log *history, int history_capacity, int *n_log,
                                struct cryo_err *err);

/* Per owned cell column carrying ice (i, j in [0, nx) x [0, ny)): add
 * C_c (dR/dC_c) . lambda, the adjoint's share of dJ/dlog C_c, to
 * grad[CRYO_CELL]: the 4 bed points of the column's bed face, lambda (layout
 * of vel) interpolated there from the corner nodes' level 0, times C dtau_b/dC
 * (Weertman tau_b itself; Tsai tau_b on the power branch and 0 on the Coulomb
 * branch, the kink counted as Coulomb; Schoof tau_b q^(1/m) / D;
 * docs/landice.md, Adjoint gradient). One gather per cell, no atomics. */
void cryo_landice_sliding_c_gradient(const cryo_block *b, const cryo_landice_params *p,
                                     const double *vel, const double *lambda, const double *bed,
                                     const double *thk_node, const double *thk, const double *beta2,
                                     const double *sliding_c, const double *coulomb_c,
                                     double *grad);

/* Observations of the surface velocity and the regularization weight of the
 * misfit cost (docs/landice.md, Adjoint gradient); node arrays (CRYO_NODE,
 * one value per node, device-resident as the state), node rows [0,nx] x
 * [0,ny] read, a periodic image holding its owner's value. */
typedef struct cryo_landice_misfit {
  const double *u_obs, *v_obs; /* observed surface velocity, m a-1 */
  const double *weight;        /* w_n >= 0, (m a-1)^-2 (1 / sigma^2; 0: no observation) */
  double gamma;                /* Tikhonov weight on |grad log C|^2, >= 0, 1 (J units) */
  double adjoint_rtol;         /* CG tolerance of the adjoint solve, > 0; 0: p->linear_rtol */
} cryo_landice_misfit;

/* Cost and gradient for the basal inversion
 * (docs/landice.md, Adjoint gradient): with s->vel the converged velocity of
 * cryo_landice_solve_velocity for the current s->sliding_c (halo filled),
 *   cost[0] = 1/2 sum over owned surface nodes of w_n |u_s,n - u_obs,n|^2,
 *   cost[1] = gamma/2 sum over cell faces of (log C_i - log C_j)^2 A_f / d_f^2,
 * A_f = dx dy, d_f the distance of the cell centres (reproducible sums), and
 * grad[CRYO_CELL] (owned cells; device array of CRYO_NCELL values, the rest
 * zeroed) = dJ/dlog C per cell, from the adjoint K lambda = -dJ/du solved by
 * the solver's CG with its preconditioner to obs->adjoint_rtol (p->linear_rtol
 * where 0; the Newton steps' solves may be inexact, the gradient is as exact
 * as lambda), at most p->linear_max_iter iterations (*iters, may be NULL) to
 * the relative residual *rel (may be NULL; not converging is not an error). Uses s->matrix, pc, mg,
 * res, trial, du (= lambda on return), the CG vectors and work_cell as scratch; s->vel is not
 * changed; the halo of s->sliding_c is exchanged. Errors: CRYO_ERR_RANGE for a bed without a
 * nonlinear sliding law or gamma < 0; CRYO_ERR_ARG for a missing array; CRYO_ERR_RANGE for
 * adjoint_rtol < 0; CRYO_ERR_DATA for C <= 0; those of the Jacobian and CG. */
int cryo_landice_misfit_gradient(const cryo_block *b, const cryo_landice_params *p,
                                 cryo_landice_state *s, const cryo_comm_ops *ops,
                                 const cryo_landice_misfit *obs, double cost[2], double *grad,
                                 int *iters, double *rel, struct cryo_err *err);

/* ---- basal inversion (kernels/landice_invert.c) ---- */

#define CRYO_LANDICE_LBFGS_MAX 20 /* most (s, y) pairs an inversion keeps */

/* Options of cryo_landice_invert (docs/landice.md, Basal inversion). */
typedef struct cryo_landice_invert_opts {
  int max_iter;         /* L-BFGS iterations, >= 1 */
  int memory;           /* (s, y) pairs kept, 1 .. CRYO_LANDICE_LBFGS_MAX */
  int max_backtrack;    /* step halvings of one line search, >= 1 */
  double gtol;          /* stop when |g| <= gtol |g_0| (2-norm over cells), >= 0 */
  double ftol;          /* stop when J_(k-1) - J_k <= ftol J_(k-1), >= 0 */
  double misfit_target; /* stop when the misfit <= this (discrepancy principle), >= 0; 0: off */
  double step_max;      /* first step: the largest change of log C in a cell, > 0 */
  double armijo;        /* c1 of the sufficient decrease J(a) <= J + c1 a g.d, in (0, 1) */
} cryo_landice_invert_opts;

/* Why cryo_landice_invert stopped. */
enum cryo_landice_invert_stop {
  CRYO_LANDICE_STOP_GTOL = 0,
  CRYO_LANDICE_STOP_FTOL,
  CRYO_LANDICE_STOP_DISCREPANCY,
  CRYO_LANDICE_STOP_MAX_ITER,
  CRYO_LANDICE_STOP_LINE_SEARCH /* no step of max_backtrack halvings decreased J */
};

/* One accepted iterate of the inversion (record 0: the first guess). */
typedef struct cryo_landice_invert_log {
  int iter;                            /* k */
  double cost, misfit, regularization; /* J = misfit + regularization at the iterate */
  double grad_norm;                    /* |dJ/dlog C|, 2-norm over cells */
  double step;                         /* accepted step length along the direction (0 at k = 0) */
  int evaluations;                     /* cost and gradient evaluations so far */
  int adjoint_iterations;              /* CG iterations of this iterate's adjoint solve */
} cryo_landice_invert_log;

/* Doubles of the work block of cryo_landice_invert: (5 + 2 memory) cell
 * planes of CRYO_NCELL and one velocity, CRYO_NNODE 2 (n_layers + 1). */
long cryo_landice_invert_doubles(const cryo_block *b, const cryo_landice_params *p, int memory);

/* Minimize J(log C) = misfit + regularization (cryo_landice_misfit_gradient)
 * over the per-cell log s->sliding_c by L-BFGS (Nocedal 1980) with an Armijo
 * backtracking line search, starting from s->sliding_c (> 0, halo filled or
 * not) and s->vel (any velocity: it starts the first solve). Every trial
 * solve starts from the accepted iterate's velocity, so the iterates depend on
 * nothing but the data; every dot product and norm is a reproducible sum over
 * owned cells: the same bits for any decomposition. On return s->sliding_c
 * (halo filled) and s->vel hold the last accepted iterate. history (may be
 * NULL) receives one record per accepted iterate, record 0 the first guess,
 * up to capacity (beyond it the last slot holds the newest); *n_log (may be
 * NULL) the records held; *stop (may be NULL) an enum
 * cryo_landice_invert_stop. work: cryo_landice_invert_doubles device
 * doubles. A trial whose velocity solve fails counts as no decrease (its
 * step is halved). Errors: CRYO_ERR_RANGE for bad opts; those of
 * cryo_landice_misfit_gradient and, at the first guess, of the solve. */
int cryo_landice_invert(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                        const cryo_comm_ops *ops, const cryo_landice_misfit *obs,
                        const cryo_landice_invert_opts *opts, double *work,
                        cryo_landice_invert_log *history, int capacity, int *n_log, int *stop,
                        struct cryo_err *err);

/* Remove marine ice that nothing holds (kernels/landice_icebergs.c): the
 * ice columns not connected, through shared nodes, to a column with a
 * grounded share or on a closed domain edge. Their thickness goes to the
 * calving term of s->budget, and thk_node, usrf and grounded_fraction are
 * recomputed (halos filled). Nothing to do unless marine and without a
 * no-slip bed. *n_removed (may be NULL): columns removed on all ranks;
 * *n_sweeps (may be NULL): propagation sweeps (one ring of columns each).
 * Uses s->work_cell as scratch. */
int cryo_landice_remove_icebergs(const cryo_block *b, const cryo_landice_params *p,
                                 cryo_landice_state *s, const cryo_comm_ops *ops,
                                 long long *n_removed, int *n_sweeps, struct cryo_err *err);

/* Every node row [0,nx] x [0,ny]: thk_node = mean thickness of the existing
 * adjacent cells that carry ice (thk >= min_thickness), 0 if none (a margin
 * is a cliff of the marginal cells' thickness); usrf = lower surface +
 * thk_node, the lower surface the bed or, where marine ice floats,
 * z_sl - (rho_i / rho_w) thk_node. */
void cryo_landice_thickness_nodes(const cryo_block *b, const cryo_landice_params *p,
                                  const double *thk, const double *bed, double *thk_node,
                                  double *usrf);

/* Advance s->thk by p->dt seconds: dH/dt + div(H ubar) = smb - basal_melt,
 * upwind finite volumes with CFL-limited sub-steps (count in *n_sub, may be
 * NULL), H >= 0; basal melt acts on the floating share of marine ice
 * (p->melt_cells) and is first set to the MISMIP+ rate when p->melt_source
 * says so; ice outside s->calving_mask is removed; each term is added to
 * s->budget. Then thk_node and usrf from the new thickness. */
int cryo_landice_evolve_thickness(const cryo_block *b, const cryo_landice_params *p,
                                  cryo_landice_state *s, const cryo_comm_ops *ops, int *n_sub,
                                  struct cryo_err *err);

/* CRYO_ERR_RANGE naming dt, the limit and the node when p->dt is more than 2
 * times the advective limit 1 / max(|u|/dx + |v|/dy) of the velocity s->ubar
 * just solved (docs/landice.md, Thickness evolution); the maximum and its
 * node (the first in global order) are the same for any decomposition. */
int cryo_landice_check_advective_limit(const cryo_block *b, const cryo_landice_params *p,
                                       const cryo_landice_state *s, const cryo_comm_ops *ops,
                                       struct cryo_err *err);

/* Reproducible global sum of a cell field over owned cells [0,nx) x [0,ny)
 * (fixed-point, cryo_reprosum.h): the same bits for any decomposition. */
int cryo_landice_cell_sum(const cryo_block *b, const double *w, const cryo_comm_ops *ops,
                          double *sum, struct cryo_err *err);

/* Total ice volume sum(thk) dx dy over owned cells, m3 (reproducible sum). */
int cryo_landice_volume(const cryo_block *b, const cryo_landice_state *s, const cryo_comm_ops *ops,
                        double *volume, struct cryo_err *err);

/* The budget terms summed over owned cells (reproducible sums), m3 of ice,
 * indexed by enum cryo_landice_budget; uses s->work_cell as scratch. Over a
 * run, volume change = smb - melt - calving - outflow to rounding. */
int cryo_landice_budget(const cryo_block *b, const cryo_landice_state *s, const cryo_comm_ops *ops,
                        double terms[CRYO_LANDICE_BUDGET_COUNT], struct cryo_err *err);

/* Fill bed, thk_node, usrf, beta2 (nodes, halo included), thk (cells) for
 * the analytic cases (p->geometry_case, docs/benchmarks.md) and set p->slope_x,
 * p->slope_y, and p->no_slip for ISMIP-HOM (A: 1, C: 0); smb, basal_melt 0,
 * calving_mask 1.
 * Needs periodic x and y; ISMIP-HOM needs nx_global dx = ny_global dy = L. */
int cryo_landice_geometry(const cryo_block *b, cryo_landice_params *p, cryo_landice_state *s,
                          struct cryo_err *err);

/* The ranges of the numeric parameters (kernels/cryo_params.h): *t, count. */
int cryo_landice_param_ranges(const cryo_param_range **t);

/* Check params ranges (CRYO_ERR_RANGE naming the key and its range: the
 * table of cryo_landice_param_ranges, then the enumerations). */
int cryo_landice_params_check(const cryo_landice_params *p, struct cryo_err *err);

#endif
