/* mpi-run ranks: 1 2 3 4 (tests/mpi-run runs this program once per count) */
/* Halo exchange against a global-index field (docs/design.md, Grid, decomposition and halos).
 * Every owned point holds f(global i, global j, level); after an exchange
 * each halo point inside the domain (or its periodic image) must hold f of
 * its global index exactly, and halo points outside a non-periodic domain must
 * keep their poison value, or with a clamping halo hold f of the nearest
 * domain point. Run on 1, 2, 3 and 4 ranks; grids with odd sizes
 * so that blocks differ in size. Both paths to MPI (docs/multi-gpu.md, Halo exchange): staged
 * through host buffers, where only the packed lines cross (one update each way per axis and group
 * of 4 fields), and MPI on the device buffers, where nothing crosses (on a CPU build the device
 * buffers are the host ones, so the path runs here too); a halo of host arrays (made without a
 * device layer, as the exchange layer uses it), where nothing touches the device; and the decision
 * between the first two (halo_device_buffers). The north fold of a tripolar grid (both pivots,
 * cells and nodes, scalars and vectors) is checked against NEMO's lbc_nfd formulas applied to a
 * global array in NEMO's own indices, on process grids that split the top row or not. Blocks
 * split by ocean cells (cryo_grid_balance) share a mask's ocean evenly. A halo that one rank fills
 * alone in one launch gives the bits of the general path's steps. An exchange in two halves
 * (begin, end) gives the bits of one exchange, with inner points written in between. */
#include "cryo_device.h"
#include "cryo_grid.h"
#include "cryo_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double value(int gi, int gj, int k) {
  return (gi * 1000.0 + gj) * 10.0 + k;
}

/* Global index g in [0, n): wrapped when periodic; otherwise *ok = 0 outside
 * and, with clamp, the nearest index inside. */
static int wrap(int g, int n, int periodic, int clamp, int *ok) {
  if (periodic) return ((g % n) + n) % n;
  *ok = *ok && g >= 0 && g < n;
  if (clamp) return g < 0 ? 0 : g >= n ? n - 1 : g;
  return g;
}

/* How the fields reach MPI. */
enum { STAGED, DEVICE_BUFFERS, HOST_ARRAYS };

static void check_exchange(int nx, int ny, int periodic, cryo_location loc, int nlev, int nfield,
                           int path, int clamp) {
  enum { MAXF = 6 };
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(
      cryo_grid_create(&g, MPI_COMM_WORLD, nx, ny, 1.0, 1.0, 0, 0, periodic, periodic, &err),
      CRYO_OK);
  cryo_halo *h = NULL;
  const int device_buffers = path == DEVICE_BUFFERS, host = path == HOST_ARRAYS;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, host ? NULL : &dev, 4 * nlev, &err), CRYO_OK);
  if (device_buffers) cryo_halo_set_path(h, 1, "device buffers (test)");
  cryo_halo_set_clamp(h, clamp);
  static const char *const paths[] = {"staged through host buffers", "device buffers (test)",
                                      "host arrays, host buffers"};
  CU_ASSERT_STRING_EQUAL(cryo_halo_path(h), paths[path]);
  const cryo_block *b = &g.block;
  int node = loc == CRYO_AT_NODE;
  long npts = node ? CRYO_NNODE(b) : CRYO_NCELL(b);
  double *f[MAXF], *fd[MAXF];
  for (int q = 0; q < nfield; ++q) {
    if (host) {
      fd[q] = f[q] = malloc(sizeof(double) * (size_t)(npts * nlev));
      CU_ASSERT_PTR_NOT_NULL_FATAL(f[q]);
    } else {
      CU_ASSERT_EQUAL_FATAL(cryo_device_alloc(&dev, npts * nlev, &f[q], &fd[q], &err), CRYO_OK);
    }
    for (long p = 0; p < npts * nlev; ++p)
      f[q][p] = -1.0;
  }
  /* Global number of distinct points each way: periodic nodes wrap at n. */
  int gnx = nx + (node && !periodic), gny = ny + (node && !periodic);
  for (int j = 0; j < b->ny + node; ++j)
    for (int i = 0; i < b->nx + node; ++i)
      for (int k = 0; k < nlev; ++k) {
        int ok = 1, gi = wrap(b->i0 + i, gnx, periodic, 0, &ok),
            gj = wrap(b->j0 + j, gny, periodic, 0, &ok);
        long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
        for (int q = 0; q < nfield; ++q)
          f[q][at] = value(gi, gj, k) + 1e7 * q;
      }
  if (!host)
    for (int q = 0; q < nfield; ++q)
      cryo_device_to_device(&dev, f[q], 0, npts * nlev);
  cryo_device_reset_counters(&dev);
  double s0;
  long x0;
  long long sent0;
  cryo_halo_stats(h, &s0, &x0, &sent0);
  CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange(h, loc, nlev, nfield, fd, &err), CRYO_OK);
  double s1;
  long x1;
  long long sent1;
  cryo_halo_stats(h, &s1, &x1, &sent1);
  CU_ASSERT(s1 >= s0);
  /* a rank that is its own neighbour on both axes keeps the lines on the device */
  if (g.size == 1) CU_ASSERT_EQUAL(dev.bytes_to_host + dev.bytes_to_device + sent1 - sent0, 0);
  if (host) {
    CU_ASSERT_EQUAL(dev.updates_to_host + dev.updates_to_device, 0);
  } else if (device_buffers) {
    CU_ASSERT_EQUAL(dev.bytes_to_host + dev.bytes_to_device, 0);
  } else {
    /* exactly the lines sent go to the host, at most one update per axis */
    int groups = (nfield + 3) / 4;
    CU_ASSERT_EQUAL(dev.bytes_to_host, sent1 - sent0);
    CU_ASSERT(dev.updates_to_host <= 2 * groups);
    CU_ASSERT(dev.updates_to_device <= 2 * groups);
  }
  if (!host)
    for (int q = 0; q < nfield; ++q)
      cryo_device_to_host(&dev, f[q], 0, npts * nlev);

  long wrong = 0;
  for (int j = -1; j <= b->ny + node; ++j)
    for (int i = -1; i <= b->nx + node; ++i)
      for (int k = 0; k < nlev; ++k) {
        int ok = 1;
        int gi = wrap(b->i0 + i, gnx, periodic, clamp, &ok),
            gj = wrap(b->j0 + j, gny, periodic, clamp, &ok);
        long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
        for (int q = 0; q < nfield; ++q)
          wrong += f[q][at] != (ok || clamp ? value(gi, gj, k) + 1e7 * q : -1.0);
      }
  CU_ASSERT_EQUAL(wrong, 0);
  if (wrong)
    fprintf(
        stderr,
        "halo %s nlev %d x %d fields periodic %d clamp %d (%s) on block %d+%d x %d+%d: %ld wrong "
        "values\n",
        node ? "nodes" : "cells", nlev, nfield, periodic, clamp, paths[path], b->i0, b->nx, b->j0,
        b->ny, wrong);
  for (int q = 0; q < nfield; ++q)
    if (host)
      free(f[q]);
    else
      cryo_device_free(&dev, &f[q], npts * nlev);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

