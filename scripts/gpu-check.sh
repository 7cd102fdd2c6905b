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
#       only the NVIDIA driver, Open MPI and python3 with numpy and netCDF4
#       or h5py): takes from the pack the
#       libraries the machine lacks, runs every case on the GPU, then compares
#   sh DIR/pack/gpu-check.sh compare DIR/pack    the comparison alone: prints
#       the table and writes it to DIR/pack/gpu-check.md
#   sh scripts/gpu-check.sh all DIR    the three in turn on one machine
#   sh DIR/pack/gpu-check.sh perf DIR/pack    timings for docs/performance.md:
#       ISMIP-HOM A (80 x 80 x 10) on the GPU and with OpenMP on every core,
#       the cyclone at 1024 x 1024 with hourly coupling and 6-hourly output
#   sh DIR/pack/gpu-check.sh scale DIR/pack    weak scaling of the sea-ice
#       dynamics over the GPUs of the machine (4096 x 4096 cells per GPU)
#
# The cases: the sea-ice cyclone at 8 km for 6 h on 1, 2 and 4 ranks, free
# drift from a NetCDF forcing file, ISMIP-HOM A at L = 80 km, and ISMIP-HOM A
# with thickness evolution over two coupling intervals on 1 and 2 ranks. Ranks
# take the node's GPUs in turn: on one GPU they share it, on several each
# has its own. `run` also times the 2 km cyclone for 2 days (no CPU twin: it
# takes about an hour on two cores); GPU_CHECK_TIMING=0 skips it.
#
# The run fails (exit 1) when a GPU run fails, when its banner does not name
# a GPU, when a variable differs from the CPU output by more than the case's
# tolerance, or when the 2 and 4 rank GPU runs are not bit for bit those of
# 1 rank. Environment: PYTHON (python3 with numpy and netCDF4 or h5py),
# MPIRUN (default mpirun).
set -eu

usage() {
  echo "usage: gpu-check.sh build DIR | run PACK | compare PACK | perf PACK | scale PACK | all DIR" >&2
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
landice_evolve_2ranks 2 landice_evolve"

# Write case NAME's namelist (from the shipped ones in SRC/namelists) and
# inputs into the current directory; print the output file's name.
make_case() { # NAME SRC
  case $1 in
    cyclone_8km*)
      sed -e 's/^ *run_length = .*/  run_length = 21600/' \
        -e 's/^ *output_interval = .*/  output_interval = 10800/' \
        -e "s/^ *output_file = .*/  output_file = 'cyclone_8km.nc'/" \
        "$2/namelists/cyclone_8km.nml" > case.nml
      echo cyclone_8km.nc ;;
    free_drift)
      cp "$2/namelists/free_drift.nml" case.nml
      echo free_drift.nc ;;
    ismip_hom_a_L80)
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
  esac
}

