/* OASIS3-MCT coupling layer (docs/design.md, Coupling): cryodyn statuses and messages
 * around either OASIS3-MCT 5.x's C API (CRYO_HAVE_OASIS_C) or the Fortran bridge
 * to Debian's 2.0-era API (coupling/oasis_bridge.F90). Return codes and pitfalls:
 * docs/design.md, Coupling, and the OASIS3-MCT user guide.
 *
 * OASIS itself is process-global state, so this layer keeps a process-global
 * table of the partitions and variables it defined: put/get need each field's
 * name for messages and its partition size for the size check that saves the run
 * from OASIS's exit-0 abort on a wrong array size. */
#include "cryo_oasis.h"
#include "cryo_mpi.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cryo_namelist.h"

#ifdef CRYO_HAVE_OASIS_C
#include <oasis_c.h>
#else
void cryo_oasis_f_init_comp(int *compid, const char *name, int *kinfo);
void cryo_oasis_f_get_localcomm(int *fcomm, int *kinfo);
void cryo_oasis_f_def_partition(int *part_id, int nparal, const int *kparal, int global_size,
                                int *kinfo);
void cryo_oasis_f_def_var(int *var_id, const char *name, int part_id, int kinout, int local_size,
                          int *kinfo);
void cryo_oasis_f_enddef(int *kinfo);
void cryo_oasis_f_put(int var_id, int date, int n, const double *field, int *kinfo);
void cryo_oasis_f_get(int var_id, int date, int n, double *field, int *kinfo);
void cryo_oasis_f_terminate(int *kinfo);
void cryo_oasis_f_start_grids_writing(int *flag);
void cryo_oasis_f_write_grid(const char *name, int nx, int ny, const double *lon,
                             const double *lat);
void cryo_oasis_f_write_corner(const char *name, int nx, int ny, int nc, const double *clon,
                               const double *clat);
void cryo_oasis_f_write_mask(const char *name, int nx, int ny, const int *mask);
void cryo_oasis_f_write_area(const char *name, int nx, int ny, const double *area);
void cryo_oasis_f_terminate_grids_writing(void);
#endif

/* OASIS return codes (identical in 2.0 and 5.x). */
enum {
  KINFO_OK = 0,
  KINFO_VAR_UNCPL = -1,
  KINFO_RECVD = 3,
  KINFO_SENT = 4,
  KINFO_LOCTRANS = 5,
  KINFO_TOREST = 6,
  KINFO_OUTPUT = 7,
  KINFO_SENTOUT = 8,
  KINFO_TORESTOUT = 9,
  KINFO_FROMREST = 10,
  KINFO_INPUT = 11,
  KINFO_RECVOUT = 12,
  KINFO_FROMRESTOUT = 13,
  KINFO_WAITGROUP = 14
};

typedef struct oasis_var {
  int id;       /* OASIS variable id */
  int kinout;   /* CRYO_OASIS_IN or CRYO_OASIS_OUT */
  long npoints; /* local size of its partition */
  char name[CRYO_OASIS_VAR_NAME_MAX + 1];
} oasis_var;

static char comp_name[CRYO_OASIS_COMP_NAME_MAX + 1];
/* Definition phase state: grids may be described between init_comp and enddef. */
static int joined, ended;
static int nparts;
static int part_ids[CRYO_OASIS_MAX_PARTS];
static long part_npoints[CRYO_OASIS_MAX_PARTS];
static int nvars;
static oasis_var vars[CRYO_OASIS_MAX_VARS];

const char *cryo_oasis_kinfo_name(int kinfo) {
  switch (kinfo) {
  case KINFO_OK:
    return "OASIS_Ok";
  case KINFO_VAR_UNCPL:
    return "OASIS_Var_Uncpl";
  case -2:
    return "OASIS_NotDef";
  case -10:
    return "OASIS_Error";
  case 2:
    return "OASIS_InOut";
  case KINFO_RECVD:
    return "OASIS_Recvd";
  case KINFO_SENT:
    return "OASIS_Sent";
  case KINFO_LOCTRANS:
    return "OASIS_LocTrans";
  case KINFO_TOREST:
    return "OASIS_ToRest";
  case KINFO_OUTPUT:
    return "OASIS_Output";
  case KINFO_SENTOUT:
    return "OASIS_SentOut";
  case KINFO_TORESTOUT:
    return "OASIS_ToRestOut";
  case KINFO_FROMREST:
    return "OASIS_FromRest";
  case KINFO_INPUT:
    return "OASIS_Input";
  case KINFO_RECVOUT:
    return "OASIS_RecvOut";
  case KINFO_FROMRESTOUT:
    return "OASIS_FromRestOut";
  case KINFO_WAITGROUP:
    return "OASIS_Waitgroup";
  default:
    return "unknown OASIS return code";
  }
}