static void test_cells(void) {
  check_exchange(13, 9, 0, CRYO_AT_CELL, 1, 2, STAGED, 0);
  check_exchange(13, 9, 0, CRYO_AT_CELL, 3, 2, STAGED, 0);
}
static void test_nodes(void) {
  check_exchange(13, 9, 0, CRYO_AT_NODE, 1, 2, STAGED, 0);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 4, 2, STAGED, 0);
}
static void test_periodic(void) {
  check_exchange(12, 10, 1, CRYO_AT_CELL, 2, 2, STAGED, 0);
  check_exchange(12, 10, 1, CRYO_AT_NODE, 3, 2, STAGED, 0);
}
/* More fields than one pack launch takes (groups of 4), both paths. */
static void test_many_fields(void) {
  check_exchange(13, 9, 0, CRYO_AT_NODE, 2, 6, STAGED, 0);
  check_exchange(12, 10, 1, CRYO_AT_CELL, 1, 5, STAGED, 0);
}
/* MPI reads and writes the device buffers (on a CPU build: the host ones). */
static void test_device_buffers(void) {
  check_exchange(13, 9, 0, CRYO_AT_CELL, 3, 2, DEVICE_BUFFERS, 0);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 4, 6, DEVICE_BUFFERS, 0);
  check_exchange(12, 10, 1, CRYO_AT_NODE, 3, 2, DEVICE_BUFFERS, 0);
}
/* A clamping halo fills the halo at a closed domain edge with the nearest
 * owned points (corners too); periodic directions still wrap. */
static void test_clamp(void) {
  check_exchange(13, 9, 0, CRYO_AT_CELL, 1, 1, HOST_ARRAYS, 1);
  check_exchange(12, 10, 1, CRYO_AT_CELL, 1, 1, HOST_ARRAYS, 1);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 3, 5, HOST_ARRAYS, 1);
  check_exchange(13, 9, 0, CRYO_AT_CELL, 2, 2, STAGED, 1);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 1, 2, DEVICE_BUFFERS, 1);
}
/* Host arrays: the same halo, with no device copy to update. */
static void test_host_arrays(void) {
  check_exchange(13, 9, 0, CRYO_AT_CELL, 1, 1, HOST_ARRAYS, 0);
  check_exchange(12, 10, 1, CRYO_AT_CELL, 2, 5, HOST_ARRAYS, 0);
  check_exchange(11, 14, 0, CRYO_AT_NODE, 3, 2, HOST_ARRAYS, 0);
}

