/* The namelist schema: every group and name with its type, range and
 * default, and the checks that involve several names. namelists/README.md
 * documents the same table for users. */
#include "cryo_config.h"
#include "cryo_clock.h"
#include "cryo_fields.h"
#include "cryo_gridfile.h"
#include "cryo_namelist.h"
#include "cryo_oasis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(CRYO_COUPLING_FIELDS == CRYO_NFIELD, "one OASIS name per coupling field");
_Static_assert(CRYO_OASIS_COMP_NAME_MAX < CRYO_NAME_LEN &&
                   CRYO_OASIS_GRID_NAME_MAX < CRYO_NAME_LEN &&
                   CRYO_OASIS_VAR_NAME_MAX < CRYO_NAME_LEN,
               "OASIS names fit the namelist strings");

/* Times are read as reals so that long runs fit, then must be whole seconds. */
typedef struct {
  double run_length, coupling_interval, output_interval, restart_interval;
} time_keys;

#define KEY(n, t, d, lo, hi, req, u)                                                               \
  { n, t, d, 1, NULL, 0, lo, hi, NULL, req, u }
#define INT_KEY(n, d, lo, hi)     KEY(n, CRYO_NML_INT, d, lo, hi, 0, NULL)
#define REAL_KEY(n, d, lo, hi, u) KEY(n, CRYO_NML_REAL, d, lo, hi, 0, u)
#define BOOL_KEY(n, d)            KEY(n, CRYO_NML_LOGICAL, d, 1, 0, 0, NULL)
/* a core's numeric parameter, range and units from the core's table */
#define SI_KEY(name) range_key(si_ranges, si_n, name, sp)
#define LI_KEY(name) range_key(li_ranges, li_n, name, lp)
#define STR_KEY(n, d, choices)                                                                     \
  { n, CRYO_NML_STRING, d, 1, NULL, sizeof(d), 1, 0, choices, 0, NULL }

static const char *const models[] = {"seaice", "landice", NULL};
static const char *const tasks[] = {"forward", "invert", NULL};
static const char *const forcings[] = {"analytic", "netcdf", "oasis", "host", NULL};
static const char *const calendars[] = {
    "proleptic_gregorian", "gregorian", "standard", "noleap", "365_day", NULL};
static const char *const devices[] = {"auto", "cpu", "gpu", NULL};
static const char *const halo_paths[] = {"auto", "yes", "no", NULL};
static const char *const yes_no[] = {"yes", "no", NULL};
static const char *const auto_no[] = {"auto", "no", NULL};
static const char *const si_inits[] = {"cyclone", "uniform", "file", NULL};
static const char *const precisions[] = {"double", "single", NULL};
static const char *const rheologies[] = {"vp", "bbm", NULL};
static const char *const li_cases[] = {"slab", "ismip-hom-a", "ismip-hom-c", "file", NULL};
static const char *const li_basal[] = {"no_slip", "friction", NULL};
static const char *const li_sliding[] = {"linear", "weertman", "schoof", "tsai", NULL};
static const char *const li_lateral[] = {"free", "dirichlet", "free_slip", NULL};
static const char *const preconditioners[] = {"column", "multigrid", NULL};
static const char *const li_melt_cells[] = {"fraction", "floating", NULL};
static const char *const li_calving[] = {"all", "floating", NULL};
static const char *const li_melt_source[] = {"received", "mismip+", NULL};
static const char *const vector_frames[] = {"east_north", "grid", NULL};
static const char *const decompositions[] = {"ocean", "even", NULL};
static const char *const output_grids[] = {"copy", "reference", NULL};

void cryo_config_defaults(cryo_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cryo_run_config *r = &cfg->run;
  strcpy(r->model, "seaice");
  strcpy(r->task, "forward");
  strcpy(r->start, "2000-01-01 00:00:00");
  strcpy(r->calendar, "proleptic_gregorian");
  r->run_length = 0;
  r->coupling_interval = 3600;
  strcpy(r->forcing, "analytic");
  strcpy(r->forcing_vars[0], "uwind");
  strcpy(r->forcing_vars[1], "vwind");
  strcpy(r->forcing_vars[2], "uocean");
  strcpy(r->forcing_vars[3], "vocean");
  strcpy(r->device, "auto");
  strcpy(r->halo_device_buffers, "auto");
  strcpy(r->halo_overlap, "no");
  strcpy(r->halo_peer, "auto");
  strcpy(r->output_grid, "copy");
  cryo_grid_config *g = &cfg->grid;
  g->nx = 64;
  g->ny = 64;
  g->dx = 8000.0;
  g->dy = 8000.0;
  strcpy(g->mask_var, "mask");
  g->earth_radius = 6371229.0; /* the sphere of NEMO and CICE */
  strcpy(g->vector_frame, "east_north");
  strcpy(g->decomposition, "ocean");
  g->east_north = 1;
  cryo_seaice_params_cyclone(&cfg->seaice.p);
  strcpy(cfg->seaice.init, "cyclone");
  strcpy(cfg->seaice.stress_precision, "double");
  strcpy(cfg->seaice.rheology, "vp");
  strcpy(cfg->seaice.state_precision, "double");
  cfg->seaice.h_init = 0.3;
  cfg->seaice.a_init = 1.0;
  cfg->seaice.max_speed = 10.0;
  cfg->seaice.max_thickness = 100.0;
  strcpy(cfg->seaice.bathymetry_var, "bathymetry");
  cryo_landice_params_default(&cfg->landice.p);
  strcpy(cfg->landice.geometry_case, "ismip-hom-a");
  strcpy(cfg->landice.basal, "no_slip");
  strcpy(cfg->landice.sliding_law, "linear");
  strcpy(cfg->landice.preconditioner, "multigrid");
  strcpy(cfg->landice.lateral, "free");
  strcpy(cfg->landice.melt_cells, "fraction");
  strcpy(cfg->landice.calving, "all");
  strcpy(cfg->landice.melt_source, "received");
  cfg->landice.periodic = 1;
  cfg->landice.max_speed = 1.0e5;
  cfg->landice.max_thickness = 1.0e4;
  cfg->landice.remove_icebergs = 1;
  cryo_invert_config *inv = &cfg->invert;
  inv->gamma = 0.0;
  inv->adjoint_rtol = 0.0;
  inv->discrepancy = 0.0;
  inv->opts = (cryo_landice_invert_opts){.max_iter = 50,
                                         .memory = 10,
                                         .max_backtrack = 20,
                                         .gtol = 1e-6,
                                         .ftol = 0.0,
                                         .misfit_target = 0.0,
                                         .step_max = 1.0,
                                         .armijo = 1e-4};
  strcpy(cfg->coupling.component, "cryody");
  strcpy(cfg->coupling.grid_name, "cryt");
}

