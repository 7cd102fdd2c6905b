#!/usr/bin/env python3
"""Mean and maximum shear rate and damage of the BBM cyclone, neXtSIM-DG's and cryodyn's.

    bbm_compare.py [--nextsimdg-nc FILE --nextsimdg-init INIT.nc] [--cryodyn OUT.nc]
                   [--times 24 48] [--header] [--png PNG]

Prints one CSV row per model and time, with the columns of
docs/seaice_bbm_nextsimdg.csv:

    model,resolution,time_h,shear_mean,shear_max,damage_mean,damage_max

The statistics are over the ice-covered cells (concentration above
--min-conc, default 0.1: neXtSIM-DG's BBM treats a cell with A <= 0.1 as
open water). The shear rate (s-1) is sqrt((u_x - v_y)^2 + (u_y + v_x)^2);
the damage d is 0 for intact ice (docs/seaice_bbm_reference.md):

- neXtSIM-DG writes a NetCDF diagnostic file (group `data`, time in
  seconds since 1970) with the cell means of u, v, cice and damage, and
  neither the grid nor the land mask, which come from its initial file
  (--nextsimdg-init). Its `damage` is the undamaged fraction: d = 1 -
  damage. It writes no strain rate: the shear is taken at each inner cell
  corner from the cell-mean velocities of the four cells around it
  (centred differences), where all four are ice.
- cryodyn writes `shear` at the cell centre (docs/seaice.md, Diagnostics
  and coupling fields); the damage and concentration variables are named
  with --damage-var and --conc-var. A variable with a `level` dimension is
  read at level 0 (the cell mean). --damage-var none leaves the damage
  columns as nan (a run without BBM).

--png draws log10 of the shear of each model (rows) at each time (columns).
Needs numpy and netCDF4 (and matplotlib for --png). Exits 1 with
"bbm_compare: error: ..." naming the file, variable or record that is
missing or malformed.
"""
import argparse
import math
import os
import sys

import numpy as np

COLUMNS = "model,resolution,time_h,shear_mean,shear_max,damage_mean,damage_max"
# Shear rates below this are drawn at the floor of the log scale (s-1), as in examples/plot_shear.py.
SHEAR_FLOOR = 1e-12
# A cryodyn record matches a requested time within this many seconds.
TIME_TOLERANCE = 1.0


def fail(msg):
    sys.exit("bbm_compare: error: " + msg)


def cryodyn_var(path, nc, name, k):
    if name not in nc.variables:
        fail("%s: no variable '%s' (have: %s)" % (path, name, ", ".join(sorted(nc.variables))))
    var = nc.variables[name]
    var.set_auto_mask(False)
    dims = var.dimensions
    if dims == ("time", "y", "x"):
        return np.asarray(var[k], dtype=float)
    if dims == ("time", "level", "y", "x"):
        return np.asarray(var[k, 0], dtype=float)
    fail("%s: '%s' has dimensions %s, expected (time, y, x) or (time, level, y, x)" % (path, name, dims))


def cryodyn_fields(args, hours):
    """cryodyn's (x, y, shear, damage, conc) on (y, x) at `hours`."""
    try:
        from netCDF4 import Dataset
    except ImportError:
        fail("the Python module netCDF4 is missing (Debian: python3-netcdf4)")
    path = args.cryodyn
    if not os.path.isfile(path):
        fail("%s: no such file" % path)
    with Dataset(path) as nc:
        for name in ("x", "y", "time"):
            if name not in nc.variables:
                fail("%s: no variable '%s' (a cryodyn sea-ice output file?)" % (path, name))
        t = np.asarray(nc.variables["time"][:], dtype=float)
        hit = np.nonzero(np.abs(t - hours * 3600.0) <= TIME_TOLERANCE)[0]
        if hit.size == 0:
            fail("%s: no record at %g h (records at %s h)" % (path, hours, ", ".join("%g" % (s / 3600.0) for s in t)))
        k = int(hit[0])
        x = np.asarray(nc.variables["x"][:], dtype=float)
        y = np.asarray(nc.variables["y"][:], dtype=float)
        conc = cryodyn_var(path, nc, args.conc_var, k)
        if args.cryodyn_shear == "corners":
            shear = cryodyn_corner_shear(path, nc, k, x, y, conc > args.min_conc)
        else:
            shear = cryodyn_var(path, nc, args.shear_var, k)
        if args.damage_var == "none":
            damage = np.full(shear.shape, np.nan)
        else:
            damage = cryodyn_var(path, nc, args.damage_var, k)
    return x, y, shear, damage, conc


