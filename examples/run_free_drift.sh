#!/bin/sh
# Steady free drift (docs/benchmarks.md): write a uniform forcing file, run
# namelists/free_drift.nml on 2 ranks in free_drift/, and compare the interior
# ice velocity with the analytic steady state.
#
#   sh examples/run_free_drift.sh        (from the build directory, cryodyn in the cwd)
#
# Environment: CRYODYN (the driver, default ./cryodyn), NP (ranks, default 2),
# PYTHON (an interpreter with numpy and netCDF4, found automatically).
# Exits non-zero when the run fails or the velocity is off by more than 1e-6
# relative.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
cryodyn=${CRYODYN:-./cryodyn}
np=${NP:-2}

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, netCDF4' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "run_free_drift: error: no python3 with numpy and netCDF4 (Debian: python3-numpy python3-netcdf4)" >&2
  return 1
}
python=$(find_python)

case $cryodyn in /*) ;; *) cryodyn=$(pwd)/$cryodyn ;; esac
[ -x "$cryodyn" ] || { echo "run_free_drift: error: $cryodyn not found (run make first)" >&2; exit 1; }

mpirun_flags="--oversubscribe"
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

mkdir -p free_drift
cp "$srcdir/namelists/free_drift.nml" free_drift/free_drift.nml
cd free_drift

# Uniform wind 10 m/s along x, ocean at rest; two records span the run.
"$python" - <<'EOF'
import netCDF4, numpy as np
nx = ny = 32
with netCDF4.Dataset("free_drift_forcing.nc", "w") as d:
    d.createDimension("time", None)
    d.createDimension("y", ny)
    d.createDimension("x", nx)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "seconds since 2000-01-01 00:00:00"
    t.calendar = "proleptic_gregorian"
    t[:] = [0.0, 86400.0]
    for name, value in (("uwind", 10.0), ("vwind", 0.0), ("uocean", 0.0), ("vocean", 0.0)):
        v = d.createVariable(name, "f8", ("time", "y", "x"))
        v.units = "m s-1"
        v[:] = np.full((2, ny, nx), value)
EOF

start=$(date +%s)
mpirun $mpirun_flags -np "$np" "$cryodyn" free_drift.nml
echo "run_free_drift: cryodyn took $(( $(date +%s) - start )) s"

"$python" - <<'EOF'
import math, sys
import netCDF4, numpy as np
# Constants of the namelist (cyclone defaults) and the formula of docs/benchmarks.md.
rho_i, rho_a, rho_o, ca, co, f, h, ua = 900.0, 1.3, 1026.0, 1.2e-3, 5.5e-3, 1.46e-4, 0.3, 10.0
tau = rho_a * ca * ua * ua
a, b = rho_o * co, rho_i * h * f
speed = math.sqrt((-b * b + math.sqrt(b ** 4 + 4 * a * a * tau * tau)) / (2 * a * a))
theta = math.atan(b / (a * speed))
u_ref, v_ref = speed * math.cos(theta), -speed * math.sin(theta)
with netCDF4.Dataset("free_drift.nc") as d:
    u = np.asarray(d["u"][-1]); v = np.asarray(d["v"][-1])
# Interior nodes away from the walls (velocity 0 on the boundary and the
# ice piling up against it): the middle half of the domain.
n = u.shape[0]
s = slice(n // 4, 3 * n // 4)
err = max(np.abs(u[s, s] - u_ref).max(), np.abs(v[s, s] - v_ref).max()) / speed
print("run_free_drift: analytic u = %.6f, v = %.6f m/s (|U| = %.4f m/s, %.2f deg right of the wind)"
      % (u_ref, v_ref, speed, math.degrees(theta)))
print("run_free_drift: model    u = %.6f, v = %.6f m/s at the centre; max relative error %.2e"
      % (u[n // 2, n // 2], v[n // 2, n // 2], err))
sys.exit(0 if err < 1e-6 else 1)
EOF
