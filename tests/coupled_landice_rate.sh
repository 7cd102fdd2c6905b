#!/bin/sh
# The Glen rate factor A of land ice received through OASIS3-MCT (&cryo_coupling
# rate_factor; docs/landice.md, Basal and rheology fields) against the same field from the
# geometry file. Setup: namelists/coupled_landice_melt.nml (a marine ice tongue, 16 x 8
# cells of 4 km, 5 layers, Weertman sliding, thickness evolving, 4 coupling steps of 0.1 a)
# with the toy atmosphere's MISMIP+ melt, 2 cryodyn ranks, 1 toy rank; a rate factor that
# varies along x and from layer to layer, A = A0 (1/2 + (i + 1)/16 + k/4), A0 = 1.99875168e-17
# Pa-3 a-1 the namelist's uniform value, written by python's netCDF4 as doubles.
#
# 1. file: the geometry file holds rate_factor(layer, y, x); namcouple_landice_melt.
# 2. oasis: the geometry file without it; &cryo_coupling rate_factor = 'I_LiRf' and
#    namelists/namcouple_landice_rate; the toy sends the file's rate_factor layer by layer
#    (--rate-factor-layers 5 --geometry FILE), the same doubles.
#    Asserted: thickness, surface, velocity (u, v at every level, u_surf, v_surf) and the
#    grounded fraction of every output record of 2 equal those of 1 bit for bit
#    (cryodyn-cmp), and the velocity of 1 differs from that of a run with the uniform A
#    (namelist value, 3.), so that the field acts.
# 4. a received A below the range of &cryo_landice rate_factor (-A0 at layer 4, cell
#    (i, j) = (7, 2)) stops cryodyn with CRYO_ERR_DATA naming I_LiRf04, the layer, the cell
#    and the range; rate_factor = 'I_LiRf' with a namcouple that does not couple the layers
#    stops it naming I_LiRf01.
# Each run is under `timeout` and judged by its output (OASIS aborts exit 0).
#
# Environment: as tests/coupled_landice_melt.sh (top_srcdir, top_builddir, MPIRUN, CRYODYN,
# TOY_ATMOSPHERE, KEEP_RUNDIR=1); PYTHON (default /usr/bin/python3 with netCDF4 and numpy,
# else the test is skipped, exit 77).
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_ATMOSPHERE:-$builddir/cryodyn-toy-atmosphere}
py=${PYTHON:-/usr/bin/python3}
nml=$srcdir/namelists/coupled_landice_melt.nml
cdl=$srcdir/namelists/coupled_landice_melt_geometry.cdl
nc_melt=$srcdir/namelists/namcouple_landice_melt
nc_rate=$srcdir/namelists/namcouple_landice_rate
for f in "$cryodyn" "$toy" "$nml" "$cdl" "$nc_melt" "$nc_rate"; do
  if [ ! -r "$f" ]; then
    echo "coupled_landice_rate: FAIL: missing $f" >&2
    exit 1
  fi
done
command -v ncgen >/dev/null 2>&1 || {
  echo "coupled_landice_rate: SKIP: ncgen (Debian package netcdf-bin) is needed"
  exit 77
}
"$py" -c 'import numpy, netCDF4' 2>/dev/null || {
  echo "coupled_landice_rate: SKIP: $py lacks numpy or netCDF4"
  exit 77
}
case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

failures=0
fail() {
  echo "coupled_landice_rate: FAIL: $*" >&2
  failures=$((failures + 1))
}
d=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_landice_rate.XXXXXX")
ncgen -o "$d/plain.nc" "$cdl" || fail "ncgen could not write the geometry"
"$py" - "$d" <<'EOF' || fail "could not write the geometry files with rate_factor"
import shutil, sys
import netCDF4
import numpy as np

d = sys.argv[1]
A0 = 1.99875168e-17
for name, bad in (("rate", False), ("bad", True)):
    shutil.copy(d + "/plain.nc", "%s/%s.nc" % (d, name))
    with netCDF4.Dataset("%s/%s.nc" % (d, name), "a") as g:
        ny, nx = g["thk"].shape
        g.createDimension("layer", 5)
        v = g.createVariable("rate_factor", "f8", ("layer", "y", "x"))
        v.units = "Pa-n a-1"
        k, _, i = np.meshgrid(np.arange(5), np.arange(ny), np.arange(nx), indexing="ij")
        a = A0 * (0.5 + (i + 1) / 16.0 + k / 4.0)
        if bad:
            a[3, 2, 7] = -A0
        v[:] = a
