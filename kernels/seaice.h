/* Sea-ice dynamical core: viscous-plastic rheology solved by the mEVP
 * iteration (docs/seaice.md, after neXtSIM-DG: Jendersie et al. 2025, Eq. 1-3 and
 * Listing 1), as kernels over one rank's block (base/cryo_block.h).
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
 * exchange of (u, v)] (the velocity kernel in two launches where the
 * exchange overlaps: cryo_seaice_velocity_halo), then upwind advection of h
 * and a. Every cell and node
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
#include "cryo_math.h"
#include "cryo_params.h"

struct cryo_err;

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
  double a_min;      /* mean concentration at or below which a cell is open water to the mEVP */
  int tracer_order;  /* 0: h and a in dG0, 1: in dG1 */
  int stress_single; /* 1: the stress update works in single precision (state stays double) */
  int state_single;  /* 1: the mEVP sub-cycle stores its stress and alpha as float, in the
                        state's *_f arrays (docs/seaice.md, Storage precision) */
  int quad;          /* 1: general quadrilateral cells from the geometry arrays (a grid file),
                        0: uniform dx x dy rectangles (the built-in box) */
  /* Ocean-ice coupling terms (docs/seaice.md, Ocean-ice coupling terms) */
  double turning_angle; /* theta of the ice-ocean stress, degrees, with the sign of f (CICE) */
  int ssh_tilt;         /* 1: tilt -m g grad(ssh) from the received sea-surface height,
                           0: the geostrophic approximation m f k x u_o */
  double gravity;       /* m s-2 */
  /* Adaptive EVP (docs/seaice.md, Adaptive EVP; Kimmritz et al. 2016) */
  int adaptive_evp;      /* 1: alpha = beta per cell from the local stability parameter */
  double aevp_c;         /* c of gamma = zeta (c pi)^2 dt / (A_c m) */
  double aevp_cstar;     /* alpha beta = c* gamma */
  double aevp_alpha_min; /* lower bound of alpha and beta */
  /* Landfast ice (docs/seaice.md, Landfast ice) */
  int basal_stress;    /* 1: grounding stress of Lemieux et al. (2015) from the water depth */
  double basal_k1;     /* critical thickness h_c = a h_w / k1 */
  double basal_k2;     /* N m-3 */
  double basal_alphab; /* concentration factor of T_b */
  double basal_u0;     /* m s-1, regularization of C_b */
  double tensile_k;    /* k_t, isotropic tensile strength k_t P (Konig Beatty and Holland 2010) */
  /* Brittle Bingham-Maxwell rheology (docs/seaice.md, The BBM rheology; Olason et al. 2022) */
  int rheology;       /* CRYO_SEAICE_RHEOLOGY_VP (mEVP) or CRYO_SEAICE_RHEOLOGY_BBM */
  int n_bbm;          /* elastic sub-steps per advective step */
  double bbm_young;   /* Young's modulus E of undamaged ice, Pa */
  double bbm_poisson; /* Poisson's ratio nu */
  double bbm_lambda0; /* viscous relaxation time lambda_0 of undamaged ice, s */
  int bbm_alpha;      /* exponent alpha of lambda = lambda_0 ((1 - d) e^(-C (1 - A)))^(alpha - 1) */
  double bbm_p0;      /* ridging pressure scale P_0 of P_max = P_0 h^(3/2) e^(-C (1 - A)), Pa */
  double bbm_mu;      /* internal friction coefficient mu of the Mohr-Coulomb envelope */
  double bbm_cohesion_lab; /* cohesion at the lab scale, Pa */
  double bbm_lab_scale;    /* lab scale L_lab of the cohesion c = c_lab sqrt(L_lab / dx), m */
  double bbm_compr_cap;    /* cap of the compressive strength, in units of the cohesion */
  double bbm_t_heal;       /* healing time t_h: d decreases by dt / t_h per step, s */
} cryo_seaice_params;

