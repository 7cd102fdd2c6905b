/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Land-ice Jacobian kernel (kernels/landice_jacobian.c) against the residual
 * kernel (kernels/landice_residual.c).
 *
 * Setup: one block of 4 x 3 columns (dx = 1 km, dy = 1.5 km), 3 layers,
 * random geometry (bed -1000 +- 200 m, thickness 500 .. 1000 m, beta2 500 ..
 * 1500 Pa a m-1, background slope -0.01) and random velocities 10 .. 60 m/a;
 * cases: n = 3 with friction, periodic; n = 3 no slip, periodic; n = 1 with
 * friction, free (non-periodic) edges; n = 3 with friction and lateral
 * Dirichlet edges. The dense Jacobian on the owned unknowns comes from matvecs
 * with unit vectors.
 * Asserts:
 *   max_ij |J_ij - FD_ij| / max_ij |J_ij| <= 1e-6, FD = central differences
 *     of the residual with h = 1e-3 m/a;
 *   J = J^T bit for bit (each off-diagonal element block is formed once and
 *     written with its transpose, kernels/landice_jacobian.c);
 *   the residual at a periodic image row (node nx, ny) equals the owned row
 *     (node 0) to 1e-12 relative to max |R|.
 * The element kernels' inline power (landice_pow, kernels/landice_element.h)
 * against the C library's pow, x log-uniform in [1e-30, 1e30] (200 000
 * values), p the viscosity and functional exponents (1 - n) / (2 n) and
 * (n + 1) / (2 n) for n = 1 .. 4: within 4 ulp of pow; exactly 1 at x = 1.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "landice_element.h"
#include "test_landice_common.h"

typedef struct jcase {
  double glen_n;
  int no_slip, periodic, lateral;
} jcase;

/* Unknown index d -> (node storage index, level value offset). */
static void unknown(const cryo_block *b, int nxo, int nlev, int d, long *off) {
  int comp = d % nlev, node = d / nlev;
  int i = node % nxo, j = node / nxo;
  *off = ((long)(j + 1) * (b->nx + 3) + i + 1) * nlev + comp;
}

/* Dirichlet unknowns (identity rows and columns) are left out of the FD check. */
static int fixed_unknown(const cryo_block *b, const cryo_landice_params *p, int nxo, int nlev,
                         int d) {
  int k = (d % nlev) / 2, node = d / nlev, i = node % nxo, j = node / nxo;
  if (p->no_slip && k == 0) return 1;
  return p->lateral_bc == CRYO_LANDICE_LATERAL_DIRICHLET &&
         (i == 0 || i == b->nx || j == 0 || j == b->ny);
}

static void set_unknown(const cryo_block *b, const cryo_landice_params *p, double *f, long off,
                        double value, test_li_ctx *ctx) {
  int nlev = 2 * (p->n_layers + 1);
  f[off] = value;
  test_li_images(b, nlev, f);
  double *fl[1] = {f};
  test_li_halo(ctx, CRYO_AT_NODE, nlev, 1, fl);
}

