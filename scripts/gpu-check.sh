#!/bin/sh
# The GPU check of the product: the cryodyn driver built with
# `./configure --enable-openacc=gcc` runs the check cases on an NVIDIA GPU,
# and every output variable is compared with the CPU build's output of the
# same cases.
#
#   sh scripts/gpu-check.sh build DIR    where the toolchain is (Debian 12 with
#       scripts/install-deps.sh): builds the CPU and the OpenACC product from
#       this checkout in DIR/build-cpu and DIR/build-gpu, runs every case with
#       the CPU build, and packs into DIR/pack the OpenACC driver, every shared
#       library it links (GCC's libgomp and its nvptx plugin among them), the
#       case inputs and the CPU outputs
#   sh DIR/pack/gpu-check.sh run DIR/pack    on the GPU machine (which needs
#       only the NVIDIA driver, Open MPI and python3 with numpy): takes from
#       the pack the
#       libraries the machine lacks, runs every case on the GPU, then compares
#   sh DIR/pack/gpu-check.sh compare DIR/pack    the comparison alone: prints
#       the table and writes it to DIR/pack/gpu-check.md
#   sh scripts/gpu-check.sh all DIR    the three in turn on one machine
#   sh DIR/pack/gpu-check.sh perf DIR/pack    timings for docs/performance.md:
#       ISMIP-HOM A (80 x 80 x 10) on the GPU and with OpenMP on every core,
#       the cyclone at 1024 x 1024 with hourly coupling and 6-hourly output
#   sh DIR/pack/gpu-check.sh solver DIR/pack    the land-ice linear solver
#       against resolution, both preconditioners (ISMIP-HOM A 40^2 .. 640^2 x
#       10, MISMIP+ at 1 km), GPU and OpenMP on every core
#   sh DIR/pack/gpu-check.sh precision DIR/pack    the 2 km cyclone with the
#       stress update in single and in double precision: dynamics time and
#       the benchmark's diagnostics at 24 and 48 h, into DIR/pack/precision.md
#   sh DIR/pack/gpu-check.sh scale DIR/pack    one MPI rank per GPU: bit for
#       bit against 1 GPU, weak and strong scaling of the sea-ice dynamics and
#       weak scaling of land ice; writes DIR/pack/scale.md (see scale below)
#   sh DIR/pack/gpu-check.sh nodes DIR/pack    one MPI rank per GPU on 1, 2, 4
#       and 8 GPUs: the Arctic at 2 km and MISMIP+ at 1 km, strong scaling and
#       bit for bit against 1 GPU; writes DIR/pack/nodes.md (see nodes below)
#
# The cases: the sea-ice cyclone at 8 km for 6 h on 1, 2 and 4 ranks, free
# drift from a NetCDF forcing file, ISMIP-HOM A at L = 80 km, ISMIP-HOM A
# with thickness evolution over two coupling intervals on 1 and 2 ranks, and
# the Arctic case (a 25 km polar stereographic grid file with land, docs/arctic.md)
# for one day on 1 and 2 ranks, and for 6 hours with dG1 tracers on 1 and 2 ranks;
# the global case on a 5-degree tripolar grid (periodic in x, a T or an F north
# fold, docs/global.md) for 6 hours on 1 and 2 ranks;
# land ice with the Weertman law (ISMIP-HOM C geometry) and a grounded marine
# slab on the Schoof law, MISMIP+ at 8 km for 10 years (margins, calving
# mask, flotation), and the basal inversion's twin (ISMIP-HOM C, 16 x 16 x 5),
# on 1 and 2 ranks; the sea-ice dynamics options (docs/seaice.md): the 8 km
# cyclone for 6 h with a turning angle, tensile strength and the adaptive
# EVP, and landfast ice with a received sea-surface height (basal stress over
# a shoal from a bathymetry file, ssh tilt, turning angle), on 1 and 2 ranks;
# the mEVP stress stored in single precision (state_precision, docs/seaice.md,
# Storage precision): the 8 km cyclone and the Arctic case for 6 h on 1 and 2 ranks.
# Ranks take the node's GPUs in turn: on one
# GPU they share it, on several each has its own. `run` also times the 2 km
# cyclone for 2 days and the Arctic case for 30 days (no CPU twins: hours on
# two cores); GPU_CHECK_TIMING=0 skips them.
#
# The run fails (exit 1) when a GPU run fails, when its banner does not name
# a GPU, when a variable differs from the CPU output by more than the case's
# tolerance, or when the 2 and 4 rank GPU runs are not bit for bit those of
# 1 rank. Environment: PYTHON (python3 with numpy),
# MPIRUN (default mpirun), GPU_CHECK_SKIP (cases to leave out, below),
# GPU_CHECK_CASE_TIMEOUT (seconds a case's run may take, default 120).
set -eu

usage() {
  echo "usage: gpu-check.sh build DIR | run PACK | compare PACK | perf PACK | solver PACK | precision PACK | scale PACK | nodes PACK | all DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
mpirun=${MPIRUN:-mpirun}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

# NAME RANKS REFERENCE: the CPU run of REFERENCE is what NAME is compared with.
cases="cyclone_8km 1 cyclone_8km
cyclone_8km_2ranks 2 cyclone_8km
cyclone_8km_4ranks 4 cyclone_8km
free_drift 1 free_drift
ismip_hom_a_L80 1 ismip_hom_a_L80
landice_evolve 1 landice_evolve
landice_evolve_2ranks 2 landice_evolve
arctic 1 arctic
arctic_2ranks 2 arctic
arctic_dg1 1 arctic_dg1
arctic_dg1_2ranks 2 arctic_dg1
landice_weertman 1 landice_weertman
landice_weertman_2ranks 2 landice_weertman
landice_schoof_marine 1 landice_schoof_marine
landice_schoof_marine_2ranks 2 landice_schoof_marine
landice_mismip 1 landice_mismip
landice_mismip_2ranks 2 landice_mismip
ismip_hom_a_L80_column 1 ismip_hom_a_L80_column
landice_evolve_column 1 landice_evolve_column
landice_evolve_column_2ranks 2 landice_evolve_column
landice_mismip_column 1 landice_mismip_column
landice_mismip_column_2ranks 2 landice_mismip_column
global_5deg 1 global_5deg
global_5deg_2ranks 2 global_5deg
global_5deg_f 1 global_5deg_f
global_5deg_f_2ranks 2 global_5deg_f
landice_invert 1 landice_invert
landice_invert_2ranks 2 landice_invert
cyclone_options 1 cyclone_options
cyclone_options_2ranks 2 cyclone_options
landfast_tilt 1 landfast_tilt
landfast_tilt_2ranks 2 landfast_tilt
cyclone_bbm 1 cyclone_bbm
cyclone_bbm_2ranks 2 cyclone_bbm
cyclone_single 1 cyclone_single
cyclone_single_2ranks 2 cyclone_single
arctic_single 1 arctic_single
arctic_single_2ranks 2 arctic_single"
# GPU_CHECK_SKIP (an extended regular expression): leave out the cases whose
# names match, in every step (a pack without their large outputs stays small)
if [ -n "${GPU_CHECK_SKIP:-}" ]; then
  cases=$(echo "$cases" | grep -Ev "^(${GPU_CHECK_SKIP}) ")
fi

# Write case NAME's namelist (from the shipped ones in SRC/namelists) and
# inputs into the current directory; print the output file's name.
make_case() { # NAME SRC
  case $1 in
    cyclone_options*)
      # the cyclone with the dynamics options of docs/seaice.md
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *output_file = .*/  output_file = 'cyclone_options.nc'/" \
        -e 's/^ *alpha = 800., beta = 800./  turning_angle = 25., tensile_k = 0.1, adaptive_evp = .true./' \
        "$2/namelists/cyclone_8km.nml" > case.nml
      echo cyclone_options.nc ;;
    cyclone_bbm*)
      # the cyclone with the BBM rheology (docs/seaice.md, The BBM rheology),
      # 120 sub-steps of 1 s per step, 20 min: damage reaches 0.96 in the
      # first 10 min, and the pack breaks up after some 20 min, when round-off
      # differences are amplified to percents (see the tolerance below)
      sed -e 's/^ *run_length = .*/  run_length = 1200/' \
        -e 's/^ *coupling_interval = .*/  coupling_interval = 600/' \
        -e 's/^ *output_interval = .*/  output_interval = 600/' \
        -e "s/^ *output_file = .*/  output_file = 'cyclone_bbm.nc'/" \
        "$2/namelists/cyclone_bbm_8km.nml" > case.nml
      echo cyclone_bbm.nc ;;
    cyclone_single*)
      # the cyclone with the mEVP stress stored as float (docs/seaice.md, Storage precision)
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *output_file = .*/  output_file = 'cyclone_single.nc'/" \
        -e "s/^ *n_evp = 100\$/  n_evp = 100, state_precision = 'single'/" \
        "$2/namelists/cyclone_8km.nml" > case.nml
      grep -q "state_precision = 'single'" case.nml
      echo cyclone_single.nc ;;
    arctic_single*)
      # the Arctic case (quadrilateral kernels) with the stress stored as float, 6 hours
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *restart_out = .*/  restart_out = ''/" \
        -e "s/^ *n_evp = 500\$/  n_evp = 500, state_precision = 'single'/" \
        "$2/namelists/arctic.nml" > case.nml
      grep -q "state_precision = 'single'" case.nml
      cp "$2/arctic/arctic_grid.nc" "$2/arctic/arctic_forcing.nc" .
      echo arctic.nc ;;
    landfast_tilt*)
      # 0.5 m of ice (A = 0.9) in a closed 256 km box with a 3 m shoal in its west
      # third (basal stress), a sea-surface slope (ssh tilt) and a 15 m/s
      # wind (write_options_inputs), 12 h
      cat > case.nml <<EOF
&cryo_run
  model = 'seaice', run_length = 43200, coupling_interval = 3600
  output_interval = 21600, output_file = 'landfast_tilt.nc'
  forcing = 'netcdf', forcing_file = 'options_forcing.nc'
/
&cryo_grid nx = 32, ny = 32, dx = 8000., dy = 8000. /
&cryo_seaice
  dt = 120., n_evp = 100, init = 'uniform', h_init = 0.5, a_init = 0.9
  basal_stress = .true., bathymetry_file = 'options_bathymetry.nc', bathymetry_var = 'depth'
  ssh_tilt = .true., turning_angle = 20.
