/* Sea-ice parameters (cyclone benchmark defaults, docs/benchmarks.md) and the table
 * of state arrays the component uses to allocate, halo-exchange, write output
 * and restarts generically. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cryo_error.h"
#include "cryo_fields.h"
#include "seaice.h"

void cryo_seaice_params_cyclone(cryo_seaice_params *p) {
  *p = (cryo_seaice_params){.dt = 120.0,
                            .n_evp = 100,
                            .alpha = 800.0,
                            .beta = 800.0,
                            .pstar = 27500.0,
                            .c_strength = 20.0,
                            .ecc = 2.0,
                            .delta_min = 2.0e-9,
                            .rho_ice = 900.0,
                            .rho_air = 1.3,
                            .rho_ocean = 1026.0,
                            .c_air = 1.2e-3,
                            .c_ocean = 5.5e-3,
                            .coriolis = 1.46e-4,
                            .h_min = 1.0e-4,
                            .a_min = 1.0e-6,
                            .tracer_order = 0,
                            .turning_angle = 0.0,
                            .ssh_tilt = 0,
                            .gravity = 9.81,
                            .adaptive_evp = 0,
                            .aevp_c = 0.5,
                            .aevp_cstar = 4.0,
                            .aevp_alpha_min = 5.0,
                            .basal_stress = 0,
                            .basal_k1 = 7.5,
                            .basal_k2 = 15.0,
                            .basal_alphab = 20.0,
                            .basal_u0 = 5.0e-5,
                            .tensile_k = 0.0,
                            /* BBM: neXtSIM-DG's defaults (docs/seaice.md, The BBM rheology) */
                            .rheology = CRYO_SEAICE_RHEOLOGY_VP,
                            .n_bbm = 120,
                            .bbm_young = 5.96e8,
                            .bbm_poisson = 1.0 / 3.0,
                            .bbm_lambda0 = 1.0e7,
                            .bbm_alpha = 5,
                            .bbm_p0 = 1.0e4,
                            .bbm_mu = 0.7,
                            .bbm_cohesion_lab = 2.0e6,
                            .bbm_lab_scale = 0.1,
                            .bbm_compr_cap = 1.0e4,
                            .bbm_t_heal = 15.0 * 86400.0};
}

#define SI_REAL(key, member, lo, hi, units)                                                        \
  { key, offsetof(cryo_seaice_params, member), 0, lo, hi, units }
#define SI_INT(key, member, lo, hi)                                                                \
  { key, offsetof(cryo_seaice_params, member), 1, lo, hi, NULL }

/* The valid ranges (docs/seaice.md, namelists/README.md, &cryo_seaice). */
static const cryo_param_range seaice_ranges[] = {
    SI_REAL("dt", dt, 1e-3, 86400, "s"),
    SI_INT("n_evp", n_evp, 1, 100000),
    SI_REAL("alpha", alpha, 1, 1e6, NULL),
    SI_REAL("beta", beta, 1, 1e6, NULL),
    SI_REAL("pstar", pstar, 0, 1e7, "N m-2"),
    SI_REAL("c_strength", c_strength, 0, 100, NULL),
    SI_REAL("ecc", ecc, 0.1, 100, NULL),
    SI_REAL("delta_min", delta_min, 1e-20, 1, "s-1"),
    SI_REAL("rho_ice", rho_ice, 1, 1e4, "kg m-3"),
    SI_REAL("rho_air", rho_air, 0, 100, "kg m-3"),
    SI_REAL("rho_ocean", rho_ocean, 1, 1e4, "kg m-3"),
    SI_REAL("c_air", c_air, 0, 1, NULL),
    SI_REAL("c_ocean", c_ocean, 0, 1, NULL),
    SI_REAL("coriolis", coriolis, -1e-3, 1e-3, "s-1"),
    SI_REAL("h_min", h_min, 1e-12, 1, "m"),
    SI_REAL("a_min", a_min, 0, 0.01, NULL),
    SI_INT("tracer_order", tracer_order, 0, 1),
    SI_REAL("turning_angle", turning_angle, -90, 90, "degrees"),
    SI_REAL("gravity", gravity, 0.1, 100, "m s-2"),
    SI_REAL("aevp_c", aevp_c, 1e-3, 10, NULL),
    SI_REAL("aevp_cstar", aevp_cstar, 1, 100, NULL),
    SI_REAL("aevp_alpha_min", aevp_alpha_min, 1, 1e6, NULL),
    SI_REAL("basal_k1", basal_k1, 1, 100, NULL),
    SI_REAL("basal_k2", basal_k2, 0, 1e3, "N m-3"),
    SI_REAL("basal_alphab", basal_alphab, 0, 100, NULL),
    SI_REAL("basal_u0", basal_u0, 1e-8, 1, "m s-1"),
    SI_REAL("tensile_k", tensile_k, 0, 0.99, NULL),
    SI_INT("n_bbm", n_bbm, 1, 100000),
    SI_REAL("bbm_young", bbm_young, 1e3, 1e12, "Pa"),
    SI_REAL("bbm_poisson", bbm_poisson, 0, 0.49, NULL),
    SI_REAL("bbm_lambda0", bbm_lambda0, 1, 1e12, "s"),
    SI_INT("bbm_alpha", bbm_alpha, 1, 20),
    SI_REAL("bbm_p0", bbm_p0, 0, 1e12, "Pa"),
    SI_REAL("bbm_mu", bbm_mu, 0, 10, NULL),
    SI_REAL("bbm_cohesion_lab", bbm_cohesion_lab, 0, 1e10, "Pa"),
    SI_REAL("bbm_lab_scale", bbm_lab_scale, 1e-6, 1e6, "m"),
    SI_REAL("bbm_compr_cap", bbm_compr_cap, 0, 1e12, NULL),
    SI_REAL("bbm_t_heal", bbm_t_heal, 1, 1e12, "s"),
};

