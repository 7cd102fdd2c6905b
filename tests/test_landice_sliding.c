/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Nonlinear sliding laws of the land-ice bed (kernels/landice_element.h,
 * landice_sliding_law; docs/landice.md, Sliding laws) and flotation
 * (landice_grounded_fraction, kernels/landice_flotation.c; docs/landice.md,
 * Floating ice).
 *
 * 1. Slab on a plane (docs/benchmarks.md): periodic 4 x 4 columns of 2 km,
 *    H = 1000 m, alpha = 0.5 deg, n = 3, A = 1e-16 Pa-3 a-1, rho 910, g 9.81,
 *    nz = 20, sliding_c C = 1e4 Pa m^(-1/3) a^(1/3), m = 1/3; Schoof with
 *    coulomb_c = 0.0175 (|tau_b| is half of C_max N, N = rho g H: the
 *    Coulomb limit matters), Tsai with the same coulomb_c (its power-law
 *    regime: C_max N is twice tau_b). The bed carries the whole driving
 *    stress tau_b = rho g H tan(alpha), so the basal speed is the law
 *    inverted:
 *      Weertman and Tsai u_b = (tau_b / C)^(1/m);
 *      Schoof   x = (tau_b / C)^(1/m), u_b = x / (1 - (C / (C_max N))^(1/m) x),
 *    (both with |u|^2 + u_reg^2 inverted exactly), plus the first-order
 *    internal deformation of tests/test_landice_solver.c.
 *    Asserts: basal speed within 1e-8 relative of u_b (the FE column balance
 *    is exact); surface speed within 1e-3 relative of the analytic one (the
 *    deformation part is second order in nz: about 6e-5 relative here);
 *    the analytic speed with the exponent wrong (m = 1/2) is off by > 10 %.
 * 2. Jacobian against central differences of the residual (h = 1e-3 m/a),
 *    as tests/test_landice_jacobian.c: 4 x 3 columns, 3 layers, random
 *    geometry and velocities 10 .. 60 m/a in u and v, per law (Weertman;
 *    Schoof and Tsai on land; Schoof and Tsai marine with sea_level -500 m,
 *    so that N is reduced and clipped at 0 at some nodes). C_max = 0.005,
 *    but Tsai's 0.0058 on land and 0.02 marine, which put C_max N among
 *    the C r^m (2e4 .. 4e4 Pa) of the bed points, so that its assembly
 *    mixes both branches of its min. Central differences see the branch's
 *    derivative only where no bed point crosses the kink C r^m = C_max N
 *    within +-h: h moves a bed speed of 10 m/a or more by at most 1e-4
 *    relative, C r^m by m times that, so the Tsai cases also assert that
 *    each branch holds at least 4 of the 48 bed points and that every one
 *    is at least 1e-4 relative from the kink (|C r^m / (C_max N) - 1|).
 *    Asserts max_ij |J_ij - FD_ij| / max_ij |J_ij| <= 1e-6, and the same
 *    restricted to the bed rows' sliding part (the Jacobian and residual
 *    with friction minus those without) <= 1e-6; ||J - J^T|| / ||J|| <= 1e-12;
 *    the u-v cross terms present; the functional's derivative along a random
 *    direction (central differences) within 1e-4 relative of R . d (Schoof's
 *    potential is a quadrature, landice_sliding_potential). The same with
 *    per-cell fields (docs/landice.md, Basal and rheology fields; Weertman,
 *    Schoof marine, Tsai): C 0.7 .. 1.3 times 1e4, C_max 0.8 .. 1.2 times
 *    the case's, A 0.5 .. 2 times 1e-16 in every cell and layer.
 * 3. Bad input: sliding_law = 4, sliding_m = 0, coulomb_c = 0 are
 *    CRYO_ERR_RANGE naming the key.
 *    Tsai's Coulomb limit: the slab of 1. (4 x 4 periodic columns,
 *    H = 1000 m, N = rho g H = 8.927e6 Pa), C_max = 0.005 (C_max N =
 *    44 636 Pa), a uniform velocity u_0 in x at every level, so that only
 *    the bed friction differs between the residual with the Tsai law and
 *    the one with linear friction beta2 = 0. At each bed node that friction
 *    is the traction times the node's basis integral dx dy. Asserts, to
 *    1e-12 relative: at u_0 = 100 and 200 m/a (C r^m = 46 416 and
 *    58 480 Pa, the Coulomb regime) it is C_max N dx dy u_0 / r, the same at
 *    both speeds; at u_0 = 50 m/a (36 840 Pa, power law) C r^m dx dy u_0 / r;
 *    the v rows carry none.
 * 4. Grounded fraction of one cell (cryo_landice_grounded_fraction) with a
 *    thickness and a bed linear in x and y, so a linear flotation function
 *    phi = (rho_i / rho_w) H + b - z_sl: the grounding line along the
 *    diagonal through two corners (1/2), across a corner (7/8 and 1/8),
 *    parallel to either edge (0.7, 0.6), oblique (0.65, 0.35), and not
 *    crossing (1, 0); each within 1e-14 of the exact area.
 * 5. A slab thinned across flotation (marine, z_sl = 0, flat bed at -700 m,
 *    H = 650 + 300 cos(2 pi x / L) over 16 x 2 periodic columns of 1 km,
 *    background slope 1e-3, nz = 5, linear friction beta2 = 1000 Pa a m-1;
 *    grounded where H > 790.8 m, |x| < 2.7 km): after the solve, the
 *    friction part of the bed residual (R with beta2 minus R with beta2 = 0)
 *    is exactly 0 at the nodes whose 4 cells are all afloat and non-zero at
 *    those whose 4 cells are all grounded; the surface of floating nodes is
 *    (1 - rho_i / rho_w) H above sea level (to 1e-12 m). The Jacobian of
 *    the same geometry (4 x 3 columns, 3 layers, random velocities; linear
 *    and Weertman laws, cells cut by the grounding line included) matches
 *    central differences to 1e-6 as in 2.
 * 6. Newton beside a slow point (kernels/landice_linesearch.c,
 *    landice_step_shorten): a periodic flowline of 16 x 2 columns of 2 km
 *    on a flat bed, H = 1000 + 30 cos(2 pi (x + 0.1 dx) / L)
 *    + 60 sin(4 pi x / L) m (x the cell centre), nz = 5, Weertman
 *    C = 3000 Pa m^(-1/3) a^(1/3), m = 1/3. The surface slope reverses four
 *    times; one node slides at about 7 m/a between nodes at 500-1500 m/a,
 *    where full Newton steps on u^(1/3) overshoot. Asserts: converged to
 *    newton_rtol = 1e-9 within the default 50 steps, in at most 20 (without
 *    the step shortening: no convergence in 500 steps, |R| stalled at
 *    8e-3 |R_0|); a history of 4 slots holds steps 0, 1, 2 and the last,
 *    whose step is the count of a full history.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

