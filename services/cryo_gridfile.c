/* Grid files (cryo_gridfile.h; namelists/README.md, Grid files).
 *
 * Every rank opens the file and reads only a window of cells around its
 * block, [-2, nx+2] x [-2, ny+2] clipped to the file: the halo ring of cells,
 * the two rings of nodes of kernels/seaice.h, and one more column and row so
 * that every node is taken from the same cell of the file (its corner 0, or
 * at the top and right edges of the grid a corner of the last cell) by every
 * rank that holds it: shared nodes are then bit-identical on all ranks, even
 * where the file's neighbouring cells agree only within the tolerance.
 *
 * What is checked, in this order, each error naming the file, the variable
 * and the global cell (i, j):
 *   the file cannot be opened                                CRYO_ERR_FILE
 *   the NetCDF library fails                                 CRYO_ERR_NETCDF
 *   missing dimension or variable                            CRYO_ERR_MISSING
 *   sizes other than the grid's, dimensions other than
 *   (y, x) and (y, x, 4), units that are not the format's    CRYO_ERR_FORMAT
 *   NaN, Inf, fill values; latitudes outside [-90, 90];
 *   corners of neighbouring cells that disagree; cells that
 *   are degenerate, folded or clockwise, or whose centre lies
 *   outside their corners; mask values other than 0 and 1;
 *   areas not > 0 or far from what the corners enclose;
 *   angles more than 1 degree from the corners' direction    CRYO_ERR_DATA
 *
 * A global grid says how it closes in global attributes (docs/design.md,
 * Folded grids): periodic_x = 1, the last column's east edge is the first
 * column's west edge; north_fold = "T" or "F", the top edge folds onto
 * itself about cell-centre or node pivots. The rank that holds the first
 * column checks that the seam closes, a rank that holds the top row that the
 * fold maps each corner of it onto the same node (CRYO_ERR_DATA, naming both
 * cells). The two pivot cells of a T fold are flat by construction (their
 * top edge is their bottom edge reversed): they are not checked for shape,
 * area or angle, and must be land. Unknown values, a fold without periodic_x and an odd nx with a
 * fold are CRYO_ERR_FORMAT.
 *
 * The corner and shape checks of every cell, the bulk of the time on a large
 * grid (some 2 s for the 14 million cells of the 2 km Arctic on one core),
 * run on as many threads as this process may use (its CPU affinity), each
 * over a band of rows; the error reported is the one a single pass in cell
 * order meets first: that of the first band that fails.
 */
#include "cryo_gridfile.h"

#include "cryo_ncvar.h"
#include "cryo_threads.h"

#include <math.h>
#include <mpi.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NV 4 /* corners of a cell */
/* Neighbouring cells' copies of a corner agree within this many degrees
 * (spherical) or this fraction of the coordinate or the cell size (planar):
 * far below any cell size, far above the round-off of a generator. */
#define CORNER_TOL 1e-6
/* Longitude means nothing at the poles: it is not compared there. */
#define POLE_LAT (90.0 - 1e-9)
/* A turn at a corner whose sine is below this counts as no turn (a straight
 * angle: the cell is a triangle or flat). */
#define TURN_TOL    1e-10
#define ANGLE_TOL   1.0 /* degrees, file angle against the corners' direction */
#define AREA_FACTOR 2.0
#define MAX_CELLS   1000000 /* along x or y, as &cryo_grid nx, ny */
#define ATT_LEN     256

static const double deg = M_PI / 180.0;

/* The open file and what it holds. */
typedef struct gf_file {
  int ncid;
  char where[CRYO_ERR_MSG_LEN / 2]; /* "<source> '<path>'", the start of every message */
  int dim_y, dim_x;
  int nx, ny; /* cells */
  int spherical;
  int periodic_x; /* global attribute periodic_x */
  cryo_fold fold; /* global attribute north_fold */
  /* centre and corner variables: lon, lat, lon_bnds, lat_bnds or x_c, y_c, x_bnds, y_bnds */
  char cx[NC_MAX_NAME + 1], cy[NC_MAX_NAME + 1], bx[NC_MAX_NAME + 1], by[NC_MAX_NAME + 1];
  cryo_err *err;
} gf_file;

/* Cells [gi0, gi0 + ni) x [gj0, gj0 + nj) of the file, as read. */
typedef struct gf_window {
  int gi0, gj0, ni, nj;
  double *cx, *cy, *bx, *by; /* centres; corners, 4 per cell */
  double *mask, *area, *angle;
  double angle_unit;    /* radians per unit of the angle variable */
  double check_seconds; /* wall time spent checking what was read */
} gf_window;

/* Text attribute `name` of variable varid (characters, or one string) into
 * out (ATT_LEN bytes); *present = 0 when it is absent. */
static int text_att(const gf_file *f, int varid, const char *var, const char *name, char *out,
                    int *present) {
  nc_type type;
  size_t len;
  int s = nc_inq_att(f->ncid, varid, name, &type, &len);
  *present = s == NC_NOERR;
  out[0] = '\0';
  if (s == NC_ENOTATT) return CRYO_OK;
  CRYO_NC(s, f->err, "%s: variable '%s', attribute '%s'", f->where, var, name);
  if (type == NC_STRING && len == 1) {
    char *str = NULL;
    CRYO_NC(nc_get_att_string(f->ncid, varid, name, &str), f->err,
            "%s: variable '%s', attribute '%s'", f->where, var, name);
    snprintf(out, ATT_LEN, "%s", str ? str : "");
    nc_free_string(1, &str);
    return CRYO_OK;
  }
  CRYO_CHECK(type == NC_CHAR && len < ATT_LEN, f->err, CRYO_ERR_FORMAT,
             "%s: variable '%s', attribute '%s' is not a text of at most %d characters", f->where,
             var, name, ATT_LEN - 1);
  CRYO_NC(nc_get_att_text(f->ncid, varid, name, out), f->err, "%s: variable '%s', attribute '%s'",
          f->where, var, name);
  out[len] = '\0';
  return CRYO_OK;
}

static int find_dim(gf_file *f, const char *name, const char *meaning, int *id, int *len) {
  int s = nc_inq_dimid(f->ncid, name, id);
  CRYO_CHECK(s != NC_EBADDIM, f->err, CRYO_ERR_MISSING, "%s has no dimension '%s' (%s)", f->where,
             name, meaning);
  size_t n = 0;
  if (s == NC_NOERR) s = nc_inq_dimlen(f->ncid, *id, &n);
  CRYO_NC(s, f->err, "%s: dimension '%s'", f->where, name);
  CRYO_CHECK(n >= 2 && n <= MAX_CELLS, f->err, CRYO_ERR_FORMAT,
             "%s: dimension '%s' = %zu; a grid has 2 to %d cells each way", f->where, name, n,
             MAX_CELLS);
  *len = (int)n;
  return CRYO_OK;
}

