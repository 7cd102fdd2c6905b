/* Sea-ice dynamical core: viscous-plastic rheology solved by the mEVP
 * iteration (docs/seaice.md, after neXtSIM-DG: Jendersie et al. 2025, Eq. 1-3 and
 * Listing 1), as kernels over one rank's block (kernels/cryo_block.h).
 *
 * Discretization on uniform dx x dy rectangles:
 *   velocity (u, v)      nodes, bilinear cG1, lumped node mass dx dy;
 *   stress s11, s12, s22 cells, dG with 3 Legendre coefficients
 *                        phi = {1, X, Y}, X = 2 (x - x_c) / dx, Y = 2 (y - y_c) / dy,
 *                        stored a[cell * 3 + k];
 *   thickness h, concentration a
 *                        cells, dG0 (1 coefficient) or dG1 (3, same basis);
 *   quadrature           2 x 2 Gauss points at X, Y = +-1/sqrt(3).
 * Cells with mask 0 (land, or halo outside the domain) are inactive; a node
 * moves only if its 4 cells are all active, else its velocity is 0.
 *
 * One macro step (cryo_seaice_step): n_evp times [stress kernel over all cells
 * including the halo ring, velocity kernel over nodes [0,nx] x [0,ny], halo
 * exchange of (u, v)], then upwind advection of h and a. Every cell and node
 * value is computed with the same arithmetic whichever rank computes it, so
 * results do not depend on the decomposition.
 *
 * Status values returned here are cryo_status codes (component/cryodyn.h);
 * this header includes neither MPI nor NetCDF.
 */
#ifndef CRYO_SEAICE_H
#define CRYO_SEAICE_H

#include <stddef.h>

#include "cryo_block.h"

struct cryo_err;

