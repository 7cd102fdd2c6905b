#!/usr/bin/env python3
"""Test grids for cryodyn's &cryo_grid grid_file (namelists/README.md, Grid files).

Each generator returns a dict of numpy arrays describing nx x ny cells:
  spherical        True: lon/lat in degrees; False: x/y in metres (a plane)
  node_x, node_y   (ny + 1, nx + 1) corner nodes, node (i, j) at [j, i]
  x, y             (ny, nx) cell centres
  x_bnds, y_bnds   (ny, nx, 4) corners of each cell, counterclockwise from
                   node (i, j): (i, j), (i+1, j), (i+1, j+1), (i, j+1)
  angle            (ny, nx) direction of the grid's i axis at the centre,
                   degrees counterclockwise from east (+x for planar grids)
  attrs            generator and parameters, written as global attributes
write() stores one in the file format cryodyn reads.

Command line (one kind per call):
  python3 scripts/make_grid.py cartesian --nx 8 --ny 6 --dx 8000 -o box.nc
  python3 scripts/make_grid.py rotated --nx 8 --ny 6 --dx 8000 --angle 30 -o rot.nc
  python3 scripts/make_grid.py stretched --nx 8 --ny 6 --dx 8000 --amplitude 0.5 -o s.nc
  python3 scripts/make_grid.py latlon --nx 20 --ny 10 --lon0 -10 --lon1 10 \\
      --lat0 70 --lat1 80 -o ll.nc
  python3 scripts/make_grid.py polar_stereographic --nx 40 --ny 40 --dx 25000 -o ps.nc
  python3 scripts/make_grid.py tripolar --nx 72 --fold F -o tri.nc
with --area (cell areas), --angle-var (the angle variable), --land-margin N
(a mask with land in the N outermost rows and columns).

Needs numpy and netCDF4 (Debian: python3-numpy, python3-netcdf4).
"""

import argparse
import sys

import numpy as np

EARTH_RADIUS = 6371229.0  # m, the default of &cryo_grid earth_radius


def _from_nodes(node_x, node_y, x, y, spherical, angle, attrs):
    """Corners of every cell from the node arrays, CF order."""

    def corners(n):
        return np.stack([n[:-1, :-1], n[:-1, 1:], n[1:, 1:], n[1:, :-1]], axis=-1)

    return {
        "spherical": spherical,
        "node_x": node_x,
        "node_y": node_y,
        "x": x,
        "y": y,
        "x_bnds": corners(node_x),
        "y_bnds": corners(node_y),
        "angle": angle,
        "attrs": attrs,
    }


def cartesian(nx, ny, dx, dy):
    """The built-in box: node (i, j) at (i dx, j dy) exactly, centres at the midpoints."""
    i = np.arange(nx + 1, dtype=float)
    j = np.arange(ny + 1, dtype=float)
    node_x, node_y = np.meshgrid(i * dx, j * dy)
    x, y = np.meshgrid((np.arange(nx) + 0.5) * dx, (np.arange(ny) + 0.5) * dy)
    attrs = {"grid_kind": "cartesian", "dx": dx, "dy": dy}
    return _from_nodes(node_x, node_y, x, y, False, np.zeros((ny, nx)), attrs)


def rotated(nx, ny, dx, dy, angle_deg):
    """The Cartesian box turned counterclockwise by angle_deg about the origin (node (0, 0))."""
    g = cartesian(nx, ny, dx, dy)
    c, s = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))

    def turn(px, py):
        return c * px - s * py, s * px + c * py

    node_x, node_y = turn(g["node_x"], g["node_y"])
    x, y = turn(g["x"], g["y"])
    attrs = {"grid_kind": "rotated", "dx": dx, "dy": dy, "rotation": angle_deg}
    return _from_nodes(node_x, node_y, x, y, False, np.full((ny, nx), float(angle_deg)), attrs)


def _stretch(n, d, amplitude):
    """Positions of n + 1 nodes over n d: t + amplitude / (2 pi) sin(2 pi t), t in [0, 1];
    cell sizes vary smoothly between (1 - amplitude) d and (1 + amplitude) d."""
    t = np.arange(n + 1, dtype=float) / n
    return n * d * (t + amplitude / (2.0 * np.pi) * np.sin(2.0 * np.pi * t))


