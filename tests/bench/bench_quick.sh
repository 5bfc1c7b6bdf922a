#!/bin/sh
# bench_quick.sh - gemmladder-bench --quick end to end, as a GPU test: every
# rung must come out correct (the bench exits 1 otherwise), and the CSV and
# JSON it writes must parse. Exits 77 (skipped) where there is no GPU.
# Under the compute-sanitizer setups (GL_TEST_QUICK set) it runs two tiny
# shapes instead, since the sanitizers slow kernels down a hundredfold.
#
#   bench_quick.sh GEMMLADDER_BENCH CHECK_OUTPUTS_PY [PYTHON3]
set -u
bench=$1 check=$2 python=${3:-}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

if [ -n "${GL_TEST_QUICK:-}" ]; then
    sweep="--sizes 64 --mnk 33x65x17 --repeats 1 --warmup 0"
else
    sweep=--quick
fi
# shellcheck disable=SC2086 # $sweep is a list of words
"$bench" $sweep --skip-without-gpu --csv "$dir/bench.csv" --json "$dir/bench.json"
rc=$?
if [ "$rc" = 77 ]; then
    exit 77
fi
if [ "$rc" != 0 ]; then
    echo "bench_quick: gemmladder-bench exited with status $rc" >&2
    exit 1
fi
for f in bench.csv bench.json; do
    if [ ! -s "$dir/$f" ]; then
        echo "bench_quick: $f was not written" >&2
        exit 1
    fi
done
if [ -n "$python" ]; then
    "$python" "$check" files "$dir/bench.csv" "$dir/bench.json" || exit 1
else
    echo "bench_quick: no python3, so the outputs were not parsed"
fi
# Batches (gl_sgemm_strided_batched, every rung): a few small ones, one with
# a broadcast A, a transposed column-major one, a batch of 1 next to its
# single product, and a batch of matrix-vector products.
"$bench" --mnk 64x64x64x8,33x65x17x5bA,31x17x9x3:colTN,96x96x96x1,96x96x96,1x300x200x4 \
    --repeats 1 --warmup 0 --csv "$dir/batched.csv" --json "$dir/batched.json"
rc=$?
if [ "$rc" != 0 ]; then
    echo "bench_quick: gemmladder-bench with batches exited with status $rc" >&2
    exit 1
fi
if [ -n "$python" ]; then
    "$python" "$check" files "$dir/batched.csv" "$dir/batched.json" || exit 1
fi
echo "bench_quick: ok"
