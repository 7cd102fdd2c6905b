/* Grid, 2-D block decomposition over MPI ranks, and halo exchange
 * (docs/design.md, Grid, decomposition and halos). The mesh is
 * nx_global x ny_global rectangular cells of size dx x dy; rank (px, py) of a
 * px_count x py_count process grid owns a contiguous block of cells, described
 * to kernels by a cryo_block. */
#ifndef CRYO_GRID_H
#define CRYO_GRID_H

#include <mpi.h>

#include "cryo_block.h"
#include "cryo_error.h"
#include "cryo_mpi.h" /* cryo_mpi_check, CRYO_MPI */

typedef struct cryo_device cryo_device;

typedef struct cryo_grid {
  cryo_block block; /* this rank's block, as kernels see it */
  MPI_Comm comm;    /* the component's communicator (not owned) */
  int rank, size;
  int px_count, py_count;       /* process grid */
  int px, py;                   /* this rank's position in it */
  int west, east, south, north; /* neighbour ranks or MPI_PROC_NULL */
  int *i_start, *j_start;       /* first global cell of each process column / row, [count + 1] */
  MPI_Comm fold_comm;           /* the top process row, x order, with a fold; else MPI_COMM_NULL */
} cryo_grid;

/* Decompose nx x ny cells over the ranks of comm. px_count/py_count = 0
 * chooses the process grid automatically (closest to square blocks). Every
 * rank must keep at least 2 cells each way. */
int cryo_grid_create(cryo_grid *g, MPI_Comm comm, int nx, int ny, double dx, double dy,
                     int px_count, int py_count, int periodic_x, int periodic_y, cryo_err *err);
/* Split the grid again, over the same process grid, with block edges on
 * multiples of unit_x and unit_y cells (or the domain's end), each halved
 * until every rank keeps at least 2 cells each way (unit 1: the even split of
 * cryo_grid_create). Before any field or halo buffer is made. */
void cryo_grid_align(cryo_grid *g, int unit_x, int unit_y);
/* Split the grid again, over the same process grid, so that each process
 * column holds as nearly as it can the same share of the weights col[nx]
 * (the ocean cells of each column of cells) and each process row the same
 * share of row[ny], every rank keeping at least 2 cells each way. A grid
 * whose weights sum to 0 keeps its even split. Before any field or halo
 * buffer is made. */
void cryo_grid_balance(cryo_grid *g, const long *col, const long *row);
void cryo_grid_destroy(cryo_grid *g);
/* Fold the top edge (cryo_fold; docs/design.md, Folded grids) of a grid
 * periodic in x and not in y, with an even nx: collective over the grid's
 * communicator, before any halo is made. */
int cryo_grid_set_fold(cryo_grid *g, cryo_fold fold, cryo_err *err);

/* Halo exchange of nfield device arrays at loc with nlev values per point.
 * Buffers and packing live in cryo_halo.c; only packed halos cross to the
 * host, and not even those when MPI takes the device buffers. A halo created
 * with dev = NULL exchanges host arrays instead: it packs on the host and
 * touches no device. The halo at a domain edge that does not wrap is left as
 * it was, unless cryo_halo_set_clamp says otherwise. */
typedef struct cryo_halo cryo_halo;
int cryo_halo_create(cryo_halo **h, const cryo_grid *g, cryo_device *dev, int max_values_per_point,
                     cryo_err *err);
void cryo_halo_destroy(cryo_halo **h);
int cryo_halo_exchange(cryo_halo *h, cryo_location loc, int nlev, int nfield, double *const *fields,
                       cryo_err *err);
/* The same where some levels change sign across a fold (sign[k] = -1 for
 * level k: a vector component in the grid frame, the slope of a dG field;
 * +1 else; at most 32 levels): the grid's i and j directions both reverse
 * there. Without a fold it is cryo_halo_exchange. */
int cryo_halo_exchange_signed(cryo_halo *h, cryo_location loc, int nlev, int nfield,
                              double *const *fields, const int *sign, cryo_err *err);
/* cryo_halo_exchange_signed in two halves (docs/multi-gpu.md, Overlap; sign
 * may be NULL: no sign changes), so that work which neither reads the halo
 * nor writes the lines sent runs while the messages travel. begin waits for
 * the queued kernels, fills x here where x stays on this rank (a wrap onto
 * itself, closed edges), and sends the lines of the first axis that crosses
 * to another rank; end waits for them (and for the kernels queued since
 * begin), unpacks, and does the rest: y after x, the north fold (which reads
 * rows inside the block). Afterwards the halo holds the bits
 * cryo_halo_exchange_signed leaves. What begin reads must be final then: the
 * node columns 1 and nx-1 (cells 0 and nx-1) of the owned rows, the node rows
 * 1 and ny-1 (cells 0 and ny-1), and where the halo clamps the lines along
 * the edges.
 * nfield <= CRYO_HALO_MAX_FIELDS; one exchange is open at a time, and no
 * other exchange may run in between. Where no line crosses to another rank
 * (cryo_halo_overlaps is 0) begin keeps the fields and end does the whole
 * exchange. The halo statistics count the two halves as one exchange, and
 * not the time end waits for kernels. */
