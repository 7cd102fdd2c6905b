/* &cryo_run task = 'invert' (docs/landice.md, Basal inversion): observed
 * surface velocities from &cryo_invert obs_file, the L-BFGS inversion of
 * kernels/landice_invert.c on the component's state, the per-iteration log
 * and the result, a file of sliding_c that &cryo_landice fields_file reads
 * back. */
#include "cryo_invert.h"

#include "cryo_impl.h"
#include "cryo_namelist.h"
#include "cryo_ncvar.h"

#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct cryo_invert {
  double *u_obs, *v_obs, *weight; /* node fields (device) */
  double *work;                   /* cryo_landice_invert_doubles, a cell field of nlev levels */
  long n_obs;                     /* observed nodes, each image once */
  int done, stop, nlog;
  cryo_landice_invert_log *log; /* max_iter + 1 records */
};

static const char *const stop_names[] = {[CRYO_LANDICE_STOP_GTOL] = "gradient norm (gtol)",
                                         [CRYO_LANDICE_STOP_FTOL] = "relative cost decrease (ftol)",
                                         [CRYO_LANDICE_STOP_DISCREPANCY] = "discrepancy principle",
                                         [CRYO_LANDICE_STOP_MAX_ITER] = "max_iter",
                                         [CRYO_LANDICE_STOP_LINE_SEARCH] =
                                             "line search found no decrease"};

/* The observation variables and what they hold. */
enum { OBS_U, OBS_V, OBS_SIGMA, OBS_NVAR };
static const char *const obs_names[OBS_NVAR] = {"u_obs", "v_obs", "sigma"};
/* The plausible range of a velocity and its uncertainty, m a-1: the fastest
 * outlet glaciers flow about 2e4 m a-1; 1e5 is the default max_speed. */
#define OBS_MAX 1e5

/* Rank 0: variable `var` of the open obs file into g ((ny + 1) (nx + 1)
 * nodes, row-major): dimensions (y_node, x_node) of the model's nodes, units
 * those of the model's surface velocity, every value present and finite,
 * sigma > 0. */
static int read_obs_var(cryo_component *c, int ncid, const char *path, int k, const char *units,
                        double *g) {
  const cryo_block *b = &c->grid.block;
  const char *var = obs_names[k];
  const size_t want[2] = {(size_t)b->ny_global + 1, (size_t)b->nx_global + 1};
  int id, ndims = 0, dims[NC_MAX_VAR_DIMS];
  CRYO_CHECK(nc_inq_varid(ncid, var, &id) == NC_NOERR, &c->err, CRYO_ERR_MISSING,
             "&cryo_invert obs_file %s: no variable '%s' (u_obs, v_obs and sigma are needed)", path,
             var);
  CRYO_NC(nc_inq_varndims(ncid, id, &ndims), &c->err, "obs_file %s: '%s'", path, var);
  CRYO_NC(nc_inq_vardimid(ncid, id, dims), &c->err, "obs_file %s: '%s'", path, var);
  int ok = ndims == 2;
  char names[2][NC_MAX_NAME + 1] = {"", ""};
  size_t len[2] = {0, 0};
  for (int d = 0; d < 2 && d < ndims; ++d) {
    CRYO_NC(nc_inq_dim(ncid, dims[d], names[d], &len[d]), &c->err, "obs_file %s: '%s'", path, var);
    ok = ok && !strcmp(names[d], d ? "x_node" : "y_node") && len[d] == want[d];
  }
  CRYO_CHECK(ok, &c->err, CRYO_ERR_FORMAT,
             "&cryo_invert obs_file %s: '%s' has %d dimensions (%s, %s) = (%zu, %zu); it must be "
             "(y_node, x_node) = (%zu, %zu), the model's nodes as its output file writes them",
             path, var, ndims, names[0], names[1], len[0], len[1], want[0], want[1]);
  char where[CRYO_ERR_MSG_LEN / 2], got[NC_MAX_NAME + 1] = "";
  snprintf(where, sizeof where, "&cryo_invert obs_file %s: '%s'", path, var);
  size_t ulen = 0;
  nc_type type = NC_NAT;
  int s = nc_inq_att(ncid, id, "units", &type, &ulen);
  if (s == NC_NOERR && type == NC_CHAR && ulen < sizeof got)
    CRYO_NC(nc_get_att_text(ncid, id, "units", got), &c->err, "%s: units", where);
  CRYO_CHECK(!strcmp(got, units), &c->err, CRYO_ERR_FORMAT,
             "%s: units \"%s\", must be \"%s\" (the model's surface velocity)", where, got, units);
  cryo_ncvar nv;
  CRYO_CALL(cryo_ncvar_open(&nv, ncid, id, where, &c->err));
  CRYO_NC(nc_get_var_double(ncid, id, g), &c->err, "%s", where);
  const long n = (long)(want[0] * want[1]), nxn = (long)want[1];
  const char *fill;
  long bad = cryo_ncvar_unpack(&nv, g, n, &fill);
  CRYO_CHECK(bad < 0, &c->err, CRYO_ERR_DATA, "%s at (y_node, x_node) = (%ld, %ld): %s %g%s%s%s",
             where, bad / nxn, bad % nxn, fill ? "missing value" : "non-finite value", g[bad],
             fill ? " (" : "", fill ? fill : "", fill ? ")" : "");
  for (long q = 0; q < n && k == OBS_SIGMA; ++q)
    CRYO_CHECK(g[q] > 0.0, &c->err, CRYO_ERR_DATA,
               "%s at (y_node, x_node) = (%ld, %ld) is %g %s: the uncertainty must be > 0", where,
               q / nxn, q % nxn, g[q], units);
  for (long q = 0; q < n; ++q)
    CRYO_CHECK(fabs(g[q]) <= OBS_MAX, &c->err, CRYO_ERR_DATA,
               "%s at (y_node, x_node) = (%ld, %ld) is %g %s, must be in [%g, %g]", where, q / nxn,
               q % nxn, g[q], units, k == OBS_SIGMA ? 0.0 : -OBS_MAX, OBS_MAX);
  return CRYO_OK;
}