/* max and min as plain comparisons, for device code: GCC 12 turns fmax/fmin
 * into calls to the device libm. (A NaN in x gives y.) */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline double cryo_seaice_max(double x, double y) {
  return x > y ? x : y;
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline double cryo_seaice_min(double x, double y) {
  return x < y ? x : y;
}

typedef struct cryo_seaice_params {
  double dt;         /* advective (macro) time step, s */
  int n_evp;         /* mEVP sub-iterations per macro step */
  double alpha;      /* mEVP stress relaxation parameter, > 0 */
  double beta;       /* mEVP velocity relaxation parameter, > 0 */
  double pstar;      /* ice strength P*, N m-2 */
  double c_strength; /* strength concentration parameter C */
  double ecc;        /* ellipse aspect ratio e */
  double delta_min;  /* smooth lower bound of Delta, s-1 */
  double rho_ice;    /* kg m-3 */
  double rho_air;    /* kg m-3 */
  double rho_ocean;  /* kg m-3 */
  double c_air;      /* air-ice drag coefficient */
  double c_ocean;    /* ocean-ice drag coefficient */
  double coriolis;   /* Coriolis parameter f, s-1 */
  double h_min;      /* floor of H in the momentum equation, m */
  int tracer_order;  /* 0: h and a in dG0, 1: in dG1 */
  int stress_single; /* 1: the stress update works in single precision (state stays double) */
} cryo_seaice_params;

/* Number of dG coefficients of h and a for a tracer order (0 -> 1, 1 -> 3). */
#define CRYO_SEAICE_NA(order) ((order) == 1 ? 3 : 1)
/* Number of dG coefficients of each stress component. */
#define CRYO_SEAICE_NS 3

/* Every array of the sea-ice state: device addresses (host addresses in CPU
 * builds), sizes from the block: cells CRYO_NCELL(b) * nlev, nodes
 * CRYO_NNODE(b) * nlev; cryo_seaice_arrays() lists them with their nlev. */
typedef struct cryo_seaice_state {
  double *u, *v;           /* node velocity, m s-1 */
  double *u_n, *v_n;       /* node velocity at the start of the macro step, m s-1 */
  double *s11, *s12, *s22; /* stress dG coefficients, N m-1 (vertically integrated) */
  double *h;               /* ice thickness dG coefficients (cell mean first), m */
  double *a;               /* ice concentration dG coefficients, 1 */
  double *uair, *vair;     /* node wind velocity, m s-1 */
  double *uocn, *vocn;     /* node ocean velocity, m s-1 */
  double *mask;            /* cell: 1 active ocean, 0 land or outside the domain */
  double *shear;           /* cell-centre shear rate, s-1 */
  double *divergence;      /* cell-centre divergence rate, s-1 */
  double *h_work, *a_work; /* advection scratch, same layout as h and a */
} cryo_seaice_state;

enum {
  CRYO_SEAICE_PROGNOSTIC = 0, /* restart and output */
  CRYO_SEAICE_FORCING,        /* set from outside before each step */
  CRYO_SEAICE_STATIC,         /* set once (mask) */
  CRYO_SEAICE_DIAGNOSTIC,     /* filled by cryo_seaice_diag_rates */
  CRYO_SEAICE_WORK            /* scratch, no meaning between steps */
};

typedef struct {
  const char *name;
  cryo_location loc;
  int nlev;
  int role;                                      /* CRYO_SEAICE_PROGNOSTIC ... CRYO_SEAICE_WORK */
  size_t offset;                                 /* offsetof(cryo_seaice_state, member) */
  const char *units, *standard_name, *long_name; /* standard_name NULL where CF has none */
} cryo_seaice_array_info;

/* Fill p with the Mehlmann et al. (2021) cyclone benchmark values
 * (docs/benchmarks.md): dt 120 s, 100 mEVP iterations, alpha = beta = 800. */
void cryo_seaice_params_cyclone(cryo_seaice_params *p);

/* CRYO_OK, or CRYO_ERR_RANGE recorded in err naming the first parameter out of
 * range and its allowed range. */
int cryo_seaice_params_check(const cryo_seaice_params *p, struct cryo_err *err);

/* Set *table to the description of every array of cryo_seaice_state for this
 * tracer order and return how many there are. */
int cryo_seaice_arrays(const cryo_seaice_params *p, const cryo_seaice_array_info **table);

/* One advective macro step (docs/seaice.md): halo exchange of h, a, stress and
 * velocity; u_n = u; n_evp mEVP iterations; upwind transport of h and a with
 * the final velocity (dG0: forward Euler; dG1: limited, Heun RK2), then
 * h >= 0, 0 <= a <= 1. Needs the forcing and mask (with halos) set. Returns
 * CRYO_OK or the first failing status of an ops callback. */
int cryo_seaice_step(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                     const cryo_comm_ops *ops);

/* The transport part of the macro step alone: h and a carried by the node
 * velocity (u, v) over dt (dG0: upwind, forward Euler; dG1: limited upwind dG,
 * Heun RK2), then h >= 0, 0 <= a <= 1. h, a need their halo filled on entry.
 * Returns CRYO_OK or the first failing status of an ops callback. */
int cryo_seaice_transport(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                          const cryo_comm_ops *ops);

/* mEVP stress update (Jendersie et al. 2025, Listing 1) over every cell with mask 1 including
 * the halo ring: strain of the bilinear velocity at the Gauss points, VP stress
 * with P = P* h exp(-C (1 - a)) and smooth Delta, relaxation
 * s += (proj(s_vp) - s) / alpha onto the 3 dG coefficients. */
void cryo_seaice_stress_kernel(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                               const double *v, const double *h, const double *a,
                               const double *mask, double *s11, double *s12, double *s22);

/* mEVP velocity update (docs/seaice.md) over nodes [0,nx] x [0,ny], in place in
 * (u, v): divergence of stress gathered from the node's 4 cells in fixed order,
 * air drag, semi-implicit ocean drag, Coriolis with sea-surface tilt (implicit).
 * Nodes not surrounded by 4 active cells get u = v = 0. */
void cryo_seaice_velocity_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                 const double *s11, const double *s12, const double *s22,
                                 const double *h, const double *a, const double *mask,
                                 const double *uair, const double *vair, const double *uocn,
                                 const double *vocn, const double *u_n, const double *v_n,
                                 double *u, double *v);