static int has_var(const gf_file *f, const char *name) {
  int id;
  return nc_inq_varid(f->ncid, name, &id) == NC_NOERR;
}

/* The name of the corner variable of centre variable `var`: its CF `bounds`
 * attribute, else `fallback`. */
static int bounds_name(gf_file *f, const char *var, const char *fallback, char *out) {
  int id, present;
  char att[ATT_LEN];
  CRYO_NC(nc_inq_varid(f->ncid, var, &id), f->err, "%s: variable '%s'", f->where, var);
  CRYO_CALL(text_att(f, id, var, "bounds", att, &present));
  CRYO_CHECK(!present || (att[0] && strlen(att) <= NC_MAX_NAME), f->err, CRYO_ERR_FORMAT,
             "%s: variable '%s', attribute 'bounds' = '%s' is not a variable name", f->where, var,
             att);
  snprintf(out, NC_MAX_NAME + 1, "%s", present ? att : fallback);
  return CRYO_OK;
}

/* The global attributes periodic_x (an integer, 0 or 1) and north_fold
 * ("none", "T" or "F"), both optional. */
static int read_topology(gf_file *f) {
  nc_type type;
  size_t len;
  int s = nc_inq_att(f->ncid, NC_GLOBAL, "periodic_x", &type, &len);
  if (s != NC_ENOTATT) {
    CRYO_NC(s, f->err, "%s: global attribute 'periodic_x'", f->where);
    int v = -1;
    const int integer = type == NC_BYTE || type == NC_SHORT || type == NC_INT || type == NC_UBYTE ||
                        type == NC_USHORT || type == NC_UINT || type == NC_INT64 ||
                        type == NC_UINT64;
    if (integer && len == 1)
      CRYO_NC(nc_get_att_int(f->ncid, NC_GLOBAL, "periodic_x", &v), f->err,
              "%s: global attribute 'periodic_x'", f->where);
    CRYO_CHECK(v == 0 || v == 1, f->err, CRYO_ERR_FORMAT,
               "%s: global attribute 'periodic_x' must be one integer, 0 or 1 (1: the grid closes "
               "in x)",
               f->where);
    f->periodic_x = v;
  }
  char fold[ATT_LEN];
  int present;
  CRYO_CALL(text_att(f, NC_GLOBAL, "(global)", "north_fold", fold, &present));
  f->fold = !strcasecmp(fold, "T") ? CRYO_FOLD_T : !strcasecmp(fold, "F") ? CRYO_FOLD_F : 0;
  CRYO_CHECK(!present || f->fold || !strcasecmp(fold, "none"), f->err, CRYO_ERR_FORMAT,
             "%s: global attribute 'north_fold' = '%s'; expected 'T' (pivot on cell centres, as "
             "ORCA2), 'F' (pivot on nodes, as ORCA1) or 'none'",
             f->where, fold);
  CRYO_CHECK(!f->fold || f->periodic_x, f->err, CRYO_ERR_FORMAT,
             "%s: global attribute 'north_fold' = '%s' needs periodic_x = 1 (a fold closes a grid "
             "that is periodic in x)",
             f->where, fold);
  CRYO_CHECK(!f->fold || f->nx % 2 == 0, f->err, CRYO_ERR_FORMAT,
             "%s: north_fold = '%s' needs an even number of cells along x, not %d (the pivots "
             "are half the grid apart)",
             f->where, fold, f->nx);
  return CRYO_OK;
}

/* Open `path`, find the dimensions y and x and whether the grid is on the
 * sphere (lon, lat) or planar (x_c, y_c). On error the file is closed. */
static int open_file(gf_file *f, const char *path, const char *source, cryo_err *err) {
  memset(f, 0, sizeof *f);
  f->err = err;
  f->ncid = -1;
  snprintf(f->where, sizeof f->where, "%s '%s'", source, path);
  int s = nc_open(path, NC_NOWRITE, &f->ncid);
  if (s != NC_NOERR) {
    f->ncid = -1;
    return cryo_nc_error(s, CRYO_ERR_FILE, err, "%s", f->where);
  }
  int status = find_dim(f, "y", "cells along j", &f->dim_y, &f->ny);
  if (status == CRYO_OK) status = find_dim(f, "x", "cells along i", &f->dim_x, &f->nx);
  if (status == CRYO_OK) {
    int lon = has_var(f, "lon"), lat = has_var(f, "lat");
    int xc = has_var(f, "x_c"), yc = has_var(f, "y_c");
    f->spherical = lon || lat;
    if (lon != lat)
      status = CRYO_ERROR(err, CRYO_ERR_MISSING,
                          "%s has variable '%s' but no '%s' (cell centres on the sphere need both)",
                          f->where, lon ? "lon" : "lat", lon ? "lat" : "lon");
    else if (!lon && xc != yc)
      status = CRYO_ERROR(err, CRYO_ERR_MISSING,
                          "%s has variable '%s' but no '%s' (cell centres in a plane need both)",
                          f->where, xc ? "x_c" : "y_c", xc ? "y_c" : "x_c");
    else if (!lon && !xc)
      status = CRYO_ERROR(err, CRYO_ERR_MISSING,
                          "%s has neither variables 'lon' and 'lat' (cell centres on the sphere, "
                          "degrees) nor 'x_c' and 'y_c' (cell centres in a plane, m)",
                          f->where);
  }
  if (status == CRYO_OK) {
    snprintf(f->cx, sizeof f->cx, "%s", f->spherical ? "lon" : "x_c");
    snprintf(f->cy, sizeof f->cy, "%s", f->spherical ? "lat" : "y_c");
    status = bounds_name(f, f->cx, f->spherical ? "lon_bnds" : "x_bnds", f->bx);
    if (status == CRYO_OK)
      status = bounds_name(f, f->cy, f->spherical ? "lat_bnds" : "y_bnds", f->by);
  }
  if (status == CRYO_OK) status = read_topology(f);
  if (status != CRYO_OK) {
    nc_close(f->ncid);
    f->ncid = -1;
  }
  return status;
}

int cryo_gridfile_inquire(const char *path, int *nx, int *ny, int *spherical, cryo_err *err) {
  gf_file f;
  CRYO_CALL(open_file(&f, path, "grid file", err));
  *nx = f.nx;
  *ny = f.ny;
  *spherical = f.spherical;
  nc_close(f.ncid);
  return CRYO_OK;
}

int cryo_gridfile_inquire_topology(const char *path, int *periodic_x, cryo_fold *fold,
                                   cryo_err *err) {
  gf_file f;
  CRYO_CALL(open_file(&f, path, "grid file", err));
  *periodic_x = f.periodic_x;
  *fold = f.fold;
  nc_close(f.ncid);
  return CRYO_OK;
}

