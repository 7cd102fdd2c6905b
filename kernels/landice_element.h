/* Element computations of the first-order Stokes kernels, shared by the
 * residual, Jacobian and energy kernels (private to kernels/landice_*.c).
 *
 * Weak form (docs/landice.md; Antepara et al. 2024, Eq. 1), per test function
 * phi_a of local node a:
 *   R_a^u = int 2 mu [(2 u_x + v_y) phi_x + (u_y + v_x)/2 phi_y + u_z/2 phi_z] + rho g s_x phi
 *         - f_x phi + int_bed tau_b,x phi
 *   R_a^v = int 2 mu [(2 v_y + u_x) phi_y + (u_y + v_x)/2 phi_x + v_z/2 phi_z] + rho g s_y phi
 *         - f_y phi + int_bed tau_b,y phi
 * with tau_b the basal traction (beta2 u here, or a nonlinear sliding law,
 * landice_sliding_law, whose terms the kernels of landice_sliding.c add),
 * eps_e^2 = u_x^2 + v_y^2 + u_x v_y + (u_y + v_x)^2/4 + u_z^2/4 + v_z^2/4
 * (first-order effective strain rate; |u_z|/2 for the slab) and
 *   mu = 1/2 A^(-1/n) (eps_e^2 + eps_reg^2)^((1-n)/(2n)).
 * The optional body force (f_x, f_y) (Pa m-1, a force per unit volume pushing
 * the ice as -rho g grad s does; manufactured solutions) is interpolated
 * trilinearly from the nodes to the Gauss points; the strong form is
 * -d/dx_j (2 mu eps'_ij) = f_i - rho g ds/dx_i with the first-order stress
 * terms above. Its terms have their own element routines (landice_elem_force,
 * landice_elem_force_work) and kernels: inside the residual kernel even an
 * untaken force branch made it 1.7x slower on the H100 (register
 * allocation). R is the gradient of the convex functional
 *   E(U) = int A^(-1/n) 2n/(n+1) (eps_e^2 + eps_reg^2)^((n+1)/(2n)) + rho g grad s . u - f . u
 *        + int_bed beta2 |u|^2 / 2 (linear; a law's potential P otherwise),
 * so the bracket above is g_a = d(eps_e^2)/dU_a and the exact Jacobian is
 *   K_ab = int 2 mu d2(eps_e^2)/dU_a dU_b + 2 (dmu/d eps_e^2) g_a g_b   (symmetric).
 * Bed integrals use the horizontal projection dx dy (first-order convention).
 *
 * Local node a = c + 4 l: corner c = (cx + 2 cy) of the column quad, level l
 * (0: k, 1: k + 1); local dof 2 a + component. Reference coordinates in
 * [-1, 1]^3, x = x0 + (1 + xi) dx/2, y likewise, z trilinear from the nodes.
 */
#ifndef CRYO_LANDICE_ELEMENT_H
#define CRYO_LANDICE_ELEMENT_H

#include <math.h>

#include "cryo_acc.h"
#include "cryo_math.h"
#include "landice.h"

#if defined(_OPENACC)
#define CRYO_LANDICE_ROUTINE CRYO_PRAGMA(acc routine seq)
#else
#define CRYO_LANDICE_ROUTINE
#endif

/* Fixed-size inner loops fully unrolled, so that the small private arrays
 * live in registers (Owen et al. 2024, IPDPS, "Specialize"). */
#if defined(__GNUC__) && !defined(__NVCOMPILER)
#define CRYO_LANDICE_UNROLL CRYO_PRAGMA(GCC unroll 16)
#else
#define CRYO_LANDICE_UNROLL
#endif

/* Element routines inlined whatever their size: a call passes the element's
 * arrays through memory, and an array whose address escapes cannot be kept
 * in registers (scalar replacement), so it lives in local memory on the GPU. */
#if defined(__GNUC__)
#define CRYO_LANDICE_INLINE static inline __attribute__((always_inline))
#else
#define CRYO_LANDICE_INLINE static inline
#endif

/* x^p for a normal x > 0 and |p log x| < 700, as exp(p log x) with both
 * factors inline (cryo_math.h says why): the viscosity's power
 * was the element kernels' only other call (8 per element, each saving and
 * restoring the element's inputs). log x = e ln 2 + 2 atanh(s), s = (m - 1) /
 * (m + 1) for the mantissa m in [sqrt(1/2), sqrt(2)), |s| < 0.1716, by its
 * series to s^23; the exponential by cryo_exp_split (cryo_math.h). The
 * product p e ln 2 is carried with its rounding error (Dekker 1971), so the
 * result stays within 4 ulp of the correctly rounded power for every
 * exponent; the same source runs on CPU and GPU. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_pow(double x, double p) {
  union {
    double d;
    unsigned long long u;
  } v;
  v.d = x;
  int e = (int)((v.u >> 52) & 0x7ff) - 1023;
  v.u = (v.u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m = v.d;
  if (m > 1.41421356237309504880) {
    m *= 0.5;
    e += 1;
  }
  double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double t = 1.0 / 23.0;
  CRYO_LANDICE_UNROLL
  for (int j = 21; j >= 1; j -= 2)
    t = 1.0 / j + s2 * t;
  /* ln2_hi has 21 trailing zero bits: e ln2_hi is exact */
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  double lh = (double)e * ln2_hi, ll = (double)e * ln2_lo + 2.0 * s * t;
  /* yh + yl = p lh exactly (Dekker's product by halves of 26 bits), plus p ll */
  double yh = p * lh;
  double cp = 134217729.0 * p, ph = cp - (cp - p), pl = p - ph;
  double cl = 134217729.0 * lh, hh = cl - (cl - lh), hl = lh - hh;
  double yl = (((ph * hh - yh) + ph * hl) + pl * hh) + pl * hl + p * ll;
  return cryo_exp_split(yh, yl);
}

/* Gauss point coordinate 1/sqrt(3) of the 2-point rule (weights 1). */
#define CRYO_LANDICE_GP 0.57735026918962576451