/* u_n = u, v_n = v at every node, halo included: the start of a macro step. */
void cryo_seaice_velocity_save_kernel(const cryo_block *b, const double *u, const double *v,
                                      double *u_n, double *v_n);

/* Upwind dG0 finite-volume transport over owned cells (Jendersie et al. 2025, Eq. 1 without
 * sources): h_work, a_work = h, a - dt/area * net outflux, face velocities from
 * the mean of the face's two nodes, zero flux across faces next to a mask-0
 * cell. Needs h, a, mask valid in the halo. */
void cryo_seaice_advect_kernel(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                               const double *v, const double *mask, const double *h,
                               const double *a, double *h_work, double *a_work);

/* dG1 transport stage (seaice_advect_dg1.c) over owned cells:
 * out = w_base base + (1 - w_base) (q + dt L(q)) for q = h and a, L the upwind
 * dG1 transport operator; out may be base. Heun's RK2 is stage 1 with
 * w_base = 0 into the work arrays, stage 2 with w_base = 1/2, base = h, q = work,
 * out = h; h, a, mask valid in the halo. */
void cryo_seaice_advect_dg1_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                   const double *u, const double *v, const double *mask,
                                   double w_base, const double *h_base, const double *a_base,
                                   const double *h, const double *a, double *h_out, double *a_out);

/* Minmod limiter of the dG1 slopes of h and a over owned active cells against
 * the neighbours' means (halo valid); means unchanged. */
void cryo_seaice_limit_dg1_kernel(const cryo_block *b, const double *mask, double *h, double *a);

/* Owned cells: mean h >= 0 and 0 <= mean a <= 1 by clipping, then slopes scaled
 * down so that the linear fields keep those bounds over the whole cell. */
void cryo_seaice_bound_dg1_kernel(const cryo_block *b, double *h, double *a);

/* dG0, owned cells: h = max(h_work, 0), a = min(max(a_work, 0), 1). */
void cryo_seaice_advect_finish_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                      const double *h_work, const double *a_work, double *h,
                                      double *a);

/* Owned cells: divergence u_x + v_y and shear sqrt((u_x - v_y)^2 + (u_y + v_x)^2)
 * of the bilinear velocity at the cell centre, s-1; 0 where mask is 0. */
void cryo_seaice_diag_rates(const cryo_block *b, const double *u, const double *v,
                            const double *mask, double *shear, double *divergence);

/* Global totals over owned active cells, independent of the decomposition:
 * volume = sum h dx dy (m3), area = sum a dx dy (m2) through the reproducible
 * sum, max_speed = max |(u, v)| over owned nodes (m s-1). */
int cryo_seaice_diag_totals(const cryo_seaice_params *p, const cryo_block *b,
                            const cryo_seaice_state *s, const cryo_comm_ops *ops, double *volume,
                            double *area, double *max_speed);

/* Mehlmann cyclone wind and ocean gyre (seaice_cyclone.h) at every node of the
 * block, halo included, at time t (s since the start of the benchmark). */
void cryo_seaice_forcing_cyclone(const cryo_block *b, double t, double *uair, double *vair,
                                 double *uocn, double *vocn);

/* Node forcing over nodes [0,nx] x [0,ny] as the mean of the 4 surrounding
 * cell-centred values (cell arrays need their halo filled). */
void cryo_seaice_forcing_to_nodes(const cryo_block *b, const double *uair_c, const double *vair_c,
                                  const double *uocn_c, const double *vocn_c, double *uair,
                                  double *vair, double *uocn, double *vocn);

/* Owned cells: the fields sent to an ocean (seaice_coupling.c): ice velocity
 * (mean of the 4 nodes), concentration and thickness (cell means), and the
 * stress of the ocean on the ice A rho_o C_o |u_o - u| (u_o - u) averaged
 * from the nodes, N m-2; 0 where mask is 0. */
void cryo_seaice_coupling_fields(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                                 const double *v, const double *uocn, const double *vocn,
                                 const double *h, const double *a, const double *mask, double *uice,
                                 double *vice, double *aice, double *hice, double *taux,
                                 double *tauy);

#endif