def cryodyn_corner_shear(path, nc, k, x, y, ice):
    """cryodyn's shear made as neXtSIM-DG's is measured: from cell-mean velocities, at inner corners.

    Returned on the cells (y, x) for the rows and figure: each inner corner's value goes to the cell
    above and right of it; the first row and column, and corners not surrounded by ice, are nan.
    """
    for name in ("u", "v"):
        if name not in nc.variables or nc.variables[name].dimensions != ("time", "y_node", "x_node"):
            fail("%s: --cryodyn-shear corners needs '%s' on (time, y_node, x_node)" % (path, name))
    un = np.asarray(nc.variables["u"][k], dtype=float)
    vn = np.asarray(nc.variables["v"][k], dtype=float)
    uc = 0.25 * (un[:-1, :-1] + un[1:, :-1] + un[:-1, 1:] + un[1:, 1:])
    vc = 0.25 * (vn[:-1, :-1] + vn[1:, :-1] + vn[:-1, 1:] + vn[1:, 1:])
    shear, corner_ice = corner_shear(uc, vc, x[1] - x[0], y[1] - y[0], ice)
    cells = np.full(uc.shape, np.nan)
    cells[1:, 1:] = np.where(corner_ice, shear, np.nan)
    return cells


def resolution(x):
    """The cell size of a uniform axis of cell centres, e.g. '8 km'."""
    if x.size < 2:
        fail("fewer than 2 cells along x: no resolution")
    return "%g km" % (round((x[1] - x[0]) / 1000.0, 6))


def row(model, res, hours, s, d):
    """One CSV row from the shear and damage values of the ice-covered points."""
    if s.size == 0 or d.size == 0:
        fail("%s at %g h: no ice-covered cell" % (model, hours))
    if not np.all(np.isfinite(s)):
        print("bbm_compare: warning: %s at %g h: non-finite shear in %d ice cells"
              % (model, hours, int(np.sum(~np.isfinite(s)))), file=sys.stderr)
    return "%s,%s,%g,%.4e,%.4e,%.4e,%.4e" % (model, res, hours, s.mean(), s.max(), d.mean(), d.max())


def cell_rows(get):
    """A field reader that returns (x, y, shear, damage, conc) on cells, as the row source."""

    def source(args, hours, label):
        x, y, shear, damage, conc = get(args, hours)
        ice = conc > args.min_conc
        measured = ice & ~np.isnan(shear) if args.cryodyn_shear == "corners" else ice
        return row(label, resolution(x), hours, shear[measured], damage[ice]), (x, y, shear)

    return source


def corner_shear(u, v, dx, dy, ice):
    """Shear rate at the inner cell corners from cell-mean velocities (y, x), and where all 4 cells are ice."""
    ux = (u[1:, 1:] - u[1:, :-1] + u[:-1, 1:] - u[:-1, :-1]) / (2.0 * dx)
    vx = (v[1:, 1:] - v[1:, :-1] + v[:-1, 1:] - v[:-1, :-1]) / (2.0 * dx)
    uy = (u[1:, 1:] - u[:-1, 1:] + u[1:, :-1] - u[:-1, :-1]) / (2.0 * dy)
    vy = (v[1:, 1:] - v[:-1, 1:] + v[1:, :-1] - v[:-1, :-1]) / (2.0 * dy)
    return np.sqrt((ux - vy) ** 2 + (uy + vx) ** 2), ice[1:, 1:] & ice[1:, :-1] & ice[:-1, 1:] & ice[:-1, :-1]


