#!/bin/sh
# Registers, stack frame and spills of the OpenACC kernels, as ptxas assigns
# them to the PTX that GCC hands the CUDA driver (docs/performance.md,
# "Stress kernel registers"). No GPU needed.
#
#   sh scripts/ptx_registers.sh BUILD_DIR [SOURCE...]
#
# BUILD_DIR is configured with `--enable-openacc=gcc` (it need not be
# built): the kernels are compiled with its compile command (compiler, flags,
# include paths, OpenACC flags) and linked into a scratch shared object, so
# that mkoffload runs as it does for the product, and its PTX is kept
# (-save-temps). The first PTX module of the offload image is the kernels'
# own (the others are libgcc's and libm's); `ptxas -arch=$PTX_ARCH -v -c`
# compiles it as the driver would at run time. SOURCE defaults to the sea-ice
# mEVP, BBM and single-storage kernels (paths relative to the source tree).
# Prints one markdown row per kernel entry (the loop's function name with
# GCC's $_omp_fn$N suffix). Environment: PTXAS (default ptxas on PATH, else
# /usr/local/cuda/bin/ptxas), PTX_ARCH (default sm_90).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [SOURCE...]" >&2; exit 2; }
build=$(cd "$1" && pwd) || { echo "$0: no build directory $1" >&2; exit 2; }
shift
[ -f "$build/Makefile" ] || { echo "$0: $build/Makefile missing: configure $build first" >&2; exit 2; }
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$ptxas" ] || { echo "$0: ptxas not found (set PTXAS)" >&2; exit 2; }
arch=${PTX_ARCH:-sm_90}

# automake's own compile command of the build directory, with its paths
# (prefixed: make may first regenerate an out-of-date Makefile and say so)
out=$(make -s --no-print-directory -C "$build" -f Makefile -f - ptx-registers-print <<'EOF'
ptx-registers-print:
	@echo 'ptx-registers-compile: $(COMPILE)'
	@echo 'ptx-registers-srcdir: $(abs_top_srcdir)'
EOF
) || { echo "$0: make could not read $build/Makefile" >&2; exit 2; }
compile=$(printf '%s\n' "$out" | sed -n 's/^ptx-registers-compile: //p')
src=$(printf '%s\n' "$out" | sed -n 's/^ptx-registers-srcdir: //p')
case $compile in
  *-foffload=nvptx-none*) ;;
  *) echo "$0: $build is not configured with --enable-openacc=gcc" >&2; exit 2 ;;
esac
[ $# -ge 1 ] || set -- kernels/seaice_stress.c kernels/seaice_stress_single.c kernels/seaice_quad.c \
  kernels/seaice_quad_single.c kernels/seaice_velocity.c kernels/seaice_velocity_single.c \
  kernels/seaice_bbm.c kernels/seaice_bbm_step.c
for f in "$@"; do
  [ -f "$src/$f" ] || { echo "$0: no source $src/$f" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptx_registers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "ptxas $("$ptxas" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') -arch=$arch on $(cd "$src" &&
  git describe --always --dirty 2>/dev/null || echo "$src")"
echo
echo "| source | kernel | registers | stack frame (B) | spill stores (B) | spill loads (B) |"
echo "|---|---|---:|---:|---:|---:|"
# One offload image per source: the *_single.c files reuse their double
# twins' static names, which one image would rename apart (lto_priv).
for f in "$@"; do
  rm -rf "$tmp/out" && mkdir "$tmp/out"
  # -I. of the compile command names the build directory (config.h)
  (cd "$build" && $compile -fPIC -shared -save-temps -dumpdir "$tmp/out/" -o "$tmp/out/k.so" "$src/$f") \
    > "$tmp/compile.log" 2>&1 || { cat "$tmp/compile.log" >&2; echo "$0: $f: compile failed" >&2; exit 1; }
  image=$tmp/out/xnvptx-none.mkoffload
  [ -f "$image" ] || { echo "$0: no offload image $image (GCC's -save-temps names changed?)" >&2; exit 1; }
  tr -d '\000' < "$image" | awk '/^\/\/ BEGIN PREAMBLE/ { n++ } n == 1' > "$tmp/k.ptx"
  "$ptxas" -arch="$arch" -v -c "$tmp/k.ptx" -o "$tmp/k.o" > "$tmp/ptxas.log" 2>&1 ||
    { cat "$tmp/ptxas.log" >&2; echo "$0: $f: ptxas failed" >&2; exit 1; }
  awk -v src="$f" '
    /Compiling entry function/ { name = $0; sub(/.*function \047/, "", name); sub(/\047 for.*/, "", name) }
    /bytes stack frame/ { stack = $1; stores = $5; loads = $9 }
    /Used [0-9]+ registers/ && name != "" {
      for (i = 1; i <= NF; ++i) if ($i == "Used") regs = $(i + 1)
      printf "| %s | %s | %s | %s | %s | %s |\n", src, name, regs, stack, stores, loads
      name = ""
    }' "$tmp/ptxas.log" | sort
done
