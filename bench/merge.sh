#!/usr/bin/env bash
# Time and peak memory of `objbench merge` over the result files of a
# distributed run: WORKERS files of SECONDS per-second records each (a GET
# step, every second holding a latency and a time-to-first-byte histogram
# of 1,000 ops, drawn afresh each second; bench/mergegen writes them).
# Issue 11's goal is 100 workers of an hour: ≤ 2 s and ≤ 1 GiB.
# Usage: bench/merge.sh [WORKERS] [SECONDS]
# OBJBENCH_COMPARE=path merges the same records with another build too:
# mergegen also writes them as result version 4 files (what builds before
# version 5 read), which this build merges as well.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-100}
secs=${2:-3600}
go build -o bin/objbench ./cmd/objbench
go build -o bin/mergegen ./bench/mergegen
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
./bin/mergegen "$w/cur" "$workers" "$secs"
echo "$workers worker files of $secs s (version $(grep -o '"schema": [0-9]*' "$w/cur/worker-0.json" | head -1 | grep -o '[0-9]*$')): $(du -sh "$w/cur" | cut -f1), worker-0.json $(( $(stat -c %s "$w/cur/worker-0.json") / 1024 )) KiB"
runs=("./bin/objbench $w/cur")
if [ -n "${OBJBENCH_COMPARE:-}" ]; then
  ./bin/mergegen -schema 4 "$w/v4" "$workers" "$secs"
  echo "the same as version 4 files: $(du -sh "$w/v4" | cut -f1), worker-0.json $(( $(stat -c %s "$w/v4/worker-0.json") / 1024 )) KiB"
  runs+=("./bin/objbench $w/v4" "$OBJBENCH_COMPARE $w/v4")
fi
for run in "${runs[@]}"; do
  read -r b dir <<< "$run"
  /usr/bin/time -f "%e %M %U %S" -o "$w/time" "$b" merge "$dir" -o "$w/merged.json" >/dev/null 2>"$w/err" || { cat "$w/err"; exit 1; }
  read -r wall rss user sys < "$w/time"
  echo "$b on $(basename "$dir") files: ${wall} s wall, ${user} s user + ${sys} s sys CPU, peak RSS $(( rss / 1024 )) MiB; merged file $(( $(stat -c %s "$w/merged.json") / 1024 )) KiB"
done
