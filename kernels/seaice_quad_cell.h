/* What the kernels of general quadrilateral cells share (kernels/seaice.h,
 * geometry layout): the cell's bilinear map at a point of the reference
 * square, the rotation of a node vector into the cell's frame and back, the
 * centroid in reference coordinates, the geometry of one cell from its
 * corners, and the stress update of one cell. Included by
 * kernels/seaice_quad*.c, kernels/seaice_geometry.c and cryodyn-bench. */
#ifndef CRYO_SEAICE_QUAD_CELL_H
#define CRYO_SEAICE_QUAD_CELL_H

#include <math.h>

#include "cryo_acc.h"
#include "cryo_math.h"
#include "seaice.h"
#include "seaice_store.h"

#define QUAD_GAUSS 0.57735026918962576451 /* 1/sqrt(3) */

/* Columns of the Jacobian at (X, Y): x_X = A1 + A3 Y, x_Y = A2 + A3 X. */
typedef struct {
  double xX, yX, xY, yY;
} quad_jac;

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) quad_jac quad_jacobian(const double *g, double X,
                                                                    double Y) {
  quad_jac j;
  j.xX = g[CRYO_GEOM_A1X] + g[CRYO_GEOM_A3X] * Y;
  j.yX = g[CRYO_GEOM_A1Y] + g[CRYO_GEOM_A3Y] * Y;
  j.xY = g[CRYO_GEOM_A2X] + g[CRYO_GEOM_A3X] * X;
  j.yY = g[CRYO_GEOM_A2Y] + g[CRYO_GEOM_A3Y] * X;
  return j;
}

/* det = d0 + d1 X + d2 Y */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_det_coeffs(const double *g, double *d0,
                                                                  double *d1, double *d2) {
  *d0 = g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X];
  *d1 = g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A3Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A3X];
  *d2 = g[CRYO_GEOM_A3X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A3Y] * g[CRYO_GEOM_A2X];
}

/* Node vector (u, v) of corner k (0: (i,j), 1: (i+1,j), 2: (i,j+1), 3: (i+1,j+1))
 * in the cell's frame. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_to_cell(const double *g, int k, double u,
                                                               double v, double *uc, double *vc) {
  const double c = g[CRYO_GEOM_C00 + 2 * k], s = g[CRYO_GEOM_S00 + 2 * k];
  *uc = c * u - s * v;
  *vc = s * u + c * v;
}

/* The inverse: a cell-frame vector in the grid frame of corner k. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_to_node(const double *g, int k, double uc,
                                                               double vc, double *u, double *v) {
  const double c = g[CRYO_GEOM_C00 + 2 * k], s = g[CRYO_GEOM_S00 + 2 * k];
  *u = c * uc + s * vc;
  *v = c * vc - s * uc;
}

/* The centroid (Xc, Yc) = (d1, d2) / (3 d0) of a cell in reference
 * coordinates: dG1 tracers use the basis {1, X - Xc, Y - Yc}. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_centroid(double d0, double d1, double d2,
                                                                double *xc, double *yc) {
  const double r = 1.0 / (3.0 * d0);
  *xc = d1 * r;
  *yc = d2 * r;
}

/* The geometry values of one cell (kernels/seaice.h, layout) from the
 * positions r[3 k .. 3 k + 2] (m) of its corners k = 0..3 and the unit
 * vectors e1 of their grid frames, in that order: what cryo_seaice_geometry
 * stores, and what a kernel computing the geometry as it goes would compute;
 * the cell frame's E1 (3-D) into frame[0..2] unless frame is NULL. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
quad_cell_geometry(const double *r, const double *e1, double *g, double *frame) {
  /* corners relative to corner 00 first: differences of nearby positions
   * lose nothing where the grid's coordinates are exact */
  double d[3][3];
  for (int k = 0; k < 3; ++k)
    for (int x = 0; x < 3; ++x)
      d[k][x] = r[3 * (k + 1) + x] - r[x];
  /* normal along (r11 - r00) x (r01 - r10) */
  const double ax = d[2][0], ay = d[2][1], az = d[2][2];
  const double bx = d[1][0] - d[0][0], by = d[1][1] - d[0][1], bz = d[1][2] - d[0][2];
  double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
  const double rn = 1.0 / sqrt(nx * nx + ny * ny + nz * nz);
  nx *= rn, ny *= rn, nz *= rn;
  /* E1 along the tangential part of (r10 + r11 - r00 - r01) / 2 */
  double mx = 0.5 * (d[0][0] - d[1][0] + d[2][0]), my = 0.5 * (d[0][1] - d[1][1] + d[2][1]),
         mz = 0.5 * (d[0][2] - d[1][2] + d[2][2]);
  const double mn = mx * nx + my * ny + mz * nz;
  mx -= mn * nx, my -= mn * ny, mz -= mn * nz;
  const double rm = 1.0 / sqrt(mx * mx + my * my + mz * mz);
  const double e1x = mx * rm, e1y = my * rm, e1z = mz * rm;
  if (frame) frame[0] = e1x, frame[1] = e1y, frame[2] = e1z;
  const double e2x = ny * e1z - nz * e1y, e2y = nz * e1x - nx * e1z, e2z = nx * e1y - ny * e1x;
  /* corners in the cell's plane, relative to the centre (mean of the corners) */
  const double cx = 0.25 * (d[0][0] + d[1][0] + d[2][0]), cy = 0.25 * (d[0][1] + d[1][1] + d[2][1]),
               cz = 0.25 * (d[0][2] + d[1][2] + d[2][2]);
  double px[4], py[4];
  for (int k = 0; k < 4; ++k) {
    const double qx = (k ? d[k - 1][0] : 0.0) - cx, qy = (k ? d[k - 1][1] : 0.0) - cy,
                 qz = (k ? d[k - 1][2] : 0.0) - cz;
    px[k] = qx * e1x + qy * e1y + qz * e1z;
    py[k] = qx * e2x + qy * e2y + qz * e2z;
  }
  g[CRYO_GEOM_A1X] = 0.25 * ((px[1] - px[0]) + (px[3] - px[2]));
  g[CRYO_GEOM_A1Y] = 0.25 * ((py[1] - py[0]) + (py[3] - py[2]));
  g[CRYO_GEOM_A2X] = 0.25 * ((px[2] - px[0]) + (px[3] - px[1]));
  g[CRYO_GEOM_A2Y] = 0.25 * ((py[2] - py[0]) + (py[3] - py[1]));
  g[CRYO_GEOM_A3X] = 0.25 * ((px[0] - px[1]) + (px[3] - px[2]));
  g[CRYO_GEOM_A3Y] = 0.25 * ((py[0] - py[1]) + (py[3] - py[2]));
  for (int k = 0; k < 4; ++k) {
    const double *e = e1 + 3 * k;
    const double c = e[0] * e1x + e[1] * e1y + e[2] * e1z;
    const double s = e[0] * e2x + e[1] * e2y + e[2] * e2z;
    const double rs = 1.0 / sqrt(c * c + s * s);
    g[CRYO_GEOM_C00 + 2 * k] = c * rs;
    g[CRYO_GEOM_S00 + 2 * k] = s * rs;
  }
}

