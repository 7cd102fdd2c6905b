#!/bin/sh
# The Arctic case coupled through OASIS3-MCT to the toy ocean on a 1 degree longitude-latitude
# grid (namelists/arctic_coupled.nml, namelists/namcouple_seaice_arctic; docs/seaice.md,
# Coupling on curvilinear grids): write the grid file with scripts/make_arctic.py, run cryodyn
# (NP ranks) against cryodyn-toy-ocean (1 rank) for 2 days, then compare the current cryodyn
# received with the toy's analytic field and the stress integrals of both sides.
#
#   sh examples/run_arctic_coupled.sh [NP]      (from the build directory; NP default 2)
#
# Writes into arctic_coupled/: arctic_grid.nc, the namelist, the namcouple, the OASIS files
# (grids.nc, masks.nc, areas.nc, the rmp_*.nc weights, debug.*), the output arctic_coupled.nc
# and log. On 2 CPU ranks OASIS computes the weights in about 20 s and each coupled hour takes
# about 13 s (11 minutes in all).
# Environment: CRYODYN, TOY_OCEAN (default ./cryodyn, ./cryodyn-toy-ocean), MPIRUN (default
# mpirun), CRYODYN_TOOLS (the tools environment of scripts/tools-python: make_arctic.py needs
# global_land_mask). Exits non-zero on failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
toy=${TOY_OCEAN:-./cryodyn-toy-ocean}
mpirun=${MPIRUN:-mpirun}
np=${1:-2}
case $np in
  '' | *[!0-9]*) echo "run_arctic_coupled: error: NP must be a number of ranks, not '$np'" >&2; exit 2 ;;
esac
for p in cryodyn toy; do
  eval "v=\$$p"
  case $v in /*) ;; *) v=$(pwd)/$v ;; esac
  if [ ! -x "$v" ]; then
    echo "run_arctic_coupled: error: $v not found (make, in a build configured --with-oasis)" >&2
    exit 1
  fi
  eval "$p=\$v"
done
python=$(sh "$srcdir/scripts/tools-python")
if [ "$(id -u)" -eq 0 ]; then
  # Open MPI refuses to run as root without these (containers, CI).
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

d=arctic_coupled
mkdir -p "$d"
"$python" "$srcdir/scripts/make_arctic.py" --out-dir "$d"
cp "$srcdir/namelists/arctic_coupled.nml" "$d/arctic_coupled.nml"
cp "$srcdir/namelists/namcouple_seaice_arctic" "$d/namcouple"
# A new run: OASIS reuses weight and grid files it finds, cryodyn appends to an output file.
(cd "$d" && rm -f rmp_*.nc grids.nc masks.nc areas.nc arctic_coupled.nc)

# The toy's options must match the namelist and the namcouple (grid toyt 360 x 50, the run,
# the period); --axis 90,0: a transpolar drift towards Fram Strait, 0.1 m/s at the pole.
toy_args="--nx 360 --ny 50 --latlon -180,180,40,90 --ocean solid --u0 0.1 --axis 90,0"
toy_args="$toy_args --uwind 0 --vwind 0 --run 172800 --period 3600"
echo "run_arctic_coupled: cryodyn on $np rank(s) + the toy ocean on 1, in $d/"
start=$(date +%s)
# shellcheck disable=SC2086 # $toy_args is a list of options
(cd "$d" && "$mpirun" --oversubscribe -np "$np" "$cryodyn" arctic_coupled.nml : \
  -np 1 "$toy" $toy_args >log 2>&1) || {
  echo "run_arctic_coupled: error: the coupled run failed; see $d/log" >&2
  tail -n 20 "$d/log" >&2
  exit 1
}
echo "run_arctic_coupled: the coupled run took $(($(date +%s) - start)) s"
grep "stress integral" "$d/log" >"$d/toy_integrals"

# The current received against the analytic field: within the bilinear bound south of the
# toy's last row of centres (89.5 N), and what happens in the polar cap beyond it.
(cd "$d" && "$python" - <<'EOF')
import numpy as np
import netCDF4

U, AXIS_LON, AXIS_LAT = 0.1, 90.0, 0.0
pa = np.radians(AXIS_LAT)
out = netCDF4.Dataset("arctic_coupled.nc")
lon, lat = out["lon"][:], out["lat"][:]
p, dl = np.radians(lat), np.radians(lon - AXIS_LON)
ue = U * (np.sin(pa) * np.cos(p) - np.cos(pa) * np.sin(p) * np.cos(dl))
vn = U * np.cos(pa) * np.sin(dl)
ocean = netCDF4.Dataset("masks.nc")["cryt.msk"][:] == 0
uo, vo = out["uocean"][-1], out["vocean"][-1]
err = np.hypot(uo - ue, vo - vn)
bound = U / 8 * 2 * np.radians(1.0) ** 2
cap = lat >= 89.5
print("received current, %d ocean cells south of 89.5 N: error up to %.3g m/s, %.2f of the "
      "bilinear bound %.3g" % ((ocean & ~cap).sum(), err[ocean & ~cap].max(),
                               err[ocean & ~cap].max() / bound, bound))
turn = (np.degrees(np.arctan2(vo, uo) - np.arctan2(vn, ue)) + 180) % 360 - 180
print("polar cap (%d cells north of 89.5 N, SCRIP's distance-weighted fallback): error up to "
      "%.3g m/s, speed %.4f-%.4f m/s (%.4f), direction off by up to %.2f degrees"
      % (cap.sum(), err[cap].max(), np.hypot(uo, vo)[cap].min(), np.hypot(uo, vo)[cap].max(),
         U, np.abs(turn[cap]).max()))
area = netCDF4.Dataset("areas.nc")["cryt.srf"][:]
toy = {int(f[2]): (float(f[6]), float(f[8])) for f in (l.split() for l in open("toy_integrals"))}
worst = 0.0
for r in range(1, out["time"].shape[0]):
    # record r holds the stress sent at the end of the coupling step ending at its time
    step = int(out["time"][r]) // 3600 - 1
    sent = [float((out[v][r] * area * ocean).sum()) for v in ("taux_io", "tauy_io")]
    worst = max([worst] + [abs(g - s) / abs(s) for g, s in zip(toy[step], sent)])
print("stress integral, sent by cryodyn and received by the toy: %.2e relative at worst "
      "(at the output's %d records)" % (worst, out["time"].shape[0] - 1))
EOF
echo "run_arctic_coupled: done, output $d/arctic_coupled.nc"
