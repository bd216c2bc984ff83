#!/usr/bin/env bash
# Reruns bench/README.md's table of objbench's own cost, side by side in one
# sitting (this machine is shared and noisy: read the ratios):
#   1. client CPU per 4 KiB GET and PUT at 8 and 64 workers against MinIO,
#      objbench end to end against bench/floor's hand-written loop (ownloop);
#   2. client CPU per GiB of 64 MiB PUTs against 64 MiB GETs;
#   3. peak RSS at 1,000 and 10,000 workers in flight against a store that
#      holds every request 100 ms (objbench server --null --delay 100ms), and
#      the rate, p50 and CPU per op (client and server) of each;
#   4. peak RSS of OPS (default 10,000,000) 4 KiB GETs at 8 workers against
#      the null store, and the result file's size.
# Usage: bench/efficiency.sh [OPS] [SECONDS-PER-STEP]
# OBJBENCH_BIN=path measures another objbench build as the client (the
# servers are always this tree's); OBJBENCH_COMPARE=path measures that build
# too, alternately with this one, in sections 1, 2 and 3 (before/after, side
# by side in one sitting; in section 3 each build serves itself, since the
# null server shares the cores). OBJBENCH_SECTIONS="3" (say) runs only those
# sections ("12" works too); MinIO is started only for sections 1 and 2;
# OBJBENCH_ROUNDS=N repeats sections 1 and 2 N times; in section 1 the
# hand-written loop (OBJBENCH_FLOOR_OPS requests, default 20,000) and each
# build alternate OBJBENCH_PAIRS times a cell (default 3) and the ratio is
# of the medians. Section 3 also
# prints the client's CPU per GET and the server's per request: the two
# share the machine's cores, so either one's cost lowers the rate.
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-10000000}
secs=${2:-10}
go build -o bin/objbench ./cmd/objbench
ob=${OBJBENCH_BIN:-./bin/objbench} # the client measured: OBJBENCH_BIN=another build, to compare
go build -o bin/floor ./bench/floor
sections=${OBJBENCH_SECTIONS:-1 2 3 4}
rounds=${OBJBENCH_ROUNDS:-1}
pairs=${OBJBENCH_PAIRS:-3}        # section 1: the loop and objbench alternate this many times a cell
floor_ops=${OBJBENCH_FLOOR_OPS:-20000}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
want() { [[ $sections == *$1* ]]; }
minio_pid=
if want 1 || want 2; then
  . bench/minio-lib.sh
  ep="http://127.0.0.1:$MINIO_PORT"
else # sections 3 and 4 sign with any keys: the null store checks none
  export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
fi

