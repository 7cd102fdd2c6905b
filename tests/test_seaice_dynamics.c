/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Tests of the sea-ice macro step (kernels/seaice_step.c) and its transport,
 * diagnostics and forcing kernels, on one non-periodic block with a no-op halo.
 *
 * 1. Free drift (P* = 0, wind (10, 0) m/s, ocean at rest, A = 1, 6x6 cells,
 *    periodic so that transport keeps h uniform, 3000 steps): every node reaches the analytic
 * steady state of docs/benchmarks.md, |U - U_exact| <= 1e-8 |U_exact|, for h = 0.3 m (|U| ~ 0.166
 * m/s, 2.4 deg to the right) and h = 2 m (~0.163 m/s, 15.9 deg).
 * 2. Mirror symmetry (16x16, square cells, f = 0, rheology on, wind and h
 *    symmetric about the diagonal): after 20 steps |u(i,j) - v(j,i)| and
 *    |v(i,j) - u(j,i)| <= 1e-10 max speed.
 * 3. Transport in a closed box with a land block (20x20, random node velocity
 *    nonzero even on walls and land, CFL <= 0.05 per direction, 40 steps):
 *    total h dx dy and a dx dy conserved to 1e-12 relative, h >= 0 and
 *    0 <= a <= 1 before any clipping.
 * 3b. The same for limited dG1 transport (15 steps, a <= 0.2 initially): totals
 *    to 1e-12 relative, corner values h >= -1e-15, -1e-15 <= a < 1 (no clipping).
 * 3c. A Gaussian bump (4 km wide, 1 km cells) carried once around a periodic
 *    domain: L1 error of limited dG1 < 1/4 of dG0's.
 * 4. Diagnostic rates of a linear velocity field equal its exact divergence and
 *    shear to 1e-12 relative; node averages of a linear cell field are exact
 *    to 1e-12 relative.
 * 5. Cyclone (32x32 cells of 16 km, analytic forcing, 240 steps = 8 h with
 *    dG0 tracers, 120 steps with dG1): all fields finite, max speed in
 *    (0.01, 0.5) m/s, mean h >= 0, 0 <= mean a <= 1, volume conserved to 1e-12
 *    relative.
 * 6. Restart (dG0 and dG1): 6 steps equal 3 steps, copy of the prognostic and
 *    static arrays into a fresh state, 3 steps, bit for bit in every
 *    prognostic array.
 * 7. Open water (dG0 and dG1; 16x16, ice in the west half, open water with
 *    leftover stress and velocity in the east, a land cell, and in the east
 *    one cell of concentration 2e-6 and one of 5e-7, either side of the
 *    default a_min = 1e-6): after one step, ice_mask is 0 on land and outside
 *    the domain, 2 where the mean concentration exceeds a_min, 1 elsewhere;
 *    every stress coefficient of open water is exactly 0; nodes with open
 *    water in all 4 cells have u = v = 0 exactly, and every node inside the
 *    ice moves.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seaice.h"
#include "test_seaice_common.h"
#include "seaice_cyclone.h"

static unsigned long long rng_state = 2463534242ULL;

static double rnd(double lo, double hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void free_drift(double hice) {
  cryo_block b = test_si_block(6, 6, 8000.0, 8000.0);
  b.periodic_x = b.periodic_y = 1;
  const cryo_comm_ops periodic = {&b, test_si_halo_periodic, test_si_sum_none, test_si_max_none};
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.pstar = 0.0;
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  for (long c = 0; c < CRYO_NCELL(&b); ++c) {
    s.mask[c] = 1.0;
    s.h[c] = hice;
    s.a[c] = 1.0;
  }
  for (long n = 0; n < CRYO_NNODE(&b); ++n)
    s.uair[n] = 10.0;
  for (int step = 0; step < 3000; ++step)
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &s, &periodic), 0);

  const double ta = p.rho_air * p.c_air * 100.0, k = p.rho_ocean * p.c_ocean;
  const double m = p.rho_ice * hice * p.coriolis;
  const double speed = sqrt((-m * m + sqrt(m * m * m * m + 4.0 * k * k * ta * ta)) / (2.0 * k * k));
  const double theta = atan(m / (k * speed));
  const double ue = speed * cos(theta), ve = -speed * sin(theta);
  double err = 0.0;
  for (int j = 0; j <= b.ny; ++j)
    for (int i = 0; i <= b.nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      err = fmax(err, hypot(s.u[n] - ue, s.v[n] - ve));
    }
  CU_ASSERT(err <= 1e-8 * speed);
  CU_ASSERT(fabs(speed - (hice < 1 ? 0.166 : 0.163)) < 0.0005);
  CU_ASSERT(fabs(theta * 45.0 / atan(1.0) - (hice < 1 ? 2.4 : 15.9)) < 0.05);
  test_si_state_free(&p, &s);
}

