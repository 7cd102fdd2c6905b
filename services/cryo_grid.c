/* Block decomposition of the rectangular grid over MPI ranks, and the
 * gather/scatter of whole fields to and from rank 0 for output and restarts. */
#include "cryo_grid.h"

#include <stdlib.h>
#include <string.h>

/* First cell of part p when n cells are split over count parts as evenly as
 * possible in units of `unit` cells (the last unit may be shorter), the first
 * parts one unit larger. */
static int part_start(int n, int count, int unit, int p) {
  const int units = (n + unit - 1) / unit;
  const int u = p * (units / count) + (p < units % count ? p : units % count);
  return u * unit < n ? u * unit : n;
}

static void split_range(int n, int count, int unit, int *start) {
  for (int p = 0; p <= count; ++p)
    start[p] = part_start(n, count, unit, p);
}

/* The largest unit <= `unit` (halving it) with which every part keeps at
 * least 2 cells. */
static int split_unit(int n, int count, int unit) {
  for (; unit > 1; unit /= 2) {
    int ok = 1;
    for (int p = 0; p < count && ok; ++p)
      ok = part_start(n, count, unit, p + 1) - part_start(n, count, unit, p) >= 2;
    if (ok) break;
  }
  return unit;
}

/* Process grid px x py = size whose blocks are closest to square. */
static void choose_process_grid(int size, int nx, int ny, int *px, int *py) {
  double best = -1.0;
  for (int a = 1; a <= size; ++a) {
    if (size % a) continue;
    int b = size / a;
    double bx = (double)nx / a, by = (double)ny / b;
    double score = bx < by ? bx / by : by / bx;
    if (score > best) {
      best = score;
      *px = a;
      *py = b;
    }
  }
}

int cryo_grid_create(cryo_grid *g, MPI_Comm comm, int nx, int ny, double dx, double dy,
                     int px_count, int py_count, int periodic_x, int periodic_y, cryo_err *err) {
  memset(g, 0, sizeof *g);
  g->comm = comm;
  g->fold_comm = MPI_COMM_NULL;
  CRYO_CALL(cryo_mpi_check(MPI_Comm_rank(comm, &g->rank), "MPI_Comm_rank", err));
  CRYO_CALL(cryo_mpi_check(MPI_Comm_size(comm, &g->size), "MPI_Comm_size", err));
  CRYO_CHECK(nx >= 2 && ny >= 2, err, CRYO_ERR_RANGE, "grid %d x %d: nx and ny must be >= 2", nx,
             ny);
  CRYO_CHECK(dx > 0 && dy > 0, err, CRYO_ERR_RANGE, "grid spacing dx = %g, dy = %g m: must be > 0",
             dx, dy);
  if (px_count <= 0 && py_count <= 0) {
    choose_process_grid(g->size, nx, ny, &px_count, &py_count);
  } else if (px_count <= 0) {
    CRYO_CHECK(g->size % py_count == 0, err, CRYO_ERR_RANGE,
               "nprocs_y = %d does not divide the %d MPI ranks", py_count, g->size);
    px_count = g->size / py_count;
  } else if (py_count <= 0) {
    CRYO_CHECK(g->size % px_count == 0, err, CRYO_ERR_RANGE,
               "nprocs_x = %d does not divide the %d MPI ranks", px_count, g->size);
    py_count = g->size / px_count;
  }
  CRYO_CHECK(px_count * py_count == g->size, err, CRYO_ERR_RANGE,
             "process grid nprocs_x x nprocs_y = %d x %d does not match the %d MPI ranks", px_count,
             py_count, g->size);
  CRYO_CHECK(nx / px_count >= 2 && ny / py_count >= 2, err, CRYO_ERR_RANGE,
             "grid %d x %d over %d x %d ranks leaves a rank fewer than 2 cells each way", nx, ny,
             px_count, py_count);
  g->px_count = px_count;
  g->py_count = py_count;
  g->px = g->rank % px_count;
  g->py = g->rank / px_count;
  g->i_start = malloc((size_t)(px_count + 1) * sizeof *g->i_start);
  g->j_start = malloc((size_t)(py_count + 1) * sizeof *g->j_start);
  CRYO_CHECK(g->i_start && g->j_start, err, CRYO_ERR_MEMORY, "out of memory for the decomposition");
  split_range(nx, px_count, 1, g->i_start);
  split_range(ny, py_count, 1, g->j_start);

  cryo_block *b = &g->block;
  b->i0 = g->i_start[g->px];
  b->j0 = g->j_start[g->py];
  b->nx = g->i_start[g->px + 1] - b->i0;
  b->ny = g->j_start[g->py + 1] - b->j0;
  b->nx_global = nx;
  b->ny_global = ny;
  b->dx = dx;
  b->dy = dy;
  b->periodic_x = periodic_x;
  b->periodic_y = periodic_y;

  int west = g->px - 1, east = g->px + 1, south = g->py - 1, north = g->py + 1;
  if (periodic_x) west = (west + px_count) % px_count, east = east % px_count;
  if (periodic_y) south = (south + py_count) % py_count, north = north % py_count;
  g->west = west >= 0 && west < px_count ? g->py * px_count + west : MPI_PROC_NULL;
  g->east = east >= 0 && east < px_count ? g->py * px_count + east : MPI_PROC_NULL;
  g->south = south >= 0 && south < py_count ? south * px_count + g->px : MPI_PROC_NULL;
  g->north = north >= 0 && north < py_count ? north * px_count + g->px : MPI_PROC_NULL;
  return CRYO_OK;
}