/
EOF
      echo landfast_tilt.nc ;;
    cyclone_8km*)
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *output_file = .*/  output_file = 'cyclone_8km.nc'/" \
        "$2/namelists/cyclone_8km.nml" > case.nml
      echo cyclone_8km.nc ;;
    free_drift)
      cp "$2/namelists/free_drift.nml" case.nml
      echo free_drift.nc ;;
    ismip_hom_a_L80*)
      cp "$2/namelists/ismip_hom_a_L80.nml" case.nml
      echo ismip_hom_a_L80.nc ;;
    landice_evolve*)
      cat > case.nml <<EOF
&cryo_run
  model = 'landice', calendar = 'noleap'
  run_length = 63072000, coupling_interval = 31536000
  output_interval = 31536000, output_file = 'landice_evolve.nc'
/
&cryo_grid nx = 16, ny = 16 /
&cryo_landice
  case = 'ismip-hom-a', domain_length = 80000., periodic = .true., n_layers = 5
  dt = 31536000., evolve_thickness = .true.
/
EOF
      echo landice_evolve.nc ;;
    landice_weertman*)
      # ISMIP-HOM C's geometry with the Weertman law (kernels/landice_sliding.c)
      cat > case.nml <<EOF
&cryo_run
  model = 'landice', calendar = 'noleap'
  run_length = 31536000, coupling_interval = 31536000
  output_interval = 31536000, output_file = 'landice_weertman.nc'
/
&cryo_grid nx = 20, ny = 20 /
&cryo_landice
  case = 'ismip-hom-c', domain_length = 80000., periodic = .true., n_layers = 5
  basal = 'friction', sliding_law = 'weertman', sliding_c = 1.e4
  dt = 31536000.
/
EOF
      echo landice_weertman.nc ;;
    landice_schoof_marine*)
      # a grounded marine slab (700 m of water under 1000 m of ice) on the
      # Schoof law: effective pressure from flotation, grounded fractions
      cat > case.nml <<EOF
&cryo_run
  model = 'landice', calendar = 'noleap'
  run_length = 31536000, coupling_interval = 31536000
  output_interval = 31536000, output_file = 'landice_schoof_marine.nc'
/
&cryo_grid nx = 8, ny = 8, dx = 1000., dy = 1000. /
&cryo_landice
  case = 'slab', periodic = .true., slope = 0.5, thickness = 1000., n_layers = 10
  basal = 'friction', sliding_law = 'schoof', coulomb_c = 0.05
  marine = .true., sea_level = -300.
  dt = 31536000.
/
EOF
      echo landice_schoof_marine.nc ;;
    landice_mismip*)
      # MISMIP+ at 8 km from its 100 m start (docs/mismip.md), 10 years:
      # ice-free cells beyond the calving mask, margin loads, flotation,
      # free-slip walls, the MISMIP+ melt
      sed -e 's/^ *run_length = .*/  run_length = 315360000./' \
        -e 's/^ *output_interval = .*/  output_interval = 157680000./' \
        -e "s/^ *output_file = .*/  output_file = 'landice_mismip.nc'/" \
        -e "s/^ *restart_out = .*/  restart_out = ''/" \
        -e 's/^ *nx = .*/  nx = 82, ny = 10/' -e 's/^ *dx = .*/  dx = 8000., dy = 8000./' \
        -e 's/^ *n_layers = .*/  n_layers = 5/' -e 's/^ *dt = .*/  dt = 31536000./' \
        -e "s/^ *melt_source = .*/  melt_source = 'mismip+'/" \
        "$2/namelists/mismip_ice0.nml" > case.nml
      cp "$2/mismip/mismip_geometry.nc" "$2/mismip/mismip_forcing.nc" .
      echo landice_mismip.nc ;;
    global_5deg*)
      # the global case on its 5-degree tripolar grid (docs/global.md): the
      # seam and the north fold (a T pivot, an F one for the _f cases), 6 hours
      fold=t
      case $1 in global_5deg_f*) fold=f ;; esac
      sed -e 's/^\( *nx =\).*/\1 72, ny = 57/' -e "s/global_1deg/global_5deg/g" \
        -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *restart_out = .*/  restart_out = ''/" \
        "$2/namelists/global_1deg.nml" > case.nml
      cp "$2/global/$fold"/global_5deg_*.nc .
      echo global_5deg.nc ;;
    landice_invert*)
      # the basal inversion's twin (docs/landice.md, Basal inversion): L-BFGS
      # on log C, a forward and an adjoint solve per cost evaluation, stopped
      # by the discrepancy principle; observations made at build time. Three
      # iterates, with the column preconditioner: ranks sharing one GPU wait
      # for each other's time slice at every halo exchange (about 5 ms on an
      # H200), and the multigrid's coarse levels make 20 times as many
      # exchanges per solve (docs/multi-gpu.md)
      sed -e "s/^ *output_file = .*/  output_file = 'landice_invert.nc'/" \
        -e "s/^ *max_iter = .*/  max_iter = 3/" \
        -e "s/^\(&cryo_landice\)\$/\1\n  preconditioner = 'column'/" \
        "$2/namelists/ismip_hom_c_invert.nml" > case.nml
      cp "$2/invert/twin_obs.nc" .
      echo landice_invert.nc ;;
    arctic_dg1*)
      # the same with dG1 tracers (the quadrilateral dG1 transport), 6 hours
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *restart_out = .*/  restart_out = ''/" \
        -e 's/^ *init = .*/  init = '"'uniform'"', tracer_order = 1/' \
        "$2/namelists/arctic.nml" > case.nml
      cp "$2/arctic/arctic_grid.nc" "$2/arctic/arctic_forcing.nc" .
      echo arctic.nc ;;
    arctic*)
      # the Arctic case (docs/arctic.md) on its grid file, one day
      sed -e 's/^ *run_length = .*/  run_length = 86400/' \
        -e 's/^ *output_interval = .*/  output_interval = 43200/' \
        -e "s/^ *restart_out = .*/  restart_out = ''/" \
        "$2/namelists/arctic.nml" > case.nml
      cp "$2/arctic/arctic_grid.nc" "$2/arctic/arctic_forcing.nc" .
      echo arctic.nc ;;
  esac
}

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 &&
      "$p" -c 'import numpy' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "gpu-check: error: no python3 with numpy" >&2
  return 1
}

# The uniform forcing of the free-drift case (as examples/run_free_drift.sh).
write_free_drift_forcing() { # PATH
  "$(find_python)" - "$1" <<'EOF'
import sys
import netCDF4, numpy as np
nx = ny = 32
with netCDF4.Dataset(sys.argv[1], "w") as d:
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
}

# The forcing (15 m/s wind along x, ocean at rest, ssh rising 1 m per 100 km
# along x) and the water depth (3 m in the west third, 200 m elsewhere) of
# the landfast_tilt case, 32 x 32 cells of 8 km.
write_options_inputs() { # DIR
  "$(find_python)" - "$1" <<'EOF'
import sys
import netCDF4, numpy as np
n, dx = 32, 8000.0
x = (np.arange(n) + 0.5) * dx
X = np.meshgrid(x, x)[0]
with netCDF4.Dataset(sys.argv[1] + "/options_forcing.nc", "w") as d:
    d.createDimension("time", None)
    d.createDimension("y", n)
    d.createDimension("x", n)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "seconds since 2000-01-01 00:00:00"
    t[:] = [0.0, 86400.0]
    for name, units, value in (("uwind", "m s-1", 15.0), ("vwind", "m s-1", 0.0),
                               ("uocean", "m s-1", 0.0), ("vocean", "m s-1", 0.0),
                               ("ssh", "m", None)):
        v = d.createVariable(name, "f8", ("time", "y", "x"))
        v.units = units
        v[:] = np.full((2, n, n), value) if value is not None else np.array([1e-5 * X] * 2)
with netCDF4.Dataset(sys.argv[1] + "/options_bathymetry.nc", "w") as d:
    d.createDimension("y", n)
    d.createDimension("x", n)
    d.createVariable("depth", "f8", ("y", "x"))[:] = np.where(X < n * dx / 3, 3.0, 200.0)
EOF
}

# The outputs are NetCDF 64-bit offset files: where python3 has no netCDF4
# module (the GPU machine), PACK/ncread.py reads them with numpy alone.
write_reader() { # PATH
  cat > "$1" <<'EOF'
"""Read the variables of a NetCDF classic (CDF-1) or 64-bit offset (CDF-2)
file with numpy alone: where the GPU machine has no netCDF4 module."""
import numpy as np

TYPES = {1: ">i1", 2: "S1", 3: ">i2", 4: ">i4", 5: ">f4", 6: ">f8"}


def read_classic(path):
    """Return {name: array} of every variable, record variables whole."""
    raw = open(path, "rb").read()
    if raw[:3] != b"CDF" or raw[3] not in (1, 2):
        raise ValueError("%s is not a NetCDF classic or 64-bit offset file" % path)
    offset_size = 4 if raw[3] == 1 else 8
    pos = 4

    def take(fmt):
        nonlocal pos
        value = np.frombuffer(raw, fmt, 1, pos)[0]
        pos += np.dtype(fmt).itemsize
        return int(value)

    def name():
        nonlocal pos
        n = take(">i4")
        text = raw[pos:pos + n].decode()
        pos += (n + 3) // 4 * 4
        return text

    def skip_attributes():
        nonlocal pos
        take(">i4")
        for _ in range(take(">i4")):
            name()
            kind, n = take(">i4"), take(">i4")
            pos += (n * np.dtype(TYPES[kind]).itemsize + 3) // 4 * 4

    numrecs = take(">i4")
    take(">i4")
    dims = [(name(), take(">i4")) for _ in range(take(">i4"))]
    skip_attributes()
    take(">i4")
    variables = []
    for _ in range(take(">i4")):
        var = name()
        ids = [take(">i4") for _ in range(take(">i4"))]
        skip_attributes()
        kind, vsize = take(">i4"), take(">i4")
        begin = take(">i4" if offset_size == 4 else ">i8")
        variables.append((var, ids, TYPES[kind], vsize, begin))
    record = [v for v in variables if v[1] and dims[v[1][0]][1] == 0]
    recsize = sum(v[3] for v in record) if len(record) > 1 else (record[0][3] if record else 0)
    out = {}
    for var, ids, kind, vsize, begin in variables:
        shape = [dims[i][1] for i in ids]
        if var in [r[0] for r in record]:
            inner = shape[1:]
            count = int(np.prod(inner, dtype=int))
            rows = [np.frombuffer(raw, kind, count, begin + r * recsize) for r in range(numrecs)]
            out[var] = np.array(rows).reshape([numrecs] + inner)
        else:
            out[var] = np.frombuffer(raw, kind, int(np.prod(shape, dtype=int)), begin).reshape(shape)
    return out


def read_doubles(path):
    """{name: float64 array} of every double variable, through netCDF4 where
    python3 has it, else read_classic."""
    try:
        import netCDF4
    except ImportError:
        return {k: np.asarray(v, dtype=float) for k, v in read_classic(path).items()
                if v.dtype.kind == "f" and v.dtype.itemsize == 8}
    with netCDF4.Dataset(path) as d:
        d.set_auto_mask(False)
        return {k: np.asarray(v[:], dtype=float) for k, v in d.variables.items()
                if v.dtype == np.float64}
EOF
}

