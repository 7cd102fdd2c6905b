/* Restart files (docs/design.md, Files): every prognostic array at full
 * precision in global layout (so any decomposition can read it), the clock
 * and the grid. Built in memory by NetCDF-4, then written by this file to
 * '<name>.tmp' followed by a checksum line over every byte before it,
 * flushed to the disk and renamed only when complete. On read the checksum
 * line is verified before NetCDF sees a byte: HDF5 parses damaged metadata
 * unchecked and can crash or hang on it, and it cannot recover from a write
 * error (a full disk) either, so it never touches the disk here. Each
 * variable also carries an FNV-1a checksum of its values. A run on a grid
 * file (&cryo_grid grid_file) records an FNV-1a checksum of the file's cell
 * centres and corners in global layout (grid_checksum): a continued run on
 * another grid of the same size is refused, one on the same cells whatever
 * its decomposition or the file's name is accepted. */
#include "cryo_restart.h"

#include "config.h" /* PACKAGE_VERSION */
#include "cryo_gridfile.h"
#include "cryo_impl.h"
#include "cryo_namelist.h"
#include "cryo_ncvar.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A failed NetCDF call on a restart (cryo_ncvar.h). */
#define NC_RST(c, expr, path, what) CRYO_NC((expr), &(c)->err, "restart %s: %s", (path), (what))

/* The last line of a restart: FNV-1a 64 of the bytes before it and their
 * count, e.g. "cryodyn-restart fnv1a-64 <16 hex digits> <20 decimal digits>\n". */
#define SEAL_MAGIC "cryodyn-restart fnv1a-64 "
#define SEAL_LEN   (sizeof SEAL_MAGIC - 1 + 16 + 1 + 20 + 1)

#define FNV_OFFSET 14695981039346656037ULL

static uint64_t fnv1a(uint64_t h, const void *bytes, size_t n) {
  const unsigned char *p = bytes;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static uint64_t checksum(const double *v, size_t n) {
  return fnv1a(FNV_OFFSET, v, n * sizeof *v);
}

void cryo_restart_name(const cryo_component *c, long long t, char *buf, int len) {
  cryo_date d = cryo_date_add(c->clock.start, t, c->clock.calendar);
  snprintf(buf, (size_t)len, "%s.%04d-%02d-%02d-%05d.nc", c->cfg.run.restart_out, d.year, d.month,
           d.day, d.hour * 3600 + d.minute * 60 + d.second);
}

static size_t global_points(const cryo_component *c, const cryo_field *f, size_t *gx, size_t *gy) {
  int node = f->loc == CRYO_AT_NODE;
  *gx = (size_t)c->grid.block.nx_global + node;
  *gy = (size_t)c->grid.block.ny_global + node;
  return *gx * *gy;
}

/* Dimension for `n` values per point, created on first use. */
static int level_dim(cryo_component *c, int ncid, int n, int *dim, const char *path) {
  char name[32];
  snprintf(name, sizeof name, "nlev%d", n);
  if (nc_inq_dimid(ncid, name, dim) == NC_NOERR) return CRYO_OK;
  NC_RST(c, nc_def_dim(ncid, name, (size_t)n, dim), path, name);
  return CRYO_OK;
}

/* FNV-1a 64 of a grid file's centres and corners in global layout (rank 0;
 * collective; 0 for the built-in box), as hex digits in hex[17]. */
static int grid_checksum(cryo_component *c, char hex[17]) {
  hex[0] = '\0';
  if (!c->gridfile) return CRYO_OK;
  const cryo_block *b = &c->grid.block;
  const size_t ncell = (size_t)b->nx_global * b->ny_global;
  double *global = c->rank == 0 ? malloc(sizeof(double) * 4 * ncell) : NULL;
  int ok = c->rank != 0 || global;
  CRYO_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, c->comm), "MPI_Bcast (restart grid checksum)", &c->err);
  CRYO_CHECK(ok, &c->err, CRYO_ERR_MEMORY, "out of memory for the restart's grid checksum");
  const cryo_gridfile *gf = c->gridfile;
  const double *local[4] = {gf->cell_x, gf->cell_y, gf->corner_x, gf->corner_y};
  uint64_t h = FNV_OFFSET;
  int status = CRYO_OK;
  for (int v = 0; v < 4 && status == CRYO_OK; ++v) {
    const int nlev = v < 2 ? 1 : 4;
    /* the centres in block layout, the corners as the reader keeps them */
    status = v < 2 ? cryo_grid_gather(&c->grid, CRYO_AT_CELL, nlev, local[v], global, &c->err)
                   : cryo_grid_gather_cells(&c->grid, nlev, local[v], gf->corner_first,
                                            gf->corner_row, global, &c->err);
    if (status == CRYO_OK && c->rank == 0)
      h = fnv1a(h, global, sizeof(double) * ncell * (size_t)nlev);
  }
  free(global);
  snprintf(hex, 17, "%016" PRIx64, h);
  return status;
}

