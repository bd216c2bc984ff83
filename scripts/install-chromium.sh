#!/usr/bin/env bash
# Installs Debian's chromium for the browser test of the HTML report
# (e2e/html_test.go), unless it is already there. apt cannot pin the
# version here: the distribution's current package is installed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO="sudo"
fi
$SUDO apt-get -o DPkg::Lock::Timeout=600 update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium
