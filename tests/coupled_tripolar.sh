#!/bin/sh
# cryodyn on a global tripolar grid coupled through OASIS3-MCT to the toy ocean
# (docs/global.md, Coupling through OASIS; namelists/coupled_tripolar.nml).
#
# Setup. cryodyn: sea ice with the rheology (mEVP, 100 iterations, dt = 1800 s), h = 1 m,
# a = 0.9, on the 10-degree tripolar grids of scripts/make_grid.py tripolar --nx 36
# --land-south -70 --pole-land 10 (36 x 29 cells, periodic in x, land south of 70 S and
# within 10 degrees of the two northern poles, 800 ocean cells), T and F folds. The toy
# ocean sends the solid-body rotation about the axis through (0 E, 0 N) (across the fold
# and the North Pole), u0 = 0.3 m s-1, and a uniform wind (6, -3) m s-1 east, north;
# 3 coupling steps of 1 h. Each run is under `timeout` (a coupling mismatch deadlocks) and
# judged by its output, since OASIS aborts make mpirun exit 0.
#
# 1. Identity (namelists/namcouple_seaice_tripolar: same grid on both sides, no remapping):
#    the toy on the same grid file (--gridfile), 2 ranks (bands of rows, the top one holding
#    the fold), cryodyn on 1 rank and on 2 (2 x 1: both own half of the fold) with the T
#    grid, on 2 with the F grid. Asserted for each: the current and the wind cryodyn
#    received (its output uocean, vocean, uwind, vwind at every record) are the toy's sent
#    fields (its --dump) bit for bit at every cell, and the stress the toy received
#    (O_OTaux1, O_OTauy1) is cryodyn's output taux_io, tauy_io bit for bit; a T fold's
#    copied cells (i > nx/2 of the top row) hold their originals' values in all of these;
#    the stress is not all zero; the 1- and 2-rank T runs give the same output bit for bit
#    (cryodyn-cmp). grids.nc's cryt centres are the grid file's, and masks.nc masks (1)
#    exactly the land cells and, on the T grid, the copies.
# 2. Remapped (namelists/namcouple_seaice_tripolar_latlon): the toy on the global 10 x 5
#    degree longitude-latitude grid (36 x 36 cells), cryodyn on 2 ranks with the T grid;
#    BILINEAR ocean -> ice, CONSERV DESTAREA with the GLOBAL post-processing ice -> ocean,
#    'P 0' on both sides. Asserted: at every step and for each component, the area integral
#    of the stress cryodyn sent, over its cells that masks.nc leaves valid and with the
#    areas it gave OASIS (areas.nc, the grid file's), equals the integral the toy printed of
#    what it received, with its own cell areas, to 1e-10 relative (measured 3e-15); counting
#    the T fold's copies as well would change cryodyn's integral by more than 1e-5 relative
#    (measured 4.3e-4 at least), so the masking of the copies is what this checks. The
#    current cryodyn received is within the bilinear bound B = u0 (dlon^2 + dlat^2) / 8 =
#    1.43e-3 m s-1 of the analytic field at every ocean cell south of 80 N (measured 0.92 B;
#    nearer the pole east and north components, which OASIS remaps as scalars, turn too
#    fast for any interpolation: docs/global.md).
# 3. A namcouple that says 'R 0' (regional) for cryodyn's periodic grid stops cryodyn with
#    its named error (CRYO_ERR_COUPLING, "says regional, but the grid is periodic in x").
#
# Environment: as tests/coupled_remap.sh (top_srcdir, top_builddir, MPIRUN, CRYODYN,
# TOY_OCEAN, KEEP_RUNDIR=1); PYTHON (default /usr/bin/python3, with numpy and netCDF4; the
# test is skipped, exit 77, without them).
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
py=${PYTHON:-/usr/bin/python3}
nml=$srcdir/namelists/coupled_tripolar.nml
nc_same=$srcdir/namelists/namcouple_seaice_tripolar
nc_latlon=$srcdir/namelists/namcouple_seaice_tripolar_latlon
make_grid=$srcdir/scripts/make_grid.py
for f in "$cryodyn" "$toy" "$nml" "$nc_same" "$nc_latlon" "$make_grid"; do
  if [ ! -r "$f" ]; then
    echo "coupled_tripolar: FAIL: missing $f" >&2
    exit 1
  fi
done
if ! "$py" -c 'import numpy, netCDF4' 2>/dev/null; then
  echo "coupled_tripolar: SKIP: $py lacks numpy or netCDF4 (python3-numpy, python3-netcdf4)"
  exit 77
