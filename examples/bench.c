/* GPU benchmark harness (docs/performance.md): times every dynamics kernel
 * against its byte floor, after the time-oriented model of Antepara et al. (2024, SC24 Workshops).
 *
 * For each kernel the floor is the fewest bytes it must move through device
 * memory: each input array read once and each output array written once, over
 * the points the kernel actually touches. The device copy bandwidth is
 * measured in the same run (a large device-to-device copy kernel, bytes read
 * plus bytes written), and the table gives
 *   time per call (median of many synchronous calls after a warm-up),
 *   floor bytes, floor bytes / time (GB/s),
 *   e_time = (floor bytes / copy bandwidth) / time,
 *   elements (cells, nodes or hexahedra) per second.
 * Before any timing, each kernel's device result is compared with a serial
 * host build of the same kernel linked into this binary under the prefix
 * ref_ (bench-ref.a, Makefile.am), and the largest difference relative to
 * the largest reference value is printed.
 *
 * `make bench` builds this file as cryodyn-bench with the library's own
 * flags, linked against libcryodyn: the kernels measured are the product's,
 * and device arrays come from the library's device layer
 * (services/cryo_device.h). Without OpenACC the same program runs the
 * kernels on the host (OpenMP or serial loops) for a quick check on any
 * machine. With CRYO_BENCH_CUDA (configure found nvcc) and OpenACC, CUDA C
 * twins of the sea-ice stress and velocity kernels and of the land-ice
 * residual (examples/bench_cuda.cu) are checked against the same host
 * reference and timed beside their OpenACC versions on the same arrays.
 *
 * Flops are counted from the source, per element as written: + - * each
 * one, and each sqrt, division, exp or pow one (an FMA is two); what the
 * compilers finally execute differs a little (common subexpressions).
 *
 * Usage: cryodyn-bench [--all | --quick] [--profile | --launch] [--landice | --seaice] [--reps N]
 *        cryodyn-bench --cyclone NX DAYS DT NEVP OUTDIR
 *   --all      sea ice 1024^2 and 4096^2 cells, land ice 128x128x16 and
 *              512x512x16 elements, ISMIP-HOM A Newton solve 40x40x10 (default)
 *   --quick    small sizes for a CPU check (256^2, 512^2; 32x32x16, 64x64x16; 20x20x5)
 *   --profile  each kernel once, no warm-up, no checks, no solve (run under ncu)
 *   --launch   only the fixed cost of a launch, with little and with 16 GiB
 *              of device memory allocated
 *   --landice  skip the sea-ice kernels (copy bandwidth, land ice, Newton solve only)
 *   --seaice   skip the land-ice kernels and the Newton solve
 *   --reps N   calls per timing (median; default 50)
 *   --cyclone  the full Mehlmann cyclone on NX x NX cells (dx = 512 km / NX)
 *              for DAYS days with macro step DT s and NEVP mEVP iterations,
 *              through cryo_seaice_step on one block (no MPI, no I/O in the
 *              loop); writes shear, divergence, h, a, u, v as raw float64
 *              (OUTDIR/<name>_<hours>h.bin) and a text header every 24 h and
 *              at the end, and prints the median time per macro step and per
 *              mEVP sub-step
 * Exit status 1 when a correctness check fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if defined(_OPENACC)
#include <openacc.h>
#endif

#include "cryo_acc.h"
#include "cryo_device.h"
#include "cryo_error.h"
#include "landice.h"
#include "seaice.h"
#include "seaice_cyclone.h"
#include "seaice_quad_cell.h"

/* The CUDA twins read the OpenACC device arrays: without OpenACC there are none. */
#if defined(CRYO_BENCH_CUDA) && defined(_OPENACC)
#define BENCH_CUDA 1
#include "bench_cuda.h"
#else
#define BENCH_CUDA 0
#endif

/* Serial host builds of the kernels (bench-ref.a: symbols renamed). */
extern __typeof__(cryo_seaice_stress_kernel) ref_cryo_seaice_stress_kernel;
extern __typeof__(cryo_seaice_velocity_kernel) ref_cryo_seaice_velocity_kernel;
extern __typeof__(cryo_seaice_advect_kernel) ref_cryo_seaice_advect_kernel;
extern __typeof__(cryo_seaice_bbm_stress_kernel) ref_cryo_seaice_bbm_stress_kernel;
extern __typeof__(cryo_seaice_quad_stress_kernel) ref_cryo_seaice_quad_stress_kernel;
extern __typeof__(cryo_seaice_quad_velocity_kernel) ref_cryo_seaice_quad_velocity_kernel;
extern __typeof__(cryo_seaice_quad_advect_kernel) ref_cryo_seaice_quad_advect_kernel;
extern __typeof__(cryo_seaice_geometry_points) ref_cryo_seaice_geometry_points;
extern __typeof__(cryo_seaice_geometry) ref_cryo_seaice_geometry;
extern __typeof__(cryo_seaice_node_frames) ref_cryo_seaice_node_frames;
extern __typeof__(cryo_landice_residual) ref_cryo_landice_residual;
extern __typeof__(cryo_landice_jacobian) ref_cryo_landice_jacobian;
extern __typeof__(cryo_landice_matvec) ref_cryo_landice_matvec;
extern __typeof__(cryo_landice_geometry) ref_cryo_landice_geometry;
extern __typeof__(cryo_landice_solve_velocity) ref_cryo_landice_solve_velocity;

/* ---------------------------------------------------------------- memory */

static void *host_alloc(size_t n) {
  void *p = calloc(n ? n : 1, sizeof(double));
  if (!p) {
    fprintf(stderr, "bench: host allocation of %zu doubles failed\n", n);
    exit(EXIT_FAILURE);
  }
  return p;
}

/* Device arrays come from the library's device layer, which keeps a host
 * copy of each (without OpenACC the two are one array). The table finds the
 * host copy of a device address for copies and release. */
#define MAX_ARRAYS 256

typedef struct {
  double *host, *dev;
  long n;
} dev_array;

static cryo_device g_dev;
static dev_array g_arrays[MAX_ARRAYS];

static dev_array *dev_find(const double *d) {
  for (int q = 0; q < MAX_ARRAYS; ++q)
    if (g_arrays[q].dev == d) return &g_arrays[q];
  fprintf(stderr, "bench: %p is not a device array of the harness (table of %d full?)\n",
          (const void *)d, MAX_ARRAYS);
  exit(EXIT_FAILURE);
}

static double *dev_alloc(size_t n) {
  dev_array *a = dev_find(NULL);
  cryo_err err;
  cryo_err_clear(&err);
  if (cryo_device_alloc(&g_dev, (long)n, &a->host, &a->dev, &err) != CRYO_OK) {
    fprintf(stderr, "bench: %s\n", err.msg);
    exit(EXIT_FAILURE);
  }
  a->n = (long)n;
  return a->dev;
}

static void dev_free(double *d) {
  dev_array *a = dev_find(d);
  cryo_device_free(&g_dev, &a->host, a->n);
  a->dev = NULL;
}

static void to_dev(double *d, const double *h, size_t n) {
  dev_array *a = dev_find(d);
  if (a->host != h) memcpy(a->host, h, n * sizeof *h);
  cryo_device_to_device(&g_dev, a->host, 0, (long)n);
}

static void to_host(double *h, const double *d, size_t n) {
  dev_array *a = dev_find(d);
  cryo_device_to_host(&g_dev, a->host, 0, (long)n);
  if (a->host != h) memcpy(h, a->host, n * sizeof *h);
}

/* Largest |x - ref| over the largest |ref|: 0 for identical arrays, NaN
 * anywhere gives NaN. */
static double rel_diff(const double *x, const double *ref, size_t n) {
  double dmax = 0.0, rmax = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double d = fabs(x[i] - ref[i]);
    if (isnan(d)) return NAN;
    dmax = fmax(dmax, d);
    rmax = fmax(rmax, fabs(ref[i]));
  }
  return rmax > 0.0 ? dmax / rmax : dmax;
}

/* Difference of a device array from a host reference. */
static double dev_diff(const double *d, const double *ref, size_t n) {
  double *h = host_alloc(n);
  to_host(h, d, n);
  double r = rel_diff(h, ref, n);
  free(h);
  return r;
}

