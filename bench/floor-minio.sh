#!/usr/bin/env bash
# The client-CPU floors for a 4 KiB GET against a local MinIO on 127.0.0.1
# (net/http, a hand-written HTTP/1.1 loop, objbench's store over its direct
# and net/http clients), at concurrency 1 and 8. See docs/design-notes.md.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-minio.sh >/dev/null
minio="$(go env GOPATH)/bin/minio"
go build -o bin/floor ./bench/floor
work=$(mktemp -d)
trap 'kill $minio_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export MINIO_ROOT_USER=flooradmin MINIO_ROOT_PASSWORD=floor-secret-$RANDOM$RANDOM MINIO_BROWSER=off
"$minio" server --quiet --address "127.0.0.1:$port" "$work/data" >"$work/minio.log" 2>&1 &
minio_pid=$!
for _ in $(seq 1 300); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/probe/" || true)
  [ "$code" != "000" ] && [ "$code" != "503" ] && break
  sleep 0.1
done
for c in 1 8; do ./bin/floor "http://127.0.0.1:$port" "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" "$c"; done
