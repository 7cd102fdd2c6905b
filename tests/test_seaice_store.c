/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* The mEVP kernels with their per-cell state stored as float
 * (state_precision = 'single'; kernels/seaice_store.h, docs/seaice.md,
 * Storage precision) against the same kernels storing double, on one block
 * of 9 x 6 cells (dx = 8 km, dy = 6 km) with random velocity, tracers,
 * ice_mask (land, open water, ice) and a stress that float holds exactly.
 * The promise is that the float variants do the double arithmetic and round
 * once where they store, so each is checked to the bit:
 *
 * 1. Stress kernels, rectangles and general quadrilaterals, dG0 and dG1,
 *    fixed and adaptive alpha, double and single working precision: every
 *    stored coefficient (and alpha) is the double kernel's value rounded to
 *    float; land and open water untouched.
 * 2. Velocity kernels, the same cases: fed the same stress and alpha values
 *    (float arrays, and double arrays holding them), u and v are the same bits.
 * 3. The copies of a macro step: to float rounds each coefficient, back is exact.
 * 4. Macro steps of the cyclone (16 x 16 cells of 32 km, 6 steps): with single
 *    storage the double stress arrays hold float values after every step, u
 *    differs from the double-storage run (the option takes effect) by less
 *    than 1e-4 of the largest speed.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seaice.h"
#include "seaice_cyclone.h"
#include "test_seaice_common.h"

#define NX 9
#define NY 6

static unsigned long long rng_state = 2463534242ULL * 2654435761ULL;