/* Codes a put may return without anything having gone wrong (OASIS user guide,
 * oasis_put). */
static int put_ok(int kinfo) {
  return kinfo == KINFO_OK || kinfo == KINFO_SENT || kinfo == KINFO_LOCTRANS ||
         kinfo == KINFO_TOREST || kinfo == KINFO_OUTPUT || kinfo == KINFO_SENTOUT ||
         kinfo == KINFO_TORESTOUT || kinfo == KINFO_WAITGROUP;
}

static int get_ok(int kinfo) {
  return kinfo == KINFO_OK || kinfo == KINFO_RECVD || kinfo == KINFO_FROMREST ||
         kinfo == KINFO_INPUT || kinfo == KINFO_RECVOUT || kinfo == KINFO_FROMRESTOUT ||
         kinfo == KINFO_OUTPUT;
}

/* The table entry of an OASIS variable id, or NULL. */
static const oasis_var *find_var(int var_id) {
  for (int k = 0; k < nvars; k++)
    if (vars[k].id == var_id) return &vars[k];
  return NULL;
}

/* Sections of a namcouple that cryo_oasis_check_namcouple looks into. */
enum { NC_NFIELDS, NC_NBMODEL, NC_RUNTIME, NC_STRINGS, NC_OTHER };
static const char *const nc_names[NC_OTHER] = {"$NFIELDS", "$NBMODEL", "$RUNTIME", "$STRINGS"};

/* The first content line of a section: one positive integer, or for $NBMODEL
 * the number of models and at least that many names, `component` among them. */
static int nc_first_line(int sec, char *s, const char *path, int ln, const char *component,
                         cryo_err *err) {
  char *end;
  long n = strtol(s, &end, 10);
  CRYO_CHECK(end != s && n > 0 && (sec == NC_NBMODEL || *end == '\0'), err, CRYO_ERR_FORMAT,
             "%s:%d: %s: '%s' is not a positive integer%s", path, ln, nc_names[sec], s,
             sec == NC_NBMODEL ? " followed by the model names" : "");
  if (sec != NC_NBMODEL) return CRYO_OK;
  int found = 0;
  long names = 0;
  char *save;
  for (char *w = strtok_r(end, " \t", &save); w && names < n;
       w = strtok_r(NULL, " \t", &save), ++names)
    found |= strcmp(w, component) == 0;
  CRYO_CHECK(names == n, err, CRYO_ERR_FORMAT, "%s:%d: $NBMODEL: %ld models announced, %ld named",
             path, ln, n, names);
  CRYO_CHECK(found, err, CRYO_ERR_COUPLING,
             "%s:%d: component '%s' is not among the models of $NBMODEL ('%s'); &cryo_coupling "
             "component must be one of them",
             path, ln, component, s);
  return CRYO_OK;
}

/* Checks the namcouple text in place (lines are cut at their ends). */
static int nc_check_text(char *text, const char *path, const char *component, cryo_err *err) {
  int line_of[NC_OTHER + 1] = {0}, open = -1, open_line = 0, filled = 0;
  char open_name[32] = "";
  int ln = 0;
  for (char *next = text; next;) {
    char *s = next;
    next = strchr(s, '\n');
    if (next) *next++ = '\0';
    ++ln;
    while (isspace((unsigned char)*s))
      ++s;
    for (size_t n = strlen(s); n > 0 && isspace((unsigned char)s[n - 1]); --n)
      s[n - 1] = '\0';
    if (*s == '#' || (!*s && !next)) continue;
    CRYO_CHECK(*s || open != NC_STRINGS, err, CRYO_ERR_FORMAT,
               "%s:%d: blank line in $STRINGS (OASIS allows none)", path, ln);
    if (!*s) continue;
    if (*s == '$') {
      size_t len = strcspn(s, " \t");
      if (len == 4 && !strncmp(s, "$END", 4)) {
        CRYO_CHECK(open >= 0, err, CRYO_ERR_FORMAT, "%s:%d: $END outside a section", path, ln);
        CRYO_CHECK(filled || open == NC_OTHER, err, CRYO_ERR_FORMAT, "%s:%d: %s is empty", path,
                   open_line, open_name);
        open = -1;
        continue;
      }
      CRYO_CHECK(open < 0, err, CRYO_ERR_FORMAT,
                 "%s:%d: %.*s inside %s, which starts at line %d (missing $END?)", path, ln,
                 (int)len, s, open_name, open_line);
      open = NC_OTHER;
      for (int k = 0; k < NC_OTHER; ++k)
        if (len == strlen(nc_names[k]) && !strncmp(s, nc_names[k], len)) open = k;
      CRYO_CHECK(open == NC_OTHER || !line_of[open], err, CRYO_ERR_FORMAT,
                 "%s:%d: %s given twice, at line %d and again here", path, ln, nc_names[open],
                 line_of[open]);
      line_of[open] = ln;
      open_line = ln;
      filled = 0;
      snprintf(open_name, sizeof open_name, "%.*s", (int)len, s);
      continue;
    }
    CRYO_CHECK(open >= 0, err, CRYO_ERR_FORMAT,
               "%s:%d: '%s' outside a section (every line but comments belongs to one, "
               "$NAME ... $END)",
               path, ln, s);
    if (!filled++ && open < NC_STRINGS) CRYO_CALL(nc_first_line(open, s, path, ln, component, err));
  }
  CRYO_CHECK(open < 0, err, CRYO_ERR_FORMAT, "%s: %s (line %d) has no $END", path, open_name,
             open_line);
  for (int k = 0; k < NC_OTHER; ++k) {
#ifdef CRYO_HAVE_OASIS_C
    if (k == NC_NBMODEL) continue; /* gone in OASIS3-MCT 5.x */
#endif
    CRYO_CHECK(line_of[k], err, CRYO_ERR_FORMAT, "%s: no %s section (%s ... $END)", path,
               nc_names[k], nc_names[k]);
  }
  return CRYO_OK;
}

