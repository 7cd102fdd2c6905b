/* The sea-ice dynamical core inside the component (docs/seaice.md):
 * state arrays from the kernels' table, initial state, forcing through the
 * exchange layer, and the macro-step loop of one coupling interval. */
#include "cryo_check.h"
#include "cryo_exchange.h"
#include "cryo_gridfile.h"
#include "cryo_impl.h"
#include "cryo_input.h"
#include "seaice_cyclone.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Forcing fields arrive cell-centred (exchange layer), in this order. */
static const int forcing_ids[4] = {CRYO_F_UWIND, CRYO_F_VWIND, CRYO_F_UOCEAN, CRYO_F_VOCEAN};
/* Fields sent to an ocean (OASIS or the host), in this order. */
static const int result_ids[6] = {CRYO_F_UICE, CRYO_F_VICE,    CRYO_F_AICE,
                                  CRYO_F_HICE, CRYO_F_TAUX_IO, CRYO_F_TAUY_IO};

typedef struct seaice_model {
  cryo_seaice_state s;
  double *cell_forcing[4];  /* device addresses of the cell-centred forcing */
  int cell_field[4];        /* their registry indices */
  double *results[6];       /* device addresses of the fields sent out */
  int result_field[6];      /* their registry indices, -1 when nothing is sent */
  int analytic;             /* forcing computed in place from the cyclone formulas */
  int host;                 /* forcing set by the host through cryo_set_field */
  int coupled;              /* results go out through OASIS */
  int ssh_field;            /* registry index of the received sea-surface height, -1 without */
  double *u_east, *v_north; /* node velocity along east and north (grid files), output */
  float *single_host[4];    /* state_precision = 'single': host addresses of s11_f, s12_f,
                               s22_f, alpha_evp_f (NULL where not allocated) */
} seaice_model;

static const cryo_role roles[] = {[CRYO_SEAICE_PROGNOSTIC] = CRYO_ROLE_PROGNOSTIC,
                                  [CRYO_SEAICE_FORCING] = CRYO_ROLE_FORCING,
                                  [CRYO_SEAICE_STATIC] = CRYO_ROLE_STATIC,
                                  [CRYO_SEAICE_DIAGNOSTIC] = CRYO_ROLE_DIAGNOSTIC,
                                  [CRYO_SEAICE_WORK] = CRYO_ROLE_WORK};

static seaice_model *model_of(cryo_component *c) {
  return c->model_data;
}

/* An F fold's two pivots are nodes that the fold maps onto themselves (the
 * poles of the bipolar cap, docs/seaice.md, The north fold): a velocity
 * there would have to equal its own reverse. Murray's grids put them on
 * land; the two cells of the top row at each must be land. */
static int check_fold_pivots(cryo_component *c, const cryo_field *mask) {
  const cryo_block *b = &c->grid.block;
  if (b->fold != CRYO_FOLD_F || b->j0 + b->ny != b->ny_global) return CRYO_OK;
  const int nxg = b->nx_global, pivot_cells[4] = {nxg - 1, 0, nxg / 2 - 1, nxg / 2};
  for (int k = 0; k < 4; ++k) {
    const int i = pivot_cells[k] - b->i0;
    if (i < 0 || i >= b->nx) continue;
    CRYO_CHECK(mask->host[CRYO_CELL(b, i, b->ny - 1)] == 0.0, &c->err, CRYO_ERR_DATA,
               "&cryo_grid grid_file '%s': cell (i, j) = (%d, %d) touches pivot node (%d, %d) of "
               "the north fold (north_fold = 'F'), which the fold maps onto itself; it must be "
               "land (mask 0), as the poles of a tripolar grid are",
               c->cfg.grid.grid_file, pivot_cells[k], b->ny_global - 1, k < 2 ? 0 : nxg / 2,
               b->ny_global);
  }
  return CRYO_OK;
}

/* The geometry arrays f (geom, rot, fcor, nrot) computed on the device
 * from the grid file's points: the two point tables of
 * cryo_seaice_geometry_points are put there for the kernels and freed
 * after (64 bytes a node and 24 a cell cross; the geometry itself,
 * 128 bytes a cell and 24 a node, stays on the device). */
