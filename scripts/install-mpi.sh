#!/usr/bin/env bash
# Installs Open MPI's launcher (Debian's openmpi-bin, pinned) for the
# distributed tests, which start workers with mpirun. objbench links no MPI
# library: mpirun only launches the processes. Idempotent.
set -euo pipefail
OPENMPI_VERSION=4.1.4-3+b1
installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
if [ "$(installed openmpi-bin)" != "$OPENMPI_VERSION" ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing openmpi-bin=$OPENMPI_VERSION..."
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "openmpi-bin=$OPENMPI_VERSION" >/dev/null
fi
echo "$(mpirun --version 2>&1 | head -1)"