/* What the element routines need from params, as private scalars. */
typedef struct landice_coef {
  double half_dx, half_dy; /* m */
  double inv_hdx, inv_hdy; /* 1 / half_dx, 1 / half_dy, m-1 */
  double mu_exp;           /* (1 - n) / (2 n) */
  double e_exp;            /* (n + 1) / (2 n) */
  double e_fac;            /* 2 n / (n + 1) */
  double eps2;             /* eps_reg^2, a-2 */
  double rhog;             /* rho g, Pa m-1 */
  double slope_x, slope_y; /* background plane */
  int friction;            /* 1: basal traction at the bed of layer 0 */
  int law;                 /* enum cryo_landice_sliding */
  double slide_c;          /* C, Pa m^(-m) a^m */
  double slide_m;          /* m */
  double slide_c1m;        /* C^(1/m) */
  double inv_m;            /* 1 / m */
  double coulomb_c;        /* C_max */
  double rhowg;            /* rho_w g where marine, else 0, Pa m-1 */
  double sea_level;        /* m */
  int marine;              /* flotation: floating lower surface, grounded-fraction friction */
  double float_ratio;      /* rho_i / rho_w */
} landice_coef;

static inline landice_coef landice_coef_make(const cryo_block *b, const cryo_landice_params *p) {
  landice_coef c;
  c.half_dx = 0.5 * b->dx;
  c.half_dy = 0.5 * b->dy;
  c.inv_hdx = 1.0 / c.half_dx;
  c.inv_hdy = 1.0 / c.half_dy;
  c.mu_exp = (1.0 - p->glen_n) / (2.0 * p->glen_n);
  c.e_exp = (p->glen_n + 1.0) / (2.0 * p->glen_n);
  c.e_fac = 2.0 * p->glen_n / (p->glen_n + 1.0);
  c.eps2 = p->eps_reg * p->eps_reg;
  c.rhog = p->rho_ice * p->gravity;
  c.slope_x = p->slope_x;
  c.slope_y = p->slope_y;
  c.friction = !p->no_slip;
  c.law = p->sliding_law;
  c.slide_c = p->sliding_c;
  c.slide_m = p->sliding_m;
  c.inv_m = 1.0 / p->sliding_m;
  c.slide_c1m = pow(p->sliding_c, c.inv_m);
  c.coulomb_c = p->coulomb_c;
  c.rhowg = p->marine ? p->rho_water * p->gravity : 0.0;
  c.sea_level = p->sea_level;
  c.marine = p->marine;
  c.float_ratio = p->rho_ice / p->rho_water;
  return c;
}

/* Element inputs gathered from the column: node elevations z[8] (plane
 * included), surface s[4] at the corners, beta2[4], effective pressure
 * npress[4] (Pa; the Schoof law only, else 0), velocity u[16], the
 * grounded fraction gfrac of the bed face (1 unless marine), and the
 * element's A^(-1/n) (set by the kernels that need the viscosity: the rate
 * factor is constant in each element, docs/landice.md, Basal and rheology
 * fields). */
typedef struct landice_elem_in {
  double afac; /* Pa a^(1/n) */
  double z[8];
  double s[4];
  double beta2[4];
  double npress[4];
  double u[16];
  double gfrac;
  int bottom; /* layer 0: the bed face carries friction */
} landice_elem_in;

/* Grounded fraction of a cell from the flotation function at its corners,
 * phi[m] (corner m = cx + 2 cy; grounded where phi > 0): the area of the
 * polygon cut from the unit square by the zero line of the edge-wise linear
 * interpolant, accumulated by the shoelace formula vertex by vertex (no
 * vertex array). Exact when phi is linear in x and y (linear thickness and
 * bed); for a general bilinear phi the zero line is taken straight between
 * its edge crossings. The element's basal friction is weighted by it: the
 * grounded-area-fraction scheme among the sub-element parameterizations of
 * Seroussi et al. 2014 (The Cryosphere 8). 1 exactly (the same bits as
 * without flotation) when the four corners are grounded, 0 when none is. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_grounded_fraction(const double phi[4]) {
  double area2 = 0.0, fx = 0.0, fy = 0.0, px = 0.0, py = 0.0;
  int have = 0;
  CRYO_LANDICE_UNROLL
  for (int e = 0; e < 4; ++e) {
    /* counter-clockwise corners: m = 0, 1, 3, 2 at (0,0), (1,0), (1,1), (0,1) */
    int ma = e == 0 ? 0 : e == 1 ? 1 : e == 2 ? 3 : 2;
    int mb = e == 0 ? 1 : e == 1 ? 3 : e == 2 ? 2 : 0;
    double ax = (double)(ma & 1), ay = (double)(ma >> 1);
    double bx = (double)(mb & 1), by = (double)(mb >> 1);
    double pa = phi[ma], pb = phi[mb];
    CRYO_LANDICE_UNROLL
    for (int v = 0; v < 2; ++v) {
      double vx, vy;
      if (v == 0) {
        if (!(pa > 0.0)) continue;
        vx = ax;
        vy = ay;
      } else {
        if ((pa > 0.0) == (pb > 0.0)) continue;
        double t = pa / (pa - pb);
        vx = ax + t * (bx - ax);
        vy = ay + t * (by - ay);
      }
      if (have)
        area2 += px * vy - vx * py;
      else {
        fx = vx;
        fy = vy;
      }
      have = 1;
      px = vx;
      py = vy;
    }
  }
  if (have) area2 += px * fy - fx * py;
  return 0.5 * area2;
}