enum { CRYO_SEAICE_RHEOLOGY_VP = 0, CRYO_SEAICE_RHEOLOGY_BBM = 1 };

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
  double *ice_mask;        /* cell: 0 land, 1 open water, 2 ocean with ice (the cells and
                              nodes the mEVP updates), set by cryo_seaice_ice_cells_kernel */
  /* Geometry of general quadrilateral cells (p->quad only; NULL otherwise),
   * static, computed once by cryo_seaice_geometry (layout below). */
  double *geom; /* cell, CRYO_SEAICE_NGEOM values */
  double *rot;  /* cell, 2: cos, sin of the cell frame's E1 from east */
  double *fcor; /* node: Coriolis parameter 2 Omega sin(lat) (or &cryo_seaice coriolis), s-1 */
  double *nrot; /* node, 2: cos, sin of the node's grid direction e1 from east */
  /* Fields of options (NULL when the option is off). */
  double *ssh;        /* cell: sea-surface height, m, received as forcing (p->ssh_tilt),
                         halo ring filled */
  double *alpha_evp;  /* cell: alpha = beta of the adaptive EVP (p->adaptive_evp), written
                         by the stress kernel for cells with ice, read by the velocity kernel */
  double *bathymetry; /* cell: water depth, m (p->basal_stress), halo ring filled */
  double *damage;     /* cell, dG like h: BBM damage d in [0, 1], 0 undamaged (p->rheology BBM) */
  double *u_avg, *v_avg; /* node: BBM velocity averaged over the sub-steps, which carries the
                            tracers, m s-1 */
  /* p->state_single only (NULL otherwise): the sub-cycle's stress, same layout as s11, s12,
   * s22, copied from them rounded at the start of a macro step and back (exactly) at its
   * end, and alpha_evp in float in place of alpha_evp (which is then NULL). */
  float *s11_f, *s12_f, *s22_f;
  float *alpha_evp_f;
} cryo_seaice_state;

/* General quadrilateral cells (docs/seaice.md, Curvilinear grids on the sphere).
 *
 * Every node n has a unit normal N_n (the sphere's radial direction; +z for
 * a planar grid) and a grid frame: e1_n along the grid line of constant j
 * through it (centred difference of its neighbours' positions, projected onto
 * the tangent plane and normalized; one-sided at the edge of the domain),
 * e2_n = N_n x e1_n. Node velocities and node forcing are components in that
 * frame ("grid directions"); nrot holds e1_n's angle from east.
 *
 * Every cell has its own plane: centre r_c = mean of its 4 corner positions,
 * normal N_c along (r11 - r00) x (r01 - r10), E1 along the tangential part of
 * (r10 + r11 - r00 - r01), E2 = N_c x E1. The corners projected on it,
 * p_k = ((r_k - r_c).E1, (r_k - r_c).E2), define the bilinear map of the
 * reference square [-1,1]^2,
 *   x(X, Y) = x_c + A1 X + A2 Y + A3 X Y,
 *   A1 = (p10 - p00 + p11 - p01)/4, A2 = (p01 - p00 + p11 - p10)/4,
 *   A3 = (p00 - p10 - p01 + p11)/4,
 * whose Jacobian determinant is linear: det = d0 + d1 X + d2 Y with
 * d0 = A1 x A2, d1 = A1 x A3, d2 = A3 x A2 (2-D cross products), so the
 * cell area is 4 d0 and the corner k's share of it, int phi_k det, is
 * d0 + (d1 X_k + d2 Y_k)/3. A node vector (u, v) in the grid frame of corner
 * k has cell-frame components (c_k u - s_k v, s_k u + c_k v), (c_k, s_k) the
 * components of e1 at that corner along (E1, E2), normalized.
 *
 * geom[c * CRYO_SEAICE_NGEOM + ...]: */