#define TEST_PI 3.14159265358979323846

/* Basal speed |u| of the regularized law at traction tau (Pa). */
static double law_inverse(const cryo_landice_params *p, double tau, double npress) {
  /* Tsai below its Coulomb limit is Weertman's law */
  double x = pow(tau / p->sliding_c, 1.0 / p->sliding_m), r = x;
  if (p->sliding_law == CRYO_LANDICE_SLIDING_SCHOOF) {
    double k = pow(p->sliding_c / (p->coulomb_c * npress), 1.0 / p->sliding_m);
    r = x / (1.0 - k * x);
  }
  return sqrt(r * r - CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
}

typedef struct slab_out {
  double ub, ub_exact, us, us_exact, us_wrong_m;
} slab_out;

static const char *law_name(int law) {
  static const char *const names[] = {"linear", "weertman", "schoof", "tsai"};
  return names[law];
}

static slab_out run_slab(int law) {
  slab_out o = {0};
  cryo_block b = test_li_block(4, 4, 2000.0, 2000.0, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 20;
  p.slope_deg = 0.5;
  p.thickness = 1000.0;
  p.geometry_case = CRYO_LANDICE_CASE_SLAB;
  p.no_slip = 0;
  p.sliding_law = law;
  p.sliding_c = 1.0e4;
  p.sliding_m = 1.0 / 3.0;
  p.coulomb_c = 0.0175;
  p.newton_rtol = 1e-10;
  p.linear_rtol = 1e-12;
  p.eps_reg = 1e-8;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  const int nlev = 2 * (p.n_layers + 1);
  const double t = tan(p.slope_deg * TEST_PI / 180.0), h = p.thickness, n = p.glen_n;
  const double tau_b = p.rho_ice * p.gravity * h * t, npress = p.rho_ice * p.gravity * h;
  double fo = pow(1.0 + 4.0 * t * t, -0.5 * (n + 1.0));
  double deform =
      fo * 2.0 * p.rate_factor / (n + 1.0) * pow(p.rho_ice * p.gravity * t, n) * pow(h, n + 1.0);
  const double *v = s.vel + CRYO_NODE(&b, 1, 2) * nlev;
  o.ub = v[0];
  o.us = v[2 * p.n_layers];
  o.ub_exact = law_inverse(&p, tau_b, npress);
  o.us_exact = o.ub_exact + deform;
  p.sliding_m = 0.5;
  o.us_wrong_m = law_inverse(&p, tau_b, npress) + deform;
  printf("\n  slab %s: Newton steps %d, u_b = %.9f (exact %.9f), u_s = %.6f (exact %.6f, "
         "rel %.2e; with m = 1/2: %.3f)",
         law_name(law), nlog - 1, o.ub, o.ub_exact, o.us, o.us_exact,
         fabs(o.us - o.us_exact) / o.us_exact, o.us_wrong_m);
  test_li_free(&p, &s);
  return o;
}

static void check_slab(int law) {
  slab_out o = run_slab(law);
  CU_ASSERT(fabs(o.ub - o.ub_exact) <= 1e-8 * o.ub_exact);
  CU_ASSERT(fabs(o.us - o.us_exact) <= 1e-3 * o.us_exact);
  CU_ASSERT(fabs(o.us - o.us_wrong_m) > 0.1 * o.us_exact);
}

static void test_slab_weertman(void) {
  check_slab(CRYO_LANDICE_SLIDING_WEERTMAN);
}
static void test_slab_schoof(void) {
  check_slab(CRYO_LANDICE_SLIDING_SCHOOF);
}
static void test_slab_tsai(void) {
  check_slab(CRYO_LANDICE_SLIDING_TSAI);
}

typedef struct jcase {
  int law, marine;
  double coulomb_c;
  int fields; /* 1: C, C_max and A per cell (and layer), random about the params values */
} jcase;

/* Unknown d of the owned nodes -> storage offset. */
static long unknown(const cryo_block *b, int nlev, int d) {
  int comp = d % nlev, node = d / nlev;
  int i = node % b->nx, j = node / b->nx;
  return ((long)(j + 1) * (b->nx + 3) + i + 1) * nlev + comp;
}

static void set_unknown(const cryo_block *b, int nlev, double *f, long off, double value,
                        test_li_ctx *ctx) {
  f[off] = value;
  test_li_images(b, nlev, f);
  double *fl[1] = {f};
  test_li_halo(ctx, CRYO_AT_NODE, nlev, 1, fl);
}

/* Dense Jacobian jd and central differences fd (nd x nd) of params p at s.vel. */
static void dense_pair(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                       test_li_ctx *ctx, int nd, double *jd, double *fd) {
  const int nlev = 2 * (p->n_layers + 1);
  const double h = 1.0e-3;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(cryo_landice_jacobian(b, p, s, s->vel, &err) == CRYO_OK);
  for (int d = 0; d < nd; ++d) {
    long off = unknown(b, nlev, d);
    cryo_landice_zero(CRYO_NNODE(b) * nlev, s->cg_p);
    set_unknown(b, nlev, s->cg_p, off, 1.0, ctx);
    cryo_landice_matvec(b, p, s->matrix, s->cg_p, s->cg_q);
    double u0 = s->vel[off];
    memcpy(s->trial, s->vel, sizeof(double) * CRYO_NNODE(b) * nlev);
    set_unknown(b, nlev, s->trial, off, u0 + h, ctx);
    CU_ASSERT_FATAL(cryo_landice_residual(b, p, s, s->trial, s->cg_r, &err) == CRYO_OK);
    set_unknown(b, nlev, s->trial, off, u0 - h, ctx);
    CU_ASSERT_FATAL(cryo_landice_residual(b, p, s, s->trial, s->cg_z, &err) == CRYO_OK);
    for (int r = 0; r < nd; ++r) {
      long ro = unknown(b, nlev, r);
      jd[(long)r * nd + d] = s->cg_q[ro];
      fd[(long)r * nd + d] = (s->cg_r[ro] - s->cg_z[ro]) / (2.0 * h);
    }
  }
}

/* Functional E at vel (owned columns summed). */
static double energy_at(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                        const double *vel) {
  cryo_landice_fields_prepare(b, p, s);
  cryo_landice_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2, s->afac,
                              s->work_cell);
  if (p->sliding_law != CRYO_LANDICE_SLIDING_LINEAR)
    cryo_landice_sliding_energy_columns(b, p, vel, s->bed, s->thk_node, s->thk, s->beta2,
                                        s->sliding_c, s->coulomb_c, s->work_cell);
  double e = 0.0;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      e += s->work_cell[(long)(j + 1) * (b->nx + 2) + i + 1];
  return e;
}

/* Directional derivative of E along a random direction d against R . d:
 * the residual is the gradient of the line search's functional. */
static double energy_gradient_rel(const cryo_block *b, const cryo_landice_params *p,
                                  cryo_landice_state *s, test_li_ctx *ctx) {
  const int nlev = 2 * (p->n_layers + 1);
  const long n = CRYO_NNODE(b) * nlev;
  const double h = 1.0e-3;
  cryo_err err;
  cryo_err_clear(&err);
  cryo_landice_zero(n, s->cg_p);
  for (int d = 0; d < b->nx * b->ny * nlev; ++d)
    s->cg_p[unknown(b, nlev, d)] = rand() / (double)RAND_MAX - 0.5;
  test_li_images(b, nlev, s->cg_p);
  test_li_halo(ctx, CRYO_AT_NODE, nlev, 1, &s->cg_p);
  CU_ASSERT_FATAL(cryo_landice_residual(b, p, s, s->vel, s->res, &err) == CRYO_OK);
  double rd = 0.0;
  for (int d = 0; d < b->nx * b->ny * nlev; ++d) {
    long o = unknown(b, nlev, d);
    rd += s->res[o] * s->cg_p[o];
  }
  for (long e = 0; e < n; ++e)
    s->trial[e] = s->vel[e] + h * s->cg_p[e];
  double ep = energy_at(b, p, s, s->trial);
  for (long e = 0; e < n; ++e)
    s->trial[e] = s->vel[e] - h * s->cg_p[e];
  double em = energy_at(b, p, s, s->trial);
  return fabs((ep - em) / (2.0 * h) - rd) / fabs(rd);
}

/* Bed points of the Tsai law (the 2 x 2 rule of every bed face, corners
 * interpolated bilinearly as landice_element.h does): how many lie on each
 * branch of the min, and the smallest relative distance to its kink. */
static double tsai_kink_distance(const cryo_block *b, const cryo_landice_params *p,
                                 const cryo_landice_state *s, int *n_power, int *n_coulomb) {
  const int nlev = 2 * (p->n_layers + 1);
  const double g = 0.57735026918962576451, rhowg = p->marine ? p->rho_water * p->gravity : 0.0;
  double dmin = 1e30;
  *n_power = *n_coulomb = 0;
  cryo_landice_fields_prepare(b, p, s);
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      for (int q = 0; q < 4; ++q) {
        const double cc = s->sliding_c[CRYO_CELL(b, i, j)], cmax = s->coulomb_c[CRYO_CELL(b, i, j)];
        double xi = (q & 1) ? g : -g, eta = (q & 2) ? g : -g, u = 0.0, v = 0.0, np = 0.0;
        for (int m = 0; m < 4; ++m) {
          long n = CRYO_NODE(b, i + (m & 1), j + (m >> 1));
          double psi = 0.25 * (1.0 + ((m & 1) ? xi : -xi)) * (1.0 + ((m & 2) ? eta : -eta));
          double pw = rhowg * fmax(p->sea_level - s->bed[n], 0.0);
          np += psi * fmax(p->rho_ice * p->gravity * s->thk_node[n] - pw, 0.0);
          u += psi * s->vel[n * nlev];
          v += psi * s->vel[n * nlev + 1];
        }
        double r = sqrt(u * u + v * v + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
        double ratio = cc * pow(r, p->sliding_m) / (cmax * np);
        if (ratio < 1.0)
          ++*n_power;
        else
          ++*n_coulomb;
        dmin = fmin(dmin, fabs(ratio - 1.0));
      }
  return dmin;
}

static void run_jacobian(jcase jc) {
  cryo_block b = test_li_block(4, 3, 1000.0, 1500.0, 1);
  test_li_ctx ctx = {&b};
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 3;
  p.no_slip = 0;
  p.sliding_law = jc.law;
  p.sliding_c = 1.0e4;
  p.coulomb_c = jc.coulomb_c;
  p.marine = jc.marine;
  p.sea_level = -500.0;
  p.slope_x = -0.01;
  p.slope_y = 0.003;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  const int nlev = 2 * (p.n_layers + 1);
  srand(4321);
  for (long e = 0; e < CRYO_NNODE(&b); ++e) {
    s.bed[e] = -1000.0 + 400.0 * (rand() / (double)RAND_MAX - 0.5);
    s.thk_node[e] = 500.0 + 500.0 * rand() / (double)RAND_MAX;
    s.beta2[e] = 1000.0;
    for (int k = 0; k < nlev; ++k)
      s.vel[e * nlev + k] = 10.0 + 50.0 * rand() / (double)RAND_MAX;
  }
  double *f2[3] = {s.bed, s.thk_node, s.beta2};
  for (int q = 0; q < 3; ++q) {
    test_li_images(&b, 1, f2[q]);
    test_li_halo(&ctx, CRYO_AT_NODE, 1, 1, &f2[q]);
  }
  test_li_images(&b, nlev, s.vel);
  test_li_halo(&ctx, CRYO_AT_NODE, nlev, 1, &s.vel);
  if (jc.fields) {
    /* every cell its own values, halo cells the images of the periodic block */
    const int nz = p.n_layers;
    for (int j = 0; j < b.ny; ++j)
      for (int i = 0; i < b.nx; ++i) {
        long q = CRYO_CELL(&b, i, j);
        s.sliding_c[q] = p.sliding_c * (0.7 + 0.6 * rand() / (double)RAND_MAX);
        s.coulomb_c[q] = p.coulomb_c * (0.8 + 0.4 * rand() / (double)RAND_MAX);
        for (int k = 0; k < nz; ++k)
          s.rate_factor[q * nz + k] = p.rate_factor * (0.5 + 1.5 * rand() / (double)RAND_MAX);
      }
    double *cf[2] = {s.sliding_c, s.coulomb_c};
    test_li_halo(&ctx, CRYO_AT_CELL, 1, 2, cf);
    test_li_halo(&ctx, CRYO_AT_CELL, nz, 1, &s.rate_factor);
    s.given = CRYO_LANDICE_GIVEN_SLIDING_C | CRYO_LANDICE_GIVEN_COULOMB_C |
              CRYO_LANDICE_GIVEN_RATE_FACTOR;
  }
  if (jc.law == CRYO_LANDICE_SLIDING_TSAI) {
    int n_power, n_coulomb;
    double kink = tsai_kink_distance(&b, &p, &s, &n_power, &n_coulomb);
    printf("\n  tsai marine %d: %d bed points on the power law, %d at the Coulomb limit, "
           "nearest %.2e from the kink",
           jc.marine, n_power, n_coulomb, kink);
    CU_ASSERT(n_power >= 4 && n_coulomb >= 4);
    CU_ASSERT(kink >= 1e-4);
  }
  int nd = b.nx * b.ny * nlev;
  size_t nn = (size_t)nd * nd;
  double *jd = calloc(nn, sizeof(double)), *fd = calloc(nn, sizeof(double));
  double *j0 = calloc(nn, sizeof(double)), *f0 = calloc(nn, sizeof(double));
  CU_ASSERT_FATAL(jd && fd && j0 && f0);
  dense_pair(&b, &p, &s, &ctx, nd, jd, fd);
  cryo_landice_params ps = p;
  ps.no_slip = 1; /* no friction: its part is the difference; bed rows become identity */
  dense_pair(&b, &ps, &s, &ctx, nd, j0, f0);
  double jmax = 0.0, emax = 0.0, fro = 0.0, asym = 0.0, smax = 0.0, semax = 0.0, cross = 0.0;
  for (long q = 0; q < (long)nn; ++q) {
    long r = q / nd, c = q % nd;
    jmax = fmax(jmax, fabs(jd[q]));
    emax = fmax(emax, fabs(jd[q] - fd[q]));
    fro += jd[q] * jd[q];
    double a = jd[q] - jd[c * nd + r];
    asym += a * a;
    if ((r % nlev) < 2 && (c % nlev) < 2) {
      /* bed rows and columns: friction = with - without (no-slip bed rows are identity) */
      double js = jd[q] - j0[q] + (r == c ? 1.0 : 0.0), fs = fd[q] - f0[q];
      smax = fmax(smax, fabs(js));
      semax = fmax(semax, fabs(js - fs));
      if ((r % nlev) != (c % nlev)) cross = fmax(cross, fabs(js));
    }
  }
  double fd_rel = emax / jmax, sl_rel = semax / smax, sym = sqrt(asym / fro);
  double eg = energy_gradient_rel(&b, &p, &s, &ctx);
  printf("\n  law %d marine %d fields %d: |J-FD|/|J| = %.3e, sliding part %.3e (u-v cross terms "
         "up to %.3e of %.3e), |J-J^T|/|J| = %.3e, dE/dU vs R: %.3e",
         jc.law, jc.marine, jc.fields, fd_rel, sl_rel, cross, smax, sym, eg);
  CU_ASSERT(eg <= 1.0e-4);
  CU_ASSERT(fd_rel <= 1.0e-6);
  CU_ASSERT(sl_rel <= 1.0e-6);
  CU_ASSERT(sym <= 1.0e-12);
  CU_ASSERT(cross > 1e-3 * smax);
  free(jd);
  free(fd);
  free(j0);
  free(f0);
  test_li_free(&p, &s);
}

static void test_jacobian_weertman(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_WEERTMAN, 0, 0.005, 0});
}
static void test_jacobian_schoof(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_SCHOOF, 0, 0.005, 0});
}
static void test_jacobian_schoof_marine(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_SCHOOF, 1, 0.005, 0});
}
static void test_jacobian_tsai(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_TSAI, 0, 0.0058, 0});
}
static void test_jacobian_tsai_marine(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_TSAI, 1, 0.02, 0});
}
static void test_jacobian_weertman_fields(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_WEERTMAN, 0, 0.005, 1});
}
static void test_jacobian_schoof_fields(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_SCHOOF, 1, 0.005, 1});
}
static void test_jacobian_tsai_fields(void) {
  run_jacobian((jcase){CRYO_LANDICE_SLIDING_TSAI, 0, 0.0058, 1});
}