/* Variable `name` with dimensions (y, x), or (y, x, 4) when ncorner is 4:
 * its id, or *found = 0 when it is absent and `optional`. */
static int find_var(const gf_file *f, const char *name, int ncorner, int optional,
                    const char *meaning, int *id, int *found) {
  int s = nc_inq_varid(f->ncid, name, id);
  *found = s == NC_NOERR;
  if (s == NC_ENOTVAR) {
    CRYO_CHECK(optional, f->err, CRYO_ERR_MISSING, "%s has no variable '%s' (%s)", f->where, name,
               meaning);
    return CRYO_OK;
  }
  CRYO_NC(s, f->err, "%s: variable '%s'", f->where, name);
  int ndims = 0, dims[NC_MAX_VAR_DIMS];
  CRYO_NC(nc_inq_varndims(f->ncid, *id, &ndims), f->err, "%s: variable '%s'", f->where, name);
  CRYO_NC(nc_inq_vardimid(f->ncid, *id, dims), f->err, "%s: variable '%s'", f->where, name);
  const int want = ncorner > 1 ? 3 : 2;
  int ok = ndims == want && dims[0] == f->dim_y && dims[1] == f->dim_x;
  /* "y, x = 4, 4": the names and sizes found, for the message */
  char names[4 * (NC_MAX_NAME + 2)] = "", sizes[4 * 24] = "";
  for (int k = 0; k < ndims && k < 4; ++k) {
    char dn[NC_MAX_NAME + 1];
    size_t len;
    CRYO_NC(nc_inq_dim(f->ncid, dims[k], dn, &len), f->err, "%s: variable '%s'", f->where, name);
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", dn);
    snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu", k ? ", " : "", len);
    if (k == 2) ok = ok && len == NV;
  }
  CRYO_CHECK(ok, f->err, CRYO_ERR_FORMAT,
             "%s: variable '%s' has dimensions (%s%s) = (%s); it must be (y, x%s) = (%d, %d%s)%s",
             f->where, name, names, ndims > 4 ? ", ..." : "", sizes, ncorner > 1 ? ", nv" : "",
             f->ny, f->nx, ncorner > 1 ? ", 4" : "",
             ncorner > 1 ? " (the corner dimension may have any name)" : "");
  return CRYO_OK;
}

/* The units attribute of `var`, if present, must be one of `allowed`;
 * returns in *which the index of the match (-1: absent). */
static int check_units(const gf_file *f, int id, const char *var, const char *const *allowed,
                       const char *expect, int required, int *which) {
  char units[ATT_LEN];
  int present;
  CRYO_CALL(text_att(f, id, var, "units", units, &present));
  *which = -1;
  for (int k = 0; present && allowed[k]; ++k)
    if (!strcasecmp(units, allowed[k])) *which = k;
  CRYO_CHECK(present || !required, f->err, CRYO_ERR_FORMAT,
             "%s: variable '%s' has no 'units' attribute (it must say %s)", f->where, var, expect);
  CRYO_CHECK(!present || *which >= 0, f->err, CRYO_ERR_FORMAT,
             "%s: variable '%s' has units '%s'; they must be %s (convert the data)", f->where, var,
             units, expect);
  return CRYO_OK;
}

/* Read the window of variable `id` (ncorner values per cell) into out,
 * unpacked (cryo_ncvar.h); a missing or non-finite value is an error. */
static int read_window(const gf_file *f, int id, const char *name, int ncorner, const gf_window *w,
                       double *out) {
  char where[CRYO_ERR_MSG_LEN / 2 + NC_MAX_NAME + 32];
  snprintf(where, sizeof where, "%s: variable '%s'", f->where, name);
  cryo_ncvar nv;
  CRYO_CALL(cryo_ncvar_open(&nv, f->ncid, id, where, f->err));
  size_t start[3] = {(size_t)w->gj0, (size_t)w->gi0, 0};
  size_t count[3] = {(size_t)w->nj, (size_t)w->ni, NV};
  CRYO_NC(nc_get_vara_double(f->ncid, id, start, count, out), f->err, "%s", where);
  const char *fill;
  long bad = cryo_ncvar_unpack(&nv, out, (long)w->ni * w->nj * ncorner, &fill);
  if (bad < 0) return CRYO_OK;
  long q = bad / ncorner;
  char corner[32] = "";
  if (ncorner > 1) snprintf(corner, sizeof corner, ", corner %ld", bad % ncorner);
  int gi = w->gi0 + (int)(q % w->ni), gj = w->gj0 + (int)(q / w->ni);
  CRYO_CHECK(fill, f->err, CRYO_ERR_DATA, "%s at cell (i, j) = (%d, %d)%s: non-finite value %g",
             where, gi, gj, corner, out[bad]);
  return CRYO_ERROR(f->err, CRYO_ERR_DATA, "%s at cell (i, j) = (%d, %d)%s: fill value %g (%s)",
                    where, gi, gj, corner, out[bad], fill);
}

static int check_latitudes(const gf_file *f, const gf_window *w, const char *name, int ncorner,
                           const double *v) {
  for (long q = 0; q < (long)w->ni * w->nj * ncorner; ++q) {
    if (v[q] >= -90.0 && v[q] <= 90.0) continue;
    /* the label only for the value named: 56 million labels at 2 km cost seconds */
    long c = q / ncorner;
    char corner[32] = "";
    if (ncorner > 1) snprintf(corner, sizeof corner, ", corner %ld", q % ncorner);
    return CRYO_ERROR(f->err, CRYO_ERR_DATA,
                      "%s: variable '%s' at cell (i, j) = (%d, %d)%s is %g; latitudes must be in "
                      "[-90, 90] degrees_north",
                      f->where, name, w->gi0 + (int)(c % w->ni), w->gj0 + (int)(c / w->ni), corner,
                      v[q]);
  }
  return CRYO_OK;
}

/* Whether two copies of one coordinate of a node agree: lon modulo 360 and
 * not at the poles (lat_a, lat_b), lat, or planar within the tolerance
 * relative to the coordinates and the cell size `size`. */
static int agree(const gf_file *f, int is_lon, double a, double b, double lat_a, double lat_b,
                 double size, double *tol) {
  if (!f->spherical) {
    *tol = CORNER_TOL * fmax(fmax(fabs(a), fabs(b)), size);
    return fabs(a - b) <= *tol;
  }
  *tol = CORNER_TOL;
  /* a difference within the tolerance is its own remainder modulo 360 */
  if (!is_lon || fabs(a - b) <= *tol) return fabs(a - b) <= *tol;
  if (fabs(lat_a) > POLE_LAT || fabs(lat_b) > POLE_LAT) return 1;
  return fabs(remainder(a - b, 360.0)) <= *tol;
}

