#!/usr/bin/env bash
# Runs Ceph's s3-tests (a peer's S3 conformance suite) against the embedded
# server (`objbench server`) and the pinned MinIO, both on 127.0.0.1, and
# prints how many tests of each group the embedded server claims pass on
# each (scripts/s3tests/groups.py declares the groups).
#
#   scripts/s3-tests.sh [S3TESTS_DIR]      (or S3TESTS_DIR=... scripts/s3-tests.sh)
#
# S3TESTS_DIR is a git checkout of github.com/ceph/s3-tests at the pinned
# commit below (this script fetches nothing: clone it where GitHub is
# reachable). Its Python requirements, pinned in
# scripts/s3tests/requirements.txt, go into .venv-s3tests/ at the
# repository's root, a venv this script owns (gitignored). Opt-in: the
# default test suite does not run it (CI cannot fetch s3-tests); the Go
# tests of package s3server cover each claimed group.
#
# It runs test_s3.py and test_headers.py without the markers of what S3
# servers of this kind do not offer (IAM, STS, lifecycle, logging, select,
# SNS, SSE-S3 bucket defaults, websites) and without fails_on_aws, with
# one key for the suite's main, alt and tenant users. A run takes about 15
# minutes for the embedded server and 25 for MinIO on 2 cores. Exit 1 if a
# claimed test (one MinIO passes, in a claimed group) fails on the
# embedded server; 2 for bad input.
set -euo pipefail
S3TESTS_COMMIT=8f0ae7b404a3a2fcf7038bf1e6bf29544fe9b6a3
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-${S3TESTS_DIR:-}}"
if [ -z "$dir" ] || [ ! -f "$dir/s3tests/functional/test_s3.py" ]; then
  echo "usage: $0 S3TESTS_DIR (a checkout of ceph/s3-tests at $S3TESTS_COMMIT)" >&2
  exit 2
fi
got="$(git -C "$dir" rev-parse HEAD 2>/dev/null || echo "not a git checkout")"
if [ "$got" != "$S3TESTS_COMMIT" ]; then
  echo "$dir is at $got, not the pinned $S3TESTS_COMMIT: git -C $dir checkout $S3TESTS_COMMIT" >&2
  exit 2
fi

# The venv: rebuilt when the pinned requirements change.
venv="$root/.venv-s3tests"
reqs="$root/scripts/s3tests/requirements.txt"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! cmp -s "$reqs" "$venv/requirements.txt" 2>/dev/null; then
  echo "installing s3-tests' requirements ($reqs) into $venv..."
  "$py" -m venv --clear "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check -r "$reqs"
  cp "$reqs" "$venv/requirements.txt"
fi

minio="$(go env GOPATH)/bin/minio"
[ -x "$minio" ] || "$root/scripts/install-minio.sh"
work="$(mktemp -d -t objbench-s3tests-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/objbench" ./cmd/objbench)

access=S3TESTSACCESS$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
secret=$(head -c 30 /dev/urandom | base64 | tr -d '/+=\n')
freeport() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The embedded server, with no bucket of its own (the suite lists buckets).
eport=$(freeport)
"$work/objbench" server --listen "127.0.0.1:$eport" --bucket '' --access-key "$access" --secret-key "$secret" \
  >"$work/objbench.log" 2>&1 &
pids+=($!)
# The pinned MinIO, on a data directory of its own.
mport=$(freeport)
mkdir -p "$work/minio-data"
MINIO_ROOT_USER="$access" MINIO_ROOT_PASSWORD="$secret" MINIO_BROWSER=off MINIO_UPDATE=off MINIO_CI_CD=1 \
  "$minio" server --quiet --address "127.0.0.1:$mport" --console-address "127.0.0.1:$(freeport)" "$work/minio-data" \
  >"$work/minio.log" 2>&1 &
pids+=($!)
for port in "$eport" "$mport"; do
  for _ in $(seq 300); do
    (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
    sleep 0.1
  done
done

conf() { # conf NAME PORT: the suite's configuration, one key for every user
  local f="$work/$1.conf"
  {
    printf '[DEFAULT]\nhost = 127.0.0.1\nport = %s\nis_secure = False\nssl_verify = False\n' "$2"
    printf '[fixtures]\nbucket prefix = s3t-{random}-\niam name prefix = s3-tests-\niam path prefix = /s3-tests/\n'
    for user in "s3 main" "s3 alt" "s3 tenant" "iam" "iam root" "iam alt root"; do
      printf '[%s]\ndisplay_name = objbench\nuser_id = objbench\nemail = %s@example.com\n' "$user" "${user// /-}"
      printf 'access_key = %s\nsecret_key = %s\napi_name = us-east-1\ntenant = testx\n' "$access" "$secret"
    done
  } >"$f"
  echo "$f"
}

markers="not (fails_on_aws or iam_account or iam_cross_account or iam_role or iam_tenant or iam_user or user_policy"
markers+=" or role_policy or group_policy or group or session_policy or abac_test or test_of_sts or webidentity_test"
markers+=" or token_claims_trust_policy_test or token_principal_tag_role_policy_test or token_request_tag_trust_policy_test"
markers+=" or token_resource_tags_test or token_role_tags_test or token_tag_keys_test or lifecycle or lifecycle_expiration"
markers+=" or lifecycle_transition or cloud_transition or cloud_restore or bucket_logging or bucket_logging_cleanup"
markers+=" or s3select or sns or sse_s3 or s3website or s3website_routing_rules or s3website_redirect_location)"
for target in embedded:$eport minio:$mport; do
  name=${target%%:*}
  echo "s3-tests against $name (127.0.0.1:${target#*:})..."
  (cd "$dir" && S3TEST_CONF="$(conf "$name" "${target#*:}")" timeout 3600 "$venv/bin/pytest" -q -p no:cacheprovider \
    --timeout 120 -m "$markers" --junitxml="$work/$name.xml" \
    s3tests/functional/test_s3.py s3tests/functional/test_headers.py >"$work/$name.out" 2>&1) || true
  tail -1 "$work/$name.out"
done
echo "s3-tests $S3TESTS_COMMIT, claimed groups (scripts/s3tests/groups.py):"
"$py" "$root/scripts/s3tests/groups.py" "$work/embedded.xml" "$work/minio.xml"
