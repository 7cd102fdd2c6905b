/* Range tables of the cores' numeric parameters (kernels/cryo_params.h). */
#include "cryo_params.h"

#include <math.h>
#include <string.h>

#include "cryo_error.h"

const cryo_param_range *cryo_param_range_find(const cryo_param_range *t, int n, const char *key) {
  for (int k = 0; k < n; ++k)
    if (!strcmp(t[k].key, key)) return &t[k];
  return NULL;
}

int cryo_param_ranges_check(const cryo_param_range *t, int n, const void *p, const char *group,
                            cryo_err *err) {
  for (int k = 0; k < n; ++k) {
    const char *at = (const char *)p + t[k].offset;
    const double v = t[k].is_int ? (double)*(const int *)at : *(const double *)at;
    CRYO_CHECK(isfinite(v) && v >= t[k].lo && v <= t[k].hi, err, CRYO_ERR_RANGE,
               "%s: %s = %g%s%s, must be in [%g, %g]", group, t[k].key, v, t[k].units ? " " : "",
               t[k].units ? t[k].units : "", t[k].lo, t[k].hi);
  }
  return CRYO_OK;
}