/* Corner ka of cell qa of window wa and corner kb of cell qb of window wb
 * are the same node of the grid: neighbours (across = NULL), or the images
 * of each other across the seam or the fold (across names it). */
static int check_same(const gf_file *f, const gf_window *wa, long qa, int ka, const gf_window *wb,
                      long qb, int kb, const char *across) {
  const double *ax = wa->bx, *ay = wa->by;
  /* the cell size scales the planar tolerance only (a hypot for each of
   * the 56 million pairs of the 2 km Arctic otherwise) */
  double size =
      f->spherical ? 0.0 : hypot(ax[qa * NV + 2] - ax[qa * NV], ay[qa * NV + 2] - ay[qa * NV]);
  const int gia = wa->gi0 + (int)(qa % wa->ni), gja = wa->gj0 + (int)(qa / wa->ni);
  const int gib = wb->gi0 + (int)(qb % wb->ni), gjb = wb->gj0 + (int)(qb / wb->ni);
  for (int c = 0; c < 2; ++c) {
    const double a = (c ? ay : ax)[qa * NV + ka], b = (c ? wb->by : wb->bx)[qb * NV + kb];
    double tol;
    if (agree(f, c == 0, a, b, ay[qa * NV + ka], wb->by[qb * NV + kb], size, &tol)) continue;
    if (!across)
      return CRYO_ERROR(f->err, CRYO_ERR_DATA,
                        "%s: variable '%s': corner %d of cell (i, j) = (%d, %d) is %.10g but "
                        "corner %d of its neighbour (%d, %d) is %.10g; they are the same node and "
                        "must agree within %g%s",
                        f->where, c ? f->by : f->bx, ka, gia, gja, a, kb, gib, gjb, b, tol,
                        f->spherical ? " degrees" : " m");
    return CRYO_ERROR(
        f->err, CRYO_ERR_DATA,
        "%s: variable '%s': %s: corner %d of cell (i, j) = (%d, %d) is %.10g but "
        "corner %d of cell (%d, %d), the same node %s, is %.10g; they must agree "
        "within %g%s",
        f->where, c ? f->by : f->bx,
        strstr(across, "fold") ? "the north fold does not match" : "the seam does not close", ka,
        gia, gja, a, kb, gib, gjb, across, b, tol, f->spherical ? " degrees" : " m");
  }
  return CRYO_OK;
}

static int check_shared(const gf_file *f, const gf_window *w, long qa, int ka, long qb, int kb) {
  return check_same(f, w, qa, ka, w, qb, kb, NULL);
}

/* Rows [j0, j1) of the window: each cell's corners against its east and
 * north neighbours'. */
static int check_neighbours(const gf_file *f, const gf_window *w, int j0, int j1) {
  for (int j = j0; j < j1; ++j)
    for (int i = 0; i < w->ni; ++i) {
      long q = (long)j * w->ni + i;
      if (i + 1 < w->ni) {
        CRYO_CALL(check_shared(f, w, q, 1, q + 1, 0));
        CRYO_CALL(check_shared(f, w, q, 2, q + 1, 3));
      }
      if (j + 1 < w->nj) {
        CRYO_CALL(check_shared(f, w, q, 3, q + w->ni, 0));
        CRYO_CALL(check_shared(f, w, q, 2, q + w->ni, 1));
      }
    }
  return CRYO_OK;
}

/* A point of the grid as a 3-vector: on the unit sphere, or (x, y, 0) m. */
static void position(int spherical, double x, double y, double p[3]) {
  if (spherical) {
    double lon = x * deg, lat = y * deg;
    p[0] = cos(lat) * cos(lon);
    p[1] = cos(lat) * sin(lon);
    p[2] = sin(lat);
  } else {
    p[0] = x;
    p[1] = y;
    p[2] = 0.0;
  }
}

static void sub(const double a[3], const double b[3], double out[3]) {
  for (int k = 0; k < 3; ++k)
    out[k] = a[k] - b[k];
}

/* (a x b) . n */
static double triple(const double a[3], const double b[3], const double n[3]) {
  return (a[1] * b[2] - a[2] * b[1]) * n[0] + (a[2] * b[0] - a[0] * b[2]) * n[1] +
         (a[0] * b[1] - a[1] * b[0]) * n[2];
}

static double norm(const double a[3]) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* The shape of one cell: corners p, outward normal n, edges e (e[k] from
 * corner k to k + 1), their lengths. */
typedef struct cell_shape {
  double p[NV][3], n[3], e[NV][3], len[NV];
} cell_shape;

/* Edges, lengths and normal of a cell whose corners s->p are set. */
static void shape_edges(const gf_file *f, cell_shape *s) {
  for (int k = 0; k < NV; ++k) {
    sub(s->p[(k + 1) % NV], s->p[k], s->e[k]);
    s->len[k] = norm(s->e[k]);
  }
  s->n[0] = s->n[1] = 0.0;
  s->n[2] = 1.0;
  if (f->spherical) {
    for (int c = 0; c < 3; ++c)
      s->n[c] = s->p[0][c] + s->p[1][c] + s->p[2][c] + s->p[3][c];
    double m = norm(s->n);
    for (int c = 0; c < 3; ++c)
      s->n[c] = m > 0 ? s->n[c] / m : 0.0;
  }
}

static void shape_of(const gf_file *f, const gf_window *w, long q, cell_shape *s) {
  for (int k = 0; k < NV; ++k)
    position(f->spherical, w->bx[q * NV + k], w->by[q * NV + k], s->p[k]);
  shape_edges(f, s);
}

/* A node's position as computed for one cell's copy of it, with the
 * coordinates it came from. */
typedef struct node_position {
  double x, y, p[3];
  int set;
} node_position;

/* shape_of for the cells of a window in order, row by row: rows[r][i] holds
 * the last position computed for node column i of node rows j and j + 1
 * (r = row & 1). A corner whose coordinates are bit for bit those of the
 * copy held takes its position (position() depends on them alone, so the
 * bits are the same); the corners shared by neighbours, equal in a
 * generated grid, then cost one position instead of four (on the 2 km
 * Arctic 56 million sines and cosines, most of the cells' check). */
static void shape_of_cached(const gf_file *f, const gf_window *w, long q, node_position *rows[2],
                            cell_shape *s) {
  static const int di[NV] = {0, 1, 1, 0}, dj[NV] = {0, 0, 1, 1};
  const int i = (int)(q % w->ni), j = (int)(q / w->ni);
  for (int k = 0; k < NV; ++k) {
    const double x = w->bx[q * NV + k], y = w->by[q * NV + k];
    node_position *n = &rows[(j + dj[k]) & 1][i + di[k]];
    if (!n->set || memcmp(&n->x, &x, sizeof x) || memcmp(&n->y, &y, sizeof y)) {
      position(f->spherical, x, y, n->p);
      n->x = x, n->y = y, n->set = 1;
    }
    memcpy(s->p[k], n->p, sizeof n->p);
  }
  shape_edges(f, s);
}

