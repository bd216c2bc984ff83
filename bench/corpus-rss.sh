#!/usr/bin/env bash
# Peak memory of uploading a git corpus: objbench's own VmHWM (polled from
# /proc; /usr/bin/time would count the git child's RSS too), against
# `objbench server --null` on 127.0.0.1 so the server's memory is not in it.
# Usage: bench/corpus-rss.sh [BLOBS] [OBJBENCH]   (default 10000, ./bin/objbench)
# Makes BLOBS synthetic emails of 2-30 KB in a bare repository (git fast-import).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
ob=${2:-./bin/objbench}
[ "$ob" = ./bin/objbench ] && go build -o bin/objbench ./cmd/objbench
work=$(mktemp -d "${TMPDIR:-/tmp}/objbench-rss.XXXXXX")
git init -q --bare "$work/mail.git"
python3 - "$n" <<'PY' | git -C "$work/mail.git" fast-import --quiet
import random, sys
random.seed(1)
words = ["lorem", "ipsum", "kernel", "patch", "signed-off-by", "linux", "memory", "driver", "review", "thanks"]
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    n = random.randint(2000, 30000)
    data = ("From: user%d@example.invalid\nSubject: [PATCH %d]\n\n" % (i, i)).encode()
    words_out = []
    size = len(data)
    while size < n:
        w = random.choice(words) + (" " if random.random() < 0.9 else "\n")
        words_out.append(w)
        size += len(w)
    data += "".join(words_out).encode()
    out.write(b"blob\ndata %d\n" % len(data) + data + b"\n")
PY
port=$((20000 + RANDOM % 20000))
"$ob" server --listen "127.0.0.1:$port" --null --bucket bench --access-key ak --secret-key sk >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
export AWS_ACCESS_KEY_ID=ak AWS_SECRET_ACCESS_KEY=sk AWS_REGION=us-east-1
# The null server lists nothing back, so the check fails (exit 1): only memory is measured.
"$ob" transfer --from-git "$work/mail.git" s3://bench/mail/ -q --endpoint-url "http://127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
hwm=0
while kill -0 $pid 2>/dev/null; do
  v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || true)
  [ -n "$v" ] && hwm=$v
  sleep 0.05
done
echo "$n blobs: objbench peak RSS ${hwm} KiB"
