/* The halo-ring fill of the exchange layer (cryo_exchange.h): providers whose
 * source gives this rank's owned cells only (host, oasis) get the ring of
 * neighbouring cells around the block from the ranks that own them, wrapped
 * or clamped at the domain edge as the block says. The plan is made on first
 * use and kept in the exchange. */
#include "cryo_exchange.h"
#include "cryo_mpi.h"

#include <stdlib.h>
#include <string.h>

/* Plan of the halo-ring fill: for each rank, which of our owned cells it needs
 * (send) and which of our ring cells it owns (recv), both in the order of a
 * row-major walk over the receiver's ring, so the two lists match. */
struct cryo_exchange_ring {
  int nrank;
  long nlocal; /* ring cells whose source is one of our own cells */
  long *local_dst, *local_src;
  int *recv_off, *send_off; /* per rank, nrank + 1 offsets */
  long *recv_idx, *send_idx;
  double *recv_buf, *send_buf;
  MPI_Request *req;
};

void cryo_exchange_ring_destroy(cryo_exchange_ring *r) {
  if (!r) return;
  free(r->local_dst);
  free(r->local_src);
  free(r->recv_off);
  free(r->send_off);
  free(r->recv_idx);
  free(r->send_idx);
  free(r->recv_buf);
  free(r->send_buf);
  free(r->req);
  free(r);
}

/* Global cell that supplies global ring position g in a dimension of n cells:
 * wrapped when periodic, else clamped to the nearest domain cell. */
static int ring_source(int g, int n, int periodic) {
  if (periodic) return (g % n + n) % n;
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* Rank whose block (boxes[4r..4r+3] = i0, j0, nx, ny) owns global cell (gi, gj). */
static int ring_owner(const int *boxes, int nrank, int gi, int gj) {
  for (int r = 0; r < nrank; ++r) {
    const int *bx = boxes + 4 * r;
    if (gi >= bx[0] && gi < bx[0] + bx[2] && gj >= bx[1] && gj < bx[1] + bx[3]) return r;
  }
  return -1;
}

/* RING_FOR(w, li, si, sj, BODY) walks the ring of box w.bx row by row and runs
 * BODY with li, the ring cell's index in that box's CRYO_CELL layout, and
 * (si, sj), the global cell that supplies it. */
typedef struct ring_walk {
  const cryo_block *b;
  const int *bx;
} ring_walk;

#define RING_FOR(w, li, si, sj, BODY)                                                              \
  for (int rj_ = -1; rj_ <= (w).bx[3]; ++rj_)                                                      \
    for (int ri_ = -1; ri_ <= (w).bx[2]; ++ri_) {                                                  \
      if (ri_ >= 0 && ri_ < (w).bx[2] && rj_ >= 0 && rj_ < (w).bx[3]) continue;                    \
      long li = (long)(rj_ + 1) * ((w).bx[2] + 2) + (ri_ + 1);                                     \
      int si = ring_source((w).bx[0] + ri_, (w).b->nx_global, (w).b->periodic_x);                  \
      int sj = ring_source((w).bx[1] + rj_, (w).b->ny_global, (w).b->periodic_y);                  \
      BODY                                                                                         \
    }

static int ring_plan(cryo_exchange *x, cryo_err *err) {
  const cryo_block *b = &x->block;
  int nrank, me;
  CRYO_MPI(MPI_Comm_size(x->comm, &nrank), "exchange: MPI_Comm_size", err);
  CRYO_MPI(MPI_Comm_rank(x->comm, &me), "exchange: MPI_Comm_rank", err);
  int mine[4] = {b->i0, b->j0, b->nx, b->ny};
  int *boxes = malloc(sizeof(int) * 4 * (size_t)nrank);
  cryo_exchange_ring *r = calloc(1, sizeof *r);
  if (!boxes || !r) {
    free(boxes);
    free(r);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory for the halo-ring plan");
  }
  x->ring = r;
  r->nrank = nrank;
  int mpi_status = cryo_mpi_check(MPI_Allgather(mine, 4, MPI_INT, boxes, 4, MPI_INT, x->comm),
                                  "exchange: MPI_Allgather (block extents)", err);
  if (mpi_status != CRYO_OK) {
    free(boxes);
    return mpi_status;
  }
  long nring = 2L * (b->nx + 2) + 2L * b->ny;
  r->recv_off = calloc((size_t)nrank + 1, sizeof(int));
  r->send_off = calloc((size_t)nrank + 1, sizeof(int));
  r->local_dst = malloc(sizeof(long) * (size_t)nring);
  r->local_src = malloc(sizeof(long) * (size_t)nring);
  r->recv_idx = malloc(sizeof(long) * (size_t)nring);
  r->req = malloc(sizeof(MPI_Request) * 2 * (size_t)nrank);
  int status = CRYO_OK;
  if (!r->recv_off || !r->send_off || !r->local_dst || !r->local_src || !r->recv_idx || !r->req)
    status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory for the halo-ring plan");
  /* Our ring: local copies, and per owner rank the cells to receive. */
  ring_walk w = {b, mine};
  int *fill = NULL;
  if (status == CRYO_OK) {
    RING_FOR(w, li, si, sj, {
      (void)li;
      int q = ring_owner(boxes, nrank, si, sj);
      if (q < 0 && status == CRYO_OK)
        status = CRYO_ERROR(err, CRYO_ERR_ARG,
                            "exchange: no rank owns global cell (%d, %d): the blocks do not "
                            "cover the %d x %d grid",
                            si, sj, b->nx_global, b->ny_global);
      if (q >= 0 && q != me) r->recv_off[q + 1]++;
    })
  }
  if (status == CRYO_OK) {
    for (int q = 0; q < nrank; ++q)
      r->recv_off[q + 1] += r->recv_off[q];
    fill = malloc(sizeof(int) * (size_t)nrank);
    if (!fill) status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory");
  }
  if (status == CRYO_OK) {
    memcpy(fill, r->recv_off, sizeof(int) * (size_t)nrank);
    RING_FOR(w, li, si, sj, {
      int q = ring_owner(boxes, nrank, si, sj);
      if (q == me) {
        r->local_dst[r->nlocal] = li;
        r->local_src[r->nlocal++] = CRYO_CELL(b, si - b->i0, sj - b->j0);
      } else {
        r->recv_idx[fill[q]++] = li;
      }
    })
    /* Other ranks' rings, walked in the same order: the cells we own. */
    for (int q = 0; q < nrank; ++q) {
      if (q == me) continue;
      ring_walk wq = {b, boxes + 4 * q};
      RING_FOR(wq, li, si, sj, {
        (void)li;
        if (ring_owner(mine, 1, si, sj) == 0) r->send_off[q + 1]++;
      })
    }
    for (int q = 0; q < nrank; ++q)
      r->send_off[q + 1] += r->send_off[q];
    r->send_idx = malloc(sizeof(long) * ((size_t)r->send_off[nrank] + 1));
    r->send_buf = malloc(sizeof(double) * ((size_t)r->send_off[nrank] + 1));
    r->recv_buf = malloc(sizeof(double) * ((size_t)r->recv_off[nrank] + 1));
    if (!r->send_idx || !r->send_buf || !r->recv_buf)
      status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "exchange: out of memory");
  }
  if (status == CRYO_OK) {
    long n = 0;
    for (int q = 0; q < nrank; ++q) {
      if (q == me) continue;
      ring_walk wq = {b, boxes + 4 * q};
      RING_FOR(wq, li, si, sj, {
        (void)li;
        if (ring_owner(mine, 1, si, sj) == 0)
          r->send_idx[n++] = CRYO_CELL(b, si - b->i0, sj - b->j0);
      })
    }
  }
  free(fill);
  free(boxes);
  if (status != CRYO_OK) {
    cryo_exchange_ring_destroy(r);
    x->ring = NULL;
  }
  return status;
}

