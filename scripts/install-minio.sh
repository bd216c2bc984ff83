#!/usr/bin/env bash
# Installs the pinned MinIO server the integration tests start on 127.0.0.1.
# Skips the ~5 minute build when that exact version is already installed.
set -euo pipefail
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
bin="$(go env GOPATH)/bin/minio"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "github.com/minio/minio[[:space:]]*${MINIO_VERSION}"; then
  echo "minio ${MINIO_VERSION} already installed at $bin"
  exit 0
fi
echo "installing minio ${MINIO_VERSION} (a few minutes on 2 cores)..."
GOFLAGS= go install "github.com/minio/minio@${MINIO_VERSION}"
echo "installed $bin"