int cryo_oasis_check_namcouple(const char *path, const char *component, cryo_err *err) {
  CRYO_CHECK(path && component, err, CRYO_ERR_ARG,
             "cryo_oasis_check_namcouple: path and component must be set");
  char *text;
  if (cryo_file_read_text(path, &text, err) != CRYO_OK) {
    char msg[CRYO_ERR_MSG_LEN], cwd[512];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return CRYO_ERROR(err, CRYO_ERR_FILE,
                      "%s (OASIS reads the namcouple from the run directory, %s, before it "
                      "starts the coupled run)",
                      msg, getcwd(cwd, sizeof cwd) ? cwd : "the current directory");
  }
  int status = nc_check_text(text, path, component, err);
  free(text);
  return status;
}

/* Up to `max` blank-separated words of line s (cut in place); returns how many. */
static int nc_words(char *s, char **w, int max) {
  int n = 0;
  char *save;
  for (char *t = strtok_r(s, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
    w[n++] = t;
  return n;
}

/* Whether word w is a whole number >= 0; its value in *v. */
static int nc_count(const char *w, long *v) {
  char *end;
  *v = strtol(w, &end, 10);
  return end != w && *end == '\0' && *v >= 0;
}

/* One side (0 source, 1 target) of a grid line that names the grid: its sizes,
 * and its periodicity pair (type, overlap) from the line after, if any. */
static int nc_grid_side(const char *path, int ln, int pln, const char *grid, int side, long gnx,
                        long gny, char *const *per, int nx, int ny, int periodic, cryo_err *err) {
  static const char *const sides[2] = {"source", "target"};
  CRYO_CHECK(gnx == nx && gny == ny, err, CRYO_ERR_COUPLING,
             "%s:%d: grid '%s' (the %s grid) is %ld x %ld there, but the component's grid has "
             "%d x %d cells",
             path, ln, grid, sides[side], gnx, gny, nx, ny);
  if (!per) return CRYO_OK;
  long overlap;
  const char *type = per[2 * side], *ovl = per[2 * side + 1];
  CRYO_CHECK(nc_count(ovl, &overlap), err, CRYO_ERR_COUPLING,
             "%s:%d: periodicity '%s %s' of grid '%s' (the %s grid): the number of overlapping "
             "columns must be a whole number",
             path, pln, type, ovl, grid, sides[side]);
  CRYO_CHECK(strcmp(type, "R") || !periodic, err, CRYO_ERR_COUPLING,
             "%s:%d: periodicity '%s %s' of grid '%s' (the %s grid) says regional, but the grid "
             "is periodic in x (grid file periodic_x = 1): write 'P 0' (periodic, no column "
             "repeated), as OASIS's user guide defines it for global grids",
             path, pln, type, ovl, grid, sides[side]);
  CRYO_CHECK(strcmp(type, "P") || periodic, err, CRYO_ERR_COUPLING,
             "%s:%d: periodicity '%s %s' of grid '%s' (the %s grid) says periodic, but the grid "
             "is regional (no periodic_x = 1 in its grid file): write 'R 0'",
             path, pln, type, ovl, grid, sides[side]);
  CRYO_CHECK(overlap == 0, err, CRYO_ERR_COUPLING,
             "%s:%d: periodicity '%s %s' of grid '%s' (the %s grid) says its last %ld column(s) "
             "repeat the first, but the component's grid repeats none: write '%s 0'",
             path, pln, type, ovl, grid, sides[side], overlap, type);
  return CRYO_OK;
}

/* The check of cryo_oasis_check_namcouple_grid on the namcouple text (cut in place). */
static int nc_check_grid(char *text, const char *path, const char *grid, int nx, int ny,
                         int periodic, cryo_err *err) {
  int in_strings = 0, ln = 0, grid_ln = 0, sides = 0;
  long size[4];
  for (char *next = text; next;) {
    char *s = next;
    next = strchr(s, '\n');
    if (next) *next++ = '\0';
    ++ln;
    char *w[8];
    int n = nc_words(s, w, 8);
    if (n == 0 || w[0][0] == '#') continue;
    /* the line after a grid line that names the grid: its periodicity, when it is one */
    if (grid_ln) {
      int per = n == 4 && (!strcmp(w[0], "P") || !strcmp(w[0], "R")) &&
                (!strcmp(w[2], "P") || !strcmp(w[2], "R"));
      for (int k = 0; k < 2; ++k)
        if (sides & (1 << k))
          CRYO_CALL(nc_grid_side(path, grid_ln, ln, grid, k, size[2 * k], size[2 * k + 1],
                                 per ? w : NULL, nx, ny, periodic, err));
      grid_ln = 0;
    }
    if (w[0][0] == '$') {
      in_strings = !strcmp(w[0], "$STRINGS");
      continue;
    }
    if (!in_strings || n < 6) continue;
    int counts = 1;
    for (int k = 0; k < 4; ++k)
      counts &= nc_count(w[k], &size[k]);
    sides = counts ? (strcmp(w[4], grid) == 0) | (strcmp(w[5], grid) == 0) << 1 : 0;
    if (sides) grid_ln = ln;
  }
  for (int k = 0; k < 2 && grid_ln; ++k)
    if (sides & (1 << k))
      CRYO_CALL(nc_grid_side(path, grid_ln, ln, grid, k, size[2 * k], size[2 * k + 1], NULL, nx, ny,
                             periodic, err));
  return CRYO_OK;
}

int cryo_oasis_check_namcouple_grid(const char *path, const char *grid, int nx, int ny,
                                    int periodic, cryo_err *err) {
  CRYO_CHECK(path && grid, err, CRYO_ERR_ARG,
             "cryo_oasis_check_namcouple_grid: path and grid must be set");
  char *text;
  CRYO_CALL(cryo_file_read_text(path, &text, err));
  int status = nc_check_grid(text, path, grid, nx, ny, periodic, err);
  free(text);
  return status;
}

int cryo_oasis_init_comp(int *compid, const char *name, cryo_err *err) {
  CRYO_CHECK(compid && name, err, CRYO_ERR_ARG,
             "cryo_oasis_init_comp: compid and name must be set");
  size_t len = strlen(name);
  CRYO_CHECK(len >= 1 && len <= CRYO_OASIS_COMP_NAME_MAX, err, CRYO_ERR_RANGE,
             "OASIS component name '%s' has %zu characters, must have 1 to %d (OASIS3-MCT 2.0 "
             "keeps only %d; it must match $NBMODEL in the namcouple)",
             name, len, CRYO_OASIS_COMP_NAME_MAX, CRYO_OASIS_COMP_NAME_MAX);
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  kinfo = oasis_c_init_comp(compid, name, OASIS_COUPLED);
#else
  cryo_oasis_f_init_comp(compid, name, &kinfo);
#endif
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_init_comp for component '%s' failed: kinfo = %d (%s)", name, kinfo,
             cryo_oasis_kinfo_name(kinfo));
  memcpy(comp_name, name, len + 1);
  nparts = 0;
  nvars = 0;
  joined = 1;
  ended = 0;
  return CRYO_OK;
}

int cryo_oasis_get_localcomm(MPI_Comm *comm, cryo_err *err) {
  CRYO_CHECK(comm, err, CRYO_ERR_ARG, "cryo_oasis_get_localcomm: comm must be set");
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  kinfo = oasis_c_get_localcomm(comm);
#else
  int fcomm = 0;
  cryo_oasis_f_get_localcomm(&fcomm, &kinfo);
  if (kinfo == KINFO_OK) *comm = MPI_Comm_f2c((MPI_Fint)fcomm);
#endif
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_get_localcomm for component '%s' failed: kinfo = %d (%s)", comp_name,
             kinfo, cryo_oasis_kinfo_name(kinfo));
  return CRYO_OK;
}

