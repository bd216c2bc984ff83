#!/usr/bin/env bash
# How many emulated accelerators one client feeds (issue 34's question,
# with the store taken out): objbench ai train --find-max against
# `objbench server --null` (keeps only sizes, answers GETs with zeros),
# the client and the server each pinned to their own cores (taskset), so
# the answer is the client's: what N client cores can keep at the AU
# target, whatever the store. Give the server at least the client's
# cores: each search's last line says how busy the client's cores were,
# and a client well under 100% was held back by the server, not itself.
# Usage: bench/ai-findmax.sh CLIENT-CPUS SERVER-CPUS [MODEL/ACCELERATOR ...]
#   bench/ai-findmax.sh 0-7 8-15 unet3d/b200 retinanet/b200
# OBJBENCH_BIN measures another build; OBJBENCH_FINDMAX_SIZE (default
# 40GB) is each data set's size, OBJBENCH_FINDMAX_MAX (default 64) the
# most accelerators tried, OBJBENCH_FINDMAX_STEPS (default 20) the
# batches an accelerator computes a round.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
ccpus=$1 scpus=$2
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(unet3d/b200)
obs=${OBJBENCH_BIN:-./bin/objbench} counts=1
source bench/rss-lib.sh
rss_setup objbench-findmax
ob=$obs
port=$((27000 + RANDOM % 1000)) # this bench's own range
serve() { taskset -c "$scpus" "$ob" server --listen "127.0.0.1:$port" "$@" >"$work/server" 2>&1 & srv=$!; }
serve --null --bucket train --access-key fm-ak --secret-key fm-sk
for _ in $(seq 100); do grep -q listening "$work/server" && break; sleep 0.1; done
grep -q listening "$work/server" || { cat "$work/server" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=fm-ak AWS_SECRET_ACCESS_KEY=fm-sk AWS_REGION=us-east-1
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; client on CPUs $ccpus, server on $scpus; $("$ob" --version | head -1)"
for m in "${models[@]}"; do
  model=${m%/*} acc=${m#*/}
  taskset -c "$ccpus" "$ob" ai train --model "$model" --accelerator "$acc" --find-max --generate \
    --dataset-size "${OBJBENCH_FINDMAX_SIZE:-40GB}" --max-accelerators "${OBJBENCH_FINDMAX_MAX:-64}" \
    --round-steps "${OBJBENCH_FINDMAX_STEPS:-20}" --endpoint-url "http://127.0.0.1:$port" --bucket train \
    -q -o "$work/$model-$acc.json" 2>&1 | grep -v '^warning: the data set' || true
  python3 - "$work/$model-$acc.json" "$ccpus" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cores = sum(int(b) - int(a) + 1 for a, _, b in (p.partition("-") if "-" in p else (p, "", p) for p in sys.argv[2].split(",")))
for st in r["steps"]:
    if st.get("training") and st.get("cpu_user_ns") is not None:
        cpu = (st["cpu_user_ns"] + st["cpu_sys_ns"]) / 1e9
        byt = sum(t["bytes"] for s in st["streams"] for t in s["totals"])
        wall = st["elapsed_ns"] / 1e9
        print(f"  {st['stage']}: {byt/2**30:.1f} GiB read in {wall:.1f} s, client CPU {cpu:.1f} s: {byt/2**30/cpu:.2f} GiB per CPU-second; "
              f"the client's {cores} core(s) {100*cpu/wall/cores:.0f}% busy")
PY
done
