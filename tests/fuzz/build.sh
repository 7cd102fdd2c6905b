#!/bin/sh
# Build the libFuzzer targets and their seed corpora (`make fuzz` runs this):
#   build.sh OUT_DIR LIBRARY_SOURCE...
# with srcdir, builddir (where config.h, cryodyn and cryodyn-cmp are) and
# FUZZ_CC (clang) in the environment. The library is compiled again with
# clang -fsanitize=fuzzer-no-link,address,undefined and without OASIS
# (neither target reaches the coupler). Everything is compiled every time:
# a header change must reach the targets, and the build takes a minute.
set -eu
out=$1
shift
: "${FUZZ_CC:=clang}"
: "${srcdir:=.}"
: "${builddir:=.}"
command -v "$FUZZ_CC" > /dev/null 2>&1 || { echo "fuzz: no $FUZZ_CC (libFuzzer needs clang)" >&2; exit 1; }
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
mpi_cflags=$(mpicc --showme:compile)
mpi_libs=$(mpicc --showme:link)
nc_cflags=$(pkg-config --cflags netcdf)
nc_libs=$(pkg-config --libs netcdf)
cflags="-std=gnu11 -g -O1 -fno-math-errno $san -I$builddir -I$srcdir/base -I$srcdir/kernels -I$srcdir/services \
  -I$srcdir/coupling -I$srcdir/component $mpi_cflags $nc_cflags"

mkdir -p "$out/obj"
objs=
for src in "$@"; do
  obj=$out/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
  echo "  FUZZCC   $src"
  # shellcheck disable=SC2086
  $FUZZ_CC $cflags -fsanitize=fuzzer-no-link -c "$srcdir/$src" -o "$obj"
  objs="$objs $obj"
done
rm -f "$out/libcryodyn-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libcryodyn-fuzz.a" $objs

for target in namelist restart; do
  echo "  FUZZLD   $out/fuzz_$target"
  # shellcheck disable=SC2086
  $FUZZ_CC $cflags -fsanitize=fuzzer "$srcdir/tests/fuzz/fuzz_$target.c" "$out/libcryodyn-fuzz.a" \
    $nc_libs $mpi_libs -lm -o "$out/fuzz_$target"
done

# Seeds: every namelist of the project, and restarts of a short run on the
# fuzzer's own grid (tests/fuzz/restart.nml).

mkdir -p "$out/corpus_namelist" "$out/corpus_restart" "$out/seed_run"
cp "$srcdir"/namelists/*.nml "$srcdir"/tests/regression/*.nml "$srcdir/tests/fuzz/restart.nml" \
  "$out/corpus_namelist/"
cp "$srcdir/tests/fuzz/restart.nml" "$out/seed_run/restart.nml"
(cd "$out/seed_run" && rm -f seed.*.nc && ${MPIRUN:-mpirun} -np 1 "$builddir/cryodyn" restart.nml > seed.log)
for t in 00600 01200 03600; do
  cp "$out/seed_run/seed.2000-01-01-$t.nc" "$out/corpus_restart/seed-$t.nc"
done
echo "fuzz: targets and seed corpora in $out"
