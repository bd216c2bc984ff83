#!/usr/bin/env bash
# Installs podman and Debian's runc (pinned to Debian bookworm's packages)
# for the container test (deploy/kubernetes), which builds the image from
# deploy/Dockerfile and runs it as the Kubernetes Job would. runc, not crun:
# crun (podman's default runtime) refuses to start containers on this
# machine's cgroups (hybrid mode, setrlimit); the test passes --runtime runc
# --cgroup-manager=cgroupfs and a containers.conf of its own. Idempotent.
set -euo pipefail
PODMAN_VERSION=4.3.1+ds1-8+deb12u1+b3
RUNC_VERSION=1.1.5+ds1-1+deb12u1
installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
if [ "$(installed podman)" != "$PODMAN_VERSION" ] || [ "$(installed runc)" != "$RUNC_VERSION" ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing podman=$PODMAN_VERSION runc=$RUNC_VERSION..."
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "podman=$PODMAN_VERSION" "runc=$RUNC_VERSION" >/dev/null
fi
echo "$(podman --version) with $(runc --version | head -1)"