find_python() {
  for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 &&
      "$p" -c 'import numpy
try:
    import netCDF4
except ImportError:
    import h5py' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "gpu-check: error: no python3 with numpy and netCDF4 or h5py" >&2
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

run_case() { # DRIVER NAME RANKS WORKDIR SRC
  mkdir -p "$4"
  (
    cd "$4"
    make_case "$2" "$5" > output_name
    [ "$2" != free_drift ] || cp "$5/free_drift_forcing.nc" .
    if [ "$3" -eq 1 ]; then
      "$1" case.nml > run.log 2>&1 < /dev/null
    else
      # mpirun forwards standard input: it would eat the list of cases.
      $mpirun -np "$3" "$1" case.nml > run.log 2>&1 < /dev/null
    fi
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
    (cd "$dir/build-$kind" && "$src/configure" $flags > configure.log && make -j2 cryodyn > make.log 2>&1) || {
      echo "gpu-check: error: the $kind build failed; see $dir/build-$kind/*.log" >&2
      return 1
    }
  done
  pack=$dir/pack
  rm -rf "$pack"
  mkdir -p "$pack/lib-all" "$pack/cpu" "$pack/namelists"
  cp "$dir/build-gpu/cryodyn" "$pack/cryodyn"
  cp "$dir/build-omp/cryodyn" "$pack/cryodyn-omp"
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
    echo "gpu-check: GPU run of $name on $np rank(s)"
    run_case "$dir/cryodyn" "$name" "$np" "$dir/gpu/$name" "$dir"
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
    END {printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f |\n", c, d, t, s["dynamics"],
         s["forcing"], s["output"] + s["restart"], s["init"]}' "$dir/perf/$1-$2/run.log"
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
    "$dir/namelists/cyclone_2km.nml" > "$dir/perf/cyclone_1024.nml"
  echo "| case | driver | threads | dynamics s | forcing s | output + restart s | init s |"
  echo "|---|---|---|---|---|---|---|"
  perf_case ismip_a_80 cryodyn 1
  perf_case ismip_a_80 cryodyn-omp "$cores"
  perf_case cyclone_1024 cryodyn 1
  grep -E "Newton|newton" "$dir/perf/ismip_a_80-cryodyn/run.log" | tail -3 || true
}

# Weak scaling of the sea-ice dynamics: the cyclone with 4096 x 4096 cells of
# 125 m per GPU, 10 macro steps of 60 s with 100 mEVP iterations, on 1 rank
# and on one rank per GPU of this machine (the domain grows along x).
scale() {
  link_missing_libs
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$dir/scale"
  ngpu=$(nvidia-smi -L | wc -l)
  echo "| GPUs | cells | dynamics s | s per macro step | weak-scaling efficiency |"
  echo "|---|---|---|---|---|"
  t1=""
  for n in 1 $ngpu; do
    [ "$n" -gt 1 ] || [ -z "$t1" ] || continue
    nx=$((4096 * n))
    sed -e "s/nx = 256, ny = 256/nx = $nx, ny = 4096, nprocs_x = $n, nprocs_y = 1/" \
      -e 's/dx = 2000., dy = 2000./dx = 125., dy = 125./' -e 's/^ *run_length = .*/  run_length = 600/' \
      -e 's/^ *coupling_interval = .*/  coupling_interval = 600/' -e "s/^ *output_file = .*/  output_file = ''/" \
      -e 's/^ *output_interval = .*/  output_interval = 0/' -e "s/^ *restart_out = .*/  restart_out = ''/" \
      -e 's/^ *restart_interval = .*/  restart_interval = 0/' -e 's/^ *n_evp = .*/  n_evp = 100/' \
      "$dir/namelists/cyclone_2km.nml" > "$dir/scale/weak$n.nml"
    (cd "$dir/scale" && $mpirun -np "$n" "$dir/cryodyn" "weak$n.nml" > "weak$n.log" 2>&1 < /dev/null) || {
      cat "$dir/scale/weak$n.log" >&2
      return 1
    }
    t=$(awk '/^dynamics / {print $2}' "$dir/scale/weak$n.log")
    [ -n "$t1" ] || t1=$t
    awk -v n="$n" -v nx="$nx" -v t="$t" -v t1="$t1" \
      'BEGIN {printf "| %d | %d x 4096 | %.3f | %.4f | %.3f |\n", n, nx, t, t / 10, t1 / t}'
  done
  head -5 "$dir/scale/weak$ngpu.log"
}

compare() {
  "$(find_python)" - "$dir" "$cases" <<'EOF'
import os, re, sys
import numpy as np

pack, cases = sys.argv[1], [l.split() for l in sys.argv[2].splitlines()]
try:
    import netCDF4
    def read(path):
        with netCDF4.Dataset(path) as d:
            return {k: np.asarray(v[:], dtype=float) for k, v in d.variables.items()
                    if v.dtype == np.float64}
except ImportError:
    import h5py
    def read(path):
        with h5py.File(path, "r") as d:
            return {k: np.asarray(v[()], dtype=float) for k, v in d.items()
                    if isinstance(v, h5py.Dataset) and v.dtype == np.float64
                    and "CLASS" not in v.attrs}

# GPU and CPU builds do not run the same operations: nvptx contracts
# a*b + c into fused multiply-adds where x86-64 (no -mfma) rounds twice, and
# exp, pow and sqrt come from different libraries. Differences of a few ulp
# per operation are then carried through the iterations. The tolerances are
# relative to the largest magnitude of each variable.
tolerance = {"cyclone_8km": 1e-10, "free_drift": 1e-10, "ismip_hom_a_L80": 1e-12,
             "landice_evolve": 1e-12}

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
    t_gpu = phase(os.path.join(g_dir, "run.log"), "dynamics")
    t_cpu = phase(os.path.join(c_dir, "run.log"), "dynamics")
    for var in sorted(cpu):
        a, b = gpu[var], cpu[var]
        scale = np.abs(b).max()
        diff = np.abs(a - b).max() if a.shape == b.shape else np.inf
        rel = diff / scale if scale > 0 else diff
        ok = np.isfinite(rel) and rel <= tol
        failed += not ok
        rows.append((name, np_, var, "identical" if np.array_equal(a, b) else "%.2e" % rel,
                     "%.0e" % tol, "" if same_rank1 is None else ("yes" if same_rank1 else "NO"),
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
banner = open(os.path.join(pack, "gpu", cases[0][0], "run.log")).read().splitlines()[:5]
text = "\n".join(["GPU banner of the first case:", "", "```"] + banner + ["```", ""] + lines) + "\n"
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
  scale) scale ;;
  compare) compare ;;
  all)
    build
    dir=$dir/pack
    run ;;
  *) usage ;;
esac
