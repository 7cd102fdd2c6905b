/* CF-1.8 NetCDF output, gathered to rank 0 (docs/design.md, Files): one
 * record per output time, coordinates x, y at cell centres and x_node,
 * y_node at cell corners, a `time` axis in seconds since the start date.
 * On a grid file (&cryo_grid grid_file) the dimensions stay and the
 * coordinates become 2-D auxiliary coordinates named by every variable's
 * `coordinates` attribute: lon, lat (degrees) with their cell bounds
 * lon_bnds, lat_bnds and lon_node, lat_node at the nodes on the sphere, or
 * x_c, y_c (m) with x_bnds, y_bnds and x_node_c, y_node_c for a planar file
 * (the names of the grid file format, scripts/make_grid.py). With
 * output_grid = 'reference' they are left out (gathering and writing them
 * was a third of the 2 km Arctic's start-up): the global attribute
 * grid_file names the file that holds them, and the data variables name no
 * coordinates.
 * The file is NetCDF classic with 64-bit offsets, written by NetCDF's own
 * I/O layer: after a failed write (a full disk) HDF5, behind NetCDF-4,
 * cannot close the file and crashes the process at exit, while the classic
 * layer reports the system's error and keeps the records already synced. */
#include "cryo_output.h"

#include "config.h" /* PACKAGE_VERSION */
#include "cryo_gridfile.h"
#include "cryo_impl.h"
#include "cryo_namelist.h"
#include "cryo_ncvar.h"
#include "cryo_restart.h"

#include <errno.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cryo_output {
  int ncid;
  int time_var;
  int var[CRYO_MAX_OUTPUT];
  size_t nrec;
};

/* A failed NetCDF call on the output file: positive statuses are the
 * system's errno (ENOSPC, EFBIG, EDQUOT...), CRYO_ERR_FILE (cryo_ncvar.h). */
#define NC_TRY(c, expr, what) CRYO_NC((expr), &(c)->err, "%s: %s", (c)->cfg.run.output_file, (what))

static int put_text(cryo_component *c, int ncid, int var, const char *name, const char *value) {
  if (!value || !value[0]) return CRYO_OK;
  NC_TRY(c, nc_put_att_text(ncid, var, name, strlen(value), value), name);
  return CRYO_OK;
}

static int write_axis(cryo_component *c, int ncid, int var, int n, double step, double shift) {
  double *v = malloc((size_t)n * sizeof *v);
  CRYO_CHECK(v, &c->err, CRYO_ERR_MEMORY, "out of memory writing coordinates");
  for (int i = 0; i < n; ++i)
    v[i] = (i + shift) * step;
  int s = nc_put_var_double(ncid, var, v);
  free(v);
  NC_TRY(c, s, "writing a coordinate");
  return CRYO_OK;
}

/* A grid file's coordinates as rank 0 holds them for a new output file:
 * centres (nx*ny each), corners (4 a cell, counterclockwise from the cell's
 * node (i, j)) and nodes ((nx+1)*(ny+1) each); NULL on other ranks. */
typedef struct file_coords {
  double *cx, *cy, *bx, *by, *nx, *ny;
} file_coords;

static void file_coords_free(file_coords *f) {
  free(f->cx);
  *f = (file_coords){0};
}

/* Node (i, j) from the gathered corners: corner 0 of cell (i, j), and at the
 * top and right edges the corner of the last cell that touches it; k is 0
 * for x, 1 for y. */
static double node_from_corners(const file_coords *f, const cryo_block *b, int k, int i, int j) {
  const int ci = i < b->nx_global ? i : i - 1, cj = j < b->ny_global ? j : j - 1;
  static const int corner[2][2] = {{0, 3}, {1, 2}}; /* [right edge][top edge] */
  const int m = corner[i != ci][j != cj];
  const double *bnds = k ? f->by : f->bx;
  return bnds[((long)cj * b->nx_global + ci) * 4 + m];
}

/* Gather the grid file's centres and corners to rank 0 and compute the
 * nodes there (collective). */
