#!/bin/sh
# Build the kernel benchmark (examples/bench.c, DESIGN.md section 10).
#
#   examples/bench_gpu.sh            OpenACC build for NVIDIA GPUs into .gpu/ (git-ignored),
#                                    with the GCC 12 libgomp and its nvptx plugin beside it
#   examples/bench_gpu.sh --cpu DIR  OpenMP build for a CPU check into DIR
#
# Run on the GPU machine (shared/notes/gpu.md: it has no GCC runtime):
#   cd .gpu && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH ./bench --all
#   cd .gpu && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH ./bench --cyclone 256 2 60 200 OUTDIR
#
# The binary also holds a serial host build of every kernel, its global
# symbols renamed cryo_* -> ref_cryo_*, which bench uses as the reference
# for its correctness checks.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
mode=gpu
if [ "${1:-}" = "--cpu" ]; then
  mode=cpu
  out=${2:-/tmp/cryo_bench_cpu}
else
  out=${1:-$repo/.gpu}
fi
mkdir -p "$out/obj"
obj=$out/obj

cc=${CC:-gcc}
# cryodyn.h names MPI_Comm: MPI headers only, nothing of MPI is linked.
mpi_inc=$(mpicc --showme:compile 2>/dev/null || echo "-I/usr/lib/x86_64-linux-gnu/openmpi/include")
inc="-I$repo/kernels -I$repo/component $mpi_inc"
# BENCH_CFLAGS (optional) is appended, e.g. "-std=gnu11 -fno-math-errno" to
# measure with the library's own flags (Makefile.am AM_CFLAGS).
base="-std=c11 -O3 -Wall -Wextra ${BENCH_CFLAGS:-}"
if [ $mode = gpu ]; then
  # sm_80 PTX (GCC 12 knows no sm_90; the driver JIT-compiles it for Hopper),
  # -lm for exp/pow/sqrt in device code, -no-pie against DT_TEXTREL.
  par="-fopenacc -foffload=nvptx-none -foffload-options=-misa=sm_80 -foffload-options=-lm"
  ldextra="-no-pie"
else
  par="-fopenmp"
  ldextra=""
fi

# seaice_step, _advect_dg1, _forcing, _diag: the macro-step driver and what
# it calls, for bench --cyclone
kernels="seaice_stress seaice_velocity seaice_advect seaice_advect_dg1 seaice_params seaice_step
seaice_forcing seaice_diag landice_residual landice_jacobian landice_solver landice_geometry"

objs=""
refs=""
: >"$obj/redefine.txt"
for k in $kernels; do
  # shellcheck disable=SC2086
  $cc $base $par $inc -c "$repo/kernels/$k.c" -o "$obj/$k.o"
  # shellcheck disable=SC2086
  $cc $base $inc -c "$repo/kernels/$k.c" -o "$obj/ref_$k.o"
  nm --defined-only -g "$obj/ref_$k.o" | awk '$3 ~ /^cryo_/ {print $3, "ref_" $3}' >>"$obj/redefine.txt"
  objs="$objs $obj/$k.o"
  refs="$refs $obj/ref_$k.o"
done
for r in $refs; do
  objcopy --redefine-syms="$obj/redefine.txt" "$r"
done
# shellcheck disable=SC2086
$cc $base $inc -c "$repo/component/cryo_error.c" -o "$obj/cryo_error.o"
# shellcheck disable=SC2086
$cc $base $par $inc -c "$repo/examples/bench.c" -o "$obj/bench.o"
# shellcheck disable=SC2086
$cc $par $ldextra -o "$out/bench" "$obj/bench.o" $objs $refs "$obj/cryo_error.o" -lm

if [ $mode = gpu ]; then
  libdir=/usr/lib/x86_64-linux-gnu
  cp -L "$libdir/libgomp.so.1" "$out/libgomp.so.1"
  cp -L "$libdir/libgomp-plugin-nvptx.so.1" "$out/libgomp-plugin-nvptx.so.1"
  rm -rf "$obj"
fi
echo "built $out/bench ($mode)"
