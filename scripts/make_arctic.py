#!/usr/bin/env python3
"""Input files of the Arctic sea-ice case (docs/arctic.md).

Writes into --out-dir:
  arctic_grid.nc     the grid file (&cryo_grid grid_file): a polar
                     stereographic grid centred on the North Pole (true scale
                     at 70 N, x axis along 45 E, as the NSIDC polar
                     stereographic grids) with a land mask from the GLOBE 1 km
                     land/sea data of the global-land-mask package;
  arctic_forcing.nc  the forcing file (forcing = 'netcdf'): a steady
                     Beaufort-High wind and Beaufort-Gyre ocean current,
                     cell-centred, east/north components (vector_frame =
                     'east_north'), two identical records spanning the run.
With --small the files are arctic_small_grid.nc and arctic_small_forcing.nc,
a coarse grid for the tests (40 x 40 cells of 180 km, still with land).

The mask: each cell is sampled at 5 x 5 sub-points (bilinear in the map plane
between its corners) and is ocean when most of them are; then only the ocean
connected through cell faces to the cell nearest the pole is kept (lakes,
and seas that join the Arctic only outside the domain, become land). Cells on
the outer edge of the domain may stay ocean: the solver treats the edge as a
wall.

The grid itself comes from scripts/make_grid.py (polar_stereographic, write).
Needs numpy, netCDF4 and global_land_mask: run it with the tools environment,
  "$(sh scripts/tools-python)" scripts/make_arctic.py [--small] [--out-dir DIR]
"""
import argparse
import os
import sys
from collections import deque

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_grid  # noqa: E402

# Map projection of the grid (make_grid.polar_stereographic's arguments).
LAT_TRUE = 70.0  # degrees north: latitude of true scale
LON0 = -45.0  # degrees east: the meridian along the map's -y axis
# Radius of the sphere of the map, m: cryodyn's default earth_radius.
MAP_RADIUS = make_grid.EARTH_RADIUS

# The two grids: cells per side, cell size in the map plane (m).
FULL = {"n": 300, "dx": 25000.0, "days": 30, "name": "arctic"}
SMALL = {"n": 40, "dx": 180000.0, "days": 2, "name": "arctic_small"}

# Beaufort High (surface wind) and Beaufort Gyre (surface current): centre
# (degrees), radius of the strongest flow in the map plane (m), its speed
# (m s-1) and the outward turning of the flow from the clockwise tangent
# (degrees; surface winds cross the isobars away from a high).
WIND = {"lat": 75.0, "lon": -150.0, "radius": 1.0e6, "vmax": 9.0, "turn": 20.0}
OCEAN = {"lat": 75.0, "lon": -145.0, "radius": 4.0e5, "vmax": 0.08, "turn": 0.0}

SUB = 5  # sub-points per cell side for the land mask


def forward(lon, lat):
    """Polar stereographic map (x, y) in m of lon, lat (degrees), the sphere's
    polar aspect (Snyder 1987, Map Projections: A Working Manual, USGS
    Professional Paper 1395, chapter 21): x = rho sin(lon - LON0),
    y = -rho cos(lon - LON0), rho = R (1 + sin LAT_TRUE) tan(pi/4 - lat/2)."""
    lam = np.radians(np.asarray(lon, dtype=float) - LON0)
    phi = np.radians(np.asarray(lat, dtype=float))
    rho = MAP_RADIUS * (1.0 + np.sin(np.radians(LAT_TRUE))) * np.tan(np.pi / 4 - phi / 2)
    return rho * np.sin(lam), -rho * np.cos(lam)


def inverse(x, y):
    """lon (degrees, in [-180, 180)), lat (degrees) of map points (x, y) in m:
    make_grid's inverse of forward."""
    lon, lat = make_grid.stereographic_inverse(x, y, LAT_TRUE, LON0, MAP_RADIUS)
    return (lon + 180.0) % 360.0 - 180.0, lat


def east_north(lon):
    """Unit vectors east and north in the map plane at longitude lon (degrees).

    With lam = lon - LON0, d(x, y)/d lon = rho (cos lam, sin lam) and
    d(x, y)/d lat = rho' (sin lam, -cos lam) with rho' < 0 (rho shrinks
    towards the pole), so east = (cos lam, sin lam) and
    north = (-sin lam, cos lam), east rotated by +90 degrees: the map keeps
    the orientation (the projection is conformal, and x, y, up is
    right-handed). Returns (ex, ey, nx, ny)."""
    lam = np.radians(np.asarray(lon, dtype=float) - LON0)
    return np.cos(lam), np.sin(lam), -np.sin(lam), np.cos(lam)


