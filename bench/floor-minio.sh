#!/usr/bin/env bash
# The client-CPU floors for a 4 KiB GET against a local MinIO on 127.0.0.1
# (net/http, a hand-written HTTP/1.1 loop, objbench's store over its direct
# and net/http clients), at concurrency 1 and 8. See docs/design/001-s3-request-path.md.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/floor ./bench/floor
. bench/minio-lib.sh
for c in 1 8; do ./bin/floor "http://127.0.0.1:$MINIO_PORT" "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" "$c"; done
