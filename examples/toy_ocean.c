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
 *                     [--grid NAME] [--latlon LON0,LON1,LAT0,LAT1] [--axis LON,LAT]
 *                     [--radius M]
 *
 * --latlon LON0,LON1,LAT0,LAT1 (degrees): the toy's nx x ny cells are the
 *   regular longitude-latitude grid over that box (toy_latlon_cell), on a
 *   sphere of --radius metres (default 6371229, cryodyn's earth_radius),
 *   described to OASIS with their true corners and areas; vectors are sent
 *   and received east and north. After every coupling step rank 0 prints the
 *   area integral of the stress it received, sum of tau A over its cells with
 *   the areas it gave OASIS ("stress integral x ... y ... N"), which a
 *   conservative remapping with OASIS's CONSERV GLOBAL keeps equal to
 *   cryodyn's (tests/coupled_latlon.sh).
 * --ocean solid (needs --latlon or --gridfile): the current is the
 *   solid-body rotation about the axis through --axis LON,LAT degrees
 *   (default 0,0), --u0 m s-1 at 90 degrees from the axis (toy_solid_body), at
 *   the cell centres.
 * --gridfile FILE: the toy's cells are those of cryodyn grid file FILE
 *   (examples/toy_gridfile.h; --nx and --ny are its sizes), a global tripolar
 *   grid included: described to OASIS with the file's centres, corners and
 *   areas, its land and a T fold's copied cells masked, as cryodyn describes
 *   the same file; vectors east and north. With the namcouple's grid of the
 *   same size on both sides and no remapping, OASIS only redistributes
 *   (tests/coupled_tripolar.sh).
 * --dump FILE: rank 0 writes, after every coupling step, the 4 fields sent
 *   and the 6 received, in the order of toy_ocn_send and toy_ocn_recv, each
 *   ny x nx doubles (x fastest, the machine's byte order), to FILE, which must
 *   not exist: the bits a test compares with cryodyn's output.
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
 * The OASIS side (join, partition, fields, the exchange loop, abort and
 * terminate) is examples/toy_partner.c; this file is the ocean's table: its
 * fields, its forcing and its checks.
 * Prints "cryodyn-toy-ocean: PASS ..." on rank 0 and exits 0 when every check held;
 * otherwise stops the coupled run with a message and a non-zero exit code.
 * Launch (MPMD): mpirun -np 2 cryodyn x.nml : -np 1 cryodyn-toy-ocean --nx 40 --ny 30 ... */
#include "toy_gridfile.h"
#include "toy_ocean_fields.h"
#include "toy_partner.h"

#include <mpi.h>

enum check_kind { CHECK_NONE, CHECK_PATTERN, CHECK_STRESS };

typedef struct options {
  toy_setup s;
  enum check_kind check;
  int die_at;                                   /* coupling step at which to die, -1 for never */
  char grid_name[CRYO_OASIS_GRID_NAME_MAX + 1]; /* --grid NAME */
  const char *gridfile;                         /* --gridfile FILE, NULL for none */
  const char *dump;                             /* --dump FILE, NULL for none */
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  toy_setup_defaults(&o->s);
  o->check = CHECK_NONE;
  o->die_at = -1;
  strcpy(o->grid_name, "toyt");
  o->gridfile = o->dump = NULL;
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
    } else if (!strcmp(flag, "--latlon")) {
      toy_setup *t = &o->s;
      int n = sscanf(val, "%lf,%lf,%lf,%lf", &t->lon0, &t->lon1, &t->lat0, &t->lat1);
      CRYO_CHECK(n == 4 && t->lon0 < t->lon1 && t->lon1 - t->lon0 <= 360.0 && t->lat0 >= -90.0 &&
                     t->lat0 < t->lat1 && t->lat1 <= 90.0,
                 err, CRYO_ERR_RANGE,
                 "cryodyn-toy-ocean: --latlon %s: must be LON0,LON1,LAT0,LAT1 degrees with "
                 "LON0 < LON1 <= LON0 + 360 and -90 <= LAT0 < LAT1 <= 90",
                 val);
      t->latlon = 1;
    } else if (!strcmp(flag, "--axis")) {
      CRYO_CHECK(sscanf(val, "%lf,%lf", &o->s.axis_lon, &o->s.axis_lat) == 2 &&
                     fabs(o->s.axis_lat) <= 90.0,
                 err, CRYO_ERR_RANGE,
                 "cryodyn-toy-ocean: --axis %s: must be LON,LAT degrees with |LAT| <= 90", val);
    } else if (!strcmp(flag, "--radius")) {
      char *end;
      o->s.radius = strtod(val, &end);
      CRYO_CHECK(*end == '\0' && end != val && o->s.radius >= 1e5 && o->s.radius <= 1e8, err,
                 CRYO_ERR_RANGE, "cryodyn-toy-ocean: --radius %s: must be 1e5 to 1e8 m", val);
    } else if (!strcmp(flag, "--grid")) {
      CRYO_CHECK(
          strlen(val) >= 1 && strlen(val) <= CRYO_OASIS_GRID_NAME_MAX && !strchr(val, '.'), err,
          CRYO_ERR_RANGE,
          "cryodyn-toy-ocean: --grid %s: must be a grid name of 1 to %d characters without '.'",
          val, CRYO_OASIS_GRID_NAME_MAX);
      strcpy(o->grid_name, val);
    } else if (!strcmp(flag, "--gridfile")) {
      o->gridfile = val;
    } else if (!strcmp(flag, "--dump")) {
      o->dump = val;
    } else {
      return CRYO_ERROR(
          err, CRYO_ERR_UNKNOWN,
          "cryodyn-toy-ocean: unknown option %s (known: --nx --ny --run --period --ocean "
          "--u0 --v0 --uwind --vwind --x0 --y0 --dx --dy --lx --ly --check "
          "--die-at --grid --latlon --axis --radius --gridfile --dump)",
          flag);
    }
  }
  CRYO_CHECK(o->s.run % o->s.period == 0, err, CRYO_ERR_RANGE,
             "cryodyn-toy-ocean: --run %d s is not a multiple of --period %d s", o->s.run,
             o->s.period);
  CRYO_CHECK((long)o->s.nx * o->s.ny <= 10000000L, err, CRYO_ERR_RANGE,
             "cryodyn-toy-ocean: grid %d x %d has more than 1e7 points", o->s.nx, o->s.ny);
  CRYO_CHECK(!o->s.solid || o->s.latlon || o->gridfile, err, CRYO_ERR_ARG,
             "cryodyn-toy-ocean: --ocean solid is a field on the sphere: it needs --latlon or "
             "--gridfile");
  CRYO_CHECK(!(o->s.latlon && o->gridfile), err, CRYO_ERR_ARG,
             "cryodyn-toy-ocean: --latlon and --gridfile each define the toy's grid: give one");
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

/* The toy ocean's state through the run: its options, the check's tallies. */
typedef struct ocean {
  const options *o;
  const toy_gridfile *grid;     /* --gridfile's cells, NULL without */
  long bad, checked, first_bad; /* this rank's, then (finish) all ranks' bad and checked */
} ocean;

/* --dump: the nfield band fields f[] of every rank gathered to rank 0 and
 * appended there to the dump file (created when `create`, never overwritten). */
static int dump_fields(const options *o, int create, const toy_band *b, int nfield,
                       double *const f[], cryo_err *err) {
  const size_t n = (size_t)b->nx * b->ny;
  double *all = b->rank == 0 ? malloc(sizeof(double) * n) : NULL;
  int *counts = b->rank == 0 ? malloc(sizeof(int) * 2 * (size_t)b->size) : NULL;
  int status = CRYO_OK, bad;
  if (b->rank == 0 && (!all || !counts))
    status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "cryodyn-toy-ocean: --dump: out of memory");
  FILE *out = NULL;
  if (status == CRYO_OK && b->rank == 0) {
    out = fopen(o->dump, create ? "wbx" : "ab");
    if (!out)
      status = CRYO_ERROR(err, CRYO_ERR_FILE,
                          "cryodyn-toy-ocean: --dump %s: cannot %s it (it must not exist "
                          "before the run: the toy overwrites no file)",
                          o->dump, create ? "create" : "append to");
    for (int r = 0; r < b->size && status == CRYO_OK; r++) {
      const long j0 = (long)r * b->ny / b->size, j1 = (long)(r + 1) * b->ny / b->size;
      counts[r] = (int)((j1 - j0) * b->nx);
      counts[b->size + r] = (int)(j0 * b->nx);
    }
  }
  /* every rank learns whether rank 0 can take the fields: all gather or none */
  bad = status != CRYO_OK;
  CRYO_CHECK(MPI_Bcast(&bad, 1, MPI_INT, 0, b->comm) == MPI_SUCCESS, err, CRYO_ERR_MPI,
             "cryodyn-toy-ocean: --dump: MPI_Bcast failed");
  if (bad && status == CRYO_OK)
    status =
        CRYO_ERROR(err, CRYO_ERR_FILE, "cryodyn-toy-ocean: --dump %s failed on rank 0", o->dump);
  for (int k = 0; k < nfield && status == CRYO_OK; k++) {
    if (MPI_Gatherv(f[k], (int)b->npts, MPI_DOUBLE, all, counts, counts ? counts + b->size : NULL,
                    MPI_DOUBLE, 0, b->comm) != MPI_SUCCESS)
      status = CRYO_ERROR(err, CRYO_ERR_MPI, "cryodyn-toy-ocean: --dump: MPI_Gatherv failed");
    else if (out && fwrite(all, sizeof(double), n, out) != n)
      status =
          CRYO_ERROR(err, CRYO_ERR_FILE, "cryodyn-toy-ocean: --dump %s: write failed", o->dump);
  }
  if (out && fclose(out) != 0 && status == CRYO_OK)
    status = CRYO_ERROR(err, CRYO_ERR_FILE, "cryodyn-toy-ocean: --dump %s: close failed", o->dump);
  free(all);
  free(counts);
  return status;
}

