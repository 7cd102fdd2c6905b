/* A C host model built against the installed cryodyn with
 *   mpicc install_host.c $(pkg-config --cflags --libs cryodyn)
 * and nothing else (tests/install.test). It runs the sea-ice case of the
 * namelist given as argument 1 in host mode (forcing = 'host') on one rank:
 * before every coupling interval it sets a uniform wind of (10, 0) m s-1 over
 * an ocean at rest, and after the run it prints
 *   install_host_c: cryodyn VERSION, t = T s, max uice = U m/s
 * U being the largest x velocity of the ice (cryo_get_field "uice"), printed
 * with 17 significant digits so that tests/install.test can ask the Fortran
 * host (tests/install_host.F90) for the same value bit for bit.
 * Exit status 0 on success, 1 on any cryodyn error (message on stderr). */
#include <cryodyn.h>
#include <stdio.h>
#include <stdlib.h>

/* Print what went wrong on c (or in cryo_init when c is NULL) and fail. */
static int fail(cryo_component **c, const char *call, int status) {
  fprintf(stderr, "install_host_c: %s: %s [%s]\n", call, cryo_last_error(*c),
          cryo_status_name(status));
  cryo_finalize(c);
  return 1;
}

/* Run the case of `namelist`; 0 on success. */
static int run_host(const char *namelist) {
  cryo_component *c = NULL;
  int status = cryo_init(&c, namelist, MPI_COMM_WORLD);
  if (status != CRYO_OK) return fail(&c, "cryo_init", status);
  int nx, ny;
  status = cryo_get_block(c, NULL, NULL, &nx, &ny, NULL, NULL);
  if (status != CRYO_OK) return fail(&c, "cryo_get_block", status);
  long n = (long)nx * ny;
  double *wind = malloc(n * sizeof *wind), *zero = calloc(n, sizeof *zero);
  double *uice = calloc(n, sizeof *uice);
  if (!wind || !zero || !uice) {
    fprintf(stderr, "install_host_c: no memory for %ld cells\n", n);
    free(wind), free(zero), free(uice);
    cryo_finalize(&c);
    return 1;
  }
  for (long k = 0; k < n; k++)
    wind[k] = 10.0; /* m s-1 */
  while (status == CRYO_OK && !cryo_is_done(c)) {
    if ((status = cryo_set_field(c, "uwind", wind, n)) != CRYO_OK ||
        (status = cryo_set_field(c, "vwind", zero, n)) != CRYO_OK ||
        (status = cryo_set_field(c, "uocean", zero, n)) != CRYO_OK ||
        (status = cryo_set_field(c, "vocean", zero, n)) != CRYO_OK)
      break;
    status = cryo_run(c);
  }
  if (status == CRYO_OK) status = cryo_get_field(c, "uice", uice, n);
  double umax = uice[0];
  for (long k = 1; k < n; k++)
    if (uice[k] > umax) umax = uice[k];
  free(wind), free(zero), free(uice);
  if (status != CRYO_OK) return fail(&c, "cryo_set_field/cryo_run/cryo_get_field", status);
  printf("install_host_c: cryodyn %s, t = %lld s, max uice = %.17g m/s\n", cryo_version(),
         cryo_get_time(c), umax);
  status = cryo_finalize(&c);
  return status == CRYO_OK ? 0 : fail(&c, "cryo_finalize", status);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int code = 2;
  if (argc != 2)
    fprintf(stderr, "usage: install_host_c NAMELIST\n");
  else
    code = run_host(argv[1]);
  MPI_Finalize();
  return code;
}
