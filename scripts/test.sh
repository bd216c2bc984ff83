#!/usr/bin/env bash
# The whole test suite, as on a fresh machine: install what the tests need
# (pinned), then run every test, integration tests against a real MinIO and
# the embedded server included.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-minio.sh
export OBJBENCH_REQUIRE_MINIO=1 # a missing MinIO fails the tests instead of skipping them
export PATH="$(go env GOPATH)/bin:$PATH"
go vet ./...
go test -race -timeout 20m ./...