static int file_coords_gather(cryo_component *c, file_coords *f) {
  const cryo_block *b = &c->grid.block;
  const cryo_gridfile *gf = c->gridfile;
  const size_t ncell = (size_t)b->nx_global * b->ny_global;
  const size_t nnode = (size_t)(b->nx_global + 1) * (b->ny_global + 1);
  int ok = 1;
  if (c->rank == 0) {
    f->cx = malloc(sizeof(double) * (10 * ncell + 2 * nnode));
    ok = f->cx != NULL;
    if (ok) {
      f->cy = f->cx + ncell;
      f->bx = f->cy + ncell;
      f->by = f->bx + 4 * ncell;
      f->nx = f->by + 4 * ncell;
      f->ny = f->nx + nnode;
    }
  }
  CRYO_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, c->comm), "MPI_Bcast (output coordinates)", &c->err);
  CRYO_CHECK(ok, &c->err, CRYO_ERR_MEMORY, "out of memory for the coordinates of %d x %d cells",
             b->nx_global, b->ny_global);
  const double *local[4] = {gf->cell_x, gf->cell_y, gf->corner_x, gf->corner_y};
  double *global[4] = {f->cx, f->cy, f->bx, f->by};
  /* the centres in block layout, the corners as the reader keeps them */
  for (int v = 0; v < 4; ++v)
    CRYO_CALL(v < 2 ? cryo_grid_gather(&c->grid, CRYO_AT_CELL, 1, local[v], global[v], &c->err)
                    : cryo_grid_gather_cells(&c->grid, 4, local[v], gf->corner_first,
                                             gf->corner_row, global[v], &c->err));
  if (c->rank == 0)
    for (int j = 0; j <= b->ny_global; ++j)
      for (int i = 0; i <= b->nx_global; ++i) {
        const size_t n = (size_t)j * (b->nx_global + 1) + i;
        f->nx[n] = node_from_corners(f, b, 0, i, j);
        f->ny[n] = node_from_corners(f, b, 1, i, j);
      }
  return CRYO_OK;
}

/* The names of a grid file's coordinates, on the sphere or in a plane. */
typedef struct coord_names {
  const char *cx, *cy, *bx, *by, *nx, *ny; /* centres, corners, nodes */
  const char *cell_coords, *node_coords;   /* the data variables' coordinates attribute */
  const char *units[2], *std[2], *what[2];
} coord_names;

static const coord_names sphere_names = {
    .cx = "lon",
    .cy = "lat",
    .bx = "lon_bnds",
    .by = "lat_bnds",
    .nx = "lon_node",
    .ny = "lat_node",
    .cell_coords = "lat lon",
    .node_coords = "lat_node lon_node",
    .units = {"degrees_east", "degrees_north"},
    .std = {"longitude", "latitude"},
    .what = {"longitude", "latitude"},
};
static const coord_names plane_names = {
    .cx = "x_c",
    .cy = "y_c",
    .bx = "x_bnds",
    .by = "y_bnds",
    .nx = "x_node_c",
    .ny = "y_node_c",
    .cell_coords = "y_c x_c",
    .node_coords = "y_node_c x_node_c",
    .units = {"m", "m"},
    .std = {"projection_x_coordinate", "projection_y_coordinate"},
    .what = {"x", "y"},
};

static const coord_names *names_of(const cryo_component *c) {
  return c->gridfile->points.spherical ? &sphere_names : &plane_names;
}

/* Define the 2-D coordinates of a grid file (ids: centres x, y, bounds x,
 * y, nodes x, y). */
static int define_file_coords(cryo_component *c, int ncid, int dx, int dy, int dxn, int dyn,
                              int ids[6]) {
  const coord_names *nm = names_of(c);
  int dnv;
  NC_TRY(c, nc_def_dim(ncid, "nv", 4, &dnv), "defining nv");
  const int cell[2] = {dy, dx}, bnds[3] = {dy, dx, dnv}, node[2] = {dyn, dxn};
  const char *names[6] = {nm->cx, nm->cy, nm->bx, nm->by, nm->nx, nm->ny};
  static const char *const what[6] = {"cell centres",         "cell centres",
                                      "cell corners",         "cell corners",
                                      "nodes (cell corners)", "nodes (cell corners)"};
  for (int v = 0; v < 6; ++v) {
    const int *dims = v < 2 ? cell : v < 4 ? bnds : node;
    NC_TRY(c, nc_def_var(ncid, names[v], NC_DOUBLE, v == 2 || v == 3 ? 3 : 2, dims, &ids[v]),
           names[v]);
    if (v == 2 || v == 3) continue; /* bounds inherit their variable's attributes (CF 7.1) */
    char lname[96];
    snprintf(lname, sizeof lname, "%s of the %s", nm->what[v % 2], what[v]);
    CRYO_CALL(put_text(c, ncid, ids[v], "units", nm->units[v % 2]));
    CRYO_CALL(put_text(c, ncid, ids[v], "standard_name", nm->std[v % 2]));
    CRYO_CALL(put_text(c, ncid, ids[v], "long_name", lname));
    if (v < 2) CRYO_CALL(put_text(c, ncid, ids[v], "bounds", names[v + 2]));
  }
  return CRYO_OK;
}

