/* The one table of coupling fields: what cryodyn receives (IN) and sends
 * (OUT), with units, CF standard name and owner core. Read by every exchange
 * provider (coupling/), by the namelist reader (&cryo_coupling keys, one per
 * field) and by the NetCDF writers. No MPI, no NetCDF here.
 *
 * CRYO_COUPLING_FIELD_TABLE(X) calls X(ID, name, units, standard_name, long_name,
 * dir, model) once per field, in table order:
 *   ID             suffix of the cryo_field_id constant CRYO_F_<ID>
 *   name           short name: NetCDF variable, cryo_get_field name, namelist key
 *   units          UDUNITS string
 *   standard_name  CF standard name, "" where none exists
 *   dir            IN or OUT (cryo_field_dir without its CRYO_FIELD_ prefix)
 *   model          SEAICE or LANDICE (cryo_model_kind without CRYO_MODEL_)
 * Vector components are along the grid's x and y axes. Notes on units and signs:
 * - uwind/vwind are the wind 10 m above the surface.
 * - taux_io/tauy_io are the stress the ocean exerts on the ice (CF:
 *   upward_x_stress_at_sea_ice_base); the stress on the ocean is its negative.
 * - ssh is received only by runs that use it (&cryo_seaice ssh_tilt; the
 *   exchange config's with_ssh): other runs neither read nor couple it.
 * - smb and basal_melt are mass fluxes in kg m-2 s-1, the units in which
 *   atmosphere and ocean models exchange them, so that neither side needs the
 *   other's ice density; divide by rho_ice for m s-1 of ice.
 */
#ifndef CRYO_FIELDS_H
#define CRYO_FIELDS_H

#include "cryo_block.h"

/* CF metadata of the quantities that both a coupling field and a state array
 * of a core (kernels/seaice_params.c, kernels/landice_params.c) carry: units
 * and standard name, the one place they are written. A missing standard name
 * is "" in every table, never NULL. */
#define CRYO_CF_X_WIND                "m s-1", "x_wind"
#define CRYO_CF_Y_WIND                "m s-1", "y_wind"
#define CRYO_CF_SEA_WATER_X_VELOCITY  "m s-1", "sea_water_x_velocity"
#define CRYO_CF_SEA_WATER_Y_VELOCITY  "m s-1", "sea_water_y_velocity"
#define CRYO_CF_SEA_ICE_X_VELOCITY    "m s-1", "sea_ice_x_velocity"
#define CRYO_CF_SEA_ICE_Y_VELOCITY    "m s-1", "sea_ice_y_velocity"
#define CRYO_CF_SEA_ICE_AREA_FRACTION "1", "sea_ice_area_fraction"
#define CRYO_CF_SEA_ICE_THICKNESS     "m", "sea_ice_thickness"
#define CRYO_CF_LAND_ICE_THICKNESS    "m", "land_ice_thickness"
#define CRYO_CF_SURFACE_ALTITUDE      "m", "surface_altitude"

/* Expands its arguments first, so that a CRYO_CF_* pair counts as two. */
#define CRYO_FIELD_ROW(X, ...) X(__VA_ARGS__)

