/* OpenACC data management: enter data at allocation, exit data at release,
 * named updates. GCC 12 facts behind the choices: shared/notes/gpu.md. */
#include "cryo_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENACC)
#include <openacc.h>
#endif

int cryo_device_init(cryo_device *d, int require_gpu, cryo_err *err) {
  memset(d, 0, sizeof *d);
#if defined(_OPENACC)
  int ngpu = acc_get_num_devices(acc_device_nvidia);
  if (ngpu > 0) {
    acc_set_device_type(acc_device_nvidia);
    acc_init(acc_device_nvidia);
    d->offload = 1;
    snprintf(d->description, sizeof d->description, "OpenACC on NVIDIA GPU %d of %d",
             acc_get_device_num(acc_device_nvidia), ngpu);
    return CRYO_OK;
  }
  CRYO_CHECK(!require_gpu, err, CRYO_ERR_DEVICE,
             "a GPU was requested (device = 'gpu') but OpenACC finds no NVIDIA device");
  snprintf(d->description, sizeof d->description, "OpenACC build running on the host (no GPU)");
#else
  CRYO_CHECK(!require_gpu, err, CRYO_ERR_UNSUPPORTED,
             "a GPU was requested (device = 'gpu') but this build has no OpenACC "
             "(configure --enable-openacc)");
#if defined(_OPENMP)
  snprintf(d->description, sizeof d->description, "CPU, OpenMP threads");
#else
  snprintf(d->description, sizeof d->description, "CPU, one thread per rank");
#endif
#endif
  return CRYO_OK;
}

int cryo_device_alloc(cryo_device *d, long n, double **host, double **dev, cryo_err *err) {
  CRYO_CHECK(n > 0, err, CRYO_ERR_ARG, "device allocation of %ld values", n);
  double *h = calloc((size_t)n, sizeof *h);
  CRYO_CHECK(h, err, CRYO_ERR_MEMORY, "out of memory allocating %ld values", n);
#if defined(_OPENACC)
#pragma acc enter data copyin(h [0:n])
  *dev = acc_deviceptr(h);
  if (!*dev) {
    free(h);
    return CRYO_ERROR(err, CRYO_ERR_DEVICE, "device allocation of %ld bytes failed",
                      n * (long)sizeof *h);
  }
#else
  *dev = h;
#endif
  *host = h;
  d->bytes_allocated += n * (long long)sizeof *h;
  return CRYO_OK;
}

void cryo_device_free(cryo_device *d, double **host, long n) {
  double *h = *host;
  if (!h) return;
#if defined(_OPENACC)
#pragma acc exit data delete (h [0:n])
#endif
  free(h);
  d->bytes_allocated -= n * (long long)sizeof *h;
  *host = NULL;
}

void cryo_device_to_device(cryo_device *d, double *host, long offset, long n) {
  if (n <= 0) return;
#if defined(_OPENACC)
#pragma acc update device(host [offset:n])
#else
  (void)host;
  (void)offset;
#endif
  d->bytes_to_device += n * (long long)sizeof *host;
  d->updates_to_device += 1;
}

void cryo_device_to_host(cryo_device *d, double *host, long offset, long n) {
  if (n <= 0) return;
#if defined(_OPENACC)
#pragma acc update self(host [offset:n])
#else
  (void)host;
  (void)offset;
#endif
  d->bytes_to_host += n * (long long)sizeof *host;
  d->updates_to_host += 1;
}

void cryo_device_reset_counters(cryo_device *d) {
  d->bytes_to_device = d->bytes_to_host = 0;
  d->updates_to_device = d->updates_to_host = 0;
}
