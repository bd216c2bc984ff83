#!/usr/bin/env bash
# The whole test suite, as on a fresh machine: install what the tests need
# (pinned), then run every test, integration tests against a real MinIO and
# the embedded server included.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints its name, then its time, and the run ends with every
# phase's time, so a slow step (an install, the race run) shows.
start=$SECONDS
names=() times=()
phase() { # phase NAME COMMAND...
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "test.sh: $name ..."
  "$@" || rc=$?
  names+=("$name") times+=("$((SECONDS - t0))")
  if [ "$rc" != 0 ]; then
    echo "test.sh: $name FAILED (exit $rc) after $((SECONDS - t0)) s; $((SECONDS - start)) s in all" >&2
    exit "$rc"
  fi
  echo "test.sh: $name: $((SECONDS - t0)) s ($((SECONDS - start)) s in all)"
}
phase "install minio" ./scripts/install-minio.sh
phase "install versitygw" ./scripts/install-versitygw.sh # the stores people run besides MinIO, for the store suite (TestConformance, e2e TestStores):
phase "install seaweedfs" ./scripts/install-seaweedfs.sh # each starts here in under a minute (Ceph's one-node cluster: ~15-30 s)
phase "install ceph" ./scripts/install-ceph.sh
phase "install chromium" ./scripts/install-chromium.sh
phase "install tools" ./scripts/install-tools.sh # rclone, s3cmd, aws CLI, boto3, s5cmd, the JS SDK for `objbench tools`
phase "install mpi" ./scripts/install-mpi.sh # Open MPI's mpirun, which launches the distributed tests' workers
phase "install lint" ./scripts/install-lint.sh # staticcheck, pinned
phase "install podman" ./scripts/install-podman.sh # podman and runc, which build and run the container image as the Kubernetes Job would
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
phase "gofmt" sh -c 'out=$(gofmt -l .); [ -z "$out" ] || { echo "not gofmt-formatted (gofmt -w them):"; echo "$out"; exit 1; }'
phase "go vet" go vet ./...
# objbench also builds for macOS and Windows, to read, merge and report results there: vetted, not run.
phase "go vet, GOOS=darwin" env GOOS=darwin GOARCH=arm64 go vet ./...
phase "go vet, GOOS=windows" env GOOS=windows GOARCH=amd64 go vet ./...
phase "staticcheck" staticcheck ./...
phase "go test -race ./..." go test -race -timeout 20m ./...
# The fidelity tests assert their timing bounds only without the race detector.
phase "go test ./faultserver" go test -count=1 -timeout 5m ./faultserver
# A short pass over every fuzz target: 5,000 inputs each (22 targets: 75 s with
# a warm build cache on 2 cores at load average 5-9). A count, not a time: a
# timed pass sometimes ends in Go's "context deadline exceeded" on a loaded
# machine with no failing input.
# scripts/fuzz.sh alone runs each for 60 s.
phase "fuzz pass" ./scripts/fuzz.sh 5000x
# The request phase checks (to a millisecond), likewise without the race detector.
phase "go test -run TestPhases ./storage/s3" go test -count=1 -timeout 5m -run 'TestPhases' ./storage/s3
echo "test.sh: every phase passed in $((SECONDS - start)) s:"
for i in "${!names[@]}"; do
  printf 'test.sh:   %5d s  %s\n' "${times[$i]}" "${names[$i]}"
done
