/* Multigrid preconditioner for the Newton systems of the first-order Stokes
 * velocity (docs/landice.md, Multigrid).
 *
 * The thin direction is left to the smoother and the horizontal to the
 * hierarchy. Every level keeps all nz + 1 node levels of its columns and
 * relaxes a whole node column at once: block Gauss-Seidel by columns, each
 * column's block-tridiagonal system solved exactly, which removes the strong
 * vertical coupling that makes a thin ice domain anisotropic (line relaxation
 * in the strongly coupled direction with coarsening in the others:
 * Trottenberg, Oosterlee and Schueller 2001, Multigrid, Academic Press,
 * section 5.1). The structured horizontal grid is halved in x and in y, each
 * while it has at least 4 cells (and keeps an even count where periodic),
 * down to 2 or 3 cells a side. Interpolation P is bilinear in the horizontal and the
 * identity in the vertical; the coarse operators are Galerkin products
 * P^T A P, so every boundary condition, sliding law, ice-free column and
 * floating shelf reaches the coarse levels through the assembled fine matrix
 * alone. The unit rows of fixed fine dofs (cryo_landice_dirichlet) are left
 * out of the products: a coarse dof that interpolates only to fixed dofs gets
 * a zero row and stays zero (landice_column_factor).
 *
 * Columns are relaxed in four colours, the parities of their global indices
 * (i, j): columns of one colour share no matrix entry, so a colour is relaxed
 * in parallel with a result independent of thread order and decomposition.
 * The V-cycle relaxes forward (colours 0..3) before the coarse correction and
 * backward (3..0) after it, and the coarsest level runs symmetric sweeps from
 * zero, so the cycle is a symmetric positive definite operator: a valid
 * preconditioner for conjugate gradients.
 *
 * Levels are distributed like the grid: each rank coarsens its own block and
 * keeps its neighbours (cryo_comm_ops.halo_block), which needs block edges on
 * multiples of 2^l cells at level l (cryo_landice_mg_units). Where a
 * decomposition does not align, the hierarchy stops at the last level on which
 * every rank does. Row sums follow a fixed order of global offsets, and rows on
 * a block edge are computed alike by both blocks, so the iterates are the same
 * bits for any aligned decomposition.
 */
#include <stddef.h>

#include "cryo_error.h"
#include "landice_column.h"

/* Symmetric sweeps (forward and backward) on the coarsest level. */
#define MG_COARSE_SWEEPS 4

/* Horizontal halvings of a direction of n cells: while n >= 4 and, where
 * periodic, while the halved count is even too: a periodic level closes on
 * itself, and only an even count keeps the column colours alternating across
 * the seam. */
static int mg_halvings(int n, int periodic) {
  int h = 0;
  while (n >= 4 && (!periodic || n % 4 == 0) && h < CRYO_LANDICE_MG_MAX_LEVELS - 1) {
    n = (n + 1) / 2;
    ++h;
  }
  return h;
}

void cryo_landice_mg_units(int nx_global, int ny_global, int periodic_x, int periodic_y,
                           int *unit_x, int *unit_y) {
  *unit_x = 1 << mg_halvings(nx_global, periodic_x);
  *unit_y = 1 << mg_halvings(ny_global, periodic_y);
}

/* Block of level l in one direction: fine block (i0, n) of a grid of ng cells
 * after h halvings; 0 where the block's edges are not on multiples of 2^h. */
static int mg_span(int i0, int n, int ng, int h, int *i0_l, int *n_l, int *ng_l) {
  const int f = 1 << h;
  *ng_l = (ng + f - 1) / f;
  if (i0 % f || (i0 + n != ng && (i0 + n) % f)) return 0;
  *i0_l = i0 / f;
  *n_l = (i0 + n == ng ? *ng_l : (i0 + n) / f) - *i0_l;
  return 1;
}

/* The levels on which block b nests: 1 + the halvings after which its edges
 * still fall on multiples of the coarse cells (or the domain's end). */
