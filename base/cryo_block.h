/* What a kernel knows about the mesh: this rank's block of the global
 * logically rectangular grid, with one halo layer, and the callbacks through
 * which numerical drivers (mEVP step, Newton-Krylov) reach the component for
 * halo exchanges and global reductions. No MPI, no NetCDF here.
 *
 * Index conventions (i along x, j along y; halo width 1):
 *   cells  (i, j), i in [-1, nx],   j in [-1, ny]:   CRYO_CELL(b, i, j) = (j+1)*(nx+2) + (i+1)
 *   nodes  (i, j), i in [-1, nx+1], j in [-1, ny+1]: CRYO_NODE(b, i, j) = (j+1)*(nx+3) + (i+1)
 * Node (i, j) is the lower-left corner of cell (i, j); cell (i, j) has corners
 * (i,j), (i+1,j), (i,j+1), (i+1,j+1). A rank owns cells [0,nx) x [0,ny) and
 * computes nodes [0,nx] x [0,ny]; nodes on a block edge are computed by both
 * neighbours with identical arithmetic, so results do not depend on the
 * decomposition. Multi-level fields (dG coefficients, sigma levels, vector
 * components) store `nlev` values per cell or node, level fastest:
 * value(idx, k) = a[idx * nlev + k].
 */
#ifndef CRYO_BLOCK_H
#define CRYO_BLOCK_H

typedef struct cryo_block {
  int nx, ny; /* cells owned by this rank in x and y */
  int i0, j0; /* global index of this rank's first owned cell */
  int nx_global, ny_global;
  double dx, dy; /* cell size, m */
  int periodic_x, periodic_y;
  int fold; /* cryo_fold: how the top edge of a grid periodic in x folds onto itself */
} cryo_block;

#define CRYO_CELL(b, i, j) ((long)((j) + 1) * ((b)->nx + 2) + ((i) + 1))
#define CRYO_NODE(b, i, j) ((long)((j) + 1) * ((b)->nx + 3) + ((i) + 1))
#define CRYO_NCELL(b)      ((long)((b)->nx + 2) * ((b)->ny + 2))
#define CRYO_NNODE(b)      ((long)((b)->nx + 3) * ((b)->ny + 3))

typedef enum cryo_location { CRYO_AT_CELL = 0, CRYO_AT_NODE = 1 } cryo_location;

/* The north fold of a tripolar ocean grid (docs/design.md, Folded grids):
 * the top edge of a grid periodic in x folds onto itself, mirrored in i about
 * two pivots, cell centres (NEMO's T-point pivot: ORCA2, ORCA025) or nodes
 * (F-point pivot: ORCA1, ORCA12). */
typedef enum cryo_fold { CRYO_FOLD_NONE = 0, CRYO_FOLD_T = 1, CRYO_FOLD_F = 2 } cryo_fold;

/* Services the component lends to numerical drivers. Each returns a cryo_status. */
typedef struct cryo_comm_ops {
  void *ctx;
  /* Fill the halo of `nfield` device arrays at `loc`, each with `nlev` values
   * per cell or node (periodic wrap included where the block says so). */
  int (*halo)(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields);
  /* Replace vals[0..n) by their exact sums over all ranks (integer: exact,
   * hence independent of the decomposition). */
  int (*sum_int64)(void *ctx, long long *vals, int n);
  /* Replace vals[0..n) by their maxima over all ranks. */
  int (*max_double)(void *ctx, double *vals, int n);
  /* halo on another block of the same decomposition: the component's block
   * coarsened alike on every rank (a multigrid level; each rank keeps its
   * neighbours). NULL where the caller has no coarse levels to offer. */
  int (*halo_block)(void *ctx, const cryo_block *b, cryo_location loc, int nlev, int nfield,
                    double *const *fields);
  /* Replace the device array values[0..n) by its sum over all ranks where at
   * most one rank holds a non-zero value of each entry: that value's bits
   * (a gather of disjoint parts; the multigrid's agglomerated levels). NULL
   * where the caller cannot. */
  int (*sum_exact)(void *ctx, double *values, long n);
  /* halo, where level k of every field changes sign across a north fold
   * when sign[k] = -1 (a vector component in the grid frame, the slope of a
   * dG field; cryo_halo_exchange_signed); the same as halo without a fold.
   * NULL where the caller's grid cannot fold. */
  int (*halo_signed)(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields,
                     const int *sign);
  /* halo_signed in two halves, so that work which neither reads the halo nor
   * writes the points other ranks receive runs while the messages travel
   * (docs/multi-gpu.md, Overlap): halo_begin sends the lines that cross to
   * other ranks, which must be final when it is called; halo_end completes the
   * exchange, after which the halo holds what halo_signed would have left.
   * Nothing may touch the halo or the sent lines in between, and one exchange
   * is open at a time. Both NULL where the caller does not overlap (one rank,
   * or &cryo_run halo_overlap = 'no'): then use halo_signed. */
  int (*halo_begin)(void *ctx, cryo_location loc, int nlev, int nfield, double *const *fields,
                    const int *sign);
  int (*halo_end)(void *ctx);
} cryo_comm_ops;

#endif
