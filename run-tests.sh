#!/usr/bin/env bash
# The project's whole test suite:
#  1. checks the habits: rustfmt's layout and clippy with every warning an error;
#     then builds every binary;
#  2. runs real MCP clients against a real gsmcp: the official conformance suite
#     (@modelcontextprotocol/conformance, active scenarios), the Python SDK client
#     and the TypeScript SDK client (installed by tests/clients/install.sh into
#     tests/clients/.deps from the npm registry and PyPI);
#  3. runs every crate's tests: unit tests, the Smalltalk-level topaz scripts, and
#     the end-to-end tests that start the real router and its worker processes on
#     free loopback ports;
#  4. runs the end-to-end tests again with every worker on the GCI backend,
#     loading the GCI-compatible library from a GemStone-shaped directory.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v cargo >/dev/null 2>&1; then
  echo "run-tests.sh: cargo is not installed; install a Rust toolchain (rustup) first" >&2
  exit 2
fi

for tool in fmt clippy; do
  if ! cargo "$tool" --version >/dev/null 2>&1; then
    echo "run-tests.sh: cargo $tool is missing; install it with: rustup component add ${tool/fmt/rustfmt}" >&2
    exit 2
  fi
done
echo "== cargo fmt --check, cargo clippy -D warnings"
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings

# The end-to-end tests and the clients start target/debug/gsmcp and gsmcp-worker.
cargo build --locked --workspace --bins
target="${CARGO_TARGET_DIR:-target}"

echo "== real MCP clients against target/debug/gsmcp"
tests/clients/run-all.sh "$target/debug/gsmcp"

echo "== cargo test"
cargo test --locked --workspace --no-fail-fast

echo "== end-to-end tests through the GCI backend"
GSMCP_TEST_BACKEND=gci cargo test --locked -p gsmcp-tests --no-fail-fast