/* Deterministic noise in [0, 1) from a seed and an index (splitmix64). */
static double noise(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* ---------------------------------------------------------------- timing */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef void (*bench_fn)(void *ctx);

/* Median seconds per call of f over reps calls after warm calls. The mEVP and
 * CG kernels are queued asynchronously and return before the device is done,
 * so each timed call ends with a wait for the device queue: the host clock
 * then times the device work plus its launch. */
static double time_median(bench_fn f, void *ctx, int warm, int reps) {
  for (int r = 0; r < warm; ++r)
    f(ctx);
  cryo_device_wait();
  double *t = host_alloc((size_t)reps);
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    f(ctx);
    cryo_device_wait();
    t[r] = now() - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  double m = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  free(t);
  return m;
}

/* ---------------------------------------------------------------- results */

#define MAX_ROWS 64

typedef struct {
  char kernel[48];
  char size[32];
  double seconds;   /* median per call */
  double bytes;     /* floor */
  double elements;  /* cells, nodes or hexahedra per call */
  const char *unit; /* what elements counts */
  double flops;     /* per call, counted from the source; 0: not counted */
} result_row;

static result_row rows[MAX_ROWS];
static int n_rows;
static int n_check_fail;
/* --profile: each kernel once, no warm-up and no host reference, for a
 * profiler (ncu) to read the kernels' own durations and counters */
static int g_profile;

static int warmups(int n) {
  return g_profile ? 0 : n;
}

static void add_row(const char *kernel, const char *size, double seconds, double bytes,
                    double elements, const char *unit, double flops) {
  if (n_rows == MAX_ROWS) return;
  result_row *r = &rows[n_rows++];
  snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
  snprintf(r->size, sizeof r->size, "%s", size);
  r->seconds = seconds;
  r->bytes = bytes;
  r->elements = elements;
  r->unit = unit;
  r->flops = flops;
}

/* An OpenACC kernel and its CUDA C twin, timed on the same arrays in the same run. */
#define MAX_TWINS 8

typedef struct {
  char kernel[48];
  char size[32];
  double t_acc, t_cuda; /* median seconds per call */
  double bytes;         /* floor */
  int regs;             /* registers per thread of the CUDA kernel */
} twin_row;

static twin_row twins[MAX_TWINS];
static int n_twins;

#if BENCH_CUDA
static void add_twin(const char *kernel, const char *size, double t_acc, double t_cuda,
                     double bytes, int regs) {
  if (n_twins == MAX_TWINS) return;
  twin_row *r = &twins[n_twins++];
  snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
  snprintf(r->size, sizeof r->size, "%s", size);
  r->t_acc = t_acc;
  r->t_cuda = t_cuda;
  r->bytes = bytes;
  r->regs = regs;
}
#endif

/* Flops per element counted from the source (file comment): the sea-ice
 * stress update per active cell (dG0 tracers), the velocity update per moving
 * node plus the mask test at every node, and the land-ice residual and
 * Jacobian per element computed (bed friction, off with no slip, not
 * counted). Land ice per Gauss point: the 12 basis weights 24, the 1-D factors
 * 6, the map's z derivatives 38, the velocity gradient and eps_e^2 101, the
 * viscosity (landice_pow and its factors) 102; the residual adds the surface
 * gradient 28, stresses and forces 17 and its 8 node rows 192 (508, plus the
 * gather's 24 per element); the Jacobian's unique work adds 2 dmu and the
 * strain factors 9, 8 node gradients 56, 8 row nodes' coefficients 296 and
 * the 36 blocks of the upper triangle 816 (28 x 24 + 8 x 18): 1448, and 24 per
 * element for the gather.
 * The Jacobian kernel executes about twice its floor: each of the 4 threads
 * of an element repeats the first five items (docs/performance.md). */
#define FLOPS_STRESS_CELL      297.0
#define FLOPS_VELOCITY_NODE    161.0
#define FLOPS_MASK_NODE        3.0
#define FLOPS_RESIDUAL_ELEMENT 4088.0
#define FLOPS_JACOBIAN_ELEMENT 11608.0
/* The same updates on general quadrilateral cells (kernels/seaice_quad.c):
 * stress 24 (corner rotations) + 9 (det) + 6 (strength) + 4 x 110 per Gauss
 * point (Jacobian 8, 1/det 4, velocity gradient 32, strain 17, Delta 14,
 * zeta 2, VP stress 15, projection 18) + 36 (relaxation); velocity
 * 4 x 195 per corner (4 Gauss points x 42: Jacobian, basis gradient, stress
 * at the point, force; rotation, det, corner area, sums) + 61 (the node
 * update, as on the rectangles). */
#define FLOPS_QUAD_STRESS_CELL 515.0
/* quad_cell_geometry: differences 9, normal 9 + 3 (scale) + 6 (norm, sqrt,
 * division), midline 9 + 5 + 6 + 6 + 3, E2 9, centre 9 + 3, corners 4 x 16,
 * A 6 x 4, rotations 4 x 16 */
#define FLOPS_QUAD_GEOMETRY_CELL 240.0
#define FLOPS_QUAD_VELOCITY_NODE 841.0

/* Print and remember a correctness check: tol is the largest difference
 * accepted (rounding differences of a different compiler and evaluation order). */
static void check(const char *what, const char *size, double diff, double tol) {
  int ok = diff <= tol;
  printf("check %-34s %-14s max rel diff %.3e  (tol %.0e) %s\n", what, size, diff, tol,
         ok ? "ok" : "FAIL");
  if (!ok) ++n_check_fail;
}

/* ---------------------------------------------------------------- device copy */

static void copy_kernel(long n, const double *src, double *dst) {
  CRYO_DEVICE_LOOP((src, dst))
  for (long e = 0; e < n; ++e)
    dst[e] = src[e];
}

/* One-iteration region: the fixed cost of a launch that maps one pointer. */
static void empty_kernel(double *a) {
  CRYO_DEVICE_LOOP((a))
  for (long e = 0; e < 1; ++e)
    a[e] += 1.0;
}

typedef struct {
  long n;
  double *a, *b;
} copy_ctx;

static void run_copy(void *vc) {
  copy_ctx *c = vc;
  copy_kernel(c->n, c->a, c->b);
}

static void run_empty(void *vc) {
  copy_ctx *c = vc;
  empty_kernel(c->a);
}

/* Returns the copy bandwidth in bytes/s (read + write). */
static double measure_copy(long n, int reps) {
  copy_ctx c = {n, dev_alloc((size_t)n), dev_alloc((size_t)n)};
  double *h = host_alloc((size_t)n);
  for (long i = 0; i < n; ++i)
    h[i] = noise(1, (uint64_t)i);
  to_dev(c.a, h, (size_t)n);
  double t = time_median(run_copy, &c, 3, reps);
  check("device copy", "", dev_diff(c.b, h, (size_t)n), 0.0);
  char size[32];
  snprintf(size, sizeof size, "%.0f MiB", n * 8.0 / 1048576.0);
  add_row("copy (dst = src)", size, t, 16.0 * n, (double)n, "doubles", 0.0);
  double te = time_median(run_empty, &c, 3, reps * 4);
  add_row("empty region (1 iteration)", "", te, 0.0, 1.0, "launches", 0.0);
  free(h);
  dev_free(c.a);
  dev_free(c.b);
  return 16.0 * n / t;
}

/* ---------------------------------------------------------------- sea ice */

/* Unoptimized structure of the mEVP stress update, for comparison (Antepara et al. 2024,
 * Fig. 2 "baseline"): one loop per stage, Gauss-point intermediates in
 * global arrays (strain, then VP stress, then projection and relaxation).
 * Same formulas as kernels/seaice_stress.c; dG0 tracers only. */
typedef struct {
  double rdx2, rdy2, pstar, cstr, k1, k2, k3, dmin2, ralpha;
} base_consts;

static void base_strain(long ncell, long nxc, const double *mask, const double *u, const double *v,
                        double *e11g, double *e22g, double *e12g, double rdx2, double rdy2) {
  CRYO_DEVICE_LOOP((mask, u, v, e11g, e22g, e12g))
  for (long c = 0; c < ncell; ++c) {
    if (mask[c] == 0.0) continue;
    const long n00 = c + c / nxc, n10 = n00 + 1, n01 = n00 + nxc + 1, n11 = n01 + 1;
    for (int g = 0; g < 4; ++g) {
      const double gx = (g & 1) ? 0.57735026918962576451 : -0.57735026918962576451;
      const double gy = (g & 2) ? 0.57735026918962576451 : -0.57735026918962576451;
      /* bilinear velocity derivatives at (gx, gy) */
      const double ux = rdx2 * ((1 - gy) * (u[n10] - u[n00]) + (1 + gy) * (u[n11] - u[n01]));
      const double uy = rdy2 * ((1 - gx) * (u[n01] - u[n00]) + (1 + gx) * (u[n11] - u[n10]));
      const double vx = rdx2 * ((1 - gy) * (v[n10] - v[n00]) + (1 + gy) * (v[n11] - v[n01]));
      const double vy = rdy2 * ((1 - gx) * (v[n01] - v[n00]) + (1 + gx) * (v[n11] - v[n10]));
      e11g[4 * c + g] = ux;
      e22g[4 * c + g] = vy;
      e12g[4 * c + g] = 0.5 * (uy + vx);
    }
  }
}

static void base_vp(long ncell, base_consts k, const double *mask, const double *h, const double *a,
                    const double *e11g, const double *e22g, const double *e12g, double *t11g,
                    double *t22g, double *t12g) {
  CRYO_DEVICE_LOOP((mask, h, a, e11g, e22g, e12g, t11g, t22g, t12g))
  for (long q = 0; q < 4 * ncell; ++q) {
    const long c = q / 4;
    if (mask[c] == 0.0) continue;
    const double hg = fmax(h[c], 0.0), ag = fmin(fmax(a[c], 0.0), 1.0);
    const double pg = k.pstar * hg * exp(-k.cstr * (1.0 - ag));
    const double e11 = e11g[q], e22 = e22g[q], e12 = e12g[q];
    const double delta = sqrt(k.dmin2 + k.k1 * (e11 * e11 + e22 * e22) + 2.0 * k.k2 * e11 * e22 +
                              4.0 * k.k3 * e12 * e12);
    const double zeta = pg / (2.0 * delta);
    t11g[q] = zeta * (k.k1 * e11 + k.k2 * e22) - 0.5 * pg;
    t22g[q] = zeta * (k.k1 * e22 + k.k2 * e11) - 0.5 * pg;
    t12g[q] = 2.0 * zeta * k.k3 * e12;
  }
}

static void base_relax(long ncell, double ralpha, const double *mask, const double *t11g,
                       const double *t22g, const double *t12g, double *s11, double *s12,
                       double *s22) {
  CRYO_DEVICE_LOOP((mask, t11g, t22g, t12g, s11, s12, s22))
  for (long c = 0; c < ncell; ++c) {
    if (mask[c] == 0.0) continue;
    for (int m = 0; m < 3; ++m) {
      double p11 = 0.0, p12 = 0.0, p22 = 0.0;
      for (int g = 0; g < 4; ++g) {
        const double gx = (g & 1) ? 0.57735026918962576451 : -0.57735026918962576451;
        const double gy = (g & 2) ? 0.57735026918962576451 : -0.57735026918962576451;
        const double w = m == 0 ? 0.25 : m == 1 ? 0.75 * gx : 0.75 * gy;
        p11 += w * t11g[4 * c + g];
        p12 += w * t12g[4 * c + g];
        p22 += w * t22g[4 * c + g];
      }
      s11[3 * c + m] += (p11 - s11[3 * c + m]) * ralpha;
      s12[3 * c + m] += (p12 - s12[3 * c + m]) * ralpha;
      s22[3 * c + m] += (p22 - s22[3 * c + m]) * ralpha;
    }
  }
}

typedef struct {
  cryo_seaice_params p;
  cryo_block b;
  long ncell, nnode;
  /* device arrays */
  double *u, *v, *u_n, *v_n, *s11, *s12, *s22, *h, *a, *mask, *uair, *vair, *uocn, *vocn;
  double *h_work, *a_work, *ice_mask;
  double *g[6];                   /* baseline Gauss-point intermediates, 4 per cell each */
  double *damage, *u_avg, *v_avg; /* the BBM rheology's arrays */
  double *alpha_evp;              /* the adaptive EVP's alpha = beta per cell */
  float *sf[3]; /* the stress stored as float (state_precision = 'single'), device */
} seaice_ctx;

static void run_stress(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_stress_kernel(&c->p, &c->b, c->u, c->v, c->h, c->a, c->ice_mask, c->s11, c->s12,
                            c->s22, NULL);
}

static void run_velocity(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_velocity_kernel(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, c->s11, c->s12, c->s22, c->h,
                              c->a, c->ice_mask, c->uair, c->vair, c->uocn, c->vocn, c->u_n, c->v_n,
                              NULL, c->u, c->v);
}

static void run_substep(void *vc) {
  run_stress(vc);
  run_velocity(vc);
}

/* The BBM rheology (kernels/seaice_bbm.c): its kernels take the state. */
static cryo_seaice_state bbm_state(const seaice_ctx *c) {
  cryo_seaice_state s;
  memset(&s, 0, sizeof s);
  s.u = c->u, s.v = c->v, s.h = c->h, s.a = c->a, s.ice_mask = c->ice_mask;
  s.s11 = c->s11, s.s12 = c->s12, s.s22 = c->s22, s.damage = c->damage;
  s.u_avg = c->u_avg, s.v_avg = c->v_avg;
  return s;
}

/* elastic sub-step of the BBM run: 1 s, as 120 per 120 s step (namelists/cyclone_bbm_8km.nml) */
#define BBM_DTE 1.0

static void run_bbm_stress(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_state s = bbm_state(c);
  cryo_seaice_bbm_stress_kernel(&c->p, &c->b, BBM_DTE, &s);
}

/* one BBM sub-step as kernels/seaice_bbm_step.c runs it, without the halo exchange */
static void run_bbm_substep(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_state s = bbm_state(c);
  cryo_seaice_params pe = c->p;
  pe.dt = BBM_DTE;
  pe.beta = 0.0;
  cryo_seaice_bbm_stress_kernel(&c->p, &c->b, BBM_DTE, &s);
  cryo_seaice_velocity_kernel(&pe, &c->b, CRYO_SEAICE_NODES_ALL, c->s11, c->s12, c->s22, c->h, c->a,
                              c->ice_mask, c->uair, c->vair, c->uocn, c->vocn, c->u, c->v, NULL,
                              c->u, c->v);
  cryo_seaice_bbm_average_kernel(&c->b, 0, 1.0 / 120.0, &s);
}

/* one adaptive-EVP sub-step: the stress kernel writes each cell's alpha,
 * the velocity kernel takes beta from it */
static void run_substep_aevp(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_params pa = c->p;
  pa.adaptive_evp = 1;
  cryo_seaice_state o;
  memset(&o, 0, sizeof o);
  o.alpha_evp = c->alpha_evp;
  cryo_seaice_stress_kernel(&pa, &c->b, c->u, c->v, c->h, c->a, c->ice_mask, c->s11, c->s12, c->s22,
                            c->alpha_evp);
  cryo_seaice_velocity_kernel(&pa, &c->b, CRYO_SEAICE_NODES_ALL, c->s11, c->s12, c->s22, c->h, c->a,
                              c->ice_mask, c->uair, c->vair, c->uocn, c->vocn, c->u_n, c->v_n, &o,
                              c->u, c->v);
}

static void run_substep_single(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_stress_kernel_single(&c->p, &c->b, c->u, c->v, c->h, c->a, c->ice_mask, c->sf[0],
                                   c->sf[1], c->sf[2], NULL);
  cryo_seaice_velocity_kernel_single(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, c->sf[0], c->sf[1],
                                     c->sf[2], c->h, c->a, c->ice_mask, c->uair, c->vair, c->uocn,
                                     c->vocn, c->u_n, c->v_n, NULL, c->u, c->v);
}

/* Float copies of the stress s11, s12, s22 of s on the device, into s's *_f
 * members (state_precision = 'single'); host addresses into host[3]. */
static void single_alloc(const cryo_block *b, cryo_seaice_state *s, float *host[3]) {
  float **dev[3] = {&s->s11_f, &s->s12_f, &s->s22_f};
  cryo_err err;
  cryo_err_clear(&err);
  for (int q = 0; q < 3; ++q)
    if (cryo_device_alloc_float(&g_dev, CRYO_NCELL(b) * CRYO_SEAICE_NS, &host[q], dev[q], &err) !=
        CRYO_OK) {
      fprintf(stderr, "bench: %s\n", err.msg);
      exit(EXIT_FAILURE);
    }
  cryo_seaice_stress_to_single(b, s);
}

static void single_free(const cryo_block *b, float *host[3]) {
  for (int q = 0; q < 3; ++q)
    cryo_device_free_float(&g_dev, &host[q], CRYO_NCELL(b) * CRYO_SEAICE_NS);
}

static void run_advect(void *vc) {
  seaice_ctx *c = vc;
  cryo_seaice_advect_kernel(&c->p, &c->b, c->u, c->v, c->mask, c->h, c->a, c->h_work, c->a_work);
}

static void run_base_stress(void *vc) {
  seaice_ctx *c = vc;
  const cryo_seaice_params *p = &c->p;
  const double re2 = 1.0 / (p->ecc * p->ecc);
  base_consts k = {0.5 / c->b.dx, 0.5 / c->b.dy, p->pstar, p->c_strength,
                   1.0 + re2,     1.0 - re2,     re2,      p->delta_min * p->delta_min,
                   1.0 / p->alpha};
  const long nxc = c->b.nx + 2;
  base_strain(c->ncell, nxc, c->mask, c->u, c->v, c->g[0], c->g[1], c->g[2], k.rdx2, k.rdy2);
  base_vp(c->ncell, k, c->mask, c->h, c->a, c->g[0], c->g[1], c->g[2], c->g[3], c->g[4], c->g[5]);
  base_relax(c->ncell, k.ralpha, c->mask, c->g[3], c->g[4], c->g[5], c->s11, c->s12, c->s22);
}

/* Host state of an n x n cell box of the cyclone benchmark (512 km): ice
 * thickness 0.3 m + 0.005 m (sin(6e-5 x) + sin(3e-5 y)) with 10 % noise,
 * concentration 0.95 .. 1, velocities of about 0.1 m/s (a smooth pattern
 * plus 20 % noise) that vanish on the walls, the cyclone wind and ocean gyre
 * at day 2, and stresses consistent with that velocity: the viscous-plastic
 * stress itself (one stress update with alpha = 1 from zero). */
typedef struct {
  double *u, *v, *u_n, *v_n, *s11, *s12, *s22, *h, *a, *mask, *uair, *vair, *uocn, *vocn;
  double *h_work, *a_work, *ice_mask;
} seaice_host;

static void seaice_host_init(const cryo_seaice_params *p, const cryo_block *b, seaice_host *s) {
  const long ncell = CRYO_NCELL(b), nnode = CRYO_NNODE(b);
  const int n = b->nx;
  double **cells[] = {&s->h, &s->a, &s->mask, &s->h_work, &s->a_work, &s->ice_mask};
  double **nodes[] = {&s->u, &s->v, &s->u_n, &s->v_n, &s->uair, &s->vair, &s->uocn, &s->vocn};
  for (size_t q = 0; q < sizeof cells / sizeof *cells; ++q)
    *cells[q] = host_alloc((size_t)ncell);
  for (size_t q = 0; q < sizeof nodes / sizeof *nodes; ++q)
    *nodes[q] = host_alloc((size_t)nnode);
  s->s11 = host_alloc((size_t)ncell * 3);
  s->s12 = host_alloc((size_t)ncell * 3);
  s->s22 = host_alloc((size_t)ncell * 3);
  for (int j = -1; j <= n; ++j)
    for (int i = -1; i <= n; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const double x = (i + 0.5) * b->dx, y = (j + 0.5) * b->dy;
      const int inside = i >= 0 && i < n && j >= 0 && j < n;
      s->mask[c] = inside;
      s->ice_mask[c] = 2.0 * inside; /* ice in every cell (cryo_seaice_ice_cells_kernel) */
      s->h[c] = cryo_cyclone_thickness(x, y) * (0.95 + 0.1 * noise(2, c));
      s->a[c] = 0.95 + 0.05 * noise(3, c);
    }
  const double two_pi = 6.283185307179586, len = n * b->dx;
  for (int j = -1; j <= n + 1; ++j)
    for (int i = -1; i <= n + 1; ++i) {
      const long q = CRYO_NODE(b, i, j);
      const double x = i * b->dx, y = j * b->dy;
      const int moving = i > 0 && i < n && j > 0 && j < n;
      s->u[q] = moving ? 0.1 * (cos(two_pi * y / len) + 0.2 * (noise(4, q) - 0.5)) : 0.0;
      s->v[q] = moving ? 0.1 * (sin(two_pi * x / len) + 0.2 * (noise(5, q) - 0.5)) : 0.0;
      s->u_n[q] = 0.98 * s->u[q];
      s->v_n[q] = 0.98 * s->v[q];
      cryo_cyclone_wind(x, y, 2.0 * 86400.0, &s->uair[q], &s->vair[q]);
      cryo_cyclone_ocean(x, y, &s->uocn[q], &s->vocn[q]);
    }
  cryo_seaice_params p1 = *p;
  p1.alpha = 1.0;
  ref_cryo_seaice_stress_kernel(&p1, b, s->u, s->v, s->h, s->a, s->ice_mask, s->s11, s->s12, s->s22,
                                NULL);
}

static void seaice_host_free(seaice_host *s) {
  double *all[] = {s->u,    s->v,    s->u_n,    s->v_n,    s->s11,     s->s12,
                   s->s22,  s->h,    s->a,      s->mask,   s->uair,    s->vair,
                   s->uocn, s->vocn, s->h_work, s->a_work, s->ice_mask};
  for (size_t q = 0; q < sizeof all / sizeof *all; ++q)
    free(all[q]);
}

/* Copy the whole host state to the device arrays. */
static void seaice_upload(seaice_ctx *c, const seaice_host *hs) {
  const size_t nc = (size_t)c->ncell, nn = (size_t)c->nnode;
  double *dn[] = {c->u, c->v, c->u_n, c->v_n, c->uair, c->vair, c->uocn, c->vocn};
  const double *hn[] = {hs->u, hs->v, hs->u_n, hs->v_n, hs->uair, hs->vair, hs->uocn, hs->vocn};
  for (int q = 0; q < 8; ++q)
    to_dev(dn[q], hn[q], nn);
  double *dc[] = {c->h, c->a, c->mask, c->h_work, c->a_work, c->ice_mask};
  const double *hc[] = {hs->h, hs->a, hs->mask, hs->h_work, hs->a_work, hs->ice_mask};
  for (int q = 0; q < 6; ++q)
    to_dev(dc[q], hc[q], nc);
  to_dev(c->s11, hs->s11, 3 * nc);
  to_dev(c->s12, hs->s12, 3 * nc);
  to_dev(c->s22, hs->s22, 3 * nc);
}

#if BENCH_CUDA
static void cuda_ok(int code, const char *what) {
  if (code == 0) return;
  fprintf(stderr, "bench: CUDA %s: %s\n", what, cryo_bench_cuda_error(code));
  exit(EXIT_FAILURE);
}

static void run_cuda_stress(void *vc) {
  seaice_ctx *c = vc;
  cuda_ok(cryo_bench_cuda_stress(&c->p, &c->b, c->u, c->v, c->h, c->a, c->ice_mask, c->s11, c->s12,
                                 c->s22),
          "stress twin");
}

static void run_cuda_velocity(void *vc) {
  seaice_ctx *c = vc;
  cuda_ok(cryo_bench_cuda_velocity(&c->p, &c->b, c->s11, c->s12, c->s22, c->h, c->a, c->ice_mask,
                                   c->uair, c->vair, c->uocn, c->vocn, c->u_n, c->v_n, c->u, c->v),
          "velocity twin");
}

static void run_cuda_substep(void *vc) {
  run_cuda_stress(vc);
  run_cuda_velocity(vc);
}

/* The CUDA twins from the initial state against the serial host kernels.
 * Tolerance as for OpenACC: both GPU compilers contract a * b + c into FMAs,
 * the x86-64 host build does not, so last-bit differences are expected. */
static void seaice_check_cuda(seaice_ctx *c, seaice_host *hs, const char *size) {
  const size_t nc = (size_t)c->ncell, nn = (size_t)c->nnode;
  seaice_host_free(hs);
  seaice_host_init(&c->p, &c->b, hs);
  seaice_upload(c, hs);
  run_cuda_stress(c);
  ref_cryo_seaice_stress_kernel(&c->p, &c->b, hs->u, hs->v, hs->h, hs->a, hs->ice_mask, hs->s11,
                                hs->s12, hs->s22, NULL);
  double d = fmax(dev_diff(c->s11, hs->s11, 3 * nc),
                  fmax(dev_diff(c->s12, hs->s12, 3 * nc), dev_diff(c->s22, hs->s22, 3 * nc)));
  check("CUDA seaice stress (s11,s12,s22)", size, d, 1e-12);
  run_cuda_velocity(c);
  ref_cryo_seaice_velocity_kernel(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, hs->s11, hs->s12, hs->s22,
                                  hs->h, hs->a, hs->ice_mask, hs->uair, hs->vair, hs->uocn,
                                  hs->vocn, hs->u_n, hs->v_n, NULL, hs->u, hs->v);
  check("CUDA seaice velocity (u,v)", size,
        fmax(dev_diff(c->u, hs->u, nn), dev_diff(c->v, hs->v, nn)), 1e-12);
}
#endif

/* Device results of one stress, velocity and advection step, and of the
 * baseline stress, against the serial host kernels. */
static void seaice_check(seaice_ctx *c, seaice_host *hs, const char *size) {
  const size_t nc = (size_t)c->ncell, nn = (size_t)c->nnode;
  run_stress(c);
  ref_cryo_seaice_stress_kernel(&c->p, &c->b, hs->u, hs->v, hs->h, hs->a, hs->ice_mask, hs->s11,
                                hs->s12, hs->s22, NULL);
  double d = fmax(dev_diff(c->s11, hs->s11, 3 * nc),
                  fmax(dev_diff(c->s12, hs->s12, 3 * nc), dev_diff(c->s22, hs->s22, 3 * nc)));
  check("seaice stress (s11,s12,s22)", size, d, 1e-12);
  run_velocity(c);
  ref_cryo_seaice_velocity_kernel(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, hs->s11, hs->s12, hs->s22,
                                  hs->h, hs->a, hs->ice_mask, hs->uair, hs->vair, hs->uocn,
                                  hs->vocn, hs->u_n, hs->v_n, NULL, hs->u, hs->v);
  check("seaice velocity (u,v)", size, fmax(dev_diff(c->u, hs->u, nn), dev_diff(c->v, hs->v, nn)),
        1e-12);
  run_advect(c);
  ref_cryo_seaice_advect_kernel(&c->p, &c->b, hs->u, hs->v, hs->mask, hs->h, hs->a, hs->h_work,
                                hs->a_work);
  check("seaice advect (h,a work)", size,
        fmax(dev_diff(c->h_work, hs->h_work, nc), dev_diff(c->a_work, hs->a_work, nc)), 1e-12);
  /* the baseline, from the initial state again, must match the optimized kernel */
  seaice_host_free(hs);
  seaice_host_init(&c->p, &c->b, hs);
  to_dev(c->s11, hs->s11, 3 * nc);
  to_dev(c->s12, hs->s12, 3 * nc);
  to_dev(c->s22, hs->s22, 3 * nc);
  to_dev(c->u, hs->u, nn);
  to_dev(c->v, hs->v, nn);
  run_base_stress(c);
  ref_cryo_seaice_stress_kernel(&c->p, &c->b, hs->u, hs->v, hs->h, hs->a, hs->ice_mask, hs->s11,
                                hs->s12, hs->s22, NULL);
  d = fmax(dev_diff(c->s11, hs->s11, 3 * nc),
           fmax(dev_diff(c->s12, hs->s12, 3 * nc), dev_diff(c->s22, hs->s22, 3 * nc)));
  check("seaice stress baseline (3 loops)", size, d, 1e-12);
  /* BBM from the host's stresses, undamaged ice */
  to_dev(c->s11, hs->s11, 3 * nc);
  to_dev(c->s12, hs->s12, 3 * nc);
  to_dev(c->s22, hs->s22, 3 * nc);
  double *damage = calloc(nc, sizeof *damage);
  to_dev(c->damage, damage, nc);
  run_bbm_stress(c);
  seaice_ctx hc = *c;
  hc.u = hs->u, hc.v = hs->v, hc.h = hs->h, hc.a = hs->a, hc.ice_mask = hs->ice_mask;
  hc.s11 = hs->s11, hc.s12 = hs->s12, hc.s22 = hs->s22, hc.damage = damage;
  cryo_seaice_state hstate = bbm_state(&hc);
  ref_cryo_seaice_bbm_stress_kernel(&c->p, &c->b, BBM_DTE, &hstate);
  d = fmax(fmax(dev_diff(c->s11, hs->s11, 3 * nc), dev_diff(c->s12, hs->s12, 3 * nc)),
           fmax(dev_diff(c->s22, hs->s22, 3 * nc), dev_diff(c->damage, damage, nc)));
  check("seaice BBM stress and damage", size, d, 1e-12);
  free(damage);
}

static void bench_seaice(int n, int reps) {
  seaice_ctx c;
  memset(&c, 0, sizeof c);
  cryo_seaice_params_cyclone(&c.p);
  c.b =
      (cryo_block){n, n, 0, 0, n, n, CRYO_CYCLONE_L / n, CRYO_CYCLONE_L / n, 0, 0, CRYO_FOLD_NONE};
  c.ncell = CRYO_NCELL(&c.b);
  c.nnode = CRYO_NNODE(&c.b);
  const size_t nc = (size_t)c.ncell, nn = (size_t)c.nnode;
  char size[32];
  snprintf(size, sizeof size, "%dx%d cells", n, n);

  seaice_host hs;
  seaice_host_init(&c.p, &c.b, &hs);
  double **dn[] = {&c.u, &c.v, &c.u_n, &c.v_n, &c.uair, &c.vair, &c.uocn, &c.vocn};
  for (int q = 0; q < 8; ++q)
    *dn[q] = dev_alloc(nn);
  double **dc[] = {&c.h, &c.a, &c.mask, &c.h_work, &c.a_work, &c.ice_mask};
  for (int q = 0; q < 6; ++q)
    *dc[q] = dev_alloc(nc);
  double **ds[] = {&c.s11, &c.s12, &c.s22};
  for (int q = 0; q < 3; ++q)
    *ds[q] = dev_alloc(3 * nc);
  for (int q = 0; q < 6; ++q)
    c.g[q] = dev_alloc(4 * nc);
  c.damage = dev_alloc(nc);
  c.u_avg = dev_alloc(nn);
  c.v_avg = dev_alloc(nn);
  c.alpha_evp = dev_alloc(nc);
  seaice_upload(&c, &hs);

  /* correctness: one stress, velocity and advection step, device vs host */
  if (!g_profile) seaice_check(&c, &hs, size);
#if BENCH_CUDA
  if (!g_profile) seaice_check_cuda(&c, &hs, size);
#endif

  /* floors, over the touched points (n^2 active cells, (n+1)^2 nodes) */
  const double act = (double)n * n, ring = (double)nc, nod = (double)(n + 1) * (n + 1);
  const double inner = (double)(n - 1) * (n - 1), wall = nod - inner;
  /* stress: u, v at the active cells' nodes; h, a of active cells; mask of
   * every cell of the loop; 9 stress coefficients read and written */
  const double b_stress = 8.0 * (2 * nod + 2 * act + ring + 18 * act);
  /* velocity: 9 stress coefficients, h, a of active cells; mask of every
   * cell; inner nodes read u, v, u_n, v_n and 4 forcing values and write
   * u, v; wall nodes write u, v */
  const double b_vel = 8.0 * (11 * act + ring + 10 * inner + 2 * wall);
  /* the sub-step fused into one kernel could not move less (docs/performance.md,
   * 248 B per cell): stresses read and written, h, a of active cells, mask of
   * every cell, u, v read and written, u_n, v_n and forcing at inner nodes */
  const double b_fused = 8.0 * (20 * act + ring + 4 * nod + 6 * inner);
  /* advection: u, v at nodes, h, a, mask of owned cells and their ring, two outputs */
  const double b_adv = 8.0 * (2 * nod + 3 * ring + 2 * act);
  const double f_stress = FLOPS_STRESS_CELL * act;
  const double f_vel = FLOPS_VELOCITY_NODE * inner + FLOPS_MASK_NODE * nod;

  const double t_stress = time_median(run_stress, &c, warmups(3), reps);
  add_row("seaice stress", size, t_stress, b_stress, act, "cells", f_stress);
  add_row("seaice stress baseline", size, time_median(run_base_stress, &c, warmups(3), reps),
          b_stress, act, "cells", 0.0);
  const double t_vel = time_median(run_velocity, &c, warmups(3), reps);
  add_row("seaice velocity", size, t_vel, b_vel, nod, "nodes", f_vel);
  const double t_sub = time_median(run_substep, &c, warmups(3), reps);
  add_row("seaice mEVP sub-step", size, t_sub, b_stress + b_vel, act, "cells", f_stress + f_vel);
  add_row("seaice mEVP sub-step, fused floor", size, t_sub, b_fused, act, "cells",
          f_stress + f_vel);
  add_row("seaice advect", size, time_median(run_advect, &c, warmups(3), reps), b_adv, act, "cells",
          0.0);
  /* BBM (docs/performance.md, Byte floors): the stress kernel's floor and the
   * damage read and written; the sub-step adds the velocity kernel and the
   * running mean (u, v read, u_avg, v_avg read and written at every node) */
  const double b_bbm = b_stress + 8.0 * 2 * act;
  add_row("seaice BBM stress", size, time_median(run_bbm_stress, &c, warmups(3), reps), b_bbm, act,
          "cells", 0.0);
  add_row("seaice BBM sub-step", size, time_median(run_bbm_substep, &c, warmups(3), reps),
          b_bbm + b_vel + 8.0 * 6 * nn, act, "cells", 0.0);

  /* adaptive EVP: each cell's alpha written by the stress kernel and read
   * by the velocity kernel, 16 B per cell more */
  add_row("seaice aEVP sub-step", size, time_median(run_substep_aevp, &c, warmups(3), reps),
          b_stress + b_vel + 16.0 * act, act, "cells", f_stress + f_vel);

  /* the stress stored as float: 9 coefficients read and written by the
   * stress kernel and read by the velocity kernel at 4 B, 108 B less per cell */
  cryo_seaice_state st = {.s11 = c.s11, .s12 = c.s12, .s22 = c.s22};
  float *sf_host[3];
  single_alloc(&c.b, &st, sf_host);
  c.sf[0] = st.s11_f, c.sf[1] = st.s12_f, c.sf[2] = st.s22_f;
  add_row("seaice mEVP sub-step, single storage", size,
          time_median(run_substep_single, &c, warmups(3), reps), b_stress + b_vel - 108.0 * act,
          act, "cells", f_stress + f_vel);
  single_free(&c.b, sf_host);
#if BENCH_CUDA
  add_twin("seaice stress", size, t_stress, time_median(run_cuda_stress, &c, warmups(3), reps),
           b_stress, cryo_bench_cuda_registers("stress"));
  add_twin("seaice velocity", size, t_vel, time_median(run_cuda_velocity, &c, warmups(3), reps),
           b_vel, cryo_bench_cuda_registers("velocity"));
  add_twin("seaice mEVP sub-step", size, t_sub, time_median(run_cuda_substep, &c, warmups(3), reps),
           b_stress + b_vel, -1);
#endif

  seaice_host_free(&hs);
  for (int q = 0; q < 8; ++q)
    dev_free(*dn[q]);
  for (int q = 0; q < 5; ++q)
    dev_free(*dc[q]);
  for (int q = 0; q < 3; ++q)
    dev_free(*ds[q]);
  for (int q = 0; q < 6; ++q)
    dev_free(c.g[q]);
  dev_free(c.damage);
  dev_free(c.u_avg);
  dev_free(c.v_avg);
  dev_free(c.alpha_evp);
}

/* ------------------------------------------------ sea ice on quadrilaterals */

/* Geometry of an n x n polar stereographic grid around the North Pole (the
 * map true at the pole, cells of `span` / n), as a grid file would give it:
 * every cell a different quadrilateral, f and the frames varying. */
static void quad_geometry_host(const cryo_block *b, double span, double *geom, double *rot,
                               double *fcor, double *nrot, double *pos, double *e1) {
  const double deg = 0.017453292519943295769, radius = 6371229.0, dx = span / b->nx;
  const long nring = (long)(b->nx + 5) * (b->ny + 5);
  double *lon = host_alloc((size_t)nring), *lat = host_alloc((size_t)nring);
  double *clon = host_alloc((size_t)CRYO_NCELL(b)), *clat = host_alloc((size_t)CRYO_NCELL(b));
  unsigned char *nok = calloc((size_t)nring, 1), *cok = calloc((size_t)CRYO_NCELL(b), 1);
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      const long k = (long)(j + 2) * (b->nx + 5) + (i + 2);
      const double X = (i - 0.5 * b->nx + 0.3) * dx, Y = (j - 0.5 * b->ny + 0.3) * dx;
      nok[k] = i >= 0 && i <= b->nx && j >= 0 && j <= b->ny;
      lon[k] = atan2(Y, X) / deg;
      lat[k] = 90.0 - 2.0 * atan(hypot(X, Y) / (2.0 * radius)) / deg;
    }
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      const double X = (i + 0.8 - 0.5 * b->nx) * dx, Y = (j + 0.8 - 0.5 * b->ny) * dx;
      cok[c] = 1;
      clon[c] = atan2(Y, X) / deg;
      clat[c] = 90.0 - 2.0 * atan(hypot(X, Y) / (2.0 * radius)) / deg;
    }
  const cryo_seaice_grid_points g = {1,    radius, CRYO_EARTH_OMEGA, 0.0, lon, lat, nok, clon,
                                     clat, cok};
  /* the serial host build of the geometry kernels (bench-ref.a): the
   * arrays are host arrays here, copied to the device by the caller */
  double *nodes = host_alloc((size_t)nring * CRYO_SEAICE_GNODE);
  double *cells = host_alloc((size_t)CRYO_NCELL(b) * CRYO_SEAICE_GCELL);
  ref_cryo_seaice_geometry_points(b, &g, nodes, cells);
  ref_cryo_seaice_geometry(b, &g, nodes, cells, geom, rot, fcor, nrot);
  ref_cryo_seaice_node_frames(b, &g, nodes, pos, e1);
  free(lon), free(lat), free(clon), free(clat), free(nok), free(cok), free(nodes), free(cells);
}

