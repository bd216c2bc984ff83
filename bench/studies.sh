#!/usr/bin/env bash
# Reruns the five studies objbench replaces, at small scale, against a MinIO
# it starts on 127.0.0.1 (and a disk directory and tmpfs), and prints each
# study's own table (bench/studytables, package report/studies):
#   000 s5cmd's evaluation: 1/10/100 GiB objects (here 16/64/256 MiB) into one
#       prefix and 2,500 small files, each watched with dstat's columns;
#   001 the tool shoot-out across threads, weak scaling (each thread its own
#       32 files), every installed tool (scripts/install-tools.sh);
#   002 tiny (4 KB) against large (10 MB) writes on a disk, tmpfs and S3,
#       without and with fsync (examples/storage-systems.yaml, --scale);
#   003 s3-mailbench's worker sweep on a real mail-like corpus: this
#       repository's git blobs, uploaded, read, listed, deleted, cleaned;
#   004 COSBench on 4 drivers: 4 workers (--worker r/4) merged.
# Usage: bench/studies.sh [SCALE-OF-002]   (default 0.01)
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-0.01}
go build -o bin/objbench ./cmd/objbench
go build -o bin/studytables ./bench/studytables
. bench/minio-lib.sh
export PATH="$PWD/.venv-tools/bin:$PATH" # the tools scripts/install-tools.sh pinned, when installed
ep="http://127.0.0.1:$MINIO_PORT"
ob=./bin/objbench
tables=./bin/studytables
out="$minio_work/results"
mkdir -p "$out"
disk=$(mktemp -d "${TMPDIR:-/tmp}/objbench-disk.XXXXXX")
shm=$(mktemp -d /dev/shm/objbench-shm.XXXXXX)
trap 'rm -rf "$disk" "$shm"; kill $minio_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$minio_work"' EXIT
$ob put --endpoint-url "$ep" --bucket s5cmd --create-bucket --ops 1 -q -o "$out/probe.json" >/dev/null
$ob put --endpoint-url "$ep" --bucket bench --create-bucket --ops 1 -q -o "$out/probe.json" >/dev/null

echo "== seed 000: s5cmd's transfers, watched with dstat"
n=0
for src in gen:16MiB:file1g gen:64MiB:file10g gen:256MiB:file100g; do
  size=${src%:*}; name=${src##*:}; n=$((n + 1))
  $ob transfer "$size" "s3://s5cmd/file/$name" --endpoint-url "$ep" -q -o "$out/t$n.json" >/dev/null
done
$ob transfer gen:2500x16KiB s3://s5cmd/small/ --endpoint-url "$ep" -q -o "$out/t4.json" >/dev/null
$ob transfer s3://s5cmd/file/file100g null: --endpoint-url "$ep" -q -o "$out/t5.json" >/dev/null
$tables 000 "$out"/t{1,2,3,4,5}.json
echo

echo "== seed 001: transfer tools across threads, weak scaling"
$ob tools --files 32x1MiB --threads 1,2,4 --scaling weak --endpoint-url "$ep" --bucket bench -q \
  --csv "$out/tools.csv" | sed -n '/^| Client/,/^$/p'

echo "== seed 002: storage systems, $scale of examples/storage-systems.yaml, without and with fsync"
for mode in none at-end; do
  $ob run examples/storage-systems.yaml --scale "$scale" --target "file://$disk" --target "file://$shm" \
    --target s3://bench --endpoint-url "$ep" --fsync "$mode" -q -o "$out/ss-$mode.json" >/dev/null
done
$tables 002 "$out"/ss-none-{1,2,3}.json "$out"/ss-at-end-{1,2,3}.json
echo

echo "== seed 003: s3-mailbench on this repository's git blobs"
$ob transfer --from-git . --max-objects 2000 s3://bench/mail/ --endpoint-url "$ep" -q -o "$out/mail-up.json" | grep -E '^(verified|manifest)'
for op in get stat; do
  $ob "$op" --no-prepare --prefix mail/ --endpoint-url "$ep" --bucket bench -c 1,4,16 --duration 3s -q -o "$out/mail-$op.json" >/dev/null
done
$ob delete --from-git . --max-objects 2000 --endpoint-url "$ep" --bucket bench -c 1,4,16 -q -o "$out/mail-delete.json" >/dev/null
$tables 003 "$out"/mail-{get,stat,delete}.json
$ob clean s3://bench/mail/ --endpoint-url "$ep"
echo

echo "== seed 004: COSBench's 80/20 sample on 4 drivers (4 workers, merged)"
pids=()
for r in 0 1 2 3; do
  $ob run examples/cosbench-80-20.yaml --scale 0.1 --endpoint-url "$ep" --bucket bench --worker "$r/4" --run-id cos \
    -q -o "$out/cos/" >/dev/null 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
$ob merge "$out/cos/cos/" -o "$out/cos.json" >/dev/null 2>&1
$tables 004 "$out/cos.json"