static int mg_nesting(const cryo_block *b) {
  const int hx = mg_halvings(b->nx_global, b->periodic_x);
  const int hy = mg_halvings(b->ny_global, b->periodic_y);
  const int top = (hx > hy ? hx : hy) + 1;
  int i0, n, ng;
  for (int l = 1; l < top; ++l) {
    const int fx = l < hx ? l : hx, fy = l < hy ? l : hy;
    if (!mg_span(b->i0, b->nx, b->nx_global, fx, &i0, &n, &ng) ||
        !mg_span(b->j0, b->ny, b->ny_global, fy, &i0, &n, &ng))
      return l;
  }
  return top;
}

/* The hierarchy of block b (levels, blocks, halvings) and, from base (NULL:
 * sizes only), its arrays; returns the values it takes. Levels below
 * `split` are distributed (this rank's block coarsened), levels from
 * `split` on are whole on every rank (agglomerated). Level 0's matrix,
 * pivots, x and rhs are the caller's. */
static long mg_layout(const cryo_block *b, int nz, int split, double *base, cryo_landice_mg *mg) {
  const int hx = mg_halvings(b->nx_global, b->periodic_x);
  const int hy = mg_halvings(b->ny_global, b->periodic_y);
  const int nlev = 2 * (nz + 1);
  const int top = (hx > hy ? hx : hy) + 1;
  long used = 0;
  mg->levels = top;
  mg->split = split < top ? split : top;
  mg->block[0] = *b;
  for (int l = 0; l < top; ++l) {
    cryo_block *bl = &mg->block[l];
    mg->coarsen_x[l] = l + 1 < top && l < hx;
    mg->coarsen_y[l] = l + 1 < top && l < hy;
    if (l > 0) {
      const int fx = l < hx ? l : hx, fy = l < hy ? l : hy;
      *bl = *b;
      if (l >= mg->split) bl->i0 = bl->j0 = 0, bl->nx = b->nx_global, bl->ny = b->ny_global;
      mg_span(bl->i0, bl->nx, b->nx_global, fx, &bl->i0, &bl->nx, &bl->nx_global);
      mg_span(bl->j0, bl->ny, b->ny_global, fy, &bl->j0, &bl->ny, &bl->ny_global);
      bl->dx = b->dx * (1 << fx);
      bl->dy = b->dy * (1 << fy);
    }
    const long nn = CRYO_NNODE(bl);
    double *at = base ? base + used : NULL;
    if (l == 0) {
      mg->res[0] = at;
      mg->mask = at ? at + nn * nlev : NULL;
      used += 2 * nn * nlev;
      continue;
    }
    mg->matrix[l] = at;
    mg->pc[l] = at ? at + nn * 108L * (nz + 1) : NULL;
    mg->x[l] = at ? at + nn * 112L * (nz + 1) : NULL;
    mg->rhs[l] = at ? at + nn * (112L * (nz + 1) + nlev) : NULL;
    mg->res[l] = at ? at + nn * (112L * (nz + 1) + 2 * nlev) : NULL;
    used += nn * (112L * (nz + 1) + 3 * nlev);
  }
  return used;
}

int cryo_landice_mg_nesting(const cryo_block *b) {
  return mg_nesting(b);
}

long cryo_landice_mg_doubles(const cryo_block *b, const cryo_landice_params *p, int split) {
  if (p->preconditioner != CRYO_LANDICE_PC_MULTIGRID) return 0;
  cryo_landice_mg mg;
  return mg_layout(b, p->n_layers, split, NULL, &mg);
}

/* Launch arguments of one level (and the next coarser one) for the no-map
 * launches of kernels/cryo_acc.h: one struct for every multigrid kernel, so
 * that it is copied to the device only when the cycle moves to another level. */
typedef struct {
  double *matrix, *pc, *x, *rhs, *res;
  const double *mask; /* level 0: 1 for a free dof, 0 for a fixed one; NULL above */
  double *matrix_c, *x_c, *rhs_c;
  long nz, nx, ny, i0, j0, nxg, nyg, px, py;
  long ilo, ihi, jlo, jhi; /* existing nodes (landice_span) */
  long wrap_x, wrap_y;     /* the block is the whole periodic direction: read across the seam */
  long nx_c, ny_c, i0_c, j0_c, cx, cy;     /* coarser block; cx, cy: halved */
  long own_ilo, own_ihi, own_jlo, own_jhi; /* coarse rows this rank computes; others are 0 */
  long first_x[2], count_x[2];             /* node rows [0, nx] of each parity */
  long first_y[2], count_y[2];
} mg_args;

