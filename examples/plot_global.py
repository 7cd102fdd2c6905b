#!/usr/bin/env python3
"""Maps of the global case (docs/global.md): ice thickness and ice speed of one
output record around both poles, each on a polar stereographic map.

  plot_global.py OUTPUT.nc GRID.nc PNG [--record K] [--edge LAT]

Cells are drawn from the grid file's corners (lon_bnds, lat_bnds) and land
from its mask, so the output needs only h, a (cells) and u, v (nodes, m s-1:
the speed does not depend on the frame of the components). The speed of a
cell is the mean of its four nodes' speeds; open water (a < 0.01) is white. Each hemisphere is drawn poleward
of |latitude| = LAT (default 50). Needs numpy, matplotlib (Agg) and netCDF4;
no map library.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import netCDF4  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

R_EARTH = 6371.0e3


def stereographic(lon, lat, pole):
    """Polar stereographic x, y (km) around the north (pole = 1) or south
    (pole = -1) pole, true at the pole, 0 degrees of longitude pointing down
    in the north and up in the south."""
    colat = np.radians(90.0 - pole * lat)
    r = 2.0 * R_EARTH * np.tan(colat / 2.0) / 1.0e3
    lam = np.radians(lon)
    return r * np.sin(lam), -pole * r * np.cos(lam)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("grid")
    ap.add_argument("png")
    ap.add_argument("--record", type=int, default=-1, help="output record (default: the last)")
    ap.add_argument("--edge", type=float, default=50.0, help="drawn poleward of this |latitude|")
    args = ap.parse_args()

    with netCDF4.Dataset(args.output) as out:
        h = np.asarray(out["h"][args.record], dtype=float)
        a = np.asarray(out["a"][args.record], dtype=float)
        u = np.asarray(out["u"][args.record], dtype=float)
        v = np.asarray(out["v"][args.record], dtype=float)
        days = float(out["time"][args.record]) / 86400.0
    with netCDF4.Dataset(args.grid) as grid:
        lon_b = np.asarray(grid["lon_bnds"][:], dtype=float)
        lat_b = np.asarray(grid["lat_bnds"][:], dtype=float)
        ocean = np.asarray(grid["mask"][:]) > 0
    if h.shape != ocean.shape or u.shape != (h.shape[0] + 1, h.shape[1] + 1):
        raise SystemExit(f"plot_global: {args.output}: h {h.shape} and u {u.shape} do not fit "
                         f"the grid's {ocean.shape} cells")
    node_speed = np.hypot(u, v)
    speed = 0.25 * (node_speed[:-1, :-1] + node_speed[1:, :-1] + node_speed[:-1, 1:]
                    + node_speed[1:, 1:])
    fields = ((h, "ice thickness (m)", "viridis", 0.0, max(3.0, float(np.nanmax(h[ocean])))),
              (speed, "ice speed (m/s)", "magma", 0.0, 0.25))
    lat_c = lat_b.mean(axis=-1)
    ice = ocean & (a >= 0.01)

    fig, axes = plt.subplots(2, 2, figsize=(11, 10.5))
    for row, (pole, name) in enumerate(((1, "Arctic"), (-1, "Antarctic"))):
        near = pole * lat_c > args.edge
        x, y = stereographic(lon_b[near], lat_b[near], pole)
        # cells across the seam or holding the pole span the whole map: leave them out
        span = np.hypot(x.max(axis=-1) - x.min(axis=-1), y.max(axis=-1) - y.min(axis=-1))
        keep = span < 1000.0
        x, y = x[keep], y[keep]
        polys = np.stack([x, y], axis=-1)
        for col, (field, label, cmap, lo, hi) in enumerate(fields):
            ax = axes[row, col]
            values = field[near][keep]
            wet = ocean[near][keep]
            iced = ice[near][keep]
            land = PolyCollection(polys[~wet], facecolors="0.7", linewidths=0, antialiased=False)
            sea = PolyCollection(polys[iced], array=values[iced], cmap=cmap, linewidths=0,
                                 antialiased=False)
            sea.set_clim(lo, hi)
            ax.add_collection(land)
            ax.add_collection(sea)
            lim = 2.0 * R_EARTH * np.tan(np.radians(90.0 - args.edge) / 2.0) / 1.0e3
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{name}: {label}")
            fig.colorbar(sea, ax=ax, shrink=0.8)
    fig.suptitle(f"cryodyn global case, day {days:g}")
    fig.tight_layout()
    fig.savefig(args.png, dpi=90)
    print(f"plot_global: wrote {args.png}")


if __name__ == "__main__":
    main()
