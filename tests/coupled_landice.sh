#!/bin/sh
# Land ice coupled to the toy atmosphere through OASIS3-MCT, and the same run
# standalone with the same surface mass balance from a NetCDF file (see
# docs/design.md, Coupling). Setup: namelists/coupled_landice.nml (ISMIP-HOM A,
# L = 10 km, 16 x 16 cells, evolving thickness, 8 coupling steps of 10 days) and
# namelists/namcouple_landice_toyatm; 2 cryodyn ranks, 1 cryodyn-toy-atmosphere rank.
#
# 1. coupled, --smb pattern: the toy sends a fixed pattern, multiples of 2^-18
#    kg m-2 s-1 from -8 to 8 times it (examples/toy_atmosphere.c, toy_smb_pattern),
#    and a zero sub-shelf melt. Its own checks on the fields it receives: mask
#    equals (thk > 0); the bed (usurf - thk) does not change between intervals
#    (1e-9 m); the volume change of each interval equals the mass balance sent
#    (tolerance and why in toy_atmosphere.c). Asserted: exit 0, "cryodyn: run
#    complete", the toy's PASS line, "SUCCESSFUL RUN" in debug.root.01/02, no
#    "MPI_ABORT was invoked".
# 2. standalone: the same namelist with forcing = 'netcdf' and a file (written with
#    awk and ncgen) holding the same pattern at every coupling date; exit 0.
# 3. thickness thk, surface elevation and surface velocity u_surf, v_surf of every output
#    record (9: the start and after each of the 8 steps) of 1 and 2 are equal bit for
#    bit (same_bits of tests/coupled-env.sh, that is cryodyn-cmp, which names the
#    first differing variable and index), and the final thickness differs from the
#    initial one at more than half of the 256 cells (ncdump -p 17,17 of thk: 17
#    significant digits identify a double). (That the mass balance is applied at all
#    is the toy's mass check in 1: sum dH equals the non-zero sum of smb sent.)
# 4. coupled, --smb elevation: smb = rate (z - ela) from the surface elevation the
#    toy received (rate 1e-6 kg m-2 s-1 per m, ela -40 m: about -1.4 to +1.5 m of
#    ice a year over the 87 m of relief); the toy's checks of 1 must hold (PASS).
# Every run is under `timeout` (a coupling mismatch deadlocks) and is judged by
# its output, since OASIS aborts make mpirun exit 0.
#
# Environment: top_srcdir / top_builddir (as the Makefile exports them; default:
# this script's parent directory and the current directory), MPIRUN (default
# mpirun), CRYODYN and TOY_ATMOSPHERE (the programs; default: found under the
# build directory), KEEP_RUNDIR=1 keeps the run directory.
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_ATMOSPHERE:-$builddir/cryodyn-toy-atmosphere}
nml=$srcdir/namelists/coupled_landice.nml
namcouple=$srcdir/namelists/namcouple_landice_toyatm
for f in "$cryodyn" "$toy" "$nml" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "coupled_landice: FAIL: missing $f" >&2
    exit 1
  fi
done
for p in ncgen ncdump; do
  if ! command -v $p >/dev/null 2>&1; then
    echo "coupled_landice: SKIP: $p (Debian package netcdf-bin) is needed" >&2
    exit 77
  fi
done
case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

# Must agree with the namelist and the namcouple.
nx=16 ny=16 run=6912000 period=864000
nstep=$((run / period))

failures=0
fail() {
  echo "coupled_landice: FAIL: $*" >&2
  failures=$((failures + 1))
}

rundir=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_landice.XXXXXX")

# coupled NAME SMB_ARGS...: run in $rundir/NAME and check the common assertions.
coupled() {
  name=$1
  shift
  d=$rundir/$name
  mkdir "$d"
  cp "$nml" "$d/run.nml"
  cp "$namcouple" "$d/namcouple"
  (cd "$d" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
    -np 1 "$toy" --nx $nx --ny $ny --run $run --period $period "$@" >log 2>&1)
  rc=$?
  echo "--- $name: mpirun exit $rc"
  [ "$rc" = 124 ] && fail "$name: no end within 120 s (coupling deadlock?)"
  [ "$rc" = 0 ] || fail "$name: mpirun exit code $rc, expected 0"
  grep -q "MPI_ABORT was invoked" "$d/log" && fail "$name: MPI_ABORT was invoked"
  grep -q "^cryodyn: run complete" "$d/log" || fail "$name: no 'cryodyn: run complete'"
  grep "^cryodyn-toy-atmosphere: PASS" "$d/log" || fail "$name: no PASS line from cryodyn-toy-atmosphere"
  for id in 01 02; do
    grep -q "SUCCESSFUL RUN" "$d/debug.root.$id" 2>/dev/null ||
      fail "$name: no SUCCESSFUL RUN in debug.root.$id"
  done
}

