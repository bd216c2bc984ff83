#!/usr/bin/env bash
# Time and peak memory of `objbench merge` over the result files of a
# distributed run: WORKERS files of SECONDS per-second records each (a GET
# step, every second holding a latency and a time-to-first-byte histogram
# of 1,000 ops; bench/mergegen writes them). Issue 11's goal is 100
# workers of an hour: ≤ 2 s and ≤ 1 GiB.
# Usage: bench/merge.sh [WORKERS] [SECONDS]
# OBJBENCH_COMPARE=path merges the same files with another build too.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-100}
secs=${2:-3600}
go build -o bin/objbench ./cmd/objbench
go build -o bin/mergegen ./bench/mergegen
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir "$w/in"
./bin/mergegen "$w/in" "$workers" "$secs"
echo "$workers worker files of $secs s: $(du -sh "$w/in" | cut -f1)"
for b in ./bin/objbench ${OBJBENCH_COMPARE:-}; do
  /usr/bin/time -f "%e %M %U %S" -o "$w/time" "$b" merge "$w/in" -o "$w/merged.json" >/dev/null
  read -r wall rss user sys < "$w/time"
  echo "$b: ${wall} s wall, ${user} s user + ${sys} s sys CPU, peak RSS $(( rss / 1024 )) MiB; merged file $(( $(stat -c %s "$w/merged.json") / 1024 )) KiB"
done