static int device_geometry(cryo_component *c, const cryo_seaice_grid_points *points,
                           cryo_field *const *f) {
  const cryo_block *b = &c->grid.block;
  const long nn = (long)(b->nx + 5) * (b->ny + 5) * CRYO_SEAICE_GNODE;
  const long nc = CRYO_NCELL(b) * CRYO_SEAICE_GCELL;
  double *nodes = NULL, *nodes_dev = NULL, *cells = NULL, *cells_dev = NULL;
  int status = cryo_device_alloc(&c->dev, nn, &nodes, &nodes_dev, &c->err);
  if (status == CRYO_OK) status = cryo_device_alloc(&c->dev, nc, &cells, &cells_dev, &c->err);
  if (status == CRYO_OK) {
    cryo_seaice_geometry_points(b, points, nodes, cells);
    cryo_device_to_device(&c->dev, nodes, 0, nn);
    cryo_device_to_device(&c->dev, cells, 0, nc);
    cryo_seaice_geometry(b, points, nodes_dev, cells_dev, f[0]->dev, f[1]->dev, f[2]->dev,
                         f[3]->dev);
  }
  cryo_device_free(&c->dev, &nodes, nn);
  cryo_device_free(&c->dev, &cells, nc);
  return status;
}

/* Cells of a grid file: read this rank's part, compute the geometry arrays
 * (kernels/seaice.h), check the mEVP stability condition against the
 * narrowest cell, and take the file's land mask (times mask_file's). */
static int init_geometry(cryo_component *c, cryo_field *mask) {
  const cryo_block *b = &c->grid.block;
  const cryo_grid_config *gc = &c->cfg.grid;
  const char *path = gc->grid_file;
  cryo_gridfile *gf = calloc(1, sizeof *gf);
  CRYO_CHECK(gf, &c->err, CRYO_ERR_MEMORY, "out of memory for the grid file");
  c->gridfile = gf;
  /* each rank checks its own window: a bad cell stops them all here, before
   * the collective calls below */
  CRYO_CALL(cryo_status_agree(c, cryo_gridfile_read(path, "&cryo_grid grid_file", b,
                                                    gc->earth_radius, CRYO_EARTH_OMEGA,
                                                    c->cfg.seaice.p.coriolis, gf, &c->err)));
  /* the reader timed its checks and layouts; the rest of its time is reading */
  cryo_startup_lap(c, CRYO_S_GRID_READ);
  c->startup[CRYO_S_GRID_READ].seconds -= gf->check_seconds + gf->layout_seconds;
  c->startup[CRYO_S_GRID_CHECK].seconds += gf->check_seconds;
  c->startup[CRYO_S_GRID_CHECK].calls++;
  c->startup[CRYO_S_LAYOUT].seconds += gf->layout_seconds;
  c->startup[CRYO_S_LAYOUT].calls++;
  static const char *const names[4] = {"geom", "rot", "fcor", "nrot"};
  cryo_field *f[4];
  for (int k = 0; k < 4; ++k)
    f[k] = &c->fields[cryo_field_find(c, names[k])];
  CRYO_CALL(device_geometry(c, &gf->points, f));
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long q = CRYO_CELL(b, i, j);
      mask->host[q] = gf->mask[q] * (gc->mask_file[0] ? mask->host[q] : 1.0);
    }
  /* before the narrowest cell: a pivot cell has no frame, hence no width */
  CRYO_CALL(cryo_status_agree(c, check_fold_pivots(c, mask)));
  cryo_field_to_device(c, mask);
  double width = cryo_seaice_narrowest_cell(b, f[0]->dev, mask->dev);
  CRYO_CALL(cryo_mpi_check(MPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_DOUBLE, MPI_MIN, c->comm),
                           "MPI_Allreduce (narrowest cell)", &c->err));
  /* the adaptive EVP sets alpha and beta cell by cell: no fixed pair to check */
  if (isfinite(width) && !c->cfg.seaice.p.adaptive_evp)
    CRYO_CALL(cryo_config_check_mevp(&c->cfg, width, &c->err));
  if (!b->fold) return CRYO_OK;
  /* across the fold the halo is the image of cells and nodes far away in
   * the same rows: their geometry turned by half a turn, to the bit */
  for (int k = 0; k < 4; ++k)
    CRYO_CALL(cryo_field_halo(c, f[k]));
  cryo_field_to_host(c, f[0]);
  cryo_seaice_geometry_fold(b, f[0]->host);
  cryo_field_to_device(c, f[0]);
  return CRYO_OK;
}

