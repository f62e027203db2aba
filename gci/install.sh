#!/usr/bin/env bash
# Lays out a GemStone-shaped product directory around the GCI-compatible
# library, so that GEMSTONE=<dir> works for any GCI client:
#   <dir>/lib/libgcits-3.7.5-64.so   the library (over the embedded stone)
#   <dir>/data/                      repository files, one per stone name
# Usage: gci/install.sh <dir> [debug|release]   (builds the library first)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: gci/install.sh <dir> [debug|release]}
profile=${2:-release}
version=3.7.5
if [ "$profile" = release ]; then
  cargo build --locked --release -p gsmcp-gci
else
  cargo build --locked -p gsmcp-gci
fi
target="${CARGO_TARGET_DIR:-target}/$profile"
case "$(uname -s)" in
  Darwin) src="$target/libgsmcp_gci.dylib"; name="libgcits-$version-64.dylib" ;;
  *) src="$target/libgsmcp_gci.so"; name="libgcits-$version-64.so" ;;
esac
mkdir -p "$dir/lib" "$dir/data"
cp "$src" "$dir/lib/$name.tmp"
mv -f "$dir/lib/$name.tmp" "$dir/lib/$name"
echo "installed $dir/lib/$name; use GEMSTONE=$dir (stone gs64stone is $dir/data/gs64stone.repository)"
