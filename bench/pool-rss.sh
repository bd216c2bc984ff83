#!/usr/bin/env bash
# Peak memory of loadgen's key pools: objbench's own VmHWM (polled from
# /proc; /usr/bin/time would count the git child's RSS too), against an
# `objbench server` on 127.0.0.1 (embedded, in memory: it must list back,
# which --null cannot), a separate process whose memory is not in it.
#   get:    `get --no-prepare --prefix P` over N objects uploaded before
#           (the pool of listed keys and sizes);
#   delete: `delete --from-git REPO --max-objects N` of N emails (a bare git
#           repository as bench/corpus-rss.sh makes): the corpus prepared
#           into the pool, a short delete stage, then cleanup's listing;
#   gen:    `transfer gen:Nx1` (a plan of N generated objects), checked.
#
# Usage: bench/pool-rss.sh [COUNTS] [OBJBENCH] [MIN-MAX] [CASES]
#   COUNTS   object counts, comma-separated (default 10000,100000,200000)
#   OBJBENCH the binary (default ./bin/objbench, built); several, comma-
#            separated (a before and an after build), side by side
#   MIN-MAX  email sizes in bytes (default 200-1000: the server holds them)
#   CASES    which runs (default get,delete; also gen)
# OBJBENCH_REPEAT=R runs each R times and takes the median peak (when the
# collector runs moves one run's peak by a few MiB).
# Prints one line per binary, case and count: peak RSS, and the growth per
# object from the previous count (and from the first: when the collector
# runs moves a peak by a few MiB, so the longer span is the steadier).
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-10000,100000,200000}
obs=${2:-./bin/objbench}
ob=${obs%%,*}
range=${3:-200-1000}
cases=${4:-get,delete}
repeat=${OBJBENCH_REPEAT:-1}
. bench/rss-lib.sh # rss_setup, rss_serve, mail_corpus, peak
rss_setup objbench-pool
mail_corpus "$n" "$range" git

rss_serve --bucket bench --access-key ak --secret-key sk
export AWS_ACCESS_KEY_ID=ak AWS_SECRET_ACCESS_KEY=sk AWS_REGION=us-east-1
ep=(--endpoint-url "http://127.0.0.1:$port")


# The objects get reads: N emails under get-N/, uploaded once.
if [[ ",$cases," == *,get,* ]]; then
  for c in ${counts//,/ }; do
    "$ob" transfer --from-git "$work/mail.git" --max-objects "$c" "s3://bench/get-$c/" "${ep[@]}" -q -o "$work/up.json" >/dev/null
  done
fi

for kind in ${cases//,/ }; do
  for ob in ${obs//,/ }; do
    prev= first=
    for c in ${counts//,/ }; do
      start=$SECONDS
      peaks=()
      for r in $(seq "$repeat"); do
        case $kind in
        get) peaks+=("$(peak "$ob" get --no-prepare --prefix "get-$c/" "${ep[@]}" --bucket bench -c 2 --duration 1s -q -o "$work/r.json")") ;;
        delete) peaks+=("$(peak "$ob" delete --from-git "$work/mail.git" --max-objects "$c" "${ep[@]}" --bucket bench -c 2 --duration 1s -q -o "$work/r.json")") ;;
        gen) peaks+=("$(peak "$ob" transfer "gen:${c}x1" "s3://bench/gen-$c-$r-${ob//\//_}/" "${ep[@]}" -q -o "$work/r.json")") ;;
        esac
      done
      hwm=$(printf '%s\n' "${peaks[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p") # the median
      per=
      if [ -n "$prev" ]; then
        per=", $(((hwm - ${prev#*:}) * 1024 / (c - ${prev%:*}))) B/object more from ${prev%:*}"
      fi
      if [ -n "$first" ] && [ "$first" != "$prev" ]; then
        per="$per ($(((hwm - ${first#*:}) * 1024 / (c - ${first%:*}))) from ${first%:*})"
      fi
      prev=$c:$hwm
      first=${first:-$prev}
      all=
      [ "$repeat" -gt 1 ] && all=" (median of ${peaks[*]} KiB)"
      echo "$ob $kind $c: objbench peak RSS $((hwm / 1024)) MiB ($hwm KiB)$all$per, $((SECONDS - start)) s"
    done
  done
done
