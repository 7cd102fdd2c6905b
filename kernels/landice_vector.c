/* Reproducible dot products and vector updates on node fields of the land-ice
 * solver (kernels/landice_solver_impl.h). */
#include <math.h>
#include <stddef.h>

#include "cryo_reprosum.h"
#include "landice_solver_impl.h"

/* Owned node range: [0, nxo) x [0, nyo). */
static void landice_owned(const cryo_block *b, int *nxo, int *nyo) {
  *nxo = b->nx + ((!b->periodic_x && b->i0 + b->nx == b->nx_global) ? 1 : 0);
  *nyo = b->ny + ((!b->periodic_y && b->j0 + b->ny == b->ny_global) ? 1 : 0);
}

/* The reductions of one pass: the reduction clause takes one macro argument,
 * and a list in it stays one argument because the directive's own parentheses
 * hold its commas. */
#define LANDICE_MAX_XY_XW   max_xy, max_xw
#define LANDICE_FIXED_XY_XW hi_xy, lo_xy, hi_xw, lo_xw

/* m[0] = max |x y| and, unless w is NULL, m[1] = max |x w| over owned nodes. */
void cryo_landice_maxabs_prod(const cryo_block *b, int nlev, const double *x, const double *y,
                              const double *w, double m[2]) {
  int nxo, nyo;
  landice_owned(b, &nxo, &nyo);
  const int stride = b->nx + 3;
  const long n = (long)nxo * nyo;
  double max_xy = 0.0, max_xw = 0.0;
  /* a dot product reads what the CG loop's queued kernels wrote */
  CRYO_DEVICE_WAIT;
  CRYO_DEVICE_LOOP_REDUCE((x, y, w), max, LANDICE_MAX_XY_XW)
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / nxo + 1) * stride + (e % nxo + 1);
    for (int k = 0; k < nlev; ++k) {
      max_xy = fmax(max_xy, fabs(x[node * nlev + k] * y[node * nlev + k]));
      if (w) max_xw = fmax(max_xw, fabs(x[node * nlev + k] * w[node * nlev + k]));
    }
  }
  m[0] = max_xy;
  m[1] = max_xw;
}

/* Fixed-point parts s = (hi, lo) of sum x y and, unless w is NULL, of sum
 * x w over owned nodes, on the grids scale[0] and scale[1], in one pass: all
 * four are exact integer sums, so any order gives the same bits. */
static void landice_fixed_parts(const cryo_block *b, int nlev, const double *x, const double *y,
                                const double *w, const double scale[2], long long s[4]) {
  int nxo, nyo;
  landice_owned(b, &nxo, &nyo);
  const int stride = b->nx + 3;
  const long n = (long)nxo * nyo;
  const double scale_xy = scale[0], scale_xw = scale[1];
  long long hi_xy = 0, lo_xy = 0, hi_xw = 0, lo_xw = 0;
  CRYO_DEVICE_LOOP_REDUCE((x, y, w), +, LANDICE_FIXED_XY_XW)
  for (long e = 0; e < n; ++e) {
    long node = (long)(e / nxo + 1) * stride + (e % nxo + 1);
    for (int k = 0; k < nlev; ++k) {
      long long hi, lo;
      cryo_fixed_split(x[node * nlev + k] * y[node * nlev + k], scale_xy, &hi, &lo);
      hi_xy += hi;
      lo_xy += lo;
      if (w) {
        cryo_fixed_split(x[node * nlev + k] * w[node * nlev + k], scale_xw, &hi, &lo);
        hi_xw += hi;
        lo_xw += lo;
      }
    }
  }
  s[0] = hi_xy;
  s[1] = lo_xy;
  s[2] = hi_xw;
  s[3] = lo_xw;
}

/* Reproducible global dot products of node fields over owned nodes:
 * out[0] = x.y and, unless w is NULL, out[1] = x.w, the two from one max pass
 * and one fixed-point pass (and one global reduction each). */
int cryo_landice_dots(const cryo_block *b, int nlev, const double *x, const double *y,
                      const double *w, const cryo_comm_ops *ops, double out[2], cryo_err *err) {
  const int npair = w ? 2 : 1;
  double m[2];
  cryo_landice_maxabs_prod(b, nlev, x, y, w, m);
  CRYO_CALL(ops->max_double(ops->ctx, m, npair));
  long long nterms = (long long)(b->nx_global + 1) * (b->ny_global + 1) * nlev;
  double scale[2] = {0.0, 0.0};
  for (int i = 0; i < npair; ++i) {
    CRYO_CHECK(isfinite(m[i]), err, CRYO_ERR_DATA,
               "land-ice solver: NaN or Inf in a dot product (max |x y| = %g)", m[i]);
    scale[i] = cryo_fixed_scale(m[i], (long)nterms);
  }
  long long s[4] = {0, 0, 0, 0};
  if (scale[0] != 0.0 || scale[1] != 0.0) landice_fixed_parts(b, nlev, x, y, w, scale, s);
  CRYO_CALL(ops->sum_int64(ops->ctx, s, 2 * npair));
  out[0] = cryo_fixed_join(s[0], s[1], scale[0]);
  out[1] = cryo_fixed_join(s[2], s[3], scale[1]);
  return CRYO_OK;
}