/* The fold as NEMO's lbc_nfd writes it (its loops, its indices), on a global
 * array a[jj][ji]: ji = 1 .. jpiglo with the two cyclic columns (jpiglo =
 * nx + 2), T point (ji, jj) the centre of cell (ji - 2, jj - 1), F point
 * (ji, jj) node (ji - 1, jj); jpj = ny + 1 is the first T row above the grid.
 * psgn: -1 for a vector component. One departure: NEMO's T-pivot loop also
 * writes the pivot cell of the row the fold crosses onto itself (negating a
 * vector there); cryodyn leaves points that map onto themselves alone. */
static void nemo_fold(int fold, int node, int jpiglo, int jpj, double psgn, double **a) {
  if (fold == CRYO_FOLD_T && !node) {
    for (int ji = 2; ji <= jpiglo; ++ji)
      a[jpj][ji] = psgn * a[jpj - 2][jpiglo - ji + 2];
    for (int ji = jpiglo / 2 + 2; ji <= jpiglo; ++ji)
      a[jpj - 1][ji] = psgn * a[jpj - 1][jpiglo - ji + 2];
  } else if (fold == CRYO_FOLD_T) {
    for (int ji = 1; ji <= jpiglo - 1; ++ji) {
      a[jpj - 1][ji] = psgn * a[jpj - 2][jpiglo - ji + 1];
      a[jpj][ji] = psgn * a[jpj - 3][jpiglo - ji + 1];
    }
  } else if (!node) {
    for (int ji = 1; ji <= jpiglo; ++ji)
      a[jpj][ji] = psgn * a[jpj - 1][jpiglo - ji + 1];
  } else {
    for (int ji = 1; ji <= jpiglo - 1; ++ji)
      a[jpj][ji] = psgn * a[jpj - 2][jpiglo - ji];
    for (int ji = jpiglo / 2 + 1; ji <= jpiglo - 1; ++ji)
      a[jpj - 1][ji] = psgn * a[jpj - 1][jpiglo - ji];
  }
}

/* A grid periodic in x, closed at the bottom and folded at the top: every
 * point of the block, halo included, against the NEMO array (the grid's
 * own points below the fold, poison below the bottom edge). px_count: the
 * process grid's columns (0: automatic). sign: per level, NULL for a
 * scalar exchange. */
