#!/bin/sh
# Install everything cryodyn needs to build and test, from Debian 12 packages,
# and the tools' Python environment (below).
#
# Tools environment: the generators of input files that need more than
# Debian's Python packages (scripts/make_arctic.py: global-land-mask, from
# PyPI) run in a virtual environment outside the checkout, at
#   $CRYODYN_TOOLS, default ${XDG_CACHE_HOME:-$HOME/.cache}/cryodyn-tools,
# made with --system-site-packages so that Debian's numpy, netCDF4 and
# matplotlib stay visible. Scripts find its interpreter with
# scripts/tools-python. pip serves this environment only; cryodyn itself
# builds and runs from Debian packages alone.
set -eu
packages="gcc gfortran make autoconf automake libtool pkg-config
  gcc-12-offload-nvptx libopenmpi-dev openmpi-bin
  libnetcdf-dev netcdf-bin libnetcdff-dev liboasis3-dev libcunit1-dev
  python3 python3-numpy python3-matplotlib python3-netcdf4 python3-venv clang-format"
# PyPI packages of the tools environment, pinned.
tools_packages="global-land-mask==1.0.0"
tools_modules="global_land_mask"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing$missing"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
fi

tools=${CRYODYN_TOOLS:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache}/cryodyn-tools}
imports=$(echo $tools_modules | sed 's/ /, /g')
if [ -x "$tools/bin/python" ] && "$tools/bin/python" -c "import $imports" 2>/dev/null; then
  echo "install-deps: tools environment present ($tools)"
  exit 0
fi
echo "install-deps: tools environment in $tools: $tools_packages"
mkdir -p "$(dirname "$tools")"
/usr/bin/python3 -m venv --system-site-packages "$tools"
"$tools/bin/python" -m pip install --disable-pip-version-check --no-input -q $tools_packages
"$tools/bin/python" -c "import $imports"
echo "install-deps: tools environment ready ($tools/bin/python)"
