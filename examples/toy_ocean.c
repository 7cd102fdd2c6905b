/* Toy ocean: an OASIS partner for cryodyn's sea ice (docs/design.md, Coupling).
 *
 * OASIS component "toyoce" on an nx x ny grid split into bands of rows over its
 * ranks (apple partition). Every coupling period it sends the ocean surface
 * current (O_OCurx1, O_OCury1: a steady gyre, a uniform current with --ocean
 * uniform, or with --ocean analytic the gyre of toy_analytic() over [0, lx] x
 * [0, ly] metres evaluated at the centres of its own cells, which --x0 --y0 --dx
 * --dy place, so that it can sit on a grid other than cryodyn's and OASIS remaps
 * it) and, standing in for an atmosphere, a uniform 10 m wind (A_Uwind1,
 * A_Vwind1); it receives the six ice fields (O_IceVx1 ... O_OTauy1). Every get
 * must return a received code: a namcouple period different from --period is
 * reported, not ignored. A field the namcouple does not couple is skipped with a
 * note (with --check none only), so that cryodyn's own check of its fields is
 * what a namcouple missing a field runs into.
 *
 *   cryodyn-toy-ocean [--nx N] [--ny N] [--run SECONDS] [--period SECONDS]
 *                     [--ocean gyre|uniform|analytic] [--u0 M_PER_S] [--v0 M_PER_S]
 *                     [--uwind M_PER_S] [--vwind M_PER_S] [--x0 M] [--y0 M] [--dx M] [--dy M]
 *                     [--lx M] [--ly M] [--check pattern|stress|none] [--die-at STEP]
 *                     [--grid NAME]
 *
 * --grid NAME (default toyt): the namcouple's name of this grid. Rank 0
 *   describes the grid (cell centres and corners from --x0 --y0 --dx --dy, laid
 *   along the equator by cryo_oasis_plane_grid, every cell valid, areas dx dy)
 *   through OASIS's grid-writing API before enddef; OASIS writes grids.nc,
 *   masks.nc and areas.nc at enddef, one component after the other, for a SCRIP
 *   remapping. A namcouple that does not remap ignores the files.
 * --check pattern: every received value must equal toy_pattern() (the OASIS
 *   exchange test, tests/test_oasis_exchange.sh);
 * --check stress: where there is ice (concentration > 0) and it moves relative to
 *   the ocean by more than that relative velocity varies across a cell, the stress
 *   of the ocean on the ice must oppose the motion, tau . (u_ice - u_ocean) < 0
 *   (docs/seaice.md: tau_ocn is along u_ocean - u_ice), and there must be
 *   such points (check_step says why the others are left out);
 * --die-at STEP: at coupling step STEP (0-based) exit with code 3 without
 *   oasis_terminate, to test how cryodyn and mpirun handle a partner that dies.
 * Prints "cryodyn-toy-ocean: PASS ..." on rank 0 and exits 0 when every check held;
 * otherwise stops the coupled run with a message and a non-zero exit code.
 * Launch (MPMD): mpirun -np 2 cryodyn x.nml : -np 1 cryodyn-toy-ocean --nx 40 --ny 30 ... */
#include "cryo_oasis.h"
#include "toy_ocean_fields.h"

#include <mpi.h>

enum check_kind { CHECK_NONE, CHECK_PATTERN, CHECK_STRESS };

