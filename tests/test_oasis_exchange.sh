#!/bin/sh
# Same-grid OASIS3-MCT exchange through cryodyn's exchange provider "oasis"
# (coupling/exchange_oasis.c) between the test component "cryody"
# (tests/oasis_exchange_comp: cryo_coupler_init, then cryo_exchange_create on a 2-D
# block decomposition, box partitions) and the toy ocean "toyoce"
# (cryodyn-toy-ocean, examples/toy_ocean.c, row bands), docs/design.md, Coupling.
#
# Asserted (exact, tolerance 0):
#   1. namelists/namcouple_seaice_toyocean as shipped, 40 x 30, 4 steps, 2 + 1 ranks:
#      22528 values received by cryody (ocean gyre and uniform wind, 4 fields, owned
#      cells and the halo ring clamped at the domain edge) and 28800 pattern values
#      received by toyoce equal what the partner sent;
#   2. the same on a 37 x 23 grid, 6 steps of 1800 s, 2 + 2 ranks (the partner has a
#      different decomposition, so OASIS must redistribute), uniform current,
#      periodic in x (ring wrapped): 24600 and 30636 values;
#   3. a misspelled field name in the namcouple (I_OCurX1) stops the run with a
#      non-zero exit and cryodyn's message naming the field I_OCurx1;
#   4. components coupling every 1800 s against the namcouple's 3600 s stop with a
#      non-zero exit and the provider's message that I_OCurx1 was not received at
#      1800 s;
#   5. a namcouple without the I_Vwind1 exchange ($NFIELDS 9) stops the run with a
#      non-zero exit and cryodyn's message naming I_Vwind1.
# OASIS aborts make mpirun exit 0 and a coupling mismatch deadlocks, so each run is
# under `timeout` and is judged by its output: both PASS lines, "SUCCESSFUL RUN" in
# both components' debug.root.* files, and no "MPI_ABORT was invoked".
#
# Environment: top_srcdir / top_builddir (as the Makefile exports them; default:
# this script's parent directory and the current directory), MPIRUN (default
# mpirun), OASIS_EXCHANGE_COMP and TOY_OCEAN (the two programs; default: found
# under the build directory), KEEP_RUNDIR=1 keeps the run directories.
set -u

. "$(cd "${top_srcdir:-${srcdir:-$(dirname "$0")/..}}" && pwd)/tests/coupled-env.sh"
comp=${OASIS_EXCHANGE_COMP:-$(first_of "$builddir/tests/oasis_exchange_comp" "$builddir/oasis_exchange_comp")}
toy=${TOY_OCEAN:-$builddir/cryodyn-toy-ocean}
namcouple=$srcdir/namelists/namcouple_seaice_toyocean

for f in "$comp" "$toy" "$namcouple"; do
  if [ ! -r "$f" ]; then
    echo "test_oasis_exchange: FAIL: missing $f" >&2
    exit 1
  fi
