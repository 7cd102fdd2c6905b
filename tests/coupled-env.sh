# Sourced by the OASIS test scripts (tests/coupled_*.sh, test_oasis_exchange.sh):
# srcdir and builddir as absolute paths (from top_srcdir / top_builddir, which
# the Makefile exports, else this script's parent and the current directory),
# the MPI launcher, first_of (the first executable of its arguments, else the
# first argument), and Open MPI's permission to run as root.
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