/* "(lon, lat) = (a, b), (c, d), (e, f), (g, h)" of cell q into out, for
 * messages (built only when one is written). */
static const char *corner_list(const gf_file *f, const gf_window *w, long q, char *out,
                               size_t len) {
  int n = snprintf(out, len, "(%s, %s) = ", f->bx, f->by);
  for (int k = 0; k < NV && n > 0 && (size_t)n < len; ++k)
    n += snprintf(out + n, len - (size_t)n, "%s(%.10g, %.10g)", k ? ", " : "", w->bx[q * NV + k],
                  w->by[q * NV + k]);
  return out;
}

/* Whether cell (gi, gj) is a pivot of a T fold: its top edge is its bottom
 * edge reversed, so its corners enclose nothing. */
static int t_pivot_cell(const gf_file *f, int gi, int gj) {
  return f->fold == CRYO_FOLD_T && gj == f->ny - 1 && (gi == 0 || gi == f->nx / 2);
}

/* Degenerate, folded or clockwise cells, and centres outside their cell;
 * rows: shape_of_cached's positions. */
static int check_cell(const gf_file *f, const gf_window *w, long q, node_position *rows[2]) {
  const int gi = w->gi0 + (int)(q % w->ni), gj = w->gj0 + (int)(q / w->ni);
  const char *up = f->spherical ? "outside the sphere" : "+z";
  char corners[320];
  cell_shape s;
  shape_of_cached(f, w, q, rows, &s);
  double longest = fmax(fmax(s.len[0], s.len[1]), fmax(s.len[2], s.len[3]));
  for (int k = 0; k < NV; ++k)
    CRYO_CHECK(s.len[k] > 1e-9 * longest, f->err, CRYO_ERR_DATA,
               "%s: variables '%s', '%s': cell (i, j) = (%d, %d) is degenerate: its corners %d "
               "and %d are the same point; corners %s",
               f->where, f->bx, f->by, gi, gj, k, (k + 1) % NV,
               corner_list(f, w, q, corners, sizeof corners));
  /* the turn at each corner, seen from outside: all left (> 0) for a convex
   * counterclockwise cell */
  int left = 0, right = 0, odd = -1;
  double sine[NV];
  for (int k = 0; k < NV; ++k) {
    sine[k] = triple(s.e[(k + NV - 1) % NV], s.e[k], s.n) / (s.len[(k + NV - 1) % NV] * s.len[k]);
    left += sine[k] > TURN_TOL;
    right += sine[k] < -TURN_TOL;
  }
  CRYO_CHECK(left || right, f->err, CRYO_ERR_DATA,
             "%s: variables '%s', '%s': cell (i, j) = (%d, %d) is degenerate: its corners lie on "
             "a line (no area); corners %s",
             f->where, f->bx, f->by, gi, gj, corner_list(f, w, q, corners, sizeof corners));
  CRYO_CHECK(right < NV, f->err, CRYO_ERR_DATA,
             "%s: variables '%s', '%s': the corners of cell (i, j) = (%d, %d) run clockwise seen "
             "from %s; they must run counterclockwise, (i, j), (i+1, j), (i+1, j+1), (i, j+1), "
             "with j increasing to the left of i (reverse the y dimension of the file); "
             "corners %s",
             f->where, f->bx, f->by, gi, gj, up, corner_list(f, w, q, corners, sizeof corners));
  for (int k = 0; k < NV && odd < 0; ++k)
    if (!(sine[k] > TURN_TOL)) odd = k;
  CRYO_CHECK(left == NV, f->err, CRYO_ERR_DATA,
             "%s: variables '%s', '%s': cell (i, j) = (%d, %d) is folded or not convex: its "
             "boundary turns %s at corner %d (sine %.3g) but left at %d other corner%s (seen from "
             "%s); corners %s",
             f->where, f->bx, f->by, gi, gj, sine[odd] < 0 ? "right" : "not at all", odd,
             odd >= 0 ? sine[odd] : 0.0, left, left == 1 ? "" : "s", up,
             corner_list(f, w, q, corners, sizeof corners));
  double c[3], d[3];
  position(f->spherical, w->cx[q], w->cy[q], c);
  for (int k = 0; k < NV; ++k) {
    sub(c, s.p[k], d);
    CRYO_CHECK(triple(s.e[k], d, s.n) > 0.0, f->err, CRYO_ERR_DATA,
               "%s: variables '%s', '%s': the centre (%.10g, %.10g) of cell (i, j) = (%d, %d) "
               "lies outside its corners %s (beyond the edge from corner %d to %d)",
               f->where, f->cx, f->cy, w->cx[q], w->cy[q], gi, gj,
               corner_list(f, w, q, corners, sizeof corners), k, (k + 1) % NV);
  }
  return CRYO_OK;
}

/* Rows [j0, j1) of the window: check_cell for every cell but a fold's
 * pivots, in order. */
static int check_cells(const gf_file *f, const gf_window *w, int j0, int j1) {
  node_position *rows[2] = {calloc((size_t)w->ni + 1, sizeof(node_position)),
                            calloc((size_t)w->ni + 1, sizeof(node_position))};
  int status = rows[0] && rows[1]
                   ? CRYO_OK
                   : CRYO_ERROR(f->err, CRYO_ERR_MEMORY, "%s: out of memory", f->where);
  for (long q = (long)j0 * w->ni; q < (long)j1 * w->ni && status == CRYO_OK; ++q)
    if (!t_pivot_cell(f, w->gi0 + (int)(q % w->ni), w->gj0 + (int)(q / w->ni)))
      status = check_cell(f, w, q, rows);
  free(rows[0]);
  free(rows[1]);
  return status;
}

/* One band of rows of a check: the file with its own error. */
typedef struct check_band {
  gf_file f;
  const gf_window *w;
  int (*check)(const gf_file *, const gf_window *, int, int);
  int j0, j1, status;
  cryo_err err;
} check_band;

static void check_band_run(void *arg, int band) {
  check_band *c = (check_band *)arg + band;
  c->status = c->check(&c->f, c->w, c->j0, c->j1);
}

/* check over the window's rows in bands (cryo_threads_run); the first band in
 * row order that fails gives the error. */