def nextsimdg_grid(args, shape):
    """The vertex coordinates and land mask of neXtSIM-DG's grid, from its initial file.

    Its diagnostic files hold neither; its land cells carry values that are not ice.
    """
    from netCDF4 import Dataset

    path = args.nextsimdg_init
    if not path:
        fail("--nextsimdg-nc needs --nextsimdg-init INIT.nc, the model's initial file (grid and land mask)")
    if not os.path.isfile(path):
        fail("%s: no such file" % path)
    with Dataset(path) as nc:
        g = nc.groups["data"] if "data" in nc.groups else nc
        for name in ("coords", "mask"):
            if name not in g.variables:
                fail("%s: no variable '%s' (a neXtSIM-DG initial file?)" % (path, name))
        coords = np.asarray(g.variables["coords"][:], dtype=float)
        mask = np.asarray(g.variables["mask"][:], dtype=float) > 0.5
    if mask.shape != shape or coords.shape != (shape[0] + 1, shape[1] + 1, 2):
        fail("%s: grid of %s cells, the output has %s" % (path, "x".join(map(str, mask.shape)), "x".join(map(str, shape))))
    return coords, mask


def nextsimdg_nc_source(args, hours, label):
    """A row of neXtSIM-DG's NetCDF output (the model since 2023) and its shear on the cell corners.

    Its velocity output is the cell mean of the CG velocity; the shear is taken at each inner cell
    corner from the four cells around it (centred differences over one cell), counted where all four
    are ice. Its `damage` field is the undamaged fraction: the damage reported is 1 - damage.
    """
    from datetime import datetime

    try:
        from netCDF4 import Dataset
    except ImportError:
        fail("the Python module netCDF4 is missing (Debian: python3-netcdf4)")
    path = args.nextsimdg_nc
    if not os.path.isfile(path):
        fail("%s: no such file" % path)
    try:
        start = datetime.strptime(args.nextsimdg_start, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        fail("--nextsimdg-start %s: expected YYYY-MM-DDThh:mm:ssZ" % args.nextsimdg_start)
    epoch = (start - datetime(1970, 1, 1)).total_seconds()
    with Dataset(path) as nc:
        g = nc.groups["data"] if "data" in nc.groups else nc
        for name in ("time", "u", "v", "damage", "cice"):
            if name not in g.variables:
                fail("%s: no variable '%s' in %s (a neXtSIM-DG diagnostic file with u, v, cice, damage?)"
                     % (path, name, g.path))
        t = np.asarray(g.variables["time"][:], dtype=float) - epoch
        hit = np.nonzero(np.abs(t - hours * 3600.0) <= TIME_TOLERANCE)[0]
        if hit.size == 0:
            fail("%s: no record at %g h after %s (records at %s h)"
                 % (path, hours, args.nextsimdg_start, ", ".join("%g" % (s / 3600.0) for s in t)))
        k = int(hit[0])

        def cells(name):
            a = np.ma.filled(np.ma.asarray(g.variables[name][k], dtype=float), np.nan)
            return a[..., 0] if a.ndim == 3 else a  # dG fields: coefficient 0, the cell mean

        u, v, conc, intact = cells("u"), cells("v"), cells("cice"), cells("damage")
    coords, mask = nextsimdg_grid(args, u.shape)
    dx = coords[0, 1, 0] - coords[0, 0, 0]
    dy = coords[1, 0, 1] - coords[0, 0, 1]
    ice = mask & (conc > args.min_conc)
    shear, corner_ice = corner_shear(u, v, dx, dy, ice)
    res = "%g km" % round(dx / 1000.0, 6)
    xc = dx * np.arange(1, u.shape[1])
    yc = dy * np.arange(1, u.shape[0])
    return row(label, res, hours, shear[corner_ice], 1.0 - intact[ice]), (xc, yc, np.where(corner_ice, shear, np.nan))


def draw(path, panels, hours_list, vmin, vmax):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(p[0] for p in panels))
    fig, axes = plt.subplots(len(models), len(hours_list), figsize=(4.2 * len(hours_list), 3.8 * len(models)),
                             squeeze=False, constrained_layout=True)
    mesh = None
    for model, hours, x, y, shear in panels:
        ax = axes[models.index(model)][hours_list.index(hours)]
        dx, dy = x[1] - x[0], y[1] - y[0]
        xe = np.append(x - dx / 2, x[-1] + dx / 2) / 1000.0
        ye = np.append(y - dy / 2, y[-1] + dy / 2) / 1000.0
        field = np.log10(np.maximum(np.nan_to_num(shear, nan=0.0), SHEAR_FLOOR))
        mesh = ax.pcolormesh(xe, ye, field, vmin=vmin, vmax=vmax, cmap="viridis", shading="flat")
        ax.set_aspect("equal")
        ax.set_title("%s, %s, %g h" % (model, resolution(x), hours))
        ax.set_xlabel("x (km)")
        ax.set_ylabel("y (km)")
    fig.colorbar(mesh, ax=axes, shrink=0.8, label="log10 shear rate (s-1)")
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description="BBM cyclone: mean and maximum shear and damage, neXtSIM-DG and cryodyn.")
    ap.add_argument("--nextsimdg-label", default="neXtSIM-DG", help="model column of its rows")
    ap.add_argument("--nextsimdg-nc", metavar="FILE", help="neXtSIM-DG diagnostic NetCDF file (u, v, cice, damage)")
    ap.add_argument("--nextsimdg-init", metavar="INIT.nc", help="its initial file: grid and land mask")
    ap.add_argument("--nextsimdg-start", default="2023-01-01T00:00:00Z", help="its model start (config [model] start)")
    ap.add_argument("--cryodyn", metavar="OUT.nc", help="cryodyn sea-ice output file")
    ap.add_argument("--cryodyn-label", default="cryodyn", help="model column of its rows")
    ap.add_argument("--shear-var", default="shear", help="cryodyn's shear-rate variable")
    ap.add_argument("--cryodyn-shear", choices=("cells", "corners"), default="cells",
                    help="cryodyn's shear: its cell-centre variable, or from u, v as neXtSIM-DG's is measured")
    ap.add_argument("--damage-var", default="damage", help="cryodyn's damage variable, or none")
    ap.add_argument("--conc-var", default="a", help="cryodyn's concentration variable")
    ap.add_argument("--times", type=float, nargs="+", default=[24.0, 48.0], help="hours since the start")
    ap.add_argument("--min-conc", type=float, default=0.1, help="cells above this concentration are ice")
    ap.add_argument("--header", action="store_true", help="print the column names first")
    ap.add_argument("--png", help="draw log10 shear of each model and time into this PNG")
    ap.add_argument("--vmin", type=float, default=-8.0, help="log10 shear at the colour floor")
    ap.add_argument("--vmax", type=float, default=-4.5, help="log10 shear at the colour top")
    args = ap.parse_args()
    if not (args.nextsimdg_nc or args.cryodyn):
        fail("give --nextsimdg-nc FILE, --cryodyn OUT.nc or both")
    if not (0.0 <= args.min_conc < 1.0) or math.isnan(args.min_conc):
        fail("--min-conc %g must be in [0, 1)" % args.min_conc)

    rows, panels = [], []
    for given, label, source in ((args.nextsimdg_nc, args.nextsimdg_label, nextsimdg_nc_source),
                                 (args.cryodyn, args.cryodyn_label, cell_rows(cryodyn_fields))):
        if not given:
            continue
        for hours in args.times:
            text, (x, y, shear) = source(args, hours, label)
            rows.append(text)
            panels.append((label, hours, x, y, shear))
    if args.header:
        print(COLUMNS)
    print("\n".join(rows))
    if args.png:
        draw(args.png, panels, list(args.times), args.vmin, args.vmax)


if __name__ == "__main__":
    main()
