#!/bin/bash
# CPU time of one run of each workload, for one or more gsmcp-topaz builds and
# CPython side by side: user + sys time of a process that runs the workload
# twenty times, minus that of a process that only loads it, divided by twenty.
# Unlike `run.py`'s wall-clock times, other processes on a shared machine
# cannot inflate this figure (they still share caches, so alternate builds:
# `cputime.sh OLD NEW OLD NEW`).
#
# Usage: bench/interp/cputime.sh TOPAZ... [-- NAME...]   (default: all nine;
# needs GNU time, the `time` package)
# Prints: NAME  ms-per-run for each TOPAZ in order  py=CPython's ms
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#builds[@]} -gt 0 ] || { echo "usage: cputime.sh TOPAZ... [-- workload...]" >&2; exit 2; }
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(scheduler constraints recursion sieve queens colls strings floats nlr)
declare -A class=([scheduler]=BenchSched [constraints]=BenchConstraints [recursion]=BenchRecursion
  [sieve]=BenchSieve [queens]=BenchQueens [colls]=BenchCollections [strings]=BenchStrings
  [floats]=BenchFloats [nlr]=BenchNlr)
python=${PYTHON:-python3}
runs=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# user + sys seconds of a command reading stdin from $1
cpu() {
  local input=$1; shift
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" < "$input" > /dev/null 2>&1
  awk '{ print $1 + $2 }' "$tmp/time"
}
per_run() { awk -v a="$1" -v b="$2" -v n="$runs" 'BEGIN { printf "%.1f", (a - b) * 1000 / n }'; }
for n in "${names[@]}"; do
  { cat "$here/$n.gs"; printf '\nprintit\n| b | b := %s new. %d timesRepeat: [b run]. 1\n%%\n' "${class[$n]}" "$runs"; } > "$tmp/run.tpz"
  { cat "$here/$n.gs"; printf '\nprintit\n1\n%%\n'; } > "$tmp/load.tpz"
  line=$(printf '%-12s' "$n")
  for t in "${builds[@]}"; do
    line="$line $(per_run "$(cpu "$tmp/run.tpz" "$t" -q)" "$(cpu "$tmp/load.tpz" "$t" -q)")"
  done
  load="import importlib.util as u; s = u.spec_from_file_location('w', '$here/$n.py'); m = u.module_from_spec(s); s.loader.exec_module(m)"
  : > "$tmp/empty"
  py=$(per_run "$(cpu "$tmp/empty" "$python" -c "$load
for _ in range($runs): m.run()")" "$(cpu "$tmp/empty" "$python" -c "$load")")
  echo "$line py=$py"
done
