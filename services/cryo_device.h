/* The device data layer (docs/design.md, Host and device): the only place that holds OpenACC
 * data directives. Arrays live on the host and, with OpenACC, in a device copy
 * made at allocation and kept for the whole run; kernels receive the device
 * address. Every host <-> device update is counted, so tests can check that a
 * coupling step moves only the coupling fields. Without OpenACC the device
 * address is the host address and updates only count. */
#ifndef CRYO_DEVICE_H
#define CRYO_DEVICE_H

#include <mpi.h>

#include "cryo_error.h"

typedef struct cryo_device {
  int offload;                 /* 1: arrays have a separate device copy */
  int number;                  /* the GPU this rank uses (node-local numbering), -1 for none */
  int node_devices;            /* GPUs visible on this rank's node */
  int node_rank;               /* this rank among the ranks of its node */
  int node_ranks;              /* ranks on this rank's node */
  int nodes;                   /* nodes the component's communicator spans */
  int devices_used;            /* GPUs used by all ranks together */
  char description[200];       /* which device runs the kernels, for the log */
  long long bytes_to_device;   /* bytes copied host -> device since the last reset */
  long long bytes_to_host;     /* bytes copied device -> host since the last reset */
  long long updates_to_device; /* number of update calls each way */
  long long updates_to_host;
  long long bytes_allocated; /* device memory held, bytes */
  /* the same counts for the whole run, never reset */
  long long total_bytes_to_device, total_bytes_to_host;
  long long total_updates_to_device, total_updates_to_host;
} cryo_device;

/* The GPU a rank takes: its rank among the ranks of its node modulo the
 * node's GPU count, so ranks share the GPUs of their node evenly; -1 when
 * there is none. */
int cryo_device_choose(int node_rank, int ndevices);

/* Select this rank's device (collective over comm: finds the ranks of each
 * node). require_gpu = 1 makes a missing GPU an error (OpenACC builds only:
 * without a GPU their regions would silently run on the host). */
int cryo_device_init(cryo_device *d, MPI_Comm comm, int require_gpu, cryo_err *err);

/* Allocate n doubles, zeroed, on host and device; *dev is what kernels use. */
int cryo_device_alloc(cryo_device *d, long n, double **host, double **dev, cryo_err *err);
/* Release an array from cryo_device_alloc and set *host = NULL. */
void cryo_device_free(cryo_device *d, double **host, long n);
/* The same for n floats (state kept in single precision, docs/seaice.md, Storage precision). */
int cryo_device_alloc_float(cryo_device *d, long n, float **host, float **dev, cryo_err *err);
void cryo_device_free_float(cryo_device *d, float **host, long n);

/* Page-lock the host copy of n doubles from cryo_device_alloc, for arrays
 * that cross between host and device in every iteration (the staged halo
 * lines): a copy from pageable memory goes through the driver's bounce
 * buffer. The CUDA driver's cuMemHostRegister, looked up in the driver
 * library that GCC's offload plugin has loaded. Returns 1 when locked; 0
 * (no GPU in use, or the call is missing or fails) with the reason in why.
 * cryo_device_unpin before cryo_device_free. */
int cryo_device_pin(cryo_device *d, double *host, long n, char *why, int len);
void cryo_device_unpin(cryo_device *d, double *host);

/* Device memory shared with another process of the same node (CUDA IPC,
 * through the driver library the offload plugin has loaded, looked up at run
 * time). Export: the handle of the allocation holding the device array dev
 * and dev's offset in it. Open, in the other process: map it, *base to pass
 * to close, *peer = the array. Each returns 1, or 0 with the reason in why
 * (no GPU in use, a call missing, or the CUresult it returned). */
typedef struct cryo_device_ipc {
  unsigned char handle[64]; /* CU_IPC_HANDLE_SIZE */
  long offset;              /* bytes */
} cryo_device_ipc;
int cryo_device_ipc_export(cryo_device *d, double *dev, cryo_device_ipc *out, char *why, int len);
int cryo_device_ipc_open(cryo_device *d, const cryo_device_ipc *in, void **base, double **peer,
                         char *why, int len);
void cryo_device_ipc_close(cryo_device *d, void *base);

/* Copy host[offset, offset + n) to the device copy, or back. */
void cryo_device_to_device(cryo_device *d, double *host, long offset, long n);
void cryo_device_to_host(cryo_device *d, double *host, long offset, long n);

/* Wait until every queued kernel has finished (kernels/cryo_acc.h queues the
 * mEVP kernels asynchronously). */
void cryo_device_wait(void);

void cryo_device_reset_counters(cryo_device *d);

#endif
