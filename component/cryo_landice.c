/* The land-ice dynamical core inside the component (docs/landice.md):
 * state arrays from the kernels' table, analytic geometry, mass-balance
 * forcing through the exchange layer, and per coupling interval the
 * first-order Stokes solve and (optionally) thickness evolution. */
#include "cryo_check.h"
#include "cryo_exchange.h"
#include "cryo_impl.h"
#include "cryo_invert.h"
#include "cryo_namelist.h"
#include "cryo_input.h"
#include "cryo_ncvar.h"

#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* Sent besides the thickness: computed per coupling step into cell fields. */
static const int result_ids[2] = {CRYO_F_USURF, CRYO_F_ICEMASK};

typedef struct landice_model {
  cryo_landice_state s;
  int smb_field, melt_field;
  int analytic, host, coupled;
  int thk_field;       /* the state's thickness, sent as it is */
  int result_field[2]; /* usurf, icemask (cell fields for an atmosphere), -1 if none */
  double *results[2];
  double *altitude[2];          /* true surface and bed elevation, for output */
  cryo_landice_newton_log *log; /* the last solve's steps, newton_max_iter + 1 records */
  int nlog;
  long long solves, newton_steps, cg_iterations; /* over the run */
  FILE *solver_log;                              /* rank 0, &cryo_landice solver_log */
  cryo_invert *invert;                           /* task = 'invert', else NULL */
} landice_model;

static const cryo_role roles[] = {[CRYO_LANDICE_PROGNOSTIC] = CRYO_ROLE_PROGNOSTIC,
                                  [CRYO_LANDICE_FORCING] = CRYO_ROLE_FORCING,
                                  [CRYO_LANDICE_STATIC] = CRYO_ROLE_STATIC,
                                  [CRYO_LANDICE_DIAGNOSTIC] = CRYO_ROLE_DIAGNOSTIC,
                                  [CRYO_LANDICE_WORK] = CRYO_ROLE_WORK,
                                  [CRYO_LANDICE_PARAMETER] = CRYO_ROLE_PARAMETER};

/* The parameter fields (docs/landice.md, Basal and rheology fields), with
 * their CRYO_LANDICE_GIVEN_* bits; beta2, a node field, is given by the
 * geometry file's or a host's values alone (the kernels always read it). */
static const char *const param_fields[3] = {"rate_factor", "sliding_c", "coulomb_c"};
static const unsigned param_bits[3] = {CRYO_LANDICE_GIVEN_RATE_FACTOR, CRYO_LANDICE_GIVEN_SLIDING_C,
                                       CRYO_LANDICE_GIVEN_COULOMB_C};

/* The kernels' CRYO_LANDICE_GIVEN_* bits of the fields given so far. */
static unsigned given_bits(const cryo_component *c) {
  unsigned bits = 0;
  for (int k = 0; k < 3; ++k)
    if (c->fields[cryo_field_find(c, param_fields[k])].given) bits |= param_bits[k];
  return bits;
}

/* Global cell (i, j) wrapped where periodic, else clamped to the domain. */
static double cell_value(const cryo_block *b, const double *g, int i, int j) {
  int nx = b->nx_global, ny = b->ny_global;
  i = b->periodic_x ? (i % nx + nx) % nx : i < 0 ? 0 : i >= nx ? nx - 1 : i;
  j = b->periodic_y ? (j % ny + ny) % ny : j < 0 ? 0 : j >= ny ? ny - 1 : j;
  return g[(long)j * nx + i];
}

/* Planes of the geometry file's global arrays, in reading order. */
enum { GEOM_THK, GEOM_TOPG, GEOM_BETA2, GEOM_USRF, GEOM_MASK, GEOM_NVAR };

/* The checks of global cell q (row-major) of the geometry planes g (n cells
 * each) beyond the plausible ranges: thk in [0, 1e4] m; calving_mask 0 or 1
 * and no ice (thk >= min_thickness) where it is 0; where usrf is given, the
 * ice's lower surface usrf - thk either rests on the bed or, for marine ice,
 * floats at z_sl - (rho_i / rho_w) thk, each within tol = 1e-6 max(1, |usrf|,
 * |thk|, |topg|) m. Records the first failure in c->err. */
