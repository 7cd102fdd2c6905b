# Sourced by the OASIS test scripts (tests/coupled_*.sh, test_oasis_exchange.sh)
# and by the test scripts that compare runs bit for bit (tests/*.test): srcdir
# and builddir as absolute paths (from top_srcdir / top_builddir, which the
# Makefile exports, else this script's parent and the current directory), the
# MPI launcher, first_of (the first executable of its arguments, else the first
# argument), same_bits and run_standalone (below), and Open MPI's permission to
# run as root.
srcdir=${top_srcdir:-${srcdir:-$(dirname "$0")/..}}
srcdir=$(cd "$srcdir" && pwd)
builddir=${top_builddir:-$(pwd)}
mpirun=${MPIRUN:-mpirun}
first_of() {
  for c in "$@"; do
    if [ -x "$c" ]; then
      echo "$c"
      return
    fi
  done
  echo "$1"
}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# same_bits A.nc B.nc [VAR ...]: true when every variable of A and B (or each
# VAR named) holds the same bits, by the project's compare tool cryodyn-cmp
# (CRYODYN_CMP overrides where it is found). Its report goes to stdout: on a
# difference, the first differing variable and index; a missing or unreadable
# file is a failure as well.
cryodyn_cmp=${CRYODYN_CMP:-$builddir/cryodyn-cmp}
case $cryodyn_cmp in /*) ;; *) cryodyn_cmp=$(pwd)/$cryodyn_cmp ;; esac
same_bits() {
  "$cryodyn_cmp" "$@"
}

# run_standalone DIR NAMELIST: the coupled NAMELIST switched to forcing =
# 'netcdf' from DIR/forcing.nc, run by $cryodyn on 2 ranks in DIR (log in
# DIR/log). Each problem is reported through the caller's fail function:
# the switch did not apply, a non-zero exit, no "cryodyn: run complete".
run_standalone() {
  sed -e "s/^  forcing = 'oasis'.*/  forcing = 'netcdf'\\n  forcing_file = 'forcing.nc'/" \
    "$2" >"$1/run.nml"
  grep -q "forcing_file = 'forcing.nc'" "$1/run.nml" ||
    fail "standalone: could not switch the namelist to forcing = 'netcdf'"
  (cd "$1" && timeout 120 "$mpirun" --oversubscribe -np 2 "$cryodyn" run.nml >log 2>&1)
  rc=$?
  echo "--- standalone: mpirun exit $rc"
  [ "$rc" = 0 ] || fail "standalone: mpirun exit code $rc, expected 0"
  grep -q "^cryodyn: run complete" "$1/log" || fail "standalone: no 'cryodyn: run complete'"
}