static void test_free_drift_thin(void) {
  free_drift(0.3);
}

static void test_free_drift_thick(void) {
  free_drift(2.0);
}

static void test_mirror_symmetry(void) {
  const int nx = 16;
  cryo_block b = test_si_block(nx, nx, 8000.0, 8000.0);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.coriolis = 0.0;
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const double x = (i + 0.5) * b.dx, y = (j + 0.5) * b.dy;
      s.h[c] = 0.3 + 0.05 * (sin(6e-5 * x) + sin(6e-5 * y));
      s.a[c] = 0.95 + 0.02 * (cos(1e-4 * x) + cos(1e-4 * y));
    }
  /* wind swirling about (0.35 L, 0.35 L), symmetric under (x,y,u,v) -> (y,x,v,u) */
  const double xc = 0.35 * nx * b.dx, ca = cos(1.2), sa = sin(1.2);
  for (int j = -1; j <= nx + 1; ++j)
    for (int i = -1; i <= nx + 1; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      const double dx = i * b.dx - xc, dy = j * b.dy - xc;
      const double sr = 3e-4 * exp(-2e-5 * sqrt(dx * dx + dy * dy));
      s.uair[n] = -sr * (ca * dx + sa * dy);
      s.vair[n] = -sr * (sa * dx + ca * dy);
    }
  for (int step = 0; step < 20; ++step)
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &s, &test_si_ops), 0);
  double vmax = 0.0, asym = 0.0;
  for (int j = 0; j <= nx; ++j)
    for (int i = 0; i <= nx; ++i) {
      const long n = CRYO_NODE(&b, i, j), t = CRYO_NODE(&b, j, i);
      vmax = fmax(vmax, hypot(s.u[n], s.v[n]));
      asym = fmax(asym, fmax(fabs(s.u[n] - s.v[t]), fabs(s.v[n] - s.u[t])));
    }
  CU_ASSERT(vmax > 0.01);
  CU_ASSERT(asym <= 1e-10 * vmax);
  test_si_state_free(&p, &s);
}

static void test_transport(void) {
  const int nx = 20;
  cryo_block b = test_si_block(nx, nx, 5000.0, 5000.0);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.dt = 500.0;
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  for (int j = 8; j < 11; ++j)
    for (int i = 5; i < 8; ++i)
      s.mask[CRYO_CELL(&b, i, j)] = 0.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      s.h[c] = s.mask[c] * rnd(0.0, 2.0);
      s.a[c] = s.mask[c] * rnd(0.0, 0.2);
    }
  const double umax = 0.05 * b.dx / p.dt;
  for (long n = 0; n < CRYO_NNODE(&b); ++n) {
    s.u[n] = rnd(-umax, umax);
    s.v[n] = rnd(-umax, umax);
  }
  double vol0, area0, speed;
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol0, &area0, &speed), 0);
  double hmin = 0.0, amin = 0.0, amax = 0.0;
  for (int step = 0; step < 40; ++step) {
    cryo_seaice_advect_kernel(&p, &b, s.u, s.v, s.mask, s.h, s.a, s.h_work, s.a_work);
    for (int j = 0; j < nx; ++j)
      for (int i = 0; i < nx; ++i) {
        const long c = CRYO_CELL(&b, i, j);
        hmin = fmin(hmin, s.h_work[c]);
        amin = fmin(amin, s.a_work[c]);
        amax = fmax(amax, s.a_work[c]);
      }
    cryo_seaice_advect_finish_kernel(&p, &b, s.h_work, s.a_work, s.h, s.a);
  }
  double vol, area;
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol, &area, &speed), 0);
  CU_ASSERT(fabs(vol - vol0) <= 1e-12 * vol0);
  CU_ASSERT(fabs(area - area0) <= 1e-12 * area0);
  CU_ASSERT(hmin >= 0.0);
  CU_ASSERT(amin >= 0.0 && amax <= 1.0);
  /* land stays empty */
  CU_ASSERT_EQUAL(s.h[CRYO_CELL(&b, 6, 9)], 0.0);
  test_si_state_free(&p, &s);
}

