/* OpenACC data management: device selection, enter data at allocation, exit
 * data at release, named updates.
 *
 * Device start-up in GCC's libgomp: acc_set_device_type already initializes
 * the device, and a following acc_init aborts the process ("device already
 * active"), so only acc_set_device_num is called, after acc_get_num_devices
 * has said there is a device to take. */
#include "cryo_device.h"
#include "cryo_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENACC)
#include <dlfcn.h>
#endif

#if defined(_OPENACC)
#include <openacc.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

int cryo_device_choose(int node_rank, int ndevices) {
  if (ndevices <= 0 || node_rank < 0) return -1;
  return node_rank % ndevices;
}

/* This rank's place on its node: ranks of one shared-memory node, in
 * rank order, and how many nodes the communicator spans. */
static int node_layout(MPI_Comm comm, int *node_rank, int *node_size, int *nodes, cryo_err *err) {
  MPI_Comm node;
  CRYO_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
           "MPI_Comm_split_type", err);
  /* the node communicator is freed whatever the queries return */
  int status = cryo_mpi_check(MPI_Comm_rank(node, node_rank), "MPI_Comm_rank", err);
  if (status == CRYO_OK)
    status = cryo_mpi_check(MPI_Comm_size(node, node_size), "MPI_Comm_size", err);
  int freed = MPI_Comm_free(&node);
  CRYO_CALL(status);
  CRYO_MPI(freed, "MPI_Comm_free", err);
  int first = *node_rank == 0;
  CRYO_MPI(MPI_Allreduce(&first, nodes, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce", err);
  return CRYO_OK;
}

#if defined(_OPENACC)
static void describe_gpu(cryo_device *d, int num) {
  const char *name = acc_get_property_string(num, acc_device_nvidia, acc_property_name);
  size_t bytes = acc_get_property(num, acc_device_nvidia, acc_property_memory);
  snprintf(d->description, sizeof d->description,
           "GPU %d of %d on its node: %s, %.1f GiB (OpenACC)", num, d->node_devices,
           name ? name : "NVIDIA GPU", (double)bytes / (1 << 30));
}
#endif

int cryo_device_init(cryo_device *d, MPI_Comm comm, int require_gpu, cryo_err *err) {
  memset(d, 0, sizeof *d);
  d->number = -1;
  CRYO_CALL(node_layout(comm, &d->node_rank, &d->node_ranks, &d->nodes, err));
#if defined(_OPENACC)
  d->node_devices = acc_get_num_devices(acc_device_nvidia);
  d->number = cryo_device_choose(d->node_rank, d->node_devices);
  if (d->number >= 0) {
    acc_set_device_num(d->number, acc_device_nvidia);
    d->offload = 1;
    describe_gpu(d, d->number);
  } else {
    CRYO_CHECK(!require_gpu, err, CRYO_ERR_DEVICE,
               "a GPU was requested (device = 'gpu') but OpenACC finds no NVIDIA device: no GPU, "
               "no NVIDIA driver (libcuda.so.1), or GCC's offload plugin "
               "libgomp-plugin-nvptx.so.1 not on the library path");
    snprintf(d->description, sizeof d->description,
             "CPU: OpenACC build running on the host (no GPU found)");
  }
#else
  CRYO_CHECK(!require_gpu, err, CRYO_ERR_UNSUPPORTED,
             "a GPU was requested (device = 'gpu') but this build has no OpenACC "
             "(configure --enable-openacc)");
#if defined(_OPENMP)
  snprintf(d->description, sizeof d->description, "CPU: %d OpenMP threads per rank",
           omp_get_max_threads());
#else
  snprintf(d->description, sizeof d->description, "CPU: one thread per rank");
#endif
#endif
  /* GPUs in use over all nodes: each node's first rank counts its own. */
  int node_used =
      d->node_rank == 0 ? (d->node_ranks < d->node_devices ? d->node_ranks : d->node_devices) : 0;
  return cryo_mpi_check(MPI_Allreduce(&node_used, &d->devices_used, 1, MPI_INT, MPI_SUM, comm),
                        "MPI_Allreduce", err);
}

/* n values of `size` bytes (a multiple of 4), zeroed, on host and device. */
static int device_alloc(cryo_device *d, long n, size_t size, void **host, void **dev,
                        cryo_err *err) {
  CRYO_CHECK(n > 0, err, CRYO_ERR_ARG, "device allocation of %ld values", n);
  char *h = calloc((size_t)n, size);
  CRYO_CHECK(h, err, CRYO_ERR_MEMORY, "out of memory allocating %ld values", n);
  const long bytes = n * (long)size;
#if defined(_OPENACC)
#pragma acc enter data create(h [0:bytes])
  *dev = acc_deviceptr(h);
  if (!*dev) {
    free(h);
    return CRYO_ERROR(err, CRYO_ERR_DEVICE, "device allocation of %ld bytes failed", bytes);
  }
  /* the device copy starts as zeros, as the host's: written there rather
   * than copied over the bus from host pages that reading would first map
   * (copyin moved the whole state, about 8 GB at the 2 km Arctic, at
   * start-up); on the host fallback the device address is the host's */
  if (*dev != h) {
    unsigned *z = *dev;
    const long words = bytes / (long)sizeof *z;
#pragma acc parallel loop deviceptr(z)
    for (long i = 0; i < words; ++i)
      z[i] = 0u;
  }
#else
  *dev = h;
#endif
  *host = h;
  d->bytes_allocated += bytes;
  return CRYO_OK;
}

static void device_free(cryo_device *d, void **host, long n, size_t size) {
  char *h = *host;
  if (!h) return;
  const long bytes = n * (long)size;
#if defined(_OPENACC)
#pragma acc exit data delete (h [0:bytes])
#endif
  free(h);
  d->bytes_allocated -= bytes;
  *host = NULL;
}

int cryo_device_alloc(cryo_device *d, long n, double **host, double **dev, cryo_err *err) {
  void *h = NULL, *v = NULL;
  CRYO_CALL(device_alloc(d, n, sizeof **host, &h, &v, err));
  *host = h;
  *dev = v;
  return CRYO_OK;
}

void cryo_device_free(cryo_device *d, double **host, long n) {
  void *h = *host;
  device_free(d, &h, n, sizeof **host);
  *host = h;
}

int cryo_device_alloc_float(cryo_device *d, long n, float **host, float **dev, cryo_err *err) {
  void *h = NULL, *v = NULL;
  CRYO_CALL(device_alloc(d, n, sizeof **host, &h, &v, err));
  *host = h;
  *dev = v;
  return CRYO_OK;
}

void cryo_device_free_float(cryo_device *d, float **host, long n) {
  void *h = *host;
  device_free(d, &h, n, sizeof **host);
  *host = h;
}

#if defined(_OPENACC)
/* A CUDA driver call of the library already loaded (RTLD_NOLOAD: never a
 * second driver), or NULL. */
static void *driver_call(const char *name) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return NULL;
  void *fn = dlsym(lib, name);
  dlclose(lib); /* the offload plugin keeps it loaded */
  return fn;
}
#endif