enum {
  CRYO_GEOM_A1X = 0,
  CRYO_GEOM_A1Y,
  CRYO_GEOM_A2X,
  CRYO_GEOM_A2Y,
  CRYO_GEOM_A3X,
  CRYO_GEOM_A3Y,
  CRYO_GEOM_C00,
  CRYO_GEOM_S00,
  CRYO_GEOM_C10,
  CRYO_GEOM_S10, /* corner rotations, corners in */
  CRYO_GEOM_C01,
  CRYO_GEOM_S01,
  CRYO_GEOM_C11,
  CRYO_GEOM_S11, /* the order (i,j), (i+1,j), ... */
  CRYO_SEAICE_NGEOM
};
/* Cells outside the domain have all geometry 0. dG1 tracers on such cells use
 * the basis {1, X - Xc, Y - Yc} with (Xc, Yc) = (d1, d2) / (3 d0) the
 * centroid in reference coordinates, so that coefficient 0 is the cell mean
 * and the slopes do not change it; on parallelograms (d1 = d2 = 0) this is the
 * basis {1, X, Y} of the rectangles. */

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
  const char *units, *standard_name, *long_name; /* standard_name "" where CF has none */
} cryo_seaice_array_info;

/* Bit k set: level k of the state array `name` (with nlev levels) changes
 * sign across a north fold, where the grid's i and j directions reverse
 * (docs/seaice.md, The north fold): components along the grid lines, dG
 * slopes, the third column A3 of a cell's map and the cosines and sines of
 * frames against east. A cell's corner rotations move between corners
 * instead (cryo_seaice_geometry_fold). */
unsigned cryo_seaice_array_flip(const char *name, int nlev);

/* Fill p with the Mehlmann et al. (2021) cyclone benchmark values
 * (docs/benchmarks.md): dt 120 s, 100 mEVP iterations, alpha = beta = 800. */
void cryo_seaice_params_cyclone(cryo_seaice_params *p);

/* The ranges of the numeric parameters (kernels/cryo_params.h): *t, count. */
int cryo_seaice_param_ranges(const cryo_param_range **t);

/* CRYO_OK, or CRYO_ERR_RANGE recorded in err naming the first parameter out of
 * range and its allowed range (the table of cryo_seaice_param_ranges). */
int cryo_seaice_params_check(const cryo_seaice_params *p, struct cryo_err *err);

/* Set *table to the description of every array of cryo_seaice_state for this
 * tracer order and return how many there are. */
int cryo_seaice_arrays(const cryo_seaice_params *p, const cryo_seaice_array_info **table);

/* One advective macro step of the viscous-plastic rheology (docs/seaice.md; BBM has
 * cryo_seaice_bbm_step): halo exchange of h, a, stress and
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

/* A halo exchange whose levels change sign across a fold as `sign` says:
 * cryo_seaice_vector_sign for node velocities, cryo_seaice_dg_sign for dG
 * fields (the slopes turn, the means and the stress components do not);
 * drivers without a fold lend no signed exchange. */
extern const int cryo_seaice_vector_sign[1];
extern const int cryo_seaice_dg_sign[3];
int cryo_seaice_halo_signed(const cryo_comm_ops *ops, cryo_location loc, int nlev, int nfield,
                            double *const *fields, const int *sign);

/* The cells the mEVP works on, at the start of a macro step, over every cell
 * including the halo ring (a with its halo filled): ice_mask = 0 on land, 1
 * on open water (mean concentration <= a_min), 2 on ocean with ice; the
 * stress of open water is set to zero, the VP stress of ice without
 * strength, so that the sub-steps need not visit it again. */
void cryo_seaice_ice_cells_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                  cryo_seaice_state *s);