/* Number of grid points a kparal description covers on this rank, or -1 if the
 * description is malformed (checked here because OASIS aborts with exit 0). */
static long kparal_npoints(const int *kparal, int n) {
  if (n < 3) return -1;
  switch (kparal[0]) {
  case CRYO_OASIS_SERIAL:
  case CRYO_OASIS_APPLE:
    return kparal[2] >= 0 && kparal[1] >= 0 ? kparal[2] : -1;
  case CRYO_OASIS_BOX:
    if (n < CRYO_OASIS_BOX_PARAMS || kparal[1] < 0 || kparal[2] < 0 || kparal[3] < 0 ||
        kparal[4] < kparal[2])
      return -1;
    return (long)kparal[2] * kparal[3];
  case CRYO_OASIS_ORANGE: {
    if (kparal[1] < 0 || n < 2 + 2 * kparal[1]) return -1;
    long total = 0;
    for (int s = 0; s < kparal[1]; s++) {
      if (kparal[2 + 2 * s] < 0 || kparal[3 + 2 * s] < 0) return -1;
      total += kparal[3 + 2 * s];
    }
    return total;
  }
  case CRYO_OASIS_POINTS:
    return kparal[1] >= 0 && n >= 2 + kparal[1] ? kparal[1] : -1;
  default:
    return -1;
  }
}

