/* Test component "cryody" for an OASIS remapping between the toy ocean on its own,
 * coarser grid and cryodyn's grid (tests/coupled_remap.sh,
 * docs/design.md, Coupling).
 *
 * Through tests/oasis_comp.c, it joins the coupled run as the cryodyn driver does
 * (cryo_coupler_init), splits its ice grid (--ice-nx x --ice-ny cells of --ice-dx x
 * --ice-dy m, corner at the origin) into a 2-D block decomposition and creates the
 * sea-ice exchange with provider "oasis" on that block: what it receives is what
 * cryodyn's exchange layer hands the sea ice. Each coupling interval it gets the four IN fields and
 * puts the six OUT fields (the analytic current again, unchecked by the toy).
 *
 * The toy ocean sends toy_analytic() (a gyre of speed u0 over [0, lx] x [0, ly])
 * evaluated at its own cell centres, toy spacing hx = --dx, hy = --dy, and a
 * uniform wind. Asserted at every owned cell and halo-ring cell (the ring repeats
 * the supplying cell, clamped at the domain edge):
 *   current: |received - toy_analytic(cell centre)| <= tol with
 *     tol = (1/8) u0 ((pi hx / lx)^2 + (pi hy / ly)^2) + 1e-12 m s-1,
 *     the error bound of bilinear interpolation, (1/8) h^2 max|f''| per direction
 *     (the factor t (1 - t) / 2 <= 1/8 at a fraction t of the way between two
 *     source points), with max|u_xx| = u0 (pi / lx)^2, max|u_yy| = u0 (pi / ly)^2
 *     (the same for v); SCRIP's BILINEAR interpolates in longitude and latitude,
 *     which cryo_oasis_plane_grid makes linear in x and y, so the bound holds as it does
 *     on the plane; 1e-12 m s-1 covers rounding;
 *   and the largest current error is at least 1/4 of tol: a remapping that is
 *   bilinear between different grids shows an error of this size (at quarter
 *   positions t (1 - t) / 2 = 3/32, so about 3/4 of tol), where identical grids
 *   would give 0 and a nearest-neighbour remapping (error up to u0 pi h / (2 lx))
 *   would exceed tol;
 *   wind: |received - sent| <= 1e-12 |sent| (bilinear weights sum to 1, so a
 *     constant is kept up to rounding).
 * Prints "oasis_remap_comp: PASS ..." with the errors on local rank 0 and exits 0,
 * or prints FAIL and exits 1; a cryodyn error is printed as
 * "oasis_remap_comp: error: <message>" and stops the whole run with exit code 2.
 *
 *   oasis_remap_comp [toy options: --run --period --u0 --uwind --vwind --dx --dy
 *                     --lx --ly (the toy's; others are accepted and ignored)]
 *                    [--ice-nx N] [--ice-ny N] [--ice-dx M] [--ice-dy M]
 * The exchange provider describes the ice grid to OASIS itself (grid "cryt",
 * coupling/exchange_oasis.c), as in cryodyn: no grid files are written before
 * the run. */
#include "oasis_comp.h"

typedef struct options {
  toy_setup s;   /* the toy ocean's setup: analytic field and its grid spacing */
  int nx, ny;    /* ice grid, cells */
  double dx, dy; /* ice grid, m */
} options;

static int parse_options(int argc, char **argv, options *o, cryo_err *err) {
  toy_setup_defaults(&o->s);
  o->s.analytic = 1;
  o->nx = 40;
  o->ny = 30;
  o->dx = o->dy = 1e4;
  for (int a = 1; a < argc; a++) {
    char msg[256];
    int used = toy_parse_option(argc, argv, &a, &o->s, msg, sizeof msg);
    CRYO_CHECK(used >= 0, err, CRYO_ERR_RANGE, "%s", msg);
    if (used) continue;
    const char *flag = argv[a];
    CRYO_CHECK(a + 1 < argc, err, CRYO_ERR_ARG, "option %s needs a value", flag);
    const char *val = argv[++a];
    char *end;
    if (!strcmp(flag, "--ice-nx") || !strcmp(flag, "--ice-ny")) {
      long v = strtol(val, &end, 10);
      CRYO_CHECK(end != val && !*end && v >= 2 && v <= 100000, err, CRYO_ERR_RANGE,
                 "%s %s: must be an integer from 2 to 1e5", flag, val);
      *(flag[6] == 'x' ? &o->nx : &o->ny) = (int)v;
    } else if (!strcmp(flag, "--ice-dx") || !strcmp(flag, "--ice-dy")) {
      double v = strtod(val, &end);
      CRYO_CHECK(end != val && !*end && v > 0 && v <= 1e7, err, CRYO_ERR_RANGE,
                 "%s %s: must be a length in m, 0 < value <= 1e7", flag, val);
      *(flag[6] == 'x' ? &o->dx : &o->dy) = v;
    } else if (strcmp(flag, "--check")) {
      return CRYO_ERROR(err, CRYO_ERR_UNKNOWN,
                        "unknown option %s (known: the toy ocean's, --ice-nx --ice-ny --ice-dx "
                        "--ice-dy)",
                        flag);
    }
  }
  CRYO_CHECK(o->s.run % o->s.period == 0, err, CRYO_ERR_RANGE,
             "--run %d s is not a multiple of --period %d s", o->s.run, o->s.period);
  return CRYO_OK;
}

