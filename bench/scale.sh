#!/usr/bin/env bash
# How well does a run split over worker processes add up? 1, 2, 4 and 8
# objbench processes (--worker R/N, each a GET run of CONC workers on 4 KiB
# objects) against one `objbench server --delay 20ms` (every request held
# 20 ms: the store is slow by a known amount and not CPU-bound, so the ideal
# is N times one process), merged with `objbench merge`; prints the merged
# ops/s against N x one process, and against the store's ceiling (each
# worker's requests held 20 ms: 50 a second a worker).
# Usage: bench/scale.sh [CONC-PER-PROCESS] [SECONDS]
# OBJBENCH_ROUNDS=R (default 2) runs the ladder R times, alternately upwards
# and downwards, so that a change of the machine's load shows.
set -euo pipefail
cd "$(dirname "$0")/.."
conc=${1:-16}
secs=${2:-10}
rounds=${OBJBENCH_ROUNDS:-2}
# OBJBENCH_BIN=PATH uses that binary (a machine without Go: a static build
# carried there); OBJBENCH_LADDER="1 2 4 8 16" sets the process counts.
ob=${OBJBENCH_BIN:-}
if [ -z "$ob" ]; then
  go build -o bin/objbench ./cmd/objbench
  ob=./bin/objbench
fi
w=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$w"
}
trap cleanup EXIT
export AWS_ACCESS_KEY_ID=scale AWS_SECRET_ACCESS_KEY=scale-secret AWS_REGION=us-east-1
$ob server --listen 127.0.0.1:0 --bucket bench --delay 20ms --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" >"$w/server.log" 2>&1 &
server_pid=$!
ep=
for _ in $(seq 100); do # the server prints its endpoint once it listens: at most 10 s
  ep=$(sed -n 's/^ *endpoint: *//p' "$w/server.log" | head -1)
  [ -n "$ep" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$w/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$ep" ] || { echo "objbench server printed no endpoint" >&2; cat "$w/server.log"; exit 1; }

# run N: N workers of one run, each with CONC workers (-c is the run's
# total, split between the processes), merged; prints "CONC OPS/S" of the
# merged main GET line.
run() {
  local n=$1 id pids=() r
  id="scale-$n-$RANDOM"
  for ((r = 0; r < n; r++)); do
    $ob get --endpoint-url "$ep" --bucket bench --size 4KiB --objects $((64 * n)) -c $((conc * n)) --duration "${secs}s" \
      --worker "$r/$n" --run-id "$id" --out "$w/res/" -q >"$w/$id-$r.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { cat "$w/$id"-*.out >&2; exit 1; }; done
  if [ "$n" = 1 ]; then # one process: a run of its own (its table, as a one-worker merge computes it)
    cp "$w/$id-0.out" "$w/$id.merged"
  else
    $ob merge "$w/res/$id/" -o "$w/$id.json" -q >"$w/$id.merged"
  fi
  awk '$1 == "main" && $2 == "GET" {print $3, $4}' "$w/$id.merged"
}

echo "objbench server --delay 20ms at $ep; $conc workers a process, ${secs}s of 4 KiB GETs; load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r -a ladder <<<"${OBJBENCH_LADDER:-1 2 4 8}"
for round in $(seq "$rounds"); do
  order=("${ladder[@]}")
  if [ $((round % 2)) = 0 ]; then # downwards
    order=()
    for ((i = ${#ladder[@]} - 1; i >= 0; i--)); do order+=("${ladder[i]}"); done
  fi
  declare -A rate=()
  for n in "${order[@]}"; do
    read -r c ops <<<"$(run "$n")"
    if [ "$c" != $((conc * n)) ]; then
      echo "$n processes ran $c workers in all, not $((conc * n)): has -c become per process? fix run() above" >&2
      exit 1
    fi
    rate[$n]=$ops
  done
  echo "round $round (order ${order[*]})"
  printf '%-10s %-8s %-8s %-8s %-6s %-8s %s\n' PROCESSES WORKERS "OPS/S" "N x ONE" RATIO CEILING "OF CEILING"
  for n in "${ladder[@]}"; do
    ideal=$(awk -v a="${rate[1]}" -v n="$n" 'BEGIN {printf "%.0f", a * n}')
    ceiling=$((conc * n * 50)) # every worker with one request held 20 ms at a time: 50 a second each
    printf '%-10s %-8s %-8s %-8s %-6s %-8s %s\n' "$n" $((conc * n)) "${rate[$n]}" "$ideal" \
      "$(awk -v a="${rate[$n]}" -v b="$ideal" 'BEGIN {printf "%.2f", a / b}')" "$ceiling" \
      "$(awk -v a="${rate[$n]}" -v b="$ceiling" 'BEGIN {printf "%.2f", a / b}')"
  done
  unset rate
done