int cryo_oasis_def_partition(int *part_id, const int *kparal, int n, int global_size,
                             cryo_err *err) {
  CRYO_CHECK(part_id && kparal, err, CRYO_ERR_ARG,
             "cryo_oasis_def_partition: part_id and kparal must be set");
  CRYO_CHECK(nparts < CRYO_OASIS_MAX_PARTS, err, CRYO_ERR_RANGE,
             "component '%s' defines more than %d OASIS partitions", comp_name,
             CRYO_OASIS_MAX_PARTS);
  long npoints = kparal_npoints(kparal, n);
  CRYO_CHECK(npoints >= 0 && npoints <= global_size, err, CRYO_ERR_ARG,
             "OASIS partition of component '%s': kparal = {%d, %d, %d, ...} (%d values) is not "
             "a valid serial/apple/box/orange/points description within %d global points",
             comp_name, kparal[0], n > 1 ? kparal[1] : 0, n > 2 ? kparal[2] : 0, n, global_size);
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  char part_name[32];
  snprintf(part_name, sizeof part_name, "cryo_part%d", nparts);
  kinfo = oasis_c_def_partition(part_id, n, kparal, global_size, part_name);
#else
  cryo_oasis_f_def_partition(part_id, n, kparal, global_size, &kinfo);
#endif
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_def_partition for component '%s' failed: kinfo = %d (%s)", comp_name,
             kinfo, cryo_oasis_kinfo_name(kinfo));
  part_ids[nparts] = *part_id;
  part_npoints[nparts] = npoints;
  nparts++;
  return CRYO_OK;
}

int cryo_oasis_box_kparal(int *kparal, int i0, int j0, int nx_local, int ny_local, int nx_global,
                          cryo_err *err) {
  CRYO_CHECK(kparal, err, CRYO_ERR_ARG, "cryo_oasis_box_kparal: kparal must be set");
  CRYO_CHECK(i0 >= 0 && j0 >= 0 && nx_local >= 0 && ny_local >= 0 && i0 + nx_local <= nx_global,
             err, CRYO_ERR_RANGE,
             "OASIS box partition: first point (%d, %d), size %d x %d must lie inside a grid %d "
             "points wide",
             i0, j0, nx_local, ny_local, nx_global);
  kparal[0] = CRYO_OASIS_BOX;
  kparal[1] = j0 * nx_global + i0;
  kparal[2] = nx_local;
  kparal[3] = ny_local;
  kparal[4] = nx_global;
  return CRYO_OK;
}

int cryo_oasis_def_var(int *var_id, const char *name, int part_id, int kinout, cryo_err *err) {
  CRYO_CHECK(var_id && name, err, CRYO_ERR_ARG, "cryo_oasis_def_var: var_id and name must be set");
  size_t len = strlen(name);
  CRYO_CHECK(len >= 1 && len <= CRYO_OASIS_VAR_NAME_MAX, err, CRYO_ERR_RANGE,
             "OASIS field name '%s' has %zu characters, must have 1 to %d", name, len,
             CRYO_OASIS_VAR_NAME_MAX);
  CRYO_CHECK(kinout == CRYO_OASIS_IN || kinout == CRYO_OASIS_OUT, err, CRYO_ERR_ARG,
             "OASIS field '%s': kinout = %d, must be CRYO_OASIS_IN (%d) or CRYO_OASIS_OUT (%d)",
             name, kinout, CRYO_OASIS_IN, CRYO_OASIS_OUT);
  CRYO_CHECK(nvars < CRYO_OASIS_MAX_VARS, err, CRYO_ERR_RANGE,
             "component '%s' defines more than %d OASIS fields ('%s' is one too many)", comp_name,
             CRYO_OASIS_MAX_VARS, name);
  long npoints = -1;
  for (int p = 0; p < nparts; p++)
    if (part_ids[p] == part_id) npoints = part_npoints[p];
  CRYO_CHECK(npoints >= 0, err, CRYO_ERR_ARG,
             "OASIS field '%s': partition id %d was not defined by cryo_oasis_def_partition", name,
             part_id);
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  kinfo = oasis_c_def_var(var_id, name, part_id, 1, kinout, OASIS_DOUBLE);
#else
  cryo_oasis_f_def_var(var_id, name, part_id, kinout, (int)npoints, &kinfo);
#endif
  const char *dir = kinout == CRYO_OASIS_IN ? "received" : "sent";
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_def_var for field '%s' (%s by component '%s') failed: kinfo = %d (%s)",
             name, dir, comp_name, kinfo, cryo_oasis_kinfo_name(kinfo));
  /* OASIS returns id -1 with kinfo 0 for a name that no $STRINGS entry couples
   * to this component; left alone, the field would silently never be exchanged. */
  CRYO_CHECK(*var_id >= 0, err, CRYO_ERR_COUPLING,
             "OASIS field '%s' (%s by component '%s') is not coupled by the namcouple "
             "(oasis_def_var returned id %d): check the field names in its $STRINGS section",
             name, dir, comp_name, *var_id);
  oasis_var *v = &vars[nvars++];
  v->id = *var_id;
  v->kinout = kinout;
  v->npoints = npoints;
  memcpy(v->name, name, len + 1);
  return CRYO_OK;
}

