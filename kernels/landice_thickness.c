/* Thickness evolution (docs/landice.md, Thickness evolution):
 *   dH/dt + div(H ubar) = smb - basal_melt
 * by explicit first-order upwind finite volumes at the cells, ice-free cells
 * included (margins advance into them and retreat from them). Face normal
 * velocities are the mean of the depth-averaged velocity at the face's two
 * nodes; a face flux is computed by both adjacent cells with identical
 * arithmetic, so the transport step conserves the total exactly up to the
 * rounding of each cell update. Sub-steps satisfy
 *   dt_sub (2 max|u| / dx + 2 max|v| / dy) <= 1,
 * which bounds every cell's outflow by its content, so transport keeps H >= 0;
 * the mass balance is then applied and H clipped at 0 (melt cannot remove
 * more ice than there is), and ice outside the calving mask removed (with
 * calve_floating, marine ice only where it floats). On a
 * non-periodic global edge the face lets ice out and nothing in. Every term
 * (surface balance, melt, calving, outflow) is added per cell to the budget,
 * so that the volume change is accounted for to rounding. Time in years
 * inside (velocities m a-1), dt in s. */
#include <math.h>

#include "cryo_error.h"
#include "landice_element.h"

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

/* Share of the basal melt rate that acts on cell c: 1 unless marine; with
 * marine ice its floating share (1 - grounded fraction) or, melt_cells =
 * floating, 1 only where none of it rests on the bed. A cell below the
 * minimum dynamic thickness has no grounded fraction of its own: it floats
 * where rho_i H + rho_w (b - z_sl) <= 0 at its centre (bed: mean of the 4
 * corner nodes). */
CRYO_LANDICE_ROUTINE
static inline double landice_melt_share(int marine, int floating_only, int active, double gf,
                                        double h, double bed_c, double ratio, double z_sl) {
  if (!marine) return 1.0;
  if (!active) return ratio * h + bed_c - z_sl <= 0.0 ? 1.0 : 0.0;
  if (floating_only) return gf == 0.0 ? 1.0 : 0.0;
  return 1.0 - gf;
}

/* What the upwind step needs besides the arrays, as plain scalars. */
typedef struct landice_step_coef {
  int marine, floating_only, calve_floating;
  double hmin, ratio, z_sl;
} landice_step_coef;

/* One upwind step of length dt_a (years) from thk into thk_new, owned cells:
 * transport, surface balance, basal melt (its share, landice_melt_share),
 * calving outside the mask; each term added to the cell's budget. gfrac is
 * read only when marine. */