void cryo_grid_align(cryo_grid *g, int unit_x, int unit_y) {
  cryo_block *b = &g->block;
  split_range(b->nx_global, g->px_count, split_unit(b->nx_global, g->px_count, unit_x), g->i_start);
  split_range(b->ny_global, g->py_count, split_unit(b->ny_global, g->py_count, unit_y), g->j_start);
  b->i0 = g->i_start[g->px];
  b->j0 = g->j_start[g->py];
  b->nx = g->i_start[g->px + 1] - b->i0;
  b->ny = g->j_start[g->py + 1] - b->j0;
}

/* start[0..count]: part p ends where the running sum of w first reaches
 * p / count of the total, each part at least 2 cells long. */
static void split_weighted(int n, int count, const long *w, int *start) {
  long total = 0;
  for (int i = 0; i < n; ++i)
    total += w[i];
  if (total == 0) return;
  start[0] = 0;
  long sum = 0;
  int i = 0;
  for (int p = 1; p < count; ++p) {
    /* integer target: p total / count, so every rank computes the same split */
    const long target = total * p / count;
    while (i < n && sum + w[i] <= target)
      sum += w[i++];
    int lo = start[p - 1] + 2, hi = n - 2 * (count - p);
    start[p] = i < lo ? lo : i > hi ? hi : i;
    for (; i < start[p]; ++i)
      sum += w[i];
    for (; i > start[p]; --i)
      sum -= w[i - 1];
  }
  start[count] = n;
}

void cryo_grid_balance(cryo_grid *g, const long *col, const long *row) {
  cryo_block *b = &g->block;
  split_weighted(b->nx_global, g->px_count, col, g->i_start);
  split_weighted(b->ny_global, g->py_count, row, g->j_start);
  b->i0 = g->i_start[g->px];
  b->j0 = g->j_start[g->py];
  b->nx = g->i_start[g->px + 1] - b->i0;
  b->ny = g->j_start[g->py + 1] - b->j0;
}

void cryo_grid_destroy(cryo_grid *g) {
  free(g->i_start);
  free(g->j_start);
  g->i_start = g->j_start = NULL;
  if (g->block.fold && g->fold_comm != MPI_COMM_NULL) MPI_Comm_free(&g->fold_comm);
  g->block.fold = CRYO_FOLD_NONE;
}