static void check_fold(int fold, int nx, int ny, int px_count, cryo_location loc, int nlev,
                       int nfield, const int *sign, int path) {
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (px_count > size || size % (px_count ? px_count : 1) ||
      ny / (px_count ? size / px_count : 1) < 2)
    px_count = 0;
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(
      cryo_grid_create(&g, MPI_COMM_WORLD, nx, ny, 1.0, 1.0, px_count, 0, 1, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_set_fold(&g, fold, &err), CRYO_OK);
  cryo_halo *h = NULL;
  const int host = path == HOST_ARRAYS;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, host ? NULL : &dev, 4 * nlev, &err), CRYO_OK);
  if (path == DEVICE_BUFFERS) cryo_halo_set_path(h, 1, "device buffers (test)");
  const cryo_block *b = &g.block;
  const int node = loc == CRYO_AT_NODE;
  const long npts = node ? CRYO_NNODE(b) : CRYO_NCELL(b);
  double *f[6], *fd[6];
  for (int q = 0; q < nfield; ++q) {
    if (host) {
      fd[q] = f[q] = malloc(sizeof(double) * (size_t)(npts * nlev));
      CU_ASSERT_PTR_NOT_NULL_FATAL(f[q]);
    } else {
      CU_ASSERT_EQUAL_FATAL(cryo_device_alloc(&dev, npts * nlev, &f[q], &fd[q], &err), CRYO_OK);
    }
    for (long p = 0; p < npts * nlev; ++p)
      f[q][p] = -1.0;
    for (int j = 0; j < b->ny + node; ++j)
      for (int i = 0; i < b->nx + node; ++i)
        for (int k = 0; k < nlev; ++k) {
          const long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
          f[q][at] = value((b->i0 + i) % nx, b->j0 + j, k) + 1e7 * q;
        }
    if (!host) cryo_device_to_device(&dev, f[q], 0, npts * nlev);
  }
  cryo_device_reset_counters(&dev);
  double s0;
  long x0;
  long long sent0;
  cryo_halo_stats(h, &s0, &x0, &sent0);
  if (sign)
    CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange_signed(h, loc, nlev, nfield, fd, sign, &err), CRYO_OK)
  else
    CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange(h, loc, nlev, nfield, fd, &err), CRYO_OK);
  double s1;
  long x1;
  long long sent1;
  cryo_halo_stats(h, &s1, &x1, &sent1);
  /* one rank: seam and fold alike stay on the device */
  if (g.size == 1) CU_ASSERT_EQUAL(dev.bytes_to_host + dev.bytes_to_device + sent1 - sent0, 0);
  if (path == DEVICE_BUFFERS) CU_ASSERT_EQUAL(dev.bytes_to_host + dev.bytes_to_device, 0);
  if (!host)
    for (int q = 0; q < nfield; ++q)
      cryo_device_to_host(&dev, f[q], 0, npts * nlev);

  const int jpiglo = nx + 2, jpj = ny + 1;
  double **a = malloc(sizeof(double *) * (size_t)(jpj + 2));
  for (int jj = 0; jj <= jpj + 1; ++jj)
    a[jj] = malloc(sizeof(double) * (size_t)(jpiglo + 1));
  long wrong = 0;
  for (int q = 0; q < nfield; ++q)
    for (int k = 0; k < nlev; ++k) {
      for (int jj = 0; jj <= jpj + 1; ++jj)
        for (int ji = 1; ji <= jpiglo; ++ji) {
          const int gi = ((node ? ji - 1 : ji - 2) + nx) % nx, gj = node ? jj : jj - 1;
          a[jj][ji] = gj >= 0 && gj < ny + node ? value(gi, gj, k) + 1e7 * q : -1.0;
        }
      nemo_fold(fold, node, jpiglo, jpj, sign ? sign[k] : 1.0, a);
      for (int j = -1; j <= b->ny + node; ++j)
        for (int i = -1; i <= b->nx + node; ++i) {
          const int gi = (b->i0 + i + nx) % nx, gj = b->j0 + j;
          const double want = gj < 0 ? -1.0 : node ? a[gj][gi + 1] : a[gj + 1][gi + 2];
          const long at = (node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k;
          wrong += f[q][at] != want;
        }
    }
  CU_ASSERT_EQUAL(wrong, 0);
  if (wrong)
    fprintf(stderr,
            "fold %s %s %d x %d, nlev %d x %d fields, %s, path %d, block %d+%d x %d+%d: %ld "
            "wrong values\n",
            fold == CRYO_FOLD_T ? "T" : "F", node ? "nodes" : "cells", nx, ny, nlev, nfield,
            sign ? "signed" : "scalar", path, b->i0, b->nx, b->j0, b->ny, wrong);
  for (int jj = 0; jj <= jpj + 1; ++jj)
    free(a[jj]);
  free(a);
  for (int q = 0; q < nfield; ++q)
    if (host)
      free(f[q]);
    else
      cryo_device_free(&dev, &f[q], npts * nlev);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* Both pivots, cells and nodes; scalars, vectors (-1 on every level) and
 * dG1 fields (mean kept, slopes reversed); the top row split over ranks
 * (automatic grid, all ranks in x) or held by one rank (all ranks in y). */
static void test_fold(void) {
  static const int vector[1] = {-1}, dg1[3] = {1, -1, -1}, uv[2] = {-1, -1};
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int fold = CRYO_FOLD_T; fold <= CRYO_FOLD_F; ++fold)
    for (int node = 0; node < 2; ++node) {
      const cryo_location loc = node ? CRYO_AT_NODE : CRYO_AT_CELL;
      check_fold(fold, 12, 9, 0, loc, 1, 1, NULL, STAGED);
      check_fold(fold, 12, 9, 0, loc, 1, 2, vector, STAGED);
      check_fold(fold, 14, 8, size, loc, 3, 5, dg1, STAGED);
      check_fold(fold, 16, 9, 1, loc, 2, 1, uv, STAGED);
      check_fold(fold, 14, 8, size, loc, 2, 2, uv, DEVICE_BUFFERS);
      check_fold(fold, 12, 9, 0, loc, 3, 2, dg1, HOST_ARRAYS);
    }
}

/* One rank's halo filled alone (cryo_halo_local_fill) against the general
 * path (x wrap, y, fold: pack and unpack launches) on the same field, bit for
 * bit over every point of the block, halo included: every point starts with
 * its own value (negative ones and zeros among them, so that a sign flip or a
 * wrong source shows), nlev levels with signs, nfield fields (more than one
 * launch takes). On MPI_COMM_SELF, so every rank count runs it. */
