#!/bin/sh
# gemmladder-tune --check: the shipped tables pass; a broken table fails with
# the loader's "<file>:<line>: <reason>" and a non-zero exit. No GPU needed.
#   check_tune.sh TUNER SOURCE_ROOT
set -u
tune=$1 src=$2
status=0
for t in "$src"/libgemmladder/tuning/*.txt; do
    "$tune" --check "$t" >/dev/null || { echo "shipped table rejected: $t"; status=1; }
done
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
printf 'gemmladder-tuning 1\n# ok\nsm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\nsm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\n' >"$bad"
if msg=$("$tune" --check "$bad" 2>&1); then
    echo "a table with a duplicate row was accepted"; status=1
else
    case $msg in
        *"$bad:4: duplicates the row on line 3"*) ;;
        *) echo "unexpected message: $msg"; status=1 ;;
    esac
fi
"$tune" --check /nonexistent.txt 2>/dev/null
rc=$?
[ $rc = 4 ] || { echo "a missing file: status $rc, expected 4 (cannot be read)"; status=1; }
[ $status = 0 ] && echo "check mode: shipped tables accepted, broken ones rejected with file:line"
exit $status
