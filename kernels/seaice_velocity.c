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
 * Options (docs/seaice.md), each off by default with the arithmetic above unchanged:
 * - turning angle theta (CICE): the ocean stress is c R(theta') (u_o - v^p),
 *   R the rotation by theta' = theta sign(f), so the diagonal gains
 *   dt c cos(theta') and the Coriolis coupling dt c sin(theta');
 * - sea-surface tilt: -m g grad(ssh), the gradient at the node from its 4
 *   cells, replaces the geostrophic approximation -m f k x u_o;
 * - adaptive EVP (Kimmritz et al. 2016): beta of the node is the mean of the
 *   alpha of its cells with ice (written by the stress kernel this iteration);
 * - basal stress (Lemieux et al. 2015): C_b = T_b / (|v^(p-1)| + u0) with
 *   T_b = k2 max(0, h_max - a_max h_w / k1) exp(-alphab (1 - a_max)), h_max and
 *   a_max the largest cell means and h_w the smallest water depth of the
 *   node's 4 cells (CICE's choice at its velocity points), added implicitly to
 *   the diagonal as dt C_b.
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
 * Each of ssh, alpha_evp and the water depth adds 8 B per node when used. With
 * the stress and alpha stored as float (seaice_velocity_single.c,
 * kernels/seaice_store.h) each stress coefficient and alpha costs 4 B.
 */
#include <math.h>
#include <string.h>

#include "cryo_acc.h"
#include "seaice.h"
#include "seaice_store.h"

typedef struct {
  double rdx2, rdy2; /* 1 / (2 dx), 1 / (2 dy) */
  double dt, beta, rho_ice, h_min;
  double tau_air; /* rho_a C_a, kg m-3 */
  double drag_o;  /* rho_o C_o, kg m-3 */
  double f;
  double cosw, sinw; /* cos(theta'), sin(theta') of the turning angle, theta' = theta sign(f) */
  double grav;       /* g, m s-2 (sea-surface tilt) */
  double k1, k2;     /* basal stress: h_w / h_c ratio, N m-3 */
  double alphab, u0; /* basal stress: concentration factor, m s-1 */
} velocity_consts;

/* Which options the node update uses: each pointer NULL when its option is off. */
typedef struct {
  const double *ssh;             /* cell sea-surface height, m */
  const seaice_store *alpha_evp; /* cell alpha of the adaptive EVP */
  const double *bathymetry;      /* cell water depth, m */
} velocity_options;

/* Everything a launch needs, in one struct that lives on the device too, so
 * that the launch maps nothing (kernels/cryo_acc.h; docs/performance.md,
 * "No-map launches"). 8-byte members only. One struct per node set
 * (cryo_seaice_nodes): the ring and inner launches of a sub-step then keep
 * their arguments from one sub-step to the next, and none is copied again. */
typedef struct {
  velocity_consts k;
  long nx; /* owned cells per row */
  cryo_seaice_node_set nodes;
  const seaice_store *s11, *s12, *s22;
  const double *h, *a, *ice_mask, *uair, *vair, *uocn, *vocn, *u_n, *v_n;
  velocity_options o;
  double *u, *v;
} velocity_args;

#define THIRD (1.0 / 3.0)

