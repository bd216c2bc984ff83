#!/usr/bin/env bash
# Installs the pinned staticcheck that scripts/test.sh runs after go vet.
# Skips the build when that exact version is already installed.
set -euo pipefail
STATICCHECK_VERSION=v0.8.2
bin="$(go env GOPATH)/bin/staticcheck"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "honnef.co/go/tools[[:space:]]*${STATICCHECK_VERSION}"; then
  echo "staticcheck ${STATICCHECK_VERSION} already installed at $bin"
  exit 0
fi
echo "installing staticcheck ${STATICCHECK_VERSION}..."
GOFLAGS= go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
echo "installed $bin"
