/* Icebergs (docs/landice.md, Margins): marine ice that nothing holds. The
 * velocity problem of a floating body that touches neither the bed nor a
 * closed domain edge has rigid motions of zero energy, so its Jacobian is
 * singular (the solve would stop in CG). Such bodies are removed before the
 * solve and counted as calving in the budget.
 *
 * A column holds itself when it carries ice (thk >= min_thickness) and its
 * bed is partly grounded (grounded fraction > 0: friction acts there) or it
 * lies on a non-periodic global edge with lateral Dirichlet or free-slip
 * conditions (a body touching only one free-slip wall keeps a sliding mode;
 * it is kept all the same, and the solve names the cause if it fails). Hold
 * spreads between ice columns that share a node (elements couple through
 * their nodes, so diagonal neighbours count), one ring of columns per
 * sweep, until no column changes anywhere: the set is the columns connected
 * to a holding one, whatever the decomposition, and the sweeps read one
 * array and write another, so the result is the same bits on any number of
 * ranks and threads. */
#include "cryo_error.h"
#include "landice_element.h"

/* Every cell of the padded array: 1 where the column holds itself, else 0
 * (ghost cells included, so that those beyond a global edge are 0). */
static void landice_hold_seed(const cryo_block *b, const cryo_landice_params *p, const double *thk,
                              const double *gfrac, double *held) {
  const int nx = b->nx, ny = b->ny, cs = b->nx + 2, i0 = b->i0, j0 = b->j0;
  const int nxg = b->nx_global, nyg = b->ny_global, px = b->periodic_x, py = b->periodic_y;
  const int walls = p->lateral_bc == CRYO_LANDICE_LATERAL_DIRICHLET ||
                    p->lateral_bc == CRYO_LANDICE_LATERAL_FREE_SLIP;
  const double hmin = p->min_thickness;
  const long n = (long)cs * (b->ny + 2);
  CRYO_DEVICE_LOOP((thk, gfrac, held))
  for (long c = 0; c < n; ++c) {
    int i = (int)(c % cs) - 1, j = (int)(c / cs) - 1;
    int gi = i0 + i, gj = j0 + j;
    int owned = i >= 0 && i < nx && j >= 0 && j < ny;
    int edge = (!px && (gi == 0 || gi == nxg - 1)) || (!py && (gj == 0 || gj == nyg - 1));
    held[c] = owned && thk[c] >= hmin && (gfrac[c] > 0.0 || (walls && edge)) ? 1.0 : 0.0;
  }
}

/* One sweep over the owned cells: next = held, or 1 where an ice column
 * shares a node with a held column. Returns 1 if some column became held. */
static double landice_hold_sweep(const cryo_block *b, const cryo_landice_params *p,
                                 const double *thk, const double *held, double *next) {
  const int nx = b->nx, cs = b->nx + 2, i0 = b->i0, j0 = b->j0;
  const int nxg = b->nx_global, nyg = b->ny_global, px = b->periodic_x, py = b->periodic_y;
  const double hmin = p->min_thickness;
  const long n = (long)b->nx * b->ny;
  double grew = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((thk, held, next), max, grew)
  for (long e = 0; e < n; ++e) {
    int i = (int)(e % nx), j = (int)(e / nx);
    long c = (long)(j + 1) * cs + (i + 1);
    double h = held[c];
    if (h == 0.0 && thk[c] >= hmin)
      for (int q = 0; q < 9; ++q) {
        int di = q % 3 - 1, dj = q / 3 - 1;
        if (landice_column_exists(i0 + i + di, j0 + j + dj, nxg, nyg, px, py) &&
            held[c + (long)dj * cs + di] > 0.0)
          h = 1.0;
      }
    next[c] = h;
    grew = fmax(grew, h - held[c]);
  }
  return grew;
}

/* Remove the ice columns that are not held: their thickness goes to the
 * calving term of the budget. Returns the number of columns removed. */
static double landice_hold_remove(const cryo_block *b, const cryo_landice_params *p,
                                  const double *held, double *thk, double *budget) {
  const int nx = b->nx, cs = b->nx + 2;
  const double hmin = p->min_thickness;
  const long n = (long)b->nx * b->ny;
  double count = 0.0;
  CRYO_DEVICE_LOOP_REDUCE((held, thk, budget), +, count)
  for (long e = 0; e < n; ++e) {
    long c = (long)(e / nx + 1) * cs + (e % nx + 1);
    if (thk[c] >= hmin && held[c] == 0.0) {
      budget[c * CRYO_LANDICE_BUDGET_COUNT + CRYO_LANDICE_BUDGET_CALVING] += thk[c];
      thk[c] = 0.0;
      count += 1.0;
    }
  }
  return count;
}

int cryo_landice_remove_icebergs(const cryo_block *b, const cryo_landice_params *p,
                                 cryo_landice_state *s, const cryo_comm_ops *ops,
                                 long long *n_removed, int *n_sweeps, cryo_err *err) {
  if (n_removed) *n_removed = 0;
  if (n_sweeps) *n_sweeps = 0;
  /* land ice rests on its bed, and a no-slip bed holds every column */
  if (!p->marine || p->no_slip) return CRYO_OK;
  CRYO_CHECK(s->grounded_fraction && s->held && s->work_cell, err, CRYO_ERR_RANGE,
             "land-ice icebergs: the state lacks grounded_fraction, held or work_cell");
  cryo_landice_grounded_fraction(b, p, s->bed, s->thk_node, s->thk, s->grounded_fraction);
  landice_hold_seed(b, p, s->thk, s->grounded_fraction, s->held);
  double *cur = s->held, *next = s->work_cell;
  int sweeps = 0;
  for (;;) {
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, &cur));
    double grew = landice_hold_sweep(b, p, s->thk, cur, next);
    CRYO_CALL(ops->max_double(ops->ctx, &grew, 1));
    double *t = cur;
    cur = next;
    next = t;
    ++sweeps;
    if (grew == 0.0) break;
  }
  long long removed = (long long)landice_hold_remove(b, p, cur, s->thk, s->budget);
  CRYO_CALL(ops->sum_int64(ops->ctx, &removed, 1));
  if (removed) {
    double *f[1] = {s->thk};
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_CELL, 1, 1, f));
    cryo_landice_thickness_nodes(b, p, s->thk, s->bed, s->thk_node, s->usrf);
    double *g[2] = {s->thk_node, s->usrf};
    CRYO_CALL(ops->halo(ops->ctx, CRYO_AT_NODE, 1, 2, g));
    cryo_landice_grounded_fraction(b, p, s->bed, s->thk_node, s->thk, s->grounded_fraction);
  }
  if (n_removed) *n_removed = removed;
  if (n_sweeps) *n_sweeps = sweeps;
  return CRYO_OK;
}
