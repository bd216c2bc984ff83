#!/usr/bin/env bash
# Installs the pinned external transfer tools that `objbench tools` compares
# (and its tests run): rclone and s3cmd from Debian, the aws CLI and boto3
# from PyPI when they are missing. s5cmd has no Debian or PyPI package and is
# not installed here; the shoot-out skips it when it is not on PATH.
# Idempotent: a tool already at its pinned version (or, for aws/boto3,
# present at all) is left alone.
set -euo pipefail
RCLONE_VERSION=1.60.1+dfsg-2+b5
S3CMD_VERSION=2.3.0-1
AWSCLI_VERSION=1.45.11
BOTO3_VERSION=1.43.11

installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
want=()
[ "$(installed rclone)" = "$RCLONE_VERSION" ] || want+=("rclone=$RCLONE_VERSION")
[ "$(installed s3cmd)" = "$S3CMD_VERSION" ] || want+=("s3cmd=$S3CMD_VERSION")
if [ ${#want[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing ${want[*]}..."
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
fi
echo "rclone $(installed rclone), s3cmd $(installed s3cmd)"

pip=(python3 -m pip install -q)
if ! command -v aws >/dev/null 2>&1; then
  "${pip[@]}" "awscli==$AWSCLI_VERSION"
fi
if ! python3 -c 'import boto3' >/dev/null 2>&1; then
  "${pip[@]}" "boto3==$BOTO3_VERSION"
fi
echo "$(aws --version 2>&1), boto3 $(python3 -c 'import boto3; print(boto3.__version__)')"