# 1. coupled with the fixed pattern
coupled pattern --smb pattern

# 2. standalone, the same pattern from a NetCDF file: record k at k * period holds
# step k's values, (7 i + 3 j + 5 k) mod 17 - 8 times 2^-18 (toy_smb_pattern);
# %.17g prints these doubles exactly.
mkdir "$rundir/standalone"
{
  echo "netcdf forcing {"
  echo "dimensions: time = $((nstep + 1)) ; y = $ny ; x = $nx ;"
  echo "variables:"
  echo "  double time(time) ; time:units = \"seconds since 2000-01-01 00:00:00\" ;"
  echo "    time:calendar = \"proleptic_gregorian\" ;"
  echo "  double smb(time, y, x) ; smb:units = \"kg m-2 s-1\" ;"
  echo "  double basal_melt(time, y, x) ; basal_melt:units = \"kg m-2 s-1\" ;"
  echo "data:"
  awk -v n=$nstep -v p=$period -v nx=$nx -v ny=$ny 'BEGIN {
    printf "  time ="
    for (k = 0; k <= n; k++) printf " %d%s", k * p, (k < n ? "," : " ;\n")
    printf "  smb ="
    for (k = 0; k <= n; k++)
      for (j = 0; j < ny; j++)
        for (i = 0; i < nx; i++) {
          v = ((7 * i + 3 * j + 5 * k) % 17 - 8) / 262144
          last = (k == n && j == ny - 1 && i == nx - 1)
          printf " %.17g%s", v, (last ? " ;\n" : ",")
        }
    printf "  basal_melt ="
    for (q = 0; q < (n + 1) * nx * ny; q++) printf " 0%s", (q < (n + 1) * nx * ny - 1 ? "," : " ;\n")
  }'
  echo "}"
} >"$rundir/standalone/forcing.cdl"
(cd "$rundir/standalone" && ncgen -k nc4 -o forcing.nc forcing.cdl) ||
  fail "standalone: ncgen could not write forcing.nc"
run_standalone "$rundir/standalone" "$nml"

# 3. bit-for-bit comparison of the output
out=$(sed -n "s/^ *output_file = '\\([^']*\\)'.*/\\1/p" "$nml")
# thk_record FILE K: the values of thk in record K of FILE, one per line.
thk_record() {
  ncdump -p 17,17 -v thk "$1" 2>/dev/null | sed -n '/^data:/,$p' |
    awk '/^ thk =/ { on = 1; sub(/^ thk =/, "") } on { print } on && /;/ { exit }' |
    tr ',;' '\n\n' | tr -d ' ' | grep -v '^$' | sed -n "$(($2 * nx * ny + 1)),$((($2 + 1) * nx * ny))p"
}
if ! same_bits "$rundir/pattern/$out" "$rundir/standalone/$out" thk surface u_surf v_surf; then
  fail "coupled and standalone thk, surface, u_surf, v_surf of $out differ (cryodyn-cmp's report above)"
else
  thk_record "$rundir/pattern/$out" 0 >"$rundir/thk0"
  thk_record "$rundir/pattern/$out" $nstep >"$rundir/thkN"
  n0=$(wc -l <"$rundir/thk0" | tr -d ' ')
  nN=$(wc -l <"$rundir/thkN" | tr -d ' ')
  changed=$(paste -d ' ' "$rundir/thk0" "$rundir/thkN" | awk '$1 != $2' | wc -l | tr -d ' ')
  [ "$n0" = $((nx * ny)) ] && [ "$nN" = $((nx * ny)) ] ||
    fail "thk records have $n0 and $nN values, expected $((nx * ny))"
  [ "$changed" -gt $((nx * ny / 2)) ] ||
    fail "the final thickness differs from the initial one at only $changed of $((nx * ny)) cells"
  echo "--- thk, surface, u_surf, v_surf of $out equal bit for bit ($((nstep + 1)) records);" \
    "thk changed at $changed of $((nx * ny)) cells"
fi

# 4. coupled with the elevation-dependent mass balance
coupled elevation --smb elevation --rate 1e-6 --ela -40

if [ "$failures" -gt 0 ]; then
  echo "coupled_landice: $failures check(s) failed; run directory $rundir" >&2
  for d in pattern standalone elevation; do
    echo "=== $d/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$rundir/$d/log" 2>/dev/null | tail -n 30 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$rundir"
echo "coupled_landice: PASS (coupled pattern run with mass/mask/bed checks, standalone run," \
  "bit-for-bit thk surface u_surf v_surf, coupled elevation-feedback run)"
exit 0