#if defined(_OPENACC)
static mg_args mg_dev;
CRYO_DEVICE_ARGS(mg_dev)
#define MG_SET(own)  cryo_device_args_acquire(&mg_dev, (own), sizeof *(own))
#define MG_ARGS(own) (&mg_dev)
#define MG_DONE      cryo_device_args_release()
#else
/* Without OpenACC the loops read the caller's struct: host threads may
 * solve different blocks at once (kernels/landice_solver_impl.h, launch arguments). */
#define MG_SET(own)  ((void)0)
#define MG_ARGS(own) (own)
#define MG_DONE      ((void)0)
#endif

/* One block holds the whole level (one rank): its halo would only repeat
 * its own nodes across a periodic seam, so the kernels read them there
 * directly and the cycle makes no halo exchange (each costs several launches
 * of the pack kernels). */
static int mg_whole(const cryo_block *b) {
  return b->nx == b->nx_global && b->ny == b->ny_global;
}

/* Coarse rows [lo, hi] (global) of a direction whose fine block (i0, n) of
 * ng cells owns them: coarse node I where fine node 2I (halved) or I (kept)
 * is one of its cells, and the last coarse node on the block that ends the
 * domain. */
static void mg_owned_rows(int i0, int n, int ng, long c, long *lo, long *hi) {
  *lo = c ? (i0 + 1) / 2 : i0;
  *hi = c ? (i0 + n + 1) / 2 - 1 : i0 + n - 1;
  if (i0 + n == ng) *hi = c ? (ng + 1) / 2 : ng;
}

static mg_args mg_args_make(const cryo_landice_mg *mg, int nz, int l, const double *rhs0,
                            double *x0) {
  const cryo_block *b = &mg->block[l];
  const landice_span sp = landice_span_make(b);
  mg_args a = {0};
  a.matrix = mg->matrix[l];
  a.pc = mg->pc[l];
  a.x = l == 0 ? x0 : mg->x[l];
  a.rhs = l == 0 ? (double *)rhs0 : mg->rhs[l];
  a.res = mg->res[l];
  a.mask = l == 0 ? mg->mask : NULL;
  a.nz = nz;
  a.nx = b->nx;
  a.ny = b->ny;
  a.i0 = b->i0;
  a.j0 = b->j0;
  a.nxg = b->nx_global;
  a.nyg = b->ny_global;
  a.px = b->periodic_x;
  a.py = b->periodic_y;
  a.ilo = sp.ilo;
  a.ihi = sp.ihi;
  a.jlo = sp.jlo;
  a.jhi = sp.jhi;
  a.wrap_x = mg_whole(b) && b->periodic_x;
  a.wrap_y = mg_whole(b) && b->periodic_y;
  for (int c = 0; c < 2; ++c) {
    a.first_x[c] = ((c - b->i0) % 2 + 2) % 2;
    a.count_x[c] = a.first_x[c] > b->nx ? 0 : (b->nx - a.first_x[c]) / 2 + 1;
    a.first_y[c] = ((c - b->j0) % 2 + 2) % 2;
    a.count_y[c] = a.first_y[c] > b->ny ? 0 : (b->ny - a.first_y[c]) / 2 + 1;
  }
  if (l + 1 < mg->levels) {
    const cryo_block *c = &mg->block[l + 1];
    a.matrix_c = mg->matrix[l + 1];
    a.x_c = mg->x[l + 1];
    a.rhs_c = mg->rhs[l + 1];
    a.nx_c = c->nx;
    a.ny_c = c->ny;
    a.i0_c = c->i0;
    a.j0_c = c->j0;
    a.cx = mg->coarsen_x[l];
    a.cy = mg->coarsen_y[l];
    a.own_ilo = c->i0, a.own_ihi = c->i0 + c->nx, a.own_jlo = c->j0, a.own_jhi = c->j0 + c->ny;
    if (l + 1 == mg->split) {
      /* agglomeration: the coarse rows whose fine node 2I (or I) this block
       * owns, the domain's last node on the last block; all ranks together
       * compute each row once, and an exact sum gathers them */
      mg_owned_rows(b->i0, b->nx, b->nx_global, a.cx, &a.own_ilo, &a.own_ihi);
      mg_owned_rows(b->j0, b->ny, b->ny_global, a.cy, &a.own_jlo, &a.own_jhi);
    }
  }
  return a;
}