static int check_geometry_cell(cryo_component *c, const char *path, const double *g, size_t n,
                               const int *found, size_t q) {
  const cryo_landice_params *p = &c->cfg.landice.p;
  size_t y = q / c->grid.block.nx_global, x = q % c->grid.block.nx_global;
  double thk = g[GEOM_THK * n + q], topg = g[GEOM_TOPG * n + q], mask = g[GEOM_MASK * n + q];
  CRYO_CHECK(thk >= 0.0, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: thk at (y, x) = (%zu, %zu) is %g m: thickness must be >= 0 "
             "(0 = ice-free)",
             path, y, x, thk);
  CRYO_CHECK(thk <= 1e4, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: 'thk' at (y, x) = (%zu, %zu) is %g, must be in [0, 10000]", path, y,
             x, thk);
  CRYO_CHECK(mask == 0.0 || mask == 1.0, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: calving_mask at (y, x) = (%zu, %zu) is %g: must be 0 (ice removed) "
             "or 1 (ice may exist)",
             path, y, x, mask);
  int ice = thk >= p->min_thickness;
  int kept = p->marine && p->calve_floating &&
             p->rho_ice * thk + p->rho_water * (topg - p->sea_level) > 0.0;
  CRYO_CHECK(!ice || mask == 1.0 || kept, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: thk at (y, x) = (%zu, %zu) is %g m (>= min_thickness = %g m) where "
             "calving_mask is 0: ice outside the calving mask%s",
             path, y, x, thk, p->min_thickness,
             p->marine && p->calve_floating ? " that floats (calving = 'floating')" : "");
  if (!ice || !found[GEOM_USRF]) return CRYO_OK;
  double usrf = g[GEOM_USRF * n + q], base = usrf - thk;
  double tol = 1e-6 * fmax(1.0, fmax(fabs(usrf), fmax(thk, fabs(topg))));
  CRYO_CHECK(base >= topg - tol, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: at (y, x) = (%zu, %zu) the bed is above the ice's lower surface: "
             "usrf - thk = %g - %g = %.9g m < topg = %.9g m (tolerance %g m)",
             path, y, x, usrf, thk, base, topg, tol);
  if (base <= topg + tol) return CRYO_OK; /* grounded */
  CRYO_CHECK(
      p->marine, &c->err, CRYO_ERR_DATA,
      "geometry_file %s: at (y, x) = (%zu, %zu) the ice does not rest on its bed (usrf - thk "
      "= %g - %g = %.9g m > topg = %.9g m): floating ice needs marine = .true. in "
      "&cryo_landice",
      path, y, x, usrf, thk, base, topg);
  /* rho_i thk > rho_w (z_sl - base) <=> base > z_sl - (rho_i / rho_w) thk */
  double afloat = p->sea_level - p->rho_ice / p->rho_water * thk;
  CRYO_CHECK(
      base <= afloat + tol, &c->err, CRYO_ERR_DATA,
      "geometry_file %s: at (y, x) = (%zu, %zu) shelf thicker than flotation allows with "
      "rho_ice = %g, rho_water = %g kg m-3, sea_level = %g m: thk = %g m, but with its lower "
      "surface at usrf - thk = %.9g m at most rho_water / rho_ice (sea_level - (usrf - thk)) "
      "= %.9g m of ice floats (tolerance %g m on the lower surface)",
      path, y, x, p->rho_ice, p->rho_water, p->sea_level, thk, base,
      p->rho_water / p->rho_ice * (p->sea_level - base), tol);
  CRYO_CHECK(base >= afloat - tol, &c->err, CRYO_ERR_DATA,
             "geometry_file %s: at (y, x) = (%zu, %zu) the floating ice is not hydrostatic: its "
             "lower surface usrf - thk = %.9g m is below the flotation level sea_level - rho_ice / "
             "rho_water thk = %.9g m (thk = %g m, rho_ice = %g, rho_water = %g kg m-3; tolerance "
             "%g m): the shelf is thinner than its draft needs",
             path, y, x, base, afloat, thk, p->rho_ice, p->rho_water, tol);
  return CRYO_OK;
}

/* &cryo_landice case = 'file' (namelists/README.md, &cryo_landice, its
 * geometry file paragraph): cell-centred thickness `thk` (m, >= 0; cells
 * thinner than min_thickness are ice-free) and bed `topg` (m, dims (y, x)),
 * optional basal friction `beta2` (Pa a m-1), surface `usrf` (m, checked
 * against thk and topg, not stored) and `calving_mask` (0 or 1, absent = 1).
 * Node bed and beta2 are the means of the 4 surrounding cells, node
 * thickness and surface those of the thickness kernels
 * (cryo_landice_thickness_nodes: the mean of the surrounding ice cells). Surface and bed
 * sit on a plane tilted by background_slope degrees in x (like the ISMIP-HOM
 * cases, so that a periodic geometry can flow). Read and checked on rank 0,
 * broadcast; every rank returns rank 0's error. */