static void check_alone(int nx, int ny, int periodic_x, int periodic_y, int fold, int clamp,
                        cryo_location loc, int nlev, int nfield, const int *sign) {
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_SELF, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(
      cryo_grid_create(&g, MPI_COMM_SELF, nx, ny, 1.0, 1.0, 0, 0, periodic_x, periodic_y, &err),
      CRYO_OK);
  if (fold) CU_ASSERT_EQUAL_FATAL(cryo_grid_set_fold(&g, fold, &err), CRYO_OK);
  cryo_halo *h = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, &dev, 4 * nlev, &err), CRYO_OK);
  cryo_halo_set_clamp(h, clamp);
  CU_ASSERT_EQUAL(cryo_halo_alone(h), 1);
  const long n = (loc == CRYO_AT_NODE ? CRYO_NNODE(&g.block) : CRYO_NCELL(&g.block)) * nlev;
  double *f[2][6], *fd[2][6];
  for (int path = 0; path < 2; ++path) {
    for (int q = 0; q < nfield; ++q) {
      CU_ASSERT_EQUAL_FATAL(cryo_device_alloc(&dev, n, &f[path][q], &fd[path][q], &err), CRYO_OK);
      for (long p = 0; p < n; ++p)
        f[path][q][p] = p % 7 == 3 ? 0.0 : (p % 2 ? -1.0 : 1.0) * (p + 0.25 + 1e4 * q);
      cryo_device_to_device(&dev, f[path][q], 0, n);
    }
    cryo_halo_set_general(h, path == 0);
    CU_ASSERT_EQUAL(cryo_halo_alone(h), path);
    if (sign)
      CU_ASSERT_EQUAL(cryo_halo_exchange_signed(h, loc, nlev, nfield, fd[path], sign, &err),
                      CRYO_OK)
    else
      CU_ASSERT_EQUAL(cryo_halo_exchange(h, loc, nlev, nfield, fd[path], &err), CRYO_OK);
    for (int q = 0; q < nfield; ++q)
      cryo_device_to_host(&dev, f[path][q], 0, n);
  }
  long differ = 0, changed = 0;
  for (int q = 0; q < nfield; ++q)
    for (long p = 0; p < n; ++p) {
      differ += memcmp(&f[0][q][p], &f[1][q][p], sizeof(double)) != 0;
      changed += f[1][q][p] != (p % 7 == 3 ? 0.0 : (p % 2 ? -1.0 : 1.0) * (p + 0.25 + 1e4 * q));
    }
  CU_ASSERT_EQUAL(differ, 0);
  CU_ASSERT(changed > 0);
  if (differ)
    fprintf(stderr,
            "halo alone %s %d x %d, periodic %d %d, fold %d, clamp %d, nlev %d x %d fields: %ld "
            "values differ from the general path\n",
            loc == CRYO_AT_NODE ? "nodes" : "cells", nx, ny, periodic_x, periodic_y, fold, clamp,
            nlev, nfield, differ);
  for (int path = 0; path < 2; ++path)
    for (int q = 0; q < nfield; ++q)
      cryo_device_free(&dev, &f[path][q], n);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* Both pivots with vectors, dG1 signs and scalars, the south edge left or
 * clamped; periodic both ways; periodic in x with y clamped; closed and
 * clamped; cells and nodes. */
static void test_alone(void) {
  static const int vector[1] = {-1}, dg1[3] = {1, -1, -1};
  for (int node = 0; node < 2; ++node) {
    const cryo_location loc = node ? CRYO_AT_NODE : CRYO_AT_CELL;
    for (int fold = CRYO_FOLD_T; fold <= CRYO_FOLD_F; ++fold)
      for (int clamp = 0; clamp < 2; ++clamp) {
        check_alone(12, 9, 1, 0, fold, clamp, loc, 1, 2, vector);
        check_alone(14, 8, 1, 0, fold, clamp, loc, 3, 5, dg1);
        check_alone(16, 2, 1, 0, fold, clamp, loc, 2, 1, NULL);
      }
    check_alone(12, 10, 1, 1, 0, 0, loc, 3, 2, NULL);
    check_alone(13, 9, 1, 0, 0, 1, loc, 2, 5, NULL);
    check_alone(13, 9, 0, 0, 0, 1, loc, 1, 1, NULL);
    check_alone(11, 14, 0, 1, 0, 0, loc, 1, 3, vector);
  }
  /* closed edges that do not clamp: nothing to fill, no launch */
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_SELF, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_SELF, 13, 9, 1, 1, 0, 0, 0, 0, &err),
                        CRYO_OK);
  cryo_halo *h = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, &dev, 2, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_halo_alone(h), 0);
  cryo_halo_set_clamp(h, 1);
  CU_ASSERT_EQUAL(cryo_halo_alone(h), 1);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* An exchange in two halves (cryo_halo_exchange_begin / _end) against one
 * exchange, bit for bit: two copies of the same fields; the inner points
 * (nodes [2, nx-2] x [2, ny-2], cells [1, nx-2] x [1, ny-2]: neither sent nor
 * halo) change after begin in one and before the exchange in the other, as
 * the velocity update of the inner nodes does, so end must read them (the
 * fold's rows) and begin must not need them. px_count ranks along x (0:
 * automatic). Afterwards: one exchange counted, and where lines cross to
 * other ranks begin has sent some. */
