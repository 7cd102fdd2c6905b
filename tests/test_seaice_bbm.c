/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Uniaxial compression of a small box with the BBM stress and damage kernel
 * (kernels/seaice_bbm.c; docs/seaice.md, The BBM rheology).
 *
 * Setup: 4 x 4 cells of 1 km, h = 1 m, A = 1, undamaged, every cell with ice;
 * the velocity u = -r x, v = nu r y (r = 1e-6 s-1) on every node, held fixed,
 * is a uniaxial stress state: e11 = -r, e22 = nu r, e12 = 0, so that
 * K:e = ((1 - nu^2) e11, 0, 0) and the elastic response is
 *   s11 = h E e11 t,  s22 = s12 = 0,
 * E the model's Young's modulus (5.96e8 Pa) and nu its Poisson ratio (1/3).
 * P_0 is raised to 1e8 Pa so that the ridging pressure P_max = P_0 h^(5/2) is
 * never reached and the response stays purely elastic before failure. With
 * s22 = 0 the Mohr-Coulomb envelope tau + mu s_n = c h is met at
 *   |s11| = 2 c h / (1 - mu),  c = c_lab sqrt(L_lab / 1 km) = 2e4 Pa,
 * i.e. 133 333 N m-1 (mu = 0.7). Sub-steps of 1 s load by h E r dt_e =
 * 596 N m-1 each, 0.45 % of the failure stress.
 * Checks: (1) until the envelope is reached s11 = h E e11 t to 1e-12
 * relative (the first sub-step, from s_n = 0, which is not compressive, has
 * P~ = 0 and the factor lambda_0 / (lambda_0 + dt_e) = 1 - 1e-7), s22 and s12 below 1e-9 N m-1 and
 * the damage exactly 0; (2) the damage starts growing at the sub-step whose elastic stress first
 * exceeds the analytic failure stress (within one load increment), and the largest |s11| reached
 * stays within 1 % above it; (3) the damage stays in [0, 1] in every cell at every sub-step, and
 * rises above 0.5 by 2000 s under continued loading, while the damage holds the stress within 1 %
 * of the envelope (which does not depend on d). Second case, healing: a damage of 0.5 heals by dt /
 * t_h per macro step (t_h = 15 days) and cells without ice are set undamaged.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seaice.h"
#include "test_seaice_common.h"

#define RATE 1e-6 /* s-1 */

static void compression_setup(cryo_seaice_params *p, cryo_block *b, cryo_seaice_state *s) {
  cryo_seaice_params_cyclone(p);
  p->rheology = CRYO_SEAICE_RHEOLOGY_BBM;
  p->bbm_p0 = 1e8;
  *b = test_si_block(4, 4, 1000.0, 1000.0);
  test_si_state_alloc(p, b, s);
  s->damage = calloc((size_t)CRYO_NCELL(b), sizeof(double));
  for (long c = 0; c < CRYO_NCELL(b); ++c) {
    s->h[c] = 1.0;
    s->a[c] = 1.0;
    s->mask[c] = 1.0;
    s->ice_mask[c] = 2.0;
  }
  for (int j = -1; j <= b->ny + 1; ++j)
    for (int i = -1; i <= b->nx + 1; ++i) {
      const long n = CRYO_NODE(b, i, j);
      s->u[n] = -RATE * i * b->dx;
      s->v[n] = p->bbm_poisson * RATE * j * b->dy;
    }
}

static void test_uniaxial_compression(void) {
  cryo_seaice_params p;
  cryo_block b;
  cryo_seaice_state s;
  compression_setup(&p, &b, &s);
  const double dte = 1.0, hE = p.bbm_young; /* h = 1 m */
  const double coh = cryo_seaice_bbm_cohesion(&p, &b);
  CU_ASSERT_DOUBLE_EQUAL(coh, 2e6 * sqrt(0.1 / 1000.0), 1e-9);
  const double fail = 2.0 * coh / (1.0 - p.bbm_mu);
  const double step = hE * RATE * dte;
  int onset = -1;
  double peak = 0.0, dmin = 1.0, dmax = 0.0, s11_last = 0.0;
  for (int k = 1; k <= 2000; ++k) {
    cryo_seaice_bbm_stress_kernel(&p, &b, dte, &s);
    const long c0 = CRYO_CELL(&b, 1, 2);
    for (long c = 0; c < CRYO_NCELL(&b); ++c) {
      dmin = fmin(dmin, s.damage[c]);
      dmax = fmax(dmax, s.damage[c]);
      /* every cell the same state (uniform strain, to the rounding of the node velocities) */
      CU_ASSERT(fabs(s.damage[c] - s.damage[c0]) <= 1e-12);
    }
    const double s11 = s.s11[c0 * 3];
    peak = fmax(peak, -s11);
    s11_last = s11;
    if (onset < 0 && s.damage[c0] > 0.0) onset = k;
    if (onset < 0) {
      /* the first sub-step starts unstressed: s_n = 0 is not compressive, P~ = 0 */
      const double first = p.bbm_lambda0 / (p.bbm_lambda0 + dte);
      const double elastic = -hE * RATE * (k - 1 + first) * dte;
      CU_ASSERT(fabs(s11 - elastic) <= 1e-12 * fabs(elastic));
      CU_ASSERT(fabs(s.s22[c0 * 3]) < 1e-9 && fabs(s.s12[c0 * 3]) < 1e-9);
      CU_ASSERT(-elastic <= fail + step);
    }
  }
  /* the onset: the first sub-step whose elastic stress exceeds the envelope */
  CU_ASSERT_EQUAL(onset, (int)floor(fail / step) + 1);
  CU_ASSERT(peak >= fail && peak <= 1.01 * fail);
  CU_ASSERT(dmin >= 0.0 && dmax <= 1.0);
  CU_ASSERT(dmax > 0.5); /* continued loading breaks the ice */
  /* the envelope does not depend on d: damage holds the stress on it */
  CU_ASSERT(fabs(-s11_last - fail) <= 0.01 * fail);
  printf("\n  BBM uniaxial compression: failure stress %.1f N/m analytic, onset at sub-step %d "
         "(%.1f N/m elastic), peak %.1f N/m, after 2000 s damage %.4f and stress %.1f N/m\n",
         fail, onset, step * onset, peak, dmax, -s11_last);
  test_si_state_free(&p, &s);
  free(s.damage);
}

static void test_healing(void) {
  cryo_seaice_params p;
  cryo_block b;
  cryo_seaice_state s;
  compression_setup(&p, &b, &s);
  for (long c = 0; c < CRYO_NCELL(&b); ++c)
    s.damage[c] = 0.5;
  const long open = CRYO_CELL(&b, 2, 2);
  s.ice_mask[open] = 1.0;
  cryo_seaice_bbm_heal_kernel(&p, &b, &s);
  const double expect = 0.5 - p.dt / p.bbm_t_heal;
  CU_ASSERT_DOUBLE_EQUAL(s.damage[CRYO_CELL(&b, 0, 0)], expect, 1e-15);
  CU_ASSERT_EQUAL(s.damage[open], 0.0);
  /* healed to 0 and not below */
  for (int k = 0; k < 20000; ++k)
    cryo_seaice_bbm_heal_kernel(&p, &b, &s);
  CU_ASSERT_EQUAL(s.damage[CRYO_CELL(&b, 0, 0)], 0.0);
  test_si_state_free(&p, &s);
  free(s.damage);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("seaice_bbm", NULL, NULL);
  CU_add_test(s, "BBM uniaxial compression: elastic response and failure",
              test_uniaxial_compression);
  CU_add_test(s, "BBM healing", test_healing);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