def check_east_north(lon, lat, tol=1e-6):
    """Compare east_north with centred finite differences of forward at the
    points (lon, lat), and forward with the inverse of make_grid (to tol
    times the radius); raise SystemExit when either differs by more than tol."""
    x, y = forward(lon, lat)
    lon2, lat2 = inverse(x, y)
    x2, y2 = forward(lon2, lat2)
    miss = float(np.max(np.hypot(x2 - x, y2 - y))) / MAP_RADIUS
    if miss > tol:
        raise SystemExit(f"make_arctic: forward is not the inverse of make_grid's projection "
                         f"({miss:.3g} radii off)")
    h = 1e-4  # degrees
    worst = 0.0
    ex, ey, nx_, ny_ = east_north(lon)
    for (dlon, dlat), (ux, uy) in (((h, 0.0), (ex, ey)), ((0.0, h), (nx_, ny_))):
        xp, yp = forward(lon + dlon, lat + dlat)
        xm, ym = forward(lon - dlon, lat - dlat)
        dx, dy = xp - xm, yp - ym
        norm = np.hypot(dx, dy)
        worst = max(worst, float(np.max(np.hypot(dx / norm - ux, dy / norm - uy))))
    if worst > tol:
        raise SystemExit(f"make_arctic: east/north directions differ from the projection's "
                         f"finite differences by {worst:.3g} (> {tol:g})")
    return worst


def vortex(x, y, centre, clockwise=True):
    """Map-plane components (m s-1) of an axisymmetric vortex in the map plane:
    speed V(r) = vmax (r / R) exp((1 - r^2 / R^2) / 2) (solid-body rotation
    near the centre, the largest speed vmax at r = R, Gaussian decay
    outside), along the clockwise tangent t = (dy, -dx) / r turned outward
    by `turn` degrees towards r_hat = (dx, dy) / r."""
    xc, yc = forward(centre["lon"], centre["lat"])
    dx, dy = x - xc, y - yc
    r2 = (dx * dx + dy * dy) / centre["radius"] ** 2
    # V(r) / r, finite at the centre
    v_over_r = centre["vmax"] / centre["radius"] * np.exp(0.5 * (1.0 - r2))
    c, s = np.cos(np.radians(centre["turn"])), np.sin(np.radians(centre["turn"]))
    sign = 1.0 if clockwise else -1.0
    tx, ty = sign * dy, -sign * dx
    return v_over_r * (c * tx + s * dx), v_over_r * (c * ty + s * dy)


def to_east_north(ux, uy, lon):
    """Map-plane vector components (ux, uy) to east, north at longitude lon."""
    ex, ey, nx_, ny_ = east_north(lon)
    return ux * ex + uy * ey, ux * nx_ + uy * ny_


def corners_xy(grid):
    """Map-plane corners of every cell, arrays (ny, nx, 4), counterclockwise
    from the lower-left corner (the order of the CF bounds)."""
    return forward(grid["x_bnds"], grid["y_bnds"])


def ocean_fraction(grid, sub=SUB):
    """Fraction of sub x sub sub-points of each cell that are ocean
    (global_land_mask.globe: GLOBE land/sea at 1 km)."""
    from global_land_mask import globe

    cx, cy = corners_xy(grid)
    t = (np.arange(sub) + 0.5) / sub
    count = np.zeros(grid["x"].shape)
    for s in t:
        for r in t:
            w = ((1 - s) * (1 - r), s * (1 - r), s * r, (1 - s) * r)
            x = sum(w[k] * cx[..., k] for k in range(4))
            y = sum(w[k] * cy[..., k] for k in range(4))
            lon, lat = inverse(x, y)
            count += globe.is_ocean(lat, lon)
    return count / (sub * sub)


def connected(ocean, seed):
    """Cells of `ocean` (bool, (ny, nx)) joined to cell `seed` (j, i) through
    cell faces."""
    ny, nx = ocean.shape
    keep = np.zeros_like(ocean, dtype=bool)
    if not ocean[seed]:
        raise SystemExit(f"make_arctic: the cell nearest the pole {seed} is not ocean")
    keep[seed] = True
    todo = deque([seed])
    while todo:
        j, i = todo.popleft()
        for jj, ii in ((j - 1, i), (j + 1, i), (j, i - 1), (j, i + 1)):
            if 0 <= jj < ny and 0 <= ii < nx and ocean[jj, ii] and not keep[jj, ii]:
                keep[jj, ii] = True
                todo.append((jj, ii))
    return keep