/* Surface gradient at (xi, eta) from the corner surface values, plane included. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_surface_grad(const landice_coef *c, const double s[4], double xi,
                                              double eta, double *sx, double *sy) {
  double ax = 0.0, ay = 0.0;
  CRYO_LANDICE_UNROLL
  for (int q = 0; q < 4; ++q) {
    double sq = (q & 1) ? 1.0 : -1.0, tq = (q & 2) ? 1.0 : -1.0;
    ax += s[q] * 0.25 * sq * (1.0 + tq * eta);
    ay += s[q] * 0.25 * tq * (1.0 + sq * xi);
  }
  *sx = ax / c->half_dx + c->slope_x;
  *sy = ay / c->half_dy + c->slope_y;
}

/* Gauss point q of the 2x2x2 rule: the 1-D factors 1 - t, 1 + t of the
 * trilinear basis in each reference direction, the z derivatives of the
 * map, 1 / z_zeta and the weight times the Jacobian determinant.
 * The residual and Jacobian recompute basis gradients where they are used
 * instead of keeping per-node arrays: arrays indexed by a run-time node
 * number, and the 24 physical gradients of a Gauss point kept alive across
 * the accumulation, put the element kernels in local memory
 * (docs/performance.md; Owen et al. 2024, "Privatization": private arrays must fit
 * registers). Node selections below are conditionals on the bits of a, never
 * array lookups, for the same reason. */