/* Bed friction of the u rows of the slab (4 x 4 periodic) at a uniform
 * velocity u0: Tsai residual minus frictionless linear one; worst relative
 * deviation from tau dx dy u0 / r over the bed nodes, the v rows' largest
 * friction in *v_max. */
static double tsai_bed_friction(double u0, double tau_expected, double *v_max) {
  cryo_block b = test_li_block(4, 4, 2000.0, 2000.0, 1);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 4;
  p.thickness = 1000.0;
  p.geometry_case = CRYO_LANDICE_CASE_SLAB;
  p.no_slip = 0;
  p.sliding_law = CRYO_LANDICE_SLIDING_TSAI;
  p.coulomb_c = 0.005;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  CU_ASSERT_FATAL(cryo_landice_geometry(&b, &p, &s, &err) == CRYO_OK);
  const int nlev = 2 * (p.n_layers + 1);
  for (long e = 0; e < CRYO_NNODE(&b); ++e) {
    s.beta2[e] = 0.0;
    for (int k = 0; k < nlev; ++k)
      s.vel[e * nlev + k] = (k % 2) ? 0.0 : u0;
  }
  CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.vel, s.cg_r, &err) == CRYO_OK);
  cryo_landice_params pl = p;
  pl.sliding_law = CRYO_LANDICE_SLIDING_LINEAR;
  CU_ASSERT_FATAL(cryo_landice_residual(&b, &pl, &s, s.vel, s.cg_z, &err) == CRYO_OK);
  double r = sqrt(u0 * u0 + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
  double want = tau_expected * b.dx * b.dy * u0 / r, worst = 0.0;
  *v_max = 0.0;
  for (int j = 0; j < b.ny; ++j)
    for (int i = 0; i < b.nx; ++i) {
      long n = CRYO_NODE(&b, i, j) * nlev;
      worst = fmax(worst, fabs(s.cg_r[n] - s.cg_z[n] - want) / want);
      *v_max = fmax(*v_max, fabs(s.cg_r[n + 1] - s.cg_z[n + 1]));
    }
  test_li_free(&p, &s);
  return worst;
}

