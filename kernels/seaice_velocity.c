/* mEVP velocity update: one fused node kernel (docs/seaice.md; Jendersie et al. 2025,
 * Eq. 2-3).
 *
 * For a node with 4 active cells, with m = rho_i max(H, h_min) and A the
 * node values of the tracers (lumped: mean over the 4 cells of the integral of
 * the tracer against the node's basis function), F = div(sigma) / (dx dy) the
 * weak divergence gathered from the 4 cells in the fixed order (i-1,j-1),
 * (i,j-1), (i-1,j), (i,j), c = A rho_o C_o |u_o - v^(p-1)| (lagged):
 *   (1 + beta) m v^p = m (beta v^(p-1) + v_n) + dt (F + A rho_a C_a |u_a| u_a
 *                      + c (u_o - v^p) - m f k x (v^p - u_o)),
 * a 2x2 system in (u^p, v^p) solved exactly. Other nodes get v = 0 (walls
 * and land, no slip), and so do nodes with open water in all 4 cells: no ice,
 * no ice velocity.
 *
 * Weak divergence of a cell with the node at corner (sa, sb) (sa = -1 left,
 * +1 right; sb likewise in y), exact for the P1 stress and bilinear test
 * function, divided by the lumped mass dx dy:
 *   Fx = -[sa/(2dx) (s11_0 + sb s11_2/3) + sb/(2dy) (s12_0 + sa s12_1/3)]
 *   Fy = -[sa/(2dx) (s12_0 + sb s12_2/3) + sb/(2dy) (s22_0 + sa s22_1/3)].
 *
 * Minimum bytes per node (dG0 tracers, doubles): the 7 stress coefficients
 * the divergence uses (s11_0, s11_2, s12_*, s22_0, s22_1) and h, a, ice_mask of the
 * cells, each cell shared by 4 nodes: 10 x 8 B; u, v, u_n, v_n and 4 forcing
 * components read, u, v written: 10 x 8 B. 160 B per node (dG1: 192 B).
 */
#include <math.h>

#include "cryo_acc.h"
#include "seaice.h"

typedef struct {
  double rdx2, rdy2; /* 1 / (2 dx), 1 / (2 dy) */
  double dt, beta, rho_ice, h_min;
  double tau_air; /* rho_a C_a, kg m-3 */
  double drag_o;  /* rho_o C_o, kg m-3 */
  double f;
} velocity_consts;

#define THIRD (1.0 / 3.0)