/* Rank 0: the three variables into g (OBS_NVAR planes of n nodes), sigma
 * turned into the weight 1 / sigma^2, periodic images set to their owners'
 * values (the file's image row and column are not read). */
static int read_obs(cryo_component *c, const char *path, const char *units, double *g, size_t n) {
  const cryo_block *b = &c->grid.block;
  int ncid;
  int s = nc_open(path, NC_NOWRITE, &ncid);
  if (s != NC_NOERR)
    return cryo_nc_error(s, CRYO_ERR_FILE, &c->err, "&cryo_invert obs_file %s", path);
  int status = CRYO_OK;
  for (int k = 0; k < OBS_NVAR && status == CRYO_OK; ++k)
    status = read_obs_var(c, ncid, path, k, units, g + k * n);
  nc_close(ncid);
  CRYO_CALL(status);
  const int nxn = b->nx_global + 1, nyn = b->ny_global + 1;
  for (size_t q = 0; q < n; ++q)
    g[OBS_SIGMA * n + q] = 1.0 / (g[OBS_SIGMA * n + q] * g[OBS_SIGMA * n + q]);
  for (int k = 0; k < OBS_NVAR; ++k) {
    double *a = g + k * n;
    for (int j = 0; j < nyn && b->periodic_x; ++j)
      a[(long)j * nxn + nxn - 1] = a[(long)j * nxn];
    for (int i = 0; i < nxn && b->periodic_y; ++i)
      a[(long)(nyn - 1) * nxn + i] = a[i];
  }
  return CRYO_OK;
}

int cryo_invert_create(cryo_component *c, cryo_invert **out) {
  const cryo_block *b = &c->grid.block;
  const cryo_landice_params *p = &c->cfg.landice.p;
  cryo_invert_config *ic = &c->cfg.invert;
  cryo_invert *inv = calloc(1, sizeof *inv);
  CRYO_CHECK(inv, &c->err, CRYO_ERR_MEMORY, "out of memory for the inversion");
  *out = inv;
  inv->log = calloc((size_t)ic->opts.max_iter + 1, sizeof *inv->log);
  CRYO_CHECK(inv->log, &c->err, CRYO_ERR_MEMORY, "out of memory for the inversion log");
  const char *units = c->fields[cryo_field_find(c, "u_surf")].units;
  CRYO_CALL(cryo_field_add(c, "u_obs", units, "", "observed surface velocity, x component",
                           CRYO_AT_NODE, 1, CRYO_ROLE_WORK, &inv->u_obs));
  CRYO_CALL(cryo_field_add(c, "v_obs", units, "", "observed surface velocity, y component",
                           CRYO_AT_NODE, 1, CRYO_ROLE_WORK, &inv->v_obs));
  CRYO_CALL(cryo_field_add(c, "obs_weight", "(365 day)2/m2", "",
                           "weight 1 / sigma^2 of the observed velocity", CRYO_AT_NODE, 1,
                           CRYO_ROLE_WORK, &inv->weight));
  const long doubles = cryo_landice_invert_doubles(b, p, ic->opts.memory);
  const long ncell = CRYO_NCELL(b);
  CRYO_CALL(cryo_field_add(c, "invert_work", "1", "", "L-BFGS vectors (work space)", CRYO_AT_CELL,
                           (int)((doubles + ncell - 1) / ncell), CRYO_ROLE_WORK, &inv->work));
  const size_t n = (size_t)(b->nx_global + 1) * (b->ny_global + 1);
  double *g = malloc(OBS_NVAR * n * sizeof *g);
  CRYO_CHECK(g, &c->err, CRYO_ERR_MEMORY, "out of memory reading %s", ic->obs_file);
  int status = c->rank == 0 ? read_obs(c, ic->obs_file, units, g, n) : CRYO_OK;
  status = cryo_status_from_root(c, status);
  const char *fields[OBS_NVAR] = {"u_obs", "v_obs", "obs_weight"};
  for (int k = 0; k < OBS_NVAR && status == CRYO_OK; ++k) {
    cryo_field *f = &c->fields[cryo_field_find(c, fields[k])];
    status = cryo_status_agree(
        c, cryo_grid_scatter(&c->grid, CRYO_AT_NODE, 1, g + k * n, f->host, &c->err));
    if (status == CRYO_OK) cryo_field_to_device(c, f);
  }
  free(g);
  /* each observed node once: a periodic direction's last node is an image */
  inv->n_obs = (long)(b->nx_global + !b->periodic_x) * (b->ny_global + !b->periodic_y);
  ic->opts.misfit_target = ic->discrepancy * (double)inv->n_obs;
  return status;
}

