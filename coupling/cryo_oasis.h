/* cryodyn's layer over the OASIS3-MCT coupler (docs/design.md, Coupling).
 *
 * The calls mirror OASIS3-MCT 5.x's native C API (oasis_c_init_comp, ...): where
 * configure finds oasis_c.h (CRYO_HAVE_OASIS_C) they call it directly, otherwise a
 * Fortran 2003 ISO_C_BINDING bridge (coupling/oasis_bridge.F90) to the 2.0-era
 * Fortran API of Debian's liboasis3-dev. Differences from OASIS itself:
 *   - every call returns a cryodyn status and records the OASIS return code, its
 *     name and the field or component concerned in `err`;
 *   - a variable id of -1 (a name the namcouple does not couple) is an error;
 *   - put/get check the array size against the variable's partition, because OASIS
 *     aborts on a wrong size with exit code 0 (docs/design.md, Coupling);
 *   - fields are double precision, bundle size 1, stored x fastest (C a[ny][nx]).
 * The library code never calls cryo_oasis_abort; it is for driver programs.
 */
#ifndef CRYO_OASIS_H
#define CRYO_OASIS_H

#include <mpi.h>

#include "cryo_error.h"

/* Direction of a coupling field, with OASIS's values. */
enum { CRYO_OASIS_OUT = 20, CRYO_OASIS_IN = 21 };

/* kparal[0] partition strategies and their lengths, as in the OASIS user guide. */
enum {
  CRYO_OASIS_SERIAL = 0,
  CRYO_OASIS_APPLE = 1,
  CRYO_OASIS_BOX = 2,
  CRYO_OASIS_ORANGE = 3,
  CRYO_OASIS_POINTS = 4,
  CRYO_OASIS_BOX_PARAMS = 5
};

/* Name limits, checked when the namelist is read (&cryo_coupling) and again
 * here. OASIS3-MCT 2.0 (Debian's liboasis3-dev) cuts component names to 6
 * characters, so a longer name would never match $NBMODEL; it keeps field
 * names in character(len=ic_lvar = 128) (mod_oasis_kinds) and grid names in
 * 64 characters (mod_oasis_grid), as 5.x does. cryodyn's own limits are
 * smaller: field names fit its 64-byte namelist strings, and grid names take
 * at most 8 characters, the namcouple grid names of the OASIS3 tradition, so
 * that one namcouple serves every OASIS version. */
/* Longest component name the coupler keeps (OASIS3-MCT 2.0 cuts names to 6). */
#define CRYO_OASIS_COMP_NAME_MAX 6
/* Longest field name accepted (the namcouple $STRINGS name). */
#define CRYO_OASIS_VAR_NAME_MAX 63
/* Number of partitions and variables this layer keeps track of. */
#define CRYO_OASIS_MAX_PARTS 16
#define CRYO_OASIS_MAX_VARS  128

/* Check the namcouple at `path` (OASIS reads "namcouple" in the run directory)
 * before OASIS does: OASIS aborts on a missing or malformed one with exit code 0
 * and no message the user sees (docs/design.md, Coupling). Checked: the file can be
 * read; outside comment lines ('#') every line belongs to a section `$NAME ...
 * $END`; $NFIELDS and $RUNTIME hold one positive integer; $STRINGS exists and
 * holds no blank line; $NBMODEL (required by OASIS3-MCT 2.0, gone in 5.x) holds
 * its count and that many names, `component` among them. CRYO_ERR_FILE,
 * CRYO_ERR_FORMAT naming the line and what is wrong, or CRYO_ERR_COUPLING for a
 * component not in $NBMODEL. */
int cryo_oasis_check_namcouple(const char *path, const char *component, cryo_err *err);

/* Check what the namcouple at `path` says of grid `grid`, the component's own
 * (docs/global.md, Coupling through OASIS): on every $STRINGS grid line
 * ("NX NY NX NY SOURCE TARGET ...") that names it, its sizes must be nx x ny,
 * and the periodicity line after it ("P n" or "R n" for the source, then for
 * the target) must say "P 0" for a grid periodic in x (periodic != 0: a
 * global grid, the file's columns not repeated) and "R 0" for any other: OASIS
 * itself takes either without complaint. CRYO_ERR_COUPLING naming the line and
 * what is wrong; CRYO_ERR_FILE when the file cannot be read. */
int cryo_oasis_check_namcouple_grid(const char *path, const char *grid, int nx, int ny,
                                    int periodic, cryo_err *err);

/* Join the coupled run as component `name` (at most CRYO_OASIS_COMP_NAME_MAX
 * characters, matching $NBMODEL in the namcouple); OASIS calls MPI_Init unless the
 * program already did. *compid: OASIS component id. */
int cryo_oasis_init_comp(int *compid, const char *name, cryo_err *err);

/* The communicator of this component's ranks (valid after init_comp). */
int cryo_oasis_get_localcomm(MPI_Comm *comm, cryo_err *err);

/* Declare this rank's part of the global grid. kparal: n integers in OASIS's
 * layout, e.g. box {CRYO_OASIS_BOX, offset, nx_local, ny_local, nx_global} with
 * the 0-based global index of the box's first point as offset; global_size: number
 * of points of the whole grid. *part_id: partition id for def_var. */
