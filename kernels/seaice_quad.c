/* mEVP stress and velocity updates on general quadrilateral cells
 * (docs/seaice.md, Curvilinear grids on the sphere): the updates of
 * seaice_stress.c and seaice_velocity.c with each cell's bilinear map
 * (kernels/seaice.h, geometry layout) in place of dx x dy rectangles.
 *
 * Stress, per cell with ice (ice_mask 2): the corner velocities rotated into the cell's
 * frame; at each 2x2 Gauss point the gradient of the bilinear velocity,
 * (u_x, u_y) = (u_X, u_Y) J^-1, the strain, the VP stress; its projection on
 * {1, X, Y} in reference coordinates (weights 1/4, 3/4 X, 3/4 Y as on the
 * rectangles: the L2 projection exactly on parallelograms, a second-order one
 * on smooth grids), relaxed with 1/alpha.
 *
 * Velocity, per node with 4 ocean cells, one of them with ice: the weak divergence of each cell's
 * stress against the node's basis function phi,
 *   F = -int_K sigma . grad(phi) dA = -sum_g sigma(X_g) . (det J J^-T grad_X phi)(X_g),
 * where det J J^-T grad_X phi = (phi_X y_Y - phi_Y y_X, phi_Y x_X - phi_X x_Y) is
 * polynomial, so the 2x2 Gauss points integrate it exactly; F rotated into the
 * node's grid frame. The lumped mass is rho_i max(H, h_min) times the node's
 * area sum_K int_K phi det J = sum_K (d0 + (d1 X_k + d2 Y_k) / 3), H the
 * area-weighted mean of the cells' tracers at the corner; Coriolis from fcor.
 * On rectangles both reduce to the rectangle kernels' formulas, and so do the
 * options these kernels have: the turning angle, the tensile strength and
 * the adaptive EVP (alpha from the cell's area 4 d0).
 *
 * Minimum bytes (dG0 tracers, doubles): stress 184 B per cell as on the
 * rectangles plus the 14 geometry values, 296 B; velocity 160 B per node plus
 * the 14 geometry values of its cells (each shared by 4 nodes) and fcor,
 * 280 B. With the stress and alpha stored as float (seaice_quad_single.c,
 * kernels/seaice_store.h) the stress kernel moves 72 B and the velocity
 * kernel 36 B less per cell.
 */
#include <math.h>

#include "cryo_acc.h"
#include "seaice.h"
#include "seaice_quad_cell.h"
#include "seaice_store.h"

static quad_stress_args quad_stress_dev;
CRYO_DEVICE_ARGS(quad_stress_dev)

/* Cell index e over the whole array, halo ring included; its lower-left node
 * is e + j + 1 (rows of nodes are one longer). */
#define QUAD_STRESS_LOOP(name, na, ad)                                                             \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP                                                                         \
    for (long e = 0; e < quad_stress_dev.ncell; ++e) {                                             \
      const quad_stress_args *g = &quad_stress_dev;                                                \
      CRYO_OPAQUE(g);                                                                              \
      if (g->ice_mask[e] == 2.0)                                                                   \
        quad_stress_cell(e, e + (int)e / (int)g->nxc, g->nxc + 1, g, NULL, na, ad);                \
    }                                                                                              \
  }
QUAD_STRESS_LOOP(quad_stress_dg0, 1, 0)
QUAD_STRESS_LOOP(quad_stress_dg1, 3, 0)
QUAD_STRESS_LOOP(quad_stress_dg0_aevp, 1, 1)
QUAD_STRESS_LOOP(quad_stress_dg1_aevp, 3, 1)

