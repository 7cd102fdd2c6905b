/* Thickness evolution (docs/landice.md, Thickness evolution):
 *   dH/dt + div(H ubar) = smb - basal_melt
 * by explicit first-order upwind finite volumes at the cells. Face normal
 * velocities are the mean of the depth-averaged velocity at the face's two
 * nodes; a face flux is computed by both adjacent cells with identical
 * arithmetic, so the transport step conserves the total exactly up to the
 * rounding of each cell update. Sub-steps satisfy
 *   dt_sub (2 max|u| / dx + 2 max|v| / dy) <= 1,
 * which bounds every cell's outflow by its content, so transport keeps H >= 0;
 * the mass balance is then applied and H clipped at 0 (melt cannot remove
 * more ice than there is). On a non-periodic global edge the face lets ice
 * out and nothing in. Time in years inside (velocities m a-1), dt in s. */
#include <math.h>

#include "cryo_error.h"
#include "landice.h"
#include "cryo_acc.h"

/* Max |ubar| (component 0 or 1) over node rows [0,nx] x [0,ny]. */
static double landice_max_speed(const cryo_block *b, const double *ubar, int comp) {
  const int nx = b->nx, stride = b->nx + 3;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  double m = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((ubar), max, m)
  for (long e = 0; e < n; ++e) {
    long node = (e / (nx + 1) + 1) * stride + e % (nx + 1) + 1;
    m = fmax(m, fabs(ubar[2 * node + comp]));
  }
  return m;
}

/* One upwind step of length dt_a (years) from thk into thk_new, owned cells. */
static void landice_upwind_step(const cryo_block *b, double dt_a, const double *ubar,
                                const double *thk, const double *smb, const double *melt,
                                double *thk_new) {
  const int nx = b->nx, ns = b->nx + 3, cs = b->nx + 2;
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y;
  const double rdx = 1.0 / b->dx, rdy = 1.0 / b->dy;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((ubar, thk, smb, melt, thk_new))
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    long c = (long)(j + 1) * cs + (i + 1);
    long n00 = (long)(j + 1) * ns + (i + 1), n10 = n00 + 1, n01 = n00 + ns, n11 = n01 + 1;
    double h = thk[c];
    /* face velocities: west, east, south, north */
    double uw = 0.5 * (ubar[2 * n00] + ubar[2 * n01]);
    double ue = 0.5 * (ubar[2 * n10] + ubar[2 * n11]);
    double vs = 0.5 * (ubar[2 * n00 + 1] + ubar[2 * n10 + 1]);
    double vn = 0.5 * (ubar[2 * n01 + 1] + ubar[2 * n11 + 1]);
    /* upwind neighbours; a closed-to-inflow edge contributes no ice */
    double hw = (!px && i0 + i == 0) ? 0.0 : thk[c - 1];
    double he = (!px && i0 + i + 1 == nxg) ? 0.0 : thk[c + 1];
    double hs = (!py && j0 + j == 0) ? 0.0 : thk[c - cs];
    double hn = (!py && j0 + j + 1 == nyg) ? 0.0 : thk[c + cs];
    double fw = uw > 0.0 ? uw * hw : uw * h;
    double fe = ue > 0.0 ? ue * h : ue * he;
    double fs = vs > 0.0 ? vs * hs : vs * h;
    double fn = vn > 0.0 ? vn * h : vn * hn;
    double hn_new = h - dt_a * ((fe - fw) * rdx + (fn - fs) * rdy);
    hn_new += dt_a * (smb[c] - melt[c]);
    thk_new[c] = hn_new > 0.0 ? hn_new : 0.0;
  }
}

static void landice_copy_cells(const cryo_block *b, const double *src, double *dst) {
  const int nx = b->nx, cs = b->nx + 2;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((src, dst))
  for (long e = 0; e < n; ++e) {
    long c = (e / nx + 1) * cs + e % nx + 1;
    dst[c] = src[c];
  }
}

/* Node thickness = mean of the existing adjacent cells; surface = lower
 * surface + H, the lower surface the bed, or where marine ice floats
 * (rho_i H + rho_w (b - z_sl) <= 0) z_sl - (rho_i / rho_w) H. */
static void landice_thickness_nodes(const cryo_block *b, const cryo_landice_params *p,
                                    const double *thk, const double *bed, double *thk_node,
                                    double *usrf) {
  const int marine = p->marine;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water;
  const int nx = b->nx, ns = b->nx + 3, cs = b->nx + 2;
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  CRYO_DEVICE_LOOP((thk, bed, thk_node, usrf))
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
    double sum = 0.0;
    int cnt = 0;
    for (int q = 0; q < 4; ++q) {
      int ci = i - 1 + (q & 1), cj = j - 1 + (q >> 1);
      int gi = i0 + ci, gj = j0 + cj;
      if ((!px && (gi < 0 || gi >= nxg)) || (!py && (gj < 0 || gj >= nyg))) continue;
      sum += thk[(long)(cj + 1) * cs + ci + 1];
      ++cnt;
    }
    long node = (long)(j + 1) * ns + i + 1;
    thk_node[node] = sum / cnt;
    double lower = bed[node];
    if (marine) lower = fmax(lower, z_sl - ratio * thk_node[node]);
    usrf[node] = lower + thk_node[node];
  }
}

int cryo_landice_evolve_thickness(const cryo_block *b, const cryo_landice_params *p,
                                  cryo_landice_state *s, const cryo_comm_ops *ops, int *n_sub,
                                  cryo_err *err) {
  CRYO_CALL(cryo_landice_params_check(p, err));
  double vmax[2] = {landice_max_speed(b, s->ubar, 0), landice_max_speed(b, s->ubar, 1)};
  CRYO_CALL(ops->max_double(ops->ctx, vmax, 2));
  CRYO_CHECK(isfinite(vmax[0]) && isfinite(vmax[1]), err, CRYO_ERR_DATA,
             "land-ice thickness: depth-averaged velocity is NaN or Inf");
  const double dt_a = p->dt / CRYO_LANDICE_YEAR;
  const double rate = 2.0 * (vmax[0] / b->dx + vmax[1] / b->dy);
  double steps = ceil(dt_a * rate);
  CRYO_CHECK(steps <= 1.0e6, err, CRYO_ERR_RANGE,
             "land-ice thickness: dt = %g s needs %g CFL sub-steps (max |u| %g, |v| %g m/a), "
             "more than 1e6",
             p->dt, steps, vmax[0], vmax[1]);
  const int nsub = steps < 1.0 ? 1 : (int)steps;
  const double dts = dt_a / nsub;
  for (int k = 0; k < nsub; ++k) {
    double *f[1] = {s->thk};
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, f));
    landice_upwind_step(b, dts, s->ubar, s->thk, s->smb, s->basal_melt, s->work_cell);
    landice_copy_cells(b, s->work_cell, s->thk);
  }
  double *f[1] = {s->thk};
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, f));
  landice_thickness_nodes(b, p, s->thk, s->bed, s->thk_node, s->usrf);
  double *g[2] = {s->thk_node, s->usrf};
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_NODE, 1, 2, g));
  if (n_sub) *n_sub = nsub;
  return CRYO_OK;
}

int cryo_landice_volume(const cryo_block *b, const cryo_landice_state *s, const cryo_comm_ops *ops,
                        double *volume, cryo_err *err) {
  double sum;
  CRYO_CALL(cryo_landice_cell_sum(b, s->thk, ops, &sum, err));
  *volume = sum * b->dx * b->dy;
  return CRYO_OK;
}