#define CRYO_COUPLING_FIELD_TABLE(X)                                                               \
  CRYO_FIELD_ROW(X, UWIND, "uwind", CRYO_CF_X_WIND, "wind velocity along x", IN, SEAICE)           \
  CRYO_FIELD_ROW(X, VWIND, "vwind", CRYO_CF_Y_WIND, "wind velocity along y", IN, SEAICE)           \
  CRYO_FIELD_ROW(X, UOCEAN, "uocean", CRYO_CF_SEA_WATER_X_VELOCITY,                                \
                 "ocean surface velocity along x", IN, SEAICE)                                     \
  CRYO_FIELD_ROW(X, VOCEAN, "vocean", CRYO_CF_SEA_WATER_Y_VELOCITY,                                \
                 "ocean surface velocity along y", IN, SEAICE)                                     \
  CRYO_FIELD_ROW(X, UICE, "uice", CRYO_CF_SEA_ICE_X_VELOCITY, "sea ice velocity along x", OUT,     \
                 SEAICE)                                                                           \
  CRYO_FIELD_ROW(X, VICE, "vice", CRYO_CF_SEA_ICE_Y_VELOCITY, "sea ice velocity along y", OUT,     \
                 SEAICE)                                                                           \
  CRYO_FIELD_ROW(X, AICE, "aice", CRYO_CF_SEA_ICE_AREA_FRACTION, "sea ice concentration", OUT,     \
                 SEAICE)                                                                           \
  CRYO_FIELD_ROW(X, HICE, "hice", CRYO_CF_SEA_ICE_THICKNESS,                                       \
                 "sea ice thickness (volume per cell area)", OUT, SEAICE)                          \
  CRYO_FIELD_ROW(X, TAUX_IO, "taux_io", "Pa", "upward_x_stress_at_sea_ice_base",                   \
                 "stress of the ocean on the sea ice along x", OUT, SEAICE)                        \
  CRYO_FIELD_ROW(X, TAUY_IO, "tauy_io", "Pa", "upward_y_stress_at_sea_ice_base",                   \
                 "stress of the ocean on the sea ice along y", OUT, SEAICE)                        \
  CRYO_FIELD_ROW(X, SMB, "smb", "kg m-2 s-1", "land_ice_surface_specific_mass_balance_flux",       \
                 "surface mass balance (positive for mass gain)", IN, LANDICE)                     \
  CRYO_FIELD_ROW(X, BASAL_MELT, "basal_melt", "kg m-2 s-1", "",                                    \
                 "sub-shelf melt flux (positive for mass loss)", IN, LANDICE)                      \
  CRYO_FIELD_ROW(X, THK, "thk", CRYO_CF_LAND_ICE_THICKNESS, "land ice thickness", OUT, LANDICE)    \
  CRYO_FIELD_ROW(X, USURF, "usurf", CRYO_CF_SURFACE_ALTITUDE, "ice surface elevation", OUT,        \
                 LANDICE)                                                                          \
  CRYO_FIELD_ROW(X, ICEMASK, "icemask", "1", "land_ice_area_fraction", "land ice mask (1: ice)",   \
                 OUT, LANDICE)                                                                     \
  CRYO_FIELD_ROW(X, SSH, "ssh", "m", "sea_surface_height_above_geoid", "sea surface height", IN,   \
                 SEAICE)

/* Which dynamical core a field belongs to. */
typedef enum cryo_model_kind { CRYO_MODEL_SEAICE = 0, CRYO_MODEL_LANDICE = 1 } cryo_model_kind;

/* Direction seen from cryodyn: IN is forcing it receives, OUT is what it sends. */
typedef enum cryo_field_dir { CRYO_FIELD_IN = 0, CRYO_FIELD_OUT = 1 } cryo_field_dir;

/* Index of each coupling field in cryo_exchange_fields[]: CRYO_F_UWIND, ... */
typedef enum cryo_field_id {
#define CRYO_FIELD_ID_(id, name, units, std, longname, dir, model) CRYO_F_##id,
  CRYO_COUPLING_FIELD_TABLE(CRYO_FIELD_ID_)
#undef CRYO_FIELD_ID_
      CRYO_NFIELD
} cryo_field_id;

/* One row of the table of coupling fields. */
typedef struct cryo_field_info {
  const char *name;          /* short name: NetCDF variable and cryo_get_field name */
  const char *units;         /* UDUNITS string */
  const char *standard_name; /* CF standard name, "" where none exists */
  const char *long_name;
  cryo_field_dir dir;
  cryo_location loc; /* CRYO_AT_CELL for every field today */
  cryo_model_kind model;
} cryo_field_info;

/* The table, indexed by cryo_field_id (base/cryo_fields.c). */
extern const cryo_field_info cryo_exchange_fields[CRYO_NFIELD];

#endif
