/* cryodyn-cmp: bit-for-bit comparison of NetCDF files (restarts, outputs)
 * for the regression suite and for users checking their own runs.
 *
 *   cryodyn-cmp A.nc B.nc [VAR ...]   every variable (or each VAR) of A and B
 *                                     holds the same bits; else name the first
 *                                     differing variable and its first index
 *   cryodyn-cmp --sums FILE.nc        one line per variable: name, type,
 *                                     value count, FNV-1a 64 of its bytes
 *   cryodyn-cmp --check SUMS FILE.nc  FILE's variables match the lines SUMS
 *                                     holds (a stored baseline); else name
 *                                     every variable that differs
 *
 * Exit status: 0 identical, 1 different, 2 usage or unreadable file.
 * Variable data are compared, never file bytes: HDF5 layout, attributes and
 * the order of definitions may change without changing the answers. The
 * checksum is the one cryodyn writes into each restart variable's 'checksum'
 * attribute (the bytes as the host stores them, little-endian on x86-64 and
 * aarch64), so a sum can be checked against the file by hand. */
#include <inttypes.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CMP_SAME = 0, CMP_DIFFERENT = 1, CMP_ERROR = 2 };

/* Longest line of a sums file: a NetCDF name, a type name, two numbers. */
#define CMP_LINE_LEN (NC_MAX_NAME + 96)

#define NC_CMP(expr, file, what)                                                                   \
  do {                                                                                             \
    int nc_cmp_status_ = (expr);                                                                   \
    if (nc_cmp_status_ != NC_NOERR) {                                                              \
      fprintf(stderr, "cryodyn-cmp: %s: %s: %s\n", file, what, nc_strerror(nc_cmp_status_));       \
      return CMP_ERROR;                                                                            \
    }                                                                                              \
  } while (0)

/* One variable's values as raw bytes, with what is needed to name an index. */
typedef struct cmp_var {
  char name[NC_MAX_NAME + 1];
  nc_type type;
  size_t size; /* bytes per value */
  int ndims;
  size_t shape[NC_MAX_VAR_DIMS];
  char dim_names[NC_MAX_VAR_DIMS][NC_MAX_NAME + 1];
  size_t count; /* values */
  unsigned char *data;
} cmp_var;

static uint64_t cmp_fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static const char *cmp_type_name(nc_type t) {
  switch (t) {
  case NC_BYTE:
    return "byte";
  case NC_CHAR:
    return "char";
  case NC_SHORT:
    return "short";
  case NC_INT:
    return "int";
  case NC_FLOAT:
    return "float";
  case NC_DOUBLE:
    return "double";
  case NC_UBYTE:
    return "ubyte";
  case NC_USHORT:
    return "ushort";
  case NC_UINT:
    return "uint";
  case NC_INT64:
    return "int64";
  case NC_UINT64:
    return "uint64";
  default:
    return "other";
  }
}

/* Read variable `id` of `ncid` (file name `path`) whole. Variables of
 * user-defined or string type are refused: the regression files have none. */
static int cmp_var_read(int ncid, int id, const char *path, cmp_var *v) {
  memset(v, 0, sizeof *v);
  NC_CMP(nc_inq_var(ncid, id, v->name, &v->type, &v->ndims, NULL, NULL), path, "variable");
  if (v->type < NC_BYTE || v->type > NC_UINT64 || v->type == NC_STRING) {
    fprintf(stderr, "cryodyn-cmp: %s: variable '%s' has a type this tool does not compare\n", path,
            v->name);
    return CMP_ERROR;
  }
  NC_CMP(nc_inq_type(ncid, v->type, NULL, &v->size), path, v->name);
  int dims[NC_MAX_VAR_DIMS];
  NC_CMP(nc_inq_vardimid(ncid, id, dims), path, v->name);
  v->count = 1;
  for (int d = 0; d < v->ndims; ++d) {
    NC_CMP(nc_inq_dim(ncid, dims[d], v->dim_names[d], &v->shape[d]), path, v->name);
    v->count *= v->shape[d];
  }
  /* One extra byte so that an empty variable still gets a buffer. */
  v->data = malloc(v->count * v->size + 1);
  if (!v->data) {
    fprintf(stderr, "cryodyn-cmp: %s: out of memory for '%s'\n", path, v->name);
    return CMP_ERROR;
  }
  if (v->count) NC_CMP(nc_get_var(ncid, id, v->data), path, v->name);
  return CMP_SAME;
}

static void cmp_var_free(cmp_var *v) {
  free(v->data);
  v->data = NULL;
}