static int check_in_bands(const gf_file *f, const gf_window *w,
                          int (*check)(const gf_file *, const gf_window *, int, int)) {
  int nband = cryo_threads_available();
  if (nband > w->nj / 2) nband = w->nj / 2;
  check_band *band = nband > 1 ? calloc((size_t)nband, sizeof *band) : NULL;
  if (!band) return check(f, w, 0, w->nj);
  for (int t = 0; t < nband; ++t) {
    band[t].f = *f;
    band[t].f.err = &band[t].err;
    band[t].w = w;
    band[t].check = check;
    band[t].j0 = (int)((long)w->nj * t / nband);
    band[t].j1 = (int)((long)w->nj * (t + 1) / nband);
  }
  cryo_threads_run(nband, check_band_run, band);
  int status = CRYO_OK;
  for (int t = 0; t < nband && status == CRYO_OK; ++t)
    if (band[t].status != CRYO_OK) {
      *f->err = band[t].err;
      status = band[t].status;
    }
  free(band);
  return status;
}

/* The direction of the grid's i axis at the centre of cell q, radians
 * counterclockwise from east: from the middle of the cell's (i) edge to the
 * middle of its (i+1) edge. */
static double i_direction(const gf_file *f, const gf_window *w, long q) {
  cell_shape s;
  shape_of(f, w, q, &s);
  double e[3];
  for (int c = 0; c < 3; ++c)
    e[c] = s.p[1][c] + s.p[2][c] - s.p[0][c] - s.p[3][c];
  if (!f->spherical) return atan2(e[1], e[0]);
  double lon = w->cx[q] * deg, lat = w->cy[q] * deg;
  double east = -sin(lon) * e[0] + cos(lon) * e[1];
  double north = -sin(lat) * cos(lon) * e[0] - sin(lat) * sin(lon) * e[1] + cos(lat) * e[2];
  return atan2(north, east);
}

/* Area enclosed by the corners of cell q, m2: half the cross product of the
 * diagonals (exact for a planar quadrilateral; on the sphere, the chords'
 * quadrilateral, close to the cell's area for any cell a grid file holds). */
static double corner_area(const gf_file *f, const gf_window *w, long q, double radius) {
  cell_shape s;
  shape_of(f, w, q, &s);
  double d0[3], d1[3];
  sub(s.p[2], s.p[0], d0);
  sub(s.p[3], s.p[1], d1);
  double a = 0.5 * triple(d0, d1, s.n);
  return f->spherical ? a * radius * radius : a;
}

static int check_optional(const gf_file *f, const gf_window *w, double radius) {
  for (long q = 0; q < (long)w->ni * w->nj; ++q) {
    const int gi = w->gi0 + (int)(q % w->ni), gj = w->gj0 + (int)(q / w->ni);
    if (t_pivot_cell(f, gi, gj)) {
      CRYO_CHECK(w->mask && w->mask[q] == 0.0, f->err, CRYO_ERR_DATA,
                 "%s: cell (i, j) = (%d, %d) is a pivot of the north fold (north_fold = 'T'): "
                 "its corners enclose nothing, so it must be land (variable 'mask' = 0%s)",
                 f->where, gi, gj, w->mask ? "" : "; the file has no mask");
      continue;
    }
    if (w->mask)
      CRYO_CHECK(w->mask[q] == 0.0 || w->mask[q] == 1.0, f->err, CRYO_ERR_DATA,
                 "%s: variable 'mask' at cell (i, j) = (%d, %d) is %g; it must be 1 (ocean) or 0 "
                 "(land)",
                 f->where, gi, gj, w->mask[q]);
    if (w->area) {
      double a = corner_area(f, w, q, radius);
      CRYO_CHECK(w->area[q] > 0.0, f->err, CRYO_ERR_DATA,
                 "%s: variable 'area' at cell (i, j) = (%d, %d) is %g m2; it must be > 0", f->where,
                 gi, gj, w->area[q]);
      CRYO_CHECK(w->area[q] <= AREA_FACTOR * a && a <= AREA_FACTOR * w->area[q], f->err,
                 CRYO_ERR_DATA,
                 "%s: variable 'area' at cell (i, j) = (%d, %d) is %g m2 but its corners enclose "
                 "%g m2 (%s %g m): more than a factor %g apart (units other than m2?)",
                 f->where, gi, gj, w->area[q], a,
                 f->spherical ? "on the sphere of radius" : "in the plane, a cell of width",
                 f->spherical ? radius : sqrt(a), AREA_FACTOR);
    }
    if (w->angle && !(f->spherical && fabs(w->cy[q]) > POLE_LAT)) {
      double got = w->angle[q] * w->angle_unit, want = i_direction(f, w, q);
      double diff = remainder(got - want, 2.0 * M_PI) / deg;
      CRYO_CHECK(fabs(diff) <= ANGLE_TOL, f->err, CRYO_ERR_DATA,
                 "%s: variable 'angle' at cell (i, j) = (%d, %d) is %g %s (%.4f degrees from "
                 "east) but the cell's corners give %.4f degrees: more than %g degree apart",
                 f->where, gi, gj, w->angle[q], w->angle_unit == 1.0 ? "radians" : "degrees",
                 got / deg + 0.0, want / deg + 0.0, ANGLE_TOL);
    }
  }
  return CRYO_OK;
}

static void window_free(gf_window *w) {
  free(w->cx);
  free(w->cy);
  free(w->bx);
  free(w->by);
  free(w->mask);
  free(w->area);
  free(w->angle);
  memset(w, 0, sizeof *w);
}

