/* Halo exchange through packed buffers: pack on the device, move only the
 * packed lines to the host, MPI_Sendrecv with the neighbours, unpack on the
 * device. x first over the owned rows, then y over whole rows including the
 * x halo, so corners arrive too. With periodic wrap a rank may be its own
 * neighbour. Cells own [0, nx); nodes [0, nx] are computed by every block that
 * touches them, so the west neighbour's halo node is our node 1. */
#include "cryo_device.h"
#include "cryo_grid.h"
#include "halo.h"

#include <stdlib.h>

struct cryo_halo {
  const cryo_grid *grid;
  cryo_device *dev;
  long capacity;           /* values per buffer */
  double *send_h, *send_d; /* host and device addresses of the send buffer */
  double *recv_h, *recv_d;
};

int cryo_halo_create(cryo_halo **hp, const cryo_grid *g, cryo_device *dev, int max_values_per_point,
                     cryo_err *err) {
  cryo_halo *h = calloc(1, sizeof *h);
  CRYO_CHECK(h, err, CRYO_ERR_MEMORY, "out of memory for the halo exchange");
  h->grid = g;
  h->dev = dev;
  int longest = (g->block.nx > g->block.ny ? g->block.nx : g->block.ny) + 3;
  h->capacity = (long)longest * max_values_per_point;
  int status = cryo_device_alloc(dev, h->capacity, &h->send_h, &h->send_d, err);
  if (status == CRYO_OK) status = cryo_device_alloc(dev, h->capacity, &h->recv_h, &h->recv_d, err);
  if (status != CRYO_OK) {
    cryo_halo_destroy(&h);
    return status;
  }
  *hp = h;
  return CRYO_OK;
}

void cryo_halo_destroy(cryo_halo **hp) {
  cryo_halo *h = *hp;
  if (!h) return;
  cryo_device_free(h->dev, &h->send_h, h->capacity);
  cryo_device_free(h->dev, &h->recv_h, h->capacity);
  free(h);
  *hp = NULL;
}

/* One direction of one axis: send the line at send_index to `to`, receive the
 * line for recv_index from `from`. */
static int exchange_line(cryo_halo *h, cryo_location loc, int axis, int send_index, int to,
                         int recv_index, int from, int first, int count, int nlev, double *const *f,
                         int nfield, cryo_err *err) {
  if (to == MPI_PROC_NULL && from == MPI_PROC_NULL) return CRYO_OK;
  /* the pack and unpack kernels are synchronous; queued kernels write the
   * fields they copy */
  cryo_device_wait();
  const cryo_block *b = &h->grid->block;
  long n = (long)count * nlev * nfield;
  double *q[CRYO_HALO_MAX_FIELDS] = {0};
  for (int i = 0; i < nfield; ++i)
    q[i] = f[i];
  if (to == h->grid->rank && from == h->grid->rank) {
    /* periodic wrap onto this rank: the line stays on the device */
    cryo_halo_line_copy(b, loc, axis, send_index, first, count, nlev, q[0], q[1], q[2], q[3],
                        h->send_d, 0);
    cryo_halo_line_copy(b, loc, axis, recv_index, first, count, nlev, q[0], q[1], q[2], q[3],
                        h->send_d, 1);
    return CRYO_OK;
  }
  if (to != MPI_PROC_NULL) {
    cryo_halo_line_copy(b, loc, axis, send_index, first, count, nlev, q[0], q[1], q[2], q[3],
                        h->send_d, 0);
    cryo_device_to_host(h->dev, h->send_h, 0, n);
  }
  int tag = 100 + 2 * axis + (send_index > recv_index);
  CRYO_CALL(cryo_mpi_check(MPI_Sendrecv(h->send_h, to == MPI_PROC_NULL ? 0 : (int)n, MPI_DOUBLE, to,
                                        tag, h->recv_h, from == MPI_PROC_NULL ? 0 : (int)n,
                                        MPI_DOUBLE, from, tag, h->grid->comm, MPI_STATUS_IGNORE),
                           "halo MPI_Sendrecv", err));
  if (from != MPI_PROC_NULL) {
    cryo_device_to_device(h->dev, h->recv_h, 0, n);
    cryo_halo_line_copy(b, loc, axis, recv_index, first, count, nlev, q[0], q[1], q[2], q[3],
                        h->recv_d, 1);
  }
  return CRYO_OK;
}

int cryo_halo_exchange(cryo_halo *h, cryo_location loc, int nlev, int nfield, double *const *fields,
                       cryo_err *err) {
  const cryo_grid *g = h->grid;
  const cryo_block *b = &g->block;
  int node = loc == CRYO_AT_NODE;
  int longest = (b->nx > b->ny ? b->nx : b->ny) + 3;
  for (int f0 = 0; f0 < nfield; f0 += CRYO_HALO_MAX_FIELDS) {
    int nf = nfield - f0 < CRYO_HALO_MAX_FIELDS ? nfield - f0 : CRYO_HALO_MAX_FIELDS;
    CRYO_CHECK((long)longest * nlev * nf <= h->capacity, err, CRYO_ERR_ARG,
               "halo exchange of %d fields x %d levels exceeds the buffers sized at creation", nf,
               nlev);
    double *const *f = fields + f0;
    /* x: owned rows only */
    CRYO_CALL(exchange_line(h, loc, 0, node, g->west, b->nx + node, g->east, 0, b->ny + node, nlev,
                            f, nf, err));
    CRYO_CALL(exchange_line(h, loc, 0, b->nx - 1, g->east, -1, g->west, 0, b->ny + node, nlev, f,
                            nf, err));
    /* y: whole rows with their x halo */
    CRYO_CALL(exchange_line(h, loc, 1, node, g->south, b->ny + node, g->north, -1, b->nx + 2 + node,
                            nlev, f, nf, err));
    CRYO_CALL(exchange_line(h, loc, 1, b->ny - 1, g->north, -1, g->south, -1, b->nx + 2 + node,
                            nlev, f, nf, err));
  }
  return CRYO_OK;
}