run_case() { # DRIVER NAME RANKS WORKDIR SRC
  mkdir -p "$4"
  (
    cd "$4"
    make_case "$2" "$5" > output_name
    # the _column cases: the same with the column preconditioner (the
    # others run the default, the multigrid)
    case $2 in
      *_column*) sed -i "s/^&cryo_landice\$/\&cryo_landice\n  preconditioner = 'column'/" case.nml ;;
    esac
    [ "$2" != free_drift ] || cp "$5/free_drift_forcing.nc" .
    case $2 in landfast_tilt*) cp "$5/options_forcing.nc" "$5/options_bathymetry.nc" . ;; esac
    # a run that hangs or crawls must not take all of the machine's time
    limit=${GPU_CHECK_CASE_TIMEOUT:-120}
    rc=0
    if [ "$3" -eq 1 ]; then
      timeout "$limit" "$1" case.nml > run.log 2>&1 < /dev/null || rc=$?
    else
      # mpirun forwards standard input: it would eat the list of cases.
      timeout "$limit" $mpirun -np "$3" "$1" case.nml > run.log 2>&1 < /dev/null || rc=$?
    fi
    [ "$rc" -ne 124 ] || echo "gpu-check: $2 stopped after $limit s (GPU_CHECK_CASE_TIMEOUT)" >> run.log
    exit "$rc"
  ) || {
    echo "gpu-check: error: $2 on $3 rank(s) failed; its log:" >&2
    cat "$4/run.log" >&2
    return 1
  }
}

# Shared libraries of a program, less the C library and the NVIDIA driver
# (those of the GPU machine must be used).
linked_libs() { # PROGRAM
  ldd "$1" | awk '$3 ~ /^\// {print $3}' |
    grep -Ev '/(ld-linux[^/]*|libc|libm|libdl|libpthread|librt|libcuda|libnvidia[^/]*)\.so'
}

build() {
  src=$(cd "$(dirname "$self")/.." && pwd)
  [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
  # Only the driver is needed, linked with the static libcryodyn: no build
  # compiles the library a second time for a shared one (an OpenACC build
  # is static only anyway).
  for kind in cpu gpu omp; do
    mkdir -p "$dir/build-$kind"
    case $kind in
      cpu) flags=--disable-shared ;;
      gpu) flags="--disable-shared --enable-openacc=gcc" ;;
      omp) flags="--disable-shared --enable-openmp" ;;
    esac
    (cd "$dir/build-$kind" && "$src/configure" $flags > configure.log && make -j2 cryodyn cryodyn-cmp > make.log 2>&1) || {
      echo "gpu-check: error: the $kind build failed; see $dir/build-$kind/*.log" >&2
      return 1
    }
  done
  pack=$dir/pack
  rm -rf "$pack"
  mkdir -p "$pack/lib-all" "$pack/cpu" "$pack/namelists"
  cp "$dir/build-gpu/cryodyn" "$pack/cryodyn"
  cp "$dir/build-omp/cryodyn" "$pack/cryodyn-omp"
  # the bit-for-bit comparison of `scale`
  cp "$dir/build-gpu/cryodyn-cmp" "$pack/cryodyn-cmp"
  cp "$self" "$pack/gpu-check.sh"
  cp "$src"/namelists/*.nml "$pack/namelists/"
  # libgomp loads its nvptx plugin at run time: ldd does not list it.
  plugin=$(gcc -print-file-name=libgomp-plugin-nvptx.so.1)
  plugin=$(readlink -f "$plugin")
  for lib in $(linked_libs "$pack/cryodyn") $(linked_libs "$plugin"); do
    cp -L "$lib" "$pack/lib-all/$(basename "$lib")"
  done
  cp "$plugin" "$pack/lib-all/libgomp-plugin-nvptx.so.1"
  # ICU's data library alone is 31 MB: the libraries travel compressed.
  tar -cJf "$pack/libs.tar.xz" -C "$pack/lib-all" .
  rm -rf "$pack/lib-all"
  write_free_drift_forcing "$pack/free_drift_forcing.nc"
  write_options_inputs "$pack"
  # the Arctic grid and forcing: the generator needs the tools environment
  # of scripts/install-deps.sh (global-land-mask)
  "$(sh "$src/scripts/tools-python")" "$src/scripts/make_arctic.py" --out-dir "$pack/arctic" > /dev/null
  for fold in t f; do
    "$(sh "$src/scripts/tools-python")" "$src/scripts/make_global.py" --resolution 5 --days 1 \
      --fold "$(echo $fold | tr tf TF)" --out-dir "$pack/global/$fold" > /dev/null
  done
  # `nodes` makes the Arctic files on the GPU machine (2.2 GB at 2 km) with
  # these, and the MISMIP+ files of a resolution other than the 1 km made here
  mkdir -p "$pack/scripts"
  cp "$src/scripts/make_arctic.py" "$src/scripts/make_grid.py" "$src/scripts/make_mismip.py" "$pack/scripts/"
  mkdir -p "$pack/mismip-nodes-1000m"
  "$(find_python)" "$src/scripts/make_mismip.py" --dx 1000 --forcing "$pack/mismip-nodes-1000m/mismip_forcing.nc" \
    "$pack/mismip-nodes-1000m/mismip_geometry.nc" > "$pack/mismip-nodes-1000m/grid.txt"
  mkdir -p "$pack/mismip"
  "$(find_python)" "$src/scripts/make_mismip.py" --dx 8000 --forcing "$pack/mismip/mismip_forcing.nc" \
    "$pack/mismip/mismip_geometry.nc" > /dev/null
  "$(find_python)" "$src/scripts/make_mismip.py" --dx 1000 --half \
    --forcing "$pack/mismip/mismip_1km_forcing.nc" "$pack/mismip/mismip_1km_geometry.nc" > /dev/null
  # the inversion's observations: the CPU build's forward twin with 1 % noise
  mkdir -p "$pack/invert"
  (cd "$pack/invert" && "$(find_python)" "$src/scripts/make_invert_twin.py" truth twin_truth.nc &&
    "$dir/build-cpu/cryodyn" "$src/namelists/ismip_hom_c_twin.nml" > forward.log 2>&1 &&
    "$(find_python)" "$src/scripts/make_invert_twin.py" obs twin_forward.nc twin_obs.nc &&
    rm -f twin_truth.nc twin_forward.nc forward.log) || {
    echo "gpu-check: error: the inversion's observations (see $pack/invert)" >&2
    return 1
  }
  write_reader "$pack/ncread.py"
  echo "$cases" | while read -r name np ref; do
    [ "$name" = "$ref" ] || continue
    echo "gpu-check: CPU run of $name"
    run_case "$dir/build-cpu/cryodyn" "$name" "$np" "$pack/cpu/$name" "$pack"
  done
  echo "gpu-check: packed $(du -sh "$pack" | cut -f1) into $pack"
}

# Put into PACK/lib the packed libraries this machine cannot find, and
# libgomp with its plugin always (an older GCC's libgomp may be installed).
link_missing_libs() {
  rm -rf "$dir/lib-all" "$dir/lib"
  mkdir -p "$dir/lib-all" "$dir/lib"
  tar -xJf "$dir/libs.tar.xz" -C "$dir/lib-all"
  cp "$dir/lib-all"/libgomp.so.1 "$dir/lib-all"/libgomp-plugin-nvptx.so.1 "$dir/lib/"
  for round in 1 2 3 4; do
    missing=$(LD_LIBRARY_PATH="$dir/lib" ldd "$dir/cryodyn" "$dir/lib/libgomp-plugin-nvptx.so.1" |
      awk '/not found/ {print $1}' | sort -u)
    [ -n "$missing" ] || return 0
    for lib in $missing; do
      [ -f "$dir/lib-all/$lib" ] || {
        echo "gpu-check: error: this machine lacks $lib and the pack has none" >&2
        return 1
      }
      cp "$dir/lib-all/$lib" "$dir/lib/"
    done
  done
}

run() {
  link_missing_libs
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  rm -rf "$dir/gpu"
  echo "$cases" | while read -r name np ref; do
    start=$(date +%s)
    run_case "$dir/cryodyn" "$name" "$np" "$dir/gpu/$name" "$dir" || return 1
    echo "gpu-check: GPU run of $name on $np rank(s): $(($(date +%s) - start)) s"
    grep -q "device:   GPU" "$dir/gpu/$name/run.log" || {
      echo "gpu-check: error: $name did not run on a GPU; its banner:" >&2
      head -5 "$dir/gpu/$name/run.log" >&2
      return 1
    }
  done
  if [ "${GPU_CHECK_TIMING:-1}" = 1 ]; then
    echo "gpu-check: timing the 2 km cyclone, 2 days"
    mkdir -p "$dir/gpu/cyclone_2km"
    (cd "$dir/gpu/cyclone_2km" && cp "$dir/namelists/cyclone_2km.nml" case.nml &&
      "$dir/cryodyn" case.nml > run.log 2>&1 < /dev/null)
    echo "gpu-check: the Arctic case, 30 days"
    mkdir -p "$dir/gpu/arctic_30d"
    (cd "$dir/gpu/arctic_30d" && cp "$dir/namelists/arctic.nml" case.nml &&
      cp "$dir/arctic/arctic_grid.nc" "$dir/arctic/arctic_forcing.nc" . &&
      "$dir/cryodyn" case.nml > run.log 2>&1 < /dev/null) || {
      echo "gpu-check: error: the 30-day Arctic run failed; its log:" >&2
      tail -20 "$dir/gpu/arctic_30d/run.log" >&2
      return 1
    }
  fi
  compare
}

# Timings of the product's driver for docs/performance.md: the GPU build
# against the OpenMP build on every core of the GPU machine.
perf_case() { # NAME DRIVER THREADS: namelist in $dir/perf/NAME.nml
  mkdir -p "$dir/perf/$1-$2"
  (cd "$dir/perf/$1-$2" && OMP_NUM_THREADS=$3 OMP_PROC_BIND=close "$dir/$2" "../$1.nml" > run.log 2>&1 < /dev/null) || {
    cat "$dir/perf/$1-$2/run.log" >&2
    return 1
  }
  awk -v c="$1" -v d="$2" -v t="$3" '
    /^(init|forcing|dynamics|output|restart) / {s[$1] = $2}
    /^transfers / {x = $0}
    END {printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n", c, d, t, s["dynamics"],
         s["forcing"], s["output"], s["restart"], s["init"], x}' "$dir/perf/$1-$2/run.log"
}

perf() {
  link_missing_libs
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$dir/perf"
  cores=$(nproc)
  # ISMIP-HOM A at L = 80 km, 80 x 80 x 10: one Newton solve
  sed -e 's/nx = 20, ny = 20 .*/nx = 80, ny = 80/' -e "s/^ *output_file = .*/  output_file = ''/" \
    "$dir/namelists/ismip_hom_a_L80.nml" > "$dir/perf/ismip_a_80.nml"
  # the cyclone at 1024 x 1024 (500 m), hourly coupling, 6-hourly output
  sed -e 's/nx = 256, ny = 256/nx = 1024, ny = 1024/' -e 's/dx = 2000., dy = 2000./dx = 500., dy = 500./' \
    -e 's/^ *run_length = .*/  run_length = 21600/' -e 's/^ *output_interval = .*/  output_interval = 21600/' \
    -e 's/^ *restart_interval = .*/  restart_interval = 21600/' -e 's/^ *n_evp = .*/  n_evp = 100/' \
    -e 's/alpha = 800., beta = 800./alpha = 1600., beta = 1600./' \
    "$dir/namelists/cyclone_2km.nml" > "$dir/perf/cyclone_1024.nml"
  echo "| case | driver | threads | dynamics s | forcing s | output s | restart s | init s | host-device transfers |"
  echo "|---|---|---|---|---|---|---|---|---|"
  perf_case ismip_a_80 cryodyn 1
  perf_case ismip_a_80 cryodyn-omp "$cores"
  perf_case cyclone_1024 cryodyn 1
  grep -E "Newton|newton" "$dir/perf/ismip_a_80-cryodyn/run.log" | tail -3 || true
}

