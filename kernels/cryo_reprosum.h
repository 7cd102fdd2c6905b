/* Reproducible sums: order-independent, hence the same bits for any MPI
 * decomposition and any thread or GPU count (docs/design.md, Reproducibility).
 *
 * Every term x is cut into two integers on a common power-of-two grid chosen
 * from the global maximum |x| (an exact max reduction), so partial sums are
 * exact int64 sums that can be added in any order:
 *
 *   scale = cryo_fixed_scale(maxabs, nterms)      same on every rank
 *   loop:  cryo_fixed_split(x, scale, &hi, &lo);  hsum += hi; lsum += lo;
 *   ops->sum_int64 over ranks of {hsum, lsum}
 *   sum  = cryo_fixed_join(hsum, lsum, scale)
 *
 * Terms keep about 94 - log2(nterms) bits below maxabs; the result is that
 * exact integer sum rounded once to double. nterms must stay below 2^30.
 */
#ifndef CRYO_REPROSUM_H
#define CRYO_REPROSUM_H

#include <math.h>

/* Power of two 2^s such that nterms terms of magnitude <= maxabs, scaled by it,
 * sum to less than 2^62. Returns 0 for maxabs == 0 and NAN if maxabs is not finite. */
static inline double cryo_fixed_scale(double maxabs, long nterms) {
  if (!(maxabs < INFINITY)) return NAN;
  if (maxabs == 0.0) return 0.0;
  int e;
  frexp(maxabs, &e); /* maxabs < 2^e */
  int bits = 0;
  while ((1L << bits) < nterms + 1)
    ++bits;
  return ldexp(1.0, 61 - bits - e);
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline void cryo_fixed_split(double x, double scale, long long *hi, long long *lo) {
  double y = x * scale; /* exact: scale is a power of two */
  double h = trunc(y);  /* |h| < 2^62 */
  *hi = (long long)h;
  *lo = (long long)((y - h) * 4294967296.0); /* next 32 bits, y - h exact */
}

static inline double cryo_fixed_join(long long hi, long long lo, double scale) {
  if (scale == 0.0) return 0.0;
  if (scale != scale) return NAN;
  /* hi + lo / 2^32 in long double where it is wider, rounded once */
  long double s = (long double)hi + (long double)lo / 4294967296.0L;
  return (double)(s / (long double)scale);
}

#endif