/* Rank 0: log_file, one line per accepted iterate. A path that exists as
 * anything but a regular file is left alone. */
static int write_log(cryo_component *c, const cryo_invert *inv) {
  const char *path = c->cfg.invert.log_file;
  struct stat st;
  if (!path[0]) return CRYO_OK;
  CRYO_CHECK(lstat(path, &st) != 0 || S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
             "%s: &cryo_invert log_file '%s' exists and is not a regular file but %s: it is left "
             "as it is",
             c->cfg.source, path, cryo_file_kind(st.st_mode));
  FILE *f = fopen(path, "w");
  CRYO_CHECK(f, &c->err, CRYO_ERR_FILE, "%s: &cryo_invert log_file '%s': cannot create: %s",
             c->cfg.source, path, strerror(errno));
  fprintf(f,
          "# cryodyn basal inversion (docs/landice.md, Basal inversion): one line per accepted "
          "L-BFGS iterate, 0 the first guess; N_obs = %ld nodes\n"
          "# iter cost misfit regularization grad_norm step evaluations adjoint_cg\n",
          inv->n_obs);
  for (int k = 0; k < inv->nlog; ++k) {
    const cryo_landice_invert_log *r = &inv->log[k];
    fprintf(f, "%d %.12e %.12e %.12e %.6e %.6g %d %d\n", r->iter, r->cost, r->misfit,
            r->regularization, r->grad_norm, r->step, r->evaluations, r->adjoint_iterations);
  }
  fprintf(f, "# stop: %s\n", stop_names[inv->stop]);
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  CRYO_CHECK(!bad, &c->err, CRYO_ERR_FILE, "&cryo_invert log_file '%s': write failed", path);
  return CRYO_OK;
}

/* Rank 0: result_file, sliding_c (y, x) with the geometry file's names and
 * units, and the cell-centre coordinates; global holds the gathered cells. */
