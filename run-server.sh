#!/usr/bin/env bash
# Builds gsmcp if needed and starts it in the background on MCP_PORT (default 8000),
# serving the embedded stone's repository (MCP_REPOSITORY, default under
# XDG_DATA_HOME; ":memory:" for an unsaved image per session), or with
# MCP_BACKEND=gci a GemStone stone (GEMSTONE, MCP_STONE, ...). Every MCP_*
# variable of `gsmcp --help` is passed on.
# `./run-server.sh --check` builds, checks the settings, logs in once, reports
# and exits (0 ok, 2 with each problem and its fix) without starting a server.
# `./run-server.sh --no-build` starts what target/release holds without building.
# `./run-server.sh --tls-self-signed` serves HTTPS with a throw-away certificate
# for this machine (made once under the state directory) and says how to trust it.
# With MCP_AUTH=token the server makes a bearer token (unless MCP_TOKEN_FILE
# names one); it is printed here once, in the line that adds the server to a
# client, and nowhere else.
# Prints the URL, the pid, the log file and how to stop it; fails with the log's
# tail if the server does not come up.
set -euo pipefail
cd "$(dirname "$0")"

PORT="${MCP_PORT:-8000}"
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/gsmcp"
LOG_FILE="${MCP_LOG_FILE:-$STATE_DIR/gsmcp-$PORT.log}"
START_TIMEOUT="${GSMCP_START_TIMEOUT:-30}"
REPOSITORY="${MCP_REPOSITORY:-${XDG_DATA_HOME:-$HOME/.local/share}/gsmcp/gsmcp.repository}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
BIN="$TARGET_DIR/release/gsmcp"

if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT > 65535 )); then
  echo "run-server.sh: MCP_PORT=$PORT is not a port number (0-65535)" >&2
  exit 2
fi

NO_BUILD=""
for arg in "$@"; do
  [[ "$arg" == --no-build ]] && NO_BUILD=1
done

if [[ -n "$NO_BUILD" ]]; then
  if [[ ! -x "$BIN" || ! -x "$TARGET_DIR/release/gsmcp-worker" ]]; then
    echo "run-server.sh: --no-build, but $BIN or its worker is not built; run without --no-build (or cargo build --release --bins)" >&2
    exit 2
  fi
elif command -v cargo >/dev/null 2>&1; then
  # A no-op when the binaries are up to date; the output only matters on failure.
  [[ -x "$BIN" ]] || echo "building gsmcp (release; the first build takes a few minutes)..."
  if ! build_log="$(cargo build --release --bins 2>&1)"; then
    printf '%s\n' "$build_log" | tail -n 40 >&2
    echo "run-server.sh: the build failed (above)" >&2
    exit 1
  fi
elif [[ ! -x "$BIN" || ! -x "$TARGET_DIR/release/gsmcp-worker" ]]; then
  echo "run-server.sh: $BIN is not built and cargo is not installed; install a Rust toolchain (rustup) first" >&2
  exit 2
fi

CHECK=""
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    --no-build) ;;
    --tls-self-signed)
      TLS_DIR="$STATE_DIR/tls"
      if [[ ! -f "$TLS_DIR/cert.pem" || ! -f "$TLS_DIR/key.pem" ]]; then
        "$BIN" --make-self-signed "$TLS_DIR" >/dev/null || exit 2
        echo "made a self-signed certificate for local use: $TLS_DIR/cert.pem"
      fi
      export MCP_TLS_CERT="$TLS_DIR/cert.pem" MCP_TLS_KEY="$TLS_DIR/key.pem"
      ;;
    *)
      echo "run-server.sh: unknown argument $arg (known: --check, --no-build, --tls-self-signed)" >&2
      exit 2
      ;;
  esac
done

BACKEND="${MCP_BACKEND:-embedded}"
if [[ -n "$CHECK" ]]; then
  if [[ "$BACKEND" == "embedded" ]]; then
    [[ "$REPOSITORY" == ":memory:" ]] || mkdir -p "$(dirname "$REPOSITORY")"
    export MCP_REPOSITORY="$REPOSITORY"
  fi
  exec "$BIN" --check