static void check_overlap(int nx, int ny, int px_count, int periodic_x, int periodic_y, int fold,
                          int clamp, cryo_location loc, int nlev, int nfield, const int *sign,
                          int path) {
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (px_count > size || (px_count && size % px_count)) px_count = 0;
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, nx, ny, 1.0, 1.0, px_count,
                                         px_count ? size / px_count : 0, periodic_x, periodic_y,
                                         &err),
                        CRYO_OK);
  if (fold) CU_ASSERT_EQUAL_FATAL(cryo_grid_set_fold(&g, fold, &err), CRYO_OK);
  cryo_halo *h = NULL;
  const int host = path == HOST_ARRAYS;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, host ? NULL : &dev, 4 * nlev, &err), CRYO_OK);
  if (path == DEVICE_BUFFERS) cryo_halo_set_path(h, 1, "device buffers (test)");
  cryo_halo_set_clamp(h, clamp);
  const cryo_block *b = &g.block;
  const int node = loc == CRYO_AT_NODE;
  const long npts = node ? CRYO_NNODE(b) : CRYO_NCELL(b), n = npts * nlev;
  double *f[2][4], *fd[2][4];
  for (int way = 0; way < 2; ++way)
    for (int q = 0; q < nfield; ++q) {
      if (host) {
        fd[way][q] = f[way][q] = malloc(sizeof(double) * (size_t)n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f[way][q]);
      } else {
        CU_ASSERT_EQUAL_FATAL(cryo_device_alloc(&dev, n, &f[way][q], &fd[way][q], &err), CRYO_OK);
      }
      for (long p = 0; p < n; ++p)
        f[way][q][p] = (p % 2 ? -1.0 : 1.0) * (p + 0.25 + 1e4 * q + 1e6 * g.rank);
      if (!host) cryo_device_to_device(&dev, f[way][q], 0, n);
    }
  /* the inner points' new values, written on the host and copied over */
  const int lo = node ? 2 : 1;
  double s0, s1;
  long x0, x1, x_mid = 0;
  long long sent0, sent1, sent_mid = 0, sent_begin = 0;
  cryo_halo_stats(h, &s0, &x0, &sent0);
  for (int way = 0; way < 2; ++way) {
    if (way == 1) {
      cryo_halo_stats(h, &s1, &x_mid, &sent_mid);
      CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange_begin(h, loc, nlev, nfield, fd[1], sign, &err),
                            CRYO_OK);
      cryo_halo_stats(h, &s1, &x1, &sent_begin);
    }
    for (int q = 0; q < nfield; ++q) {
      for (int j = lo; j <= b->ny - 2; ++j)
        for (int i = lo; i <= b->nx - 2; ++i)
          for (int k = 0; k < nlev; ++k)
            f[way][q][(node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j)) * nlev + k] =
                0.5 + i + 100.0 * j + 1e4 * k + 1e6 * q;
      if (!host) cryo_device_to_device(&dev, f[way][q], 0, n);
    }
    if (way == 0)
      CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange_signed(h, loc, nlev, nfield, fd[0], sign, &err),
                            CRYO_OK)
    else
      CU_ASSERT_EQUAL_FATAL(cryo_halo_exchange_end(h, &err), CRYO_OK);
  }
  cryo_halo_stats(h, &s1, &x1, &sent1);
  /* both ways count and send the same; where lines cross to other ranks,
   * begin sends */
  CU_ASSERT_EQUAL(x1 - x_mid, x_mid - x0);
  CU_ASSERT_EQUAL(sent1 - sent_mid, sent_mid - sent0);
  CU_ASSERT_EQUAL(cryo_halo_overlaps(h), sent_begin > sent_mid);
  long differ = 0;
  for (int q = 0; q < nfield; ++q) {
    if (!host) {
      cryo_device_to_host(&dev, f[0][q], 0, n);
      cryo_device_to_host(&dev, f[1][q], 0, n);
    }
    for (long p = 0; p < n; ++p)
      differ += memcmp(&f[0][q][p], &f[1][q][p], sizeof(double)) != 0;
  }
  CU_ASSERT_EQUAL(differ, 0);
  if (differ)
    fprintf(stderr,
            "overlap %s %d x %d, px %d, periodic %d %d, fold %d, clamp %d, nlev %d x %d fields, "
            "path %d, block %d+%d x %d+%d: %ld values differ from one exchange\n",
            node ? "nodes" : "cells", nx, ny, px_count, periodic_x, periodic_y, fold, clamp, nlev,
            nfield, path, b->i0, b->nx, b->j0, b->ny, differ);
  for (int way = 0; way < 2; ++way)
    for (int q = 0; q < nfield; ++q)
      if (host)
        free(f[way][q]);
      else
        cryo_device_free(&dev, &f[way][q], n);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* Process grids split along x, along y and both (4 ranks: corners), closed,
 * periodic and folded (both pivots, vectors and dG signs), clamped, on the
 * three paths to MPI; then the misuses, each a named error. */
