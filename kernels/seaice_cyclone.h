/* Mehlmann et al. (2021) cyclone benchmark forcing (docs/benchmarks.md), as pure
 * functions of a point (x, y) in m and a time t in s since the start, usable
 * in device kernels and in host forcing generators alike.
 *
 * Ocean: steady clockwise gyre u_o = 0.01 (2y/L - 1), v_o = 0.01 (1 - 2x/L).
 * Wind: vortex centred at c(t) = 256 km + 51.2 km/day t on the diagonal, with
 * s(r) = 30e-5 exp(-1e-5 r) s-1 and turning angle 72 degrees:
 * u_a = -s (cos a dx + sin a dy), v_a = -s (-sin a dx + cos a dy).
 */
#ifndef CRYO_SEAICE_CYCLONE_H
#define CRYO_SEAICE_CYCLONE_H

#include <math.h>

#define CRYO_CYCLONE_L      512.0e3                /* domain side, m */
#define CRYO_CYCLONE_C0     256.0e3                /* vortex centre at t = 0, m */
#define CRYO_CYCLONE_CSPEED (51.2e3 / 86400.0)     /* vortex speed along x and y, m s-1 */
#define CRYO_CYCLONE_COS    0.30901699437494742410 /* cos 72 deg */
#define CRYO_CYCLONE_SIN    0.95105651629515357212 /* sin 72 deg */

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline void cryo_cyclone_wind(double x, double y, double t, double *ua, double *va) {
  const double c = CRYO_CYCLONE_C0 + CRYO_CYCLONE_CSPEED * t;
  const double dx = x - c, dy = y - c;
  const double s = 30.0e-5 * exp(-1.0e-5 * sqrt(dx * dx + dy * dy));
  *ua = -s * (CRYO_CYCLONE_COS * dx + CRYO_CYCLONE_SIN * dy);
  *va = -s * (-CRYO_CYCLONE_SIN * dx + CRYO_CYCLONE_COS * dy);
}

#if defined(_OPENACC)
#pragma acc routine seq
#endif
static inline void cryo_cyclone_ocean(double x, double y, double *uo, double *vo) {
  *uo = 0.01 * (2.0 * y / CRYO_CYCLONE_L - 1.0);
  *vo = 0.01 * (1.0 - 2.0 * x / CRYO_CYCLONE_L);
}

#endif