int cryo_grid_set_fold(cryo_grid *g, cryo_fold fold, cryo_err *err) {
  const cryo_block *b = &g->block;
  if (fold == CRYO_FOLD_NONE) return CRYO_OK;
  CRYO_CHECK(fold == CRYO_FOLD_T || fold == CRYO_FOLD_F, err, CRYO_ERR_ARG,
             "north fold %d: expected CRYO_FOLD_T or CRYO_FOLD_F", (int)fold);
  CRYO_CHECK(b->periodic_x && !b->periodic_y, err, CRYO_ERR_ARG,
             "a north fold needs a grid periodic in x and not in y (periodic_x = %d, periodic_y = "
             "%d)",
             b->periodic_x, b->periodic_y);
  /* the fold mirrors i about two pivots half the grid apart */
  CRYO_CHECK(b->nx_global % 2 == 0, err, CRYO_ERR_RANGE,
             "a north fold needs an even number of cells along x, not nx = %d", b->nx_global);
  /* the ranks of the top process row share the rows next to the fold */
  const int top = g->py == g->py_count - 1;
  CRYO_CALL(cryo_mpi_check(MPI_Comm_split(g->comm, top ? 0 : MPI_UNDEFINED, g->px, &g->fold_comm),
                           "MPI_Comm_split (north fold)", err));
  g->block.fold = fold;
  return CRYO_OK;
}

/* The points rank (px, py) owns: cells of its block, or nodes of its block
 * without the last column/row unless it is the last block that way. */
static void owned_extent(const cryo_grid *g, cryo_location loc, int px, int py, int *i0, int *ni,
                         int *j0, int *nj) {
  *i0 = g->i_start[px];
  *j0 = g->j_start[py];
  *ni = g->i_start[px + 1] - *i0;
  *nj = g->j_start[py + 1] - *j0;
  if (loc == CRYO_AT_NODE) {
    if (px == g->px_count - 1) ++*ni;
    if (py == g->py_count - 1) ++*nj;
  }
}

static long local_index(const cryo_block *b, cryo_location loc, int i, int j) {
  return loc == CRYO_AT_CELL ? CRYO_CELL(b, i, j) : CRYO_NODE(b, i, j);
}

/* Copy this rank's owned points of `local`, point (i, j) at
 * [first + j * row + i], into `out`, rows of `out_row` points starting at
 * point (i0, j0) of out. A row of either layout is contiguous along i: one
 * copy a row (a copy a point made 14 million calls a field at the 2 km
 * Arctic). */
static void copy_owned(int nlev, int ni, int nj, const double *local, long first, long row,
                       double *out, long out_row, int i0, int j0) {
  for (int j = 0; j < nj; ++j)
    memcpy(out + (((long)j0 + j) * out_row + i0) * nlev, local + (first + j * row) * nlev,
           (size_t)ni * nlev * sizeof *out);
}

/* cryo_grid_gather of points laid out as copy_owned's `local`. */
static int gather(const cryo_grid *g, cryo_location loc, int nlev, const double *local, long first,
                  long row, double *global, cryo_err *err) {
  const cryo_block *b = &g->block;
  int i0, ni, j0, nj;
  owned_extent(g, loc, g->px, g->py, &i0, &ni, &j0, &nj);
  int gnx = b->nx_global + (loc == CRYO_AT_NODE);
  /* rank 0 copies its own points straight into global and takes no part of
   * the message: no send or receive buffer for them (a 1-rank run of the
   * 2 km Arctic gathered 1.4 GB of grid coordinates through two fresh copies) */
  if (g->rank == 0) copy_owned(nlev, ni, nj, local, first, row, global, gnx, i0, j0);
  if (g->size == 1) return CRYO_OK;
  long nsend = g->rank == 0 ? 0 : (long)ni * nj * nlev;
  double *send = malloc((size_t)(nsend > 0 ? nsend : 1) * sizeof *send);
  CRYO_CHECK(send, err, CRYO_ERR_MEMORY, "out of memory gathering a field");
  if (nsend > 0) copy_owned(nlev, ni, nj, local, first, row, send, ni, 0, 0);

  int *counts = NULL, *displs = NULL;
  double *recv = NULL;
  if (g->rank == 0) {
    counts = malloc((size_t)g->size * sizeof *counts);
    displs = malloc((size_t)g->size * sizeof *displs);
    long offset = 0;
    for (int r = 0; counts && displs && r < g->size; ++r) {
      int a0, an, c0, cn;
      owned_extent(g, loc, r % g->px_count, r / g->px_count, &a0, &an, &c0, &cn);
      counts[r] = r == 0 ? 0 : an * cn * nlev;
      displs[r] = (int)offset;
      offset += counts[r];
    }
    recv = malloc((size_t)(offset > 0 ? offset : 1) * sizeof *recv);
    if (!counts || !displs || !recv) {
      free(send), free(counts), free(displs), free(recv);
      return CRYO_ERROR(err, CRYO_ERR_MEMORY, "out of memory gathering a field");
    }
  }
  int status = cryo_mpi_check(
      MPI_Gatherv(send, (int)nsend, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, g->comm),
      "MPI_Gatherv", err);
  if (status == CRYO_OK && g->rank == 0) {
    for (int r = 1; r < g->size; ++r) {
      int a0, an, c0, cn;
      owned_extent(g, loc, r % g->px_count, r / g->px_count, &a0, &an, &c0, &cn);
      for (int j = 0; j < cn; ++j)
        memcpy(global + ((long)(c0 + j) * gnx + a0) * nlev, recv + displs[r] + (long)j * an * nlev,
               (size_t)an * nlev * sizeof *global);
    }
  }
  free(send), free(counts), free(displs), free(recv);
  return status;
}

