#!/usr/bin/env python3
"""Quick-look maps of the Arctic case (docs/arctic.md): for each chosen output
record, ice thickness and ice speed on the polar stereographic map with the
land mask, and drift vectors (every few nodes) on both.

  plot_arctic.py OUTPUT.nc [--grid GRID.nc] [--day D ...] [--out-dir DIR]
                 [--every N] [--coarsen N]

Positions come from the grid file (its cell corners lon_bnds, lat_bnds, placed
on the map by scripts/make_arctic.py's projection), so the output needs only
u, v (nodes, m s-1) and h (cells, m). The vectors are the output's u_east,
v_north where it has them, else its u, v along the grid directions (e1 along
the grid lines of constant j, e2 = e1 turned by +90 degrees), turned onto the
map with the directions of the grid lines there. The grid file defaults to
the namelist's grid_file (the output's global attribute `namelist`), beside
the output file. PNGs: DIR/<output name>_dayDD.png (default DIR: the output's folder).
Grids finer than a PNG's pixels (the 2 km grid, 3750 cells across) are drawn
in blocks of N x N cells (--coarsen, by default enough for at most 750 blocks
across): a block shows the mean of its ocean cells, and is land when most of
it is.

Needs numpy, matplotlib (Agg) and netCDF4 (Debian: python3-numpy,
python3-matplotlib, python3-netcdf4); no map library.
"""
import argparse
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import netCDF4  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from make_arctic import east_north, forward  # noqa: E402


def grid_path(out, given):
    """The grid file: --grid, else the namelist's grid_file beside the output."""
    if given:
        return given
    text = getattr(out, "namelist", "")
    m = re.search(r"grid_file\s*=\s*['\"]([^'\"]+)['\"]", text, re.IGNORECASE)
    if not m:
        sys.exit("plot_arctic: the output names no grid_file: give --grid")
    path = m.group(1)
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(os.path.abspath(out.filepath())), path)
    return path


def nodes_of(bnds):
    """Node values (ny + 1, nx + 1) from cell corners (ny, nx, 4),
    counterclockwise from the lower-left corner."""
    ny, nx, _ = bnds.shape
    n = np.empty((ny + 1, nx + 1))
    n[:ny, :nx] = bnds[:, :, 0]
    n[:ny, nx] = bnds[:, nx - 1, 1]
    n[ny, nx] = bnds[ny - 1, nx - 1, 2]
    n[ny, :nx] = bnds[ny - 1, :, 3]
    return n


def read_grid(path):
    """Map positions of the nodes, node longitudes, cell mask (1 ocean)."""
    with netCDF4.Dataset(path) as g:
        lon_n = nodes_of(np.asarray(g["lon_bnds"][:], dtype=float))
        lat_n = nodes_of(np.asarray(g["lat_bnds"][:], dtype=float))
        lat_c = np.asarray(g["lat"][:], dtype=float)
        lon_c = np.asarray(g["lon"][:], dtype=float)
        mask = np.asarray(g["mask"][:]) if "mask" in g.variables else np.ones(lat_c.shape)
    x, y = forward(lon_n, lat_n)
    return x, y, lon_n, lon_c, lat_c, mask


def grid_directions(x, y):
    """Unit vectors e1 (along i) of the nodes on the map: centred differences
    of the node positions, one-sided at the edges."""
    gx, gy = np.gradient(x, axis=1), np.gradient(y, axis=1)
    norm = np.hypot(gx, gy)
    return gx / norm, gy / norm


def map_velocity(out, rec, x, y, lon_n):
    """Map components (m s-1) of the ice velocity at the nodes of record rec."""
    if "u_east" in out.variables and "v_north" in out.variables:
        ue = np.asarray(out["u_east"][rec], dtype=float)
        vn = np.asarray(out["v_north"][rec], dtype=float)
        ex, ey, nx_, ny_ = east_north(lon_n)
        return ue * ex + vn * nx_, ue * ey + vn * ny_
    u = np.asarray(out["u"][rec], dtype=float)
    v = np.asarray(out["v"][rec], dtype=float)
    e1x, e1y = grid_directions(x, y)
    return u * e1x - v * e1y, u * e1y + v * e1x


