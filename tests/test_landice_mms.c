/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Manufactured-solution convergence test of the first-order Stokes
 * discretization (kernels/landice_residual.c with the body-force kernels
 * cryo_landice_force_colour / _force_work_columns, and the solver), as
 * Tezaur et al. (2015, GMD 8, 1197) use manufactured solutions to show the
 * order of the scheme; the solution below is our own.
 *
 * Geometry: flat bed z = 0, uniform thickness H = 1000 m, surface slope 0
 * (no driving stress), periodic in x (length L, k = 2 pi / L) and in y (2
 * columns of dy = dx; the solution does not depend on y). The unknowns are
 * (u, v); the exact solution has v = 0 and
 *   u(x, z) = U [sin(k x) Z(z) + c W(z)],   U = 100 m/a, c = 1/2, zeta = z/H,
 *   no slip:  Z = sin(m z),       m = pi / (2 H),  W = zeta (2 - zeta);
 *   friction: Z = cos(m (H - z)), m = pi / (4 H),  W = 1 + g zeta (2 - zeta),
 *             g = m H / 2.
 * Boundary conditions satisfied by u (natural ones from the weak form of
 * landice_element.h integrated by parts):
 *   surface (flat, normal +z): the traction mu u_z = 0: Z'(H) = W'(H) = 0;
 *   bed, no slip: u = 0: Z(0) = W(0) = 0;
 *   bed, friction: mu u_z = beta2 u at z = 0. Z'(0) = m sin(m H) = m Z(0)
 *     since tan(m H) = 1, and W'(0) = 2 g / H = m = m W(0): so u_z = m u on
 *     the bed for every x, and beta2(x) = m mu(x, 0) (a node field; uniform
 *     m mu for n = 1).
 * Body force. With v = 0 and no y dependence the first-order strain rates
 * are eps_xx = u_x, eps_xz = u_z / 2, eps_e^2 = u_x^2 + u_z^2 / 4, and the
 * residual's stress terms (landice_element.h) are
 *   x row: s00 = 2 mu (2 u_x + v_y) = 4 mu u_x, s01 = mu (u_y + v_x) = 0,
 *          s02 = mu u_z;
 *   y row: s01 = 0, s11 = 2 mu (2 v_y + u_x) = 2 mu u_x, s12 = mu v_z = 0.
 * The residual is int s . grad phi - f phi (plus friction), so integrating
 * by parts the strong form is f = -div s:
 *   f_x = -d/dx (4 mu u_x) - d/dz (mu u_z)
 *       = -(4 mu_x u_x + 4 mu u_xx + mu_z u_z + mu u_zz),
 *   f_y = -d/dy (2 mu u_x) = 0.
 * Glen's law mu = 1/2 A^(-1/n) (eps_e^2 + eps_reg^2)^q, q = (1 - n) / (2 n),
 * so mu_x = q mu (eps_e^2)_x / (eps_e^2 + eps_reg^2) with
 *   (eps_e^2)_x = 2 u_x u_xx + u_z u_xz / 2,
 *   (eps_e^2)_z = 2 u_x u_xz + u_z u_zz / 2   (likewise mu_z);
 * n = 1: mu = 1 / (2 A) constant, f_x = -mu (4 u_xx + u_zz). The derivatives:
 *   u_x = U k cos(k x) Z, u_xx = -U k^2 sin(k x) Z, u_xz = U k cos(k x) Z',
 *   u_z = U (sin(k x) Z' + c W'), u_zz = U (sin(k x) Z'' + c W''),
 *   Z'' = -m^2 Z, W'' = -2 / H^2 (no slip) or -2 g / H^2 (friction).
 * f is given at the nodes (the solver interpolates it trilinearly).
 *
 * Cases: n = 1 (A = 5e-7 Pa-1 a-1, mu = 1e6 Pa a) and n = 3 (A = 1e-16 Pa-3
 * a-1, eps_reg = 0.2 a-1, so that mu stays smooth where eps_e vanishes: it
 * varies by 17 % over the L = 4 km domain), each with no slip and with
 * friction. With eps_reg = 0.05 a-1 (mu varying by a factor of 2.2) the
 * x series is still pre-asymptotic at nx = 8 and 16 (ratios 5.0 and 3.0 no
 * slip, 12.8 and 3.4 friction; 3.8 and 3.9 from nx = 32 to 64).
 * Error: RMS over the nodes of |u_h - u| / U (v included: it must stay 0).
 * The other direction's error must stay far below the one refined, and x
 * errors are larger than z errors at equal cell counts (and CG slows down
 * where dx << dz), hence one domain length per direction:
 *   x refinement, L = 4 H (k = m no slip, 2 m friction): nx = 8, 16, 32,
 *   nz = 64; z refinement, L = 64 H (k = m / 16, m / 8): nz = 4, 8, 16,
 *   nx = 128.
 * Asserts for each case: each ratio e(h) / e(h/2) in [3.2, 5] (second
 * order: 4; measured 3.8 to 4.0), the finest error <= 1e-2 in each
 * direction.
 * Tolerances: Newton to 1e-10 and CG to 1e-11 relative, so that the solver
 * error stays far below the discretization error.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