static void test_tsai_coulomb_limit(void) {
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  const double limit = 0.005 * p.rho_ice * p.gravity * 1000.0;
  const double speeds[3] = {100.0, 200.0, 50.0};
  for (int q = 0; q < 3; ++q) {
    double u0 = speeds[q], r = sqrt(u0 * u0 + CRYO_LANDICE_U_REG * CRYO_LANDICE_U_REG);
    double power = p.sliding_c * pow(r, p.sliding_m), v_max;
    double tau = fmin(power, limit), dev = tsai_bed_friction(u0, tau, &v_max);
    printf("\n  tsai u0 = %5.1f m/a: C u^m = %.1f Pa, C_max N = %.1f Pa, bed traction within "
           "%.1e of %.1f Pa, v rows %.1e",
           u0, power, limit, dev, tau, v_max);
    CU_ASSERT(dev <= 1e-12);
    CU_ASSERT(v_max == 0.0);
    CU_ASSERT((q < 2) == (power > limit));
  }
}

static void expect_range(cryo_landice_params p, const char *key) {
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT(cryo_landice_params_check(&p, &err) == CRYO_ERR_RANGE);
  CU_ASSERT(strstr(err.msg, key) != NULL);
}

static void test_bad_params(void) {
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  cryo_landice_params q = p;
  q.sliding_law = 4;
  expect_range(q, "sliding_law");
  q = p;
  q.sliding_m = 0.0;
  expect_range(q, "sliding_m");
  q = p;
  q.coulomb_c = 0.0;
  expect_range(q, "coulomb_c");
}

