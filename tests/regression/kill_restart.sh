#!/bin/sh
# SIGKILL during restart writing (long tier, `make check-long`): a sea-ice
# run writing a restart every coupling interval is killed at a random time,
# KILLS times (default 20). After each kill
#  - every complete restart it left holds the bits the uninterrupted run
#    wrote at the same model time (a killed write never leaves a half file
#    under a final name: it writes <name>.tmp and renames it);
#  - the run continued from the newest complete restart ends with the bits
#    of the uninterrupted run.
# The kill times are uniform over the run after its first restart, so some
# land inside a write; the log counts the kills that left a .tmp behind.
#
#   tests/regression/kill_restart.sh [KILLS]
set -u
kills=${1:-20}
: "${top_builddir:=.}"
case $top_builddir in /*) ;; *) top_builddir=$(pwd)/$top_builddir ;; esac
cryodyn=$top_builddir/cryodyn
cmp=$top_builddir/cryodyn-cmp
for f in "$cryodyn" "$cmp"; do
  [ -x "$f" ] || { echo "$0: $f is not built (make cryodyn cryodyn-cmp)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cryodyn-kill.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# namelist NAME RESTART_OUT RESTART_IN: 40 coupling intervals on 64 x 64
# cells, one cheap macro step each, so that writing restarts takes a good
# part of the run time.
namelist() {
  cat > "$1.nml" <<EOF
&cryo_run
  model = 'seaice', coupling_interval = 600, run_length = 24000
  restart_out = '$2', restart_interval = 600, restart_in = '$3'
/
&cryo_grid nx = 64, ny = 64, dx = 8000., dy = 8000. /
&cryo_seaice dt = 600., n_evp = 20 /
EOF
}

# One rank without mpirun (an MPI singleton), so that the signal reaches the
# model process itself and nothing is left to clean up after it.
namelist ref ref ""
start=$(date +%s)
"$cryodyn" ref.nml > ref.log 2>&1 || { echo "FAIL: the uninterrupted run"; cat ref.log; exit 1; }
final=$(ls ref.*.nc | tail -n 1)
# Kill within the first 80 % of the uninterrupted run's wall time (ms).
span=$((($(date +%s) - start) * 800))
[ "$span" -ge 500 ] || span=500

# random_delay MAX_MS: seconds as d.ddd, uniform in [0, MAX_MS).
random_delay() {
  r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
  ms=$((r * $1 / 65536))
  printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

passed=0
failed=0
mid_write=0
killed=0
attempt=0
while [ "$killed" -lt "$kills" ] && [ "$attempt" -lt $((3 * kills)) ]; do
  attempt=$((attempt + 1))
  rm -f kill.* cont.*
  namelist kill kill ""
  "$cryodyn" kill.nml > kill.log 2>&1 &
  pid=$!
  # Wait for the first restart, then a random time.
  while kill -0 "$pid" 2> /dev/null && [ -z "$(ls kill.*.nc 2> /dev/null)" ]; do
    sleep 0.02
  done
  sleep "$(random_delay "$span")"
  if ! kill -KILL "$pid" 2> /dev/null; then
    wait "$pid"
    echo "note: attempt $attempt: the run ended before the kill; not counted"
    continue
  fi
  wait "$pid" 2> /dev/null
  killed=$((killed + 1))
  tmp=$(ls kill.*.tmp 2> /dev/null)
  [ -n "$tmp" ] && mid_write=$((mid_write + 1))
  newest=$(ls kill.*.nc 2> /dev/null | tail -n 1)
  desc="kill $killed (after ${newest#kill.}${tmp:+, during the write of ${tmp#kill.}})"
  ok=yes
  for f in kill.*.nc; do
    if ! "$cmp" "ref.${f#kill.}" "$f" > cmp.log 2>&1; then
      ok=no
      echo "  complete restart $f differs from the uninterrupted run's:"
      sed 's/^/  | /' cmp.log
    fi
  done
  if [ "$newest" = "kill.${final#ref.}" ]; then
    : # killed after the last restart: nothing is left to continue
  else
    namelist cont cont "$newest"
    if ! "$cryodyn" cont.nml > cont.log 2>&1; then
      ok=no
      echo "  the newest complete restart $newest does not load:"
      sed 's/^/  | /' cont.log
    elif ! "$cmp" "$final" "cont.${final#ref.}" > cmp.log 2>&1; then
      ok=no
      echo "  the continued run differs from the uninterrupted one:"
      sed 's/^/  | /' cmp.log
    fi
  fi
  if [ "$ok" = yes ]; then
    passed=$((passed + 1))
    echo "ok: $desc: restarts intact, continuation bit for bit"
  else
    failed=$((failed + 1))
    echo "FAIL: $desc"
  fi
done

echo "$killed kills, $mid_write during a restart write; $passed passed, $failed failed"
test "$failed" -eq 0 && test "$killed" -eq "$kills"