static int init_state(cryo_component *c, seaice_model *m) {
  const cryo_block *b = &c->grid.block;
  const cryo_seaice_config *sc = &c->cfg.seaice;
  int nlev = CRYO_SEAICE_NA(sc->p.tracer_order);
  cryo_field *mask = &c->fields[cryo_field_find(c, "mask")];
  cryo_field *h = &c->fields[cryo_field_find(c, "h")];
  cryo_field *a = &c->fields[cryo_field_find(c, "a")];
  if (c->cfg.grid.mask_file[0]) {
    /* 1 ocean, 0 land; cells outside the domain stay 0. */
    const char *var = c->cfg.grid.mask_var;
    const double lo = 0.0, hi = 1.0;
    CRYO_CALL(
        cryo_read_cell_fields(c, c->cfg.grid.mask_file, "mask_file", 1, &var, &lo, &hi, &mask));
    for (long q = 0; q < CRYO_NCELL(b); ++q)
      CRYO_CHECK(mask->host[q] == 0.0 || mask->host[q] == 1.0, &c->err, CRYO_ERR_DATA,
                 "mask_file %s: '%s' holds %g, must be 0 or 1", c->cfg.grid.mask_file, var,
                 mask->host[q]);
  } else {
    for (int j = 0; j < b->ny; ++j)
      for (int i = 0; i < b->nx; ++i)
        mask->host[CRYO_CELL(b, i, j)] = 1.0;
  }
  int cyclone = !strcmp(sc->init, "cyclone");
  if (sc->p.quad) {
    CRYO_CHECK(!cyclone, &c->err, CRYO_ERR_ARG,
               "%s: &cryo_seaice init = 'cyclone' needs the built-in box (its formulas use x "
               "and y of the box), not grid_file = '%s': use init = 'uniform' or 'file'",
               c->cfg.source, c->cfg.grid.grid_file);
    cryo_startup_lap(c, CRYO_S_STATE);
    CRYO_CALL(init_geometry(c, mask));
    cryo_startup_lap(c, CRYO_S_GEOMETRY);
  }
  if (!strcmp(sc->init, "file")) {
    /* Cell means h (m) and a; the dG1 slopes start at zero. */
    static const char *const vars[2] = {"h", "a"};
    const double lo[2] = {0.0, 0.0}, hi[2] = {1e3, 1.0};
    cryo_field *const fields[2] = {h, a};
    CRYO_CALL(cryo_read_cell_fields(c, sc->init_file, "init_file", 2, vars, lo, hi, fields));
  }
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      long q = CRYO_CELL(b, i, j);
      double x = (b->i0 + i + 0.5) * b->dx, y = (b->j0 + j + 0.5) * b->dy;
      double hv = cyclone ? cryo_cyclone_thickness(x, y) : sc->h_init;
      double av = cyclone ? CRYO_CYCLONE_A0 : sc->a_init;
      if (!strcmp(sc->init, "file")) hv = h->host[q * nlev], av = a->host[q * nlev];
      h->host[q * nlev] = mask->host[q] * hv;
      a->host[q * nlev] = mask->host[q] * av;
    }
  cryo_field *init[3] = {mask, h, a};
  for (int k = 0; k < 3; ++k) {
    cryo_field_to_device(c, init[k]);
    CRYO_CALL(cryo_field_halo(c, init[k]));
  }
  if (sc->p.basal_stress) {
    /* water depth of the basal stress (docs/seaice.md, Landfast ice); land may hold any
     * depth, its nodes do not move */
    cryo_field *depth = &c->fields[cryo_field_find(c, "bathymetry")];
    const char *var = sc->bathymetry_var;
    const double lo = 0.0, hi = 12000.0;
    CRYO_CALL(cryo_read_cell_fields(c, sc->bathymetry_file, "bathymetry_file", 1, &var, &lo, &hi,
                                    &depth));
    cryo_field_to_device(c, depth);
    CRYO_CALL(cryo_field_halo(c, depth));
  }
  (void)m;
  return CRYO_OK;
}