/* corner extremes of a linear dG1 field in cell c */
static double corner_min(const double *q, long c) {
  return q[c * 3] - fabs(q[c * 3 + 1]) - fabs(q[c * 3 + 2]);
}
static double corner_max(const double *q, long c) {
  return q[c * 3] + fabs(q[c * 3 + 1]) + fabs(q[c * 3 + 2]);
}

static void test_transport_dg1(void) {
  const int nx = 20;
  cryo_block b = test_si_block(nx, nx, 5000.0, 5000.0);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.dt = 500.0;
  p.tracer_order = 1;
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  for (int j = 8; j < 11; ++j)
    for (int i = 5; i < 8; ++i)
      s.mask[CRYO_CELL(&b, i, j)] = 0.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      s.h[c * 3] = s.mask[c] * rnd(0.5, 2.0);
      s.a[c * 3] = s.mask[c] * rnd(0.05, 0.2);
      for (int k = 1; k < 3; ++k) {
        s.h[c * 3 + k] = s.mask[c] * rnd(-0.2, 0.2);
        s.a[c * 3 + k] = s.mask[c] * rnd(-0.05, 0.05);
      }
    }
  const double umax = 0.05 * b.dx / p.dt;
  for (long n = 0; n < CRYO_NNODE(&b); ++n) {
    s.u[n] = rnd(-umax, umax);
    s.v[n] = rnd(-umax, umax);
  }
  double vol0, area0, vol, area, speed;
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol0, &area0, &speed), 0);
  double lo_h = 1.0, lo_a = 1.0, hi_a = 0.0;
  for (int step = 0; step < 15; ++step) {
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&p, &b, &s, &test_si_ops), 0);
    for (int j = 0; j < nx; ++j)
      for (int i = 0; i < nx; ++i) {
        const long c = CRYO_CELL(&b, i, j);
        if (s.mask[c] == 0.0) continue;
        lo_h = fmin(lo_h, corner_min(s.h, c));
        lo_a = fmin(lo_a, corner_min(s.a, c));
        hi_a = fmax(hi_a, corner_max(s.a, c));
      }
  }
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol, &area, &speed), 0);
  CU_ASSERT(fabs(vol - vol0) <= 1e-12 * vol0);
  CU_ASSERT(fabs(area - area0) <= 1e-12 * area0);
  CU_ASSERT(lo_h >= -1e-15);
  CU_ASSERT(lo_a >= -1e-15 && hi_a < 1.0);
  CU_ASSERT_EQUAL(s.h[CRYO_CELL(&b, 6, 9) * 3], 0.0);
  test_si_state_free(&p, &s);
}

/* L1 error of the cell means after carrying a Gaussian bump once around a
 * periodic 32x32 domain (1 km cells) with uniform velocity (0.1, 0.1) m/s. */
static double bump_error(int order) {
  const int nx = 32;
  cryo_block b = test_si_block(nx, nx, 1000.0, 1000.0);
  b.periodic_x = b.periodic_y = 1;
  const cryo_comm_ops periodic = {&b, test_si_halo_periodic, test_si_sum_none, test_si_max_none};
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.tracer_order = order;
  p.dt = 1000.0;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  const double L = nx * b.dx, w = 4.0 * b.dx;
  for (long c = 0; c < CRYO_NCELL(&b); ++c)
    s.mask[c] = 1.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const double x = (i + 0.5) * b.dx - 0.5 * L, y = (j + 0.5) * b.dy - 0.5 * L;
      s.h[c * na] = exp(-(x * x + y * y) / (w * w));
      s.a[c * na] = 0.5;
    }
  double *h0 = malloc(CRYO_NCELL(&b) * na * sizeof(double));
  memcpy(h0, s.h, CRYO_NCELL(&b) * na * sizeof(double));
  for (long n = 0; n < CRYO_NNODE(&b); ++n) {
    s.u[n] = 0.1;
    s.v[n] = 0.1;
  }
  /* 320 steps of 1000 s move the bump by (32, 32) km: back to its start */
  double *tracers[2] = {s.h, s.a};
  for (int step = 0; step < 320; ++step) {
    test_si_halo_periodic(&b, CRYO_AT_CELL, na, 2, tracers);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&p, &b, &s, &periodic), 0);
  }
  double err = 0.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j) * na;
      err += fabs(s.h[c] - h0[c]);
    }
  free(h0);
  test_si_state_free(&p, &s);
  return err;
}

