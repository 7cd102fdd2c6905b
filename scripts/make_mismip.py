#!/usr/bin/env python3
"""MISMIP+ geometry (and forcing) for cryodyn's land ice (docs/mismip.md).

Writes the geometry file of &cryo_landice case = 'file' (namelists/README.md,
`&cryo_landice`): cell-centred (y, x) variables
  thk           ice thickness, m: --thk-init where x <= 640 km, 0 beyond
                (or the last record of --from)
  topg          bed elevation, m, the MISMIP+ bed at the cell centre
  calving_mask  1 where ice may exist (x <= 640 km, or --calving-x), 0 beyond
and no beta2 (the friction is the namelist's Weertman or Schoof law).

The bed is that of Asay-Davis et al. (2016), GMD 9, 2471-2497, Eq. 1-4:
  B(x, y)  = max(Bx(x) + By(y), B_deep)
  Bx(x)    = B0 + B2 xt^2 + B4 xt^4 + B6 xt^6,  xt = x / x_bar
  By(y)    = dc / (1 + exp(-2 (y - Ly/2 - wc) / fc))
           + dc / (1 + exp( 2 (y - Ly/2 + wc) / fc))
with the constants below. Cells are dx x dy (dy = dx unless --dy), cell (i, j)
centred at ((i + 1/2) dx, (j + 1/2) dy); x covers [0, 640 km + extra_cells dx] so that
the calving front at 640 km lies inside the domain, y covers [0, 80 km]
([0, 40 km] with --half: the bed and forcing are symmetric about the channel
axis y = 40 km, so its free-slip mirror plane stands for the other half;
grounded areas of a half run must be doubled, which examples/mismip_gl.py
does).

--calving-x 480 moves the calving front to x = 480 km (Ice2r: the floating ice
beyond it removed, thk 0 there, and none may return; grounded ice beyond it,
on the side-wall ridges, stays, as the protocol has it: run it with
calving = 'floating'): it must lie on a cell face.

--forcing FILE also writes the NetCDF forcing of &cryo_run forcing = 'netcdf'
(namelists/README.md, NetCDF forcing file): smb = 0.3 m/a of ice in
kg m-2 s-1 and basal_melt = 0 (the Ice1 melt is computed in cryodyn with
melt_source = 'mismip+'), two records spanning years 1 to 9999 of the
noleap calendar, constant in time.

Usage:
  python3 scripts/make_mismip.py [--dx 2000] [--dy DY] [--thk-init 100] [--extra-cells 2]
      [--half] [--from RUN.nc] [--calving-x KM] [--forcing FORCING.nc] OUT.nc
Prints nx, ny, dx, dy for &cryo_grid.

Needs numpy and netCDF4 (Debian: python3-numpy, python3-netcdf4).
"""

import argparse
import sys

import numpy as np

# Asay-Davis et al. (2016), Table 1 (bed) and Sect. 3 (domain, accumulation)
LX = 640.0e3  # m, calving front position
LY = 80.0e3  # m, domain width
X_BAR = 300.0e3  # m, bed length scale
B0, B2, B4, B6 = -150.0, -728.8, 343.91, -50.57  # m
B_DEEP = -720.0  # m
FC = 4.0e3  # m, width of the channel side walls
DC = 500.0  # m, depth of the trough below the walls
WC = 24.0e3  # m, half-width of the trough
ACCUMULATION = 0.3  # m a-1 of ice
RHO_ICE = 918.0  # kg m-3
RHO_WATER = 1028.0  # kg m-3
YEAR = 365.0 * 86400.0  # s, the 365-day year of the land-ice kernels


def bed(x, y):
    """MISMIP+ bed elevation (m) at x, y (m, full-width coordinates)."""
    xt = x / X_BAR
    bx = B0 + B2 * xt**2 + B4 * xt**4 + B6 * xt**6
    by = DC / (1.0 + np.exp(-2.0 * (y - LY / 2 - WC) / FC)) + DC / (
        1.0 + np.exp(2.0 * (y - LY / 2 + WC) / FC)
    )
    return np.maximum(bx + by, B_DEEP)