static int whole_seconds(double v, const char *name, long long *out, const char *src,
                         cryo_err *err) {
  CRYO_CHECK(v <= (double)CRYO_CLOCK_MAX_SECONDS, err, CRYO_ERR_RANGE,
             "%s: &cryo_run: %s = %g s is too large: at most %lld s (years %d to %d)", src, name, v,
             CRYO_CLOCK_MAX_SECONDS, CRYO_YEAR_MIN, CRYO_YEAR_MAX);
  CRYO_CHECK(v >= 0 && v == floor(v), err, CRYO_ERR_RANGE,
             "%s: &cryo_run: %s = %g must be a whole, non-negative number of seconds", src, name,
             v);
  *out = (long long)v;
  return CRYO_OK;
}

static int check_multiple(long long a, long long b, const char *an, const char *bn, const char *src,
                          cryo_err *err) {
  CRYO_CHECK(b > 0 && a % b == 0, err, CRYO_ERR_RANGE,
             "%s: &cryo_run: %s = %lld s is not a multiple of %s = %lld s", src, an, a, bn, b);
  return CRYO_OK;
}

/* Stability of the mEVP sub-cycling (Kimmritz, Danilov and Losch 2015,
 * J. Comput. Phys. 296, 90-100, section 4; Kimmritz et al. 2016, Ocean
 * Modell. 101, 59-67: "alpha beta >> gamma"). Linearized about a viscous
 * state, stress s^p = s^(p-1) + (zeta E(v^(p-1)) - s^(p-1)) / alpha and
 * velocity (1 + beta) v^p = beta v^(p-1) + v_n + dt/m div s^p act on an
 * eigenmode of -div(zeta E(.)) / m with eigenvalue mu as a 2 x 2 matrix with
 * determinant (1 - 1/alpha) beta / (1 + beta) < 1 and trace
 * (1 - 1/alpha) + (beta - gamma/alpha) / (1 + beta), gamma = mu dt; both
 * eigenvalues lie inside the unit circle exactly when
 *   gamma < (2 alpha - 1)(2 beta + 1)   (about 4 alpha beta).
 * Drag and Coriolis only add damping. With the bilinear velocity, lumped node
 * mass dx dy and linear dG stress of the kernels, the largest mu is
 * 4 (1 + e^-2) zeta / (m min(dx, dy)^2) (compression along the shorter side,
 * u = (-1)^i; computed from the kernels' stencils on a periodic grid). The
 * viscosity is largest where the ice is rigid: zeta = P / (2 Delta) with
 * Delta >= delta_min and P <= P* H, while m = rho_i max(H, h_min) >= rho_i H,
 * so zeta / m <= P* / (2 rho_i delta_min) for every thickness: the strength of
 * the thickest ice comes with its mass, and
 *   gamma_max = 2 (1 + e^-2) P* dt / (rho_i delta_min min(dx, dy)^2).
 * Beyond it the iteration diverges in rigid ice until the plastic limit
 * bounds the stress, and the result depends on n_evp: refused. (At an ice
 * edge a node's mass, the mean of its 4 cells, can be up to 4 times smaller
 * than a cell's strength suggests; the condition is for a closed cover.) */
int cryo_config_check_mevp(const cryo_config *cfg, double d, cryo_err *err) {
  const cryo_seaice_params *p = &cfg->seaice.p;
  const double gamma = 2.0 * (1.0 + 1.0 / (p->ecc * p->ecc)) * p->pstar * p->dt /
                       (p->rho_ice * p->delta_min * d * d);
  const double limit = (2.0 * p->alpha - 1.0) * (2.0 * p->beta + 1.0);
  CRYO_CHECK(gamma < limit, err, CRYO_ERR_RANGE,
             "%s: &cryo_seaice: alpha = %g, beta = %g fail the mEVP stability condition "
             "(2 alpha - 1)(2 beta + 1) > gamma: %.6g <= 2 (1 + ecc^-2) pstar dt / (rho_ice "
             "delta_min min(dx, dy)^2) = %.6g with ecc = %g, pstar = %g N m-2, dt = %g s, "
             "rho_ice = %g kg m-3, delta_min = %g s-1, min(dx, dy) = %g m (on a grid file: the "
             "narrowest cell's shorter midline): the sub-cycling "
             "diverges where the ice is rigid; raise alpha = beta to at least %.0f, or shorten "
             "dt, or raise delta_min",
             cfg->source, p->alpha, p->beta, limit, gamma, p->ecc, p->pstar, p->dt, p->rho_ice,
             p->delta_min, d, ceil(sqrt((gamma + 1.0) / 4.0)));
  return CRYO_OK;
}

/* rheology = 'bbm': the elastic sub-step dt / n_bbm within the time t_d =
 * L / c_E that elastic waves take to cross a cell, which also keeps the
 * damage update's factor dt_e / t_d <= 1 (docs/seaice.md, The BBM rheology). */
static int check_bbm(const cryo_config *cfg, cryo_err *err) {
  const cryo_seaice_params *p = &cfg->seaice.p;
  const cryo_block b = {.dx = cfg->grid.dx, .dy = cfg->grid.dy};
  const double dte = p->dt / p->n_bbm, limit = cryo_seaice_bbm_max_substep(p, &b);
  CRYO_CHECK(dte <= limit, err, CRYO_ERR_RANGE,
             "%s: &cryo_seaice rheology = 'bbm': the elastic sub-step dt / n_bbm = %g s / %d = "
             "%g s exceeds sqrt(dx dy) sqrt(2 (1 + bbm_poisson) rho_ice / bbm_young) = %g s, "
             "the time elastic waves take to cross a cell: raise n_bbm to at least %.0f",
             cfg->source, p->dt, p->n_bbm, dte, limit, ceil(p->dt / limit));
  return CRYO_OK;
}

/* task = 'invert': a land-ice run with a nonlinear sliding law on a friction
 * bed and a fixed thickness, and the files of &cryo_invert, none of them the
 * same path as an input it would overwrite. */