/* Interpolation weight of coarse node gc at fine node gf along a direction
 * of nf fine cells, halved (c) or kept. Fine node 2I is coarse node I and an
 * odd node lies halfway between two, except the last node of an odd count,
 * which is the last coarse node: the coarse grid of n cells has ceil(n / 2).
 * Where periodic the indices are not wrapped: they are positions relative to
 * one another (a node two cells away on a 2-cell ring is another neighbour
 * than the node beside it, though both are the same node). */
CRYO_LANDICE_ROUTINE
static inline double mg_weight(long gf, long gc, long nf, long c, long periodic) {
  if (!periodic && (gf < 0 || gf > nf || gc < 0 || gc > (c ? (nf + 1) / 2 : nf))) return 0.0;
  if (!c) return gf == gc ? 1.0 : 0.0;
  if (!periodic && gf == nf && nf % 2) return gc == (nf + 1) / 2 ? 1.0 : 0.0;
  const long d = gf - 2 * gc;
  return d == 0 ? 1.0 : (d == 1 || d == -1) ? 0.5 : 0.0;
}

/* Local node index l in [-1, n + 1] of a block that is the whole periodic
 * direction of n cells, moved across the seam to [0, n]. */
CRYO_LANDICE_ROUTINE
static inline long mg_wrap(long l, long n, long wrap) {
  return !wrap ? l : l < 0 ? l + n : l > n ? l - n : l;
}

/* (A x) at row (i, j, k) of the level: landice_row_product, with the
 * neighbours across a periodic seam read in place where the block is the
 * whole level (wrap_x, wrap_y) instead of from the halo. */
CRYO_LANDICE_ROUTINE
static inline __attribute__((always_inline)) void
mg_row_product(const mg_args *g, const double *row, long i, long j, int k, double out[2]) {
  const int nz = (int)g->nz, nlev = 2 * (nz + 1);
  const long stride = g->nx + 3;
  double yu = 0.0, yv = 0.0;
  for (int nb = 0; nb < 27; ++nb) {
    const long ii = i + nb % 3 - 1, jj = j + (nb / 3) % 3 - 1;
    const int kk = k + nb / 9 - 1;
    if (kk < 0 || kk > nz || ii < g->ilo || ii > g->ihi || jj < g->jlo || jj > g->jhi) continue;
    const double *xv =
        g->x +
        ((mg_wrap(jj, g->ny, g->wrap_y) + 1) * stride + mg_wrap(ii, g->nx, g->wrap_x) + 1) * nlev +
        2 * kk;
    yu += row[4 * nb] * xv[0] + row[4 * nb + 1] * xv[1];
    yv += row[4 * nb + 2] * xv[0] + row[4 * nb + 3] * xv[1];
  }
  out[0] = yu;
  out[1] = yv;
}

/* mask = 0 for the dofs whose row is a unit row (fixed by
 * cryo_landice_dirichlet: diagonal 1, every other entry 0), 1 otherwise;
 * every node, halo included (the matrix halo is filled). */
static void mg_mask(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < (MG_ARGS(own)->nx + 3) * (MG_ARGS(own)->ny + 3); ++e) {
    const mg_args *g = MG_ARGS(own);
    const int nz = (int)g->nz, nlev = 2 * (nz + 1);
    for (int k = 0; k <= nz; ++k) {
      const double *row = g->matrix + e * 108L * (nz + 1) + 108L * k;
      for (int c = 0; c < 2; ++c) {
        int unit = row[4 * 13 + 3 * c] == 1.0;
        for (int q = 0; q < 54 && unit; ++q)
          if (q != 26 + c && row[4 * (q / 2) + 2 * c + q % 2] != 0.0) unit = 0;
        ((double *)g->mask)[e * nlev + 2 * k + c] = unit ? 0.0 : 1.0;
      }
    }
  }
  MG_DONE;
}

/* Coarse matrix entry block (I, J, k, nb) of P^T A P: one thread each, the
 * fine rows of the restriction and their neighbours in a fixed order. The
 * fine matrix's halo is filled; rows [0, nx_c] x [0, ny_c]. */