w=$(mktemp -d)
. bench/cpu-lib.sh # cpu_per
for round in $(seq 1 "$rounds"); do
  [ "$rounds" -gt 1 ] && echo "-- round $round, load $(cut -d" " -f1 /proc/loadavg)"
  if want 1; then
    echo "== 1. client CPU per 4 KiB op against MinIO (${secs}s steps, $pairs alternations a cell)"
    for c in 8 64; do
      for op in get put; do
        # The loop and each build alternate, $pairs times: the ratio is
        # of the medians, each run's figure printed (the loop's own moves
        # with the machine's load as much as anything measured here).
        declare -A fig=()
        for p in $(seq 1 "$pairs"); do
          f=$(FLOOR_MODES=ownloop FLOOR_OPS=$floor_ops ./bin/floor "$ep" "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" "$c" "$op" | awk '{print $(NF-3)}')
          fig[loop]+="$f "
          for b in $ob ${OBJBENCH_COMPARE:-}; do
            $b "$op" --endpoint-url "$ep" --bucket bench --create-bucket --size 4KiB -c "$c" --duration "${secs}s" -q -o "$w/$op-$c.json" >/dev/null
            fig[$b]+="$(cpu_per "$w/$op-$c.json" "${op^^}" 0 | cut -d' ' -f1) "
          done
        done
        echo "ownloop ${op^^} conc $c: ${fig[loop]}µs/op, median $(median ${fig[loop]})"
        for b in $ob ${OBJBENCH_COMPARE:-}; do
          echo "objbench ${op^^} conc $c: ${fig[$b]}µs/op end to end, median $(median ${fig[$b]}): $(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}x')" "$(median ${fig[$b]})" "$(median ${fig[loop]})") the loop's ($b)"
        done
        unset fig
      done
    done
  fi
  if want 2; then
    echo "== 2. client CPU per GiB of 64 MiB objects, 4 workers"
    for b in $ob ${OBJBENCH_COMPARE:-}; do
      $b put --endpoint-url "$ep" --bucket bench --create-bucket --size 64MiB -c 4 --duration "${secs}s" -q -o "$w/put64.json" >/dev/null
      $b get --endpoint-url "$ep" --bucket bench --size 64MiB -c 4 --objects 16 --duration "${secs}s" -q -o "$w/get64.json" >/dev/null
      echo "objbench PUT 64 MiB: $(cpu_per "$w/put64.json" PUT 1) ($b)"
      echo "objbench GET 64 MiB: $(cpu_per "$w/get64.json" GET 1) ($b)"
    done
  fi
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
srv=
trap 'kill $srv 2>/dev/null || true; [ -n "$minio_pid" ] && kill $minio_pid 2>/dev/null; wait 2>/dev/null || true; rm -rf "${minio_work:-}" "$w"' EXIT
if want 3; then
echo "== 3. workers in flight against a store holding every request 100 ms"
for b in $ob ${OBJBENCH_COMPARE:-}; do # each build against its own null server: both are what it ships
  $b server --no-auth --null --delay 100ms --listen "127.0.0.1:$port" --bucket bench >/dev/null &
  srv=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  for c in 1000 10000; do
    s0=$(awk '{print $14+$15}' /proc/$srv/stat)
    /usr/bin/time -f "%M" -o "$w/rss-$c" $b get --endpoint-url "http://127.0.0.1:$port" --bucket bench --size 4KiB -c "$c" \
      --objects 1000 --duration 60s -q -o "$w/w$c.json" > "$w/w$c.txt"
    s1=$(awk '{print $14+$15}' /proc/$srv/stat)
    echo "conc $c: peak RSS $(( $(cat "$w/rss-$c") / 1024 )) MiB; $(awk '/^main +GET/ {print $4 " ops/s, p50 " $8 " ms"; exit}' "$w/w$c.txt"); client $(cpu_per "$w/w$c.json" GET 0), server $(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f'{(int(sys.argv[2])-int(sys.argv[3]))/int(sys.argv[4])/sum(s.get(\"requests\",0) for s in r[\"steps\"])*1e6:.1f} µs/request')" "$w/w$c.json" "$s1" "$s0" "$(getconf CLK_TCK)"); load $(cut -d' ' -f1 /proc/loadavg) ($b)"
  done
  echo "growth per worker from 1,000 to 10,000: $(( ( $(cat "$w/rss-10000") - $(cat "$w/rss-1000") ) / 9 )) B ($b)"
  kill $srv; wait $srv 2>/dev/null || true
done
fi
if want 4; then
echo "== 4. $ops 4 KiB GETs at 8 workers against the null store"
./bin/objbench server --no-auth --null --listen "127.0.0.1:$port" --bucket bench >/dev/null &
srv=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
/usr/bin/time -f "%M %e" -o "$w/rss-ops" $ob get --endpoint-url "http://127.0.0.1:$port" --bucket bench --size 4KiB -c 8 \
  --ops "$ops" -q -o "$w/ops.json" >/dev/null
read -r rss wall < "$w/rss-ops"
echo "peak RSS $(( rss / 1024 )) MiB over $wall s; result file $(( $(stat -c %s "$w/ops.json") / 1024 )) KiB"
fi
