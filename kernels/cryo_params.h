/* The valid ranges of the numeric parameters of a dynamical core: one table
 * per core (kernels/seaice_params.c, kernels/landice_params.c), read both by
 * the namelist schema (component/cryo_config.c, so that a bad value is named
 * with its line) and by the core's own check of a params struct that a host
 * program filled in directly. */
#ifndef CRYO_PARAMS_H
#define CRYO_PARAMS_H

#include <stddef.h>

struct cryo_err;

typedef struct cryo_param_range {
  const char *key;   /* namelist key */
  size_t offset;     /* offsetof(params struct, member) */
  int is_int;        /* 1: an int member, 0: a double */
  double lo, hi;     /* the value must be finite and in [lo, hi] */
  const char *units; /* NULL when dimensionless */
} cryo_param_range;

/* The entry of `key` in the n entries of t, or NULL. */
const cryo_param_range *cryo_param_range_find(const cryo_param_range *t, int n, const char *key);

/* CRYO_ERR_RANGE naming the group ("&cryo_seaice"), key, value, range and
 * units of the first member of the params struct p outside its range. */
int cryo_param_ranges_check(const cryo_param_range *t, int n, const void *p, const char *group,
                            struct cryo_err *err);

#endif
