/* nccompare A.nc B.nc [VAR ...]: exit 0 when every double variable of A (or
 * each VAR named) exists in B with the same shape and the same bits; else
 * print the first differences and exit 1. Used by the bit-for-bit tests
 * (restart vs continuous run, decompositions). */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t var_size(int ncid, int var) {
  int ndims, dims[NC_MAX_VAR_DIMS];
  nc_inq_varndims(ncid, var, &ndims);
  nc_inq_vardimid(ncid, var, dims);
  size_t n = 1;
  for (int d = 0; d < ndims; ++d) {
    size_t len;
    nc_inq_dimlen(ncid, dims[d], &len);
    n *= len;
  }
  return n;
}

static int compare(int a, int b, const char *name, const char *fa, const char *fb) {
  int va, vb;
  nc_type type;
  if (nc_inq_varid(a, name, &va) != NC_NOERR) {
    printf("%s: no variable %s\n", fa, name);
    return 1;
  }
  nc_inq_vartype(a, va, &type);
  if (type != NC_DOUBLE) return 0;
  if (nc_inq_varid(b, name, &vb) != NC_NOERR) {
    printf("%s: no variable %s\n", fb, name);
    return 1;
  }
  size_t n = var_size(a, va);
  if (n != var_size(b, vb)) {
    printf("%s: %zu values in %s, %zu in %s\n", name, n, fa, var_size(b, vb), fb);
    return 1;
  }
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  nc_get_var_double(a, va, x);
  nc_get_var_double(b, vb, y);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (memcmp(&x[i], &y[i], sizeof x[i])) {
      if (bad < 3) printf("%s[%zu]: %.17g vs %.17g\n", name, i, x[i], y[i]);
      ++bad;
    }
  if (bad) printf("%s: %zu of %zu values differ\n", name, bad, n);
  free(x);
  free(y);
  return bad != 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: nccompare A.nc B.nc [VAR ...]\n");
    return 2;
  }
  int a, b;
  if (nc_open(argv[1], NC_NOWRITE, &a) != NC_NOERR ||
      nc_open(argv[2], NC_NOWRITE, &b) != NC_NOERR) {
    fprintf(stderr, "nccompare: cannot open %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  int failed = 0, nvars = 0, compared = 0;
  if (argc > 3) {
    for (int k = 3; k < argc; ++k, ++compared)
      failed |= compare(a, b, argv[k], argv[1], argv[2]);
  } else {
    nc_inq_nvars(a, &nvars);
    for (int v = 0; v < nvars; ++v, ++compared) {
      char name[NC_MAX_NAME + 1];
      nc_inq_varname(a, v, name);
      failed |= compare(a, b, name, argv[1], argv[2]);
    }
  }
  nc_close(a);
  nc_close(b);
  printf("nccompare %s %s: %d variables, %s\n", argv[1], argv[2], compared,
         failed ? "DIFFERENT" : "identical bits");
  return failed;
}