static int write_header(cryo_component *c, int ncid, const char *path, const char *grid_sum) {
  const cryo_block *b = &c->grid.block;
  int dims[4];
  NC_RST(c, nc_def_dim(ncid, "x", (size_t)b->nx_global, &dims[0]), path, "x");
  NC_RST(c, nc_def_dim(ncid, "y", (size_t)b->ny_global, &dims[1]), path, "y");
  NC_RST(c, nc_def_dim(ncid, "x_node", (size_t)b->nx_global + 1, &dims[2]), path, "x_node");
  NC_RST(c, nc_def_dim(ncid, "y_node", (size_t)b->ny_global + 1, &dims[3]), path, "y_node");
  const char *model = c->model->name;
  char start[32];
  cryo_date_format(c->clock.start, start, sizeof start);
  long long t = c->clock.time, step = c->clock.step;
  NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "model", strlen(model), model), path, "model");
  NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "start", strlen(start), start), path, "start");
  NC_RST(c, nc_put_att_longlong(ncid, NC_GLOBAL, "time", NC_INT64, 1, &t), path, "time");
  NC_RST(c, nc_put_att_longlong(ncid, NC_GLOBAL, "step", NC_INT64, 1, &step), path, "step");
  NC_RST(c, nc_put_att_double(ncid, NC_GLOBAL, "dx", NC_DOUBLE, 1, &b->dx), path, "dx");
  NC_RST(c, nc_put_att_double(ncid, NC_GLOBAL, "dy", NC_DOUBLE, 1, &b->dy), path, "dy");
  NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "checksum", 8, "fnv1a-64"), path, "checksum");
  if (grid_sum[0]) {
    const char *file = c->cfg.grid.grid_file;
    NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "grid_file", strlen(file), file), path, "grid_file");
    NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "grid_checksum", 16, grid_sum), path,
           "grid_checksum");
  }
  const char *version = PACKAGE_VERSION;
  NC_RST(c, nc_put_att_text(ncid, NC_GLOBAL, "cryodyn_version", strlen(version), version), path,
         "version");
  return CRYO_OK;
}

static int write_field(cryo_component *c, int ncid, const cryo_field *f, const double *global,
                       const char *path) {
  size_t gx, gy;
  size_t n = global_points(c, f, &gx, &gy) * (size_t)f->nlev;
  int dims[3], var;
  NC_RST(c, nc_inq_dimid(ncid, f->loc == CRYO_AT_NODE ? "y_node" : "y", &dims[0]), path, "y");
  NC_RST(c, nc_inq_dimid(ncid, f->loc == CRYO_AT_NODE ? "x_node" : "x", &dims[1]), path, "x");
  CRYO_CALL(level_dim(c, ncid, f->nlev, &dims[2], path));
  NC_RST(c, nc_def_var(ncid, f->name, NC_DOUBLE, 3, dims, &var), path, f->name);
  char sum[24];
  snprintf(sum, sizeof sum, "%016" PRIx64, checksum(global, n));
  NC_RST(c, nc_put_att_text(ncid, var, "checksum", strlen(sum), sum), path, f->name);
  if (f->units)
    NC_RST(c, nc_put_att_text(ncid, var, "units", strlen(f->units), f->units), path, f->name);
  NC_RST(c, nc_put_var_double(ncid, var, global), path, f->name);
  return CRYO_OK;
}