typedef struct landice_gauss {
  double fx0, fx1, fy0, fy1, fz0, fz1;
  double z_xi, z_eta, inv_zz, wdet;
} landice_gauss;

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_fx(const landice_gauss *g, int a) {
  return (a & 1) ? g->fx1 : g->fx0;
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_fy(const landice_gauss *g, int a) {
  return (a & 2) ? g->fy1 : g->fy0;
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_fz(const landice_gauss *g, int a) {
  return (a & 4) ? g->fz1 : g->fz0;
}

/* |d phi_a / d xi|, |d phi_a / d eta|, |d phi_a / d zeta|: 1/8 times the
 * product of node a's two other 1-D factors. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_wyz(const landice_gauss *g, int a) {
  return (0.125 * landice_fy(g, a)) * landice_fz(g, a);
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_wxz(const landice_gauss *g, int a) {
  return (0.125 * landice_fx(g, a)) * landice_fz(g, a);
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_wxy(const landice_gauss *g, int a) {
  return (0.125 * landice_fx(g, a)) * landice_fy(g, a);
}

/* Reference derivatives d[3] of the interpolant sum_a f[a * stride] phi_a
 * (tensor-product form): along one direction, the two nodes of each of the
 * 4 edges in that direction share one weight, so 12 weights serve the 3
 * directions instead of 24 per-node derivatives. The weight multiplies each
 * nodal value: a difference f[b] - f[a] formed first would be hoisted out of
 * the Gauss loop by the compiler and keep 12 more values per field in
 * registers (spills, docs/performance.md). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_ref_deriv(const landice_gauss *g, const double *f, int stride,
                                           double d[3]) {
  double sx = 0.0, sy = 0.0, sz = 0.0;
  CRYO_LANDICE_UNROLL
  for (int e = 0; e < 4; ++e) {
    int ax = 2 * e, ay = (e & 1) | ((e & 2) << 1), az = e; /* the pair's lower node */
    double wx = landice_wyz(g, ax), wy = landice_wxz(g, ay), wz = landice_wxy(g, az);
    sx += wx * f[stride * (ax + 1)] - wx * f[stride * ax];
    sy += wy * f[stride * (ay + 2)] - wy * f[stride * ay];
    sz += wz * f[stride * (az + 4)] - wz * f[stride * az];
  }
  d[0] = sx;
  d[1] = sy;
  d[2] = sz;
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE landice_gauss landice_gauss_make(const landice_coef *c, const double z[8],
                                                     int q) {
  landice_gauss g;
  double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  double zeta = (q & 4) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  g.fx0 = 1.0 - xi;
  g.fx1 = 1.0 + xi;
  g.fy0 = 1.0 - eta;
  g.fy1 = 1.0 + eta;
  g.fz0 = 1.0 - zeta;
  g.fz1 = 1.0 + zeta;
  double dz[3];
  landice_ref_deriv(&g, z, 1, dz);
  g.z_xi = dz[0];
  g.z_eta = dz[1];
  g.inv_zz = 1.0 / dz[2];
  g.wdet = c->half_dx * c->half_dy * dz[2];
  return g;
}

/* Basis value and physical gradient of local node a at Gauss point g
 * (x depends on xi only and y on eta only: the inverse map is explicit). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_node_grad(const landice_coef *c, const landice_gauss *g, int a,
                                           double *phi, double *gx, double *gy, double *gz) {
  double wyz = landice_wyz(g, a), wxz = landice_wxz(g, a), wxy = landice_wxy(g, a);
  double dxi = (a & 1) ? wyz : -wyz, deta = (a & 2) ? wxz : -wxz;
  double z = ((a & 4) ? wxy : -wxy) * g->inv_zz;
  *phi = wyz * landice_fx(g, a);
  *gz = z;
  *gx = (dxi - z * g->z_xi) * c->inv_hdx;
  *gy = (deta - z * g->z_eta) * c->inv_hdy;
}

/* Velocity gradient (grad[6] = u_x, u_y, u_z, v_x, v_y, v_z) and eps_e^2 at
 * g, by the chain rule from the reference derivatives of u and v: no
 * per-node physical gradient is formed here, so none stays alive for the
 * accumulation that follows. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_strain_at(const landice_coef *c, const landice_gauss *g,
                                             const double u[16], double grad[6]) {
  double du[3], dv[3];
  landice_ref_deriv(g, u, 2, du);
  landice_ref_deriv(g, u + 1, 2, dv);
  double uz = du[2] * g->inv_zz, vz = dv[2] * g->inv_zz;
  double ux = (du[0] - uz * g->z_xi) * c->inv_hdx, uy = (du[1] - uz * g->z_eta) * c->inv_hdy;
  double vx = (dv[0] - vz * g->z_xi) * c->inv_hdx, vy = (dv[1] - vz * g->z_eta) * c->inv_hdy;
  grad[0] = ux;
  grad[1] = uy;
  grad[2] = uz;
  grad[3] = vx;
  grad[4] = vy;
  grad[5] = vz;
  double sxy = uy + vx;
  return ux * ux + vy * vy + ux * vy + 0.25 * (sxy * sxy + uz * uz + vz * vz);
}

/* Bed basis function of corner m at (xi, eta) of the bottom face. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_bed_basis(int m, double xi, double eta) {
  return 0.25 * (1.0 + ((m & 1) ? xi : -xi)) * (1.0 + ((m & 2) ? eta : -eta));
}

/* Nonlinear sliding laws at one bed point, as tau_b = beta u with
 * r^2 = ub^2 + vb^2 + u_reg^2 (CRYO_LANDICE_U_REG):
 *   Weertman (1957):  beta = C r^(m-1);
 *   Schoof (2005, Proc. R. Soc. A 461, regularized Coulomb):
 *     |tau_b| = C r^m / (1 + (C / (C_max N))^(1/m) r)^m
 *             = C q r^m / D^m,  q = C_max N, D = q^(1/m) + C^(1/m) r,
 *     so beta = C q r^(m-1) / D^m, written so that N = 0 gives 0, not inf / inf;
 *   Tsai et al. (2015, J. Glaciol. 61; MISMIP+, Asay-Davis et al. 2016):
 *     |tau_b| = min(C r^m, q), so beta = C r^(m-1) below the kink
 *     C r^m = q and beta = q / r from it on (N = 0: beta = 0).
 * *dbeta is (d beta / dr) / r, so that the exact linearization is
 *   d tau_b / d(ub, vb) = beta I + dbeta (ub, vb)^T (ub, vb)
 * (Weertman: beta [I + (m-1) u u^T / r^2]); symmetric positive definite,
 * as |tau_b| grows with r. Tsai's min has no derivative at the kink: each
 * side takes its branch's (Coulomb from C r^m = q on, the limit from
 * above), so the Jacobian is exact wherever the residual is smooth; on the
 * Coulomb branch, beta (I - u u^T / r^2), |tau_b| no longer grows and only
 * u_reg keeps the block positive definite (eigenvalue q u_reg^2 / r^3 along
 * u). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_sliding_law(const landice_coef *c, double npress, double ub,
                                             double vb, double *beta, double *dbeta) {
  double r2 = ub * ub + vb * vb + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG, r = sqrt(r2);
  double m = c->slide_m;
  if (c->law == CRYO_LANDICE_SLIDING_WEERTMAN) {
    double bt = c->slide_c * pow(r, m - 1.0);
    *beta = bt;
    *dbeta = bt * (m - 1.0) / r2;
    return;
  }
  double q = c->coulomb_c * npress;
  if (c->law == CRYO_LANDICE_SLIDING_TSAI) {
    double tw = c->slide_c * pow(r, m);
    double bt = (tw < q) ? tw / r : q / r;
    *beta = bt;
    *dbeta = (tw < q) ? bt * (m - 1.0) / r2 : -bt / r2;
    return;
  }
  double d = pow(q, c->inv_m) + c->slide_c1m * r;
  double bt = c->slide_c * q * pow(r, m - 1.0) * pow(d, -m);
  *beta = bt;
  *dbeta = bt * ((m - 1.0) / r - m * c->slide_c1m / d) / r;
}

/* Potential P(r) of the nonlinear laws, dP/du = tau_b (the friction share of
 * the functional E): Weertman C r^(m+1) / (m+1); Tsai the integral of
 * min(C rho^m, q) up to r, Weertman's below the kink r_k = (q / C)^(1/m) and
 * q (r - r_k m / (m+1)) beyond it (continuous with its first derivative,
 * convex, as the integrand grows with rho). Schoof has no elementary
 * closed form (an incomplete beta function); with rho = r t^3,
 *   P = 3 C q r^(m+1) int_0^1 t^(3m+2) (q^(1/m) + C^(1/m) r t^3)^(-m) dt,
 * whose integrand is smooth for m = 1/3 (t^3), by 8-point Gauss-Legendre.
 * The line search is its only user (kernels/landice_linesearch.c: a step is also
 * accepted when |R| falls), so a quadrature error of a few 1e-4 relative in
 * the sharp Coulomb regime is harmless there. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_sliding_potential(const landice_coef *c, double npress,
                                                     double ub, double vb) {
  double r2 = ub * ub + vb * vb + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG, r = sqrt(r2);
  double m = c->slide_m;
  if (c->law == CRYO_LANDICE_SLIDING_WEERTMAN) return c->slide_c * pow(r, m + 1.0) / (m + 1.0);
  if (c->law == CRYO_LANDICE_SLIDING_TSAI) {
    double q = c->coulomb_c * npress, tw = c->slide_c * pow(r, m);
    if (tw < q) return tw * r / (m + 1.0);
    return q * (r - pow(q, c->inv_m) / c->slide_c1m * m / (m + 1.0));
  }
  const double gx[4] = {0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959,
                        0.96028985649753623168};
  const double gw[4] = {0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054,
                        0.10122853629037625915};
  double q = c->coulomb_c * npress, q1m = pow(q, c->inv_m), sum = 0.0;
  for (int g = 0; g < 8; ++g) {
    double t = 0.5 * (1.0 + ((g & 1) ? gx[g >> 1] : -gx[g >> 1])), t3 = t * t * t;
    sum += 0.5 * gw[g >> 1] * pow(t, 3.0 * m + 2.0) * pow(q1m + c->slide_c1m * r * t3, -m);
  }
  return 3.0 * c->slide_c * q * pow(r, m + 1.0) * sum;
}

/* Bed point q of the 2x2 rule: basis-weighted corner values at (xi, eta). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_bed_point(const landice_elem_in *in, int q, double *npress,
                                           double *ub, double *vb) {
  double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  double np = 0.0, u = 0.0, v = 0.0;
  CRYO_LANDICE_UNROLL
  for (int m = 0; m < 4; ++m) {
    double psi = landice_bed_basis(m, xi, eta);
    np += psi * in->npress[m];
    u += psi * in->u[2 * m];
    v += psi * in->u[2 * m + 1];
  }
  *npress = np;
  *ub = u;
  *vb = v;
}

/* Nonlinear-law bed terms of the residual: r[2m + c] += int_bed tau_b,c psi_m. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_sliding_residual(const landice_coef *c,
                                                       const landice_elem_in *in, double r[16]) {
  double w = c->half_dx * c->half_dy * in->gfrac;
  for (int q = 0; q < 4; ++q) {
    double np, ub, vb, beta, dbeta;
    landice_bed_point(in, q, &np, &ub, &vb);
    landice_sliding_law(c, np, ub, vb, &beta, &dbeta);
    double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
    double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      double psi = landice_bed_basis(m, xi, eta);
      r[2 * m] += w * beta * ub * psi;
      r[2 * m + 1] += w * beta * vb * psi;
    }
  }
}

/* Nonlinear-law share of the functional: int_bed P(r). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_elem_sliding_energy(const landice_coef *c,
                                                       const landice_elem_in *in) {
  double w = c->half_dx * c->half_dy * in->gfrac, e = 0.0;
  for (int q = 0; q < 4; ++q) {
    double np, ub, vb;
    landice_bed_point(in, q, &np, &ub, &vb);
    e += w * landice_sliding_potential(c, np, ub, vb);
  }
  return e;
}

/* Nonlinear-law bed terms of Jacobian rows 2a, 2a + 1 (a < 4): the 2x2 block
 * beta I + dbeta u u^T, whose u-v cross terms enter kr[0][2m+1], kr[1][2m]. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_sliding_rows(const landice_coef *c, const landice_elem_in *in,
                                                   int a, double kr[2][16]) {
  double w = c->half_dx * c->half_dy * in->gfrac;
  for (int q = 0; q < 4; ++q) {
    double np, ub, vb, beta, dbeta;
    landice_bed_point(in, q, &np, &ub, &vb);
    landice_sliding_law(c, np, ub, vb, &beta, &dbeta);
    double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
    double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
    double wa = w * landice_bed_basis(a, xi, eta);
    double kuu = wa * (beta + dbeta * ub * ub), kvv = wa * (beta + dbeta * vb * vb);
    double kuv = wa * dbeta * ub * vb;
    CRYO_LANDICE_UNROLL
    for (int m = 0; m < 4; ++m) {
      double psi = landice_bed_basis(m, xi, eta);
      kr[0][2 * m] += kuu * psi;
      kr[0][2 * m + 1] += kuv * psi;
      kr[1][2 * m] += kuv * psi;
      kr[1][2 * m + 1] += kvv * psi;
    }
  }
}

/* 2 mu w det at Gauss point g of strain invariant e2 = eps_e^2 + eps_reg^2.
 * Computed where it is used: with the power inline (landice_pow) nothing
 * forces it into a loop of its own, whose 8 values would sit in local memory. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_two_mu(const landice_coef *c, double afac,
                                          const landice_gauss *g, double e2) {
  return afac * landice_pow(e2, c->mu_exp) * g->wdet;
}

/* Element residual r[16] (Antepara et al. 2024, Fig. 2 "optimized": fused loops over the
 * Gauss points, local accumulation). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_residual(const landice_coef *c, const landice_elem_in *in,
                                               double r[16]) {
  CRYO_LANDICE_UNROLL
  for (int a = 0; a < 16; ++a)
    r[a] = 0.0;
  for (int q = 0; q < 8; ++q) {
    const landice_gauss g = landice_gauss_make(c, in->z, q);
    double grad[6], sx, sy;
    landice_surface_grad(c, in->s, (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP,
                         (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP, &sx, &sy);
    double two_mu =
        landice_two_mu(c, in->afac, &g, landice_strain_at(c, &g, in->u, grad) + c->eps2);
    double s00 = two_mu * (2.0 * grad[0] + grad[4]);
    double s11 = two_mu * (2.0 * grad[4] + grad[0]);
    double s01 = two_mu * 0.5 * (grad[1] + grad[3]);
    double s02 = two_mu * 0.5 * grad[2];
    double s12 = two_mu * 0.5 * grad[5];
    double f0 = c->rhog * sx * g.wdet, f1 = c->rhog * sy * g.wdet;
    CRYO_LANDICE_UNROLL
    for (int a = 0; a < 8; ++a) {
      double phi, gx, gy, gz;
      landice_node_grad(c, &g, a, &phi, &gx, &gy, &gz);
      r[2 * a] += s00 * gx + s01 * gy + s02 * gz + f0 * phi;
      r[2 * a + 1] += s01 * gx + s11 * gy + s12 * gz + f1 * phi;
    }
  }
  if (in->bottom && c->friction && c->law == CRYO_LANDICE_SLIDING_LINEAR) {
    double w = c->half_dx * c->half_dy * in->gfrac;
    for (int q = 0; q < 4; ++q) {
      double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double b2 = 0.0, ub = 0.0, vb = 0.0;
      CRYO_LANDICE_UNROLL
      for (int m = 0; m < 4; ++m) {
        double psi = landice_bed_basis(m, xi, eta);
        b2 += psi * in->beta2[m];
        ub += psi * in->u[2 * m];
        vb += psi * in->u[2 * m + 1];
      }
      CRYO_LANDICE_UNROLL
      for (int m = 0; m < 4; ++m) {
        double psi = landice_bed_basis(m, xi, eta);
        r[2 * m] += w * b2 * ub * psi;
        r[2 * m + 1] += w * b2 * vb * psi;
      }
    }
  }
}

/* Coefficients of row node a at a Gauss point: each entry K[2a + r][2m + d]
 * of the exact Jacobian is linear in node m's gradient, the viscous term
 * 2 mu d2(eps_e^2)/dU_a dU_m plus 2 dmu g_(2a+r) g_(2m+d), so the row node's
 * and the Gauss point's factors are collected once as p<r><d><x|y|z>. */
typedef struct landice_row_coef {
  double p00x, p00y, p00z, p01x, p01y, p01z, p10x, p10y, p10z, p11x, p11y, p11z;
} landice_row_coef;

/* The strain-dependent factors of a Gauss point that every row shares. */
typedef struct landice_gauss_strain {
  double two_mu, two_dmu, sxy, a0, a1, hu, hv;
} landice_gauss_strain;

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE landice_row_coef landice_row_coef_make(const landice_coef *c,
                                                           const landice_gauss *g,
                                                           const landice_gauss_strain *s, int a) {
  double phia, gxa, gya, gza;
  landice_node_grad(c, g, a, &phia, &gxa, &gya, &gza);
  /* g_(2a), g_(2a+1) = d(eps_e^2)/dU of this row, scaled by 2 dmu */
  double ga0 = s->two_dmu * (s->a0 * gxa + s->sxy * gya + s->hu * gza);
  double ga1 = s->two_dmu * (s->a1 * gya + s->sxy * gxa + s->hv * gza);
  double tm = s->two_mu;
  double hx = 0.5 * tm * gxa, hy = 0.5 * tm * gya, hz = 0.5 * tm * gza;
  landice_row_coef p;
  p.p00x = 2.0 * tm * gxa + ga0 * s->a0;
  p.p00y = hy + ga0 * s->sxy;
  p.p00z = hz + ga0 * s->hu;
  p.p01x = hy + ga0 * s->sxy;
  p.p01y = tm * gxa + ga0 * s->a1;
  p.p01z = ga0 * s->hv;
  p.p10x = tm * gya + ga1 * s->a0;
  p.p10y = hx + ga1 * s->sxy;
  p.p10z = ga1 * s->hu;
  p.p11x = hx + ga1 * s->sxy;
  p.p11y = 2.0 * tm * gya + ga1 * s->a1;
  p.p11z = hz + ga1 * s->hv;
  return p;
}

CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE landice_row_coef landice_row_coef_select(int first, const landice_row_coef *a,
                                                             const landice_row_coef *b) {
  landice_row_coef p;
  p.p00x = first ? a->p00x : b->p00x;
  p.p00y = first ? a->p00y : b->p00y;
  p.p00z = first ? a->p00z : b->p00z;
  p.p01x = first ? a->p01x : b->p01x;
  p.p01y = first ? a->p01y : b->p01y;
  p.p01z = first ? a->p01z : b->p01z;
  p.p10x = first ? a->p10x : b->p10x;
  p.p10y = first ? a->p10y : b->p10y;
  p.p10z = first ? a->p10z : b->p10z;
  p.p11x = first ? a->p11x : b->p11x;
  p.p11y = first ? a->p11y : b->p11y;
  p.p11z = first ? a->p11z : b->p11z;
  return p;
}

/* kb += the 2x2 block of a row node (coefficients p) and a column node of
 * physical gradient (gx, gy, gz). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_block_add(const landice_row_coef *p, double gx, double gy,
                                           double gz, double kb[4]) {
  kb[0] += p->p00x * gx + p->p00y * gy + p->p00z * gz;
  kb[1] += p->p01x * gx + p->p01y * gy + p->p01z * gz;
  kb[2] += p->p10x * gx + p->p10y * gy + p->p10z * gz;
  kb[3] += p->p11x * gx + p->p11y * gy + p->p11z * gz;
}

/* Row node and column node of block slot b (0..8) of pair thread t (0..3):
 * thread t forms the blocks (t, m >= t) and (7 - t, m >= 7 - t), 9 blocks
 * for every t, so the 36 blocks of the upper triangle of the symmetric
 * element matrix are formed once by 4 equally loaded threads. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_pair_block(int t, int b, int *row, int *col) {
  int first = b < 8 - t;
  *row = first ? t : 7 - t;
  *col = first ? t + b : b - 1;
}

/* Block slot b of pair thread t (landice_pair_block) of the exact element
 * Jacobian K = dr/dU (symmetric): kb[b][2 r + d] = K[2 row + r][2 col + d].
 * The element's viscosity, geometry and strain are formed 4 times per element
 * instead of once per row node, and 36 lower-triangle blocks are not formed
 * at all: the scatter writes each block's transpose (Owen et al. 2024: private
 * arrays must fit registers, here 36 accumulators). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_jacobian_pairs(const landice_coef *c,
                                                     const landice_elem_in *in, int t,
                                                     double kb[9][4]) {
  CRYO_LANDICE_UNROLL
  for (int b = 0; b < 9; ++b) {
    CRYO_LANDICE_UNROLL
    for (int e = 0; e < 4; ++e)
      kb[b][e] = 0.0;
  }
  for (int q = 0; q < 8; ++q) {
    const landice_gauss g = landice_gauss_make(c, in->z, q);
    double grad[6];
    double e2 = landice_strain_at(c, &g, in->u, grad) + c->eps2;
    landice_gauss_strain s;
    /* 2 dmu/d(eps_e^2) = 2 mu (1-n)/(2n) / (eps_e^2 + eps_reg^2) */
    s.two_mu = landice_two_mu(c, in->afac, &g, e2);
    s.two_dmu = s.two_mu * c->mu_exp / e2;
    s.sxy = 0.5 * (grad[1] + grad[3]);
    s.a0 = 2.0 * grad[0] + grad[4];
    s.a1 = 2.0 * grad[4] + grad[0];
    s.hu = 0.5 * grad[2];
    s.hv = 0.5 * grad[5];
    /* Slots 0..4 belong to row t for every t (8 - t >= 5), so the second
     * row's coefficients are formed after them: fewer values live at once. */
    const landice_row_coef pa = landice_row_coef_make(c, &g, &s, t);
    CRYO_LANDICE_UNROLL
    for (int b = 0; b < 5; ++b) {
      double phim, gxm, gym, gzm;
      landice_node_grad(c, &g, t + b, &phim, &gxm, &gym, &gzm);
      landice_block_add(&pa, gxm, gym, gzm, kb[b]);
    }
    const landice_row_coef pb = landice_row_coef_make(c, &g, &s, 7 - t);
    CRYO_LANDICE_UNROLL
    for (int b = 5; b < 9; ++b) {
      int row, col;
      landice_pair_block(t, b, &row, &col);
      /* values selected, not a pointer to pa or pb: a taken address would
       * put both in local memory */
      const landice_row_coef p = landice_row_coef_select(row == t, &pa, &pb);
      double phim, gxm, gym, gzm;
      landice_node_grad(c, &g, col, &phim, &gxm, &gym, &gzm);
      landice_block_add(&p, gxm, gym, gzm, kb[b]);
    }
  }
  if (in->bottom && c->friction && c->law == CRYO_LANDICE_SLIDING_LINEAR) {
    double w = c->half_dx * c->half_dy * in->gfrac;
    for (int q = 0; q < 4; ++q) {
      double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double b2 = 0.0;
      CRYO_LANDICE_UNROLL
      for (int m = 0; m < 4; ++m)
        b2 += landice_bed_basis(m, xi, eta) * in->beta2[m];
      CRYO_LANDICE_UNROLL
      for (int b = 0; b < 9; ++b) {
        int row, col;
        landice_pair_block(t, b, &row, &col);
        /* bed nodes are the local nodes 0..3 */
        double v = row < 4 && col < 4
                       ? w * b2 * landice_bed_basis(row, xi, eta) * landice_bed_basis(col, xi, eta)
                       : 0.0;
        kb[b][0] += v;
        kb[b][3] += v;
      }
    }
  }
}

