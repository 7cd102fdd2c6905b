#!/bin/sh
# ISMIP-HOM experiment A or C (Pattyn et al. 2008) at L = 5, 10, 20, 40, 80
# and 160 km: one velocity solve each from namelists/ismip_hom_<exp>_L<L>.nml,
# then the surface speed along y = L/4 (PNG, one panel per L) and a table of
# its maximum for each L.
#
#   sh examples/ismip_series.sh [a|c] [L ...]    (from the build directory)
#
# Writes ismip_hom_<exp>/ with the namelists, the outputs, cryodyn logs and
# ismip_hom_<exp>.png. Environment: CRYODYN (default ./cryodyn), NP (ranks,
# default 2), PYTHON (with numpy, matplotlib and netCDF4; found
# automatically). Exits non-zero when a run or the plot fails.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
np=${NP:-2}
exp=${1:-a}
[ $# -gt 0 ] && shift
lengths=${*:-5 10 20 40 80 160}
case $exp in
  a|A) exp=a ;;
  c|C) exp=c ;;
  *) echo "ismip_series: error: experiment '$exp', must be a or c" >&2; exit 2 ;;
esac

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, matplotlib, netCDF4' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "ismip_series: error: no python3 with numpy, matplotlib and netCDF4" \
    "(Debian: apt-get install python3-numpy python3-matplotlib python3-netcdf4)" >&2
  return 1
}
python=$(find_python)

case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
[ -x "$cryodyn" ] || { echo "ismip_series: error: $cryodyn not found (run make first)" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

dir=ismip_hom_$exp
mkdir -p "$dir"
files=""
for L in $lengths; do
  name=ismip_hom_${exp}_L$L
  nml=$srcdir/namelists/$name.nml
  [ -r "$nml" ] || { echo "ismip_series: error: no namelist $nml" >&2; exit 1; }
  cp "$nml" "$dir/$name.nml"
  start=$(date +%s)
  if ! (cd "$dir" && mpirun --oversubscribe -np "$np" "$cryodyn" "$name.nml" > "$name.log" 2>&1); then
    echo "ismip_series: error: L = $L km failed; the end of $dir/$name.log:" >&2
    tail -n 5 "$dir/$name.log" >&2
    exit 1
  fi
  echo "ismip_series: L = $L km: $(grep 'Newton steps' "$dir/$name.log" | tail -n 1 | sed 's/.*volume [^ ]* m3  //')," \
    "$(( $(date +%s) - start )) s"
  files="$files $dir/$name.nc"
done

# shellcheck disable=SC2086 # the file list splits on purpose
"$python" "$here/plot_ismip.py" "$dir/$dir.png" $files --exp "$exp"
