/* dG0 transport, forcing, coupling fields and diagnostics on general
 * quadrilateral cells (docs/seaice.md, Curvilinear grids on the sphere;
 * geometry layout in kernels/seaice.h).
 *
 * Transport (dG0, forward Euler, upwind): the flux through a face is its
 * length times the normal component of the mean of its two nodes' velocities
 * times the upwind cell's value. The east face of cell (i, j) (from corner
 * (i+1,j) to (i+1,j+1)) is 2 (A2 + A3) in that cell's frame, its north face
 * 2 (A1 + A3); a cell takes its west and south fluxes from the east and north
 * faces of its neighbours, computed from their geometry, so both cells of a
 * face use one value and sum(h area) changes by round-off only.
 *
 * Minimum bytes per owned cell: transport 56 B as on the rectangles plus the
 * 14 geometry values, 168 B; forcing to nodes 4 x 8 B read per cell and 4 x 8 B
 * written per node, plus the geometry and rot of the cells, 192 B per node.
 */
#include <math.h>

#include "cryo_acc.h"
#include "halo.h"
#include "seaice.h"
#include "seaice_quad_cell.h"

/* Upwind flux (m2 s-1 times q) through the east (north = 0) or north face
 * (north = 1) of cell c, whose nodes on that face are na, nb (corners ka, kb),
 * towards the neighbour cn. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double face_flux(const double *geom, long c, long cn,
                                                              int north, long na, long nb,
                                                              const double *u, const double *v,
                                                              const double *mask, const double *q) {
  const double *g = geom + c * CRYO_SEAICE_NGEOM;
  const int ka = north ? 2 : 1, kb = 3;
  double ua, va, ub, vb;
  quad_to_cell(g, ka, u[na], v[na], &ua, &va);
  quad_to_cell(g, kb, u[nb], v[nb], &ub, &vb);
  /* outward normal times length: east (t_y, -t_x), t = 2 (A2 + A3); north
   * (-t_y, t_x), t = 2 (A1 + A3); times the mean velocity 1/2 (a + b) */
  double nx, ny;
  if (north) {
    nx = -(g[CRYO_GEOM_A1Y] + g[CRYO_GEOM_A3Y]);
    ny = g[CRYO_GEOM_A1X] + g[CRYO_GEOM_A3X];
  } else {
    nx = g[CRYO_GEOM_A2Y] + g[CRYO_GEOM_A3Y];
    ny = -(g[CRYO_GEOM_A2X] + g[CRYO_GEOM_A3X]);
  }
  const double vn = ((ua + ub) * nx + (va + vb) * ny) * (mask[c] * mask[cn]);
  return vn > 0.0 ? vn * q[c] : vn * q[cn];
}

/* The flux out of cell c through its north face where that face is the
 * north face of cell t across the fold (cryo_halo_fold_face), whose image
 * is the cell cn above c: minus t's own face_flux, computed from the same
 * operands to the bit. cn holds t's geometry with A3 negated and corners
 * 0, 1 being t's 3, 2; its nodes na, nb (corners 0, 1) hold t's velocities
 * negated. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) double fold_flux(const double *geom, long c, long cn,
                                                              long na, long nb, const double *u,
                                                              const double *v, const double *mask,
                                                              const double *q) {
  const double *g = geom + cn * CRYO_SEAICE_NGEOM;
  double ua, va, ub, vb;
  quad_to_cell(g, 1, -u[nb], -v[nb], &ua, &va);
  quad_to_cell(g, 0, -u[na], -v[na], &ub, &vb);
  const double nx = -(g[CRYO_GEOM_A1Y] + -g[CRYO_GEOM_A3Y]);
  const double ny = g[CRYO_GEOM_A1X] + -g[CRYO_GEOM_A3X];
  const double vn = ((ua + ub) * nx + (va + vb) * ny) * (mask[cn] * mask[c]);
  return -(vn > 0.0 ? vn * q[cn] : vn * q[c]);
}

void cryo_seaice_quad_advect_kernel(const cryo_seaice_params *p, const cryo_block *b,
                                    cryo_seaice_state *s) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const int fold = b->fold, i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const double dt = p->dt;
  const double *u = s->u, *v = s->v, *mask = s->mask, *geom = s->geom, *h = s->h, *a = s->a;
  double *h_work = s->h_work, *a_work = s->a_work;
  CRYO_DEVICE_LOOP((u, v, mask, geom, h, a, h_work, a_work))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const int across = cryo_halo_fold_face(fold, nxg, nyg, i0 + (int)i, j0 + (int)j);
    const long c = (j + 1) * (nx + 2) + i + 1, cw = c - 1, cs = c - (nx + 2);
    const long n00 = (j + 1) * (nx + 3) + i + 1, n10 = n00 + 1, n01 = n00 + nx + 3, n11 = n01 + 1;
    const long w00 = n00 - 1, s00 = n00 - (nx + 3); /* lower-left nodes of cw and cs */
    const double *g = geom + c * CRYO_SEAICE_NGEOM;
    const double d0 = g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X];
    const double r = mask[c] != 0.0 ? dt / (4.0 * d0) : 0.0;
    const double he = face_flux(geom, c, c + 1, 0, n10, n11, u, v, mask, h);
    const double hw = face_flux(geom, cw, c, 0, w00 + 1, w00 + nx + 4, u, v, mask, h);
    const double hn = across ? fold_flux(geom, c, c + nx + 2, n01, n11, u, v, mask, h)
                             : face_flux(geom, c, c + nx + 2, 1, n01, n11, u, v, mask, h);
    const double hs = face_flux(geom, cs, c, 1, s00 + nx + 3, s00 + nx + 4, u, v, mask, h);
    const double ae = face_flux(geom, c, c + 1, 0, n10, n11, u, v, mask, a);
    const double aw = face_flux(geom, cw, c, 0, w00 + 1, w00 + nx + 4, u, v, mask, a);
    const double an = across ? fold_flux(geom, c, c + nx + 2, n01, n11, u, v, mask, a)
                             : face_flux(geom, c, c + nx + 2, 1, n01, n11, u, v, mask, a);
    const double as = face_flux(geom, cs, c, 1, s00 + nx + 3, s00 + nx + 4, u, v, mask, a);
    h_work[c] = h[c] - r * ((he - hw) + (hn - hs));
    a_work[c] = a[c] - r * ((ae - aw) + (an - as));
  }
}

