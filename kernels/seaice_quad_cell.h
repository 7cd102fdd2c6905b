/* What the kernels of general quadrilateral cells share (kernels/seaice.h,
 * geometry layout): the cell's bilinear map at a point of the reference
 * square, the rotation of a node vector into the cell's frame and back, and
 * the centroid in reference coordinates. Included by kernels/seaice_quad*.c. */
#ifndef CRYO_SEAICE_QUAD_CELL_H
#define CRYO_SEAICE_QUAD_CELL_H

#include "seaice.h"

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

/* Tracer coefficient q of a dG1 cell in the basis {1, X - Xc, Y - Yc}: the
 * centroid (Xc, Yc) = (d1, d2) / (3 d0). */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void quad_centroid(double d0, double d1, double d2,
                                                                double *xc, double *yc) {
  const double r = 1.0 / (3.0 * d0);
  *xc = d1 * r;
  *yc = d2 * r;
}

#endif