/* Grounded fraction of a 1 km x 1 km cell with phi = 100 (p0 + px x + py y) m,
 * x, y in [0, 1] over the cell. */
static double cell_fraction(double p0, double px, double py) {
  cryo_block b = test_li_block(1, 1, 1000.0, 1000.0, 0);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.marine = 1;
  p.sea_level = 20.0;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  const double ratio = p.rho_ice / p.rho_water;
  for (int j = 0; j <= 1; ++j)
    for (int i = 0; i <= 1; ++i) {
      long n = CRYO_NODE(&b, i, j);
      s.thk_node[n] = 500.0 + 100.0 * i - 50.0 * j; /* linear */
      s.bed[n] = 100.0 * (p0 + px * i + py * j) - ratio * s.thk_node[n] + p.sea_level;
    }
  cryo_landice_grounded_fraction(&b, &p, s.bed, s.thk_node, s.thk, s.grounded_fraction);
  double f = s.grounded_fraction[CRYO_CELL(&b, 0, 0)];
  test_li_free(&p, &s);
  return f;
}

static void test_grounded_fraction(void) {
  const double c[][4] = {{-1.0, 1.0, 1.0, 0.5},   {-0.5, 1.0, 1.0, 0.875}, {0.5, -1.0, -1.0, 0.125},
                         {-0.3, 1.0, 0.0, 0.7},   {0.6, 0.0, -1.0, 0.6},   {-1.2, 2.0, 1.0, 0.65},
                         {1.2, -2.0, -1.0, 0.35}, {0.1, 0.2, 0.3, 1.0},    {-0.1, -0.2, -0.3, 0.0}};
  double worst = 0.0;
  for (size_t q = 0; q < sizeof c / sizeof c[0]; ++q) {
    double f = cell_fraction(c[q][0], c[q][1], c[q][2]);
    worst = fmax(worst, fabs(f - c[q][3]));
    CU_ASSERT(fabs(f - c[q][3]) <= 1e-14);
  }
  printf("\n  grounded fraction, linear phi: worst error %.2e over 9 cells", worst);
}

