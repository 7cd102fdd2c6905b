#!/bin/sh
# MISMIP+ (docs/mismip.md): write the geometry and forcing with
# scripts/make_mismip.py, spin up to steady state as a chain of restart
# segments of namelists/mismip_ice0.nml, then run Ice1r (100 a of melt from
# the last Ice0 state, namelists/mismip_ice1r.nml) and Ice1ra (100 a more
# without melt, a restart of Ice1r, namelists/mismip_ice1ra.nml), then Ice2r
# (the ice beyond x = 480 km removed and the front held there for 100 a,
# namelists/mismip_ice2r.nml) and Ice2ra (100 a more with the front back at
# 640 km, a restart of Ice2r, namelists/mismip_ice2ra.nml). After each
# segment it prints the grounded area and the centreline grounding line
# (examples/mismip_gl.py); at the end the Ice1 and Ice2 tables and plots.
#
#   sh examples/run_mismip.sh            (from the build directory)
#
# Environment (defaults in brackets):
#   CRYODYN      the driver [./cryodyn]
#   NP           MPI ranks [2]; MPIRUN the launcher [mpirun --oversubscribe -np $NP],
#                MPIRUN=none runs the driver without a launcher (NP ignored)
#   OUTDIR       run folder [mismip]
#   DX           cell size, m [2000]; EXTRA ice-free cells beyond 640 km [2]
#   DY           cell size across the channel, m [DX]
#   HALF         1: model y in [0, 40 km] with the mirror plane at the axis [0]
#   SEGMENTS     Ice0 restart segments [99]; SEG_YEARS years each [100]
#                (run_length counts from start and stops at year 9999:
#                SEGMENTS x SEG_YEARS <= 9998; continue a longer spin-up with
#                make_mismip.py --from into a new chain)
#   ICE1_YEARS   length of Ice1r, Ice1ra, Ice2r and Ice2ra [100]
#   SKIP_ICE0    1: reuse $OUTDIR/mismip_ice0.nc and go to Ice1r [0]
#   FROM         start the spin-up from the last thickness of this cryodyn
#                output or restart (interpolated to this grid when it has
#                another) instead of the 100 m slab: a finer run from a
#                coarser one's state
#   SPINUP_ONLY  1: stop after the Ice0 segments [0]
#   EXPERIMENTS  which follow Ice0: ice1 (Ice1r, Ice1ra), ice2 (Ice2r,
#                Ice2ra) or both ['ice1 ice2']
#   SET          extra namelist settings for every run, ';'-separated
#                'name = value' pairs replacing the line of that name
#                (e.g. SET='newton_rtol = 1.e-3; n_layers = 5')
#   ICE_FREE_THK thickness written in the ice-free cells [0]; > 0 only for a
#                build without ice margins, which needs ice everywhere
#   PYTHON       an interpreter with numpy and netCDF4 (found automatically)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
np=${NP:-2}
outdir=${OUTDIR:-mismip}
dx=${DX:-2000}
dy=${DY:-$dx}
half=
[ "${HALF:-0}" = 1 ] && half=--half
extra=${EXTRA:-2}
segments=${SEGMENTS:-99}
seg_years=${SEG_YEARS:-100}
ice1_years=${ICE1_YEARS:-100}
skip_ice0=${SKIP_ICE0:-0}
experiments=${EXPERIMENTS:-ice1 ice2}
settings=${SET:-}
ice_free_thk=${ICE_FREE_THK:-0}
year=31536000

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, netCDF4' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "run_mismip: error: no python3 with numpy and netCDF4 (Debian: python3-numpy python3-netcdf4)" >&2
  return 1
}
python=$(find_python)

case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
[ -x "$cryodyn" ] || { echo "run_mismip: error: $cryodyn not found (run make first)" >&2; exit 1; }
if [ "${MPIRUN:-}" = none ]; then
  launch=""
else
  launch=${MPIRUN:-mpirun --oversubscribe -np $np}
fi
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if [ "$skip_ice0" != 1 ] && [ $((segments * seg_years)) -gt 9998 ]; then
  echo "run_mismip: error: SEGMENTS x SEG_YEARS = $((segments * seg_years)) a runs past year 9999" >&2
  exit 1
fi

for e in $experiments; do
  case $e in
    ice1 | ice2) ;;
    *) echo "run_mismip: error: EXPERIMENTS: '$e' is not ice1 or ice2" >&2; exit 1 ;;
  esac
done

