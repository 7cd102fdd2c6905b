/* mpi-run ranks: 1 2 3 (tests/mpi-run runs this program once per count) */
/* Device data layer byte counters (docs/design.md, Host and device): a coupling
 * step moves exactly the coupling fields between host and device and nothing
 * else. On 1 rank with analytic forcing a step moves 0 bytes; with NetCDF
 * forcing exactly the 4 cell-centred forcing fields go to the device; in
 * host mode the host's 4 forcing fields go in and each result field it reads
 * comes out, and the step itself moves nothing; field access moves exactly
 * one field. On 2 ranks only packed halo lines move,
 * the same number of bytes each way and each step. */
#include "cryo_impl.h"
#include "cryo_test.h"
#include "test_component.h"

#include <netcdf.h>
#include <stdlib.h>

static int rank, size;

/* Uniform forcing file for an nx x ny grid with records at 0 and 7200 s. */
static void write_forcing(const char *path, int nx, int ny) {
  if (rank == 0) {
    int ncid, dims[3], vars[5];
    nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid);
    nc_def_dim(ncid, "time", 2, &dims[0]);
    nc_def_dim(ncid, "y", (size_t)ny, &dims[1]);
    nc_def_dim(ncid, "x", (size_t)nx, &dims[2]);
    nc_def_var(ncid, "time", NC_DOUBLE, 1, dims, &vars[0]);
    nc_put_att_text(ncid, vars[0], "units", 33, "seconds since 2000-01-01 00:00:00");
    const char *names[4] = {"uwind", "vwind", "uocean", "vocean"};
    for (int k = 0; k < 4; ++k) {
      nc_def_var(ncid, names[k], NC_DOUBLE, 3, dims, &vars[k + 1]);
      nc_put_att_text(ncid, vars[k + 1], "units", 5, "m s-1");
    }
    nc_enddef(ncid);
    double t[2] = {0, 7200};
    nc_put_var_double(ncid, vars[0], t);
    double *v = malloc(sizeof *v * 2 * nx * ny);
    for (int k = 0; k < 4; ++k) {
      for (int q = 0; q < 2 * nx * ny; ++q)
        v[q] = k < 2 ? 10.0 - 5 * k : 0.1 * (k - 2);
      nc_put_var_double(ncid, vars[k + 1], v);
    }
    free(v);
    nc_close(ncid);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static cryo_component *start(const char *name, const char *extra) {
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 3600, extra);
  test_write_file(MPI_COMM_WORLD, name, nml);
  cryo_component *c = NULL;
  int status = cryo_init(&c, name, MPI_COMM_WORLD);
  if (status != CRYO_OK) fprintf(stderr, "%s: %s\n", name, cryo_last_error(c));
  CU_ASSERT_EQUAL(status, CRYO_OK);
  return c;
}

static void test_analytic_step(void) {
  cryo_component *c = start("dev_a.nml", "");
  if (!c) return;
  long long sent[2], got[2];
  for (int step = 0; step < 2; ++step) {
    cryo_device_reset_counters(&c->dev);
    CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
    sent[step] = c->dev.bytes_to_device;
    got[step] = c->dev.bytes_to_host;
  }
  if (size == 1) {
    CU_ASSERT_EQUAL(sent[0], 0);
    CU_ASSERT_EQUAL(got[0], 0);
  } else {
    /* Only halos move: as much in as out, the same every step, and far less
     * than one whole velocity field per mEVP iteration. */
    CU_ASSERT_EQUAL(sent[0], got[0]);
    CU_ASSERT_EQUAL(sent[0], sent[1]);
    CU_ASSERT(sent[0] > 0);
    long iterations = 2 * 20; /* 1200 s / 600 s x n_evp */
    CU_ASSERT(sent[0] < iterations * 2 * CRYO_NNODE(&c->grid.block) * 8 / 2);
  }
  cryo_finalize(&c);
}