static void mg_galerkin(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0;
       e < (MG_ARGS(own)->nx_c + 1) * (MG_ARGS(own)->ny_c + 1) * (MG_ARGS(own)->nz + 1) * 27; ++e) {
    const mg_args *g = MG_ARGS(own);
    const int nz = (int)g->nz, nb = (int)(e % 27);
    const long t = e / 27, k = t % (nz + 1), node = t / (nz + 1);
    const long I = node % (g->nx_c + 1), J = node / (g->nx_c + 1);
    const long di = nb % 3 - 1, dj = (nb / 3) % 3 - 1, dk = nb / 9 - 1;
    const long gi = g->i0_c + I, gj = g->j0_c + J;
    const long ri = g->cx ? 1 : 0, rj = g->cy ? 1 : 0;
    const int own = gi >= g->own_ilo && gi <= g->own_ihi && gj >= g->own_jlo && gj <= g->own_jhi;
    double a00 = 0.0, a01 = 0.0, a10 = 0.0, a11 = 0.0;
    for (long ra = -ri; own && ra <= ri && k + dk >= 0 && k + dk <= nz; ++ra) {
      const long fa = (g->cx ? 2 * gi : gi) + ra;
      const double wa = mg_weight(fa, gi, g->nxg, g->cx, g->px);
      if (wa == 0.0) continue;
      for (long rb = -rj; rb <= rj; ++rb) {
        const long fb = (g->cy ? 2 * gj : gj) + rb;
        const double wb = mg_weight(fb, gj, g->nyg, g->cy, g->py);
        if (wb == 0.0) continue;
        const long fnode = (mg_wrap(fb - g->j0, g->ny, g->wrap_y) + 1) * (g->nx + 3) +
                           mg_wrap(fa - g->i0, g->nx, g->wrap_x) + 1;
        const double *row = g->matrix + fnode * 108L * (nz + 1) + 108L * k;
        const double m0 = g->mask ? g->mask[fnode * 2 * (nz + 1) + 2 * k] : 1.0;
        const double m1 = g->mask ? g->mask[fnode * 2 * (nz + 1) + 2 * k + 1] : 1.0;
        for (int da = -1; da <= 1; ++da) {
          const double pa = mg_weight(fa + da, gi + di, g->nxg, g->cx, g->px);
          if (pa == 0.0) continue;
          for (int db = -1; db <= 1; ++db) {
            const double pb = mg_weight(fb + db, gj + dj, g->nyg, g->cy, g->py);
            if (pb == 0.0) continue;
            const double w = wa * wb * pa * pb;
            const double *blk = row + 4 * ((dk + 1) * 9 + (db + 1) * 3 + (da + 1));
            a00 += w * m0 * blk[0];
            a01 += w * m0 * blk[1];
            a10 += w * m1 * blk[2];
            a11 += w * m1 * blk[3];
          }
        }
      }
    }
    double *out =
        g->matrix_c + ((J + 1) * (g->nx_c + 3) + I + 1) * 108L * (nz + 1) + 108L * k + 4 * nb;
    out[0] = a00;
    out[1] = a01;
    out[2] = a10;
    out[3] = a11;
  }
  MG_DONE;
}

/* Column pivots of a coarse level, rows [0, nx] x [0, ny]. */
static void mg_factor(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < (MG_ARGS(own)->nx + 1) * (MG_ARGS(own)->ny + 1); ++e) {
    const mg_args *g = MG_ARGS(own);
    const int nz = (int)g->nz;
    const long node = (e / (g->nx + 1) + 1) * (g->nx + 3) + e % (g->nx + 1) + 1;
    landice_column_factor(nz, g->matrix + node * 108L * (nz + 1), g->pc + node * 4L * (nz + 1));
  }
  MG_DONE;
}

/* x = 0 on every node, halo included. */
static void mg_zero(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < (MG_ARGS(own)->nx + 3) * (MG_ARGS(own)->ny + 3) * 2 * (MG_ARGS(own)->nz + 1);
       ++e)
    MG_ARGS(own)->x[e] = 0.0;
  MG_DONE;
}

