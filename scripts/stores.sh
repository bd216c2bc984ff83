#!/usr/bin/env bash
# The store report of docs/stores.md, from a fresh machine: installs the
# pinned MinIO, versitygw, SeaweedFS and Ceph, then for each store runs the
# Store conformance suite (storage/s3 TestConformance) and the end-to-end
# pass (e2e TestStores, TestEveryOpAgainstMinIO), and prints their pass
# counts; and probes the five stores (MinIO, the embedded server,
# versitygw, SeaweedFS, Ceph RGW), keeping each table and JSON under
# ${OBJBENCH_PROBE_DIR:-store-probes/}. scripts/test.sh runs the same tests;
# this script counts them per store. About 5 minutes once installed.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-minio.sh
./scripts/install-versitygw.sh
./scripts/install-seaweedfs.sh
./scripts/install-ceph.sh
export OBJBENCH_REQUIRE_MINIO=1 OBJBENCH_REQUIRE_VERSITYGW=1 OBJBENCH_REQUIRE_SEAWEEDFS=1 OBJBENCH_REQUIRE_CEPH=1
export OBJBENCH_PROBE_DIR="${OBJBENCH_PROBE_DIR:-$PWD/store-probes}"
mkdir -p "$OBJBENCH_PROBE_DIR"
log=$(mktemp "${TMPDIR:-/tmp}/objbench-stores.XXXXXX")
trap 'rm -f "$log"' EXIT

# count PATTERN: passed, failed and skipped tests (leaves included) in $log.
count() {
  local p f s
  p=$(grep -cE -- "--- PASS: $1" "$log" || true)
  f=$(grep -cE -- "--- FAIL: $1" "$log" || true)
  s=$(grep -cE -- "--- SKIP: $1" "$log" || true)
  echo "$p passed, $f failed, $s skipped"
}

status=0
for store in minio versitygw seaweedfs ceph-rgw; do
  e2e="TestStores/$store"
  [ "$store" = minio ] && e2e="TestEveryOpAgainstMinIO|TestTransferRoundTrip/minio|TestProbeMinIOAndEmbedded/minio"
  go test -count=1 -v -run "TestConformance/$store" ./storage/s3 >"$log" 2>&1 || status=1
  echo "$store conformance (storage/s3 TestConformance/$store): $(count "TestConformance/$store")"
  go test -count=1 -v -run "$e2e" ./e2e >"$log" 2>&1 || status=1
  echo "$store end-to-end (e2e $e2e): $(count "(TestStores/$store|TestEveryOpAgainstMinIO|TestTransferRoundTrip/minio|TestProbeMinIOAndEmbedded/minio)")"
done
go test -count=1 -v -run "TestProbeMinIOAndEmbedded/embedded" ./e2e >"$log" 2>&1 || status=1
echo "embedded probe: $(count "TestProbeMinIOAndEmbedded/embedded")"
echo "probe tables: $OBJBENCH_PROBE_DIR/{minio,embedded,versitygw,seaweedfs,ceph-rgw}.txt (and .json)"
exit $status