fi
for p in cryodyn toy; do
  eval "v=\$$p"
  case $v in /*) ;; *) eval "$p=\$(pwd)/\$v" ;; esac
done

failures=0
fail() {
  echo "coupled_tripolar: FAIL: $*" >&2
  failures=$((failures + 1))
}
d=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_tripolar.XXXXXX")
for fold in T F; do
  "$py" "$make_grid" tripolar --nx 36 --fold $fold --land-south -70 --pole-land 10 --area \
    -o "$d/tri$fold.nc" >/dev/null || fail "make_grid.py tripolar --fold $fold"
done
solid="--ocean solid --u0 0.3 --axis 0,0 --uwind 6 --vwind -3 --run 10800"

# run NAME FOLD RANKS NPROCS_X NAMCOUPLE TOY_ARGS: one coupled run in $d/NAME (log in log)
run() {
  r=$d/$1
  mkdir -p "$r"
  cp "$d/tri$2.nc" "$r/tripolar_test_grid.nc"
  sed -e "s/^  grid_file = .*/  grid_file = 'tripolar_test_grid.nc', nprocs_x = $4, nprocs_y = 1/" \
    "$nml" >"$r/run.nml"
  cp "$5" "$r/namcouple"
  (cd "$r" && timeout 120 "$mpirun" --oversubscribe -np "$3" "$cryodyn" run.nml : \
    -np 2 "$toy" $6 >log 2>&1)
  rc=$?
  echo "--- $1: mpirun exit $rc"
  [ "$rc" = 124 ] && fail "$1: no end within 120 s (coupling deadlock?)"
}
# judge NAME: the signs of a good run
judge() {
  r=$d/$1
  [ "$rc" = 0 ] || fail "$1: mpirun exit code $rc, expected 0"
  grep -q "MPI_ABORT was invoked" "$r/log" && fail "$1: MPI_ABORT was invoked"
  grep -q "^cryodyn: run complete" "$r/log" || fail "$1: no 'cryodyn: run complete'"
  grep -q "^cryodyn-toy-ocean: PASS" "$r/log" || fail "$1: no PASS line from the toy ocean"
  for id in 01 02; do
    grep -q "SUCCESSFUL RUN" "$r/debug.root.$id" 2>/dev/null ||
      fail "$1: no SUCCESSFUL RUN in debug.root.$id"
  done
}

for c in "T1 T 1 1" "T2 T 2 2" "F2 F 2 2"; do
  set -- $c
  run "$1" "$2" "$3" "$4" "$nc_same" "--gridfile tripolar_test_grid.nc $solid --dump toy.bin"
  judge "$1"
  [ "$failures" = 0 ] || continue
  (cd "$d/$1" && "$py" - "$2" <<'EOF') || fail "$1: the identity checks (above) failed"
import sys
import netCDF4
import numpy as np

fold = sys.argv[1]
bad = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)