/* Accumulate the weak divergence of cell c at its corner (sa, sb). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
corner_force(long c, double sa, double sb, double rdx2, double rdy2, const seaice_store *s11,
             const seaice_store *s12, const seaice_store *s22, double *fx, double *fy) {
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

/* The update of node n (upper-right cell cur, rows of nxc cells) with launch
 * arguments g. They are read where they are used, and after the cell
 * gathers through a copy of g made opaque (CRYO_OPAQUE, kernels/cryo_acc.h),
 * so that GCC neither hoists them out of the node loop nor keeps the
 * parameters read for the gathers live until the solve: 130 -> 72 registers
 * on the GPU (dG0; docs/performance.md, "Stress kernel registers"), every
 * value computed by the same operations in the same order. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void velocity_node(long n, long cur, long nxc,
                                                                const velocity_args *g, int na) {
  /* the node's cells (i-1,j-1), (i,j-1), (i-1,j), (i,j); the product of their
   * ice_mask values (0, 1, 2) is 0 next to land and 1 in open water */
  const long cul = cur - 1, clr = cur - nxc, cll = clr - 1;
  const double kind = g->ice_mask[cll] * g->ice_mask[clr] * g->ice_mask[cul] * g->ice_mask[cur];
  if (kind == 0.0 || kind == 1.0) {
    g->u[n] = 0.0;
    g->v[n] = 0.0;
    return;
  }
  double fx = 0.0, fy = 0.0;
  corner_force(cll, 1.0, 1.0, g->k.rdx2, g->k.rdy2, g->s11, g->s12, g->s22, &fx, &fy);
  corner_force(clr, -1.0, 1.0, g->k.rdx2, g->k.rdy2, g->s11, g->s12, g->s22, &fx, &fy);
  corner_force(cul, 1.0, -1.0, g->k.rdx2, g->k.rdy2, g->s11, g->s12, g->s22, &fx, &fy);
  corner_force(cur, -1.0, -1.0, g->k.rdx2, g->k.rdy2, g->s11, g->s12, g->s22, &fx, &fy);
  const double hn =
      0.25 * (corner_tracer(g->h, cll, 1.0, 1.0, na) + corner_tracer(g->h, clr, -1.0, 1.0, na) +
              corner_tracer(g->h, cul, 1.0, -1.0, na) + corner_tracer(g->h, cur, -1.0, -1.0, na));
  const double an =
      0.25 * (corner_tracer(g->a, cll, 1.0, 1.0, na) + corner_tracer(g->a, clr, -1.0, 1.0, na) +
              corner_tracer(g->a, cul, 1.0, -1.0, na) + corner_tracer(g->a, cur, -1.0, -1.0, na));
  const velocity_args *gf = g;
  CRYO_OPAQUE(gf);
  const double ac = cryo_min(cryo_max(an, 0.0), 1.0);
  const double m = gf->k.rho_ice * cryo_max(hn, gf->k.h_min);
  const double ua = gf->uair[n], va = gf->vair[n], uo = gf->uocn[n], vo = gf->vocn[n];
  const double up = gf->u[n], vp = gf->v[n];
  const double tau = ac * gf->k.tau_air * sqrt(ua * ua + va * va);
  const double c = ac * gf->k.drag_o * sqrt((uo - up) * (uo - up) + (vo - vp) * (vo - vp));
  double beta = gf->k.beta;
  if (gf->o.alpha_evp) {
    /* cells with ice only: the others' alpha is not computed */
    const long cells[4] = {cll, clr, cul, cur};
    double sum = 0.0, count = 0.0;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q)
      if (gf->ice_mask[cells[q]] == 2.0) sum += gf->o.alpha_evp[cells[q]], count += 1.0;
    beta = sum / count;
  }
  double cb = 0.0; /* basal stress coefficient C_b, kg m-2 s-1 */
  if (gf->o.bathymetry) {
    const long cells[4] = {cll, clr, cul, cur};
    double hmax = 0.0, amax = 0.0, hw = INFINITY;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      hmax = cryo_max(hmax, gf->h[cells[q] * na]);
      amax = cryo_max(amax, cryo_min(gf->a[cells[q] * na], 1.0));
      hw = cryo_min(hw, gf->o.bathymetry[cells[q]]);
    }
    const double tb = gf->k.k2 * cryo_max(hmax - amax * hw / gf->k.k1, 0.0) *
                      cryo_exp(-gf->k.alphab * (1.0 - amax));
    cb = tb / (sqrt(up * up + vp * vp) + gf->k.u0);
  }
  const double fm = gf->k.dt * m * gf->k.f;
  /* the rotated ocean drag couples u and v like Coriolis does */
  const double d = (1.0 + beta) * m + gf->k.dt * c * gf->k.cosw + gf->k.dt * cb;
  const double gt = fm + gf->k.dt * c * gf->k.sinw;
  double tilt_u = -fm * vo, tilt_v = fm * uo; /* -m f k x u_o, geostrophic */
  if (gf->o.ssh) {
    const double gx =
        ((gf->o.ssh[clr] + gf->o.ssh[cur]) - (gf->o.ssh[cll] + gf->o.ssh[cul])) * gf->k.rdx2;
    const double gy =
        ((gf->o.ssh[cul] + gf->o.ssh[cur]) - (gf->o.ssh[cll] + gf->o.ssh[clr])) * gf->k.rdy2;
    tilt_u = -gf->k.dt * m * gf->k.grav * gx;
    tilt_v = -gf->k.dt * m * gf->k.grav * gy;
  }
  /* -m f k x (v - u_o) = m f (v - v_o, -(u - u_o)): u-row has -fm v, v-row +fm u (fm = dt m f) */
  const double ru = m * (beta * up + gf->u_n[n]) +
                    gf->k.dt * (fx + tau * ua + c * (gf->k.cosw * uo - gf->k.sinw * vo)) + tilt_u;
  const double rv = m * (beta * vp + gf->v_n[n]) +
                    gf->k.dt * (fy + tau * va + c * (gf->k.sinw * uo + gf->k.cosw * vo)) + tilt_v;
  const double rdet = 1.0 / (d * d + gt * gt);
  gf->u[n] = (d * ru + gt * rv) * rdet;
  gf->v[n] = (d * rv - gt * ru) * rdet;
}

static velocity_args velocity_dev[3];
CRYO_DEVICE_ARGS(velocity_dev)

/* Node (i, j) of the set (i, j in [0,nx] x [0,ny]) has the index
 * CRYO_NODE = (j+1)(nx+3) + i + 1, its upper-right cell (i, j)
 * CRYO_CELL = (j+1)(nx+2) + i + 1. */