static void landice_upwind_step(const cryo_block *b, landice_step_coef sc, double dt_a,
                                const double *ubar, const double *thk, const double *bed,
                                const double *smb, const double *melt, const double *gfrac,
                                const double *calving_mask, double *thk_new, double *budget) {
  const int nx = b->nx, ns = b->nx + 3, cs = b->nx + 2;
  const int i0 = b->i0, j0 = b->j0, nxg = b->nx_global, nyg = b->ny_global;
  const int px = b->periodic_x, py = b->periodic_y;
  const double rdx = 1.0 / b->dx, rdy = 1.0 / b->dy;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((ubar, thk, bed, smb, melt, gfrac, calving_mask, thk_new, budget))
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
    int ew = !px && i0 + i == 0, ee = !px && i0 + i + 1 == nxg;
    int es = !py && j0 + j == 0, en = !py && j0 + j + 1 == nyg;
    double hw = ew ? 0.0 : thk[c - 1];
    double he = ee ? 0.0 : thk[c + 1];
    double hs = es ? 0.0 : thk[c - cs];
    double hn = en ? 0.0 : thk[c + cs];
    double fw = uw > 0.0 ? uw * hw : uw * h;
    double fe = ue > 0.0 ? ue * h : ue * he;
    double fs = vs > 0.0 ? vs * hs : vs * h;
    double fn = vn > 0.0 ? vn * h : vn * hn;
    double ht = h - dt_a * ((fe - fw) * rdx + (fn - fs) * rdy);
    /* what leaves through the domain's edges (inflow there is zero) */
    double out = dt_a * (((ew ? -fw : 0.0) + (ee ? fe : 0.0)) * rdx +
                         ((es ? -fs : 0.0) + (en ? fn : 0.0)) * rdy);
    double bed_c = 0.25 * (bed[n00] + bed[n10] + bed[n01] + bed[n11]);
    double share = landice_melt_share(sc.marine, sc.floating_only, h >= sc.hmin,
                                      sc.marine ? gfrac[c] : 1.0, h, bed_c, sc.ratio, sc.z_sl);
    double h_new = ht + dt_a * (smb[c] - share * melt[c]);
    double gain = dt_a * smb[c], loss = dt_a * share * melt[c];
    if (!(h_new > 0.0)) {
      /* the balance removes all there is: the surface first, melt the rest */
      gain = fmax(gain, -ht);
      loss = ht + gain;
      h_new = 0.0;
    }
    /* outside the mask all ice goes, or with calve_floating only ice that
     * floats at the cell centre (MISMIP+ Ice2r: the shelf, not the ridges) */
    const int kept =
        calving_mask[c] > 0.5 || (sc.calve_floating && sc.ratio * h_new + bed_c - sc.z_sl > 0.0);
    double calved = kept ? 0.0 : h_new;
    thk_new[c] = h_new - calved;
    double *bc = budget + c * CRYO_LANDICE_BUDGET_COUNT;
    bc[CRYO_LANDICE_BUDGET_SMB] += gain;
    bc[CRYO_LANDICE_BUDGET_MELT] += loss;
    bc[CRYO_LANDICE_BUDGET_CALVING] += calved;
    bc[CRYO_LANDICE_BUDGET_OUTFLOW] += out;
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

/* MISMIP+ Ice1 melt (Asay-Davis et al. 2016, Eq. 17) per owned cell:
 *   m = Omega tanh(H_c / H_c0) max(z_0 - z_d, 0),
 * z_d the ice draft (lower surface) and H_c = z_d - b the water column below
 * it, both at the cell centre (bed: mean of the 4 corner nodes); zero where
 * the ice rests on the bed (H_c = 0). */
static void landice_mismip_melt(const cryo_block *b, const cryo_landice_params *p,
                                const double *thk, const double *bed, double *melt) {
  const int nx = b->nx, ns = b->nx + 3, cs = b->nx + 2;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water;
  const double omega = p->melt_omega, z0 = p->melt_z0, inv_hc0 = 1.0 / p->melt_hc0;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((thk, bed, melt))
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    long c = (long)(j + 1) * cs + (i + 1), n00 = (long)(j + 1) * ns + (i + 1);
    double bed_c = 0.25 * (bed[n00] + bed[n00 + 1] + bed[n00 + ns] + bed[n00 + ns + 1]);
    double draft = fmax(bed_c, z_sl - ratio * thk[c]);
    melt[c] = omega * tanh((draft - bed_c) * inv_hc0) * fmax(z0 - draft, 0.0);
  }
}

void cryo_landice_thickness_nodes(const cryo_block *b, const cryo_landice_params *p,
                                  const double *thk, const double *bed, double *thk_node,
                                  double *usrf) {
  const int marine = p->marine;
  const double z_sl = p->sea_level, ratio = p->rho_ice / p->rho_water, hmin = p->min_thickness;
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
      double h = thk[(long)(cj + 1) * cs + ci + 1];
      if (!(h >= hmin)) continue;
      sum += h;
      ++cnt;
    }
    long node = (long)(j + 1) * ns + i + 1;
    thk_node[node] = cnt ? sum / cnt : 0.0;
    double lower = bed[node];
    if (marine) lower = fmax(lower, z_sl - ratio * thk_node[node]);
    usrf[node] = lower + thk_node[node];
  }
}

/* How many times the advective limit one dt may be: ice may cross at most
 * this many cells between two velocity solves. Transport sub-cycles within
 * a dt, but with the velocity solved at the step's start; once the ice has
 * moved cells away from the geometry that velocity was solved for, the
 * coupled step is unstable (ISMIP-HOM A at 8 km: dt = 100 a, 1.0 crossing
 * on the first step, gives 6.8 on the second). 2 stops such a run at the
 * first solve that shows it and leaves room above the shipped cases
 * (docs/landice.md, Thickness evolution). */
#define LANDICE_MAX_CROSSINGS 2.0

/* Largest |u|/dx + |v|/dy (a-1) over node rows [0,nx] x [0,ny]. */
static double landice_max_crossing_rate(const cryo_block *b, const double *ubar) {
  const int nx = b->nx, stride = b->nx + 3;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const double rdx = 1.0 / b->dx, rdy = 1.0 / b->dy;
  double m = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((ubar), max, m)
  for (long e = 0; e < n; ++e) {
    long node = (e / (nx + 1) + 1) * stride + e % (nx + 1) + 1;
    m = fmax(m, fabs(ubar[2 * node]) * rdx + fabs(ubar[2 * node + 1]) * rdy);
  }
  return m;
}

/* Minus the smallest global node index (j (nx_global + 1) + i) of this
 * block's nodes whose rate reaches `rate`, -1e300 if none: a max over ranks
 * then names the same node for any decomposition. */
