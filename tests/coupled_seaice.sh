#!/bin/sh
# Coupled sea ice in free drift against the toy ocean through OASIS3-MCT, and the
# same run standalone with the same forcing from a NetCDF file (docs/design.md,
# Coupling).
#
# 1. coupled: mpirun -np 2 cryodyn namelists/coupled_free_drift.nml : -np 1 cryodyn-toy-ocean
#    with namelists/namcouple_seaice_toyocean; the toy sends a uniform current
#    (0.125, -0.0625) m s-1 and wind (8, 4) m s-1 each hour and checks with
#    --check stress that the stress of the ocean on the ice opposes u_ice - u_ocean
#    (tau . du < 0) at every ice point where |du| exceeds its variation across a
#    cell (4536 of the 4800 points of the 4 steps). Asserted: exit 0, cryodyn's
#    "run complete", the toy's PASS line, "SUCCESSFUL RUN" in both components'
#    debug.root.*, no "MPI_ABORT was invoked", and no debug file of its own for
#    each rank (debug.NN.RRRRRR): the shipped namcouple keeps OASIS's logging to
#    the files it writes at every level (NLOGPRT 0).
# 2. standalone: the same namelist with forcing = 'netcdf' and a file (written with
#    ncgen) holding the same values at 0, 1, ..., 4 h; exit 0.
# 3. the ice velocity u, v (and h, a) of every output record of 1 and 2 are equal
#    bit for bit (same_bits of tests/coupled-env.sh, that is cryodyn-cmp, which
#    names the first differing variable and index), and the velocity is not all
#    zero (ncdump -p 17,17 of u: 17 significant digits identify a double).
# Every run is under `timeout` (a coupling mismatch deadlocks) and is judged by
# its output, since OASIS aborts make mpirun exit 0.
#
# Environment: top_srcdir / top_builddir (as the Makefile exports them; default:
# this script's parent directory and the current directory), MPIRUN (default
# mpirun), CRYODYN and TOY_OCEAN (the programs; default: found under the build
# directory), KEEP_RUNDIR=1 keeps the run directory.
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
nml=$srcdir/namelists/coupled_free_drift.nml
namcouple=$srcdir/namelists/namcouple_seaice_toyocean
for f in "$cryodyn" "$toy" "$nml" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "coupled_seaice: FAIL: missing $f" >&2
    exit 1
  fi
done
for p in ncgen ncdump; do
  if ! command -v $p >/dev/null 2>&1; then
    echo "coupled_seaice: SKIP: $p (Debian package netcdf-bin) is needed" >&2
    exit 77
  fi
done
case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

# The forcing both runs use (exact binary fractions, so text and bits agree).
u0=0.125 v0=-0.0625 uwind=8 vwind=4
nx=40 ny=30 nrec=5

failures=0
fail() {
  echo "coupled_seaice: FAIL: $*" >&2
  failures=$((failures + 1))
}

rundir=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_seaice.XXXXXX")
mkdir "$rundir/coupled" "$rundir/standalone"

# 1. coupled
cp "$nml" "$rundir/coupled/run.nml"
cp "$namcouple" "$rundir/coupled/namcouple"
(cd "$rundir/coupled" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
  -np 1 "$toy" --nx $nx --ny $ny --run 14400 --period 3600 --ocean uniform --u0 $u0 --v0 $v0 \
  --uwind $uwind --vwind $vwind --check stress >log 2>&1)
rc=$?
log=$rundir/coupled/log
echo "--- coupled: mpirun exit $rc"
[ "$rc" = 124 ] && fail "coupled: no end within 120 s (coupling deadlock?)"
[ "$rc" = 0 ] || fail "coupled: mpirun exit code $rc, expected 0"
grep -q "MPI_ABORT was invoked" "$log" && fail "coupled: MPI_ABORT was invoked"
grep -q "^cryodyn: run complete" "$log" || fail "coupled: no 'cryodyn: run complete'"
grep -q "^cryodyn-toy-ocean: PASS: [1-9][0-9]* moving ice points have a stress opposing" "$log" ||
  fail "coupled: no stress PASS line from cryodyn-toy-ocean"
