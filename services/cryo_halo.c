/* Halo exchange through packed buffers: pack on the device, MPI_Irecv /
 * MPI_Isend with both neighbours of an axis at once, unpack on the device. x
 * first over the owned rows, then y over whole rows including the x halo, so
 * corners arrive too. With periodic wrap a rank may be its own neighbour:
 * the line then stays on the device. Cells own [0, nx); nodes [0, nx] are
 * computed by every block that touches them, so the west neighbour's halo
 * node is our node 1.
 *
 * The packed lines reach MPI in one of two ways (&cryo_run
 * halo_device_buffers): MPI reads and writes the device buffers themselves
 * when the MPI library is CUDA-aware, or they are staged through their host
 * copies, one update each way per axis. Either way nothing else crosses
 * between host and device. The buffers' device addresses come from the device
 * layer (acc_deviceptr, what `acc host_data use_device` gives): this file
 * holds no OpenACC directive.
 *
 * A halo made without a device layer fills host arrays (the exchange layer's
 * forcing buffers): the same lines, packed and unpacked on the host straight
 * into the buffers MPI takes.
 *
 * At a domain edge that does not wrap the halo is left alone, unless the halo
 * clamps (cryo_halo_set_clamp): then, after each axis, the halo line there
 * takes the nearest owned line, copied on this rank as a periodic wrap onto
 * itself is, so the y exchange carries clamped x halos and the corners follow.
 *
 * On a grid with a north fold (docs/design.md, Folded grids) a third step
 * follows y: the ranks of the top process row gather the two rows next to the
 * fold (their owned columns, packed on the device; MPI_Allgatherv within that
 * row, through the same two paths), and each fills the points the fold
 * writes, its halo corners included, from the global rows. The rows it reads
 * are owned points that the fold never writes, so every rank fills its points
 * from the same bits; a single rank in the top row reads its own packed rows,
 * which never leave the device.
 *
 * A halo that this rank fills alone (one rank in x and y, device arrays) takes
 * none of these steps: one kernel, queued behind those that wrote the fields,
 * writes every halo point from where the steps above would finally have
 * taken its value (cryo_halo_local_fill), to the same bits. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "config.h"

#include "cryo_device.h"
#include "cryo_grid.h"
#include "halo.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HAVE_MPI_EXT_H)
#include <mpi-ext.h>
#endif

/* One direction of an axis: the line at send_index goes to `to`, the line
 * for recv_index comes from `from`. */
typedef struct halo_dir {
  int send_index, to, recv_index, from;
} halo_dir;

/* The messages of one axis in flight: from axis_start to axis_finish. */
typedef struct halo_flight {
  int axis, first, count; /* the lines (copy_line) */
  halo_dir dir[2];
  int receiving[2];
  int peer[2]; /* 1: line d arrives written by a rank of this node (peers) */
  int parity;  /* of this axis's exchange: which half of the receive buffer peers write */
  MPI_Request req[4];
  int nreq;
} halo_flight;

/* An exchange begun (cryo_halo_exchange_begin) and not yet ended. */
typedef struct halo_open {
  int active;
  cryo_location loc;
  int nlev, nfield;
  unsigned flip;
  double *q[CRYO_HALO_MAX_FIELDS];
  int in_flight; /* 1: begin started `flight`; 0: end does the whole exchange */
  halo_flight flight;
} halo_open;

struct cryo_halo {
  const cryo_grid *grid;
  cryo_device *dev;        /* NULL: the fields are host arrays */
  long capacity;           /* values per line; each buffer holds two lines */
  double *send_h, *send_d; /* host and device addresses of the send buffer */
  double *recv_h, *recv_d;
  int device_buffers; /* 1: MPI gets send_d / recv_d */
  int clamp;          /* 1: the halo at a closed domain edge repeats the nearest owned line */
  int general;        /* 1: a halo this rank fills alone goes through the steps all the same */
  int pinned;         /* 1: send_h and recv_h are page-locked (cryo_device_pin) */
  char pin_why[96];   /* why not, when not */
  /* neighbours of this node that write their lines straight into recv_d
   * (cryo_halo_connect_peers): their rank, their recv_d mapped here, the
   * mapping to close */
  int npeer, peer_rank[4];
  double *peer_recv[4];
  long peer_capacity[4]; /* values per line of the peer's buffers */
  void *peer_base[4];
  long axis_count[2]; /* axis exchanges so far: their parity picks the half peers write */
  char path[CRYO_HALO_PATH_LEN];
  double seconds;       /* in cryo_halo_exchange, after the wait for queued kernels (none
                           when this rank fills the halo alone: the time to queue it) */
  long exchanges;       /* cryo_halo_exchange calls */
  long long bytes_sent; /* through MPI */
  /* north fold: this rank's packed rows and the global rows gathered, with
   * the counts and offsets of each rank of the top row (values) */
  double *fold_h, *fold_d, *rows_h, *rows_d;
  long fold_capacity, rows_capacity;
  int *fold_counts, *fold_offsets;
  halo_open open; /* an exchange between cryo_halo_exchange_begin and _end */
};