typedef struct options {
  toy_setup s;
  enum check_kind check;
  int die_at;                                   /* coupling step at which to die, -1 for never */
  char grid_name[CRYO_OASIS_GRID_NAME_MAX + 1]; /* --grid NAME */
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  toy_setup_defaults(&o->s);
  o->check = CHECK_NONE;
  o->die_at = -1;
  strcpy(o->grid_name, "toyt");
  for (int a = 1; a < argc; a++) {
    char msg[256];
    int used = toy_parse_option(argc, argv, &a, &o->s, msg, sizeof msg);
    CRYO_CHECK(used >= 0, err, CRYO_ERR_RANGE, "cryodyn-toy-ocean: %s", msg);
    if (used) continue;
    const char *flag = argv[a];
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "cryodyn-toy-ocean: option %s needs a value", flag);
    const char *val = argv[++a];
    if (!strcmp(flag, "--check")) {
      if (!strcmp(val, "pattern"))
        o->check = CHECK_PATTERN;
      else if (!strcmp(val, "stress"))
        o->check = CHECK_STRESS;
      else if (!strcmp(val, "none"))
        o->check = CHECK_NONE;
      else
        return CRYO_ERROR(err, CRYO_ERR_RANGE,
                          "cryodyn-toy-ocean: --check %s: must be pattern, stress or none", val);
    } else if (!strcmp(flag, "--die-at")) {
      char *end;
      long v = strtol(val, &end, 10);
      CRYO_CHECK(*end == '\0' && end != val && v >= 0 && v < 10000000L, err, CRYO_ERR_RANGE,
                 "cryodyn-toy-ocean: --die-at %s: must be a step number >= 0", val);
      o->die_at = (int)v;
    } else if (!strcmp(flag, "--grid")) {
      CRYO_CHECK(
          strlen(val) >= 1 && strlen(val) <= CRYO_OASIS_GRID_NAME_MAX && !strchr(val, '.'), err,
          CRYO_ERR_RANGE,
          "cryodyn-toy-ocean: --grid %s: must be a grid name of 1 to %d characters without '.'",
          val, CRYO_OASIS_GRID_NAME_MAX);
      strcpy(o->grid_name, val);
    } else {
      return CRYO_ERROR(
          err, CRYO_ERR_UNKNOWN,
          "cryodyn-toy-ocean: unknown option %s (known: --nx --ny --run --period --ocean "
          "--u0 --v0 --uwind --vwind --x0 --y0 --dx --dy --lx --ly --check "
          "--die-at --grid)",
          flag);
    }
  }
  CRYO_CHECK(o->s.run % o->s.period == 0, err, CRYO_ERR_RANGE,
             "cryodyn-toy-ocean: --run %d s is not a multiple of --period %d s", o->s.run,
             o->s.period);
  CRYO_CHECK((long)o->s.nx * o->s.ny <= 10000000L, err, CRYO_ERR_RANGE,
             "cryodyn-toy-ocean: grid %d x %d has more than 1e7 points", o->s.nx, o->s.ny);
  return CRYO_OK;
}

/* Relative velocity of the ice to the ocean, u_ice - u_ocean, at band point p. */
static void rel_velocity(double *const ice[TOY_NICE], double *const fo[TOY_NOCN], long p,
                         double *du /* m s-1 */, double *dv /* m s-1 */) {
  *du = ice[TOY_ICE_U][p] - fo[TOY_OCN_U][p];
  *dv = ice[TOY_ICE_V][p] - fo[TOY_OCN_V][p];
}

/* Largest |du(neighbour) - du(p)| over p's 4 neighbours inside this rank's band
 * of nyl rows: how much the relative velocity varies across one cell. */
static double rel_spread(const toy_setup *s, int nyl, double *const ice[TOY_NICE],
                         double *const fo[TOY_NOCN], long p) {
  int i = (int)(p % s->nx), j = (int)(p / s->nx);
  const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
  double du, dv, spread = 0.0;
  rel_velocity(ice, fo, p, &du, &dv);
  for (int k = 0; k < 4; k++) {
    int in = i + di[k], jn = j + dj[k];
    if (in < 0 || in >= s->nx || jn < 0 || jn >= nyl) continue;
    double dun, dvn;
    rel_velocity(ice, fo, (long)jn * s->nx + in, &dun, &dvn);
    spread = fmax(spread, hypot(dun - du, dvn - dv));
  }
  return spread;
}

/* Check the fields received at coupling step `step` on this rank's band of nyl
 * rows from row j0; add to *bad the values that fail and to *checked the values
 * checked. fo: the sent forcing, TOY_NOCN arrays.
 * Stress: cryodyn computes the stress at cell corners from the corners' relative
 * velocity and sends the cell mean; the toy compares it with the relative velocity
 * at the cell centre. Where |du| exceeds the variation of du across a cell, every
 * corner's du points within 90 degrees of the centre's, so each corner stress and
 * their mean oppose it; points with smaller |du| are not checked (near closed
 * edges and gyre centres). */