/* res = rhs - A x at row (i, j, k) (local, rows [0, nx] x [0, ny]). */
CRYO_LANDICE_ROUTINE
static inline __attribute__((always_inline)) void mg_row_residual(const mg_args *g, long i, long j,
                                                                  int k) {
  const int nz = (int)g->nz, nlev = 2 * (nz + 1);
  const long node = (j + 1) * (g->nx + 3) + i + 1;
  double ax[2];
  mg_row_product(g, g->matrix + node * 108L * (nz + 1) + 108L * k, i, j, k, ax);
  g->res[node * nlev + 2 * k] = g->rhs[node * nlev + 2 * k] - ax[0];
  g->res[node * nlev + 2 * k + 1] = g->rhs[node * nlev + 2 * k + 1] - ax[1];
}

/* Block Gauss-Seidel on the node columns of parity (PX, PY) of the global
 * column indices, x += M^-1 (rhs - A x) per column with M the column's own
 * blocks, in two launches: the residual with one thread per row (column and
 * level: a column's 27-block rows walked by one thread took the latency of
 * hundreds of dependent loads per launch), then the column solve in place
 * in res, one thread per column, and the update of x. */
#define MG_SMOOTH_COLOUR(PX, PY)                                                                   \
  static void mg_smooth_##PX##PY(const mg_args *own) {                                             \
    MG_SET(own);                                                                                   \
    CRYO_DEVICE_LOOP_NOMAP                                                                         \
    for (long e = 0;                                                                               \
         e < MG_ARGS(own)->count_x[PX] * MG_ARGS(own)->count_y[PY] * (MG_ARGS(own)->nz + 1);       \
         ++e) {                                                                                    \
      const mg_args *g = MG_ARGS(own);                                                             \
      const long col = e / (g->nz + 1);                                                            \
      mg_row_residual(g, g->first_x[PX] + 2 * (col % g->count_x[PX]),                              \
                      g->first_y[PY] + 2 * (col / g->count_x[PX]), (int)(e % (g->nz + 1)));        \
    }                                                                                              \
    CRYO_DEVICE_LOOP_NOMAP                                                                         \
    for (long e = 0; e < MG_ARGS(own)->count_x[PX] * MG_ARGS(own)->count_y[PY]; ++e) {             \
      const mg_args *g = MG_ARGS(own);                                                             \
      const int nz = (int)g->nz, nlev = 2 * (nz + 1);                                              \
      const long i = g->first_x[PX] + 2 * (e % g->count_x[PX]);                                    \
      const long j = g->first_y[PY] + 2 * (e / g->count_x[PX]);                                    \
      const long node = (j + 1) * (g->nx + 3) + i + 1;                                             \
      double *r = g->res + node * nlev;                                                            \
      landice_column_solve(nz, g->matrix + node * 108L * (nz + 1), g->pc + node * 4L * (nz + 1),   \
                           r, r);                                                                  \
      for (int q = 0; q < nlev; ++q)                                                               \
        g->x[node * nlev + q] += r[q];                                                             \
    }                                                                                              \
    MG_DONE;                                                                                       \
  }
MG_SMOOTH_COLOUR(0, 0)
MG_SMOOTH_COLOUR(1, 0)
MG_SMOOTH_COLOUR(0, 1)
MG_SMOOTH_COLOUR(1, 1)

/* res = rhs - A x, rows [0, nx] x [0, ny], one thread per row. */
static void mg_residual(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < (MG_ARGS(own)->nx + 1) * (MG_ARGS(own)->ny + 1) * (MG_ARGS(own)->nz + 1);
       ++e) {
    const mg_args *g = MG_ARGS(own);
    const long node = e / (g->nz + 1);
    mg_row_residual(g, node % (g->nx + 1), node / (g->nx + 1), (int)(e % (g->nz + 1)));
  }
  MG_DONE;
}

/* rhs_c = P^T res on coarse rows [0, nx_c] x [0, ny_c] (res halo filled), one
 * thread per coarse value. */
