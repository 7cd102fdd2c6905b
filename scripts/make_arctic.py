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
With --resolution KM (or --cells N) the same 7500 km square around the pole
is cut into cells of KM km (N x N cells), files arctic_<KM>km_grid.nc and
arctic_<KM>km_forcing.nc; 25 km (300 x 300) is the default and keeps the
names arctic_grid.nc, arctic_forcing.nc.

The mask: each cell is sampled at 5 x 5 sub-points (bilinear in the map plane
between its corners) and is ocean when most of them are; then only the ocean
connected through cell faces to the cell nearest the pole is kept (lakes,
and seas that join the Arctic only outside the domain, become land). Cells on
the outer edge of the domain may stay ocean: the solver treats the edge as a
wall.

With --summer LAT it also writes <name>_summer_init.nc (&cryo_seaice init =
'file', init_file): 2 m of compact ice in the ocean cells whose centre lies
north of LAT, open water (h = a = 0) elsewhere: a late-summer pack for timing
what open water costs (docs/arctic.md).
The grid itself comes from scripts/make_grid.py (polar_stereographic, write).
Needs numpy, netCDF4 and global_land_mask: run it with the tools environment,
  "$(sh scripts/tools-python)" scripts/make_arctic.py [--small | --resolution KM | --cells N]
      [--out-dir DIR] [--days D] [--summer LAT] [--jobs N]
