#!/usr/bin/env bash
# Installs the pinned versitygw (Versity S3 Gateway), whose posix backend
# the store tests start on 127.0.0.1 over a temporary directory. Skips the
# build (a few minutes on 2 cores) when that version is already installed.
set -euo pipefail
VERSITYGW_VERSION=v1.8.0
bin="$(go env GOPATH)/bin/versitygw"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "github.com/versity/versitygw[[:space:]]*${VERSITYGW_VERSION}"; then
  echo "versitygw ${VERSITYGW_VERSION} already installed at $bin"
  exit 0
fi
echo "installing versitygw ${VERSITYGW_VERSION} (a few minutes on 2 cores)..."
GOFLAGS= go install "github.com/versity/versitygw/cmd/versitygw@${VERSITYGW_VERSION}"
echo "installed $bin"