/* mEVP stress update (Jendersie et al. 2025, Listing 1) over every cell with ice_mask 2
 * including the halo ring: strain of the bilinear velocity at the Gauss points, VP stress
 * with P = P* h exp(-C (1 - a)) and smooth Delta (with tensile_k > 0 the shifted ellipse of
 * Konig Beatty and Holland 2010), relaxation s += (proj(s_vp) - s) / alpha onto the 3 dG
 * coefficients. With p->adaptive_evp alpha is the cell's own (Kimmritz et al. 2016),
 * computed from the current strain and written to alpha_evp (else alpha_evp is unused and
 * may be NULL). */
void cryo_seaice_stress_kernel(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                               const double *v, const double *h, const double *a,
                               const double *ice_mask, double *s11, double *s12, double *s22,
                               double *alpha_evp);
/* The same with the stress and alpha stored as float (p->state_single): the arithmetic as
 * p->stress_single says, each stored value rounded once. */
void cryo_seaice_stress_kernel_single(const cryo_seaice_params *p, const cryo_block *b,
                                      const double *u, const double *v, const double *h,
                                      const double *a, const double *ice_mask, float *s11,
                                      float *s12, float *s22, float *alpha_evp);

/* p->state_single, every cell including the halo ring: s11_f, s12_f, s22_f = s11, s12, s22
 * rounded to float (the start of a macro step, after the stress halo exchange), and back
 * (exact: the end of the sub-cycle), so that output, restarts and the halo exchange see the
 * stored values in the double arrays. */
void cryo_seaice_stress_to_single(const cryo_block *b, cryo_seaice_state *s);
void cryo_seaice_stress_from_single(const cryo_block *b, cryo_seaice_state *s);

/* Which of the nodes [0,nx] x [0,ny] a velocity launch updates: all; the
 * ring of the two node rows and columns along each block edge, which hold
 * every line a node halo exchange sends; or the inner nodes, the rest. Ring
 * then inner updates each node once, with the arithmetic of one launch over
 * all, so that the inner update can run while the ring's lines travel
 * (docs/multi-gpu.md, Overlap). The split needs nx, ny >= 4
 * (cryo_seaice_nodes_split). */
typedef enum cryo_seaice_nodes {
  CRYO_SEAICE_NODES_ALL = 0,
  CRYO_SEAICE_NODES_RING = 1,
  CRYO_SEAICE_NODES_INNER = 2
} cryo_seaice_nodes;

/* A set of nodes as up to 4 rectangles laid end to end in one launch index
 * e: rectangle r holds e in [first[r], first[r + 1]) (first[r] = count for
 * unused ones), ni[r] nodes per row from (i0[r], j0[r]), row by row. 8-byte
 * members: it travels inside the kernels' launch arguments. */
typedef struct cryo_seaice_node_set {
  long count;
  long first[4], i0[4], j0[4], ni[4];
} cryo_seaice_node_set;

/* Whether the block is large enough for the ring and inner launches. */
static inline int cryo_seaice_nodes_split(const cryo_block *b) {
  return b->nx >= 4 && b->ny >= 4;
}

/* The node set of `which` on block b (host side). */
void cryo_seaice_node_set_make(const cryo_block *b, cryo_seaice_nodes which,
                               cryo_seaice_node_set *set);

/* Node (*i, *j) of launch index e of the node set `which` (a constant in
 * each launch, so that ALL keeps the index arithmetic of a plain loop over
 * rows and INNER searches no rectangle). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
cryo_seaice_node_ij(const cryo_seaice_node_set *set, cryo_seaice_nodes which, long e, int *i,
                    int *j) {
  if (which == CRYO_SEAICE_NODES_ALL) {
    const int ni = (int)set->ni[0];
    *j = (int)e / ni;
    *i = (int)e - *j * ni;
    return;
  }
  const int r = which == CRYO_SEAICE_NODES_RING
                    ? (e >= set->first[1]) + (e >= set->first[2]) + (e >= set->first[3])
                    : 0;
  const int k = (int)(e - set->first[r]), ni = (int)set->ni[r];
  const int row = k / ni;
  *i = (int)set->i0[r] + k - row * ni;
  *j = (int)set->j0[r] + row;
}

/* mEVP velocity update (docs/seaice.md) over the nodes `which` of [0,nx] x [0,ny], in place in
 * (u, v): divergence of stress gathered from the node's 4 cells in fixed order,
 * air drag, semi-implicit ocean drag (turned by turning_angle), Coriolis with
 * sea-surface tilt (implicit; geostrophic, or from opt->ssh with p->ssh_tilt),
 * beta from opt->alpha_evp with p->adaptive_evp, basal stress from
 * opt->bathymetry with p->basal_stress. opt may be NULL when all three are off.
 * Nodes next to land (an ice_mask 0 among the 4 cells: no slip) or with open
 * water all around (every ice_mask 1) get u = v = 0. */