static double *global_buffer(const cryo_component *c) {
  int maxlev = 1;
  for (int i = 0; i < c->nfields; ++i)
    if (c->fields[i].nlev > maxlev) maxlev = c->fields[i].nlev;
  size_t most = (size_t)(c->grid.block.nx_global + 1) * (c->grid.block.ny_global + 1);
  return malloc(most * (size_t)maxlev * sizeof(double));
}

/* Write all n bytes of buf to fd; 0 or the errno of the failure. */
static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

/* Rank 0: a restart replaces only a regular file of its name (an earlier
 * run's restart): renaming over anything else would delete a path this run
 * did not create. */
static int check_replaceable(cryo_component *c, const char *path) {
  struct stat st;
  CRYO_CHECK(lstat(path, &st) != 0 || S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
             "restart %s: exists and is not a regular file but %s: a restart replaces only a "
             "regular file; move it away or choose another restart_out",
             path, cryo_file_kind(st.st_mode));
  return CRYO_OK;
}

/* Rank 0: the NetCDF image and its checksum line into `tmp`, on the disk
 * (fsync) before the caller renames it. *made: this call created `tmp`, the
 * only case in which a failure may remove it. A regular `tmp` left by a run
 * killed while writing is reused; anything else of that name is refused and
 * left as it is. */