int cryo_device_pin(cryo_device *d, double *host, long n, char *why, int len) {
#if defined(_OPENACC)
  if (!d->offload) {
    snprintf(why, (size_t)len, "no GPU in use");
    return 0;
  }
  /* CUresult cuMemHostRegister(void *, size_t, unsigned), flag PORTABLE */
  int (*reg)(void *, size_t, unsigned) =
      (int (*)(void *, size_t, unsigned))driver_call("cuMemHostRegister_v2");
  if (!reg) {
    snprintf(why, (size_t)len, "the CUDA driver library has no cuMemHostRegister_v2");
    return 0;
  }
  const int status = reg(host, (size_t)n * sizeof *host, 1u);
  if (status != 0) {
    snprintf(why, (size_t)len, "cuMemHostRegister returned CUresult %d", status);
    return 0;
  }
  snprintf(why, (size_t)len, "page-locked");
  return 1;
#else
  (void)d;
  (void)host;
  (void)n;
  snprintf(why, (size_t)len, "no GPU in use");
  return 0;
#endif
}

void cryo_device_unpin(cryo_device *d, double *host) {
#if defined(_OPENACC)
  int (*unreg)(void *) = (int (*)(void *))driver_call("cuMemHostUnregister");
  if (d->offload && host && unreg) unreg(host);
#else
  (void)d;
  (void)host;
#endif
}