# One solver case: namelist $dir/solver/NAME.nml with DRIVER on THREADS
# threads; prints a table row (Newton steps and CG iterations of the run from
# the driver's progress line, the dynamics time).
solver_case() { # NAME DRIVER THREADS CELLS ELEMENTS PRECONDITIONER
  mkdir -p "$dir/solver/$1-$2"
  (cd "$dir/solver/$1-$2" && cp "$dir/solver/$1.nml" . && cp "$dir"/mismip/mismip_1km*.nc . 2> /dev/null
  OMP_NUM_THREADS=$3 OMP_PROC_BIND=close timeout "${SOLVER_TIMEOUT:-300}" "$dir/$2" "$1.nml" \
    > run.log 2>&1 < /dev/null) || {
    tail -5 "$dir/solver/$1-$2/run.log" >&2
    echo "| $1 | $4 | $5 | $6 | $2 | failed | | | |"
    return 0
  }
  awk -v c="$1" -v d="$2" -v n="$4" -v e="$5" -v pc="$6" '
    /run: / {for (i = 1; i < NF; ++i) {if ($i == "Newton" && $(i + 1) == "steps,") ns = $(i - 1)
             if ($i == "CG") cg = $(i - 1)}}
    /^dynamics / {t = $2}
    END {printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %.3f |\n", c, n, e, pc, d, ns, cg,
         (ns > 0 ? cg / ns : 0), t}' "$dir/solver/$1-$2/run.log"
}

# The land-ice linear solver against resolution (docs/performance.md,
# "Land-ice solver"): one velocity solve of ISMIP-HOM A (L = 80 km, 10
# layers, linear_rtol 1e-4) at 40^2 .. 640^2 cells with both preconditioners
# on the GPU, and at 40^2 .. 160^2 with OpenMP on every core; MISMIP+ at 1 km
# (half domain, 642 x 40 x 10, from the 100 m start) for 2 years.
solver() {
  link_missing_libs
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$dir/solver"
  cores=$(nproc)
  echo "| case | cells | elements | preconditioner | driver | Newton steps | CG iterations | per step | dynamics s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for n in 40 80 160 320 640; do
    for pc in column multigrid; do
      sed -e "s/nx = 20, ny = 20 .*/nx = $n, ny = $n/" -e "s/^ *output_file = .*/  output_file = ''/" \
        -e "s/^ *linear_rtol = .*/  linear_rtol = 1.e-4, preconditioner = '$pc'/" \
        "$dir/namelists/ismip_hom_a_L80.nml" > "$dir/solver/ismip_a_${n}_$pc.nml"
      solver_case "ismip_a_${n}_$pc" cryodyn 1 "$n x $n" $((n * n * 10)) "$pc"
      [ "$n" -gt 160 ] || solver_case "ismip_a_${n}_$pc" cryodyn-omp "$cores" "$n x $n" $((n * n * 10)) "$pc"
    done
  done
  for pc in column multigrid; do
    sed -e 's/^ *run_length = .*/  run_length = 63072000./' \
      -e 's/^ *output_interval = .*/  output_interval = 63072000./' \
      -e "s/^ *output_file = .*/  output_file = ''/" -e "s/^ *restart_out = .*/  restart_out = ''/" \
      -e 's/^ *nx = .*/  nx = 642, ny = 40/' -e 's/^ *dx = .*/  dx = 1000., dy = 1000./' \
      -e "s/^ *geometry_file = .*/  geometry_file = 'mismip_1km_geometry.nc'/" \
      -e "s/^ *forcing_file = .*/  forcing_file = 'mismip_1km_forcing.nc'/" \
      -e "s/^ *linear_rtol = .*/  linear_rtol = 1.e-4, preconditioner = '$pc'/" \
      "$dir/namelists/mismip_ice0.nml" > "$dir/solver/mismip_1km_$pc.nml"
    solver_case "mismip_1km_$pc" cryodyn 1 "642 x 40" $((642 * 40 * 10)) "$pc"
  done
}

# The stress update in single against double precision on the 2 km cyclone:
# the dynamics time, and at 24 and 48 h the largest ice speed and shear rate
# and the ice volume, the quantities the benchmark compares.
precision() {
  link_missing_libs
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for p in double single; do
    mkdir -p "$dir/precision/$p"
    sed -e "s/^ *n_evp = 200\$/  n_evp = 200, stress_precision = '$p'/" \
      -e "s/^ *restart_out = .*/  restart_out = ''/" -e 's/^ *restart_interval = .*/  restart_interval = 0/' \
      "$dir/namelists/cyclone_2km.nml" > "$dir/precision/$p/case.nml"
    grep -q "stress_precision = '$p'" "$dir/precision/$p/case.nml"
    (cd "$dir/precision/$p" && "$dir/cryodyn" case.nml > run.log 2>&1 < /dev/null) || {
      cat "$dir/precision/$p/run.log" >&2
      return 1
    }
  done
  "$(find_python)" - "$dir" <<'EOF'
import os, re, sys
import numpy as np
pack = sys.argv[1]
sys.path.insert(0, pack)
from ncread import read_doubles as read

def dynamics(p):
    log = open(os.path.join(pack, "precision", p, "run.log")).read()
    return float(re.search(r"^dynamics\s+([0-9.]+)", log, re.M).group(1))

out = {p: read(os.path.join(pack, "precision", p, "cyclone_2km.nc")) for p in ("double", "single")}
cell = 2000.0 * 2000.0
lines = ["| quantity | time h | double | single | relative difference |", "|---|---|---|---|---|"]
for hours in (24, 48):
    for name, f in (("max ice speed (m/s)", lambda d, r: np.hypot(d["u"][r], d["v"][r]).max()),
                    ("max shear rate (1/s)", lambda d, r: d["shear"][r].max()),
                    ("mean shear rate (1/s)", lambda d, r: d["shear"][r].mean()),
                    ("ice volume (km3)", lambda d, r: d["h"][r].sum() * cell / 1e9)):
        vals = []
        for p in ("double", "single"):
            r = int(np.argmin(np.abs(out[p]["time"] - hours * 3600.0)))
            vals.append(float(f(out[p], r)))
        lines.append("| %s | %d | %.6g | %.6g | %.2e |" % (name, hours, vals[0], vals[1],
                                                          abs(vals[1] - vals[0]) / abs(vals[0])))
td, ts = dynamics("double"), dynamics("single")
lines += ["", "dynamics: double %.2f s, single %.2f s (%.2fx)" % (td, ts, td / ts)]
text = "\n".join(lines) + "\n"
open(os.path.join(pack, "precision.md"), "w").write(text)
print(text)
EOF
}

