#!/usr/bin/env bash
# Regenerates docs/report.png, the README's picture of the HTML report:
# a concurrency sweep on the embedded server, `objbench report --html`,
# and a headless chromium screenshot of the page.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-chromium.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/objbench" ./cmd/objbench
"$work/objbench" mixed --concurrency 1,4,16 --duration 4s --size 64KiB --quiet --out "$work/r.json" >/dev/null
"$work/objbench" report "$work/r.json" --html "$work/r.html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --hide-scrollbars --user-data-dir="$work/profile" \
	--screenshot="$PWD/docs/report.png" --window-size=1100,3900 "file://$work/r.html" 2>/dev/null
echo "wrote docs/report.png"
