/* What the toy ocean (examples/toy_ocean.c) and the OASIS exchange test
 * (tests/oasis_exchange_comp.c) send each other: field names of
 * namelists/namcouple_seaice_toyocean, the ocean's steady gyre, and the value
 * pattern the test sends so that the receiver can check every value exactly.
 * Both programs evaluate the same inline functions, so equal inputs give equal
 * bits on both sides of the coupler. */
#ifndef TOY_OCEAN_FIELDS_H
#define TOY_OCEAN_FIELDS_H

#include <math.h>

/* Ocean -> ice: surface current components (m s-1), NEMO-style names. */
#define TOY_NOCN 2
static const char *const toy_ocn_send[TOY_NOCN] = {"O_OCurx1", "O_OCury1"};
static const char *const toy_ice_recv[TOY_NOCN] = {"I_OCurx1", "I_OCury1"};

/* Ice -> ocean: ice velocity x, y (m s-1), concentration (1), thickness (m), and
 * ice-ocean stress on the ocean x, y (N m-2). */
#define TOY_NICE 6
static const char *const toy_ice_send[TOY_NICE] = {"I_IceVx1", "I_IceVy1", "I_IceFrc",
                                                   "I_IceTck", "I_OTaux1", "I_OTauy1"};
static const char *const toy_ocn_recv[TOY_NICE] = {"O_IceVx1", "O_IceVy1", "O_IceFrc",
                                                   "O_IceTck", "O_OTaux1", "O_OTauy1"};
enum { TOY_ICE_U, TOY_ICE_V, TOY_ICE_FRC, TOY_ICE_TCK, TOY_ICE_TAUX, TOY_ICE_TAUY };

/* Steady single gyre on the unit square of nx x ny cell centres: stream function
 * psi = u0 sin(pi x) sin(pi y), u = -dpsi/dy, v = dpsi/dx (non-divergent). */
static inline void toy_gyre(int i, int j, int nx, int ny, double u0 /* m s-1 */,
                            double *u /* m s-1 */, double *v /* m s-1 */) {
  const double pi = 3.14159265358979323846;
  double x = (i + 0.5) / nx, y = (j + 0.5) / ny;
  *u = -u0 * sin(pi * x) * cos(pi * y);
  *v = u0 * cos(pi * x) * sin(pi * y);
}

/* Test value of ice field k at coupling step `step` and global point g of a grid of
 * npoints points: an integer below 2^53 (exact in double) unique per (k, step, g). */
static inline double toy_pattern(int k, int step, long g, long npoints) {
  return (double)(((long)(k + 1) * 100000 + step) * npoints + g);
}

#endif