# Multi-GPU scaling of the product's driver, one MPI rank per GPU, and bit for
# bit against one GPU (docs/multi-gpu.md). With N GPUs (GPU_CHECK_GPUS,
# default: nvidia-smi's count) it runs on 1, 2, 4 and 8 GPUs as far as N goes:
#   bits: the sea-ice cyclone (GPU_CHECK_BITS_SEAICE^2 cells, default 1024;
#     GPU_CHECK_STEPS time steps) and ISMIP-HOM A (GPU_CHECK_BITS_LANDICE^2 x
#     16 layers, default 128) with output and a final restart on 1, 2 and 4
#     GPUs; every variable of both files must hold the bits of 1 GPU;
#   sea-ice weak scaling: GPU_CHECK_SEAICE_CELLS^2 cells per GPU (default
#     4096, 125 m), GPU_CHECK_STEPS time steps (default 4) of 100 mEVP
#     sub-steps; strong scaling: (2 GPU_CHECK_SEAICE_CELLS)^2 cells in all;
#   land-ice weak scaling: ISMIP-HOM A on a square grid (the case needs
#     L x L) of about GPU_CHECK_LANDICE_CELLS^2 x 16 per GPU (default 512,
#     dx = 80 km / 512), one velocity solve with the multigrid: Newton to
#     1e-2 of the load with at most GPU_CHECK_CG_ITERS (default 40) CG
#     iterations per Newton step (the multigrid may reach linear_rtol first:
#     the table lists each run's CG iterations).
# Times come from the driver's phase timers: dynamics per mEVP sub-step or per
# Newton step, the halo share (halo / dynamics), and the parallel efficiency
# (weak: t1 / tN per sub-step; strong: t1 / (N tN)). Writes PACK/scale.md and
# ends with `gpu-check: scale passed` or `gpu-check: scale FAILED (...)`:
# failed when a run fails or times out (GPU_CHECK_RUN_TIMEOUT s each, default
# 180), when a banner does not show one GPU per rank, or when bits differ.
# Timing runs left when GPU_CHECK_BUDGET s (default 360) have passed are
# skipped and listed, and none runs more than a minute past it: about 7
# minutes at most in all. GPU_CHECK_CPU=1 runs a CPU-built pack without the GPU
# checks (to test this script where there is no GPU). GPU_CHECK_HALO_OVERLAP
# ('yes' or 'no'; unset: the product's default) sets &cryo_run halo_overlap
# in the sea-ice runs: run the check with each and compare the halo shares
# (docs/multi-gpu.md, Overlap).
scale_fail() {
  echo "gpu-check: error: $1" >&2
  scale_failures="$scale_failures${scale_failures:+; }$1"
}

# WIDTH N: the cell size (m) of N cells over WIDTH m, as a namelist real.
scale_dx() {
  awk -v w="$1" -v n="$2" 'BEGIN {printf "%.10g", w / n}' | sed 's/^[0-9]*$/&./'
}

# NX NY PX PY DX STEPS OUTPUT(0|1): the cyclone's namelist on stdout. The
# mEVP stability condition (alpha beta > gamma / 4, gamma growing as 1 / dx^2)
# needs alpha = beta = 1514 at 500 m: 1600 (500 m / DX), 800 at least.
scale_seaice_nml() {
  t=$((60 * $6))
  relax=$(awk -v dx="$5" 'BEGIN {a = 1600 * 500 / dx; if (a < 800) a = 800; printf "%d.", a + 0.999}')
  out="output_file = ''"
  [ "$7" = 0 ] || out="output_interval = $t, output_file = 'out.nc', restart_out = 'rst'"
  cat <<EOF
&cryo_run
  model = 'seaice', forcing = 'analytic', run_length = $t, coupling_interval = $t
  $out${GPU_CHECK_HALO_OVERLAP:+, halo_overlap = '$GPU_CHECK_HALO_OVERLAP'}
/
&cryo_grid nx = $1, ny = $2, dx = $5, dy = $5, nprocs_x = $3, nprocs_y = $4 /
&cryo_seaice dt = 60., n_evp = 100, alpha = $relax, beta = $relax /
EOF
}

# N L OUTPUT(0|1): ISMIP-HOM A on N x N cells, L m wide, on stdout. The
# multigrid preconditioner (the default) is named: the check times it.
scale_landice_nml() {
  out="output_file = ''"
  [ "$3" = 0 ] || out="output_interval = 86400, output_file = 'out.nc', restart_out = 'rst'"
  cat <<EOF
&cryo_run
  model = 'landice', forcing = 'analytic', run_length = 86400, coupling_interval = 86400
  $out
/
&cryo_grid nx = $1, ny = $1 /
&cryo_landice
  case = 'ismip-hom-a', domain_length = $2, periodic = .true., n_layers = 16, dt = 86400.
  newton_rtol = 1.e-10, newton_atol = 1.e-2, linear_rtol = 1.e-14, linear_max_iter = $scale_cg
  preconditioner = 'multigrid'
/
EOF
}

# NAME NP [timing]: run $sdir/next.nml in $sdir/NAME, with links there to the
# files $scale_links names (the inputs); 1 when it failed or
# did not run one rank per GPU. (Not in a pipeline: scale_fail must set the
# variables of this shell.)
scale_run() {
  w=$sdir/$1
  rm -rf "$w"
  mkdir -p "$w"
  mv "$sdir/next.nml" "$w/case.nml"
  for f in ${scale_links:-}; do
    ln -s "$f" "$w/"
  done
  echo "gpu-check: $scale_mode: $1 on $2 GPU(s)"
  rc=0
  limit=$scale_timeout
  if [ "${3:-}" = timing ]; then
    # a timing run may overrun the budget by a minute at most
    left=$((scale_budget + 60 - $(date +%s) + scale_start))
    [ "$left" -ge "$limit" ] || limit=$left
  fi
  (cd "$w" && timeout "$limit" $mpirun -np "$2" "$dir/cryodyn" case.nml > run.log 2>&1 < /dev/null) || rc=$?
  if [ "$rc" -ne 0 ]; then
    why="exit $rc"
    [ "$rc" -ne 124 ] || why="stopped after $limit s (GPU_CHECK_RUN_TIMEOUT, GPU_CHECK_BUDGET)"
    scale_fail "$1 on $2 GPU(s) failed ($why)"
    tail -20 "$w/run.log" >&2
    return 1
  fi
  [ -n "$(awk '$1 == "dynamics" {print $2}' "$w/run.log")" ] || {
    scale_fail "$1: no dynamics timer in its log"
    return 1
  }
  [ "${GPU_CHECK_CPU:-0}" = 0 ] || return 0
  grep -q "^  device:   GPU" "$w/run.log" &&
    grep -q "^  ranks:    $2 on .* $2 GPU(s) in use, up to 1 rank(s) per GPU" "$w/run.log" || {
    scale_fail "$1 did not run one rank per GPU on $2 GPU(s): $(grep -E '^  (device|ranks):' "$w/run.log" | tr -s ' ' | tr '\n' ' ')"
    return 1
  }
}

# ONE NAME MODEL N: every variable of run NAME's output and restarts (out.nc,
# rst.*.nc) against those of run ONE by cryodyn-cmp; a row per file goes to
# $bits_rows. 1 when a file differs or is missing; nothing when either run
# wrote no output (it failed, and said so).
scale_bits() {
  [ -f "$sdir/$1/out.nc" ] && [ -f "$sdir/$2/out.nc" ] || return 0
  bits_rc=0
  for f in $(cd "$sdir/$1" && ls out.nc rst.*.nc 2> /dev/null); do
    if "$cmp" "$sdir/$1/$f" "$sdir/$2/$f" > "$sdir/$2/cmp-$f.log" 2>&1; then
      verdict="identical"
    else
      verdict="DIFFERENT: $(head -1 "$sdir/$2/cmp-$f.log")"
      scale_fail "$3 on $4 GPUs: $f differs from 1 GPU"
      bits_rc=1
    fi
    bits_rows="$bits_rows| $3 | $4 | $f | $verdict |
"
  done
  return $bits_rc
}

# The timing runs stop once the budget is spent.
scale_in_budget() { # NAME
  [ $(($(date +%s) - scale_start)) -lt "$scale_budget" ] && return 0
  scale_skipped="$scale_skipped $1"
  echo "gpu-check: $scale_mode: $1 skipped (GPU_CHECK_BUDGET = $scale_budget s spent)"
  return 1
}

# NAME: "dynamics halo" seconds of a run's log.
scale_times() {
  awk '$1 == "dynamics" {d = $2} $1 == "halo" {h = $2} END {print d, h}' "$sdir/$1/run.log"
}

# Newton steps of a land-ice run, summed over its progress lines.
scale_newton_steps() { # NAME
  awk '/Newton steps/ {for (i = 1; i < NF; ++i) if ($i == "steps") s += $(i + 1)} END {print s + 0}' \
    "$sdir/$1/run.log"
}

# One table row: NAME GPUS CELLS WORK UNIT-SCALE REF KIND; WORK is sub-steps
# or Newton steps; REF the 1-GPU time per unit ('' if none); KIND weak|strong;
# EXTRA a column after WORK (none if not given).
# Prints the row; the time per unit goes to $sdir/NAME/per_unit.
scale_row() {
  awk -v g="$2" -v cells="$3" -v work="$4" -v unit="$5" -v ref="$6" -v kind="$7" -v t="$(scale_times "$1")" \
    -v extra="${8:-}" -v out="$sdir/$1/per_unit" 'BEGIN {
      split(t, a, " ")
      d = a[1]
      h = a[2]
      per = work > 0 ? d / work : 0
      printf "%.9g\n", per > out
      eff = (ref == "" || per <= 0) ? "-" : sprintf("%.1f %%", 100 * (kind == "weak" ? ref / per : ref / (g * per)))
      printf "| %d | %s | %d |%s %.3f | %.3f | %.3f | %.1f %% | %s |\n", g, cells, work,
        (extra == "" ? "" : " " extra " |"), d, per * unit, h, (d > 0 ? 100 * h / d : 0), eff
    }'
}

# MODE (scale | nodes): what both modes share: the clock, the failures, the
# GPU count and the list of GPU counts to run, cryodyn-cmp, the libraries,
# and an empty work directory $sdir = PACK/MODE.
scale_setup() {
  scale_mode=$1
  scale_start=$(date +%s)
  scale_failures=""
  scale_skipped=""
  scale_links=""
  if [ -n "${GPU_CHECK_GPUS:-}" ]; then
    ngpu=$GPU_CHECK_GPUS
  else
    ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU') || ngpu=0
  fi
  [ "$ngpu" -ge 1 ] || {
    echo "gpu-check: $1 FAILED (no GPU: nvidia-smi lists none; set GPU_CHECK_GPUS)"
    return 1
  }
  cmp=$dir/cryodyn-cmp
  [ -x "$cmp" ] || {
    echo "gpu-check: $1 FAILED (the pack has no cryodyn-cmp: rebuild it with gpu-check.sh build)"
    return 1
  }
  if [ "${GPU_CHECK_CPU:-0}" = 0 ]; then
    link_missing_libs || return 1
    export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  sdir=$dir/$1
  rm -rf "$sdir"
  mkdir -p "$sdir"
  list=""
  for n in 1 2 4 8; do
    [ "$n" -gt "$ngpu" ] || list="$list $n"
  done
}