/* Parameters of the stress update, private scalars of the launch. */
typedef struct {
  double pstar, cstr;    /* P*, C */
  double k1, k2, k3;     /* 1 + e^-2, 1 - e^-2, e^-2 */
  double dmin2, ralpha;  /* Delta_min^2, 1 / alpha */
  double tens_p, tens_m; /* 1 + k_t, 1 - k_t (tensile strength, kernels/seaice_stress.c) */
  double aevp_fac;       /* adaptive EVP: c* (c pi)^2 dt / rho_i (kernels/seaice_stress.c) */
  double h_min, alpha_min;
} quad_stress_consts;

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double quad_strength(double hq, double aq,
                                                                  double pstar, double cstr) {
  return pstar * cryo_max(hq, 0.0) * cryo_exp(-cstr * (1.0 - cryo_min(cryo_max(aq, 0.0), 1.0)));
}

/* Launch arguments of the stress update (kernels/seaice_quad.c; kernels/cryo_acc.h,
 * no-map launches). */
typedef struct {
  quad_stress_consts k;
  long nxc, ncell; /* cells per row and in all, halo ring included */
  const double *u, *v, *h, *a, *ice_mask, *geom;
  seaice_store *s11, *s12, *s22, *alpha_evp;
} quad_stress_args;

/* The stress update of cell c with lower-left node n00 (rows of nxn nodes)
 * and launch arguments g (kernels/seaice_quad.c); with adaptive = 1 alpha is
 * the cell's own, from its area 4 d0 (kernels/seaice_stress.c), and stored in
 * alpha_evp[c]. The cell's geometry is geo, or with geo NULL the stored
 * g->geom of cell c. The arguments are read where they are used, through
 * copies of g made opaque (CRYO_OPAQUE, kernels/cryo_acc.h): the parameters,
 * the stored geometry and the dG1 tracers once per Gauss point, the stress
 * arrays at the end. GCC then neither hoists them out of the cell loop nor
 * keeps them live across the cell: 124 -> 84 registers on the GPU (dG0;
 * docs/performance.md, "Stress kernel registers"), every value computed by
 * the same operations in the same order. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_stress_cell(long c, long n00, long nxn,
                                                                   const quad_stress_args *g,
                                                                   const double *geo, int na,
                                                                   int adaptive) {
  const long nk[4] = {n00, n00 + 1, n00 + nxn, n00 + nxn + 1};
  const double *gc = geo ? geo : g->geom + c * CRYO_SEAICE_NGEOM;
  double uc[4], vc[4];
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m)
    quad_to_cell(gc, m, g->u[nk[m]], g->v[nk[m]], &uc[m], &vc[m]);
  const double pc = na == 1 ? quad_strength(g->h[c], g->a[c], g->k.pstar, g->k.cstr) : 0.0;
  double p11[3] = {0, 0, 0}, p12[3] = {0, 0, 0}, p22[3] = {0, 0, 0};
  double zsum = 0.0; /* adaptive EVP: sum of zeta over the Gauss points */
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const quad_stress_args *gq = g;
    CRYO_OPAQUE(gq);
    const double *gg = geo ? geo : gq->geom + c * CRYO_SEAICE_NGEOM;
    const double X = (q & 1) ? QUAD_GAUSS : -QUAD_GAUSS;
    const double Y = (q & 2) ? QUAD_GAUSS : -QUAD_GAUSS;
    const quad_jac J = quad_jacobian(gg, X, Y);
    const double rdet = 1.0 / (J.xX * J.yY - J.xY * J.yX);
    const double uX = 0.25 * ((uc[1] - uc[0]) * (1.0 - Y) + (uc[3] - uc[2]) * (1.0 + Y));
    const double uY = 0.25 * ((uc[2] - uc[0]) * (1.0 - X) + (uc[3] - uc[1]) * (1.0 + X));
    const double vX = 0.25 * ((vc[1] - vc[0]) * (1.0 - Y) + (vc[3] - vc[2]) * (1.0 + Y));
    const double vY = 0.25 * ((vc[2] - vc[0]) * (1.0 - X) + (vc[3] - vc[1]) * (1.0 + X));
    const double e11 = (uX * J.yY - uY * J.yX) * rdet;
    const double e22 = (vY * J.xX - vX * J.xY) * rdet;
    const double e12 = 0.5 * ((uY * J.xX - uX * J.xY) + (vX * J.yY - vY * J.yX)) * rdet;
    double pg = pc;
    if (na == 3) {
      double d0, d1, d2, xc, yc;
      quad_det_coeffs(gg, &d0, &d1, &d2);
      quad_centroid(d0, d1, d2, &xc, &yc);
      const double *h = gq->h, *a = gq->a;
      pg = quad_strength(h[c * 3] + h[c * 3 + 1] * (X - xc) + h[c * 3 + 2] * (Y - yc),
                         a[c * 3] + a[c * 3 + 1] * (X - xc) + a[c * 3 + 2] * (Y - yc), gq->k.pstar,
                         gq->k.cstr);
    }
    const quad_stress_consts *k = &gq->k;
    const double delta = sqrt(k->dmin2 + k->k1 * (e11 * e11 + e22 * e22) + 2.0 * k->k2 * e11 * e22 +
                              4.0 * k->k3 * e12 * e12);
    const double zeta = pg * k->tens_p / (2.0 * delta);
    const double t11 = zeta * (k->k1 * e11 + k->k2 * e22) - 0.5 * pg * k->tens_m;
    const double t22 = zeta * (k->k1 * e22 + k->k2 * e11) - 0.5 * pg * k->tens_m;
    const double t12 = 2.0 * zeta * k->k3 * e12;
    zsum += zeta;
    const double phi[3] = {1.0, X, Y};
