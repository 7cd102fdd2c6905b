/* One loop directive for CPU threads and GPUs (docs/design.md, Kernels).
 *
 * Kernels receive device addresses (the component's device layer hands them
 * out; without OpenACC they are ordinary host addresses) and loop with
 *
 *   CRYO_DEVICE_LOOP((a, b, c))
 *   for (long e = 0; e < n; ++e) { ... private scalars only ... }
 *
 * which becomes `acc parallel loop ... deviceptr(a, b, c)` with OpenACC,
 * `omp parallel for` with OpenMP, and a plain loop otherwise. Reductions use
 * CRYO_DEVICE_LOOP_REDUCE with an integer or max/min operator only: floating
 * point sums must go through the fixed-point reproducible sum so that results
 * do not depend on thread counts.
 *
 * Launches that map nothing (docs/design.md, Kernels; docs/performance.md,
 * "No-map launches"): GCC 12 allocates, copies and frees an argument block on
 * every launch of a region that maps anything (deviceptr included), 17-25 us,
 * against about 4 us for a region with no data clauses. A kernel called many
 * times with the same arguments (the mEVP sub-cycle) keeps them instead in a
 * file-scope struct that lives on the device too:
 *
 *   typedef struct { const double *u; double *s; long n; double k; } my_args;
 *   static my_args my_dev;
 *   CRYO_DEVICE_ARGS(my_dev)
 *   ...
 *   const my_args fresh = {u, s, n, k};
 *   cryo_device_args_set(&my_dev, &fresh, sizeof fresh);
 *   CRYO_DEVICE_LOOP_NOMAP
 *   for (long e = 0; e < my_dev.n; ++e) {
 *     const my_args *g = &my_dev;
 *     ... g->u, g->s, g->k only ...
 *   }
 *
 * cryo_device_args_set copies the arguments to the host struct and, when they
 * changed, to its device copy (both start as zero bytes); the loop names no
 * host variable, so the region maps nothing. The body reads each member where
 * it is used: copying the whole struct into a private one at the top of the
 * body, or once per gang before an inner loop, took 16-40 more registers per
 * thread (ptxas, sea-ice stress). The struct holds 8-byte members only (no
 * padding, so comparing bytes compares values). Without OpenACC the struct is
 * an ordinary static variable and the set is a plain copy.
 *
 * No-map loops are queued asynchronously (one queue): the host queues the next
 * launch while the GPU runs the last, so a short kernel costs its run time
 * rather than launch plus wait. Whoever reads their results on the host, or
 * from a synchronous region, waits first: CRYO_DEVICE_WAIT at the end of the
 * loop that queued them; the device layer waits before any copy to the host
 * and before a halo exchange that moves data. Only launch
 * arguments (device addresses, sizes, parameters) cross here, and only when
 * they change; model state moves through services/cryo_device.c alone.
 *
 * The struct is one per process, while two host threads may launch the same
 * kernel at once (two components of one process, or the blocks of one
 * component run as threads): so a launch holds its file's launch lock from
 * setting the arguments to the end of the loop,
 *
 *   cryo_device_args_acquire(&my_dev, &fresh, sizeof fresh);
 *   my_loop();
 *   cryo_device_args_release();
 *
 * The device copy of the struct is safe too: a set that changes it first
 * waits for every queued launch. The lock is static in each file that includes
 * this header, as its launch structs are; uncontended it costs tens of
 * nanoseconds against the 4 us of a launch.
 */
#ifndef CRYO_ACC_H
#define CRYO_ACC_H

#include <pthread.h>
#include <string.h>

#define CRYO_PRAGMA(x) _Pragma(#x)

#if defined(_OPENACC)
#include <openacc.h>

/* Threads per gang; a build may set another (-DCRYO_VECTOR_LENGTH=256) to
 * measure it. */
#ifndef CRYO_VECTOR_LENGTH
#define CRYO_VECTOR_LENGTH 128
#endif
#define CRYO_DEVICE_LOOP(ptrs)                                                                     \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(CRYO_VECTOR_LENGTH) deviceptr ptrs)
#define CRYO_DEVICE_LOOP_NOMAP                                                                     \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(CRYO_VECTOR_LENGTH)                      \
                  async(CRYO_DEVICE_QUEUE))
