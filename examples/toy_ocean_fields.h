/* What the toy ocean (examples/toy_ocean.c) and the OASIS exchange tests
 * (tests/oasis_exchange_comp.c, tests/oasis_remap_comp.c) send each other: field
 * names of namelists/namcouple_seaice_toyocean and namcouple_seaice_remap, the
 * forcing the toy sends (a steady gyre or a uniform current on the toy's own
 * cells, a gyre defined in metres that any grid can evaluate, or on a
 * longitude-latitude grid a solid-body rotation of the sphere given east and
 * north, and a uniform wind), the value pattern the test sends so that the receiver can check every
 * value exactly, and the options the programs share (the grids OASIS needs for
 * a remapping are described by the components themselves through
 * cryo_oasis_write_plane_grid, coupling/cryo_oasis.h). Both sides evaluate the same inline
 * functions, so equal inputs give equal bits on both sides of the coupler. */
#ifndef TOY_OCEAN_FIELDS_H
#define TOY_OCEAN_FIELDS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Partner -> ice: surface current x, y (m s-1) from the ocean, and the 10 m wind
 * x, y (m s-1) that the toy also sends, standing in for an atmosphere. */
#define TOY_NOCN 4
static const char *const toy_ocn_send[TOY_NOCN] = {"O_OCurx1", "O_OCury1", "A_Uwind1", "A_Vwind1"};
static const char *const toy_ice_recv[TOY_NOCN] = {"I_OCurx1", "I_OCury1", "I_Uwind1", "I_Vwind1"};
enum { TOY_OCN_U, TOY_OCN_V, TOY_AIR_U, TOY_AIR_V };

/* Ice -> ocean: ice velocity x, y (m s-1), concentration (1), thickness (m), and
 * the stress of the ocean on the ice x, y (N m-2; the stress on the ocean is its
 * negative). */
#define TOY_NICE 6
static const char *const toy_ice_send[TOY_NICE] = {"I_IceVx1", "I_IceVy1", "I_IceFrc",
                                                   "I_IceTck", "I_OTaux1", "I_OTauy1"};
static const char *const toy_ocn_recv[TOY_NICE] = {"O_IceVx1", "O_IceVy1", "O_IceFrc",
                                                   "O_IceTck", "O_OTaux1", "O_OTauy1"};
enum { TOY_ICE_U, TOY_ICE_V, TOY_ICE_FRC, TOY_ICE_TCK, TOY_ICE_TAUX, TOY_ICE_TAUY };

/* Options shared by the programs. */
typedef struct toy_setup {
  int nx, ny;          /* global grid size, cells */
  int run, period;     /* run length and coupling period, s */
  int gyre;            /* 1: steady gyre of speed u0 on the unit square of the cells */
  int analytic;        /* 1: gyre of speed u0 on [0, lx] x [0, ly] in metres (toy_analytic) */
  double u0, v0;       /* m s-1; with neither gyre nor analytic a uniform current (u0, v0) */
  double uwind, vwind; /* uniform wind, m s-1 */
  double x0, y0;       /* m, lower-left corner of cell (0, 0) */
  double dx, dy;       /* m, cell size: cell (i, j) is centred at x0 + (i + 1/2) dx, ... */
  double lx, ly;       /* m, extent of the analytic gyre */
  /* 1: the toy's cells are the regular longitude-latitude grid of nx x ny
   * cells over [lon0, lon1] x [lat0, lat1] degrees on a sphere of `radius`
   * m (toy_latlon_cell) instead of the plane of x0, y0, dx, dy */
  int latlon;
  double lon0, lon1, lat0, lat1; /* degrees */
  double radius;                 /* m */
  /* 1: the current is a solid-body rotation of the sphere about the axis
   * through (axis_lon, axis_lat) degrees, u0 m s-1 at 90 degrees from the
   * axis, given east and north (toy_solid_body) */
  int solid;
  double axis_lon, axis_lat; /* degrees */
  /* the centres (degrees, x fastest) of the toy's cells when they are a grid
   * file's (examples/toy_ocean.c --gridfile), for the solid-body rotation;
   * NULL on the toy's other grids */
  const double *cell_lon, *cell_lat;
  /* 'T' when those cells fold at their top row about cell centres: a copied
   * cell (i > nx/2, ny - 1) takes the value of its original (nx - i, ny - 1),
   * as an ocean model's own fold exchange makes them agree (NEMO's lbc_lnk);
   * cryodyn keeps the original's value at both (docs/global.md) */
  char fold;
} toy_setup;