typedef struct {
  cryo_seaice_params p;
  cryo_block b;
  cryo_seaice_state s; /* device arrays */
  double *pos, *e1;    /* node positions and grid directions, device */
} quad_ctx;

/* The stress update computing each cell's geometry from its corners' node
 * data as it goes (6 values per node, shared by 4 cells, against 14 stored
 * per cell): the alternative the product's stored geometry is measured
 * against (docs/performance.md, "Curvilinear geometry: stored or computed"). */
typedef struct {
  quad_stress_args q;     /* the product's stress arguments (geom unused) */
  const double *pos, *e1; /* node positions and grid directions */
} fly_args;

static fly_args fly_dev;
CRYO_DEVICE_ARGS(fly_dev)

static void fly_stress_dg0(void) {
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < fly_dev.q.ncell; ++e) {
    const fly_args *g = &fly_dev;
    if (g->q.ice_mask[e] == 0.0) continue;
    const long n00 = e + (int)e / (int)g->q.nxc, nxn = g->q.nxc + 1;
    const long nk[4] = {n00, n00 + 1, n00 + nxn, n00 + nxn + 1};
    double r[12], f[12], geo[CRYO_SEAICE_NGEOM];
    for (int k = 0; k < 4; ++k)
      for (int x = 0; x < 3; ++x) {
        r[3 * k + x] = g->pos[3 * nk[k] + x];
        f[3 * k + x] = g->e1[3 * nk[k] + x];
      }
    quad_cell_geometry(r, f, geo, NULL);
    quad_stress_cell(e, n00, nxn, &g->q, geo, 1, 0);
  }
}

