#!/bin/sh
# cryodyn on a curvilinear grid file coupled through OASIS3-MCT's SCRIP remapping to the toy
# ocean on a regular longitude-latitude grid (namelists/coupled_latlon.nml,
# namelists/namcouple_seaice_latlon; docs/seaice.md, Coupling on curvilinear grids).
#
# Setup. cryodyn: 3 ranks, sea ice in free drift on the grid file made here with
# scripts/make_grid.py, polar_stereographic(24, 20, 25 km, x0 = 700 km, y0 = -1450 km): a sector
# at 72-79 N, 19 W - 9 E, away from the pole, whose grid lines turn 20 to 60 degrees from east
# (the projection's meridian is 45 W); vectors east and north (vector_frame = 'east_north').
# Toy ocean: 2 ranks, 25 x 26 cells of 2 x 0.5 degrees over 30 W - 20 E, 69 - 82 N (its cells
# cover cryodyn's whole), sending the solid-body rotation about the axis through (60 E, 20 N),
# u0 = 0.3 m s-1 (toy_solid_body: east u = u0 (sin lat_a cos lat - cos lat_a sin lat
# cos(lon - lon_a)), north v = u0 cos lat_a sin(lon - lon_a)), which flows across cryodyn's grid
# lines, and a uniform wind (6, -3) m s-1 east, north. 4 coupling steps of 1 h.
#
# Asserted (the python block below, on cryodyn's output and the files OASIS wrote):
#  1. grid description: grids.nc's cryt.lon, cryt.lat equal the grid file's centres and
#     cryt.clo, cryt.cla its 4 corners in the file's (counterclockwise) order, bit for bit;
#     masks.nc's cryt.msk is 0 (OASIS: valid) everywhere; areas.nc's cryt.srf is within 1e-5 of
#     the cells' great-circle areas (m2); SCRIP's own areas of cryodyn's cells (the weight
#     file's src_grid_area, steradians, times R^2) are positive and within 1e-2 of them
#     (a clockwise corner order would give negative ones), and every cryodyn cell is covered
#     by the toy's (src_grid_frac = 1 within 1e-12).
#  2. output: lon, lat, lon_bnds, lat_bnds equal the grid file's, lon_node, lat_node its nodes,
#     and the data variables name them in `coordinates`.
#  3. (a) remapping and rotation. The current cryodyn received (uocean, vocean: east, north at
#     its cell centres) differs from the analytic field there by at most the bilinear bound
#     B = u0 (dlon^2 + dlat^2) / 8 = 4.855e-5 m s-1 (dlon, dlat in radians: the toy's spacing;
#     the second derivatives of both components in lon and lat are bounded by u0, and
#     interpolating in lon then in lat adds the two 1-D errors h^2/8 max|f''|); measured 0.857 B,
#     and at least B / 4 is required so that the check sees the interpolation at all. The
#     current the dynamics uses (uocn, vocn: along the grid lines at the nodes) equals the mean
#     of the analytic vectors of the node's 4 cells, taken in 3-D and projected on the node's
#     grid frame (computed here from the node positions: the chord between the node's two
#     neighbours along i, in the tangent plane), within B + T, T = 4 u0 (h / R)^2 = 1.85e-5
#     m s-1 (h = 25 km: carrying a vector between the tangent planes of points h apart, as
#     cryodyn does through its cell planes, changes it at second order in h / R); measured
#     0.51 (B + T). An unrotated current (east, north taken as the grid's components) would be
#     0.23 m s-1 off: the test requires such an error to exceed 100 (B + T), and a run with
#     vector_frame = 'grid' (cryodyn not rotating what it receives) fails this check with an
#     error of 0.23 m s-1.
#  4. (b) conservation. For every step, the area integral of the stress cryodyn sent (taux_io,
#     tauy_io of the output times its areas in areas.nc, the areas it gave OASIS) equals the
#     integral the toy printed of what it received (with its areas, R^2 dlon (sin lat_n -
#     sin lat_s)) to 1e-10 relative (measured 2.4e-15). SCRIP's CONSERV DESTAREA alone conserves
#     the integral with the areas SCRIP computes itself, which for cryodyn's cells differ from
#     the true ones by up to 9e-4 (SCRIP takes cell edges straight in longitude and latitude);
#     the namcouple's CONSERV GLOBAL post-processing makes the integrals with the components'
#     own areas equal.
# Also: exit 0, "cryodyn: run complete", both debug files end in SUCCESSFUL RUN, no
# "MPI_ABORT was invoked", the two weight files exist. Every run is under `timeout` (OASIS
# aborts exit 0).
#
# Environment: as tests/coupled_remap.sh (top_srcdir, top_builddir, MPIRUN, CRYODYN,
# TOY_OCEAN, KEEP_RUNDIR=1); PYTHON (default /usr/bin/python3, with numpy and netCDF4; the
# test is skipped, exit 77, without them).
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
py=${PYTHON:-/usr/bin/python3}
nml=$srcdir/namelists/coupled_latlon.nml
namcouple=$srcdir/namelists/namcouple_seaice_latlon
make_grid=$srcdir/scripts/make_grid.py
for f in "$cryodyn" "$toy" "$nml" "$namcouple" "$make_grid"; do
  if [ ! -r "$f" ]; then
    echo "coupled_latlon: FAIL: missing $f" >&2
    exit 1
  fi