static int read_geometry(cryo_component *c) {
  const cryo_block *b = &c->grid.block;
  const cryo_landice_params *lp = &c->cfg.landice.p;
  const char *path = c->cfg.landice.geometry_file;
  size_t n = (size_t)b->nx_global * b->ny_global;
  double *g = malloc(GEOM_NVAR * n * sizeof *g);
  CRYO_CHECK(g, &c->err, CRYO_ERR_MEMORY, "out of memory reading %s", path);
  int status = CRYO_OK, found[GEOM_NVAR] = {1, 1, 0, 0, 0};
  if (c->rank == 0) {
    int ncid = -1, s = nc_open(path, NC_NOWRITE, &ncid);
    if (s != NC_NOERR) status = cryo_nc_error(s, CRYO_ERR_FILE, &c->err, "geometry_file %s", path);
    static const char *const names[GEOM_NVAR] = {"thk", "topg", "beta2", "usrf", "calving_mask"};
    /* Plausible ranges (namelists/README.md): beds and surfaces between the
     * deepest trench and the highest summit, friction as the namelist's
     * beta2; thk (at most 10 km, 5 km observed) and calving_mask are
     * checked per cell below with their own messages. */
    static const double lo[GEOM_NVAR] = {-HUGE_VAL, -1.2e4, 0.0, -1.2e4, -HUGE_VAL};
    static const double hi[GEOM_NVAR] = {HUGE_VAL, 1e4, 1e12, 1e4, HUGE_VAL};
    for (int k = 0; k < GEOM_NVAR && status == CRYO_OK; ++k)
      status = cryo_read_global_cells(c, ncid, path, "geometry_file", names[k], k >= GEOM_BETA2,
                                      lo[k], hi[k], g + k * n, &found[k]);
    if (status == CRYO_OK && !found[GEOM_MASK])
      for (size_t q = 0; q < n; ++q)
        g[GEOM_MASK * n + q] = 1.0;
    for (size_t q = 0; q < n && status == CRYO_OK; ++q)
      status = check_geometry_cell(c, path, g, n, found, q);
    if (ncid >= 0) nc_close(ncid);
  }
  status = cryo_status_from_root(c, status);
  if (status == CRYO_OK) {
    status = cryo_mpi_check(MPI_Bcast(found, GEOM_NVAR, MPI_INT, 0, c->comm),
                            "MPI_Bcast (geometry)", &c->err);
  }
  if (status == CRYO_OK) {
    status = cryo_mpi_check(MPI_Bcast(g, (int)(GEOM_NVAR * n), MPI_DOUBLE, 0, c->comm),
                            "MPI_Bcast (geometry)", &c->err);
  }
  if (status == CRYO_OK) {
    const char *names[6] = {"thk", "thk_node", "bed", "usrf", "beta2", "calving_mask"};
    cryo_field *f[6];
    for (int k = 0; k < 6; ++k)
      f[k] = &c->fields[cryo_field_find(c, names[k])];
    for (int j = -1; j <= b->ny; ++j)
      for (int i = -1; i <= b->nx; ++i) {
        f[0]->host[CRYO_CELL(b, i, j)] = cell_value(b, g + GEOM_THK * n, b->i0 + i, b->j0 + j);
        f[5]->host[CRYO_CELL(b, i, j)] = cell_value(b, g + GEOM_MASK * n, b->i0 + i, b->j0 + j);
      }
    for (int j = -1; j <= b->ny + 1; ++j)
      for (int i = -1; i <= b->nx + 1; ++i) {
        long q = CRYO_NODE(b, i, j);
        int gi = b->i0 + i, gj = b->j0 + j;
        double v[3];
        for (int k = GEOM_TOPG; k <= GEOM_BETA2; ++k) {
          const double *a = g + k * n;
          v[k] = 0.25 * (cell_value(b, a, gi - 1, gj - 1) + cell_value(b, a, gi, gj - 1) +
                         cell_value(b, a, gi - 1, gj) + cell_value(b, a, gi, gj));
        }
        f[2]->host[q] = v[GEOM_TOPG];
        f[4]->host[q] = found[GEOM_BETA2] ? v[GEOM_BETA2] : lp->beta2;
      }
    for (int k = 0; k < 6; ++k)
      cryo_field_to_device(c, f[k]);
    f[4]->given = found[GEOM_BETA2];
    cryo_landice_thickness_nodes(b, lp, f[0]->dev, f[2]->dev, f[1]->dev, f[3]->dev);
    double *h[2] = {f[1]->dev, f[3]->dev};
    status = c->ops.halo(c->ops.ctx, CRYO_AT_NODE, 1, 2, h);
    c->cfg.landice.p.slope_x = -tan(c->cfg.landice.background_slope * M_PI / 180.0);
    c->cfg.landice.p.slope_y = 0.0;
  }
  free(g);
  return status;
}

/* The parameter fields of the geometry file or of fields_file (`what`, the
 * namelist key of `path`; docs/landice.md, Basal and rheology fields):
 * optional rate_factor (layer, y, x) and sliding_c, coulomb_c (y, x), each
 * with its namelist key's units and range (the fields' lo, hi); a field
 * present is given, an absent one keeps its value so far. Read and checked on
 * rank 0, broadcast; halo cells from the global arrays, as read_geometry
 * fills thk. */