for id in 01 02; do
  grep -q "SUCCESSFUL RUN" "$rundir/coupled/debug.root.$id" 2>/dev/null ||
    fail "coupled: no SUCCESSFUL RUN in debug.root.$id"
done
per_rank=$(cd "$rundir/coupled" && ls | grep -E '^debug\.[0-9]+\.[0-9]+$' | tr '\n' ' ')
[ -z "$per_rank" ] || fail "coupled: OASIS wrote a debug file for each rank: $per_rank"

# 2. standalone, forcing from a NetCDF file with the same values
# values V N: N copies of V separated by commas.
values() {
  awk -v v="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "%s%s", v, (i < n ? ", " : ";\n") }'
}
n=$((nrec * nx * ny))
{
  echo "netcdf forcing {"
  echo "dimensions: time = $nrec ; y = $ny ; x = $nx ;"
  echo "variables:"
  echo "  double time(time) ; time:units = \"seconds since 2000-01-01 00:00:00\" ;"
  echo "    time:calendar = \"proleptic_gregorian\" ;"
  for v in uwind vwind uocean vocean; do
    echo "  double $v(time, y, x) ; $v:units = \"m s-1\" ;"
  done
  echo "data:"
  echo "  time = 0, 3600, 7200, 10800, 14400 ;"
  echo "  uwind = $(values $uwind $n)"
  echo "  vwind = $(values $vwind $n)"
  echo "  uocean = $(values $u0 $n)"
  echo "  vocean = $(values $v0 $n)"
  echo "}"
} >"$rundir/standalone/forcing.cdl"
(cd "$rundir/standalone" && ncgen -k nc4 -o forcing.nc forcing.cdl) ||
  fail "standalone: ncgen could not write forcing.nc"
run_standalone "$rundir/standalone" "$nml"

# 3. bit-for-bit comparison of the output
out=$(sed -n "s/^ *output_file = '\\([^']*\\)'.*/\\1/p" "$nml")
# u_values FILE: the values of u in FILE, one per line.
u_values() {
  ncdump -p 17,17 -v u "$1" 2>/dev/null | sed -n '/^data:/,$p' |
    awk '/^ u =/ { on = 1; sub(/^ u =/, "") } on { print } on && /;/ { exit }' |
    tr ',;' '\n\n' | tr -d ' ' | grep -v '^$'
}
if ! same_bits "$rundir/coupled/$out" "$rundir/standalone/$out" u v h a; then
  fail "coupled and standalone u, v, h, a of $out differ (cryodyn-cmp's report above)"
else
  u_values "$rundir/coupled/$out" >"$rundir/u.txt"
  nu=$(wc -l <"$rundir/u.txt" | tr -d ' ')
  nzero=$(grep -c '^-\{0,1\}0$' "$rundir/u.txt" | tr -d ' ')
  [ "$nu" = $((nrec * (nx + 1) * (ny + 1))) ] || fail "u has $nu values, expected 5 x 41 x 31"
  # the first record (initial state) is at rest, and the closed edges stay at rest
  [ $((nu - nzero)) -gt $((nu / 2)) ] || fail "u is zero at $nzero of $nu values: nothing tested"
  echo "--- u, v, h, a of $out equal bit for bit ($nu values of u, $nzero of them zero)"
fi

if [ "$failures" -gt 0 ]; then
  echo "coupled_seaice: $failures check(s) failed; run directory $rundir" >&2
  for d in coupled standalone; do
    echo "=== $d/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$rundir/$d/log" | tail -n 30 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$rundir"
echo "coupled_seaice: PASS (coupled run with stress check, standalone run, bit-for-bit u v h a)"
exit 0