def stretched(nx, ny, dx, dy, amplitude):
    """Planar rectangles whose widths vary smoothly along x and y (|amplitude| < 1)."""
    if not abs(amplitude) < 1.0:
        raise ValueError("stretched: |amplitude| must be < 1 (cells would fold)")
    xs, ys = _stretch(nx, dx, amplitude), _stretch(ny, dy, amplitude)
    node_x, node_y = np.meshgrid(xs, ys)
    x, y = np.meshgrid(0.5 * (xs[:-1] + xs[1:]), 0.5 * (ys[:-1] + ys[1:]))
    attrs = {"grid_kind": "stretched", "dx": dx, "dy": dy, "amplitude": amplitude}
    return _from_nodes(node_x, node_y, x, y, False, np.zeros((ny, nx)), attrs)


def latlon(nx, ny, lon0, lon1, lat0, lat1, periodic_x=False):
    """A longitude-latitude sector, uniform in degrees, i eastward and j northward; with
    periodic_x a band around the globe (lon1 = lon0 + 360) that says so (periodic_x = 1)."""
    if not (-90.0 <= lat0 < lat1 <= 90.0 and lon0 < lon1):
        raise ValueError("latlon: need lon0 < lon1 and -90 <= lat0 < lat1 <= 90")
    if periodic_x and lon1 - lon0 != 360.0:
        raise ValueError("latlon: periodic_x needs lon1 = lon0 + 360")
    lons = lon0 + (lon1 - lon0) * np.arange(nx + 1) / nx
    lats = lat0 + (lat1 - lat0) * np.arange(ny + 1) / ny
    node_x, node_y = np.meshgrid(lons, lats)
    x, y = np.meshgrid(0.5 * (lons[:-1] + lons[1:]), 0.5 * (lats[:-1] + lats[1:]))
    attrs = {
        "grid_kind": "latlon",
        "lon0": lon0,
        "lon1": lon1,
        "lat0": lat0,
        "lat1": lat1,
    }
    if periodic_x:
        attrs["periodic_x"] = np.int32(1)
    return _from_nodes(node_x, node_y, x, y, True, np.zeros((ny, nx)), attrs)


def _mercator_y(lat):
    return np.log(np.tan(np.pi / 4.0 + np.radians(lat) / 2.0))


def _mercator_lat(y):
    return np.degrees(2.0 * np.arctan(np.exp(y)) - np.pi / 2.0)