At 2 km (3750 x 3750 cells, 351 million land-mask samples) the mask is
computed a block of rows at a time, so the memory stays near that of the grid;
--jobs processes (default: one per CPU) take the blocks at once, with the same
numbers as one.
"""
import bisect
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_grid  # noqa: E402

# Map projection of the grid (make_grid.polar_stereographic's arguments).
LAT_TRUE = 70.0  # degrees north: latitude of true scale
LON0 = -45.0  # degrees east: the meridian along the map's -y axis
# Radius of the sphere of the map, m: cryodyn's default earth_radius.
MAP_RADIUS = make_grid.EARTH_RADIUS

# Side (m) of the map square centred on the pole that the Arctic grids
# cover, whatever their resolution (the test grid of --small is its own).
SIDE = 7.5e6
# The grids: cells per side, cell size in the map plane (m).
FULL = {"n": 300, "dx": SIDE / 300, "days": 30, "name": "arctic"}
SMALL = {"n": 40, "dx": 180000.0, "days": 2, "name": "arctic_small"}

# Beaufort High (surface wind) and Beaufort Gyre (surface current): centre
# (degrees), radius of the strongest flow in the map plane (m), its speed
# (m s-1) and the outward turning of the flow from the clockwise tangent
# (degrees; surface winds cross the isobars away from a high).
WIND = {"lat": 75.0, "lon": -150.0, "radius": 1.0e6, "vmax": 9.0, "turn": 20.0}
OCEAN = {"lat": 75.0, "lon": -145.0, "radius": 4.0e5, "vmax": 0.08, "turn": 0.0}

SUB = 5  # sub-points per cell side for the land mask
# Cells per block of rows in the land mask: each sub-point pass over a block
# holds about ten arrays of this many doubles (80 MB).
MASK_BLOCK_CELLS = 1 << 20


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


def projection_errors(lon, lat):
    """(miss, worst) at the points (lon, lat): forward against the inverse of
    make_grid (radii), and east_north against centred finite differences of
    forward (unit vectors)."""
    x, y = forward(lon, lat)
    lon2, lat2 = inverse(x, y)
    x2, y2 = forward(lon2, lat2)
    miss = float(np.max(np.hypot(x2 - x, y2 - y))) / MAP_RADIUS
    h = 1e-4  # degrees
    worst = 0.0
    ex, ey, nx_, ny_ = east_north(lon)
    for (dlon, dlat), (ux, uy) in (((h, 0.0), (ex, ey)), ((0.0, h), (nx_, ny_))):
        xp, yp = forward(lon + dlon, lat + dlat)
        xm, ym = forward(lon - dlon, lat - dlat)
        dx, dy = xp - xm, yp - ym
        norm = np.hypot(dx, dy)
        worst = max(worst, float(np.max(np.hypot(dx / norm - ux, dy / norm - uy))))
    return miss, worst


def check_east_north(lon, lat, tol=1e-6, pool=None):
    """Compare east_north with centred finite differences of forward at the
    points (lon, lat), and forward with the inverse of make_grid (to tol
    times the radius), a block of rows at a time (on the workers of `pool`,
    grid_pool's of the grid whose cell centres lon, lat are, where given);
    raise SystemExit when either differs by more than tol."""
    blocks = row_blocks(lon.shape)
    if pool is None:
        errors = [projection_errors(lon[b], lat[b]) for b in blocks]
    else:
        errors = pool.map(_projection_errors_rows, blocks)
    miss = max(e[0] for e in errors)
    worst = max(e[1] for e in errors)
    if miss > tol:
        raise SystemExit(f"make_arctic: forward is not the inverse of make_grid's projection "
                         f"({miss:.3g} radii off)")
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


# What the pool's workers read (grid_pool): set before they fork, so shared
# with them rather than sent.
_SHARED = {}


def grid_pool(grid, jobs, sub=SUB):
    """A pool of `jobs` forked processes for ocean_fraction and
    check_east_north on `grid`, None for one job. The grid and the land mask
    (global_land_mask reads its 1 km mask at import) are in memory before the
    fork: the workers share them, and get only the rows of their block."""
    jobs = min(jobs, len(row_blocks(grid["x"].shape)))  # a block per worker at most
    if jobs < 2:
        return None
    import multiprocessing

    from global_land_mask import globe  # noqa: F401  (loaded before the fork)

    _SHARED.update(lon=grid["x"], lat=grid["y"], x_bnds=grid["x_bnds"], y_bnds=grid["y_bnds"],
                   sub=sub)
    return multiprocessing.get_context("fork").Pool(jobs)


def row_blocks(shape):
    """Slices of about MASK_BLOCK_CELLS cells of whole rows of an (ny, nx) grid."""
    ny, nx = shape
    rows = max(1, MASK_BLOCK_CELLS // nx)
    return [slice(j0, min(ny, j0 + rows)) for j0 in range(0, ny, rows)]


def _projection_errors_rows(block):
    return projection_errors(_SHARED["lon"][block], _SHARED["lat"][block])


def ocean_count(x_bnds, y_bnds, sub=SUB):
    """Ocean sub-points of each cell of a block, given the longitudes and
    latitudes of its cells' corners (degrees, (..., 4)): sub x sub points
    bilinear between the corners in the map plane, each looked up in
    global_land_mask.globe (GLOBE land/sea at 1 km)."""
    from global_land_mask import globe

    t = (np.arange(sub) + 0.5) / sub
    count = np.zeros(x_bnds.shape[:-1])
    cx, cy = forward(x_bnds, y_bnds)
    for s in t:
        for r in t:
            w = ((1 - s) * (1 - r), s * (1 - r), s * r, (1 - s) * r)
            x = sum(w[k] * cx[..., k] for k in range(4))
            y = sum(w[k] * cy[..., k] for k in range(4))
            lon, lat = inverse(x, y)
            count += globe.is_ocean(lat, lon)
    return count


def _ocean_count_rows(block):
    return ocean_count(_SHARED["x_bnds"][block], _SHARED["y_bnds"][block], _SHARED["sub"])


def ocean_fraction(grid, sub=SUB, pool=None):
    """Fraction of sub x sub sub-points of each cell that are ocean
    (ocean_count). Blocks of rows one after the other, or at once on the
    workers of `pool` (grid_pool's of this grid, made with the same sub):
    every sub-point is computed exactly as over the whole grid at once, in
    far less memory."""
    blocks = row_blocks(grid["x"].shape)
    if pool is None:
        parts = [ocean_count(grid["x_bnds"][b], grid["y_bnds"][b], sub) for b in blocks]
    else:
        parts = pool.map(_ocean_count_rows, blocks)
    return np.concatenate(parts) / (sub * sub)


def connected(ocean, seed):
    """Cells of `ocean` (bool, (ny, nx)) joined to cell `seed` (j, i) through
    cell faces. The search walks runs of ocean cells along rows, not cells:
    two runs in neighbouring rows are joined when they share a column. A 2 km
    grid has about 100 times fewer runs than ocean cells."""
    ny, nx = ocean.shape
    if not ocean[seed]:
        raise SystemExit(f"make_arctic: the cell nearest the pole {seed} is not ocean")
    edges = np.diff(np.pad(ocean, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    run_row, run_start = np.nonzero(edges == 1)  # row-major: by row, then column
    run_end = np.nonzero(edges == -1)[1]  # one past the last cell
    first = np.searchsorted(run_row, np.arange(ny + 1)).tolist()
    starts, ends, rows = run_start.tolist(), run_end.tolist(), run_row.tolist()
    j, i = seed
    k = bisect.bisect_right(starts, i, first[j], first[j + 1]) - 1
    kept = np.zeros(len(starts), dtype=bool)
    kept[k] = True
    todo = [k]
    while todo:
        k = todo.pop()
        for jj in (rows[k] - 1, rows[k] + 1):
            if not 0 <= jj < ny:
                continue
            # runs of row jj that end after this one starts and start before it ends
            lo = bisect.bisect_right(ends, starts[k], first[jj], first[jj + 1])
            hi = bisect.bisect_left(starts, ends[k], first[jj], first[jj + 1])
            for m in range(lo, hi):
                if not kept[m]:
                    kept[m] = True
                    todo.append(m)
    inside = np.zeros((ny, nx + 1), dtype=np.int8)
    inside[run_row[kept], run_start[kept]] = 1
    inside[run_row[kept], run_end[kept]] = -1
    return np.cumsum(inside, axis=1)[:, :nx] > 0


def min_width(grid, mask, radius=MAP_RADIUS):
    """Smallest midline (m) of the ocean cells, chords between the corners on
    a sphere of `radius`: the width in the mEVP stability bound."""
    ocean = mask > 0
    lam, phi = np.radians(grid["x_bnds"][ocean]), np.radians(grid["y_bnds"][ocean])
    r = radius * np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], -1)
    w1 = np.linalg.norm(r[..., 1, :] + r[..., 2, :] - r[..., 0, :] - r[..., 3, :], axis=-1) / 2
    w2 = np.linalg.norm(r[..., 3, :] + r[..., 2, :] - r[..., 0, :] - r[..., 1, :], axis=-1) / 2
    return float(np.min(np.minimum(w1, w2)))


def write_vector_forcing(path, grid, fields, days, title, source):
    """Steady east/north vector forcing `fields` (name: (values, long_name),
    m s-1, cell centres) as a forcing file (forcing = 'netcdf'): two identical
    records, at 0 and `days` days after 2000-01-01 (the namelists' start)."""
    import netCDF4

    lon, lat = grid["x"], grid["y"]
    ny, nx = lon.shape
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as d:
        d.title = title
        d.source = source
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


def write_forcing(path, grid, days):
    """The steady Beaufort High wind and Beaufort Gyre current."""
    lon, lat = grid["x"], grid["y"]
    x, y = forward(lon, lat)
    fields = {}
    for name, centre, what in (("wind", WIND, "10 m wind"), ("ocean", OCEAN, "ocean surface velocity")):
        ue, vn = to_east_north(*vortex(x, y, centre), lon)
        fields["u" + name] = (ue, "eastward " + what)
        fields["v" + name] = (vn, "northward " + what)
    write_vector_forcing(path, grid, fields, days,
                         "Arctic case forcing: steady Beaufort High wind and Beaufort Gyre current",
                         "scripts/make_arctic.py (docs/arctic.md)")
    return fields


def write_ice_init(path, h, a, title, source):
    """An init_file of &cryo_seaice: cell means h (m) and a (1), (y, x)."""
    import netCDF4

    ny, nx = h.shape
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as d:
        d.title = title
        d.source = source
        d.createDimension("y", ny)
        d.createDimension("x", nx)
        for k, val, units in (("h", h, "m"), ("a", a, "1")):
            v = d.createVariable(k, "f8", ("y", "x"))
            v.units = units
            v[:] = val


def write_summer_init(path, grid, mask, lat_min):
    """h = 2 m, a = 1 in the ocean cells whose centre lies north of lat_min,
    0 elsewhere (init_file of &cryo_seaice); returns the ice cell count."""
    ice = (mask > 0) & (grid["y"] > lat_min)
    write_ice_init(path, 2.0 * ice, 1.0 * ice,
                   f"Arctic case initial state: 2 m of compact ice north of {lat_min:g} N",
                   "scripts/make_arctic.py --summer (docs/arctic.md)")
    return int(ice.sum())


def arctic_case(ap, resolution, cells):
    """The grid of --resolution KM or --cells N over the square of side SIDE:
    FULL when neither is given or they ask for its size."""
    if resolution is not None:
        if not resolution > 0:
            ap.error(f"--resolution {resolution:g}: must be > 0")
        cells = round(SIDE / (resolution * 1e3))
        if cells < 2 or abs(cells * resolution * 1e3 - SIDE) > 1e-6 * SIDE:
            ap.error(f"--resolution {resolution:g}: {SIDE / 1e3:g} km is not a whole number "
                     f"(at least 2) of cells of {resolution:g} km")
    if cells is None or cells == FULL["n"]:
        return FULL
    if cells < 2:
        ap.error(f"--cells {cells}: must be at least 2")
    dx = SIDE / cells
    return {"n": cells, "dx": dx, "days": FULL["days"], "name": f"arctic_{dx / 1e3:g}km"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--small", action="store_true", help="40 x 40 cells of 180 km (tests)")
    size.add_argument("--resolution", type=float, metavar="KM",
                      help=f"cells of KM km over the {SIDE / 1e3:g} km square (default "
                      f"{FULL['dx'] / 1e3:g}); {SIDE / 1e3:g} / KM must be a whole number")
    size.add_argument("--cells", type=int, metavar="N",
                      help=f"N x N cells over the {SIDE / 1e3:g} km square (default {FULL['n']})")
    ap.add_argument("--out-dir", default=".", help="directory of the files (default .)")
    ap.add_argument("--days", type=float, help="days spanned by the forcing records "
                    "(default 30, with --small 2)")
    ap.add_argument("--summer", type=float, metavar="LAT",
                    help="also write <name>_summer_init.nc: ice north of LAT degrees only")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="processes for the land mask and the projection check, each a block "
                    "of rows at a time (default: the CPU count, %(default)s here)")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error(f"--jobs {args.jobs}: must be at least 1")
    case = SMALL if args.small else arctic_case(ap, args.resolution, args.cells)
    days = case["days"] if args.days is None else args.days
    if not days > 0:
        ap.error(f"--days {days}: must be > 0")
    if args.summer is not None and not -90.0 <= args.summer < 90.0:
        ap.error(f"--summer {args.summer:g}: must be a latitude in [-90, 90)")
    os.makedirs(args.out_dir, exist_ok=True)

    grid = make_grid.polar_stereographic(case["n"], case["n"], case["dx"], lat_true=LAT_TRUE,
                                         lon0=LON0)
    pool = grid_pool(grid, args.jobs)
    try:
        err = check_east_north(grid["x"], grid["y"], pool=pool)
        frac = ocean_fraction(grid, pool=pool)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
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
          f"{int(mask.sum())} ocean ({100 * mask.mean():.1f} %), "
          f"{int(ocean.sum() - mask.sum())} ocean cells not joined "
          f"to the Arctic set to land; smallest ocean cell width {min_width(grid, mask):.0f} m")
    print(f"make_arctic: {forcing_path}: {days:g} days, wind up to {wind.max():.2f} m/s, "
          f"current up to {curr.max():.3f} m/s (east/north; directions checked against the "
          f"projection to {err:.1e})")
    if args.summer is not None:
        init_path = os.path.join(args.out_dir, case["name"] + "_summer_init.nc")
        n_ice = write_summer_init(init_path, grid, mask, args.summer)
        print(f"make_arctic: {init_path}: ice north of {args.summer:g} N in {n_ice} cells "
              f"({100 * n_ice / max(1, int(mask.sum())):.1f} % of the ocean)")


if __name__ == "__main__":
    main()