static int check_invert(const cryo_config *cfg, cryo_err *err) {
  const cryo_landice_config *l = &cfg->landice;
  const cryo_invert_config *inv = &cfg->invert;
  const char *src = cfg->source;
  CRYO_CHECK(!strcmp(cfg->run.model, "landice"), err, CRYO_ERR_RANGE,
             "%s: &cryo_run task = 'invert' needs model = 'landice' (the basal inversion)", src);
  CRYO_CHECK(l->p.sliding_law != CRYO_LANDICE_SLIDING_LINEAR, err, CRYO_ERR_RANGE,
             "%s: &cryo_run task = 'invert' needs &cryo_landice sliding_law 'weertman', 'schoof' "
             "or 'tsai' (the inversion is for their per-cell C); sliding_law = 'linear'",
             src);
  const int friction = l->p.geometry_case == CRYO_LANDICE_CASE_ISMIP_HOM_C ||
                       (l->p.geometry_case != CRYO_LANDICE_CASE_ISMIP_HOM_A && !l->p.no_slip);
  CRYO_CHECK(friction, err, CRYO_ERR_RANGE,
             "%s: &cryo_run task = 'invert' needs a friction bed: &cryo_landice basal = "
             "'friction' (case = '%s' has no slip)",
             src, l->geometry_case);
  CRYO_CHECK(!l->evolve_thickness, err, CRYO_ERR_RANGE,
             "%s: &cryo_run task = 'invert' inverts for one geometry: &cryo_landice "
             "evolve_thickness must be .false.",
             src);
  CRYO_CHECK(inv->obs_file[0], err, CRYO_ERR_MISSING,
             "%s: &cryo_run task = 'invert' needs &cryo_invert obs_file", src);
  CRYO_CHECK(inv->result_file[0], err, CRYO_ERR_MISSING,
             "%s: &cryo_run task = 'invert' needs &cryo_invert result_file", src);
  const char *inputs[3] = {inv->obs_file, l->geometry_file, l->fields_file};
  const char *names[3] = {"&cryo_invert obs_file", "&cryo_landice geometry_file",
                          "&cryo_landice fields_file"};
  for (int k = 0; k < 3; ++k) {
    CRYO_CHECK(strcmp(inv->result_file, inputs[k]) && strcmp(inv->log_file, inputs[k]), err,
               CRYO_ERR_RANGE,
               "%s: &cryo_invert result_file or log_file is '%s', the same as %s: the input "
               "would be overwritten",
               src, inputs[k], names[k]);
  }
  CRYO_CHECK(!inv->log_file[0] || strcmp(inv->log_file, inv->result_file), err, CRYO_ERR_RANGE,
             "%s: &cryo_invert log_file and result_file are both '%s'", src, inv->log_file);
  return CRYO_OK;
}

/* Checks that involve several names, after every group was read. */
static int check_config(cryo_config *cfg, const time_keys *t, cryo_err *err) {
  cryo_run_config *r = &cfg->run;
  const char *src = cfg->source;
  CRYO_CALL(whole_seconds(t->run_length, "run_length", &r->run_length, src, err));
  CRYO_CALL(
      whole_seconds(t->coupling_interval, "coupling_interval", &r->coupling_interval, src, err));
  CRYO_CALL(whole_seconds(t->output_interval, "output_interval", &r->output_interval, src, err));
  CRYO_CALL(whole_seconds(t->restart_interval, "restart_interval", &r->restart_interval, src, err));
  CRYO_CHECK(r->run_length > 0, err, CRYO_ERR_RANGE,
             "%s: &cryo_run: run_length = %lld s must be > 0", src, r->run_length);
  CRYO_CHECK(r->coupling_interval > 0, err, CRYO_ERR_RANGE,
             "%s: &cryo_run: coupling_interval = %lld s must be > 0", src, r->coupling_interval);
  CRYO_CALL(check_multiple(r->run_length, r->coupling_interval, "run_length", "coupling_interval",
                           src, err));
  if (r->output_interval > 0)
    CRYO_CALL(check_multiple(r->output_interval, r->coupling_interval, "output_interval",
                             "coupling_interval", src, err));
  if (r->restart_interval > 0)
    CRYO_CALL(check_multiple(r->restart_interval, r->coupling_interval, "restart_interval",
                             "coupling_interval", src, err));
  CRYO_CHECK(strcmp(r->forcing, "netcdf") || r->forcing_file[0], err, CRYO_ERR_MISSING,
             "%s: &cryo_run: forcing = 'netcdf' needs forcing_file", src);
  cryo_clock clock;
  CRYO_CALL(cryo_clock_init(&clock, r->start, r->calendar, r->run_length, r->coupling_interval, src,
                            err));

  double dt = 0;
  if (!strcmp(r->model, "seaice")) {
    cfg->seaice.p.stress_single = !strcmp(cfg->seaice.stress_precision, "single");
    cfg->seaice.p.rheology =
        !strcmp(cfg->seaice.rheology, "bbm") ? CRYO_SEAICE_RHEOLOGY_BBM : CRYO_SEAICE_RHEOLOGY_VP;
    /* the BBM keeps its stress in double: no float copies to allocate */
    cfg->seaice.p.state_single = cfg->seaice.p.rheology != CRYO_SEAICE_RHEOLOGY_BBM &&
                                 !strcmp(cfg->seaice.state_precision, "single");
    CRYO_CALL(cryo_seaice_params_check(&cfg->seaice.p, err));
    dt = cfg->seaice.p.dt;
    CRYO_CHECK(strcmp(cfg->seaice.init, "uniform") ||
                   cfg->seaice.h_init <= cfg->seaice.max_thickness,
               err, CRYO_ERR_RANGE,
               "%s: &cryo_seaice: h_init = %g m is above max_thickness = %g m (the state check "
               "would stop the run)",
               src, cfg->seaice.h_init, cfg->seaice.max_thickness);
    CRYO_CHECK(strcmp(cfg->seaice.init, "file") || cfg->seaice.init_file[0], err, CRYO_ERR_MISSING,
               "%s: &cryo_seaice init = 'file' needs init_file", src);
    CRYO_CHECK(strcmp(r->forcing, "analytic") || !strcmp(cfg->seaice.init, "cyclone"), err,
               CRYO_ERR_RANGE,
               "%s: forcing = 'analytic' is the cyclone benchmark's and needs &cryo_seaice "
               "init = 'cyclone'",
               src);
    const cryo_seaice_params *sp = &cfg->seaice.p;
    CRYO_CHECK(!sp->ssh_tilt || strcmp(r->forcing, "analytic"), err, CRYO_ERR_RANGE,
               "%s: &cryo_seaice ssh_tilt = .true. takes the sea-surface height from the forcing "
               "(field 'ssh'), but forcing = 'analytic' has none: use forcing = 'netcdf', "
               "'host' or 'oasis', or ssh_tilt = .false. (the geostrophic approximation)",
               src);
    CRYO_CHECK(!sp->basal_stress || cfg->seaice.bathymetry_file[0], err, CRYO_ERR_MISSING,
               "%s: &cryo_seaice basal_stress = .true. needs bathymetry_file (the water depth)",
               src);
    /* the quadrilateral kernels have the turning angle, the tensile strength
     * and the adaptive EVP; these two options are written for the built-in box */
    static const char *const box_only[3] = {"ssh_tilt", "basal_stress", "rheology = 'bbm', so"};
    const int on[3] = {sp->ssh_tilt, sp->basal_stress, sp->rheology == CRYO_SEAICE_RHEOLOGY_BBM};
    for (int k = 0; k < 3; ++k)
      CRYO_CHECK(!on[k] || !cfg->grid.grid_file[0], err, CRYO_ERR_UNSUPPORTED,
                 "%s: &cryo_seaice %s = .true. is implemented for the built-in box only, not "
                 "for grid_file = '%s'",
                 src, box_only[k], cfg->grid.grid_file);
  } else {
    cryo_landice_config *l = &cfg->landice;
    l->p.no_slip = !strcmp(l->basal, "no_slip");
    l->p.sliding_law = !strcmp(l->sliding_law, "weertman") ? CRYO_LANDICE_SLIDING_WEERTMAN
                       : !strcmp(l->sliding_law, "schoof") ? CRYO_LANDICE_SLIDING_SCHOOF
                       : !strcmp(l->sliding_law, "tsai")   ? CRYO_LANDICE_SLIDING_TSAI
                                                           : CRYO_LANDICE_SLIDING_LINEAR;
    l->p.preconditioner = !strcmp(l->preconditioner, "multigrid") ? CRYO_LANDICE_PC_MULTIGRID
                                                                  : CRYO_LANDICE_PC_COLUMN;
    l->p.lateral_bc = !strcmp(l->lateral, "dirichlet")   ? CRYO_LANDICE_LATERAL_DIRICHLET
                      : !strcmp(l->lateral, "free_slip") ? CRYO_LANDICE_LATERAL_FREE_SLIP
                                                         : CRYO_LANDICE_LATERAL_FREE;
    l->p.melt_cells = !strcmp(l->melt_cells, "floating") ? CRYO_LANDICE_MELT_FLOATING
                                                         : CRYO_LANDICE_MELT_FRACTION;
    l->p.calve_floating = !strcmp(l->calving, "floating");
    l->p.melt_source =
        !strcmp(l->melt_source, "mismip+") ? CRYO_LANDICE_MELT_MISMIP : CRYO_LANDICE_MELT_RECEIVED;
    l->p.geometry_case = !strcmp(l->geometry_case, "slab")          ? CRYO_LANDICE_CASE_SLAB
                         : !strcmp(l->geometry_case, "ismip-hom-a") ? CRYO_LANDICE_CASE_ISMIP_HOM_A
                         : !strcmp(l->geometry_case, "ismip-hom-c") ? CRYO_LANDICE_CASE_ISMIP_HOM_C
                                                                    : CRYO_LANDICE_CASE_FILE;
    CRYO_CHECK(l->p.geometry_case != CRYO_LANDICE_CASE_FILE || l->geometry_file[0], err,
               CRYO_ERR_MISSING, "%s: &cryo_landice case = 'file' needs geometry_file", src);
    CRYO_CALL(cryo_landice_params_check(&l->p, err));
    dt = l->p.dt;
    CRYO_CHECK(l->p.geometry_case != CRYO_LANDICE_CASE_SLAB || l->p.thickness <= l->max_thickness,
               err, CRYO_ERR_RANGE,
               "%s: &cryo_landice: thickness = %g m is above max_thickness = %g m (the state "
               "check would stop the run)",
               src, l->p.thickness, l->max_thickness);
    if (l->p.geometry_case != CRYO_LANDICE_CASE_SLAB &&
        l->p.geometry_case != CRYO_LANDICE_CASE_FILE && l->p.domain_length > 0) {
      /* The analytic ISMIP-HOM cases span one period L in x and y. */
      cfg->grid.dx = l->p.domain_length / cfg->grid.nx;
      cfg->grid.dy = l->p.domain_length / cfg->grid.ny;
    }
  }
  if (!strcmp(r->task, "invert")) CRYO_CALL(check_invert(cfg, err));
  double steps = (double)r->coupling_interval / dt;
  CRYO_CHECK(dt > 0 && steps == floor(steps), err, CRYO_ERR_RANGE,
             "%s: coupling_interval = %lld s is not a multiple of the %s time step dt = %g s", src,
             r->coupling_interval, r->model, dt);
  /* A grid file's cells have no single size: the condition is checked with
   * the narrowest cell once the geometry is known (component/cryo_seaice.c). */
  const int bbm = cfg->seaice.p.rheology == CRYO_SEAICE_RHEOLOGY_BBM;
  if (!strcmp(r->model, "seaice") && !cfg->grid.grid_file[0] && !cfg->seaice.p.adaptive_evp && !bbm)
    CRYO_CALL(cryo_config_check_mevp(cfg, fmin(cfg->grid.dx, cfg->grid.dy), err));
  if (!strcmp(r->model, "seaice") && bbm) CRYO_CALL(check_bbm(cfg, err));
  return CRYO_OK;
}

