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
    for kind in ("cartesian", "rotated", "stretched", "latlon", "polar_stereographic"):
        p = sub.add_parser(kind)
        p.add_argument("--nx", type=int, required=True)
        p.add_argument("--ny", type=int, required=True)
        p.add_argument("-o", "--output", required=True)
        p.add_argument("--area", action="store_true", help="write cell areas (m2)")
        p.add_argument("--angle-var", action="store_true", help="write the angle variable")
        p.add_argument("--angle-units", default="degrees", choices=("degrees", "radians"))
        p.add_argument("--land-margin", type=int, default=-1,
                       help="write a mask with land in this many outer rows and columns")
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
    a = parser.parse_args(argv)
    if a.nx < 2 or a.ny < 2:
        parser.error("--nx and --ny must be at least 2")
    if a.kind == "cartesian":
        g = cartesian(a.nx, a.ny, a.dx, a.dy or a.dx)
    elif a.kind == "rotated":
        g = rotated(a.nx, a.ny, a.dx, a.dy or a.dx, a.angle)
    elif a.kind == "stretched":
        g = stretched(a.nx, a.ny, a.dx, a.dy or a.dx, a.amplitude)
    elif a.kind == "latlon":
        g = latlon(a.nx, a.ny, a.lon0, a.lon1, a.lat0, a.lat1, a.periodic_x)
    else:
        g = polar_stereographic(a.nx, a.ny, a.dx, a.lat_true, a.central_lon, dy=a.dy, x0=a.x0,
                                y0=a.y0, radius=a.radius, south=a.south)
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
