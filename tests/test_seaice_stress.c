/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Unit tests of the sea-ice element and node kernels (kernels/seaice_stress.c,
 * kernels/seaice_velocity.c) on one block, nx = 7, ny = 5, dx = 8 km, dy = 6 km.
 *
 * 1. Stress kernel against a plain reference written here (strain from the
 *    bilinear shape-function gradients at each Gauss point, the VP stress of
 *    docs/seaice.md literally, L2 projection with the full mass matrix), on
 *    random velocity, tracers, stress and ice_mask (land, open water, ice),
 *    dG0 and dG1 tracers: max |difference| <= 1e-13 max |stress| per
 *    component on ice; land and open-water cells unchanged.
 *    With stress_precision = 'single': <= 2e-6 max |stress|, and above 1e-12.
 * 2. Discrete adjointness of the weak divergence in the node kernel:
 *    dx dy sum_nodes v . F(sigma) = -sum_cells sum_gauss w sigma : eps(v) on
 *    random v (zero on fixed nodes) and random sigma: relative error <= 1e-12.
 *    The node kernel returns F itself when beta = 0, dt = rho_ice = H = 1 and
 *    drags and Coriolis are 0.
 * 3. The array table: every state member appears once, h/a carry 1 or 3 levels.
 * 4. The kernels' inline exponential (cryo_exp, kernels/cryo_math.h) against
 *    the C library's exp on 200 000 points of [-700, 700] and of [-20, 0]
 *    (the ice strength's range): within 2 ulp; exp(0) = 1 exactly.
 * 5. The transport's bound (cryo_bound): a NaN stays NaN, so that the state
 *    check sees a failed step; any other value, -0 and +-inf included, is
 *    cryo_min(cryo_max(x, lo), hi) to the bit.
 * 6. The node sets of the velocity kernel (cryo_seaice_nodes) on blocks from
 *    4 x 4 to 33 x 17: all visits [0,nx] x [0,ny] once, row by row; ring and
 *    inner visit it once between them, the ring exactly the nodes within 2
 *    of a block edge. The kernel over the ring then the inner nodes gives the
 *    bits of one launch over all (random state, ice, open water and land,
 *    dG0 and dG1, adaptive EVP).
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cryo_math.h"
#include "seaice.h"

#define NX 7
#define NY 5
#define DX 8000.0
#define DY 6000.0

static unsigned long long rng_state = 88172645463325252ULL;

/* uniform in [lo, hi) from xorshift64 */
static double rnd(double lo, double hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static cryo_block make_block(void) {
  cryo_block b = {.nx = NX,
                  .ny = NY,
                  .i0 = 0,
                  .j0 = 0,
                  .nx_global = NX,
                  .ny_global = NY,
                  .dx = DX,
                  .dy = DY,
                  .periodic_x = 0,
                  .periodic_y = 0};
  return b;
}

/* Reference: the stress update of one cell done the obvious way. */
static void reference_cell(const cryo_seaice_params *p, const cryo_block *b, int i, int j,
                           const double *u, const double *v, const double *h, const double *a,
                           int na, const double *s_old[3], double s_new[3][3]) {
  const double gp[2] = {-1.0 / sqrt(3.0), 1.0 / sqrt(3.0)};
  const long c = CRYO_CELL(b, i, j);
  const long nodes[4] = {CRYO_NODE(b, i, j), CRYO_NODE(b, i + 1, j), CRYO_NODE(b, i, j + 1),
                         CRYO_NODE(b, i + 1, j + 1)};
  double proj[3][3] = {{0}};
  for (int gy = 0; gy < 2; ++gy)
    for (int gx = 0; gx < 2; ++gx) {
      const double X = gp[gx], Y = gp[gy];
      const double xi = 0.5 * (1.0 + X), eta = 0.5 * (1.0 + Y);
      /* shape functions N = (1-xi)(1-eta), xi(1-eta), (1-xi)eta, xi eta */
      const double dndx[4] = {-(1 - eta) / DX, (1 - eta) / DX, -eta / DX, eta / DX};
      const double dndy[4] = {-(1 - xi) / DY, -xi / DY, (1 - xi) / DY, xi / DY};
      double ux = 0, uy = 0, vx = 0, vy = 0;
      for (int k = 0; k < 4; ++k) {
        ux += u[nodes[k]] * dndx[k];
        uy += u[nodes[k]] * dndy[k];
        vx += v[nodes[k]] * dndx[k];
        vy += v[nodes[k]] * dndy[k];
      }
      const double e11 = ux, e22 = vy, e12 = 0.5 * (uy + vx);
      double hg = h[c * na], ag = a[c * na];
      if (na == 3) {
        hg += h[c * na + 1] * X + h[c * na + 2] * Y;
        ag += a[c * na + 1] * X + a[c * na + 2] * Y;
      }
      if (hg < 0) hg = 0;
      if (ag < 0) ag = 0;
      if (ag > 1) ag = 1;
      const double P = p->pstar * hg * exp(-p->c_strength * (1 - ag));
      const double D = sqrt(p->delta_min * p->delta_min + 1.25 * (e11 * e11 + e22 * e22) +
                            1.5 * e11 * e22 + e12 * e12);
      const double sig[3] = {P / (8 * D) * (5 * e11 + 3 * e22) - P / 2, P / (4 * D) * e12,
                             P / (8 * D) * (5 * e22 + 3 * e11) - P / 2};
      const double phi[3] = {1.0, X, Y};
      const double w = DX * DY / 4.0;
      for (int comp = 0; comp < 3; ++comp)
        for (int k = 0; k < 3; ++k)
          proj[comp][k] += w * phi[k] * sig[comp];
    }
  const double mass[3] = {DX * DY, DX * DY / 3.0, DX * DY / 3.0};
  for (int comp = 0; comp < 3; ++comp)
    for (int k = 0; k < 3; ++k) {
      const double sold = s_old[comp][c * 3 + k];
      s_new[comp][k] = sold + (proj[comp][k] / mass[k] - sold) / p->alpha;
    }
}

static void stress_vs_reference(int order, int single) {
  cryo_block b = make_block();
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.alpha = 7.0;
  p.tracer_order = order;
  p.stress_single = single;
  const int na = CRYO_SEAICE_NA(order);
  const long nc = CRYO_NCELL(&b), nn = CRYO_NNODE(&b);
  double *u = malloc(nn * sizeof *u), *v = malloc(nn * sizeof *v);
  double *h = malloc(nc * na * sizeof *h), *a = malloc(nc * na * sizeof *a);
  double *ice_mask = malloc(nc * sizeof *ice_mask);
  double *s[3], *s0[3];
  for (int k = 0; k < 3; ++k) {
    s[k] = malloc(nc * 3 * sizeof(double));
    s0[k] = malloc(nc * 3 * sizeof(double));
  }
  for (long n = 0; n < nn; ++n) {
    u[n] = rnd(-0.2, 0.2);
    v[n] = rnd(-0.2, 0.2);
  }
  for (long c = 0; c < nc; ++c) {
    const double r = rnd(0, 1);
    ice_mask[c] = r < 0.7 ? 2.0 : r < 0.85 ? 1.0 : 0.0;
    h[c * na] = rnd(-0.1, 2.0);
    a[c * na] = rnd(0.6, 1.1);
    for (int k = 1; k < na; ++k) {
      h[c * na + k] = rnd(-0.3, 0.3);
      a[c * na + k] = rnd(-0.1, 0.1);
    }
    for (int comp = 0; comp < 3; ++comp)
      for (int k = 0; k < 3; ++k)
        s0[comp][c * 3 + k] = s[comp][c * 3 + k] = rnd(-2e4, 2e4);
  }
  /* one cell at rest: Delta = Delta_min, the plastic pressure limit */
  const long c0 = CRYO_CELL(&b, 2, 2);
  ice_mask[c0] = 2.0;
  u[CRYO_NODE(&b, 2, 2)] = u[CRYO_NODE(&b, 3, 2)] = u[CRYO_NODE(&b, 2, 3)] =
      u[CRYO_NODE(&b, 3, 3)] = 0.05;
  v[CRYO_NODE(&b, 2, 2)] = v[CRYO_NODE(&b, 3, 2)] = v[CRYO_NODE(&b, 2, 3)] =
      v[CRYO_NODE(&b, 3, 3)] = -0.05;

  cryo_seaice_stress_kernel(&p, &b, u, v, h, a, ice_mask, s[0], s[1], s[2], NULL);

  const double *sold[3] = {s0[0], s0[1], s0[2]};
  double maxdiff[3] = {0}, maxval[3] = {0};
  int unchanged = 1;
  for (int j = -1; j <= NY; ++j)
    for (int i = -1; i <= NX; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      if (ice_mask[c] != 2.0) {
        for (int comp = 0; comp < 3; ++comp)
          for (int k = 0; k < 3; ++k)
            if (s[comp][c * 3 + k] != s0[comp][c * 3 + k]) unchanged = 0;
        continue;
      }
      double ref[3][3];
      reference_cell(&p, &b, i, j, u, v, h, a, na, sold, ref);
      for (int comp = 0; comp < 3; ++comp)
        for (int k = 0; k < 3; ++k) {
          maxdiff[comp] = fmax(maxdiff[comp], fabs(s[comp][c * 3 + k] - ref[comp][k]));
          maxval[comp] = fmax(maxval[comp], fabs(ref[comp][k]));
        }
    }
  /* single: float intermediates (2^-24 = 6e-8 each) over a few dozen
   * operations, and they must show (or the double path ran) */
  const double tol = single ? 2e-6 : 1e-13;
  double worst = 0.0;
  for (int comp = 0; comp < 3; ++comp) {
    CU_ASSERT(maxval[comp] > 0.0);
    CU_ASSERT(maxdiff[comp] <= tol * maxval[comp]);
    worst = fmax(worst, maxdiff[comp] / maxval[comp]);
  }
  if (single) CU_ASSERT(worst > 1e-12);
  CU_ASSERT(unchanged);
  free(u);
  free(v);
  free(h);
  free(a);
  free(ice_mask);
  for (int k = 0; k < 3; ++k) {
    free(s[k]);
    free(s0[k]);
  }
}

static void test_stress_dg0(void) {
  stress_vs_reference(0, 0);
}

static void test_stress_dg1(void) {
  stress_vs_reference(1, 0);
}

static void test_stress_single(void) {
  stress_vs_reference(0, 1);
  stress_vs_reference(1, 1);
}

static void test_adjointness(void) {
  cryo_block b = make_block();
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.beta = 0.0;
  p.dt = 1.0;
  p.rho_ice = 1.0;
  p.c_air = p.c_ocean = p.coriolis = 0.0;
  const long nc = CRYO_NCELL(&b), nn = CRYO_NNODE(&b);
  double *vel[2], *f[2], *forcing = calloc(nn, sizeof(double)), *zero = calloc(nn, sizeof(double));
  double *h = malloc(nc * sizeof(double)), *a = malloc(nc * sizeof(double));
  double *ice_mask = malloc(nc * sizeof(double)), *s[3];
  for (int k = 0; k < 2; ++k) {
    vel[k] = calloc(nn, sizeof(double));
    f[k] = calloc(nn, sizeof(double));
  }
  for (int k = 0; k < 3; ++k)
    s[k] = malloc(nc * 3 * sizeof(double));
  for (int j = -1; j <= NY; ++j)
    for (int i = -1; i <= NX; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      ice_mask[c] = (i >= 0 && i < NX && j >= 0 && j < NY) ? 2.0 : 0.0; /* ice everywhere */
      h[c] = a[c] = 1.0;
      for (int k = 0; k < 9; ++k)
        s[k / 3][c * 3 + k % 3] = (ice_mask[c] != 0.0) * rnd(-1e4, 1e4);
    }
  /* random velocity on free (interior) nodes only */
  for (int j = 1; j < NY; ++j)
    for (int i = 1; i < NX; ++i)
      for (int k = 0; k < 2; ++k)
        vel[k][CRYO_NODE(&b, i, j)] = rnd(-0.3, 0.3);

  cryo_seaice_velocity_kernel(&p, &b, CRYO_SEAICE_NODES_ALL, s[0], s[1], s[2], h, a, ice_mask,
                              forcing, forcing, forcing, forcing, zero, zero, NULL, f[0], f[1]);
  double lhs = 0.0;
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      lhs += DX * DY * (vel[0][n] * f[0][n] + vel[1][n] * f[1][n]);
    }
  /* -sum_cells int sigma : eps(v) by 2x2 Gauss quadrature */
  const double gp[2] = {-1.0 / sqrt(3.0), 1.0 / sqrt(3.0)};
  double rhs = 0.0, scale = 0.0;
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const long nodes[4] = {CRYO_NODE(&b, i, j), CRYO_NODE(&b, i + 1, j), CRYO_NODE(&b, i, j + 1),
                             CRYO_NODE(&b, i + 1, j + 1)};
      for (int gy = 0; gy < 2; ++gy)
        for (int gx = 0; gx < 2; ++gx) {
          const double X = gp[gx], Y = gp[gy], xi = 0.5 * (1 + X), eta = 0.5 * (1 + Y);
          const double dndx[4] = {-(1 - eta) / DX, (1 - eta) / DX, -eta / DX, eta / DX};
          const double dndy[4] = {-(1 - xi) / DY, -xi / DY, (1 - xi) / DY, xi / DY};
          double ux = 0, uy = 0, vx = 0, vy = 0;
          for (int k = 0; k < 4; ++k) {
            ux += vel[0][nodes[k]] * dndx[k];
            uy += vel[0][nodes[k]] * dndy[k];
            vx += vel[1][nodes[k]] * dndx[k];
            vy += vel[1][nodes[k]] * dndy[k];
          }
          double sg[3];
          for (int comp = 0; comp < 3; ++comp)
            sg[comp] = s[comp][c * 3] + s[comp][c * 3 + 1] * X + s[comp][c * 3 + 2] * Y;
          const double term = DX * DY / 4.0 * (sg[0] * ux + sg[1] * (uy + vx) + sg[2] * vy);
          rhs -= term;
          scale += fabs(term);
        }
    }
  CU_ASSERT(fabs(rhs) > 1e-3 * scale);
  CU_ASSERT(fabs(lhs - rhs) <= 1e-12 * fabs(rhs));
  for (int k = 0; k < 2; ++k) {
    free(vel[k]);
    free(f[k]);
  }
  for (int k = 0; k < 3; ++k)
    free(s[k]);
  free(forcing);
  free(zero);
  free(h);
  free(a);
  free(ice_mask);
}