enum { G_RUN, G_GRID, G_SEAICE, G_LANDICE, G_INVERT, G_COUPLING, G_COUNT };

/* The line where key `name` of group g was given, 0 if it was not. */
static int key_line(const cryo_nml_group *g, const char *name) {
  for (int k = 0; k < g->nkeys; ++k)
    if (!strcmp(g->keys[k].name, name)) return g->given[k];
  return 0;
}

/* &cryo_grid: the built-in box needs nx and ny; a grid file (sea ice only,
 * not with the analytic cyclone) gives them, asked here on every rank
 * (namelists/README.md, Grid files). */
static int check_grid(cryo_config *cfg, const cryo_nml_group *g, cryo_err *err) {
  cryo_grid_config *grid = &cfg->grid;
  const char *src = cfg->source;
  const int nx_line = key_line(g, "nx"), ny_line = key_line(g, "ny");
  const int file_line = key_line(g, "grid_file");
  grid->east_north = !strcmp(grid->vector_frame, "east_north");
  if (!grid->grid_file[0]) {
    CRYO_CHECK(nx_line && ny_line, err, CRYO_ERR_MISSING,
               "%s: &cryo_grid: required name %s is missing from the group (without grid_file the "
               "built-in box needs nx and ny)",
               src, nx_line ? "ny" : "nx");
    return CRYO_OK;
  }
  CRYO_CHECK(!strcmp(cfg->run.model, "seaice"), err, CRYO_ERR_RANGE,
             "%s:%d: &cryo_grid: grid_file = '%s' is for model = 'seaice'; land ice keeps its "
             "Cartesian box (periodic or not): leave grid_file out",
             src, file_line, grid->grid_file);
  CRYO_CHECK(strcmp(cfg->run.forcing, "analytic"), err, CRYO_ERR_RANGE,
             "%s: &cryo_run forcing = 'analytic' is the cyclone benchmark of the built-in box and "
             "cannot run on &cryo_grid grid_file = '%s' (line %d): choose forcing = 'netcdf', "
             "'oasis' or 'host'",
             src, grid->grid_file, file_line);
  int nx, ny, spherical;
  cryo_err file_err = {0};
  int status = cryo_gridfile_inquire(grid->grid_file, &nx, &ny, &spherical, &file_err);
  if (status != CRYO_OK)
    return CRYO_ERROR(err, status, "%s:%d: &cryo_grid grid_file: %s", src, file_line, file_err.msg);
  CRYO_CHECK(!nx_line || grid->nx == nx, err, CRYO_ERR_RANGE,
             "%s:%d: &cryo_grid: nx = %d but grid_file '%s' has %d cells along x: leave nx out "
             "(the file sets it) or make it %d",
             src, nx_line, grid->nx, grid->grid_file, nx, nx);
  CRYO_CHECK(!ny_line || grid->ny == ny, err, CRYO_ERR_RANGE,
             "%s:%d: &cryo_grid: ny = %d but grid_file '%s' has %d cells along y: leave ny out "
             "(the file sets it) or make it %d",
             src, ny_line, grid->ny, grid->grid_file, ny, ny);
  int periodic_x;
  cryo_fold fold;
  status = cryo_gridfile_inquire_topology(grid->grid_file, &periodic_x, &fold, &file_err);
  if (status != CRYO_OK)
    return CRYO_ERROR(err, status, "%s:%d: &cryo_grid grid_file: %s", src, file_line, file_err.msg);
  /* the halo of cell-centred forcing across a fold is exchanged as scalars:
   * right for east and north, not for components along the grid lines,
   * which reverse there */
  CRYO_CHECK(!fold || grid->east_north, err, CRYO_ERR_UNSUPPORTED,
             "%s:%d: &cryo_grid: grid_file '%s' folds at its top (north_fold = '%s'); vectors "
             "across a fold must arrive as east and north components: set vector_frame = "
             "'east_north'",
             src, file_line, grid->grid_file, fold == CRYO_FOLD_T ? "T" : "F");
  grid->periodic_x = periodic_x;
  grid->fold = fold;
  grid->nx = nx;
  grid->ny = ny;
  grid->spherical = spherical;
  cfg->seaice.p.quad = 1;
  return CRYO_OK;
}