done
case $comp in /*) ;; *) comp=$(pwd)/$comp ;; esac
case $toy in /*) ;; *) toy=$(pwd)/$toy ;; esac

failures=0
fail() {
  echo "test_oasis_exchange: FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_case NAME NCOMP NTOY SED_SCRIPT ARGS...: run in a fresh directory with the
# shipped namcouple edited by SED_SCRIPT (awk script in $AWK_EDIT if set, applied
# after it); leaves $rundir, $rc and $rundir/log. $COMP_ARGS: options for the test
# component only.
run_case() {
  name=$1 ncomp=$2 ntoy=$3 edit=$4
  shift 4
  rundir=$(mktemp -d "${TMPDIR:-/tmp}/cryo_oasis_$name.XXXXXX")
  sed "$edit" "$namcouple" | awk "${AWK_EDIT:-1}" >"$rundir/namcouple"
  (cd "$rundir" && timeout 60 "$mpirun" --oversubscribe -np "$ncomp" "$comp" "$@" ${COMP_ARGS:-} : \
    -np "$ntoy" "$toy" "$@" --check pattern >log 2>&1)
  rc=$?
  echo "--- $name: mpirun exit $rc, run directory $rundir"
  [ "$rc" = 124 ] && fail "$name: no end within 60 s (coupling deadlock?)"
}

# expect_pass NAME COMP_VALUES TOY_VALUES
expect_pass() {
  log=$rundir/log
  [ "$rc" = 0 ] || fail "$1: mpirun exit code $rc, expected 0"
  grep -q "MPI_ABORT was invoked" "$log" && fail "$1: MPI_ABORT was invoked"
  grep -q "oasis_exchange_comp: PASS: $2 received values equal the sent ones exactly" "$log" ||
    fail "$1: no PASS line from oasis_exchange_comp for $2 values"
  grep -q "cryodyn-toy-ocean: PASS: $3 received values equal the sent pattern" "$log" ||
    fail "$1: no PASS line from cryodyn-toy-ocean for $3 values"
  for id in 01 02; do
    grep -q "SUCCESSFUL RUN" "$rundir/debug.root.$id" 2>/dev/null ||
      fail "$1: no SUCCESSFUL RUN in debug.root.$id"
  done
}

run_case shipped 2 1 "" --nx 40 --ny 30 --run 14400 --period 3600
expect_pass shipped 22528 28800
ok_dirs=$rundir

COMP_ARGS="--periodic-x 1" run_case redistribute 2 2 \
  "s/^40 30 40 30 /37 23 37 23 /; s/^    14400\$/    10800/; s/ 1 3600 1 / 1 1800 1 /" \
  --nx 37 --ny 23 --run 10800 --period 1800 --ocean uniform --u0 0.25 --v0 -0.125
expect_pass redistribute 24600 30636
ok_dirs="$ok_dirs $rundir"

run_case misspelled 2 1 "s/^O_OCurx1 I_OCurx1 /O_OCurx1 I_OCurX1 /" \
  --nx 40 --ny 30 --run 14400 --period 3600
[ "$rc" != 0 ] || fail "misspelled: mpirun exit code 0, expected non-zero"
grep -q "OASIS field 'I_OCurx1' (received by component 'cryody') is not coupled by the namcouple" \
  "$rundir/log" || fail "misspelled: no cryodyn message naming field I_OCurx1"
grep -q "PASS" "$rundir/log" && fail "misspelled: a PASS line was printed"
ok_dirs="$ok_dirs $rundir"

run_case period 2 1 "" --nx 40 --ny 30 --run 14400 --period 1800
[ "$rc" != 0 ] || fail "period: mpirun exit code 0, expected non-zero"
grep -q "field I_OCurx1 (uocean) was not received at 1800 s: its coupling period in the namcouple must equal" \
  "$rundir/log" || fail "period: no message on the coupling period mismatch"
grep -q "PASS" "$rundir/log" && fail "period: a PASS line was printed"
ok_dirs="$ok_dirs $rundir"

# Drop the 5-line A_Vwind1 entry and count one field less.
AWK_EDIT='/^A_Vwind1 /{skip=5} skip>0{skip--; next} {print}' run_case missing 2 1 \
  "s/^    10\$/    9/" --nx 40 --ny 30 --run 14400 --period 3600
[ "$rc" != 0 ] || fail "missing: mpirun exit code 0, expected non-zero"
grep -q "OASIS field 'I_Vwind1' (received by component 'cryody') is not coupled by the namcouple" \
  "$rundir/log" || fail "missing: no cryodyn message naming field I_Vwind1"
grep -q "PASS" "$rundir/log" && fail "missing: a PASS line was printed"
ok_dirs="$ok_dirs $rundir"

if [ "$failures" -gt 0 ]; then
  echo "test_oasis_exchange: $failures check(s) failed; logs kept in:$ok_dirs" >&2
  for d in $ok_dirs; do
    echo "=== $d/log" >&2
    tail -n 30 "$d/log" >&2
  done
  exit 1
fi
[ "${KEEP_RUNDIR:-0}" = 1 ] || rm -rf $ok_dirs
echo "test_oasis_exchange: PASS (5 cases)"
exit 0