#pragma GCC unroll 3
    for (int m = 0; m < 3; ++m) {
      p11[m] += phi[m] * t11;
      p12[m] += phi[m] * t12;
      p22[m] += phi[m] * t22;
    }
  }
  const quad_stress_args *ge = g;
  CRYO_OPAQUE(ge);
  const double wk[3] = {0.25, 0.75, 0.75};
  double ralpha = ge->k.ralpha;
  if (adaptive) {
    double d0, d1, d2;
    quad_det_coeffs(geo ? geo : ge->geom + c * CRYO_SEAICE_NGEOM, &d0, &d1, &d2);
    const double hm = cryo_max(ge->h[c * na], ge->k.h_min);
    const double alpha = sqrt(ge->k.aevp_fac * (0.25 * zsum) / (4.0 * d0 * hm));
    const double alpha_c = cryo_max(alpha, ge->k.alpha_min);
    ge->alpha_evp[c] = alpha_c;
    ralpha = 1.0 / alpha_c;
  }
  seaice_store *s11 = ge->s11, *s12 = ge->s12, *s22 = ge->s22;
#pragma GCC unroll 3
  for (int m = 0; m < 3; ++m) {
    const long i = c * 3 + m;
    s11[i] += (wk[m] * p11[m] - s11[i]) * ralpha;
    s12[i] += (wk[m] * p12[m] - s12[i]) * ralpha;
    s22[i] += (wk[m] * p22[m] - s22[i]) * ralpha;
  }
}

#endif