/* Element share of the functional E(U). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_elem_energy(const landice_coef *c, const landice_elem_in *in) {
  double e = 0.0;
  for (int q = 0; q < 8; ++q) {
    const landice_gauss g = landice_gauss_make(c, in->z, q);
    double grad[6], sx, sy;
    landice_surface_grad(c, in->s, (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP,
                         (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP, &sx, &sy);
    double e2 = landice_strain_at(c, &g, in->u, grad);
    double uq = 0.0, vq = 0.0;
    CRYO_LANDICE_UNROLL
    for (int a = 0; a < 8; ++a) {
      double phi = landice_wyz(&g, a) * landice_fx(&g, a);
      uq += phi * in->u[2 * a];
      vq += phi * in->u[2 * a + 1];
    }
    e += g.wdet * (in->afac * c->e_fac * landice_pow(e2 + c->eps2, c->e_exp) +
                   c->rhog * (sx * uq + sy * vq));
  }
  if (in->bottom && c->friction && c->law == CRYO_LANDICE_SLIDING_LINEAR) {
    double w = c->half_dx * c->half_dy * in->gfrac;
    for (int q = 0; q < 4; ++q) {
      double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double b2 = 0.0, ub = 0.0, vb = 0.0;
      CRYO_LANDICE_UNROLL
      for (int m = 0; m < 4; ++m) {
        double psi = 0.25 * (1.0 + ((m & 1) ? xi : -xi)) * (1.0 + ((m & 2) ? eta : -eta));
        b2 += psi * in->beta2[m];
        ub += psi * in->u[2 * m];
        vb += psi * in->u[2 * m + 1];
      }
      e += 0.5 * w * b2 * (ub * ub + vb * vb);
    }
  }
  return e;
}

/* Body force at the Gauss point g from the element's nodal values fe[16]
 * (layout of landice_elem_in.u). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_force_at(const landice_gauss *g, const double fe[16], double *fx,
                                          double *fy) {
  double ax = 0.0, ay = 0.0;
  CRYO_LANDICE_UNROLL
  for (int a = 0; a < 8; ++a) {
    double phi = landice_wyz(g, a) * landice_fx(g, a);
    ax += phi * fe[2 * a];
    ay += phi * fe[2 * a + 1];
  }
  *fx = ax;
  *fy = ay;
}

/* Body-force part of the element residual: r[2a + c] = -int f_c phi_a. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_force(const landice_coef *c, const landice_elem_in *in,
                                            const double fe[16], double r[16]) {
  CRYO_LANDICE_UNROLL
  for (int a = 0; a < 16; ++a)
    r[a] = 0.0;
  for (int q = 0; q < 8; ++q) {
    const landice_gauss g = landice_gauss_make(c, in->z, q);
    double fx, fy;
    landice_force_at(&g, fe, &fx, &fy);
    fx *= g.wdet;
    fy *= g.wdet;
    CRYO_LANDICE_UNROLL
    for (int a = 0; a < 8; ++a) {
      double phi = landice_wyz(&g, a) * landice_fx(&g, a);
      r[2 * a] -= fx * phi;
      r[2 * a + 1] -= fy * phi;
    }
  }
}

/* Body-force part of the element's E(U): -int f . u. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE double landice_elem_force_work(const landice_coef *c, const landice_elem_in *in,
                                                   const double fe[16]) {
  double e = 0.0;
  for (int q = 0; q < 8; ++q) {
    const landice_gauss g = landice_gauss_make(c, in->z, q);
    double fx, fy, uq, vq;
    landice_force_at(&g, fe, &fx, &fy);
    landice_force_at(&g, in->u, &uq, &vq);
    e -= g.wdet * (fx * uq + fy * vq);
  }
  return e;
}

/* Nodal body force fe[16] of element (i, j, k) (layout of landice_elem_in.u)
 * from force (node, nlev = 2 (nz + 1)); n[4] as for landice_elem_gather. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_gather_force(const long n[4], int k, int nz,
                                                   const double *force, double fe[16]) {
  int nlev = 2 * (nz + 1);
  CRYO_LANDICE_UNROLL
  for (int m = 0; m < 4; ++m) {
    const double *fm = force + n[m] * nlev + 2 * k;
    fe[2 * m] = fm[0];
    fe[2 * m + 1] = fm[1];
    fe[2 * m + 8] = fm[2];
    fe[2 * m + 9] = fm[3];
  }
}

/* Gather element (i, j, k) inputs; n[4] are the corner node indices
 * CRYO_NODE of (i + cx, j + cy), nlev = 2 (nz + 1). */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE void landice_elem_gather(const landice_coef *c, const long n[4], int k, int nz,
                                             const double *vel, const double *bed,
                                             const double *thk_node, const double *beta2,
                                             landice_elem_in *in) {
  int nlev = 2 * (nz + 1);
  double lo = (double)k / nz, hi = (double)(k + 1) / nz;
  double phi[4];
  CRYO_LANDICE_UNROLL
  for (int m = 0; m < 4; ++m) {
    /* plane relative to the element's corner 0: gradients see differences only */
    double plane = ((m & 1) ? 2.0 * c->half_dx * c->slope_x : 0.0) +
                   ((m & 2) ? 2.0 * c->half_dy * c->slope_y : 0.0);
    double bm = bed[n[m]], hm = thk_node[n[m]];
    /* N = rho_i g H - rho_w g max(z_sl - b, 0) >= 0 (water pressure only when marine) */
    in->npress[m] = 0.0;
    if (c->law == CRYO_LANDICE_SLIDING_SCHOOF)
      in->npress[m] = cryo_max(c->rhog * hm - c->rhowg * cryo_max(c->sea_level - bm, 0.0), 0.0);
    /* flotation, phi = rho_i H + rho_w (b - z_sl) over rho_w: afloat (phi <= 0),
     * the lower surface is z_sl - (rho_i / rho_w) H >= b, the upper one H above it */
    phi[m] = 1.0;
    if (c->marine) {
      phi[m] = c->float_ratio * hm + bm - c->sea_level;
      bm = cryo_max(bm, c->sea_level - c->float_ratio * hm);
    }
    in->z[m] = bm + lo * hm + plane;
    in->z[m + 4] = bm + hi * hm + plane;
    in->s[m] = bm + hm;
    in->beta2[m] = beta2[n[m]];
    const double *um = vel + n[m] * nlev + 2 * k;
    in->u[2 * m] = um[0];
    in->u[2 * m + 1] = um[1];
    in->u[2 * m + 8] = um[2];
    in->u[2 * m + 9] = um[3];
  }
  in->bottom = (k == 0);
  in->gfrac = (c->marine && k == 0) ? landice_grounded_fraction(phi) : 1.0;
}