scale() {
  scale_timeout=${GPU_CHECK_RUN_TIMEOUT:-180}
  scale_budget=${GPU_CHECK_BUDGET:-360}
  scale_cg=${GPU_CHECK_CG_ITERS:-40}
  si=${GPU_CHECK_SEAICE_CELLS:-4096}
  li=${GPU_CHECK_LANDICE_CELLS:-512}
  bsi=${GPU_CHECK_BITS_SEAICE:-1024}
  bli=${GPU_CHECK_BITS_LANDICE:-128}
  steps=${GPU_CHECK_STEPS:-4}
  scale_setup scale || return 1
  md=$sdir/scale.md.part
  : > "$md"

  # Bit for bit: 1 vs 2 vs 4 GPUs, outputs and final restarts.
  bits_rows=""
  for n in $list; do
    [ "$n" -le 4 ] || continue
    scale_seaice_nml "$bsi" "$bsi" 0 0 "$(scale_dx 512000 "$bsi")" "$steps" 1 > "$sdir/next.nml"
    scale_run "bits-seaice-$n" "$n" || true
    scale_landice_nml "$bli" 80000. 1 > "$sdir/next.nml"
    scale_run "bits-landice-$n" "$n" || true
    [ "$n" -gt 1 ] || continue
    for model in seaice landice; do
      scale_bits "bits-$model-1" "bits-$model-$n" "$model" "$n" || true
    done
  done

  # Sea-ice weak and strong scaling, land-ice weak scaling.
  substeps=$((steps * 100))
  weak_rows=""
  strong_rows=""
  land_rows=""
  ref=""
  for n in $list; do
    case $n in 1) px=1 py=1 ;; 2) px=2 py=1 ;; 4) px=2 py=2 ;; *) px=4 py=2 ;; esac
    name=seaice-weak-$n
    scale_in_budget "$name" || continue
    scale_seaice_nml "$((si * px))" "$((si * py))" "$px" "$py" "$(scale_dx 512000 "$si")" "$steps" 0 \
      > "$sdir/next.nml"
    scale_run "$name" "$n" timing || continue
    weak_rows="$weak_rows$(scale_row "$name" "$n" "$((si * px)) x $((si * py))" "$substeps" 1e6 "$ref" weak)
"
    [ "$n" -gt 1 ] || ref=$(cat "$sdir/$name/per_unit")
  done
  ref=""
  for n in $list; do
    name=seaice-strong-$n
    scale_in_budget "$name" || continue
    scale_seaice_nml "$((2 * si))" "$((2 * si))" 0 0 "$(scale_dx 512000 "$((2 * si))")" "$steps" 0 \
      > "$sdir/next.nml"
    scale_run "$name" "$n" timing || continue
    strong_rows="$strong_rows$(scale_row "$name" "$n" "$((2 * si)) x $((2 * si))" "$substeps" 1e6 "$ref" strong)
"
    [ "$n" -gt 1 ] || ref=$(cat "$sdir/$name/per_unit")
  done

  ref=""
  for n in $list; do
    name=landice-weak-$n
    side=$(awk -v c="$li" -v n="$n" 'BEGIN {print 2 * int(c * sqrt(n) / 2 + 0.5)}')
    scale_in_budget "$name" || continue
    scale_landice_nml "$side" "$(awk -v s="$side" -v c="$li" 'BEGIN {printf "%.10g", s * 80000 / c}')" 0 \
      > "$sdir/next.nml"
    scale_run "$name" "$n" timing || continue
    # the multigrid may reach linear_rtol before GPU_CHECK_CG_ITERS: the CG
    # count says whether every GPU count did the same work per Newton step
    cg=$(awk '/run: / {for (i = 2; i < NF; ++i) if ($i == "CG") c = $(i - 1)} END {print c + 0}' \
      "$sdir/$name/run.log")
    land_rows="$land_rows$(scale_row "$name" "$n" "$side x $side x 16" "$(scale_newton_steps "$name")" 1 "$ref" weak "$cg")
"
    [ "$n" -gt 1 ] || ref=$(cat "$sdir/$name/per_unit")
  done
  banner=$(ls -d "$sdir"/bits-seaice-* 2> /dev/null | tail -1)
  {
    echo "# gpu-check scale: $ngpu GPU(s), one MPI rank per GPU"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - scale_start)) s in all. Banner of the largest bit-for-bit run:"
    echo
    echo '```'
    [ -z "$banner" ] || sed -n '1,/^  namelist:/p' "$banner/run.log"
    echo '```'
    echo
    echo "## Bit for bit against 1 GPU (cryodyn-cmp: every variable's bits)"
    echo
    echo "Sea-ice cyclone ${bsi} x ${bsi}, $steps time steps; ISMIP-HOM A ${bli} x ${bli} x 16, one Newton solve."
    echo
    echo "| model | GPUs | file | against 1 GPU |"
    echo "|---|---|---|---|"
    printf '%s' "$bits_rows"
    echo
    echo "## Sea ice, weak scaling: ${si} x ${si} cells per GPU, $steps time steps of 100 mEVP sub-steps"
    echo
    echo "| GPUs | cells | mEVP sub-steps | dynamics s | us per sub-step | halo s | halo share | efficiency |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s' "$weak_rows"
    echo
    echo "## Sea ice, strong scaling: $((2 * si)) x $((2 * si)) cells in all"
    echo
    echo "| GPUs | cells | mEVP sub-steps | dynamics s | us per sub-step | halo s | halo share | efficiency |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s' "$strong_rows"
    echo
    echo "## Land ice, weak scaling: ISMIP-HOM A, about ${li} x ${li} x 16 per GPU, at most $scale_cg CG iterations per Newton step, multigrid"
    echo
    echo "| GPUs | cells | Newton steps | CG iterations | dynamics s | s per Newton step | halo s | halo share | efficiency |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$land_rows"
    echo
    echo "Efficiency: weak t1 / tN, strong t1 / (N tN), per sub-step or Newton step; halo share: halo / dynamics"
    echo "(halo: pack, MPI and unpack, from the phase timers of rank 0)."
    [ -z "$scale_skipped" ] || echo "Skipped (GPU_CHECK_BUDGET = $scale_budget s spent):$scale_skipped."
  } > "$md"
  mv "$md" "$dir/scale.md"
  cat "$dir/scale.md"
  if [ -n "$scale_failures" ]; then
    echo "gpu-check: scale FAILED ($scale_failures)"
    return 1
  fi
  echo "gpu-check: scale passed"
}

# The largest cases on several GPUs of one machine, one MPI rank per GPU, on 1,
# 2, 4 and 8 GPUs as far as GPU_CHECK_GPUS (default: nvidia-smi's count) goes
# (docs/multi-gpu.md, "The several-GPU check"):
#   the Arctic at GPU_CHECK_ARCTIC_KM km (default 2: 3750 x 3750 cells),
#     namelists/arctic_2km.nml for GPU_CHECK_ARCTIC_HOURS simulated hours
#     (default 2) with an output record at the start and at the end and a final
#     restart; the ranks split the rows (nprocs_x = 1) with the ocean shared
#     evenly (decomposition = 'ocean'). Strong scaling: dynamics per simulated
#     hour, simulated years per wall day, halo share, t1 / (N tN);
#   MISMIP+ at GPU_CHECK_MISMIP_DX m (default 1000: 642 x 80 x 10, the whole
#     channel) from its 100 m start, GPU_CHECK_MISMIP_STEPS thickness steps of
#     a quarter year (default 4), the default (multigrid) preconditioner; the
#     ranks split the channel along x. Strong scaling: seconds per step;
#   outputs and final restarts of both on N GPUs bit for bit those of 1 GPU.
# The Arctic files are made once, by make_arctic.py in PACK/arctic-KMkm (with
# ${PYTHON:-python3}, which must have numpy, netCDF4 and global_land_mask), or
# read from GPU_CHECK_ARCTIC_DIR; the MISMIP+ files are the pack's (build) or
# made once in PACK/mismip-nodes-DXm (numpy and netCDF4). Each run is limited to
# GPU_CHECK_RUN_TIMEOUT s (default 300); runs not started within
# GPU_CHECK_BUDGET s (default 420) are skipped and listed, and none runs more
# than a minute past it. Writes PACK/nodes.md; ends with `gpu-check: nodes
# passed` or `gpu-check: nodes FAILED (...)`. GPU_CHECK_CPU=1 runs a CPU-built
# pack without the GPU checks.
nodes_python() { # MODULES (comma-separated) WHAT
  py=${PYTHON:-python3}
  "$py" -c "import $1" 2> /dev/null || {
    echo "gpu-check: nodes FAILED ($py cannot import $1, which $2 needs: install them and set" \
      "PYTHON or PYTHONPATH, or give the files (GPU_CHECK_ARCTIC_DIR for the Arctic))" >&2
    return 1
  }
  echo "$py"
}