void cryo_seaice_velocity_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                 cryo_seaice_nodes which, const double *s11, const double *s12,
                                 const double *s22, const double *h, const double *a,
                                 const double *ice_mask, const double *uair, const double *vair,
                                 const double *uocn, const double *vocn, const double *u_n,
                                 const double *v_n, const cryo_seaice_state *opt, double *u,
                                 double *v);
/* The same reading float stress (and opt->alpha_evp_f) (p->state_single). */
void cryo_seaice_velocity_kernel_single(const cryo_seaice_params *p, const cryo_block *b,
                                        cryo_seaice_nodes which, const float *s11, const float *s12,
                                        const float *s22, const double *h, const double *a,
                                        const double *ice_mask, const double *uair,
                                        const double *vair, const double *uocn, const double *vocn,
                                        const double *u_n, const double *v_n,
                                        const cryo_seaice_state *opt, double *u, double *v);

/* u_n = u, v_n = v at every node, halo included: the start of a macro step. */
void cryo_seaice_velocity_save_kernel(const cryo_block *b, const double *u, const double *v,
                                      double *u_n, double *v_n);

/* One velocity update of a sub-step and the node halo exchange of (u, v)
 * that follows it. `velocity` updates the nodes it is given (one of the
 * kernels above with the step's arguments). Where ops lends halo_begin and
 * the block splits, the ring is updated, its lines sent, the inner nodes
 * updated while they travel, then the exchange ends (docs/multi-gpu.md,
 * Overlap); else one update of all nodes, then halo_signed. The same bits
 * either way. Returns CRYO_OK or the first failing ops status. */
typedef void cryo_seaice_velocity_fn(const cryo_seaice_params *p, const cryo_block *b,
                                     cryo_seaice_state *s, cryo_seaice_nodes which);
int cryo_seaice_velocity_halo(const cryo_seaice_params *p, const cryo_block *b,
                              cryo_seaice_state *s, const cryo_comm_ops *ops,
                              cryo_seaice_velocity_fn *velocity);

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

/* The BBM rheology (seaice_bbm.c, seaice_bbm_step.c; docs/seaice.md, The BBM rheology). */

/* One advective macro step with BBM: halo exchanges, healing, n_bbm elastic
 * sub-steps of dt / n_bbm (stress and damage update, the explicit momentum
 * update, average velocity), then the transport of h, a and the damage with
 * the average velocity. Returns CRYO_OK or the first failing ops status. */
int cryo_seaice_bbm_step(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                         const cryo_comm_ops *ops);

/* BBM stress and damage update of one elastic sub-step of dt_e (Olason et
 * al. 2022, Eq. 29-33) over every cell with ice_mask 2, halo ring included,
 * at the 2 x 2 Gauss points, projected back onto the dG coefficients of the
 * stress and the damage. */
void cryo_seaice_bbm_stress_kernel(const cryo_seaice_params *p, const cryo_block *b, double dt_e,
                                   cryo_seaice_state *s);

/* Every cell, halo ring included, at the start of a macro step: healing
 * d -= dt / t_h of the cell mean (bounded at 0, slopes scaled to keep the
 * linear field in [0, 1]); cells without ice (ice_mask != 2) undamaged. */