static void test_overlap(void) {
  static const int vector[1] = {-1}, dg1[3] = {1, -1, -1}, uv[2] = {-1, -1};
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int px[3] = {size, 1, 0};
  for (int node = 0; node < 2; ++node) {
    const cryo_location loc = node ? CRYO_AT_NODE : CRYO_AT_CELL;
    for (int k = 0; k < 3; ++k) {
      check_overlap(17, 13, px[k], 0, 0, 0, 0, loc, 1, 2, vector, STAGED);
      check_overlap(17, 13, px[k], 0, 0, 0, 1, loc, 2, 3, NULL, DEVICE_BUFFERS);
      check_overlap(16, 14, px[k], 1, 1, 0, 0, loc, 3, 2, dg1, HOST_ARRAYS);
      check_overlap(16, 15, px[k], 1, 0, 0, 1, loc, 1, 4, NULL, STAGED);
      for (int fold = CRYO_FOLD_T; fold <= CRYO_FOLD_F; ++fold) {
        check_overlap(16, 13, px[k], 1, 0, fold, 0, loc, 2, 1, uv, STAGED);
        check_overlap(18, 12, px[k], 1, 0, fold, 1, loc, 3, 2, dg1, HOST_ARRAYS);
      }
    }
  }
  cryo_grid g;
  cryo_device dev;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_device_init(&dev, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, 12, 8, 1, 1, 0, 0, 0, 0, &err),
                        CRYO_OK);
  cryo_halo *h = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, NULL, 2, &err), CRYO_OK);
  double *f[5];
  for (int q = 0; q < 5; ++q)
    f[q] = calloc((size_t)CRYO_NNODE(&g.block), sizeof(double));
  CU_ASSERT_EQUAL(cryo_halo_exchange_end(h, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ended that was not begun"));
  CU_ASSERT_EQUAL(cryo_halo_exchange_begin(h, CRYO_AT_NODE, 1, 5, f, NULL, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "begun with 5 fields: from 1 to 4"));
  CU_ASSERT_EQUAL(cryo_halo_exchange_begin(h, CRYO_AT_NODE, 1, 2, f, NULL, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_halo_exchange_begin(h, CRYO_AT_NODE, 1, 2, f, NULL, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "while a begun one is still open"));
  CU_ASSERT_EQUAL(cryo_halo_exchange(h, CRYO_AT_NODE, 1, 2, f, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "while a begun one is still open"));
  CU_ASSERT_EQUAL(cryo_halo_exchange_end(h, &err), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_halo_exchange(h, CRYO_AT_NODE, 1, 2, f, &err), CRYO_OK);
  for (int q = 0; q < 5; ++q)
    free(f[q]);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* What a fold needs of the grid. */
static void test_fold_limits(void) {
  cryo_grid g;
  cryo_err err = {0};
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, 13, 8, 1, 1, 0, 0, 1, 0, &err),
                        CRYO_OK);
  CU_ASSERT_EQUAL(cryo_grid_set_fold(&g, CRYO_FOLD_F, &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "even number of cells along x, not nx = 13"));
  cryo_grid_destroy(&g);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, 12, 8, 1, 1, 0, 0, 0, 0, &err),
                        CRYO_OK);
  CU_ASSERT_EQUAL(cryo_grid_set_fold(&g, CRYO_FOLD_T, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "periodic in x and not in y"));
  cryo_grid_destroy(&g);
  /* signs other than +-1, and the coarsened blocks of a multigrid */
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, 12, 8, 1, 1, 0, 0, 1, 0, &err),
                        CRYO_OK);
  CU_ASSERT_EQUAL_FATAL(cryo_grid_set_fold(&g, CRYO_FOLD_F, &err), CRYO_OK);
  cryo_halo *h = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_halo_create(&h, &g, NULL, 2, &err), CRYO_OK);
  double *f = calloc((size_t)CRYO_NNODE(&g.block) * 2, sizeof *f);
  const int bad_sign[2] = {1, 0};
  CU_ASSERT_EQUAL(cryo_halo_exchange_signed(h, CRYO_AT_NODE, 2, 1, &f, bad_sign, &err),
                  CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sign of level 1 is 0, must be 1 or -1"));
  const cryo_block coarse = g.block;
  CU_ASSERT_EQUAL(cryo_halo_exchange_block(h, &coarse, CRYO_AT_NODE, 1, 1, &f, &err),
                  CRYO_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "coarsened block of a grid with a north fold"));
  free(f);
  cryo_halo_destroy(&h);
  cryo_grid_destroy(&g);
}

/* The decision of halo_device_buffers, as a table: setting, GPU in use, MPI
 * CUDA-aware -> device buffers, or an error and what its message names. */