/* Column of global index (gi, gj) exists: inside the global domain, or
 * wrapped by periodicity. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE int landice_column_exists(int gi, int gj, int nxg, int nyg, int px, int py) {
  return (px || (gi >= 0 && gi < nxg)) && (py || (gj >= 0 && gj < nyg));
}

/* Column (i, j) of the block, i in [-1, nx], j in [-1, ny], carries ice: its
 * cell is at least min_thickness thick (docs/landice.md, Margins). Elements
 * of other columns are not assembled. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE int landice_column_active(const double *thk, int i, int j, int nx,
                                              double hmin) {
  return thk[(long)(j + 1) * (nx + 2) + (i + 1)] >= hmin;
}

/* Node (i, j) of the block, i in [0, nx], j in [0, ny], belongs to an ice
 * column: one of its existing adjacent columns is active. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE int landice_node_active(const double *thk, int i, int j, int i0, int j0, int nx,
                                            int nxg, int nyg, int px, int py, double hmin) {
  int active = 0;
  for (int q = 0; q < 4; ++q) {
    int ci = i - 1 + (q & 1), cj = j - 1 + (q >> 1);
    if (landice_column_exists(i0 + ci, j0 + cj, nxg, nyg, px, py) &&
        landice_column_active(thk, ci, cj, nx, hmin))
      active = 1;
  }
  return active;
}

/* Fixed velocity components of node (gi, gj, k), bit 0 u and bit 1 v: both
 * on the bed with no slip and on a non-periodic global edge with lateral
 * Dirichlet conditions; the normal component on a free-slip edge. */
