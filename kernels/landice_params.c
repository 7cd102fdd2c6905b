/* Land-ice parameters: their defaults (the namelist's, namelists/README.md)
 * and range checks, and the table of state arrays the component uses to
 * allocate, halo-exchange, write output and restarts generically. */
#include <math.h>
#include <stddef.h>

#include "cryo_error.h"
#include "cryo_fields.h"
#include "landice.h"

void cryo_landice_params_default(cryo_landice_params *p) {
  p->n_layers = 10;
  p->glen_n = 3.0;
  p->rate_factor = 1.0e-16;
  p->rho_ice = 910.0;
  p->gravity = 9.81;
  p->beta2 = 1000.0;
  p->no_slip = 1;
  p->sliding_law = CRYO_LANDICE_SLIDING_LINEAR;
  /* MISMIP+ (Asay-Davis et al. 2016): C = 3.16e6 Pa m^(-1/3) s^(1/3), in a^(1/3):
   * 3.16e6 / 31536000^(1/3) = 10 001.95, rounded here (the MISMIP+ namelists
   * give it exactly); m = 1/3; C_max = 0.5 */
  p->sliding_c = 1.0e4;
  p->sliding_m = 1.0 / 3.0;
  p->coulomb_c = 0.5;
  p->marine = 0;
  p->sea_level = 0.0;
  p->rho_water = 1028.0;
  p->lateral_bc = CRYO_LANDICE_LATERAL_FREE;
  p->min_thickness = 1.0;
  p->melt_cells = CRYO_LANDICE_MELT_FRACTION;
  p->calve_floating = 0;
  p->melt_source = CRYO_LANDICE_MELT_RECEIVED;
  /* MISMIP+ Ice1 melt (Asay-Davis et al. 2016) */
  p->melt_omega = 0.2;
  p->melt_z0 = -100.0;
  p->melt_hc0 = 75.0;
  p->eps_reg = 1.0e-5;
  p->slope_x = 0.0;
  p->slope_y = 0.0;
  p->geometry_case = CRYO_LANDICE_CASE_FILE;
  p->domain_length = 80.0e3;
  p->slope_deg = 0.5;
  p->thickness = 1000.0;
  p->newton_rtol = 1.0e-8;
  p->newton_atol = 1.0e-10;
  p->newton_max_iter = 50;
  p->linear_rtol = 1.0e-3;
  p->linear_max_iter = 500;
  p->preconditioner = CRYO_LANDICE_PC_MULTIGRID;
  p->dt = 86400.0;
}

#define LI_REAL(key, member, lo, hi, units)                                                        \
  { key, offsetof(cryo_landice_params, member), 0, lo, hi, units }
#define LI_INT(key, member, lo, hi)                                                                \
  { key, offsetof(cryo_landice_params, member), 1, lo, hi, NULL }

/* The valid ranges (docs/landice.md, namelists/README.md, &cryo_landice). */
static const cryo_param_range landice_ranges[] = {
    LI_INT("n_layers", n_layers, 1, CRYO_LANDICE_MAX_LAYERS),
    LI_REAL("glen_n", glen_n, 1, 10, NULL),
    LI_REAL("rate_factor", rate_factor, 1e-30, 1, "Pa-n a-1"),
    LI_REAL("rho_ice", rho_ice, 1, 1e4, "kg m-3"),
    LI_REAL("gravity", gravity, 1e-3, 100, "m s-2"),
    LI_REAL("beta2", beta2, 0, 1e12, "Pa a m-1"),
    LI_REAL("sliding_c", sliding_c, 0, 1e12, "Pa m^(-m) a^m"),
    LI_REAL("sliding_m", sliding_m, 1e-3, 1, NULL),
    LI_REAL("coulomb_c", coulomb_c, 1e-6, 1e3, NULL),
    LI_REAL("sea_level", sea_level, -1e4, 1e4, "m"),
    LI_REAL("rho_water", rho_water, 1, 1e4, "kg m-3"),
    LI_REAL("min_thickness", min_thickness, 1e-6, 1e4, "m"),
    LI_REAL("melt_omega", melt_omega, 0, 1e3, "a-1"),
    LI_REAL("melt_z0", melt_z0, -1e4, 1e4, "m"),
    LI_REAL("melt_hc0", melt_hc0, 1e-3, 1e4, "m"),
    LI_REAL("domain_length", domain_length, 0, 1e8, "m"),
    LI_REAL("slope", slope_deg, -45, 45, "degrees"),
    LI_REAL("thickness", thickness, 0, 1e5, "m"),
    LI_REAL("eps_reg", eps_reg, 1e-12, 1, "a-1"),
    LI_REAL("newton_rtol", newton_rtol, 1e-16, 1, NULL),
    LI_REAL("newton_atol", newton_atol, 0, 1, NULL),
    LI_INT("newton_max_iter", newton_max_iter, 1, 10000),
    LI_REAL("linear_rtol", linear_rtol, 1e-16, 1, NULL),
    LI_INT("linear_max_iter", linear_max_iter, 1, 1000000),
    LI_REAL("dt", dt, 1e-3, 1e12, "s"),
};