static void run_quad_stress_fly(void *vc) {
  quad_ctx *c = vc;
  const cryo_seaice_params *p = &c->p;
  const double re2 = 1.0 / (p->ecc * p->ecc);
  const fly_args fresh = {
      {{p->pstar, p->c_strength, 1.0 + re2, 1.0 - re2, re2, p->delta_min * p->delta_min,
        1.0 / p->alpha, 1.0 + p->tensile_k, 1.0 - p->tensile_k, 0.0, p->h_min, p->aevp_alpha_min},
       c->b.nx + 2,
       CRYO_NCELL(&c->b),
       c->s.u,
       c->s.v,
       c->s.h,
       c->s.a,
       c->s.mask,
       NULL,
       c->s.s11,
       c->s.s12,
       c->s.s22,
       NULL},
      c->pos,
      c->e1};
  cryo_device_args_acquire(&fly_dev, &fresh, sizeof fresh);
  fly_stress_dg0();
  cryo_device_args_release();
  CRYO_DEVICE_WAIT;
}

static void run_quad_stress(void *vc) {
  quad_ctx *c = vc;
  cryo_seaice_quad_stress_kernel(&c->p, &c->b, &c->s);
}

static void run_quad_velocity(void *vc) {
  quad_ctx *c = vc;
  cryo_seaice_quad_velocity_kernel(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, &c->s);
}