int cryo_oasis_enddef(cryo_err *err) {
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  kinfo = oasis_c_enddef();
#else
  cryo_oasis_f_enddef(&kinfo);
#endif
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_enddef for component '%s' failed: kinfo = %d (%s)", comp_name, kinfo,
             cryo_oasis_kinfo_name(kinfo));
  ended = 1;
  return CRYO_OK;
}

int cryo_oasis_write_grid(const char *name, int nx, int ny, const double *lon, const double *lat,
                          const double *clon, const double *clat, const int *mask,
                          const double *area, cryo_err *err) {
  CRYO_CHECK(name && lon && lat && clon && clat && mask && area, err, CRYO_ERR_ARG,
             "cryo_oasis_write_grid: name and every array must be set");
  size_t len = strlen(name);
  CRYO_CHECK(len >= 1 && len <= CRYO_OASIS_GRID_NAME_MAX && !strchr(name, '.'), err, CRYO_ERR_RANGE,
             "OASIS grid name '%s' has %zu characters, must have 1 to %d and no '.' (its "
             "namcouple grid name)",
             name, len, CRYO_OASIS_GRID_NAME_MAX);
  CRYO_CHECK(nx >= 1 && ny >= 1 && (long)nx * ny <= 2147483647L / CRYO_OASIS_NCORNER, err,
             CRYO_ERR_RANGE,
             "OASIS grid '%s': %d x %d cells, each size must be >= 1 and the "
             "corner arrays must have fewer than 2^31 values",
             name, nx, ny);
  CRYO_CHECK(joined && !ended, err, CRYO_ERR_STATE,
             "OASIS grid '%s': grids are described after cryo_oasis_init_comp and before "
             "cryo_oasis_enddef (%s)",
             name, joined ? "enddef was already called" : "no component has joined");
  MPI_Comm local;
  CRYO_CALL(cryo_oasis_get_localcomm(&local, err));
  int rank;
  CRYO_MPI(MPI_Comm_rank(local, &rank), "MPI_Comm_rank (OASIS grid description)", err);
  CRYO_CHECK(rank == 0, err, CRYO_ERR_ARG,
             "OASIS grid '%s' of component '%s': described on local rank %d; only rank 0 may, "
             "with the global arrays",
             name, comp_name, rank);
#ifdef CRYO_HAVE_OASIS_C
  /* 5.0 returns the obsolete flag of oasis_start_grids_writing (always 1,
   * "grids wanted"), not a status: the call cannot fail (OASIS aborts). */
  (void)oasis_c_start_grids_writing();
  int kinfo = oasis_c_write_grid(name, nx, ny, nx, ny, lon, lat, OASIS_No_Part);
  if (kinfo == KINFO_OK)
    kinfo =
        oasis_c_write_corner(name, nx, ny, CRYO_OASIS_NCORNER, nx, ny, clon, clat, OASIS_No_Part);
  if (kinfo == KINFO_OK)
    kinfo = oasis_c_write_mask(name, nx, ny, nx, ny, mask, OASIS_No_Part, OASIS_No_Companion);
  if (kinfo == KINFO_OK) kinfo = oasis_c_write_area(name, nx, ny, nx, ny, area, OASIS_No_Part);
  if (kinfo == KINFO_OK) kinfo = oasis_c_terminate_grids_writing();
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS grid writing of grid '%s' (component '%s') failed: kinfo = %d (%s)", name,
             comp_name, kinfo, cryo_oasis_kinfo_name(kinfo));
#else
  /* The 2.0 routines return no code: they buffer the arrays, or abort. Its
   * flag is always 1 ("grids wanted"); 0 would mean the files are complete. */
  int flag = 0;
  cryo_oasis_f_start_grids_writing(&flag);
  if (flag == 0) return CRYO_OK;
  cryo_oasis_f_write_grid(name, nx, ny, lon, lat);
  cryo_oasis_f_write_corner(name, nx, ny, CRYO_OASIS_NCORNER, clon, clat);
  cryo_oasis_f_write_mask(name, nx, ny, mask);
  cryo_oasis_f_write_area(name, nx, ny, area);
  cryo_oasis_f_terminate_grids_writing();
