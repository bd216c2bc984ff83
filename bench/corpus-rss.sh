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
[[ ",$obs," == *,./bin/objbench,* ]] && go build -o bin/objbench ./cmd/objbench
n=$(tr ',' '\n' <<<"$counts" | sort -n | tail -1)
work=$(mktemp -d "${TMPDIR:-/tmp}/objbench-rss.XXXXXX")
port=$((20000 + RANDOM % 20000))
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# Emails: a header, then words, of a size drawn in MIN-MAX (seeded: the
# same corpus every time). git: a fast-import stream; dir: files.
python3 - "$n" "$range" "$kind" "$work" <<'PY' | { if [ "$kind" = git ]; then git init -q --bare "$work/mail.git" && git -C "$work/mail.git" fast-import --quiet; else cat >/dev/null; fi; }
import os, random, sys
n, (lo, hi), kind, work = int(sys.argv[1]), map(int, sys.argv[2].split("-")), sys.argv[3], sys.argv[4]
random.seed(1)
words = ["lorem", "ipsum", "kernel", "patch", "signed-off-by", "linux", "memory", "driver", "review", "thanks"]
# 4 MB of words; each email's body is a slice of it at a random offset.
text = "".join(random.choice(words) + (" " if random.random() < 0.9 else "\n") for _ in range(600000)).encode()
out = sys.stdout.buffer
if kind == "dir":
    os.makedirs(os.path.join(work, "maildir", "cur"))
for i in range(n):
    head = ("From: user%d@example.invalid\nSubject: [PATCH %d]\n\n" % (i, i)).encode()
    size = max(random.randint(lo, hi), len(head))
    off = random.randrange(len(text) - hi)
    data = head + text[off:off + size - len(head)]
    if kind == "dir":
        with open(os.path.join(work, "maildir", "cur", "%d.eml" % i), "wb") as f:
            f.write(data)
    else:
        out.write(b"blob\ndata %d\n" % len(data) + data + b"\n")
PY
src=(--from-git "$work/mail.git")
[ "$kind" = dir ] && src=(--from-dir "$work/maildir")

"$ob" server --listen "127.0.0.1:$port" --null --bucket bench --access-key ak --secret-key sk >/dev/null 2>&1 &
srv=$!
sleep 1
export AWS_ACCESS_KEY_ID=ak AWS_SECRET_ACCESS_KEY=sk AWS_REGION=us-east-1
for ob in ${obs//,/ }; do
for c in ${counts//,/ }; do
  # The null server lists nothing back, so the check fails (exit 1): only
  # memory is measured.
  "$ob" transfer "${src[@]}" --max-objects "$c" "s3://bench/mail-$c/" -q --endpoint-url "http://127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  hwm=0
  start=$SECONDS
  while kill -0 $pid 2>/dev/null; do
    v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    sleep 0.05
  done
  wait $pid || true
  echo "$ob: $c $kind emails of $range bytes: objbench peak RSS $((hwm / 1024)) MiB ($hwm KiB), $((SECONDS - start)) s"
done
done
