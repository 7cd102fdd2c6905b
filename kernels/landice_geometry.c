/* Analytic land-ice geometries (docs/benchmarks.md, Land ice):
 *   slab:  s = -x tan(alpha), b = s - H, uniform beta2 (or no slip), periodic;
 *   ISMIP-HOM A (Pattyn et al. 2008): s = -x tan(0.5 deg),
 *          b = s - 1000 + 500 sin(w x) sin(w y), no slip, periodic, w = 2 pi / L;
 *   ISMIP-HOM C: s = -x tan(0.1 deg), b = s - 1000,
 *          beta2 = 1000 + 1000 sin(w x) sin(w y) Pa a m-1, periodic.
 * The tilt -x tan(alpha) is the background plane (p->slope_x), so bed and
 * surface arrays stay periodic. Positions use the wrapped global index, so
 * periodic images (node 0 and node nx_global) get identical bits. */
#include <math.h>

#include "cryo_error.h"
#include "landice.h"
#include "cryo_acc.h"

#define LANDICE_PI 3.14159265358979323846

/* Fill node fields bed, thk_node, usrf, beta2 (halo included). */
static void landice_geometry_nodes(const cryo_block *b, int kind, double omega, double thickness,
                                   double beta2_uniform, double *bed, double *thk_node,
                                   double *usrf, double *beta2) {
  const int nxg = b->nx_global, nyg = b->ny_global, i0 = b->i0, j0 = b->j0, stride = b->nx + 3;
  const double dx = b->dx, dy = b->dy;
  const long n = CRYO_NNODE(b);
  CRYO_DEVICE_LOOP((bed, thk_node, usrf, beta2))
  for (long e = 0; e < n; ++e) {
    int gi = (int)(e % stride) - 1 + i0, gj = (int)(e / stride) - 1 + j0;
    gi = ((gi % nxg) + nxg) % nxg;
    gj = ((gj % nyg) + nyg) % nyg;
    double wave = sin(omega * gi * dx) * sin(omega * gj * dy);
    double h = thickness, b2 = beta2_uniform;
    if (kind == CRYO_LANDICE_CASE_ISMIP_HOM_A) h = 1000.0 - 500.0 * wave;
    if (kind == CRYO_LANDICE_CASE_ISMIP_HOM_C) b2 = 1000.0 + 1000.0 * wave;
    bed[e] = -h;
    thk_node[e] = h;
    usrf[e] = 0.0;
    beta2[e] = b2;
  }
}

/* Fill cell fields thk (at cell centres), smb = basal_melt = 0, calving_mask
 * = 1 (halo included). */
static void landice_geometry_cells(const cryo_block *b, int kind, double omega, double thickness,
                                   double *thk, double *smb, double *melt, double *calving_mask) {
  const int nxg = b->nx_global, nyg = b->ny_global, i0 = b->i0, j0 = b->j0, stride = b->nx + 2;
  const double dx = b->dx, dy = b->dy;
  const long n = CRYO_NCELL(b);
  CRYO_DEVICE_LOOP((thk, smb, melt, calving_mask))
  for (long e = 0; e < n; ++e) {
    int gi = (int)(e % stride) - 1 + i0, gj = (int)(e / stride) - 1 + j0;
    gi = ((gi % nxg) + nxg) % nxg;
    gj = ((gj % nyg) + nyg) % nyg;
    double h = thickness;
    if (kind == CRYO_LANDICE_CASE_ISMIP_HOM_A)
      h = 1000.0 - 500.0 * sin(omega * (gi + 0.5) * dx) * sin(omega * (gj + 0.5) * dy);
    thk[e] = h;
    smb[e] = 0.0;
    melt[e] = 0.0;
    calving_mask[e] = 1.0;
  }
}

int cryo_landice_geometry(const cryo_block *b, cryo_landice_params *p, cryo_landice_state *s,
                          cryo_err *err) {
  int kind = p->geometry_case;
  CRYO_CHECK(kind == CRYO_LANDICE_CASE_SLAB || kind == CRYO_LANDICE_CASE_ISMIP_HOM_A ||
                 kind == CRYO_LANDICE_CASE_ISMIP_HOM_C,
             err, CRYO_ERR_RANGE,
             "&cryo_landice: case %d has no analytic geometry (slab, ismip-hom-a, ismip-hom-c)",
             kind);
  CRYO_CHECK(b->periodic_x && b->periodic_y, err, CRYO_ERR_RANGE,
             "&cryo_landice: the analytic cases need periodic = .true. in x and y");
  double alpha_deg = p->slope_deg, thickness = p->thickness, omega = 0.0;
  if (kind == CRYO_LANDICE_CASE_SLAB) {
    CRYO_CHECK(p->thickness > 0.0, err, CRYO_ERR_RANGE,
               "&cryo_landice: thickness = %g m, must be > 0 for the slab", p->thickness);
    CRYO_CHECK(p->slope_deg >= 0.0 && p->slope_deg < 45.0, err, CRYO_ERR_RANGE,
               "&cryo_landice: slope = %g degrees, must be in [0, 45)", p->slope_deg);
  } else {
    double lx = b->nx_global * b->dx, ly = b->ny_global * b->dy;
    CRYO_CHECK(fabs(lx - p->domain_length) <= 1e-9 * p->domain_length &&
                   fabs(ly - p->domain_length) <= 1e-9 * p->domain_length,
               err, CRYO_ERR_RANGE,
               "&cryo_landice: domain_length = %g m, but the grid spans %g m x %g m; "
               "ISMIP-HOM needs an L x L grid",
               p->domain_length, lx, ly);
    omega = 2.0 * LANDICE_PI / p->domain_length;
    alpha_deg = kind == CRYO_LANDICE_CASE_ISMIP_HOM_A ? 0.5 : 0.1;
    thickness = 1000.0;
    p->no_slip = kind == CRYO_LANDICE_CASE_ISMIP_HOM_A;
  }
  p->slope_x = -tan(alpha_deg * LANDICE_PI / 180.0);
  p->slope_y = 0.0;
  landice_geometry_nodes(b, kind, omega, thickness, p->beta2, s->bed, s->thk_node, s->usrf,
                         s->beta2);
  landice_geometry_cells(b, kind, omega, thickness, s->thk, s->smb, s->basal_melt, s->calving_mask);
  return CRYO_OK;
}