/* uniform in [lo, hi) from xorshift64 */
static double rnd(double lo, double hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* A random state of the arrays the mEVP kernels read, for tracer order
 * p->tracer_order (and the geometry with p->quad): every cell of the block
 * including the ring is land, open water or ice; stress values are floats. */
static void random_state(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const long nc = CRYO_NCELL(b), nn = CRYO_NNODE(b);
  for (long n = 0; n < nn; ++n) {
    s->u[n] = s->u_n[n] = rnd(-0.2, 0.2);
    s->v[n] = s->v_n[n] = rnd(-0.2, 0.2);
    s->uair[n] = rnd(-15, 15), s->vair[n] = rnd(-15, 15);
    s->uocn[n] = rnd(-0.1, 0.1), s->vocn[n] = rnd(-0.1, 0.1);
    if (p->quad) s->fcor[n] = rnd(1.2e-4, 1.46e-4);
  }
  for (long c = 0; c < nc; ++c) {
    const double r = rnd(0, 1);
    s->ice_mask[c] = r < 0.1 ? 0.0 : r < 0.2 ? 1.0 : 2.0;
    s->mask[c] = s->ice_mask[c] != 0.0;
    for (int k = 0; k < na; ++k) {
      s->h[c * na + k] = k ? rnd(-0.05, 0.05) : rnd(0.1, 2.0);
      s->a[c * na + k] = k ? rnd(-0.02, 0.02) : rnd(0.6, 1.0);
    }
    for (int k = 0; k < CRYO_SEAICE_NS; ++k) {
      s->s11[c * 3 + k] = (float)rnd(-3e4, 1e3);
      s->s12[c * 3 + k] = (float)rnd(-1e4, 1e4);
      s->s22[c * 3 + k] = (float)rnd(-3e4, 1e3);
    }
    if (p->quad) {
      /* a distorted cell of about dx x dy, its corner frames turned a little */
      double *g = s->geom + c * CRYO_SEAICE_NGEOM;
      g[CRYO_GEOM_A1X] = 0.5 * b->dx * rnd(0.9, 1.1),
      g[CRYO_GEOM_A1Y] = 0.5 * b->dx * rnd(-0.1, 0.1);
      g[CRYO_GEOM_A2X] = 0.5 * b->dy * rnd(-0.1, 0.1),
      g[CRYO_GEOM_A2Y] = 0.5 * b->dy * rnd(0.9, 1.1);
      g[CRYO_GEOM_A3X] = 0.5 * b->dx * rnd(-0.05, 0.05);
      g[CRYO_GEOM_A3Y] = 0.5 * b->dy * rnd(-0.05, 0.05);
      for (int k = 0; k < 4; ++k) {
        const double t = rnd(-0.2, 0.2);
        g[CRYO_GEOM_C00 + 2 * k] = cos(t), g[CRYO_GEOM_S00 + 2 * k] = sin(t);
      }
    }
  }
}

typedef struct {
  float *s[3], *alpha;
} float_state;

static float_state float_alloc(const cryo_block *b, cryo_seaice_state *s) {
  const long nc = CRYO_NCELL(b);
  float_state f;
  for (int k = 0; k < 3; ++k)
    f.s[k] = calloc((size_t)nc * CRYO_SEAICE_NS, sizeof(float));
  f.alpha = calloc((size_t)nc, sizeof(float));
  s->s11_f = f.s[0], s->s12_f = f.s[1], s->s22_f = f.s[2], s->alpha_evp_f = f.alpha;
  return f;
}

static void float_free(float_state *f, cryo_seaice_state *s) {
  for (int k = 0; k < 3; ++k)
    free(f->s[k]);
  free(f->alpha);
  s->s11_f = s->s12_f = s->s22_f = s->alpha_evp_f = NULL;
}

/* One stress and one velocity update with double storage (state s) and float storage (the
 * float arrays of s, filled from its stress first). Returns the number of stored values that
 * differ from what the promise says. */
static long compare_once(cryo_seaice_params p, const cryo_block *b, cryo_seaice_state *s) {
  const long nc = CRYO_NCELL(b), nn = CRYO_NNODE(b), ns = nc * CRYO_SEAICE_NS;
  float_state f = float_alloc(b, s);
  double *alpha = calloc((size_t)nc, sizeof(double));
  s->alpha_evp = p.adaptive_evp ? alpha : NULL;
  double *ice0 = malloc(ns * 3 * sizeof(double));
  for (int k = 0; k < 3; ++k) {
    double *sd = k == 0 ? s->s11 : k == 1 ? s->s12 : s->s22;
    memcpy(ice0 + k * ns, sd, ns * sizeof(double));
    for (long i = 0; i < ns; ++i)
      f.s[k][i] = (float)sd[i];
  }
  long bad = 0;
  /* 1. stress */
  cryo_seaice_params q = p;
  q.state_single = 1;
  if (p.quad) {
    cryo_seaice_quad_stress_kernel(&p, b, s);
    cryo_seaice_quad_stress_kernel_single(&q, b, s);
  } else {
    cryo_seaice_stress_kernel(&p, b, s->u, s->v, s->h, s->a, s->ice_mask, s->s11, s->s12, s->s22,
                              s->alpha_evp);
    cryo_seaice_stress_kernel_single(&q, b, s->u, s->v, s->h, s->a, s->ice_mask, f.s[0], f.s[1],
                                     f.s[2], f.alpha);
  }
  long changed = 0;
  for (int k = 0; k < 3; ++k) {
    const double *sd = k == 0 ? s->s11 : k == 1 ? s->s12 : s->s22;
    for (long i = 0; i < ns; ++i) {
      bad += f.s[k][i] != (float)sd[i];
      const int ice = s->ice_mask[i / CRYO_SEAICE_NS] == 2.0;
      changed += ice && sd[i] != ice0[k * ns + i];
      bad += !ice && sd[i] != ice0[k * ns + i];
    }
  }
  CU_ASSERT(changed > 0);
  if (p.adaptive_evp)
    for (long c = 0; c < nc; ++c)
      bad += s->ice_mask[c] == 2.0 && f.alpha[c] != (float)alpha[c];
  /* 2. velocity from the same stored values */
  for (int k = 0; k < 3; ++k) {
    double *sd = k == 0 ? s->s11 : k == 1 ? s->s12 : s->s22;
    for (long i = 0; i < ns; ++i)
      sd[i] = f.s[k][i];
  }
  for (long c = 0; c < nc; ++c)
    alpha[c] = f.alpha[c];
  double *u = malloc(nn * sizeof *u), *v = malloc(nn * sizeof *v);
  memcpy(u, s->u, nn * sizeof *u);
  memcpy(v, s->v, nn * sizeof *v);
  if (p.quad) {
    cryo_seaice_quad_velocity_kernel(&p, b, CRYO_SEAICE_NODES_ALL, s);
  } else {
    cryo_seaice_velocity_kernel(&p, b, CRYO_SEAICE_NODES_ALL, s->s11, s->s12, s->s22, s->h, s->a,
                                s->ice_mask, s->uair, s->vair, s->uocn, s->vocn, s->u_n, s->v_n, s,
                                s->u, s->v);
  }
  double *ud = s->u, *vd = s->v;
  s->u = u, s->v = v;
  if (p.quad) {
    cryo_seaice_quad_velocity_kernel_single(&q, b, CRYO_SEAICE_NODES_ALL, s);
  } else {
    cryo_seaice_velocity_kernel_single(&q, b, CRYO_SEAICE_NODES_ALL, f.s[0], f.s[1], f.s[2], s->h,
                                       s->a, s->ice_mask, s->uair, s->vair, s->uocn, s->vocn,
                                       s->u_n, s->v_n, s, u, v);
  }
  long moved = 0;
  for (long n = 0; n < nn; ++n) {
    bad += memcmp(&u[n], &ud[n], sizeof *u) != 0 || memcmp(&v[n], &vd[n], sizeof *v) != 0;
    moved += ud[n] != s->u_n[n];
  }
  CU_ASSERT(moved > 0);
  s->u = ud, s->v = vd;
  free(u), free(v), free(ice0), free(alpha);
  s->alpha_evp = NULL;
  float_free(&f, s);
  return bad;
}

static void kernels_bitwise(void) {
  const cryo_block b = test_si_block(NX, NY, 8000.0, 6000.0);
  long cases = 0;
  for (int quad = 0; quad <= 1; ++quad)
    for (int order = 0; order <= 1; ++order)
      for (int adaptive = 0; adaptive <= 1; ++adaptive)
        for (int working = 0; working <= 1; ++working) {
          if (quad && working) continue; /* the quadrilateral stress works in double only */
          cryo_seaice_params p;
          cryo_seaice_params_cyclone(&p);
          p.alpha = p.beta = 7.0;
          p.quad = quad;
          p.tracer_order = order;
          p.adaptive_evp = adaptive;
          p.stress_single = working;
          cryo_seaice_state s;
          test_si_state_alloc(&p, &b, &s);
          random_state(&p, &b, &s);
          const long bad = compare_once(p, &b, &s);
          if (bad)
            printf("\n  %s, dG%d, %s alpha, %s arithmetic: %ld values differ",
                   quad ? "quadrilaterals" : "rectangles", order, adaptive ? "adaptive" : "fixed",
                   working ? "single" : "double", bad);
          CU_ASSERT_EQUAL(bad, 0);
          test_si_state_free(&p, &s);
          ++cases;
        }
  CU_ASSERT_EQUAL(cases, 12);
}

static void copies(void) {
  const cryo_block b = test_si_block(NX, NY, 8000.0, 6000.0);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  float_state f = float_alloc(&b, &s);
  const long ns = CRYO_NCELL(&b) * CRYO_SEAICE_NS;
  double *ref[3] = {s.s11, s.s12, s.s22};
  for (int k = 0; k < 3; ++k)
    for (long i = 0; i < ns; ++i)
      ref[k][i] = rnd(-3e4, 3e4);
  cryo_seaice_stress_to_single(&b, &s);
  long bad = 0, inexact = 0;
  for (int k = 0; k < 3; ++k)
    for (long i = 0; i < ns; ++i) {
      bad += f.s[k][i] != (float)ref[k][i];
      inexact += (double)f.s[k][i] != ref[k][i];
      ref[k][i] = 0.0;
    }
  CU_ASSERT(inexact > 0); /* the doubles were not floats already */
  cryo_seaice_stress_from_single(&b, &s);
  for (int k = 0; k < 3; ++k)
    for (long i = 0; i < ns; ++i)
      bad += ref[k][i] != (double)f.s[k][i];
  CU_ASSERT_EQUAL(bad, 0);
  float_free(&f, &s);
  test_si_state_free(&p, &s);
}

static void macro_steps(void) {
  const int n = 16, steps = 6;
  const cryo_block b = test_si_block(n, n, CRYO_CYCLONE_L / n, CRYO_CYCLONE_L / n);
  cryo_seaice_params p, q;
  cryo_seaice_params_cyclone(&p);
  q = p;
  q.state_single = 1;
  cryo_seaice_state r, s;
  test_si_state_alloc(&p, &b, &r);
  test_si_state_alloc(&q, &b, &s);
  float_state f = float_alloc(&b, &s);
  for (long c = 0; c < CRYO_NCELL(&b); ++c)
    if (r.mask[c] != 0.0) r.h[c] = s.h[c] = 0.3, r.a[c] = s.a[c] = 1.0;
  const long ns = CRYO_NCELL(&b) * CRYO_SEAICE_NS;
  long not_float = 0;
  for (int step = 0; step < steps; ++step) {
    cryo_seaice_forcing_cyclone(&b, step * p.dt, r.uair, r.vair, r.uocn, r.vocn);
    cryo_seaice_forcing_cyclone(&b, step * p.dt, s.uair, s.vair, s.uocn, s.vocn);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&p, &b, &r, &test_si_ops), 0);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_step(&q, &b, &s, &test_si_ops), 0);
    for (long i = 0; i < ns; ++i)
      not_float += (double)(float)s.s11[i] != s.s11[i] || (double)(float)s.s12[i] != s.s12[i] ||
                   (double)(float)s.s22[i] != s.s22[i];
  }
  double du = 0.0, umax = 0.0;
  for (long k = 0; k < CRYO_NNODE(&b); ++k) {
    du = fmax(du, hypot(s.u[k] - r.u[k], s.v[k] - r.v[k]));
    umax = fmax(umax, hypot(r.u[k], r.v[k]));
  }
  printf("\n  cyclone, %d steps: single storage moves u, v by %.1e of the largest speed %.3f m/s",
         steps, du / umax, umax);
  CU_ASSERT_EQUAL(not_float, 0);
  CU_ASSERT(du > 0.0 && du <= 1e-4 * umax && umax > 0.01);
  float_free(&f, &s);
  test_si_state_free(&p, &r);
  test_si_state_free(&q, &s);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite suite = CU_add_suite("mEVP state stored as float", NULL, NULL);
  CU_add_test(suite, "float-storing kernels = double kernels rounded once", kernels_bitwise);
  CU_add_test(suite, "copies to float and back", copies);
  CU_add_test(suite, "cyclone macro steps with single storage", macro_steps);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