/* state_precision = 'single': the float arrays the mEVP sub-cycle stores its stress (and
 * alpha) in (kernels/seaice.h), outside the registry, which holds doubles: output, restarts
 * and the halo read the double stress, which holds the same values between macro steps.
 * Their lengths: s11_f, s12_f, s22_f, alpha_evp_f. */
static void single_lengths(const cryo_block *b, long n[4]) {
  n[0] = n[1] = n[2] = CRYO_NCELL(b) * CRYO_SEAICE_NS;
  n[3] = CRYO_NCELL(b);
}

static int single_arrays_create(cryo_component *c, seaice_model *m) {
  long n[4];
  single_lengths(&c->grid.block, n);
  float **dev[4] = {&m->s.s11_f, &m->s.s12_f, &m->s.s22_f, &m->s.alpha_evp_f};
  const int count = c->cfg.seaice.p.adaptive_evp ? 4 : 3;
  for (int k = 0; k < count; ++k)
    CRYO_CALL(cryo_device_alloc_float(&c->dev, n[k], &m->single_host[k], dev[k], &c->err));
  return CRYO_OK;
}

static void single_arrays_free(cryo_component *c, seaice_model *m) {
  long n[4];
  single_lengths(&c->grid.block, n);
  for (int k = 0; k < 4; ++k)
    cryo_device_free_float(&c->dev, &m->single_host[k], n[k]);
}

