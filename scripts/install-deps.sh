#!/bin/sh
# Install everything cryodyn needs to build and test, from Debian 12 packages.
set -eu
packages="gcc gfortran make autoconf automake libtool pkg-config
  gcc-12-offload-nvptx libopenmpi-dev openmpi-bin
  libnetcdf-dev netcdf-bin libnetcdff-dev liboasis3-dev libcunit1-dev
  python3 python3-numpy python3-matplotlib python3-netcdf4 clang-format"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing$missing"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