def thickness_from(path, x, y, half):
    """Last thickness record of a cryodyn output or restart, on the cell
    centres x, y (m): the file's own values when its grid is this one, else
    interpolated bilinearly from its cell centres (a finer run started from a
    coarser one's state; the file's grid must cover the same channel)."""
    from netCDF4 import Dataset

    with Dataset(path) as nc:
        if "thk" not in nc.variables:
            sys.exit(f"make_mismip.py: {path} has no variable thk")
        v = nc.variables["thk"]
        dims = v.dimensions
        if dims[0] == "time":  # output file: (time, y, x)
            thk = np.asarray(v[-1, :, :], dtype=float)
        elif dims[:2] == ("y", "x"):  # restart file: (y, x, nlev1)
            thk = np.asarray(v[:, :, 0], dtype=float)
        else:
            sys.exit(f"make_mismip.py: {path}: thk has dimensions {dims}, expected "
                     "(time, y, x) or (y, x, nlev1)")
        sx = np.asarray(nc.variables["x"][:], dtype=float) if "x" in nc.variables else None
        sy = np.asarray(nc.variables["y"][:], dtype=float) if "y" in nc.variables else None
    if thk.shape == (y.size, x.size):
        return thk
    if sx is None or sy is None or sx.size != thk.shape[1] or sy.size != thk.shape[0]:
        sys.exit(f"make_mismip.py: {path}: thk is {thk.shape[1]} x {thk.shape[0]} cells, this "
                 f"grid {x.size} x {y.size}, and the file has no x, y of its cell centres to "
                 "interpolate from")
    width = LY / 2 if half else LY
    sdy = sy[1] - sy[0] if sy.size > 1 else width
    if abs(sy[-1] + sdy / 2 - width) > 1e-6 * width:
        sys.exit(f"make_mismip.py: {path} covers y up to {(sy[-1] + sdy / 2) / 1e3:g} km, this "
                 f"grid {width / 1e3:g} km (same --half)")
    return bilinear(sx, sy, thk, x, y)


def bilinear(sx, sy, f, x, y):
    """f (on the centres sx, sy) at the points x, y: bilinear between the four
    surrounding centres, the nearest edge row or column beyond the outer ones."""
    def weights(s, t):
        i = np.clip(np.searchsorted(s, t) - 1, 0, s.size - 2)
        w = np.clip((t - s[i]) / (s[i + 1] - s[i]), 0.0, 1.0)
        return i, w

    i, wx = weights(sx, x)
    j, wy = weights(sy, y)
    f00, f10 = f[np.ix_(j, i)], f[np.ix_(j, i + 1)]
    f01, f11 = f[np.ix_(j + 1, i)], f[np.ix_(j + 1, i + 1)]
    wx, wy = wx[None, :], wy[:, None]
    return (1 - wy) * ((1 - wx) * f00 + wx * f10) + wy * ((1 - wx) * f01 + wx * f11)


def write_geometry(path, x, y, thk, topg, mask, front, attrs):
    from netCDF4 import Dataset

    with Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as nc:
        nc.createDimension("x", x.size)
        nc.createDimension("y", y.size)
        for name, val, long in (("x", x, "x of cell centres"), ("y", y, "y of cell centres")):
            v = nc.createVariable(name, "f8", (name,))
            v.units, v.long_name = "m", long
            v[:] = val
        for name, val, units, long in (
            ("thk", thk, "m", "land ice thickness"),
            ("topg", topg, "m", "bed elevation (MISMIP+, Asay-Davis et al. 2016)"),
            ("calving_mask", mask, "1", f"1 where ice may exist (x <= {front / 1e3:g} km), 0 beyond"),
        ):
            v = nc.createVariable(name, "f8", ("y", "x"))
            v.units, v.long_name = units, long
            v[:] = val
        nc.setncatts(attrs)