int cryo_landice_param_ranges(const cryo_param_range **t) {
  *t = landice_ranges;
  return (int)(sizeof landice_ranges / sizeof landice_ranges[0]);
}

int cryo_landice_params_check(const cryo_landice_params *p, cryo_err *err) {
  const cryo_param_range *t;
  int n = cryo_landice_param_ranges(&t);
  CRYO_CALL(cryo_param_ranges_check(t, n, p, "&cryo_landice", err));
  CRYO_CHECK(p->sliding_law == CRYO_LANDICE_SLIDING_LINEAR ||
                 p->sliding_law == CRYO_LANDICE_SLIDING_WEERTMAN ||
                 p->sliding_law == CRYO_LANDICE_SLIDING_SCHOOF ||
                 p->sliding_law == CRYO_LANDICE_SLIDING_TSAI,
             err, CRYO_ERR_RANGE,
             "&cryo_landice: sliding_law = %d, must be 0 (linear), 1 (weertman), 2 (schoof) or "
             "3 (tsai)",
             p->sliding_law);
  CRYO_CHECK(p->lateral_bc == CRYO_LANDICE_LATERAL_FREE ||
                 p->lateral_bc == CRYO_LANDICE_LATERAL_DIRICHLET ||
                 p->lateral_bc == CRYO_LANDICE_LATERAL_FREE_SLIP,
             err, CRYO_ERR_RANGE,
             "&cryo_landice: lateral_bc = %d, must be 0 (free), 1 (dirichlet) or 2 (free_slip)",
             p->lateral_bc);
  CRYO_CHECK(p->melt_cells == CRYO_LANDICE_MELT_FRACTION ||
                 p->melt_cells == CRYO_LANDICE_MELT_FLOATING,
             err, CRYO_ERR_RANGE,
             "&cryo_landice: melt_cells = %d, must be 0 (fraction) or 1 (floating)", p->melt_cells);
  CRYO_CHECK(
      p->melt_source == CRYO_LANDICE_MELT_RECEIVED || p->melt_source == CRYO_LANDICE_MELT_MISMIP,
      err, CRYO_ERR_RANGE, "&cryo_landice: melt_source = %d, must be 0 (received) or 1 (mismip+)",
      p->melt_source);
  CRYO_CHECK(
      p->preconditioner == CRYO_LANDICE_PC_COLUMN || p->preconditioner == CRYO_LANDICE_PC_MULTIGRID,
      err, CRYO_ERR_RANGE,
      "&cryo_landice: preconditioner = %d, must be 0 (column) or 1 (multigrid)", p->preconditioner);
  return CRYO_OK;
}

#define LI_ENTRY_(nm, lc, lev, rl, mem, un, sn, ln)                                                \
  (cryo_landice_array_info) {                                                                      \
    nm, lc, lev, rl, offsetof(cryo_landice_state, mem), un, sn, ln                                 \
  }
/* Expands its arguments first: units and standard name may come as one
 * CRYO_CF_* pair (base/cryo_fields.h). */
#define LI_ENTRY(...) LI_ENTRY_(__VA_ARGS__)