static int read_parameter_fields(cryo_component *c, const char *path, const char *what) {
  const cryo_block *b = &c->grid.block;
  const int nz = c->cfg.landice.p.n_layers;
  const size_t n = (size_t)b->nx_global * b->ny_global;
  const int first[3] = {0, nz, nz + 1}; /* the fields' first plane in g */
  double *g = malloc((size_t)(nz + 2) * n * sizeof *g);
  CRYO_CHECK(g, &c->err, CRYO_ERR_MEMORY, "out of memory reading %s", path);
  int status = CRYO_OK, found[3] = {0, 0, 0};
  if (c->rank == 0) {
    int ncid = -1, s = nc_open(path, NC_NOWRITE, &ncid);
    if (s != NC_NOERR) status = cryo_nc_error(s, CRYO_ERR_FILE, &c->err, "%s %s", what, path);
    for (int v = 0; v < 3 && status == CRYO_OK; ++v) {
      const cryo_field *f = &c->fields[cryo_field_find(c, param_fields[v])];
      status = cryo_read_global_layers(c, ncid, path, what, f->name, v ? 0 : nz, f->units, 1, f->lo,
                                       f->hi, g + first[v] * n, &found[v]);
    }
    if (ncid >= 0) nc_close(ncid);
  }
  status = cryo_status_from_root(c, status);
  if (status == CRYO_OK)
    status =
        cryo_mpi_check(MPI_Bcast(found, 3, MPI_INT, 0, c->comm), "MPI_Bcast (geometry)", &c->err);
  if (status == CRYO_OK)
    status = cryo_mpi_check(MPI_Bcast(g, (int)((nz + 2) * n), MPI_DOUBLE, 0, c->comm),
                            "MPI_Bcast (geometry)", &c->err);
  for (int v = 0; v < 3 && status == CRYO_OK; ++v) {
    if (!found[v]) continue;
    cryo_field *f = &c->fields[cryo_field_find(c, param_fields[v])];
    for (int j = -1; j <= b->ny; ++j)
      for (int i = -1; i <= b->nx; ++i)
        for (int k = 0; k < f->nlev; ++k)
          f->host[CRYO_CELL(b, i, j) * f->nlev + k] =
              cell_value(b, g + (first[v] + k) * n, b->i0 + i, b->j0 + j);
    f->given = 1;
    cryo_field_to_device(c, f);
  }
  free(g);
  return status;
}

/* Rank 0: the solver log (&cryo_landice solver_log), a text file of one
 * line per Newton step, written as the run goes so that a stopped run keeps
 * the steps before its stop. Only a regular file or no file is taken: a
 * device, fifo, directory or link of that name is left as it is. */
static int solver_log_open(cryo_component *c, landice_model *m) {
  const char *path = c->cfg.landice.solver_log;
  struct stat st;
  if (c->rank != 0 || !path[0]) return CRYO_OK;
  CRYO_CHECK(lstat(path, &st) != 0 || S_ISREG(st.st_mode), &c->err, CRYO_ERR_FILE,
             "%s: &cryo_landice solver_log '%s' exists and is not a regular file but %s: it is "
             "left as it is",
             c->cfg.source, path, cryo_file_kind(st.st_mode));
  m->solver_log = fopen(path, "w");
  CRYO_CHECK(m->solver_log, &c->err, CRYO_ERR_FILE,
             "%s: &cryo_landice solver_log '%s': cannot create: %s", c->cfg.source, path,
             strerror(errno));
  fprintf(m->solver_log,
          "# cryodyn land-ice solver log (docs/landice.md, Newton-Krylov solver): one line per "
          "Newton record of each velocity solve\n"
          "# time_s solve step residual_norm energy_J cg_iterations cg_relative_residual "
          "step_length\n");
  return CRYO_OK;
}

/* The records of the solve just made, at model time t (s). */
static void solver_log_write(landice_model *m, long long t) {
  if (!m->solver_log) return;
  for (int q = 0; q < m->nlog; ++q) {
    const cryo_landice_newton_log *r = &m->log[q];
    fprintf(m->solver_log, "%lld %lld %d %.9e %.12e %d %.3e %.6g\n", t, m->solves, r->step,
            r->residual_norm, r->energy, r->linear_iterations, r->linear_residual, r->step_length);
  }
  fflush(m->solver_log);
}

