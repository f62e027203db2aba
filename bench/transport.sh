#!/usr/bin/env bash
# The transport benchmark: gsmcp (router + worker per session, embedded stone)
# against a trivial rmcp Streamable HTTP server, both release builds, measured in
# the same run. Prints initialize and tools/call latency (p50/p99), requests per
# second at concurrency 1 and 16, and the resident memory of an idle worker.
#
#   bench/transport.sh [--calls N] [--inits N] [--rounds N]
#
# The servers are measured in alternating rounds (default 3) and every figure is
# the median over the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked -p gsmcp-router -p gsmcp-worker --bins
# --auth also serves over the GCI backend: gsmcp's GCI library and gsmcp-topaz
cargo build --release --locked -p gsmcp-gci --lib
cargo build --release --locked -p gsmcp-smalltalk --bin gsmcp-topaz
cargo build --release --locked -p gsmcp-tests --example rmcp_peer --example transport_bench
exec "$target/release/examples/transport_bench" "$target/release/gsmcp" "$target/release/examples/rmcp_peer" "$@"