def tripolar(nx, fold="F", lat_south=-78.0, lat_join=50.0, lat_pole=65.0, lon_pole=-100.0,
             ny_cap=None, ny=None):
    """A global tripolar grid after Murray (1996, J. Comput. Phys. 126, 251-273), nx cells
    around (even; 360 / nx degrees), folded at its top as NEMO's ORCA grids (Madec and
    Imbard 1996) with a T-point (fold = 'T') or F-point (fold = 'F') pivot.

    South of lat_join: a Mercator grid, square cells, rows from lat_south (moved by less
    than a row so that a whole number of rows ends at lat_join exactly). North of it, in
    the polar stereographic plane zeta = tan((90 - lat) / 2) exp(i (lon - lon_pole)) (from
    the South Pole, the North Pole at 0), a bipolar cap: row s in [0, 1] is the curve
    zeta = A(s) cos nu + i B(s) sin nu, nu = lon - lon_pole of the column, with
      A = c cosh(mu) kA(s), B = c sinh(mu) kB(s), mu = mu0 (1 - s),
    c = tan((90 - lat_pole) / 2), c cosh(mu0) = r = tan((90 - lat_join) / 2):
    Murray's confocal ellipses and hyperbolae about the two poles (+-c: latitude lat_pole,
    longitudes lon_pole and lon_pole + 180, the grid's two northern poles), orthogonal
    near the fold, with kA, kB = 1 + (k(0) - 1) (1 - s)^2 turning the first row into the
    circle of latitude lat_join (kA(0) = 1, kB(0) = coth(mu0)), so that the cap meets the
    Mercator grid on a parallel at the same longitudes. The last row (s = 1, mu = 0) is
    the segment between the poles, which columns nu and -nu reach at the same point:
    the fold. F: columns of nodes at nu = 360 i / nx, the fold on the top node row, the
    pivots the nodes at the poles; T: columns of centres at nu = 360 i / nx, the fold
    through the centres of the top row (s = 1 there), node row ny the mirror image of
    row ny - 1, the pivots the cells (0, ny - 1) and (nx/2, ny - 1) around the poles, flat
    (namelists/README.md, Grid files). Images across the fold and the seam have the
    same bits. ny_cap: rows of the cap (default: cells about as tall as at the join).
    ny: rows in all, when a host model's grid size must be met (1440 x 1080 for a 1/4 degree
    ocean): the rows of both parts are scaled by one factor from their square-cell counts,
    the Mercator rows then start at lat_south exactly and their cells are ny0 / ny times as
    tall as wide (ny0 the square-cell row count); ny_cap is then ignored."""
    if nx < 4 or nx % 2:
        raise ValueError("tripolar: nx must be even and at least 4")
    if fold not in ("T", "F"):
        raise ValueError("tripolar: fold must be 'T' or 'F'")
    if not -90.0 < lat_south < lat_join < lat_pole < 90.0:
        raise ValueError("tripolar: need -90 < lat_south < lat_join < lat_pole < 90")
    if ny is not None and ny < 3:
        raise ValueError(f"tripolar: ny = {ny}: need at least 3 rows")
    t = fold == "T"
    dlon = 2.0 * np.pi / nx
    # columns: nu of nodes i = 0 .. nx (and of centres), mirror images exactly opposite
    off = 0.5 if t else 0.0

    def angles(k):
        """cos, sin of nu = dlon (k - off) with cos(nu_m) = cos(nu_k), sin(nu_m) = -sin(nu_k)
        for the mirror image m of k (m = nx + 2 off - k) to the bit."""
        nu = dlon * (k - off)
        c, s_ = np.cos(nu), np.sin(nu)
        m = nx + 2.0 * off - k
        lower = k > m  # the half past the far pivot takes its mirror's values
        c = np.where(lower, np.cos(dlon * (m - off)), c)
        s_ = np.where(lower, -np.sin(dlon * (m - off)), s_)
        return nu, c, s_

    inode = np.arange(nx + 1, dtype=float)
    icell = np.arange(nx, dtype=float) + 0.5
    # the seam: node nx is node 0
    nu_n, cn, sn = angles(inode)
    cn[-1], sn[-1] = cn[0], sn[0]
    nu_c, cc, sc = angles(icell)
    # Mercator rows, the last on lat_join
    yj = _mercator_y(lat_join)
    n_south, cap_rows = _square_rows(nx, lat_south, lat_join, lat_pole)
    dy = dlon
    if ny is not None:
        n_south = min(ny - 2, max(1, int(round(n_south * ny / (n_south + cap_rows)))))
        ny_cap = ny - n_south
        dy = (yj - _mercator_y(lat_south)) / n_south
    elif ny_cap is None:
        ny_cap = cap_rows
    lat_rows = _mercator_lat(yj - dy * np.arange(n_south, -1, -1, dtype=float))
    lat_rows[-1] = lat_join
    lat_mid = _mercator_lat(yj - dy * (np.arange(n_south, 0, -1, dtype=float) - 0.5))
    # the cap
    r = np.tan(np.radians(90.0 - lat_join) / 2.0)
    c0 = np.tan(np.radians(90.0 - lat_pole) / 2.0)
    mu0 = np.arccosh(r / c0)
    kb0 = 1.0 / np.tanh(mu0)

    def cap(s, cosnu, sinnu):
        """lon (relative to lon_pole), lat of cap points at rows s and columns (cos, sin nu)."""
        w = (1.0 - s) ** 2
        a = c0 * np.cosh(mu0 * (1.0 - s))
        b = c0 * np.sinh(mu0 * (1.0 - s)) * (1.0 + (kb0 - 1.0) * w)
        zx, zy = a * cosnu, b * sinnu
        lat = 90.0 - 2.0 * np.degrees(np.arctan(np.hypot(zx, zy)))
        return np.degrees(np.arctan2(zy, zx)), lat

    # cap rows of nodes: s = 0 (the join) .. 1 (F: the fold) or ny_cap - 1/2 rows (T)
    span = ny_cap - 0.5 if t else float(ny_cap)
    s_node = np.arange(ny_cap + 1, dtype=float) / span
    s_cell = (np.arange(ny_cap, dtype=float) + 0.5) / span
    s_node[0] = 0.0
    if not t:
        s_node[-1] = 1.0
    else:
        s_cell[-1] = 1.0
    ny = n_south + ny_cap
    node_x = np.empty((ny + 1, nx + 1))
    node_y = np.empty((ny + 1, nx + 1))
    node_x[: n_south + 1] = np.degrees(nu_n)[None, :]
    node_y[: n_south + 1] = lat_rows[:, None]
    for k in range(1, ny_cap + 1):
        lon, lat = cap(s_node[k], cn, sn)
        node_x[n_south + k], node_y[n_south + k] = lon, lat
    if t:
        # node (i, ny) is node (nx + 1 - i, ny - 1)
        m = (nx + 1 - np.arange(nx + 1)) % nx
        node_x[ny], node_y[ny] = node_x[ny - 1, m], node_y[ny - 1, m]
    else:
        # node (i, ny) is node (nx - i, ny)
        m = nx - np.arange(nx + 1)
        half = np.arange(nx + 1) > nx // 2
        node_x[ny, half], node_y[ny, half] = node_x[ny, m[half]], node_y[ny, m[half]]
    x = np.empty((ny, nx))
    y = np.empty((ny, nx))
    x[:n_south] = np.degrees(nu_c)[None, :]
    y[:n_south] = lat_mid[:, None]
    for k in range(ny_cap):
        x[n_south + k], y[n_south + k] = cap(s_cell[k], cc, sc)
    node_x += lon_pole
    x += lon_pole
    attrs = {
        "grid_kind": "tripolar",
        "nx_cells": np.int32(nx),
        "lat_south": float(lat_rows[0]),
        "lat_join": lat_join,
        "lat_pole": lat_pole,
        "lon_pole": lon_pole,
        "ny_cap": np.int32(ny_cap),
        "periodic_x": np.int32(1),
        "north_fold": fold,
    }
    g = _from_nodes(node_x, node_y, x, y, True, np.zeros((ny, nx)), attrs)
    g["angle"] = _sphere_angle(g)
    g["pivot_cells"] = _pivot_cells(nx, ny, fold)
    return g


