#!/usr/bin/env bash
# The transfer-tool shoot-out against a local MinIO on 127.0.0.1: every
# installed tool (scripts/install-tools.sh) uploads the same datasets at
# each thread count; prints the table and keeps CSV and JSON.
# Usage: bench/tools-minio.sh [files [threads [repeat [out-dir [scaling [tools]]]]]]
#   (default: 1x1GiB,32x32MiB  1,2,4  1  objbench-results/tools-minio  fixed  every built-in tool)
# scaling weak gives each thread its own copy of a file set (the seed's
# 32 -> 64 -> 128 files at 1, 2, 4 threads).
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-1x1GiB,32x32MiB}
threads=${2:-1,2,4}
repeat=${3:-1}
out=${4:-objbench-results/tools-minio}
scaling=${5:-fixed}
tools=${6:-}
mkdir -p "$out"
go build -o bin/objbench ./cmd/objbench
. bench/minio-lib.sh
cmd=(./bin/objbench tools --files "$files" --threads "$threads" --repeat "$repeat" --scaling "$scaling"
  ${tools:+--tools "$tools"} --endpoint-url "http://127.0.0.1:$MINIO_PORT" --bucket tools --create-bucket
  --csv "$out/tools.csv" --json "$out/tools.json")
echo "== ${cmd[*]}"
"${cmd[@]}"