/* If key `name` of group g was given, add "<source>:<line>: &group: name is
 * ignored: <why>" to cfg->warnings (truncated when the list is full). */
static void warn_ignored(cryo_config *cfg, const cryo_nml_group *g, const char *name,
                         const char *why) {
  int line = key_line(g, name);
  if (!line) return;
  size_t used = strlen(cfg->warnings);
  snprintf(cfg->warnings + used, sizeof cfg->warnings - used, "%s%s:%d: &%s: %s is ignored: %s",
           used ? "\n" : "", cfg->source, line, g->name, name, why);
}

/* Every given option of group g is ignored, for `why`. */
static void warn_group_ignored(cryo_config *cfg, const cryo_nml_group *g, const char *why) {
  for (int k = 0; k < g->nkeys; ++k)
    warn_ignored(cfg, g, g->keys[k].name, why);
}

/* &cryo_seaice options unused by the sea-ice settings. */
static void warn_seaice(cryo_config *cfg, const cryo_nml_group *g) {
  const cryo_seaice_config *si = &cfg->seaice;
  char why[160];
  snprintf(why, sizeof why, "init = '%s' (only 'uniform' uses it)", si->init);
  if (strcmp(si->init, "uniform")) {
    warn_ignored(cfg, g, "h_init", why);
    warn_ignored(cfg, g, "a_init", why);
  }
  snprintf(why, sizeof why, "init = '%s' (only 'file' reads it)", si->init);
  if (strcmp(si->init, "file")) warn_ignored(cfg, g, "init_file", why);
  if (si->p.pstar == 0.0) {
    static const char *const rheology[] = {"c_strength", "ecc", "delta_min", "tensile_k"};
    for (int k = 0; k < 4; ++k)
      warn_ignored(cfg, g, rheology[k], "pstar = 0 (no internal stress)");
  }
  if (!si->p.ssh_tilt) warn_ignored(cfg, g, "gravity", "ssh_tilt = .false.");
  if (si->p.adaptive_evp) {
    warn_ignored(cfg, g, "alpha", "adaptive_evp = .true. (alpha is set per cell)");
    warn_ignored(cfg, g, "beta", "adaptive_evp = .true. (beta is set per node)");
  } else {
    static const char *const aevp[] = {"aevp_c", "aevp_cstar", "aevp_alpha_min"};
    for (int k = 0; k < 3; ++k)
      warn_ignored(cfg, g, aevp[k], "adaptive_evp = .false.");
  }
  if (si->p.rheology == CRYO_SEAICE_RHEOLOGY_BBM) {
    static const char *const vp[] = {"n_evp",
                                     "alpha",
                                     "beta",
                                     "ecc",
                                     "delta_min",
                                     "pstar",
                                     "tensile_k",
                                     "adaptive_evp",
                                     "stress_precision",
                                     "state_precision"};
    for (int k = 0; k < 10; ++k)
      warn_ignored(cfg, g, vp[k], "rheology = 'bbm' (a key of the viscous-plastic mEVP)");
  } else {
    static const char *const bbm[] = {
        "n_bbm",  "bbm_young",        "bbm_poisson",   "bbm_lambda0",   "bbm_alpha", "bbm_p0",
        "bbm_mu", "bbm_cohesion_lab", "bbm_lab_scale", "bbm_compr_cap", "bbm_t_heal"};
    for (int k = 0; k < 11; ++k)
      warn_ignored(cfg, g, bbm[k], "rheology = 'vp'");
  }
  if (!si->p.basal_stress) {
    static const char *const basal[] = {"bathymetry_file", "bathymetry_var", "basal_k1",
                                        "basal_k2",        "basal_alphab",   "basal_u0"};
    for (int k = 0; k < 6; ++k)
      warn_ignored(cfg, g, basal[k], "basal_stress = .false.");
  }
}

