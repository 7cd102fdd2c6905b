/* mpi-run ranks: 1 4 (tests/mpi-run runs this program once per count) */
/* NetCDF output (namelists/README.md, Output file): CF-1.8 attributes, coordinates
 * and the time axis, and the field gathered from 4 ranks bit-identical to 1
 * rank (the 1-rank run uses a communicator of rank 0 alone). A full disk or
 * a file-size limit is an error naming the file and the reason, with no crash
 * at exit: a file that could not be created is removed, one that fails later
 * keeps its complete records. A run continued from a restart appends to the
 * output of the run it continues: 2N steps equal N + restart + N steps in
 * every record, with none lost, repeated or off the output times. An output
 * file or restart that would overwrite an input (by name, link or a later
 * restart's name) and a missing output directory are refused before
 * anything is written, naming both namelist keys or the directory. */
#include "cryo_test.h"
#include "test_component.h"

#include <math.h>
#include <netcdf.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, size;

static int text_att(int ncid, int var, const char *name, const char *want) {
  char buf[256] = {0};
  size_t len = 0;
  if (nc_inq_attlen(ncid, var, name, &len) != NC_NOERR || len >= sizeof buf) return 0;
  nc_get_att_text(ncid, var, name, buf);
  return want ? strcmp(buf, want) == 0 : 1;
}

static void test_cf_attributes(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 2400,
                       "output_interval = 1200, output_file = 'out_cf.nc'");
  test_write_file(MPI_COMM_WORLD, "out_cf.nml", nml);
  CU_ASSERT_EQUAL_FATAL(test_run("out_cf.nml", MPI_COMM_WORLD), CRYO_OK);
  if (rank != 0) return;
  int ncid, var, dim;
  size_t len;
  CU_ASSERT_EQUAL_FATAL(nc_open("out_cf.nc", NC_NOWRITE, &ncid), NC_NOERR);
  CU_ASSERT(text_att(ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  CU_ASSERT(text_att(ncid, NC_GLOBAL, "namelist", NULL));
  CU_ASSERT(text_att(ncid, NC_GLOBAL, "source", NULL));
  CU_ASSERT_EQUAL(nc_inq_varid(ncid, "time", &var), NC_NOERR);
  CU_ASSERT(text_att(ncid, var, "units", "seconds since 2000-01-01 00:00:00"));
  CU_ASSERT(text_att(ncid, var, "calendar", "proleptic_gregorian"));
  nc_inq_dimid(ncid, "time", &dim);
  nc_inq_dimlen(ncid, dim, &len);
  CU_ASSERT_EQUAL(len, 3); /* t = 0, 1200, 2400 */
  double t[3];
  nc_get_var_double(ncid, var, t);
  CU_ASSERT(t[0] == 0 && t[1] == 1200 && t[2] == 2400);
  CU_ASSERT_EQUAL(nc_inq_varid(ncid, "x", &var), NC_NOERR);
  CU_ASSERT(text_att(ncid, var, "units", "m"));
  double x[16];
  nc_get_var_double(ncid, var, x);
  CU_ASSERT_DOUBLE_EQUAL(x[0], 16000.0, 1e-9); /* cell centre of a 32 km cell */
  CU_ASSERT_DOUBLE_EQUAL(x[15], 496000.0, 1e-9);
  struct {
    const char *name, *std, *units;
  } want[] = {{"u", "sea_ice_x_velocity", "m s-1"},
              {"v", "sea_ice_y_velocity", "m s-1"},
              {"a", "sea_ice_area_fraction", "1"},
              {"h", "sea_ice_thickness", "m"}};
  for (int k = 0; k < 4; ++k) {
    CU_ASSERT_EQUAL(nc_inq_varid(ncid, want[k].name, &var), NC_NOERR);
    CU_ASSERT(text_att(ncid, var, "standard_name", want[k].std));
    CU_ASSERT(text_att(ncid, var, "units", want[k].units));
    CU_ASSERT(text_att(ncid, var, "long_name", NULL));
  }
  /* Initial thickness is the benchmark's 0.3 + 0.005 (sin(6e-5 x) + sin(3e-5 y)). */
  nc_inq_varid(ncid, "h", &var);
  size_t start[3] = {0, 5, 7}, count[3] = {1, 1, 1};
  double h;
  nc_get_vara_double(ncid, var, start, count, &h);
  double xc = 7.5 * 32000.0, yc = 5.5 * 512000.0 / 12;
  CU_ASSERT_DOUBLE_EQUAL(h, 0.3 + 0.005 * (sin(6e-5 * xc) + sin(3e-5 * yc)), 1e-15);
  nc_close(ncid);
}

static int compare_files(const char *a, const char *b) {
  int na, nb, nvars, differ = 0;
  if (nc_open(a, NC_NOWRITE, &na) != NC_NOERR || nc_open(b, NC_NOWRITE, &nb) != NC_NOERR) return -1;
  nc_inq_nvars(na, &nvars);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims, dims[8], vb;
    size_t n = 1, len;
    nc_inq_var(na, v, name, &type, &ndims, dims, NULL);
    if (type != NC_DOUBLE) continue;
    for (int d = 0; d < ndims; ++d)
      nc_inq_dimlen(na, dims[d], &len), n *= len;
    double *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y);
    nc_get_var_double(na, v, x);
    if (nc_inq_varid(nb, name, &vb) != NC_NOERR || nc_get_var_double(nb, vb, y) != NC_NOERR ||
        memcmp(x, y, n * sizeof *x))
      ++differ, fprintf(stderr, "variable %s differs\n", name);
    free(x), free(y);
  }
  nc_close(na);
  nc_close(nb);
  return differ;
}

