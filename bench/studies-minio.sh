#!/usr/bin/env bash
# Reproduces the numbers of the README's "Studies" section against a local
# MinIO on 127.0.0.1 (the transfer-tool shoot-out has bench/tools-minio.sh):
#   1. a 1 GiB object and 2,500 x 1 MiB objects uploaded, the machine watched;
#   2. examples/storage-systems.yaml on a disk directory, tmpfs and MinIO;
#   3. s3-mailbench on a git corpus: this repository's own blobs.
# Usage: bench/studies-minio.sh [scale-of-storage-systems]   (default 0.01)
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-0.01}
go build -o bin/objbench ./cmd/objbench
. bench/minio-lib.sh
ep="http://127.0.0.1:$MINIO_PORT"
ob=./bin/objbench

echo "== 1. big and small files, watching the machine"
$ob transfer gen:1GiB s3://bench/big --endpoint-url "$ep" --create-bucket --timeline -q
$ob transfer gen:2500x1MiB s3://bench/small/ --endpoint-url "$ep" --timeline -q

echo "== 2. storage systems: $scale of examples/storage-systems.yaml"
disk=$(mktemp -d "${TMPDIR:-/tmp}/objbench-disk.XXXXXX")
shm=$(mktemp -d /dev/shm/objbench-shm.XXXXXX)
trap 'rm -rf "$disk" "$shm"; kill $minio_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$minio_work"' EXIT
$ob run examples/storage-systems.yaml --scale "$scale" --target "file://$disk" --target "file://$shm" \
  --target s3://bench --endpoint-url "$ep" -q --out "$minio_work/ss.json" | sed -n '/^Targets compared/,$p'

echo "== 3. s3-mailbench on this repository's git blobs"
$ob transfer --from-git . s3://bench/mail/ --endpoint-url "$ep" -q
$ob get --no-prepare --prefix mail/ --endpoint-url "$ep" --bucket bench -c 1,4,16 --duration 5s -q --out "$minio_work/mg.json" | sed -n '1,/^$/p'
$ob delete --from-git . --endpoint-url "$ep" --bucket bench -c 1,4,16 -q --out "$minio_work/md.json" | sed -n '1,/^$/p'
