#!/usr/bin/env python3
"""Key figures of MISMIP+ submission files, cryodyn's and the ensemble's (docs/mismip.md).

Reads files in the MISMIP+ submission format (Asay-Davis et al. 2016, GMD 9,
2471-2497; the files of Cornford et al. 2020, The Cryosphere 14, 2283-2301):
time (a), iceVolume and iceVAF (m3), groundedArea (m2, full 80 km width) on
dimension nTime, and the grounding-line points xGL, yGL (m) on (nPointGL,
nTime), unused points masked or filled. cryodyn writes them with
scripts/mismip_submission.py.

For every file it prints, at the first record and at 10, 50, 100 and 200
years after it (the record within half a year; rows without one are left
out): the time, the grounded area (km2), the centreline grounding line x_GL
(km) and the grounded area lost since the first record (km2). x_GL is the
grounding-line point nearest the centre line y = 40 km, the first in the
file's order of equally near ones: the rule that reproduces the
centreline column of the ensemble's reduction (ensemble.csv of the MISMIP+
reference data) at all of its 2 727 records.
Grounding-line coordinates that are all below 1000 are taken as km (one
ensemble member wrote km).

  python3 scripts/mismip_compare.py Ice1r_cryodyn.nc Ice1r_XXX.nc ...

Needs numpy and netCDF4.
"""

import argparse
import sys

import numpy as np

Y_CENTRE = 40.0e3
OFFSETS = (0.0, 10.0, 50.0, 100.0, 200.0)


def values(var):
    """A variable as floats with masked, fill and non-finite values as nan."""
    a = np.ma.masked_invalid(np.ma.asarray(var[:], dtype=float))
    a = np.ma.masked_where(np.abs(a.filled(0.0)) > 1.0e30, a)
    return a.filled(np.nan)


def load(path):
    from netCDF4 import Dataset

    with Dataset(path) as nc:
        for v in ("time", "groundedArea", "xGL", "yGL"):
            if v not in nc.variables:
                sys.exit(f"mismip_compare.py: {path} has no variable {v} (a MISMIP+ submission?)")
        time = values(nc["time"]).ravel()
        time_dim = nc["time"].dimensions[0] if nc["time"].dimensions else None
        points_last = nc["xGL"].dimensions[:1] == (time_dim,)
        area = values(nc["groundedArea"]).ravel()
        xgl, ygl = values(nc["xGL"]), values(nc["yGL"])
    if xgl.ndim != 2 or xgl.shape != ygl.shape:
        sys.exit(f"mismip_compare.py: {path}: xGL and yGL must be 2-D of the same shape")
    if points_last or xgl.shape[1] != time.size:  # (nTime, nPointGL) in some files
        xgl, ygl = xgl.T, ygl.T
    if xgl.shape[1] != time.size:
        sys.exit(f"mismip_compare.py: {path}: xGL has no dimension of the length of time")
    km = bool(np.nanmax(np.abs(xgl)) < 1000.0)
    if km:
        xgl, ygl = 1000.0 * xgl, 1000.0 * ygl
    return {"path": path, "time": time, "area": area, "xgl": xgl, "ygl": ygl, "km": km}


def centre_xgl(x, y):
    """x (m) of the point nearest y = 40 km, the first of equally near ones."""
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return np.nan
    d = np.abs(y[ok] - Y_CENTRE)
    return x[ok][np.argmin(d)]


def rows(run):
    """(time, area km2, x_GL km, loss km2) at the first record + OFFSETS."""
    t, out = run["time"], []
    a0 = run["area"][0]
    for off in OFFSETS:
        k = np.nonzero(np.abs(t - (t[0] + off)) < 0.5)[0]
        if k.size == 0:
            continue
        k = k[0]
        x = centre_xgl(run["xgl"][:, k], run["ygl"][:, k])
        out.append((t[k], run["area"][k] / 1e6, x / 1e3, (a0 - run["area"][k]) / 1e6))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="MISMIP+ submission files")
    a = ap.parse_args(argv)
    for path in a.files:
        run = load(path)
        print(f"{path}: {run['time'].size} records, t = {run['time'][0]:g} .. {run['time'][-1]:g} a")
        print(f"  {'t (a)':>8} {'grounded area (km2)':>20} {'x_GL (km)':>10} {'loss (km2)':>11}")
        for t, area, x, loss in rows(run):
            print(f"  {t:8.1f} {area:20.1f} {x:10.3f} {loss:11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