static void test_path_choice(void) {
  static const struct {
    const char *setting;
    int gpu, aware;
    int status, device_buffers;
    const char *needle; /* in the message or, on success, in why */
  } cases[] = {
      {"auto", 1, 1, CRYO_OK, 1, "device buffers straight to MPI"},
      {"yes", 1, 1, CRYO_OK, 1, "halo_device_buffers = 'yes'"},
      {"no", 1, 1, CRYO_OK, 0, "halo_device_buffers = 'no'"},
      {"auto", 1, 0, CRYO_OK, 0, "staged through host buffers (MPI says no)"},
      {"no", 1, 0, CRYO_OK, 0, "staged"},
      {"yes", 1, 0, CRYO_ERR_UNSUPPORTED, 0, "needs a CUDA-aware MPI, but MPI says no"},
      {"auto", 0, 1, CRYO_OK, 0, "no GPU"},
      {"auto", 0, 0, CRYO_OK, 0, "no GPU"},
      {"no", 0, 0, CRYO_OK, 0, "staged"},
      {"yes", 0, 1, CRYO_ERR_UNSUPPORTED, 0, "this rank has no GPU (CPU: test)"},
      {"yes", 0, 0, CRYO_ERR_UNSUPPORTED, 0, "this rank has no GPU"},
      {"always", 1, 1, CRYO_ERR_RANGE, 0, "expected 'auto', 'yes' or 'no'"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    cryo_err err = {0};
    char why[CRYO_HALO_PATH_LEN] = "";
    int device_buffers = -1;
    int status =
        cryo_halo_choose(cases[k].setting, "t.nml", cases[k].gpu, "CPU: test", cases[k].aware,
                         "MPI says no", &device_buffers, why, (int)sizeof why, &err);
    const char *text = status == CRYO_OK ? why : err.msg;
    CU_ASSERT_EQUAL(status, cases[k].status);
    CU_ASSERT_EQUAL(device_buffers, cases[k].device_buffers);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[k].needle));
    if (status != CRYO_OK) CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.nml: &cryo_run"));
    if (status != cases[k].status || !strstr(text, cases[k].needle))
      fprintf(stderr, "case %zu (%s, gpu %d, aware %d): got %s '%s'\n", k, cases[k].setting,
              cases[k].gpu, cases[k].aware, cryo_status_name(status), text);
  }
  /* The MPI of this machine answers, with a reason either way. */
  char why[160] = "";
  int aware = cryo_halo_mpi_cuda_aware(why, (int)sizeof why);
  CU_ASSERT(aware == 0 || aware == 1);
  CU_ASSERT(strstr(why, "MPIX_Query_cuda_support") != NULL);
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

/* cryo_grid_balance on an off-centre mask: ocean only in columns [30, 50)
 * and rows [5, 35) of 60 x 50 cells (the even split is unbalanced). Each
 * process column then holds the same ocean columns to within one, each
 * process row the same ocean rows to within one, every block keeps >= 2
 * cells each way, and all-zero weights keep the even split. (The Arctic
 * tests run the balanced blocks on 1-4 ranks bit for bit.) */
static void test_balance(void) {
  cryo_grid g;
  cryo_err err = {0};
  const int nx = 60, ny = 50;
  CU_ASSERT_EQUAL_FATAL(cryo_grid_create(&g, MPI_COMM_WORLD, nx, ny, 1, 1, 0, 0, 0, 0, &err),
                        CRYO_OK);
  long col[60], row[50], zero[60] = {0};
  for (int i = 0; i < nx; ++i)
    col[i] = i >= 30 && i < 50 ? 30 : 0;
  for (int j = 0; j < ny; ++j)
    row[j] = j >= 5 && j < 35 ? 20 : 0;
  int even_i[8], even_j[8];
  memcpy(even_i, g.i_start, (size_t)(g.px_count + 1) * sizeof *even_i);
  memcpy(even_j, g.j_start, (size_t)(g.py_count + 1) * sizeof *even_j);
  cryo_grid_balance(&g, zero, zero);
  CU_ASSERT(!memcmp(even_i, g.i_start, (size_t)(g.px_count + 1) * sizeof *even_i));
  CU_ASSERT(!memcmp(even_j, g.j_start, (size_t)(g.py_count + 1) * sizeof *even_j));
  cryo_grid_balance(&g, col, row);
  int ok = 1;
  for (int p = 0; p < g.px_count; ++p) {
    long sum = 0;
    for (int i = g.i_start[p]; i < g.i_start[p + 1]; ++i)
      sum += col[i] / 30;
    ok &= g.i_start[p + 1] - g.i_start[p] >= 2 && labs(sum * g.px_count - 20) <= g.px_count;
  }
  for (int p = 0; p < g.py_count; ++p) {
    long sum = 0;
    for (int j = g.j_start[p]; j < g.j_start[p + 1]; ++j)
      sum += row[j] / 20;
    ok &= g.j_start[p + 1] - g.j_start[p] >= 2 && labs(sum * g.py_count - 30) <= g.py_count;
  }
  CU_ASSERT(ok);
  CU_ASSERT_EQUAL(g.block.nx, g.i_start[g.px + 1] - g.i_start[g.px]);
  CU_ASSERT_EQUAL(g.block.j0, g.j_start[g.py]);
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
                         {"more fields than one launch", test_many_fields},
                         {"MPI on the device buffers", test_device_buffers},
                         {"host arrays", test_host_arrays},
                         {"clamp at closed edges", test_clamp},
                         {"north fold", test_fold},
                         {"north fold limits", test_fold_limits},
                         {"one rank's halo in one launch", test_alone},
                         {"exchange in two halves", test_overlap},
                         {"halo_device_buffers decision", test_path_choice},
                         {"decomposition limits", test_too_small},
                         {"gather and scatter", test_gather_scatter},
                         {"blocks balanced by ocean cells", test_balance},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("halo", tests);
  return cryo_test_run();
}