/* Lat-lon grid: the area integral of the received stress over all ranks'
 * cells, sum of tau A with the areas given to OASIS, printed by rank 0. */
static int print_stress_integral(const options *o, int step, const toy_band *b, double *const rcv[],
                                 cryo_err *err) {
  double sum[2] = {0.0, 0.0}, total[2];
  for (int j = 0; j < b->nyl; j++)
    for (int i = 0; i < b->nx; i++) {
      double lon, lat, clon[4], clat[4], area;
      toy_latlon_cell(&o->s, i, b->j0 + j, &lon, &lat, clon, clat, &area);
      sum[0] += rcv[TOY_ICE_TAUX][(long)j * b->nx + i] * area;
      sum[1] += rcv[TOY_ICE_TAUY][(long)j * b->nx + i] * area;
    }
  CRYO_CHECK(MPI_Reduce(sum, total, 2, MPI_DOUBLE, MPI_SUM, 0, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-ocean: MPI_Reduce of the stress integral failed");
  if (b->rank == 0)
    printf("cryodyn-toy-ocean: step %d stress integral x %.17g y %.17g N\n", step, total[0],
           total[1]);
  return CRYO_OK;
}

/* The four fields the toy sends (the same every step). */
static void ocean_fill(void *ctx, int step, const toy_band *b, double *const snd[],
                       double *const prev[]) {
  const ocean *oc = ctx;
  (void)step;
  (void)prev;
  for (int j = 0; j < b->nyl; j++)
    for (int i = 0; i < b->nx; i++) {
      double v[TOY_NOCN];
      toy_forcing(&oc->o->s, i, b->j0 + j, v);
      for (int k = 0; k < TOY_NOCN; k++)
        snd[k][(long)j * b->nx + i] = v[k];
    }
}

static int ocean_received(void *ctx, int step, const toy_band *b, double *const snd[],
                          double *const rcv[], double *const prev[], cryo_err *err) {
  ocean *oc = ctx;
  (void)prev;
  check_step(oc->o, step, b->j0, b->nyl, rcv, snd, &oc->bad, &oc->checked, &oc->first_bad);
  if (oc->o->s.latlon) CRYO_CALL(print_stress_integral(oc->o, step, b, rcv, err));
  if (oc->o->dump) {
    CRYO_CALL(dump_fields(oc->o, step == 0, b, TOY_NOCN, snd, err));
    CRYO_CALL(dump_fields(oc->o, 0, b, TOY_NICE, rcv, err));
  }
  return CRYO_OK;
}

/* The check's counts over all ranks. */
static int ocean_finish(void *ctx, const toy_band *b, cryo_err *err) {
  ocean *oc = ctx;
  if (oc->bad > 0)
    fprintf(stderr,
            "cryodyn-toy-ocean rank %d: %ld values fail --check, first: field %s at point %ld\n",
            b->rank, oc->bad, toy_ocn_recv[oc->first_bad % TOY_NICE], oc->first_bad / TOY_NICE);
  long local[2] = {oc->bad, oc->checked}, total[2];
  CRYO_CHECK(MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, b->comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "cryodyn-toy-ocean: MPI_Allreduce of the check counts failed");
  oc->bad = total[0];
  oc->checked = total[1];
  return CRYO_OK;
}

/* Rank 0: the longitude-latitude grid to OASIS, every cell valid. */
static int write_latlon_grid(const options *o, cryo_err *err) {
  const long n = (long)o->s.nx * o->s.ny;
  double *a = malloc(sizeof(double) * (size_t)n * 11);
  int *mask = calloc((size_t)n, sizeof *mask); /* OASIS: 0 valid */
  if (!a || !mask) {
    free(a);
    free(mask);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "cryodyn-toy-ocean: out of memory for the grid");
  }
  double *lon = a, *lat = a + n, *area = a + 2 * n, *clon = a + 3 * n, *clat = a + 7 * n;
  for (int j = 0; j < o->s.ny; j++)
    for (int i = 0; i < o->s.nx; i++) {
      const long q = (long)j * o->s.nx + i;
      double cx[4], cy[4];
      toy_latlon_cell(&o->s, i, j, &lon[q], &lat[q], cx, cy, &area[q]);
      for (int k = 0; k < 4; k++) {
        clon[k * n + q] = cx[k];
        clat[k * n + q] = cy[k];
      }
    }
  int status =
      cryo_oasis_write_grid(o->grid_name, o->s.nx, o->s.ny, lon, lat, clon, clat, mask, area, err);
  free(a);
  free(mask);
  return status;
}

/* Rank 0 describes the grid for a remapping namcouple. */
static int ocean_define(void *ctx, const toy_band *b, cryo_err *err) {
  const ocean *oc = ctx;
  const options *o = oc->o;
  if (b->rank == 0 && oc->grid) {
    const toy_gridfile *g = oc->grid;
    return cryo_oasis_write_grid(o->grid_name, g->nx, g->ny, g->lon, g->lat, g->clon, g->clat,
                                 g->oasis_mask, g->area, err);
  }
  if (b->rank == 0 && o->s.latlon) return write_latlon_grid(o, err);
  if (b->rank == 0)
    CRYO_CALL(cryo_oasis_write_plane_grid(o->grid_name, o->s.nx, o->s.ny, o->s.x0, o->s.y0, o->s.dx,
                                          o->s.dy, err));
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank;
  int status = parse_options(argc, argv, &o, &err);
  toy_gridfile grid = {0};
  if (status == CRYO_OK && o.gridfile) {
    status = toy_gridfile_read(o.gridfile, &grid, &err);
    o.s.nx = grid.nx;
    o.s.ny = grid.ny;
    o.s.cell_lon = grid.lon;
    o.s.cell_lat = grid.lat;
    o.s.fold = grid.fold;
  }
  ocean oc = {.o = &o, .grid = o.gridfile ? &grid : NULL, .first_bad = -1};
  toy_partner p = {.program = "cryodyn-toy-ocean",
                   .component = "toyoce",
                   .nsend = TOY_NOCN,
                   .nrecv = TOY_NICE,
                   .send_names = toy_ocn_send,
                   .recv_names = toy_ocn_recv,
                   .skip_uncoupled = 1,
                   .recv_required = o.check != CHECK_NONE,
                   .define = ocean_define,
                   .fill = ocean_fill,
                   .received = ocean_received,
                   .finish = ocean_finish};
  toy_partner_couple(&p, status, o.s.nx, o.s.ny, o.s.run, o.s.period, o.die_at, &oc, &rank, &err);
  toy_gridfile_free(&grid);
  long bad = oc.bad, checked = oc.checked;
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
