# Sourced by the bench scripts: installs the pinned MinIO and starts it on
# 127.0.0.1 with a throwaway data dir and credentials. Sets MINIO_PORT, exports
# MINIO_ROOT_USER/MINIO_ROOT_PASSWORD and the AWS_* variables for them, and
# stops MinIO and removes its data when the calling script exits.
./scripts/install-minio.sh >/dev/null
minio_bin="$(go env GOPATH)/bin/minio"
minio_work=$(mktemp -d)
trap 'kill $minio_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$minio_work"' EXIT
MINIO_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export MINIO_ROOT_USER=benchadmin MINIO_ROOT_PASSWORD=bench-secret-$RANDOM$RANDOM MINIO_BROWSER=off
"$minio_bin" server --quiet --address "127.0.0.1:$MINIO_PORT" "$minio_work/data" >"$minio_work/minio.log" 2>&1 &
minio_pid=$!
for _ in $(seq 1 300); do # until the S3 API answers (its health endpoints are ready earlier)
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MINIO_PORT/probe/" || true)
  [ "$code" != "000" ] && [ "$code" != "503" ] && break
  sleep 0.1
done
export AWS_ACCESS_KEY_ID=$MINIO_ROOT_USER AWS_SECRET_ACCESS_KEY=$MINIO_ROOT_PASSWORD AWS_REGION=us-east-1