static void run_quad_substep(void *vc) {
  run_quad_stress(vc);
  run_quad_velocity(vc);
}

static void run_quad_substep_single(void *vc) {
  quad_ctx *c = vc;
  cryo_seaice_quad_stress_kernel_single(&c->p, &c->b, &c->s);
  cryo_seaice_quad_velocity_kernel_single(&c->p, &c->b, CRYO_SEAICE_NODES_ALL, &c->s);
}

static void run_quad_advect(void *vc) {
  quad_ctx *c = vc;
  cryo_seaice_quad_advect_kernel(&c->p, &c->b, &c->s);
}

/* The kernels of general quadrilateral cells (kernels/seaice_quad*.c) on the
 * state of bench_seaice with polar stereographic geometry: device against
 * the serial host build, then timed; floors add the geometry each must read. */
static void bench_seaice_quad(int n, int reps) {
  quad_ctx c;
  memset(&c, 0, sizeof c);
  cryo_seaice_params_cyclone(&c.p);
  c.p.quad = 1;
  c.b =
      (cryo_block){n, n, 0, 0, n, n, CRYO_CYCLONE_L / n, CRYO_CYCLONE_L / n, 0, 0, CRYO_FOLD_NONE};
  const cryo_block *b = &c.b;
  const size_t nc = (size_t)CRYO_NCELL(b), nn = (size_t)CRYO_NNODE(b);
  char size[32];
  snprintf(size, sizeof size, "%dx%d cells", n, n);
  seaice_host hs;
  seaice_host_init(&c.p, b, &hs);
  double *geom = host_alloc(nc * CRYO_SEAICE_NGEOM), *rot = host_alloc(2 * nc);
  double *fcor = host_alloc(nn), *nrot = host_alloc(2 * nn);
  double *pos = host_alloc(3 * nn), *e1 = host_alloc(3 * nn);
  quad_geometry_host(b, 6.0e6, geom, rot, fcor, nrot, pos, e1);
  c.pos = dev_alloc(3 * nn);
  c.e1 = dev_alloc(3 * nn);
  to_dev(c.pos, pos, 3 * nn);
  to_dev(c.e1, e1, 3 * nn);
  /* host state for the reference, device state for the kernels */
  cryo_seaice_state h = {0}, *d = &c.s;
  double *hn[] = {hs.u, hs.v, hs.u_n, hs.v_n, hs.uair, hs.vair, hs.uocn, hs.vocn};
  double **hp[] = {&h.u, &h.v, &h.u_n, &h.v_n, &h.uair, &h.vair, &h.uocn, &h.vocn};
  double **dp[] = {&d->u, &d->v, &d->u_n, &d->v_n, &d->uair, &d->vair, &d->uocn, &d->vocn};
  for (int q = 0; q < 8; ++q) {
    *hp[q] = hn[q];
    *dp[q] = dev_alloc(nn);
    to_dev(*dp[q], hn[q], nn);
  }
  double *hc[] = {hs.h, hs.a, hs.mask, hs.h_work, hs.a_work, hs.ice_mask};
  double **hcp[] = {&h.h, &h.a, &h.mask, &h.h_work, &h.a_work, &h.ice_mask};
  double **dcp[] = {&d->h, &d->a, &d->mask, &d->h_work, &d->a_work, &d->ice_mask};
  for (int q = 0; q < 6; ++q) {
    *hcp[q] = hc[q];
    *dcp[q] = dev_alloc(nc);
    to_dev(*dcp[q], hc[q], nc);
  }
  double *hsx[] = {hs.s11, hs.s12, hs.s22};
  double **hsp[] = {&h.s11, &h.s12, &h.s22}, **dsp[] = {&d->s11, &d->s12, &d->s22};
  for (int q = 0; q < 3; ++q) {
    *hsp[q] = hsx[q];
    *dsp[q] = dev_alloc(3 * nc);
    to_dev(*dsp[q], hsx[q], 3 * nc);
  }
  h.geom = geom, h.rot = rot, h.fcor = fcor, h.nrot = nrot;
  d->geom = dev_alloc(nc * CRYO_SEAICE_NGEOM);
  d->rot = dev_alloc(2 * nc);
  d->fcor = dev_alloc(nn);
  d->nrot = dev_alloc(2 * nn);
  to_dev(d->geom, geom, nc * CRYO_SEAICE_NGEOM);
  to_dev(d->rot, rot, 2 * nc);
  to_dev(d->fcor, fcor, nn);
  to_dev(d->nrot, nrot, 2 * nn);

  if (!g_profile) {
    run_quad_stress(&c);
    ref_cryo_seaice_quad_stress_kernel(&c.p, b, &h);
    check("seaice quad stress (s11,s12,s22)", size,
          fmax(dev_diff(d->s11, h.s11, 3 * nc),
               fmax(dev_diff(d->s12, h.s12, 3 * nc), dev_diff(d->s22, h.s22, 3 * nc))),
          1e-12);
    /* the same update from the same start, geometry computed as it goes */
    for (int q = 0; q < 3; ++q)
      to_dev(*dsp[q], hsx[q], 3 * nc);
    ref_cryo_seaice_quad_stress_kernel(&c.p, b, &h);
    run_quad_stress_fly(&c);
    check("seaice quad stress, geometry on the fly", size,
          fmax(dev_diff(d->s11, h.s11, 3 * nc),
               fmax(dev_diff(d->s12, h.s12, 3 * nc), dev_diff(d->s22, h.s22, 3 * nc))),
          1e-12);
    run_quad_velocity(&c);
    ref_cryo_seaice_quad_velocity_kernel(&c.p, b, CRYO_SEAICE_NODES_ALL, &h);
    check("seaice quad velocity (u,v)", size,
          fmax(dev_diff(d->u, h.u, nn), dev_diff(d->v, h.v, nn)), 1e-12);
    run_quad_advect(&c);
    ref_cryo_seaice_quad_advect_kernel(&c.p, b, &h);
    check("seaice quad advect (h,a work)", size,
          fmax(dev_diff(d->h_work, h.h_work, nc), dev_diff(d->a_work, h.a_work, nc)), 1e-12);
  }
  /* floors of bench_seaice plus the geometry: 14 values of every active cell
   * (stress, velocity), of every cell of the ring too (advection: the west
   * and south faces come from the neighbours), fcor of inner nodes */
  const double act = (double)n * n, ring = (double)nc, nod = (double)(n + 1) * (n + 1);
  const double inner = (double)(n - 1) * (n - 1), wall = nod - inner, ng = CRYO_SEAICE_NGEOM;
  const double b_stress = 8.0 * (2 * nod + 2 * act + ring + 18 * act + ng * act);
  const double b_vel = 8.0 * (11 * act + ring + 10 * inner + 2 * wall + ng * act + inner);
  const double b_adv = 8.0 * (2 * nod + 3 * ring + 2 * act + ng * ring);
  const double f_stress = FLOPS_QUAD_STRESS_CELL * act;
  const double f_vel = FLOPS_QUAD_VELOCITY_NODE * inner + FLOPS_MASK_NODE * nod;
  const double t_stress = time_median(run_quad_stress, &c, warmups(3), reps);
  add_row("seaice quad stress", size, t_stress, b_stress, act, "cells", f_stress);
  /* on the fly: 6 values per node of the active cells instead of 14 per cell */
  const double b_fly = 8.0 * (2 * nod + 2 * act + ring + 18 * act + 6 * nod);
  add_row("seaice quad stress, geometry on the fly", size,
          time_median(run_quad_stress_fly, &c, warmups(3), reps), b_fly, act, "cells",
          (FLOPS_QUAD_STRESS_CELL + FLOPS_QUAD_GEOMETRY_CELL) * act);
  const double t_vel = time_median(run_quad_velocity, &c, warmups(3), reps);
  add_row("seaice quad velocity", size, t_vel, b_vel, nod, "nodes", f_vel);
  add_row("seaice quad mEVP sub-step", size, time_median(run_quad_substep, &c, warmups(3), reps),
          b_stress + b_vel, act, "cells", f_stress + f_vel);
  add_row("seaice quad advect", size, time_median(run_quad_advect, &c, warmups(3), reps), b_adv,
          act, "cells", 0.0);
  float *sf_host[3];
  single_alloc(b, d, sf_host);
  add_row("seaice quad mEVP sub-step, single storage", size,
          time_median(run_quad_substep_single, &c, warmups(3), reps),
          b_stress + b_vel - 108.0 * act, act, "cells", f_stress + f_vel);
  single_free(b, sf_host);

  /* A summer pack: open water (h = a = 0) in the upper half of the rows. The
   * sub-step skips it as it skips land, so its floor is that of the ice half
   * plus, for the open half, the ice_mask of every cell and u, v written at
   * its nodes. */
  for (long e = 0; e < (long)nc; ++e)
    if (e / (n + 2) > n / 2) hs.h[e] = hs.a[e] = 0.0;
  to_dev(d->h, hs.h, nc);
  to_dev(d->a, hs.a, nc);
  cryo_seaice_ice_cells_kernel(&c.p, b, d);
  const double ice = (double)n * (n / 2), open = act - ice;
  add_row("seaice quad mEVP sub-step, half open water", size,
          time_median(run_quad_substep, &c, warmups(3), reps),
          (b_stress + b_vel) * ice / act + 8.0 * open + 16.0 * open, ice, "ice cells",
          (f_stress + f_vel) * ice / act);

  seaice_host_free(&hs);
  free(geom), free(rot), free(fcor), free(nrot), free(pos), free(e1);
  dev_free(c.pos);
  dev_free(c.e1);
  double *all[] = {d->u,    d->v,   d->u_n,  d->v_n,  d->uair,   d->vair,   d->uocn,
                   d->vocn, d->h,   d->a,    d->mask, d->h_work, d->a_work, d->s11,
                   d->s12,  d->s22, d->geom, d->rot,  d->fcor,   d->nrot,   d->ice_mask};
  for (size_t q = 0; q < sizeof all / sizeof *all; ++q)
    dev_free(all[q]);
}