#if defined(_OPENACC)
/* The driver API's types as the ABI has them: CUdeviceptr, CUipcMemHandle. */
typedef unsigned long long driver_ptr;
typedef struct driver_ipc_handle {
  char reserved[64];
} driver_ipc_handle;
#endif

int cryo_device_ipc_export(cryo_device *d, double *dev, cryo_device_ipc *out, char *why, int len) {
  memset(out, 0, sizeof *out);
#if defined(_OPENACC)
  int (*range)(driver_ptr *, size_t *, driver_ptr) =
      (int (*)(driver_ptr *, size_t *, driver_ptr))driver_call("cuMemGetAddressRange_v2");
  int (*get)(driver_ipc_handle *, driver_ptr) =
      (int (*)(driver_ipc_handle *, driver_ptr))driver_call("cuIpcGetMemHandle");
  if (!d->offload || !range || !get) {
    snprintf(why, (size_t)len, "%s",
             !d->offload ? "no GPU in use"
                         : "the CUDA driver library lacks cuMemGetAddressRange_v2 or "
                           "cuIpcGetMemHandle");
    return 0;
  }
  driver_ptr base = 0;
  size_t size = 0;
  driver_ipc_handle handle;
  int status = range(&base, &size, (driver_ptr)(size_t)dev);
  if (status == 0) status = get(&handle, base);
  if (status != 0) {
    snprintf(why, (size_t)len, "cuIpcGetMemHandle returned CUresult %d", status);
    return 0;
  }
  memcpy(out->handle, &handle, sizeof out->handle);
  out->offset = (long)((driver_ptr)(size_t)dev - base);
  return 1;
#else
  (void)d;
  (void)dev;
  snprintf(why, (size_t)len, "no GPU in use");
  return 0;
#endif
}

int cryo_device_ipc_open(cryo_device *d, const cryo_device_ipc *in, void **base, double **peer,
                         char *why, int len) {
  *base = NULL;
  *peer = NULL;
#if defined(_OPENACC)
  int (*open)(driver_ptr *, driver_ipc_handle, unsigned) =
      (int (*)(driver_ptr *, driver_ipc_handle, unsigned))driver_call("cuIpcOpenMemHandle_v2");
  if (!d->offload || !open) {
    snprintf(why, (size_t)len, "%s",
             !d->offload ? "no GPU in use" : "the CUDA driver library lacks cuIpcOpenMemHandle_v2");
    return 0;
  }
  driver_ipc_handle handle;
  memcpy(&handle, in->handle, sizeof handle);
  driver_ptr mapped = 0;
  /* flag CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: kernels here write there */
  const int status = open(&mapped, handle, 1u);
  if (status != 0) {
    snprintf(why, (size_t)len, "cuIpcOpenMemHandle returned CUresult %d", status);
    return 0;
  }
  *base = (void *)(size_t)mapped;
  *peer = (double *)(void *)((char *)*base + in->offset);
  return 1;
#else
  (void)d;
  (void)in;
  snprintf(why, (size_t)len, "no GPU in use");
  return 0;
#endif
}

void cryo_device_ipc_close(cryo_device *d, void *base) {
#if defined(_OPENACC)
  int (*close)(driver_ptr) = (int (*)(driver_ptr))driver_call("cuIpcCloseMemHandle");
  if (d->offload && base && close) close((driver_ptr)(size_t)base);
#else
  (void)d;
  (void)base;
#endif
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
  d->total_bytes_to_device += n * (long long)sizeof *host;
  d->total_updates_to_device += 1;
}

void cryo_device_wait(void) {
#if defined(_OPENACC)
#pragma acc wait
#endif
}

void cryo_device_to_host(cryo_device *d, double *host, long offset, long n) {
  if (n <= 0) return;
#if defined(_OPENACC)
    /* kernels may still be queued (kernels/cryo_acc.h) */
#pragma acc wait
#pragma acc update self(host [offset:n])
#else
  (void)host;
  (void)offset;
#endif
  d->bytes_to_host += n * (long long)sizeof *host;
  d->updates_to_host += 1;
  d->total_bytes_to_host += n * (long long)sizeof *host;
  d->total_updates_to_host += 1;
}

void cryo_device_reset_counters(cryo_device *d) {
  d->bytes_to_device = d->bytes_to_host = 0;
  d->updates_to_device = d->updates_to_host = 0;
}
