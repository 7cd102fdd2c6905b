#!/bin/sh
# The Arctic case (docs/arctic.md): write the grid and forcing files with
# scripts/make_arctic.py, run namelists/arctic.nml (25 km, 30 days) with
# cryodyn, and draw quick-look maps of thickness and drift.
#
#   sh examples/run_arctic.sh [--small | --resolution KM] [--steps LIST] [NP]
#   (from the build directory)
#
# NP: MPI ranks (default 1: one GPU, or the CPU threads of a CPU build).
# --small: the 180 km test grid and namelists/arctic_small.nml (1 day) instead.
# --resolution KM: the grid of KM km and namelists/arctic_KMkm.nml, in
# arctic_KMkm/ (examples/run_arctic_2km.sh: KM = 2).
# --steps: some of files,run,plot (default all three), e.g. the files and the
# maps here and the run on a GPU machine that lacks the Python packages.
# Writes into arctic/ (arctic_small/): the grid and forcing files, the
# namelist, the output arctic.nc, the final restart, and arctic_dayDD.png for
# days 1, 15 and 30 (the last record with --small or --resolution).
# Environment: CRYODYN (the driver, default ./cryodyn), MPIRUN (default
# mpirun), CRYODYN_TOOLS (the tools environment, see scripts/tools-python).
# Exits non-zero on failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
mpirun=${MPIRUN:-mpirun}
name=arctic
days="--day 1 --day 15 --day 30"
steps=files,run,plot
size=""
while [ $# -gt 0 ]; do
  case $1 in
    --small) name=arctic_small days="" size=--small ;;
    --resolution)
      km=${2:?--resolution needs a cell size in km}
      name=arctic_${km}km days="" size="--resolution $km"
      shift
      ;;
    --steps) steps=${2:?--steps needs a list}; shift ;;
    *) break ;;
  esac
  shift
done
for s in $(echo "$steps" | tr , ' '); do
  case $s in
    files | run | plot) ;;
    *) echo "run_arctic: error: --steps: '$s' is not one of files, run, plot" >&2; exit 2 ;;
  esac
done
step() { case ",$steps," in *",$1,"*) return 0 ;; esac; return 1; }
np=${1:-1}
case $np in
  '' | *[!0-9]*) echo "run_arctic: error: NP must be a number of ranks, not '$np'" >&2; exit 2 ;;
esac

# The generator needs global_land_mask: the tools environment's Python
# (scripts/install-deps.sh makes it); it has Debian's numpy, netCDF4 and
# matplotlib too, so it draws the maps as well.
if step files || step plot; then python=$(sh "$srcdir/scripts/tools-python"); fi

if [ ! -f "$srcdir/namelists/$name.nml" ]; then
  echo "run_arctic: error: no namelists/$name.nml for this grid" >&2
  exit 2
fi

mkdir -p "$name"
if step files; then
  # shellcheck disable=SC2086 # $size is an option and its value
  "$python" "$srcdir/scripts/make_arctic.py" $size --out-dir "$name"
  cp "$srcdir/namelists/$name.nml" "$name/$name.nml"
fi

if step run; then
  case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
  if [ ! -x "$cryodyn" ]; then
    echo "run_arctic: error: $cryodyn not found (run make first, or set CRYODYN)" >&2
    exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then
    # Open MPI refuses to run as root without these (containers, CI).
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  # A new run: an output file left by an earlier one would be appended to.
  rm -f "$name/$name.nc"
  echo "run_arctic: $np rank(s), namelists/$name.nml, in $name/"
  start=$(date +%s)
  # unbound: the grid-file checks use every core the rank may run on (docs/arctic.md, Start-up)
  (cd "$name" && "$mpirun" --oversubscribe --bind-to none -np "$np" "$cryodyn" "$name.nml")
  echo "run_arctic: cryodyn took $(($(date +%s) - start)) s"
fi

if step plot; then
  # shellcheck disable=SC2086 # $days is a list of options
  "$python" "$here/plot_arctic.py" "$name/$name.nc" --grid "$name/${name}_grid.nc" $days
  echo "run_arctic: done, see $name/${name}_day*.png"
fi