def min_width(grid, mask, radius=MAP_RADIUS):
    """Smallest midline (m) of the ocean cells, chords between the corners on
    a sphere of `radius`: the width in the mEVP stability bound."""
    lam, phi = np.radians(grid["x_bnds"]), np.radians(grid["y_bnds"])
    r = radius * np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], -1)
    w1 = np.linalg.norm(r[..., 1, :] + r[..., 2, :] - r[..., 0, :] - r[..., 3, :], axis=-1) / 2
    w2 = np.linalg.norm(r[..., 3, :] + r[..., 2, :] - r[..., 0, :] - r[..., 1, :], axis=-1) / 2
    return float(np.min(np.minimum(w1, w2)[mask > 0]))


def write_forcing(path, grid, days):
    """The steady forcing: records at 0 and `days` days after 2000-01-01
    (the namelists' start), identical."""
    import netCDF4

    lon, lat = grid["x"], grid["y"]
    x, y = forward(lon, lat)
    fields = {}
    for name, centre, what in (("wind", WIND, "10 m wind"), ("ocean", OCEAN, "ocean surface velocity")):
        ue, vn = to_east_north(*vortex(x, y, centre), lon)
        fields["u" + name] = (ue, "eastward " + what)
        fields["v" + name] = (vn, "northward " + what)
    ny, nx = lon.shape
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as d:
        d.title = "Arctic case forcing: steady Beaufort High wind and Beaufort Gyre current"
        d.source = "scripts/make_arctic.py (docs/arctic.md)"
        d.vector_frame = "east_north"
        d.createDimension("time", None)
        d.createDimension("y", ny)
        d.createDimension("x", nx)
        t = d.createVariable("time", "f8", ("time",))
        t.units = "seconds since 2000-01-01 00:00:00"
        t.calendar = "proleptic_gregorian"
        t[:] = [0.0, days * 86400.0]
        for k, val, units in (("lon", lon, "degrees_east"), ("lat", lat, "degrees_north")):
            v = d.createVariable(k, "f8", ("y", "x"))
            v.units = units
            v[:] = val
        for k, (val, long_name) in fields.items():
            v = d.createVariable(k, "f8", ("time", "y", "x"))
            v.units = "m s-1"
            v.long_name = long_name
            v.coordinates = "lon lat"
            v[0] = val
            v[1] = val
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true", help="40 x 40 cells of 180 km (tests)")
    ap.add_argument("--out-dir", default=".", help="directory of the files (default .)")
    ap.add_argument("--days", type=float, help="days spanned by the forcing records "
                    "(default 30, with --small 2)")
    args = ap.parse_args()
    case = SMALL if args.small else FULL
    days = case["days"] if args.days is None else args.days
    if not days > 0:
        ap.error(f"--days {days}: must be > 0")
    os.makedirs(args.out_dir, exist_ok=True)

    grid = make_grid.polar_stereographic(case["n"], case["n"], case["dx"], lat_true=LAT_TRUE,
                                         lon0=LON0)
    err = check_east_north(grid["x"], grid["y"])
    frac = ocean_fraction(grid)
    ocean = frac > 0.5
    seed = np.unravel_index(np.argmax(grid["y"]), grid["y"].shape)
    mask = connected(ocean, seed).astype(np.int32)
    grid_path = os.path.join(args.out_dir, case["name"] + "_grid.nc")
    forcing_path = os.path.join(args.out_dir, case["name"] + "_forcing.nc")
    make_grid.write(grid_path, grid, mask=mask, history="make_arctic.py " + " ".join(sys.argv[1:]))
    fields = write_forcing(forcing_path, grid, days)

    ny, nx = mask.shape
    wind = np.hypot(fields["uwind"][0], fields["vwind"][0])
    curr = np.hypot(fields["uocean"][0], fields["vocean"][0])
    print(f"make_arctic: {grid_path}: {nx} x {ny} cells of {case['dx'] / 1000:g} km (map), "
          f"{int(mask.sum())} ocean, {int(ocean.sum() - mask.sum())} ocean cells not joined "
          f"to the Arctic set to land; smallest ocean cell width {min_width(grid, mask):.0f} m")
    print(f"make_arctic: {forcing_path}: {days:g} days, wind up to {wind.max():.2f} m/s, "
          f"current up to {curr.max():.3f} m/s (east/north; directions checked against the "
          f"projection to {err:.1e})")


if __name__ == "__main__":
    main()