# The Arctic grid and forcing files at $km km: sets arctic_dir, arctic_name,
# arctic_n (cells each way) and arctic_made (how they came).
nodes_arctic_files() {
  arctic_name=arctic_${km}km
  [ "$km" != 25 ] || arctic_name=arctic
  arctic_n=$(awk -v k="$km" 'BEGIN {n = 7500 / k; print (n == int(n) && n >= 2) ? n : 0}')
  [ "$arctic_n" -gt 0 ] || {
    echo "gpu-check: nodes FAILED (GPU_CHECK_ARCTIC_KM = $km: the 7500 km square must be a whole number of cells)" >&2
    return 1
  }
  if [ -n "${GPU_CHECK_ARCTIC_DIR:-}" ]; then
    arctic_dir=$(cd "$GPU_CHECK_ARCTIC_DIR" 2> /dev/null && pwd) &&
      [ -f "$arctic_dir/${arctic_name}_grid.nc" ] && [ -f "$arctic_dir/${arctic_name}_forcing.nc" ] || {
      echo "gpu-check: nodes FAILED (GPU_CHECK_ARCTIC_DIR = $GPU_CHECK_ARCTIC_DIR has no ${arctic_name}_grid.nc" \
        "and ${arctic_name}_forcing.nc: make_arctic.py --resolution $km writes them)" >&2
      return 1
    }
    arctic_made="read from GPU_CHECK_ARCTIC_DIR"
    return 0
  fi
  arctic_dir=$dir/arctic-${km}km
  if [ -f "$arctic_dir/${arctic_name}_forcing.nc" ]; then
    arctic_made="made by an earlier run, in $arctic_dir"
    return 0
  fi
  py=$(nodes_python "numpy, netCDF4, global_land_mask" make_arctic.py) || return 1
  # written aside and moved into place whole: a run stopped half-way leaves
  # no files that the next run would take as made
  rm -rf "$arctic_dir.part"
  t=$(date +%s)
  "$py" "$dir/scripts/make_arctic.py" --resolution "$km" --out-dir "$arctic_dir.part" \
    > "$sdir/make_arctic.log" 2>&1 || {
    cat "$sdir/make_arctic.log" >&2
    echo "gpu-check: nodes FAILED (make_arctic.py --resolution $km)" >&2
    return 1
  }
  mv "$arctic_dir.part" "$arctic_dir"
  arctic_made="made by make_arctic.py in $(($(date +%s) - t)) s, in $arctic_dir"
  echo "gpu-check: nodes: Arctic files $arctic_made"
}

# The MISMIP+ geometry and forcing at $mdx m: sets mismip_dir, mismip_nx, mismip_ny.
nodes_mismip_files() {
  mismip_dir=$dir/mismip-nodes-${mdx}m
  if [ ! -f "$mismip_dir/grid.txt" ]; then
    py=$(nodes_python "numpy, netCDF4" make_mismip.py) || return 1
    rm -rf "$mismip_dir.part"
    mkdir -p "$mismip_dir.part"
    "$py" "$dir/scripts/make_mismip.py" --dx "$mdx" --forcing "$mismip_dir.part/mismip_forcing.nc" \
      "$mismip_dir.part/mismip_geometry.nc" > "$mismip_dir.part/grid.txt" 2>&1 || {
      cat "$mismip_dir.part/grid.txt" >&2
      echo "gpu-check: nodes FAILED (make_mismip.py --dx $mdx)" >&2
      return 1
    }
    mv "$mismip_dir.part" "$mismip_dir"
  fi
  # make_mismip.py prints "nx = 642, ny = 80, dx = 1000, dy = 1000"
  mismip_nx=$(awk '$1 == "nx" {print $3 + 0}' "$mismip_dir/grid.txt")
  mismip_ny=$(awk '$1 == "nx" {print $6 + 0}' "$mismip_dir/grid.txt")
}

# SETTING...: every SETTING is in $sdir/next.nml (the shipped namelist's lines
# that the check rewrites are still there, as it expects them).
nodes_nml_has() {
  for want in "$@"; do
    grep -qF "$want" "$sdir/next.nml" || {
      echo "gpu-check: nodes FAILED (could not write \"$want\" into the namelist: has the shipped one changed?)"
      return 1
    }
  done
}

# NAME: "init forcing dynamics halo" seconds of a run's log.
nodes_times() {
  awk '$1 ~ /^(init|forcing|dynamics|halo)$/ {s[$1] = $2}
    END {print s["init"] + 0, s["forcing"] + 0, s["dynamics"] + 0, s["halo"] + 0}' "$sdir/$1/run.log"
}

# NAME GPUS GRID HOURS REF: an Arctic table row; REF the 1-GPU dynamics per
# simulated hour ('' for none). The time per hour goes to $sdir/NAME/per_unit.
nodes_arctic_row() {
  set -- "$@" $(nodes_times "$1")
  awk -v g="$2" -v grid="$3" -v hours="$4" -v ref="$5" -v init="$6" -v f="$7" -v d="$8" -v h="$9" \
    -v out="$sdir/$1/per_unit" 'BEGIN {
      per = d / hours
      printf "%.9g\n", per > out
      eff = (ref == "" || per <= 0) ? "-" : sprintf("%.1f %%", 100 * ref / (g * per))
      printf "| %d | %s | %.1f | %.2f | %.3f | %.3f | %.2f | %.3f | %.1f %% | %s |\n", g, grid, init,
        f / hours, d, per, (per > 0 ? 86400 / (per * 8760) : 0), h, (d > 0 ? 100 * h / d : 0), eff
    }'
}

# NAME GPUS GRID STEPS REF: a MISMIP+ table row, as nodes_arctic_row per time
# step, with the run's Newton steps and CG iterations (its last progress line).
nodes_mismip_row() {
  set -- "$@" $(nodes_times "$1") $(awk '/run: / {for (i = 2; i < NF; ++i) {
      if ($i == "Newton" && $(i + 1) == "steps,") ns = $(i - 1)
      if ($i == "CG") cg = $(i - 1)}} END {print ns + 0, cg + 0}' "$sdir/$1/run.log")
  awk -v g="$2" -v grid="$3" -v steps="$4" -v ref="$5" -v d="$8" -v h="$9" -v ns="${10}" -v cg="${11}" \
    -v out="$sdir/$1/per_unit" 'BEGIN {
      per = d / steps
      printf "%.9g\n", per > out
      eff = (ref == "" || per <= 0) ? "-" : sprintf("%.1f %%", 100 * ref / (g * per))
      printf "| %d | %s | %d | %d | %d | %.3f | %.3f | %.3f | %.1f %% | %s |\n", g, grid, steps, ns, cg, d,
        per, h, (d > 0 ? 100 * h / d : 0), eff
    }'
}

nodes() {
  scale_timeout=${GPU_CHECK_RUN_TIMEOUT:-300}
  scale_budget=${GPU_CHECK_BUDGET:-420}
  km=$(awk -v k="${GPU_CHECK_ARCTIC_KM:-2}" 'BEGIN {printf "%g", k}')
  hours=${GPU_CHECK_ARCTIC_HOURS:-2}
  mdx=${GPU_CHECK_MISMIP_DX:-1000}
  msteps=${GPU_CHECK_MISMIP_STEPS:-4}
  scale_setup nodes || return 1
  md=$sdir/nodes.md.part
  bits_rows=""

  # the inputs first: a missing module or file stops the check before any run
  nodes_arctic_files || return 1
  nodes_mismip_files || return 1
  # whole time steps of 60 s; a run shorter than the hour of coupling (the
  # CPU test's) couples once
  alen=$(awk -v h="$hours" 'BEGIN {print 60 * int(h * 60 + 0.5)}')
  acpl=3600
  [ "$alen" -ge 3600 ] || acpl=$alen
  [ "$alen" -gt 0 ] && [ $((alen % acpl)) -eq 0 ] || {
    echo "gpu-check: nodes FAILED (GPU_CHECK_ARCTIC_HOURS = $hours: must be a whole number of hours, or one" \
      "run shorter than an hour, of whole minutes)"
    return 1
  }
  # MISMIP+ first: seconds a run, where the Arctic takes a minute or more
  dt=7884000
  mismip_rows=""
  ref=""
  for n in $list; do
    name=mismip-$n
    scale_in_budget "$name" || continue
    sed -e "s/^ *run_length = .*/  run_length = $((msteps * dt))./" \
      -e "s/^ *coupling_interval = .*/  coupling_interval = $dt./" \
      -e "s/^ *output_interval = .*/  output_interval = $((msteps * dt))./" \
      -e "s/^ *output_file = .*/  output_file = 'out.nc'/" -e "s/^ *restart_out = .*/  restart_out = 'rst'/" \
      -e "s/^ *nx = .*/  nx = $mismip_nx, ny = $mismip_ny, nprocs_x = $n, nprocs_y = 1/" \
      -e "s/^ *dx = .*/  dx = $mdx., dy = $mdx./" -e "s/^ *dt = .*/  dt = $dt./" \
      -e "s/^ *linear_max_iter = .*/&\n  preconditioner = 'multigrid'/" \
      "$dir/namelists/mismip_ice0.nml" > "$sdir/next.nml"
    nodes_nml_has "nprocs_x = $n, nprocs_y = 1" "run_length = $((msteps * dt))." "dt = $dt." \
      "output_file = 'out.nc'" "restart_out = 'rst'" "geometry_file = 'mismip_geometry.nc'" \
      "preconditioner = 'multigrid'" || return 1
    scale_links="$mismip_dir/mismip_geometry.nc $mismip_dir/mismip_forcing.nc"
    scale_run "$name" "$n" timing || continue
    mismip_rows="$mismip_rows$(nodes_mismip_row "$name" "$n" "$n x 1" "$msteps" "$ref")
"
    if [ "$n" -eq 1 ]; then
      ref=$(cat "$sdir/$name/per_unit")
    else
      scale_bits mismip-1 "$name" "MISMIP+" "$n" || true
    fi
  done

  arctic_rows=""
  ref=""
  for n in $list; do
    name=arctic-$n
    scale_in_budget "$name" || continue
    sed -e "s/^\( *nx =\).*/\1 $arctic_n, ny = $arctic_n, nprocs_x = 1, nprocs_y = $n/" \
      -e "s/arctic_2km_/${arctic_name}_/g" \
      -e "s/^\( *run_length *=\).*/\1 $alen/" -e "s/^\( *coupling_interval *=\).*/\1 $acpl/" \
      -e "s/^\( *output_interval *=\).*/\1 $alen/" \
      -e "s/^\( *output_file *=\).*/\1 'out.nc'/" -e "s/^\( *restart_out *=\).*/\1 'rst'/" \
      "$dir/namelists/arctic_2km.nml" > "$sdir/next.nml"
    nodes_nml_has "nprocs_x = 1, nprocs_y = $n" "run_length = $alen" "coupling_interval = $acpl" \
      "output_interval = $alen" "output_file = 'out.nc'" "restart_out = 'rst'" \
      "grid_file = '${arctic_name}_grid.nc'" "forcing_file = '${arctic_name}_forcing.nc'" || return 1
    scale_links="$arctic_dir/${arctic_name}_grid.nc $arctic_dir/${arctic_name}_forcing.nc"
    scale_run "$name" "$n" timing || continue
    arctic_rows="$arctic_rows$(nodes_arctic_row "$name" "$n" "1 x $n" "$hours" "$ref")
"
    if [ "$n" -eq 1 ]; then
      ref=$(cat "$sdir/$name/per_unit")
    elif scale_bits arctic-1 "$name" Arctic "$n"; then
      # a GB a record: the disk of the GPU machine keeps only 1 GPU's
      rm -f "$sdir/$name/out.nc" "$sdir/$name"/rst.*.nc
    fi
  done

  banner=$(ls -d "$sdir"/arctic-* 2> /dev/null | tail -1)
  {
    echo "# gpu-check nodes: $ngpu GPU(s), one MPI rank per GPU"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - scale_start)) s in all; $($mpirun --version 2> /dev/null | head -1)."
    echo "Banner of the largest Arctic run:"
    echo
    echo '```'
    [ -z "$banner" ] || sed -n '1,/^  namelist:/p' "$banner/run.log"
    echo '```'
    echo
    echo "## Bit for bit against 1 GPU (cryodyn-cmp: every variable's bits)"
    echo
    echo "| case | GPUs | file | against 1 GPU |"
    echo "|---|---|---|---|"
    printf '%s' "$bits_rows"
    echo
    echo "## Arctic at $km km, strong scaling: $arctic_n x $arctic_n cells, $hours h simulated"
    echo
    echo "namelists/arctic_2km.nml's physics (dt 60 s, 200 mEVP iterations); the ranks split the rows"
    echo "(nprocs_x = 1), ocean shared evenly."
    echo "Files $arctic_made."
    echo
    echo "| GPUs | process grid | init s | forcing s per h | dynamics s | dynamics s per simulated h | simulated years per wall day | halo s | halo share | efficiency |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$arctic_rows"
    echo
    echo "## MISMIP+ at $mdx m, strong scaling: $mismip_nx x $mismip_ny x 10 cells, steps of 0.25 a: $msteps"
    echo
    echo "From the 100 m start, dt = 0.25 a, the multigrid preconditioner (the default); the ranks split the channel along x."
    echo
    echo "| GPUs | process grid | time steps | Newton steps | CG iterations | dynamics s | s per time step | halo s | halo share | efficiency |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$mismip_rows"
    echo
    echo "Efficiency: t1 / (N tN) per simulated hour or time step; years per wall day: 86400 / (8760 x dynamics s"
    echo "per simulated hour); halo share: halo / dynamics (pack, MPI and unpack, from the phase timers of rank 0)."
    [ -z "$scale_skipped" ] || echo "Skipped (GPU_CHECK_BUDGET = $scale_budget s spent):$scale_skipped."
  } > "$md"
  mv "$md" "$dir/nodes.md"
  cat "$dir/nodes.md"
  if [ -n "$scale_failures" ]; then
    echo "gpu-check: nodes FAILED ($scale_failures)"
    return 1
  fi
  echo "gpu-check: nodes passed"
}