def write_forcing(path, nx, ny, attrs):
    """smb (0.3 m/a of ice) and basal_melt (0) on a noleap axis, years 1-9999."""
    from netCDF4 import Dataset

    smb = RHO_ICE * ACCUMULATION / YEAR  # kg m-2 s-1
    with Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as nc:
        nc.createDimension("time", None)
        nc.createDimension("y", ny)
        nc.createDimension("x", nx)
        t = nc.createVariable("time", "f8", ("time",))
        t.units = "days since 0001-01-01 00:00:00"
        t.calendar = "noleap"
        t[:] = [0.0, 9999.0 * 365.0]
        for name, val, long in (
            ("smb", smb, "surface mass balance, 0.3 m a-1 of ice, > 0 gain"),
            ("basal_melt", 0.0, "sub-shelf melt, > 0 loss (Ice1 melt is computed in cryodyn)"),
        ):
            v = nc.createVariable(name, "f8", ("time", "y", "x"))
            v.units, v.long_name = "kg m-2 s-1", long
            v[:] = np.full((2, ny, nx), val)
        nc.setncatts(attrs)
    return smb


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("output", help="geometry file to write")
    ap.add_argument("--dx", type=float, default=2000.0, help="cell size, m (default 2000)")
    ap.add_argument("--dy", type=float,
                    help="cell size across the channel, m (default --dx; a finer dy resolves the "
                    "side-wall ridges)")
    ap.add_argument("--thk-init", type=float, default=100.0,
                    help="uniform initial thickness where x <= 640 km, m (default 100)")
    ap.add_argument("--extra-cells", type=int, default=2,
                    help="ice-free cells beyond x = 640 km (default 2)")
    ap.add_argument("--half", action="store_true",
                    help="y in [0, 40 km] only, mirror plane at the channel axis y = 40 km")
    ap.add_argument("--from", dest="from_file", metavar="FILE",
                    help="take thk from the last record of a cryodyn output or restart "
                    "(interpolated when its grid differs)")
    ap.add_argument("--ice-free-thk", type=float, default=0.0,
                    help="thickness written beyond 640 km, m (default 0; > 0 only for builds "
                    "that need ice everywhere)")
    ap.add_argument("--calving-x", type=float, default=LX / 1e3, metavar="KM",
                    help="calving front position, km (default 640; Ice2r: 480)")
    ap.add_argument("--forcing", metavar="FILE", help="also write the smb forcing file")
    a = ap.parse_args(argv)

    width = LY / 2 if a.half else LY
    dy = a.dx if a.dy is None else a.dy
    if a.dx <= 0 or LX % a.dx:
        sys.exit(f"make_mismip.py: --dx {a.dx:g} m must divide 640 km")
    if dy <= 0 or width % dy:
        sys.exit(f"make_mismip.py: --dy {dy:g} m must divide {width / 1e3:g} km")
    if a.extra_cells < 1:
        sys.exit("make_mismip.py: --extra-cells must be >= 1 (the front inside the domain)")
    front = a.calving_x * 1e3
    if not 0 < front <= LX or front % a.dx:
        sys.exit(f"make_mismip.py: --calving-x {a.calving_x:g} km must be in (0, 640] and on a "
                 f"cell face (a multiple of --dx {a.dx:g} m)")
    nx = int(round(LX / a.dx)) + a.extra_cells
    ny = int(round(width / dy))
    x = (np.arange(nx) + 0.5) * a.dx
    y = (np.arange(ny) + 0.5) * dy
    X, Y = np.meshgrid(x, y)
    topg = bed(X, Y)
    mask = (X <= front).astype(float)
    if a.from_file:
        thk = thickness_from(a.from_file, x, y, a.half)
        # beyond the front only the floating ice goes (calving = 'floating')
        grounded = RHO_ICE * thk + RHO_WATER * topg > 0.0
        thk = np.where((mask > 0) | grounded, thk, 0.0)
    else:
        thk = a.thk_init * mask
    thk = np.where((mask > 0) | (thk > 0), thk, a.ice_free_thk)

    attrs = {
        "title": "MISMIP+ geometry (Asay-Davis et al. 2016, GMD 9, 2471-2497)",
        "source": "cryodyn scripts/make_mismip.py",
        "dx": a.dx,
        "dy": dy,
        "mismip_half": int(a.half),
        "thk_from": a.from_file or f"uniform {a.thk_init:g} m",
        "calving_x": front,
    }
    write_geometry(a.output, x, y, thk, topg, mask, front, attrs)
    print(f"nx = {nx}, ny = {ny}, dx = {a.dx:g}, dy = {dy:g}")
    if a.forcing:
        smb = write_forcing(a.forcing, nx, ny, {"title": "MISMIP+ forcing", "source": attrs["source"]})
        print(f"forcing {a.forcing}: smb = {smb:.6e} kg m-2 s-1, basal_melt = 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