#endif
  return CRYO_OK;
}

/* Metres of the plane to degrees on the sphere of radius 6371 km. */
#define PLANE_RADIUS 6371.0e3
static const double plane_deg = 180.0 / (3.14159265358979323846 * PLANE_RADIUS);

void cryo_oasis_plane_point(double x, double y, double *lon, double *lat) {
  *lon = 10.0 + x * plane_deg;
  *lat = y * plane_deg;
}

int cryo_oasis_plane_grid(int nx, int ny, double x0, double y0, double dx, double dy, double *lon,
                          double *lat, double *clon, double *clat, double *area, cryo_err *err) {
  CRYO_CHECK(lon && lat && clon && clat && area, err, CRYO_ERR_ARG,
             "cryo_oasis_plane_grid: every array must be set");
  CRYO_CHECK(nx >= 1 && ny >= 1 && dx > 0.0 && dy > 0.0 && isfinite(x0) && isfinite(y0) &&
                 isfinite(dx) && isfinite(dy),
             err, CRYO_ERR_RANGE,
             "OASIS plane grid: %d x %d cells of %g x %g m from (%g, %g) m: sizes must be >= 1, "
             "spacings > 0 and all finite",
             nx, ny, dx, dy, x0, y0);
  const double deg = plane_deg; /* degrees per metre */
  double ylo = y0 * deg, yhi = (y0 + ny * dy) * deg, xhi = (x0 + nx * dx) * deg;
  CRYO_CHECK(fabs(ylo) <= 80.0 && fabs(yhi) <= 80.0 && fabs(x0 * deg) <= 170.0 &&
                 fabs(xhi) <= 170.0,
             err, CRYO_ERR_RANGE,
             "OASIS plane grid: %d x %d cells of %g x %g m from (%g, %g) m reach latitude %g "
             "to %g and longitude offset %g to %g degrees; must stay within 80 and 170",
             nx, ny, dx, dy, x0, y0, ylo, yhi, x0 * deg, xhi);
  size_t n = (size_t)nx * ny;
  /* corners k = 0..3: (-, -), (+, -), (+, +), (-, +) half a cell from the centre */
  static const int sx[CRYO_OASIS_NCORNER] = {0, 1, 1, 0}, sy[CRYO_OASIS_NCORNER] = {0, 0, 1, 1};
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      size_t q = (size_t)j * nx + i;
      cryo_oasis_plane_point(x0 + (i + 0.5) * dx, y0 + (j + 0.5) * dy, &lon[q], &lat[q]);
      area[q] = dx * dy;
      for (int k = 0; k < CRYO_OASIS_NCORNER; k++)
        cryo_oasis_plane_point(x0 + (i + sx[k]) * dx, y0 + (j + sy[k]) * dy, &clon[k * n + q],
                               &clat[k * n + q]);
    }
  return CRYO_OK;
}

int cryo_oasis_write_plane_grid(const char *name, int nx, int ny, double x0, double y0, double dx,
                                double dy, cryo_err *err) {
  CRYO_CHECK(nx >= 1 && ny >= 1 && (long)nx * ny <= 2147483647L / CRYO_OASIS_NCORNER, err,
             CRYO_ERR_RANGE,
             "OASIS grid '%s': %d x %d cells, each size must be >= 1 and the "
             "corner arrays must have fewer than 2^31 values",
             name ? name : "?", nx, ny);
  size_t n = (size_t)nx * ny;
  /* lon, lat, area, then the 4 corner longitudes and latitudes */
  double *a = malloc(sizeof(double) * n * (3 + 2 * CRYO_OASIS_NCORNER));
  int *mask = calloc(n, sizeof *mask); /* 0: every cell valid */
  if (!a || !mask) {
    free(a);
    free(mask);
    return CRYO_ERROR(err, CRYO_ERR_MEMORY, "OASIS grid '%s': out of memory for %d x %d cells",
                      name ? name : "?", nx, ny);
  }
  double *lon = a, *lat = a + n, *area = a + 2 * n, *clon = a + 3 * n,
         *clat = clon + CRYO_OASIS_NCORNER * n;
  int status = cryo_oasis_plane_grid(nx, ny, x0, y0, dx, dy, lon, lat, clon, clat, area, err);
  if (status == CRYO_OK)
    status = cryo_oasis_write_grid(name, nx, ny, lon, lat, clon, clat, mask, area, err);
  free(a);
  free(mask);
  return status;
}