/* The table lists every member of the state once; rectangles (p.quad = 0)
 * leave out the geometry arrays, the QUAD_ARRAYS members before the last
 * OPTION_ARRAYS and FLOAT_ARRAYS, which the component registers (options) or
 * allocates (floats) only when their option is on (component/cryo_seaice.c). */
#define QUAD_ARRAYS   4 /* geom, rot, fcor, nrot */
#define OPTION_ARRAYS 6 /* ssh, alpha_evp, bathymetry, damage, u_avg, v_avg */
#define FLOAT_ARRAYS  4 /* s11_f, s12_f, s22_f, alpha_evp_f (state_precision = 'single') */
static void test_array_table(void) {
  const int nall =
      (int)(sizeof(cryo_seaice_state) / sizeof(double *)) - OPTION_ARRAYS - FLOAT_ARRAYS;
  for (int quad = 0; quad <= 1; ++quad)
    for (int order = 0; order <= 1; ++order) {
      cryo_seaice_params p;
      cryo_seaice_params_cyclone(&p);
      p.tracer_order = order;
      p.quad = quad;
      const cryo_seaice_array_info *t;
      const int n = cryo_seaice_arrays(&p, &t);
      CU_ASSERT_EQUAL(n, quad ? nall : nall - QUAD_ARRAYS);
      int seen[64] = {0};
      for (int k = 0; k < n; ++k) {
        const size_t slot = t[k].offset / sizeof(double *);
        CU_ASSERT(slot < (size_t)n && t[k].offset % sizeof(double *) == 0);
        if (slot < 64) ++seen[slot];
        if (!strcmp(t[k].name, "h") || !strcmp(t[k].name, "a"))
          CU_ASSERT_EQUAL(t[k].nlev, order == 1 ? 3 : 1);
        if (!strcmp(t[k].name, "u"))
          CU_ASSERT_STRING_EQUAL(t[k].standard_name, "sea_ice_x_velocity");
      }
      for (int k = 0; k < n; ++k)
        CU_ASSERT_EQUAL(seen[k], 1);
    }
}

