/* The OASIS partner machinery of the toy partners (examples/toy_partner.h). */
#include "toy_partner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declare field `name`. Where the namcouple does not couple it, *id = -1 and,
 * if the partner skips such fields, a note on rank 0 instead of an error: like
 * an ocean model that reads its coupled fields from the namcouple, the toy then
 * leaves it to cryodyn to insist on its fields (the failure tests check
 * cryodyn's message, tests/coupled_failures.sh). */
static int def_field(const toy_partner *p, int *id, const char *name, int part, int kinout,
                     int rank, cryo_err *err) {
  int status = cryo_oasis_def_var(id, name, part, kinout, err);
  if (p->skip_uncoupled && status == CRYO_ERR_COUPLING && *id == -1) {
    if (rank == 0)
      printf("%s: field %s is not in the namcouple: not exchanged\n", p->program, name);
    return CRYO_OK;
  }
  return status;
}

/* Band, partition and fields of this rank, up to oasis_enddef. */
static int define(const toy_partner *p, int nx, int ny, void *ctx, toy_band *b, int *id_send,
                  int *id_recv, cryo_err *err) {
  CRYO_CALL(cryo_oasis_get_localcomm(&b->comm, err));
  MPI_Comm_rank(b->comm, &b->rank);
  MPI_Comm_size(b->comm, &b->size);
  CRYO_CHECK(b->size <= ny, err, CRYO_ERR_RANGE, "%s: %d ranks for %d rows", p->program, b->size,
             ny);
  b->nx = nx;
  b->ny = ny;
  b->j0 = (int)((long)b->rank * ny / b->size);
  b->nyl = (int)((long)(b->rank + 1) * ny / b->size) - b->j0;
  b->npts = (long)nx * b->nyl;
  int kparal[3] = {CRYO_OASIS_APPLE, b->j0 * nx, (int)b->npts};
  int part;
  CRYO_CALL(cryo_oasis_def_partition(&part, kparal, 3, nx * ny, err));
  for (int k = 0; k < p->nsend; k++)
    CRYO_CALL(def_field(p, &id_send[k], p->send_names[k], part, CRYO_OASIS_OUT, b->rank, err));
  for (int k = 0; k < p->nrecv; k++) {
    CRYO_CALL(def_field(p, &id_recv[k], p->recv_names[k], part, CRYO_OASIS_IN, b->rank, err));
    CRYO_CHECK(id_recv[k] >= 0 || !p->recv_required, err, CRYO_ERR_COUPLING,
               "%s: --check needs field %s, which the namcouple does not couple", p->program,
               p->recv_names[k]);
  }
  if (p->define) CRYO_CALL(p->define(ctx, b, err));
  return cryo_oasis_enddef(err);
}

/* One coupling step: put what the partner sends at `date`, get what it
 * receives; every get must return a received code, so that a namcouple period
 * different from --period is reported, not ignored. */
static int exchange(const toy_partner *p, const toy_band *b, int date, int period,
                    const int *id_send, const int *id_recv, double *const snd[],
                    double *const rcv[], cryo_err *err) {
  int status = CRYO_OK, kinfo;
  for (int k = 0; k < p->nsend && status == CRYO_OK; k++)
    if (id_send[k] >= 0)
      status = cryo_oasis_put(id_send[k], date, b->nx, b->nyl, snd[k], &kinfo, err);
  for (int k = 0; k < p->nrecv && status == CRYO_OK; k++) {
    if (id_recv[k] < 0) continue;
    for (long q = 0; q < b->npts; q++)
      rcv[k][q] = NAN;
    status = cryo_oasis_get(id_recv[k], date, b->nx, b->nyl, rcv[k], &kinfo, err);
    if (status == CRYO_OK && kinfo == 0)
      status = CRYO_ERROR(err, CRYO_ERR_COUPLING,
                          "%s: field %s was not received at date %d s: the namcouple coupling "
                          "period must equal --period %d",
                          p->program, p->recv_names[k], date, period);
  }
  return status;
}

/* Couple for the whole run. */
static int run(const toy_partner *p, int nx, int ny, int run_s, int period, int die_at, void *ctx,
               int *compid, int *rank, cryo_err *err) {
  CRYO_CHECK(p->nsend <= TOY_PARTNER_MAX_FIELDS && p->nrecv <= TOY_PARTNER_MAX_FIELDS, err,
             CRYO_ERR_RANGE, "%s: more than %d fields one way", p->program, TOY_PARTNER_MAX_FIELDS);
  CRYO_CALL(cryo_oasis_init_comp(compid, p->component, err));
  toy_band b;
  int id_send[TOY_PARTNER_MAX_FIELDS], id_recv[TOY_PARTNER_MAX_FIELDS];
  CRYO_CALL(define(p, nx, ny, ctx, &b, id_send, id_recv, err));
  *rank = b.rank;

  size_t n = (size_t)(b.npts > 0 ? b.npts : 1);
  double *buf = malloc(sizeof(double) * n * (size_t)(p->nsend + 2 * p->nrecv));
  CRYO_CHECK(buf, err, CRYO_ERR_MEMORY, "%s: no memory for %ld points", p->program, b.npts);
  double *snd[TOY_PARTNER_MAX_FIELDS], *rcv[TOY_PARTNER_MAX_FIELDS], *prev[TOY_PARTNER_MAX_FIELDS];
  for (int k = 0; k < p->nsend; k++)
    snd[k] = buf + k * n;
  for (int k = 0; k < p->nrecv; k++) {
    rcv[k] = buf + (p->nsend + k) * n;
    prev[k] = buf + (p->nsend + p->nrecv + k) * n;
    for (size_t q = 0; q < n; q++)
      rcv[k][q] = NAN;
  }
  int status = CRYO_OK;
  int nsteps = run_s / period;
  for (int step = 0; step < nsteps && status == CRYO_OK; step++) {
    int date = step * period;
    if (step == die_at) {
      fprintf(stderr,
              "%s rank %d: --die-at %d: exiting at %d s without oasis_terminate "
              "(partner failure test)\n",
              p->program, b.rank, die_at, date);
      fflush(stderr);
      exit(3);
    }
    p->fill(ctx, step, &b, snd, step > 0 ? prev : NULL);
    status = exchange(p, &b, date, period, id_send, id_recv, snd, rcv, err);
    if (status == CRYO_OK)
      status = p->received(ctx, step, &b, snd, rcv, step > 0 ? prev : NULL, err);
    for (int k = 0; k < p->nrecv && status == CRYO_OK; k++)
      memcpy(prev[k], rcv[k], sizeof(double) * n);
  }
  if (status == CRYO_OK && p->finish) status = p->finish(ctx, &b, err);
  free(buf);
  return status;
}

void toy_partner_couple(const toy_partner *p, int parsed, int nx, int ny, int run_s, int period,
                        int die_at, void *ctx, int *rank, cryo_err *err) {
  int compid = -1, status = parsed;
  *rank = 0;
  if (status != CRYO_OK) {
    /* Still join the run, so that the abort stops every component instead of a hang. */
    int ignored;
    cryo_err join_err;
    cryo_oasis_init_comp(&ignored, p->component, &join_err);
  } else {
    status = run(p, nx, ny, run_s, period, die_at, ctx, &compid, rank, err);
  }
  if (status != CRYO_OK)
    cryo_oasis_abort(compid, cryo_status_name(status), err->msg, err->file, err->line, 2);
  if (cryo_oasis_terminate(err) != CRYO_OK)
    cryo_oasis_abort(compid, "terminate", err->msg, err->file, err->line, 2);
}
