/* mpi-run ranks: 1 4 (tests/mpi-run runs this program once per count) */
/* Grid files (services/cryo_gridfile.h; namelists/README.md, Grid files).
 * Rank 0 writes small grid files with the NetCDF library into the working
 * directory, every rank reads them.
 *
 * What is asserted:
 * - a 8 x 6 longitude-latitude sector of 5 x 3 degree cells: every node of
 *   every rank's two rings, every cell of its halo ring and every corner of
 *   its owned cells (kept in the layout read) equal the formula lon = -20 + 5 i, lat = 60 + 3 j
 * exactly (==); node_ok and cell_ok are 1 exactly on the domain; mask is 1 and area NaN where the
 *   file has none; outside the domain everything is 0;
 * - on 4 ranks (a 2 x 2 decomposition) the nodes and cells that several
 *   ranks hold are bit-identical on all of them, even where the file's two
 *   copies of a corner differ (by 1e-9 degrees, within the tolerance), and
 *   every node of the grid is held by some rank;
 * - longitudes of neighbouring cells that differ by 360 degrees are the
 *   same corner;
 * - every bad file gives its error class and a message naming the file, the
 *   variable and the global cell (i, j): wrong sizes and dimensions, missing
 *   variables, NaN, latitude 95, corners that disagree, folded, degenerate
 *   and clockwise cells, a centre outside its cell, mask 2, negative areas
 *   and areas in km2, angles 10 degrees off, units of lon and angle;
 * - a tripolar cap of each fold type (T and F pivot, written by tripolar()
 *   below) reads on 1 and 4 ranks, and its topology attributes come back;
 *   a seam that does not close, a fold whose corners do not match, a T
 *   pivot that is not land and bad topology attributes are each their named
 *   error, naming the cells on both sides;
 * - &cryo_grid grid_file: nx, ny come from the file, a different nx is an
 *   error, a periodic file sets periodic_x, a folded one sets the fold and is refused with
 *   vector_frame = 'grid', dx is reported as ignored,
 * a missing file names the path. With GRIDFILE_DIR set (tests/grid_files.test), the files that
 * scripts/make_grid.py wrote there are read instead on the same
 * decomposition: polar stereographic nodes and centres project back to
 * x0 + i dx, y0 + j dy within 1e-4 m (north and south), Cartesian files
 * reproduce the built-in box exactly (node x = i dx, centre (i + 1/2) dx),
 * the rotated box to 1e-6 m, and areas, masks and angles pass their checks.
 */
#include "cryo_config.h"
#include "cryo_gridfile.h"
#include "cryo_test.h"

#include <math.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>

#define NX 8
#define NY 6

static int rank, nrank;

/* Nodes and centres of a grid to write. */
typedef struct test_grid {
  int nx, ny, spherical;
  double node_x[(NY + 2) * (NX + 2)], node_y[(NY + 2) * (NX + 2)]; /* [(j * (nx + 1) + i] */
  double cx[NY * NX], cy[NY * NX];
} test_grid;

/* lon = lon0 + 5 i, lat = lat0 + dlat j (dlat < 0: j southward, clockwise). */
static void latlon(test_grid *g, double lon0, double lat0, double dlat) {
  memset(g, 0, sizeof *g);
  g->nx = NX;
  g->ny = NY;
  g->spherical = 1;
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      g->node_x[j * (NX + 1) + i] = lon0 + 5.0 * i;
      g->node_y[j * (NX + 1) + i] = lat0 + dlat * j;
    }
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      g->cx[j * NX + i] = lon0 + 5.0 * (i + 0.5);
      g->cy[j * NX + i] = lat0 + dlat * (j + 0.5);
    }
}

static double node_of(const test_grid *g, const double *v, int i, int j, int k) {
  static const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
  return v[(j + dj[k]) * (g->nx + 1) + i + di[k]];
}

/* Whether status is CRYO_OK on every rank: a read that failed anywhere
 * ends the test everywhere, before the collective checks that follow. */
static int all_ok(int status) {
  int bad = status != CRYO_OK;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return !bad;
}

static void nc_ok(int s) {
  if (s != NC_NOERR) fprintf(stderr, "netcdf: %s\n", nc_strerror(s));
  CU_ASSERT_EQUAL_FATAL(s, NC_NOERR);
}

static int def(int ncid, const char *name, nc_type t, int nd, const int *dims, const char *units) {
  int id;
  nc_ok(nc_def_var(ncid, name, t, nd, dims, &id));
  if (units) nc_ok(nc_put_att_text(ncid, id, "units", strlen(units), units));
  return id;
}

/* Rank 0 writes g to path (lon, lat or x_c, y_c with bounds; mask, area,
 * angle in degrees where given); all ranks wait for it. These writers, like
 * those below, are collective: the ranks have finished reading the file
 * before it changes, and wait for the change. */