/* Read the window of every variable and check it. */
static int read_checked(const gf_file *f, gf_window *w, double radius) {
  static const char *const lon_units[] = {"degrees_east", "degree_east", "degrees_E", "degree_E",
                                          "degreesE",     "degreeE",     NULL};
  static const char *const lat_units[] = {"degrees_north", "degree_north", "degrees_N", "degree_N",
                                          "degreesN",      "degreeN",      NULL};
  static const char *const m_units[] = {"m", "metre", "meter", "metres", "meters", NULL};
  static const char *const m2_units[] = {"m2", "m^2", "m**2", "square_metres", "square_meters",
                                         NULL};
  static const char *const angle_units[] = {"radians", "degrees", "radian", "degree",
                                            "rad",     "deg",     NULL};
  const long n = (long)w->ni * w->nj;
  w->cx = malloc((size_t)n * sizeof(double));
  w->cy = malloc((size_t)n * sizeof(double));
  w->bx = malloc((size_t)n * NV * sizeof(double));
  w->by = malloc((size_t)n * NV * sizeof(double));
  CRYO_CHECK(w->cx && w->cy && w->bx && w->by, f->err, CRYO_ERR_MEMORY,
             "%s: out of memory for %ld cells", f->where, n);
  const struct {
    const char *name;
    int ncorner;
    double *out;
    const char *meaning;
    const char *const *units;
    const char *expect;
  } coords[4] = {
      {f->cx, 1, w->cx, f->spherical ? "longitude of the cell centres" : "x of the cell centres",
       f->spherical ? lon_units : m_units, f->spherical ? "'degrees_east'" : "'m'"},
      {f->cy, 1, w->cy, f->spherical ? "latitude of the cell centres" : "y of the cell centres",
       f->spherical ? lat_units : m_units, f->spherical ? "'degrees_north'" : "'m'"},
      {f->bx, NV, w->bx, "the cell corners: bounds of the centres", NULL, NULL},
      {f->by, NV, w->by, "the cell corners: bounds of the centres", NULL, NULL},
  };
  for (int v = 0; v < 4; ++v) {
    int id, found, which;
    CRYO_CALL(find_var(f, coords[v].name, coords[v].ncorner, 0, coords[v].meaning, &id, &found));
    if (coords[v].units)
      CRYO_CALL(check_units(f, id, coords[v].name, coords[v].units, coords[v].expect, 0, &which));
    CRYO_CALL(read_window(f, id, coords[v].name, coords[v].ncorner, w, coords[v].out));
  }
  double t0 = MPI_Wtime();
  if (f->spherical) {
    CRYO_CALL(check_latitudes(f, w, f->cy, 1, w->cy));
    CRYO_CALL(check_latitudes(f, w, f->by, NV, w->by));
  }
  w->check_seconds += MPI_Wtime() - t0;
  const struct {
    const char *name;
    double **out;
    const char *const *units;
    const char *expect;
  } extras[3] = {{"mask", &w->mask, NULL, NULL},
                 {"area", &w->area, m2_units, "'m2'"},
                 {"angle", &w->angle, angle_units, "'radians' or 'degrees'"}};
  for (int v = 0; v < 3; ++v) {
    int id, found, which = -1;
    CRYO_CALL(find_var(f, extras[v].name, 1, 1, "", &id, &found));
    if (!found) continue;
    if (extras[v].units)
      CRYO_CALL(check_units(f, id, extras[v].name, extras[v].units, extras[v].expect,
                            extras[v].out == &w->angle, &which));
    if (extras[v].out == &w->angle) w->angle_unit = which % 2 ? deg : 1.0;
    *extras[v].out = malloc((size_t)n * sizeof(double));
    CRYO_CHECK(*extras[v].out, f->err, CRYO_ERR_MEMORY, "%s: out of memory", f->where);
    CRYO_CALL(read_window(f, id, extras[v].name, 1, w, *extras[v].out));
  }
  t0 = MPI_Wtime();
  CRYO_CALL(check_in_bands(f, w, check_neighbours));
  CRYO_CALL(check_in_bands(f, w, check_cells));
  int status = check_optional(f, w, radius);
  w->check_seconds += MPI_Wtime() - t0;
  return status;
}

/* Fill gf from the window read: nodes, cells, corners in block layouts. */
static int fill(const gf_file *f, const gf_window *w, const cryo_block *b, cryo_gridfile *gf) {
  const long nnode = (long)(b->nx + 5) * (b->ny + 5), ncell = CRYO_NCELL(b);
  gf->node_x = calloc((size_t)nnode, sizeof(double));
  gf->node_y = calloc((size_t)nnode, sizeof(double));
  gf->node_ok = calloc((size_t)nnode, 1);
  gf->cell_x = calloc((size_t)ncell, sizeof(double));
  gf->cell_y = calloc((size_t)ncell, sizeof(double));
  gf->cell_ok = calloc((size_t)ncell, 1);
  gf->mask = calloc((size_t)ncell, sizeof(double));
  gf->area = calloc((size_t)ncell, sizeof(double));
  CRYO_CHECK(gf->node_x && gf->node_y && gf->node_ok && gf->cell_x && gf->cell_y && gf->cell_ok &&
                 gf->mask && gf->area,
             f->err, CRYO_ERR_MEMORY, "%s: out of memory", f->where);
  const int nxg = f->nx, nyg = f->ny;
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      /* across the seam of a periodic grid, the node of the first columns */
      const int gi = f->periodic_x ? (b->i0 + i + nxg) % nxg : b->i0 + i, gj = b->j0 + j;
      if (gi < 0 || gj < 0 || gi > nxg || gj > nyg) continue;
      /* corner 0 of cell (gi, gj), or at the top and right edges of the grid
       * corner 1, 2 or 3 of the last cell: the same cell on every rank */
      const int ci = gi < nxg ? gi : nxg - 1, cj = gj < nyg ? gj : nyg - 1;
      static const int corner_at[2][2] = {{0, 1}, {3, 2}}; /* [gj - cj][gi - ci] */
      const int k = corner_at[gj - cj][gi - ci];
      const long q = (long)(cj - w->gj0) * w->ni + (ci - w->gi0);
      const long p = (long)(j + 2) * (b->nx + 5) + i + 2;
      gf->node_x[p] = w->bx[q * NV + k];
      gf->node_y[p] = w->by[q * NV + k];
      gf->node_ok[p] = 1;
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const int gi = f->periodic_x ? (b->i0 + i + nxg) % nxg : b->i0 + i, gj = b->j0 + j;
      if (gi < 0 || gj < 0 || gi >= nxg || gj >= nyg) continue;
      const long q = (long)(gj - w->gj0) * w->ni + (gi - w->gi0), c = CRYO_CELL(b, i, j);
      gf->cell_x[c] = w->cx[q];
      gf->cell_y[c] = w->cy[q];
      gf->cell_ok[c] = 1;
      gf->mask[c] = w->mask ? w->mask[q] : 1.0;
      gf->area[c] = w->area ? w->area[q] : NAN;
    }
  return CRYO_OK;
}

/* The corners of cells [gi0, gi0 + ni) x [gj0, gj0 + nj) alone. */
static int read_corners(const gf_file *f, int gi0, int gj0, int ni, int nj, gf_window *w) {
  *w = (gf_window){.gi0 = gi0, .gj0 = gj0, .ni = ni, .nj = nj};
  w->bx = malloc((size_t)ni * nj * NV * sizeof(double));
  w->by = malloc((size_t)ni * nj * NV * sizeof(double));
  CRYO_CHECK(w->bx && w->by, f->err, CRYO_ERR_MEMORY, "%s: out of memory", f->where);
  for (int c = 0; c < 2; ++c) {
    int id, found;
    const char *name = c ? f->by : f->bx;
    CRYO_CALL(find_var(f, name, NV, 0, "the cell corners", &id, &found));
    CRYO_CALL(read_window(f, id, name, NV, w, c ? w->by : w->bx));
  }
  return CRYO_OK;
}

/* The seam (where the window holds the first column: each of its rows) and
 * the fold (where it holds the top row: each of its columns there), against
 * the cells across them, read apart. */
