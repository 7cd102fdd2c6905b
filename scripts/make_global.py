#!/usr/bin/env python3
"""Files of the global case (docs/global.md): a tripolar grid with the GLOBE coastline, a steady
wind and current over both polar oceans, and the initial ice of both hemispheres.

Writes, in --out-dir, for cells of RES degrees (default 1; files global_<RES>deg_*.nc, or
global_<RES>deg_<ROWS>_*.nc with --ny ROWS):
  global_<RES>deg_grid.nc     make_grid.tripolar (Murray 1996; T-point fold by default),
                              360 / RES cells around, the land mask of the GLOBE data
                              (global_land_mask): a cell is ocean when most of its 5 x 5
                              sub-points are, and only the ocean joined through cell faces
                              (across the seam and the fold) to the open Pacific is kept;
                              the fold's pivot cells are land
  global_<RES>deg_forcing.nc  steady wind and ocean current, east/north components at the
                              cell centres, two identical records (0 and --days days)
  global_<RES>deg_init.nc     h = 2 m, a = 1 in the ocean north of 70 N, h = 1 m, a = 1 in
                              the ocean south of 62 S, open water elsewhere

Run with the tools environment's Python (scripts/install-deps.sh, docs/arctic.md):
  "$(sh scripts/tools-python)" scripts/make_global.py [--resolution DEG] [--fold T|F]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_arctic  # noqa: E402
import make_grid  # noqa: E402

SUB = 5  # sub-points per cell side for the land mask, as make_arctic.py
SEED = (0.0, -150.0)  # lat, lon of the cell whose ocean is kept (the equatorial Pacific)

# The Southern Ocean: a circumpolar westerly wind, strongest at WEST_LAT, and a westward
# coastal current, strongest at COAST_LAT; Gaussian in latitude (degrees, m s-1).
WEST = {"lat": -55.0, "width": 12.0, "speed": 10.0}
COAST = {"lat": -67.0, "width": 4.0, "speed": -0.10}

# The initial ice: thickness (m) poleward of these latitudes (degrees), concentration 1.
ICE_NORTH = {"lat": 70.0, "h": 2.0}
ICE_SOUTH = {"lat": -62.0, "h": 1.0}


def unit(lon, lat):
    """Unit vectors (..., 3) of lon, lat (degrees)."""
    lam, phi = np.radians(lon), np.radians(lat)
    return np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], -1)


def ocean_fraction(grid, sub=SUB):
    """Fraction of sub x sub sub-points of each cell that are ocean (GLOBE at 1 km): the
    points bilinear between the corners in 3-D, put back on the sphere, so that cells
    across the seam and around the North Pole are sampled like any other."""
    from global_land_mask import globe

    p = unit(grid["x_bnds"], grid["y_bnds"])
    t = (np.arange(sub) + 0.5) / sub
    count = np.zeros(grid["x"].shape)
    for s in t:
        for r in t:
            w = ((1 - s) * (1 - r), s * (1 - r), s * r, (1 - s) * r)
            q = sum(w[k] * p[..., k, :] for k in range(4))
            lat = np.degrees(np.arctan2(q[..., 2], np.hypot(q[..., 0], q[..., 1])))
            lon = np.degrees(np.arctan2(q[..., 1], q[..., 0]))
            count += globe.is_ocean(np.clip(lat, -90.0, 90.0), (lon + 180.0) % 360.0 - 180.0)
    return count / (sub * sub)


def fold_copy(a, fold):
    """A T fold's top row holds each cell twice (cell i is cell nx - i): the copies take
    the originals' values (i < nx / 2), so that both are one cell to the bit."""
    if fold == "T":
        nx = a.shape[1]
        i = np.arange(nx // 2 + 1, nx)
        a[-1, i] = a[-1, nx - i]
    return a


def distinct(shape, fold):
    """True for each cell once: False for a T fold's copies (top row, i > nx / 2)."""
    one = np.ones(shape, dtype=bool)
    if fold == "T":
        one[-1, shape[1] // 2 + 1:] = False
    return one


def connected(ocean, seed, fold):
    """Cells of `ocean` joined to cell `seed` (j, i) through faces: east-west across the
    seam, and north across the fold (T: the north face of top-row cell i is the south
    face of its copy nx - i, so cell (nx - i, ny - 2) is its neighbour; F: top-row cell
    i meets cell nx - 1 - i)."""
    ny, nx = ocean.shape
    if not ocean[seed]:
        raise SystemExit(f"make_global: the seed cell {seed} is not ocean")
    kept = np.zeros_like(ocean)
    kept[seed] = True
    mirror = (nx - np.arange(nx)) % nx if fold == "T" else nx - 1 - np.arange(nx)
    while True:
        grow = kept | np.roll(kept, 1, axis=1) | np.roll(kept, -1, axis=1)
        grow[1:] |= kept[:-1]
        grow[:-1] |= kept[1:]
        if fold == "T":
            grow[-1] |= kept[-2, mirror]
            grow[-2] |= kept[-1, mirror]
            grow[-1] |= kept[-1, mirror]
        else:
            grow[-1] |= kept[-1, mirror]
        grow &= ocean
        if np.array_equal(grow, kept):
            return kept
        kept = grow


def min_width(grid, mask, radius=make_grid.EARTH_RADIUS):
    """Smallest midline (m) of the ocean cells, chords between the corners: the width in
    the mEVP stability bound (make_arctic.min_width)."""
    return make_arctic.min_width(grid, mask, radius)


def forcing_fields(lon, lat):
    """East and north wind and current (m s-1) at lon, lat (degrees).

    North: make_arctic's Beaufort High and Beaufort Gyre (vortices in its polar
    stereographic plane, docs/arctic.md, Forcing). South: a zonal westerly
    u = WEST.speed exp(-((lat - WEST.lat) / WEST.width)^2) and a zonal coastal current
    u = COAST.speed exp(-((lat - COAST.lat) / COAST.width)^2) (negative: westward),
    v = 0 for both."""
    x, y = make_arctic.forward(lon, lat)
    uw, vw = make_arctic.to_east_north(*make_arctic.vortex(x, y, make_arctic.WIND), lon)
    uo, vo = make_arctic.to_east_north(*make_arctic.vortex(x, y, make_arctic.OCEAN), lon)
    uw = uw + WEST["speed"] * np.exp(-(((lat - WEST["lat"]) / WEST["width"]) ** 2))
    uo = uo + COAST["speed"] * np.exp(-(((lat - COAST["lat"]) / COAST["width"]) ** 2))
    return {"uwind": (uw, "eastward 10 m wind"), "vwind": (vw, "northward 10 m wind"),
            "uocean": (uo, "eastward ocean surface velocity"),
            "vocean": (vo, "northward ocean surface velocity")}


def write_forcing(path, grid, days):
    """The steady forcing of forcing_fields (make_arctic.write_vector_forcing)."""
    fields = forcing_fields(grid["x"], grid["y"])
    make_arctic.write_vector_forcing(
        path, grid, fields, days,
        "Global case forcing: Beaufort High wind and Beaufort Gyre current in the north, "
        "circumpolar westerly and westward coastal current in the south",
        "scripts/make_global.py (docs/global.md)")
    return fields


def write_init(path, grid, mask, once):
    """init_file of &cryo_seaice: ICE_NORTH and ICE_SOUTH's ice in the ocean poleward of
    their latitudes, 0 elsewhere and on land; returns the ice cells of each hemisphere
    (the cells where `once` is true)."""
    ocean = mask > 0
    north = ocean & (grid["y"] > ICE_NORTH["lat"])
    south = ocean & (grid["y"] < ICE_SOUTH["lat"])
    make_arctic.write_ice_init(
        path, ICE_NORTH["h"] * north + ICE_SOUTH["h"] * south, 1.0 * (north | south),
        f"Global case initial state: {ICE_NORTH['h']:g} m of compact ice north of "
        f"{ICE_NORTH['lat']:g} N, {ICE_SOUTH['h']:g} m south of {-ICE_SOUTH['lat']:g} S",
        "scripts/make_global.py (docs/global.md)")
    return int((north & once).sum()), int((south & once).sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--resolution", type=float, default=1.0, metavar="DEG",
                    help="cells of DEG degrees around (default 1); 360 / DEG must be an even "
                    "whole number")
    ap.add_argument("--fold", choices=("T", "F"), default="T",
                    help="pivot of the north fold: cell centres (T, default) or nodes (F)")
    ap.add_argument("--ny", type=int, metavar="ROWS",
                    help="rows in all, to meet a host ocean's grid size (1080 at 0.25 degrees); "
                    "cells then taller or shorter than wide; files global_<RES>deg_<ROWS>_*.nc "
                    "(default: square cells)")
    ap.add_argument("--out-dir", default=".", help="directory of the files (default .)")
    ap.add_argument("--days", type=float, default=30.0,
                    help="days spanned by the forcing records (default 30)")
    args = ap.parse_args()
    if not args.resolution > 0:
        ap.error(f"--resolution {args.resolution:g}: must be > 0")
    nx = round(360.0 / args.resolution)
    if nx < 4 or nx % 2 or abs(nx * args.resolution - 360.0) > 1e-9 * 360.0:
        ap.error(f"--resolution {args.resolution:g}: 360 degrees is not an even whole number "
                 f"(at least 4) of cells of {args.resolution:g} degrees")
    if not args.days > 0:
        ap.error(f"--days {args.days:g}: must be > 0")
    os.makedirs(args.out_dir, exist_ok=True)
    name = f"global_{args.resolution:g}deg" + (f"_{args.ny}" if args.ny else "")

    try:
        grid = make_grid.tripolar(nx, args.fold, ny=args.ny)
    except ValueError as e:
        ap.error(str(e))
    ocean = fold_copy(ocean_fraction(grid) > 0.5, args.fold)
    for j, i in grid["pivot_cells"]:
        ocean[j, i] = False
    lat, lon = grid["y"], grid["x"]
    d2 = (lat - SEED[0]) ** 2 + (((lon - SEED[1]) + 180.0) % 360.0 - 180.0) ** 2
    seed = np.unravel_index(np.argmin(d2), d2.shape)
    mask = fold_copy(connected(ocean, seed, args.fold), args.fold).astype(np.int32)
    paths = {k: os.path.join(args.out_dir, f"{name}_{k}.nc") for k in ("grid", "forcing", "init")}
    make_grid.write(paths["grid"], grid, mask=mask,
                    history="make_global.py " + " ".join(sys.argv[1:]))
    fields = write_forcing(paths["forcing"], grid, args.days)
    once = distinct(mask.shape, args.fold)
    n_north, n_south = write_init(paths["init"], grid, mask, once)

    ny = mask.shape[0]
    n_cells = int(once.sum())
    n_ocean = int((mask > 0)[once].sum())
    cut = int((ocean & ~(mask > 0))[once].sum())
    wind = np.hypot(fields["uwind"][0], fields["vwind"][0])
    curr = np.hypot(fields["uocean"][0], fields["vocean"][0])
    print(f"make_global: {paths['grid']}: {nx} x {ny} cells of {args.resolution:g} degrees "
          f"({args.fold} fold), {n_ocean} ocean ({100 * n_ocean / n_cells:.1f} % of "
          f"{n_cells} distinct cells), {cut} ocean cells not "
          f"joined to the world ocean set to land; smallest ocean cell width "
          f"{min_width(grid, mask):.0f} m")
    print(f"make_global: {paths['forcing']}: {args.days:g} days, wind up to {wind.max():.2f} m/s, "
          f"current up to {curr.max():.3f} m/s (east/north)")
    print(f"make_global: {paths['init']}: ice in {n_north} cells north of {ICE_NORTH['lat']:g} N "
          f"({ICE_NORTH['h']:g} m) and {n_south} south of {-ICE_SOUTH['lat']:g} S "
          f"({ICE_SOUTH['h']:g} m)")


if __name__ == "__main__":
    main()