/* Common checks of put and get: known id, right direction, right size. */
static int check_exchange(const oasis_var **v, int var_id, int kinout, int nx, int ny,
                          const void *field, const int *kinfo, cryo_err *err) {
  const char *what = kinout == CRYO_OASIS_OUT ? "cryo_oasis_put" : "cryo_oasis_get";
  CRYO_CHECK(field && kinfo, err, CRYO_ERR_ARG, "%s: field and kinfo must be set", what);
  *v = find_var(var_id);
  CRYO_CHECK(*v, err, CRYO_ERR_ARG, "%s: OASIS variable id %d was not defined by component '%s'",
             what, var_id, comp_name);
  CRYO_CHECK((*v)->kinout == kinout, err, CRYO_ERR_ARG,
             "%s: OASIS field '%s' was defined as %s, not %s", what, (*v)->name,
             (*v)->kinout == CRYO_OASIS_IN ? "received (CRYO_OASIS_IN)" : "sent (CRYO_OASIS_OUT)",
             kinout == CRYO_OASIS_IN ? "received" : "sent");
  CRYO_CHECK(nx >= 0 && ny >= 0 && (long)nx * ny == (*v)->npoints, err, CRYO_ERR_ARG,
             "%s: OASIS field '%s' array is %d x %d = %ld points, its partition has %ld on this "
             "rank",
             what, (*v)->name, nx, ny, (long)nx * ny, (*v)->npoints);
  return CRYO_OK;
}

int cryo_oasis_put(int var_id, int date, int nx, int ny, const double *field, int *kinfo,
                   cryo_err *err) {
  const oasis_var *v;
  CRYO_CALL(check_exchange(&v, var_id, CRYO_OASIS_OUT, nx, ny, field, kinfo, err));
#ifdef CRYO_HAVE_OASIS_C
  /* x fastest in memory is OASIS's column-major storage of an (nx, ny) array. */
  int status = oasis_c_put(var_id, date, nx, ny, 1, OASIS_DOUBLE, OASIS_COL_MAJOR, field,
                           OASIS_NO_RESTART, kinfo);
  CRYO_CHECK(status == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_c_put of field '%s' at date %d s failed: return code %d (%s), "
             "kinfo = %d (%s)",
             v->name, date, status, cryo_oasis_kinfo_name(status), *kinfo,
             cryo_oasis_kinfo_name(*kinfo));
#else
  cryo_oasis_f_put(var_id, date, nx * ny, field, kinfo);
#endif
  CRYO_CHECK(put_ok(*kinfo), err, CRYO_ERR_COUPLING,
             "OASIS oasis_put of field '%s' at date %d s failed: kinfo = %d (%s)", v->name, date,
             *kinfo, cryo_oasis_kinfo_name(*kinfo));
  return CRYO_OK;
}

int cryo_oasis_get(int var_id, int date, int nx, int ny, double *field, int *kinfo, cryo_err *err) {
  const oasis_var *v;
  CRYO_CALL(check_exchange(&v, var_id, CRYO_OASIS_IN, nx, ny, field, kinfo, err));
#ifdef CRYO_HAVE_OASIS_C
  int status = oasis_c_get(var_id, date, nx, ny, 1, OASIS_DOUBLE, OASIS_COL_MAJOR, field, kinfo);
  CRYO_CHECK(status == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_c_get of field '%s' at date %d s failed: return code %d (%s), "
             "kinfo = %d (%s)",
             v->name, date, status, cryo_oasis_kinfo_name(status), *kinfo,
             cryo_oasis_kinfo_name(*kinfo));
#else
  cryo_oasis_f_get(var_id, date, nx * ny, field, kinfo);
#endif
  CRYO_CHECK(get_ok(*kinfo), err, CRYO_ERR_COUPLING,
             "OASIS oasis_get of field '%s' at date %d s failed: kinfo = %d (%s)", v->name, date,
             *kinfo, cryo_oasis_kinfo_name(*kinfo));
  return CRYO_OK;
}

int cryo_oasis_terminate(cryo_err *err) {
  int kinfo;
#ifdef CRYO_HAVE_OASIS_C
  kinfo = oasis_c_terminate();
#else
  cryo_oasis_f_terminate(&kinfo);
#endif
  CRYO_CHECK(kinfo == KINFO_OK, err, CRYO_ERR_COUPLING,
             "OASIS oasis_terminate for component '%s' failed: kinfo = %d (%s)", comp_name, kinfo,
             cryo_oasis_kinfo_name(kinfo));
  nparts = 0;
  nvars = 0;
  joined = 0;
  return CRYO_OK;
}

void cryo_oasis_abort(int compid, const char *routine, const char *msg, const char *file, int line,
                      int code) {
  fprintf(stderr, "cryo_oasis_abort (component id %d, '%s'): %s: %s (%s:%d)\n", compid, comp_name,
          routine ? routine : "?", msg ? msg : "", file ? file : "?", line);
  fflush(stderr);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, code != 0 ? code : 1);
}