void SEAICE_STORE_NAME(cryo_seaice_quad_stress_kernel)(const cryo_seaice_params *p,
                                                       const cryo_block *b, cryo_seaice_state *s) {
  const double re2 = 1.0 / (p->ecc * p->ecc), cpi = p->aevp_c * CRYO_PI;
  const quad_stress_args fresh = {
      {p->pstar, p->c_strength, 1.0 + re2, 1.0 - re2, re2, p->delta_min * p->delta_min,
       1.0 / p->alpha, 1.0 + p->tensile_k, 1.0 - p->tensile_k,
       p->aevp_cstar * cpi * cpi * p->dt / p->rho_ice, p->h_min, p->aevp_alpha_min},
      b->nx + 2,
      CRYO_NCELL(b),
      s->u,
      s->v,
      s->h,
      s->a,
      s->ice_mask,
      s->geom,
      SEAICE_STORED(s, s11),
      SEAICE_STORED(s, s12),
      SEAICE_STORED(s, s22),
      SEAICE_STORED(s, alpha_evp)};
  cryo_device_args_acquire(&quad_stress_dev, &fresh, sizeof fresh);
  if (p->adaptive_evp)
    (p->tracer_order == 1 ? quad_stress_dg1_aevp : quad_stress_dg0_aevp)();
  else
    (p->tracer_order == 1 ? quad_stress_dg1 : quad_stress_dg0)();
  cryo_device_args_release();
}

typedef struct {
  double dt, beta, rho_ice, h_min;
  double tau_air;    /* rho_a C_a, kg m-3 */
  double drag_o;     /* rho_o C_o, kg m-3 */
  double cosw, sinw; /* cos, sin of the turning angle theta (its sign follows f per node) */
} quad_velocity_consts;

/* Launch arguments of the velocity update (kernels/cryo_acc.h, no-map launches), one
 * struct per node set as in seaice_velocity.c. */
typedef struct {
  quad_velocity_consts k;
  long nx; /* owned cells per row */
  cryo_seaice_node_set nodes;
  const seaice_store *s11, *s12, *s22;
  const double *h, *a, *ice_mask, *geom, *fcor, *uair, *vair, *uocn, *vocn, *u_n, *v_n;
  const seaice_store *alpha_evp; /* NULL without the adaptive EVP */
  double *u, *v;
} quad_velocity_args;