static void test_gathered_equals_serial(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 24, 20, 2400,
                       "output_interval = 1200, output_file = 'out_n.nc'");
  test_write_file(MPI_COMM_WORLD, "out_n.nml", nml);
  test_seaice_namelist(nml, sizeof nml, 24, 20, 2400,
                       "output_interval = 1200, output_file = 'out_1.nc'");
  test_write_file(MPI_COMM_WORLD, "out_1.nml", nml);
  MPI_Comm alone;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &alone);
  if (rank == 0) CU_ASSERT_EQUAL(test_run("out_1.nml", alone), CRYO_OK);
  if (alone != MPI_COMM_NULL) MPI_Comm_free(&alone);
  CU_ASSERT_EQUAL(test_run("out_n.nml", MPI_COMM_WORLD), CRYO_OK);
  if (rank == 0) CU_ASSERT_EQUAL(compare_files("out_1.nc", "out_n.nc"), 0);
}

static size_t records(const char *path) {
  int ncid, dim;
  size_t n = 0;
  if (nc_open(path, NC_NOWRITE, &ncid) != NC_NOERR) return 0;
  if (nc_inq_dimid(ncid, "time", &dim) == NC_NOERR) nc_inq_dimlen(ncid, dim, &n);
  nc_close(ncid);
  return n;
}

/* Output every 2400 s over 4800 s. The first run stops at 3600 s (as if it
 * crashed there) with restarts every 1200 s; the second continues from the
 * one at 1200 s, which is not an output time: the records after it are
 * replaced, none is added at 1200 s. */
static void test_continued(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800,
                       "output_interval = 2400, output_file = 'out_all.nc'");
  test_write_file(MPI_COMM_WORLD, "out_all.nml", nml);
  CU_ASSERT_EQUAL_FATAL(test_run("out_all.nml", MPI_COMM_WORLD), CRYO_OK);
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800,
                       "output_interval = 2400, output_file = 'out_cont.nc',\n"
                       "  restart_out = 'out_rst', restart_interval = 1200");
  test_write_file(MPI_COMM_WORLD, "out_first.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "out_first.nml", MPI_COMM_WORLD), CRYO_OK);
  for (int i = 0; i < 3; ++i)
    CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_finalize(&c), CRYO_OK);
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800,
                       "output_interval = 2400, output_file = 'out_cont.nc',\n"
                       "  restart_out = 'out_rst', restart_interval = 1200,\n"
                       "  restart_in = 'out_rst.2000-01-01-01200.nc'");
  test_write_file(MPI_COMM_WORLD, "out_second.nml", nml);
  CU_ASSERT_EQUAL_FATAL(test_run("out_second.nml", MPI_COMM_WORLD), CRYO_OK);
  if (rank != 0) return;
  CU_ASSERT_EQUAL(records("out_all.nc"), 3); /* 0, 2400, 4800 s */
  CU_ASSERT_EQUAL_FATAL(records("out_cont.nc"), records("out_all.nc"));
  CU_ASSERT_EQUAL(compare_files("out_all.nc", "out_cont.nc"), 0);
}

/* restart_in with output_file `out`: refused with `status` and `needle`. */
static void expect_not_continued(const char *out, int status, const char *needle) {
  char extra[512], nml[1024];
  snprintf(extra, sizeof extra,
           "output_interval = 2400, output_file = '%s',\n"
           "  restart_in = 'out_rst.2000-01-01-01200.nc'",
           out);
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800, extra);
  test_write_file(MPI_COMM_WORLD, "out_bad_cont.nml", nml);
  cryo_component *c = NULL;
  int got = cryo_init(&c, "out_bad_cont.nml", MPI_COMM_WORLD);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_EQUAL(got, status);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, out));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
  if (got != status || !strstr(msg, needle))
    fprintf(stderr, "%s: got %s: %s\n", out, cryo_status_name(got), msg);
  cryo_finalize(&c);
}

