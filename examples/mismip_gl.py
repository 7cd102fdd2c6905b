#!/usr/bin/env python3
"""Grounded area and centreline grounding line of cryodyn MISMIP+ runs (docs/mismip.md).

For every time record of a cryodyn land-ice output file (marine run, so that
it holds `grounded_fraction`):
  grounded area  sum of grounded_fraction x cell area, km2, over the full
                 80 km width (doubled for a half-width run, --half or a
                 domain 40 km wide);
  x_GL           centreline (y = 40 km) grounding line, km: scanning from the
                 ice divide (x = 0) downstream, the first place where the
                 grounded fraction of the centre row falls below 0.5, by
                 linear interpolation between cell centres (--method
                 fraction, default), or where the flotation function
                 phi = rho H + rho_w (b - z_sl) of the cells changes sign
                 (--method flotation; b the mean of the 4 corner beds).
                 With an even number of rows the centreline is the line
                 between the two middle rows: their mean is used. Grounded
                 patches downstream of the first crossing (ice rises) do
                 not count.

  python3 examples/mismip_gl.py RUN.nc [RUN2.nc ...] --table
  python3 examples/mismip_gl.py mismip_ice1r.nc mismip_ice1ra.nc \\
      --plot gl.png --times 0 100 200

--plot draws the grounding lines (contour grounded_fraction = 0.5, or phi = 0
with --method flotation) at the requested times (nearest record, years;
times outside a file's records are skipped for that file) over the bed, as in the plan views of Cornford et al. (2020).

Needs numpy, netCDF4 and (for --plot) matplotlib.
"""

import argparse
import sys

import numpy as np

YEAR = 365.0 * 86400.0
LY = 80.0e3


def load(path, half=None, rho_ice=918.0, rho_water=1028.0, sea_level=0.0):
    from netCDF4 import Dataset

    with Dataset(path) as nc:
        for v in ("thk", "grounded_fraction", "topg", "x", "y", "time"):
            if v not in nc.variables:
                sys.exit(f"mismip_gl.py: {path} has no variable {v} (a marine land-ice run?)")
        r = {
            "path": path,
            "x": np.asarray(nc["x"][:], float),
            "y": np.asarray(nc["y"][:], float),
            "time": np.asarray(nc["time"][:], float) / YEAR,
            "thk": np.asarray(nc["thk"][:], float),
            "gf": np.asarray(nc["grounded_fraction"][:], float),
            "topg": np.asarray(nc["topg"][:], float),  # (time, y_node, x_node)
        }
    dx = r["x"][1] - r["x"][0]
    dy = r["y"][1] - r["y"][0] if r["y"].size > 1 else dx
    width = r["y"].size * dy
    r["half"] = half if half is not None else abs(width - LY / 2) < 0.5 * dy
    r["dx"], r["dy"] = dx, dy
    t = r["topg"]
    bed_cell = 0.25 * (t[:, :-1, :-1] + t[:, :-1, 1:] + t[:, 1:, :-1] + t[:, 1:, 1:])
    r["phi"] = rho_ice * r["thk"] + rho_water * (bed_cell - sea_level)
    return r


