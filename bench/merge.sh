#!/usr/bin/env bash
# Time and peak memory of `objbench merge` over the result files of a
# distributed run: WORKERS files of SECONDS per-second records each (a GET
# step, every second holding a latency and a time-to-first-byte histogram
# of 1,000 ops, drawn afresh each second; bench/mergegen writes them).
# Issue 11's goal is 100 workers of an hour: ≤ 2 s and ≤ 1 GiB.
# Usage: bench/merge.sh [WORKERS] [SECONDS]
# OBJBENCH_RUNS (default 3): each merge runs that many times, the builds
# alternated, and the median wall time is printed with every run's.
# OBJBENCH_COMPARE=BINARY merges the same records with another build too:
# on the files OBJBENCH_COMPARE_GEN (that build's own mergegen) writes, or
# else on version 4 files (what builds before version 5 read), which this
# build then merges as well.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-100}
secs=${2:-3600}
runs=${OBJBENCH_RUNS:-3}
go build -o bin/objbench ./cmd/objbench
go build -o bin/mergegen ./bench/mergegen
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
version() { grep -o '"schema": [0-9]*' "$1/worker-0.json" | head -1 | grep -o '[0-9]*$'; }
./bin/mergegen "$w/cur" "$workers" "$secs"
echo "$workers worker files of $secs s (version $(version "$w/cur")): $(du -sh "$w/cur" | cut -f1), worker-0.json $(( $(stat -c %s "$w/cur/worker-0.json") / 1024 )) KiB"
cases=("./bin/objbench $w/cur")
if [ -n "${OBJBENCH_COMPARE:-}" ]; then
  if [ -n "${OBJBENCH_COMPARE_GEN:-}" ]; then
    "$OBJBENCH_COMPARE_GEN" "$w/old" "$workers" "$secs"
  else
    ./bin/mergegen -schema 4 "$w/old" "$workers" "$secs"
    cases+=("./bin/objbench $w/old")
  fi
  echo "the same records for $OBJBENCH_COMPARE (version $(version "$w/old")): $(du -sh "$w/old" | cut -f1), worker-0.json $(( $(stat -c %s "$w/old/worker-0.json") / 1024 )) KiB"
  cases+=("$OBJBENCH_COMPARE $w/old")
fi
for r in $(seq "$runs"); do
  for k in "${!cases[@]}"; do
    read -r b dir <<< "${cases[$k]}"
    /usr/bin/time -f "%e %M %U %S" -o "$w/time" "$b" merge "$dir" -o "$w/merged-$k.json" >/dev/null 2>"$w/err" || { cat "$w/err"; exit 1; }
    cat "$w/time" >> "$w/times-$k"
  done
done
for k in "${!cases[@]}"; do
  read -r b dir <<< "${cases[$k]}"
  sort -n "$w/times-$k" | awk -v b="$b" -v d="$(basename "$dir")" -v kib=$(( $(stat -c %s "$w/merged-$k.json") / 1024 )) '
    { wall[NR] = $1; rss = $2 > rss ? $2 : rss; user += $3; sys += $4 }
    END {
      printf "%s on %s files: %s s wall (median of", b, d, wall[int((NR + 1) / 2)]
      for (i = 1; i <= NR; i++) printf " %s", wall[i]
      printf "), %.2f s user + %.2f s sys CPU on average, peak RSS %d MiB; merged file %d KiB\n", user / NR, sys / NR, rss / 1024, kib
    }'
done
