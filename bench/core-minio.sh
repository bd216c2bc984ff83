#!/usr/bin/env bash
# Reproduces the core numbers against a local MinIO on 127.0.0.1:
# 4 KiB GET ops/s and 64 MiB PUT/GET MiB/s at concurrency 1 and 8, and
# objbench's own CPU seconds per 1,000 ops (from its result files).
# Usage: bench/core-minio.sh [seconds-per-step [dir-to-keep-result-files]]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
keep=${2:-}
go build -o bin/objbench ./cmd/objbench
. bench/minio-lib.sh
work=$minio_work
port=$MINIO_PORT
flags=(--endpoint-url "http://127.0.0.1:$port" --bucket bench --create-bucket --concurrency 1,8 --duration "${secs}s" -q)
run() { # name, args...
  local name=$1; shift
  echo "== objbench $* ${flags[*]}"
  ./bin/objbench "$@" "${flags[@]}" --out "$work/$name.json"
  python3 - "$work/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["steps"]:
    if s["kind"] != "main": continue
    ops = sum(t["ops"] for st in s["streams"] for t in st["totals"])
    cpu = (s["cpu_user_ns"] + s["cpu_sys_ns"]) / 1e9
    conc = s["streams"][0]["concurrency"]
    print(f"   conc {conc}: objbench CPU {cpu:.2f} s for {ops} ops = {cpu/ops*1000:.3f} s per 1,000 ops ({cpu/ops*1e6:.1f} us/op)")
PY
}
run get4k get --size 4KiB
run put64m put --size 64MiB
run get64m get --size 64MiB --objects 16
if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work"/*.json "$keep"/; fi