static int write_sealed(cryo_component *c, const char *tmp, const void *image, size_t n,
                        int *made) {
  char seal[SEAL_LEN + 1];
  snprintf(seal, sizeof seal, SEAL_MAGIC "%016" PRIx64 " %020" PRIu64 "\n",
           fnv1a(FNV_OFFSET, image, n), (uint64_t)n);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
  *made = fd >= 0;
  if (fd < 0 && errno == EEXIST) {
    struct stat st;
    CRYO_CHECK(lstat(tmp, &st) == 0, &c->err, CRYO_ERR_FILE, "restart %s: cannot inspect: %s", tmp,
               strerror(errno));
    CRYO_CHECK(S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
               "restart %s: exists and is not a regular file but %s: move it away or choose "
               "another restart_out",
               tmp, cryo_file_kind(st.st_mode));
    fd = open(tmp, O_WRONLY | O_TRUNC | O_NOFOLLOW);
  }
  CRYO_CHECK(fd >= 0, &c->err, CRYO_ERR_FILE, "restart %s: cannot create: %s", tmp,
             strerror(errno));
  int e = write_all(fd, image, n);
  if (!e) e = write_all(fd, seal, SEAL_LEN);
  if (!e && fsync(fd) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  CRYO_CHECK(!e, &c->err, CRYO_ERR_FILE, "restart %s: writing %zu bytes: %s", tmp, n + SEAL_LEN,
             strerror(e));
  return CRYO_OK;
}

/* Rank 0: the directory of `path` on the disk, so that a rename into it
 * survives a crash of the machine. */
static int sync_directory(cryo_component *c, const char *path) {
  char copy[CRYO_PATH_LEN + 80];
  snprintf(copy, sizeof copy, "%s", path);
  const char *dir = dirname(copy);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  CRYO_CHECK(fd >= 0, &c->err, CRYO_ERR_FILE, "restart %s: cannot open its directory %s: %s", path,
             dir, strerror(errno));
  /* EINVAL: a file system that cannot sync directories (fsync(2)). */
  int e = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
  close(fd);
  CRYO_CHECK(!e, &c->err, CRYO_ERR_FILE, "restart %s: syncing its directory %s: %s", path, dir,
             strerror(e));
  return CRYO_OK;
}

/* Rank 0: close the in-memory file `ncid` and write it as `path`; *made as
 * write_sealed sets it. */
static int write_image(cryo_component *c, int ncid, const char *tmp, const char *path, int *made) {
  NC_memio image = {0, NULL, 0};
  int s = nc_close_memio(ncid, &image);
  int status = s == NC_NOERR
                   ? check_replaceable(c, path)
                   : cryo_nc_error(s, CRYO_ERR_NETCDF, &c->err, "restart %s: closing", tmp);
  if (status == CRYO_OK) status = write_sealed(c, tmp, image.memory, image.size, made);
  free(image.memory);
  if (status == CRYO_OK && rename(tmp, path) != 0)
    status = CRYO_ERROR(&c->err, CRYO_ERR_FILE, "restart: cannot rename %s to %s: %s", tmp, path,
                        strerror(errno));
  if (status == CRYO_OK) status = sync_directory(c, path);
  return status;
}

int cryo_restart_write(cryo_component *c, const char *path) {
  char tmp[CRYO_PATH_LEN + 80];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int status = CRYO_OK, ncid = -1, made = 0;
  double *global = NULL;
  char grid_sum[17];
  status = grid_checksum(c, grid_sum);
  if (c->rank == 0 && status == CRYO_OK) {
    global = global_buffer(c);
    if (!global) status = CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory writing a restart");
    /* 1 MiB to start with; the image grows as variables are added. */
    int s = status == CRYO_OK ? nc_create_mem(tmp, NC_NETCDF4, 1 << 20, &ncid) : NC_NOERR;
    if (s != NC_NOERR)
      status =
          cryo_nc_error(s, CRYO_ERR_NETCDF, &c->err, "restart %s: cannot create in memory", tmp);
    if (status == CRYO_OK) status = write_header(c, ncid, tmp, grid_sum);
  }
  for (int i = 0; i < c->nfields; ++i) {
    cryo_field *f = &c->fields[i];
    if (f->role != CRYO_ROLE_PROGNOSTIC && !(f->role == CRYO_ROLE_PARAMETER && f->given)) continue;
    cryo_field_to_host(c, f);
    int s = cryo_grid_gather(&c->grid, f->loc, f->nlev, f->host, global, &c->err);
    if (status == CRYO_OK) status = s;
    if (c->rank == 0 && status == CRYO_OK) status = write_field(c, ncid, f, global, tmp);
  }
  if (c->rank == 0 && ncid >= 0) {
    if (status == CRYO_OK)
      status = write_image(c, ncid, tmp, path, &made);
    else
      nc_abort(ncid);
    if (status != CRYO_OK && made) unlink(tmp);
  }
  free(global);
  return cryo_status_from_root(c, status);
}

/* Rank 0: the whole file in memory, its checksum line verified; *n is the
 * size of the NetCDF image before that line. */
static int read_sealed(cryo_component *c, const char *path, unsigned char **image, size_t *n) {
  int fd = open(path, O_RDONLY);
  CRYO_CHECK(fd >= 0, &c->err, CRYO_ERR_FILE, "restart %s: cannot open: %s", path, strerror(errno));
  struct stat st;
  int e = fstat(fd, &st) != 0 ? errno : 0;
  size_t size = e ? 0 : (size_t)st.st_size;
  unsigned char *buf = e ? NULL : malloc(size + 1); /* + 1: an empty file is no failure here */
  if (!e && !buf) e = ENOMEM;
  for (size_t got = 0; !e && got < size;) {
    ssize_t k = read(fd, buf + got, size - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) e = k < 0 ? errno : EIO;
    got += k > 0 ? (size_t)k : 0;
  }
  close(fd);
  *image = buf;
  CRYO_CHECK(!e, &c->err, CRYO_ERR_FILE, "restart %s: reading %zu bytes: %s", path, size,
             strerror(e));
  CRYO_CHECK(size > SEAL_LEN, &c->err, CRYO_ERR_CHECKSUM,
             "restart %s: %zu bytes, too short for a restart: the file is corrupt or truncated",
             path, size);
  const char *seal = (const char *)buf + size - SEAL_LEN;
  int ok = !memcmp(seal, SEAL_MAGIC, sizeof SEAL_MAGIC - 1) && seal[SEAL_LEN - 1] == '\n';
  const char *hex = seal + sizeof SEAL_MAGIC - 1, *count = hex + 17;
  for (int i = 0; ok && i < 16; ++i)
    ok = (hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f');
  ok = ok && hex[16] == ' ';
  for (int i = 0; ok && i < 20; ++i)
    ok = count[i] >= '0' && count[i] <= '9';
  CRYO_CHECK(ok, &c->err, CRYO_ERR_CHECKSUM,
             "restart %s: no cryodyn checksum line at its end: the file is corrupt or truncated, "
             "or not a cryodyn restart",
             path);
  uint64_t stored = strtoull(hex, NULL, 16), bytes = strtoull(count, NULL, 10);
  *n = size - SEAL_LEN;
  CRYO_CHECK(bytes == *n, &c->err, CRYO_ERR_CHECKSUM,
             "restart %s: its checksum line counts %" PRIu64
             " bytes before it, the file holds %zu: "
             "the file is corrupt or truncated",
             path, bytes, *n);
  uint64_t actual = fnv1a(FNV_OFFSET, buf, *n);
  CRYO_CHECK(actual == stored, &c->err, CRYO_ERR_CHECKSUM,
             "restart %s: checksum of its bytes %016" PRIx64 ", recorded %016" PRIx64
             ": the file is corrupt or truncated",
             path, actual, stored);
  return CRYO_OK;
}

/* Rank 0: the restart's grid (its grid_checksum, none for the built-in
 * box) is this run's (grid_sum, "" for the box). */
static int check_grid(cryo_component *c, int ncid, const char *path, const char *grid_sum) {
  char stored[17] = {0}, file[CRYO_PATH_LEN] = {0};
  size_t len = 0, flen = 0;
  const int has = nc_inq_attlen(ncid, NC_GLOBAL, "grid_checksum", &len) == NC_NOERR && len == 16 &&
                  nc_get_att_text(ncid, NC_GLOBAL, "grid_checksum", stored) == NC_NOERR;
  if (nc_inq_attlen(ncid, NC_GLOBAL, "grid_file", &flen) == NC_NOERR && flen < sizeof file)
    nc_get_att_text(ncid, NC_GLOBAL, "grid_file", file);
  CRYO_CHECK(has || !grid_sum[0], &c->err, CRYO_ERR_FORMAT,
             "restart %s: written on the built-in box, this run is on &cryo_grid grid_file '%s'",
             path, c->cfg.grid.grid_file);
  CRYO_CHECK(!has || grid_sum[0], &c->err, CRYO_ERR_FORMAT,
             "restart %s: written on grid_file '%s', this run is on the built-in box (no "
             "&cryo_grid grid_file)",
             path, file);
  CRYO_CHECK(!has || !strcmp(stored, grid_sum), &c->err, CRYO_ERR_FORMAT,
             "restart %s: written on another grid: its cells' centres and corners (grid_file '%s' "
             "then) have checksum %s, those of this run's grid_file '%s' %s",
             path, file, stored, c->cfg.grid.grid_file, grid_sum);
  return CRYO_OK;
}

/* Rank 0: open the verified image and check its header against this run. */
static int read_header(cryo_component *c, const char *path, unsigned char *image, size_t n,
                       int *ncid, long long *t, long long *step, const char *grid_sum) {
  int s = nc_open_mem(path, NC_NOWRITE, n, image, ncid);
  if (s != NC_NOERR) {
    *ncid = -1;
    return cryo_nc_error(s, CRYO_ERR_FORMAT, &c->err, "restart %s: cannot open", path);
  }
  char text[128] = {0};
  size_t len = 0;
  s = nc_inq_attlen(*ncid, NC_GLOBAL, "model", &len);
  CRYO_CHECK(s == NC_NOERR && len < sizeof text, &c->err, CRYO_ERR_MISSING,
             "restart %s: no 'model' attribute: not a cryodyn restart", path);
  NC_RST(c, nc_get_att_text(*ncid, NC_GLOBAL, "model", text), path, "model");
  CRYO_CHECK(!strcmp(text, c->model->name), &c->err, CRYO_ERR_FORMAT,
             "restart %s: written by model '%s', this run is '%s'", path, text, c->model->name);
  memset(text, 0, sizeof text);
  s = nc_inq_attlen(*ncid, NC_GLOBAL, "start", &len);
  CRYO_CHECK(s == NC_NOERR && len < sizeof text, &c->err, CRYO_ERR_MISSING,
             "restart %s: no 'start' attribute", path);
  NC_RST(c, nc_get_att_text(*ncid, NC_GLOBAL, "start", text), path, "start");
  char start[32];
  cryo_date_format(c->clock.start, start, sizeof start);
  CRYO_CHECK(!strcmp(text, start), &c->err, CRYO_ERR_FORMAT,
             "restart %s: run start '%s' differs from the namelist's start '%s'", path, text,
             start);
  s = nc_get_att_longlong(*ncid, NC_GLOBAL, "time", t);
  CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_MISSING, "restart %s: no 'time' attribute", path);
  s = nc_get_att_longlong(*ncid, NC_GLOBAL, "step", step);
  CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_MISSING, "restart %s: no 'step' attribute", path);
  CRYO_CALL(check_grid(c, *ncid, path, grid_sum));
  const char *names[2] = {"x", "y"};
  int want[2] = {c->grid.block.nx_global, c->grid.block.ny_global};
  for (int d = 0; d < 2; ++d) {
    int dim;
    size_t n = 0;
    s = nc_inq_dimid(*ncid, names[d], &dim);
    CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_MISSING, "restart %s: no dimension '%s'", path,
               names[d]);
    nc_inq_dimlen(*ncid, dim, &n);
    CRYO_CHECK((int)n == want[d], &c->err, CRYO_ERR_FORMAT,
               "restart %s: grid has %s = %zu cells, the namelist says %d", path, names[d], n,
               want[d]);
  }
  const char *spacing[2] = {"dx", "dy"};
  double size[2] = {c->grid.block.dx, c->grid.block.dy};
  for (int d = 0; d < 2; ++d) {
    double stored = 0;
    s = nc_get_att_double(*ncid, NC_GLOBAL, spacing[d], &stored);
    CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_MISSING, "restart %s: no '%s' attribute", path,
               spacing[d]);
    /* Exact: a continued run is bit for bit only on the very same grid. */
    CRYO_CHECK(stored == size[d], &c->err, CRYO_ERR_FORMAT,
               "restart %s: grid has %s = %.17g m, the namelist says %.17g m", path, spacing[d],
               stored, size[d]);
  }
  CRYO_CHECK(*t >= 0 && *t < c->clock.run_length && *t % c->clock.interval == 0, &c->err,
             CRYO_ERR_RANGE,
             "restart %s: time %lld s is not a coupling time before the end of the run (%lld s)",
             path, *t, c->clock.run_length);
  return CRYO_OK;
}