def coarsen(field, mask, n):
    """Blocks of n x n cells of a cell field (trailing rows and columns that
    fill no block dropped): the mean over each block's ocean cells, masked
    where less than half of the block is ocean; n = 1 leaves the field."""
    if n == 1:
        return field
    ny, nx = (d // n * n for d in mask.shape)
    m = np.asarray(mask[:ny, :nx], dtype=float).reshape(ny // n, n, nx // n, n)
    f = np.ma.filled(field[:ny, :nx], 0.0).reshape(ny // n, n, nx // n, n)
    ocean = m.sum(axis=(1, 3))
    mean = (f * m).sum(axis=(1, 3)) / np.maximum(ocean, 1.0)
    return np.ma.masked_where(ocean < 0.5 * n * n, mean)


def plot_record(out, rec, grid, every, path, block=1):
    x, y, lon_n, lon_c, lat_c, mask = grid
    day = float(out["time"][rec]) / 86400.0
    h = np.ma.masked_where(mask < 0.5, np.asarray(out["h"][rec], dtype=float))
    ux, uy = map_velocity(out, rec, x, y, lon_n)
    speed = np.hypot(ux, uy)
    xc, yc = forward(lon_c, lat_c)
    land = np.ma.masked_where(mask > 0.5, np.ones(mask.shape))
    km = 1e-3
    s = (slice(None, None, every), slice(None, None, every))
    moving = speed[s] > 0
    vmax = max(float(speed.max()), 1e-3)

    fig, axes = plt.subplots(1, 2, figsize=(15, 7.2), constrained_layout=True)
    # the speed of a cell: the mean of its 4 nodes' speeds
    speed_c = 0.25 * (speed[:-1, :-1] + speed[:-1, 1:] + speed[1:, :-1] + speed[1:, 1:])
    speed_c = np.ma.masked_where(mask < 0.5, speed_c * 100)
    panels = ((h, "thickness (m)", "viridis", "white"), (speed_c, "ice speed (cm/s)", "magma_r", "black"))
    # the corners of the blocks drawn, and where most of a block is land
    nodes = (slice(0, mask.shape[0] // block * block + 1, block),
             slice(0, mask.shape[1] // block * block + 1, block))
    land = coarsen(land, 1 - mask, block) if block > 1 else land
    for ax, (field, label, cmap, arrows) in zip(axes, panels):
        ax.pcolormesh(x[nodes] * km, y[nodes] * km, land, cmap="Greys", vmin=0, vmax=1.6,
                      shading="flat")
        pc = ax.pcolormesh(x[nodes] * km, y[nodes] * km, coarsen(field, mask, block), cmap=cmap,
                           shading="flat")
        fig.colorbar(pc, ax=ax, shrink=0.85, label=label)
        q = ax.quiver((x * km)[s][moving], (y * km)[s][moving], ux[s][moving], uy[s][moving],
                      angles="xy", scale_units="width", scale=vmax * 25, width=0.0022,
                      color=arrows)
        ax.quiverkey(q, 0.85, 1.02, round(vmax, 2), f"{round(vmax, 2)} m/s", labelpos="E")
        centres = (slice(None, None, block), slice(None, None, block))
        ax.contour(xc[centres] * km, yc[centres] * km, lat_c[centres], levels=[60, 70, 80],
                   colors="0.5", linewidths=0.5)
        ax.set_aspect("equal")
        ax.set_xlabel("x (km, polar stereographic, 45 E to the right)")
        ax.set_ylabel("y (km)")
    axes[0].set_title(f"Arctic sea ice, day {day:g}: thickness and drift")
    axes[1].set_title(f"day {day:g}: ice speed, max {speed.max() * 100:.1f} cm/s")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return day, float(speed.max()), float(h.min()), float(h.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output", help="cryodyn output NetCDF")
    ap.add_argument("--grid", help="grid file (default: the namelist's grid_file)")
    ap.add_argument("--day", type=float, action="append",
                    help="model day of a record to draw (repeatable; default: the last)")
    ap.add_argument("--every", type=int, default=0,
                    help="draw a vector every N nodes (default: about 30 across)")
    ap.add_argument("--coarsen", type=int, default=0,
                    help="draw blocks of N x N cells (default: at most 750 blocks across)")
    ap.add_argument("--out-dir", help="folder of the PNGs (default: the output's)")
    args = ap.parse_args()
    with netCDF4.Dataset(args.output) as out:
        grid = read_grid(grid_path(out, args.grid))
        days = np.asarray(out["time"][:], dtype=float) / 86400.0
        if len(days) == 0:
            sys.exit(f"plot_arctic: {args.output} has no record")
        recs = [len(days) - 1]
        if args.day:
            recs = []
            for d in args.day:
                k = int(np.argmin(np.abs(days - d)))
                if abs(days[k] - d) > 1e-6:
                    sys.exit(f"plot_arctic: no record at day {d:g} (records: "
                             f"{', '.join(f'{t:g}' for t in days)})")
                recs.append(k)
        every = args.every or max(1, grid[0].shape[1] // 30)
        block = args.coarsen or -(-(grid[0].shape[1] - 1) // 750)
        out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.output))
        stem = os.path.splitext(os.path.basename(args.output))[0]
        for k in recs:
            d = days[k]
            label = f"{d:02.0f}" if d == round(d) else f"{d:05.2f}"
            path = os.path.join(out_dir, f"{stem}_day{label}.png")
            day, vmax, hmin, hmax = plot_record(out, k, grid, every, path, block)
            print(f"plot_arctic: {path}: day {day:g}, max ice speed {vmax:.4f} m/s, "
                  f"thickness {hmin:.3f} to {hmax:.3f} m")


if __name__ == "__main__":
    main()