static int clamp(int g, int n) {
  return g < 0 ? 0 : (g >= n ? n - 1 : g);
}

/* Largest |received - expected| of field k over owned and ring cells; the
 * expected value at the cell that supplies each ring cell. */
static double field_error(const options *o, const cryo_block *b, int k, const double *buf) {
  double worst = 0.0;
  for (int j = -1; j <= b->ny; j++)
    for (int i = -1; i <= b->nx; i++) {
      int si = clamp(b->i0 + i, b->nx_global), sj = clamp(b->j0 + j, b->ny_global);
      double want;
      if (k == TOY_AIR_U || k == TOY_AIR_V) {
        want = k == TOY_AIR_U ? o->s.uwind : o->s.vwind;
      } else {
        double u, v;
        toy_analytic(&o->s, (si + 0.5) * b->dx, (sj + 0.5) * b->dy, &u, &v);
        want = k == TOY_OCN_U ? u : v;
      }
      double e = fabs(buf[CRYO_CELL(b, i, j)] - want);
      worst = isnan(e) ? INFINITY : fmax(worst, e);
    }
  return worst;
}

/* The test's state through the run: options and the largest errors. */
typedef struct remap_test {
  const options *o;
  double emax[TOY_NOCN]; /* this rank's, then (finish) over all ranks */
  long checked;
} remap_test;

static void received(void *ctx, const cryo_block *b, int k, int step, const double *buf, int rank) {
  remap_test *r = ctx;
  (void)step;
  (void)rank;
  r->emax[k] = fmax(r->emax[k], field_error(r->o, b, k, buf));
}

/* The ice fields: the analytic current again (unchecked by the toy). */
static void fill(void *ctx, const cryo_block *b, int k, int step, double *buf) {
  const toy_setup *s = &((const remap_test *)ctx)->o->s;
  (void)step;
  for (int j = 0; j < b->ny; j++)
    for (int i = 0; i < b->nx; i++) {
      double u, v;
      toy_analytic(s, (b->i0 + i + 0.5) * b->dx, (b->j0 + j + 0.5) * b->dy, &u, &v);
      buf[CRYO_CELL(b, i, j)] = k % 2 ? v : u;
    }
}

static int finish(void *ctx, const cryo_block *b, long values, MPI_Comm comm, cryo_err *err) {
  remap_test *r = ctx;
  (void)b;
  double local[TOY_NOCN];
  memcpy(local, r->emax, sizeof local);
  CRYO_CHECK(MPI_Allreduce(local, r->emax, TOY_NOCN, MPI_DOUBLE, MPI_MAX, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "MPI_Allreduce of the errors failed");
  CRYO_CHECK(MPI_Allreduce(&values, &r->checked, 1, MPI_LONG, MPI_SUM, comm) == MPI_SUCCESS, err,
             CRYO_ERR_MPI, "MPI_Allreduce of the check counts failed");
  return CRYO_OK;
}

int main(int argc, char **argv) {
  cryo_err err;
  cryo_err_clear(&err);
  options o;
  int rank;
  int status = parse_options(argc, argv, &o, &err);
  remap_test r = {.o = &o};
  oasis_comp c = {.program = "oasis_remap_comp",
                  .nx = o.nx,
                  .ny = o.ny,
                  .dx = o.dx,
                  .dy = o.dy,
                  .run = o.s.run,
                  .period = o.s.period,
                  .received = received,
                  .fill = fill,
                  .finish = finish};
  oasis_comp_run(&c, status, &r, &rank, &err);
  long checked = r.checked;
  const double *emax = r.emax;
  const double pi = 3.14159265358979323846;
  double ax = pi * o.s.dx / o.s.lx, ay = pi * o.s.dy / o.s.ly;
  double tol = 0.125 * fabs(o.s.u0) * (ax * ax + ay * ay) + 1e-12;
  double cur = fmax(emax[TOY_OCN_U], emax[TOY_OCN_V]);
  int ok = emax[TOY_OCN_U] <= tol && emax[TOY_OCN_V] <= tol && cur >= 0.25 * tol &&
           emax[TOY_AIR_U] <= 1e-12 * fabs(o.s.uwind) && emax[TOY_AIR_V] <= 1e-12 * fabs(o.s.vwind);
  if (rank == 0)
    printf("oasis_remap_comp: %s: %ld values, toy spacing %g x %g m -> ice %g x %g m: current "
           "error u %.4e v %.4e m s-1, tolerance %.4e (error / tolerance %.3f, must be in "
           "[0.25, 1]); wind error %.3e %.3e m s-1 (tolerance 1e-12 relative)\n",
           ok ? "PASS" : "FAIL", checked, o.s.dx, o.s.dy, o.dx, o.dy, emax[TOY_OCN_U],
           emax[TOY_OCN_V], tol, cur / tol, emax[TOY_AIR_U], emax[TOY_AIR_V]);
  MPI_Finalize();
  return ok ? 0 : 1;
}
