#!/usr/bin/env bash
# What --op-log costs: client CPU per 4 KiB GET at 8 workers against the
# null store (objbench server --null: the client's cost is all there is),
# without an op log, with a plain one and with a zstd one, alternated
# ROUNDS times in one sitting (this machine is shared and noisy: read the
# ratios).
# Usage: bench/oplog.sh [OPS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-300000}
rounds=${2:-3}
go build -o bin/objbench ./cmd/objbench
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1 # the null server checks no signature
. bench/cpu-lib.sh
w=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
./bin/objbench server --no-auth --null --listen "127.0.0.1:$port" --bucket bench >/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$w"' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
for r in $(seq 1 "$rounds"); do
  for log in none ops.jsonl ops.jsonl.zst; do
    flag=()
    [ "$log" != none ] && flag=(--op-log "$w/$log")
    ./bin/objbench get --endpoint-url "http://127.0.0.1:$port" --bucket bench --size 4KiB -c 8 --objects 1000 \
      --ops "$ops" -q -o "$w/r.json" "${flag[@]}" >/dev/null
    echo "round $r, op log $log: $(cpu_per "$w/r.json" GET 0)"
  done
done
