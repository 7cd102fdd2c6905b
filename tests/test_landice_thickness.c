/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Land-ice thickness evolution (kernels/landice_thickness.c).
 *
 * 1. Conservation: periodic 16 x 12 cells (dx = 2 km, dy = 3 km), random H in
 *    [0, 1000] m with a quarter of the cells ice-free, random depth-averaged
 *    velocity in [-3000, 3000] m/a at the nodes (divergent), smb = melt = 0,
 *    ten steps of 1 a. Asserts: |V_end - V_0| / V_0 <= 1e-12 (volume by
 *    the reproducible sum), H >= 0 in every cell after every step, more than
 *    one CFL sub-step was needed, H changed (max |dH| > 1 m).
 * 2. Translation: uniform ubar = (1000, -500) m/a, a Gaussian blob of ice well
 *    inside the box, 0.5 a in more than one sub-step: the centroid moves by
 *    (500, -250) m to 1e-6 m
 *    (upwind moves the first moment exactly for uniform velocity).
 * 3. Melt: basal melt 300 m/a on 200 m of ice, 365 daily steps: H = 0 everywhere
 *    (clipped, never negative).
 * 4. Calving (marine, bed 500 m below sea level, ice at rest, calving_mask 0
 *    in the east half): with calving = 'all' every cell there loses its ice;
 *    with 'floating' the cells of 600 m (grounded: 918 x 600 > 1028 x 500)
 *    keep it bit for bit and those of 500 m (floating) lose it; the budget's
 *    calving term holds exactly what went, and the west half is unchanged.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "test_landice_common.h"

typedef struct tcase {
  cryo_block b;
  test_li_ctx ctx;
  cryo_comm_ops ops;
  cryo_landice_params p;
  cryo_landice_state s;
} tcase;

static void tcase_init_as(tcase *t, int nx, int ny, double dx, double dy, int marine) {
  t->b = test_li_block(nx, ny, dx, dy, 1);
  t->ctx.b = &t->b;
  t->ops = test_li_ops(&t->ctx);
  cryo_landice_params_default(&t->p);
  t->p.n_layers = 2;
  t->p.marine = marine;
  CU_ASSERT_FATAL(test_li_alloc(&t->b, &t->p, &t->s));
}

static void tcase_init(tcase *t, int nx, int ny, double dx, double dy) {
  tcase_init_as(t, nx, ny, dx, dy, 0);
}

static void set_ubar(tcase *t) {
  test_li_images(&t->b, 2, t->s.ubar);
  test_li_halo(&t->ctx, CRYO_AT_NODE, 2, 1, &t->s.ubar);
}

static double min_thk(const tcase *t) {
  double m = INFINITY;
  for (int j = 0; j < t->b.ny; ++j)
    for (int i = 0; i < t->b.nx; ++i)
      m = fmin(m, t->s.thk[CRYO_CELL(&t->b, i, j)]);
  return m;
}

static void test_conservation(void) {
  tcase t;
  tcase_init(&t, 16, 12, 2000.0, 3000.0);
  cryo_err err;
  cryo_err_clear(&err);
  srand(4321);
  for (long e = 0; e < CRYO_NCELL(&t.b); ++e) {
    double r = rand() / (double)RAND_MAX;
    t.s.thk[e] = r < 0.25 ? 0.0 : 1000.0 * rand() / (double)RAND_MAX;
  }
  for (long e = 0; e < CRYO_NNODE(&t.b); ++e)
    for (int c = 0; c < 2; ++c)
      t.s.ubar[2 * e + c] = 6000.0 * (rand() / (double)RAND_MAX - 0.5);
  set_ubar(&t);
  double *h0 = malloc(sizeof(double) * CRYO_NCELL(&t.b));
  CU_ASSERT_FATAL(h0 != NULL);
  memcpy(h0, t.s.thk, sizeof(double) * CRYO_NCELL(&t.b));
  double v0, v1;
  CU_ASSERT_FATAL(cryo_landice_volume(&t.b, &t.s, &t.ops, &v0, &err) == CRYO_OK);
  t.p.dt = CRYO_LANDICE_YEAR;
  int nsub = 0, all_pos = 1;
  for (int step = 0; step < 10; ++step) {
    CU_ASSERT_FATAL(cryo_landice_evolve_thickness(&t.b, &t.p, &t.s, &t.ops, &nsub, &err) ==
                    CRYO_OK);
    all_pos &= min_thk(&t) >= 0.0;
  }
  CU_ASSERT_FATAL(cryo_landice_volume(&t.b, &t.s, &t.ops, &v1, &err) == CRYO_OK);
  double dmax = 0.0;
  for (int j = 0; j < t.b.ny; ++j)
    for (int i = 0; i < t.b.nx; ++i) {
      long c = CRYO_CELL(&t.b, i, j);
      dmax = fmax(dmax, fabs(t.s.thk[c] - h0[c]));
    }
  printf("\n  volume %.15e -> %.15e, rel change %.3e, sub-steps %d, min H %.3e, max |dH| %.1f", v0,
         v1, fabs(v1 - v0) / v0, nsub, min_thk(&t), dmax);
  CU_ASSERT(fabs(v1 - v0) <= 1e-12 * v0);
  CU_ASSERT(all_pos);
  CU_ASSERT(nsub > 1);
  CU_ASSERT(dmax > 1.0);
  free(h0);
  test_li_free(&t.p, &t.s);
}