/* ---------------------------------------------------------------- land ice */

/* Periodic halo fill of one rank's block, as the component's exchange does
 * with one rank: the low halo takes the last owned point, the high halo the
 * first (nodes: node 1, since node nx is the image of node 0). */
static void halo_wrap_dev(const cryo_block *b, int nodes, int nlev, double *f) {
  const long nx = b->nx, ny = b->ny, stride = nx + 2 + nodes;
  const long npts = stride * (ny + 2 + nodes);
  CRYO_DEVICE_LOOP((f))
  for (long e = 0; e < npts; ++e) {
    const long i = e % stride - 1, j = e / stride - 1;
    const long hx = nx + nodes, hy = ny + nodes; /* high halo index */
    if (i >= 0 && i < hx && j >= 0 && j < hy) continue;
    const long si = i < 0 ? nx - 1 : i == hx ? nodes : i;
    const long sj = j < 0 ? ny - 1 : j == hy ? nodes : j;
    const long src = (sj + 1) * stride + si + 1;
    for (int k = 0; k < nlev; ++k)
      f[e * nlev + k] = f[src * nlev + k];
  }
}

static void halo_wrap_host(const cryo_block *b, int nodes, int nlev, double *f) {
  const long nx = b->nx, ny = b->ny, stride = nx + 2 + nodes;
  const long npts = stride * (ny + 2 + nodes);
  for (long e = 0; e < npts; ++e) {
    const long i = e % stride - 1, j = e / stride - 1;
    const long hx = nx + nodes, hy = ny + nodes;
    if (i >= 0 && i < hx && j >= 0 && j < hy) continue;
    const long si = i < 0 ? nx - 1 : i == hx ? nodes : i;
    const long sj = j < 0 ? ny - 1 : j == hy ? nodes : j;
    const long src = (sj + 1) * stride + si + 1;
    for (int k = 0; k < nlev; ++k)
      f[e * nlev + k] = f[src * nlev + k];
  }
}

typedef struct {
  const cryo_block *b;
  int device;
} halo_ctx;

static int bench_halo(void *vc, cryo_location loc, int nlev, int nfield, double *const *fields) {
  halo_ctx *c = vc;
  for (int f = 0; f < nfield; ++f) {
    if (c->device)
      halo_wrap_dev(c->b, loc == CRYO_AT_NODE, nlev, fields[f]);
    else
      halo_wrap_host(c->b, loc == CRYO_AT_NODE, nlev, fields[f]);
  }
  return CRYO_OK;
}

/* One rank: global sums and maxima are the local values. */
static int bench_sum(void *ctx, long long *vals, int n) {
  (void)ctx, (void)vals, (void)n;
  return CRYO_OK;
}

static int bench_max(void *ctx, double *vals, int n) {
  (void)ctx, (void)vals, (void)n;
  return CRYO_OK;
}

/* Allocate every state array of the table (device or host, zeroed on the host). */
static void landice_alloc(const cryo_block *b, const cryo_landice_params *p, cryo_landice_state *s,
                          int device) {
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  memset(s, 0, sizeof *s);
  for (int q = 0; q < n; ++q) {
    size_t pts = (size_t)(t[q].loc == CRYO_AT_NODE ? CRYO_NNODE(b) : CRYO_NCELL(b)) * t[q].nlev;
    double **slot = (double **)((char *)s + t[q].offset);
    *slot = device ? dev_alloc(pts) : host_alloc(pts);
    if (device) cryo_landice_zero((long)pts, *slot);
  }
}

static void landice_free(const cryo_landice_params *p, cryo_landice_state *s, int device) {
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  for (int q = 0; q < n; ++q) {
    double **slot = (double **)((char *)s + t[q].offset);
    if (device)
      dev_free(*slot);
    else
      free(*slot);
    *slot = NULL;
  }
}

static void setup_landice(cryo_block *b, cryo_landice_params *p, int n, int nz, double length) {
  *b = (cryo_block){n, n, 0, 0, n, n, length / n, length / n, 1, 1, CRYO_FOLD_NONE};
  cryo_landice_params_default(p);
  p->n_layers = nz;
  p->geometry_case = CRYO_LANDICE_CASE_ISMIP_HOM_A;
  p->domain_length = length;
  /* the element kernels and the Krylov loop are what is timed against the
   * host reference; the multigrid levels are not allocated here */
  p->preconditioner = CRYO_LANDICE_PC_COLUMN;
}

typedef struct {
  cryo_block b;
  cryo_landice_params p;
  cryo_landice_state s; /* device */
  double *vel;          /* device velocity of the benchmark state */
  cryo_err err;
} landice_ctx;

static void run_residual(void *vc) {
  landice_ctx *c = vc;
  cryo_landice_residual(&c->b, &c->p, &c->s, c->vel, c->s.res, &c->err);
}

static void run_jacobian(void *vc) {
  landice_ctx *c = vc;
  cryo_landice_jacobian(&c->b, &c->p, &c->s, c->vel, &c->err);
}

static void run_matvec(void *vc) {
  landice_ctx *c = vc;
  cryo_landice_matvec(&c->b, &c->p, c->s.matrix, c->vel, c->s.cg_q);
}

#if BENCH_CUDA
static void run_cuda_residual(void *vc) {
  landice_ctx *c = vc;
  cuda_ok(cryo_bench_cuda_residual(&c->b, &c->p, &c->s, c->vel, c->s.res), "residual twin");
}
#endif

static void bench_landice(int n, int nz, int reps, int check_jacobian) {
  landice_ctx c;
  memset(&c, 0, sizeof c);
  setup_landice(&c.b, &c.p, n, nz, 80.0e3);
  const int nlev = 2 * (nz + 1);
  const size_t nnode = (size_t)CRYO_NNODE(&c.b), nvel = nnode * nlev;
  const size_t nmat = nnode * 108 * (size_t)(nz + 1);
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d elem", n, n, nz);
  landice_alloc(&c.b, &c.p, &c.s, 1);
  /* No body force: the residual rows time the residual kernels alone. */
  dev_free(c.s.body_force);
  c.s.body_force = NULL;
  cryo_err_clear(&c.err);
  if (cryo_landice_geometry(&c.b, &c.p, &c.s, &c.err) != CRYO_OK) {
    fprintf(stderr, "bench: %s\n", c.err.msg);
    exit(EXIT_FAILURE);
  }
  /* A^(-1/n) per element for the CUDA twin, which reads it as the product does */
  cryo_landice_fields_prepare(&c.b, &c.p, &c.s);
  /* ISMIP-HOM A-like velocity: a shear profile 1 - (1 - zeta)^4 of a surface
   * speed 20 .. 30 m/a with 5 % noise, zero at the no-slip bed; periodic
   * images share the noise (it hashes the wrapped node index) */
  double *vel = host_alloc(nvel);
  const double two_pi = 6.283185307179586;
  for (int j = -1; j <= n + 1; ++j)
    for (int i = -1; i <= n + 1; ++i) {
      const int iw = (i + n) % n, jw = (j + n) % n;
      const double us = 25.0 + 5.0 * sin(two_pi * iw / n) * sin(two_pi * jw / n);
      for (int k = 0; k <= nz; ++k) {
        const double z = 1.0 - (double)k / nz, shape = 1.0 - z * z * z * z;
        const uint64_t id = ((uint64_t)jw * n + iw) * nlev + 2 * k;
        vel[CRYO_NODE(&c.b, i, j) * nlev + 2 * k] = us * shape * (0.975 + 0.05 * noise(6, id));
        vel[CRYO_NODE(&c.b, i, j) * nlev + 2 * k + 1] = 0.1 * us * shape * (noise(7, id) - 0.5);
      }
    }
  c.vel = dev_alloc(nvel);
  to_dev(c.vel, vel, nvel);

  /* host reference: geometry and the three kernels */
  cryo_landice_state r;
  memset(&r, 0, sizeof r);
  cryo_landice_params pr = c.p;
  r.bed = host_alloc(nnode);
  r.thk_node = host_alloc(nnode);
  r.beta2 = host_alloc(nnode);
  r.thk = host_alloc(CRYO_NCELL(&c.b));
  /* the parameter fields, filled from pr by the reference's own prepare */
  r.rate_factor = host_alloc((size_t)CRYO_NCELL(&c.b) * nz);
  r.afac = host_alloc((size_t)CRYO_NCELL(&c.b) * nz);
  r.sliding_c = host_alloc(CRYO_NCELL(&c.b));
  r.coulomb_c = host_alloc(CRYO_NCELL(&c.b));
  to_host(r.bed, c.s.bed, nnode);
  to_host(r.thk_node, c.s.thk_node, nnode);
  to_host(r.beta2, c.s.beta2, nnode);
  to_host(r.thk, c.s.thk, CRYO_NCELL(&c.b));
  r.res = host_alloc(nvel);
  cryo_err rerr;
  cryo_err_clear(&rerr);
  if (g_profile) check_jacobian = 0;
  run_residual(&c);
  if (!g_profile) {
    ref_cryo_landice_residual(&c.b, &pr, &r, vel, r.res, &rerr);
    check("landice residual", size, dev_diff(c.s.res, r.res, nvel), 1e-11);
  }
#if BENCH_CUDA
  run_cuda_residual(&c);
  if (!g_profile) check("CUDA landice residual", size, dev_diff(c.s.res, r.res, nvel), 1e-12);
#endif
  if (check_jacobian) {
    r.matrix = host_alloc(nmat);
    run_jacobian(&c);
    ref_cryo_landice_jacobian(&c.b, &pr, &r, vel, &rerr);
    check("landice jacobian", size, dev_diff(c.s.matrix, r.matrix, nmat), 1e-11);
    double *y = host_alloc(nvel);
    run_matvec(&c);
    ref_cryo_landice_matvec(&c.b, &pr, r.matrix, vel, y);
    check("landice matvec", size, dev_diff(c.s.cg_q, y, nvel), 1e-11);
    free(y);
    free(r.matrix);
  }

  /* floors: velocity (nlev values) read at the (n+3)^2 nodes the element
   * columns [-1, n] touch, bed, thk_node, beta2 at those nodes, the cell
   * thickness of the (n+2)^2 columns (which carry ice) and A^(-1/n) of their
   * nz elements (cryo_landice_fields_prepare, the 11th launch); residual
   * written at the (n+1)^2 computed rows; the Jacobian writes the blocks
   * that exist: 27 per node level, 18 at the bed and surface levels */
  const double nodes_rd = (double)nnode, rows = (double)(n + 1) * (n + 1);
  const double elems = (double)n * n * nz;
  const double blocks = rows * (27.0 * (nz + 1) - 18.0);
  const double cols = (n + 2.0) * (n + 2.0);
  const double b_res = 8.0 * (nodes_rd * (nlev + 3) + cols * (1.0 + nz) + rows * nlev);
  const double b_jac = 8.0 * (nodes_rd * (nlev + 3) + cols * (1.0 + nz) + 4.0 * blocks);
  const double b_mv = 8.0 * (4.0 * blocks + nodes_rd * nlev + rows * nlev);
  /* the colour launches compute every element of the columns [-1, n] */
  const double f_res = FLOPS_RESIDUAL_ELEMENT * (n + 2.0) * (n + 2.0) * nz;
  const double t_res = time_median(run_residual, &c, warmups(2), reps);
  add_row("landice residual (11 launches)", size, t_res, b_res, elems, "elements", f_res);
#if BENCH_CUDA
  add_twin("landice residual (11 launches)", size, t_res,
           time_median(run_cuda_residual, &c, warmups(2), reps), b_res,
           cryo_bench_cuda_registers("residual"));
#endif
  add_row("landice jacobian (11 launches)", size, time_median(run_jacobian, &c, warmups(2), reps),
          b_jac, elems, "elements", FLOPS_JACOBIAN_ELEMENT * (n + 2.0) * (n + 2.0) * nz);
  add_row("landice matvec", size, time_median(run_matvec, &c, warmups(2), reps), b_mv,
          rows * (nz + 1), "node levels", 0.0);

  free(r.bed);
  free(r.thk_node);
  free(r.beta2);
  free(r.thk);
  free(r.rate_factor);
  free(r.afac);
  free(r.sliding_c);
  free(r.coulomb_c);
  free(r.res);
  free(vel);
  dev_free(c.vel);
  landice_free(&c.p, &c.s, 1);
}