#define MMS_PI 3.14159265358979323846
#define MMS_H  1000.0
#define MMS_U  100.0
#define MMS_C  0.5

typedef struct mms_case {
  double glen_n, rate_factor, eps_reg;
  int no_slip;
  double length;  /* L, m */
  double k, m, g; /* wavenumbers m-1; g: W's coefficient (friction) */
} mms_case;

static mms_case mms_make(double glen_n, int no_slip, double length) {
  mms_case c;
  c.glen_n = glen_n;
  c.rate_factor = glen_n == 1.0 ? 5.0e-7 : 1.0e-16;
  c.eps_reg = glen_n == 1.0 ? 1.0e-5 : 0.2;
  c.no_slip = no_slip;
  c.length = length;
  c.k = 2.0 * MMS_PI / length;
  c.m = no_slip ? MMS_PI / (2.0 * MMS_H) : MMS_PI / (4.0 * MMS_H);
  c.g = no_slip ? 1.0 : 0.5 * c.m * MMS_H;
  return c;
}

/* Exact u and its derivatives d[5] = u_x, u_z, u_xx, u_xz, u_zz at (x, z). */
static double mms_u(const mms_case *c, double x, double z, double d[5]) {
  double zeta = z / MMS_H, sx = sin(c->k * x), cx = cos(c->k * x);
  double zf, zp, w, wp, wpp;
  if (c->no_slip) {
    zf = sin(c->m * z);
    zp = c->m * cos(c->m * z);
    w = zeta * (2.0 - zeta);
  } else {
    zf = cos(c->m * (MMS_H - z));
    zp = c->m * sin(c->m * (MMS_H - z));
    w = 1.0 + c->g * zeta * (2.0 - zeta);
  }
  wp = c->g * (2.0 - 2.0 * zeta) / MMS_H;
  wpp = -2.0 * c->g / (MMS_H * MMS_H);
  d[0] = MMS_U * c->k * cx * zf;
  d[1] = MMS_U * (sx * zp + MMS_C * wp);
  d[2] = -MMS_U * c->k * c->k * sx * zf;
  d[3] = MMS_U * c->k * cx * zp;
  d[4] = MMS_U * (-c->m * c->m * sx * zf + MMS_C * wpp);
  return MMS_U * (sx * zf + MMS_C * w);
}

/* Glen viscosity of the exact solution at (x, z), Pa a; d as for mms_u. */
static double mms_mu(const mms_case *c, const double d[5], double *mu_x, double *mu_z) {
  double e2 = d[0] * d[0] + 0.25 * d[1] * d[1] + c->eps_reg * c->eps_reg;
  double q = (1.0 - c->glen_n) / (2.0 * c->glen_n);
  double mu = 0.5 * pow(c->rate_factor, -1.0 / c->glen_n) * pow(e2, q);
  *mu_x = q * mu * (2.0 * d[0] * d[2] + 0.5 * d[1] * d[3]) / e2;
  *mu_z = q * mu * (2.0 * d[0] * d[3] + 0.5 * d[1] * d[4]) / e2;
  return mu;
}

static double mms_force_x(const mms_case *c, double x, double z) {
  double d[5], mu_x, mu_z;
  mms_u(c, x, z, d);
  double mu = mms_mu(c, d, &mu_x, &mu_z);
  return -(4.0 * mu_x * d[0] + 4.0 * mu * d[2] + mu_z * d[1] + mu * d[4]);
}