static int seaice_create(cryo_component *c) {
  seaice_model *m = calloc(1, sizeof *m);
  CRYO_CHECK(m, &c->err, CRYO_ERR_MEMORY, "out of memory for the sea-ice model");
  c->model_data = m;
  const cryo_seaice_array_info *t;
  int n = cryo_seaice_arrays(&c->cfg.seaice.p, &t);
  for (int i = 0; i < n; ++i) {
    double **slot = (double **)((char *)&m->s + t[i].offset);
    CRYO_CALL(cryo_field_add(c, t[i].name, t[i].units, t[i].standard_name, t[i].long_name, t[i].loc,
                             t[i].nlev, roles[t[i].role], slot));
    c->fields[c->nfields - 1].flip = cryo_seaice_array_flip(t[i].name, t[i].nlev);
  }
  for (int k = 0; k < 4; ++k) {
    const cryo_field_info *fi = &cryo_exchange_fields[forcing_ids[k]];
    CRYO_CALL(cryo_field_add(c, fi->name, fi->units, fi->standard_name, fi->long_name, CRYO_AT_CELL,
                             1, CRYO_ROLE_FORCING, &m->cell_forcing[k]));
    m->cell_field[k] = c->nfields - 1;
  }
  /* the arrays of options (kernels/seaice.h), only when they are on */
  const cryo_seaice_params *sp = &c->cfg.seaice.p;
  m->ssh_field = -1;
  if (sp->ssh_tilt) {
    const cryo_field_info *fi = &cryo_exchange_fields[CRYO_F_SSH];
    CRYO_CALL(cryo_field_add(c, fi->name, fi->units, fi->standard_name, fi->long_name, CRYO_AT_CELL,
                             1, CRYO_ROLE_FORCING, &m->s.ssh));
    m->ssh_field = c->nfields - 1;
  }
  if (sp->adaptive_evp && !sp->state_single)
    CRYO_CALL(cryo_field_add(c, "alpha_evp", "1", "", "adaptive EVP relaxation parameter alpha",
                             CRYO_AT_CELL, 1, CRYO_ROLE_WORK, &m->s.alpha_evp));
  if (sp->state_single) CRYO_CALL(single_arrays_create(c, m));
  if (sp->basal_stress)
    CRYO_CALL(cryo_field_add(c, "bathymetry", "m", "sea_floor_depth_below_geoid",
                             "water depth under the ice (basal stress)", CRYO_AT_CELL, 1,
                             CRYO_ROLE_STATIC, &m->s.bathymetry));
  if (sp->rheology == CRYO_SEAICE_RHEOLOGY_BBM) {
    /* the damage is prognostic (restarts, output); it starts undamaged */
    const int na = CRYO_SEAICE_NA(sp->tracer_order);
    CRYO_CALL(cryo_field_add(c, "damage", "1", "", "sea ice damage (BBM, level 0: cell mean)",
                             CRYO_AT_CELL, na, CRYO_ROLE_PROGNOSTIC, &m->s.damage));
    c->fields[c->nfields - 1].flip = cryo_seaice_array_flip("damage", na);
    CRYO_CALL(cryo_output_var_add(c, "damage", "1", "", "sea ice damage (BBM)", "damage", 0, 1, 1));
    static const char *const avg[2] = {"u_avg", "v_avg"};
    double **slot[2] = {&m->s.u_avg, &m->s.v_avg};
    for (int k = 0; k < 2; ++k) {
      CRYO_CALL(cryo_field_add(c, avg[k], "m s-1", "",
                               "sea ice velocity averaged over the BBM sub-steps", CRYO_AT_NODE, 1,
                               CRYO_ROLE_WORK, slot[k]));
      c->fields[c->nfields - 1].flip = cryo_seaice_array_flip(avg[k], 1);
    }
  }
  static const char *const out[] = {"u", "v", "h", "a", "shear", "divergence"};
  for (int k = 0; k < 6; ++k) {
    const cryo_field *f = &c->fields[cryo_field_find(c, out[k])];
    CRYO_CALL(cryo_output_var_add(c, f->name, f->units, f->standard_name, f->long_name, f->name, 0,
                                  1, 1));
  }
  if (c->cfg.seaice.p.quad) {
    /* u, v of a grid file are along its grid lines; maps want east and north */
    static const struct {
      const char *name, *standard_name, *long_name;
    } en[2] = {{"u_east", "eastward_sea_ice_velocity", "sea ice velocity towards east"},
               {"v_north", "northward_sea_ice_velocity", "sea ice velocity towards north"}};
    double **slot[2] = {&m->u_east, &m->v_north};
    for (int k = 0; k < 2; ++k) {
      CRYO_CALL(cryo_field_add(c, en[k].name, "m s-1", en[k].standard_name, en[k].long_name,
                               CRYO_AT_NODE, 1, CRYO_ROLE_DIAGNOSTIC, slot[k]));
      CRYO_CALL(cryo_output_var_add(c, en[k].name, "m s-1", en[k].standard_name, en[k].long_name,
                                    en[k].name, 0, 1, 1));
    }
    /* the current and the wind as received (east, north or along the grid
     * lines, as vector_frame says) and the current as the dynamics uses it,
     * along the grid lines at the nodes: where a coupled run's remapping and
     * rotation can be checked (docs/seaice.md) */
    static const char *const ocean[6] = {"uocean", "vocean", "uocn", "vocn", "uwind", "vwind"};
    for (int k = 0; k < 6; ++k) {
      const cryo_field *f = &c->fields[cryo_field_find(c, ocean[k])];
      CRYO_CALL(cryo_output_var_add(c, f->name, f->units, f->standard_name, f->long_name, f->name,
                                    0, 1, 1));
    }
  }
  cryo_startup_lap(c, CRYO_S_ALLOC);
  CRYO_CALL(init_state(c, m));

  const char *forcing = c->cfg.run.forcing;
  m->analytic = !strcmp(forcing, "analytic");
  m->host = !strcmp(forcing, "host");
  m->coupled = !strcmp(forcing, "oasis");
  for (int k = 0; k < 6; ++k)
    m->result_field[k] = -1;
  if (m->host || m->coupled) {
    for (int k = 0; k < 6; ++k) {
      const cryo_field_info *fi = &cryo_exchange_fields[result_ids[k]];
      CRYO_CALL(cryo_field_add(c, fi->name, fi->units, fi->standard_name, fi->long_name,
                               CRYO_AT_CELL, 1, CRYO_ROLE_DIAGNOSTIC, &m->results[k]));
      m->result_field[k] = c->nfields - 1;
      /* the stress sent, for the area integral a coupled test compares */
      if (c->cfg.seaice.p.quad &&
          (result_ids[k] == CRYO_F_TAUX_IO || result_ids[k] == CRYO_F_TAUY_IO))
        CRYO_CALL(cryo_output_var_add(c, fi->name, fi->units, fi->standard_name, fi->long_name,
                                      fi->name, 0, 1, 1));
    }
  }
  if (!m->analytic) {
    cryo_startup_lap(c, CRYO_S_STATE);
    cryo_exchange_config xc = {0};
    char start[32];
    cryo_date_format(c->clock.start, start, sizeof start);
    xc.forcing_file = c->cfg.run.forcing_file;
    xc.start_date = start;
    for (int k = 0; k < 4; ++k)
      xc.var_names[forcing_ids[k]] = c->cfg.run.forcing_vars[k];
    xc.oasis_component = c->cfg.coupling.component;
    for (int f = 0; f < CRYO_NFIELD; ++f)
      xc.oasis_names[f] = c->cfg.coupling.names[f];
    xc.oasis_grid_name = c->cfg.coupling.grid_name;
    xc.with_ssh = sp->ssh_tilt;
    double *area = NULL; /* only while the provider describes the grid */
    if (c->gridfile && m->coupled) {
      /* OASIS alone takes the cell areas; the geometry was computed on the device */
      cryo_field *geom = &c->fields[cryo_field_find(c, "geom")];
      cryo_field_to_host(c, geom);
      const long ncell = geom->n / CRYO_SEAICE_NGEOM;
      area = malloc(sizeof(double) * (size_t)(ncell > 0 ? ncell : 1));
      CRYO_CHECK(area, &c->err, CRYO_ERR_MEMORY, "sea ice: out of memory for %ld cell areas",
                 ncell);
      for (long q = 0; q < ncell; ++q) {
        const double *g = geom->host + q * CRYO_SEAICE_NGEOM;
        area[q] = 4.0 * (g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X]);
      }
    }
    if (c->gridfile) {
      xc.gridfile = c->gridfile;
      xc.cell_area = area;
      xc.mask = c->fields[cryo_field_find(c, "mask")].host;
    }
    int status =
        cryo_exchange_create(&c->exchange, forcing, CRYO_MODEL_SEAICE, &c->grid, &xc, &c->err);
    free(area);
    CRYO_CALL(status);
    cryo_startup_lap(c, CRYO_S_EXCHANGE);
  }
  return CRYO_OK;
}