static void mg_restrict(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0;
       e < (MG_ARGS(own)->nx_c + 1) * (MG_ARGS(own)->ny_c + 1) * 2 * (MG_ARGS(own)->nz + 1); ++e) {
    const mg_args *g = MG_ARGS(own);
    const int nlev = 2 * ((int)g->nz + 1), q = (int)(e % nlev);
    const long node = e / nlev, I = node % (g->nx_c + 1), J = node / (g->nx_c + 1);
    const long gi = g->i0_c + I, gj = g->j0_c + J;
    const long ri = g->cx ? 1 : 0, rj = g->cy ? 1 : 0;
    const int own = gi >= g->own_ilo && gi <= g->own_ihi && gj >= g->own_jlo && gj <= g->own_jhi;
    double sum = 0.0;
    for (long ra = -ri; own && ra <= ri; ++ra) {
      const long fa = (g->cx ? 2 * gi : gi) + ra;
      const double wa = mg_weight(fa, gi, g->nxg, g->cx, g->px);
      if (wa == 0.0) continue;
      for (long rb = -rj; rb <= rj; ++rb) {
        const long fb = (g->cy ? 2 * gj : gj) + rb;
        const double w = wa * mg_weight(fb, gj, g->nyg, g->cy, g->py);
        if (w == 0.0) continue;
        sum += w * g->res[((mg_wrap(fb - g->j0, g->ny, g->wrap_y) + 1) * (g->nx + 3) +
                           mg_wrap(fa - g->i0, g->nx, g->wrap_x) + 1) *
                              nlev +
                          q];
      }
    }
    g->rhs_c[((J + 1) * (g->nx_c + 3) + I + 1) * nlev + q] = sum;
  }
  MG_DONE;
}

/* x += P x_c on fine rows [0, nx] x [0, ny], one thread per value, fixed
 * dofs of level 0 left at zero: the smoother would set them back only to
 * within a rounding of the pivot (a3 / a3), and a wall's normal velocity must
 * stay exactly zero. */
static void mg_prolong(const mg_args *own) {
  MG_SET(own);
  CRYO_DEVICE_LOOP_NOMAP
  for (long e = 0; e < (MG_ARGS(own)->nx + 1) * (MG_ARGS(own)->ny + 1) * 2 * (MG_ARGS(own)->nz + 1);
       ++e) {
    const mg_args *g = MG_ARGS(own);
    const int nlev = 2 * ((int)g->nz + 1), q = (int)(e % nlev);
    const long n = e / nlev, i = n % (g->nx + 1), j = n / (g->nx + 1);
    const long node = (j + 1) * (g->nx + 3) + i + 1;
    if (g->mask && g->mask[node * nlev + q] == 0.0) continue;
    const long fa = g->i0 + i, fb = g->j0 + j;
    const long ca = g->cx ? fa / 2 : fa, cb = g->cy ? fb / 2 : fb;
    double sum = 0.0;
    for (long sa = 0; sa <= (g->cx ? 1 : 0); ++sa) {
      const double wa = mg_weight(fa, ca + sa, g->nxg, g->cx, g->px);
      if (wa == 0.0) continue;
      for (long sb = 0; sb <= (g->cy ? 1 : 0); ++sb) {
        const double w = wa * mg_weight(fb, cb + sb, g->nyg, g->cy, g->py);
        if (w == 0.0) continue;
        sum += w *
               g->x_c[((cb + sb - g->j0_c + 1) * (g->nx_c + 3) + ca + sa - g->i0_c + 1) * nlev + q];
      }
    }
    g->x[node * nlev + q] += sum;
  }
  MG_DONE;
}

/* The halo of f within the cycle: none where one block is the whole level
 * (its kernels read across the seams themselves). */
static int mg_halo(const cryo_comm_ops *ops, const cryo_block *b, int nlev, double *f) {
  double *fields[1] = {f};
  if (mg_whole(b)) return CRYO_OK;
  return ops->halo_block(ops->ctx, b, CRYO_AT_NODE, nlev, 1, fields);
}

/* The halo of a level's matrix rows for the Galerkin product: none where
 * one block is the whole level (the product reads across the seam). */
static int mg_halo_matrix(const cryo_comm_ops *ops, const cryo_block *b, int nz, double *m) {
  double *fields[1] = {m};
  if (mg_whole(b)) return CRYO_OK;
  return ops->halo_block(ops->ctx, b, CRYO_AT_NODE, 108 * (nz + 1), 1, fields);
}