int cryo_halo_exchange_begin(cryo_halo *h, cryo_location loc, int nlev, int nfield,
                             double *const *fields, const int *sign, cryo_err *err);
int cryo_halo_exchange_end(cryo_halo *h, cryo_err *err);
/* 1 where an exchange sends lines to another rank, which begin and end can
 * overlap with other work; 0 where this rank fills its halo alone. */
int cryo_halo_overlaps(const cryo_halo *h);
/* The same on block b of this decomposition coarsened alike on every rank
 * (a multigrid level: its neighbours are the grid's, each with at least one
 * cell; its lines fit the buffers sized for the grid). */
int cryo_halo_exchange_block(cryo_halo *h, const cryo_block *b, cryo_location loc, int nlev,
                             int nfield, double *const *fields, cryo_err *err);

/* How the packed halo lines reach MPI (&cryo_run halo_device_buffers,
 * namelists/README.md). A new halo stages them through host buffers. */
#define CRYO_HALO_PATH_LEN 320
/* Whether the MPI library running now reads and writes GPU memory, by Open
 * MPI's MPIX_Query_cuda_support(), looked up at run time; 1 or 0, and in why
 * what was found. Call after MPI_Init. */
int cryo_halo_mpi_cuda_aware(char *why, int len);
/* The decision alone (no MPI, no device): setting 'auto' | 'yes' | 'no';
 * gpu: this rank's arrays live in GPU memory, `device` describes the device;
 * cuda_aware, aware_why: from cryo_halo_mpi_cuda_aware. Sets
 * *device_buffers (1: MPI gets the device buffers) and why (for the banner).
 * 'yes' where MPI cannot take device memory is CRYO_ERR_UNSUPPORTED naming
 * the reason; `source` (the namelist) starts the messages. */
int cryo_halo_choose(const char *setting, const char *source, int gpu, const char *device,
                     int cuda_aware, const char *aware_why, int *device_buffers, char *why, int len,
                     cryo_err *err);
/* clamp = 1: at a domain edge that does not wrap, each exchange fills the
 * halo with the nearest owned line (cells and nodes alike, corners included),
 * as forcing received on owned cells needs; 0 (a new halo): leaves it. */
void cryo_halo_set_clamp(cryo_halo *h, int clamp);
/* Whether exchanges on the grid's block are filled by this rank alone in one
 * queued launch (one rank in x and y, device arrays; kernels/halo.h,
 * cryo_halo_local_fill): 1, or 0 where they take the general path or have
 * nothing to fill (one rank, closed edges, no clamp). */
int cryo_halo_alone(const cryo_halo *h);
/* general = 1: take the general path (pack, copy or MPI, unpack; wait first)
 * where this rank would fill the halo alone, as the tests that compare the
 * two do; 0 (a new halo): one launch. */
void cryo_halo_set_general(cryo_halo *h, int general);
/* Use the path chosen (device_buffers as from cryo_halo_choose; why is kept
 * for cryo_halo_path). */
void cryo_halo_set_path(cryo_halo *h, int device_buffers, const char *why);
const char *cryo_halo_path(const cryo_halo *h);
/* Collective over the grid's communicator, after cryo_halo_set_path: where
 * wanted, this rank's GPU and its neighbour's are on one node, and the lines
 * are staged through the host, the neighbour packs the lines it sends here
 * straight into this rank's device receive buffer (CUDA IPC, services/
 * cryo_device.c) and an empty message says they are there: no host copies
 * and no data through MPI. Both ranks of a pair must map the other's buffer,
 * or neither uses it; the path (cryo_halo_path) says how many neighbours do,
 * or why none. Without a GPU nothing changes. */
int cryo_halo_connect_peers(cryo_halo *h, int wanted, cryo_err *err);
/* Wall time spent in exchanges (s; pack, MPI and unpack, after the wait for
 * queued kernels), exchanges that moved something, bytes sent through MPI. */
void cryo_halo_stats(const cryo_halo *h, double *seconds, long *exchanges, long long *bytes_sent);

/* Gather a field of this rank's owned points (row-major [j][i][k] over the
 * owned cells, or the nodes [0,nx] x [0,ny] of the block; last node row and
 * column taken from the last block) into a global array on rank 0, laid out
 * [j][i][k] with (nx_global (+1 for nodes)) points per row. `local` is a host
 * array in block layout (with halo). `global` is used on rank 0 only. */
int cryo_grid_gather(const cryo_grid *g, cryo_location loc, int nlev, const double *local,
                     double *global, cryo_err *err);
/* cryo_grid_gather of cells held in another layout than the block's:
 * owned cell (i, j) of this rank at local[(first + j * row + i) * nlev]
 * (the grid file's corners, kept as read: cryo_gridfile.h). */
int cryo_grid_gather_cells(const cryo_grid *g, int nlev, const double *local, long first, long row,
                           double *global, cryo_err *err);
/* The inverse of cryo_grid_gather: rank 0's global array distributed into every rank's block
 * layout (owned points only; halos are left to a halo exchange). */
int cryo_grid_scatter(const cryo_grid *g, cryo_location loc, int nlev, const double *global,
                      double *local, cryo_err *err);

#endif