static int seaice_get_forcing(cryo_component *c, long long t) {
  seaice_model *m = model_of(c);
  const cryo_block *b = &c->grid.block;
  if (m->analytic) return CRYO_OK; /* computed every macro step in advance() */
  if (!m->host) {
    for (int k = 0; k < 4; ++k) {
      cryo_field *f = &c->fields[m->cell_field[k]];
      CRYO_CALL(cryo_exchange_get(c->exchange, (double)t, forcing_ids[k], f->host, &c->err));
      cryo_field_to_device(c, f);
    }
    if (m->ssh_field >= 0) {
      cryo_field *f = &c->fields[m->ssh_field];
      CRYO_CALL(cryo_exchange_get(c->exchange, (double)t, CRYO_F_SSH, f->host, &c->err));
      cryo_field_to_device(c, f);
    }
  }
  double **cf = m->cell_forcing;
  if (c->cfg.seaice.p.quad)
    cryo_seaice_quad_forcing_to_nodes(b, &m->s, c->cfg.grid.east_north, cf[0], cf[1], cf[2], cf[3]);
  else
    cryo_seaice_forcing_to_nodes(b, cf[0], cf[1], cf[2], cf[3], m->s.uair, m->s.vair, m->s.uocn,
                                 m->s.vocn);
  /* along the grid lines at the nodes: they reverse across a fold */
  double *nodes[4] = {m->s.uair, m->s.vair, m->s.uocn, m->s.vocn};
  static const int sign[1] = {-1};
  return cryo_halo_exchange_signed(c->halo, CRYO_AT_NODE, 1, 4, nodes, sign, &c->err);
}