/* Rank 0: read one field with its size and checksum checked. */
static int read_field(cryo_component *c, int ncid, const cryo_field *f, double *global,
                      const char *path) {
  int var, ndims, dims[NC_MAX_VAR_DIMS];
  int s = nc_inq_varid(ncid, f->name, &var);
  CRYO_CHECK(s == NC_NOERR, &c->err, CRYO_ERR_MISSING, "restart %s: variable '%s' is missing", path,
             f->name);
  NC_RST(c, nc_inq_varndims(ncid, var, &ndims), path, f->name);
  size_t gx, gy;
  global_points(c, f, &gx, &gy);
  size_t want[3] = {gy, gx, (size_t)f->nlev};
  CRYO_CHECK(ndims == 3, &c->err, CRYO_ERR_FORMAT,
             "restart %s: variable '%s' has %d dimensions, expected 3", path, f->name, ndims);
  NC_RST(c, nc_inq_vardimid(ncid, var, dims), path, f->name);
  for (int d = 0; d < 3; ++d) {
    size_t n = 0;
    nc_inq_dimlen(ncid, dims[d], &n);
    CRYO_CHECK(n == want[d], &c->err, CRYO_ERR_FORMAT,
               "restart %s: variable '%s' dimension %d has %zu values, expected %zu", path, f->name,
               d, n, want[d]);
  }
  NC_RST(c, nc_get_var_double(ncid, var, global), path, f->name);
  char stored[40] = {0}, actual[24];
  size_t len = 0;
  s = nc_inq_attlen(ncid, var, "checksum", &len);
  CRYO_CHECK(s == NC_NOERR && len < sizeof stored, &c->err, CRYO_ERR_MISSING,
             "restart %s: variable '%s' has no checksum", path, f->name);
  NC_RST(c, nc_get_att_text(ncid, var, "checksum", stored), path, f->name);
  snprintf(actual, sizeof actual, "%016" PRIx64, checksum(global, gx * gy * (size_t)f->nlev));
  CRYO_CHECK(!strcmp(stored, actual), &c->err, CRYO_ERR_CHECKSUM,
             "restart %s: variable '%s' fails its checksum (stored %s, data %s): the file is "
             "corrupt",
             path, f->name, stored, actual);
  return CRYO_OK;
}