/* The flotation slab's geometry on block b: flat bed at -700 m, thickness
 * 650 + 300 cos(2 pi x / L), linear friction beta2. */
static void thinned_slab(const cryo_block *b, cryo_landice_state *s, test_li_ctx *ctx) {
  const double l = b->nx_global * b->dx;
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      long n = CRYO_NODE(b, i, j);
      s->bed[n] = -700.0;
      s->thk_node[n] = 650.0 + 300.0 * cos(2.0 * TEST_PI * i * b->dx / l);
      s->beta2[n] = 1000.0;
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i)
      s->thk[CRYO_CELL(b, i, j)] = 650.0 + 300.0 * cos(2.0 * TEST_PI * (i + 0.5) * b->dx / l);
  double *f[3] = {s->bed, s->thk_node, s->beta2};
  for (int q = 0; q < 3; ++q) {
    test_li_images(b, 1, f[q]);
    test_li_halo(ctx, CRYO_AT_NODE, 1, 1, &f[q]);
  }
}

static void test_flotation_slab(void) {
  cryo_block b = test_li_block(16, 2, 1000.0, 1000.0, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 5;
  p.no_slip = 0;
  p.marine = 1;
  p.slope_x = -1.0e-3; /* a net push, so that the grounded ice slides */
  p.newton_rtol = 1e-9;
  p.linear_rtol = 1e-10;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  thinned_slab(&b, &s, &ctx);
  cryo_landice_newton_log hist[64];
  int nlog = 0;
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, 64, &nlog, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  const int nlev = 2 * (p.n_layers + 1);
  CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.vel, s.cg_r, &err) == CRYO_OK);
  for (long e = 0; e < CRYO_NNODE(&b); ++e)
    s.beta2[e] = 0.0;
  CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.vel, s.cg_z, &err) == CRYO_OK);
  cryo_landice_altitudes(&b, &p, s.thk_node, s.bed, s.du, s.cg_p);
  const double ratio = p.rho_ice / p.rho_water;
  int n_float = 0, n_ground = 0, float_zero = 1, ground_nonzero = 1;
  double umax = 0.0, surf_err = 0.0;
  for (int i = 0; i < b.nx; ++i) {
    long n = CRYO_NODE(&b, i, 1);
    double g[4], gmin = 1.0, gmax = 0.0;
    for (int q = 0; q < 4; ++q) {
      g[q] = s.grounded_fraction[CRYO_CELL(&b, (i - 1 + (q & 1) + b.nx) % b.nx, q >> 1)];
      gmin = fmin(gmin, g[q]);
      gmax = fmax(gmax, g[q]);
    }
    double fu = s.cg_r[n * nlev] - s.cg_z[n * nlev],
           fv = s.cg_r[n * nlev + 1] - s.cg_z[n * nlev + 1];
    umax = fmax(umax, fabs(s.vel[n * nlev]));
    if (gmax == 0.0) {
      ++n_float;
      float_zero = float_zero && fu == 0.0 && fv == 0.0;
      double plane = p.slope_x * i * b.dx;
      surf_err = fmax(surf_err, fabs(s.du[n] - plane - (1.0 - ratio) * s.thk_node[n]));
    }
    if (gmin == 1.0) {
      ++n_ground;
      ground_nonzero = ground_nonzero && fu != 0.0;
    }
    printf("\n    x = %5.0f m: H = %6.1f m, cells grounded %.3f %.3f, u_b = %8.3f m/a, "
           "friction residual %.4e",
           i * b.dx, s.thk_node[n], g[0], g[1], s.vel[n * nlev], fu);
  }
  printf("\n  flotation slab: Newton steps %d, %d nodes afloat (friction exactly 0: %d), %d "
         "grounded (non-zero: %d), floating surface error %.1e m",
         nlog - 1, n_float, float_zero, n_ground, ground_nonzero, surf_err);
  CU_ASSERT(n_float >= 2 && n_ground >= 2);
  CU_ASSERT(float_zero);
  CU_ASSERT(ground_nonzero);
  CU_ASSERT(surf_err <= 1e-12);
  CU_ASSERT(umax > 0.0);
  test_li_free(&p, &s);
}

