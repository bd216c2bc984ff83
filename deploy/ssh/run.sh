#!/usr/bin/env bash
# objbench on a list of hosts over ssh: worker r of N runs on host r (the
# binary at the same path on each), all with one run id; their results are
# uploaded to a bucket, then merged here.
#   deploy/ssh/run.sh hosts.txt workload.yaml http://10.0.0.5:9000 bench s3://results/runs/
# hosts.txt: one host per line. Credentials: AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY are passed through to the hosts' environment.
set -euo pipefail
hosts_file=${1:?usage: run.sh HOSTS WORKLOAD ENDPOINT BUCKET RESULTS-PREFIX}
workload=${2:?workload file}
endpoint=${3:?endpoint URL}
bucket=${4:?bucket}
results=${5:?s3://BUCKET/PREFIX/ for the results}
mapfile -t hosts < <(grep -v '^\s*\(#\|$\)' "$hosts_file")
n=${#hosts[@]}
run_id="ssh-$(date -u +%Y%m%d-%H%M%S)"
pids=()
for r in "${!hosts[@]}"; do
  scp -q "$workload" "${hosts[$r]}:/tmp/objbench-workload.yaml"
  ssh "${hosts[$r]}" env AWS_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
    objbench run /tmp/objbench-workload.yaml --worker "$r/$n" --run-id "$run_id" \
    --endpoint-url "$endpoint" --bucket "$bucket" --out "$results" -q &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
objbench merge "$results$run_id/" --endpoint-url "$endpoint" -o "merged-$run_id.json"
exit $status
