/* cryodyn: the standalone driver. `mpirun -np N cryodyn NAMELIST` runs
 * init, every coupling interval to the end of the run, and finalize. The
 * library never exits: this program decides, and on any error prints
 * `cryodyn: error: <message>` to stderr and exits non-zero. */
#include "config.h" /* PACKAGE_VERSION */

#include <cryodyn.h>

#include <errno.h>
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

/* The whole namelist file into a malloc'ed string, or NULL with a message.
 * Read once and handed to the library as text, so that a pipe works
 * (`cryodyn /dev/stdin < run.nml`). */
/* The largest namelist read, as the library's reader (namelists/README.md):
 * a path such as /dev/zero would otherwise fill the memory. */
#define NAMELIST_MAX_BYTES (1L << 20)

static char *read_namelist(const char *path) {
  FILE *f = fopen(path, "rb");
  size_t len = 0, cap = 4096;
  char *text = f ? malloc(cap) : NULL;
  while (text) {
    len += fread(text + len, 1, cap - len - 1, f);
    if (len < cap - 1 || len > NAMELIST_MAX_BYTES) break;
    char *bigger = realloc(text, cap *= 2);
    if (!bigger) free(text);
    text = bigger;
  }
  if (f && (!text || ferror(f))) {
    free(text);
    text = NULL;
  }
  if (text) text[len] = '\0';
  if (text && len > NAMELIST_MAX_BYTES) {
    fprintf(stderr, "cryodyn: error: %s: more than %ld bytes: too large for a namelist [%s]\n",
            path, NAMELIST_MAX_BYTES, cryo_status_name(CRYO_ERR_FILE));
    free(text);
    text = NULL;
  } else if (text && strlen(text) != len) {
    fprintf(stderr, "cryodyn: error: %s: not a text file (a NUL byte at offset %zu) [%s]\n", path,
            strlen(text), cryo_status_name(CRYO_ERR_FILE));
    free(text);
    text = NULL;
  } else if (!text) {
    fprintf(stderr, "cryodyn: error: %s: cannot read: %s [%s]\n", path, strerror(errno),
            cryo_status_name(CRYO_ERR_FILE));
  }
  if (f) fclose(f);
  return text;
}

static void hms(double s, char *buf, size_t len) {
  long t = (long)(s + 0.5);
  snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static const char usage_line[] = "usage: [mpirun -np N] cryodyn NAMELIST | --help | --version\n";

/* --help and --version answer and exit 0; any other argument that starts with
 * '-' is an option this driver does not have, not a namelist path. Returns
 * -1 to go on with the run, else the exit status. */
static int arguments(int argc, char **argv, int rank) {
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    if (rank == 0) printf("cryodyn %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    if (rank == 0)
      printf("%s"
             "Runs the land-ice / sea-ice case that the namelist describes (a path, or\n"
             "/dev/stdin); namelists/README.md documents every option.\n"
             "  --help     this text\n"
             "  --version  the version (%s)\n",
             usage_line, PACKAGE_VERSION);
    return 0;
  }
  if (argc == 2 && argv[1][0] != '-') return -1;
  if (rank == 0) {
    if (argc == 2)
      fprintf(stderr, "cryodyn: error: unknown option '%s' [%s]\n", argv[1],
              cryo_status_name(CRYO_ERR_ARG));
    else
      fprintf(stderr, "cryodyn: error: expected one argument, got %d [%s]\n", argc - 1,
              cryo_status_name(CRYO_ERR_ARG));
    fputs(usage_line, stderr);
  }
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int exit_status = arguments(argc, argv, rank);
  if (exit_status >= 0) {
    MPI_Finalize();
    return exit_status;
  }
  /* With forcing = 'oasis' the component runs on the communicator OASIS gives
   * it, so the coupled run is joined before cryo_init
   * (cryodyn.h). */
  int coupled = 0;
  char component[64], forcing[16] = "";
  MPI_Comm comm = MPI_COMM_WORLD;
  char *text = read_namelist(argv[1]);
  if (!text) MPI_Abort(MPI_COMM_WORLD, 1);
  int status = cryo_coupler_wanted_text(text, argv[1], &coupled, component, (int)sizeof component,
                                        forcing, (int)sizeof forcing);
  if (coupled && status == CRYO_OK) status = cryo_coupler_init(component, &comm);
  if (coupled && status != CRYO_OK) {
    fprintf(stderr, "cryodyn: error: %s [%s]\n", cryo_coupler_last_error(),
            cryo_status_name(status));
    cryo_coupler_abort(1);
  }
  /* Host forcing comes from a program that embeds cryodyn and calls
   * cryo_set_field; run here it would be zero forcing. */
  if (!strcmp(forcing, "host")) {
    if (rank == 0)
      fprintf(stderr,
              "cryodyn: error: %s: forcing = 'host' needs a host program that sets the forcing "
              "(cryo_set_field); the standalone driver runs 'analytic', 'netcdf' or 'oasis' [%s]\n",
              argv[1], cryo_status_name(CRYO_ERR_RANGE));
    free(text);
    MPI_Finalize();
    return 1;
  }
  cryo_component *c = NULL;
  double wall0 = MPI_Wtime();
  status = cryo_init_text(&c, text, argv[1], comm);
  free(text);
  if (status != CRYO_OK) {
    status = fail(&c, status, rank);
    MPI_Finalize();
    return status ? 1 : 0;
  }
  char banner[2048];
  if (cryo_banner(c, banner, (int)sizeof banner) == CRYO_OK && cryo_is_root(c)) {
    printf("%s  namelist: %s\n", banner, argv[1]);
    fflush(stdout);
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
  char report[2048];
  cryo_timer_report(c, report, sizeof report);
  if (cryo_is_root(c)) printf("cryodyn: run complete\n%s", report);
  status = cryo_finalize(&c);
  if (status == CRYO_OK && coupled && (status = cryo_coupler_finalize()) != CRYO_OK) {
    fprintf(stderr, "cryodyn: error: %s [%s]\n", cryo_coupler_last_error(),
            cryo_status_name(status));
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