/* Value `i` of v as text, exact enough to see the difference. */
static void cmp_value_text(const cmp_var *v, size_t i, char *buf, size_t len) {
  const unsigned char *p = v->data + i * v->size;
  double x;
  long long k;
  switch (v->type) {
  case NC_DOUBLE:
    memcpy(&x, p, sizeof x);
    snprintf(buf, len, "%.17g", x);
    return;
  case NC_FLOAT: {
    float f;
    memcpy(&f, p, sizeof f);
    snprintf(buf, len, "%.9g", f);
    return;
  }
  case NC_INT: {
    int n;
    memcpy(&n, p, sizeof n);
    k = n;
    break;
  }
  case NC_INT64:
    memcpy(&k, p, sizeof k);
    break;
  default:
    snprintf(buf, len, "byte %u", (unsigned)p[0]);
    return;
  }
  snprintf(buf, len, "%lld", k);
}

/* "name[y=3, x=5, nlev3=0]" for the flat index i of v (C order). */
static void cmp_index_text(const cmp_var *v, size_t i, char *buf, size_t len) {
  size_t idx[NC_MAX_VAR_DIMS];
  for (int d = v->ndims - 1; d >= 0; --d) {
    idx[d] = v->shape[d] ? i % v->shape[d] : 0;
    i = v->shape[d] ? i / v->shape[d] : 0;
  }
  size_t used = (size_t)snprintf(buf, len, "%s[", v->name);
  for (int d = 0; d < v->ndims && used < len; ++d)
    used += (size_t)snprintf(buf + used, len - used, "%s%s=%zu", d ? ", " : "", v->dim_names[d],
                             idx[d]);
  if (used < len) snprintf(buf + used, len - used, "]");
}

/* Compare variable `name` of A and B; print what differs. */
static int cmp_one(int a, int b, const char *name, const char *fa, const char *fb) {
  int ia, ib;
  if (nc_inq_varid(a, name, &ia) != NC_NOERR) {
    printf("variable '%s' is missing from %s\n", name, fa);
    return CMP_DIFFERENT;
  }
  if (nc_inq_varid(b, name, &ib) != NC_NOERR) {
    printf("variable '%s' is missing from %s\n", name, fb);
    return CMP_DIFFERENT;
  }
  cmp_var va, vb;
  int status = cmp_var_read(a, ia, fa, &va);
  if (status == CMP_SAME)
    status = cmp_var_read(b, ib, fb, &vb);
  else
    vb.data = NULL;
  if (status == CMP_SAME) {
    int same_shape = va.type == vb.type && va.ndims == vb.ndims;
    for (int d = 0; same_shape && d < va.ndims; ++d)
      same_shape = va.shape[d] == vb.shape[d];
    if (!same_shape) {
      printf("variable '%s': type or shape differs (%s, %zu values in %s; %s, %zu in %s)\n", name,
             cmp_type_name(va.type), va.count, fa, cmp_type_name(vb.type), vb.count, fb);
      status = CMP_DIFFERENT;
    }
  }
  if (status == CMP_SAME) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < va.count; ++i)
      if (memcmp(va.data + i * va.size, vb.data + i * vb.size, va.size)) {
        if (!bad) first = i;
        ++bad;
      }
    if (bad) {
      char where[2 * NC_MAX_NAME + 256], x[48], y[48];
      cmp_index_text(&va, first, where, sizeof where);
      cmp_value_text(&va, first, x, sizeof x);
      cmp_value_text(&vb, first, y, sizeof y);
      printf("variable '%s' differs: first at %s (flat index %zu): %s vs %s; %zu of %zu values "
             "differ\n",
             name, where, first, x, y, bad, va.count);
      status = CMP_DIFFERENT;
    }
  }
  cmp_var_free(&va);
  cmp_var_free(&vb);
  return status;
}

/* A, B: every variable of A in B and the other way round, or the named ones.
 * Stops at the first difference so that the first differing variable is the
 * one reported (in A's order of definition). */
static int cmp_files(const char *fa, const char *fb, int nnames, char **names) {
  int a, b;
  NC_CMP(nc_open(fa, NC_NOWRITE, &a), fa, "cannot open");
  int s = nc_open(fb, NC_NOWRITE, &b);
  if (s != NC_NOERR) {
    nc_close(a);
    NC_CMP(s, fb, "cannot open");
  }
  int status = CMP_SAME, compared = 0;
  if (nnames) {
    for (int k = 0; k < nnames && status == CMP_SAME; ++k, ++compared)
      status = cmp_one(a, b, names[k], fa, fb);
  } else {
    int na = 0, nb = 0;
    nc_inq_nvars(a, &na);
    nc_inq_nvars(b, &nb);
    for (int v = 0; v < na && status == CMP_SAME; ++v, ++compared) {
      char name[NC_MAX_NAME + 1];
      nc_inq_varname(a, v, name);
      status = cmp_one(a, b, name, fa, fb);
    }
    for (int v = 0; v < nb && status == CMP_SAME; ++v) {
      char name[NC_MAX_NAME + 1];
      int id;
      nc_inq_varname(b, v, name);
      if (nc_inq_varid(a, name, &id) != NC_NOERR) {
        printf("variable '%s' is missing from %s\n", name, fa);
        status = CMP_DIFFERENT;
      }
    }
  }
  nc_close(a);
  nc_close(b);
  if (status != CMP_ERROR)
    printf("cryodyn-cmp %s %s: %s (%d variables compared)\n", fa, fb,
           status == CMP_SAME ? "identical bits" : "DIFFERENT", compared);
  return status;
}