/* Solve on nx x 2 columns and nz layers; returns the RMS nodal error / U. */
static double mms_error(const mms_case *c, int nx, int nz) {
  const double dx = c->length / nx;
  cryo_block b = test_li_block(nx, 2, dx, dx, 1);
  test_li_ctx ctx = {&b};
  cryo_comm_ops ops = test_li_ops(&ctx);
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = nz;
  p.glen_n = c->glen_n;
  p.rate_factor = c->rate_factor;
  p.eps_reg = c->eps_reg;
  p.no_slip = c->no_slip;
  p.newton_rtol = 1e-10;
  p.linear_rtol = 1e-11;
  p.linear_max_iter = 20000;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  const int nlev = 2 * (nz + 1);
  for (int j = -1; j <= b.ny + 1; ++j)
    for (int i = -1; i <= b.nx + 1; ++i) {
      long node = CRYO_NODE(&b, i, j);
      double x = (b.i0 + i) * dx, d[5], mu_x, mu_z;
      s.bed[node] = 0.0;
      s.thk_node[node] = MMS_H;
      s.usrf[node] = MMS_H;
      mms_u(c, x, 0.0, d);
      s.beta2[node] = c->m * mms_mu(c, d, &mu_x, &mu_z);
      for (int k = 0; k <= nz; ++k) {
        s.body_force[node * nlev + 2 * k] = mms_force_x(c, x, k * MMS_H / nz);
        s.body_force[node * nlev + 2 * k + 1] = 0.0;
      }
    }
  for (long e = 0; e < CRYO_NCELL(&b); ++e)
    s.thk[e] = MMS_H;
  cryo_err err;
  cryo_err_clear(&err);
  int st = cryo_landice_solve_velocity(&b, &p, &s, &ops, NULL, 0, NULL, &err);
  if (st != CRYO_OK) printf("\n  solve failed: %s", err.msg);
  CU_ASSERT_FATAL(st == CRYO_OK);
  double sum = 0.0;
  long count = 0;
  for (int j = 0; j < b.ny; ++j)
    for (int i = 0; i < b.nx; ++i) {
      const double *v = s.vel + CRYO_NODE(&b, i, j) * nlev;
      double x = (b.i0 + i) * dx, d[5];
      for (int k = 0; k <= nz; ++k) {
        double eu = v[2 * k] - mms_u(c, x, k * MMS_H / nz, d), ev = v[2 * k + 1];
        sum += eu * eu + ev * ev;
        ++count;
      }
    }
  test_li_free(&p, &s);
  return sqrt(sum / count) / MMS_U;
}

static void mms_check(double glen_n, int no_slip) {
  const mms_case cx = mms_make(glen_n, no_slip, 4.0 * MMS_H),
                 cz = mms_make(glen_n, no_slip, 64.0 * MMS_H);
  const int nx_x[3] = {8, 16, 32}, nz_x = 64, nx_z = 128, nz_z[3] = {4, 8, 16};
  double ex[3], ez[3];
  for (int r = 0; r < 3; ++r) {
    ex[r] = mms_error(&cx, nx_x[r], nz_x);
    ez[r] = mms_error(&cz, nx_z, nz_z[r]);
  }
  printf("\n  n=%g %s: x (L=4H, nz=%d) e = %.3e %.3e %.3e ratios %.3f %.3f;"
         "\n  %*s z (L=64H, nx=%d) e = %.3e %.3e %.3e ratios %.3f %.3f",
         glen_n, no_slip ? "no slip" : "friction", nz_x, ex[0], ex[1], ex[2], ex[0] / ex[1],
         ex[1] / ex[2], no_slip ? 9 : 10, "", nx_z, ez[0], ez[1], ez[2], ez[0] / ez[1],
         ez[1] / ez[2]);
  for (int r = 0; r < 2; ++r) {
    CU_ASSERT(ex[r] / ex[r + 1] >= 3.2 && ex[r] / ex[r + 1] <= 5.0);
    CU_ASSERT(ez[r] / ez[r + 1] >= 3.2 && ez[r] / ez[r + 1] <= 5.0);
  }
  CU_ASSERT(ex[2] <= 1e-2 && ez[2] <= 1e-2);
}

static void test_n1_noslip(void) {
  mms_check(1.0, 1);
}

static void test_n1_friction(void) {
  mms_check(1.0, 0);
}

static void test_n3_noslip(void) {
  mms_check(3.0, 1);
}

static void test_n3_friction(void) {
  mms_check(3.0, 0);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_mms", NULL, NULL);
  CU_add_test(suite, "MMS n=1 no slip", test_n1_noslip);
  CU_add_test(suite, "MMS n=1 friction", test_n1_friction);
  CU_add_test(suite, "MMS n=3 no slip", test_n3_noslip);
  CU_add_test(suite, "MMS n=3 friction", test_n3_friction);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