int cryo_exchange_fill_ring(cryo_exchange *x, double *buf, cryo_err *err) {
  if (!x->ring) CRYO_CALL(ring_plan(x, err));
  cryo_exchange_ring *r = x->ring;
  const int tag = 731;
  /* Every request is posted and waited for; the first MPI error is reported. */
  int nreq = 0, first = MPI_SUCCESS, s;
  for (int q = 0; q < r->nrank; ++q) {
    int n = r->recv_off[q + 1] - r->recv_off[q];
    if (n > 0 &&
        (s = MPI_Irecv(r->recv_buf + r->recv_off[q], n, MPI_DOUBLE, q, tag, x->comm,
                       &r->req[nreq++])) != MPI_SUCCESS &&
        first == MPI_SUCCESS)
      first = s;
  }
  for (int q = 0; q < r->nrank; ++q) {
    int n = r->send_off[q + 1] - r->send_off[q];
    for (int k = r->send_off[q]; k < r->send_off[q + 1]; ++k)
      r->send_buf[k] = buf[r->send_idx[k]];
    if (n > 0 &&
        (s = MPI_Isend(r->send_buf + r->send_off[q], n, MPI_DOUBLE, q, tag, x->comm,
                       &r->req[nreq++])) != MPI_SUCCESS &&
        first == MPI_SUCCESS)
      first = s;
  }
  for (long k = 0; k < r->nlocal; ++k)
    buf[r->local_dst[k]] = buf[r->local_src[k]];
  if ((s = MPI_Waitall(nreq, r->req, MPI_STATUSES_IGNORE)) != MPI_SUCCESS && first == MPI_SUCCESS)
    first = s;
  CRYO_MPI(first, "exchange: filling the halo ring (MPI_Irecv, MPI_Isend, MPI_Waitall)", err);
  for (int k = 0; k < r->recv_off[r->nrank]; ++k)
    buf[r->recv_idx[k]] = r->recv_buf[k];
  return CRYO_OK;
}