static void test_transport_order(void) {
  const double e0 = bump_error(0), e1 = bump_error(1);
  CU_ASSERT(e1 < 0.25 * e0);
}

static void test_diag_and_forcing(void) {
  const int nx = 5;
  cryo_block b = test_si_block(nx, nx, 3000.0, 3000.0);
  b.dy = 4000.0;
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  const double e1 = 2e-6, e2 = -5e-7, g1 = 3e-7, g2 = 1e-6;
  for (int j = -1; j <= nx + 1; ++j)
    for (int i = -1; i <= nx + 1; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      const double x = i * b.dx, y = j * b.dy;
      s.u[n] = 0.1 + e1 * x + g1 * y;
      s.v[n] = -0.05 + g2 * x + e2 * y;
    }
  cryo_seaice_diag_rates(&b, s.u, s.v, s.mask, s.shear, s.divergence);
  const double div = e1 + e2, shear = sqrt((e1 - e2) * (e1 - e2) + (g1 + g2) * (g1 + g2));
  double ed = 0.0, es = 0.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      ed = fmax(ed, fabs(s.divergence[c] - div));
      es = fmax(es, fabs(s.shear[c] - shear));
    }
  CU_ASSERT(ed <= 1e-12 * fabs(div));
  CU_ASSERT(es <= 1e-12 * shear);

  /* linear cell fields average to exact node values */
  const long nc = CRYO_NCELL(&b);
  double *cf[4];
  for (int k = 0; k < 4; ++k)
    cf[k] = malloc(nc * sizeof(double));
  for (int j = -1; j <= nx; ++j)
    for (int i = -1; i <= nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const double x = (i + 0.5) * b.dx, y = (j + 0.5) * b.dy;
      for (int k = 0; k < 4; ++k)
        cf[k][c] = 1.0 + (k + 1) * 1e-4 * x - 2e-5 * y;
    }
  cryo_seaice_forcing_to_nodes(&b, cf[0], cf[1], cf[2], cf[3], s.uair, s.vair, s.uocn, s.vocn);
  double *nf[4] = {s.uair, s.vair, s.uocn, s.vocn}, ef = 0.0;
  for (int j = 0; j <= nx; ++j)
    for (int i = 0; i <= nx; ++i)
      for (int k = 0; k < 4; ++k) {
        const double exact = 1.0 + (k + 1) * 1e-4 * i * b.dx - 2e-5 * j * b.dy;
        ef = fmax(ef, fabs(nf[k][CRYO_NODE(&b, i, j)] - exact) / fabs(exact));
      }
  CU_ASSERT(ef <= 1e-12);
  for (int k = 0; k < 4; ++k)
    free(cf[k]);

  /* the forcing kernel evaluates the cyclone functions at the node positions */
  b.i0 = 7;
  b.j0 = 3;
  cryo_seaice_forcing_cyclone(&b, 3600.0, s.uair, s.vair, s.uocn, s.vocn);
  double ua, va, uo, vo;
  cryo_cyclone_wind((7 + 2) * b.dx, (3 + 4) * b.dy, 3600.0, &ua, &va);
  cryo_cyclone_ocean((7 + 2) * b.dx, (3 + 4) * b.dy, &uo, &vo);
  const long n = CRYO_NODE(&b, 2, 4);
  CU_ASSERT(s.uair[n] == ua && s.vair[n] == va && s.uocn[n] == uo && s.vocn[n] == vo);
  test_si_state_free(&p, &s);
}