static int landice_create(cryo_component *c) {
  landice_model *m = calloc(1, sizeof *m);
  CRYO_CHECK(m, &c->err, CRYO_ERR_MEMORY, "out of memory for the land-ice model");
  c->model_data = m;
  cryo_landice_params *p = &c->cfg.landice.p;
  m->log = calloc((size_t)p->newton_max_iter + 1, sizeof *m->log);
  CRYO_CHECK(m->log, &c->err, CRYO_ERR_MEMORY, "out of memory for the Newton log");
  CRYO_CALL(cryo_status_from_root(c, solver_log_open(c, m)));
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  for (int i = 0; i < n; ++i) {
    double **slot = (double **)((char *)&m->s + t[i].offset);
    CRYO_CALL(cryo_field_add(c, t[i].name, t[i].units, t[i].standard_name, t[i].long_name,
                             (cryo_location)t[i].loc, t[i].nlev, roles[t[i].role], slot));
  }
  /* the levels from the first on which some rank's block stops nesting are
   * whole on every rank (kernels/landice_multigrid.c) */
  int split = cryo_landice_mg_nesting(&c->grid.block);
  CRYO_CALL(cryo_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &split, 1, MPI_INT, MPI_MIN, c->comm),
                           "MPI_Allreduce (multigrid levels)", &c->err));
  const long mg = cryo_landice_mg_doubles(&c->grid.block, p, split);
  if (mg > 0) {
    /* the multigrid's levels, one block of device memory (work, never output) */
    const long nodes = CRYO_NNODE(&c->grid.block);
    CRYO_CALL(cryo_field_add(c, "multigrid_levels", "1", "", "multigrid levels (work space)",
                             CRYO_AT_NODE, (int)((mg + nodes - 1) / nodes), CRYO_ROLE_WORK,
                             &m->s.mg));
  }
  /* what a file or a host may give: the values of the namelist key */
  const cryo_param_range *rt;
  const int nr = cryo_landice_param_ranges(&rt);
  static const char *const ranged[4] = {"beta2", "rate_factor", "sliding_c", "coulomb_c"};
  for (int k = 0; k < 4; ++k) {
    const cryo_param_range *r = cryo_param_range_find(rt, nr, ranged[k]);
    cryo_field *f = &c->fields[cryo_field_find(c, ranged[k])];
    f->lo = r->lo;
    f->hi = r->hi;
  }
  m->smb_field = cryo_field_find(c, "smb");
  m->melt_field = cryo_field_find(c, "basal_melt");
  CRYO_CHECK(m->smb_field >= 0 && m->melt_field >= 0, &c->err, CRYO_ERR_ARG,
             "land-ice state has no 'smb' or 'basal_melt' array");
  int nz = p->n_layers;
  c->nlevels = nz + 1;
  /* Elevations are output with the background plane added back (the state
   * keeps them relative to it), under their CF names. */
  CRYO_CALL(cryo_field_add(c, "surface", "m", "surface_altitude", "ice surface elevation",
                           CRYO_AT_NODE, 1, CRYO_ROLE_DIAGNOSTIC, &m->altitude[0]));
  CRYO_CALL(cryo_field_add(c, "topg", "m", "bedrock_altitude", "bedrock elevation", CRYO_AT_NODE, 1,
                           CRYO_ROLE_DIAGNOSTIC, &m->altitude[1]));
  static const char *const out2d[] = {"thk", "u_surf", "v_surf", "surface", "topg"};
  for (int k = 0; k < 5; ++k) {
    int i = cryo_field_find(c, out2d[k]);
    CRYO_CHECK(i >= 0, &c->err, CRYO_ERR_ARG, "land-ice state has no '%s' array", out2d[k]);
    const cryo_field *f = &c->fields[i];
    CRYO_CALL(cryo_output_var_add(c, f->name, f->units, f->standard_name, f->long_name, f->name, 0,
                                  1, 1));
  }
  if (p->marine) {
    int i = cryo_field_find(c, "grounded_fraction");
    CRYO_CHECK(i >= 0, &c->err, CRYO_ERR_ARG, "marine land-ice state has no 'grounded_fraction'");
    const cryo_field *f = &c->fields[i];
    CRYO_CALL(cryo_output_var_add(c, f->name, f->units, f->standard_name, f->long_name, f->name, 0,
                                  1, 1));
  }
  if (c->cfg.landice.evolve_thickness) {
    /* the mass budget per cell, cumulative (enum cryo_landice_budget) */
    static const char *const names[CRYO_LANDICE_BUDGET_COUNT] = {"smb_applied", "melt_applied",
                                                                 "calved", "outflow"};
    static const char *const long_names[CRYO_LANDICE_BUDGET_COUNT] = {
        "surface mass balance applied since the start, ice equivalent",
        "basal melt applied since the start, ice equivalent",
        "ice calved outside the calving mask since the start",
        "ice lost through the domain's edges since the start"};
    for (int q = 0; q < CRYO_LANDICE_BUDGET_COUNT; ++q)
      CRYO_CALL(cryo_output_var_add(c, names[q], "m", "", long_names[q], "budget", q,
                                    CRYO_LANDICE_BUDGET_COUNT, 1));
    if (p->marine)
      CRYO_CALL(cryo_output_var_add(c, "basal_melt", "m/(365 day)", "",
                                    "basal melt rate acting on "
                                    "floating ice, ice equivalent, before the floating share",
                                    "basal_melt", 0, 1, 1));
  }
  CRYO_CALL(cryo_output_var_add(c, "u", "m/(365 day)", "land_ice_x_velocity",
                                "ice velocity, x component", "velocity", 0, 2, nz + 1));
  CRYO_CALL(cryo_output_var_add(c, "v", "m/(365 day)", "land_ice_y_velocity",
                                "ice velocity, y component", "velocity", 1, 2, nz + 1));
  cryo_startup_lap(c, CRYO_S_ALLOC);
  if (p->geometry_case == CRYO_LANDICE_CASE_FILE) {
    CRYO_CALL(read_geometry(c));
    CRYO_CALL(read_parameter_fields(c, c->cfg.landice.geometry_file, "geometry_file"));
  } else {
    CRYO_CALL(cryo_landice_geometry(&c->grid.block, p, &m->s, &c->err));
  }
  if (c->cfg.landice.fields_file[0])
    CRYO_CALL(read_parameter_fields(c, c->cfg.landice.fields_file, "fields_file"));
  /* the fields a host reads before the first solve hold their values */
  m->s.given = given_bits(c);
  cryo_landice_fields_prepare(&c->grid.block, p, &m->s);
  if (!strcmp(c->cfg.run.task, "invert")) CRYO_CALL(cryo_invert_create(c, &m->invert));
  const char *forcing = c->cfg.run.forcing;
  m->analytic = !strcmp(forcing, "analytic");
  m->host = !strcmp(forcing, "host");
  m->coupled = !strcmp(forcing, "oasis");
  m->thk_field = cryo_field_find(c, "thk");
  for (int k = 0; k < 2; ++k)
    m->result_field[k] = -1;
  if (m->host || m->coupled) {
    for (int k = 0; k < 2; ++k) {
      const cryo_field_info *fi = &cryo_exchange_fields[result_ids[k]];
      CRYO_CALL(cryo_field_add(c, fi->name, fi->units, fi->standard_name, fi->long_name,
                               CRYO_AT_CELL, 1, CRYO_ROLE_DIAGNOSTIC, &m->results[k]));
      m->result_field[k] = c->nfields - 1;
    }
  }
  if (!m->analytic) {
    cryo_startup_lap(c, CRYO_S_STATE);
    cryo_exchange_config xc = {0};
    char start[32];
    cryo_date_format(c->clock.start, start, sizeof start);
    xc.forcing_file = c->cfg.run.forcing_file;
    xc.start_date = start;
    xc.oasis_component = c->cfg.coupling.component;
    for (int f = 0; f < CRYO_NFIELD; ++f)
      xc.oasis_names[f] = c->cfg.coupling.names[f];
    xc.oasis_grid_name = c->cfg.coupling.grid_name;
    xc.oasis_rate_factor = c->cfg.coupling.rate_factor;
    xc.n_layers = p->n_layers;
    CRYO_CALL(
        cryo_exchange_create(&c->exchange, forcing, CRYO_MODEL_LANDICE, &c->grid, &xc, &c->err));
    cryo_startup_lap(c, CRYO_S_EXCHANGE);
  }
  return CRYO_OK;
}

