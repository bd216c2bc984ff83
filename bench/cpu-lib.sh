# Sourced by the bench scripts: cpu_per RESULT OP UNIT prints the client CPU
# of a result file's main steps per op (UNIT 0: µs per successful op) or
# per GiB moved (UNIT 1: CPU-s per GiB).
cpu_per() { # result-file  op  unit-bytes(0: per op): client CPU of the main steps per op (µs) or per GiB (s)
  python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); op = sys.argv[2]; unit = int(sys.argv[3])
cpu = ops = byt = 0
for st in r["steps"]:
    if st["kind"] != "main": continue
    cpu += (st["cpu_user_ns"] + st["cpu_sys_ns"]) / 1e9
    for s in st["streams"]:
        for t in s["totals"]:
            if t["op"] == op: ops += t["ok"]; byt += t["bytes"]
print(f"{cpu / ops * 1e6:.1f} µs/op" if unit == 0 else f"{cpu / (byt / 2**30):.3f} CPU-s/GiB")
PY
}
