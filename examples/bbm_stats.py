#!/usr/bin/env python3
"""Shear and damage of a BBM cyclone run (docs/seaice.md, The BBM rheology).

    bbm_stats.py OUT.nc [--csv CSV] [--png PNG] [--hours 24 48]

OUT.nc is a sea-ice output file of cryodyn run with &cryo_seaice
rheology = 'bbm' (the cell-centred variables `shear`, s-1, and `damage`, 1,
on (time, y, x)). For each requested time (the record at that time, which
must exist) it prints, and writes to CSV as `name,value` rows, the mean and
the maximum of the shear rate and of the damage over the cells with ice
(shear_mean_24h, shear_max_24h, damage_mean_24h, damage_max_24h, ... in
s-1 and 1), and the fraction of the ice-covered area that holds half of the
total shear (lkf_area_half_24h, ...): linear kinematic features put most of
the deformation into a few cells, a smooth field needs about a third of them
or more. With --png it draws log10 of the shear rate and the damage at those
times, one row each.

Exits 1 with "bbm_stats: error: ..." on a missing file, variable or record.
"""
import argparse
import sys

import numpy as np

try:
    import netCDF4
except ImportError:
    sys.exit("bbm_stats: error: the Python module netCDF4 is missing "
             "(Debian: apt-get install python3-netcdf4)")

# Cells with a concentration at or below this are open water (&cryo_seaice a_min).
A_MIN = 1e-6


def fail(msg):
    sys.exit("bbm_stats: error: " + msg)


def area_half(shear):
    """Smallest fraction of the cells that holds half of the summed shear."""
    s = np.sort(shear.ravel())[::-1]
    c = np.cumsum(s)
    if c[-1] <= 0.0:
        return 1.0
    return (np.searchsorted(c, 0.5 * c[-1]) + 1) / s.size


def read(path, hours):
    try:
        ds = netCDF4.Dataset(path)
    except (OSError, RuntimeError) as e:
        fail("cannot open %s: %s" % (path, e))
    with ds:
        for name in ("time", "shear", "damage", "a", "x", "y"):
            if name not in ds.variables:
                fail("%s has no variable '%s' (a sea-ice output of a BBM run?)" % (path, name))
        t = np.asarray(ds.variables["time"][:], dtype=float)
        recs = []
        for h in hours:
            k = np.nonzero(np.abs(t - h * 3600.0) < 1.0)[0]
            if k.size == 0:
                fail("%s has no record at %g h (records at %s h)"
                     % (path, h, ", ".join("%g" % (x / 3600.0) for x in t)))
            k = int(k[0])
            rec = {}
            for name in ("shear", "damage", "a"):
                var = ds.variables[name]
                var.set_auto_mask(False)
                rec[name] = np.asarray(var[k], dtype=float)
            recs.append(rec)
        x = np.asarray(ds.variables["x"][:]) / 1e3
        y = np.asarray(ds.variables["y"][:]) / 1e3
    return x, y, recs


def stats(hours, recs):
    rows = []
    for h, r in zip(hours, recs):
        ice = r["a"] > A_MIN
        if not ice.any():
            fail("no cell with ice at %g h" % h)
        sh, dm = r["shear"][ice], r["damage"][ice]
        if dm.min() < 0.0 or dm.max() > 1.0:
            fail("damage outside [0, 1] at %g h: %g .. %g" % (h, dm.min(), dm.max()))
        tag = "%gh" % h
        rows += [("shear_mean_" + tag, sh.mean()), ("shear_max_" + tag, sh.max()),
                 ("damage_mean_" + tag, dm.mean()), ("damage_max_" + tag, dm.max()),
                 ("lkf_area_half_" + tag, area_half(sh))]
    return rows


def plot(path, x, y, hours, recs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(hours)
    fig, ax = plt.subplots(2, n, figsize=(4.2 * n + 1.0, 8.0), squeeze=False)
    fig.subplots_adjust(hspace=0.35)
    ext = [x[0] - 0.5 * (x[1] - x[0]), x[-1] + 0.5 * (x[1] - x[0]),
           y[0] - 0.5 * (y[1] - y[0]), y[-1] + 0.5 * (y[1] - y[0])]
    for j, (h, r) in enumerate(zip(hours, recs)):
        im0 = ax[0][j].imshow(np.log10(np.maximum(r["shear"], 1e-12)), origin="lower",
                              extent=ext, vmin=-8, vmax=-4, cmap="viridis")
        ax[0][j].set_title("log10 shear (s-1), %g h" % h)
        im1 = ax[1][j].imshow(r["damage"], origin="lower", extent=ext, vmin=0, vmax=1,
                              cmap="magma")
        ax[1][j].set_title("damage, %g h" % h)
        for k in range(2):
            ax[k][j].set_xlabel("x (km)")
            ax[k][j].set_ylabel("y (km)")
    fig.colorbar(im0, ax=ax[0].tolist(), shrink=0.85)
    fig.colorbar(im1, ax=ax[1].tolist(), shrink=0.85)
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--hours", type=float, nargs="+", default=[24.0, 48.0])
    args = ap.parse_args()
    x, y, recs = read(args.output, args.hours)
    rows = stats(args.hours, recs)
    for name, value in rows:
        print("%s %.6e" % (name, value))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("name,value\n")
            for name, value in rows:
                f.write("%s,%.6e\n" % (name, value))
    if args.png:
        plot(args.png, x, y, args.hours, recs)


if __name__ == "__main__":
    main()