static inline void toy_setup_defaults(toy_setup *s) {
  *s = (toy_setup){.nx = 40,
                   .ny = 30,
                   .run = 14400,
                   .period = 3600,
                   .gyre = 1,
                   .u0 = 0.1,
                   .v0 = 0.0,
                   .uwind = 5.0,
                   .vwind = -2.5,
                   .x0 = 0.0,
                   .y0 = 0.0,
                   .dx = 1.0e4,
                   .dy = 1.0e4,
                   .lx = 4.0e5,
                   .ly = 3.0e5,
                   .radius = 6371229.0,
                   .axis_lat = 0.0};
}

/* Parse argv[*a] (and its value) if it is a shared option: --nx --ny --run
 * --period (integers >= 1), --ocean gyre|uniform|analytic, --u0 --v0 --uwind
 * --vwind (m s-1, |value| < 100), --x0 --y0 (m, |value| <= 1e8), --dx --dy --lx
 * --ly (m, 0 < value <= 1e8). Returns 1 and advances *a when consumed, 0 for an
 * option that is not shared, -1 with a message in msg for a bad value.
 * --ocean solid (toy_solid_body) takes its grid and axis from the toy
 * ocean's own options (examples/toy_ocean.c). */
static inline int toy_parse_option(int argc, char **argv, int *a, toy_setup *s, char *msg,
                                   size_t len) {
  const char *flag = argv[*a];
  static const char *const ints[] = {"--nx", "--ny", "--run", "--period"};
  static const char *const reals[] = {"--u0", "--v0", "--uwind", "--vwind"};
  static const char *const lengths[] = {"--x0", "--y0", "--dx", "--dy", "--lx", "--ly"};
  int *ivals[] = {&s->nx, &s->ny, &s->run, &s->period};
  double *rvals[] = {&s->u0, &s->v0, &s->uwind, &s->vwind};
  double *lvals[] = {&s->x0, &s->y0, &s->dx, &s->dy, &s->lx, &s->ly};
  int kind = -1, k = -1;
  for (int q = 0; q < 4; q++) {
    if (!strcmp(flag, ints[q])) kind = 0, k = q;
    if (!strcmp(flag, reals[q])) kind = 1, k = q;
  }
  for (int q = 0; q < 6; q++)
    if (!strcmp(flag, lengths[q])) kind = 3, k = q;
  if (!strcmp(flag, "--ocean")) kind = 2;
  if (kind < 0) return 0;
  if (*a + 1 >= argc) {
    snprintf(msg, len, "option %s needs a value", flag);
    return -1;
  }
  const char *val = argv[++*a];
  char *end;
  errno = 0;
  if (kind == 0) {
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > 10000000L) {
      snprintf(msg, len, "%s %s: must be an integer from 1 to 1e7", flag, val);
      return -1;
    }
    *ivals[k] = (int)v;
  } else if (kind == 1) {
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(fabs(v) < 100.0)) {
      snprintf(msg, len, "%s %s: must be a speed in m s-1 below 100", flag, val);
      return -1;
    }
    *rvals[k] = v;
  } else if (kind == 3) {
    double v = strtod(val, &end);
    double lo = k < 2 ? -1e8 : 0.0;
    if (errno || end == val || *end || !(v >= lo && v <= 1e8) || (k >= 2 && !(v > 0.0))) {
      snprintf(msg, len, "%s %s: must be a length in m, %s", flag, val,
               k < 2 ? "|value| <= 1e8" : "0 < value <= 1e8");
      return -1;
    }
    *lvals[k] = v;
  } else if (!strcmp(val, "gyre") || !strcmp(val, "uniform") || !strcmp(val, "analytic") ||
             !strcmp(val, "solid")) {
    s->gyre = !strcmp(val, "gyre");
    s->analytic = !strcmp(val, "analytic");
    s->solid = !strcmp(val, "solid");
  } else {
    snprintf(msg, len, "--ocean %s: must be gyre, uniform, analytic or solid", val);
    return -1;
  }
  return 1;
}

/* Steady single gyre on the unit square of nx x ny cell centres: stream function
 * psi = u0 sin(pi x) sin(pi y), u = -dpsi/dy, v = dpsi/dx (non-divergent). */
static inline void toy_gyre(int i, int j, int nx, int ny, double u0 /* m s-1 */,
                            double *u /* m s-1 */, double *v /* m s-1 */) {
  const double pi = 3.14159265358979323846;
  double x = (i + 0.5) / nx, y = (j + 0.5) / ny;
  *u = -u0 * sin(pi * x) * cos(pi * y);
  *v = u0 * cos(pi * x) * sin(pi * y);
}

/* The analytic gyre at (x, y) in metres: u = -u0 sin(pi X) cos(pi Y),
 * v = u0 cos(pi X) sin(pi Y) with X = x / lx, Y = y / ly (non-divergent).
 * Its second derivatives are bounded by u0 (pi / lx)^2 along x and u0 (pi / ly)^2
 * along y, which sets the accuracy of a bilinear remapping (tests/oasis_remap_comp.c). */
