/* The registry of state arrays and the agreement of ranks on a status
 * (cryo_state.h). */
#include "cryo_state.h"
#include "cryo_impl.h"

#include <math.h>
#include <string.h>

int cryo_field_add(cryo_component *c, const char *name, const char *units,
                   const char *standard_name, const char *long_name, cryo_location loc, int nlev,
                   cryo_role role, double **dev) {
  CRYO_CHECK(c->nfields < CRYO_MAX_FIELDS, &c->err, CRYO_ERR_ARG,
             "too many state arrays (%d) registering '%s'", CRYO_MAX_FIELDS, name);
  CRYO_CHECK(cryo_field_find(c, name) < 0, &c->err, CRYO_ERR_ARG,
             "state array '%s' registered twice", name);
  cryo_field *f = &c->fields[c->nfields];
  const cryo_block *b = &c->grid.block;
  f->name = name;
  f->units = units;
  f->standard_name = standard_name;
  f->long_name = long_name;
  f->loc = loc;
  f->nlev = nlev;
  f->role = role;
  f->given = 0;
  f->lo = -HUGE_VAL;
  f->hi = HUGE_VAL;
  f->n = (loc == CRYO_AT_CELL ? CRYO_NCELL(b) : CRYO_NNODE(b)) * nlev;
  CRYO_CALL(cryo_device_alloc(&c->dev, f->n, &f->host, &f->dev, &c->err));
  *dev = f->dev;
  c->nfields++;
  return CRYO_OK;
}

int cryo_field_find(const cryo_component *c, const char *name) {
  for (int i = 0; i < c->nfields; ++i)
    if (!strcmp(c->fields[i].name, name)) return i;
  return -1;
}

int cryo_output_var_add(cryo_component *c, const char *name, const char *units,
                        const char *standard_name, const char *long_name, const char *field,
                        int offset, int stride, int count) {
  int f = cryo_field_find(c, field);
  CRYO_CHECK(f >= 0, &c->err, CRYO_ERR_ARG, "output variable '%s' names no state array '%s'", name,
             field);
  CRYO_CHECK(c->noutvars < CRYO_MAX_OUTPUT, &c->err, CRYO_ERR_ARG,
             "too many output variables registering '%s'", name);
  CRYO_CHECK(offset + (count - 1) * stride < c->fields[f].nlev, &c->err, CRYO_ERR_ARG,
             "output variable '%s' reads past the levels of '%s'", name, field);
  c->outvars[c->noutvars++] =
      (cryo_output_var){name, units, standard_name, long_name, f, offset, stride, count};
  return CRYO_OK;
}

void cryo_field_to_host(cryo_component *c, cryo_field *f) {
  cryo_device_to_host(&c->dev, f->host, 0, f->n);
}

void cryo_field_to_device(cryo_component *c, cryo_field *f) {
  cryo_device_to_device(&c->dev, f->host, 0, f->n);
}

int cryo_field_halo(cryo_component *c, cryo_field *f) {
  double *d = f->dev;
  if (!f->flip) return cryo_halo_exchange(c->halo, f->loc, f->nlev, 1, &d, &c->err);
  int sign[32];
  CRYO_CHECK(f->nlev <= 32, &c->err, CRYO_ERR_ARG,
             "state array '%s': %d levels, at most 32 may change sign across a fold", f->name,
             f->nlev);
  for (int k = 0; k < f->nlev; ++k)
    sign[k] = (f->flip >> k) & 1u ? -1 : 1;
  return cryo_halo_exchange_signed(c->halo, f->loc, f->nlev, 1, &d, sign, &c->err);
}

/* Broadcast status and message from rank `root` into every rank's c->err. */
static int share_error(cryo_component *c, int root, int status) {
  int shared = status;
  CRYO_MPI(MPI_Bcast(&shared, 1, MPI_INT, root, c->comm), "MPI_Bcast (status)", &c->err);
  if (shared == CRYO_OK) return CRYO_OK;
  CRYO_MPI(MPI_Bcast(c->err.msg, CRYO_ERR_MSG_LEN, MPI_CHAR, root, c->comm),
           "MPI_Bcast (error message)", &c->err);
  c->err.status = shared;
  return shared;
}

int cryo_status_agree(cryo_component *c, int status) {
  int mine = status != CRYO_OK ? c->rank : c->size, first = c->size;
  CRYO_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->comm),
           "MPI_Allreduce (ranks' status)", &c->err);
  if (first == c->size) return CRYO_OK;
  return share_error(c, first, status);
}

int cryo_status_from_root(cryo_component *c, int status) {
  return share_error(c, 0, status);
}

void cryo_startup_lap(cryo_component *c, int row) {
  cryo_device_wait();
  const double t = MPI_Wtime();
  c->startup[row].seconds += t - c->lap_start;
  c->startup[row].calls++;
  c->lap_start = t;
}