/* An output that is not the one the continued run wrote: truncated (its
 * header cut), NetCDF-4, or of another grid. Uses the restart of
 * test_continued and the 24 x 20 output of test_gathered_equals_serial. */
static void test_continued_wrong_output(void) {
  if (rank == 0) {
    FILE *in = fopen("out_all.nc", "rb"), *out = fopen("out_trunc.nc", "wb");
    char head[100];
    CU_ASSERT_EQUAL(fread(head, 1, sizeof head, in), sizeof head);
    fwrite(head, 1, sizeof head, out);
    fclose(in);
    fclose(out);
    int ncid, dim;
    nc_create("out_nc4.nc", NC_NETCDF4 | NC_CLOBBER, &ncid);
    nc_def_dim(ncid, "time", NC_UNLIMITED, &dim);
    nc_close(ncid);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_not_continued("out_trunc.nc", CRYO_ERR_FORMAT, "corrupt or truncated");
  expect_not_continued("out_nc4.nc", CRYO_ERR_FORMAT, "not NetCDF classic");
  expect_not_continued("out_n.nc", CRYO_ERR_FORMAT, "dimension x = 24, this run's grid has 16");
}

/* `text` in place of the first `what` of namelist nml (at most 1023 chars). */
static void replace(char *nml, const char *what, const char *text) {
  char *at = strstr(nml, what), rest[1024];
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  snprintf(rest, sizeof rest, "%s", at + strlen(what));
  snprintf(at, 1024 - (size_t)(at - nml), "%s%s", text, rest);
}

/* cryo_init of namelist `name` (the cyclone with `extra` in &cryo_run, and
 * `from`, when not NULL, replaced by `to`) must fail with `status` and a
 * message holding `a` and `b`; every file "in_*" stays as it was. */
static void expect_refused(const char *name, const char *extra, const char *from, const char *to,
                           int status, const char *a, const char *b) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 4800, extra);
  if (from) replace(nml, from, to);
  test_write_file(MPI_COMM_WORLD, name, nml);
  cryo_component *c = NULL;
  int got = cryo_init(&c, name, MPI_COMM_WORLD);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_EQUAL(got, status);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, a));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, b));
  if (got != status || !strstr(msg, a) || !strstr(msg, b))
    fprintf(stderr, "%s: got %s: %s\n", name, cryo_status_name(got), msg);
  cryo_finalize(&c);
  if (rank != 0) return;
  const char *inputs[] = {"in_a.nc", "in_link.nc", "in_r.2000-01-01-02400.nc"};
  for (int k = 0; k < 3; ++k) {
    char text[64] = "";
    FILE *f = fopen(inputs[k], "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(text, sizeof text, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(text, "an input\n");
  }
}

static void test_output_over_input(void) {
  test_write_file(MPI_COMM_WORLD, "in_a.nc", "an input\n");
  test_write_file(MPI_COMM_WORLD, "in_r.2000-01-01-02400.nc", "an input\n");
  if (rank == 0) {
    CU_ASSERT_EQUAL(link("in_a.nc", "in_link.nc"), 0);
    CU_ASSERT_EQUAL(symlink("in_a.nc", "out_sym.nc"), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_refused("in_nml.nc", "output_file = 'in_nml.nc'", NULL, NULL, CRYO_ERR_RANGE,
                 "output_file 'in_nml.nc'", "the namelist 'in_nml.nc'");
  if (rank == 0) {
    char text[16] = "";
    FILE *f = fopen("in_nml.nc", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(text, sizeof text, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(text, "&cryo_run\n");
  }
  expect_refused("io_1.nml", "output_file = 'in_a.nc', restart_in = 'in_a.nc'", NULL, NULL,
                 CRYO_ERR_RANGE, "output_file 'in_a.nc'", "restart_in 'in_a.nc'");
  expect_refused("io_2.nml", "output_file = './in_link.nc'", "&cryo_grid ",
                 "&cryo_grid mask_file = 'in_a.nc', ", CRYO_ERR_RANGE, "output_file './in_link.nc'",
                 "&cryo_grid mask_file 'in_a.nc'");
  expect_refused("io_3.nml", "output_file = 'out_sym.nc'", "&cryo_seaice ",
                 "&cryo_seaice init_file = 'in_a.nc', ", CRYO_ERR_RANGE, "output_file 'out_sym.nc'",
                 "&cryo_seaice init_file 'in_a.nc'");
  expect_refused("io_4.nml", "output_file = 'in_a.nc'", "&cryo_seaice ",
                 "&cryo_landice geometry_file = 'in_a.nc' /\n&cryo_seaice ", CRYO_ERR_RANGE,
                 "output_file 'in_a.nc'", "&cryo_landice geometry_file 'in_a.nc'");
  expect_refused("io_5.nml", "output_file = 'in_a.nc', forcing_file = 'in_a.nc'", NULL, NULL,
                 CRYO_ERR_RANGE, "output_file 'in_a.nc'", "forcing_file 'in_a.nc'");
  expect_refused("io_6.nml", "restart_out = 'in_r', forcing_file = 'in_r.2000-01-01-02400.nc'",
                 NULL, NULL, CRYO_ERR_RANGE, "restart_out 'in_r' writes the restart of 2400 s",
                 "forcing_file 'in_r.2000-01-01-02400.nc'");
  expect_refused("io_7.nml", "restart_out = './in_r', output_file = 'in_r.2000-01-01-01200.nc.tmp'",
                 NULL, NULL, CRYO_ERR_RANGE, "restart_out './in_r' writes the restart of 1200 s",
                 "output_file 'in_r.2000-01-01-01200.nc.tmp'");
  expect_refused("io_8.nml", "restart_out = 'no/such/dir/rst'", NULL, NULL, CRYO_ERR_FILE,
                 "restart_out 'no/such/dir/rst'", "directory 'no/such/dir' does not exist");
}

static void test_unwritable(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200,
                       "output_interval = 1200, output_file = 'no/such/dir/out.nc'");
  test_write_file(MPI_COMM_WORLD, "out_bad.nml", nml);
  cryo_component *c = NULL;
  int status = cryo_init(&c, "out_bad.nml", MPI_COMM_WORLD);
  CU_ASSERT_EQUAL(status, CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_last_error(c), "no/such/dir/out.nc"));
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_last_error(c), "directory 'no/such/dir' does not exist"));
  cryo_finalize(&c);
}

