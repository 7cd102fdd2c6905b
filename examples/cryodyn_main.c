/* cryodyn: the standalone driver. `mpirun -np N cryodyn NAMELIST` runs
 * init, every coupling interval to the end of the run, and finalize. The
 * library never exits: this program decides, and on any error prints
 * `cryodyn: error: <message>` to stderr and exits non-zero. */
#include <cryodyn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(cryo_component **c, int status, int rank) {
  /* Coupled: every rank prints (one may fail alone) and the abort stops the
   * partners. */
  if (rank == 0 || status == CRYO_ERR_MPI || cryo_coupler_joined())
    fprintf(stderr, "cryodyn: error: %s [%s]\n", cryo_last_error(*c), cryo_status_name(status));
  fflush(stderr);
  if (cryo_coupler_joined()) cryo_coupler_abort(1);
  cryo_finalize(c);
  return status;
}

static void hms(double s, char *buf, size_t len) {
  long t = (long)(s + 0.5);
  snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    if (rank == 0)
      fprintf(stderr,
              "usage: [mpirun -np N] cryodyn NAMELIST\n"
              "cryodyn %s: land-ice / sea-ice dynamics; see namelists/README.md\n",
              cryo_version());
    MPI_Finalize();
    return argc == 2 ? 0 : 2;
  }
  /* With forcing = 'oasis' the component runs on the communicator OASIS gives
   * it, so the coupled run is joined before cryo_init
   * (cryodyn.h). */
  int coupled = 0;
  char component[64];
  MPI_Comm comm = MPI_COMM_WORLD;
  int status = cryo_coupler_wanted(argv[1], &coupled, component, (int)sizeof component);
  if (coupled && (status != CRYO_OK || cryo_coupler_init(component, &comm) != CRYO_OK)) {
    fprintf(stderr, "cryodyn: error: %s\n", cryo_coupler_last_error());
    cryo_coupler_abort(1);
  }
  cryo_component *c = NULL;
  double wall0 = MPI_Wtime();
  status = cryo_init(&c, argv[1], comm);
  if (status != CRYO_OK) {
    status = fail(&c, status, rank);
    MPI_Finalize();
    return status ? 1 : 0;
  }
  /* Options the run ignores: one warning line each, on rank 0. */
  for (const char *w = cryo_warnings(c); rank == 0 && *w;) {
    const char *end = strchr(w, '\n');
    int n = end ? (int)(end - w) : (int)strlen(w);
    fprintf(stderr, "cryodyn: warning: %.*s\n", n, w);
    w += n + (end != NULL);
  }
  long long start_time = cryo_get_time(c);
  while (!cryo_is_done(c)) {
    status = cryo_run(c);
    if (status != CRYO_OK) break;
    char summary[256] = "";
    status = cryo_summary(c, summary, sizeof summary);
    if (status != CRYO_OK) break;
    if (cryo_is_root(c)) {
      double wall = MPI_Wtime() - wall0;
      long long t = cryo_get_time(c);
      double left = wall * (double)(cryo_get_run_length(c) - t) / (double)(t - start_time);
      char el[32], eta[32];
      hms(wall, el, sizeof el);
      hms(left, eta, sizeof eta);
      printf("cryodyn: t = %10.3f h  wall %s  left %s  %s\n", t / 3600.0, el, eta, summary);
      fflush(stdout);
    }
  }
  if (status != CRYO_OK) {
    status = fail(&c, status, rank);
    MPI_Finalize();
    return 1;
  }
  char report[1024];
  cryo_timer_report(c, report, sizeof report);
  if (cryo_is_root(c)) printf("cryodyn: run complete\n%s", report);
  status = cryo_finalize(&c);
  if (status == CRYO_OK && coupled && cryo_coupler_finalize() != CRYO_OK) {
    fprintf(stderr, "cryodyn: error: %s\n", cryo_coupler_last_error());
    cryo_coupler_abort(1);
  }
  if (status != CRYO_OK) {
    if (rank == 0 || coupled)
      fprintf(stderr, "cryodyn: error: %s [%s]\n", cryo_last_error(NULL), cryo_status_name(status));
    if (coupled) cryo_coupler_abort(1);
    MPI_Finalize();
    return 1;
  }
  MPI_Finalize();
  return 0;
}