static void check_step(const options *o, int step, int j0, int nyl, double *const ice[TOY_NICE],
                       double *const fo[TOY_NOCN], long *bad, long *checked, long *first_bad) {
  const toy_setup *s = &o->s;
  long npts = (long)s->nx * nyl;
  for (long p = 0; p < npts; p++) {
    long g = (long)j0 * s->nx + p;
    if (o->check == CHECK_PATTERN) {
      for (int k = 0; k < TOY_NICE; k++)
        if (ice[k][p] != toy_pattern(k, step, g, (long)s->nx * s->ny)) {
          if (*bad == 0) *first_bad = g * TOY_NICE + k;
          ++*bad;
        }
      *checked += TOY_NICE;
    } else if (o->check == CHECK_STRESS && ice[TOY_ICE_FRC][p] > 0.0) {
      double du, dv;
      rel_velocity(ice, fo, p, &du, &dv);
      if (!(hypot(du, dv) > rel_spread(s, nyl, ice, fo, p))) continue;
      double work = ice[TOY_ICE_TAUX][p] * du + ice[TOY_ICE_TAUY][p] * dv; /* N m-2 * m s-1 */
      if (!(work < 0.0)) {
        if (*bad == 0) *first_bad = g * TOY_NICE + TOY_ICE_TAUX;
        ++*bad;
      }
      ++*checked;
    }
  }
}

/* Declare field `name`; *id = -1 and a note on rank 0 where the namcouple does
 * not couple it. Like an ocean model that reads its coupled fields from the
 * namcouple, the toy leaves it to cryodyn to insist on its fields (the failure
 * tests check cryodyn's message, tests/coupled_failures.sh). */
static int def_field(int *id, const char *name, int part, int kinout, int rank, cryo_err *err) {
  int status = cryo_oasis_def_var(id, name, part, kinout, err);
  if (status == CRYO_ERR_COUPLING && *id == -1) {
    if (rank == 0)
      printf("cryodyn-toy-ocean: field %s is not in the namcouple: not exchanged\n", name);
    return CRYO_OK;
  }
  return status;
}

/* Couple for the whole run; *bad_total: values that failed the check on all
 * ranks, *checked: values checked. */