int cryo_restart_read(cryo_component *c, const char *path) {
  int status = CRYO_OK, ncid = -1;
  long long clock[2] = {0, 0};
  double *global = NULL;
  unsigned char *image = NULL;
  char grid_sum[17];
  status = grid_checksum(c, grid_sum);
  if (c->rank == 0 && status == CRYO_OK) {
    size_t n = 0;
    global = global_buffer(c);
    status = global ? read_sealed(c, path, &image, &n)
                    : CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory reading a restart");
    if (status == CRYO_OK)
      status = read_header(c, path, image, n, &ncid, &clock[0], &clock[1], grid_sum);
  }
  status = cryo_status_from_root(c, status);
  for (int i = 0; i < c->nfields && status == CRYO_OK; ++i) {
    cryo_field *f = &c->fields[i];
    if (f->role != CRYO_ROLE_PROGNOSTIC && f->role != CRYO_ROLE_PARAMETER) continue;
    /* a parameter field the restart does not hold was uniform when it was
     * written: this run's own value stands */
    int held = f->role == CRYO_ROLE_PROGNOSTIC;
    if (c->rank == 0 && !held) held = nc_inq_varid(ncid, f->name, &(int){0}) == NC_NOERR;
    status =
        cryo_mpi_check(MPI_Bcast(&held, 1, MPI_INT, 0, c->comm), "MPI_Bcast (restart)", &c->err);
    if (status != CRYO_OK) break;
    if (!held) continue;
    f->given = 1;
    if (c->rank == 0) status = read_field(c, ncid, f, global, path);
    status = cryo_status_from_root(c, status);
    if (status != CRYO_OK) break;
    status = cryo_status_agree(
        c, cryo_grid_scatter(&c->grid, f->loc, f->nlev, global, f->host, &c->err));
    if (status != CRYO_OK) break;
    cryo_field_to_device(c, f);
    status = cryo_status_agree(c, cryo_field_halo(c, f));
  }
  if (ncid >= 0) nc_close(ncid);
  free(image);
  free(global);
  if (status != CRYO_OK) return status;
  CRYO_MPI(MPI_Bcast(clock, 2, MPI_LONG_LONG, 0, c->comm), "MPI_Bcast (restart clock)", &c->err);
  c->clock.time = clock[0];
  c->clock.step = clock[1];
  return CRYO_OK;
}