/* cyclone initial state (docs/benchmarks.md); dG1 slopes from the exact gradient at the centre */
static void cyclone_init(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const double x = (i + 0.5) * b->dx, y = (j + 0.5) * b->dy;
      s->h[c * na] = 0.3 + 0.005 * (sin(6e-5 * x) + sin(3e-5 * y));
      s->a[c * na] = 1.0;
      if (na == 3) {
        s->h[c * 3 + 1] = 0.5 * b->dx * 0.005 * 6e-5 * cos(6e-5 * x);
        s->h[c * 3 + 2] = 0.5 * b->dy * 0.005 * 3e-5 * cos(3e-5 * y);
      }
    }
}

static void cyclone(int order, int steps) {
  const int nx = 32;
  cryo_block b = test_si_block(nx, nx, CRYO_CYCLONE_L / nx, CRYO_CYCLONE_L / nx);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.tracer_order = order;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  cyclone_init(&p, &b, &s);
  double vol0, area0, speed;
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol0, &area0, &speed), 0);
  for (int step = 0; step < steps; ++step) {
    cryo_seaice_forcing_cyclone(&b, step * p.dt, s.uair, s.vair, s.uocn, s.vocn);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &s, &test_si_ops), 0);
  }
  double vol, area;
  CU_ASSERT_EQUAL(cryo_seaice_diag_totals(&p, &b, &s, &test_si_ops, &vol, &area, &speed), 0);
  int finite = 1, bounded = 1;
  for (long n = 0; n < CRYO_NNODE(&b); ++n)
    finite &= isfinite(s.u[n]) && isfinite(s.v[n]);
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      for (int k = 0; k < 3; ++k)
        finite &=
            isfinite(s.s11[c * 3 + k]) && isfinite(s.s12[c * 3 + k]) && isfinite(s.s22[c * 3 + k]);
      bounded &= s.h[c * na] >= 0.0 && s.a[c * na] >= 0.0 && s.a[c * na] <= 1.0;
    }
  CU_ASSERT(finite);
  CU_ASSERT(bounded);
  CU_ASSERT(speed > 0.01 && speed < 0.5);
  CU_ASSERT(fabs(vol - vol0) <= 1e-12 * vol0);
  test_si_state_free(&p, &s);
}

static void test_cyclone(void) {
  cyclone(0, 240);
}

static void test_cyclone_dg1(void) {
  cyclone(1, 120);
}

static void run_cyclone(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                        int first, int count) {
  for (int step = first; step < first + count; ++step) {
    cryo_seaice_forcing_cyclone(b, step * p->dt, s->uair, s->vair, s->uocn, s->vocn);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(p, b, s, &test_si_ops), 0);
  }
}

static void restart(int order) {
  const int nx = 32;
  cryo_block b = test_si_block(nx, nx, CRYO_CYCLONE_L / nx, CRYO_CYCLONE_L / nx);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.tracer_order = order;
  cryo_seaice_state s1, s2, s3;
  test_si_state_alloc(&p, &b, &s1);
  test_si_state_alloc(&p, &b, &s2);
  test_si_state_alloc(&p, &b, &s3);
  cyclone_init(&p, &b, &s1);
  cyclone_init(&p, &b, &s2);
  run_cyclone(&p, &b, &s1, 0, 6);
  run_cyclone(&p, &b, &s2, 0, 3);
  const cryo_seaice_array_info *t;
  const int n = cryo_seaice_arrays(&p, &t);
  for (int k = 0; k < n; ++k)
    if (t[k].role == CRYO_SEAICE_PROGNOSTIC || t[k].role == CRYO_SEAICE_STATIC)
      memcpy(*test_si_member(&s3, &t[k]), *test_si_member(&s2, &t[k]),
             test_si_length(&b, &t[k]) * sizeof(double));
  run_cyclone(&p, &b, &s3, 3, 3);
  for (int k = 0; k < n; ++k)
    if (t[k].role == CRYO_SEAICE_PROGNOSTIC)
      CU_ASSERT(!memcmp(*test_si_member(&s1, &t[k]), *test_si_member(&s3, &t[k]),
                        test_si_length(&b, &t[k]) * sizeof(double)));
  test_si_state_free(&p, &s1);
  test_si_state_free(&p, &s2);
  test_si_state_free(&p, &s3);
}