static int run_ocean(const options *o, int *compid, int *local_rank, long *bad_total, long *checked,
                     cryo_err *err) {
  const toy_setup *s = &o->s;
  CRYO_CALL(cryo_oasis_init_comp(compid, "toyoce", err));
  MPI_Comm comm;
  CRYO_CALL(cryo_oasis_get_localcomm(&comm, err));
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  *local_rank = rank;
  CRYO_CHECK(size <= s->ny, err, CRYO_ERR_RANGE, "cryodyn-toy-ocean: %d ranks for %d rows", size,
             s->ny);
  int j0 = (int)((long)rank * s->ny / size), j1 = (int)((long)(rank + 1) * s->ny / size);
  int nyl = j1 - j0;
  long npts = (long)s->nx * nyl;

  int kparal[3] = {CRYO_OASIS_APPLE, j0 * s->nx, (int)npts};
  int part;
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, 3, s->nx * s->ny, err));
  int id_send[TOY_NOCN], id_recv[TOY_NICE];
  for (int k = 0; k < TOY_NOCN; k++)
    CRYO_CALL(def_field(&id_send[k], toy_ocn_send[k], part, CRYO_OASIS_OUT, rank, err));
  for (int k = 0; k < TOY_NICE; k++) {
    CRYO_CALL(def_field(&id_recv[k], toy_ocn_recv[k], part, CRYO_OASIS_IN, rank, err));
    CRYO_CHECK(id_recv[k] >= 0 || o->check == CHECK_NONE, err, CRYO_ERR_COUPLING,
               "cryodyn-toy-ocean: --check needs field %s, which the namcouple does not couple",
               toy_ocn_recv[k]);
  }
  if (rank == 0)
    CRYO_CALL(
        cryo_oasis_write_plane_grid(o->grid_name, s->nx, s->ny, s->x0, s->y0, s->dx, s->dy, err));
  CRYO_CALL(cryo_oasis_enddef(err));

  double *buf = malloc(sizeof(double) * (size_t)(npts > 0 ? npts : 1) * (TOY_NOCN + TOY_NICE));
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "cryodyn-toy-ocean: no memory for %ld points", npts);
  double *fo[TOY_NOCN], *ice[TOY_NICE];
  for (int k = 0; k < TOY_NOCN; k++)
    fo[k] = buf + k * npts;
  for (int k = 0; k < TOY_NICE; k++)
    ice[k] = buf + (TOY_NOCN + k) * npts;
  for (int j = 0; j < nyl; j++)
    for (int i = 0; i < s->nx; i++) {
      double v[TOY_NOCN];
      toy_forcing(s, i, j0 + j, v);
      for (int k = 0; k < TOY_NOCN; k++)
        fo[k][(long)j * s->nx + i] = v[k];
    }

  int status = CRYO_OK;
  long bad = 0, nchecked = 0, first_bad = -1;
  int nsteps = s->run / s->period;
  for (int step = 0; step < nsteps && status == CRYO_OK; step++) {
    int date = step * s->period, kinfo;
    if (step == o->die_at) {
      fprintf(stderr,
              "cryodyn-toy-ocean rank %d: --die-at %d: exiting at %d s without oasis_terminate "
              "(partner failure test)\n",
              rank, o->die_at, date);
      fflush(stderr);
      exit(3);
    }
    for (int k = 0; k < TOY_NOCN && status == CRYO_OK; k++)
      if (id_send[k] >= 0)
        status = cryo_oasis_put(id_send[k], date, s->nx, nyl, fo[k], &kinfo, err);
    for (int k = 0; k < TOY_NICE && status == CRYO_OK; k++) {
      if (id_recv[k] < 0) continue;
      for (long p = 0; p < npts; p++)
        ice[k][p] = NAN;
      status = cryo_oasis_get(id_recv[k], date, s->nx, nyl, ice[k], &kinfo, err);
      if (status == CRYO_OK && kinfo == 0)
        status =
            CRYO_ERROR(err, CRYO_ERR_COUPLING,
                       "cryodyn-toy-ocean: field %s was not received at date %d s: the namcouple "
                       "coupling period must equal --period %d",
                       toy_ocn_recv[k], date, s->period);
    }
    if (status == CRYO_OK) check_step(o, step, j0, nyl, ice, fo, &bad, &nchecked, &first_bad);
  }
  free(buf);
  CRYO_CALL(status);
  if (bad > 0)
    fprintf(stderr,
            "cryodyn-toy-ocean rank %d: %ld values fail --check, first: field %s at point %ld\n",
            rank, bad, toy_ocn_recv[first_bad % TOY_NICE], first_bad / TOY_NICE);
  long local[2] = {bad, nchecked}, total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-ocean: MPI_Allreduce of the check counts failed");
  *bad_total = total[0];
  *checked = total[1];
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int compid = -1, rank = 0;
  long bad = 0, checked = 0;
  int status = parse_options(argc, argv, &o, &err);
  if (status != CRYO_OK) {
    /* Still join the run, so that the abort stops every component instead of a hang. */
    int ignored;
    cryo_err join_err;
    cryo_oasis_init_comp(&ignored, "toyoce", &join_err);
  } else {
    status = run_ocean(&o, &compid, &rank, &bad, &checked, &err);
  }
  if (status != CRYO_OK)
    cryo_oasis_abort(compid, cryo_status_name(status), err.msg, err.file, err.line, 2);
  if (cryo_oasis_terminate(&err) != CRYO_OK)
    cryo_oasis_abort(compid, "terminate", err.msg, err.file, err.line, 2);
  const char *what = o.check == CHECK_PATTERN  ? "received values equal the sent pattern"
                     : o.check == CHECK_STRESS ? "moving ice points have a stress opposing "
                                                 "u_ice - u_ocean"
                                               : "values received (no check)";
  /* A stress check that saw no moving ice proves nothing. */
  if (bad > 0 || (o.check != CHECK_NONE && checked == 0)) {
    if (rank == 0)
      printf("cryodyn-toy-ocean: FAIL: %ld of %ld values fail --check\n", bad, checked);
    return 1;
  }
  if (rank == 0)
    printf("cryodyn-toy-ocean: PASS: %ld %s, %d steps of %d s on a %d x %d grid\n", checked, what,
           o.s.run / o.s.period, o.s.period, o.s.nx, o.s.ny);
  return 0;
}