/* State check after a coupling interval ending at t (cryo_check.h): the
 * first NaN, Inf or out-of-bound value of the domain stops the run with
 * CRYO_ERR_DATA naming it. Only the rank holding that value returns the
 * error (cryo_run shares its message). */
static int seaice_check(cryo_component *c, long long t) {
  seaice_model *m = model_of(c);
  const cryo_seaice_config *sc = &c->cfg.seaice;
  const cryo_block *b = &c->grid.block;
  const int na = CRYO_SEAICE_NA(sc->p.tracer_order);
  const cryo_seaice_state *s = &m->s;
  int i = 0, j = 0, check = 0;
  const long long key =
      cryo_check_global_key(b,
                            cryo_seaice_check_state(b, na, sc->max_speed, sc->max_thickness, s->u,
                                                    s->v, s->s11, s->s12, s->s22, s->h, s->a),
                            CRYO_SEAICE_CHECK_COUNT, &i, &j, &check);
  long long first = key;
  CRYO_CALL(cryo_mpi_check(MPI_Allreduce(&key, &first, 1, MPI_LONG_LONG, MPI_MIN, c->comm),
                           "MPI_Allreduce (sea-ice state check)", &c->err));
  if (first == CRYO_STATE_OK || key != first) return CRYO_OK;

  static const char *const names[CRYO_SEAICE_CHECK_COUNT] = {"u", "s11", "s12", "s22", "h", "a"};
  cryo_field *f = &c->fields[cryo_field_find(c, names[check])];
  const long at = (check == CRYO_SEAICE_CHECK_VELOCITY ? CRYO_NODE(b, i, j) : CRYO_CELL(b, i, j));
  double q[3];
  cryo_device_to_host(&c->dev, f->host, at * f->nlev, f->nlev);
  for (int k = 0; k < f->nlev; ++k)
    q[k] = f->host[at * f->nlev + k];
  char when[96], date[32];
  cryo_date_format(cryo_date_add(c->clock.start, t, c->clock.calendar), date, sizeof date);
  snprintf(when, sizeof when, "sea ice at t = %lld s (%s)", t, date);
  const int gi = b->i0 + i, gj = b->j0 + j;
  if (check == CRYO_SEAICE_CHECK_VELOCITY) {
    cryo_field *fv = &c->fields[cryo_field_find(c, "v")];
    cryo_device_to_host(&c->dev, fv->host, at, 1);
    const double speed = sqrt(q[0] * q[0] + fv->host[at] * fv->host[at]);
    if (!isfinite(speed))
      return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                        "%s: velocity (u, v) = (%g, %g) m s-1 at node (i, j) = (%d, %d) is not "
                        "finite; the run is unstable or its forcing out of bounds",
                        when, q[0], fv->host[at], gi, gj);
    return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                      "%s: velocity (u, v) = (%g, %g) m s-1 at node (i, j) = (%d, %d): speed %g "
                      "m s-1 exceeds max_speed = %g m s-1 (&cryo_seaice); the run is unstable "
                      "or its forcing out of bounds",
                      when, q[0], fv->host[at], gi, gj, speed, sc->max_speed);
  }
  if (check <= CRYO_SEAICE_CHECK_S22)
    return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                      "%s: stress %s at cell (i, j) = (%d, %d) is not finite: coefficients %g, "
                      "%g, %g N m-1",
                      when, names[check], gi, gj, q[0], q[1], q[2]);
  if (check == CRYO_SEAICE_CHECK_H)
    return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                      "%s: thickness h = %g m at cell (i, j) = (%d, %d) is not finite or not in "
                      "[0, max_thickness = %g m] (&cryo_seaice)%s",
                      when, q[0], gi, gj, sc->max_thickness,
                      na > 1 ? ", or its dG slopes are not finite" : "");
  return CRYO_ERROR(&c->err, CRYO_ERR_DATA,
                    "%s: concentration a = %g at cell (i, j) = (%d, %d) is not finite or not in "
                    "[0, 1]%s",
                    when, q[0], gi, gj, na > 1 ? ", or its dG slopes are not finite" : "");
}