/* An output_file that is a link (here to /dev/full) is refused and left as
 * it is: creating a NetCDF file unlinks the path when it fails. Then a
 * file-size limit that lets the file and record 0 through but not record 1. */
static void test_disk_full(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 2400,
                       "output_interval = 1200, output_file = 'out_full.nc'");
  test_write_file(MPI_COMM_WORLD, "out_full.nml", nml);
  if (rank == 0) CU_ASSERT_EQUAL(symlink("/dev/full", "out_full.nc"), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL(cryo_init(&c, "out_full.nml", MPI_COMM_WORLD), CRYO_ERR_FILE);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "out_full.nc"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "is not a regular file but a symbolic link"));
  if (!strstr(msg, "symbolic link")) fprintf(stderr, "out_full.nc: %s\n", msg);
  cryo_finalize(&c);
  struct stat st;
  if (rank == 0) {
    CU_ASSERT_EQUAL(lstat("out_full.nc", &st), 0);
    CU_ASSERT(S_ISLNK(st.st_mode));
    unlink("out_full.nc");
  }

  test_seaice_namelist(nml, sizeof nml, 16, 12, 2400,
                       "output_interval = 1200, output_file = 'out_big.nc'");
  test_write_file(MPI_COMM_WORLD, "out_big.nml", nml);
  struct rlimit was, small;
  getrlimit(RLIMIT_FSIZE, &was);
  small = was;
  small.rlim_cur = 20000;   /* header, coordinates and record 0: about 14 kB */
  signal(SIGXFSZ, SIG_IGN); /* write() then fails with EFBIG */
  setrlimit(RLIMIT_FSIZE, &small);
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "out_big.nml", MPI_COMM_WORLD), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_ERR_FILE);
  msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "out_big.nc"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "File too large"));
  if (!strstr(msg, "File too large")) fprintf(stderr, "out_big.nc: %s\n", msg);
  cryo_finalize(&c);
  setrlimit(RLIMIT_FSIZE, &was);
  if (rank != 0) return;
  int ncid, var, dim;
  size_t len = 0;
  CU_ASSERT_EQUAL_FATAL(nc_open("out_big.nc", NC_NOWRITE, &ncid), NC_NOERR);
  nc_inq_dimid(ncid, "time", &dim);
  nc_inq_dimlen(ncid, dim, &len);
  CU_ASSERT_EQUAL(len, 1);
  double t = -1, h = 0;
  nc_inq_varid(ncid, "time", &var);
  nc_get_var_double(ncid, var, &t);
  CU_ASSERT_EQUAL(t, 0.0);
  size_t start[3] = {0, 11, 15}, count[3] = {1, 1, 1};
  nc_inq_varid(ncid, "h", &var);
  nc_get_vara_double(ncid, var, start, count, &h);
  CU_ASSERT(h > 0.29 && h < 0.32); /* the cyclone's initial thickness */
  nc_close(ncid);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"CF attributes and axes", test_cf_attributes},
                         {"gathered output equals one rank", test_gathered_equals_serial},
                         {"unwritable output file", test_unwritable},
                         {"disk full", test_disk_full},
                         {"continued run appends", test_continued},
                         {"continued run, wrong output", test_continued_wrong_output},
                         {"output over an input refused", test_output_over_input},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("output", tests);
  return cryo_test_run();
}
