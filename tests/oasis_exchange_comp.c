/* Test component "cryody" for the OASIS exchange provider (coupling/exchange_oasis.c)
 * against the toy ocean (tests/test_oasis_exchange.sh; docs/design.md, Coupling).
 *
 * Through tests/oasis_comp.c, it joins the coupled run as the cryodyn driver does
 * (cryo_coupler_init), splits the nx x ny grid into a 2-D block decomposition
 * (MPI_Dims_create) and creates the sea-ice exchange with provider "oasis" on that
 * block, so OASIS gets one box partition per rank. Each coupling interval [t, t + period] it gets
 * the four IN fields at t (ocean current and wind from the toy) and, like the component, puts the
 * six OUT fields at t + period, filled with toy_pattern() values of the step, which the toy ocean
 * checks with --check pattern. Asserted, exactly (tolerance 0: the coupler and the ring fill only
 * move values): every received owned cell equals toy_forcing() at that global cell, and every
 * halo-ring cell equals toy_forcing() at the cell that supplies it (wrapped with
 * --periodic-x, else clamped to the domain edge). Prints
 * "oasis_exchange_comp: PASS ..." on local rank 0 and exits 0, or prints FAIL and
 * exits 1; a cryodyn error is printed as "oasis_exchange_comp: error: <message>"
 * and stops the whole run with exit code 2.
 *
 *   oasis_exchange_comp [toy options: --nx --ny --run --period --ocean --u0 --v0
 *                        --uwind --vwind] [--periodic-x 0|1] [--check ...] */
#include "oasis_comp.h"

typedef struct options {
  toy_setup s;
  int periodic_x;
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  toy_setup_defaults(&o->s);
  o->periodic_x = 0;
  for (int a = 1; a < argc; a++) {
    char msg[256];
    int used = toy_parse_option(argc, argv, &a, &o->s, msg, sizeof msg);
    CRYO_CHECK(used >= 0, err, CRYO_ERR_RANGE, "%s", msg);
    if (used) continue;
    /* Besides the shared options: --periodic-x 0|1, and the toy ocean's --check,
     * which the test script passes to both programs and this one ignores. */
    const char *flag = argv[a];
    CRYO_CHECK(!strcmp(flag, "--periodic-x") || !strcmp(flag, "--check"), err, CRYO_ERR_UNKNOWN,
               "unknown option %s", flag);
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "option %s needs a value", flag);
    const char *val = argv[++a];
    if (!strcmp(flag, "--periodic-x")) {
      CRYO_CHECK(!strcmp(val, "0") || !strcmp(val, "1"), err, CRYO_ERR_RANGE,
                 "--periodic-x %s: must be 0 or 1", val);
      o->periodic_x = val[0] == '1';
    }
  }
  CRYO_CHECK(o->s.run % o->s.period == 0, err, CRYO_ERR_RANGE,
             "--run %d s is not a multiple of --period %d s", o->s.run, o->s.period);
  return CRYO_OK;
}

/* Global cell that supplies position g of a dimension of n cells (exchange.c's rule). */
static int source(int g, int n, int periodic) {
  if (periodic) return (g % n + n) % n;
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* Compare field k of buf (owned cells and ring) with what the toy sent. */
static long count_wrong(const options *o, const cryo_block *b, int k, const double *buf, int rank,
                        int step, long nbad_before) {
  long bad = 0;
  for (int j = -1; j <= b->ny; j++)
    for (int i = -1; i <= b->nx; i++) {
      int si = source(b->i0 + i, b->nx_global, b->periodic_x);
      int sj = source(b->j0 + j, b->ny_global, 0);
      double want[TOY_NOCN], got = buf[CRYO_CELL(b, i, j)];
      toy_forcing(&o->s, si, sj, want);
      if (got != want[k]) {
        if (nbad_before + bad == 0)
          fprintf(stderr,
                  "rank %d step %d field %s cell (%d, %d) (local %d, %d): received %.17g, "
                  "sent %.17g\n",
                  rank, step, toy_ice_recv[k], b->i0 + i, b->j0 + j, i, j, got, want[k]);
        bad++;
      }
    }
  return bad;
}

/* The test's state through the run: options and the count of wrong values. */
typedef struct exchange_test {
  const options *o;
  long bad; /* this rank's, then (finish) all ranks' */
  long checked;
} exchange_test;

static void received(void *ctx, const cryo_block *b, int k, int step, const double *buf, int rank) {
  exchange_test *e = ctx;
  e->bad += count_wrong(e->o, b, k, buf, rank, step, e->bad);
}

/* The ice fields: toy_pattern() values of the step, which the toy checks. */
static void fill(void *ctx, const cryo_block *b, int k, int step, double *buf) {
  const toy_setup *s = &((const exchange_test *)ctx)->o->s;
  for (int j = 0; j < b->ny; j++)
    for (int i = 0; i < b->nx; i++)
      buf[CRYO_CELL(b, i, j)] =
          toy_pattern(k, step, (long)(b->j0 + j) * s->nx + b->i0 + i, (long)s->nx * s->ny);
}

static int finish(void *ctx, const cryo_block *b, long values, MPI_Comm comm, cryo_err *err) {
  exchange_test *e = ctx;
  (void)b;
  long local[2] = {e->bad, values}, total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "MPI_Allreduce of the check counts failed");
  e->bad = total[0];
  e->checked = total[1];
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank;
  int status = parse_options(argc, argv, &o, &err);
  exchange_test e = {.o = &o};
  oasis_comp c = {.program = "oasis_exchange_comp",
                  .nx = o.s.nx,
                  .ny = o.s.ny,
                  .dx = 1e4,
                  .dy = 1e4,
                  .periodic_x = o.periodic_x,
                  .run = o.s.run,
                  .period = o.s.period,
                  .received = received,
                  .fill = fill,
                  .finish = finish};
  oasis_comp_run(&c, status, &e, &rank, &err);
  if (e.bad > 0) {
    if (rank == 0)
      printf("oasis_exchange_comp: FAIL: %ld of %ld received values differ from the sent ones\n",
             e.bad, e.checked);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0)
    printf("oasis_exchange_comp: PASS: %ld received values equal the sent ones exactly "
           "(owned cells and halo ring, %d steps, %d x %d grid)\n",
           e.checked, o.s.run / o.s.period, o.s.nx, o.s.ny);
  MPI_Finalize();
  return 0;
}