static void test_netcdf_step(void) {
  write_forcing("dev_forcing.nc", 16, 12);
  cryo_component *c = start("dev_n.nml", "forcing = 'netcdf', forcing_file = 'dev_forcing.nc'");
  if (!c) return;
  cryo_device_reset_counters(&c->dev);
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
  if (size == 1) {
    CU_ASSERT_EQUAL(c->dev.bytes_to_device, 4 * CRYO_NCELL(&c->grid.block) * 8);
    CU_ASSERT_EQUAL(c->dev.updates_to_device, 4);
    CU_ASSERT_EQUAL(c->dev.bytes_to_host, 0);
  }
  /* Reading one node field moves exactly that field. */
  const cryo_block *b = &c->grid.block;
  long n = (long)(b->nx + 1) * (b->ny + 1);
  double *u = malloc(sizeof *u * n);
  cryo_device_reset_counters(&c->dev);
  CU_ASSERT_EQUAL(cryo_get_field(c, "sea_ice_x_velocity", u, n), CRYO_OK);
  CU_ASSERT_EQUAL(c->dev.bytes_to_host, CRYO_NNODE(b) * 8);
  CU_ASSERT_EQUAL(c->dev.bytes_to_device, 0);
  CU_ASSERT_EQUAL(cryo_get_field(c, "u", u, n - 1), CRYO_ERR_ARG);
  CU_ASSERT_EQUAL(cryo_get_field(c, "no_such_field", u, n), CRYO_ERR_UNKNOWN);
  free(u);
  cryo_finalize(&c);
}

static void test_host_step(void) {
  cryo_component *c = start("dev_h.nml", "forcing = 'host'");
  if (!c) return;
  const cryo_block *b = &c->grid.block;
  long n = (long)b->nx * b->ny;
  double *f = malloc(sizeof *f * n);
  static const char *const names[4] = {"uwind", "vwind", "uocean", "vocean"};
  cryo_device_reset_counters(&c->dev);
  for (int k = 0; k < 4; ++k) {
    for (long q = 0; q < n; ++q)
      f[q] = k < 2 ? 10.0 - 5 * k : 0.1 * (k - 2);
    CU_ASSERT_EQUAL(cryo_set_field(c, names[k], f, n), CRYO_OK);
  }
  long long halo_in = c->dev.bytes_to_device - 4 * CRYO_NCELL(b) * 8;
  if (size == 1) CU_ASSERT_EQUAL(halo_in, 0);
  cryo_device_reset_counters(&c->dev);
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
  if (size == 1) {
    CU_ASSERT_EQUAL(c->dev.bytes_to_device, 0);
    CU_ASSERT_EQUAL(c->dev.bytes_to_host, 0);
  }
  cryo_device_reset_counters(&c->dev);
  CU_ASSERT_EQUAL(cryo_get_field(c, "sea_ice_area_fraction", f, n), CRYO_OK);
  CU_ASSERT_EQUAL(c->dev.bytes_to_host, CRYO_NCELL(b) * 8);
  CU_ASSERT_EQUAL(c->dev.bytes_to_device, 0);
  /* What an ocean receives is the model's own concentration, exactly. */
  double *a = malloc(sizeof *a * n);
  CU_ASSERT_EQUAL(cryo_get_field(c, "a", a, n), CRYO_OK);
  CU_ASSERT_EQUAL(memcmp(a, f, sizeof *a * n), 0);
  free(a);
  free(f);
  cryo_finalize(&c);
}

/* Device selection without a GPU: ranks take their node's GPUs round robin
 * by node-local rank; every rank of this test runs on one node. */