static int check_closure(const gf_file *f, const gf_window *w) {
  int status = CRYO_OK;
  gf_window e = {0}, top = {0};
  if (f->periodic_x && w->gi0 == 0) {
    status = read_corners(f, f->nx - 1, w->gj0, 1, w->nj, &e);
    for (int j = 0; j < w->nj && status == CRYO_OK; ++j) {
      const long q = (long)j * w->ni;
      status = check_same(f, &e, j, 1, w, q, 0, "across the seam (periodic_x = 1)");
      if (status == CRYO_OK)
        status = check_same(f, &e, j, 2, w, q, 3, "across the seam (periodic_x = 1)");
    }
  }
  if (status == CRYO_OK && f->fold && w->gj0 + w->nj == f->ny) {
    status = read_corners(f, 0, f->ny - 1, f->nx, 1, &top);
    const int t = f->fold == CRYO_FOLD_T;
    const char *across =
        t ? "across the north fold (north_fold = 'T')" : "across the north fold (north_fold = 'F')";
    for (int i = 0; i < w->ni && status == CRYO_OK; ++i) {
      /* corners 3 and 2 of the top cell: T, corners 1 and 0 of cell nx - i;
       * F, corners 2 and 3 of cell nx - 1 - i */
      const int gi = w->gi0 + i, image = t ? (f->nx - gi) % f->nx : f->nx - 1 - gi;
      const long q = (long)(w->nj - 1) * w->ni + i;
      if (t && t_pivot_cell(f, gi, f->ny - 1)) continue;
      status = check_same(f, w, q, 3, &top, image, t ? 1 : 2, across);
      if (status == CRYO_OK) status = check_same(f, w, q, 2, &top, image, t ? 0 : 3, across);
    }
  }
  window_free(&e);
  window_free(&top);
  return status;
}

static int read_grid(gf_file *f, const cryo_block *b, double radius, cryo_gridfile *gf) {
  CRYO_CHECK(f->nx == b->nx_global && f->ny == b->ny_global, f->err, CRYO_ERR_FORMAT,
             "%s has (y, x) = (%d, %d) cells but the grid has (ny, nx) = (%d, %d)", f->where, f->ny,
             f->nx, b->ny_global, b->nx_global);
  gf_window w = {0};
  /* cells [-2, nx+2] x [-2, ny+2] of the block, clipped to the file; whole
   * rows of a periodic grid, whose rings wrap around the seam */
  const int gi0 = b->i0 - 2 > 0 && !f->periodic_x ? b->i0 - 2 : 0;
  const int gj0 = b->j0 - 2 > 0 ? b->j0 - 2 : 0;
  const int gi1 = b->i0 + b->nx + 2 < f->nx - 1 && !f->periodic_x ? b->i0 + b->nx + 2 : f->nx - 1;
  const int gj1 = b->j0 + b->ny + 2 < f->ny - 1 ? b->j0 + b->ny + 2 : f->ny - 1;
  w.gi0 = gi0;
  w.gj0 = gj0;
  w.ni = gi1 - gi0 + 1;
  w.nj = gj1 - gj0 + 1;
  int status = read_checked(f, &w, radius);
  double t0 = MPI_Wtime();
  /* the seam's and the fold's few corners are read and checked here */
  if (status == CRYO_OK) status = check_closure(f, &w);
  const double t1 = MPI_Wtime();
  if (status == CRYO_OK) status = fill(f, &w, b, gf);
  gf->check_seconds = w.check_seconds + (t1 - t0);
  gf->layout_seconds = MPI_Wtime() - t1;
  if (status == CRYO_OK) {
    /* the corners stay as read, the window holding every owned cell: a
     * copy in block layout touched 64 bytes a cell more (0.9 GB at 2 km) */
    gf->corner_x = w.bx;
    gf->corner_y = w.by;
    gf->corner_first = (long)(b->j0 - w.gj0) * w.ni + (b->i0 - w.gi0);
    gf->corner_row = w.ni;
    w.bx = w.by = NULL;
  }
  window_free(&w);
  return status;
}

int cryo_gridfile_read(const char *path, const char *source, const cryo_block *b, double radius,
                       double omega, double f_plane, cryo_gridfile *gf, cryo_err *err) {
  memset(gf, 0, sizeof *gf);
  CRYO_CHECK(radius > 0.0 && isfinite(radius), err, CRYO_ERR_ARG,
             "%s '%s': the sphere's radius %g m must be > 0", source, path, radius);
  gf_file f;
  CRYO_CALL(open_file(&f, path, source, err));
  int status = read_grid(&f, b, radius, gf);
  nc_close(f.ncid);
  if (status != CRYO_OK) {
    cryo_gridfile_free(gf);
    return status;
  }
  gf->points = (cryo_seaice_grid_points){.spherical = f.spherical,
                                         .radius = radius,
                                         .omega = omega,
                                         .f_plane = f_plane,
                                         .node_x = gf->node_x,
                                         .node_y = gf->node_y,
                                         .node_ok = gf->node_ok,
                                         .cell_x = gf->cell_x,
                                         .cell_y = gf->cell_y,
                                         .cell_ok = gf->cell_ok};
  return CRYO_OK;
}

void cryo_gridfile_free(cryo_gridfile *gf) {
  if (!gf) return;
  free(gf->node_x);
  free(gf->node_y);
  free(gf->node_ok);
  free(gf->cell_x);
  free(gf->cell_y);
  free(gf->cell_ok);
  free(gf->corner_x);
  free(gf->corner_y);
  free(gf->mask);
  free(gf->area);
  memset(gf, 0, sizeof *gf);
}

int cryo_gridfile_ocean_counts(const char *path, long *col, long *row, int *has_mask,
                               cryo_err *err) {
  gf_file f;
  CRYO_CALL(open_file(&f, path, "grid file", err));
  int id, status = find_var(&f, "mask", 1, 1, "", &id, has_mask);
  const int band = 256;
  double *v = status == CRYO_OK && *has_mask ? malloc((size_t)band * f.nx * sizeof *v) : NULL;
  if (status == CRYO_OK && *has_mask && !v)
    status = CRYO_ERROR(err, CRYO_ERR_MEMORY, "%s: out of memory for the mask", f.where);
  if (status == CRYO_OK && *has_mask) {
    memset(col, 0, (size_t)f.nx * sizeof *col);
    memset(row, 0, (size_t)f.ny * sizeof *row);
    for (int j0 = 0; j0 < f.ny && status == CRYO_OK; j0 += band) {
      const gf_window w = {
          .gi0 = 0, .gj0 = j0, .ni = f.nx, .nj = j0 + band < f.ny ? band : f.ny - j0};
      status = read_window(&f, id, "mask", 1, &w, v);
      for (long q = 0; status == CRYO_OK && q < (long)w.ni * w.nj; ++q)
        if (v[q] == 1.0) {
          ++col[q % w.ni];
          ++row[j0 + q / w.ni];
        }
    }
  }
  free(v);
  nc_close(f.ncid);
  return status;
}
