#!/bin/sh
# The toy ocean on its own, coarser grid, coupled to cryodyn's sea-ice grid through
# an OASIS3-MCT SCRIP remapping (docs/design.md, Coupling; docs/seaice.md, Coupling on curvilinear grids), with
# namelists/namcouple_seaice_remap: ocean -> ice BILINEAR, ice -> ocean CONSERV
# FRACAREA. Ice grid cryt: 40 x 30 cells of 10 km. No grid files exist before a
# run: both components describe their grids through OASIS's grid-writing API
# before enddef (cryodyn's "oasis" exchange provider as cryt, the toy as toyt,
# cryo_oasis_write_plane_grid), and OASIS writes grids.nc, masks.nc, areas.nc at
# enddef, one component after the other, then computes the SCRIP weights from
# them. Every run also checks that the files hold both grids (ncdump -h, where
# installed).
#
# 1. remap20: toy grid toyt 21 x 16 cells of 20 km (half the resolution; cell
#    centres at 0, 20, ..., 400 km and 0, 20, ..., 300 km), 2 ranks of the test
#    component tests/oasis_remap_comp (cryodyn's "oasis" exchange provider on a 2-D
#    block decomposition, what the sea ice receives) + 1 toy rank. The toy sends
#    the analytic gyre u = -u0 sin(pi x / lx) cos(pi y / ly), v = u0 cos(pi x / lx)
#    sin(pi y / ly), u0 = 0.1 m s-1, lx = 400 km, ly = 300 km, and a uniform wind
#    (8, 4) m s-1. Asserted by oasis_remap_comp (PASS line): at every owned and
#    halo-ring cell of the 4 steps the current differs from the analytic value at
#    the ice cell centre by at most the bilinear interpolation bound
#    tol = (1/8) u0 ((pi hx / lx)^2 + (pi hy / ly)^2) = 8.567e-4 m s-1 (hx = hy =
#    20 km, the toy's spacing; why in oasis_remap_comp.c), the largest error is at
#    least tol / 4 (measured: 0.747 tol, the 3/32 of quarter-cell positions), and
#    the wind is kept to 1e-12 relative. Also: exit 0, both PASS lines, "SUCCESSFUL
#    RUN" in debug.root.01/02, the two SCRIP weight files exist, no
#    "MPI_ABORT was invoked".
# 2. remap50: toy grid 9 x 7 cells of 50 km (centres at 0, 50, ..., 400 km and
#    0, 50, ..., 300 km), 3 + 2 ranks (OASIS redistributes between two different
#    decompositions): the same assertions with tol = 5.354e-3 m s-1, and second
#    order: error(50 km) / error(20 km) within a factor 2 of (50 / 20)^2 = 6.25.
# 3. cryodyn: the real cryodyn, sea ice in free drift (namelists/coupled_free_drift.nml,
#    2 ranks) against the 20 km toy (1 rank) sending the gyre, with the toy's
#    --check stress on the fields it gets back through the CONSERV remapping (the
#    stress of the ocean on the ice opposes u_ice - u_ocean wherever that relative
#    velocity exceeds its variation across a cell): "cryodyn: run complete", the
#    toy's stress PASS line, "SUCCESSFUL RUN" in both debug files.
# Every run is under `timeout` and is judged by its output (OASIS aborts exit 0).
#
# Environment: top_srcdir / top_builddir (as the Makefile exports them; default:
# this script's parent directory and the current directory), MPIRUN (default
# mpirun), CRYODYN, TOY_OCEAN, OASIS_REMAP_COMP (the programs; default: found
# under the build directory), KEEP_RUNDIR=1 keeps the run directory.
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
comp=${OASIS_REMAP_COMP:-$(first_of "$builddir/tests/oasis_remap_comp" "$builddir/oasis_remap_comp")}
nml=$srcdir/namelists/coupled_free_drift.nml
namcouple=$srcdir/namelists/namcouple_seaice_remap
for f in "$cryodyn" "$toy" "$comp" "$nml" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "coupled_remap: FAIL: missing $f" >&2
    exit 1
  fi