void cryo_seaice_quad_diag_rates(const cryo_block *b, cryo_seaice_state *s) {
  const long nx = b->nx, ncell = (long)b->nx * b->ny;
  const double *u = s->u, *v = s->v, *mask = s->mask, *geom = s->geom;
  double *shear = s->shear, *divergence = s->divergence;
  CRYO_DEVICE_LOOP((u, v, mask, geom, shear, divergence))
  for (long e = 0; e < ncell; ++e) {
    const long j = e / nx, i = e - j * nx;
    const long c = (j + 1) * (nx + 2) + i + 1;
    const long n00 = (j + 1) * (nx + 3) + i + 1;
    const long nk[4] = {n00, n00 + 1, n00 + nx + 3, n00 + nx + 4};
    const double *g = geom + c * CRYO_SEAICE_NGEOM;
    if (mask[c] == 0.0) {
      divergence[c] = shear[c] = 0.0;
      continue;
    }
    double uc[4], vc[4];
    for (int m = 0; m < 4; ++m)
      quad_to_cell(g, m, u[nk[m]], v[nk[m]], &uc[m], &vc[m]);
    const quad_jac J = quad_jacobian(g, 0.0, 0.0);
    const double rdet = 1.0 / (J.xX * J.yY - J.xY * J.yX);
    const double uX = 0.25 * ((uc[1] - uc[0]) + (uc[3] - uc[2]));
    const double uY = 0.25 * ((uc[2] - uc[0]) + (uc[3] - uc[1]));
    const double vX = 0.25 * ((vc[1] - vc[0]) + (vc[3] - vc[2]));
    const double vY = 0.25 * ((vc[2] - vc[0]) + (vc[3] - vc[1]));
    const double ux = (uX * J.yY - uY * J.yX) * rdet, uy = (uY * J.xX - uX * J.xY) * rdet;
    const double vx = (vX * J.yY - vY * J.yX) * rdet, vy = (vY * J.xX - vX * J.xY) * rdet;
    divergence[c] = ux + vy;
    shear[c] = sqrt((ux - vy) * (ux - vy) + (uy + vx) * (uy + vx));
  }
}

/* A cell-centred vector (east, north or the cell's grid directions) in the cell's frame. */
#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline __attribute__((always_inline)) void
cell_frame(const double *rot, long c, int east_north, double x, double y, double *xc, double *yc) {
  if (!east_north) {
    *xc = x;
    *yc = y;
    return;
  }
  const double cb = rot[2 * c], sb = rot[2 * c + 1];
  *xc = cb * x + sb * y;
  *yc = cb * y - sb * x;
}

