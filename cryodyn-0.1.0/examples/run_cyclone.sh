#!/bin/sh
# The main example (`make example`): the Mehlmann et al. (2021) sea-ice
# cyclone benchmark at 8 km (namelists/cyclone_8km.nml, 64 x 64 cells) for
# 24 h on 2 MPI ranks, then a PNG of log10 shear rate at the end.
#
#   sh examples/run_cyclone.sh     (from the build directory, cryodyn in the cwd)
#
# Writes cyclone_64/cyclone.nml (the namelist with run_length 86400 s and
# output_file cyclone.nc), cyclone_64/cyclone.nc and cyclone_64/shear.png.
# Environment: CRYODYN (the driver, default ./cryodyn), NP (ranks, default 2),
# RUN_LENGTH (s, default 86400), PYTHON (an interpreter with numpy,
# matplotlib and netCDF4, found automatically). Exits non-zero on failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
np=${NP:-2}
run_length=${RUN_LENGTH:-86400}
out=cyclone_64

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, matplotlib, netCDF4' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "run_cyclone: error: no python3 with numpy, matplotlib and netCDF4" \
    "(Debian: apt-get install python3-numpy python3-matplotlib python3-netcdf4)" >&2
  return 1
}
# Check the plotting tools before spending minutes on the run.
python=$(find_python)

case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
if [ ! -x "$cryodyn" ]; then
  echo "run_cyclone: error: $cryodyn not found (run make first)" >&2
  exit 1
fi
nml=$srcdir/namelists/cyclone_8km.nml
[ -r "$nml" ] || { echo "run_cyclone: error: cannot read $nml" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
  # Open MPI refuses to run as root without these (containers, CI).
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

mkdir -p "$out"
sed -e "s/^\( *run_length *=\).*/\1 $run_length          ! s (run_cyclone.sh)/" \
    -e "s/^\( *output_file *=\).*/\1 'cyclone.nc'/" "$nml" > "$out/cyclone.nml"
if ! grep -q "run_length = $run_length " "$out/cyclone.nml" ||
   ! grep -q "output_file = 'cyclone.nc'" "$out/cyclone.nml"; then
  echo "run_cyclone: error: could not set run_length and output_file in $out/cyclone.nml" >&2
  exit 1
fi

echo "run_cyclone: $np ranks, 64 x 64 cells, $run_length s, in $out/"
start=$(date +%s)
(cd "$out" && mpirun --oversubscribe -np "$np" "$cryodyn" cyclone.nml)
echo "run_cyclone: cryodyn took $(( $(date +%s) - start )) s"

"$python" "$here/plot_shear.py" "$out/cyclone.nc" "$out/shear.png" --title "cyclone 8 km"
echo "run_cyclone: done, see $out/shear.png"