/* The Glen rate factor of the interval starting at t received through OASIS
 * (&cryo_coupling rate_factor, docs/landice.md, Basal and rheology fields), in
 * the units of the geometry file's rate_factor (Pa-n a-1), every value finite
 * and in the range of &cryo_landice rate_factor as a file's and a host's are.
 * The check comes after the collective receive and halo exchange, so that a
 * rank that finds a bad value leaves no other waiting (cryo_run shares its
 * message). */
static int receive_rate_factor(cryo_component *c, long long t) {
  cryo_field *f = &c->fields[cryo_field_find(c, "rate_factor")];
  const cryo_block *b = &c->grid.block;
  const int nz = f->nlev;
  double *v = malloc(sizeof(double) * ((size_t)b->nx * b->ny * nz + 1));
  CRYO_CHECK(v, &c->err, CRYO_ERR_MEMORY, "out of memory for the received rate factor");
  int status = cryo_exchange_get_layers(c->exchange, (double)t, nz, v, &c->err);
  for (int j = 0; j < b->ny && status == CRYO_OK; ++j)
    for (int i = 0; i < b->nx; ++i)
      memcpy(f->host + CRYO_CELL(b, i, j) * nz, v + ((long)j * b->nx + i) * nz,
             sizeof(double) * (size_t)nz);
  free(v);
  CRYO_CALL(status);
  cryo_field_to_device(c, f);
  CRYO_CALL(cryo_field_halo(c, f));
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i)
      for (int k = 0; k < nz; ++k) {
        const double a = f->host[CRYO_CELL(b, i, j) * nz + k];
        CRYO_CHECK(isfinite(a) && a >= f->lo && a <= f->hi, &c->err, CRYO_ERR_DATA,
                   "forcing = 'oasis': rate factor %s%02d (layer %d of %d from the bed) received "
                   "at t = %lld s is %g %s at cell (i, j) = (%d, %d): must be finite and in [%g, "
                   "%g] (the range of &cryo_landice rate_factor)",
                   c->cfg.coupling.rate_factor, k + 1, k + 1, nz, t, a, f->units, b->i0 + i,
                   b->j0 + j, f->lo, f->hi);
      }
  f->given = 1;
  return CRYO_OK;
}

/* Mass balance arrives in kg m-2 s-1 (exchange table); the state keeps
 * metres of ice per year. */
static int landice_get_forcing(cryo_component *c, long long t) {
  landice_model *m = c->model_data;
  if (m->analytic || m->host) return CRYO_OK;
  const double to_m_per_year = CRYO_LANDICE_YEAR / c->cfg.landice.p.rho_ice;
  int ids[2] = {CRYO_F_SMB, CRYO_F_BASAL_MELT};
  int fields[2] = {m->smb_field, m->melt_field};
  for (int k = 0; k < 2; ++k) {
    cryo_field *f = &c->fields[fields[k]];
    CRYO_CALL(cryo_exchange_get(c->exchange, (double)t, ids[k], f->host, &c->err));
    for (long q = 0; q < f->n; ++q)
      f->host[q] *= to_m_per_year;
    cryo_field_to_device(c, f);
  }
  if (m->coupled && c->cfg.coupling.rate_factor[0]) CRYO_CALL(receive_rate_factor(c, t));
  return CRYO_OK;
}