CRYO_LANDICE_ROUTINE
CRYO_LANDICE_INLINE int landice_node_fixed(int gi, int gj, int k, int nxg, int nyg, int px, int py,
                                           int no_slip, int lateral) {
  if (no_slip && k == 0) return 3;
  int ex = !px && (gi == 0 || gi == nxg), ey = !py && (gj == 0 || gj == nyg);
  if (lateral == CRYO_LANDICE_LATERAL_DIRICHLET) return (ex || ey) ? 3 : 0;
  if (lateral == CRYO_LANDICE_LATERAL_FREE_SLIP) return (ex ? 1 : 0) | (ey ? 2 : 0);
  return 0;
}

/* First column index i >= -1 of colour parity px (of the global index) and
 * the number of such columns up to nx. */
static inline void landice_colour_range(int i0, int nx, int px, int *first, int *count) {
  int f = -1;
  if ((((i0 + f) % 2) + 2) % 2 != px) f = 0;
  *first = f;
  *count = (nx - f) / 2 + 1;
}

/* Elements of one colour: column parities (colour & 1, colour >> 1 & 1) of
 * the global column indices and layer parity colour >> 2, so that no two
 * elements of a launch share a node. Element e of the colour is
 *   k = fk + 2 (e % nk), i = fi + 2 (e / nk % ni), j = fj + 2 (e / (nk ni)):
 * layers fastest, so neighbouring threads read neighbouring levels of the
 * column-contiguous arrays (coalesced on GPUs). */
typedef struct landice_colour {
  int fi, ni, fj, nj, fk, nk;
} landice_colour;

static inline landice_colour landice_colour_make(const cryo_block *b, int nz, int colour) {
  landice_colour c;
  landice_colour_range(b->i0, b->nx, colour & 1, &c.fi, &c.ni);
  landice_colour_range(b->j0, b->ny, (colour >> 1) & 1, &c.fj, &c.nj);
  c.fk = (colour >> 2) & 1;
  c.nk = (nz - c.fk + 1) / 2;
  return c;
}

#endif