static int seaice_advance(cryo_component *c, long long seconds) {
  seaice_model *m = model_of(c);
  const cryo_seaice_params *p = &c->cfg.seaice.p;
  const cryo_block *b = &c->grid.block;
  long nsteps = (long)llround((double)seconds / p->dt);
  for (long k = 0; k < nsteps; ++k) {
    if (m->analytic)
      cryo_seaice_forcing_cyclone(b, (double)c->clock.time + k * p->dt, m->s.uair, m->s.vair,
                                  m->s.uocn, m->s.vocn);
    if (p->rheology == CRYO_SEAICE_RHEOLOGY_BBM)
      CRYO_CALL(cryo_seaice_bbm_step(p, b, &m->s, &c->ops));
    else
      CRYO_CALL(cryo_seaice_step(p, b, &m->s, &c->ops));
  }
  return seaice_check(c, c->clock.time + seconds);
}

static int seaice_diagnose(cryo_component *c) {
  seaice_model *m = model_of(c);
  if (c->cfg.seaice.p.quad) {
    cryo_seaice_quad_diag_rates(&c->grid.block, &m->s);
    cryo_seaice_quad_east_north(&c->grid.block, &m->s, m->u_east, m->v_north);
  } else {
    cryo_seaice_diag_rates(&c->grid.block, m->s.u, m->s.v, m->s.mask, m->s.shear, m->s.divergence);
  }
  return CRYO_OK;
}

/* The fields an ocean receives are computed on the device; only with OASIS
 * do they cross to the host here (a host model fetches them itself). */
static int seaice_put_results(cryo_component *c, long long t) {
  seaice_model *m = model_of(c);
  if (m->result_field[0] < 0) return CRYO_OK;
  double **r = m->results;
  const cryo_seaice_state *s = &m->s;
  if (c->cfg.seaice.p.quad)
    cryo_seaice_quad_coupling_fields(&c->cfg.seaice.p, &c->grid.block, s, c->cfg.grid.east_north,
                                     r[0], r[1], r[2], r[3], r[4], r[5]);
  else
    cryo_seaice_coupling_fields(&c->cfg.seaice.p, &c->grid.block, s->u, s->v, s->uocn, s->vocn,
                                s->h, s->a, s->mask, r[0], r[1], r[2], r[3], r[4], r[5]);
  /* a T fold's copied cells computed their fields in their own (reversed)
   * frames, equal to their originals' only to round-off: they take the
   * originals' bits, so that an ocean receives one value per cell of the
   * sphere (cell scalars and east/north components keep their sign) */
  if (c->grid.block.fold == CRYO_FOLD_T)
    CRYO_CALL(cryo_halo_exchange(c->halo, CRYO_AT_CELL, 1, 6, r, &c->err));
  if (!m->coupled) return CRYO_OK;
  for (int k = 0; k < 6; ++k) {
    cryo_field *f = &c->fields[m->result_field[k]];
    cryo_field_to_host(c, f);
    CRYO_CALL(cryo_exchange_put(c->exchange, (double)t, result_ids[k], f->host, &c->err));
  }
  return CRYO_OK;
}

static int seaice_summary(cryo_component *c, char *buf, int len) {
  seaice_model *m = model_of(c);
  double volume, area, speed;
  CRYO_CALL(cryo_seaice_diag_totals(&c->cfg.seaice.p, &c->grid.block, &m->s, &c->ops, &volume,
                                    &area, &speed));
  snprintf(buf, (size_t)len, "max speed %.4f m/s  volume %.6e m3  area %.6e m2", speed, volume,
           area);
  return CRYO_OK;
}

static void seaice_destroy(cryo_component *c) {
  if (c->model_data) single_arrays_free(c, c->model_data);
  cryo_exchange_destroy(&c->exchange);
  if (c->gridfile) cryo_gridfile_free(c->gridfile);
  free(c->gridfile);
  c->gridfile = NULL;
  free(c->model_data);
  c->model_data = NULL;
}

const cryo_model_ops cryo_seaice_model = {"seaice",           seaice_create,      seaice_advance,
                                          seaice_get_forcing, seaice_put_results, seaice_diagnose,
                                          seaice_summary,     seaice_destroy};