void cryo_seaice_bbm_heal_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                 cryo_seaice_state *s);

/* Every node: u_avg, v_avg set to 0 when first, then += w (u, v). */
void cryo_seaice_bbm_average_kernel(const cryo_block *b, int first, double w, cryo_seaice_state *s);

/* The BBM cohesion c = c_lab sqrt(L_lab / L) of cells of size L = sqrt(dx dy), Pa. */
double cryo_seaice_bbm_cohesion(const cryo_seaice_params *p, const cryo_block *b);

/* The largest elastic sub-step the damage update and the elastic waves allow,
 * dt_e <= L / c_E with c_E = sqrt(E / (2 (1 + nu) rho_i)), s. */
double cryo_seaice_bbm_max_substep(const cryo_seaice_params *p, const cryo_block *b);

/* Rotation rate of the Earth (sidereal day), s-1. */
#define CRYO_EARTH_OMEGA 7.292115e-5

/* Positions of a grid file's points (host arrays) and the scalars of the
 * geometry, from which cryo_seaice_geometry computes the geometry arrays. */
typedef struct cryo_seaice_grid_points {
  int spherical;  /* 1: lon/lat in degrees on a sphere of radius `radius`; 0: x/y in m, a plane */
  double radius;  /* m */
  double omega;   /* rotation rate of the Earth, s-1: spherical grids get f = 2 omega sin(lat) */
  double f_plane; /* planar grids: the Coriolis parameter of every node, s-1 */
  /* nodes (i, j), i in [-2, nx+2], j in [-2, ny+2] (two rings, so that the
   * frame of a halo node is computed from the same neighbours as by its
   * owner), at [(j + 2) * (nx + 5) + i + 2]; node_ok 1 where the node belongs
   * to the domain (values elsewhere are not read) */
  const double *node_x, *node_y;
  const unsigned char *node_ok;
  /* cell centres in block layout (CRYO_CELL), halo ring included: the
   * directions east and north of a cell are taken there */
  const double *cell_x, *cell_y;
  const unsigned char *cell_ok;
} cryo_seaice_grid_points;

/* The geometry's two point tables, filled on the host from the grid file's
 * points by cryo_seaice_geometry_points and read on the device. nodes:
 * CRYO_SEAICE_GNODE values for each node of the two rings (layout of node_x
 * above), 1 in the domain (else 0), x, y as read, and 5 values the geometry
 * fills (it keeps each node's cosines and sines and its grid direction
 * there). cells: CRYO_SEAICE_GCELL values for each cell in block layout
 * (CRYO_CELL), 1 in the domain (else 0), centre x, y. */
#define CRYO_SEAICE_GNODE 8
#define CRYO_SEAICE_GCELL 3
void cryo_seaice_geometry_points(const cryo_block *b, const cryo_seaice_grid_points *g,
                                 double *nodes, double *cells);
/* Device kernels, once per run, on the tables of cryo_seaice_geometry_points
 * (of g only the scalars are read; nodes is rewritten in place): geom and
 * rot of every cell of the block with all 4 corners in the domain (others
 * 0), fcor and nrot of every node in the domain (others 0), halo ring
 * included, from the node positions alone, so that every rank computes the
 * same values for a cell or node. */
void cryo_seaice_geometry(const cryo_block *b, const cryo_seaice_grid_points *g, double *nodes,
                          const double *cells, double *geom, double *rot, double *fcor,
                          double *nrot);
/* Device reduction: the narrowest owned cell with mask != 0, m: twice the
 * shorter of the half-widths |A1|, |A2| of its map; INFINITY when there is
 * none. */
double cryo_seaice_narrowest_cell(const cryo_block *b, const double *geom, const double *mask);
/* Host code, after the halo exchange of geom with cryo_seaice_array_flip's
 * signs: the cells of the block that a north fold wrote take the corner
 * rotations of their originals' opposite corners (the fold turns a cell by
 * half a turn: corner (i, j) becomes (i+1, j+1), (i+1, j) becomes (i, j+1)). */
