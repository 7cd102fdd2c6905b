/* Elementary functions inline in the kernels (docs/performance.md, section
 * "Land-ice element kernels"): GCC's nvptx code calls the C library for exp,
 * fmax and fmin,
 * and around every call the GPU saves the caller's live registers to local
 * memory, while newlib's exp spills on its own. One source for CPU and GPU:
 * the host runs the same arithmetic, so results agree across builds as
 * closely as every other kernel's. */
#ifndef CRYO_MATH_H
#define CRYO_MATH_H

#define CRYO_PI 3.14159265358979323846

#if defined(_OPENACC)
#define CRYO_MATH_ROUTINE _Pragma("acc routine seq")
#else
#define CRYO_MATH_ROUTINE
#endif

/* max and min as plain comparisons: fmax and fmin are library calls too.
 * (A NaN in x gives y.) */
CRYO_MATH_ROUTINE
static inline __attribute__((always_inline)) double cryo_max(double x, double y) {
  return x > y ? x : y;
}

CRYO_MATH_ROUTINE
static inline __attribute__((always_inline)) double cryo_min(double x, double y) {
  return x < y ? x : y;
}

/* x held within [lo, hi], a NaN x kept: a state bounded after each step must
 * not turn a failed step into a valid-looking one that the state check then
 * passes. Otherwise cryo_min(cryo_max(x, lo), hi) to the bit. */
CRYO_MATH_ROUTINE
static inline __attribute__((always_inline)) double cryo_bound(double x, double lo, double hi) {
  return x != x ? x : cryo_min(cryo_max(x, lo), hi);
}

/* exp(yh + yl) for |yh| < 700 and |yl| <= 1e-15 |yh| (a value with its
 * rounding error, or yl = 0): 2^k exp(r), r = yh - k ln 2 + yl with ln 2 in
 * two parts (Cody and Waite 1980), |r| <= ln 2 / 2 + |yl|, by the Taylor
 * series of exp(r) to r^14 (truncation below 1e-17 relative); 2^k built from
 * its bits. Within 2 ulp of the correctly rounded exp
 * (tests/test_seaice_stress.c). */
CRYO_MATH_ROUTINE
static inline __attribute__((always_inline)) double cryo_exp_split(double yh, double yl) {
  /* ln2_hi has 21 trailing zero bits: k ln2_hi is exact for |k| < 2^21 */
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  double kf = yh * 1.44269504088896340736;
  int k = (int)(kf + (kf >= 0.0 ? 0.5 : -0.5));
  double r = ((yh - (double)k * ln2_hi) + yl) - (double)k * ln2_lo;
  double ex = 1.0;
#pragma GCC unroll 16
  for (int j = 14; j >= 1; --j)
    ex = 1.0 + r * (ex * (1.0 / j));
  union {
    double d;
    unsigned long long u;
  } v;
  v.u = (unsigned long long)(k + 1023) << 52;
  return ex * v.d;
}

/* exp(y) for |y| < 700. */
CRYO_MATH_ROUTINE
static inline __attribute__((always_inline)) double cryo_exp(double y) {
  return cryo_exp_split(y, 0.0);
}

#endif
