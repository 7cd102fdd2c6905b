/* The type in which the mEVP sub-cycle stores its per-cell state: the stress
 * dG coefficients and the adaptive EVP's alpha (docs/seaice.md, Storage
 * precision). The mEVP kernel files (seaice_stress.c, seaice_velocity.c,
 * seaice_quad.c) are written once against seaice_store and compiled twice: as
 * they are (double, the state arrays of cryo_seaice_state) and through their
 * *_single.c wrappers, which define CRYO_SEAICE_STORE_SINGLE first (float, the
 * state's *_f arrays, functions named *_single). The arithmetic is the same
 * in both: values are read into double (or the stress_precision type) and
 * rounded once where they are stored. */
#ifndef CRYO_SEAICE_STORE_H
#define CRYO_SEAICE_STORE_H

#if defined(CRYO_SEAICE_STORE_SINGLE)
typedef float seaice_store;
/* the state member of the stored field: s->s11_f */
#define SEAICE_STORED(s, field)     ((s)->field##_f)
#define SEAICE_STORE_NAME(function) function##_single
#else
typedef double seaice_store;
#define SEAICE_STORED(s, field)     ((s)->field)
#define SEAICE_STORE_NAME(function) function
#endif

#endif