static void test_restart(void) {
  restart(0);
  restart(1);
}

static void open_water(int order) {
  const int nx = 16;
  cryo_block b = test_si_block(nx, nx, 8000.0, 8000.0);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.tracer_order = order;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  const long land = CRYO_CELL(&b, 3, 12), trace = CRYO_CELL(&b, 12, 5), wisp = CRYO_CELL(&b, 13, 9);
  s.mask[land] = 0.0;
  for (int j = 0; j < nx; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const int ice = i < nx / 2 && c != land;
      s.h[c * na] = ice ? 1.0 + 0.01 * j : 0.0;
      s.a[c * na] = ice ? 0.9 : 0.0;
      for (int k = 0; k < 9; ++k) /* stress left behind by ice that has gone */
        (k < 3 ? s.s11 : k < 6 ? s.s12 : s.s22)[c * 3 + k % 3] = ice ? 0.0 : 1e3 * (k + 1);
    }
  s.a[trace * na] = 2e-6, s.h[trace * na] = 1e-6;
  s.a[wisp * na] = 5e-7, s.h[wisp * na] = 1e-6;
  for (int j = 1; j < nx; ++j)
    for (int i = 1; i < nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      s.u[n] = 0.05;
      s.v[n] = -0.02;
      s.uair[n] = 10.0;
    }
  CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &s, &test_si_ops), 0);
  int kinds = 1, zero_stress = 1, still = 1, moving = 1;
  for (int j = -1; j <= nx; ++j)
    for (int i = -1; i <= nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const int inside = i >= 0 && i < nx && j >= 0 && j < nx;
      const double want = !inside || c == land ? 0.0 : i < nx / 2 || c == trace ? 2.0 : 1.0;
      kinds &= s.ice_mask[c] == want;
      if (want == 1.0)
        for (int k = 0; k < 3; ++k)
          zero_stress &=
              s.s11[c * 3 + k] == 0.0 && s.s12[c * 3 + k] == 0.0 && s.s22[c * 3 + k] == 0.0;
    }
  for (int j = 1; j < nx; ++j)
    for (int i = 1; i < nx; ++i) {
      const long n = CRYO_NODE(&b, i, j), cur = CRYO_CELL(&b, i, j),
                 cll = CRYO_CELL(&b, i - 1, j - 1);
      const double kind =
          s.ice_mask[cur] * s.ice_mask[cur - 1] * s.ice_mask[cll] * s.ice_mask[cll + 1];
      if (kind == 1.0) still &= s.u[n] == 0.0 && s.v[n] == 0.0;
      if (i < nx / 2 && (i < 3 || i > 4 || j < 12 || j > 13))
        moving &= hypot(s.u[n], s.v[n]) > 1e-3;
    }
  CU_ASSERT(kinds);
  CU_ASSERT(zero_stress);
  CU_ASSERT(still);
  CU_ASSERT(moving);
  test_si_state_free(&p, &s);
}

static void test_open_water(void) {
  open_water(0);
  open_water(1);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("seaice_dynamics", NULL, NULL);
  CU_add_test(s, "free drift, h = 0.3 m", test_free_drift_thin);
  CU_add_test(s, "free drift, h = 2 m", test_free_drift_thick);
  CU_add_test(s, "mirror symmetry about the diagonal", test_mirror_symmetry);
  CU_add_test(s, "transport conserves and stays in bounds", test_transport);
  CU_add_test(s, "dG1 transport conserves and stays in bounds", test_transport_dg1);
  CU_add_test(s, "dG1 transport less diffusive than dG0", test_transport_order);
  CU_add_test(s, "diagnostic rates and forcing kernels", test_diag_and_forcing);
  CU_add_test(s, "cyclone 32x32, 8 hours", test_cyclone);
  CU_add_test(s, "cyclone 32x32, dG1 tracers, 4 hours", test_cyclone_dg1);
  CU_add_test(s, "restart bit for bit", test_restart);
  CU_add_test(s, "open water: no stress, no velocity", test_open_water);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
