#!/usr/bin/env bash
# Runs every fuzz target in the repository for a bounded time each.
#
#   scripts/fuzz.sh [TIME]     TIME per target: 60s (default), 5s, 2m, or a count like 1000x
#
# Targets are found as a reader would find them: every `func FuzzXxx` in a
# *_test.go file. A target that fails leaves its input under the package's
# testdata/fuzz/ (commit it with the fix: it becomes a regression test) and
# the script goes on with the others, then exits 1. FUZZ_PARALLEL sets the
# fuzzing processes per target (default: go test's, GOMAXPROCS).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-60s}"
[[ "$fuzztime" =~ ^[0-9]+$ ]] && fuzztime="${fuzztime}s"
parallel=()
[ -n "${FUZZ_PARALLEL:-}" ] && parallel=(-parallel "$FUZZ_PARALLEL")

mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
  sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|' | sort -u)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, $fuzztime each"
failed=()
start=$SECONDS
for t in "${targets[@]}"; do
  read -r dir name <<<"$t"
  echo "fuzz: ./$dir $name"
  set +e
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "${parallel[@]}" "./$dir" 2>&1 | grep -v '^fuzz: elapsed'
  rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" = 0 ] || failed+=("./$dir $name")
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: FAILED %s\n' "${failed[@]}" >&2
  exit 1
fi