/* State check after a coupling interval ending at t (cryo_check.h): the
 * first NaN, Inf or out-of-bound velocity or thickness of the domain stops
 * the run with CRYO_ERR_DATA naming it. Only the rank holding that value
 * returns the error (cryo_run shares its message). */
static int landice_check(cryo_component *c, long long t) {
  landice_model *m = c->model_data;
  const cryo_landice_config *lc = &c->cfg.landice;
  const cryo_block *b = &c->grid.block;
  const int nz = lc->p.n_layers;
  int i = 0, j = 0, check = 0;
  const long long key =
      cryo_check_global_key(b,
                            cryo_landice_check_state(b, nz, lc->max_speed, lc->max_thickness,
                                                     m->s.vel, m->s.thk_node, m->s.thk),
                            CRYO_LANDICE_CHECK_COUNT, &i, &j, &check);
  long long first = key;
  CRYO_CALL(cryo_mpi_check(MPI_Allreduce(&key, &first, 1, MPI_LONG_LONG, MPI_MIN, c->comm),
                           "MPI_Allreduce (land-ice state check)", &c->err));
  if (first == CRYO_STATE_OK || key != first) return CRYO_OK;

  char when[96], date[32];
  cryo_date_format(cryo_date_add(c->clock.start, t, c->clock.calendar), date, sizeof date);
  snprintf(when, sizeof when, "land ice at t = %lld s (%s)", t, date);
  const int gi = b->i0 + i, gj = b->j0 + j;
  if (check == CRYO_LANDICE_CHECK_VELOCITY) {
    cryo_field *f = &c->fields[cryo_field_find(c, "velocity")];
    const long at = CRYO_NODE(b, i, j) * f->nlev;
    cryo_device_to_host(&c->dev, f->host, at, f->nlev);
    int k = 0;
    double speed = 0.0;
    for (k = 0; k <= nz; ++k) {
      speed = hypot(f->host[at + 2 * k], f->host[at + 2 * k + 1]);
      if (!(speed <= lc->max_speed)) break;
    }
    const double u = f->host[at + 2 * k], v = f->host[at + 2 * k + 1];
    if (!isfinite(speed))
      return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                        "%s: velocity (u, v) = (%g, %g) m a-1 at node (i, j) = (%d, %d), level %d "
                        "of 0..%d, is not finite",
                        when, u, v, gi, gj, k, nz);
    return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                      "%s: velocity (u, v) = (%g, %g) m a-1 at node (i, j) = (%d, %d), level %d "
                      "of 0..%d: speed %g m a-1 exceeds max_speed = %g m a-1 (&cryo_landice)",
                      when, u, v, gi, gj, k, nz, speed, lc->max_speed);
  }
  const int node = check == CRYO_LANDICE_CHECK_THK_NODE;
  cryo_field *f = &c->fields[cryo_field_find(c, node ? "thk_node" : "thk")];
  const long at = node ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j);
  cryo_device_to_host(&c->dev, f->host, at, 1);
  return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                    "%s: thickness %s = %g m at %s (i, j) = (%d, %d) is not finite or not in [0, "
                    "max_thickness = %g m] (&cryo_landice)",
                    when, f->name, f->host[at], node ? "node" : "cell", gi, gj, lc->max_thickness);
}

static int landice_advance(cryo_component *c, long long seconds) {
  landice_model *m = c->model_data;
  const cryo_landice_config *lc = &c->cfg.landice;
  const cryo_block *b = &c->grid.block;
  long nsteps = lc->evolve_thickness ? (long)llround((double)seconds / lc->p.dt) : 1;
  /* a host or a restart may have given fields since the last interval */
  m->s.given = given_bits(c);
  for (long k = 0; k < nsteps; ++k) {
    if (lc->remove_icebergs)
      CRYO_CALL(cryo_landice_remove_icebergs(b, &lc->p, &m->s, &c->ops, NULL, NULL, &c->err));
    /* task = 'invert': the first interval's solve is the inversion's */
    if (m->invert && m->solves == 0) {
      CRYO_CALL(cryo_invert_run(c, m->invert, &m->s));
      m->solves += 1;
      continue;
    }
    CRYO_CALL(cryo_landice_solve_velocity(b, &lc->p, &m->s, &c->ops, m->log,
                                          lc->p.newton_max_iter + 1, &m->nlog, &c->err));
    m->solves += 1;
    for (int q = 0; q < m->nlog; ++q)
      m->cg_iterations += m->log[q].linear_iterations;
    m->newton_steps += m->nlog > 0 ? m->log[m->nlog - 1].step : 0;
    /* the solve belongs to the start of its thickness step */
    solver_log_write(m, c->clock.time + (long long)llround(k * (double)seconds / nsteps));
    if (lc->evolve_thickness) {
      CRYO_CALL(cryo_landice_check_advective_limit(b, &lc->p, &m->s, &c->ops, &c->err));
      CRYO_CALL(cryo_landice_evolve_thickness(b, &lc->p, &m->s, &c->ops, NULL, &c->err));
    }
  }
  return landice_check(c, c->clock.time + seconds);
}