static void centroid(const tcase *t, double *cx, double *cy) {
  double m = 0.0, mx = 0.0, my = 0.0;
  for (int j = 0; j < t->b.ny; ++j)
    for (int i = 0; i < t->b.nx; ++i) {
      double h = t->s.thk[CRYO_CELL(&t->b, i, j)];
      m += h;
      mx += h * (i + 0.5) * t->b.dx;
      my += h * (j + 0.5) * t->b.dy;
    }
  *cx = mx / m;
  *cy = my / m;
}

static void test_translation(void) {
  tcase t;
  tcase_init(&t, 40, 40, 1000.0, 1000.0);
  cryo_err err;
  cryo_err_clear(&err);
  for (int j = -1; j <= t.b.ny; ++j)
    for (int i = -1; i <= t.b.nx; ++i) {
      double x = (i + 0.5 - 20.0), y = (j + 0.5 - 20.0);
      t.s.thk[CRYO_CELL(&t.b, i, j)] = 500.0 * exp(-(x * x + y * y) / 8.0);
    }
  for (long e = 0; e < CRYO_NNODE(&t.b); ++e) {
    t.s.ubar[2 * e] = 1000.0;
    t.s.ubar[2 * e + 1] = -500.0;
  }
  double x0, y0, x1, y1;
  centroid(&t, &x0, &y0);
  t.p.dt = 0.5 * CRYO_LANDICE_YEAR;
  int nsub = 0;
  CU_ASSERT_FATAL(cryo_landice_evolve_thickness(&t.b, &t.p, &t.s, &t.ops, &nsub, &err) == CRYO_OK);
  centroid(&t, &x1, &y1);
  printf("\n  centroid moved (%.9f, %.9f) m in %d sub-steps", x1 - x0, y1 - y0, nsub);
  CU_ASSERT(fabs(x1 - x0 - 500.0) <= 1e-6);
  CU_ASSERT(fabs(y1 - y0 + 250.0) <= 1e-6);
  CU_ASSERT(nsub > 1);
  test_li_free(&t.p, &t.s);
}

static void test_melt_clip(void) {
  tcase t;
  tcase_init(&t, 6, 5, 1000.0, 1000.0);
  cryo_err err;
  cryo_err_clear(&err);
  for (long e = 0; e < CRYO_NCELL(&t.b); ++e) {
    t.s.thk[e] = 200.0;
    t.s.basal_melt[e] = 300.0;
  }
  t.p.dt = 86400.0;
  int ok = 1;
  for (int d = 0; d < 365; ++d) {
    ok &= cryo_landice_evolve_thickness(&t.b, &t.p, &t.s, &t.ops, NULL, &err) == CRYO_OK;
    ok &= min_thk(&t) >= 0.0;
  }
  CU_ASSERT(ok);
  double hmax = 0.0;
  for (int j = 0; j < t.b.ny; ++j)
    for (int i = 0; i < t.b.nx; ++i)
      hmax = fmax(hmax, t.s.thk[CRYO_CELL(&t.b, i, j)]);
  CU_ASSERT(hmax == 0.0);
  test_li_free(&t.p, &t.s);
}

/* One step of calving with ice at rest; returns how many east cells kept
 * their ice, and checks the budget and the west half. */
static int calve(int floating) {
  tcase t;
  tcase_init_as(&t, 8, 4, 1000.0, 1000.0, 1);
  cryo_err err;
  cryo_err_clear(&err);
  t.p.calve_floating = floating;
  for (long e = 0; e < CRYO_NNODE(&t.b); ++e)
    t.s.bed[e] = -500.0;
  for (int j = -1; j <= t.b.ny; ++j)
    for (int i = -1; i <= t.b.nx; ++i) {
      const long c = CRYO_CELL(&t.b, i, j);
      t.s.thk[c] = (i + j) % 2 ? 600.0 : 500.0;
      t.s.calving_mask[c] = i < t.b.nx / 2;
    }
  t.p.dt = CRYO_LANDICE_YEAR;
  CU_ASSERT_FATAL(cryo_landice_evolve_thickness(&t.b, &t.p, &t.s, &t.ops, NULL, &err) == CRYO_OK);
  int kept = 0, west = 1, budget = 1;
  for (int j = 0; j < t.b.ny; ++j)
    for (int i = 0; i < t.b.nx; ++i) {
      const long c = CRYO_CELL(&t.b, i, j);
      const double h0 = (i + j) % 2 ? 600.0 : 500.0;
      const double calved = t.s.budget[c * CRYO_LANDICE_BUDGET_COUNT + CRYO_LANDICE_BUDGET_CALVING];
      if (i < t.b.nx / 2) {
        west &= t.s.thk[c] == h0 && calved == 0.0;
        continue;
      }
      const int k = t.s.thk[c] == h0;
      kept += k;
      budget &= k ? calved == 0.0 : t.s.thk[c] == 0.0 && calved == h0;
      if (k) CU_ASSERT(floating && h0 == 600.0);
    }
  CU_ASSERT(west);
  CU_ASSERT(budget);
  test_li_free(&t.p, &t.s);
  return kept;
}

static void test_calving(void) {
  CU_ASSERT(calve(0) == 0);
  CU_ASSERT(calve(1) == 8); /* the 600 m half of the 16 east cells */
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite suite = CU_add_suite("landice_thickness", NULL, NULL);
  CU_add_test(suite, "mass conservation, H >= 0", test_conservation);
  CU_add_test(suite, "uniform translation", test_translation);
  CU_add_test(suite, "melt clipped at zero", test_melt_clip);
  CU_add_test(suite, "calving: all, or floating ice only", test_calving);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  int failures = (int)CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
