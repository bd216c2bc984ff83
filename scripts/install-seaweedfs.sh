#!/usr/bin/env bash
# Installs the pinned SeaweedFS (`weed`, whose `weed server -s3` the store
# tests start on 127.0.0.1). SeaweedFS's go.mod carries a replace
# directive, which `go install module@version` refuses, so the build runs
# in a throw-away module that requires that exact version and repeats the
# replace. Skips the build (several minutes on 2 cores) when that version
# is already installed.
set -euo pipefail
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6
# Repeated from SeaweedFS's go.mod at that version (github.com/tyler-smith/go-bip39
# is no longer served; SeaweedFS builds against this fork).
REPLACE="github.com/tyler-smith/go-bip39=github.com/cosmos/go-bip39@v1.0.0"
bin="$(go env GOPATH)/bin/weed"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "github.com/seaweedfs/seaweedfs[[:space:]]*${SEAWEEDFS_VERSION}"; then
  echo "seaweedfs ${SEAWEEDFS_VERSION} already installed at $bin"
  exit 0
fi
echo "installing seaweedfs ${SEAWEEDFS_VERSION} (several minutes on 2 cores)..."
work=$(mktemp -d "${TMPDIR:-/tmp}/objbench-install-seaweedfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export GOFLAGS=
go mod init objbench.invalid/install-seaweedfs >/dev/null 2>&1
go mod edit -replace "$REPLACE"
go get "github.com/seaweedfs/seaweedfs/weed@${SEAWEEDFS_VERSION}" # the package: its imports get go.sum lines
go build -trimpath -o "$bin" github.com/seaweedfs/seaweedfs/weed
echo "installed $bin"