def _square_rows(nx, lat_south, lat_join, lat_pole):
    """(Mercator rows, cap rows) of the square-cell tripolar grid of nx columns: the Mercator
    rows a whole number from lat_south (moved by less than a row) to lat_join; the cap's first
    row at nu = 90 degrees, where its rows are tallest, as tall as the Mercator row at the
    join (d zeta / d colatitude = (1 + r^2) / 2; -dB/ds at s = 0 is
    c (mu0 cosh(mu0) kB(0) + 2 sinh(mu0) (kB(0) - 1)))."""
    dlon = 2.0 * np.pi / nx
    n_south = max(1, int(round((_mercator_y(lat_join) - _mercator_y(lat_south)) / dlon)))
    r = np.tan(np.radians(90.0 - lat_join) / 2.0)
    c0 = np.tan(np.radians(90.0 - lat_pole) / 2.0)
    mu0 = np.arccosh(r / c0)
    dzeta = 0.5 * (1.0 + r * r) * dlon * np.cos(np.radians(lat_join))
    kb = 1.0 / np.tanh(mu0)
    dbds = c0 * (mu0 * np.cosh(mu0) * kb + 2.0 * np.sinh(mu0) * (kb - 1.0))
    return n_south, max(2, int(round(dbds / dzeta)))


def _sphere_angle(grid):
    """Direction (degrees from east) at each centre of the chord from the midpoint of the
    west edge (corners 0, 3) to that of the east edge (corners 1, 2)."""
    lam, phi = np.radians(grid["x_bnds"]), np.radians(grid["y_bnds"])
    p = np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], axis=-1)
    t = (p[..., 1, :] + p[..., 2, :]) - (p[..., 0, :] + p[..., 3, :])
    lc, pc = np.radians(grid["x"]), np.radians(grid["y"])
    east = np.stack([-np.sin(lc), np.cos(lc), np.zeros_like(lc)], axis=-1)
    north = np.stack([-np.sin(pc) * np.cos(lc), -np.sin(pc) * np.sin(lc), np.cos(pc)], axis=-1)
    return np.degrees(np.arctan2(np.sum(t * north, axis=-1), np.sum(t * east, axis=-1)))


