/* One loop directive for CPU threads and GPUs (STYLE.md rule 6).
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
 */
#ifndef CRYO_ACC_H
#define CRYO_ACC_H

#define CRYO_PRAGMA(x) _Pragma(#x)

#if defined(_OPENACC)
#define CRYO_DEVICE_LOOP(ptrs)                                                                     \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(128) deviceptr ptrs)
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var)                                                     \
  CRYO_PRAGMA(acc parallel loop gang vector vector_length(128) deviceptr ptrs reduction(op : var))
#define CRYO_SEQ_LOOP CRYO_PRAGMA(acc loop seq)
#elif defined(_OPENMP)
#define CRYO_DEVICE_LOOP(ptrs) CRYO_PRAGMA(omp parallel for schedule(static))
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var) CRYO_PRAGMA(omp parallel for schedule(static) reduction(op : var))
#define CRYO_SEQ_LOOP
#else
#define CRYO_DEVICE_LOOP(ptrs)
#define CRYO_DEVICE_LOOP_REDUCE(ptrs, op, var)
#define CRYO_SEQ_LOOP
#endif

#endif