/* Full Newton solve of ISMIP-HOM A, device and host reference. */
static void bench_solve(int n, int nz, double length, int reps) {
  cryo_block b;
  cryo_landice_params p, pr;
  setup_landice(&b, &p, n, nz, length);
  pr = p;
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d L=%.0fkm", n, n, nz, length / 1e3);
  cryo_landice_state sd, sh;
  landice_alloc(&b, &p, &sd, 1);
  landice_alloc(&b, &pr, &sh, 0);
  cryo_err err;
  cryo_err_clear(&err);
  if (cryo_landice_geometry(&b, &p, &sd, &err) != CRYO_OK ||
      ref_cryo_landice_geometry(&b, &pr, &sh, &err) != CRYO_OK) {
    fprintf(stderr, "bench: %s\n", err.msg);
    exit(EXIT_FAILURE);
  }
  halo_ctx hd = {&b, 1}, hh = {&b, 0};
  cryo_comm_ops od = {&hd, bench_halo, bench_sum, bench_max, NULL, NULL, NULL, NULL, NULL};
  cryo_comm_ops oh = {&hh, bench_halo, bench_sum, bench_max, NULL, NULL, NULL, NULL, NULL};
  const size_t nvel = (size_t)CRYO_NNODE(&b) * 2 * (nz + 1), nnode = (size_t)CRYO_NNODE(&b);
  cryo_landice_newton_log log_d[64], log_h[64];
  int nlog_d = 0, nlog_h = 0;

  double t0 = now();
  int st = ref_cryo_landice_solve_velocity(&b, &pr, &sh, &oh, log_h, 64, &nlog_h, &err);
  double t_host = now() - t0;
  if (st != CRYO_OK) {
    fprintf(stderr, "bench: host solve: %s\n", err.msg);
    exit(EXIT_FAILURE);
  }
  double *times = host_alloc((size_t)reps);
  for (int r = 0; r < reps; ++r) {
    cryo_landice_zero((long)nvel, sd.vel);
    t0 = now();
    st = cryo_landice_solve_velocity(&b, &p, &sd, &od, log_d, 64, &nlog_d, &err);
    times[r] = now() - t0;
    if (st != CRYO_OK) {
      fprintf(stderr, "bench: device solve: %s\n", err.msg);
      exit(EXIT_FAILURE);
    }
  }
  qsort(times, (size_t)reps, sizeof(double), cmp_double);
  const double t_dev = times[reps / 2];
  free(times);
  int cg_d = 0, cg_h = 0;
  for (int q = 0; q < nlog_d; ++q)
    cg_d += log_d[q].linear_iterations;
  for (int q = 0; q < nlog_h; ++q)
    cg_h += log_h[q].linear_iterations;
  double *us = host_alloc(nnode);
  to_host(us, sd.u_surf, nnode);
  double vmax = 0.0;
  for (size_t q = 0; q < nnode; ++q)
    vmax = fmax(vmax, us[q]);
  free(us);
  printf("solve %s: device %d Newton steps, %d CG iterations, max surface u %.4f m/a; "
         "host reference %d steps, %d CG iterations, %.3f s\n",
         size, nlog_d - 1, cg_d, vmax, nlog_h - 1, cg_h, t_host);
  check("landice Newton solve (u_surf)", size, dev_diff(sd.u_surf, sh.u_surf, nnode), 1e-6);
  add_row("landice Newton solve ISMIP-HOM A", size, t_dev, 0.0, (double)n * n * nz, "elements",
          0.0);
  landice_free(&p, &sd, 1);
  landice_free(&pr, &sh, 0);
}

/* ---------------------------------------------------------------- launch cost */

/* A region that maps nothing: no clauses, no host variables. */
static void nomap_region(void) {
#if defined(_OPENACC)
#pragma acc parallel num_gangs(1) vector_length(32)
  {}
#endif
}

/* A second, different one-pointer region, to see whether alternating
 * kernels costs more than repeating one. */
static void empty_kernel2(double *a) {
  CRYO_DEVICE_LOOP((a))
  for (long e = 0; e < 1; ++e)
    a[e] *= 0.5;
}

static void run_nomap(void *vc) {
  (void)vc;
  nomap_region();
}

static void run_alternate(void *vc) {
  copy_ctx *c = vc;
  empty_kernel(c->a);
  empty_kernel2(c->a);
}

/* Fixed cost per launch: median of reps synchronous launches, with little
 * device memory allocated and with `gib` GiB more allocated. */
static void launch_costs(int reps, int gib) {
  copy_ctx c = {1, dev_alloc(1), NULL};
  double *big[64];
  for (int round = 0; round < 2; ++round) {
    const int g = round ? gib : 0;
    for (int q = 0; q < g && q < 64; ++q) {
      big[q] = dev_alloc((size_t)1 << 27);
      cryo_landice_zero(1L << 27, big[q]);
    }
    printf("launch cost with %2d GiB allocated: no-map region %.1f us, deviceptr region %.1f us, "
           "two alternating deviceptr regions %.1f us per launch\n",
           g, 1e6 * time_median(run_nomap, &c, 10, reps),
           1e6 * time_median(run_empty, &c, 10, reps),
           0.5e6 * time_median(run_alternate, &c, 10, reps));
    for (int q = 0; q < g && q < 64; ++q)
      dev_free(big[q]);
  }
  dev_free(c.a);
}

/* ---------------------------------------------------------------- cyclone run */

/* The full Mehlmann cyclone (docs/benchmarks.md) on one block through the same
 * driver the component calls every macro step (cryo_seaice_forcing_cyclone,
 * then cryo_seaice_step), with the state allocated from cryo_seaice_arrays
 * and initialized as component/cryo_seaice.c does (init = 'cyclone'): mask 1
 * on owned cells and 0 in the halo ring (the closed walls), h = 0.3 +
 * 0.005 (sin 6e-5 x + sin 3e-5 y) m and a = 1 on owned cells, 0 in the ring,
 * everything else 0. One block, not periodic: the halo callback has nothing
 * to fill and the global sum and maximum are the local values.
 *
 * The halo callback doubles as a clock: cryo_seaice_step calls it for (u, v)
 * once before the mEVP loop and once after each sub-step's velocity kernel,
 * so consecutive calls bracket one sub-step (stress + velocity launches). The
 * first interval of each macro step also holds the velocity-save launch and is
 * left out of the sub-step median. Waiting at each stamp makes the sub-steps
 * synchronous: their median includes the launch latency that the product's
 * queued launches hide (the driver's dynamics timer shows that). */
typedef struct {
  double *stamp; /* host clock at each (u, v) halo call of the current macro step */
  int n, cap;
} cyclone_clock;

static int cyclone_halo(void *vc, cryo_location loc, int nlev, int nfield, double *const *fields) {
  cyclone_clock *k = vc;
  (void)nlev, (void)fields;
  if (loc == CRYO_AT_NODE && nfield == 2 && k->n < k->cap) {
    /* the sub-step's launches are queued: the stamp waits for them */
    cryo_device_wait();
    k->stamp[k->n++] = now();
  }
  return CRYO_OK;
}

static double median_sorted(double *t, long n) {
  qsort(t, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void write_raw(const char *dir, const char *name, const char *tag, const double *x,
                      size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s_%s.bin", dir, name, tag);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(x, sizeof(double), n, f) != n || fclose(f)) {
    fprintf(stderr, "bench: cannot write %s\n", path);
    exit(EXIT_FAILURE);
  }
}

/* Rates and totals at time t; owned cells (ny x nx) and owned nodes
 * ((ny+1) x (nx+1)), row-major, x fastest, float64 in the host byte order
 * (little-endian on x86-64), plus a text header. */
static void cyclone_output(const cryo_seaice_params *p, const cryo_block *b, cryo_seaice_state *s,
                           const cryo_comm_ops *ops, double t, const char *dir) {
  const int na = CRYO_SEAICE_NA(p->tracer_order);
  const long nx = b->nx, ny = b->ny, ncell = CRYO_NCELL(b), nnode = CRYO_NNODE(b);
  cryo_seaice_diag_rates(b, s->u, s->v, s->mask, s->shear, s->divergence);
  double volume, area, speed;
  if (cryo_seaice_diag_totals(p, b, s, ops, &volume, &area, &speed) != CRYO_OK) {
    fprintf(stderr, "bench: cryo_seaice_diag_totals failed\n");
    exit(EXIT_FAILURE);
  }
  char tag[32];
  snprintf(tag, sizeof tag, "%gh", t / 3600.0);
  printf("t = %s (%.0f s): max ice speed %.6f m/s, total volume %.9e m3, area %.9e m2\n", tag, t,
         speed, volume, area);
  const struct {
    const char *name;
    const double *dev;
    int node, nlev;
  } out[] = {{"shear", s->shear, 0, 1}, {"divergence", s->divergence, 0, 1},
             {"h", s->h, 0, na},        {"a", s->a, 0, na},
             {"u", s->u, 1, 1},         {"v", s->v, 1, 1}};
  double *all = host_alloc((size_t)(ncell > nnode ? ncell : nnode) * na);
  double *owned = host_alloc((size_t)(nx + 1) * (ny + 1));
  for (size_t q = 0; q < sizeof out / sizeof *out; ++q) {
    const int node = out[q].node, nl = out[q].nlev;
    to_host(all, out[q].dev, (size_t)(node ? nnode : ncell) * nl);
    size_t m = 0;
    for (long j = 0; j < ny + node; ++j)
      for (long i = 0; i < nx + node; ++i)
        owned[m++] = all[(node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nl];
    write_raw(dir, out[q].name, tag, owned, m);
  }
  free(all);
  free(owned);
  char path[1024];
  snprintf(path, sizeof path, "%s/cyclone_%s.txt", dir, tag);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "bench: cannot write %s\n", path);
    exit(EXIT_FAILURE);
  }
  fprintf(f,
          "nx %ld\nny %ld\ndx %.17g\ndy %.17g\ntime_s %.17g\nmax_speed_m_s %.17g\n"
          "volume_m3 %.17g\narea_m2 %.17g\n"
          "layout float64 little-endian, row-major (y, x), x fastest; cells: shear, divergence "
          "(s-1), h (m, cell mean), a (1, cell mean) %ld x %ld; nodes: u, v (m s-1) %ld x %ld\n",
          nx, ny, b->dx, b->dy, t, speed, volume, area, ny, nx, ny + 1, nx + 1);
  fclose(f);
}

