#!/usr/bin/env bash
# The protocol-era benchmark: one gsmcp (release build, embedded stone, a
# repository file) serving the session era and the stateless era (MCP
# 2026-07-28) side by side. Prints p50/p99 of opening a login (initialize
# against open_session), a tools/call in it (by Mcp-Session-Id against by the
# session argument), a two-round call that asks for input, a stateless call in
# a one-shot login, and server/discover.
#
#   bench/eras.sh [--calls N] [--opens N] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked -p gsmcp-router -p gsmcp-worker --bins
cargo build --release --locked -p gsmcp-tests --example era_bench
exec "$target/release/examples/era_bench" "$target/release/gsmcp" "$@"
