#!/usr/bin/env python3
"""Plot log10 of the sea-ice shear rate from a cryodyn output file.

    plot_shear.py OUT.nc PNG [--time HOURS ...] [--vmin V] [--vmax V]

OUT.nc is a sea-ice output file of cryodyn (component/cryo_output.c): the
cell-centred variable `shear` (s-1) on (time, y, x), coordinates x, y in m,
time in "seconds since <start>". Without --time the last record is drawn;
--time HOURS draws the record nearest to that time; several --time values
(e.g. --time 24 48) draw those records side by side with one colour bar, as
the Mehlmann et al. (2021) cyclone benchmark shows the shear after 1 and 2
days (docs/benchmarks.md). Cells with zero shear (land, or ice at rest)
are drawn at the lower end of the colour scale.

Needs numpy, matplotlib and netCDF4 (Debian: python3-numpy,
python3-matplotlib, python3-netcdf4). Exits 1 with "plot_shear: error: ..."
on a missing file, variable or record.
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend chosen first)
import numpy as np  # noqa: E402

try:
    import netCDF4
except ImportError:
    sys.exit("plot_shear: error: the Python module netCDF4 is missing "
             "(Debian: apt-get install python3-netcdf4)")

# Shear rates below this are drawn at the floor of the log scale (s-1): the
# benchmark's features span about 1e-8 to 1e-4 s-1.
SHEAR_FLOOR = 1e-12


def fail(msg):
    sys.exit("plot_shear: error: " + msg)


def read_output(path):
    """Return (x_km, y_km, time_s, shear[time, y, x])."""
    try:
        ds = netCDF4.Dataset(path)
    except (OSError, RuntimeError) as e:
        fail("cannot open %s: %s" % (path, e))
    with ds:
        for name in ("x", "y", "time", "shear"):
            if name not in ds.variables:
                fail("%s has no variable '%s' (is it a sea-ice output file?)" % (path, name))
        shear = ds.variables["shear"]
        shear.set_auto_mask(False)
        if shear.dimensions != ("time", "y", "x"):
            fail("%s: 'shear' has dimensions %s, expected (time, y, x)"
                 % (path, shear.dimensions))
        x = np.asarray(ds.variables["x"][:]) / 1e3
        y = np.asarray(ds.variables["y"][:]) / 1e3
        t = np.asarray(ds.variables["time"][:], dtype=float)
        if len(t) == 0:
            fail("%s has no output record" % path)
        return x, y, t, np.asarray(shear[:], dtype=float)


def pick_records(t, hours):
    """Indices of the records nearest to each requested time (last if none)."""
    if not hours:
        return [len(t) - 1]
    picks = []
    for h in hours:
        k = int(np.argmin(np.abs(t - h * 3600.0)))
        if abs(t[k] - h * 3600.0) > 1800.0:
            print("plot_shear: note: no record at %g h, using the nearest at %g h"
                  % (h, t[k] / 3600.0), file=sys.stderr)
        picks.append(k)
    return picks


def main():
    ap = argparse.ArgumentParser(description="Plot log10 sea-ice shear rate from cryodyn output.")
    ap.add_argument("ncfile", help="cryodyn sea-ice output (NetCDF)")
    ap.add_argument("png", help="PNG file to write")
    ap.add_argument("--time", type=float, action="append", metavar="HOURS",
                    help="record nearest to this time in hours (repeat for panels side by side)")
    ap.add_argument("--vmin", type=float, default=-8.0, help="log10 shear at the colour floor")
    ap.add_argument("--vmax", type=float, default=-4.5, help="log10 shear at the colour top")
    ap.add_argument("--title", default="", help="text put before the time in each panel title")
    args = ap.parse_args()

    x, y, t, shear = read_output(args.ncfile)
    picks = pick_records(t, args.time)
    n = len(picks)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n + 1.0, 5.0), squeeze=False,
                             constrained_layout=True)
    # Cell edges for pcolormesh: the coordinates are cell centres.
    dx = x[1] - x[0] if len(x) > 1 else 1.0
    dy = y[1] - y[0] if len(y) > 1 else 1.0
    xe = np.concatenate([x - dx / 2, [x[-1] + dx / 2]])
    ye = np.concatenate([y - dy / 2, [y[-1] + dy / 2]])
    mesh = None
    for ax, k in zip(axes[0], picks):
        field = np.log10(np.maximum(shear[k], SHEAR_FLOOR))
        mesh = ax.pcolormesh(xe, ye, field, vmin=args.vmin, vmax=args.vmax, cmap="viridis",
                             shading="flat")
        ax.set_aspect("equal")
        ax.set_xlabel("x (km)")
        ax.set_ylabel("y (km)")
        hours = t[k] / 3600.0
        when = "%g h" % hours if hours < 24 or hours % 24 else "day %g" % (hours / 24)
        ax.set_title("%slog10 shear rate, t = %s" % (args.title + ", " if args.title else "", when))
    fig.colorbar(mesh, ax=axes[0].tolist(), label="log10 shear rate (s$^{-1}$)", shrink=0.9)
    fig.savefig(args.png, dpi=120)
    for k in picks:
        print("plot_shear: %s record %d (t = %g h): max shear %.3e s-1 -> %s"
              % (args.ncfile, k, t[k] / 3600.0, shear[k].max(), args.png))


if __name__ == "__main__":
    main()
