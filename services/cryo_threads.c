/* Bands of host work on threads (cryo_threads.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "cryo_threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

int cryo_threads_available(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n < 1 ? 1 : n > 64 ? 64 : n;
}

typedef struct band_call {
  void (*fn)(void *, int);
  void *arg;
  int band;
} band_call;

static void *band_run(void *p) {
  const band_call *c = p;
  c->fn(c->arg, c->band);
  return NULL;
}

void cryo_threads_run(int nband, void (*fn)(void *arg, int band), void *arg) {
  band_call *call = nband > 1 ? calloc((size_t)nband, sizeof *call) : NULL;
  pthread_t *thread = nband > 1 ? calloc((size_t)nband, sizeof *thread) : NULL;
  int *started = nband > 1 ? calloc((size_t)nband, sizeof *started) : NULL;
  if (!call || !thread || !started) {
    /* one band, or no memory for the threads' records: all here, in order */
    for (int b = 0; b < nband; ++b)
      fn(arg, b);
    free(call);
    free(thread);
    free(started);
    return;
  }
  for (int b = 0; b < nband; ++b)
    call[b] = (band_call){fn, arg, b};
  for (int b = 1; b < nband; ++b)
    started[b] = pthread_create(&thread[b], NULL, band_run, &call[b]) == 0;
  fn(arg, 0);
  for (int b = 1; b < nband; ++b)
    if (started[b])
      pthread_join(thread[b], NULL);
    else
      fn(arg, b);
  free(call);
  free(thread);
  free(started);
}