/* The north fold's buffers: two rows of this block and two global rows. */
static int create_fold_buffers(cryo_halo *h, long max_values_per_point, cryo_err *err) {
  const cryo_grid *g = h->grid;
  h->fold_capacity = 2L * g->block.nx * max_values_per_point;
  h->rows_capacity = 2L * g->block.nx_global * max_values_per_point;
  h->fold_counts = calloc((size_t)g->px_count, sizeof(int));
  h->fold_offsets = calloc((size_t)g->px_count, sizeof(int));
  CRYO_CHECK(h->fold_counts && h->fold_offsets, err, CRYO_ERR_MEMORY,
             "out of memory for the north fold's counts");
  if (h->dev) {
    CRYO_CALL(cryo_device_alloc(h->dev, h->fold_capacity, &h->fold_h, &h->fold_d, err));
    return cryo_device_alloc(h->dev, h->rows_capacity, &h->rows_h, &h->rows_d, err);
  }
  h->fold_h = h->fold_d = calloc((size_t)h->fold_capacity, sizeof(double));
  h->rows_h = h->rows_d = calloc((size_t)h->rows_capacity, sizeof(double));
  CRYO_CHECK(h->fold_h && h->rows_h, err, CRYO_ERR_MEMORY,
             "out of memory for the north fold's buffers");
  return CRYO_OK;
}

/* Buffers of a halo of host arrays: one address each, the one MPI takes. */
static int create_host_buffers(cryo_halo **hp, cryo_halo *h, cryo_err *err) {
  snprintf(h->path, sizeof h->path, "host arrays, host buffers");
  h->send_h = h->send_d = calloc((size_t)(2 * h->capacity), sizeof(double));
  h->recv_h = h->recv_d = calloc((size_t)(2 * h->capacity), sizeof(double));
  if (!h->send_h || !h->recv_h) {
    cryo_halo_destroy(&h);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "out of memory for the halo exchange buffers");
  }
  *hp = h;
  return CRYO_OK;
}

int cryo_halo_create(cryo_halo **hp, const cryo_grid *g, cryo_device *dev, int max_values_per_point,
                     cryo_err *err) {
  cryo_halo *h = calloc(1, sizeof *h);
  CRYO_CHECK(h, err, CRYO_ERR_MEMORY, "out of memory for the halo exchange");
  h->grid = g;
  h->dev = dev;
  int longest = (g->block.nx > g->block.ny ? g->block.nx : g->block.ny) + 3;
  h->capacity = (long)longest * max_values_per_point;
  if (g->block.fold) {
    int status = create_fold_buffers(h, max_values_per_point, err);
    if (status != CRYO_OK) {
      cryo_halo_destroy(&h);
      return status;
    }
  }
  if (!dev) return create_host_buffers(hp, h, err);
  snprintf(h->path, sizeof h->path, "staged through host buffers");
  int status = cryo_device_alloc(dev, 2 * h->capacity, &h->send_h, &h->send_d, err);
  if (status == CRYO_OK)
    status = cryo_device_alloc(dev, 4 * h->capacity, &h->recv_h, &h->recv_d, err);
  if (status != CRYO_OK) {
    cryo_halo_destroy(&h);
    return status;
  }
  /* the staged lines cross in every iteration: page-locked, they go by DMA
   * instead of through the driver's bounce buffer */
  h->pinned = cryo_device_pin(dev, h->send_h, 2 * h->capacity, h->pin_why, sizeof h->pin_why);
  if (h->pinned &&
      !cryo_device_pin(dev, h->recv_h, 4 * h->capacity, h->pin_why, sizeof h->pin_why)) {
    cryo_device_unpin(dev, h->send_h);
    h->pinned = 0;
  }
  *hp = h;
  return CRYO_OK;
}

void cryo_halo_destroy(cryo_halo **hp) {
  cryo_halo *h = *hp;
  if (!h) return;
  if (h->dev) {
    if (h->pinned) {
      cryo_device_unpin(h->dev, h->send_h);
      cryo_device_unpin(h->dev, h->recv_h);
    }
    cryo_device_free(h->dev, &h->send_h, 2 * h->capacity);
    for (int k = 0; k < h->npeer; ++k)
      cryo_device_ipc_close(h->dev, h->peer_base[k]);
    cryo_device_free(h->dev, &h->recv_h, 4 * h->capacity);
    cryo_device_free(h->dev, &h->fold_h, h->fold_capacity);
    cryo_device_free(h->dev, &h->rows_h, h->rows_capacity);
  } else {
    free(h->send_h);
    free(h->recv_h);
    free(h->fold_h);
    free(h->rows_h);
  }
  free(h->fold_counts);
  free(h->fold_offsets);
  free(h);
  *hp = NULL;
}

int cryo_halo_mpi_cuda_aware(char *why, int len) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  const char *built = MPIX_CUDA_AWARE_SUPPORT ? "" : "; built against an Open MPI without CUDA";
#else
  const char *built = "";
#endif
  /* Looked up in the running library rather than linked: the library at run
   * time may differ from the one built against, and may lack the call. */
  int (*query)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support");
  if (!query) {
    snprintf(why, (size_t)len,
             "the MPI library has no MPIX_Query_cuda_support (Open MPI's cuda extension)%s", built);
    return 0;
  }
  int yes = query() == 1;
  snprintf(why, (size_t)len, "MPIX_Query_cuda_support() = %d: the MPI library is %sCUDA-aware%s",
           yes, yes ? "" : "not ", built);
  return yes;
}