static void test_device_selection(void) {
  CU_ASSERT_EQUAL(cryo_device_choose(0, 4), 0);
  CU_ASSERT_EQUAL(cryo_device_choose(3, 4), 3);
  CU_ASSERT_EQUAL(cryo_device_choose(5, 4), 1);
  CU_ASSERT_EQUAL(cryo_device_choose(7, 2), 1);
  CU_ASSERT_EQUAL(cryo_device_choose(2, 1), 0);
  CU_ASSERT_EQUAL(cryo_device_choose(0, 0), -1);
  CU_ASSERT_EQUAL(cryo_device_choose(-1, 2), -1);
  /* one rank per GPU takes each GPU once; more ranks share them evenly */
  for (int gpus = 1; gpus <= 8; ++gpus)
    for (int ranks = 1; ranks <= 3 * gpus; ++ranks) {
      int used[8] = {0}, most = 0, least = ranks;
      for (int r = 0; r < ranks; ++r) {
        int k = cryo_device_choose(r, gpus);
        CU_ASSERT_FATAL(k >= 0 && k < gpus);
        used[k]++;
      }
      for (int k = 0; k < gpus && k < ranks; ++k) {
        most = used[k] > most ? used[k] : most;
        least = used[k] < least ? used[k] : least;
      }
      CU_ASSERT(most - least <= 1);
      if (ranks == gpus) CU_ASSERT(most == 1);
    }
  cryo_device d;
  cryo_err err;
  cryo_err_clear(&err);
  CU_ASSERT_EQUAL(cryo_device_init(&d, MPI_COMM_WORLD, 0, &err), CRYO_OK);
  CU_ASSERT_EQUAL(d.node_rank, rank);
  CU_ASSERT_EQUAL(d.node_ranks, size);
  CU_ASSERT_EQUAL(d.nodes, 1);
  CU_ASSERT_EQUAL(d.number, -1);
  CU_ASSERT_EQUAL(d.devices_used, 0);
  CU_ASSERT_EQUAL(d.offload, 0);
  /* this build has no GPU to give */
  CU_ASSERT_NOT_EQUAL(cryo_device_init(&d, MPI_COMM_WORLD, 1, &err), CRYO_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device = 'gpu'"));
}

/* The start banner names the version, the device and the ranks; the timer
 * table reports no host-device transfers on a CPU run. */
static void test_banner(void) {
  cryo_component *c = start("dev_b.nml", "");
  char buf[1024], want[64];
  CU_ASSERT_EQUAL(cryo_banner(c, buf, (int)sizeof buf), CRYO_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, cryo_version()));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "device:   CPU"));
  snprintf(want, sizeof want, "ranks:    %d on 1 node(s), no GPU", size);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "seaice on 16 x 12 cells"));
  /* which path the halo lines take to MPI, and why */
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "halo:     host buffers (no GPU"));
  if (size == 1) CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1 rank: no messages"));
  /* the phase timers report the halo time */
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
  CU_ASSERT_EQUAL(cryo_timer_report(c, buf, (int)sizeof buf), CRYO_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nhalo "));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\ndynamics "));
  /* and the sub-phases of start-up, indented under init (a box: no grid file) */
  static const char *const startup[] = {"namelist", "device start", "decomposition", "allocation",
                                        "initial state"};
  for (int k = 0; k < 5; ++k) {
    char row[64];
    snprintf(row, sizeof row, "\n  %s ", startup[k]);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, row));
  }
  CU_ASSERT_PTR_NULL(strstr(buf, "\n  grid read "));
  /* a run without a GPU copies nothing between host and device */
  CU_ASSERT_PTR_NULL(strstr(buf, "to device"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\ntransfers  none (no GPU in use"));
  cryo_finalize(&c);
}

/* halo_device_buffers on a rank without a GPU: 'no' and 'auto' run (the
 * buffers are host memory), 'yes' is an error naming the reason. */
static void test_halo_device_buffers(void) {
  cryo_component *c = start("dev_hn.nml", "halo_device_buffers = 'no'");
  char buf[1024];
  CU_ASSERT_EQUAL(cryo_banner(c, buf, (int)sizeof buf), CRYO_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "halo:     staged through host buffers (halo_device_buffers "
                                     "= 'no')"));
  CU_ASSERT_EQUAL(cryo_run(c), CRYO_OK);
  cryo_finalize(&c);
  char nml[1024];
  test_seaice_namelist(nml, sizeof nml, 16, 12, 3600, "halo_device_buffers = 'yes'");
  test_write_file(MPI_COMM_WORLD, "dev_hy.nml", nml);
  CU_ASSERT_EQUAL(cryo_init(&c, "dev_hy.nml", MPI_COMM_WORLD), CRYO_ERR_UNSUPPORTED);
  const char *msg = cryo_last_error(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "dev_hy.nml: &cryo_run: halo_device_buffers = 'yes'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "this rank has no GPU (CPU"));
  cryo_finalize(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CU_initialize_registry();
  CU_TestInfo tests[] = {{"analytic forcing step", test_analytic_step},
                         {"NetCDF forcing step and field access", test_netcdf_step},
                         {"host-mode step", test_host_step},
                         {"device selection by node-local rank", test_device_selection},
                         {"start banner", test_banner},
                         {"halo_device_buffers without a GPU", test_halo_device_buffers},
                         CU_TEST_INFO_NULL};
  cryo_test_suite("device", tests);
  return cryo_test_run();
}
