/* mpi-run ranks: 1 2 (tests/mpi-run runs this program once per count) */
/* Restart files (namelists/README.md, Restart files): a write/read round trip is bit
 * for bit, and truncated, wrong-size, missing-variable, corrupted and absent
 * restarts are each refused with their own error class and a message naming
 * the file and the problem. Every single-byte flip of a restart (every 11th
 * byte) is refused by the whole-file checksum before NetCDF reads a byte, so
 * none can crash or hang the process. A failed write (directory missing, disk
 * full, file-size limit) leaves neither a partial restart nor its temporary
 * file; a complete one is flushed to the disk before its rename and the
 * directory after it. Run on 1 and 2 ranks. */
#include "cryo_impl.h"
#include "cryo_restart.h"
#include "cryo_test.h"
#include "test_component.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netcdf.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rank;
static const char *good_restart = "rst_a.2000-01-01-02400.nc";

/* Run 2400 s writing rst_a.* at the end, and keep the end state of u and h. */
static void make_restart(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 2400, "restart_out = 'rst_a'");
  test_write_file(MPI_COMM_WORLD, "rst_a.nml", nml);
  CU_ASSERT_EQUAL_FATAL(test_run("rst_a.nml", MPI_COMM_WORLD), CRYO_OK);
}

/* init from `restart` on a 16 x 12 (or nx x 12) grid; status and message. */
static int init_from(const char *restart, int nx, char *msg, size_t len) {
  char extra[256], nml[1024];
  snprintf(extra, sizeof extra, "restart_in = '%s'", restart);
  test_seaice_namelist(nml, sizeof nml, nx, 12, 4800, extra);
  test_write_file(MPI_COMM_WORLD, "rst_in.nml", nml);
  cryo_component *c = NULL;
  int status = cryo_init(&c, "rst_in.nml", MPI_COMM_WORLD);
  snprintf(msg, len, "%s", cryo_last_error(c));
  if (status == CRYO_OK && cryo_get_time(c) != 2400) status = -1;
  cryo_finalize(&c);
  return status;
}

static void test_round_trip(void) {
  make_restart();
  /* Read it back and write it again at once: the same bytes in every variable. */
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800,
                       "restart_in = 'rst_a.2000-01-01-02400.nc', restart_out = 'rst_b'");
  test_write_file(MPI_COMM_WORLD, "rst_b.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "rst_b.nml", MPI_COMM_WORLD), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_get_time(c), 2400);
  CU_ASSERT_EQUAL(cryo_finalize(&c), CRYO_OK); /* nothing run: no restart due */
  if (rank == 0) CU_ASSERT_EQUAL(access("rst_b.2000-01-01-02400.nc", F_OK), -1);
  char msg[1024];
  CU_ASSERT_EQUAL(init_from(good_restart, 16, msg, sizeof msg), CRYO_OK);
}

/* The whole file, read on the calling rank; *n gets its size. */
static unsigned char *slurp(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)*n);
  CU_ASSERT_EQUAL(fread(buf, 1, (size_t)*n, f), (size_t)*n);
  fclose(f);
  return buf;
}

