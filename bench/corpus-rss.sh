#!/usr/bin/env bash
# Peak memory of uploading a corpus: objbench's own VmHWM (polled from
# /proc; /usr/bin/time would count the git child's RSS too), against
# `objbench server --null` on 127.0.0.1 so the server's memory is not in it.
#
# Usage: bench/corpus-rss.sh [COUNTS] [OBJBENCH] [MIN-MAX] [git|dir]
#   COUNTS   corpus sizes, comma-separated (default 10000); one corpus of the
#            largest is made and the first N of it uploaded (--max-objects N)
#   OBJBENCH the binary (default ./bin/objbench, built); several, comma-
#            separated (a before and an after build), each uploads the same
#            corpus
#   MIN-MAX  email sizes in bytes (default 2000-30000; 1000-4000 keeps
#            500,000 emails to about 1.3 GB)
#   git|dir  --from-git (a bare repository, git fast-import) or --from-dir
#            (a maildir: every email a file of cur/); default git
# Prints one line per count: objects, peak RSS. Flat memory is the same
# line at every count.
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-10000}
obs=${2:-./bin/objbench}
ob=${obs%%,*}
range=${3:-2000-30000}
kind=${4:-git}
. bench/rss-lib.sh # rss_setup, rss_serve, mail_corpus, peak
rss_setup objbench-rss
mail_corpus "$n" "$range" "$kind"
src=(--from-git "$work/mail.git")
[ "$kind" = dir ] && src=(--from-dir "$work/maildir")

rss_serve --null --bucket bench --access-key ak --secret-key sk
export AWS_ACCESS_KEY_ID=ak AWS_SECRET_ACCESS_KEY=sk AWS_REGION=us-east-1
for ob in ${obs//,/ }; do
for c in ${counts//,/ }; do
  # The null server lists nothing back, so the check fails (exit 1): only
  # memory is measured.
  start=$SECONDS
  hwm=$(PEAK_MAY_FAIL=1 peak "$ob" transfer "${src[@]}" --max-objects "$c" "s3://bench/mail-$c/" -q --endpoint-url "http://127.0.0.1:$port")
  echo "$ob: $c $kind emails of $range bytes: objbench peak RSS $((hwm / 1024)) MiB ($hwm KiB), $((SECONDS - start)) s"
done
done
