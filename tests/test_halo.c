/* Halo exchange against a global-index field (issue 2, item 6).
 * Every owned point holds f(global i, global j, level); after an exchange
 * each halo point inside the domain (or its periodic image) must hold f of
 * its global index exactly, and halo points outside a non-periodic domain must
 * keep their poison value. Run on 1, 2, 3 and 4 ranks; grids with odd sizes
 * so that blocks differ in size. */
#include "cryo_device.h"
#include "cryo_grid.h"
#include "cryo_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double value(int gi, int gj, int k) {
  return (gi * 1000.0 + gj) * 10.0 + k;
}

static int wrap(int g, int n, int periodic, int *ok) {
  if (periodic) return ((g % n) + n) % n;
  *ok = *ok && g >= 0 && g < n;
  return g;
}

static void check_exchange(int nx, int ny, int periodic, cryo_location loc, int nlev) {
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(
      cryo_grid_create(&g, MPI_COMM_WORLD, nx, ny, 1.0, 1.0, 0, 0, periodic, periodic, &err),
      CRYO_OK);
  cryo_halo *h = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, &dev, 4 * nlev, &err), CRYO_OK);
  const cryo_block *b = &g.block;
  int node = loc == CRYO_AT_NODE;
  long npts = node ? CRYO_NNODE(b) : CRYO_NCELL(b);
  double *f[2], *fd[2];
  for (int q = 0; q < 2; ++q) {
    CU_ASSERT_EQUAL_FATAL(cryo_device_alloc(&dev, npts * nlev, &f[q], &fd[q], &err), CRYO_OK);
    for (long p = 0; p < npts * nlev; ++p)
      f[q][p] = -1.0;
  }
  /* Global number of distinct points each way: periodic nodes wrap at n. */
  int gnx = nx + (node && !periodic), gny = ny + (node && !periodic);
  for (int j = 0; j < b->ny + node; ++j)
    for (int i = 0; i < b->nx + node; ++i)
      for (int k = 0; k < nlev; ++k) {
        int ok = 1, gi = wrap(b->i0 + i, gnx, periodic, &ok),
            gj = wrap(b->j0 + j, gny, periodic, &ok);
        long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
        f[0][at] = value(gi, gj, k);
        f[1][at] = -value(gi, gj, k);
      }
  for (int q = 0; q < 2; ++q)
    cryo_device_to_device(&dev, f[q], 0, npts * nlev);
  cryo_device_reset_counters(&dev);
  CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange(h, loc, nlev, 2, fd, &err), CRYO_OK);
  /* a rank that is its own neighbour on both axes keeps the lines on the device */
  if (g.size == 1) CU_ASSERT_EQUAL(dev.bytes_to_host + dev.bytes_to_device, 0);
  for (int q = 0; q < 2; ++q)
    cryo_device_to_host(&dev, f[q], 0, npts * nlev);

  long wrong = 0;
  for (int j = -1; j <= b->ny + node; ++j)
    for (int i = -1; i <= b->nx + node; ++i)
      for (int k = 0; k < nlev; ++k) {
        int ok = 1;
        int gi = wrap(b->i0 + i, gnx, periodic, &ok), gj = wrap(b->j0 + j, gny, periodic, &ok);
        long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
        double want = ok ? value(gi, gj, k) : -1.0;
        wrong += f[0][at] != want || f[1][at] != (ok ? -want : -1.0);
      }
  CU_ASSERT_EQUAL(wrong, 0);
  if (wrong)
    fprintf(stderr, "halo %s nlev %d periodic %d on block %d+%d x %d+%d: %ld wrong values\n",
            node ? "nodes" : "cells", nlev, periodic, b->i0, b->nx, b->j0, b->ny, wrong);
  for (int q = 0; q < 2; ++q)
    cryo_device_free(&dev, &f[q], npts * nlev);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

static void test_cells(void) {
  check_exchange(13, 9, 0, CRYO_AT_CELL, 1);
  check_exchange(13, 9, 0, CRYO_AT_CELL, 3);
}
static void test_nodes(void) {
  check_exchange(13, 9, 0, CRYO_AT_NODE, 1);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 4);
}
static void test_periodic(void) {
  check_exchange(12, 10, 1, CRYO_AT_CELL, 2);
  check_exchange(12, 10, 1, CRYO_AT_NODE, 3);
}

/* Too many ranks for the grid: every rank needs 2 cells each way. */
static void test_too_small(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cryo_grid g;
  cryo_err err = {0};
  int status = cryo_grid_create(&g, MPI_COMM_WORLD, size == 1 ? 3 : 2 * size - 1, 2, 1.0, 1.0, 0, 0,
                                0, 0, &err);
  if (size == 1) {
    CU_ASSERT_EQUAL(status, CRYO_OK);
  } else {
    CU_ASSERT_EQUAL(status, CRYO_ERR_RANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fewer than 2 cells"));
  }
  cryo_grid_destroy(&g);
  status = cryo_grid_create(&g, MPI_COMM_WORLD, 40, 40, 1.0, 1.0, size + 1, 0, 0, 0, &err);
  CU_ASSERT_EQUAL(status, CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nprocs_x"));
  cryo_grid_destroy(&g);
}

/* Gather of a global-index field to rank 0 and scatter back. */
static void test_gather_scatter(void) {
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, 9, 7, 1, 1, 0, 0, 0, 0, &err),
                        CRYO_OK);
  const cryo_block *b = &g.block;
  for (int node = 0; node < 2; ++node) {
    cryo_location loc = node ? CRYO_AT_NODE : CRYO_AT_CELL;
    long npts = node ? CRYO_NNODE(b) : CRYO_NCELL(b);
    double *local = calloc((size_t)npts * 2, sizeof *local);
    double *back = calloc((size_t)npts * 2, sizeof *back);
    double *global = calloc((size_t)(10 * 8 * 2), sizeof *global);
    for (int j = 0; j < b->ny + node; ++j)
      for (int i = 0; i < b->nx + node; ++i)
        for (int k = 0; k < 2; ++k)
          local[(node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * 2 + k] =
              value(b->i0 + i, b->j0 + j, k);
    CU_ASSERT_EQUAL(cryo_grid_gather(&g, loc, 2, local, global, &err), CRYO_OK);
    if (g.rank == 0) {
      long wrong = 0;
      for (int j = 0; j < 7 + node; ++j)
        for (int i = 0; i < 9 + node; ++i)
          for (int k = 0; k < 2; ++k)
            wrong += global[((long)j * (9 + node) + i) * 2 + k] != value(i, j, k);
      CU_ASSERT_EQUAL(wrong, 0);
    }
    CU_ASSERT_EQUAL(cryo_grid_scatter(&g, loc, 2, global, back, &err), CRYO_OK);
    long wrong = 0;
    for (long p = 0; p < npts * 2; ++p)
      wrong += back[p] != local[p];
    CU_ASSERT_EQUAL(wrong, 0);
    free(local), free(back), free(global);
  }
  cryo_grid_destroy(&g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"cell halo", test_cells},
                         {"node halo", test_nodes},
                         {"periodic halo", test_periodic},
                         {"decomposition limits", test_too_small},
                         {"gather and scatter", test_gather_scatter},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("halo", tests);
  return cryo_test_run();
}