/* Checksum line of one variable. */
typedef struct cmp_sum {
  char name[NC_MAX_NAME + 1];
  const char *type;
  size_t count;
  uint64_t sum;
  int seen; /* cmp_check: matched by a baseline line */
} cmp_sum;

/* The sums of every variable of `path`, in order of definition, into a
 * malloc'ed *sums the caller frees. */
static int cmp_collect(const char *path, cmp_sum **sums, int *nsums) {
  int ncid, nvars = 0, status = CMP_SAME;
  *sums = NULL;
  *nsums = 0;
  NC_CMP(nc_open(path, NC_NOWRITE, &ncid), path, "cannot open");
  nc_inq_nvars(ncid, &nvars);
  *sums = calloc((size_t)nvars + 1, sizeof **sums);
  if (!*sums) status = CMP_ERROR;
  for (int v = 0; v < nvars && status == CMP_SAME; ++v) {
    cmp_var var;
    status = cmp_var_read(ncid, v, path, &var);
    if (status == CMP_SAME) {
      cmp_sum *s = &(*sums)[(*nsums)++];
      snprintf(s->name, sizeof s->name, "%s", var.name);
      s->type = cmp_type_name(var.type);
      s->count = var.count;
      s->sum = cmp_fnv1a(var.data, var.count * var.size);
    }
    cmp_var_free(&var);
  }
  nc_close(ncid);
  return status;
}

static int cmp_print_sums(const char *path) {
  cmp_sum *sums;
  int n, status = cmp_collect(path, &sums, &n);
  for (int i = 0; i < n && status == CMP_SAME; ++i)
    printf("%s %s %zu %016" PRIx64 "\n", sums[i].name, sums[i].type, sums[i].count, sums[i].sum);
  free(sums);
  return status;
}

/* Compare the sums of `path` with the stored lines of `base_path` ('#'
 * lines are comments). Names every variable that differs, is missing or is
 * new, in the baseline's order. */
static int cmp_check(const char *base_path, const char *path) {
  cmp_sum *sums;
  int n, status = cmp_collect(path, &sums, &n);
  FILE *base = status == CMP_SAME ? fopen(base_path, "r") : NULL;
  if (status == CMP_SAME && !base) {
    fprintf(stderr, "cryodyn-cmp: cannot open baseline %s\n", base_path);
    status = CMP_ERROR;
  }
  char line[CMP_LINE_LEN];
  int lineno = 0, checked = 0, bad = 0;
  while (status == CMP_SAME && fgets(line, sizeof line, base)) {
    ++lineno;
    char name[NC_MAX_NAME + 1], type[16];
    size_t count;
    uint64_t sum;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%256s %15s %zu %" SCNx64, name, type, &count, &sum) != 4) {
      fprintf(stderr, "cryodyn-cmp: %s line %d: expected 'name type count checksum'\n", base_path,
              lineno);
      status = CMP_ERROR;
      break;
    }
    ++checked;
    cmp_sum *s = NULL;
    for (int i = 0; i < n && !s; ++i)
      if (!strcmp(sums[i].name, name)) s = &sums[i];
    if (!s) {
      printf("variable '%s' of baseline %s is missing from %s\n", name, base_path, path);
      ++bad;
      continue;
    }
    s->seen = 1;
    if (strcmp(type, s->type) || count != s->count) {
      printf("variable '%s': %s with %zu values in %s, baseline %s has %s with %zu\n", name,
             s->type, s->count, path, base_path, type, count);
      ++bad;
    } else if (sum != s->sum) {
      printf("variable '%s': checksum %016" PRIx64 " in %s, baseline %s has %016" PRIx64 "\n", name,
             s->sum, path, base_path, sum);
      ++bad;
    }
  }
  if (base) fclose(base);
  for (int i = 0; i < n && status == CMP_SAME; ++i)
    if (!sums[i].seen) {
      printf("variable '%s' of %s is not in baseline %s\n", sums[i].name, path, base_path);
      ++bad;
    }
  free(sums);
  if (status != CMP_SAME) return status;
  printf("cryodyn-cmp --check %s %s: %s (%d variables)\n", base_path, path,
         bad ? "DIFFERENT" : "matches", checked);
  return bad ? CMP_DIFFERENT : CMP_SAME;
}

static int cmp_usage(void) {
  fprintf(stderr, "usage: cryodyn-cmp A.nc B.nc [VAR ...]\n"
                  "       cryodyn-cmp --sums FILE.nc\n"
                  "       cryodyn-cmp --check SUMS FILE.nc\n");
  return CMP_ERROR;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--sums")) return cmp_print_sums(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "--check")) return cmp_check(argv[2], argv[3]);
  if (argc < 3 || argv[1][0] == '-') return cmp_usage();
  return cmp_files(argv[1], argv[2], argc - 3, argv + 3);
}