static double exp_worst_ulp(double lo, double hi, int n) {
  double worst = 0.0;
  for (int q = 0; q < n; ++q) {
    double y = lo + (hi - lo) * (q + 0.5) / n;
    double want = exp(y), ulp = nextafter(want, INFINITY) - want;
    worst = fmax(worst, fabs(cryo_exp(y) - want) / ulp);
  }
  return worst;
}

static void test_inline_exp(void) {
  double wide = exp_worst_ulp(-700.0, 700.0, 100000), strength = exp_worst_ulp(-20.0, 0.0, 100000);
  printf("\n  cryo_exp: max error %.2f ulp on [-700, 700], %.2f on [-20, 0]", wide, strength);
  CU_ASSERT(cryo_exp(0.0) == 1.0);
  CU_ASSERT(wide <= 2.0);
  CU_ASSERT(strength <= 2.0);
}

static void test_bound(void) {
  CU_ASSERT(isnan(cryo_bound(NAN, 0.0, 1.0)));
  CU_ASSERT(isnan(cryo_bound(-NAN, 0.0, INFINITY)));
  const double xs[] = {-0.0, 0.0, -1e-300, 0.5, 1.0, 1.5, -INFINITY, INFINITY};
  int same = 1;
  for (size_t k = 0; k < sizeof xs / sizeof xs[0]; ++k) {
    const double lo = 0.0, his[2] = {1.0, INFINITY};
    for (int m = 0; m < 2; ++m) {
      const double got = cryo_bound(xs[k], lo, his[m]);
      const double want = cryo_min(cryo_max(xs[k], lo), his[m]);
      same &= memcmp(&got, &want, sizeof got) == 0;
    }
  }
  CU_ASSERT(same);
}

