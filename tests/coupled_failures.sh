#!/bin/sh
# Failures of a coupled sea-ice run (docs/design.md, Coupling): each is
# detected and reported with a clear message, and the run ends with a non-zero exit
# instead of a hang. Setup as in tests/coupled_seaice.sh (2 cryodyn ranks, 1 toy
# ocean rank, namelists/coupled_free_drift.nml and namcouple_seaice_toyocean),
# with one thing broken per case:
#   missing   the namcouple lacks the I_OTauy1 exchange ($NFIELDS 9):
#             cryodyn: error: OASIS field 'I_OTauy1' (sent by component 'cryody') is
#             not coupled by the namcouple
#   mismatch  the namcouple calls cryodyn's current I_OCurX1 instead of I_OCurx1:
#             cryodyn: error: OASIS field 'I_OCurx1' (received by component 'cryody')
#             is not coupled by the namcouple
#   dt        the namelist's dt = 700 s does not divide coupling_interval = 3600 s:
#             cryodyn: error: ... coupling_interval = 3600 s is not a multiple of the
#             seaice time step dt = 700 s
#   period    the namcouple couples every 7200 s (toy ocean too), cryodyn every 3600 s:
#             cryodyn: error: forcing = 'oasis': field I_Uwind1 (uwind) was not
#             received at 3600 s: its coupling period in the namcouple must equal
#             &cryo_run coupling_interval
#   partner   the toy ocean exits at step 2 (7200 s) without oasis_terminate: its
#             message "--die-at 2: exiting at 7200 s", mpirun's report of the exit,
#             no "cryodyn: run complete"; the restart of 3600 s, written before the
#             partner died, is intact (its u equals that of the good run, bit for bit)
#   gridname  grid_name = 'cr.t' fails on rank 0 only (grid description): every
#             rank stops before oasis_enddef and reports rank 0's message
#   namcouple none / garbage (cryodyn alone): no namcouple, or a file that is
#             not one: cryodyn names the file and what is wrong and exits
#             non-zero (OASIS would abort with exit code 0)
# Asserted for every case: the run ends within 60 s (timeout), the exit code is not 0
# (OASIS's own aborts exit 0, so the text is checked as well), the message above is
# in the output, and no "cryodyn: run complete" is printed.
#
# Environment: as tests/coupled_seaice.sh (top_srcdir, top_builddir, MPIRUN,
# CRYODYN, TOY_OCEAN, KEEP_RUNDIR=1).
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
cryodyn=${CRYODYN:-$(first_of "$builddir/cryodyn" "$builddir/examples/cryodyn")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
nml=$srcdir/namelists/coupled_free_drift.nml
namcouple=$srcdir/namelists/namcouple_seaice_toyocean
for f in "$cryodyn" "$toy" "$nml" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "coupled_failures: FAIL: missing $f" >&2
    exit 1
  fi
done
case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

failures=0
fail() {
  echo "coupled_failures: FAIL: $*" >&2
  failures=$((failures + 1))
}
top=$(mktemp -d "${TMPDIR:-/tmp}/cryo_coupled_failures.XXXXXX")

# run_case NAME NML_SED NAMCOUPLE_AWK TOY_ARGS...: run in $top/NAME with the namelist
# edited by sed script NML_SED and the namcouple by awk script NAMCOUPLE_AWK; sets
# $rundir, $rc, $log.
run_case() {
  name=$1 nml_edit=$2 nc_edit=$3
  shift 3
  rundir=$top/$name
  log=$rundir/log
  mkdir "$rundir"
  sed "$nml_edit" "$nml" >"$rundir/run.nml"
  awk "$nc_edit" "$namcouple" >"$rundir/namcouple"
  (cd "$rundir" && timeout 60 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : \
    -np 1 "$toy" --nx 40 --ny 30 --run 14400 --ocean uniform --u0 0.125 --v0 -0.0625 \
    --uwind 8 --vwind 4 "$@" >"$log" 2>&1)
  rc=$?
  echo "--- $name: mpirun exit $rc"
  [ "$rc" = 124 ] && fail "$name: no end within 60 s (hang)"
  [ "$rc" != 0 ] || fail "$name: mpirun exit code 0, expected non-zero"
  grep -q "^cryodyn: run complete" "$log" && fail "$name: cryodyn reported a complete run"
}

# expect NAME TEXT: a fixed string the log must contain.
expect() {
  grep -qF -- "$2" "$log" || fail "$1: no message '$2'"
}

# Drop the 5-line I_OTauy1 entry and count one field less.
run_case missing "" \
  '/^ \$NFIELDS/ { print; getline; print "    9"; next }
   /^I_OTauy1 / { skip = 5 } skip > 0 { skip--; next } { print }' \
  --period 3600 --check none
expect missing "cryodyn: error: OASIS field 'I_OTauy1' (sent by component 'cryody') is not coupled by the namcouple"

run_case mismatch "" '{ sub(/^O_OCurx1 I_OCurx1 /, "O_OCurx1 I_OCurX1 "); print }' \
  --period 3600 --check none
expect mismatch "cryodyn: error: OASIS field 'I_OCurx1' (received by component 'cryody') is not coupled by the namcouple"

run_case dt "s/^  dt = 600\\./  dt = 700./" '{ print }' --period 3600 --check none
grep -q "^  dt = 700\\." "$rundir/run.nml" || fail "dt: could not set dt = 700 in the namelist"
expect dt "coupling_interval = 3600 s is not a multiple of the seaice time step dt = 700 s"
grep -q "^cryodyn: error: " "$log" || fail "dt: the message is not cryodyn's"

run_case period "" '{ sub(/ 1 3600 1 /, " 1 7200 1 "); print }' --period 7200 --check none
expect period "cryodyn: error: forcing = 'oasis': field I_Uwind1 (uwind) was not received at 3600 s: its coupling period in the namcouple must equal &cryo_run coupling_interval"

run_case partner "" '{ print }' --period 3600 --check none --die-at 2
expect partner "cryodyn-toy-ocean rank 0: --die-at 2: exiting at 7200 s without oasis_terminate"
grep -qi "exited\|exiting improperly\|non-zero exit" "$log" ||
  fail "partner: no report from mpirun of the partner's exit"
restart=$(sed -n "s/^ *restart_out = '\\([^']*\\)'.*/\\1/p" "$nml").2000-01-01-03600.nc
if [ -r "$rundir/$restart" ]; then
  # The same restart from a run whose partner lives, to compare with.
  ok=$top/reference
  mkdir "$ok"
  cp "$nml" "$ok/run.nml"
  cp "$namcouple" "$ok/namcouple"
  (cd "$ok" && timeout 60 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml : -np 1 "$toy" \
    --nx 40 --ny 30 --run 14400 --period 3600 --ocean uniform --u0 0.125 --v0 -0.0625 \
    --uwind 8 --vwind 4 >log 2>&1)
  same_bits "$rundir/$restart" "$ok/$restart" u ||
    fail "partner: u of restart $restart differs from the good run's or cannot be read"
else
  fail "partner: no restart $restart written before the partner died"
fi

# grid_name = 'cr.t' is refused by rank 0 alone, which describes the grid:
# every rank must learn it before oasis_enddef (rank 1 used to wait there
# while rank 0 waited for it, a silent hang).
run_case gridname "s/^&cryo_coupling/\&cryo_coupling grid_name = 'cr.t',/" '{ print }' \
  --period 3600 --check none
grep -q "grid_name = 'cr.t'" "$rundir/run.nml" || fail "gridname: could not set grid_name"
expect gridname "cryodyn: error: OASIS grid name 'cr.t' has 4 characters, must have 1 to 8 and no '.'"

# No namcouple, and one that is not a namcouple: cryodyn says what is wrong
# and exits non-zero before OASIS starts (OASIS itself would abort with exit
# code 0 and no message). cryodyn alone, as it stops before any partner joins.
for bad in none garbage; do
  rundir=$top/namcouple_$bad
  mkdir "$rundir"
  cp "$nml" "$rundir/run.nml"
  [ $bad = garbage ] && printf 'ICE_FRAC O_ICEFRC 1 3600 1 rsti.nc EXPORTED\n' >"$rundir/namcouple"
  (cd "$rundir" && timeout 60 "$mpirun" -np 1 "$cryodyn" run.nml >log 2>&1)
  rc=$?
  log=$rundir/log
  echo "--- namcouple_$bad: mpirun exit $rc"
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "namcouple_$bad: exit code $rc, expected non-zero"
done
log=$top/namcouple_none/log
expect namcouple_none "cryodyn: error: namcouple: cannot open: No such file or directory (OASIS reads the namcouple from the run directory"
log=$top/namcouple_garbage/log
expect namcouple_garbage "cryodyn: error: namcouple:1: 'ICE_FRAC O_ICEFRC 1 3600 1 rsti.nc EXPORTED' outside a section"

if [ "$failures" -gt 0 ]; then
  echo "coupled_failures: $failures check(s) failed; run directories under $top" >&2
  for d in "$top"/*/; do
    echo "=== $d/log" >&2
    grep -v "oasis_unitget\|oasis_init_comp" "$d/log" | tail -n 15 >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf "$top"
echo "coupled_failures: PASS (8 cases: missing field, name mismatch, dt, period, partner dies, grid name, no namcouple, garbage namcouple)"
exit 0