/* Force, area and area-weighted tracers of cell q at its corner k = (Xk, Yk). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
quad_corner(long q, int k, double Xk, double Yk, int na, const double *geom,
            const seaice_store *s11, const seaice_store *s12, const seaice_store *s22,
            const double *h, const double *a, double *fx, double *fy, double *area, double *ha,
            double *aa) {
  const double *g = geom + q * CRYO_SEAICE_NGEOM;
  const long i = q * 3;
  double cx = 0.0, cy = 0.0;
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    const double X = (m & 1) ? QUAD_GAUSS : -QUAD_GAUSS;
    const double Y = (m & 2) ? QUAD_GAUSS : -QUAD_GAUSS;
    const quad_jac J = quad_jacobian(g, X, Y);
    const double phX = 0.25 * Xk * (1.0 + Yk * Y), phY = 0.25 * Yk * (1.0 + Xk * X);
    const double g1 = phX * J.yY - phY * J.yX, g2 = phY * J.xX - phX * J.xY;
    const double t11 = s11[i] + s11[i + 1] * X + s11[i + 2] * Y;
    const double t12 = s12[i] + s12[i + 1] * X + s12[i + 2] * Y;
    const double t22 = s22[i] + s22[i + 1] * X + s22[i + 2] * Y;
    cx -= t11 * g1 + t12 * g2;
    cy -= t12 * g1 + t22 * g2;
  }
  double nxv, nyv;
  quad_to_node(g, k, cx, cy, &nxv, &nyv);
  *fx += nxv;
  *fy += nyv;
  double d0, d1, d2;
  quad_det_coeffs(g, &d0, &d1, &d2);
  const double ak = d0 + (d1 * Xk + d2 * Yk) * (1.0 / 3.0);
  double hk = h[q], ac = a[q];
  if (na == 3) {
    double xc, yc;
    quad_centroid(d0, d1, d2, &xc, &yc);
    const double wx = Xk * (1.0 / 3.0) - xc, wy = Yk * (1.0 / 3.0) - yc;
    hk = h[i] + h[i + 1] * wx + h[i + 2] * wy;
    ac = a[i] + a[i + 1] * wx + a[i + 2] * wy;
  }
  *area += ak;
  *ha += ak * hk;
  *aa += ak * ac;
}

/* The update of node n (upper-right cell cur, rows of nxc cells) with launch
 * arguments g, read where they are used: through a copy of g made opaque
 * (CRYO_OPAQUE, kernels/cryo_acc.h) for each cell's gather and again for the
 * solve, so that GCC neither hoists them out of the node loop nor keeps them
 * live across the node: 130 -> 96 registers on the GPU (dG0; dG1 164 -> 94;
 * docs/performance.md, "Stress kernel registers"), every value computed by
 * the same operations in the same order. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
quad_velocity_node(long n, long cur, long nxc, const quad_velocity_args *g, int na) {
  const long cul = cur - 1, clr = cur - nxc, cll = clr - 1;
  /* 0 next to land, 1 with open water all around (ice_mask values 0, 1, 2) */
  const double kind = g->ice_mask[cll] * g->ice_mask[clr] * g->ice_mask[cul] * g->ice_mask[cur];
  if (kind == 0.0 || kind == 1.0) {
    g->u[n] = 0.0;
    g->v[n] = 0.0;
    return;
  }
  double fx = 0.0, fy = 0.0, area = 0.0, ha = 0.0, aa = 0.0;
  /* the node is corner 3 of (i-1,j-1), 2 of (i,j-1), 1 of (i-1,j), 0 of (i,j) */
  const long cells[4] = {cll, clr, cul, cur};
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const quad_velocity_args *gq = g;
    CRYO_OPAQUE(gq);
    quad_corner(cells[q], 3 - q, (q & 1) ? -1.0 : 1.0, (q & 2) ? -1.0 : 1.0, na, gq->geom, gq->s11,
                gq->s12, gq->s22, gq->h, gq->a, &fx, &fy, &area, &ha, &aa);
  }
  const quad_velocity_args *gf = g;
  CRYO_OPAQUE(gf);
  const double ra = 1.0 / area;
  fx *= ra;
  fy *= ra;
  const double ac = cryo_min(cryo_max(aa * ra, 0.0), 1.0);
  const double m = gf->k.rho_ice * cryo_max(ha * ra, gf->k.h_min);
  const double ua = gf->uair[n], va = gf->vair[n], uo = gf->uocn[n], vo = gf->vocn[n];
  const double up = gf->u[n], vp = gf->v[n];
  const double tau = ac * gf->k.tau_air * sqrt(ua * ua + va * va);
  const double c = ac * gf->k.drag_o * sqrt((uo - up) * (uo - up) + (vo - vp) * (vo - vp));
  double beta = gf->k.beta;
  if (gf->alpha_evp) {
    /* adaptive EVP: the mean alpha of the node's cells with ice (seaice_velocity.c) */
    const long cells[4] = {cll, clr, cul, cur};
    double sum = 0.0, count = 0.0;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q)
      if (gf->ice_mask[cells[q]] == 2.0) sum += gf->alpha_evp[cells[q]], count += 1.0;
    beta = sum / count;
  }
  const double gc = gf->k.dt * m * gf->fcor[n];
  /* turning angle as on the rectangles (seaice_velocity.c), theta' = theta sign(f) */
  const double sinw = gf->fcor[n] < 0.0 ? -gf->k.sinw : gf->k.sinw;
  const double d = (1.0 + beta) * m + gf->k.dt * c * gf->k.cosw;
  const double gt = gc + gf->k.dt * c * sinw;
  const double ru = m * (beta * up + gf->u_n[n]) +
                    gf->k.dt * (fx + tau * ua + c * (gf->k.cosw * uo - sinw * vo)) - gc * vo;
  const double rv = m * (beta * vp + gf->v_n[n]) +
                    gf->k.dt * (fy + tau * va + c * (sinw * uo + gf->k.cosw * vo)) + gc * uo;
  const double rdet = 1.0 / (d * d + gt * gt);
  gf->u[n] = (d * ru + gt * rv) * rdet;
  gf->v[n] = (d * rv - gt * ru) * rdet;
}