static int run_cyclone(int n, double days, double dt, int n_evp, const char *dir) {
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.dt = dt;
  p.n_evp = n_evp;
  cryo_err err;
  cryo_err_clear(&err);
  if (n < 2 || cryo_seaice_params_check(&p, &err) != CRYO_OK) {
    fprintf(stderr, "bench: --cyclone: %s\n", n < 2 ? "NX must be >= 2" : err.msg);
    return EXIT_FAILURE;
  }
  const cryo_block b = {
      n, n, 0, 0, n, n, CRYO_CYCLONE_L / n, CRYO_CYCLONE_L / n, 0, 0, CRYO_FOLD_NONE};
  const long ncell = CRYO_NCELL(&b), nnode = CRYO_NNODE(&b);
  const int na = CRYO_SEAICE_NA(p.tracer_order);
  const long nsteps = llround(days * 86400.0 / dt);
  mkdir(dir, 0755);

  /* every array of the table, as the component allocates them; zero, then
   * mask, h, a (cell means) set on the host and copied in */
  cryo_seaice_state s;
  memset(&s, 0, sizeof s);
  const cryo_seaice_array_info *tab;
  const int narr = cryo_seaice_arrays(&p, &tab);
  double *zero = host_alloc((size_t)(ncell > nnode ? ncell : nnode) * 3);
  double *mask = host_alloc((size_t)ncell), *h = host_alloc((size_t)ncell * na),
         *a = host_alloc((size_t)ncell * na);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const double x = (b.i0 + i + 0.5) * b.dx, y = (b.j0 + j + 0.5) * b.dy;
      mask[c] = 1.0;
      h[c * na] = cryo_cyclone_thickness(x, y);
      a[c * na] = CRYO_CYCLONE_A0;
    }
  double bytes = 0.0;
  for (int q = 0; q < narr; ++q) {
    const size_t pts = (size_t)(tab[q].loc == CRYO_AT_NODE ? nnode : ncell) * tab[q].nlev;
    double **slot = (double **)((char *)&s + tab[q].offset);
    *slot = dev_alloc(pts);
    to_dev(*slot, zero, pts);
    bytes += 8.0 * pts;
  }
  to_dev(s.mask, mask, (size_t)ncell);
  to_dev(s.h, h, (size_t)ncell * na);
  to_dev(s.a, a, (size_t)ncell * na);
  free(zero);
  free(mask);
  free(h);
  free(a);

  cyclone_clock clk = {host_alloc((size_t)n_evp + 2), 0, n_evp + 2};
  cryo_comm_ops ops = {&clk, cyclone_halo, bench_sum, bench_max, NULL, NULL, NULL, NULL, NULL};
  double *t_step = host_alloc((size_t)nsteps);
  const long nsub_per = n_evp - 1;
  double *t_sub = host_alloc((size_t)(nsteps * (nsub_per > 0 ? nsub_per : 1)));
  long nsub = 0;
  printf("cyclone %dx%d cells, dx = %.1f m, dt = %g s, n_evp = %d, alpha = %g, beta = %g, "
         "tracer order %d, %ld macro steps (%g days), %d arrays, %.1f MB on the device\n",
         n, n, b.dx, dt, n_evp, p.alpha, p.beta, p.tracer_order, nsteps, days, narr, bytes / 1e6);
  fflush(stdout);

  const double t_run = now();
  double t_report = t_run;
  for (long k = 0; k < nsteps; ++k) {
    clk.n = 0;
    const double t0 = now();
    cryo_seaice_forcing_cyclone(&b, (double)k * dt, s.uair, s.vair, s.uocn, s.vocn);
    if (cryo_seaice_step(&p, &b, &s, &ops) != CRYO_OK) {
      fprintf(stderr, "bench: cryo_seaice_step failed at step %ld\n", k);
      return EXIT_FAILURE;
    }
    t_step[k] = now() - t0;
    for (int q = 2; q < clk.n; ++q)
      t_sub[nsub++] = clk.stamp[q] - clk.stamp[q - 1];
    const double t = (double)(k + 1) * dt;
    if (fmod(t, 86400.0) == 0.0 || k + 1 == nsteps) cyclone_output(&p, &b, &s, &ops, t, dir);
    if (now() - t_report > 30.0) {
      t_report = now();
      printf("  step %ld / %ld, %.0f s elapsed\n", k + 1, nsteps, t_report - t_run);
      fflush(stdout);
    }
  }
  const double wall = now() - t_run;
  double sum_step = 0.0;
  for (long k = 0; k < nsteps; ++k)
    sum_step += t_step[k];
  const double step_med = median_sorted(t_step, nsteps);
  const double step_min = t_step[0], step_max = t_step[nsteps - 1];
  printf("wall time %.2f s (macro steps %.2f s, output %.2f s)\n", wall, sum_step, wall - sum_step);
  printf("per macro step (forcing + cryo_seaice_step): median %.1f us, min %.1f us, max %.1f us\n",
         1e6 * step_med, 1e6 * step_min, 1e6 * step_max);
  if (nsub > 0) {
    const double sub_med = median_sorted(t_sub, nsub);
    printf("per mEVP sub-step (stress + velocity kernel, between (u, v) halo calls): median "
           "%.2f us over %ld sub-steps, 10%% %.2f us, 90%% %.2f us; %.3e cells/s\n",
           1e6 * sub_med, nsub, 1e6 * t_sub[nsub / 10], 1e6 * t_sub[(nsub * 9) / 10],
           (double)n * n / sub_med);
    printf("per macro step / n_evp: %.2f us\n", 1e6 * step_med / n_evp);
  }
  free(t_step);
  free(t_sub);
  free(clk.stamp);
  for (int q = 0; q < narr; ++q)
    dev_free(*(double **)((char *)&s + tab[q].offset));
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- main */

/* The results: every kernel, then each OpenACC kernel beside its CUDA twin,
 * then the mEVP sub-step against its two floors. */
static void print_table(double bw) {
  printf("\ncopy bandwidth (read + write, same run): %.1f GB/s\n", bw / 1e9);
  printf("\n| kernel | size | time/call (us) | floor (MB) | floor GB/s | e_time (of copy BW) | "
         "elements/s | GFLOP/s |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (int q = 0; q < n_rows; ++q) {
    const result_row *r = &rows[q];
    printf("| %s | %s | %.1f | ", r->kernel, r->size, 1e6 * r->seconds);
    if (r->bytes > 0.0)
      printf("%.1f | %.0f | %.3f | ", r->bytes / 1e6, r->bytes / r->seconds / 1e9,
             r->bytes / bw / r->seconds);
    else
      printf("- | - | - | ");
    printf("%.3e %s | ", r->elements / r->seconds, r->unit);
    if (r->flops > 0.0)
      printf("%.1f |\n", r->flops / r->seconds / 1e9);
    else
      printf("- |\n");
  }
  if (n_twins > 0) {
    printf("\n| kernel | size | OpenACC (us) | CUDA (us) | OpenACC / CUDA | floor (MB) | "
           "e_time OpenACC | e_time CUDA | CUDA registers |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int q = 0; q < n_twins; ++q) {
      const twin_row *r = &twins[q];
      printf("| %s | %s | %.1f | %.1f | %.2f | %.1f | %.3f | %.3f | ", r->kernel, r->size,
             1e6 * r->t_acc, 1e6 * r->t_cuda, r->t_acc / r->t_cuda, r->bytes / 1e6,
             r->bytes / bw / r->t_acc, r->bytes / bw / r->t_cuda);
      if (r->regs >= 0)
        printf("%d |\n", r->regs);
      else
        printf("- |\n");
    }
  }
  printf("\n");
  for (int q = 0; q < n_rows; ++q) {
    const result_row *r = &rows[q];
    if (strncmp(r->kernel, "seaice mEVP sub-step", 20) != 0) continue;
    printf("%s, %s: %.1f us per call; floor %.0f B per cell, %.1f us at the copy bandwidth: "
           "e_time %.3f\n",
           r->kernel, r->size, 1e6 * r->seconds, r->bytes / r->elements, 1e6 * r->bytes / bw,
           r->bytes / bw / r->seconds);
  }
}

static int bench_main(int argc, char **argv) {
  int quick = 0, reps = 50, launch = 0, landice_only = 0, seaice_only = 0;
  const char *cyc_dir = NULL;
  int cyc_n = 0, cyc_nevp = 0;
  double cyc_days = 0.0, cyc_dt = 0.0;
  for (int q = 1; q < argc; ++q) {
    if (!strcmp(argv[q], "--cyclone") && q + 5 < argc) {
      cyc_n = atoi(argv[q + 1]);
      cyc_days = atof(argv[q + 2]);
      cyc_dt = atof(argv[q + 3]);
      cyc_nevp = atoi(argv[q + 4]);
      cyc_dir = argv[q + 5];
      q += 5;
      continue;
    }
    if (!strcmp(argv[q], "--quick"))
      quick = 1;
    else if (!strcmp(argv[q], "--all"))
      quick = 0;
    else if (!strcmp(argv[q], "--profile"))
      g_profile = 1;
    else if (!strcmp(argv[q], "--launch"))
      launch = 1;
    else if (!strcmp(argv[q], "--landice"))
      landice_only = 1;
    else if (!strcmp(argv[q], "--seaice"))
      seaice_only = 1;
    else if (!strcmp(argv[q], "--reps") && q + 1 < argc)
      reps = atoi(argv[++q]);
    else {
      fprintf(
          stderr,
          "usage: %s [--all | --quick | --profile | --launch] [--landice | --seaice] [--reps N]\n"
          "       %s --cyclone NX DAYS DT NEVP OUTDIR\n",
          argv[0], argv[0]);
      return EXIT_FAILURE;
    }
  }
  if (reps < 1) reps = 1;
  if (g_profile) reps = 1;
  /* an OpenACC build must find its GPU: without one its regions would
   * silently run on the host */
  int require_gpu = 0;
#if defined(_OPENACC)
  require_gpu = 1;
#endif
  cryo_err err;
  cryo_err_clear(&err);
  const double t0 = now();
#if BENCH_CUDA
  cuda_ok(cryo_bench_cuda_start(), "start-up");
#endif
  if (cryo_device_init(&g_dev, MPI_COMM_WORLD, require_gpu, &err) != CRYO_OK) {
    fprintf(stderr, "bench: %s\n", err.msg);
    return EXIT_FAILURE;
  }
  printf("device: %s, start-up %.2f s\n", g_dev.description, now() - t0);
#if defined(_OPENACC)
  printf("device: %s, driver %s, OpenACC %d\n",
         acc_get_property_string(g_dev.number, acc_device_nvidia, acc_property_vendor),
         acc_get_property_string(g_dev.number, acc_device_nvidia, acc_property_driver), _OPENACC);
#endif
#if BENCH_CUDA
  double *probe = dev_alloc(1);
  char cuda_name[160];
  cuda_ok(cryo_bench_cuda_init(probe, cuda_name, sizeof cuda_name), "start-up");
  dev_free(probe);
  printf("CUDA twins: %s, nvcc -arch=sm_90 -O3, registers per thread: stress %d, velocity %d, "
         "residual %d\n",
         cuda_name, cryo_bench_cuda_registers("stress"), cryo_bench_cuda_registers("velocity"),
         cryo_bench_cuda_registers("residual"));
#endif
  if (cyc_dir) return run_cyclone(cyc_n, cyc_days, cyc_dt, cyc_nevp, cyc_dir);
  printf("repetitions per kernel: %d (median)\n", reps);
  if (launch) {
    launch_costs(reps * 4, quick ? 1 : 16);
    return EXIT_SUCCESS;
  }

  const double bw = measure_copy(quick ? (1L << 24) : (1L << 27), reps);
  printf("copy bandwidth (read + write): %.1f GB/s\n", bw / 1e9);
  const int sea[2] = {quick ? 256 : 1024, quick ? 512 : 4096};
  for (int q = 0; q < 2 && !landice_only; ++q) {
    bench_seaice(sea[q], reps);
    bench_seaice_quad(sea[q], reps);
  }
  const int li[2] = {quick ? 32 : 128, quick ? 64 : 512};
  for (int q = 0; q < 2 && !seaice_only; ++q)
    bench_landice(li[q], 16, q == 0 ? reps : (reps + 1) / 2, q == 0);
  if (g_profile || seaice_only)
    ;
  else if (quick)
    bench_solve(20, 5, 80.0e3, 1);
  else
    bench_solve(40, 10, 80.0e3, 3);
  print_table(bw);
  printf("\ncorrectness checks failed: %d\n", n_check_fail);
  return n_check_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* One MPI process (the device layer picks the GPU by node-local rank; run
 * without mpirun, as a singleton, or under mpirun -np 1). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int status = bench_main(argc, argv);
  MPI_Finalize();
  return status;
}