static void test_node_sets(void) {
  static const int sizes[4][2] = {{4, 4}, {7, 5}, {10, 6}, {33, 17}};
  for (int t = 0; t < 4; ++t) {
    const cryo_block b = {.nx = sizes[t][0], .ny = sizes[t][1]};
    const int nx = b.nx, ny = b.ny;
    int *seen = calloc((size_t)(nx + 1) * (ny + 1), sizeof(int));
    cryo_seaice_node_set set;
    cryo_seaice_node_set_make(&b, CRYO_SEAICE_NODES_ALL, &set);
    CU_ASSERT_EQUAL(set.count, (long)(nx + 1) * (ny + 1));
    long misplaced = 0, wrong = 0;
    for (long e = 0; e < set.count; ++e) {
      int i, j;
      cryo_seaice_node_ij(&set, CRYO_SEAICE_NODES_ALL, e, &i, &j);
      misplaced += e != (long)j * (nx + 1) + i;
    }
    for (int w = CRYO_SEAICE_NODES_RING; w <= CRYO_SEAICE_NODES_INNER; ++w) {
      cryo_seaice_node_set_make(&b, (cryo_seaice_nodes)w, &set);
      for (long e = 0; e < set.count; ++e) {
        int i, j;
        cryo_seaice_node_ij(&set, (cryo_seaice_nodes)w, e, &i, &j);
        if (i < 0 || i > nx || j < 0 || j > ny) {
          ++wrong;
          continue;
        }
        const int ring = i <= 1 || i >= nx - 1 || j <= 1 || j >= ny - 1;
        wrong += ring != (w == CRYO_SEAICE_NODES_RING);
        seen[(long)j * (nx + 1) + i] += 1;
      }
    }
    for (long n = 0; n < (long)(nx + 1) * (ny + 1); ++n)
      wrong += seen[n] != 1;
    CU_ASSERT_EQUAL(misplaced, 0);
    CU_ASSERT_EQUAL(wrong, 0);
    free(seen);
  }
  /* the kernel: ring then inner against all, to the bit */
  const cryo_block b = {.nx = 10, .ny = 6, .nx_global = 10, .ny_global = 6, .dx = DX, .dy = DY};
  const long nc = CRYO_NCELL(&b), nn = CRYO_NNODE(&b);
  for (int order = 0; order < 2; ++order) {
    cryo_seaice_params p;
    cryo_seaice_params_cyclone(&p);
    p.tracer_order = order;
    p.adaptive_evp = order;
    const int na = order ? 3 : 1;
    double *h = malloc(nc * na * sizeof(double)), *a = malloc(nc * na * sizeof(double));
    double *mask = malloc(nc * sizeof(double)), *alpha = malloc(nc * sizeof(double)), *s[3];
    double *f[6], *vel[2][2];
    for (int k = 0; k < 3; ++k)
      s[k] = malloc(nc * 3 * sizeof(double));
    for (int k = 0; k < 6; ++k)
      f[k] = malloc(nn * sizeof(double));
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 2; ++k)
        vel[w][k] = malloc(nn * sizeof(double));
    for (long c = 0; c < nc; ++c) {
      mask[c] = c % 11 == 3 ? 0.0 : c % 7 == 2 ? 1.0 : 2.0;
      alpha[c] = rnd(100.0, 500.0);
      for (int k = 0; k < na; ++k) {
        h[c * na + k] = k ? rnd(-0.1, 0.1) : rnd(0.5, 3.0);
        a[c * na + k] = k ? rnd(-0.05, 0.05) : rnd(0.5, 1.0);
      }
      for (int k = 0; k < 9; ++k)
        s[k / 3][c * 3 + k % 3] = rnd(-1e4, 1e4);
    }
    for (long n = 0; n < nn; ++n) {
      for (int k = 0; k < 6; ++k)
        f[k][n] = rnd(-10.0, 10.0) * (k < 2 ? 1.0 : 0.02);
      vel[0][0][n] = vel[1][0][n] = rnd(-0.3, 0.3);
      vel[0][1][n] = vel[1][1][n] = rnd(-0.3, 0.3);
    }
    cryo_seaice_state opt = {0};
    opt.alpha_evp = alpha;
    static const cryo_seaice_nodes parts[2][2] = {
        {CRYO_SEAICE_NODES_ALL, CRYO_SEAICE_NODES_ALL},
        {CRYO_SEAICE_NODES_RING, CRYO_SEAICE_NODES_INNER}};
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 2 - (w == 0); ++k)
        cryo_seaice_velocity_kernel(&p, &b, parts[w][k], s[0], s[1], s[2], h, a, mask, f[0], f[1],
                                    f[2], f[3], f[4], f[5], &opt, vel[w][0], vel[w][1]);
    long differ = 0, moved = 0;
    for (long n = 0; n < nn; ++n)
      for (int k = 0; k < 2; ++k) {
        differ += memcmp(&vel[0][k][n], &vel[1][k][n], sizeof(double)) != 0;
        moved += vel[0][k][n] != 0.0;
      }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT(moved > nn / 4);
    for (int k = 0; k < 3; ++k)
      free(s[k]);
    for (int k = 0; k < 6; ++k)
      free(f[k]);
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 2; ++k)
        free(vel[w][k]);
    free(h), free(a), free(mask), free(alpha);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("seaice_stress", NULL, NULL);
  CU_add_test(s, "stress kernel vs reference, dG0 tracers", test_stress_dg0);
  CU_add_test(s, "stress kernel vs reference, dG1 tracers", test_stress_dg1);
  CU_add_test(s, "stress kernel in single precision vs reference", test_stress_single);
  CU_add_test(s, "discrete adjointness of the divergence", test_adjointness);
  CU_add_test(s, "inline exponential", test_inline_exp);
  CU_add_test(s, "bounds keep a NaN", test_bound);
  CU_add_test(s, "array table", test_array_table);
  CU_add_test(s, "node sets of the velocity kernel", test_node_sets);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