/* &cryo_landice options unused by the land-ice case and settings. */
static void warn_landice(cryo_config *cfg, const cryo_nml_group *g) {
  const cryo_landice_config *li = &cfg->landice;
  const int kase = li->p.geometry_case;
  const int ismip = kase == CRYO_LANDICE_CASE_ISMIP_HOM_A || kase == CRYO_LANDICE_CASE_ISMIP_HOM_C;
  char why[160];
  snprintf(why, sizeof why, "case = '%s' (only 'slab' uses it)", li->geometry_case);
  if (kase != CRYO_LANDICE_CASE_SLAB) {
    warn_ignored(cfg, g, "slope", why);
    warn_ignored(cfg, g, "thickness", why);
  }
  snprintf(why, sizeof why, "case = '%s' (only the ISMIP-HOM cases use it)", li->geometry_case);
  if (!ismip) warn_ignored(cfg, g, "domain_length", why);
  snprintf(why, sizeof why, "case = '%s' (only 'file' uses it)", li->geometry_case);
  if (kase != CRYO_LANDICE_CASE_FILE) {
    warn_ignored(cfg, g, "geometry_file", why);
    warn_ignored(cfg, g, "background_slope", why);
  }
  if (ismip) {
    /* The case sets the bed condition (A: no slip; C: its own beta2 field). */
    const char *bed = kase == CRYO_LANDICE_CASE_ISMIP_HOM_A ? "no_slip" : "friction";
    snprintf(why, sizeof why, "case = '%s' sets basal = '%s'", li->geometry_case, bed);
    if (strcmp(li->basal, bed)) warn_ignored(cfg, g, "basal", why);
    snprintf(why, sizeof why, "case = '%s' %s", li->geometry_case,
             kase == CRYO_LANDICE_CASE_ISMIP_HOM_A ? "has no slip at the bed"
                                                   : "sets beta2 = 1000 + 1000 sin(wx) sin(wy)");
    warn_ignored(cfg, g, "beta2", why);
  } else if (li->p.no_slip) {
    warn_ignored(cfg, g, "beta2", "basal = 'no_slip'");
  } else if (li->p.sliding_law != CRYO_LANDICE_SLIDING_LINEAR) {
    warn_ignored(cfg, g, "beta2", "sliding_law is not 'linear'");
  }
  if (li->p.sliding_law == CRYO_LANDICE_SLIDING_LINEAR) {
    warn_ignored(cfg, g, "sliding_c", "sliding_law = 'linear' (beta2 is its coefficient)");
    warn_ignored(cfg, g, "sliding_m", "sliding_law = 'linear'");
  }
  if (li->p.sliding_law != CRYO_LANDICE_SLIDING_SCHOOF &&
      li->p.sliding_law != CRYO_LANDICE_SLIDING_TSAI)
    warn_ignored(cfg, g, "coulomb_c", "sliding_law is neither 'schoof' nor 'tsai'");
  if (!li->p.marine) {
    warn_ignored(cfg, g, "sea_level", "marine = .false.");
    warn_ignored(cfg, g, "rho_water", "marine = .false.");
    warn_ignored(cfg, g, "calving",
                 "marine = .false. (nothing floats: all ice outside the mask goes)");
  }
  if (li->periodic) warn_ignored(cfg, g, "lateral", "periodic = .true. (the domain has no edges)");
}

/* Options that the settings around them make ineffective (namelists/README.md, Syntax): each
 * pair of an option and the setting that makes it unused, group by group. */
static void collect_warnings(cryo_config *cfg, const cryo_nml_group *g) {
  const cryo_run_config *r = &cfg->run;
  const int seaice = !strcmp(r->model, "seaice");
  const int kase = cfg->landice.p.geometry_case;
  char why[160];
  cfg->warnings[0] = '\0';
  if (!r->output_file[0]) warn_ignored(cfg, &g[G_RUN], "output_interval", "output_file = ''");
  if (!r->output_file[0])
    warn_ignored(cfg, &g[G_RUN], "output_grid", "output_file = ''");
  else if (!cfg->grid.grid_file[0])
    warn_ignored(cfg, &g[G_RUN], "output_grid",
                 "grid_file = '' (the built-in box's axes are always written)");
  if (!r->restart_out[0]) warn_ignored(cfg, &g[G_RUN], "restart_interval", "restart_out = ''");
  if (strcmp(r->forcing, "netcdf")) {
    snprintf(why, sizeof why, "forcing = '%s' (only 'netcdf' reads a file)", r->forcing);
    warn_ignored(cfg, &g[G_RUN], "forcing_file", why);
    warn_ignored(cfg, &g[G_RUN], "forcing_vars", why);
  } else if (!seaice) {
    warn_ignored(cfg, &g[G_RUN], "forcing_vars",
                 "model = 'landice' reads smb and basal_melt under those names");
  }
  if (!seaice) {
    warn_ignored(cfg, &g[G_GRID], "mask_file", "model = 'landice' (a sea-ice land mask)");
    warn_ignored(cfg, &g[G_GRID], "mask_var", "model = 'landice' (a sea-ice land mask)");
  } else if (!cfg->grid.mask_file[0]) {
    warn_ignored(cfg, &g[G_GRID], "mask_var", "mask_file = ''");
  }
  if (cfg->grid.grid_file[0]) {
    snprintf(why, sizeof why, "grid_file = '%.100s' (the file gives the cells)",
             cfg->grid.grid_file);
    warn_ignored(cfg, &g[G_GRID], "dx", why);
    warn_ignored(cfg, &g[G_GRID], "dy", why);
    if (!cfg->grid.spherical)
      warn_ignored(cfg, &g[G_GRID], "earth_radius",
                   "grid_file holds a planar grid (x_c, y_c in m)");
  } else {
    warn_ignored(cfg, &g[G_GRID], "earth_radius", "grid_file = '' (the built-in box is planar)");
    warn_ignored(cfg, &g[G_GRID], "vector_frame",
                 "grid_file = '' (the built-in box's grid directions are east and north)");
  }
  if (!seaice && cfg->landice.p.domain_length > 0 &&
      (kase == CRYO_LANDICE_CASE_ISMIP_HOM_A || kase == CRYO_LANDICE_CASE_ISMIP_HOM_C)) {
    snprintf(why, sizeof why, "case = '%s' with domain_length > 0 sets dx = dy = L / nx",
             cfg->landice.geometry_case);
    warn_ignored(cfg, &g[G_GRID], "dx", why);
    warn_ignored(cfg, &g[G_GRID], "dy", why);
  }
  if (seaice)
    warn_seaice(cfg, &g[G_SEAICE]);
  else
    warn_group_ignored(cfg, &g[G_SEAICE], "model = 'landice'");
  if (seaice)
    warn_ignored(cfg, &g[G_COUPLING], "rate_factor",
                 "model = 'seaice' (the rate factor is land ice's)");
  if (seaice)
    warn_group_ignored(cfg, &g[G_LANDICE], "model = 'seaice'");
  else
    warn_landice(cfg, &g[G_LANDICE]);
  if (strcmp(r->task, "invert")) {
    snprintf(why, sizeof why, "task = '%s' (only 'invert' uses &cryo_invert)", r->task);
    warn_group_ignored(cfg, &g[G_INVERT], why);
  }
  if (strcmp(r->forcing, "oasis")) {
    snprintf(why, sizeof why, "forcing = '%s' (only 'oasis' uses &cryo_coupling)", r->forcing);
    warn_group_ignored(cfg, &g[G_COUPLING], why);
  }
}