/* Reproducible global dot product x.y of node fields over owned nodes. */
int cryo_landice_dot(const cryo_block *b, int nlev, const double *x, const double *y,
                     const cryo_comm_ops *ops, double *out, cryo_err *err) {
  double d[2];
  CRYO_CALL(cryo_landice_dots(b, nlev, x, y, NULL, ops, d, err));
  *out = d[0];
  return CRYO_OK;
}

int cryo_landice_halo_node(const cryo_comm_ops *ops, int nlev, double *x) {
  double *f[1] = {x};
  return ops->halo(ops->ctx, CRYO_AT_NODE, nlev, 1, f);
}

typedef struct {
  double a, c;
  const double *x;
  double *y;
  long nlev, nx, n; /* values per node, cells per row, nodes (nx + 1)(ny + 1) */
} landice_axpby_args;

#if defined(_OPENACC)
static landice_axpby_args axpby_dev;
CRYO_DEVICE_ARGS(axpby_dev)
#endif

/* y = a x + c y over node rows [0,nx] x [0,ny] (nlev values each). */
void cryo_landice_axpby(const cryo_block *b, int nlev, double a, const double *x, double c,
                        double *y) {
  const long n = (long)(b->nx + 1) * (b->ny + 1);
  const landice_axpby_args fresh = {a, c, x, y, nlev, b->nx, n};
  LANDICE_ARGS_SET(axpby_dev, fresh);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < LANDICE_ARGS(axpby_dev, fresh)->n; ++e) {
    const landice_axpby_args *g = LANDICE_ARGS(axpby_dev, fresh);
    const int nl = (int)g->nlev, nx = (int)g->nx;
    const double ga = g->a, gc = g->c;
    long node = (long)(e / (nx + 1) + 1) * (nx + 3) + (e % (nx + 1) + 1);
    for (int k = 0; k < nl; ++k)
      g->y[node * nl + k] = ga * g->x[node * nl + k] + gc * g->y[node * nl + k];
  }
  LANDICE_ARGS_DONE;
}

/* z = x + a y over all nodes, halo included. */
void cryo_landice_waxpy(long nnode, int nlev, const double *x, double a, const double *y,
                        double *z) {
  const long n = nnode * nlev;
  CRYO_DEVICE_LOOP((x, y, z))
  for (long e = 0; e < n; ++e)
    z[e] = x[e] + a * y[e];
}

static double landice_cells_maxabs(const cryo_block *b, const double *w) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  double m = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((w), max, m)
  for (long e = 0; e < n; ++e)
    m = fmax(m, fabs(w[(e / nx + 1) * (nx + 2) + e % nx + 1]));
  return m;
}

static long long landice_cells_fixed_part(const cryo_block *b, const double *w, double scale,
                                          int low) {
  const int nx = b->nx;
  const long n = (long)b->nx * b->ny;
  long long acc = 0;
  CRYO_DEVICE_LOOP_REDUCE((w), +, acc)
  for (long e = 0; e < n; ++e) {
    long long hi, lo;
    cryo_fixed_split(w[(e / nx + 1) * (nx + 2) + e % nx + 1], scale, &hi, &lo);
    acc += low ? lo : hi;
  }
  return acc;
}

int cryo_landice_cell_sum(const cryo_block *b, const double *w, const cryo_comm_ops *ops,
                          double *sum, cryo_err *err) {
  double m = landice_cells_maxabs(b, w);
  CRYO_CALL(ops->max_double(ops->ctx, &m, 1));
  CRYO_CHECK(isfinite(m), err, CRYO_ERR_DATA, "land-ice: NaN or Inf in a cell field being summed");
  double scale = cryo_fixed_scale(m, (long)b->nx_global * b->ny_global);
  long long part[2] = {0, 0};
  if (scale != 0.0) {
    part[0] = landice_cells_fixed_part(b, w, scale, 0);
    part[1] = landice_cells_fixed_part(b, w, scale, 1);
  }
  CRYO_CALL(ops->sum_int64(ops->ctx, part, 2));
  *sum = cryo_fixed_join(part[0], part[1], scale);
  return CRYO_OK;
}