def same(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


out = netCDF4.Dataset("tripolar.nc")
g = netCDF4.Dataset("tripolar_test_grid.nc")
ny, nx = g["lon"].shape
toy = np.fromfile("toy.bin").reshape(-1, 10, ny, nx)  # per step: 4 sent, 6 received
nstep = toy.shape[0]
check(nstep == 3 and out["time"].shape[0] == nstep + 1,
      "3 coupling steps dumped by the toy, 4 output records")
sent = ("uocean", "vocean", "uwind", "vwind")
copies = np.zeros((ny, nx), bool)
if fold == "T":
    copies[-1, nx // 2 + 1:] = True
orig = (ny - 1, nx - np.arange(nx // 2 + 1, nx))
for s in range(nstep):
    for k, name in enumerate(sent):
        check(same(out[name][s + 1].data, toy[s, k]),
              "step %d: %s received by cryodyn = sent by the toy, bit for bit" % (s, name))
    for k, name in enumerate(("taux_io", "tauy_io")):
        tau = out[name][s + 1].data
        check(same(tau, toy[s, 8 + k]),
              "step %d: %s received by the toy = cryodyn's output, bit for bit" % (s, name))
        check(np.abs(tau).max() > 1e-3, "step %d: %s is not all zero (max %.3g N m-2)"
              % (s, name, np.abs(tau).max()))
        if fold == "T":
            check(same(tau[copies], tau[orig]) and same(out["uocean"][s + 1].data[copies],
                                                        out["uocean"][s + 1].data[orig]),
                  "step %d: the T fold's copies hold their originals' %s and uocean" % (s, name))
grids, masks = netCDF4.Dataset("grids.nc"), netCDF4.Dataset("masks.nc")
check(same(grids["cryt.lon"][:].data, g["lon"][:].data) and
      same(grids["cryt.lat"][:].data, g["lat"][:].data),
      "grids.nc cryt.lon, cryt.lat are the grid file's centres")
want = ((g["mask"][:] == 0) | copies).astype(int)
check(np.array_equal(masks["cryt.msk"][:], want),
      "masks.nc cryt.msk is 1 exactly on land%s (%d of %d cells)"
      % (" and the T fold's %d copies" % (copies & (g["mask"][:] == 1)).sum() if fold == "T"
         else "", want.sum(), want.size))
sys.exit(1 if bad else 0)
EOF
done
if [ "$failures" = 0 ]; then
  same_bits "$d/T1/tripolar.nc" "$d/T2/tripolar.nc" >"$d/cmp.log" 2>&1 ||
    fail "the 1- and 2-rank T runs differ: $(cat "$d/cmp.log")"
fi

run latlon T 2 2 "$nc_latlon" "--nx 36 --ny 36 --latlon 0,360,-90,90 $solid"
judge latlon
for w in rmp_toyt_to_cryt_BILINEAR.nc rmp_cryt_to_toyt_CONSERV_DESTAREA.nc; do
  [ -s "$d/latlon/$w" ] || fail "OASIS wrote no weight file $w"
done
if [ "$failures" = 0 ]; then
  (cd "$d/latlon" && "$py" - <<'EOF') || fail "latlon: the remapping checks (above) failed"
import sys
import netCDF4
import numpy as np

bad = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        bad.append(what)


out = netCDF4.Dataset("tripolar.nc")
g = netCDF4.Dataset("tripolar_test_grid.nc")
srf = netCDF4.Dataset("areas.nc")["cryt.srf"][:].data
valid = netCDF4.Dataset("masks.nc")["cryt.msk"][:].data == 0
check(np.array_equal(srf, g["area"][:].data), "areas.nc cryt.srf is the grid file's area")
toy = {}
for line in open("log"):
    if "stress integral" in line:
        f = line.split()
        toy[int(f[2])] = (float(f[6]), float(f[8]))
check(sorted(toy) == [0, 1, 2], "the toy printed the stress integral of each of the 3 steps")
worst, copies_effect = 0.0, np.inf
for s in range(3):
    for k, name in enumerate(("taux_io", "tauy_io")):
        tau = out[name][s + 1].data
        once = float((tau * srf)[valid].sum())
        got = toy.get(s, (np.nan, np.nan))[k]
        rel = abs(got - once) / abs(once)
        twice = float((tau * srf)[valid | (g["mask"][:] == 1)].sum())
        copies_effect = min(copies_effect, abs(twice - once) / abs(once))
        print("step %d %s: cryodyn sent %.15e N, the toy received %.15e N: %.2e; with the "
              "copies counted too %.15e N" % (s, name, once, got, rel, twice))
        worst = max(worst, rel) if np.isfinite(rel) else np.inf
check(worst <= 1e-10, "stress integral conserved to %.2e relative (<= 1e-10)" % worst)
check(copies_effect > 1e-5, "counting the T fold's copies would change it by %.2e (> 1e-5)"
      % copies_effect)
U = 0.3
lon, lat = np.radians(g["lon"][:].data), np.radians(g["lat"][:].data)
ue, vn = -U * np.sin(lat) * np.cos(lon), U * np.sin(lon)  # axis through (0 E, 0 N)
B = U / 8 * (np.radians(10.0) ** 2 + np.radians(5.0) ** 2)
ocean = (g["mask"][:] == 1) & (g["lat"][:].data < 80.0)
err = max(max(np.abs(out["uocean"][r].data - ue)[ocean].max(),
              np.abs(out["vocean"][r].data - vn)[ocean].max()) for r in (1, 2, 3))
check(err <= B, "current received south of 80 N within the bilinear bound: %.4g m s-1, "
      "B = %.4g (%.2f B)" % (err, B, err / B))
sys.exit(1 if bad else 0)
EOF
fi

sed -e 's/^P 0 P 0$/P 0 R 0/' "$nc_same" >"$d/namcouple_regional"
run regional T 2 2 "$d/namcouple_regional" "--gridfile tripolar_test_grid.nc $solid"
grep -q "says regional, but the grid is periodic in x" "$d/regional/log" ||
  fail "regional: no named error for 'R 0' on cryodyn's periodic grid"
grep -q "CRYO_ERR_COUPLING" "$d/regional/log" || fail "regional: no CRYO_ERR_COUPLING"
grep -q "^cryodyn: run complete" "$d/regional/log" && fail "regional: cryodyn ran all the same"

if [ "$failures" -gt 0 ]; then
  echo "coupled_tripolar: $failures check(s) failed; run directory $d" >&2
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$d"
echo "coupled_tripolar: PASS (identity exchange bit for bit on 1 and 2 ranks, T and F folds;" \
  "conservative remapping to a lon-lat grid keeps the stress integral to 1e-10; 'R 0' refused)"
exit 0