compare() {
  "$(find_python)" - "$dir" "$cases" <<'EOF'
import os, re, sys
import numpy as np

pack, cases = sys.argv[1], [l.split() for l in sys.argv[2].splitlines()]
sys.path.insert(0, pack)
from ncread import read_doubles as read

# GPU and CPU builds do not run the same operations: nvptx contracts
# a*b + c into fused multiply-adds where x86-64 (no -mfma) rounds twice, and
# exp, pow and sqrt come from different libraries. Differences of a few ulp
# per operation are then carried through the iterations. The tolerances are
# relative to the largest magnitude of each variable.
tolerance = {"cyclone_8km": 1e-10, "free_drift": 1e-10, "ismip_hom_a_L80": 1e-12,
             "landice_evolve": 1e-12, "arctic": 1e-10, "arctic_dg1": 1e-10,
             "landice_weertman": 1e-10, "landice_schoof_marine": 1e-10,
             "landice_mismip": 1e-10, "ismip_hom_a_L80_column": 1e-12,
             "landice_evolve_column": 1e-12, "landice_mismip_column": 1e-10,
             "global_5deg": 1e-10, "global_5deg_f": 1e-10,
             "cyclone_options": 1e-10, "landfast_tilt": 1e-10,
             # the BBM's damage localizes, an instability that amplifies any
             # difference: the CPU build with FMA contraction (-mfma
             # -ffp-contract=fast) against the one without differs in u by
             # 4e-15, 7e-14, 4e-3 and 0.17 of its largest value after 10, 20,
             # 30 and 60 min (and the GPU by 0.2 after 60 min, 2026-11-28), so
             # the case stops at 20 min
             "cyclone_bbm": 1e-10,
             # 14 L-BFGS iterates carry the solves' differences on: a first
             # bound, not yet measured on a GPU
             "landice_invert": 1e-6,
             # float storage: where the two builds' doubles differ by an ulp
             # a stored float can round the other way (6e-8 relative), and
             # the iterations carry that on. The CPU's single storage moves
             # divergence by 1.2e-4 and u by 1.3e-5 of their largest values
             # against double storage at 8 km after 6 h; CPU vs GPU should
             # stay below that: a first bound, not yet measured on a GPU
             "cyclone_single": 1e-3, "arctic_single": 1e-3}

# The F fold's pole node (65 N, on land) is where its neighbours meet, so
# the grid direction of the nodes next to it is ill-conditioned: the ocean
# current turned into it differs there by 1.7e-5 and 2.3e-5 of its largest
# value between the CPU builds with and without FMA contraction, as between
# GPU and CPU (2026-11-28); the ice there does not move.
var_tolerance = {("global_5deg_f", "uocn"): 1e-4, ("global_5deg_f", "vocn"): 1e-4}

def out_name(case_dir):
    return open(os.path.join(case_dir, "output_name")).read().strip()

def phase(log, name):
    m = re.search(r"^%s\s+([0-9.]+)" % name, open(log).read(), re.M)
    return float(m.group(1)) if m else float("nan")

rows, failed = [], 0
for name, np_, ref in cases:
    g_dir, c_dir = os.path.join(pack, "gpu", name), os.path.join(pack, "cpu", ref)
    gpu, cpu = read(os.path.join(g_dir, out_name(g_dir))), read(os.path.join(c_dir, out_name(c_dir)))
    tol = tolerance[ref]
    same_rank1 = None
    if name != ref:
        one = read(os.path.join(pack, "gpu", ref, out_name(os.path.join(pack, "gpu", ref))))
        same_rank1 = all(np.array_equal(gpu[k], one[k], equal_nan=True) for k in one)
        failed += not same_rank1
    # A reader that lost the time-dependent fields would compare only the
    # coordinates: the velocity must be among the variables.
    if "u" not in cpu or "u" not in gpu:
        print("gpu-check: error: %s: no variable u read from the outputs" % name)
        failed += 1
    t_gpu = phase(os.path.join(g_dir, "run.log"), "dynamics")
    t_cpu = phase(os.path.join(c_dir, "run.log"), "dynamics")
    # a vector component is compared against the vector's size: v of a flow
    # along x is round-off noise (1e-15 m/a beside u of 4 m/a), which the
    # two builds need not share
    partner = {"u": "v", "v": "u", "u_surf": "v_surf", "v_surf": "u_surf",
               "u_east": "v_north", "v_north": "u_east"}
    for var in sorted(cpu):
        a, b = gpu[var], cpu[var]
        scale = np.abs(b).max()
        if var in partner and partner[var] in cpu:
            scale = max(scale, np.abs(cpu[partner[var]]).max())
        diff = np.abs(a - b).max() if a.shape == b.shape else np.inf
        rel = diff / scale if scale > 0 else diff
        tol_v = var_tolerance.get((ref, var), tol)
        ok = np.isfinite(rel) and rel <= tol_v
        failed += not ok
        rows.append((name, np_, var, "identical" if np.array_equal(a, b) else "%.2e" % rel,
                     "%.0e" % tol_v, "" if same_rank1 is None else ("yes" if same_rank1 else "NO"),
                     "ok" if ok else "FAIL"))
    print("gpu-check: %-20s dynamics CPU %8.3f s  GPU %8.3f s" % (name, t_cpu, t_gpu))

head = ("case", "ranks", "variable", "max rel. diff GPU vs CPU", "tolerance",
        "bits = GPU 1 rank", "")
lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
timing = os.path.join(pack, "gpu", "cyclone_2km", "run.log")
if os.path.exists(timing):
    log = open(timing).read()
    m = re.search(r"^cryodyn: t = .*$", log, re.M)
    lines.append("")
    lines.append("2 km cyclone (256 x 256, 2 days, dt 60 s, 200 mEVP iterations) on the GPU: "
                 "dynamics %.1f s, init %.1f s, output %.1f s, restart %.1f s"
                 % tuple(phase(timing, p) for p in ("dynamics", "init", "output", "restart")))
    last = [l for l in log.splitlines() if l.startswith("cryodyn: t =")]
    if last:
        lines.append("last progress line: `%s`" % last[-1])
timing = os.path.join(pack, "gpu", "arctic_30d", "run.log")
if os.path.exists(timing):
    lines.append("")
    lines.append("Arctic case (300 x 300 cells of 25 km, 30 days, dt 1800 s, 500 mEVP iterations) on "
                 "the GPU: dynamics %.1f s, init %.1f s, forcing %.1f s, output %.1f s, restart %.1f s"
                 % tuple(phase(timing, p) for p in ("dynamics", "init", "forcing", "output", "restart")))
    last = [l for l in open(timing).read().splitlines() if l.startswith("cryodyn: t =")]
    if last:
        lines.append("last progress line: `%s`" % last[-1])
banner = open(os.path.join(pack, "gpu", cases[0][0], "run.log")).read().splitlines()[:5]
import datetime
title = ["# GPU check: the OpenACC product against the CPU build", "",
         "Written by `gpu-check.sh run` (or `compare`) on %s UTC; ranks of one case share the node's GPUs."
         % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), ""]
text = "\n".join(title + ["GPU banner of the first case:", "", "```"] + banner + ["```", ""] + lines) + "\n"
open(os.path.join(pack, "gpu-check.md"), "w").write(text)
print(text)
print("gpu-check: %s" % ("FAILED (%d)" % failed if failed else "passed"))
sys.exit(1 if failed else 0)
EOF
}

case $action in
  build) build ;;
  run) run ;;
  perf) perf ;;
  solver) solver ;;
  scale) scale ;;
  nodes) nodes ;;
  precision) precision ;;
  compare) compare ;;
  all)
    build
    dir=$dir/pack
    run ;;
  *) usage ;;
esac
