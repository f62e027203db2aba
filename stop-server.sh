#!/usr/bin/env bash
# Stops the gsmcp listening on PORT (default: MCP_PORT, else 8000) and waits until
# it and its workers (`gsmcp-worker PORT ...`) are gone. The server is found by the
# port it listens on, never through a pid file.
set -euo pipefail

PORT="${1:-${MCP_PORT:-8000}}"
STOP_TIMEOUT="${GSMCP_STOP_TIMEOUT:-10}"

if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
  echo "usage: stop-server.sh [PORT]   (PORT is 1-65535; got '$PORT')" >&2
  exit 2
fi

# The pid of the process listening on TCP $PORT, from ss if present, else /proc.
listener_pid() {
  local pid=""
  if command -v ss >/dev/null 2>&1; then
    pid="$(ss -Hltnp "sport = :$PORT" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true)"
    if [[ -n "$pid" ]]; then
      echo "$pid"
      return
    fi
  fi
  local hex inodes inode fd
  hex="$(printf '%04X' "$PORT")"
  # Field 2 is local address:port, field 4 the state (0A = LISTEN), field 10 the inode.
  inodes="$(awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { print $10 }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)"
  [[ -z "$inodes" ]] && return
  for fd in /proc/[0-9]*/fd/*; do
    local link
    link="$(readlink "$fd" 2>/dev/null)" || continue
    for inode in $inodes; do
      if [[ "$link" == "socket:[$inode]" ]]; then
        pid="${fd#/proc/}"
        echo "${pid%%/*}"
        return
      fi
    done
  done
}

# Pids of live workers of this port: argv is `gsmcp-worker <port> <sid8>`.
worker_pids() {
  local dir argv0 argv1
  for dir in /proc/[0-9]*; do
    [[ -r "$dir/cmdline" ]] || continue
    { IFS= read -r -d '' argv0 && IFS= read -r -d '' argv1; } <"$dir/cmdline" 2>/dev/null || continue
    if [[ "${argv0##*/}" == "gsmcp-worker" && "$argv1" == "$PORT" ]]; then
      echo "${dir#/proc/}"
    fi
  done
}

# True while the process exists and is not a zombie waiting to be reaped.
alive() {
  [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null || return 1
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat:0:1}" != "Z" ]]
}

PID="$(listener_pid)"
if [[ -z "$PID" ]]; then
  leftovers="$(worker_pids | tr '\n' ' ')"
  if [[ -n "$leftovers" ]]; then
    echo "stop-server.sh: nothing listens on port $PORT, but workers of it remain (pids $leftovers); killing them"
    for w in $leftovers; do kill -KILL "$w" 2>/dev/null || true; done
    exit 0
  fi
  echo "stop-server.sh: no server is listening on port $PORT"
  exit 1
fi

NAME="$(cat "/proc/$PID/comm" 2>/dev/null || echo unknown)"
EXE="$(readlink "/proc/$PID/exe" 2>/dev/null || true)"
if [[ "${EXE##*/}" != "gsmcp" && "$NAME" != "gsmcp" ]]; then
  echo "stop-server.sh: port $PORT is held by '$NAME' (pid $PID), not by gsmcp; not stopping it" >&2
  exit 1
fi

WORKERS="$(worker_pids | tr '\n' ' ')"
echo "stopping gsmcp (pid $PID) on port $PORT${WORKERS:+ with workers $WORKERS}"
kill -TERM "$PID" 2>/dev/null || true

deadline=$((SECONDS + STOP_TIMEOUT))
while (( SECONDS < deadline )); do
  if ! alive "$PID" && [[ -z "$(worker_pids)" ]]; then
    echo "stopped"
    exit 0
  fi
  sleep 0.1
done

echo "stop-server.sh: still running after ${STOP_TIMEOUT}s; killing" >&2
kill -KILL "$PID" 2>/dev/null || true
for w in $(worker_pids); do kill -KILL "$w" 2>/dev/null || true; done
sleep 0.2
if alive "$PID" || [[ -n "$(worker_pids)" ]]; then
  echo "stop-server.sh: could not stop everything on port $PORT" >&2
  exit 1
fi
echo "stopped (killed)"
