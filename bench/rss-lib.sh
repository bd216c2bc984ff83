# Sourced by the bench scripts that measure objbench's peak memory
# (corpus-rss.sh, pool-rss.sh).

# rss_setup NAME: with $counts and $obs set, builds ./bin/objbench when it
# is one of the binaries, and sets n (the largest count), work (a scratch
# directory, removed at exit with the server $srv stopped) and port.
rss_setup() {
  [[ ",$obs," == *,./bin/objbench,* ]] && go build -o bin/objbench ./cmd/objbench
  n=$(tr ',' '\n' <<<"$counts" | sort -n | tail -1)
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  port=$((20000 + RANDOM % 20000))
  srv=
  trap '[ -n "$srv" ] && kill $srv 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
}

# rss_serve ARGS...: `$ob server` on 127.0.0.1:$port with ARGS, in the
# background ($srv), once it says it is listening.
rss_serve() {
  "$ob" server --listen "127.0.0.1:$port" "$@" >"$work/server" 2>&1 &
  srv=$!
  for _ in $(seq 100); do grep -q listening "$work/server" && break; sleep 0.1; done
  grep -q listening "$work/server" || { cat "$work/server" >&2; exit 1; }
}

# mail_corpus N MIN-MAX git|dir: N emails, a header then words, of a size
# drawn in MIN-MAX (seeded: the same corpus every time), as a bare git
# repository $work/mail.git (git fast-import) or a maildir $work/maildir
# (every email a file of cur/).
mail_corpus() {
  python3 - "$1" "$2" "$3" "$work" <<'PY' | { if [ "$3" = git ]; then git init -q --bare "$work/mail.git" && git -C "$work/mail.git" fast-import --quiet; else cat >/dev/null; fi; }
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
}

# peak CMD...: runs CMD, prints its peak RSS in KiB (VmHWM polled from
# /proc: /usr/bin/time would count a git child's too). A failing CMD is
# reported on stderr unless PEAK_MAY_FAIL is set.
peak() {
  "$@" >"$work/out" 2>&1 &
  local pid=$! hwm=0 v
  while kill -0 $pid 2>/dev/null; do
    v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    sleep 0.05
  done
  wait $pid || [ -n "${PEAK_MAY_FAIL:-}" ] || { echo "failed: $*" >&2; tail -5 "$work/out" >&2; }
  echo "$hwm"
}
