#!/usr/bin/env python3
"""Surface velocity of ISMIP-HOM runs along y = L/4, one panel per L.

    plot_ismip.py PNG OUT_L5.nc OUT_L10.nc ... [--exp A|C]

Each OUT.nc is a land-ice output file of cryodyn (component/cryo_output.c,
component/cryo_landice.c): node variables u_surf, v_surf (m/a) on
(time, y_node, x_node) with coordinates x_node, y_node (m); the last record
holds the solved velocity. L is the extent of x_node. Pattyn et al. (2008,
The Cryosphere 2, 95-108) report the surface velocity along y = L/4 against
x/L: this script draws it in a grid of panels (PNG) and prints a table of
its maximum, minimum and mean for each L.

Needs numpy, matplotlib and netCDF4 (Debian: python3-numpy,
python3-matplotlib, python3-netcdf4). Exits 1 with "plot_ismip: error: ..."
on a missing file or variable.
"""
import argparse
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend chosen first)
import numpy as np  # noqa: E402

try:
    import netCDF4
except ImportError:
    sys.exit("plot_ismip: error: the Python module netCDF4 is missing "
             "(Debian: apt-get install python3-netcdf4)")


def fail(msg):
    sys.exit("plot_ismip: error: " + msg)


def profile(path):
    """Return (L in m, x/L, surface speed along y = L/4, y of the line in m)."""
    try:
        ds = netCDF4.Dataset(path)
    except (OSError, RuntimeError) as e:
        fail("cannot open %s: %s" % (path, e))
    with ds:
        for name in ("x_node", "y_node", "u_surf", "v_surf"):
            if name not in ds.variables:
                fail("%s has no variable '%s' (is it a land-ice output file?)" % (path, name))
        xn = np.asarray(ds["x_node"][:], dtype=float)
        yn = np.asarray(ds["y_node"][:], dtype=float)
        if ds["u_surf"].shape[0] < 1:
            fail("%s has no output record" % path)
        us = np.asarray(ds["u_surf"][-1], dtype=float)
        vs = np.asarray(ds["v_surf"][-1], dtype=float)
    length = xn[-1] - xn[0]
    j = int(np.argmin(np.abs(yn - (yn[0] + length / 4.0))))
    speed = np.hypot(us[j], vs[j])
    return length, (xn - xn[0]) / length, speed, yn[j]


def main():
    ap = argparse.ArgumentParser(description="Plot ISMIP-HOM surface speed along y = L/4.")
    ap.add_argument("png", help="PNG file to write")
    ap.add_argument("ncfiles", nargs="+", help="cryodyn land-ice outputs, one per L")
    ap.add_argument("--exp", default="", help="experiment letter for the titles (A or C)")
    args = ap.parse_args()

    runs = sorted((profile(p) + (p,) for p in args.ncfiles), key=lambda r: r[0])
    n = len(runs)
    cols = min(n, 3)
    rows = int(math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False,
                             constrained_layout=True)
    exp = ("ISMIP-HOM " + args.exp.upper() + ", ") if args.exp else ""
    print("%-8s %12s %12s %12s   %s" % ("L (km)", "max (m/a)", "min (m/a)", "mean (m/a)", "file"))
    for ax, (length, xl, speed, yline, path) in zip(axes.flat, runs):
        ax.plot(xl, speed, "o-", ms=3, lw=1.2)
        ax.set_title("%sL = %g km" % (exp, length / 1e3))
        ax.set_xlabel("x / L")
        ax.set_ylabel("surface speed (m/a)")
        ax.set_xlim(0, 1)
        ax.grid(True, alpha=0.3)
        # The periodic image x = L repeats x = 0: leave it out of the mean.
        print("%-8g %12.3f %12.3f %12.3f   %s (y = %g m)"
              % (length / 1e3, speed.max(), speed.min(), speed[:-1].mean(), path, yline))
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    fig.suptitle("%ssurface speed along y = L/4" % exp)
    fig.savefig(args.png, dpi=110)
    print("plot_ismip: wrote %s" % args.png)


if __name__ == "__main__":
    main()
