/* Host work in bands on the CPUs this process may use.
 *
 * Start-up and input scan large host arrays (a grid file's corners, a
 * forcing record's values) one value at a time; a rank that has several cores
 * (mpirun --bind-to none, srun --cpus-per-task) splits such a scan in bands,
 * each on a thread of its own. Whoever calls keeps the result independent of
 * the band count: each band works on its own range, and what the bands found
 * is combined in band order. */
#ifndef CRYO_THREADS_H
#define CRYO_THREADS_H

/* The CPUs of this process's affinity mask, from 1 to 64. */
int cryo_threads_available(void);

/* fn(arg, b) for every band b of [0, nband): band 0 on the calling thread,
 * the others each on a thread of its own (one whose thread cannot start runs
 * on the calling thread after band 0); returns when every band has
 * finished. */
void cryo_threads_run(int nband, void (*fn)(void *arg, int band), void *arg);

#endif