static void write_grid(const char *path, const test_grid *g, const double *mask, const double *area,
                       const double *angle) {
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the file any more */
  if (rank == 0) {
    int ncid, dims[3], sp = g->spherical;
    nc_ok(nc_create(path, NC_CLOBBER, &ncid));
    nc_ok(nc_def_dim(ncid, "y", (size_t)g->ny, &dims[0]));
    nc_ok(nc_def_dim(ncid, "x", (size_t)g->nx, &dims[1]));
    nc_ok(nc_def_dim(ncid, "nv", 4, &dims[2]));
    int cx = def(ncid, sp ? "lon" : "x_c", NC_DOUBLE, 2, dims, sp ? "degrees_east" : "m");
    int cy = def(ncid, sp ? "lat" : "y_c", NC_DOUBLE, 2, dims, sp ? "degrees_north" : "m");
    int bx = def(ncid, sp ? "lon_bnds" : "x_bnds", NC_DOUBLE, 3, dims, NULL);
    int by = def(ncid, sp ? "lat_bnds" : "y_bnds", NC_DOUBLE, 3, dims, NULL);
    int im = mask ? def(ncid, "mask", NC_BYTE, 2, dims, NULL) : -1;
    int ia = area ? def(ncid, "area", NC_DOUBLE, 2, dims, "m2") : -1;
    int ig = angle ? def(ncid, "angle", NC_DOUBLE, 2, dims, "degrees") : -1;
    nc_ok(nc_enddef(ncid));
    long n = (long)g->nx * g->ny;
    double *b = malloc(sizeof(double) * 4 * (size_t)n);
    nc_ok(nc_put_var_double(ncid, cx, g->cx));
    nc_ok(nc_put_var_double(ncid, cy, g->cy));
    for (int c = 0; c < 2; ++c) {
      for (long q = 0; q < n; ++q)
        for (int k = 0; k < 4; ++k)
          b[q * 4 + k] =
              node_of(g, c ? g->node_y : g->node_x, (int)(q % g->nx), (int)(q / g->nx), k);
      nc_ok(nc_put_var_double(ncid, c ? by : bx, b));
    }
    if (mask) nc_ok(nc_put_var_double(ncid, im, mask));
    if (area) nc_ok(nc_put_var_double(ncid, ia, area));
    if (angle) nc_ok(nc_put_var_double(ncid, ig, angle));
    free(b);
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 changes one value of a variable of an existing file. */
static void poke(const char *path, const char *var, int i, int j, int k, double value) {
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the file any more */
  if (rank == 0) {
    int ncid, id, nd;
    nc_ok(nc_open(path, NC_WRITE, &ncid));
    nc_ok(nc_inq_varid(ncid, var, &id));
    nc_ok(nc_inq_varndims(ncid, id, &nd));
    size_t at[3] = {(size_t)j, (size_t)i, (size_t)k};
    nc_ok(nc_put_var1_double(ncid, id, at, &value));
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* This rank's block of an nxg x nyg grid: 2 x 2 blocks on 4 ranks, else
 * rows of blocks. */
static cryo_block block_of(int nxg, int nyg) {
  int px_count = nrank == 4 ? 2 : 1, py_count = nrank / px_count;
  int px = rank % px_count, py = rank / px_count;
  cryo_block b = {0};
  b.nx_global = nxg;
  b.ny_global = nyg;
  b.i0 = px * nxg / px_count;
  b.nx = (px + 1) * nxg / px_count - b.i0;
  b.j0 = py * nyg / py_count;
  b.ny = (py + 1) * nyg / py_count - b.j0;
  b.dx = b.dy = 1.0;
  return b;
}

/* The whole grid as one block, on every rank (bad files: every rank sees
 * every cell, so all fail alike). */
static cryo_block whole(int nxg, int nyg) {
  cryo_block b = {0};
  b.nx = b.nx_global = nxg;
  b.ny = b.ny_global = nyg;
  b.dx = b.dy = 1.0;
  return b;
}

static long node_index(const cryo_block *b, int i, int j) {
  return (long)(j + 2) * (b->nx + 5) + i + 2;
}

/* Nodes and cells held by several ranks are bit-identical, and every node
 * of the grid is held by some rank. */
static void check_shared(const cryo_block *b, const cryo_gridfile *gf) {
  const int nxg = b->nx_global, nyg = b->ny_global;
  const long nn = (long)(nxg + 1) * (nyg + 1), nc = (long)nxg * nyg, n = 2 * (nn + nc);
  double *lo = malloc(sizeof(double) * (size_t)n), *hi = malloc(sizeof(double) * (size_t)n);
  for (long q = 0; q < n; ++q) {
    lo[q] = INFINITY;
    hi[q] = -INFINITY;
  }
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      long p = node_index(b, i, j);
      if (!gf->node_ok[p]) continue;
      /* a periodic grid's node nxg is node 0, and both are compared */
      const int gi = b->periodic_x ? ((b->i0 + i) % nxg + nxg) % nxg : b->i0 + i;
      for (int image = 0; image < 1 + (b->periodic_x && gi == 0); ++image) {
        long q = (long)(b->j0 + j) * (nxg + 1) + gi + image * nxg;
        lo[2 * q] = fmin(lo[2 * q], gf->node_x[p]), hi[2 * q] = fmax(hi[2 * q], gf->node_x[p]);
        lo[2 * q + 1] = fmin(lo[2 * q + 1], gf->node_y[p]);
        hi[2 * q + 1] = fmax(hi[2 * q + 1], gf->node_y[p]);
      }
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      long c = CRYO_CELL(b, i, j);
      if (!gf->cell_ok[c]) continue;
      const int gi = b->periodic_x ? ((b->i0 + i) % nxg + nxg) % nxg : b->i0 + i;
      long q = 2 * nn + 2 * ((long)(b->j0 + j) * nxg + gi);
      lo[q] = fmin(lo[q], gf->cell_x[c]), hi[q] = fmax(hi[q], gf->cell_x[c]);
      lo[q + 1] = fmin(lo[q + 1], gf->cell_y[c]), hi[q + 1] = fmax(hi[q + 1], gf->cell_y[c]);
    }
  MPI_Allreduce(MPI_IN_PLACE, lo, (int)n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, hi, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  long differ = 0, missing = 0;
  for (long q = 0; q < n; ++q) {
    differ += lo[q] != hi[q] && isfinite(lo[q]);
    missing += q < 2 * nn && !isfinite(lo[q]);
  }
  CU_ASSERT_EQUAL(differ, 0);
  CU_ASSERT_EQUAL(missing, 0);
  free(lo);
  free(hi);
}

/* node_ok, cell_ok and the zeros outside the domain. */
static void check_flags(const cryo_block *b, const cryo_gridfile *gf) {
  long bad = 0;
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      int gi = b->i0 + i, gj = b->j0 + j;
      int in = (b->periodic_x || (gi >= 0 && gi <= b->nx_global)) && gj >= 0 && gj <= b->ny_global;
      long p = node_index(b, i, j);
      bad += gf->node_ok[p] != in || (!in && (gf->node_x[p] != 0.0 || gf->node_y[p] != 0.0));
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      int gi = b->i0 + i, gj = b->j0 + j;
      int in = (b->periodic_x || (gi >= 0 && gi < b->nx_global)) && gj >= 0 && gj < b->ny_global;
      long c = CRYO_CELL(b, i, j);
      bad += gf->cell_ok[c] != in;
      if (!in) bad += gf->cell_x[c] != 0.0 || gf->mask[c] != 0.0 || gf->area[c] != 0.0;
    }
  CU_ASSERT_EQUAL(bad, 0);
}

static void test_latlon(void) {
  test_grid g;
  latlon(&g, -20.0, 60.0, 3.0);
  write_grid("ll.nc", &g, NULL, NULL, NULL);
  int nx = 0, ny = 0, sp = 0;
  cryo_err err = {0};
  CU_ASSERT_EQUAL(cryo_gridfile_inquire("ll.nc", &nx, &ny, &sp, &err), CRYO_OK);
  CU_ASSERT(nx == NX && ny == NY && sp == 1);
  cryo_block b = block_of(NX, NY);
  cryo_gridfile gf;
  int status = cryo_gridfile_read("ll.nc", "test", &b, 6.4e6, 7.29e-5, 0.0, &gf, &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_FATAL(all_ok(status));
  CU_ASSERT(gf.points.spherical == 1 && gf.points.radius == 6.4e6 && gf.points.omega == 7.29e-5);
  CU_ASSERT(gf.points.node_x == gf.node_x && gf.points.cell_ok == gf.cell_ok);
  long bad = 0;
  for (int j = -2; j <= b.ny + 2; ++j)
    for (int i = -2; i <= b.nx + 2; ++i) {
      long p = node_index(&b, i, j);
      if (gf.node_ok[p])
        bad += gf.node_x[p] != -20.0 + 5.0 * (b.i0 + i) || gf.node_y[p] != 60.0 + 3.0 * (b.j0 + j);
    }
  for (int j = -1; j <= b.ny; ++j)
    for (int i = -1; i <= b.nx; ++i) {
      long c = CRYO_CELL(&b, i, j);
      if (!gf.cell_ok[c]) continue;
      int gi = b.i0 + i, gj = b.j0 + j;
      bad += gf.cell_x[c] != -20.0 + 5.0 * (gi + 0.5) || gf.cell_y[c] != 60.0 + 3.0 * (gj + 0.5);
      bad += gf.mask[c] != 1.0 || !isnan(gf.area[c]);
      /* the corners of the owned cells, kept in the layout read */
      const long r = (gf.corner_first + (long)j * gf.corner_row + i) * 4;
      for (int k = 0; i >= 0 && i < b.nx && j >= 0 && j < b.ny && k < 4; ++k)
        bad += gf.corner_x[r + k] != node_of(&g, g.node_x, gi, gj, k) ||
               gf.corner_y[r + k] != node_of(&g, g.node_y, gi, gj, k);
    }
  CU_ASSERT_EQUAL(bad, 0);
  check_flags(&b, &gf);
  check_shared(&b, &gf);
  cryo_gridfile_free(&gf);
  CU_ASSERT_PTR_NULL(gf.node_x);
  cryo_gridfile_free(&gf); /* twice is harmless */
}

/* Corners that agree only within the tolerance, or modulo 360: accepted,
 * and every rank takes a node from the same cell. */
static void test_tolerance(void) {
  test_grid g;
  latlon(&g, -20.0, 60.0, 3.0);
  write_grid("tol.nc", &g, NULL, NULL, NULL);
  /* node (4, 3): corner 0 of cell (4, 3) as written; its copies in the
   * cells to the west and south differ */
  poke("tol.nc", "lat_bnds", 3, 3, 1, 69.0 + 9e-7);
  poke("tol.nc", "lon_bnds", 4, 2, 3, 0.0 - 9e-7);
  /* cell (6, 1): longitudes + 360 */
  for (int k = 0; k < 4; ++k)
    poke("tol.nc", "lon_bnds", 6, 1, k, node_of(&g, g.node_x, 6, 1, k) + 360.0);
  cryo_block b = block_of(NX, NY);
  cryo_gridfile gf;
  cryo_err err = {0};
  int status = cryo_gridfile_read("tol.nc", "test", &b, 6.4e6, 0.0, 0.0, &gf, &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_FATAL(all_ok(status));
  check_shared(&b, &gf);
  const int li = 4 - b.i0, lj = 3 - b.j0;
  if (li >= -2 && li <= b.nx + 2 && lj >= -2 && lj <= b.ny + 2) {
    long p = node_index(&b, li, lj);
    CU_ASSERT_EQUAL(gf.node_y[p], 69.0);
    CU_ASSERT_EQUAL(gf.node_x[p], 0.0);
  }
  cryo_gridfile_free(&gf);
}

typedef struct bad_case {
  const char *what;
  int status;
  const char *needle[3];
} bad_case;

/* Read `path` as one block of nxg x nyg cells: the status and every needle
 * (and the path) in the message. */
static void expect(const char *path, int nxg, int nyg, const bad_case *c) {
  cryo_block b = whole(nxg, nyg);
  cryo_gridfile gf;
  cryo_err err = {0};
  int status = cryo_gridfile_read(path, "&cryo_grid grid_file", &b, 6371229.0, 0.0, 0.0, &gf, &err);
  int ok = status == c->status;
  if (c->status != CRYO_OK)
    ok = ok && strstr(err.msg, path) && strstr(err.msg, "&cryo_grid grid_file");
  for (int k = 0; k < 3 && c->needle[k] && c->status != CRYO_OK; ++k)
    ok = ok && strstr(err.msg, c->needle[k]);
  if (!ok) fprintf(stderr, "%s: got %s '%s'\n", c->what, cryo_status_name(status), err.msg);
  CU_ASSERT(ok);
  if (c->status != CRYO_OK) CU_ASSERT_PTR_NULL(gf.node_x);
  cryo_gridfile_free(&gf);
}

static void rename_var(const char *path, const char *from, const char *to) {
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the file any more */
  if (rank == 0) {
    int ncid, id;
    nc_ok(nc_open(path, NC_WRITE, &ncid));
    nc_ok(nc_redef(ncid));
    nc_ok(nc_inq_varid(ncid, from, &id));
    nc_ok(nc_rename_var(ncid, id, to));
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void set_units(const char *path, const char *var, const char *units) {
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the file any more */
  if (rank == 0) {
    int ncid, id;
    nc_ok(nc_open(path, NC_WRITE, &ncid));
    nc_ok(nc_redef(ncid));
    nc_ok(nc_inq_varid(ncid, var, &id));
    if (units)
      nc_ok(nc_put_att_text(ncid, id, "units", strlen(units), units));
    else
      nc_ok(nc_del_att(ncid, id, "units"));
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A variable `var` (y, x) replaced by one with dimensions (x, y). */
static void transpose_var(const char *path, const char *var) {
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the file any more */
  if (rank == 0) {
    int ncid, id, dims[2];
    nc_ok(nc_open(path, NC_WRITE, &ncid));
    nc_ok(nc_redef(ncid));
    nc_ok(nc_inq_varid(ncid, var, &id));
    nc_ok(nc_rename_var(ncid, id, "old"));
    nc_ok(nc_inq_dimid(ncid, "x", &dims[0]));
    nc_ok(nc_inq_dimid(ncid, "y", &dims[1]));
    nc_ok(nc_def_var(ncid, var, NC_DOUBLE, 2, dims, &id));
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_bad_files(void) {
  test_grid g;
  latlon(&g, -20.0, 60.0, 3.0);
  double mask[NX * NY], area[NX * NY], angle[NX * NY];
  for (int q = 0; q < NX * NY; ++q) {
    mask[q] = 1.0;
    angle[q] = 0.0;
    /* 5 x 3 degrees at latitude lat: (5 deg cos lat) (3 deg) R^2 */
    double r = 6371229.0 * M_PI / 180.0;
    area[q] = 5.0 * r * cos(g.cy[q] * M_PI / 180.0) * 3.0 * r;
  }
  const char *p = "bad.nc";
  static const bad_case sizes = {"sizes", CRYO_ERR_FORMAT, {"(y, x) = (6, 8)", "(7, 8)"}};
  write_grid(p, &g, mask, area, angle);
  expect(p, NX, NY + 1, &sizes);
  {
    static const bad_case c = {"good with mask, area, angle", CRYO_OK, {""}};
    cryo_block b = whole(NX, NY);
    cryo_gridfile gf;
    cryo_err err = {0};
    int s = cryo_gridfile_read(p, "&cryo_grid grid_file", &b, 6371229.0, 0, 0, &gf, &err);
    if (s != CRYO_OK) fprintf(stderr, "%s: %s\n", c.what, err.msg);
    CU_ASSERT_FATAL(all_ok(s));
    CU_ASSERT_EQUAL(gf.area[CRYO_CELL(&b, 3, 2)], area[2 * NX + 3]);
    cryo_gridfile_free(&gf);
  }
  static const bad_case nan_case = {
      "NaN", CRYO_ERR_DATA, {"variable 'lon_bnds'", "cell (i, j) = (3, 2), corner 2", "nan"}};
  poke(p, "lon_bnds", 3, 2, 2, NAN);
  expect(p, NX, NY, &nan_case);

  static const bad_case lat95 = {
      "lat 95", CRYO_ERR_DATA, {"variable 'lat'", "cell (i, j) = (3, 2)", "is 95"}};
  write_grid(p, &g, NULL, NULL, NULL);
  poke(p, "lat", 3, 2, 0, 95.0);
  expect(p, NX, NY, &lat95);

  static const bad_case disagree = {
      "corners disagree",
      CRYO_ERR_DATA,
      {"variable 'lon_bnds'", "corner 2 of cell (i, j) = (3, 1)", "neighbour (3, 2) is 0.01"}};
  write_grid(p, &g, NULL, NULL, NULL);
  poke(p, "lon_bnds", 3, 2, 1, 0.01);
  expect(p, NX, NY, &disagree);

  static const bad_case missing = {"missing", CRYO_ERR_MISSING, {"no variable 'lat_bnds'"}};
  write_grid(p, &g, NULL, NULL, NULL);
  rename_var(p, "lat_bnds", "lat_corners");
  expect(p, NX, NY, &missing);

  static const bad_case transposed = {
      "dimensions", CRYO_ERR_FORMAT, {"variable 'lat' has dimensions (x, y)", "(y, x) = (6, 8)"}};
  write_grid(p, &g, NULL, NULL, NULL);
  transpose_var(p, "lat");
  expect(p, NX, NY, &transposed);

  static const bad_case neither = {"no coordinates", CRYO_ERR_MISSING, {"'x_c' and 'y_c'"}};
  write_grid(p, &g, NULL, NULL, NULL);
  rename_var(p, "lon", "longitude");
  rename_var(p, "lat", "latitude");
  expect(p, NX, NY, &neither);

  /* node (4, 3) moved to (6, 73) in all four cells: cell (4, 2) folds */
  static const bad_case folded = {
      "folded",
      CRYO_ERR_DATA,
      {"variables 'lon_bnds', 'lat_bnds'", "cell (i, j) = (4, 2)", "folded"}};
  test_grid h = g;
  h.node_x[3 * (NX + 1) + 4] = 6.0;
  h.node_y[3 * (NX + 1) + 4] = 73.0;
  write_grid(p, &h, NULL, NULL, NULL);
  expect(p, NX, NY, &folded);

  static const bad_case clockwise = {
      "clockwise", CRYO_ERR_DATA, {"'lon_bnds', 'lat_bnds'", "cell (i, j) = (0, 0)", "clockwise"}};
  latlon(&h, -20.0, 80.0, -3.0);
  write_grid(p, &h, NULL, NULL, NULL);
  expect(p, NX, NY, &clockwise);

  /* the top row reaches the pole: its corners 2 and 3 coincide */
  static const bad_case pole = {"degenerate",
                                CRYO_ERR_DATA,
                                {"'lon_bnds', 'lat_bnds'", "cell (i, j) = (0, 5)", "degenerate"}};
  latlon(&h, -20.0, 72.0, 3.0);
  write_grid(p, &h, NULL, NULL, NULL);
  expect(p, NX, NY, &pole);

  static const bad_case outside = {"centre outside",
                                   CRYO_ERR_DATA,
                                   {"variables 'lon', 'lat'", "cell (i, j) = (3, 2)", "outside"}};
  write_grid(p, &g, NULL, NULL, NULL);
  poke(p, "lon", 3, 2, 0, g.cx[2 * NX + 3] + 5.0);
  expect(p, NX, NY, &outside);

  /* two centres outside their cells, in rows that the checks' threads take
   * in different bands (rows 0-2 and 3-5 on two threads): the first in cell
   * order is named, and a later band's error alone comes back too */
  static const bad_case first = {"first of two outside",
                                 CRYO_ERR_DATA,
                                 {"variables 'lon', 'lat'", "cell (i, j) = (3, 1)", "outside"}};
  write_grid(p, &g, NULL, NULL, NULL);
  poke(p, "lon", 3, 1, 0, g.cx[1 * NX + 3] + 5.0);
  poke(p, "lon", 5, 4, 0, g.cx[4 * NX + 5] + 5.0);
  expect(p, NX, NY, &first);
  static const bad_case later = {"outside in a later band",
                                 CRYO_ERR_DATA,
                                 {"variables 'lon', 'lat'", "cell (i, j) = (5, 4)", "outside"}};
  write_grid(p, &g, NULL, NULL, NULL);
  poke(p, "lon", 5, 4, 0, g.cx[4 * NX + 5] + 5.0);
  expect(p, NX, NY, &later);

  static const bad_case mask2 = {
      "mask 2", CRYO_ERR_DATA, {"variable 'mask'", "cell (i, j) = (3, 2)", "is 2"}};
  write_grid(p, &g, mask, NULL, NULL);
  poke(p, "mask", 3, 2, 0, 2.0);
  expect(p, NX, NY, &mask2);

  static const bad_case negative = {
      "area < 0", CRYO_ERR_DATA, {"variable 'area'", "cell (i, j) = (3, 2)", "must be > 0"}};
  write_grid(p, &g, NULL, area, NULL);
  poke(p, "area", 3, 2, 0, -1.0);
  expect(p, NX, NY, &negative);

  static const bad_case km2 = {"area km2",
                               CRYO_ERR_DATA,
                               {"variable 'area'", "cell (i, j) = (0, 0)", "units other than m2"}};
  double small[NX * NY];
  for (int q = 0; q < NX * NY; ++q)
    small[q] = area[q] * 1e-6;
  write_grid(p, &g, NULL, small, NULL);
  expect(p, NX, NY, &km2);

  static const bad_case turned = {
      "angle", CRYO_ERR_DATA, {"variable 'angle'", "cell (i, j) = (3, 2)", "is 10 degrees"}};
  write_grid(p, &g, NULL, NULL, angle);
  poke(p, "angle", 3, 2, 0, 10.0);
  expect(p, NX, NY, &turned);

  /* 0.01 radians (0.57 degrees) is within the tolerance */
  static const bad_case radians = {"angle in radians", CRYO_OK, {NULL}};
  write_grid(p, &g, NULL, NULL, angle);
  set_units(p, "angle", "radians");
  poke(p, "angle", 3, 2, 0, 0.01);
  expect(p, NX, NY, &radians);

  static const bad_case no_units = {"angle units", CRYO_ERR_FORMAT, {"'angle' has no 'units'"}};
  set_units(p, "angle", NULL);
  expect(p, NX, NY, &no_units);

  static const bad_case lon_units = {
      "lon units", CRYO_ERR_FORMAT, {"variable 'lon' has units 'radians'", "'degrees_east'"}};
  write_grid(p, &g, NULL, NULL, NULL);
  set_units(p, "lon", "radians");
  expect(p, NX, NY, &lon_units);

  static const bad_case no_file = {"no file", CRYO_ERR_FILE, {NULL}};
  expect("no-such-grid.nc", NX, NY, &no_file);
}

/* A planar grid: the rectangle rule of the planar tolerance and +z. */
static void test_planar(void) {
  test_grid g = {.nx = NX, .ny = NY, .spherical = 0};
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      g.node_x[j * (NX + 1) + i] = 1e6 + 1e4 * i + 10.0 * j * j;
      g.node_y[j * (NX + 1) + i] = -2e6 + 8e3 * j;
    }
  for (int q = 0; q < NX * NY; ++q) {
    int i = q % NX, j = q / NX;
    g.cx[q] = 0.25 * (node_of(&g, g.node_x, i, j, 0) + node_of(&g, g.node_x, i, j, 1) +
                      node_of(&g, g.node_x, i, j, 2) + node_of(&g, g.node_x, i, j, 3));
    g.cy[q] = -2e6 + 8e3 * (j + 0.5);
  }
  write_grid("plane.nc", &g, NULL, NULL, NULL);
  cryo_block b = block_of(NX, NY);
  cryo_gridfile gf;
  cryo_err err = {0};
  int status = cryo_gridfile_read("plane.nc", "test", &b, 6371229.0, 0.0, 1.46e-4, &gf, &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_FATAL(all_ok(status));
  CU_ASSERT(gf.points.spherical == 0 && gf.points.f_plane == 1.46e-4);
  check_flags(&b, &gf);
  check_shared(&b, &gf);
  cryo_gridfile_free(&gf);
  static const bad_case disagree = {
      "planar corners", CRYO_ERR_DATA, {"variable 'y_bnds'", "cell (i, j) = (2, 3)", "m"}};
  poke("plane.nc", "y_bnds", 2, 3, 2, -2e6 + 8e3 * 4 + 50.0);
  expect("plane.nc", NX, NY, &disagree);
}

/* &cryo_grid grid_file in the configuration. */
/* A point of the polar stereographic plane of the unit sphere (x, y) in
 * degrees: lon = atan2(y, x), lat = 90 - 2 atan(rho / 2). */
static void to_sphere(double x, double y, double *lon, double *lat) {
  *lon = atan2(y, x) * 180.0 / M_PI;
  *lat = 90.0 - 2.0 * atan(hypot(x, y) / 2.0) * 180.0 / M_PI;
}

/* An NX x NY tripolar cap (Murray 1996): elliptic coordinates in the polar
 * stereographic plane, x = c cosh mu cos theta, y = c sinh mu sin theta,
 * about the foci (+-c, 0), the grid's two northern poles. theta_i = 2 pi
 * (i - h) / NX closes the seam; mu_j = mu0 (NY - j - h) / (NY - h) runs from
 * an outer ellipse (the closed bottom edge) to the fold, the segment between
 * the foci: the top node row for an F fold (h = 0: pivots at the foci, nodes
 * 0 and NX/2), through the centres of the top row for a T fold (h = 1/2: the
 * top row's top nodes are its bottom nodes mirrored; pivots cells 0, NX/2).
 * Centres: the mean of the corners in the plane. */
static void tripolar(test_grid *g, cryo_fold fold) {
  const double c = 0.3, mu0 = 1.0, h = fold == CRYO_FOLD_T ? 0.5 : 0.0;
  double px[(NY + 1) * (NX + 1)], py[(NY + 1) * (NX + 1)];
  memset(g, 0, sizeof *g);
  g->nx = NX;
  g->ny = NY;
  g->spherical = 1;
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      const double mu = mu0 * (NY - j - h) / (NY - h), theta = 2.0 * M_PI * (i - h) / NX;
      const int q = j * (NX + 1) + i;
      px[q] = c * cosh(mu) * cos(theta);
      py[q] = c * sinh(mu) * sin(theta);
      to_sphere(px[q], py[q], &g->node_x[q], &g->node_y[q]);
    }
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      const int q = j * (NX + 1) + i, r = q + NX + 1;
      to_sphere((px[q] + px[q + 1] + px[r] + px[r + 1]) / 4.0,
                (py[q] + py[q + 1] + py[r] + py[r + 1]) / 4.0, &g->cx[j * NX + i],
                &g->cy[j * NX + i]);
    }
}

/* Rank 0 sets the topology attributes of an existing file (fold NULL: no
 * north_fold); all ranks wait for it. */
static void set_topology(const char *path, int periodic_x, const char *fold) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int ncid;
    nc_ok(nc_open(path, NC_WRITE, &ncid));
    nc_ok(nc_redef(ncid));
    if (periodic_x >= 0)
      nc_ok(nc_put_att_int(ncid, NC_GLOBAL, "periodic_x", NC_INT, 1, &periodic_x));
    if (fold) nc_ok(nc_put_att_text(ncid, NC_GLOBAL, "north_fold", strlen(fold), fold));
    nc_ok(nc_close(ncid));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_config(void) {
  test_grid g;
  latlon(&g, -20.0, 60.0, 3.0);
  write_grid("cfg.nc", &g, NULL, NULL, NULL);
  const char *run = "&cryo_run model = 'seaice', run_length = 3600, coupling_interval = 3600,"
                    " forcing = 'host' /\n";
  char text[512];
  cryo_config cfg;
  cryo_err err = {0};
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'cfg.nc', dx = 1000. /\n", run);
  int status = cryo_config_read_string(&cfg, text, "g.nml", &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_FATAL(all_ok(status));
  CU_ASSERT(cfg.grid.nx == NX && cfg.grid.ny == NY && cfg.grid.spherical == 1);
  CU_ASSERT(cfg.seaice.p.quad == 1 && cfg.grid.east_north == 1);
  CU_ASSERT_EQUAL(cfg.grid.earth_radius, 6371229.0);
  CU_ASSERT_PTR_NOT_NULL(strstr(cfg.warnings, "g.nml:2: &cryo_grid: dx is ignored: grid_file"));
  snprintf(text, sizeof text,
           "%s&cryo_grid grid_file = 'cfg.nc', nx = 8, ny = 6, vector_frame = 'grid',"
           " earth_radius = 6.4e6 /\n",
           run);
  CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "g.nml", &err), CRYO_OK);
  CU_ASSERT(cfg.grid.east_north == 0 && cfg.grid.earth_radius == 6.4e6);
  CU_ASSERT_STRING_EQUAL(cfg.warnings, "");
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'cfg.nc', nx = 9 /\n", run);
  CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "g.nml", &err), CRYO_ERR_RANGE);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(err.msg, "g.nml:2: &cryo_grid: nx = 9 but grid_file 'cfg.nc' has 8"));
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'none.nc' /\n", run);
  CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "g.nml", &err), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "g.nml:2: &cryo_grid grid_file: grid file 'none.nc'"));
  tripolar(&g, CRYO_FOLD_F);
  write_grid("cfg.nc", &g, NULL, NULL, NULL);
  set_topology("cfg.nc", 1, "F");
  /* a fold: sea ice runs across it, with vectors arriving east and north */
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'cfg.nc' /\n", run);
  status = cryo_config_read_string(&cfg, text, "g.nml", &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_EQUAL(status, CRYO_OK);
  CU_ASSERT(cfg.grid.periodic_x == 1 && cfg.grid.fold == CRYO_FOLD_F);
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'cfg.nc', vector_frame = 'grid' /\n", run);
  CU_ASSERT_EQUAL(cryo_config_read_string(&cfg, text, "g.nml", &err), CRYO_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "folds at its top (north_fold = 'F')"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "set vector_frame = 'east_north'"));
  snprintf(text, sizeof text, "%s&cryo_grid grid_file = 'cfg.nc' /\n", run);
  /* periodic alone: sea ice runs across the seam */
  write_grid("cfg.nc", &g, NULL, NULL, NULL);
  set_topology("cfg.nc", 1, NULL);
  status = cryo_config_read_string(&cfg, text, "g.nml", &err);
  if (status != CRYO_OK) fprintf(stderr, "%s\n", err.msg);
  CU_ASSERT_EQUAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(cfg.grid.periodic_x, 1);
}

/* Files of scripts/make_grid.py in GRIDFILE_DIR (tests/grid_files.test). */
static const char *dir;

static double att(int ncid, const char *name) {
  double v = NAN;
  nc_ok(nc_get_att_double(ncid, NC_GLOBAL, name, &v));
  return v;
}

/* Read dir/name on this rank's block; kind: 0 polar stereographic, 1
 * Cartesian, 2 rotated, 3 any other (checks alone). */
static void read_made(const char *name, int kind) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int nxg, nyg, sp, ncid;
  cryo_err err = {0};
  CU_ASSERT_FATAL(all_ok(cryo_gridfile_inquire(path, &nxg, &nyg, &sp, &err)));
  nc_ok(nc_open(path, NC_NOWRITE, &ncid));
  char hemisphere[16] = "";
  double dx = kind < 3 ? att(ncid, "dx") : 0, dy = kind < 3 ? att(ncid, "dy") : 0, x0 = 0, y0 = 0,
         lat_true = 0, lon0 = 0, radius = 0, turn = 0;
  if (kind == 0) {
    x0 = att(ncid, "x0");
    y0 = att(ncid, "y0");
    lat_true = att(ncid, "lat_true") * M_PI / 180.0;
    lon0 = att(ncid, "lon0");
    radius = att(ncid, "radius");
    nc_ok(nc_get_att_text(ncid, NC_GLOBAL, "hemisphere", hemisphere));
  }
  if (kind == 2) turn = att(ncid, "rotation") * M_PI / 180.0;
  nc_close(ncid);
  int periodic;
  cryo_fold fold;
  CU_ASSERT_FATAL(all_ok(cryo_gridfile_inquire_topology(path, &periodic, &fold, &err)));
  cryo_block b = block_of(nxg, nyg);
  b.periodic_x = periodic;
  cryo_gridfile gf;
  int status = cryo_gridfile_read(path, "test", &b, 6371229.0, 7.29e-5, 0.0, &gf, &err);
  if (status != CRYO_OK) fprintf(stderr, "%s: %s\n", name, err.msg);
  CU_ASSERT_FATAL(all_ok(status));
  CU_ASSERT_EQUAL(gf.points.spherical, sp);
  check_flags(&b, &gf);
  check_shared(&b, &gf);
  const int south = !strncmp(hemisphere, "south", 5);
  double worst = 0.0;
  long bad = 0;
  /* nodes (h = 0) and centres (h = 1/2) against their formulas */
  for (int pass = 0; pass < 2; ++pass)
    for (int j = -2; j <= b.ny + 2; ++j)
      for (int i = -2; i <= b.nx + 2; ++i) {
        double x, y, h = pass ? 0.5 : 0.0;
        if (pass == 0) {
          long p = node_index(&b, i, j);
          if (!gf.node_ok[p]) continue;
          x = gf.node_x[p];
          y = gf.node_y[p];
        } else {
          if (i > b.nx || j > b.ny || i < -1 || j < -1) continue;
          long c = CRYO_CELL(&b, i, j);
          if (!gf.cell_ok[c]) continue;
          x = gf.cell_x[c];
          y = gf.cell_y[c];
          /* a T fold's pivot cells are flat: area 0 */
          const int flat = fold == CRYO_FOLD_T && b.j0 + j == nyg - 1 &&
                           ((b.i0 + i + nxg) % nxg == 0 || (b.i0 + i + nxg) % nxg == nxg / 2);
          bad += !(gf.mask[c] == 0.0 || gf.mask[c] == 1.0) || !(gf.area[c] > 0.0 || flat);
        }
        const double gi = b.i0 + i + h, gj = b.j0 + j + h;
        if (kind == 0) {
          /* polar stereographic forward (scripts/make_grid.py) */
          double lat = y * M_PI / 180.0, lam = (x - lon0) * M_PI / 180.0;
          double k = radius * (1.0 + sin(fabs(lat_true)));
          double rho = k * tan(M_PI / 4.0 + (south ? lat : -lat) / 2.0);
          double px = rho * sin(lam), py = south ? rho * cos(lam) : -rho * cos(lam);
          worst = fmax(worst, fmax(fabs(px - (x0 + gi * dx)), fabs(py - (y0 + gj * dy))));
        } else if (kind == 1) {
          bad += x != gi * dx || y != gj * dy;
        } else if (kind == 2) {
          double px = cos(turn) * gi * dx - sin(turn) * gj * dy;
          double py = sin(turn) * gi * dx + cos(turn) * gj * dy;
          worst = fmax(worst, fmax(fabs(px - x), fabs(py - y)));
        }
      }
  if (worst > (kind == 0 ? 1e-4 : 1e-6) || bad)
    fprintf(stderr, "%s: worst %g m, %ld bad\n", name, worst, bad);
  CU_ASSERT(worst <= (kind == 0 ? 1e-4 : 1e-6));
  CU_ASSERT_EQUAL(bad, 0);
  cryo_gridfile_free(&gf);
}

static void test_made(void) {
  read_made("ps_north.nc", 0);
  read_made("ps_south.nc", 0);
  read_made("ps_corner.nc", 0);
  read_made("cartesian.nc", 1);
  read_made("rotated.nc", 2);
  read_made("stretched.nc", 3);
  read_made("latlon.nc", 3);
  read_made("tripolar_T.nc", 3);
  read_made("tripolar_F.nc", 3);
}

static void test_tripolar(void) {
  const char *p = "tripolar.nc";
  for (int fold = CRYO_FOLD_T; fold <= CRYO_FOLD_F; ++fold) {
    const char *name = fold == CRYO_FOLD_T ? "T" : "F";
    test_grid g;
    double mask[NX * NY];
    for (int q = 0; q < NX * NY; ++q)
      mask[q] = 1.0;
    if (fold == CRYO_FOLD_T) mask[(NY - 1) * NX] = mask[(NY - 1) * NX + NX / 2] = 0.0;
    tripolar(&g, fold);
    write_grid(p, &g, mask, NULL, NULL);
    set_topology(p, 1, name);
    int periodic = -1;
    cryo_fold got = CRYO_FOLD_NONE;
    cryo_err err = {0};
    CU_ASSERT_EQUAL(cryo_gridfile_inquire_topology(p, &periodic, &got, &err), CRYO_OK);
    CU_ASSERT(periodic == 1 && (int)got == fold);
    cryo_block b = block_of(NX, NY);
    cryo_gridfile gf;
    int status = cryo_gridfile_read(p, "test", &b, 6.4e6, 7.29e-5, 0.0, &gf, &err);
    if (status != CRYO_OK) fprintf(stderr, "tripolar %s: %s\n", name, err.msg);
    CU_ASSERT(all_ok(status));
    cryo_gridfile_free(&gf);
    static const bad_case pivot = {
        "T pivot not land", CRYO_ERR_DATA, {"cell (i, j) = (0, 5) is a pivot", "must be land"}};
    if (fold == CRYO_FOLD_T) {
      write_grid(p, &g, NULL, NULL, NULL);
      set_topology(p, 1, name);
      expect(p, NX, NY, &pivot);
    }
    /* node (NX, 2) of the last column no longer the first column's node (0, 2) */
    test_grid seam = g;
    seam.node_x[2 * (NX + 1) + NX] += 0.5;
    write_grid(p, &seam, mask, NULL, NULL);
    set_topology(p, 1, name);
    static const bad_case open_seam = {"seam does not close",
                                       CRYO_ERR_DATA,
                                       {"the seam does not close", "cell (i, j) = (7, 1)",
                                        "corner 3 of cell (0, 1), the same node across the seam"}};
    expect(p, NX, NY, &open_seam);
    /* node (2, NY) moved off its image across the fold */
    test_grid torn = g;
    torn.node_y[NY * (NX + 1) + 2] -= 0.3;
    write_grid(p, &torn, mask, NULL, NULL);
    set_topology(p, 1, name);
    static const bad_case torn_t = {"T fold does not match",
                                    CRYO_ERR_DATA,
                                    {"the north fold does not match", "cell (i, j) = (1, 5)",
                                     "corner 0 of cell (7, 5), the same node across the north "
                                     "fold (north_fold = 'T')"}};
    static const bad_case torn_f = {"F fold does not match",
                                    CRYO_ERR_DATA,
                                    {"the north fold does not match", "cell (i, j) = (1, 5)",
                                     "corner 3 of cell (6, 5), the same node across the north "
                                     "fold (north_fold = 'F')"}};
    expect(p, NX, NY, fold == CRYO_FOLD_T ? &torn_t : &torn_f);
  }
  static const bad_case unknown = {
      "north_fold X", CRYO_ERR_FORMAT, {"'north_fold' = 'X'", "expected 'T'"}};
  static const bad_case lonely = {
      "fold without periodic_x", CRYO_ERR_FORMAT, {"'north_fold' = 'F' needs periodic_x = 1"}};
  static const bad_case periodic2 = {
      "periodic_x 2", CRYO_ERR_FORMAT, {"'periodic_x' must be one integer, 0 or 1"}};
  test_grid g;
  tripolar(&g, CRYO_FOLD_F);
  write_grid(p, &g, NULL, NULL, NULL);
  set_topology(p, 1, "X");
  expect(p, NX, NY, &unknown);
  write_grid(p, &g, NULL, NULL, NULL);
  set_topology(p, -1, "F");
  expect(p, NX, NY, &lonely);
  write_grid(p, &g, NULL, NULL, NULL);
  set_topology(p, 2, NULL);
  expect(p, NX, NY, &periodic2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);
  CU_initialize_registry();
  dir = getenv("GRIDFILE_DIR");
  CU_TestInfo tests[] = {{"longitude-latitude sector", test_latlon},
                         {"corners within the tolerance", test_tolerance},
                         {"bad files", test_bad_files},
                         {"planar grid", test_planar},
                         {"tripolar grids", test_tripolar},
                         {"&cryo_grid grid_file", test_config},
                         CU_TEST_INFO_NULL};
  CU_TestInfo made[] = {{"files of scripts/make_grid.py", test_made}, CU_TEST_INFO_NULL};
  cryo_test_suite("grid files", dir && dir[0] ? made : tests);
  return cryo_test_run();
}