static int write_file_coords(cryo_component *c, int ncid, const int ids[6], const file_coords *f) {
  const double *values[6] = {f->cx, f->cy, f->bx, f->by, f->nx, f->ny};
  for (int v = 0; v < 6; ++v)
    NC_TRY(c, nc_put_var_double(ncid, ids[v], values[v]), "writing the grid file's coordinates");
  return CRYO_OK;
}

/* Create the file and define every variable (rank 0); coords: a grid
 * file's, NULL for the built-in box or a grid file referenced. */
static int output_define(cryo_component *c, const file_coords *coords) {
  cryo_output *o = c->output;
  const char *path = c->cfg.run.output_file;
  NC_TRY(c, nc_create(path, NC_64BIT_OFFSET | NC_CLOBBER, &o->ncid), "creating the file");
  int ncid = o->ncid, old_fill;
  /* every value is written: prefilling (the grid file's coordinates at the
   * end of the definitions, each record's variables as the record is
   * added) would write each byte twice, 2.8 GB more at the 2 km Arctic. A
   * record cut short leaves its time unwritten, read back as 0 (a hole in
   * the file), not after the record before it: output_reopen drops it. */
  NC_TRY(c, nc_set_fill(ncid, NC_NOFILL, &old_fill), "setting no prefill");
  const cryo_block *b = &c->grid.block;
  int dt, dx, dy, dxn, dyn, dz = -1;
  NC_TRY(c, nc_def_dim(ncid, "time", NC_UNLIMITED, &dt), "defining time");
  NC_TRY(c, nc_def_dim(ncid, "x", (size_t)b->nx_global, &dx), "defining x");
  NC_TRY(c, nc_def_dim(ncid, "y", (size_t)b->ny_global, &dy), "defining y");
  NC_TRY(c, nc_def_dim(ncid, "x_node", (size_t)b->nx_global + 1, &dxn), "defining x_node");
  NC_TRY(c, nc_def_dim(ncid, "y_node", (size_t)b->ny_global + 1, &dyn), "defining y_node");
  if (c->nlevels > 0)
    NC_TRY(c, nc_def_dim(ncid, "level", (size_t)c->nlevels, &dz), "defining level");

  struct {
    const char *name, *std, *lname;
    int dim;
    int id;
  } axes[4] = {{"x", "projection_x_coordinate", "x of cell centres", dx, 0},
               {"y", "projection_y_coordinate", "y of cell centres", dy, 0},
               {"x_node", "projection_x_coordinate", "x of cell corners", dxn, 0},
               {"y_node", "projection_y_coordinate", "y of cell corners", dyn, 0}};
  int coord_ids[6];
  if (coords) CRYO_CALL(define_file_coords(c, ncid, dx, dy, dxn, dyn, coord_ids));
  /* a grid file's cells have no 1-D axes: x and y are indices */
  const int referenced = c->gridfile && !coords;
  for (int a = 0; a < (c->gridfile ? 0 : 4); ++a) {
    NC_TRY(c, nc_def_var(ncid, axes[a].name, NC_DOUBLE, 1, &axes[a].dim, &axes[a].id),
           axes[a].name);
    CRYO_CALL(put_text(c, ncid, axes[a].id, "units", "m"));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "standard_name", axes[a].std));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "long_name", axes[a].lname));
    CRYO_CALL(put_text(c, ncid, axes[a].id, "axis", a % 2 ? "Y" : "X"));
  }
  char units[96], start[32];
  cryo_date_format(c->clock.start, start, sizeof start);
  snprintf(units, sizeof units, "seconds since %s", start);
  NC_TRY(c, nc_def_var(ncid, "time", NC_DOUBLE, 1, &dt, &o->time_var), "defining time");
  CRYO_CALL(put_text(c, ncid, o->time_var, "units", units));
  CRYO_CALL(put_text(c, ncid, o->time_var, "calendar", cryo_calendar_name(c->clock.calendar)));
  CRYO_CALL(put_text(c, ncid, o->time_var, "standard_name", "time"));
  CRYO_CALL(put_text(c, ncid, o->time_var, "axis", "T"));
  if (dz >= 0) {
    int zid;
    NC_TRY(c, nc_def_var(ncid, "level", NC_DOUBLE, 1, &dz, &zid), "defining level");
    CRYO_CALL(put_text(c, ncid, zid, "long_name",
                       "terrain-following level, 0 at the bed, 1 at the surface"));
    CRYO_CALL(put_text(c, ncid, zid, "units", "1"));
    CRYO_CALL(put_text(c, ncid, zid, "positive", "up"));
  }
  for (int v = 0; v < c->noutvars; ++v) {
    const cryo_output_var *ov = &c->outvars[v];
    const cryo_field *f = &c->fields[ov->field];
    int node = f->loc == CRYO_AT_NODE;
    int dims[4], nd = 0;
    dims[nd++] = dt;
    if (ov->count > 1) dims[nd++] = dz;
    dims[nd++] = node ? dyn : dy;
    dims[nd++] = node ? dxn : dx;
    NC_TRY(c, nc_def_var(ncid, ov->name, NC_DOUBLE, nd, dims, &o->var[v]), ov->name);
    CRYO_CALL(put_text(c, ncid, o->var[v], "units", ov->units));
    CRYO_CALL(put_text(c, ncid, o->var[v], "standard_name", ov->standard_name));
    CRYO_CALL(put_text(c, ncid, o->var[v], "long_name", ov->long_name));
    const char *coordinates = node ? "y_node x_node" : "y x";
    if (coords) coordinates = node ? names_of(c)->node_coords : names_of(c)->cell_coords;
    if (!referenced) CRYO_CALL(put_text(c, ncid, o->var[v], "coordinates", coordinates));
  }
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "title", c->model->name));
  char source[64];
  snprintf(source, sizeof source, "cryodyn %s", PACKAGE_VERSION);
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "source", source));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "namelist_file", c->cfg.source));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "namelist", c->namelist_text));
  CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "warnings", c->cfg.warnings));
  if (referenced) CRYO_CALL(put_text(c, ncid, NC_GLOBAL, "grid_file", c->cfg.grid.grid_file));
  NC_TRY(c, nc_enddef(ncid), "ending definitions");
  if (coords) {
    CRYO_CALL(write_file_coords(c, ncid, coord_ids, coords));
  } else if (!referenced) {
    CRYO_CALL(write_axis(c, ncid, axes[0].id, b->nx_global, b->dx, 0.5));
    CRYO_CALL(write_axis(c, ncid, axes[1].id, b->ny_global, b->dy, 0.5));
    CRYO_CALL(write_axis(c, ncid, axes[2].id, b->nx_global + 1, b->dx, 0.0));
    CRYO_CALL(write_axis(c, ncid, axes[3].id, b->ny_global + 1, b->dy, 0.0));
  }
  if (dz >= 0) {
    int zid;
    NC_TRY(c, nc_inq_varid(ncid, "level", &zid), "level");
    CRYO_CALL(write_axis(c, ncid, zid, c->nlevels, 1.0 / (c->nlevels - 1), 0.0));
  }
  return CRYO_OK;
}

