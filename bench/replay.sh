#!/usr/bin/env bash
# Does a replay of objbench's own op log reproduce the run? A closed-loop
# mixed run on the embedded server (no endpoint: client and server share
# this machine's cores, as in issue 27's report) writes its op log; the log
# is replayed on a fresh embedded server as replay paces it by default
# (closed loop on the log's workers), then with --loop open, ROUNDS times
# in one sitting. Each line: the run's main requests, their span and rate
# (from the op logs: first start to last start), the replay's rate as a
# share of the run's, its errors against the run's, the workers it ran,
# whether the replay issued the same ops on the same keys, and the
# requests' median latency in each (a busier machine during the replay
# shows there: a replay paced by the log cannot run ahead of it, so what
# the machine takes from it, it does not make up).
# Usage: bench/replay.sh [DURATION] [ROUNDS] [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-2s}
rounds=${2:-3}
workers=${3:-4}
go build -o bin/objbench ./cmd/objbench
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
compare() { # run-log replay-log replay-result
  python3 - "$@" <<'PY'
import json, sys
from collections import Counter
from datetime import datetime
def ts(s):
    s = s.rstrip("Z"); whole, _, frac = s.partition(".")
    return datetime.fromisoformat(whole).timestamp() + float("0." + (frac or "0"))
def main_ops(path):
    recs = [json.loads(l) for l in open(path)]
    return sorted((r for r in recs if r.get("step", "").startswith("main")), key=lambda r: r["time"])
def rate(recs):
    return (len(recs) - 1) / (ts(recs[-1]["time"]) - ts(recs[0]["time"]))
run, rep = main_ops(sys.argv[1]), main_ops(sys.argv[2])
res = json.load(open(sys.argv[3]))
ns = res["target"]["namespace"] + "replay/"
same = Counter((r["op"], r["key"]) for r in run) == Counter((r["op"], r["key"][len(ns):]) for r in rep)
errs = lambda recs: sum(1 for r in recs if "error" in r)
p50 = lambda recs: sorted(r["latency_us"] for r in recs)[len(recs) // 2] / 1000
peak = max((s.get("peak_workers") or s["concurrency"]) for st in res["steps"] if st["kind"] == "main" for s in st["streams"])
print(f"run {len(run)} requests at {rate(run):.0f}/s ({errs(run)} errors); replay {len(rep)} at {rate(rep):.0f}/s: "
      f"{100 * rate(rep) / rate(run):.1f}% of the run's rate, {errs(rep)} errors, {peak} workers at most, "
      f"same ops on the same keys: {'yes' if same else 'NO'}; p50 latency {p50(run):.3f} ms, replayed {p50(rep):.3f} ms")
PY
}
for r in $(seq 1 "$rounds"); do
  ./bin/objbench mixed -c "$workers" -d "$dur" --op-log "$w/run.jsonl" -q -o "$w/run.json" >/dev/null
  for loop in auto open; do
    ./bin/objbench replay "$w/run.jsonl" --loop "$loop" --op-log "$w/replay.jsonl" -q -o "$w/replay.json" >/dev/null
    echo "round $r, --loop $loop: $(compare "$w/run.jsonl" "$w/replay.jsonl" "$w/replay.json")"
    rm -f "$w/replay.jsonl" "$w/replay.json"
  done
  rm -f "$w/run.jsonl" "$w/run.json"
done
