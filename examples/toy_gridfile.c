/* A cryodyn grid file as the toy ocean's grid (examples/toy_gridfile.h). */
#include "toy_gridfile.h"

#include <math.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>

/* A NetCDF status as a cryodyn one, naming the file and what was read. */
static int nc_check(int s, const char *path, const char *what, cryo_err *err) {
  CRYO_CHECK(s == NC_NOERR, err, CRYO_ERR_NETCDF, "cryodyn-toy-ocean: grid file %s: %s: %s", path,
             what, nc_strerror(s));
  return CRYO_OK;
}

/* Length of dimension `name`, which must exist. */
static int dim_len(int ncid, const char *path, const char *name, int *len, cryo_err *err) {
  int id;
  size_t n;
  CRYO_CHECK(nc_inq_dimid(ncid, name, &id) == NC_NOERR, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-ocean: grid file %s has no dimension '%s' (cryodyn's grid-file "
             "format: y, x, nv)",
             path, name);
  CRYO_CALL(nc_check(nc_inq_dimlen(ncid, id, &n), path, name, err));
  CRYO_CHECK(n >= 1 && n <= 100000, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-ocean: grid file %s: dimension '%s' has length %zu, not 1 to 1e5", path,
             name, n);
  *len = (int)n;
  return CRYO_OK;
}

/* Double variable `name` of n values into out. */
static int read_doubles(int ncid, const char *path, const char *name, double *out, cryo_err *err) {
  int id;
  CRYO_CHECK(nc_inq_varid(ncid, name, &id) == NC_NOERR, err, CRYO_ERR_MISSING,
             "cryodyn-toy-ocean: grid file %s has no variable '%s' (needed: lon, lat, lon_bnds, "
             "lat_bnds, area; scripts/make_grid.py --area writes them)",
             path, name);
  return nc_check(nc_get_var_double(ncid, id, out), path, name, err);
}

static int read_topology(int ncid, const char *path, toy_gridfile *g, cryo_err *err) {
  int periodic = 0;
  if (nc_get_att_int(ncid, NC_GLOBAL, "periodic_x", &periodic) != NC_NOERR) periodic = 0;
  CRYO_CHECK(periodic == 0 || periodic == 1, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-ocean: grid file %s: periodic_x = %d, must be 0 or 1", path, periodic);
  g->periodic_x = periodic;
  size_t len = 0;
  char fold[8] = "";
  if (nc_inq_attlen(ncid, NC_GLOBAL, "north_fold", &len) == NC_NOERR) {
    CRYO_CHECK(len < sizeof fold, err, CRYO_ERR_FORMAT,
               "cryodyn-toy-ocean: grid file %s: north_fold is longer than 'none'", path);
    CRYO_CALL(nc_check(nc_get_att_text(ncid, NC_GLOBAL, "north_fold", fold), path,
                       "attribute north_fold", err));
    fold[len] = '\0';
  }
  g->fold = !strcmp(fold, "T") ? 'T' : !strcmp(fold, "F") ? 'F' : 0;
  CRYO_CHECK(g->fold || !fold[0] || !strcmp(fold, "none"), err, CRYO_ERR_FORMAT,
             "cryodyn-toy-ocean: grid file %s: north_fold = '%s', expected T, F or none", path,
             fold);
  return CRYO_OK;
}

/* lon shifted by whole turns to within 180 degrees of ref. */
static double lon_near(double lon, double ref) {
  return lon - 360.0 * round((lon - ref) / 360.0);
}

static int read_open(int ncid, const char *path, toy_gridfile *g, cryo_err *err) {
  int nv;
  CRYO_CALL(dim_len(ncid, path, "x", &g->nx, err));
  CRYO_CALL(dim_len(ncid, path, "y", &g->ny, err));
  CRYO_CALL(dim_len(ncid, path, "nv", &nv, err));
  CRYO_CHECK(nv == 4, err, CRYO_ERR_FORMAT,
             "cryodyn-toy-ocean: grid file %s: nv = %d, the cells must have 4 corners", path, nv);
  CRYO_CALL(read_topology(ncid, path, g, err));
  const size_t n = (size_t)g->nx * g->ny;
  g->lon = malloc(sizeof(double) * n * 11);
  g->oasis_mask = malloc(sizeof(int) * n);
  signed char *mask = malloc(n);
  if (!g->lon || !g->oasis_mask || !mask) {
    free(mask);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "cryodyn-toy-ocean: no memory for grid file %s", path);
  }
  g->lat = g->lon + n;
  g->area = g->lon + 2 * n;
  g->clon = g->lon + 3 * n;
  g->clat = g->lon + 7 * n;
  double *bnds = malloc(sizeof(double) * n * 4);
  int status = bnds ? CRYO_OK
                    : CRYO_ERROR(err, CRYO_ERR_MEMORY,
                                 "cryodyn-toy-ocean: no memory for grid file %s", path);
  const char *const names[2] = {"lon_bnds", "lat_bnds"};
  double *corners[2] = {g->clon, g->clat};
  if (status == CRYO_OK) status = read_doubles(ncid, path, "lon", g->lon, err);
  if (status == CRYO_OK) status = read_doubles(ncid, path, "lat", g->lat, err);
  if (status == CRYO_OK) status = read_doubles(ncid, path, "area", g->area, err);
  for (int c = 0; c < 2 && status == CRYO_OK; ++c) {
    status = read_doubles(ncid, path, names[c], bnds, err);
    for (size_t q = 0; q < n && status == CRYO_OK; ++q)
      for (int k = 0; k < 4; ++k)
        corners[c][k * n + q] = c == 0 ? lon_near(bnds[4 * q + k], g->lon[q]) : bnds[4 * q + k];
  }
  free(bnds);
  int id;
  if (status == CRYO_OK && nc_inq_varid(ncid, "mask", &id) == NC_NOERR)
    status = nc_check(nc_get_var_schar(ncid, id, mask), path, "mask", err);
  else if (status == CRYO_OK)
    memset(mask, 1, n);
  for (int j = 0; j < g->ny && status == CRYO_OK; ++j)
    for (int i = 0; i < g->nx; ++i) {
      const int copy = g->fold == 'T' && j == g->ny - 1 && i > g->nx / 2;
      g->oasis_mask[(size_t)j * g->nx + i] = mask[(size_t)j * g->nx + i] != 0 && !copy ? 0 : 1;
    }
  free(mask);
  return status;
}

int toy_gridfile_read(const char *path, toy_gridfile *g, cryo_err *err) {
  memset(g, 0, sizeof *g);
  int ncid;
  CRYO_CHECK(nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR, err, CRYO_ERR_FILE,
             "cryodyn-toy-ocean: --gridfile %s: cannot open it as NetCDF", path);
  int status = read_open(ncid, path, g, err);
  nc_close(ncid);
  return status;
}

void toy_gridfile_free(toy_gridfile *g) {
  free(g->lon);
  free(g->oasis_mask);
  g->lon = g->lat = g->area = g->clon = g->clat = NULL;
  g->oasis_mask = NULL;
}