int cryo_landice_mg_setup(const cryo_block *b, const cryo_landice_params *p,
                          const cryo_landice_state *s, const cryo_comm_ops *ops,
                          cryo_landice_mg *mg, cryo_err *err) {
  const int nz = p->n_layers;
  CRYO_CHECK(s->mg, err, CRYO_ERR_ARG,
             "land-ice multigrid: no level arrays (state member mg, cryo_landice_mg_doubles)");
  CRYO_CHECK(ops->halo_block, err, CRYO_ERR_ARG,
             "land-ice multigrid: the communication services have no halo_block for coarse levels");
  /* levels are distributed down to where the first rank's block stops
   * nesting, whole on every rank below: the same hierarchy for any
   * decomposition */
  double nesting = -(double)mg_nesting(b);
  CRYO_CALL(ops->max_double(ops->ctx, &nesting, 1));
  mg_layout(b, nz, (int)-nesting, s->mg, mg);
  CRYO_CHECK(mg->split >= mg->levels || ops->sum_exact, err, CRYO_ERR_ARG,
             "land-ice multigrid: the blocks do not nest on every level and the communication "
             "services have no sum_exact to gather the coarse levels");
  mg->matrix[0] = s->matrix;
  mg->pc[0] = s->pc;
  mg->x[0] = mg->rhs[0] = NULL;
  for (int l = 0; l + 1 < mg->levels; ++l) {
    CRYO_CALL(mg_halo_matrix(ops, &mg->block[l], nz, mg->matrix[l]));
    mg_args a = mg_args_make(mg, nz, l, NULL, NULL);
    if (l == 0) mg_mask(&a);
    mg_galerkin(&a);
    if (l + 1 == mg->split) {
      CRYO_DEVICE_WAIT;
      CRYO_CALL(ops->sum_exact(ops->ctx, mg->matrix[l + 1],
                               CRYO_NNODE(&mg->block[l + 1]) * 108L * (nz + 1)));
    }
    mg_args c = mg_args_make(mg, nz, l + 1, NULL, NULL);
    mg_factor(&c);
  }
  CRYO_DEVICE_WAIT;
  return CRYO_OK;
}

/* One colour sweep of level l in the given order, the halo of x refreshed
 * after each colour (the next colour reads it). */
static int mg_sweep(const cryo_landice_mg *mg, const cryo_comm_ops *ops, const mg_args *a, int l,
                    int backward) {
  static void (*const colours[4])(const mg_args *) = {mg_smooth_00, mg_smooth_10, mg_smooth_01,
                                                      mg_smooth_11};
  const int nlev = 2 * ((int)a->nz + 1);
  for (int q = 0; q < 4; ++q) {
    colours[backward ? 3 - q : q](a);
    CRYO_CALL(mg_halo(ops, &mg->block[l], nlev, a->x));
  }
  return CRYO_OK;
}

static int mg_cycle(const cryo_landice_mg *mg, const cryo_landice_params *p,
                    const cryo_comm_ops *ops, int l, const double *rhs, double *x) {
  const int nz = p->n_layers, nlev = 2 * (nz + 1);
  const mg_args a = mg_args_make(mg, nz, l, rhs, x);
  mg_zero(&a);
  if (l + 1 == mg->levels) {
    for (int sweep = 0; sweep < MG_COARSE_SWEEPS; ++sweep) {
      CRYO_CALL(mg_sweep(mg, ops, &a, l, 0));
      CRYO_CALL(mg_sweep(mg, ops, &a, l, 1));
    }
    return CRYO_OK;
  }
  CRYO_CALL(mg_sweep(mg, ops, &a, l, 0));
  mg_residual(&a);
  CRYO_CALL(mg_halo(ops, &mg->block[l], nlev, a.res));
  mg_restrict(&a);
  if (l + 1 == mg->split) {
    CRYO_DEVICE_WAIT;
    CRYO_CALL(ops->sum_exact(ops->ctx, mg->rhs[l + 1], CRYO_NNODE(&mg->block[l + 1]) * nlev));
  }
  CRYO_CALL(mg_cycle(mg, p, ops, l + 1, NULL, NULL));
  mg_prolong(&a);
  CRYO_CALL(mg_halo(ops, &mg->block[l], nlev, a.x));
  return mg_sweep(mg, ops, &a, l, 1);
}

int cryo_landice_mg_apply(const cryo_landice_mg *mg, const cryo_landice_params *p,
                          const cryo_comm_ops *ops, const double *rhs, double *x) {
  return mg_cycle(mg, p, ops, 0, rhs, x);
}