static inline void toy_analytic(const toy_setup *s, double x /* m */, double y /* m */,
                                double *u /* m s-1 */, double *v /* m s-1 */) {
  const double pi = 3.14159265358979323846;
  double X = x / s->lx, Y = y / s->ly;
  *u = -s->u0 * sin(pi * X) * cos(pi * Y);
  *v = s->u0 * cos(pi * X) * sin(pi * Y);
}

/* Cell (i, j) of the longitude-latitude grid: its centre (degrees), its
 * corners counterclockwise from the south-west one (degrees, clon[4],
 * clat[4]; the order SCRIP's conservative remapping needs) and its area on
 * the sphere, radius^2 dlon (sin lat_north - sin lat_south), m2. */
static inline void toy_latlon_cell(const toy_setup *s, int i, int j, double *lon, double *lat,
                                   double clon[4], double clat[4], double *area /* m2 */) {
  const double deg = 3.14159265358979323846 / 180.0;
  const double dlon = (s->lon1 - s->lon0) / s->nx, dlat = (s->lat1 - s->lat0) / s->ny;
  const double w = s->lon0 + i * dlon, e = s->lon0 + (i + 1) * dlon;
  const double so = s->lat0 + j * dlat, no = s->lat0 + (j + 1) * dlat;
  *lon = s->lon0 + (i + 0.5) * dlon;
  *lat = s->lat0 + (j + 0.5) * dlat;
  clon[0] = clon[3] = w;
  clon[1] = clon[2] = e;
  clat[0] = clat[1] = so;
  clat[2] = clat[3] = no;
  *area = s->radius * s->radius * (dlon * deg) * (sin(no * deg) - sin(so * deg));
}

/* Solid-body rotation about the unit vector a through (axis_lon, axis_lat):
 * v = omega a x r with omega radius = u0, whose east and north components at
 * (lon, lat) are u = u0 (sin lat_a cos lat - cos lat_a sin lat cos(lon - lon_a)),
 * v = u0 cos lat_a sin(lon - lon_a). A smooth field on the whole sphere, poles
 * included (only its east/north components are not); the second derivatives
 * of u and v in lon and lat (radians) are bounded by u0, so a bilinear
 * interpolation in lon and lat from cells of dlon x dlat radians is within
 * u0 (dlon^2 + dlat^2) / 8 of it (tests/coupled_latlon.sh). */
static inline void toy_solid_body(const toy_setup *s, double lon /* degrees */,
                                  double lat /* degrees */, double *u /* m s-1 */,
                                  double *v /* m s-1 */) {
  const double deg = 3.14159265358979323846 / 180.0;
  const double pa = s->axis_lat * deg, p = lat * deg, dl = (lon - s->axis_lon) * deg;
  *u = s->u0 * (sin(pa) * cos(p) - cos(pa) * sin(p) * cos(dl));
  *v = s->u0 * cos(pa) * sin(dl);
}

/* The four fields the toy sends, at global cell (i, j), in toy_ocn_send order. */
static inline void toy_forcing(const toy_setup *s, int i, int j, double out[TOY_NOCN]) {
  if (s->solid) {
    double lon, lat, clon[4], clat[4], area;
    if (s->cell_lon) {
      const int io = s->fold == 'T' && j == s->ny - 1 && i > s->nx / 2 ? s->nx - i : i;
      lon = s->cell_lon[(long)j * s->nx + io];
      lat = s->cell_lat[(long)j * s->nx + io];
    } else {
      toy_latlon_cell(s, i, j, &lon, &lat, clon, clat, &area);
    }
    toy_solid_body(s, lon, lat, &out[TOY_OCN_U], &out[TOY_OCN_V]);
  } else if (s->analytic) {
    toy_analytic(s, s->x0 + (i + 0.5) * s->dx, s->y0 + (j + 0.5) * s->dy, &out[TOY_OCN_U],
                 &out[TOY_OCN_V]);
  } else if (s->gyre) {
    toy_gyre(i, j, s->nx, s->ny, s->u0, &out[TOY_OCN_U], &out[TOY_OCN_V]);
  } else {
    out[TOY_OCN_U] = s->u0;
    out[TOY_OCN_V] = s->v0;
  }
  out[TOY_AIR_U] = s->uwind;
  out[TOY_AIR_V] = s->vwind;
}

/* Test value of ice field k at coupling step `step` and global point g of a grid of
 * npoints points: an integer below 2^53 (exact in double) unique per (k, step, g). */
static inline double toy_pattern(int k, int step, long g, long npoints) {
  return (double)(((long)(k + 1) * 100000 + step) * npoints + g);
}

#endif