from=
if [ -n "${FROM:-}" ]; then
  case $FROM in /*) from=$FROM ;; *) from=$(pwd)/$FROM ;; esac
  [ -f "$from" ] || { echo "run_mismip: error: FROM=$FROM: no such file" >&2; exit 1; }
fi
mkdir -p "$outdir"
cd "$outdir"

# run_case NML LOG WHAT: the driver on NML into LOG; on failure the script
# stops with LOG's last lines.
run_case() {
  $launch "$cryodyn" "$1" > "$2" 2>&1 || {
    echo "run_mismip: error: $3 failed, see $outdir/$2:" >&2
    tail -3 "$2" >&2
    exit 1
  }
}

# namelist TEMPLATE OUT [name=value ...]: copy with the grid of this run,
# the SET settings and the given replacements.
namelist() {
  src=$1 dst=$2
  shift 2
  cp "$src" "$dst"
  sed -i -e "s/^\( *\)nx = [0-9]*, ny = [0-9]*/\1nx = $nx, ny = $ny/" \
    -e "s/^\( *\)dx = [0-9.]*, dy = [0-9.]*/\1dx = $dx., dy = $dy./" "$dst"
  old_ifs=$IFS
  IFS=';'
  for kv in $settings "$@"; do
    IFS=$old_ifs
    name=$(echo "$kv" | sed 's/^ *\([a-z_0-9]*\) *=.*/\1/')
    value=$(echo "$kv" | sed 's/^[^=]*= *//')
    [ -n "$name" ] || continue
    grep -q "^ *$name = " "$dst" || { echo "run_mismip: error: $dst has no '$name'" >&2; exit 1; }
    sed -i "s|^\( *\)$name = [^!]*|\1$name = $value |" "$dst"
    IFS=';'
  done
  IFS=$old_ifs
}

gl() {
  "$python" "$srcdir/examples/mismip_gl.py" "$@"
}

# restart name at the start of model year Y: <prefix>.YYYY-01-01-00000.nc
restart_at() {
  printf '%s.%04d-01-01-00000.nc' "$1" "$2"
}

grid=$("$python" "$srcdir/scripts/make_mismip.py" --dx "$dx" --dy "$dy" $half --extra-cells "$extra" \
  --ice-free-thk "$ice_free_thk" ${from:+--from "$from"} --forcing mismip_forcing.nc \
  mismip_geometry.nc)
grid=$(echo "$grid" | head -1)
echo "run_mismip: $grid"
nx=$(echo "$grid" | sed 's/.*nx = \([0-9]*\).*/\1/')
ny=$(echo "$grid" | sed 's/.*ny = \([0-9]*\).*/\1/')

if [ "$skip_ice0" != 1 ]; then
  rm -f mismip_ice0.nc
  k=1
  while [ "$k" -le "$segments" ]; do
    restart_in="''"
    [ "$k" -gt 1 ] && restart_in="'$(restart_at mismip_ice0_restart $((1 + (k - 1) * seg_years)))'"
    namelist "$srcdir/namelists/mismip_ice0.nml" ice0_seg.nml \
      "run_length = $((k * seg_years * year))." "restart_in = $restart_in"
    run_case ice0_seg.nml "ice0_seg$k.log" "Ice0 segment $k"
    printf 'Ice0 segment %d/%d: ' "$k" "$segments"
    gl mismip_ice0.nc --last | tail -1
    k=$((k + 1))
  done
fi
[ "${SPINUP_ONLY:-0}" = 1 ] && { echo "run_mismip: outputs in $outdir/"; exit 0; }

# geometry OUT [option ...]: make_mismip.py on this run's grid into OUT
geometry() {
  dst=$1
  shift
  "$python" "$srcdir/scripts/make_mismip.py" --dx "$dx" --dy "$dy" $half --extra-cells "$extra" \
    --ice-free-thk "$ice_free_thk" "$@" "$dst" > /dev/null
}

# first E: E r (ice1r, ice2r), a cold start from its geometry file, t = 0 to
# ICE1_YEARS; second E: E ra, a restart of E r at ICE1_YEARS, to 2 ICE1_YEARS;
# report E PNG: the grounding line of both as a table and a plot
first() {
  rm -f "mismip_$1r.nc" "mismip_$1ra.nc"
  namelist "$srcdir/namelists/mismip_$1r.nml" "$1r.nml" "run_length = $((ice1_years * year))."
  run_case "$1r.nml" "$1r.log" "$1r"
}
second() {
  namelist "$srcdir/namelists/mismip_$1ra.nml" "$1ra.nml" \
    "run_length = $((2 * ice1_years * year))." \
    "restart_in = '$(restart_at "mismip_$1r_restart" $((1 + ice1_years)))'"
  run_case "$1ra.nml" "$1ra.log" "$1ra"
}
report() {
  gl "mismip_$1r.nc" "mismip_$1ra.nc" --table
  gl "mismip_$1r.nc" "mismip_$1ra.nc" --plot "$2" --times 0 "$ice1_years" "$((2 * ice1_years))"
}

run_ice1() {
  # Ice1r from the last Ice0 thickness; Ice1ra without melt
  geometry mismip_ice1r_geometry.nc --from mismip_ice0.nc
  first ice1
  second ice1
  report ice1 mismip_gl.png
}

run_ice2() {
  # Ice2r from the last Ice0 thickness with the ice beyond 480 km removed and
  # the calving front held there; Ice2ra with the front back at 640 km (the
  # calving mask comes from the geometry file, not the restart)
  geometry mismip_ice2r_geometry.nc --calving-x 480 --from mismip_ice0.nc
  first ice2
  geometry mismip_ice2ra_geometry.nc --from mismip_ice2r.nc
  second ice2
  report ice2 mismip_gl_ice2.png
}

for e in $experiments; do
  case $e in
    ice1) run_ice1 ;;
    ice2) run_ice2 ;;
  esac
done
echo "run_mismip: outputs in $outdir/"