/* The schema key of a core's numeric parameter: its type, range and units
 * from the core's table (kernels/cryo_params.h), the one place they are
 * written; `params` is the core's params struct. */
static cryo_nml_key range_key(const cryo_param_range *t, int n, const char *name, void *params) {
  const cryo_param_range *r = cryo_param_range_find(t, n, name);
  return (cryo_nml_key){name,
                        r && r->is_int ? CRYO_NML_INT : CRYO_NML_REAL,
                        r ? (char *)params + r->offset : NULL,
                        1,
                        NULL,
                        0,
                        r ? r->lo : 1,
                        r ? r->hi : 0,
                        NULL,
                        0,
                        r ? r->units : NULL};
}

static int read_config(cryo_config *cfg, const char *text, const char *path, cryo_err *err) {
  cryo_run_config *r = &cfg->run;
  cryo_grid_config *g = &cfg->grid;
  cryo_seaice_config *si = &cfg->seaice;
  cryo_seaice_params *sp = &si->p;
  cryo_landice_config *li = &cfg->landice;
  cryo_landice_params *lp = &li->p;
  time_keys t = {(double)r->run_length, (double)r->coupling_interval, (double)r->output_interval,
                 (double)r->restart_interval};
  const double big = 1e30;
  const cryo_param_range *si_ranges, *li_ranges;
  const int si_n = cryo_seaice_param_ranges(&si_ranges);
  const int li_n = cryo_landice_param_ranges(&li_ranges);

  const cryo_nml_key run_keys[] = {
      {"model", CRYO_NML_STRING, r->model, 1, NULL, sizeof r->model, 1, 0, models, 1, NULL},
      STR_KEY("task", r->task, tasks),
      STR_KEY("start", r->start, NULL),
      STR_KEY("calendar", r->calendar, calendars),
      KEY("run_length", CRYO_NML_REAL, &t.run_length, 1, big, 1, "s"),
      REAL_KEY("coupling_interval", &t.coupling_interval, 1, big, "s"),
      REAL_KEY("output_interval", &t.output_interval, 0, big, "s"),
      REAL_KEY("restart_interval", &t.restart_interval, 0, big, "s"),
      STR_KEY("output_file", r->output_file, NULL),
      STR_KEY("output_grid", r->output_grid, output_grids),
      STR_KEY("restart_out", r->restart_out, NULL),
      STR_KEY("restart_in", r->restart_in, NULL),
      STR_KEY("forcing", r->forcing, forcings),
      STR_KEY("forcing_file", r->forcing_file, NULL),
      {"forcing_vars", CRYO_NML_STRING, r->forcing_vars, 4, NULL, CRYO_NAME_LEN, 1, 0, NULL, 0,
       NULL},
      STR_KEY("device", r->device, devices),
      STR_KEY("halo_device_buffers", r->halo_device_buffers, halo_paths),
      STR_KEY("halo_overlap", r->halo_overlap, yes_no),
      STR_KEY("halo_peer", r->halo_peer, auto_no),
  };
  const cryo_nml_key grid_keys[] = {
      /* required without grid_file (check_grid) */
      INT_KEY("nx", &g->nx, 2, 1e6),
      INT_KEY("ny", &g->ny, 2, 1e6),
      REAL_KEY("dx", &g->dx, 1e-3, 1e8, "m"),
      REAL_KEY("dy", &g->dy, 1e-3, 1e8, "m"),
      STR_KEY("mask_file", g->mask_file, NULL),
      STR_KEY("mask_var", g->mask_var, NULL),
      INT_KEY("nprocs_x", &g->nprocs_x, 0, 1e6),
      INT_KEY("nprocs_y", &g->nprocs_y, 0, 1e6),
      STR_KEY("decomposition", g->decomposition, decompositions),
      STR_KEY("grid_file", g->grid_file, NULL),
      REAL_KEY("earth_radius", &g->earth_radius, 1e5, 1e8, "m"),
      STR_KEY("vector_frame", g->vector_frame, vector_frames),
  };
  const cryo_nml_key seaice_keys[] = {
      SI_KEY("dt"),
      SI_KEY("n_evp"),
      SI_KEY("alpha"),
      SI_KEY("beta"),
      SI_KEY("pstar"),
      SI_KEY("c_strength"),
      SI_KEY("ecc"),
      SI_KEY("delta_min"),
      SI_KEY("rho_ice"),
      SI_KEY("rho_air"),
      SI_KEY("rho_ocean"),
      SI_KEY("c_air"),
      SI_KEY("c_ocean"),
      SI_KEY("coriolis"),
      SI_KEY("h_min"),
      SI_KEY("a_min"),
      SI_KEY("tracer_order"),
      STR_KEY("stress_precision", si->stress_precision, precisions),
      STR_KEY("rheology", si->rheology, rheologies),
      SI_KEY("n_bbm"),
      SI_KEY("bbm_young"),
      SI_KEY("bbm_poisson"),
      SI_KEY("bbm_lambda0"),
      SI_KEY("bbm_alpha"),
      SI_KEY("bbm_p0"),
      SI_KEY("bbm_mu"),
      SI_KEY("bbm_cohesion_lab"),
      SI_KEY("bbm_lab_scale"),
      SI_KEY("bbm_compr_cap"),
      SI_KEY("bbm_t_heal"),
      STR_KEY("state_precision", si->state_precision, precisions),
      STR_KEY("init", si->init, si_inits),
      REAL_KEY("h_init", &si->h_init, 0, 1e3, "m"),
      REAL_KEY("a_init", &si->a_init, 0, 1, NULL),
      STR_KEY("init_file", si->init_file, NULL),
      REAL_KEY("max_speed", &si->max_speed, 1e-3, 1e6, "m s-1"),
      REAL_KEY("max_thickness", &si->max_thickness, 1e-3, 1e6, "m"),
      SI_KEY("turning_angle"),
      BOOL_KEY("ssh_tilt", &sp->ssh_tilt),
      SI_KEY("gravity"),
      BOOL_KEY("adaptive_evp", &sp->adaptive_evp),
      SI_KEY("aevp_c"),
      SI_KEY("aevp_cstar"),
      SI_KEY("aevp_alpha_min"),
      BOOL_KEY("basal_stress", &sp->basal_stress),
      STR_KEY("bathymetry_file", si->bathymetry_file, NULL),
      STR_KEY("bathymetry_var", si->bathymetry_var, NULL),
      SI_KEY("basal_k1"),
      SI_KEY("basal_k2"),
      SI_KEY("basal_alphab"),
      SI_KEY("basal_u0"),
      SI_KEY("tensile_k"),
  };
  const cryo_nml_key landice_keys[] = {
      LI_KEY("n_layers"),
      LI_KEY("glen_n"),
      LI_KEY("rate_factor"),
      LI_KEY("rho_ice"),
      LI_KEY("gravity"),
      LI_KEY("beta2"),
      STR_KEY("basal", li->basal, li_basal),
      STR_KEY("sliding_law", li->sliding_law, li_sliding),
      LI_KEY("sliding_c"),
      LI_KEY("sliding_m"),
      LI_KEY("coulomb_c"),
      BOOL_KEY("marine", &lp->marine),
      LI_KEY("sea_level"),
      LI_KEY("rho_water"),
      STR_KEY("lateral", li->lateral, li_lateral),
      LI_KEY("min_thickness"),
      STR_KEY("melt_cells", li->melt_cells, li_melt_cells),
      STR_KEY("calving", li->calving, li_calving),
      STR_KEY("melt_source", li->melt_source, li_melt_source),
      LI_KEY("melt_omega"),
      LI_KEY("melt_z0"),
      LI_KEY("melt_hc0"),
      BOOL_KEY("periodic", &li->periodic),
      STR_KEY("case", li->geometry_case, li_cases),
      LI_KEY("domain_length"),
      LI_KEY("slope"),
      LI_KEY("thickness"),
      STR_KEY("geometry_file", li->geometry_file, NULL),
      STR_KEY("fields_file", li->fields_file, NULL),
      STR_KEY("solver_log", li->solver_log, NULL),
      REAL_KEY("background_slope", &li->background_slope, -45, 45, "degrees"),
      LI_KEY("eps_reg"),
      LI_KEY("newton_rtol"),
      LI_KEY("newton_atol"),
      LI_KEY("newton_max_iter"),
      LI_KEY("linear_rtol"),
      LI_KEY("linear_max_iter"),
      STR_KEY("preconditioner", li->preconditioner, preconditioners),
      LI_KEY("dt"),
      BOOL_KEY("evolve_thickness", &li->evolve_thickness),
      BOOL_KEY("remove_icebergs", &li->remove_icebergs),
      REAL_KEY("max_speed", &li->max_speed, 1e-3, 1e12, "m a-1"),
      REAL_KEY("max_thickness", &li->max_thickness, 1e-3, 1e6, "m"),
  };
  cryo_invert_config *inv = &cfg->invert;
  cryo_landice_invert_opts *io = &inv->opts;
  const cryo_nml_key invert_keys[] = {
      STR_KEY("obs_file", inv->obs_file, NULL),
      STR_KEY("result_file", inv->result_file, NULL),
      STR_KEY("log_file", inv->log_file, NULL),
      REAL_KEY("gamma", &inv->gamma, 0, big, NULL),
      REAL_KEY("discrepancy", &inv->discrepancy, 0, 100, NULL),
      INT_KEY("max_iter", &io->max_iter, 1, 1e6),
      INT_KEY("memory", &io->memory, 1, CRYO_LANDICE_LBFGS_MAX),
      INT_KEY("max_backtrack", &io->max_backtrack, 1, 100),
      REAL_KEY("gtol", &io->gtol, 0, 1, NULL),
      REAL_KEY("ftol", &io->ftol, 0, 1, NULL),
      REAL_KEY("step_max", &io->step_max, 1e-6, 10, NULL),
      REAL_KEY("armijo", &io->armijo, 1e-8, 0.5, NULL),
      REAL_KEY("adjoint_rtol", &inv->adjoint_rtol, 0, 1e-2, NULL),
  };
  /* One key per coupling field, named as in the exchange table, holding its
   * OASIS name (namcouple) when it differs from the default. */
  /* Names longer than OASIS keeps are refused at their line (coupling/cryo_oasis.h). */
  cryo_nml_key coupling_keys[3 + CRYO_COUPLING_FIELDS] = {
      {"component", CRYO_NML_STRING, cfg->coupling.component, 1, NULL, CRYO_OASIS_COMP_NAME_MAX + 1,
       1, 0, NULL, 0, NULL},
      {"grid_name", CRYO_NML_STRING, cfg->coupling.grid_name, 1, NULL, CRYO_OASIS_GRID_NAME_MAX + 1,
       1, 0, NULL, 0, NULL},
      /* two digits of the layer follow the prefix in each OASIS name */
      {"rate_factor", CRYO_NML_STRING, cfg->coupling.rate_factor, 1, NULL,
       CRYO_OASIS_VAR_NAME_MAX - 1, 1, 0, NULL, 0, NULL},
  };
  for (int f = 0; f < CRYO_COUPLING_FIELDS; ++f)
    coupling_keys[3 + f] = (cryo_nml_key){cryo_exchange_fields[f].name,
                                          CRYO_NML_STRING,
                                          cfg->coupling.names[f],
                                          1,
                                          NULL,
                                          CRYO_OASIS_VAR_NAME_MAX + 1,
                                          1,
                                          0,
                                          NULL,
                                          0,
                                          NULL};
#define N(a) (int)(sizeof(a) / sizeof((a)[0]))
  int given_run[N(run_keys)], given_grid[N(grid_keys)], given_seaice[N(seaice_keys)],
      given_landice[N(landice_keys)], given_invert[N(invert_keys)],
      given_coupling[N(coupling_keys)];
  const cryo_nml_group groups[G_COUNT] = {
      [G_RUN] = {"cryo_run", run_keys, N(run_keys), 1, given_run},
      [G_GRID] = {"cryo_grid", grid_keys, N(grid_keys), 1, given_grid},
      [G_SEAICE] = {"cryo_seaice", seaice_keys, N(seaice_keys), 0, given_seaice},
      [G_LANDICE] = {"cryo_landice", landice_keys, N(landice_keys), 0, given_landice},
      [G_INVERT] = {"cryo_invert", invert_keys, N(invert_keys), 0, given_invert},
      [G_COUPLING] = {"cryo_coupling", coupling_keys, N(coupling_keys), 0, given_coupling},
  };
  int status = text ? cryo_namelist_read_string(text, path, groups, G_COUNT, err)
                    : cryo_namelist_read_file(path, groups, G_COUNT, err);
#undef N
  if (status != CRYO_OK) return status;
  CRYO_CALL(check_grid(cfg, &groups[G_GRID], err));
  CRYO_CALL(check_config(cfg, &t, err));
  collect_warnings(cfg, groups);
  return CRYO_OK;
}

int cryo_config_read(cryo_config *cfg, const char *path, cryo_err *err) {
  cryo_config_defaults(cfg);
  snprintf(cfg->source, sizeof cfg->source, "%s", path);
  return read_config(cfg, NULL, path, err);
}

int cryo_config_read_string(cryo_config *cfg, const char *text, const char *source, cryo_err *err) {
  cryo_config_defaults(cfg);
  snprintf(cfg->source, sizeof cfg->source, "%s", source);
  return read_config(cfg, text, source, err);
}