fi

# The log and the state directory are the user's alone (the server makes the
# log file 0600 itself).
mkdir -p -m 700 "$STATE_DIR"
mkdir -p "$(dirname "$LOG_FILE")"
OUT_FILE="$(mktemp "${TMPDIR:-/tmp}/gsmcp-$PORT.XXXXXX")"
trap 'rm -f "$OUT_FILE"' EXIT

# The server logs to the file itself; its stderr (start-up errors) goes there too.
# The repository file is created, with the kernel, by the first session that logs in.
export MCP_PORT="$PORT" MCP_LOG_FILE="$LOG_FILE"
if [[ "$BACKEND" == "embedded" ]]; then
  [[ "$REPOSITORY" == ":memory:" ]] || mkdir -p "$(dirname "$REPOSITORY")"
  export MCP_REPOSITORY="$REPOSITORY"
else
  REPOSITORY="(GemStone stone ${MCP_STONE:-gs64stone})"
fi
if command -v setsid >/dev/null 2>&1; then
  setsid "$BIN" </dev/null >"$OUT_FILE" 2>>"$LOG_FILE" &
else
  nohup "$BIN" </dev/null >"$OUT_FILE" 2>>"$LOG_FILE" &
fi
PID=$!

URL=""
deadline=$((SECONDS + START_TIMEOUT))
while (( SECONDS < deadline )); do
  if URL="$(sed -n 's/^gsmcp listening on //p' "$OUT_FILE")" && [[ -n "$URL" ]]; then
    break
  fi
  if ! kill -0 "$PID" 2>/dev/null; then
    break
  fi
  sleep 0.1
done

if [[ -z "$URL" ]]; then
  if kill -0 "$PID" 2>/dev/null; then
    echo "run-server.sh: gsmcp (pid $PID) did not start listening within ${START_TIMEOUT}s; stopping it" >&2
    kill -TERM "$PID" 2>/dev/null || true
  else
    wait "$PID" 2>/dev/null || true
    echo "run-server.sh: gsmcp did not start. The end of $LOG_FILE:" >&2
  fi
  tail -n 20 "$LOG_FILE" | sed 's/^/  /' >&2
  exit 1
fi

ACTUAL_PORT="${URL##*:}"
ACTUAL_PORT="${ACTUAL_PORT%%/*}"
# The token line (MCP_AUTH=token without a file) is read here and shown once.
TOKEN="$(sed -n 's/^gsmcp bearer token //p' "$OUT_FILE")"
HEADER=""
if [[ -n "$TOKEN" ]]; then
  HEADER=" --header \"Authorization: Bearer $TOKEN\""
elif [[ "${MCP_AUTH:-off}" == "token" && -n "${MCP_TOKEN_FILE:-}" ]]; then
  HEADER=" --header \"Authorization: Bearer \$(cat $MCP_TOKEN_FILE)\""
fi
cat <<INFO
gsmcp is running.
  URL:   $URL
  pid:   $PID
  log:   $LOG_FILE
  repository: $REPOSITORY
  stop:  ./stop-server.sh $ACTUAL_PORT
Add it to an MCP client, for example:
  claude mcp add --transport http gemstone $URL$HEADER
INFO
if [[ -n "$TOKEN" ]]; then
  echo "The token is shown only here; a restart makes a new one (MCP_TOKEN_FILE keeps one)."
fi
if [[ -n "${MCP_TLS_CERT:-}" && "${MCP_TLS_CERT}" == "$STATE_DIR/tls/cert.pem" ]]; then
  echo "The certificate is self-signed: clients must trust $MCP_TLS_CERT, e.g."
  echo "  NODE_EXTRA_CA_CERTS=$MCP_TLS_CERT claude ...   curl --cacert $MCP_TLS_CERT ..."
fi