int cryo_grid_gather(const cryo_grid *g, cryo_location loc, int nlev, const double *local,
                     double *global, cryo_err *err) {
  const long first = local_index(&g->block, loc, 0, 0);
  return gather(g, loc, nlev, local, first, local_index(&g->block, loc, 0, 1) - first, global, err);
}

int cryo_grid_gather_cells(const cryo_grid *g, int nlev, const double *local, long first, long row,
                           double *global, cryo_err *err) {
  return gather(g, CRYO_AT_CELL, nlev, local, first, row, global, err);
}

int cryo_grid_scatter(const cryo_grid *g, cryo_location loc, int nlev, const double *global,
                      double *local, cryo_err *err) {
  const cryo_block *b = &g->block;
  int node = loc == CRYO_AT_NODE;
  int gnx = b->nx_global + node;
  /* Every rank takes its whole block of points, shared edge nodes included. */
  int ni = b->nx + node, nj = b->ny + node;
  long ncount = (long)ni * nj * nlev;
  double *recv = malloc((size_t)ncount * sizeof *recv);
  CRYO_CHECK(recv, err, CRYO_ERR_MEMORY, "out of memory scattering a field");
  int status = CRYO_OK;
  if (g->rank == 0) {
    for (int r = 0; r < g->size && status == CRYO_OK; ++r) {
      int px = r % g->px_count, py = r / g->px_count;
      int a0 = g->i_start[px], c0 = g->j_start[py];
      int an = g->i_start[px + 1] - a0 + node, cn = g->j_start[py + 1] - c0 + node;
      double *buf = r == 0 ? recv : malloc((size_t)an * cn * nlev * sizeof *buf);
      if (!buf) {
        status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "out of memory scattering a field");
        break;
      }
      for (int j = 0; j < cn; ++j)
        memcpy(buf + (long)j * an * nlev, global + ((long)(c0 + j) * gnx + a0) * nlev,
               (size_t)an * nlev * sizeof *buf);
      if (r != 0) {
        status = cryo_mpi_check(MPI_Send(buf, an * cn * nlev, MPI_DOUBLE, r, 7, g->comm),
                                "MPI_Send", err);
        free(buf);
      }
    }
  } else {
    status = cryo_mpi_check(
        MPI_Recv(recv, (int)ncount, MPI_DOUBLE, 0, 7, g->comm, MPI_STATUS_IGNORE), "MPI_Recv", err);
  }
  /* a row at a time, as copy_owned */
  if (status == CRYO_OK)
    for (int j = 0; j < nj; ++j)
      memcpy(local + local_index(b, loc, 0, j) * nlev, recv + (long)j * ni * nlev,
             (size_t)ni * nlev * sizeof *local);
  free(recv);
  return status;
}
