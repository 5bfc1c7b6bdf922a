#!/bin/sh
# Every kernel in the built library, for every GPU architecture it carries,
# must keep its data in registers: no stack frame and no local memory (which
# is where spilled registers go). Reads cuobjdump's resource report, so no GPU
# is needed. Exits 77 (skipped) when no cuobjdump can be found.
#   check_resources.sh LIBRARY [CUOBJDUMP]
set -eu
lib=$1
tool=${2:-}
[ -n "$tool" ] && [ -x "$tool" ] || tool=$(command -v cuobjdump || true)
if [ -z "$tool" ]; then
    echo "cuobjdump not found (install the CUDA toolkit's, or pip's nvidia-cuda-cuobjdump); skipping"
    exit 77
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tool" --dump-resource-usage "$lib" | awk '
    /^arch = / { arch = $3 }
    /Function / { name = $2; sub(/:$/, "", name) }
    /REG:/ {
        kernels++
        for (i = 1; i <= NF; ++i) { split($i, kv, ":"); v[kv[1]] = kv[2] }
        if (v["STACK"] != 0 || v["LOCAL"] != 0) {
            printf "%s: %s uses %s bytes of stack and %s of local memory (registers %s)\n", arch, name, v["STACK"], v["LOCAL"], v["REG"]
            bad++
        }
    }
    END {
        printf "%d kernel images checked, %d with stack or local memory\n", kernels, bad
        if (kernels == 0) { print "no kernels found in the report"; exit 1 }
        exit bad > 0
    }' >"$out" && rc=0 || rc=1
c++filt <"$out"
exit $rc
