#!/bin/sh
# The built library against the ABI baseline kept in the repository
# (tests/abi/libgemmladder.abi, written by abidw from a released build).
# Additions are allowed; any other change to an exported function or to a
# type it uses fails. Skips (77) where abidiff is not installed.
#   check_abi.sh LIBRARY BASELINE HEADERS_DIR
set -u
lib=$1 baseline=$2 headers=$3
if ! command -v abidiff >/dev/null 2>&1; then
    echo "abidiff not found (Debian/Ubuntu: apt-get install abigail-tools); skipping"
    exit 77
fi
if [ ! -f "$baseline" ]; then
    echo "no baseline at $baseline"
    exit 1
fi
abidiff --no-added-syms --headers-dir1 "$headers" --headers-dir2 "$headers" "$baseline" "$lib"
rc=$?
if [ $rc -ne 0 ]; then
    echo "abidiff exit status $rc: the ABI differs from the baseline in more than additions."
    echo "If the change is deliberate, it needs a new ABI major (docs/abi.md); refresh with"
    echo "  tests/abi/update-baseline.sh BUILD_DIR"
    exit 1
fi
echo "ABI matches the baseline $(basename "$baseline") (additions aside)"
