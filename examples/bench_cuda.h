/* CUDA C twins of three kernels, for cryodyn-bench (examples/bench.c) only.
 *
 * Each twin reads and writes the same device arrays, in the same layout, with
 * the same formulas as its OpenACC original: the sea-ice stress update
 * (kernels/seaice_stress.c), the sea-ice node update
 * (kernels/seaice_velocity.c) and the land-ice residual driver
 * (cryo_landice_residual: zero, 8 colour launches of
 * kernels/landice_residual.c with kernels/landice_element.h, Dirichlet rows;
 * no body force). The pointers are the device addresses the library's device
 * layer hands out. Both runtimes must therefore use one CUDA context:
 * cryo_bench_cuda_start makes the CUDA runtime's (the primary context of
 * device 0) current before OpenACC starts, and GCC's OpenACC runtime adopts
 * the context it finds current instead of creating its own. One thread per cell,
 * node or element, 128 threads per block like the OpenACC vector length.
 * Every call launches and waits for the result, as the OpenACC regions do.
 *
 * Functions return 0 or a CUDA error code; cryo_bench_cuda_error gives its
 * text.
 */
#ifndef CRYO_BENCH_CUDA_H
#define CRYO_BENCH_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "landice.h"
#include "seaice.h"

/* Start the CUDA runtime on device 0; call before cryo_device_init. */
int cryo_bench_cuda_start(void);

/* Check that probe (a device address from the device layer) is device memory
 * of the context the CUDA runtime uses, and write the device name to
 * name[len]. */
int cryo_bench_cuda_init(const void *probe, char *name, size_t len);

int cryo_bench_cuda_stress(const cryo_seaice_params *p, const cryo_block *b, const double *u,
                           const double *v, const double *h, const double *a, const double *mask,
                           double *s11, double *s12, double *s22);

int cryo_bench_cuda_velocity(const cryo_seaice_params *p, const cryo_block *b, const double *s11,
                             const double *s12, const double *s22, const double *h, const double *a,
                             const double *mask, const double *uair, const double *vair,
                             const double *uocn, const double *vocn, const double *u_n,
                             const double *v_n, double *u, double *v);

/* res = R(vel) as cryo_landice_residual computes it when s->body_force is NULL. */
int cryo_bench_cuda_residual(const cryo_block *b, const cryo_landice_params *p,
                             const cryo_landice_state *s, const double *vel, double *res);

/* Registers per thread of the main kernel of a twin ("stress", "velocity" or
 * "residual", dG0 tracers), from cudaFuncGetAttributes; -1 if unknown. */
int cryo_bench_cuda_registers(const char *twin);

const char *cryo_bench_cuda_error(int code);

#ifdef __cplusplus
}
#endif

#endif