static void spill(const char *path, const unsigned char *buf, long n) {
  FILE *f = fopen(path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(fwrite(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
}

/* Append the checksum line of namelists/README.md ("Restart files") to a
 * file made here with the NetCDF library, as cryodyn does to its restarts:
 * FNV-1a 64 of every byte before it, in hex, and their count. */
static void seal(const char *path) {
  long n;
  unsigned char *buf = slurp(path, &n);
  uint64_t h = 14695981039346656037ULL;
  for (long i = 0; i < n; ++i)
    h = (h ^ buf[i]) * 1099511628211ULL;
  free(buf);
  FILE *f = fopen(path, "ab");
  fprintf(f, "cryodyn-restart fnv1a-64 %016" PRIx64 " %020ld\n", h, n);
  fclose(f);
}

/* Copy src to dst leaving out variable `skip` (NULL: none); change value 0
 * of variable `poke` (NULL: none). */
static void copy_restart(const char *src, const char *dst, const char *skip, const char *poke) {
  if (rank == 0) {
    int in, out, nvars, ndims, natts;
    CU_ASSERT_EQUAL_FATAL(nc_open(src, NC_NOWRITE, &in), NC_NOERR);
    nc_create(dst, NC_NETCDF4 | NC_CLOBBER, &out);
    nc_inq(in, &ndims, &nvars, &natts, NULL);
    for (int d = 0; d < ndims; ++d) {
      char name[NC_MAX_NAME + 1];
      size_t len;
      int id;
      nc_inq_dim(in, d, name, &len);
      nc_def_dim(out, name, len, &id);
    }
    for (int a = 0; a < natts; ++a) {
      char name[NC_MAX_NAME + 1];
      nc_inq_attname(in, NC_GLOBAL, a, name);
      nc_copy_att(in, NC_GLOBAL, name, out, NC_GLOBAL);
    }
    for (int v = 0; v < nvars; ++v) {
      char name[NC_MAX_NAME + 1];
      nc_type type;
      int dims[8], nd, na, id;
      nc_inq_var(in, v, name, &type, &nd, dims, &na);
      if (skip && !strcmp(name, skip)) continue;
      nc_def_var(out, name, type, nd, dims, &id);
      for (int a = 0; a < na; ++a) {
        char an[NC_MAX_NAME + 1];
        nc_inq_attname(in, v, a, an);
        nc_copy_att(in, v, an, out, id);
      }
      size_t n = 1, len;
      for (int d = 0; d < nd; ++d)
        nc_inq_dimlen(in, dims[d], &len), n *= len;
      double *x = malloc(n * sizeof *x);
      nc_get_var_double(in, v, x);
      if (poke && !strcmp(name, poke)) x[0] += 1e-12;
      nc_put_var_double(out, id, x);
      free(x);
    }
    nc_close(in);
    nc_close(out);
    seal(dst);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void truncate_copy(const char *src, const char *dst) {
  if (rank == 0) {
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    CU_ASSERT_EQUAL(fread(buf, 1, (size_t)n, in), (size_t)n);
    fwrite(buf, 1, (size_t)(n / 2), out);
    free(buf);
    fclose(in);
    fclose(out);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void expect(const char *restart, int nx, int status, const char *needle) {
  char msg[1024];
  int got = init_from(restart, nx, msg, sizeof msg);
  CU_ASSERT_EQUAL(got, status);
  if (status != CRYO_OK) CU_ASSERT_PTR_NOT_NULL(strstr(msg, restart));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
  if (got != status || !strstr(msg, needle))
    fprintf(stderr, "%s: got %s: %s\n", restart, cryo_status_name(got), msg);
}

static void test_bad_restarts(void) {
  expect("rst_none.nc", 16, CRYO_ERR_FILE, "No such file");
  truncate_copy(good_restart, "rst_trunc.nc");
  expect("rst_trunc.nc", 16, CRYO_ERR_CHECKSUM, "corrupt or truncated");
  if (rank == 0) { /* a valid NetCDF file without the checksum line */
    int ncid, dim;
    nc_create("rst_unsealed.nc", NC_NETCDF4 | NC_CLOBBER, &ncid);
    nc_def_dim(ncid, "x", 16, &dim);
    nc_close(ncid);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect("rst_unsealed.nc", 16, CRYO_ERR_CHECKSUM, "no cryodyn checksum");
  expect(good_restart, 16, CRYO_OK, "");
  expect(good_restart, 20, CRYO_ERR_FORMAT, "x = 16 cells, the namelist says 20");
  copy_restart(good_restart, "rst_nos12.nc", "s12", NULL);
  expect("rst_nos12.nc", 16, CRYO_ERR_MISSING, "'s12' is missing");
  copy_restart(good_restart, "rst_poke.nc", NULL, "h");
  expect("rst_poke.nc", 16, CRYO_ERR_CHECKSUM, "'h' fails its checksum");
  copy_restart(good_restart, "rst_copy.nc", NULL, NULL);
  expect("rst_copy.nc", 16, CRYO_OK, "");
}

/* A missing directory is found at init, before the run, and named. */
static void test_failed_write(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200, "restart_out = 'no/such/dir/rst'");
  test_write_file(MPI_COMM_WORLD, "rst_bad.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL(cryo_init(&c, "rst_bad.nml", MPI_COMM_WORLD), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_last_error(c), "restart_out 'no/such/dir/rst': directory "
                                                    "'no/such/dir' does not exist"));
  cryo_finalize(&c);
}

/* Every 11th byte of a good restart xor 0xFF, each read through
 * cryo_restart_read on one component of rank 0 alone: every copy refused as
 * corrupt, none crashes or hangs (the alarm turns a hang into a failure). */
static void test_flip_sweep(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800, "");
  test_write_file(MPI_COMM_WORLD, "rst_flip.nml", nml);
  if (rank != 0) return;
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "rst_flip.nml", MPI_COMM_SELF), CRYO_OK);
  long n = 0;
  unsigned char *good = slurp(good_restart, &n);
  spill("rst_flip.nc", good, n);
  /* One byte changed in place and back: no rewrite of the whole file, which
   * some file systems flush to the disk at every close. */
  int fd = open("rst_flip.nc", O_WRONLY);
  int flips = 0, refused = 0;
  alarm(60);
  for (long at = 0; at < n; at += 11, ++flips) {
    unsigned char flipped = good[at] ^ 0xFF;
    CU_ASSERT_EQUAL(pwrite(fd, &flipped, 1, at), 1);
    int status = cryo_restart_read(c, "rst_flip.nc");
    const char *msg = cryo_last_error(c);
    if (status == CRYO_ERR_CHECKSUM && strstr(msg, "restart rst_flip.nc") &&
        strstr(msg, "corrupt or truncated"))
      ++refused;
    else
      fprintf(stderr, "byte %ld flipped: %s: %s\n", at, cryo_status_name(status), msg);
    CU_ASSERT_EQUAL(pwrite(fd, good + at, 1, at), 1);
  }
  alarm(0);
  close(fd);
  CU_ASSERT(flips > 1000);
  CU_ASSERT_EQUAL(refused, flips);
  free(good);
  cryo_finalize(&c);
}

/* The same cells (16 x 12) of another size: refused, naming both sizes. */
static void test_other_spacing(void) {
  char extra[256], nml[1024];
  snprintf(extra, sizeof extra, "restart_in = '%s'", good_restart);
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800, extra);
  char *dx = strstr(nml, "dx = 32000,");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dx);
  memcpy(dx, "dx = 16000,", 11);
  test_write_file(MPI_COMM_WORLD, "rst_dx.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL(cryo_init(&c, "rst_dx.nml", MPI_COMM_WORLD), CRYO_ERR_FORMAT);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, good_restart));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "dx = 32000 m, the namelist says 16000 m"));
  if (!strstr(msg, "dx = 32000 m")) fprintf(stderr, "other dx: %s\n", msg);
  cryo_finalize(&c);
}

/* What the library asks of the disk, recorded by the fsync and rename below
 * (a program's own definitions take precedence over the C library's). */
static char events[8][2 * CRYO_PATH_LEN];
static int nevents;

static void record(const char *what, const char *a, const char *b) {
  if (nevents < 8)
    snprintf(events[nevents++], sizeof events[0], "%s %s%s%s", what, a, b ? " " : "", b ? b : "");
}

int fsync(int fd) {
  char link[64], target[CRYO_PATH_LEN] = "";
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = readlink(link, target, sizeof target - 1);
  target[k > 0 ? k : 0] = '\0';
  const char *at = strstr(target, "rst_dir");
  if (at) record("fsync", at, NULL);
  return (int)syscall(SYS_fsync, fd);
}

/* A full disk for the temporary files of restart_out = 'rst_full': write()
 * fails there with ENOSPC, and everywhere else is the system's. */
ssize_t write(int fd, const void *buf, size_t n) {
  char link[64], target[CRYO_PATH_LEN] = "";
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = fd > 2 ? readlink(link, target, sizeof target - 1) : -1;
  target[k > 0 ? k : 0] = '\0';
  if (strstr(target, "rst_full.") && strstr(target, ".nc.tmp")) {
    errno = ENOSPC;
    return -1;
  }
  return (ssize_t)syscall(SYS_write, fd, buf, n);
}

int rename(const char *from, const char *to) {
  if (strstr(from, "rst_dir")) record("rename", from, to);
  return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

/* The restart is on the disk before it gets its name, and the name is on
 * the disk after the rename. */
static void test_durable_write(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200, "restart_out = 'rst_dir/d'");
  test_write_file(MPI_COMM_WORLD, "rst_d.nml", nml);
  if (rank == 0) mkdir("rst_dir", 0755);
  nevents = 0;
  CU_ASSERT_EQUAL_FATAL(test_run("rst_d.nml", MPI_COMM_WORLD), CRYO_OK);
  if (rank != 0) return;
  const char *want[3] = {"fsync rst_dir/d.2000-01-01-01200.nc.tmp",
                         "rename rst_dir/d.2000-01-01-01200.nc.tmp rst_dir/d.2000-01-01-01200.nc",
                         "fsync rst_dir"};
  CU_ASSERT_EQUAL(nevents, 3);
  for (int i = 0; i < 3; ++i) {
    CU_ASSERT_STRING_EQUAL(i < nevents ? events[i] : "", want[i]);
    if (i >= nevents || strcmp(events[i], want[i]))
      fprintf(stderr, "event %d: '%s', expected '%s'\n", i, i < nevents ? events[i] : "", want[i]);
  }
}

/* Run 1200 s writing restart `prefix` and expect the write to fail with
 * `needle` in the message, leaving no file of that name behind. */
static void expect_failed_write(const char *prefix, const char *needle) {
  char extra[256], nml[1024], tmp[256];
  snprintf(extra, sizeof extra, "restart_out = '%s'", prefix);
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200, extra);
  test_write_file(MPI_COMM_WORLD, "rst_fail.nml", nml);
  snprintf(tmp, sizeof tmp, "%s.2000-01-01-01200.nc.tmp", prefix);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "rst_fail.nml", MPI_COMM_WORLD), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_ERR_FILE);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, tmp));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
  if (!strstr(msg, needle)) fprintf(stderr, "%s: %s\n", prefix, msg);
  cryo_finalize(&c);
  struct stat st;
  if (rank == 0) {
    CU_ASSERT_EQUAL(lstat(tmp, &st), -1);
    tmp[strlen(tmp) - 4] = '\0';
    CU_ASSERT_EQUAL(lstat(tmp, &st), -1);
  }
}