/* Rank 0: a new output file, or none at all: a file that could not be
 * defined holds nothing worth keeping. NetCDF unlinks the path it was
 * creating when the creation fails, so only a regular file (or no file) may
 * be handed to it: a device, fifo, directory or link there is refused and
 * left as it is. Of what is left after a failure, only a regular file this
 * run created is removed. */
static int output_create(cryo_component *c, const file_coords *coords) {
  const char *path = c->cfg.run.output_file;
  struct stat st;
  const int existed = lstat(path, &st) == 0;
  CRYO_CHECK(!existed || S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
             "%s: output_file '%s' exists and is not a regular file but %s: the output replaces "
             "only a regular file; move it away or choose another output_file",
             c->cfg.source, path, cryo_file_kind(st.st_mode));
  int status = output_define(c, coords);
  if (status != CRYO_OK) {
    if (c->output->ncid >= 0) nc_close(c->output->ncid);
    c->output->ncid = -1;
    if (!existed && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
  }
  return status;
}

/* Rank 0: check that dimension `name` of the output being continued has n
 * values. */
static int check_dim(cryo_component *c, int ncid, const char *name, size_t n) {
  const char *path = c->cfg.run.output_file;
  int dim;
  size_t len = 0;
  CRYO_CHECK(nc_inq_dimid(ncid, name, &dim) == NC_NOERR, &c->err, CRYO_ERR_MISSING,
             "%s: no dimension '%s': not the output of the run restart_in = '%s' continues", path,
             name, c->cfg.run.restart_in);
  nc_inq_dimlen(ncid, dim, &len);
  CRYO_CHECK(len == n, &c->err, CRYO_ERR_FORMAT,
             "%s: dimension %s = %zu, this run's grid has %zu: not the output of the run "
             "restart_in = '%s' continues",
             path, name, len, n, c->cfg.run.restart_in);
  return CRYO_OK;
}

/* Rank 0: reopen the output of the run this one continues. Its records up
 * to the restart time stay; later ones (written after that restart by the
 * run that stopped) are replaced as this run writes the same times again.
 * *has_now: a record at the restart time is already there. */
static int output_reopen(cryo_component *c, int *has_now) {
  cryo_output *o = c->output;
  const char *path = c->cfg.run.output_file;
  /* The format from the file's first bytes, before NetCDF opens it: a
   * NetCDF-4 file would put HDF5 back behind the writes (see the top of this
   * file), and a damaged one can crash HDF5 as it opens it. */
  char magic[4] = {0};
  FILE *f = fopen(path, "rb");
  CRYO_CHECK(f, &c->err, CRYO_ERR_FILE, "%s: cannot open it to continue it: %s", path,
             strerror(errno));
  size_t got = fread(magic, 1, sizeof magic, f);
  fclose(f);
  CRYO_CHECK(got == sizeof magic && !memcmp(magic, "CDF\002", 4), &c->err, CRYO_ERR_FORMAT,
             "%s: not NetCDF classic with 64-bit offsets as cryodyn writes it (corrupt, "
             "truncated, or another format): move it away to continue into a new file",
             path);
  int s = nc_open(path, NC_WRITE, &o->ncid);
  CRYO_CHECK(s == NC_NOERR, &c->err, s > 0 ? CRYO_ERR_FILE : CRYO_ERR_FORMAT,
             "%s: cannot reopen it to continue it: %s%s", path, nc_strerror(s),
             s > 0 ? "" : ": the file is corrupt or truncated");
  int ncid = o->ncid, old_fill;
  NC_TRY(c, nc_set_fill(ncid, NC_NOFILL, &old_fill), "setting no prefill (as output_define)");
  const cryo_block *b = &c->grid.block;
  CRYO_CALL(check_dim(c, ncid, "x", (size_t)b->nx_global));
  CRYO_CALL(check_dim(c, ncid, "y", (size_t)b->ny_global));
  CRYO_CALL(check_dim(c, ncid, "x_node", (size_t)b->nx_global + 1));
  CRYO_CALL(check_dim(c, ncid, "y_node", (size_t)b->ny_global + 1));
  if (c->nlevels > 0) CRYO_CALL(check_dim(c, ncid, "level", (size_t)c->nlevels));
  char units[96], want[96], start[32];
  size_t len = 0;
  cryo_date_format(c->clock.start, start, sizeof start);
  snprintf(want, sizeof want, "seconds since %s", start);
  memset(units, 0, sizeof units);
  CRYO_CHECK(nc_inq_varid(ncid, "time", &o->time_var) == NC_NOERR &&
                 nc_inq_attlen(ncid, o->time_var, "units", &len) == NC_NOERR &&
                 len < sizeof units &&
                 nc_get_att_text(ncid, o->time_var, "units", units) == NC_NOERR,
             &c->err, CRYO_ERR_MISSING, "%s: no 'time' variable with 'units'", path);
  CRYO_CHECK(!strcmp(units, want), &c->err, CRYO_ERR_FORMAT,
             "%s: time units '%s', this run's are '%s' (another start)", path, units, want);
  for (int v = 0; v < c->noutvars; ++v)
    CRYO_CHECK(nc_inq_varid(ncid, c->outvars[v].name, &o->var[v]) == NC_NOERR, &c->err,
               CRYO_ERR_MISSING, "%s: no variable '%s' to continue", path, c->outvars[v].name);
  int dim;
  size_t n = 0;
  NC_TRY(c, nc_inq_dimid(ncid, "time", &dim), "time");
  NC_TRY(c, nc_inq_dimlen(ncid, dim, &n), "time");
  double *t = malloc((n + 1) * sizeof *t);
  CRYO_CHECK(t, &c->err, CRYO_ERR_MEMORY, "out of memory reading %s", path);
  s = n > 0 ? nc_get_var_double(ncid, o->time_var, t) : NC_NOERR;
  /* Increasing times; an unwritten one (the fill value) is past the end. */
  size_t keep = 0;
  while (s == NC_NOERR && keep < n && t[keep] <= (double)c->clock.time &&
         (keep == 0 || t[keep] > t[keep - 1]))
    ++keep;
  *has_now = keep > 0 && t[keep - 1] == (double)c->clock.time;
  free(t);
  NC_TRY(c, s, "reading time");
  o->nrec = keep;
  return CRYO_OK;
}

/* A file as the file system knows it: device and inode when it exists, and
 * always its directory's device and inode with its name there (what a file
 * not written yet, or a rename over it, is known by). */
typedef struct path_id {
  const char *key, *path; /* the namelist key that names it, its value */
  int exists, in_dir;
  dev_t dev, dir_dev;
  ino_t ino, dir_ino;
  char dir[CRYO_PATH_LEN];
  const char *name; /* last component of path */
} path_id;

static void path_identify(path_id *p, const char *key, const char *path) {
  struct stat st;
  memset(p, 0, sizeof *p);
  p->key = key;
  p->path = path;
  if (stat(path, &st) == 0) p->exists = 1, p->dev = st.st_dev, p->ino = st.st_ino;
  const char *slash = strrchr(path, '/');
  p->name = slash ? slash + 1 : path;
  snprintf(p->dir, sizeof p->dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
           slash ? path : ".");
  if (stat(p->dir, &st) == 0 && S_ISDIR(st.st_mode))
    p->in_dir = 1, p->dir_dev = st.st_dev, p->dir_ino = st.st_ino;
}

static int same_dir(const path_id *a, const path_id *b) {
  return a->in_dir && b->in_dir && a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino;
}

/* Writing a (created with truncation, following links) would destroy b. */
static int same_file(const path_id *a, const path_id *b) {
  if (a->exists && b->exists) return a->dev == b->dev && a->ino == b->ino;
  return same_dir(a, b) && !strcmp(a->name, b->name);
}

/* The directory an output goes to exists and can be written. */
static int check_dir(cryo_component *c, const path_id *p) {
  struct stat st;
  int found = stat(p->dir, &st) == 0;
  CRYO_CHECK(found, &c->err, CRYO_ERR_FILE, "%s: %s '%s': directory '%s' does not exist",
             c->cfg.source, p->key, p->path, p->dir);
  CRYO_CHECK(S_ISDIR(st.st_mode), &c->err, CRYO_ERR_FILE, "%s: %s '%s': '%s' is not a directory",
             c->cfg.source, p->key, p->path, p->dir);
  CRYO_CHECK(access(p->dir, W_OK) == 0, &c->err, CRYO_ERR_FILE,
             "%s: %s '%s': directory '%s' is not writable: %s", c->cfg.source, p->key, p->path,
             p->dir, strerror(errno));
  return CRYO_OK;
}

/* Time of a restart this run may write whose name (or its '.tmp') is the
 * name of `p` in the restart directory, or -1. Restarts are written at
 * coupling times, the last one at the end of the run at the latest. */
static long long restart_named(const cryo_component *c, const path_id *rst, const path_id *p) {
  size_t len = strlen(rst->name);
  if (!same_dir(rst, p) || strncmp(p->name, rst->name, len) || p->name[len] != '.') return -1;
  for (long long t = c->clock.interval; t <= c->clock.run_length; t += c->clock.interval) {
    char path[CRYO_PATH_LEN + 64];
    cryo_restart_name(c, t, path, sizeof path);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(name);
    if (!strncmp(p->name, name, n) && (!p->name[n] || !strcmp(p->name + n, ".tmp"))) return t;
  }
  return -1;
}

int cryo_output_check_paths(cryo_component *c) {
  const cryo_config *g = &c->cfg;
  const char *keys[] = {"the namelist",
                        "restart_in",
                        "&cryo_grid mask_file",
                        "&cryo_seaice init_file",
                        "&cryo_landice geometry_file",
                        "forcing_file",
                        "output_file"};
  const char *paths[] = {g->source,           g->run.restart_in,        g->grid.mask_file,
                         g->seaice.init_file, g->landice.geometry_file, g->run.forcing_file,
                         g->run.output_file};
  enum { RESTART_IN = 1, NKEYS = sizeof keys / sizeof *keys, OUTPUT = NKEYS - 1 };
  path_id ids[NKEYS], rst;
  for (int k = 0; k < NKEYS; ++k)
    path_identify(&ids[k], keys[k], paths[k]);
  if (g->run.output_file[0]) {
    CRYO_CALL(check_dir(c, &ids[OUTPUT]));
    for (int k = 0; k < OUTPUT; ++k)
      CRYO_CHECK(!paths[k][0] || !same_file(&ids[OUTPUT], &ids[k]), &c->err, CRYO_ERR_RANGE,
                 "%s: output_file '%s' is the same file as %s '%s': writing the output would "
                 "destroy it",
                 g->source, paths[OUTPUT], keys[k], paths[k]);
  }
  if (g->landice.solver_log[0]) {
    path_id log;
    path_identify(&log, "&cryo_landice solver_log", g->landice.solver_log);
    CRYO_CALL(check_dir(c, &log));
    for (int k = 0; k < NKEYS; ++k)
      CRYO_CHECK(!paths[k][0] || !same_file(&log, &ids[k]), &c->err, CRYO_ERR_RANGE,
                 "%s: solver_log '%s' is the same file as %s '%s': writing the log would "
                 "destroy it",
                 g->source, g->landice.solver_log, keys[k], paths[k]);
  }
  if (!g->run.restart_out[0]) return CRYO_OK;
  path_identify(&rst, "restart_out", g->run.restart_out);
  CRYO_CALL(check_dir(c, &rst));
  /* restart_in is exempt: a run continued from the restart of time t
   * writes later ones only. */
  for (int k = 0; k < NKEYS; ++k) {
    long long t = paths[k][0] && k != RESTART_IN ? restart_named(c, &rst, &ids[k]) : -1;
    CRYO_CHECK(t < 0, &c->err, CRYO_ERR_RANGE,
               "%s: restart_out '%s' writes the restart of %lld s over %s '%s', which would "
               "destroy it",
               g->source, g->run.restart_out, t, keys[k], paths[k]);
  }
  return CRYO_OK;
}

int cryo_output_open(cryo_component *c, int *due) {
  int status = CRYO_OK, flags[2] = {0, 0}; /* status, a record is due now */
  /* gathered by every rank whether or not rank 0 creates a file: only rank 0
   * knows whether one is there to continue */
  file_coords coords = {0};
  const int copy = c->gridfile && !strcmp(c->cfg.run.output_grid, "copy");
  if (copy) status = file_coords_gather(c, &coords);
  if (c->rank == 0 && status == CRYO_OK) {
    cryo_output *o = calloc(1, sizeof *o);
    status = o ? CRYO_OK : CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory for output");
    c->output = o;
    const char *path = c->cfg.run.output_file;
    int has_now = 0;
    if (o) {
      o->ncid = -1;
      int exists = access(path, F_OK) == 0;
      if (c->cfg.run.restart_in[0] && exists)
        status = output_reopen(c, &has_now);
      else
        status = output_create(c, copy ? &coords : NULL);
    }
    /* The record at the start is due unless already there, and, in a
     * continued run, only when it falls on the output times. */
    long long t = c->clock.time, every = c->cfg.run.output_interval;
    flags[1] = !has_now && (t == 0 || (every > 0 && t % every == 0));
  }
  file_coords_free(&coords);
  flags[0] = status;
  CRYO_MPI(MPI_Bcast(flags, 2, MPI_INT, 0, c->comm), "MPI_Bcast (output file state)", &c->err);
  *due = flags[1];
  return cryo_status_from_root(c, status);
}

/* Rank 0: write record o->nrec of variable v from the gathered field;
 * scratch holds its levels apart where the field has several (NULL when
 * no output field has). */
static int write_var(cryo_component *c, int v, const double *global, double *scratch) {
  const cryo_output_var *ov = &c->outvars[v];
  const cryo_field *f = &c->fields[ov->field];
  const cryo_block *b = &c->grid.block;
  int node = f->loc == CRYO_AT_NODE;
  size_t gx = (size_t)b->nx_global + node, gy = (size_t)b->ny_global + node;
  size_t npts = gx * gy;
  /* a field of one level is written as gathered */
  const double *out = global;
  if (f->nlev > 1) {
    for (int k = 0; k < ov->count; ++k)
      for (size_t p = 0; p < npts; ++p)
        scratch[(size_t)k * npts + p] = global[p * f->nlev + ov->offset + k * ov->stride];
    out = scratch;
  }
  size_t startv[4] = {c->output->nrec, 0, 0, 0}, countv[4] = {1, 0, 0, 0};
  int nd = 1;
  if (ov->count > 1) countv[nd++] = (size_t)ov->count;
  countv[nd++] = gy;
  countv[nd++] = gx;
  int s = nc_put_vara_double(c->output->ncid, c->output->var[v], startv, countv, out);
  char what[96];
  snprintf(what, sizeof what, "writing '%s' at time %lld s", ov->name, c->clock.time);
  NC_TRY(c, s, what);
  return CRYO_OK;
}

int cryo_output_write(cryo_component *c) {
  int status = c->model->diagnose ? c->model->diagnose(c) : CRYO_OK;
  const cryo_block *b = &c->grid.block;
  size_t most = (size_t)(b->nx_global + 1) * (b->ny_global + 1);
  int maxlev = 1;
  for (int v = 0; v < c->noutvars; ++v)
    if (c->fields[c->outvars[v].field].nlev > maxlev) maxlev = c->fields[c->outvars[v].field].nlev;
  /* the gathered field, and after it room for its levels apart */
  const size_t size = most * (size_t)maxlev * (maxlev > 1 ? 2 : 1);
  double *global = c->rank == 0 ? malloc(size * sizeof *global) : NULL;
  double *scratch = global && maxlev > 1 ? global + most * (size_t)maxlev : NULL;
  if (c->rank == 0 && !global && status == CRYO_OK)
    status = CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory writing output");
  /* Every rank takes part in every gather, whatever rank 0's status. */
  for (int v = 0; v < c->noutvars; ++v) {
    cryo_field *f = &c->fields[c->outvars[v].field];
    cryo_field_to_host(c, f);
    int s = cryo_grid_gather(&c->grid, f->loc, f->nlev, f->host, global, &c->err);
    if (status == CRYO_OK) status = s;
    if (c->rank == 0 && status == CRYO_OK) status = write_var(c, v, global, scratch);
  }
  free(global);
  if (c->rank == 0 && status == CRYO_OK) {
    double t = (double)c->clock.time;
    size_t at = c->output->nrec;
    int s = nc_put_var1_double(c->output->ncid, c->output->time_var, &at, &t);
    if (s == NC_NOERR) s = nc_sync(c->output->ncid);
    if (s != NC_NOERR)
      status =
          cryo_nc_error(s, CRYO_ERR_NETCDF, &c->err, "%s: writing time", c->cfg.run.output_file);
    c->output->nrec++;
  }
  return status;
}

void cryo_output_close(cryo_component *c) {
  if (!c->output) return;
  if (c->output->ncid >= 0) nc_close(c->output->ncid);
  free(c->output);
  c->output = NULL;
}