#define VELOCITY_LOOP(name, na, which)                                                             \
  static void name(void) {                                                                         \
    CRYO_DEVICE_LOOP_NOMAP_N(velocity_dev[which].nodes.count)                                      \
    for (long e = 0; e < velocity_dev[which].nodes.count; ++e) {                                   \
      const velocity_args *g = &velocity_dev[which];                                               \
      CRYO_OPAQUE(g);                                                                              \
      const int nx = (int)g->nx;                                                                   \
      int i, j;                                                                                    \
      cryo_seaice_node_ij(&g->nodes, which, e, &i, &j);                                            \
      velocity_node((long)(j + 1) * (nx + 3) + i + 1, (long)(j + 1) * (nx + 2) + i + 1, nx + 2, g, \
                    na);                                                                           \
    }                                                                                              \
  }
VELOCITY_LOOP(velocity_dg0_all, 1, CRYO_SEAICE_NODES_ALL)
VELOCITY_LOOP(velocity_dg0_ring, 1, CRYO_SEAICE_NODES_RING)
VELOCITY_LOOP(velocity_dg0_inner, 1, CRYO_SEAICE_NODES_INNER)
VELOCITY_LOOP(velocity_dg1_all, 3, CRYO_SEAICE_NODES_ALL)
VELOCITY_LOOP(velocity_dg1_ring, 3, CRYO_SEAICE_NODES_RING)
VELOCITY_LOOP(velocity_dg1_inner, 3, CRYO_SEAICE_NODES_INNER)

/* [tracer_order][which] */
static void (*const velocity_loops[2][3])(void) = {
    {velocity_dg0_all, velocity_dg0_ring, velocity_dg0_inner},
    {velocity_dg1_all, velocity_dg1_ring, velocity_dg1_inner}};

void SEAICE_STORE_NAME(cryo_seaice_velocity_kernel)(
    const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_nodes which,
    const seaice_store *s11, const seaice_store *s12, const seaice_store *s22, const double *h,
    const double *a, const double *ice_mask, const double *uair, const double *vair,
    const double *uocn, const double *vocn, const double *u_n, const double *v_n,
    const cryo_seaice_state *opt, double *u, double *v) {
  const double turn = p->turning_angle * (CRYO_PI / 180.0) * (p->coriolis < 0.0 ? -1.0 : 1.0);
  const velocity_consts k = {0.5 / b->dx,
                             0.5 / b->dy,
                             p->dt,
                             p->beta,
                             p->rho_ice,
                             p->h_min,
                             p->rho_air * p->c_air,
                             p->rho_ocean * p->c_ocean,
                             p->coriolis,
                             cos(turn),
                             sin(turn),
                             p->gravity,
                             p->basal_k1,
                             p->basal_k2,
                             p->basal_alphab,
                             p->basal_u0};
  const velocity_options o = {p->ssh_tilt ? opt->ssh : NULL,
                              p->adaptive_evp ? SEAICE_STORED(opt, alpha_evp) : NULL,
                              p->basal_stress ? opt->bathymetry : NULL};
  velocity_args fresh = {k,    b->nx, {0},  s11,  s12, s22, h, a, ice_mask,
                         uair, vair,  uocn, vocn, u_n, v_n, o, u, v};
  cryo_seaice_node_set_make(b, which, &fresh.nodes);
  cryo_device_args_acquire(&velocity_dev[which], &fresh, sizeof fresh);
  velocity_loops[p->tracer_order == 1][which]();
  cryo_device_args_release();
}

/* Compiled once: no stored stress (kernels/seaice_store.h). */
#if !defined(CRYO_SEAICE_STORE_SINGLE)
void cryo_seaice_node_set_make(const cryo_block *b, cryo_seaice_nodes which,
                               cryo_seaice_node_set *set) {
  const long nx = b->nx, ny = b->ny;
  /* rectangles {i0, j0, nodes per row, rows}: one for ALL and INNER, four for RING */
  long rect[4][4] = {{0, 0, nx + 1, ny + 1}};
  int nrect = 1;
  if (which == CRYO_SEAICE_NODES_INNER) {
    const long inner[4] = {2, 2, nx - 3, ny - 3};
    memcpy(rect[0], inner, sizeof inner);
  } else if (which == CRYO_SEAICE_NODES_RING) {
    /* rows 0-1 and ny-1..ny whole, then columns 0-1 and nx-1..nx between them */
    const long ring[4][4] = {
        {0, 0, nx + 1, 2}, {0, ny - 1, nx + 1, 2}, {0, 2, 2, ny - 3}, {nx - 1, 2, 2, ny - 3}};
    memcpy(rect, ring, sizeof ring);
    nrect = 4;
  }
  set->count = 0;
  for (int r = 0; r < 4; ++r) {
    set->first[r] = set->count;
    set->i0[r] = rect[r][0];
    set->j0[r] = rect[r][1];
    set->ni[r] = r < nrect ? rect[r][2] : 1;
    if (r < nrect) set->count += rect[r][2] * rect[r][3];
  }
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
#endif