int cryo_seaice_param_ranges(const cryo_param_range **t) {
  *t = seaice_ranges;
  return (int)(sizeof seaice_ranges / sizeof seaice_ranges[0]);
}

int cryo_seaice_params_check(const cryo_seaice_params *p, cryo_err *err) {
  const cryo_param_range *t;
  int n = cryo_seaice_param_ranges(&t);
  return cryo_param_ranges_check(t, n, p, "&cryo_seaice", err);
}

#define ENTRY_(member, loc, nlev, role, units, std, longname)                                      \
  { #member, loc, nlev, role, offsetof(cryo_seaice_state, member), units, std, longname }
/* Expands its arguments first: units and standard name may come as one
 * CRYO_CF_* pair (base/cryo_fields.h). */
#define ENTRY(...) ENTRY_(__VA_ARGS__)

/* One table per tracer order: they differ only in the nlev of h, a and their
 * scratch arrays. */
#define SEAICE_TABLE(NA)                                                                           \
  {                                                                                                \
    ENTRY(u, CRYO_AT_NODE, 1, CRYO_SEAICE_PROGNOSTIC, CRYO_CF_SEA_ICE_X_VELOCITY,                  \
          "sea ice velocity along x"),                                                             \
        ENTRY(v, CRYO_AT_NODE, 1, CRYO_SEAICE_PROGNOSTIC, CRYO_CF_SEA_ICE_Y_VELOCITY,              \
              "sea ice velocity along y"),                                                         \
        ENTRY(u_n, CRYO_AT_NODE, 1, CRYO_SEAICE_PROGNOSTIC, "m s-1", "",                           \
              "sea ice velocity along x at the start of the macro step"),                          \
        ENTRY(v_n, CRYO_AT_NODE, 1, CRYO_SEAICE_PROGNOSTIC, "m s-1", "",                           \
              "sea ice velocity along y at the start of the macro step"),                          \
        ENTRY(s11, CRYO_AT_CELL, CRYO_SEAICE_NS, CRYO_SEAICE_PROGNOSTIC, "N m-1", "",              \
              "vertically integrated internal ice stress, xx component, dG coefficients"),         \
        ENTRY(s12, CRYO_AT_CELL, CRYO_SEAICE_NS, CRYO_SEAICE_PROGNOSTIC, "N m-1", "",              \
              "vertically integrated internal ice stress, xy component, dG coefficients"),         \
        ENTRY(s22, CRYO_AT_CELL, CRYO_SEAICE_NS, CRYO_SEAICE_PROGNOSTIC, "N m-1", "",              \
              "vertically integrated internal ice stress, yy component, dG coefficients"),         \
        ENTRY(h, CRYO_AT_CELL, NA, CRYO_SEAICE_PROGNOSTIC, CRYO_CF_SEA_ICE_THICKNESS,              \
              "sea ice thickness (level 0: cell mean)"),                                           \
        ENTRY(a, CRYO_AT_CELL, NA, CRYO_SEAICE_PROGNOSTIC, CRYO_CF_SEA_ICE_AREA_FRACTION,          \
              "sea ice concentration (level 0: cell mean)"),                                       \
        ENTRY(uair, CRYO_AT_NODE, 1, CRYO_SEAICE_FORCING, CRYO_CF_X_WIND,                          \
              "wind velocity along x"),                                                            \
        ENTRY(vair, CRYO_AT_NODE, 1, CRYO_SEAICE_FORCING, CRYO_CF_Y_WIND,                          \
              "wind velocity along y"),                                                            \
        ENTRY(uocn, CRYO_AT_NODE, 1, CRYO_SEAICE_FORCING, CRYO_CF_SEA_WATER_X_VELOCITY,            \
              "ocean surface velocity along x"),                                                   \
        ENTRY(vocn, CRYO_AT_NODE, 1, CRYO_SEAICE_FORCING, CRYO_CF_SEA_WATER_Y_VELOCITY,            \
              "ocean surface velocity along y"),                                                   \
        ENTRY(mask, CRYO_AT_CELL, 1, CRYO_SEAICE_STATIC, "1", "sea_binary_mask",                   \
              "active ocean cell (1) or land / outside the domain (0)"),                           \
        ENTRY(shear, CRYO_AT_CELL, 1, CRYO_SEAICE_DIAGNOSTIC, "s-1", "",                           \
              "sea ice shear rate at the cell centre"),                                            \
        ENTRY(divergence, CRYO_AT_CELL, 1, CRYO_SEAICE_DIAGNOSTIC, "s-1",                          \
              "divergence_of_sea_ice_velocity", "sea ice divergence rate at the cell centre"),     \
        ENTRY(h_work, CRYO_AT_CELL, NA, CRYO_SEAICE_WORK, "m", "", "advection scratch for h"),     \
        ENTRY(a_work, CRYO_AT_CELL, NA, CRYO_SEAICE_WORK, "1", "", "advection scratch for a"),     \
        ENTRY(ice_mask, CRYO_AT_CELL, 1, CRYO_SEAICE_WORK, "1", "",                                \
              "land (0), open water (1) or ocean with ice (2), set each step") GEOMETRY            \
  }
/* The geometry arrays of general quadrilateral cells (kernels/seaice.h). */
#define QUAD_ENTRIES                                                                               \
  ,                                                                                                \
      ENTRY(geom, CRYO_AT_CELL, CRYO_SEAICE_NGEOM, CRYO_SEAICE_STATIC, "m", "",                    \
            "bilinear map of the cell in its plane and rotations of its corners' frames"),         \
      ENTRY(rot, CRYO_AT_CELL, 2, CRYO_SEAICE_STATIC, "1", "",                                     \
            "cosine and sine of the cell frame's angle from east"),                                \
      ENTRY(fcor, CRYO_AT_NODE, 1, CRYO_SEAICE_STATIC, "s-1", "coriolis_parameter",                \
            "Coriolis parameter"),                                                                 \
      ENTRY(nrot, CRYO_AT_NODE, 2, CRYO_SEAICE_STATIC, "1", "",                                    \
            "cosine and sine of the node's grid direction from east")

#define GEOMETRY
static const cryo_seaice_array_info table_dg0[] = SEAICE_TABLE(1);
static const cryo_seaice_array_info table_dg1[] = SEAICE_TABLE(3);
#undef GEOMETRY
#define GEOMETRY QUAD_ENTRIES
static const cryo_seaice_array_info table_quad_dg0[] = SEAICE_TABLE(1);
static const cryo_seaice_array_info table_quad_dg1[] = SEAICE_TABLE(3);

int cryo_seaice_arrays(const cryo_seaice_params *p, const cryo_seaice_array_info **table) {
  if (p->quad) {
    *table = p->tracer_order == 1 ? table_quad_dg1 : table_quad_dg0;
    return (int)(sizeof table_quad_dg0 / sizeof table_quad_dg0[0]);
  }
  *table = p->tracer_order == 1 ? table_dg1 : table_dg0;
  return (int)(sizeof table_dg0 / sizeof table_dg0[0]);
}

unsigned cryo_seaice_array_flip(const char *name, int nlev) {
  static const char *const vectors[] = {"u",    "v",    "u_n", "v_n",  "uair",  "vair",
                                        "uocn", "vocn", "rot", "nrot", "u_avg", "v_avg"};
  static const char *const dg[] = {"s11", "s12", "s22", "h", "a", "h_work", "a_work", "damage"};
  for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; ++k)
    if (!strcmp(name, vectors[k])) return (1u << nlev) - 1u;
  for (size_t k = 0; k < sizeof dg / sizeof dg[0]; ++k)
    if (!strcmp(name, dg[k])) return nlev > 1 ? (1u << nlev) - 2u : 0u;
  if (!strcmp(name, "geom")) return 1u << CRYO_GEOM_A3X | 1u << CRYO_GEOM_A3Y;
  return 0u;
}