void cryo_seaice_geometry_fold(const cryo_block *b, double *geom);
/* Device kernel, after cryo_seaice_geometry on the same node table: the node
 * data from which a kernel computes a cell's geom as it goes
 * (quad_cell_geometry in kernels/seaice_quad_cell.h; cryodyn-bench measures
 * that against the stored geom, docs/performance.md): position (m) and grid
 * direction e1 of every node of the block in the domain, 3 values each. */
void cryo_seaice_node_frames(const cryo_block *b, const cryo_seaice_grid_points *g,
                             const double *nodes, double *pos, double *e1);

/* The kernels of general quadrilateral cells (seaice_quad_*.c): the same
 * updates as their rectangle counterparts above, from the geometry arrays of
 * s; velocity and forcing in the nodes' grid frames, stress in the cells'
 * frames, Coriolis from fcor. */
void cryo_seaice_quad_stress_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                    cryo_seaice_state *s);
void cryo_seaice_quad_velocity_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                      cryo_seaice_nodes which, cryo_seaice_state *s);
/* The same on the float arrays s11_f, s12_f, s22_f, alpha_evp_f (p->state_single). */
void cryo_seaice_quad_stress_kernel_single(const cryo_seaice_params *p, const cryo_block *b,
                                           cryo_seaice_state *s);
void cryo_seaice_quad_velocity_kernel_single(const cryo_seaice_params *p, const cryo_block *b,
                                             cryo_seaice_nodes which, cryo_seaice_state *s);
/* dG0 upwind transport: each face's flux is computed from the geometry of
 * one cell (the face's lower-index cell: its east or north face), so both
 * neighbours use the same value and sum(h area) is conserved to round-off. */
void cryo_seaice_quad_advect_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                    cryo_seaice_state *s);
/* dG1 stage, limiter and bounds as cryo_seaice_advect_dg1_kernel and
 * friends, in the centroid-shifted basis {1, X - Xc, Y - Yc} (seaice_quad_advect_dg1.c). */
void cryo_seaice_quad_advect_dg1_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                        const cryo_seaice_state *s, double w_base,
                                        const double *h_base, const double *a_base, const double *h,
                                        const double *a, double *h_out, double *a_out);
void cryo_seaice_quad_limit_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h,
                                       double *a);
void cryo_seaice_quad_bound_dg1_kernel(const cryo_block *b, const cryo_seaice_state *s, double *h,
                                       double *a);
/* shear and divergence at the cell centres (as cryo_seaice_diag_rates) */
void cryo_seaice_quad_diag_rates(const cryo_block *b, cryo_seaice_state *s);
/* Node forcing in grid frames from cell-centred components: along east and
 * north (east_north = 1; each rotated into its cell's frame with rot) or
 * along the grid's own directions (east_north = 0); then each cell's vector
 * into the node's frame, mean of the node's 4 cells. */
void cryo_seaice_quad_forcing_to_nodes(const cryo_block *b, cryo_seaice_state *s, int east_north,
                                       const double *uair_c, const double *vair_c,
                                       const double *uocn_c, const double *vocn_c);
/* As cryo_seaice_coupling_fields, vectors at the cell centres along east and
 * north (east_north = 1) or the cell's grid directions. */
void cryo_seaice_quad_coupling_fields(const cryo_seaice_params *p, const cryo_block *b,
                                      const cryo_seaice_state *s, int east_north, double *uice,
                                      double *vice, double *aice, double *hice, double *taux,
                                      double *tauy);
/* Node velocity along east and north (output), every node of the block. */
void cryo_seaice_quad_east_north(const cryo_block *b, const cryo_seaice_state *s, double *u_east,
                                 double *v_north);

#endif