EOF
toy_args="--nx 16 --ny 8 --run 12614400 --period 3153600 --melt mismip --rho-ice 918"

# run NAME GEOMETRY NAMCOUPLE RATE_FACTOR_KEY TOY_GEOMETRY [TOY_OPTIONS]
run() {
  r=$d/$1
  mkdir -p "$r"
  cp "$d/$2" "$d/$5" "$r/" 2>/dev/null
  sed -e "s/^  geometry_file = .*/  geometry_file = '$2'/" \
    -e "s/^  grid_name = 'crli'.*/  grid_name = 'crli'\\n  rate_factor = '$4'/" "$nml" >"$r/run.nml"
  cp "$3" "$r/namcouple"
  (cd "$r" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
    -np 1 "$toy" $toy_args --geometry "$5" $6 >log 2>&1)
  rc=$?
  echo "--- $1: mpirun exit $rc"
  [ "$rc" = 124 ] && fail "$1: no end within 120 s (coupling deadlock?)"
}
good() {
  [ "$rc" = 0 ] || fail "$1: mpirun exit code $rc, expected 0"
  grep -q "MPI_ABORT was invoked" "$d/$1/log" && fail "$1: MPI_ABORT was invoked"
  grep -q "^cryodyn: run complete" "$d/$1/log" || fail "$1: no 'cryodyn: run complete'"
  grep -q "^cryodyn-toy-atmosphere: PASS" "$d/$1/log" || fail "$1: no PASS line from the toy"
}

run file rate.nc "$nc_melt" "" rate.nc ""
good file
run oasis plain.nc "$nc_rate" I_LiRf rate.nc "--rate-factor-layers 5"
good oasis
grep -q "rate_factor = 'I_LiRf'" "$d/oasis/run.nml" || fail "oasis: the namelist lacks rate_factor"
run uniform plain.nc "$nc_melt" "" plain.nc ""
good uniform
out=coupled_landice_melt.nc
vars="thk surface u_surf v_surf u v grounded_fraction"
if [ "$failures" = 0 ]; then
  if same_bits "$d/file/$out" "$d/oasis/$out" $vars; then
    echo "--- $vars equal bit for bit (A from the file and through OASIS)"
  else
    fail "A from the file and through OASIS give different $vars (cryodyn-cmp above)"
  fi
  same_bits "$d/file/$out" "$d/uniform/$out" u >/dev/null &&
    fail "the rate factor field changes nothing: u equals that of the uniform A"
fi

run bad plain.nc "$nc_rate" I_LiRf bad.nc "--rate-factor-layers 5"
grep -q "rate factor I_LiRf04 (layer 4 of 5 from the bed) received at t = 0 s is -1.99875e-17 \
Pa-n a-1 at cell (i, j) = (7, 2): must be finite and in \[1e-30, 1\]" "$d/bad/log" ||
  fail "bad: no named error for the negative rate factor"
grep -q "CRYO_ERR_DATA" "$d/bad/log" || fail "bad: no CRYO_ERR_DATA"
run uncoupled plain.nc "$nc_melt" I_LiRf plain.nc ""
grep -q "I_LiRf01" "$d/uncoupled/log" && grep -q "not coupled by the namcouple" "$d/uncoupled/log" ||
  fail "uncoupled: no named error for I_LiRf01 missing from the namcouple"
for r in bad uncoupled; do
  grep -q "^cryodyn: run complete" "$d/$r/log" && fail "$r: cryodyn ran all the same"
done

if [ "$failures" -gt 0 ]; then
  echo "coupled_landice_rate: $failures check(s) failed; run directory $d" >&2
  for s in file oasis bad uncoupled; do
    echo "=== $s/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$d/$s/log" 2>/dev/null | tail -n 15 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$d"
echo "coupled_landice_rate: PASS (A through OASIS gives the bits of A from the geometry file;" \
  "bad and uncoupled A named)"
exit 0