def _pivot_cells(nx, ny, fold):
    """(j, i) of the cells that must be land at the fold's pivots: T, the flat pivot cells;
    F, the two cells of the top row at each pivot node."""
    if fold == "T":
        return [(ny - 1, 0), (ny - 1, nx // 2)]
    return [(ny - 1, nx - 1), (ny - 1, 0), (ny - 1, nx // 2 - 1), (ny - 1, nx // 2)]


def tripolar_mask(grid, lat_land=None, pole_radius=0.0):
    """Land (0) where a tripolar grid needs it, at its pivots, and where asked: south of
    lat_land (a southern continent) and within pole_radius degrees of each northern pole
    (centres measured along great circles)."""
    ny, nx = grid["x"].shape
    mask = np.ones((ny, nx), dtype=np.int8)
    for j, i in grid["pivot_cells"]:
        mask[j, i] = 0
    if lat_land is not None:
        mask[grid["y"] < lat_land] = 0
    if pole_radius > 0.0:
        a = grid["attrs"]
        lat, lon = np.radians(grid["y"]), np.radians(grid["x"])
        for plon in (a["lon_pole"], a["lon_pole"] + 180.0):
            pl, pp = np.radians(plon), np.radians(a["lat_pole"])
            cosd = np.sin(lat) * np.sin(pp) + np.cos(lat) * np.cos(pp) * np.cos(lon - pl)
            mask[np.degrees(np.arccos(np.clip(cosd, -1.0, 1.0))) < pole_radius] = 0
    return mask


def stereographic_inverse(px, py, lat_true, lon0, radius, south=False):
    """Longitude and latitude (degrees) of projected points (m), polar stereographic on a
    sphere of `radius`, true scale at latitude lat_true (degrees), lon0 the meridian along
    -y (north) or +y (south) from the pole; the map is seen from outside the sphere:
      north  px = rho sin(lon - lon0), py = -rho cos(lon - lon0),
             rho = radius (1 + sin |lat_true|) tan(pi/4 - lat/2)
      south  px = rho sin(lon - lon0), py =  rho cos(lon - lon0),
             rho = radius (1 + sin |lat_true|) tan(pi/4 + lat/2)
    (Snyder 1987, Map Projections: A Working Manual, USGS PP 1395, Eq. 21-1 to 21-4
    and 21-15, with k0 = (1 + sin |lat_true|) / 2 so that the scale is 1 at lat_true)."""
    scale = radius * (1.0 + np.sin(np.radians(abs(lat_true))))
    rho = np.hypot(px, py)
    colat = 2.0 * np.arctan(rho / scale)
    if south:
        lat = np.degrees(colat) - 90.0
        lon = lon0 + np.degrees(np.arctan2(px, py))
    else:
        lat = 90.0 - np.degrees(colat)
        lon = lon0 + np.degrees(np.arctan2(px, -py))
    return lon, lat


def polar_stereographic(
    nx, ny, dx, lat_true=70.0, lon0=-45.0, dy=None, x0=None, y0=None, radius=EARTH_RADIUS,
    south=False
):
    """A square grid of the polar stereographic plane (see stereographic_inverse):
    node (i, j) at projected (x0 + i dx, y0 + j dy); by default the grid is centred on the
    pole (x0 = -nx dx / 2, y0 = -ny dy / 2). Centres are the projected midpoints."""
    dy = dx if dy is None else dy
    x0 = -0.5 * nx * dx if x0 is None else x0
    y0 = -0.5 * ny * dy if y0 is None else y0
    px, py = np.meshgrid(x0 + dx * np.arange(nx + 1), y0 + dy * np.arange(ny + 1))
    cx, cy = np.meshgrid(x0 + dx * (np.arange(nx) + 0.5), y0 + dy * (np.arange(ny) + 0.5))
    node_x, node_y = stereographic_inverse(px, py, lat_true, lon0, radius, south)
    x, y = stereographic_inverse(cx, cy, lat_true, lon0, radius, south)
    # +x points (lon0 - lon) from east in the north, (lon - lon0) in the south
    angle = (x - lon0) if south else (lon0 - x)
    angle = (angle + 180.0) % 360.0 - 180.0
    attrs = {
        "grid_kind": "polar_stereographic",
        "hemisphere": "south" if south else "north",
        "dx": dx,
        "dy": dy,
        "x0": x0,
        "y0": y0,
        "lat_true": lat_true,
        "lon0": lon0,
        "radius": radius,
    }
    return _from_nodes(node_x, node_y, x, y, True, angle, attrs)


def _sphere_area(lon, lat, radius):
    """Area (m2) of spherical quadrilaterals with great-circle edges, corners (..., 4) in
    degrees: the sum of the two triangles' spherical excesses (Van Oosterom and Strackee
    1983, IEEE Trans. Biomed. Eng. 30, 125-126)."""
    lam, phi = np.radians(lon), np.radians(lat)
    p = np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], axis=-1)

    def excess(a, b, c):
        num = np.einsum("...k,...k", a, np.cross(b, c))
        den = 1.0 + np.einsum("...k,...k", a, b) + np.einsum("...k,...k", b, c)
        den = den + np.einsum("...k,...k", c, a)
        return 2.0 * np.arctan2(num, den)

    p0, p1, p2, p3 = (p[..., k, :] for k in range(4))
    return radius * radius * (excess(p0, p1, p2) + excess(p0, p2, p3))


def cell_area(grid, radius=EARTH_RADIUS):
    """Cell areas (m2): exact for planar cells (shoelace), great-circle quadrilaterals on
    the sphere."""
    bx, by = grid["x_bnds"], grid["y_bnds"]
    if grid["spherical"]:
        return _sphere_area(bx, by, radius)
    return 0.5 * np.sum(bx * np.roll(by, -1, axis=-1) - np.roll(bx, -1, axis=-1) * by, axis=-1)


def land_margin(grid, margin):
    """A mask (1 ocean, 0 land) with land in the `margin` outermost rows and columns."""
    ny, nx = grid["x"].shape
    mask = np.ones((ny, nx), dtype=np.int8)
    if margin > 0:
        mask[:margin, :] = mask[-margin:, :] = 0
        mask[:, :margin] = mask[:, -margin:] = 0
    return mask


def write(path, grid, mask=None, area=None, angle=None, angle_units="degrees", history=""):
    """Write grid (a generator's dict) to NetCDF file `path` in cryodyn's grid-file format;
    mask (1 ocean, 0 land), area (m2) and angle (in angle_units, 'degrees' or 'radians')
    are written when given."""
    import netCDF4

    ny, nx = grid["x"].shape
    with netCDF4.Dataset(path, "w", format="NETCDF4") as nc:
        nc.createDimension("y", ny)
        nc.createDimension("x", nx)
        nc.createDimension("nv", 4)
        if grid["spherical"]:
            names = ("lon", "lat", "lon_bnds", "lat_bnds")
            meta = (
                ("longitude", "degrees_east", "longitude of the cell centres"),
                ("latitude", "degrees_north", "latitude of the cell centres"),
            )
        else:
            names = ("x_c", "y_c", "x_bnds", "y_bnds")
            meta = (
                ("projection_x_coordinate", "m", "x of the cell centres"),
                ("projection_y_coordinate", "m", "y of the cell centres"),
            )
        for k in range(2):
            v = nc.createVariable(names[k], "f8", ("y", "x"))
            v.standard_name, v.units, v.long_name = meta[k]
            v.bounds = names[k + 2]
            v[:] = grid["x" if k == 0 else "y"]
            b = nc.createVariable(names[k + 2], "f8", ("y", "x", "nv"))
            b[:] = grid["x_bnds" if k == 0 else "y_bnds"]
        if mask is not None:
            v = nc.createVariable("mask", "i1", ("y", "x"))
            v.long_name = "1 ocean, 0 land"
            v[:] = mask
        if area is not None:
            v = nc.createVariable("area", "f8", ("y", "x"))
            v.standard_name, v.units = "cell_area", "m2"
            v[:] = area
        if angle is not None:
            v = nc.createVariable("angle", "f8", ("y", "x"))
            v.units = angle_units
            v.long_name = "direction of the grid's i axis, counterclockwise from east"
            v[:] = angle
        nc.Conventions = "CF-1.8"
        nc.title = "cryodyn grid file (%s)" % grid["attrs"]["grid_kind"]
        for key, value in grid["attrs"].items():
            setattr(nc, key, value)
        if history:
            nc.history = history


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="kind", required=True)
    kinds = {}
    for kind in ("cartesian", "rotated", "stretched", "latlon", "polar_stereographic", "tripolar"):
        p = sub.add_parser(kind)
        p.add_argument("--nx", type=int, required=True)
        if kind != "tripolar":
            p.add_argument("--ny", type=int, required=True)
            p.add_argument("--land-margin", type=int, default=-1,
                           help="write a mask with land in this many outer rows and columns")
        p.add_argument("-o", "--output", required=True)
        p.add_argument("--area", action="store_true", help="write cell areas (m2)")
        p.add_argument("--angle-var", action="store_true", help="write the angle variable")
        p.add_argument("--angle-units", default="degrees", choices=("degrees", "radians"))
        p.add_argument("--radius", type=float, default=EARTH_RADIUS,
                       help="sphere radius, m (areas; polar stereographic)")
        kinds[kind] = p
    for kind in ("cartesian", "rotated", "stretched"):
        kinds[kind].add_argument("--dx", type=float, required=True)
        kinds[kind].add_argument("--dy", type=float)
    kinds["rotated"].add_argument("--angle", type=float, required=True, help="degrees")
    kinds["stretched"].add_argument("--amplitude", type=float, default=0.5)
    for name, default in (("--lon0", -10.0), ("--lon1", 10.0), ("--lat0", 60.0), ("--lat1", 80.0)):
        kinds["latlon"].add_argument(name, type=float, default=default)
    kinds["latlon"].add_argument("--periodic-x", action="store_true",
                                 help="a band around the globe (lon1 = lon0 + 360), periodic in x")
    ps = kinds["polar_stereographic"]
    ps.add_argument("--dx", type=float, required=True)
    ps.add_argument("--dy", type=float)
    ps.add_argument("--lat-true", type=float, default=70.0)
    ps.add_argument("--central-lon", type=float, default=-45.0)
    ps.add_argument("--x0", type=float, help="projected x of node (0, 0), m")
    ps.add_argument("--y0", type=float, help="projected y of node (0, 0), m")
    ps.add_argument("--south", action="store_true", help="South Pole")
    tp = kinds["tripolar"]
    tp.add_argument("--fold", choices=("T", "F"), default="F",
                    help="pivot of the north fold: cell centres (T) or nodes (F)")
    tp.add_argument("--lat-south", type=float, default=-78.0, help="southern edge, degrees")
    tp.add_argument("--lat-join", type=float, default=50.0,
                    help="where the Mercator grid meets the bipolar cap, degrees")
    tp.add_argument("--lat-pole", type=float, default=65.0,
                    help="latitude of the two northern poles, degrees")
    tp.add_argument("--lon-pole", type=float, default=-100.0,
                    help="longitude of the first pole (the other 180 degrees away)")
    tp.add_argument("--ny-cap", type=int, help="rows of the cap (default: cells as tall as at "
                    "the join)")
    tp.add_argument("--ny", type=int, help="rows in all: cells taller or shorter than wide, to "
                    "meet a host model's grid size (default: square cells)")
    tp.add_argument("--land-south", type=float,
                    help="land south of this latitude (a southern continent), degrees")
    tp.add_argument("--pole-land", type=float, default=0.0,
                    help="land within this many degrees of each northern pole (the cells at "
                    "the pivots are land in any case)")
    a = parser.parse_args(argv)
    if a.nx < 2 or (a.kind != "tripolar" and a.ny < 2):
        parser.error("--nx and --ny must be at least 2")
    if a.kind == "cartesian":
        g = cartesian(a.nx, a.ny, a.dx, a.dy or a.dx)
    elif a.kind == "rotated":
        g = rotated(a.nx, a.ny, a.dx, a.dy or a.dx, a.angle)
    elif a.kind == "stretched":
        g = stretched(a.nx, a.ny, a.dx, a.dy or a.dx, a.amplitude)
    elif a.kind == "latlon":
        g = latlon(a.nx, a.ny, a.lon0, a.lon1, a.lat0, a.lat1, a.periodic_x)
    elif a.kind == "tripolar":
        try:
            g = tripolar(a.nx, a.fold, a.lat_south, a.lat_join, a.lat_pole, a.lon_pole,
                         a.ny_cap, a.ny)
        except ValueError as e:
            parser.error(str(e))
    else:
        g = polar_stereographic(a.nx, a.ny, a.dx, a.lat_true, a.central_lon, dy=a.dy, x0=a.x0,
                                y0=a.y0, radius=a.radius, south=a.south)
    if a.kind == "tripolar":
        mask = tripolar_mask(g, a.land_south, a.pole_land)
    else:
        mask = land_margin(g, a.land_margin) if a.land_margin >= 0 else None
    area = cell_area(g, a.radius) if a.area else None
    angle = None
    if a.angle_var:
        angle = g["angle"] if a.angle_units == "degrees" else np.radians(g["angle"])
    write(a.output, g, mask, area, angle, a.angle_units,
          history="make_grid.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
