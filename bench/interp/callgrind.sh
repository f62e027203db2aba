#!/bin/bash
# Instructions one run of each workload takes on the embedded stone, counted by
# callgrind (exact and repeatable, unlike times on a shared machine): the
# workload file plus one `run`, minus the workload file alone (bootstrap and
# file-in).
#
# Usage: bench/interp/callgrind.sh TOPAZ [NAME...]   (default: all nine)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
topaz=${1:?usage: callgrind.sh path/to/gsmcp-topaz [workload...]}
shift
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(scheduler constraints recursion sieve queens colls strings floats nlr)
declare -A class=([scheduler]=BenchSched [constraints]=BenchConstraints [recursion]=BenchRecursion
  [sieve]=BenchSieve [queens]=BenchQueens [colls]=BenchCollections [strings]=BenchStrings
  [floats]=BenchFloats [nlr]=BenchNlr)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$topaz" -q < "$1" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for n in "${names[@]}"; do
  { cat "$here/$n.gs"; printf '\nprintit\n%s new run\n%%\n' "${class[$n]}"; } > "$tmp/run.tpz"
  { cat "$here/$n.gs"; printf '\nprintit\n1\n%%\n'; } > "$tmp/base.tpz"
  printf '%-12s %14d\n' "$n" $(( $(count "$tmp/run.tpz") - $(count "$tmp/base.tpz") ))
done