static void flotation_jacobian(int law) {
  cryo_block b = test_li_block(4, 3, 1000.0, 1500.0, 1);
  test_li_ctx ctx = {&b};
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 3;
  p.no_slip = 0;
  p.marine = 1;
  p.sliding_law = law;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  thinned_slab(&b, &s, &ctx);
  const int nlev = 2 * (p.n_layers + 1);
  srand(777);
  for (long e = 0; e < CRYO_NNODE(&b) * nlev; ++e)
    s.vel[e] = 10.0 + 50.0 * rand() / (double)RAND_MAX;
  test_li_images(&b, nlev, s.vel);
  test_li_halo(&ctx, CRYO_AT_NODE, nlev, 1, &s.vel);
  cryo_landice_grounded_fraction(&b, &p, s.bed, s.thk_node, s.thk, s.grounded_fraction);
  int partial = 0;
  for (int i = 0; i < b.nx; ++i) {
    double g = s.grounded_fraction[CRYO_CELL(&b, i, 0)];
    partial += g > 0.0 && g < 1.0;
  }
  int nd = b.nx * b.ny * nlev;
  size_t nn = (size_t)nd * nd;
  double *jd = calloc(nn, sizeof(double)), *fd = calloc(nn, sizeof(double));
  CU_ASSERT_FATAL(jd && fd);
  dense_pair(&b, &p, &s, &ctx, nd, jd, fd);
  double jmax = 0.0, emax = 0.0;
  for (size_t q = 0; q < nn; ++q) {
    jmax = fmax(jmax, fabs(jd[q]));
    emax = fmax(emax, fabs(jd[q] - fd[q]));
  }
  printf("\n  marine law %d: %d of %d cells cut by the grounding line, |J-FD|/|J| = %.3e", law,
         partial, b.nx, emax / jmax);
  CU_ASSERT(partial >= 1);
  CU_ASSERT(emax <= 1e-6 * jmax);
  free(jd);
  free(fd);
  test_li_free(&p, &s);
}

