/* Host provider (forcing = 'host', docs/design.md, Lifecycle): a host model in the
 * same process hands forcing in with cryo_set_field and reads results with
 * cryo_get_field. The provider keeps one buffer of owned cells per field:
 * get returns the values last set (whatever the time), put stores the values
 * the host will read. The halo ring comes from the neighbouring ranks. */
#include "cryo_exchange.h"
#include "cryo_mpi.h"

#include <stdlib.h>
#include <string.h>

typedef struct host_impl {
  double *vals[CRYO_NFIELD]; /* nx*ny owned cells, row-major [ny][nx]; NULL until set or put */
} host_impl;

static host_impl *impl_of(cryo_exchange *x) {
  return (host_impl *)x->impl;
}

static int store(cryo_exchange *x, int field, double **dst, cryo_err *err) {
  size_t n = (size_t)x->grid.block.nx * x->grid.block.ny;
  if (!*dst) *dst = malloc(sizeof(double) * n);
  CRYO_CHECK(*dst, err, CRYO_ERR_MEMORY, "host exchange: out of memory for field '%s'",
             cryo_exchange_fields[field].name);
  return CRYO_OK;
}

static int host_get(cryo_exchange *x, double time, int field, double *buf, cryo_err *err) {
  (void)time;
  const cryo_block *b = &x->grid.block;
  const double *v = impl_of(x)->vals[field];
  /* Every rank must take part in the ring fill, so agree on the outcome first. */
  int have = v != NULL, all = 0;
  CRYO_MPI(MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, x->grid.comm),
           "host exchange: MPI_Allreduce", err);
  CRYO_CHECK(all, err, CRYO_ERR_MISSING,
             "forcing = 'host': field '%s' (%s) was never set with cryo_set_field%s",
             cryo_exchange_fields[field].name, cryo_exchange_fields[field].long_name,
             have ? " on some other rank" : "");
  for (int j = 0; j < b->ny; ++j)
    memcpy(buf + CRYO_CELL(b, 0, j), v + (size_t)j * b->nx, sizeof(double) * b->nx);
  return cryo_halo_exchange(x->halo, CRYO_AT_CELL, 1, 1, &buf, err);
}

static int host_put(cryo_exchange *x, double time, int field, const double *buf, cryo_err *err) {
  (void)time;
  const cryo_block *b = &x->grid.block;
  double **v = &impl_of(x)->vals[field];
  CRYO_CALL(store(x, field, v, err));
  for (int j = 0; j < b->ny; ++j)
    memcpy(*v + (size_t)j * b->nx, buf + CRYO_CELL(b, 0, j), sizeof(double) * b->nx);
  return CRYO_OK;
}

static int host_set_field(cryo_exchange *x, int field, const double *values, cryo_err *err) {
  double **v = &impl_of(x)->vals[field];
  CRYO_CALL(store(x, field, v, err));
  memcpy(*v, values, sizeof(double) * (size_t)x->grid.block.nx * x->grid.block.ny);
  return CRYO_OK;
}

static int host_get_field(cryo_exchange *x, int field, double *values, cryo_err *err) {
  const double *v = impl_of(x)->vals[field];
  CRYO_CHECK(v, err, CRYO_ERR_MISSING,
             "cryo_get_field: field '%s' has no values yet (the component puts it at the end "
             "of each cryo_run)",
             cryo_exchange_fields[field].name);
  memcpy(values, v, sizeof(double) * (size_t)x->grid.block.nx * x->grid.block.ny);
  return CRYO_OK;
}

static void host_destroy(cryo_exchange *x) {
  host_impl *h = impl_of(x);
  if (!h) return;
  for (int f = 0; f < CRYO_NFIELD; ++f)
    free(h->vals[f]);
  free(h);
  x->impl = NULL;
}

static const cryo_exchange_ops host_ops = {
    .name = "host",
    .get = host_get,
    .put = host_put,
    .set_field = host_set_field,
    .get_field = host_get_field,
    .destroy = host_destroy,
};

int cryo_exchange_host_create(cryo_exchange *x, const cryo_exchange_config *cfg, cryo_err *err) {
  (void)cfg;
  x->impl = calloc(1, sizeof(host_impl));
  CRYO_CHECK(x->impl, err, CRYO_ERR_MEMORY, "host exchange: out of memory");
  x->ops = &host_ops;
  return CRYO_OK;
}
