#!/usr/bin/env bash
# Installs Ceph from Debian's packages (pinned to bookworm's): the monitor,
# the OSD, the S3 gateway (radosgw) and the ceph and radosgw-admin tools,
# which scripts/ceph-rgw.sh assembles into a one-node cluster for the store
# tests. No service is enabled or started by this script. Idempotent.
set -euo pipefail
CEPH_VERSION=16.2.15+ds-0+deb12u2
PACKAGES=(ceph-mon ceph-osd radosgw ceph-common)
installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
want=()
for p in "${PACKAGES[@]}"; do
  [ "$(installed "$p")" = "$CEPH_VERSION" ] || want+=("$p=$CEPH_VERSION")
done
if [ ${#want[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing ${want[*]} (Debian's Ceph, about 60 packages)..."
  $sudo apt-get update -qq
  # Without systemd the packages start no daemon; the tests start their own.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${want[@]}" uuid-runtime curl >/dev/null
fi
echo "$(ceph --version)"