int cryo_oasis_def_partition(int *part_id, const int *kparal, int n, int global_size,
                             cryo_err *err);

/* Fill kparal[CRYO_OASIS_BOX_PARAMS] for the box of nx_local x ny_local points whose
 * first point is (i0, j0) (0-based) on a grid nx_global points wide. */
int cryo_oasis_box_kparal(int *kparal, int i0, int j0, int nx_local, int ny_local, int nx_global,
                          cryo_err *err);

/* Declare a double-precision coupling field `name` (its namcouple name) on
 * partition part_id, kinout CRYO_OASIS_IN or CRYO_OASIS_OUT. A name the namcouple
 * does not couple is CRYO_ERR_COUPLING naming the field. *var_id: field id. */
int cryo_oasis_def_var(int *var_id, const char *name, int part_id, int kinout, cryo_err *err);

/* Longest grid name accepted: the namcouple's grid names (e.g. "cryt"; see the
 * name limits above). OASIS names the variables of grids.nc "<name>.lon" etc.,
 * so a name must not contain '.'. */
#define CRYO_OASIS_GRID_NAME_MAX 8
/* Corners per cell of the grids this layer describes (quadrilaterals). */
#define CRYO_OASIS_NCORNER 4

/* Describe grid `name` of nx x ny cells for an OASIS SCRIP remapping. Global
 * arrays, x fastest: lon, lat (degrees, cell centres, nx*ny values), clon, clat
 * (degrees, CRYO_OASIS_NCORNER corners of each cell anticlockwise from the lower
 * left, C arrays [4][ny][nx]), mask (OASIS's convention: 0 valid, 1 masked) and
 * area (m2). Call after init_comp and before enddef, on the component's local
 * rank 0 only (the 2.0 API aborts, exit 0, on any other rank). OASIS keeps the
 * arrays and writes grids.nc, masks.nc and areas.nc in the run directory at
 * enddef, one component after the other, before it computes the remapping
 * weights; a variable already in a file is left as it is. Needed only where the
 * namcouple remaps (SCRIPR); a same-grid exchange never reads the files. */
int cryo_oasis_write_grid(const char *name, int nx, int ny, const double *lon, const double *lat,
                          const double *clon, const double *clat, const int *mask,
                          const double *area, cryo_err *err);

/* Centres, corners and areas of a plane grid of nx x ny cells of dx x dy metres
 * whose cell (0, 0) has its lower-left corner at (x0, y0) m, laid on the sphere
 * along the equator as SCRIP needs: longitude 10 + x / R and latitude y / R
 * degrees (R = 6371 km; the 10 degrees keep the grid off the 0/360 seam), linear
 * in x and y, so that a bilinear remapping in longitude and latitude is bilinear
 * in x and y (cells within 1000 km of the origin stay within 9 degrees of the
 * equator). Fills lon, lat (nx*ny), clon, clat (4*nx*ny, as cryo_oasis_write_grid)
 * and area (dx*dy each, the plane's area, m2); CRYO_ERR_RANGE for sizes < 1,
 * non-positive spacings or a grid reaching beyond 80 degrees of latitude. */
int cryo_oasis_plane_grid(int nx, int ny, double x0, double y0, double dx, double dy, double *lon,
                          double *lat, double *clon, double *clat, double *area, cryo_err *err);

/* Where cryo_oasis_plane_grid lays the point (x, y) m of a plane on the
 * sphere: *lon = 10 + x / R and *lat = y / R, degrees (R = 6371 km). */
void cryo_oasis_plane_point(double x, double y, double *lon, double *lat);

/* cryo_oasis_write_grid of the plane grid of cryo_oasis_plane_grid, every cell
 * valid. Same calling rules as cryo_oasis_write_grid. */
int cryo_oasis_write_plane_grid(const char *name, int nx, int ny, double x0, double y0, double dx,
                                double dy, cryo_err *err);

/* End the definition phase (collective over all components). */
int cryo_oasis_enddef(cryo_err *err);

/* Send field var_id at `date` (seconds since the start of the run). field holds
 * nx*ny values, x fastest; nx*ny must equal the partition's local size. *kinfo:
 * what OASIS did (0 on a date that is not a coupling date, 4 sent, ...). */
int cryo_oasis_put(int var_id, int date, int nx, int ny, const double *field, int *kinfo,
                   cryo_err *err);

/* Receive field var_id at `date` into field (nx*ny values, x fastest). On a date
 * that is not a coupling date *kinfo is 0 and field is left unchanged. */
int cryo_oasis_get(int var_id, int date, int nx, int ny, double *field, int *kinfo, cryo_err *err);

/* Leave the coupled run. OASIS finalises MPI only if init_comp initialised it
 * (no MPI_Init before init_comp); a program that called MPI_Init itself calls
 * MPI_Finalize after this. */
int cryo_oasis_terminate(cryo_err *err);

/* Name of an OASIS return code, e.g. "OASIS_Recvd" for 3. */
const char *cryo_oasis_kinfo_name(int kinfo);

/* For driver programs only: print "routine: msg (file:line)" on stderr, flush,
 * and stop every process of the coupled run with exit code `code` (OASIS's own
 * abort exits 0, which hides failures from scripts). Does not return. */
void cryo_oasis_abort(int compid, const char *routine, const char *msg, const char *file, int line,
                      int code);

#endif
