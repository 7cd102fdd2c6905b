#!/bin/sh
# Marine land ice coupled to the toy atmosphere standing in for an ocean: the toy sends the
# MISMIP+ Ice1 sub-shelf melt through OASIS3-MCT, and the same run standalone with the melt the
# toy recorded equals it bit for bit (docs/landice.md, Sub-shelf melt). Setup:
# namelists/coupled_landice_melt.nml (16 x 8 cells of 4 km, geometry
# namelists/coupled_landice_melt_geometry.cdl: grounded columns 0..8, a floating tongue in
# 9..15, free-slip walls; 4 coupling steps of 0.1 a, one thickness step each, melt on the
# floating share of each cell) and namelists/namcouple_landice_melt; 2 cryodyn ranks,
# 1 cryodyn-toy-atmosphere rank.
#
# 1. coupled, --melt mismip --record melt.nc: each interval the toy computes
#    m = Omega tanh(H_c / H_c0) max(z_0 - z_d, 0) from its bed (topg of the geometry file) and
#    the thickness cryodyn sent at the end of the previous interval (on the first, the geometry
#    file's thk), sends it in kg m-2 s-1 with the smb pattern, and writes both to melt.nc.
#    Its checks (examples/toy_atmosphere.c): mask; surface of floating ice or unchanged bed;
#    sum (smb - melt) <= sum dH <= sum (smb - melt) + melt sent (the melt acts on the
#    floating share only). Asserted: exit 0, "cryodyn: run complete", the toy's PASS line,
#    "SUCCESSFUL RUN" in debug.root.01/02, no "MPI_ABORT was invoked".
# 2. standalone: the same namelist with forcing = 'netcdf' from melt.nc; exit 0.
# 3. every output record (5: the start and after each of the 4 steps) of thk, surface,
#    u_surf, v_surf, u, v, grounded_fraction, basal_melt, smb_applied, melt_applied of 1 and 2
#    equal bit for bit (same_bits: cryodyn-cmp).
# 4. the melt is real: the largest basal_melt of melt.nc is > 1e-4 kg m-2 s-1 (about 3.4 m a-1
#    of ice; the tongue's is up to about 56 m a-1), and a standalone run with the same smb and
#    a zero melt (melt.nc with basal_melt set to 0, through ncdump and ncgen) ends with a
#    different thickness at least at the 7 x 8 floating cells.
# Every run is under `timeout` (a coupling mismatch deadlocks) and is judged by its output,
# since OASIS aborts make mpirun exit 0.
#
# Environment: top_srcdir / top_builddir (as the Makefile exports them; default: this
# script's parent directory and the current directory), MPIRUN (default mpirun), CRYODYN and
# TOY_ATMOSPHERE (the programs; default: found under the build directory), KEEP_RUNDIR=1 keeps
# the run directory.
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_ATMOSPHERE:-$builddir/cryodyn-toy-atmosphere}
nml=$srcdir/namelists/coupled_landice_melt.nml
cdl=$srcdir/namelists/coupled_landice_melt_geometry.cdl
namcouple=$srcdir/namelists/namcouple_landice_melt
for f in "$cryodyn" "$toy" "$nml" "$cdl" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "coupled_landice_melt: FAIL: missing $f" >&2
    exit 1
  fi
done
for p in ncgen ncdump; do
  if ! command -v $p >/dev/null 2>&1; then
    echo "coupled_landice_melt: SKIP: $p (Debian package netcdf-bin) is needed" >&2
    exit 77
  fi
done
case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

# Must agree with the namelist, the namcouple and the geometry.
nx=16 ny=8 run=12614400 period=3153600 rho_ice=918
nstep=$((run / period))
geometry=coupled_landice_melt_geometry.nc
nfloat=$((7 * ny))

failures=0
fail() {
  echo "coupled_landice_melt: FAIL: $*" >&2
  failures=$((failures + 1))
}

rundir=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_landice_melt.XXXXXX")
ncgen -o "$rundir/$geometry" "$cdl" || fail "ncgen could not write $geometry"

# 1. coupled, the toy sending the MISMIP+ melt and recording what it sends
d=$rundir/coupled
mkdir "$d"
cp "$nml" "$d/run.nml"
cp "$namcouple" "$d/namcouple"
cp "$rundir/$geometry" "$d/"
(cd "$d" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
  -np 1 "$toy" --nx $nx --ny $ny --run $run --period $period --melt mismip \
  --geometry $geometry --rho-ice $rho_ice --record melt.nc >log 2>&1)