done
if ! "$py" -c 'import numpy, netCDF4' 2>/dev/null; then
  echo "coupled_latlon: SKIP: $py lacks numpy or netCDF4 (python3-numpy, python3-netcdf4)"
  exit 77
fi
for p in cryodyn toy; do
  eval "v=\$$p"
  case $v in /*) ;; *) eval "$p=\$(pwd)/\$v" ;; esac
done

failures=0
fail() {
  echo "coupled_latlon: FAIL: $*" >&2
  failures=$((failures + 1))
}
d=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_latlon.XXXXXX")
cp "$nml" "$d/run.nml"
cp "$namcouple" "$d/namcouple"
(cd "$d" && "$py" - "$srcdir/scripts" <<'EOF') || fail "could not make the grid file"
import sys
sys.path.insert(0, sys.argv[1])
import make_grid
g = make_grid.polar_stereographic(24, 20, 25000.0, x0=700e3, y0=-1450e3)
make_grid.write("latlon_test_grid.nc", g)
EOF

toy_args="--nx 25 --ny 26 --latlon -30,20,69,82 --ocean solid --u0 0.3 --axis 60,20"
toy_args="$toy_args --uwind 6 --vwind -3"
(cd "$d" && timeout 120 "$mpirun" --oversubscribe -np 3 "$cryodyn" run.nml : \
  -np 2 "$toy" $toy_args >log 2>&1)
rc=$?
echo "--- mpirun exit $rc"
[ "$rc" = 124 ] && fail "no end within 120 s (coupling deadlock?)"
[ "$rc" = 0 ] || fail "mpirun exit code $rc, expected 0"
grep -q "MPI_ABORT was invoked" "$d/log" && fail "MPI_ABORT was invoked"
grep -q "^cryodyn: run complete" "$d/log" || fail "no 'cryodyn: run complete'"
for id in 01 02; do
  grep -q "SUCCESSFUL RUN" "$d/debug.root.$id" 2>/dev/null ||
    fail "no SUCCESSFUL RUN in debug.root.$id"
done
for w in rmp_toyt_to_cryt_BILINEAR.nc rmp_cryt_to_toyt_CONSERV_DESTAREA.nc; do
  [ -s "$d/$w" ] || fail "OASIS wrote no weight file $w"
done
grep "stress integral" "$d/log" >"$d/toy_integrals"

if [ "$failures" = 0 ]; then
  (cd "$d" && "$py" - <<'EOF') || fail "the checks of the output (above) failed"
import numpy as np, netCDF4, sys

R = 6371229.0  # m, the grid file's sphere and &cryo_grid earth_radius
U, AXIS_LON, AXIS_LAT = 0.3, 60.0, 20.0
DLON, DLAT = np.radians(2.0), np.radians(0.5)
H = 25000.0
bad = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)


def solid(lon, lat):
    pa, p, dl = np.radians(AXIS_LAT), np.radians(lat), np.radians(lon - AXIS_LON)
    return (U * (np.sin(pa) * np.cos(p) - np.cos(pa) * np.sin(p) * np.cos(dl)),
            U * np.cos(pa) * np.sin(dl))


def xyz(lon, lat):
    l, p = np.radians(lon), np.radians(lat)
    return np.stack([np.cos(p) * np.cos(l), np.cos(p) * np.sin(l), np.sin(p)], -1)


def east_north(lon, lat):
    l, p = np.radians(lon), np.radians(lat)
    e = np.stack([-np.sin(l), np.cos(l), 0.0 * l], -1)
    n = np.stack([-np.sin(p) * np.cos(l), -np.sin(p) * np.sin(l), np.cos(p)], -1)
    return e, n


def sphere_area(lon, lat):
    """Great-circle quadrilaterals, corners (..., 4) in degrees: two triangles' excesses."""
    p = xyz(lon, lat)
    def excess(a, b, c):
        num = np.einsum("...k,...k", a, np.cross(b, c))
        den = 1 + np.einsum("...k,...k", a, b) + np.einsum("...k,...k", b, c) \
            + np.einsum("...k,...k", c, a)
        return 2 * np.arctan2(num, den)
    q = [p[..., k, :] for k in range(4)]
    return R * R * (excess(q[0], q[1], q[2]) + excess(q[0], q[2], q[3]))


gf = netCDF4.Dataset("latlon_test_grid.nc")
glon, glat = gf["lon"][:].data, gf["lat"][:].data
gblon, gblat = gf["lon_bnds"][:].data, gf["lat_bnds"][:].data
out = netCDF4.Dataset("latlon.nc")
grids, masks, areas = (netCDF4.Dataset(f) for f in ("grids.nc", "masks.nc", "areas.nc"))

# 1. what OASIS was told
check(np.array_equal(grids["cryt.lon"][:], glon) and np.array_equal(grids["cryt.lat"][:], glat),
      "grids.nc cryt.lon, cryt.lat are the grid file's centres")
clo = np.moveaxis(grids["cryt.clo"][:].data, 0, -1)
cla = np.moveaxis(grids["cryt.cla"][:].data, 0, -1)
check(np.array_equal(clo, gblon) and np.array_equal(cla, gblat),
      "grids.nc cryt.clo, cryt.cla are the grid file's corners in its counterclockwise order")
check(np.all(masks["cryt.msk"][:] == 0), "masks.nc cryt.msk is 0 (OASIS: valid) everywhere")
srf = areas["cryt.srf"][:].data
true_area = sphere_area(gblon, gblat)
check(np.abs(srf / true_area - 1).max() < 1e-5,
      "areas.nc cryt.srf (m2) within 1e-5 of the great-circle areas: %.2e"
      % np.abs(srf / true_area - 1).max())
w = netCDF4.Dataset("rmp_cryt_to_toyt_CONSERV_DESTAREA.nc")
scrip = w["src_grid_area"][:].data.reshape(srf.shape) * R * R
check(np.all(scrip > 0) and np.abs(scrip / srf - 1).max() < 1e-2,
      "SCRIP's own areas of cryodyn's cells are positive and within 1e-2 of cryt.srf: %.2e"
      % np.abs(scrip / srf - 1).max())
check(np.abs(w["src_grid_frac"][:] - 1).max() < 1e-12, "the toy's cells cover every cryodyn cell")

# 2. the output's coordinates
check(np.array_equal(out["lon"][:], glon) and np.array_equal(out["lat"][:], glat) and
      np.array_equal(out["lon_bnds"][:], gblon) and np.array_equal(out["lat_bnds"][:], gblat),
      "output lon, lat, lon_bnds, lat_bnds are the grid file's")
ny, nx = glon.shape
node_lon = np.empty((ny + 1, nx + 1))
node_lat = np.empty((ny + 1, nx + 1))
node_lon[:-1, :-1], node_lat[:-1, :-1] = gblon[:, :, 0], gblat[:, :, 0]
node_lon[:-1, -1], node_lat[:-1, -1] = gblon[:, -1, 1], gblat[:, -1, 1]
node_lon[-1, :-1], node_lat[-1, :-1] = gblon[-1, :, 3], gblat[-1, :, 3]
node_lon[-1, -1], node_lat[-1, -1] = gblon[-1, -1, 2], gblat[-1, -1, 2]
check(np.array_equal(out["lon_node"][:], node_lon) and np.array_equal(out["lat_node"][:], node_lat),
      "output lon_node, lat_node are the grid file's nodes")
check(out["h"].coordinates == "lat lon" and out["u"].coordinates == "lat_node lon_node",
      "data variables name lat lon / lat_node lon_node in 'coordinates'")

# 3. (a) remapping and rotation
B = U / 8 * (DLON ** 2 + DLAT ** 2)
T = 4 * U * (H / R) ** 2
ue, vn = solid(glon, glat)
last = out["time"].shape[0] - 1
err = max(max(np.abs(out["uocean"][r] - ue).max(), np.abs(out["vocean"][r] - vn).max())
          for r in range(1, last + 1))
check(B / 4 <= err <= B, "received current within the bilinear bound: error %.4g m s-1, "
      "bound B = %.4g (%.3f B)" % (err, B, err / B))
rn = xyz(node_lon, node_lat)[1:-1, 1:-1]
t = xyz(node_lon, node_lat)[1:-1, 2:] - xyz(node_lon, node_lat)[1:-1, :-2]
t = t - np.einsum("...k,...k", t, rn)[..., None] * rn
t /= np.linalg.norm(t, axis=-1)[..., None]
t2 = np.cross(rn, t)
ce, cn = east_north(glon, glat)
v3 = ue[..., None] * ce + vn[..., None] * cn
m = 0.25 * (v3[:-1, :-1] + v3[:-1, 1:] + v3[1:, :-1] + v3[1:, 1:])
want_u, want_v = np.einsum("...k,...k", m, t), np.einsum("...k,...k", m, t2)
got_u, got_v = out["uocn"][last][1:-1, 1:-1], out["vocn"][last][1:-1, 1:-1]
err_n = max(np.abs(got_u - want_u).max(), np.abs(got_v - want_v).max())
check(err_n <= B + T, "current at the nodes in the grid frame: error %.4g m s-1, tolerance "
      "B + T = %.4g (%.3f)" % (err_n, B + T, err_n / (B + T)))
ne, nn = east_north(node_lon[1:-1, 1:-1], node_lat[1:-1, 1:-1])
unrotated = max(np.abs(np.einsum("...k,...k", m, ne) - want_u).max(),
                np.abs(np.einsum("...k,...k", m, nn) - want_v).max())
check(unrotated > 100 * (B + T),
      "an unrotated current would be %.3g m s-1 off (> 100 (B + T))" % unrotated)

# 4. (b) conservation of the stress's area integral
toy = {}
for line in open("toy_integrals"):
    f = line.split()
    toy[int(f[2])] = (float(f[6]), float(f[8]))
check(len(toy) == last, "the toy printed %d integrals, one per step" % len(toy))
worst = 0.0
for step in range(last):
    sx = float((out["taux_io"][step + 1] * srf).sum())
    sy = float((out["tauy_io"][step + 1] * srf).sum())
    tx, ty = toy.get(step, (np.nan, np.nan))
    rel = max(abs(tx - sx) / abs(sx), abs(ty - sy) / abs(sy))
    print("step %d: cryodyn sent %.15e %.15e N, the toy received %.15e %.15e N: %.2e"
          % (step, sx, sy, tx, ty, rel))
    worst = max(worst, rel) if np.isfinite(rel) else np.inf
check(worst <= 1e-10, "stress integral conserved to %.2e relative (<= 1e-10)" % worst)
sys.exit(1 if bad else 0)
EOF
fi

if [ "$failures" -gt 0 ]; then
  echo "coupled_latlon: $failures check(s) failed; run directory $d" >&2
  grep -v "oasis_unitget\|oasis_init_comp" "$d/log" 2>/dev/null | tail -n 20 >&2
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$d"
echo "coupled_latlon: PASS (grid file described to OASIS and written to the output with its" \
  "coordinates; current remapped within the bilinear bound and rotated into the grid frame;" \
  "stress integral conserved to 1e-10)"
exit 0
