#!/usr/bin/env bash
# Installs the pinned external transfer tools that `objbench tools` compares
# (and its tests run): rclone and s3cmd from Debian, the aws CLI and boto3
# from PyPI into a virtual environment this script owns, .venv-tools/ at the
# repository's root (gitignored; Debian's own Python refuses `pip install`
# outside one: externally-managed-environment). scripts/test.sh puts
# .venv-tools/bin first on PATH, so `aws` and `python3` (boto3) are the venv's.
# s5cmd has no Debian or PyPI package and is not installed here; the
# shoot-out skips it when it is not on PATH.
# Idempotent: a tool already at its pinned version is left alone.
set -euo pipefail
RCLONE_VERSION=1.60.1+dfsg-2+b5
S3CMD_VERSION=2.3.0-1
PYVENV_VERSION=3.11.2-1+b1 # Debian's python3-venv: `python3 -m venv` with ensurepip
AWSCLI_VERSION=1.45.11
BOTO3_VERSION=1.43.11

installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
want=()
[ "$(installed rclone)" = "$RCLONE_VERSION" ] || want+=("rclone=$RCLONE_VERSION")
[ "$(installed s3cmd)" = "$S3CMD_VERSION" ] || want+=("s3cmd=$S3CMD_VERSION")
[ "$(installed python3-venv)" = "$PYVENV_VERSION" ] || want+=("python3-venv=$PYVENV_VERSION")
if [ ${#want[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing ${want[*]}..."
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
fi
echo "rclone $(installed rclone), s3cmd $(installed s3cmd)"

# Debian's python3 (the one python3-venv serves), not whichever is first on PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-tools"
pinned() {
  [ -x "$venv/bin/aws" ] && [ -x "$venv/bin/python3" ] || return 1
  "$venv/bin/aws" --version 2>&1 | grep -q "^aws-cli/$AWSCLI_VERSION " || return 1
  [ "$("$venv/bin/python3" -c 'import boto3; print(boto3.__version__)' 2>/dev/null)" = "$BOTO3_VERSION" ]
}
if ! pinned; then
  echo "installing awscli==$AWSCLI_VERSION boto3==$BOTO3_VERSION into $venv..."
  "$py" -m venv --clear "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "awscli==$AWSCLI_VERSION" "boto3==$BOTO3_VERSION"
  pinned || { echo "install-tools: $venv does not hold awscli $AWSCLI_VERSION and boto3 $BOTO3_VERSION after installing them" >&2; exit 1; }
fi
echo "$("$venv/bin/aws" --version 2>&1), boto3 $("$venv/bin/python3" -c 'import boto3; print(boto3.__version__)') in $venv"