/* The same with one gang per CRYO_VECTOR_LENGTH of the N iterations, so
 * that consecutive gangs take consecutive iterations. GCC otherwise launches a
 * fixed gang count and strides each gang over the whole loop: the mEVP
 * velocity kernel at 4096^2 then moved 4.6 GB per call for a 3.0 GB floor
 * (its neighbouring rows left L2 before they were reused) and took 1.73 ms;
 * sized, 1.18 ms (docs/performance.md, "Gang counts"). The stress kernel
 * was 4 % slower sized and keeps the default. N is read on the host. */
#define CRYO_DEVICE_LOOP_NOMAP_N(n)                                                                \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(CRYO_VECTOR_LENGTH) num_gangs(           \
      ((n) + CRYO_VECTOR_LENGTH - 1) / CRYO_VECTOR_LENGTH) async(CRYO_DEVICE_QUEUE))
#define CRYO_DEVICE_QUEUE 1
#define CRYO_DEVICE_WAIT  CRYO_PRAGMA(acc wait)
/* `acc update device` of a declare-create global copies nothing in GCC 12
 * (docs/design.md, Kernels): the runtime call does. A no-map kernel still queued
 * may read the old arguments: they change only once it has finished. */
#define CRYO_DEVICE_ARGS(var) CRYO_PRAGMA(acc declare create(var))
static inline void cryo_device_args_set(void *dev, const void *fresh, size_t bytes) {
  if (memcmp(dev, fresh, bytes) == 0) return;
  acc_wait_all();
  memcpy(dev, fresh, bytes);
  acc_update_device(dev, bytes);
}
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var)                                                     \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(CRYO_VECTOR_LENGTH)                      \
                  deviceptr ptrs reduction(op                                                      \
                                           : var))
#define CRYO_SEQ_LOOP CRYO_PRAGMA(acc loop seq)
#elif defined(_OPENMP)
#define CRYO_DEVICE_LOOP(ptrs) CRYO_PRAGMA(omp parallel for schedule(static))
#define CRYO_DEVICE_LOOP_NOMAP CRYO_PRAGMA(omp parallel for schedule(static))
#define CRYO_DEVICE_LOOP_NOMAP_N(n) CRYO_PRAGMA(omp parallel for schedule(static))
#define CRYO_DEVICE_WAIT
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var) CRYO_PRAGMA(omp parallel for schedule(static) reduction(op : var))
#define CRYO_SEQ_LOOP
#else
#define CRYO_DEVICE_LOOP(ptrs)
#define CRYO_DEVICE_LOOP_NOMAP
#define CRYO_DEVICE_LOOP_NOMAP_N(n)
#define CRYO_DEVICE_WAIT
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var)
#define CRYO_SEQ_LOOP
#endif

/* CRYO_OPAQUE(p): p keeps its value, but GCC can no longer tell, so loads
 * through it happen where the source reads them, once per CRYO_OPAQUE,
 * instead of being hoisted out of the loop or merged with earlier loads of
 * the same member (volatile: two of them on the same p are not merged). A
 * kernel reading its launch arguments (above) this way keeps fewer values
 * live: the mEVP stress kernels 102-168 -> 48-88 registers on the GPU, the
 * velocity kernels 128-164 -> 72-96 (docs/performance.md, "Stress kernel
 * registers"). Only in GCC's OpenACC build, where it was measured: on the
 * CPU the hoisted values cost nothing worth having, and the empty asm is
 * GCC's syntax. */
#if defined(_OPENACC) && defined(__GNUC__) && !defined(__NVCOMPILER)
#define CRYO_OPAQUE(p) __asm__ volatile("" : "+r"(p))
#else
#define CRYO_OPAQUE(p) ((void)0)
#endif

#if !defined(_OPENACC)
#define CRYO_DEVICE_ARGS(var)
static inline void cryo_device_args_set(void *dev, const void *fresh, size_t bytes) {
  memcpy(dev, fresh, bytes);
}
#endif

static pthread_mutex_t cryo_launch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Take this file's launch lock, then set the launch arguments. */
static inline void cryo_device_args_acquire(void *dev, const void *fresh, size_t bytes) {
  pthread_mutex_lock(&cryo_launch_lock);
  cryo_device_args_set(dev, fresh, bytes);
}

/* After the launch: let the next thread set the arguments. */
static inline void cryo_device_args_release(void) {
  pthread_mutex_unlock(&cryo_launch_lock);
}

#endif