/* The fields an atmosphere receives (thickness, surface elevation, ice mask)
 * are computed on the device; only with OASIS do they cross to the host here,
 * once per coupling step (a host model fetches them itself). */
static int landice_put_results(cryo_component *c, long long t) {
  landice_model *m = c->model_data;
  if (m->result_field[0] < 0) return CRYO_OK;
  cryo_landice_coupling_fields(&c->grid.block, &c->cfg.landice.p, m->s.thk, m->s.bed, m->results[0],
                               m->results[1]);
  if (!m->coupled) return CRYO_OK;
  const int fields[3] = {m->thk_field, m->result_field[0], m->result_field[1]};
  const int ids[3] = {CRYO_F_THK, result_ids[0], result_ids[1]};
  for (int k = 0; k < 3; ++k) {
    cryo_field *f = &c->fields[fields[k]];
    cryo_field_to_host(c, f);
    CRYO_CALL(cryo_exchange_put(c->exchange, (double)t, ids[k], f->host, &c->err));
  }
  return CRYO_OK;
}

/* Output fields of the current state: altitudes, and the grounded fraction
 * of the thickness the record holds (the solve's is that of the step's
 * start, and a restart brings thickness without it). */
static int landice_diagnose(cryo_component *c) {
  landice_model *m = c->model_data;
  const cryo_landice_params *p = &c->cfg.landice.p;
  cryo_landice_altitudes(&c->grid.block, p, m->s.thk_node, m->s.bed, m->altitude[0],
                         m->altitude[1]);
  if (p->marine)
    cryo_landice_grounded_fraction(&c->grid.block, p, m->s.bed, m->s.thk_node, m->s.thk,
                                   m->s.grounded_fraction);
  return CRYO_OK;
}

static int landice_summary(cryo_component *c, char *buf, int len) {
  landice_model *m = c->model_data;
  const cryo_block *b = &c->grid.block;
  double volume = 0;
  CRYO_CALL(cryo_landice_volume(b, &m->s, &c->ops, &volume, &c->err));
  double r0 = m->nlog > 0 ? m->log[0].residual_norm : 0,
         r1 = m->nlog > 0 ? m->log[m->nlog - 1].residual_norm : 0;
  int steps = m->nlog > 0 ? m->log[m->nlog - 1].step : 0;
  /* the linear work of the run: CG iterations per Newton step say how well
   * the preconditioner does (docs/landice.md, Multigrid) */
  int n = snprintf(buf, (size_t)len,
                   "volume %.6e m3  Newton steps %d  |R| %.3e -> %.3e  run: %lld solves, %lld "
                   "Newton steps, %lld CG iterations (%.1f per step)",
                   volume, steps, r0, r1, m->solves, m->newton_steps, m->cg_iterations,
                   m->newton_steps > 0 ? (double)m->cg_iterations / m->newton_steps : 0.0);
  if (c->cfg.landice.p.marine && n > 0 && n < len) {
    CRYO_CALL(landice_diagnose(c));
    double grounded;
    CRYO_CALL(cryo_landice_cell_sum(b, m->s.grounded_fraction, &c->ops, &grounded, &c->err));
    n += snprintf(buf + n, (size_t)(len - n), "  grounded %.6e m2", grounded * b->dx * b->dy);
  }
  if (m->invert && n > 0 && n < len) cryo_invert_summary(m->invert, buf + n, len - n);
  if (c->cfg.landice.evolve_thickness && n > 0 && n < len) {
    double t[CRYO_LANDICE_BUDGET_COUNT];
    CRYO_CALL(cryo_landice_budget(b, &m->s, &c->ops, t, &c->err));
    snprintf(buf + n, (size_t)(len - n), "  smb %.4e melt %.4e calved %.4e out %.4e m3",
             t[CRYO_LANDICE_BUDGET_SMB], t[CRYO_LANDICE_BUDGET_MELT],
             t[CRYO_LANDICE_BUDGET_CALVING], t[CRYO_LANDICE_BUDGET_OUTFLOW]);
  }
  return CRYO_OK;
}

static void landice_destroy(cryo_component *c) {
  cryo_exchange_destroy(&c->exchange);
  landice_model *m = c->model_data;
  if (m) {
    free(m->log);
    if (m->solver_log) fclose(m->solver_log);
    cryo_invert_destroy(&m->invert);
  }
  free(c->model_data);
  c->model_data = NULL;
}

const cryo_model_ops cryo_landice_model = {
    "landice",           landice_create,   landice_advance, landice_get_forcing,
    landice_put_results, landice_diagnose, landice_summary, landice_destroy};