int cryo_halo_choose(const char *setting, const char *source, int gpu, const char *device,
                     int cuda_aware, const char *aware_why, int *device_buffers, char *why, int len,
                     cryo_err *err) {
  *device_buffers = 0;
  int yes = !strcmp(setting, "yes");
  CRYO_CHECK(yes || !strcmp(setting, "auto") || !strcmp(setting, "no"), err, CRYO_ERR_RANGE,
             "%s: &cryo_run: halo_device_buffers = '%s', expected 'auto', 'yes' or 'no'", source,
             setting);
  if (!strcmp(setting, "no")) {
    snprintf(why, (size_t)len, "staged through host buffers (halo_device_buffers = 'no')");
    return CRYO_OK;
  }
  if (!gpu) {
    CRYO_CHECK(!yes, err, CRYO_ERR_UNSUPPORTED,
               "%s: &cryo_run: halo_device_buffers = 'yes' passes GPU memory to MPI, but this "
               "rank has no GPU (%s): set 'auto' or 'no'",
               source, device);
    snprintf(why, (size_t)len, "host buffers (no GPU: the arrays are in host memory)");
    return CRYO_OK;
  }
  if (!cuda_aware) {
    CRYO_CHECK(!yes, err, CRYO_ERR_UNSUPPORTED,
               "%s: &cryo_run: halo_device_buffers = 'yes' needs a CUDA-aware MPI, but %s: run "
               "with a CUDA-aware Open MPI, or set 'auto' or 'no'",
               source, aware_why);
    snprintf(why, (size_t)len, "staged through host buffers (%s)", aware_why);
    return CRYO_OK;
  }
  *device_buffers = 1;
  snprintf(why, (size_t)len, "device buffers straight to MPI (halo_device_buffers = '%s'; %s)",
           setting, aware_why);
  return CRYO_OK;
}

void cryo_halo_set_clamp(cryo_halo *h, int clamp) {
  h->clamp = clamp;
}

void cryo_halo_set_general(cryo_halo *h, int general) {
  h->general = general;
}

void cryo_halo_set_path(cryo_halo *h, int device_buffers, const char *why) {
  h->device_buffers = device_buffers;
  if (device_buffers || !h->dev || !h->dev->offload)
    snprintf(h->path, sizeof h->path, "%s", why);
  else
    snprintf(h->path, sizeof h->path, "%s; host buffers %s%s%s", why,
             h->pinned ? "page-locked" : "pageable (", h->pinned ? "" : h->pin_why,
             h->pinned ? "" : ")");
}