/* A full disk (write above) and a file-size limit hit half-way through the
 * file: each named, nothing left behind. A temporary name that is a link
 * (here to /dev/full) was not made by the run: refused, and left as it is. */
static void test_disk_full(void) {
  expect_failed_write("rst_full", "No space left on device");
  const char *link = "rst_link.2000-01-01-01200.nc.tmp";
  if (rank == 0) CU_ASSERT_EQUAL(symlink("/dev/full", link), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200, "restart_out = 'rst_link'");
  test_write_file(MPI_COMM_WORLD, "rst_link.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "rst_link.nml", MPI_COMM_WORLD), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_ERR_FILE);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, link));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not a regular file but a symbolic link"));
  if (!strstr(msg, "symbolic link")) fprintf(stderr, "rst_link: %s\n", msg);
  cryo_finalize(&c);
  struct stat st;
  if (rank == 0) {
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(link);
  }
  struct rlimit was, small;
  getrlimit(RLIMIT_FSIZE, &was);
  small = was;
  small.rlim_cur = 4096;
  signal(SIGXFSZ, SIG_IGN); /* write() then fails with EFBIG */
  setrlimit(RLIMIT_FSIZE, &small);
  expect_failed_write("rst_big", "File too large");
  setrlimit(RLIMIT_FSIZE, &was);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"write and read back", test_round_trip},
                         {"bad restarts refused", test_bad_restarts},
                         {"failed write", test_failed_write},
                         {"every byte flip refused", test_flip_sweep},
                         {"other cell size refused", test_other_spacing},
                         {"durable write", test_durable_write},
                         {"disk full", test_disk_full},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("restart", tests);
  return cryo_test_run();
}