int cryo_landice_arrays(const cryo_landice_params *p, const cryo_landice_array_info **t) {
  static cryo_landice_array_info table[31];
  const int nv = 2 * (p->n_layers + 1), np = p->n_layers + 1, nz = p->n_layers;
  const char *vel_units = "m/(365 day)";
  int n = 0;
  table[n++] = LI_ENTRY("velocity", CRYO_AT_NODE, nv, CRYO_LANDICE_PROGNOSTIC, vel, vel_units, "",
                        "land ice horizontal velocity (u, v) at sigma levels, bed first");
  table[n++] = LI_ENTRY("thk", CRYO_AT_CELL, 1, CRYO_LANDICE_PROGNOSTIC, thk,
                        CRYO_CF_LAND_ICE_THICKNESS, "land ice thickness");
  table[n++] = LI_ENTRY("thk_node", CRYO_AT_NODE, 1, CRYO_LANDICE_PROGNOSTIC, thk_node, "m", "",
                        "land ice thickness at nodes (velocity solve geometry)");
  table[n++] = LI_ENTRY("bed", CRYO_AT_NODE, 1, CRYO_LANDICE_STATIC, bed, "m", "bedrock_altitude",
                        "bed elevation above the background plane slope_x x + slope_y y");
  table[n++] =
      LI_ENTRY("usrf", CRYO_AT_NODE, 1, CRYO_LANDICE_DIAGNOSTIC, usrf, CRYO_CF_SURFACE_ALTITUDE,
               "surface elevation above the background plane slope_x x + slope_y y");
  table[n++] = LI_ENTRY("beta2", CRYO_AT_NODE, 1, CRYO_LANDICE_PARAMETER, beta2, "Pa (365 day)/m",
                        "", "basal friction coefficient");
  table[n++] = LI_ENTRY("smb", CRYO_AT_CELL, 1, CRYO_LANDICE_FORCING, smb, vel_units, "",
                        "surface mass balance, ice equivalent");
  table[n++] = LI_ENTRY("basal_melt", CRYO_AT_CELL, 1, CRYO_LANDICE_FORCING, basal_melt, vel_units,
                        "", "basal melt rate, ice equivalent");
  table[n++] = LI_ENTRY("body_force", CRYO_AT_NODE, nv, CRYO_LANDICE_FORCING, body_force, "Pa/m",
                        "", "body force (f_x, f_y) per unit volume at sigma levels, bed first");
  table[n++] = LI_ENTRY("u_surf", CRYO_AT_NODE, 1, CRYO_LANDICE_DIAGNOSTIC, u_surf, vel_units,
                        "land_ice_surface_x_velocity", "surface x velocity");
  table[n++] = LI_ENTRY("v_surf", CRYO_AT_NODE, 1, CRYO_LANDICE_DIAGNOSTIC, v_surf, vel_units,
                        "land_ice_surface_y_velocity", "surface y velocity");
  table[n++] = LI_ENTRY("ubar", CRYO_AT_NODE, 2, CRYO_LANDICE_DIAGNOSTIC, ubar, vel_units, "",
                        "depth-averaged velocity (u, v)");
  table[n++] = LI_ENTRY("matrix", CRYO_AT_NODE, 108 * np, CRYO_LANDICE_WORK, matrix, "", "",
                        "Jacobian, 27 neighbour 2x2 blocks per node and level");
  table[n++] = LI_ENTRY("pc", CRYO_AT_NODE, 4 * np, CRYO_LANDICE_WORK, pc, "", "",
                        "column preconditioner pivots");
  table[n++] = LI_ENTRY("res", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, res, "", "", "residual");
  table[n++] = LI_ENTRY("du", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, du, "", "", "Newton step");
  table[n++] = LI_ENTRY("cg_r", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, cg_r, "", "", "CG work");
  table[n++] = LI_ENTRY("cg_z", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, cg_z, "", "", "CG work");
  table[n++] = LI_ENTRY("cg_p", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, cg_p, "", "", "CG work");
  table[n++] = LI_ENTRY("cg_q", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, cg_q, "", "", "CG work");
  table[n++] =
      LI_ENTRY("trial", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, trial, "", "", "line-search velocity");
  table[n++] = LI_ENTRY("work_cell", CRYO_AT_CELL, 1, CRYO_LANDICE_WORK, work_cell, "", "",
                        "column energies, thickness update");
  table[n++] = LI_ENTRY("calving_mask", CRYO_AT_CELL, 1, CRYO_LANDICE_STATIC, calving_mask, "1", "",
                        "1 where ice may exist, 0 where it calves (maximum extent)");
  table[n++] =
      LI_ENTRY("budget", CRYO_AT_CELL, CRYO_LANDICE_BUDGET_COUNT, CRYO_LANDICE_PROGNOSTIC, budget,
               "m", "", "cumulative ice budget: surface balance, basal melt, calving, outflow");
  table[n++] = LI_ENTRY("front_load", CRYO_AT_NODE, nv, CRYO_LANDICE_WORK, front_load, "N", "",
                        "hydrostatic load on the faces of ice margins");
  table[n++] = LI_ENTRY("held", CRYO_AT_CELL, 1, CRYO_LANDICE_WORK, held, "1", "",
                        "1 where the ice is held (iceberg search)");
  table[n++] = LI_ENTRY("rate_factor", CRYO_AT_CELL, nz, CRYO_LANDICE_PARAMETER, rate_factor,
                        "Pa-n a-1", "", "Glen rate factor A per layer, bed first (n = glen_n)");
  table[n++] =
      LI_ENTRY("sliding_c", CRYO_AT_CELL, 1, CRYO_LANDICE_PARAMETER, sliding_c, "Pa m^(-m) a^m", "",
               "sliding coefficient C of the Weertman, Schoof and Tsai laws (m = sliding_m)");
  table[n++] = LI_ENTRY("coulomb_c", CRYO_AT_CELL, 1, CRYO_LANDICE_PARAMETER, coulomb_c, "1", "",
                        "Coulomb limit C_max of the Schoof and Tsai laws, |tau_b| <= C_max N");
  table[n++] = LI_ENTRY("afac", CRYO_AT_CELL, nz, CRYO_LANDICE_WORK, afac, "", "",
                        "A^(-1/n) of the rate factor per layer");
  /* only marine runs have it, so that the outputs of the others keep their variables */
  if (p->marine)
    table[n++] = LI_ENTRY("grounded_fraction", CRYO_AT_CELL, 1, CRYO_LANDICE_DIAGNOSTIC,
                          grounded_fraction, "1", "", "grounded fraction of the cell's bed");
  *t = table;
  return n;
}