/* The smallest rank of comm on this rank's node. */
static int node_leader(MPI_Comm comm, int rank, int *leader, cryo_err *err) {
  MPI_Comm node;
  CRYO_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
           "MPI_Comm_split_type", err);
  int status =
      cryo_mpi_check(MPI_Allreduce(&rank, leader, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce", err);
  int freed = MPI_Comm_free(&node);
  CRYO_CALL(status);
  return cryo_mpi_check(freed, "MPI_Comm_free", err);
}

/* Exchange n bytes with each of the k ranks: mine + j stride to rank[j]
 * (stride 0: the same to all), theirs + j n from rank[j]. Non-blocking, so
 * that no order of the neighbours can wait in a circle. */
static int trade(const cryo_grid *g, const void *mine, int stride, void *theirs, int n,
                 const int *rank, int k, int tag, cryo_err *err) {
  MPI_Request req[8];
  int nreq = 0;
  for (int j = 0; j < k; ++j)
    CRYO_MPI(MPI_Irecv((char *)theirs + (size_t)j * (size_t)n, n, MPI_BYTE, rank[j], tag, g->comm,
                       &req[nreq++]),
             "MPI_Irecv (halo peers)", err);
  for (int j = 0; j < k; ++j)
    CRYO_MPI(MPI_Isend((const char *)mine + (size_t)j * (size_t)stride, n, MPI_BYTE, rank[j], tag,
                       g->comm, &req[nreq++]),
             "MPI_Isend (halo peers)", err);
  return cryo_mpi_check(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall (halo peers)",
                        err);
}

int cryo_halo_connect_peers(cryo_halo *h, int wanted, cryo_err *err) {
  const cryo_grid *g = h->grid;
  const int side[4] = {g->west, g->east, g->south, g->north};
  int rank[4], k = 0;
  for (int s = 0; s < 4; ++s) {
    int seen = side[s] == MPI_PROC_NULL || side[s] == g->rank;
    for (int j = 0; j < k && !seen; ++j)
      seen = rank[j] == side[s];
    if (!seen) rank[k++] = side[s];
  }
  struct offer {
    cryo_device_ipc ipc;
    long capacity;
    int node, able;
  } mine, theirs[4];
  memset(&mine, 0, sizeof mine);
  char why[160] = "not wanted (halo_peer = 'no')";
  mine.capacity = h->capacity;
  mine.able = wanted && h->dev && h->dev->offload && !h->device_buffers;
  if (wanted && !mine.able) snprintf(why, sizeof why, "no GPU in use, or MPI takes device buffers");
  if (mine.able) mine.able = cryo_device_ipc_export(h->dev, h->recv_d, &mine.ipc, why, sizeof why);
  /* every rank takes part in both trades, whatever it can do */
  CRYO_CALL(node_leader(g->comm, g->rank, &mine.node, err));
  CRYO_CALL(trade(g, &mine, 0, theirs, (int)sizeof mine, rank, k, 300, err));
  int opened[4] = {0}, agreed[4] = {0};
  void *base[4] = {0};
  double *peer[4] = {0};
  for (int j = 0; j < k; ++j)
    if (mine.able && theirs[j].able && theirs[j].node == mine.node)
      opened[j] = cryo_device_ipc_open(h->dev, &theirs[j].ipc, &base[j], &peer[j], why, sizeof why);
  CRYO_CALL(trade(g, opened, (int)sizeof *opened, agreed, (int)sizeof *agreed, rank, k, 301, err));
  for (int j = 0; j < k; ++j) {
    if (opened[j] && agreed[j]) {
      h->peer_rank[h->npeer] = rank[j];
      h->peer_recv[h->npeer] = peer[j];
      h->peer_capacity[h->npeer] = theirs[j].capacity;
      h->peer_base[h->npeer++] = base[j];
    } else if (opened[j]) {
      cryo_device_ipc_close(h->dev, base[j]);
    }
  }
  const size_t used = strlen(h->path);
  if (h->npeer > 0)
    snprintf(h->path + used, sizeof h->path - used,
             "; but %d neighbour(s) of this node write their lines GPU to GPU (CUDA IPC)",
             h->npeer);
  else if (k > 0 && wanted && h->dev && h->dev->offload && !h->device_buffers)
    snprintf(h->path + used, sizeof h->path - used, "; no neighbour writes by CUDA IPC (%s)", why);
  return CRYO_OK;
}

const char *cryo_halo_path(const cryo_halo *h) {
  return h->path;
}

void cryo_halo_stats(const cryo_halo *h, double *seconds, long *exchanges, long long *bytes_sent) {
  *seconds = h->seconds;
  *exchanges = h->exchanges;
  *bytes_sent = h->bytes_sent;
}

/* cryo_halo_lines_copy (kernels/halo.h) for host arrays: the same values in
 * the same buffer order, one point's levels at a time. */
static void lines_copy_host(const cryo_halo_lines *a) {
  const size_t bytes = sizeof(double) * (size_t)a->nlev;
  for (int d = 0; d < 2; ++d) {
    if (a->from[d] < 0 && a->to[d] < 0) continue;
    for (long f = 0; f < a->nfield; ++f)
      for (long p = 0; p < a->count; ++p) {
        double *line = a->buf[d] + (f * a->count + p) * a->nlev;
        const double *from = a->from[d] < 0 ? line : a->f[f] + (a->from[d] + p * a->step) * a->nlev;
        double *to = a->to[d] < 0 ? line : a->f[f] + (a->to[d] + p * a->step) * a->nlev;
        memcpy(to, from, bytes);
      }
  }
}

/* The lines of axis fl->axis with nothing to copy yet; buf: the buffer of
 * the stage, send (0) or receive (1), line d at buf + d * n. */
static cryo_halo_lines lines_make(const cryo_block *b, cryo_location loc, const halo_flight *fl,
                                  int nlev, int nfield, double *const *q, double *buf) {
  const long n = (long)fl->count * nlev * nfield;
  cryo_halo_lines a = {.buf = {buf, buf + n}, .nfield = nfield, .nlev = nlev, .count = fl->count};
  a.step = cryo_halo_line_step(b, loc, fl->axis);
  for (int f = 0; f < nfield; ++f)
    a.f[f] = q[f];
  a.from[0] = a.from[1] = a.to[0] = a.to[1] = -1;
  return a;
}

/* Where line `index` of the flight starts in its fields (points). */
static long line_at(const cryo_block *b, cryo_location loc, const halo_flight *fl, int index) {
  return cryo_halo_line_base(b, loc, fl->axis, index, fl->first);
}

/* Copy the lines of a stage: one queued launch on the device. */
static void lines_copy(const cryo_halo *h, const cryo_halo_lines *a, const halo_flight *fl,
                       int stage) {
  if (a->from[0] < 0 && a->to[0] < 0 && a->from[1] < 0 && a->to[1] < 0) return;
  if (h->dev)
    cryo_halo_lines_copy(a, fl->axis, stage, fl->parity);
  else
    lines_copy_host(a);
}

/* Values [offset, offset + count) of the lines d = 0, 1 that are active (a
 * contiguous range: line d sits at d * n). */
static void active_range(const int active[2], long n, long *offset, long *count) {
  *offset = active[0] ? 0 : n;
  *count = (long)(active[0] + active[1]) * n;
}

/* Rank r's receive buffer mapped here and its capacity, when r is a peer. */
static double *peer_of(const cryo_halo *h, int r, long *capacity) {
  for (int k = 0; k < h->npeer; ++k)
    if (h->peer_rank[k] == r) {
      if (capacity) *capacity = h->peer_capacity[k];
      return h->peer_recv[k];
    }
  return NULL;
}

/* Start both directions of one axis at once: post the receives, pack and
 * send the lines (the lines of a periodic wrap onto this rank are copied on
 * the spot). Direction d's message carries tag 100 + 2 axis + d, so that two
 * ranks that are each other's west and east neighbours (periodic, two
 * blocks) tell the lines apart. A line for a peer is packed straight into
 * the peer's receive buffer, line d of the exchange's parity at
 * (2 parity + d) times the peer's capacity (fixed: the lines of consecutive
 * exchanges differ in length, and must not overlap; both ranks count the
 * axis's exchanges alike, every rank taking part in each), and an empty message with tag 200 + 2
 * axis + d says it is there once the pack has finished. The peer unpacks that half only after this
 * message; this rank writes the same half again two exchanges later, after the peer's message of
 * the exchange between, which the peer sends after waiting for its device, so after its unpack. */
static int axis_start(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                      double *const *q, halo_flight *fl, cryo_err *err) {
  const cryo_grid *g = h->grid;
  const int axis = fl->axis;
  const long n = (long)fl->count * nlev * nfield;
  double *send = h->device_buffers ? h->send_d : h->send_h;
  double *recv = h->device_buffers ? h->recv_d : h->recv_h;
  int sending[2] = {0, 0}, staged[2] = {0, 0}, to_peer[2] = {0, 0};
  fl->receiving[0] = fl->receiving[1] = 0;
  fl->peer[0] = fl->peer[1] = 0;
  fl->parity = (int)(h->axis_count[axis]++ & 1);
  fl->nreq = 0;
  /* MPI writes the device buffer itself: an unpack still queued may read it */
  if (h->dev && h->device_buffers) cryo_device_wait();
  cryo_halo_lines pack = lines_make(b, loc, fl, nlev, nfield, q, h->send_d);
  for (int d = 0; d < 2; ++d) {
    const halo_dir *r = &fl->dir[d];
    if (r->to == g->rank && r->from == g->rank) {
      /* periodic wrap onto this rank: the line never reaches MPI */
      pack.from[d] = line_at(b, loc, fl, r->send_index);
      pack.to[d] = line_at(b, loc, fl, r->recv_index);
      continue;
    }
    sending[d] = r->to != MPI_PROC_NULL;
    fl->receiving[d] = r->from != MPI_PROC_NULL;
    fl->peer[d] = fl->receiving[d] && peer_of(h, r->from, NULL);
    if (fl->peer[d])
      CRYO_CALL(cryo_mpi_check(
          MPI_Irecv(NULL, 0, MPI_BYTE, r->from, 200 + 2 * axis + d, g->comm, &fl->req[fl->nreq++]),
          "halo MPI_Irecv", err));
    else if (fl->receiving[d])
      CRYO_CALL(cryo_mpi_check(MPI_Irecv(recv + d * n, (int)n, MPI_DOUBLE, r->from,
                                         100 + 2 * axis + d, g->comm, &fl->req[fl->nreq++]),
                               "halo MPI_Irecv", err));
    if (!sending[d]) continue;
    pack.from[d] = line_at(b, loc, fl, r->send_index);
    long capacity = 0;
    double *peer = peer_of(h, r->to, &capacity);
    to_peer[d] = peer != NULL;
    staged[d] = !to_peer[d];
    if (!peer) continue;
    CRYO_CHECK(n <= capacity, err, CRYO_ERR_ARG,
               "halo exchange of %ld values per line exceeds rank %d's buffers (%ld)", n, r->to,
               capacity);
    pack.buf[d] = peer + (2 * fl->parity + d) * capacity;
  }
  lines_copy(h, &pack, fl, 0);
  long offset, values;
  active_range(staged, n, &offset, &values);
  if (h->dev && !h->device_buffers) cryo_device_to_host(h->dev, h->send_h, offset, values);
  /* MPI, or a peer, reads what the launch packs */
  const int peers = to_peer[0] || to_peer[1];
  if (h->dev && (h->device_buffers ? values > 0 : peers && values == 0)) cryo_device_wait();
  for (int d = 0; d < 2; ++d)
    if (to_peer[d])
      CRYO_CALL(cryo_mpi_check(MPI_Isend(NULL, 0, MPI_BYTE, fl->dir[d].to, 200 + 2 * axis + d,
                                         g->comm, &fl->req[fl->nreq++]),
                               "halo MPI_Isend", err));
    else if (staged[d]) {
      CRYO_CALL(cryo_mpi_check(MPI_Isend(send + d * n, (int)n, MPI_DOUBLE, fl->dir[d].to,
                                         100 + 2 * axis + d, g->comm, &fl->req[fl->nreq++]),
                               "halo MPI_Isend", err));
      h->bytes_sent += n * (long long)sizeof *send;
    }
  return CRYO_OK;
}

/* Wait for the messages of an axis begun by axis_start. */
static int axis_wait(halo_flight *fl, cryo_err *err) {
  return cryo_mpi_check(MPI_Waitall(fl->nreq, fl->req, MPI_STATUSES_IGNORE), "halo MPI_Waitall",
                        err);
}

/* After axis_wait: unpack the received lines, then clamp closed edges. */
static void axis_unpack(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                        double *const *q, const halo_flight *fl) {
  const long n = (long)fl->count * nlev * nfield;
  const int staged[2] = {fl->receiving[0] && !fl->peer[0], fl->receiving[1] && !fl->peer[1]};
  long offset, values;
  active_range(staged, n, &offset, &values);
  if (h->dev && !h->device_buffers) cryo_device_to_device(h->dev, h->recv_h, offset, values);
  cryo_halo_lines unpack = lines_make(b, loc, fl, nlev, nfield, q, h->recv_d);
  for (int d = 0; d < 2; ++d) {
    const halo_dir *r = &fl->dir[d];
    if (fl->receiving[d]) {
      unpack.to[d] = line_at(b, loc, fl, r->recv_index);
      if (fl->peer[d]) unpack.buf[d] = h->recv_d + (2 * fl->parity + d) * h->capacity;
    } else if (h->clamp && r->from == MPI_PROC_NULL) {
      unpack.from[d] = line_at(b, loc, fl, r->recv_index < 0 ? 0 : r->recv_index - 1);
      unpack.to[d] = line_at(b, loc, fl, r->recv_index);
    }
  }
  lines_copy(h, &unpack, fl, 1);
}

/* The lines and neighbours of an axis: x over the owned rows, y over whole
 * rows with their x halo (so the corners follow x). */
static halo_flight axis_lines(const cryo_grid *g, const cryo_block *b, cryo_location loc,
                              int axis) {
  const int node = loc == CRYO_AT_NODE;
  halo_flight fl = {0};
  fl.axis = axis;
  if (axis == 0) {
    const halo_dir x[2] = {{node, g->west, b->nx + node, g->east},
                           {b->nx - 1, g->east, -1, g->west}};
    memcpy(fl.dir, x, sizeof x);
    fl.first = 0;
    fl.count = b->ny + node;
  } else {
    const halo_dir y[2] = {{node, g->south, b->ny + node, g->north},
                           {b->ny - 1, g->north, -1, g->south}};
    memcpy(fl.dir, y, sizeof y);
    fl.first = -1;
    fl.count = b->nx + 2 + node;
  }
  return fl;
}

/* Whether an axis sends anything to another rank. */
static int axis_crosses(const cryo_grid *g, int axis) {
  const int lo = axis == 0 ? g->west : g->south, hi = axis == 0 ? g->east : g->north;
  return (lo != MPI_PROC_NULL && lo != g->rank) || (hi != MPI_PROC_NULL && hi != g->rank);
}

/* Both directions of one axis, from start to unpack. */
static int exchange_axis(cryo_halo *h, const cryo_block *b, cryo_location loc, int axis, int nlev,
                         int nfield, double *const *q, cryo_err *err) {
  halo_flight fl = axis_lines(h->grid, b, loc, axis);
  CRYO_CALL(axis_start(h, b, loc, nlev, nfield, q, &fl, err));
  CRYO_CALL(axis_wait(&fl, err));
  axis_unpack(h, b, loc, nlev, nfield, q, &fl);
  return CRYO_OK;
}

/* cryo_halo_fold_pack and cryo_halo_fold_unpack (kernels/halo.h) for host
 * arrays: the same values in the same buffer order. */
static void fold_pack_host(const cryo_block *b, cryo_location loc, int nlev, int nfield,
                           double *const *q, double *buf) {
  const int row0 = cryo_halo_fold_row0(b->fold, loc, b->ny_global) - b->j0;
  long at = 0;
  for (int i = 0; i < b->nx; ++i)
    for (int r = 0; r < 2; ++r)
      for (int f = 0; f < nfield; ++f)
        for (int k = 0; k < nlev; ++k)
          buf[at++] = q[f][(cryo_halo_line_base(b, loc, 1, row0 + r, i)) * nlev + k];
}

static void fold_unpack_host(const cryo_block *b, cryo_location loc, int nlev, int nfield,
                             unsigned flip, double *const *q, const double *rows) {
  const int node = loc == CRYO_AT_NODE, nxg = b->nx_global, nyg = b->ny_global;
  const int row0 = cryo_halo_fold_row0(b->fold, loc, nyg);
  for (int j = b->ny - 1; j <= b->ny + node; ++j)
    for (int i = -1; i <= b->nx + node; ++i) {
      int si, sj;
      if (!cryo_halo_fold_source(b->fold, loc, nxg, nyg, ((b->i0 + i) % nxg + nxg) % nxg, b->j0 + j,
                                 &si, &sj))
        continue;
      for (int f = 0; f < nfield; ++f)
        for (int k = 0; k < nlev; ++k) {
          const double v = rows[(((long)si * 2 + (sj - row0)) * nfield + f) * nlev + k];
          q[f][cryo_halo_line_base(b, loc, 1, j, i) * nlev + k] = (flip >> k) & 1u ? -v : v;
        }
    }
}

/* The north fold, after x and y: the rows it reads are then whole on every
 * rank of the top process row. */
static int exchange_fold(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                         double *const *q, unsigned flip, cryo_err *err) {
  const cryo_grid *g = h->grid;
  if (g->fold_comm == MPI_COMM_NULL) return CRYO_OK;
  const long per_column = 2L * nfield * nlev, n = b->nx * per_column;
  if (h->dev) {
    cryo_device_wait(); /* the y lines' unpack is queued; this launch is not */
    cryo_halo_fold_pack(b, loc, nlev, q[0], q[1], q[2], q[3], h->fold_d);
  } else {
    fold_pack_host(b, loc, nlev, nfield, q, h->fold_h);
  }
  const double *rows = h->fold_d;
  if (g->px_count > 1) {
    for (int p = 0; p < g->px_count; ++p) {
      h->fold_counts[p] = (int)((g->i_start[p + 1] - g->i_start[p]) * per_column);
      h->fold_offsets[p] = (int)(g->i_start[p] * per_column);
    }
    const int staged = h->dev && !h->device_buffers;
    if (staged) cryo_device_to_host(h->dev, h->fold_h, 0, n);
    CRYO_CALL(
        cryo_mpi_check(MPI_Allgatherv(staged || !h->dev ? h->fold_h : h->fold_d, (int)n, MPI_DOUBLE,
                                      staged || !h->dev ? h->rows_h : h->rows_d, h->fold_counts,
                                      h->fold_offsets, MPI_DOUBLE, g->fold_comm),
                       "halo MPI_Allgatherv (north fold)", err));
    h->bytes_sent += n * (long long)sizeof(double);
    if (staged) cryo_device_to_device(h->dev, h->rows_h, 0, b->nx_global * per_column);
    rows = h->rows_d;
  }
  if (h->dev)
    cryo_halo_fold_unpack(b, loc, nlev, flip, q[0], q[1], q[2], q[3], rows);
  else
    fold_unpack_host(b, loc, nlev, nfield, flip, q, rows);
  return CRYO_OK;
}

/* Whether this rank fills the halo of b alone: device arrays (on a CPU build
 * the kernel runs on the host), and every side of the block wraps onto this
 * rank or is a closed edge; then a holds how each side fills. */
static int fills_alone(const cryo_halo *h, const cryo_block *b, cryo_halo_local *a) {
  const cryo_grid *g = h->grid;
  const int neighbour[4] = {g->west, g->east, g->south, g->north};
  if (!h->dev || h->general) return 0;
  for (int s = 0; s < 4; ++s) {
    if (neighbour[s] == g->rank)
      a->side[s] = CRYO_HALO_SIDE_WRAP;
    else if (neighbour[s] == MPI_PROC_NULL)
      a->side[s] = h->clamp ? CRYO_HALO_SIDE_CLAMP : CRYO_HALO_SIDE_LEFT;
    else
      return 0;
  }
  a->nx = b->nx, a->ny = b->ny, a->i0 = b->i0, a->j0 = b->j0;
  a->nxg = b->nx_global, a->nyg = b->ny_global, a->fold = b->fold;
  return 1;
}

int cryo_halo_alone(const cryo_halo *h) {
  cryo_halo_local a;
  if (!fills_alone(h, &h->grid->block, &a)) return 0;
  /* a closed domain whose halo does not clamp has nothing to fill */
  return a.side[0] || a.side[1] || a.side[2] || a.side[3];
}

int cryo_halo_overlaps(const cryo_halo *h) {
  cryo_halo_local a;
  return !fills_alone(h, &h->grid->block, &a) &&
         (axis_crosses(h->grid, 0) || axis_crosses(h->grid, 1));
}

/* What every exchange checks first: the buffers hold its lines, a fold has
 * its whole block, and no begun exchange holds the buffers. */
static int check_exchange(const cryo_halo *h, const cryo_block *b, int nlev, int nfield,
                          cryo_err *err) {
  const int longest = (b->nx > b->ny ? b->nx : b->ny) + 3;
  const int most = nfield < CRYO_HALO_MAX_FIELDS ? nfield : CRYO_HALO_MAX_FIELDS;
  CRYO_CHECK((long)longest * nlev * most <= h->capacity, err, CRYO_ERR_ARG,
             "halo exchange of %d fields x %d levels exceeds the buffers sized at creation", most,
             nlev);
  CRYO_CHECK(!b->fold || b == &h->grid->block, err, CRYO_ERR_UNSUPPORTED,
             "halo exchange on a coarsened block of a grid with a north fold");
  CRYO_CHECK(!h->open.active, err, CRYO_ERR_ARG,
             "halo exchange while a begun one is still open: call cryo_halo_exchange_end first");
  return CRYO_OK;
}

/* The sign bits of cryo_halo_exchange_signed: bit k set where sign[k] = -1;
 * none without sign. */
static int sign_flip(int nlev, const int *sign, unsigned *flip, cryo_err *err) {
  *flip = 0;
  if (!sign) return CRYO_OK;
  CRYO_CHECK(nlev <= 32, err, CRYO_ERR_ARG,
             "halo exchange with signs of %d levels: at most 32 levels", nlev);
  for (int k = 0; k < nlev; ++k) {
    CRYO_CHECK(sign[k] == 1 || sign[k] == -1, err, CRYO_ERR_ARG,
               "halo exchange: sign of level %d is %d, must be 1 or -1", k, sign[k]);
    *flip |= (sign[k] < 0 ? 1u : 0u) << k;
  }
  return CRYO_OK;
}

static int exchange(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                    double *const *fields, unsigned flip, cryo_err *err) {
  const cryo_grid *g = h->grid;
  CRYO_CALL(check_exchange(h, b, nlev, nfield, err));
  const int lonely = g->west == MPI_PROC_NULL && g->east == MPI_PROC_NULL &&
                     g->south == MPI_PROC_NULL && g->north == MPI_PROC_NULL;
  if (lonely && !h->clamp) return CRYO_OK;
  cryo_halo_local a = {0};
  if (fills_alone(h, b, &a)) {
    const double t0 = MPI_Wtime();
    a.nlev = nlev, a.flip = flip, a.node = loc == CRYO_AT_NODE;
    for (int f0 = 0; f0 < nfield; f0 += CRYO_HALO_MAX_FIELDS) {
      a.nfield = nfield - f0 < CRYO_HALO_MAX_FIELDS ? nfield - f0 : CRYO_HALO_MAX_FIELDS;
      for (int i = 0; i < CRYO_HALO_MAX_FIELDS; ++i)
        a.f[i] = i < a.nfield ? fields[f0 + i] : NULL;
      cryo_halo_local_fill(&a);
    }
    h->seconds += MPI_Wtime() - t0;
    h->exchanges += 1;
    return CRYO_OK;
  }
  /* the pack and unpack kernels are synchronous; queued kernels write the
   * fields they copy */
  if (h->dev) cryo_device_wait();
  const double t0 = MPI_Wtime();
  int status = CRYO_OK;
  for (int f0 = 0; f0 < nfield && status == CRYO_OK; f0 += CRYO_HALO_MAX_FIELDS) {
    const int nf = nfield - f0 < CRYO_HALO_MAX_FIELDS ? nfield - f0 : CRYO_HALO_MAX_FIELDS;
    double *q[CRYO_HALO_MAX_FIELDS] = {0};
    for (int i = 0; i < nf; ++i)
      q[i] = fields[f0 + i];
    status = exchange_axis(h, b, loc, 0, nlev, nf, q, err);
    if (status == CRYO_OK) status = exchange_axis(h, b, loc, 1, nlev, nf, q, err);
    if (status == CRYO_OK && b->fold) status = exchange_fold(h, b, loc, nlev, nf, q, flip, err);
  }
  h->seconds += MPI_Wtime() - t0;
  h->exchanges += 1;
  return status;
}

int cryo_halo_exchange(cryo_halo *h, cryo_location loc, int nlev, int nfield, double *const *fields,
                       cryo_err *err) {
  return exchange(h, &h->grid->block, loc, nlev, nfield, fields, 0u, err);
}

int cryo_halo_exchange_signed(cryo_halo *h, cryo_location loc, int nlev, int nfield,
                              double *const *fields, const int *sign, cryo_err *err) {
  unsigned flip;
  CRYO_CALL(sign_flip(nlev, sign, &flip, err));
  return exchange(h, &h->grid->block, loc, nlev, nfield, fields, flip, err);
}

/* The first axis that crosses to another rank is the one whose messages
 * travel between begin and end: x on a process grid with more than one
 * column, else y, after x has been filled here. The rest (y after x, the
 * fold) needs the lines x brings, or inner points (the fold's rows), so it
 * follows in end. */
int cryo_halo_exchange_begin(cryo_halo *h, cryo_location loc, int nlev, int nfield,
                             double *const *fields, const int *sign, cryo_err *err) {
  const cryo_grid *g = h->grid;
  const cryo_block *b = &g->block;
  CRYO_CHECK(nfield >= 1 && nfield <= CRYO_HALO_MAX_FIELDS, err, CRYO_ERR_ARG,
             "halo exchange begun with %d fields: from 1 to %d", nfield, CRYO_HALO_MAX_FIELDS);
  CRYO_CALL(check_exchange(h, b, nlev, nfield, err));
  halo_open o = {.active = 1, .loc = loc, .nlev = nlev, .nfield = nfield};
  CRYO_CALL(sign_flip(nlev, sign, &o.flip, err));
  for (int f = 0; f < nfield; ++f)
    o.q[f] = fields[f];
  if (cryo_halo_overlaps(h)) {
    /* the pack kernels are synchronous; queued kernels write the sent lines */
    if (h->dev) cryo_device_wait();
    const double t0 = MPI_Wtime();
    const int axis = axis_crosses(g, 0) ? 0 : 1;
    if (axis == 1) CRYO_CALL(exchange_axis(h, b, loc, 0, nlev, nfield, o.q, err));
    o.flight = axis_lines(g, b, loc, axis);
    CRYO_CALL(axis_start(h, b, loc, nlev, nfield, o.q, &o.flight, err));
    o.in_flight = 1;
    h->seconds += MPI_Wtime() - t0;
  }
  h->open = o;
  return CRYO_OK;
}

int cryo_halo_exchange_end(cryo_halo *h, cryo_err *err) {
  CRYO_CHECK(h->open.active, err, CRYO_ERR_ARG,
             "halo exchange ended that was not begun (cryo_halo_exchange_begin)");
  const halo_open o = h->open;
  const cryo_block *b = &h->grid->block;
  h->open.active = 0;
  if (!o.in_flight) return exchange(h, b, o.loc, o.nlev, o.nfield, o.q, o.flip, err);
  double t0 = MPI_Wtime();
  halo_flight fl = o.flight;
  CRYO_CALL(axis_wait(&fl, err));
  if (h->dev) {
    /* the work queued since begin writes inner points that y and the fold
     * read; its time is not the exchange's */
    const double t1 = MPI_Wtime();
    cryo_device_wait();
    t0 += MPI_Wtime() - t1;
  }
  axis_unpack(h, b, o.loc, o.nlev, o.nfield, o.q, &fl);
  if (fl.axis == 0) CRYO_CALL(exchange_axis(h, b, o.loc, 1, o.nlev, o.nfield, o.q, err));
  if (b->fold) CRYO_CALL(exchange_fold(h, b, o.loc, o.nlev, o.nfield, o.q, o.flip, err));
  h->seconds += MPI_Wtime() - t0;
  h->exchanges += 1;
  return CRYO_OK;
}

int cryo_halo_exchange_block(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev,
                             int nfield, double *const *fields, cryo_err *err) {
  return exchange(h, b, loc, nlev, nfield, fields, 0u, err);
}
