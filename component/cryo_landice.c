/* The land-ice dynamical core inside the component (DESIGN.md section 6):
 * state arrays from the kernels' table, analytic geometry, mass-balance
 * forcing through the exchange layer, and per coupling interval the
 * first-order Stokes solve and (optionally) thickness evolution. */
#include "cryo_exchange.h"
#include "cryo_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEWTON_LOG 64

typedef struct landice_model {
  cryo_landice_state s;
  int smb_field, melt_field;
  int analytic, host;
  cryo_landice_newton_log log[NEWTON_LOG];
  int nlog;
} landice_model;

static const cryo_role roles[] = {
    [CRYO_LANDICE_PROGNOSTIC] = CRYO_ROLE_PROGNOSTIC, [CRYO_LANDICE_FORCING] = CRYO_ROLE_FORCING,
    [CRYO_LANDICE_STATIC] = CRYO_ROLE_STATIC,         [CRYO_LANDICE_DIAGNOSTIC] = CRYO_ROLE_DIAGNOSTIC,
    [CRYO_LANDICE_WORK] = CRYO_ROLE_WORK};

static int landice_create(cryo_component *c) {
  landice_model *m = calloc(1, sizeof *m);
  CRYO_CHECK(m, &c->err, CRYO_ERR_MEMORY, "out of memory for the land-ice model");
  c->model_data = m;
  cryo_landice_params *p = &c->cfg.landice.p;
  const cryo_landice_array_info *t;
  int n = cryo_landice_arrays(p, &t);
  for (int i = 0; i < n; ++i) {
    double **slot = (double **)((char *)&m->s + t[i].offset);
    CRYO_CALL(cryo_field_add(c, t[i].name, t[i].units, t[i].standard_name, t[i].long_name,
                             (cryo_location)t[i].loc, t[i].nlev, roles[t[i].role], slot));
  }
  m->smb_field = cryo_field_find(c, "smb");
  m->melt_field = cryo_field_find(c, "basal_melt");
  CRYO_CHECK(m->smb_field >= 0 && m->melt_field >= 0, &c->err, CRYO_ERR_ARG,
             "land-ice state has no 'smb' or 'basal_melt' array");
  int nz = p->n_layers;
  c->nlevels = nz + 1;
  static const char *const out2d[] = {"thk", "u_surf", "v_surf", "usrf", "bed"};
  for (int k = 0; k < 5; ++k) {
    int i = cryo_field_find(c, out2d[k]);
    CRYO_CHECK(i >= 0, &c->err, CRYO_ERR_ARG, "land-ice state has no '%s' array", out2d[k]);
    const cryo_field *f = &c->fields[i];
    CRYO_CALL(cryo_output_var_add(c, f->name, f->units, f->standard_name, f->long_name, f->name,
                                  0, 1, 1));
  }
  CRYO_CALL(cryo_output_var_add(c, "u", "m/(365 day)", "land_ice_x_velocity",
                                "ice velocity, x component", "velocity", 0, 2, nz + 1));
  CRYO_CALL(cryo_output_var_add(c, "v", "m/(365 day)", "land_ice_y_velocity",
                                "ice velocity, y component", "velocity", 1, 2, nz + 1));
  CRYO_CHECK(strcmp(c->cfg.landice.geometry_case, "file"), &c->err, CRYO_ERR_UNSUPPORTED,
             "%s: &cryo_landice case = 'file' is not supported yet", c->cfg.source);
  CRYO_CALL(cryo_landice_geometry(&c->grid.block, p, &m->s, &c->err));

  const char *forcing = c->cfg.run.forcing;
  m->analytic = !strcmp(forcing, "analytic");
  m->host = !strcmp(forcing, "host");
  if (!m->analytic) {
    cryo_exchange_config xc = {0};
    char start[32];
    cryo_date_format(c->clock.start, start, sizeof start);
    xc.forcing_file = c->cfg.run.forcing_file;
    xc.start_date = start;
    xc.oasis_component = c->cfg.coupling.component;
    CRYO_CALL(cryo_exchange_create(&c->exchange, forcing, CRYO_MODEL_LANDICE, &c->grid.block,
                                   c->comm, &xc, &c->err));
  }
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
    for (long q = 0; q < f->n; ++q) f->host[q] *= to_m_per_year;
    cryo_field_to_device(c, f);
  }
  return CRYO_OK;
}

static int landice_advance(cryo_component *c, long long seconds) {
  landice_model *m = c->model_data;
  const cryo_landice_config *lc = &c->cfg.landice;
  const cryo_block *b = &c->grid.block;
  long nsteps = lc->evolve_thickness ? (long)llround((double)seconds / lc->p.dt) : 1;
  for (long k = 0; k < nsteps; ++k) {
    CRYO_CALL(cryo_landice_solve_velocity(b, &lc->p, &m->s, &c->ops, m->log, NEWTON_LOG,
                                          &m->nlog, &c->err));
    if (lc->evolve_thickness)
      CRYO_CALL(cryo_landice_evolve_thickness(b, &lc->p, &m->s, &c->ops, NULL, &c->err));
  }
  return CRYO_OK;
}

static int landice_put_results(cryo_component *c, long long t) {
  (void)c;
  (void)t;
  return CRYO_OK;
}

static int landice_summary(cryo_component *c, char *buf, int len) {
  landice_model *m = c->model_data;
  double volume = 0;
  CRYO_CALL(cryo_landice_volume(&c->grid.block, &m->s, &c->ops, &volume, &c->err));
  double r0 = m->nlog > 0 ? m->log[0].residual_norm : 0, r1 = m->nlog > 0 ? m->log[m->nlog - 1].residual_norm : 0;
  snprintf(buf, (size_t)len, "volume %.6e m3  Newton steps %d  |R| %.3e -> %.3e", volume,
           m->nlog, r0, r1);
  return CRYO_OK;
}

static void landice_destroy(cryo_component *c) {
  cryo_exchange_destroy(&c->exchange);
  free(c->model_data);
  c->model_data = NULL;
}

const cryo_model_ops cryo_landice_model = {"landice",           landice_create,
                                           landice_advance,     landice_get_forcing,
                                           landice_put_results, landice_summary,
                                           landice_destroy};
