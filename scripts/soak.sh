#!/usr/bin/env bash
# Soak test (opt-in, not part of scripts/test.sh): a long mixed run against
# MinIO with the live view on (--listen), watching objbench's own health.
# Every INTERVAL it samples the objbench process's resident memory
# (/proc/PID/status VmRSS), open files (/proc/PID/fd) and goroutines
# (go_goroutines on the live view's /metrics). After the warm-up each must
# stay flat: the median of the last fifth of the samples within 10% of the
# median of the first fifth (RSS and open files; goroutines likewise, and
# never more than the first fifth's maximum + 10%). Exit 0 when all three
# hold, 1 otherwise.
#
#   scripts/soak.sh [DURATION] [WARMUP]        default 30m and 2m
#   SOAK_INTERVAL=10 SOAK_CONCURRENCY=16 SOAK_OUT=dir scripts/soak.sh 5m 1m
#
# The samples go to SOAK_OUT/samples.csv (default: a temporary directory,
# printed), beside the run's result file.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-30m}
warmup=${2:-2m}
interval=${SOAK_INTERVAL:-10}
conc=${SOAK_CONCURRENCY:-16}
out=${SOAK_OUT:-$(mktemp -d)}
mkdir -p "$out"
secs() { python3 -c 'import re,sys; v=sys.argv[1]; m=re.fullmatch(r"(\d+)(s|m|h)?",v); print(int(m[1])*{"s":1,"m":60,"h":3600,None:1}[m[2]])' "$1"; }
dur_s=$(secs "$duration")
warm_s=$(secs "$warmup")
if [ "$warm_s" -ge "$dur_s" ]; then
  echo "soak: the warm-up ($warmup) must be shorter than the run ($duration)" >&2
  exit 2
fi

go build -o bin/objbench ./cmd/objbench
. bench/minio-lib.sh # MinIO on 127.0.0.1:$MINIO_PORT, AWS_* set, stopped on exit
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "soak: $duration of mixed ops, $conc workers, against MinIO on 127.0.0.1:$MINIO_PORT; live view on 127.0.0.1:$port; samples every ${interval}s in $out"

./bin/objbench mixed --endpoint-url "http://127.0.0.1:$MINIO_PORT" --bucket soak --create-bucket \
  --mix get=50,put=25,stat=10,delete=10,list=5 --size 16KiB --objects 500 -c "$conc" --duration "$duration" \
  --listen "127.0.0.1:$port" -q -o "$out/result.json" >"$out/table.txt" 2>"$out/stderr.txt" &
ob=$!
trap 'kill $ob 2>/dev/null || true; kill $minio_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$minio_work"' EXIT

echo "t_s,rss_kib,open_files,goroutines" >"$out/samples.csv"
start=$SECONDS
while kill -0 "$ob" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$ob/status" 2>/dev/null || true)
  fds=$(ls "/proc/$ob/fd" 2>/dev/null | wc -l || true)
  gor=$(curl -s --max-time 5 "http://127.0.0.1:$port/metrics" | awk '$1 == "go_goroutines" {print $2}' || true)
  if [ -n "$rss" ] && [ -n "$gor" ]; then
    echo "$((SECONDS - start)),$rss,$fds,$gor" >>"$out/samples.csv"
  fi
  sleep "$interval" # the sampling period, not synchronisation
done
if ! wait "$ob"; then
  echo "soak: objbench failed:" >&2
  cat "$out/stderr.txt" >&2
  exit 1
fi
cat "$out/table.txt"

python3 - "$out/samples.csv" "$warm_s" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["t_s"]) >= int(sys.argv[2])]
if len(rows) < 10:
    print(f"soak: only {len(rows)} samples after the warm-up: run longer or sample more often (SOAK_INTERVAL)")
    sys.exit(1)
fifth = max(len(rows) // 5, 2)
ok = True
print(f"soak: {len(rows)} samples after the warm-up; first fifth vs last fifth (medians), and the whole range")
for col, unit in (("rss_kib", "KiB"), ("open_files", ""), ("goroutines", "")):
    v = [float(r[col]) for r in rows]
    first, last = statistics.median(v[:fifth]), statistics.median(v[-fifth:])
    growth = (last - first) / first if first else 0.0
    flat = abs(growth) <= 0.10 and (col != "goroutines" or max(v) <= 1.10 * max(v[:fifth]))
    ok = ok and flat
    print(f"  {col:<11} {first:>10.0f} -> {last:>10.0f} {unit:<3} ({growth:+.1%}; min {min(v):.0f}, max {max(v):.0f})  {'flat' if flat else 'GROWS'}")
print("soak: PASS" if ok else "soak: FAIL (more than 10% growth after the warm-up)")
sys.exit(0 if ok else 1)
PY