rc=$?
echo "--- coupled: mpirun exit $rc"
[ "$rc" = 124 ] && fail "coupled: no end within 120 s (coupling deadlock?)"
[ "$rc" = 0 ] || fail "coupled: mpirun exit code $rc, expected 0"
grep -q "MPI_ABORT was invoked" "$d/log" && fail "coupled: MPI_ABORT was invoked"
grep -q "^cryodyn: run complete" "$d/log" || fail "coupled: no 'cryodyn: run complete'"
grep "^cryodyn-toy-atmosphere: interval" "$d/log"
grep "^cryodyn-toy-atmosphere: PASS" "$d/log" ||
  fail "coupled: no PASS line from cryodyn-toy-atmosphere"
for id in 01 02; do
  grep -q "SUCCESSFUL RUN" "$d/debug.root.$id" 2>/dev/null ||
    fail "coupled: no SUCCESSFUL RUN in debug.root.$id"
done

# 2. standalone from the recorded forcing; 4. the same with the melt set to zero
for s in standalone nomelt; do
  mkdir "$rundir/$s"
  cp "$rundir/$geometry" "$rundir/$s/"
done
cp "$d/melt.nc" "$rundir/standalone/forcing.nc" 2>/dev/null || fail "coupled: no melt.nc recorded"
run_standalone "$rundir/standalone" "$nml"
ncdump -p 17,17 "$d/melt.nc" >"$rundir/melt.cdl" 2>/dev/null || fail "ncdump of melt.nc failed"
awk '/^ basal_melt =/ { on = 1 } on { gsub(/-?[0-9][0-9.eE+-]*/, "0") } on && /;/ { on = 0 } 1' \
  "$rundir/melt.cdl" >"$rundir/nomelt/forcing.cdl"
(cd "$rundir/nomelt" && ncgen -k nc4 -o forcing.nc forcing.cdl) ||
  fail "nomelt: ncgen could not write forcing.nc"
run_standalone "$rundir/nomelt" "$nml"

# 3. bit-for-bit comparison of the output
out=$(sed -n "s/^ *output_file = '\\([^']*\\)'.*/\\1/p" "$nml")
vars="thk surface u_surf v_surf u v grounded_fraction basal_melt smb_applied melt_applied"
# shellcheck disable=SC2086
if ! same_bits "$d/$out" "$rundir/standalone/$out" $vars; then
  fail "coupled and standalone $vars of $out differ (cryodyn-cmp's report above)"
else
  echo "--- $vars of $out equal bit for bit ($((nstep + 1)) records)"
fi

# 4. the melt is non-zero and changes the thickness
# values VAR FILE: every value of VAR in FILE, one per line.
values() {
  ncdump -p 17,17 -v "$1" "$2" 2>/dev/null | sed -n '/^data:/,$p' |
    awk -v v="$1" '$0 ~ "^ " v " =" { on = 1; sub("^ " v " =", "") } on { print } on && /;/ { exit }' |
    tr ',;' '\n\n' | tr -d ' ' | grep -v '^$'
}
melt_max=$(values basal_melt "$d/melt.nc" | sort -g | tail -n 1)
echo "--- recorded basal_melt at most ${melt_max:-none} kg m-2 s-1"
awk -v m="${melt_max:-0}" 'BEGIN { exit !(m > 1e-4) }' ||
  fail "the recorded basal_melt is at most ${melt_max:-none} kg m-2 s-1, expected > 1e-4"
values thk "$d/$out" | sed -n "$((nstep * nx * ny + 1)),$(((nstep + 1) * nx * ny))p" >"$rundir/thk_melt"
values thk "$rundir/nomelt/$out" | sed -n "$((nstep * nx * ny + 1)),$(((nstep + 1) * nx * ny))p" \
  >"$rundir/thk_nomelt"
n1=$(wc -l <"$rundir/thk_melt" | tr -d ' ')
n2=$(wc -l <"$rundir/thk_nomelt" | tr -d ' ')
changed=$(paste -d ' ' "$rundir/thk_melt" "$rundir/thk_nomelt" | awk '$1 != $2' | wc -l | tr -d ' ')
[ "$n1" = $((nx * ny)) ] && [ "$n2" = $((nx * ny)) ] ||
  fail "final thk records have $n1 and $n2 values, expected $((nx * ny))"
[ "$changed" -ge $nfloat ] ||
  fail "the final thickness with melt differs from the one without at only $changed cells," \
    "expected at least the $nfloat floating cells"
echo "--- final thk with and without melt differs at $changed of $((nx * ny)) cells"

if [ "$failures" -gt 0 ]; then
  echo "coupled_landice_melt: $failures check(s) failed; run directory $rundir" >&2
  for s in coupled standalone nomelt; do
    echo "=== $s/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$rundir/$s/log" 2>/dev/null | tail -n 30 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$rundir"
echo "coupled_landice_melt: PASS (coupled run with the toy's MISMIP+ melt and its checks," \
  "standalone run from the recorded melt, bit-for-bit output, melt > 0 and changing thk)"
exit 0