static double landice_first_node_at(const cryo_block *b, const double *ubar, double rate) {
  const int nx = b->nx, stride = b->nx + 3, i0 = b->i0, j0 = b->j0, nxg = b->nx_global;
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const double rdx = 1.0 / b->dx, rdy = 1.0 / b->dy;
  double m = -1e300;
  CRYO_DEVICE_LOOP_REDUCE((ubar), max, m)
  for (long e = 0; e < n; ++e) {
    long i = e % (nx + 1), j = e / (nx + 1), node = (j + 1) * stride + i + 1;
    double r = fabs(ubar[2 * node]) * rdx + fabs(ubar[2 * node + 1]) * rdy;
    if (r >= rate) m = fmax(m, -(double)((j0 + j) * (long)(nxg + 1) + i0 + i));
  }
  return m;
}

int cryo_landice_check_advective_limit(const cryo_block *b, const cryo_landice_params *p,
                                       const cryo_landice_state *s, const cryo_comm_ops *ops,
                                       cryo_err *err) {
  double rate = landice_max_crossing_rate(b, s->ubar);
  CRYO_CALL(ops->max_double(ops->ctx, &rate, 1));
  CRYO_CHECK(isfinite(rate), err, CRYO_ERR_DATA,
             "land-ice thickness: depth-averaged velocity is NaN or Inf");
  const double dt_a = p->dt / CRYO_LANDICE_YEAR;
  if (dt_a * rate <= LANDICE_MAX_CROSSINGS) return CRYO_OK;
  double at = landice_first_node_at(b, s->ubar, rate);
  CRYO_CALL(ops->max_double(ops->ctx, &at, 1));
  const long node = (long)-at;
  const double limit_a = 1.0 / rate;
  return CRYO_ERROR(err, CRYO_ERR_RANGE,
                    "land-ice thickness: dt = %g s (%g a) is %.3g times the advective limit "
                    "1 / (|u|/dx + |v|/dy) = %.4g a of the velocity just solved, at node (i, j) = "
                    "(%ld, %ld): the velocity is solved once per dt, so dt may be at most %g times "
                    "that limit (%.4g s): make &cryo_landice dt smaller",
                    p->dt, dt_a, dt_a * rate, limit_a, node % (b->nx_global + 1),
                    node / (b->nx_global + 1), LANDICE_MAX_CROSSINGS,
                    LANDICE_MAX_CROSSINGS * limit_a * CRYO_LANDICE_YEAR);
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
  if (p->melt_source == CRYO_LANDICE_MELT_MISMIP)
    landice_mismip_melt(b, p, s->thk, s->bed, s->basal_melt);
  const landice_step_coef sc = {p->marine,
                                p->melt_cells == CRYO_LANDICE_MELT_FLOATING,
                                p->marine && p->calve_floating,
                                p->min_thickness,
                                p->rho_ice / p->rho_water,
                                p->sea_level};
  const double *gfrac = p->marine ? s->grounded_fraction : s->calving_mask;
  for (int k = 0; k < nsub; ++k) {
    double *f[1] = {s->thk};
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, f));
    landice_upwind_step(b, sc, dts, s->ubar, s->thk, s->bed, s->smb, s->basal_melt, gfrac,
                        s->calving_mask, s->work_cell, s->budget);
    landice_copy_cells(b, s->work_cell, s->thk);
  }
  double *f[1] = {s->thk};
  CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, f));
  cryo_landice_thickness_nodes(b, p, s->thk, s->bed, s->thk_node, s->usrf);
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

/* Component q of the budget into the cell field w (owned cells). */
static void landice_budget_term(const cryo_block *b, const double *budget, int q, double *w) {
  const int nx = b->nx, cs = b->nx + 2;
  const long n = (long)b->nx * b->ny;
  CRYO_DEVICE_LOOP((budget, w))
  for (long e = 0; e < n; ++e) {
    long c = (e / nx + 1) * cs + e % nx + 1;
    w[c] = budget[c * CRYO_LANDICE_BUDGET_COUNT + q];
  }
}

int cryo_landice_budget(const cryo_block *b, const cryo_landice_state *s, const cryo_comm_ops *ops,
                        double terms[CRYO_LANDICE_BUDGET_COUNT], cryo_err *err) {
  for (int q = 0; q < CRYO_LANDICE_BUDGET_COUNT; ++q) {
    landice_budget_term(b, s->budget, q, s->work_cell);
    CRYO_CALL(cryo_landice_cell_sum(b, s->work_cell, ops, &terms[q], err));
    terms[q] *= b->dx * b->dy;
  }
  return CRYO_OK;
}