def centre_row(field, half):
    """Values along y = 40 km: the mirror row of a half run, else the middle."""
    ny = field.shape[-2]
    if half:
        return field[..., -1, :]
    if ny % 2:
        return field[..., ny // 2, :]
    return 0.5 * (field[..., ny // 2 - 1, :] + field[..., ny // 2, :])


def crossing(x, f, level):
    """First x where f (grounded at f >= level) drops below level; nan if none."""
    below = np.nonzero(f < level)[0]
    if below.size == 0 or below[0] == 0:
        return np.nan
    i = below[0]
    f0, f1 = f[i - 1], f[i]
    return x[i - 1] + (f0 - level) / (f0 - f1) * (x[i] - x[i - 1])


def diagnostics(r, method):
    area = r["gf"].sum(axis=(1, 2)) * r["dx"] * r["dy"] / 1e6
    if r["half"]:
        area = 2.0 * area
    if method == "fraction":
        prof, level = centre_row(r["gf"], r["half"]), 0.5
    else:
        prof, level = centre_row(r["phi"], r["half"]), 0.0
    xgl = np.array([crossing(r["x"], p, level) for p in prof]) / 1e3
    return area, xgl


def plot(runs, times, method, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 3.2))
    r0 = runs[0]
    xn = np.append(r0["x"] - r0["dx"] / 2, r0["x"][-1] + r0["dx"] / 2) / 1e3
    yn = np.append(r0["y"] - r0["dy"] / 2, r0["y"][-1] + r0["dy"] / 2) / 1e3
    pc = ax.pcolormesh(xn, yn, r0["topg"][0], cmap="terrain", vmin=-800, vmax=400,
                       shading="gouraud")
    fig.colorbar(pc, ax=ax, label="bed (m)")
    colours = plt.cm.plasma(np.linspace(0, 0.85, max(1, len(runs) * len(times))))
    k = 0
    for r in runs:
        field = r["gf"] if method == "fraction" else r["phi"]
        level = 0.5 if method == "fraction" else 0.0
        tt = r["time"]
        records = sorted({int(np.argmin(np.abs(tt - t))) for t in times
                          if tt.size and tt[0] - 0.5 <= t <= tt[-1] + 0.5})
        for n in records:
            cs = ax.contour(r["x"] / 1e3, r["y"] / 1e3, field[n], levels=[level],
                            colors=[colours[k]], linewidths=1.2)
            label = f"{r['path'].rsplit('/', 1)[-1].removesuffix('.nc')} t = {r['time'][n]:g} a"
            ax.plot([], [], color=colours[k], label=label)
            k += 1
            del cs
    ax.set_xlim(300, 640)
    ax.set_xlabel("x (km)")
    ax.set_ylabel("y (km)")
    ax.set_aspect("equal")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.4), ncol=3)
    ax.set_title("MISMIP+ grounding lines (" + ("grounded fraction 0.5" if method == "fraction"
                                                 else "flotation function 0") + ")")
    fig.savefig(out, dpi=130, bbox_inches="tight")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="cryodyn land-ice output files")
    ap.add_argument("--table", action="store_true", help="print time, area, x_GL per record")
    ap.add_argument("--last", action="store_true", help="print only the last record")
    ap.add_argument("--plot", metavar="PNG", help="draw grounding lines")
    ap.add_argument("--times", type=float, nargs="+", default=None,
                    help="times (a) to draw, nearest record (default: first and last)")
    ap.add_argument("--method", choices=("fraction", "flotation"), default="fraction")
    ap.add_argument("--half", action="store_true", default=None,
                    help="the run covers y in [0, 40 km] with a mirror at 40 km")
    ap.add_argument("--rho-ice", type=float, default=918.0)
    ap.add_argument("--rho-water", type=float, default=1028.0)
    a = ap.parse_args(argv)

    runs = [load(f, a.half, a.rho_ice, a.rho_water) for f in a.files]
    if a.table or a.last or not a.plot:
        print(f"{'file':<24} {'time (a)':>10} {'grounded area (km2)':>20} {'x_GL (km)':>10}")
        for r in runs:
            area, xgl = diagnostics(r, a.method)
            rows = range(len(area))[-1:] if a.last else range(len(area))
            name = r["path"].rsplit("/", 1)[-1]
            for n in rows:
                print(f"{name:<24} {r['time'][n]:10.2f} {area[n]:20.1f} {xgl[n]:10.2f}")
    if a.plot:
        times = a.times
        if times is None:
            times = sorted({runs[0]["time"][0], runs[-1]["time"][-1]})
        plot(runs, times, a.method, a.plot)
        print(f"wrote {a.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
