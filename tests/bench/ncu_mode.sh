#!/bin/sh
# ncu_mode.sh - gemmladder-bench --ncu without a GPU or Nsight Compute: a
# stand-in ncu checks the command line it is given and writes a recorded
# ncu CSV (ncu_details.csv) where --log-file says; the bench must report 16.50
# and 2.50 sectors per request. Also: a failing ncu, and no ncu at all, must
# each end with a message and status 4 (another failure: tools/cli.h).
#
#   ncu_mode.sh GEMMLADDER_BENCH NCU_DETAILS_CSV
set -u
bench=$1 fixture=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "ncu_mode: $*" >&2; exit 1; }

cat > "$dir/ncu" <<STANDIN
#!/bin/sh
# Stand-in for ncu: needs --clock-control none, both metrics, the kernel
# filter and the bench's --profile-once; copies the fixture to --log-file.
args="\$*"
for want in "--clock-control none" "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" \\
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum" "naive_kernel|coalesced_kernel" \\
            "--profile-once" "--ncu-size 512"; do
    case "\$args" in *"\$want"*) ;; *) echo "stand-in ncu: no '\$want' in: \$args" >&2; exit 9;; esac
done
while [ \$# -gt 0 ]; do
    if [ "\$1" = --log-file ]; then cp "$fixture" "\$2"; fi
    shift
done
exit \${STANDIN_STATUS:-0}
STANDIN
chmod +x "$dir/ncu"

NCU="$dir/ncu" "$bench" --ncu --ncu-size 512 > "$dir/out" 2> "$dir/err"
rc=$?
cat "$dir/out" "$dir/err"
[ "$rc" = 0 ] || fail "--ncu with a working ncu exited with $rc"
grep -q "naive_kernel .* 16\.50$" "$dir/out" || fail "no 16.50 sectors/request for naive_kernel"
grep -q "coalesced_kernel .* 2\.50$" "$dir/out" || fail "no 2.50 sectors/request for coalesced_kernel"

STANDIN_STATUS=1 NCU="$dir/ncu" "$bench" --ncu --ncu-size 512 > "$dir/out" 2> "$dir/err"
rc=$?
[ "$rc" = 4 ] || fail "a failing ncu gave status $rc, expected 4"
grep -q "ncu failed" "$dir/err" || fail "a failing ncu is not reported"

NCU="$dir/missing-ncu" "$bench" --ncu > "$dir/out" 2> "$dir/err"
rc=$?
[ "$rc" = 4 ] || fail "a missing ncu gave status $rc, expected 4"
grep -q "ncu was not found" "$dir/err" || fail "a missing ncu is not reported"
echo "ncu_mode: ok"