done
for p in cryodyn toy comp; do
  eval "v=\$$p"
  case $v in /*) ;; *) eval "$p=\$(pwd)/\$v" ;; esac
done

failures=0
fail() {
  echo "coupled_remap: FAIL: $*" >&2
  failures=$((failures + 1))
}
top=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_remap.XXXXXX")
field="--ocean analytic --u0 0.1 --lx 400000 --ly 300000 --uwind 8 --vwind 4"

# setup NAME TNX TNY H: run directory $top/NAME with the namcouple for a toy grid of
# TNX x TNY cells of H metres whose first cell is centred at the origin, and no
# grid files; sets $d and $tgrid (the toy's grid options).
setup() {
  d=$top/$1
  mkdir "$d"
  half=$(($4 / 2))
  tgrid="--nx $2 --ny $3 --dx $4 --dy $4 --x0 -$half --y0 -$half"
  sed -e "s/^21 16 40 30 /$2 $3 40 30 /" -e "s/^40 30 21 16 /40 30 $2 $3 /" "$namcouple" \
    >"$d/namcouple"
}

# common NAME RC: the assertions every coupled run shares.
common() {
  [ "$2" = 124 ] && fail "$1: no end within 120 s (coupling deadlock?)"
  [ "$2" = 0 ] || fail "$1: mpirun exit code $2, expected 0"
  grep -q "MPI_ABORT was invoked" "$d/log" && fail "$1: MPI_ABORT was invoked"
  for id in 01 02; do
    grep -q "SUCCESSFUL RUN" "$d/debug.root.$id" 2>/dev/null ||
      fail "$1: no SUCCESSFUL RUN in debug.root.$id"
  done
  for w in rmp_toyt_to_cryt_BILINEAR.nc rmp_cryt_to_toyt_CONSERV_FRACAREA.nc; do
    [ -s "$d/$w" ] || fail "$1: OASIS wrote no weight file $w"
  done
  # The grid files come from the components, through OASIS, during the run.
  for g in grids.nc masks.nc areas.nc; do
    [ -s "$d/$g" ] || fail "$1: OASIS wrote no $g"
  done
  if command -v ncdump >/dev/null 2>&1; then
    for v in cryt.lon cryt.lat cryt.clo cryt.cla toyt.lon toyt.lat toyt.clo toyt.cla; do
      ncdump -h "$d/grids.nc" 2>/dev/null | grep -q "double $v(" ||
        fail "$1: grids.nc has no variable $v"
    done
    ncdump -h "$d/masks.nc" 2>/dev/null | grep -q "int cryt.msk(y_cryt, x_cryt)" ||
      fail "$1: masks.nc has no cryt.msk(y_cryt, x_cryt)"
    ncdump -h "$d/areas.nc" 2>/dev/null | grep -q "double toyt.srf(" ||
      fail "$1: areas.nc has no toyt.srf"
  fi
}

# remap NAME TNX TNY H NCOMP NTOY: accuracy run; sets $err (largest current error).
remap() {
  setup "$1" "$2" "$3" "$4"
  (cd "$d" && timeout 120 "$mpirun" --oversubscribe -np "$5" "$comp" --dx "$4" --dy "$4" \
    $field : -np "$6" "$toy" $tgrid $field --check none >log 2>&1)
  rc=$?
  echo "--- $1: mpirun exit $rc"
  common "$1" $rc
  grep "^oasis_remap_comp: PASS" "$d/log" || fail "$1: no PASS line from oasis_remap_comp"
  grep -q "^cryodyn-toy-ocean: PASS" "$d/log" || fail "$1: no PASS line from cryodyn-toy-ocean"
  err=$(sed -n 's/.*current error u \([^ ]*\) v \([^ ]*\) m s-1.*/\1 \2/p' "$d/log" |
    awk '{ print ($1 > $2 ? $1 : $2) }')
}

remap remap20 21 16 20000 2 1
err20=${err:-0}
remap remap50 9 7 50000 3 2
err50=${err:-0}
ratio=$(awk -v a="$err50" -v b="$err20" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }')
echo "--- error 50 km / error 20 km = $ratio (second order: 6.25, accepted 3.125 to 12.5)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 3.125 && r <= 12.5) }' ||
  fail "error(50 km) / error(20 km) = $ratio is not within a factor 2 of 6.25"

# 3. the real cryodyn with the 20 km toy
setup cryodyn 21 16 20000
cp "$nml" "$d/run.nml"
(cd "$d" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
  -np 1 "$toy" $tgrid $field --check stress >log 2>&1)
rc=$?
echo "--- cryodyn: mpirun exit $rc"
common cryodyn $rc
grep -q "^cryodyn: run complete" "$d/log" || fail "cryodyn: no 'cryodyn: run complete'"
grep "^cryodyn-toy-ocean: PASS: [1-9][0-9]* moving ice points have a stress opposing" "$d/log" ||
  fail "cryodyn: no stress PASS line from cryodyn-toy-ocean"

if [ "$failures" -gt 0 ]; then
  echo "coupled_remap: $failures check(s) failed; run directory $top" >&2
  for r in remap20 remap50 cryodyn; do
    echo "=== $r/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$top/$r/log" 2>/dev/null | tail -n 20 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$top"
echo "coupled_remap: PASS (bilinear remapping within its error bound at 20 and 50 km, second" \
  "order; cryodyn free drift through the remapping with the toy's stress check)"
exit 0
