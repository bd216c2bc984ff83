#!/usr/bin/env bash
# The client's side of objbench ai (issue 34), against `objbench server
# --null` (a separate process that keeps only sizes and answers GETs with
# zeros: what is measured is the client):
#   1. unet3d reads: bytes read per client CPU-second over the epochs (the
#      steps' own CPU time, objbench alone), and the wall rate;
#   2. a llama3-8b checkpoint (8 ranks, 112 GB, unscaled) saved and loaded
#      once: each one's rate, and objbench's peak RSS (VmHWM);
#   3. the payload generator's GB/s per core, as ai checkpoint measures it.
# Usage: bench/ai.sh [ACCELERATORS] [DATASET-SIZE] [EPOCHS]
set -euo pipefail
cd "$(dirname "$0")/.."
accels=${1:-2}
size=${2:-20GB}
epochs=${3:-3}
obs=./bin/objbench counts=1
source bench/rss-lib.sh
rss_setup objbench-ai
ob=./bin/objbench
port=$((26000 + RANDOM % 1000)) # this bench's own range
rss_serve --null --bucket aibench --access-key ai-ak --secret-key ai-sk
export AWS_ACCESS_KEY_ID=ai-ak AWS_SECRET_ACCESS_KEY=ai-sk AWS_REGION=us-east-1
target=(--endpoint-url "http://127.0.0.1:$port" --bucket aibench)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(git rev-parse --short HEAD)"

# 1. unet3d reads, computation 1 ms a batch: the loaders read as fast as
# the client can.
"$ob" ai train --model unet3d --accelerator h100 --accelerators "$accels" --epochs "$epochs" --dataset-size "$size" \
  --compute-time 1ms --generate "${target[@]}" -q -o "$work/train.json" >"$work/train.out" 2>&1 || { cat "$work/train.out"; exit 1; }
python3 - "$work/train.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cpu = byt = wall = 0
for st in r["steps"]:
    if not st.get("training"):
        continue
    cpu += (st["cpu_user_ns"] + st["cpu_sys_ns"]) / 1e9
    wall += st["elapsed_ns"] / 1e9
    for s in st["streams"]:
        for t in s["totals"]:
            byt += t["bytes"]
print(f"unet3d reads: {byt/2**30:.1f} GiB in {wall:.1f} s ({byt/2**30/wall:.2f} GiB/s wall), client CPU {cpu:.1f} s: "
      f"{byt/2**30/cpu:.2f} GiB per CPU-second")
PY

# 2 and 3. A llama3-8b checkpoint, unscaled, by 8 ranks.
kib=$(peak "$ob" ai checkpoint --model llama3-8b --ranks 8 --writes 1 --reads 1 --interval 0 "${target[@]}" -q -o "$work/ckpt.json")
grep -h "payload generator" "$work/out" || true
python3 - "$work/ckpt.json" "$kib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for st in r["steps"]:
    c = st.get("checkpoint")
    if not c:
        continue
    d = max(x["elapsed_ns"] for x in c["rank_io"]) / 1e9
    moved = sum(x["bytes"] for x in c["rank_io"])
    cpu = (st["cpu_user_ns"] + st["cpu_sys_ns"]) / 1e9
    print(f"llama3-8b {c['op']}: {moved/1e9:.1f} GB in {d:.1f} s ({moved/2**30/d:.2f} GiB/s), client CPU {cpu:.1f} s "
          f"({moved/2**30/cpu:.2f} GiB per CPU-second)")
print(f"objbench's peak RSS: {int(sys.argv[2])/1024:.0f} MiB")
PY