static void test_flotation_jacobian_linear(void) {
  flotation_jacobian(CRYO_LANDICE_SLIDING_LINEAR);
}
static void test_flotation_jacobian_weertman(void) {
  flotation_jacobian(CRYO_LANDICE_SLIDING_WEERTMAN);
}

static int slow_point_solve(cryo_landice_newton_log *hist, int capacity, int *nlog,
                            double *u_slow) {
  cryo_block b = test_li_block(16, 2, 2000.0, 2000.0, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 5;
  p.no_slip = 0;
  p.sliding_law = CRYO_LANDICE_SLIDING_WEERTMAN;
  p.sliding_c = 3000.0;
  p.sliding_m = 1.0 / 3.0;
  p.newton_rtol = 1e-9;
  p.linear_rtol = 1e-10;
  cryo_landice_state s;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  const double l = b.nx_global * b.dx;
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i) {
      double x = (i + 0.5) * b.dx;
      s.thk[CRYO_CELL(&b, i, j)] = 1000.0 + 30.0 * cos(2.0 * TEST_PI * (x + 0.1 * b.dx) / l) +
                                   60.0 * sin(4.0 * TEST_PI * x / l);
    }
  test_li_nodes_from_cells(&ctx, &p, &s);
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, hist, capacity, nlog, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  const int nlev = 2 * (p.n_layers + 1);
  *u_slow = 1e30;
  for (int i = 0; i < b.nx; ++i)
    *u_slow = fmin(*u_slow, fabs(s.vel[CRYO_NODE(&b, i, 1) * nlev]));
  test_li_free(&p, &s);
  return st;
}

static void test_newton_slow_point(void) {
  cryo_landice_newton_log full[64], part[4];
  int n_full = 0, n_part = 0;
  double u_slow, u_part;
  CU_ASSERT_FATAL(slow_point_solve(full, 64, &n_full, &u_slow) == CRYO_OK);
  int steps = full[n_full - 1].step;
  printf("\n  slow point: Newton steps %d (|R| %.3e -> %.3e), slowest node |u_b| = %.2f m/a", steps,
         full[0].residual_norm, full[n_full - 1].residual_norm, u_slow);
  CU_ASSERT(steps <= 20);
  CU_ASSERT(n_full == steps + 1);
  CU_ASSERT(u_slow > 1.0 && u_slow < 50.0);
  CU_ASSERT_FATAL(slow_point_solve(part, 4, &n_part, &u_part) == CRYO_OK);
  CU_ASSERT(n_part == 4);
  CU_ASSERT(part[0].step == 0 && part[1].step == 1 && part[2].step == 2);
  CU_ASSERT(part[3].step == steps);
  CU_ASSERT(part[3].residual_norm == full[n_full - 1].residual_norm);
  CU_ASSERT(u_part == u_slow);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_sliding", NULL, NULL);
  CU_add_test(suite, "slab weertman", test_slab_weertman);
  CU_add_test(suite, "slab schoof", test_slab_schoof);
  CU_add_test(suite, "slab tsai", test_slab_tsai);
  CU_add_test(suite, "jacobian weertman", test_jacobian_weertman);
  CU_add_test(suite, "jacobian schoof", test_jacobian_schoof);
  CU_add_test(suite, "jacobian schoof marine", test_jacobian_schoof_marine);
  CU_add_test(suite, "jacobian tsai", test_jacobian_tsai);
  CU_add_test(suite, "jacobian tsai marine", test_jacobian_tsai_marine);
  CU_add_test(suite, "jacobian weertman fields", test_jacobian_weertman_fields);
  CU_add_test(suite, "jacobian schoof fields", test_jacobian_schoof_fields);
  CU_add_test(suite, "jacobian tsai fields", test_jacobian_tsai_fields);
  CU_add_test(suite, "tsai coulomb limit", test_tsai_coulomb_limit);
  CU_add_test(suite, "bad params", test_bad_params);
  CU_add_test(suite, "grounded fraction", test_grounded_fraction);
  CU_add_test(suite, "flotation slab", test_flotation_slab);
  CU_add_test(suite, "flotation jacobian linear", test_flotation_jacobian_linear);
  CU_add_test(suite, "flotation jacobian weertman", test_flotation_jacobian_weertman);
  CU_add_test(suite, "newton slow point", test_newton_slow_point);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