static quad_velocity_args quad_velocity_dev[3];
CRYO_DEVICE_ARGS(quad_velocity_dev)

#define QUAD_VELOCITY_LOOP(name, na, which)                                                        \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP_N(quad_velocity_dev[which].nodes.count)                                 \
    for (long e = 0; e < quad_velocity_dev[which].nodes.count; ++e) {                              \
      const quad_velocity_args *g = &quad_velocity_dev[which];                                     \
      CRYO_OPAQUE(g);                                                                              \
      const int nx = (int)g->nx;                                                                   \
      int i, j;                                                                                    \
      cryo_seaice_node_ij(&g->nodes, which, e, &i, &j);                                            \
      quad_velocity_node((long)(j + 1) * (nx + 3) + i + 1, (long)(j + 1) * (nx + 2) + i + 1,       \
                         nx + 2, g, na);                                                           \
    }                                                                                              \
  }
QUAD_VELOCITY_LOOP(quad_velocity_dg0_all, 1, CRYO_SEAICE_NODES_ALL)
QUAD_VELOCITY_LOOP(quad_velocity_dg0_ring, 1, CRYO_SEAICE_NODES_RING)
QUAD_VELOCITY_LOOP(quad_velocity_dg0_inner, 1, CRYO_SEAICE_NODES_INNER)
QUAD_VELOCITY_LOOP(quad_velocity_dg1_all, 3, CRYO_SEAICE_NODES_ALL)
QUAD_VELOCITY_LOOP(quad_velocity_dg1_ring, 3, CRYO_SEAICE_NODES_RING)
QUAD_VELOCITY_LOOP(quad_velocity_dg1_inner, 3, CRYO_SEAICE_NODES_INNER)

/* [tracer_order][which] */
static void (*const quad_velocity_loops[2][3])(void) = {
    {quad_velocity_dg0_all, quad_velocity_dg0_ring, quad_velocity_dg0_inner},
    {quad_velocity_dg1_all, quad_velocity_dg1_ring, quad_velocity_dg1_inner}};

void SEAICE_STORE_NAME(cryo_seaice_quad_velocity_kernel)(const cryo_seaice_params *p,
                                                         const cryo_block *b,
                                                         cryo_seaice_nodes which,
                                                         cryo_seaice_state *s) {
  quad_velocity_args fresh = {{p->dt, p->beta, p->rho_ice, p->h_min, p->rho_air * p->c_air,
                               p->rho_ocean * p->c_ocean, cos(p->turning_angle * (CRYO_PI / 180.0)),
                               sin(p->turning_angle * (CRYO_PI / 180.0))},
                              b->nx,
                              {0},
                              SEAICE_STORED(s, s11),
                              SEAICE_STORED(s, s12),
                              SEAICE_STORED(s, s22),
                              s->h,
                              s->a,
                              s->ice_mask,
                              s->geom,
                              s->fcor,
                              s->uair,
                              s->vair,
                              s->uocn,
                              s->vocn,
                              s->u_n,
                              s->v_n,
                              p->adaptive_evp ? SEAICE_STORED(s, alpha_evp) : NULL,
                              s->u,
                              s->v};
  cryo_seaice_node_set_make(b, which, &fresh.nodes);
  cryo_device_args_acquire(&quad_velocity_dev[which], &fresh, sizeof fresh);
  quad_velocity_loops[p->tracer_order == 1][which]();
  cryo_device_args_release();
}