static int write_result(cryo_component *c, const cryo_invert *inv, const cryo_field *f,
                        const double *global) {
  const cryo_block *b = &c->grid.block;
  const char *path = c->cfg.invert.result_file;
  struct stat st;
  CRYO_CHECK(lstat(path, &st) != 0 || S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
             "%s: &cryo_invert result_file '%s' exists and is not a regular file but %s: it is "
             "left as it is",
             c->cfg.source, path, cryo_file_kind(st.st_mode));
  int ncid, dy, dx, vx, vy, vc, dims[2];
  CRYO_NC(nc_create(path, NC_64BIT_OFFSET | NC_CLOBBER, &ncid), &c->err,
          "&cryo_invert result_file %s", path);
  const cryo_landice_invert_log *last = &inv->log[inv->nlog - 1];
  const double stats[3] = {last->cost, last->misfit, last->regularization};
  int s = nc_def_dim(ncid, "y", (size_t)b->ny_global, &dy);
  if (s == NC_NOERR) s = nc_def_dim(ncid, "x", (size_t)b->nx_global, &dx);
  if (s == NC_NOERR) s = nc_def_var(ncid, "x", NC_DOUBLE, 1, &dx, &vx);
  if (s == NC_NOERR) s = nc_def_var(ncid, "y", NC_DOUBLE, 1, &dy, &vy);
  if (s == NC_NOERR) s = nc_put_att_text(ncid, vx, "units", 1, "m");
  if (s == NC_NOERR) s = nc_put_att_text(ncid, vy, "units", 1, "m");
  dims[0] = dy;
  dims[1] = dx;
  if (s == NC_NOERR) s = nc_def_var(ncid, f->name, NC_DOUBLE, 2, dims, &vc);
  if (s == NC_NOERR) s = nc_put_att_text(ncid, vc, "units", strlen(f->units), f->units);
  if (s == NC_NOERR) s = nc_put_att_text(ncid, vc, "long_name", strlen(f->long_name), f->long_name);
  if (s == NC_NOERR)
    s = nc_put_att_text(ncid, NC_GLOBAL, "title", 44,
                        "cryodyn basal inversion: sliding_c of cells");
  if (s == NC_NOERR)
    s = nc_put_att_text(ncid, NC_GLOBAL, "source", strlen(c->cfg.source), c->cfg.source);
  if (s == NC_NOERR)
    s = nc_put_att_text(ncid, NC_GLOBAL, "stop", strlen(stop_names[inv->stop]),
                        stop_names[inv->stop]);
  if (s == NC_NOERR) s = nc_put_att_int(ncid, NC_GLOBAL, "iterations", NC_INT, 1, &last->iter);
  if (s == NC_NOERR)
    s = nc_put_att_double(ncid, NC_GLOBAL, "cost_misfit_regularization", NC_DOUBLE, 3, stats);
  if (s == NC_NOERR) s = nc_enddef(ncid);
  for (int i = 0; i < b->nx_global && s == NC_NOERR; ++i) {
    double x = (i + 0.5) * b->dx;
    s = nc_put_var1_double(ncid, vx, (size_t[]){(size_t)i}, &x);
  }
  for (int j = 0; j < b->ny_global && s == NC_NOERR; ++j) {
    double y = (j + 0.5) * b->dy;
    s = nc_put_var1_double(ncid, vy, (size_t[]){(size_t)j}, &y);
  }
  if (s == NC_NOERR) s = nc_put_var_double(ncid, vc, global);
  int sc = nc_close(ncid);
  CRYO_NC(s, &c->err, "&cryo_invert result_file %s", path);
  CRYO_NC(sc, &c->err, "&cryo_invert result_file %s: closing", path);
  return CRYO_OK;
}

int cryo_invert_run(cryo_component *c, cryo_invert *inv, cryo_landice_state *s) {
  const cryo_block *b = &c->grid.block;
  const cryo_invert_config *ic = &c->cfg.invert;
  cryo_field *f = &c->fields[cryo_field_find(c, "sliding_c")];
  /* the first guess is what sliding_c holds: a file's, a host's, a
   * restart's or the namelist's uniform value (filled at create) */
  f->given = 1;
  const cryo_landice_misfit obs = {inv->u_obs, inv->v_obs, inv->weight, ic->gamma,
                                   ic->adjoint_rtol};
  CRYO_CALL(cryo_landice_invert(b, &c->cfg.landice.p, s, &c->ops, &obs, &ic->opts, inv->work,
                                inv->log, ic->opts.max_iter + 1, &inv->nlog, &inv->stop, &c->err));
  inv->done = 1;
  cryo_field_to_host(c, f);
  double *global = c->rank == 0 ? malloc(sizeof(double) * b->nx_global * b->ny_global) : NULL;
  int status = c->rank == 0 && !global
                   ? CRYO_ERROR(&c->err, CRYO_ERR_MEMORY, "out of memory writing the result")
                   : CRYO_OK;
  status = cryo_status_agree(c, status);
  if (status == CRYO_OK)
    status =
        cryo_status_agree(c, cryo_grid_gather(&c->grid, CRYO_AT_CELL, 1, f->host, global, &c->err));
  if (status == CRYO_OK && c->rank == 0) {
    status = write_log(c, inv);
    if (status == CRYO_OK) status = write_result(c, inv, f, global);
  }
  free(global);
  return cryo_status_from_root(c, status);
}

void cryo_invert_summary(const cryo_invert *inv, char *buf, int len) {
  buf[0] = '\0';
  if (!inv->done || len <= 0) return;
  const cryo_landice_invert_log *r = &inv->log[inv->nlog - 1];
  snprintf(buf, (size_t)len,
           "  inversion: %d iterations, %d evaluations, stop: %s; J %.6e misfit %.6e (N_obs %ld) "
           "regularization %.6e",
           r->iter, r->evaluations, stop_names[inv->stop], r->cost, r->misfit, inv->n_obs,
           r->regularization);
}

void cryo_invert_destroy(cryo_invert **inv) {
  if (!*inv) return;
  free((*inv)->log);
  free(*inv);
  *inv = NULL;
}
