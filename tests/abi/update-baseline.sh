#!/bin/sh
# Writes the ABI baseline from a build's library: run when releasing (a minor
# release may only add to the baseline; anything else needs a new ABI major,
# see docs/abi.md), then review `git diff tests/abi` and commit it.
#   tests/abi/update-baseline.sh BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
lib="$build/libgemmladder/libgemmladder.so"
[ -f "$lib" ] || { echo "no library at $lib (build first)"; exit 1; }
abidw --headers-dir "$here/../../include" --no-corpus-path --out-file "$here/libgemmladder.abi" "$lib"
echo "wrote $here/libgemmladder.abi"
