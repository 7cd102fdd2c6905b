#!/usr/bin/env python3
"""A cryodyn MISMIP+ output in the MISMIP+ submission format (docs/mismip.md).

Reads a cryodyn land-ice output of a marine run (thk, grounded_fraction and
topg per record (topg on the nodes), x and y of the cell centres;
scripts/make_mismip.py grids) and
writes, per record, the diagnostics of the MISMIP+ protocol (Asay-Davis et
al. 2016, GMD 9, 2471-2497, section 3.4) under the names and dimensions of
the ensemble's files (Cornford et al. 2020, The Cryosphere 14, 2283-2301):

  time(nTime)             a, the model time of the record (years of 365 days)
  iceVolume(nTime)        m3, sum of H x cell area
  iceVAF(nTime)           m3, volume above flotation: sum of
                          max(H - max(z_sl - b, 0) rho_w / rho_i, 0) x cell area
  groundedArea(nTime)     m2, sum of grounded_fraction x cell area
  xGL, yGL(nPointGL, nTime)  m, grounding-line points: on every row of cells,
                          scanning from the ice divide downstream, the first
                          place where the grounded fraction falls below 0.5,
                          interpolated linearly between cell centres, at the
                          row's centre y; with an even number of rows also the
                          crossing of the mean of the two middle rows at
                          y = 40 km (the centreline point of
                          examples/mismip_gl.py). Rows without a crossing have
                          no point; unused points are masked.

b is the mean of the 4 corner beds of a cell, z_sl = 0. All quantities are
of the full 80 km width: a half-width run (--half, or a domain 40 km wide)
has its sums doubled and its points mirrored about y = 40 km.

  python3 scripts/mismip_submission.py mismip_ice1r.nc Ice1r_cryodyn.nc

Needs numpy and netCDF4.
"""

import argparse
import sys

import numpy as np

YEAR = 365.0 * 86400.0
LY = 80.0e3


def load(path, half):
    from netCDF4 import Dataset

    with Dataset(path) as nc:
        for v in ("thk", "grounded_fraction", "topg", "x", "y", "time"):
            if v not in nc.variables:
                sys.exit(f"mismip_submission.py: {path} has no variable {v} (a marine land-ice run?)")
        r = {k: np.ma.filled(np.ma.asarray(nc[v][:], dtype=float), np.nan)
             for k, v in (("x", "x"), ("y", "y"), ("time", "time"), ("thk", "thk"),
                          ("gf", "grounded_fraction"), ("topg", "topg"))}
    r["time"] = r["time"] / YEAR
    r["dx"] = r["x"][1] - r["x"][0]
    r["dy"] = r["y"][1] - r["y"][0] if r["y"].size > 1 else r["dx"]
    r["half"] = half if half is not None else abs(r["y"].size * r["dy"] - LY / 2) < 0.5 * r["dy"]
    t = r["topg"]
    r["bed"] = 0.25 * (t[:, :-1, :-1] + t[:, :-1, 1:] + t[:, 1:, :-1] + t[:, 1:, 1:])
    return r


def crossing(x, f):
    """First x where f (grounded at f >= 0.5) drops below 0.5; nan if none."""
    below = np.nonzero(f < 0.5)[0]
    if below.size == 0 or below[0] == 0:
        return np.nan
    i = below[0]
    return x[i - 1] + (f[i - 1] - 0.5) / (f[i - 1] - f[i]) * (x[i] - x[i - 1])


def grounding_points(r, k):
    """(x, y) of the grounding-line points of record k over the full width."""
    gf = r["gf"][k]
    ny = gf.shape[0]
    xc, yc = r["x"], r["y"]
    pts = [(crossing(xc, gf[j]), yc[j]) for j in range(ny)]
    if r["half"]:
        pts += [(x, LY - y) for x, y in pts]
    elif ny % 2 == 0:
        pts.append((crossing(xc, 0.5 * (gf[ny // 2 - 1] + gf[ny // 2])), 0.5 * LY))
    return [(x, y) for x, y in pts if np.isfinite(x)]


def diagnostics(r, rho_ice, rho_water, sea_level):
    area = r["dx"] * r["dy"] * (2.0 if r["half"] else 1.0)
    h = np.nan_to_num(r["thk"])
    flo = np.maximum(sea_level - r["bed"], 0.0) * rho_water / rho_ice
    d = {
        "time": r["time"],
        "iceVolume": h.sum(axis=(1, 2)) * area,
        "iceVAF": np.maximum(h - flo, 0.0).sum(axis=(1, 2)) * area,
        "groundedArea": np.nan_to_num(r["gf"]).sum(axis=(1, 2)) * area,
    }
    d["points"] = [grounding_points(r, k) for k in range(r["time"].size)]
    return d


def write(path, d, source):
    from netCDF4 import Dataset

    npt = max(1, max(len(p) for p in d["points"]))
    nt = d["time"].size
    with Dataset(path, "w") as nc:
        nc.model = "cryodyn"
        nc.source = f"scripts/mismip_submission.py from {source}"
        nc.createDimension("nTime", nt)
        nc.createDimension("nPointGL", npt)
        units = {"time": "a", "iceVolume": "m^3", "iceVAF": "m^3", "groundedArea": "m^2"}
        for name, u in units.items():
            v = nc.createVariable(name, "f8", ("nTime",))
            v.units = u
            v[:] = d[name]
        gl = np.ma.masked_all((2, npt, nt))
        for k, pts in enumerate(d["points"]):
            for i, (x, y) in enumerate(pts):
                gl[:, i, k] = (x, y)
        for c, name in enumerate(("xGL", "yGL")):
            v = nc.createVariable(name, "f8", ("nPointGL", "nTime"), fill_value=9.96921e36)
            v.units = "m"
            v[:] = gl[c]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="cryodyn land-ice output (marine)")
    ap.add_argument("output", help="submission file to write")
    ap.add_argument("--half", action="store_true", default=None,
                    help="a half-width run (default: a domain 40 km wide)")
    ap.add_argument("--rho-ice", type=float, default=918.0)
    ap.add_argument("--rho-water", type=float, default=1028.0)
    ap.add_argument("--sea-level", type=float, default=0.0)
    a = ap.parse_args(argv)
    r = load(a.run, a.half)
    write(a.output, diagnostics(r, a.rho_ice, a.rho_water, a.sea_level), a.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