static void run_case(jcase jc) {
  cryo_block b = test_li_block(4, 3, 1000.0, 1500.0, jc.periodic);
  test_li_ctx ctx = {&b};
  cryo_landice_params p;
  cryo_landice_params_default(&p);
  p.n_layers = 3;
  p.glen_n = jc.glen_n;
  p.rate_factor = jc.glen_n == 1.0 ? 2.140373e-7 : 1.0e-16;
  p.no_slip = jc.no_slip;
  p.lateral_bc = jc.lateral;
  p.slope_x = -0.01;
  p.slope_y = 0.003;
  cryo_landice_state s;
  CU_ASSERT_FATAL(test_li_alloc(&b, &p, &s));
  cryo_err err;
  cryo_err_clear(&err);
  const int nlev = 2 * (p.n_layers + 1);
  srand(12345);
  for (long e = 0; e < CRYO_NNODE(&b); ++e) {
    s.bed[e] = -1000.0 + 400.0 * (rand() / (double)RAND_MAX - 0.5);
    s.thk_node[e] = 500.0 + 500.0 * rand() / (double)RAND_MAX;
    s.beta2[e] = 500.0 + 1000.0 * rand() / (double)RAND_MAX;
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

  int nxo = jc.periodic ? b.nx : b.nx + 1, nyo = jc.periodic ? b.ny : b.ny + 1;
  int nd = nxo * nyo * nlev;
  double *jd = calloc((size_t)nd * nd, sizeof(double));
  double *fd = calloc((size_t)nd * nd, sizeof(double));
  CU_ASSERT_FATAL(jd && fd);
  CU_ASSERT_FATAL(cryo_landice_jacobian(&b, &p, &s, s.vel, &err) == CRYO_OK);
  const double h = 1.0e-3;
  for (int d = 0; d < nd; ++d) {
    long off;
    unknown(&b, nxo, nlev, d, &off);
    cryo_landice_zero(CRYO_NNODE(&b) * nlev, s.cg_p);
    set_unknown(&b, &p, s.cg_p, off, 1.0, &ctx);
    cryo_landice_matvec(&b, &p, s.matrix, s.cg_p, s.cg_q);
    double u0 = s.vel[off];
    memcpy(s.trial, s.vel, sizeof(double) * CRYO_NNODE(&b) * nlev);
    set_unknown(&b, &p, s.trial, off, u0 + h, &ctx);
    CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.trial, s.cg_r, &err) == CRYO_OK);
    set_unknown(&b, &p, s.trial, off, u0 - h, &ctx);
    CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.trial, s.cg_z, &err) == CRYO_OK);
    for (int r = 0; r < nd; ++r) {
      long ro;
      unknown(&b, nxo, nlev, r, &ro);
      jd[(long)r * nd + d] = s.cg_q[ro];
      fd[(long)r * nd + d] = (s.cg_r[ro] - s.cg_z[ro]) / (2.0 * h);
    }
  }
  double jmax = 0.0, emax = 0.0, fro = 0.0, asym = 0.0;
  for (long q = 0; q < (long)nd * nd; ++q) {
    long r = q / nd, c = q % nd;
    jmax = fmax(jmax, fabs(jd[q]));
    if (!fixed_unknown(&b, &p, nxo, nlev, (int)r) && !fixed_unknown(&b, &p, nxo, nlev, (int)c))
      emax = fmax(emax, fabs(jd[q] - fd[q]));
    fro += jd[q] * jd[q];
    double a = jd[q] - jd[c * nd + r];
    asym += a * a;
  }
  double fd_rel = emax / jmax, sym_rel = sqrt(asym / fro);

  /* periodic image rows hold the same residual as their owners */
  CU_ASSERT_FATAL(cryo_landice_residual(&b, &p, &s, s.vel, s.res, &err) == CRYO_OK);
  double rmax = 0.0, img = 0.0;
  for (int j = 0; j <= b.ny; ++j)
    for (int i = 0; i <= b.nx; ++i) {
      int si = (jc.periodic && i == b.nx) ? 0 : i, sj = (jc.periodic && j == b.ny) ? 0 : j;
      for (int k = 0; k < nlev; ++k) {
        double v = s.res[((j + 1) * (b.nx + 3) + i + 1) * nlev + k];
        double o = s.res[((sj + 1) * (b.nx + 3) + si + 1) * nlev + k];
        rmax = fmax(rmax, fabs(o));
        img = fmax(img, fabs(v - o));
      }
    }
  printf("\n  n=%g no_slip=%d periodic=%d lateral=%d: |J-FD|/|J| = %.3e, |J-J^T|/|J| = %.3e, "
         "image rows %.3e",
         jc.glen_n, jc.no_slip, jc.periodic, jc.lateral, fd_rel, sym_rel, img / rmax);
  CU_ASSERT(fd_rel <= 1.0e-6);
  CU_ASSERT(asym == 0.0);
  CU_ASSERT(img <= 1.0e-12 * rmax);
  CU_ASSERT(jmax > 0.0);
  free(jd);
  free(fd);
  test_li_free(&p, &s);
}

static void test_jacobian_n3_friction_periodic(void) {
  run_case((jcase){3.0, 0, 1, CRYO_LANDICE_LATERAL_FREE});
}
static void test_jacobian_n3_noslip_periodic(void) {
  run_case((jcase){3.0, 1, 1, CRYO_LANDICE_LATERAL_FREE});
}
static void test_jacobian_n1_free_edges(void) {
  run_case((jcase){1.0, 0, 0, CRYO_LANDICE_LATERAL_FREE});
}
static void test_jacobian_n3_dirichlet_edges(void) {
  run_case((jcase){3.0, 0, 0, CRYO_LANDICE_LATERAL_DIRICHLET});
}

static void test_inline_power(void) {
  double worst = 0.0;
  for (int n = 1; n <= 4; ++n)
    for (int side = 0; side < 2; ++side) {
      double p = side ? (n + 1.0) / (2.0 * n) : (1.0 - n) / (2.0 * n);
      CU_ASSERT(landice_pow(1.0, p) == 1.0);
      for (int q = 0; q < 25000; ++q) {
        double x = pow(10.0, -30.0 + 60.0 * (q + 0.5) / 25000.0);
        double want = pow(x, p), got = landice_pow(x, p);
        double ulp = nextafter(want, INFINITY) - want;
        worst = fmax(worst, fabs(got - want) / ulp);
      }
    }
  printf("\n  landice_pow: max error %.2f ulp", worst);
  CU_ASSERT(worst <= 4.0);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_jacobian", NULL, NULL);
  CU_add_test(suite, "n=3 friction periodic", test_jacobian_n3_friction_periodic);
  CU_add_test(suite, "n=3 no slip periodic", test_jacobian_n3_noslip_periodic);
  CU_add_test(suite, "n=1 free edges", test_jacobian_n1_free_edges);
  CU_add_test(suite, "n=3 Dirichlet edges", test_jacobian_n3_dirichlet_edges);
  CU_add_test(suite, "inline power", test_inline_power);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