/* Accumulate the weak divergence of cell c at its corner (sa, sb). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
corner_force(long c, double sa, double sb, double rdx2, double rdy2, const double *s11,
             const double *s12, const double *s22, double *fx, double *fy) {
  const long i = c * 3;
  *fx -= sa * rdx2 * (s11[i] + sb * THIRD * s11[i + 2]) +
         sb * rdy2 * (s12[i] + sa * THIRD * s12[i + 1]);
  *fy -= sa * rdx2 * (s12[i] + sb * THIRD * s12[i + 2]) +
         sb * rdy2 * (s22[i] + sa * THIRD * s22[i + 1]);
}

/* Mean over the node's basis function of a tracer of cell c at corner (sa, sb). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double corner_tracer(const double *q, long c,
                                                                  double sa, double sb, int na) {
  if (na == 1) return q[c];
  return q[c * 3] + THIRD * (sa * q[c * 3 + 1] + sb * q[c * 3 + 2]);
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
velocity_node(long n, long cur, long nxc, velocity_consts k, int na, const double *s11,
              const double *s12, const double *s22, const double *h, const double *a,
              const double *ice_mask, const double *uair, const double *vair, const double *uocn,
              const double *vocn, const double *u_n, const double *v_n, double *u, double *v) {
  /* the node's cells (i-1,j-1), (i,j-1), (i-1,j), (i,j); the product of their
   * ice_mask values (0, 1, 2) is 0 next to land and 1 in open water */
  const long cul = cur - 1, clr = cur - nxc, cll = clr - 1;
  const double kind = ice_mask[cll] * ice_mask[clr] * ice_mask[cul] * ice_mask[cur];
  if (kind == 0.0 || kind == 1.0) {
    u[n] = 0.0;
    v[n] = 0.0;
    return;
  }
  double fx = 0.0, fy = 0.0;
  corner_force(cll, 1.0, 1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(clr, -1.0, 1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(cul, 1.0, -1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(cur, -1.0, -1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  const double hn =
      0.25 * (corner_tracer(h, cll, 1.0, 1.0, na) + corner_tracer(h, clr, -1.0, 1.0, na) +
              corner_tracer(h, cul, 1.0, -1.0, na) + corner_tracer(h, cur, -1.0, -1.0, na));
  const double an =
      0.25 * (corner_tracer(a, cll, 1.0, 1.0, na) + corner_tracer(a, clr, -1.0, 1.0, na) +
              corner_tracer(a, cul, 1.0, -1.0, na) + corner_tracer(a, cur, -1.0, -1.0, na));
  const double ac = cryo_min(cryo_max(an, 0.0), 1.0);
  const double m = k.rho_ice * cryo_max(hn, k.h_min);
  const double ua = uair[n], va = vair[n], uo = uocn[n], vo = vocn[n];
  const double up = u[n], vp = v[n];
  const double tau = ac * k.tau_air * sqrt(ua * ua + va * va);
  const double c = ac * k.drag_o * sqrt((uo - up) * (uo - up) + (vo - vp) * (vo - vp));
  const double g = k.dt * m * k.f;
  const double d = (1.0 + k.beta) * m + k.dt * c;
  /* -m f k x (v - u_o) = m f (v - v_o, -(u - u_o)): u-row has -g v, v-row +g u */
  const double ru = m * (k.beta * up + u_n[n]) + k.dt * (fx + tau * ua + c * uo) - g * vo;
  const double rv = m * (k.beta * vp + v_n[n]) + k.dt * (fy + tau * va + c * vo) + g * uo;
  const double rdet = 1.0 / (d * d + g * g);
  u[n] = (d * ru + g * rv) * rdet;
  v[n] = (d * rv - g * ru) * rdet;
}

/* Everything a launch needs, in one struct that lives on the device too, so
 * that the launch maps nothing (kernels/cryo_acc.h; docs/performance.md,
 * "No-map launches"). 8-byte members only. */
typedef struct {
  velocity_consts k;
  long nx, nnode; /* owned cells per row; owned nodes (nx + 1)(ny + 1) */
  const double *s11, *s12, *s22, *h, *a, *ice_mask, *uair, *vair, *uocn, *vocn, *u_n, *v_n;
  double *u, *v;
} velocity_args;

static velocity_args velocity_dev;
CRYO_DEVICE_ARGS(velocity_dev)

/* Nodes (i, j) in [0,nx] x [0,ny]: e = j (nx+1) + i; node index
 * CRYO_NODE = (j+1)(nx+3) + i + 1, its upper-right cell (i, j) is
 * CRYO_CELL = (j+1)(nx+2) + i + 1. */
static void velocity_dg0(void) {
  CRYO_DEVICE_LOOP_NOMAP_N(velocity_dev.nnode)
  for (long e = 0; e < velocity_dev.nnode; ++e) {
    const velocity_args *g = &velocity_dev;
    const int nx = (int)g->nx;
    const int j = (int)e / (nx + 1), i = (int)e - j * (nx + 1);
    velocity_node((long)(j + 1) * (nx + 3) + i + 1, (long)(j + 1) * (nx + 2) + i + 1, nx + 2, g->k,
                  1, g->s11, g->s12, g->s22, g->h, g->a, g->ice_mask, g->uair, g->vair, g->uocn,
                  g->vocn, g->u_n, g->v_n, g->u, g->v);
  }
}

static void velocity_dg1(void) {
  CRYO_DEVICE_LOOP_NOMAP_N(velocity_dev.nnode)
  for (long e = 0; e < velocity_dev.nnode; ++e) {
    const velocity_args *g = &velocity_dev;
    const int nx = (int)g->nx;
    const int j = (int)e / (nx + 1), i = (int)e - j * (nx + 1);
    velocity_node((long)(j + 1) * (nx + 3) + i + 1, (long)(j + 1) * (nx + 2) + i + 1, nx + 2, g->k,
                  3, g->s11, g->s12, g->s22, g->h, g->a, g->ice_mask, g->uair, g->vair, g->uocn,
                  g->vocn, g->u_n, g->v_n, g->u, g->v);
  }
}

void cryo_seaice_velocity_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                 const double *s11, const double *s12, const double *s22,
                                 const double *h, const double *a, const double *ice_mask,
                                 const double *uair, const double *vair, const double *uocn,
                                 const double *vocn, const double *u_n, const double *v_n,
                                 double *u, double *v) {
  const velocity_consts k = {0.5 / b->dx,
                             0.5 / b->dy,
                             p->dt,
                             p->beta,
                             p->rho_ice,
                             p->h_min,
                             p->rho_air * p->c_air,
                             p->rho_ocean * p->c_ocean,
                             p->coriolis};
  const velocity_args fresh = {k,    b->nx, (long)(b->nx + 1) * (b->ny + 1),
                               s11,  s12,   s22,
                               h,    a,     ice_mask,
                               uair, vair,  uocn,
                               vocn, u_n,   v_n,
                               u,    v};
  cryo_device_args_acquire(&velocity_dev, &fresh, sizeof fresh);
  if (p->tracer_order == 1)
    velocity_dg1();
  else
    velocity_dg0();
  cryo_device_args_release();
}

void cryo_seaice_velocity_save_kernel(const cryo_block *b, const double *u, const double *v,
                                      double *u_n, double *v_n) {
  const long nnode = CRYO_NNODE(b);
  CRYO_DEVICE_LOOP((u, v, u_n, v_n))
  for (long e = 0; e < nnode; ++e) {
    u_n[e] = u[e];
    v_n[e] = v[e];
  }
}