void cryo_seaice_quad_forcing_to_nodes(const cryo_block *b, cryo_seaice_state *s, int east_north,
                                       const double *uair_c, const double *vair_c,
                                       const double *uocn_c, const double *vocn_c) {
  const long nx = b->nx, nnode = (long)(b->nx + 1) * (b->ny + 1);
  const double *geom = s->geom, *rot = s->rot;
  double *uair = s->uair, *vair = s->vair, *uocn = s->uocn, *vocn = s->vocn;
  CRYO_DEVICE_LOOP((geom, rot, uair_c, vair_c, uocn_c, vocn_c, uair, vair, uocn, vocn))
  for (long e = 0; e < nnode; ++e) {
    const long j = e / (nx + 1), i = e - j * (nx + 1);
    const long n = (j + 1) * (nx + 3) + i + 1;
    const long cur = (j + 1) * (nx + 2) + i + 1, clr = cur - (nx + 2);
    /* cells (i-1,j-1), (i,j-1), (i-1,j), (i,j); the node is their corner 3, 2, 1, 0 */
    const long cells[4] = {clr - 1, clr, cur - 1, cur};
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    for (int m = 0; m < 4; ++m) {
      const long c = cells[m];
      const double *g = geom + c * CRYO_SEAICE_NGEOM;
      double xc, yc, xn, yn;
      cell_frame(rot, c, east_north, uair_c[c], vair_c[c], &xc, &yc);
      quad_to_node(g, 3 - m, xc, yc, &xn, &yn);
      sum[0] += xn;
      sum[1] += yn;
      cell_frame(rot, c, east_north, uocn_c[c], vocn_c[c], &xc, &yc);
      quad_to_node(g, 3 - m, xc, yc, &xn, &yn);
      sum[2] += xn;
      sum[3] += yn;
    }
    uair[n] = 0.25 * sum[0];
    vair[n] = 0.25 * sum[1];
    uocn[n] = 0.25 * sum[2];
    vocn[n] = 0.25 * sum[3];
  }
}

void cryo_seaice_quad_coupling_fields(const cryo_seaice_params *p, const cryo_block *b,
                                      const cryo_seaice_state *s, int east_north, double *uice,
                                      double *vice, double *aice, double *hice, double *taux,
                                      double *tauy) {
  const int nx = b->nx, nxn = b->nx + 3;
  const long ncells = (long)b->nx * b->ny;
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const double drag = p->rho_ocean * p->c_ocean;
  /* the stress turned by the turning angle, with the sign of f (seaice_quad.c) */
  const double cosw = cos(p->turning_angle * (CRYO_PI / 180.0));
  const double sinw = sin(p->turning_angle * (CRYO_PI / 180.0));
  const double *u = s->u, *v = s->v, *uocn = s->uocn, *vocn = s->vocn, *h = s->h, *a = s->a;
  const double *mask = s->mask, *geom = s->geom, *rot = s->rot, *fcor = s->fcor;
  CRYO_DEVICE_LOOP(
      (u, v, uocn, vocn, h, a, mask, geom, rot, fcor, uice, vice, aice, hice, taux, tauy))
  for (long q = 0; q < ncells; ++q) {
    const int i = (int)(q % nx), j = (int)(q / nx);
    const long c = (long)(j + 1) * (nx + 2) + (i + 1);
    const long n0 = (long)(j + 1) * nxn + (i + 1);
    const long nodes[4] = {n0, n0 + 1, n0 + nxn, n0 + nxn + 1};
    const double *g = geom + c * CRYO_SEAICE_NGEOM;
    double su = 0, sv = 0, tx = 0, ty = 0;
    for (int k = 0; k < 4; ++k) {
      const long n = nodes[k];
      const double du = uocn[n] - u[n], dv = vocn[n] - v[n];
      const double st = drag * sqrt(du * du + dv * dv);
      const double sw = fcor[n] < 0.0 ? -sinw : sinw;
      double xc, yc;
      quad_to_cell(g, k, u[n], v[n], &xc, &yc);
      su += xc;
      sv += yc;
      quad_to_cell(g, k, st * (cosw * du - sw * dv), st * (sw * du + cosw * dv), &xc, &yc);
      tx += xc;
      ty += yc;
    }
    /* cell frame (E1, E2) to east and north: E1 = cos b east + sin b north */
    const double cb = east_north ? rot[2 * c] : 1.0, sb = east_north ? rot[2 * c + 1] : 0.0;
    const double on = mask[c], conc = a[c * na];
    uice[c] = on * 0.25 * (cb * su - sb * sv);
    vice[c] = on * 0.25 * (sb * su + cb * sv);
    aice[c] = on * conc;
    hice[c] = on * h[c * na];
    taux[c] = on * conc * 0.25 * (cb * tx - sb * ty);
    tauy[c] = on * conc * 0.25 * (sb * tx + cb * ty);
  }
}

void cryo_seaice_quad_east_north(const cryo_block *b, const cryo_seaice_state *s, double *u_east,
                                 double *v_north) {
  const long nnode = CRYO_NNODE(b);
  const double *u = s->u, *v = s->v, *nrot = s->nrot;
  CRYO_DEVICE_LOOP((u, v, nrot, u_east, v_north))
  for (long n = 0; n < nnode; ++n) {
    const double ca = nrot[2 * n], sa = nrot[2 * n + 1];
    u_east[n] = ca * u[n] - sa * v[n];
    v_north[n] = sa * u[n] + ca * v[n];
  }
}
