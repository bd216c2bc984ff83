#!/usr/bin/env bash
# objbench on a list of hosts over ssh: worker r of N runs on host r (the
# binary on each host's PATH, or at $OBJBENCH_BIN there), all with one run
# id; their results are uploaded to a bucket, then merged here by the
# objbench on this machine's PATH.
#   deploy/ssh/run.sh hosts.txt workload.yaml http://10.0.0.5:9000 bench s3://results/runs/
# hosts.txt: one host per line (what ssh takes: host, user@host, an alias).
#
# Credentials: whichever of AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
# AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION and AWS_DEFAULT_REGION are set
# here reach each host's objbench through ssh's standard input, never a
# command line (which `ps` shows to every user of either machine) and no
# file. With AWS_PROFILE alone, each host reads that profile from its own
# ~/.aws. The results bucket must exist: every worker checks, before any
# load, that it can write and delete there.
set -euo pipefail
usage="usage: run.sh HOSTS WORKLOAD ENDPOINT BUCKET s3://RESULTS-BUCKET/PREFIX/"
hosts_file=${1:?$usage}
workload=${2:?$usage}
endpoint=${3:?$usage}
bucket=${4:?$usage}
results=${5:?$usage}
case $results in
s3://?*/) ;;
*) echo "run.sh: $results: want s3://BUCKET/PREFIX/ (ending in /)" >&2; exit 2 ;;
esac
mapfile -t hosts < <(grep -v '^\s*\(#\|$\)' "$hosts_file")
n=${#hosts[@]}
if [ "$n" = 0 ]; then
  echo "run.sh: $hosts_file names no host" >&2
  exit 2
fi
bin=${OBJBENCH_BIN:-objbench}
run_id="ssh-$(date -u +%Y%m%d-%H%M%S)-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"

# q quotes a word for the remote shell (POSIX sh).
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# credentials writes NAME=value lines of the credential variables that are
# set (printf is a shell builtin: no process holds them in its argv).
credentials() {
  local v
  for v in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION; do
    if [ -n "${!v:-}" ]; then printf '%s=%s\n' "$v" "${!v}"; fi
  done
}

# The remote side reads those lines from its standard input into its own
# environment (names checked, values never evaluated), then runs objbench
# with no standard input, and removes the copied workload.
remote_workload="/tmp/objbench-$run_id.yaml"
receive='while IFS= read -r kv; do case $kv in AWS_ACCESS_KEY_ID=*|AWS_SECRET_ACCESS_KEY=*|AWS_SESSION_TOKEN=*|AWS_PROFILE=*|AWS_REGION=*|AWS_DEFAULT_REGION=*) export "$kv" ;; esac; done'
pids=()
for r in "${!hosts[@]}"; do
  scp -q "$workload" "${hosts[$r]}:$remote_workload"
  remote="$receive; $(q "$bin") run $(q "$remote_workload") --worker $r/$n --run-id $(q "$run_id")"
  remote+=" --endpoint-url $(q "$endpoint") --bucket $(q "$bucket") --out $(q "$results") -q </dev/null"
  remote+="; s=\$?; rm -f $(q "$remote_workload"); exit \$s"
  credentials | ssh "${hosts[$r]}" "sh -c $(q "$remote")" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
echo "run.sh: run $run_id on $n hosts; merging s3 results from $results$run_id/" >&2
objbench merge "$results$run_id/" --endpoint-url "$endpoint" -o "merged-$run_id.json" || status=1
exit $status
