#!/bin/sh
# Both tools' command lines (tools/cli.h): --version and --help answer with
# status 0, a bad option with status 2 and a message starting with the
# tool's name, and no usable GPU with status 3 and the library's reason.
# Where there is a GPU the same commands run (briefly) instead.
#   check_cli.sh GEMMLADDER_BENCH GEMMLADDER_TUNE VERSION
set -u
bench=$1 tune=$2 version=$3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# expect STATUS[|STATUS] TOOL ARGS...: runs the tool, checks its exit status
expect() {
    want=$1 tool=$2
    shift 2
    "$tool" "$@" >"$out" 2>"$err"
    rc=$?
    case "|$want|" in
    *"|$rc|"*) ;;
    *) fail "$(basename "$tool") $* exited $rc, expected $want"; cat "$out" "$err" ;;
    esac
}

for tool in "$bench" "$tune"; do
    name=$(basename "$tool")
    expect 0 "$tool" --version
    grep -qx "$name (gemmladder) $version" "$out" || fail "$name --version printed: $(cat "$out")"
    expect 0 "$tool" --help
    grep -q "^usage: $name" "$out" && grep -q "^Exit status: 0 success; 1 a wrong result; 2" "$out" ||
        fail "$name --help lacks its usage line or the exit statuses"
    for bad in --bogus --version=1 "--output"; do
        expect 2 "$tool" $bad
        head -n 1 "$err" | grep -q "^$name: " || fail "$name $bad said: $(cat "$err")"
    done
done

# No GPU: status 3 and the library's reason; with a GPU, a tiny run.
expect "0|3" "$bench" --sizes 64 --variants naive --repeats 1 --warmup 0
no_gpu=$([ $rc = 3 ] && echo 1)
[ -n "$no_gpu" ] && ! grep -q "^gemmladder-bench: no usable GPU: gl_handle_create: " "$err" &&
    fail "the bench's no-GPU message: $(cat "$err")"
expect "$([ -n "$no_gpu" ] && echo 77 || echo 0)" "$bench" --sizes 64 --variants naive \
    --skip-without-gpu --repeats 1 --warmup 0
if [ -n "$no_gpu" ]; then # (with a GPU, the tuner's run takes minutes)
    expect 3 "$tune" --variants autotuned
    grep -q "^gemmladder-tune: no usable GPU: gl_handle_create: " "$err" ||
        fail "the tuner's no-GPU message: $(cat "$err")"
fi
# The tuned variants are those a table holds rows for: not naive, not auto.
for untuned in naive auto; do
    expect 2 "$tune" --variants "$untuned"
    grep -q "^gemmladder-tune: --variants: '$untuned' is not a tuned variant (tuned: autotuned, warptile[,)]" "$err" ||
        fail "the tuner's refusal of $untuned: $(cat "$err")"
done

# --variants: an empty list or name is refused; a list of any length is read
# whole (a trailing bad name is named in full; a long good list is accepted,
# then the run stops at its output, which is checked before the GPU).
for list in , warptile, ,warptile warptile,,autotuned; do
    expect 2 "$tune" --variants "$list"
    grep -q "^gemmladder-tune: --variants: an empty name in '$list'" "$err" ||
        fail "the tuner's refusal of --variants '$list': $(cat "$err")"
done
long=$(printf 'autotuned,warptile,%.0s' $(seq 20)) # 380 characters
expect 2 "$tune" --variants "${long}not_a_variant_at_the_end"
grep -q "^gemmladder-tune: --variants: 'not_a_variant_at_the_end' is not a tuned variant" "$err" ||
    fail "the tuner's refusal of a long list's last name: $(cat "$err")"
expect 4 "$tune" --variants "${long%,}" --output /nonexistent/dir/table.txt
grep -q "^gemmladder-tune: cannot write /nonexistent/dir/table.txt: " "$err" ||
    fail "the tuner with a long list and a bad --output: $(cat "$err")"
# One table per --check, one --output: a second is refused, not dropped.
expect 2 "$tune" --check a.txt --check b.txt
grep -q "^gemmladder-tune: --check given twice (a.txt, then b.txt)" "$err" ||
    fail "a repeated --check: $(cat "$err")"
expect 2 "$tune" -o a.txt --output b.txt
grep -q "^gemmladder-tune: --output given twice (a.txt, then b.txt)" "$err" ||
    fail "a repeated --output: $(cat "$err")"

bad=$(mktemp)
echo "not a table" >"$bad"
expect 1 "$tune" --check "$bad"
grep -q "^gemmladder-tune: gl_tuning_check: $bad:1: " "$err" || fail "--check said: $(cat "$err")"
rm -f "$bad"

# Input files (the tuner's --check; the bench reads none since --replot was
# removed): one that cannot be read (missing, a directory) is status 4,
# "cannot read"; one that is read and is not a table is 1.
work=$(mktemp -d)
trap 'rm -f "$out" "$err"; rm -rf "$work"' EXIT
for input in "$work/missing.txt" "$work"; do
    expect 4 "$tune" --check "$input"
    grep -q "^gemmladder-tune: cannot read $input: " "$err" ||
        fail "tune --check $input said: $(cat "$err")"
done
for tool in "$bench" "$tune"; do
    "$tool" --help | grep -q "an input file that cannot be read" ||
        fail "$(basename "$tool") --help does not say that an input that cannot be read is 4"
done
"$tune" --help | grep -q "With --check: 0 a valid table, 1 an invalid one, 4 a file that cannot be" ||
    fail "tune --help does not give --check's statuses"
# The picture is gemmladder.plot's: --svg, --svg-size and --replot (issue 46)
# stop with status 2 and a message naming the module, whole or shortened,
# with a value or without, and write nothing.
"$bench" --help | grep -q "python -m gemmladder.plot RUN.json -o ladder.svg" ||
    fail "bench --help does not name python -m gemmladder.plot"
"$bench" --help | grep -q "were removed: they stop with status 2" ||
    fail "bench --help does not say that --svg and --replot were removed"
removed="was removed: the bench writes --json FILE, and python -m gemmladder.plot FILE -o ladder.svg draws the picture (pip install 'gemmladder[plot]')"
echo '{}' >"$work/run.json"
for args in "--svg $work/out.svg" "--svg" "--quick --json $work/out.json --svg=$work/out.svg" \
    "--svg-size 8" "--svg-s 8" "--replot $work/run.json" "--replot" "--repl $work/run.json --svg $work/out.svg"; do
    # shellcheck disable=SC2086 # $args is a list of words
    expect 2 "$bench" $args
    case $args in --svg-s*) name=--svg-size ;; --sv* | --quick*) name=--svg ;; *) name=--replot ;; esac
    [ "$(head -n 1 "$err")" = "gemmladder-bench: $name $removed" ] ||
        fail "bench $args said: $(cat "$err")"
    grep -qx "Try 'gemmladder-bench --help'." "$err" || fail "bench $args: no Try line: $(cat "$err")"
    [ ! -e "$work/out.svg" ] && [ ! -e "$work/out.json" ] || fail "bench $args wrote a file"
done

# Long options may be shortened while they stay unambiguous (both tools'
# --help says so); an ambiguous prefix is refused with its candidates.
for tool in "$bench" "$tune"; do
    expect 0 "$tool" --help
    grep -q "^Option names may be shortened while they stay unambiguous" "$out" ||
        fail "$(basename "$tool") --help does not say that options may be shortened"
    expect 0 "$tool" --vers
    grep -qx "$(basename "$tool") (gemmladder) $version" "$out" || fail "--vers printed: $(cat "$out")"
done
expect 2 "$bench" --sv 5
grep -qx "gemmladder-bench: ambiguous option '--sv': --svg or --svg-size?" "$err" ||
    fail "bench --sv said: $(cat "$err")"
expect 2 "$bench" --re 5
grep -qx "gemmladder-bench: ambiguous option '--re': --repeats or --replot?" "$err" ||
    fail "bench --re said: $(cat "$err")"
expect 2 "$tune" --v x
grep -qx "gemmladder-tune: ambiguous option '--v': --variants or --version?" "$err" ||
    fail "tune --v said: $(cat "$err")"
expect 2 "$tune" --re 0 # --repeats, shortened: its value is checked
grep -q "^gemmladder-tune: --repeats: bad value '0'" "$err" || fail "tune --re 0 said: $(cat "$err")"
expect 2 "$tune" --ch
grep -q "^gemmladder-tune: --check needs a value" "$err" || fail "tune --ch said: $(cat "$err")"
# A bad command line: the message, then one line pointing to --help.
for tool in "$bench" "$tune"; do
    expect 2 "$tool" --bogus
    [ "$(wc -l <"$err")" = 2 ] && [ "$(grep -c -- "--help" "$err")" = 1 ] &&
        tail -n 1 "$err" | grep -qx "Try '$(basename "$tool") --help'." ||
        fail "$(basename "$tool") --bogus said: $(cat "$err")"
done

# --workspace-limit BYTES (issue 46): gl_set_workspace_limit on the bench's
# handle. A whole number of bytes, 0 .. INT64_MAX, whole or shortened, gets
# past the command line: without a GPU the run stops for want of one (3);
# with one, a tiny run of auto under the cap, whose header says so (0).
"$bench" --help | grep -q "^  --workspace-limit BYTES" ||
    fail "bench --help does not list --workspace-limit BYTES"
for args in "--workspace-limit 0" "--workspace-limit=0" "--wo 0" "--workspace-limit 1048576" \
    "--workspace-limit 9223372036854775807"; do
    # shellcheck disable=SC2086 # $args is a list of words
    expect "$([ -n "$no_gpu" ] && echo 3 || echo 0)" "$bench" --sizes 64 --variants auto \
        --repeats 1 --warmup 0 $args
    if [ -n "$no_gpu" ]; then
        grep -q "^gemmladder-bench: no usable GPU: " "$err" || fail "bench $args said: $(cat "$err")"
    else
        limit=${args##*[ =]}
        grep -q "; auto's scratch limited to $limit bytes\$" "$out" ||
            fail "bench $args: the header does not give the cap: $(head -n 3 "$out")"
    fi
done
# Anything else is a bad command line (2): the message names the option
# (whole, though shortened) and the value, then the Try line.
for value in -1 64M 1.5 0x10 +1 " 1" 9223372036854775808 99999999999999999999; do
    for opt in --workspace-limit --wor; do
        expect 2 "$bench" --sizes 64 --variants auto $opt "$value"
        [ "$(head -n 1 "$err")" = "gemmladder-bench: --workspace-limit: bad value '$value' (want an integer 0 .. 9223372036854775807)" ] &&
            [ "$(tail -n 1 "$err")" = "Try 'gemmladder-bench --help'." ] && [ ! -s "$out" ] ||
            fail "bench $opt '$value' said: $(cat "$out" "$err")"
    done
done
for args in "--workspace-limit" "--workspace-limit=" "--wo --quick"; do
    # shellcheck disable=SC2086
    expect 2 "$bench" $args
    head -n 1 "$err" | grep -qx "gemmladder-bench: --workspace-limit needs a value" ||
        fail "bench $args said: $(cat "$err")"
done
expect 2 "$bench" --w 0
grep -qx "gemmladder-bench: ambiguous option '--w': --warmup or --workspace-limit?" "$err" ||
    fail "bench --w said: $(cat "$err")"
expect 2 "$bench" --ncu --workspace-limit 0
grep -q "^gemmladder-bench: --ncu profiles .*: --workspace-limit does not apply$" "$err" ||
    fail "bench --ncu --workspace-limit said: $(cat "$err")"

# Batches (issue 45): --batched and a 4th factor of --mnk (bA after it: one
# A for every product) get past the command line: without a GPU the run
# stops for want of one (3); with one, a tiny batched run whose table has a
# batch column (0). A bad batch is a bad command line (2), named whole.
"$bench" --help | grep -q "^  --batched " || fail "bench --help does not list --batched"
"$bench" --help | grep -q "^batch (only in runs with batched shapes, after form)" ||
    fail "bench --help's Columns do not say where the batch is"
if [ -n "$no_gpu" ]; then
    expect 3 "$bench" --batched --variants auto
    grep -q "^gemmladder-bench: no usable GPU: " "$err" || fail "bench --batched said: $(cat "$err")"
fi
expect "$([ -n "$no_gpu" ] && echo 3 || echo 0)" "$bench" --mnk 16x16x16x3,8x9x10x2bA:colTN \
    --variants auto --repeats 1 --warmup 0
if [ -z "$no_gpu" ]; then
    grep -q " form        batch " "$out" && grep -q "row NN          3 " "$out" &&
        grep -q "col TN       2 bA " "$out" || fail "bench with batches printed: $(cat "$out")"
fi
for batch in 0 -1 abc 1.5 2147483648 bA; do
    expect 2 "$bench" --mnk "64x64x64x$batch"
    [ "$(head -n 1 "$err")" = "gemmladder-bench: --mnk: bad batch '$batch' in '64x64x64x$batch' (want an integer 1 .. 2147483647, then bA for one A against every B, e.g. 64x64x64x4096 or 256x256x256x256bA)" ] &&
        [ "$(tail -n 1 "$err")" = "Try 'gemmladder-bench --help'." ] && [ ! -s "$out" ] ||
        fail "bench --mnk 64x64x64x$batch said: $(cat "$out" "$err")"
done
expect 2 "$bench" --batched --shapes
grep -qx "gemmladder-bench: --batched and --shapes exclude each other" "$err" ||
    fail "bench --batched --shapes said: $(cat "$err")"

# --random SEED (the issue's random set): listed, refused beside another
# sweep or with a bad seed (2); without a GPU the run stops for want of one.
"$bench" --help | grep -q "^  --random SEED " || fail "bench --help does not list --random"
expect 2 "$bench" --random 5 --batched
grep -qx "gemmladder-bench: --random and --batched exclude each other" "$err" ||
    fail "bench --random 5 --batched said: $(cat "$err")"
expect 2 "$bench" --random -1
grep -qx "gemmladder-bench: --random: bad value '-1' (want an integer 0 .. 9223372036854775807)" \
    "$err" || fail "bench --random -1 said: $(cat "$err")"
if [ -n "$no_gpu" ]; then
    expect 3 "$bench" --random 1 --variants auto
    grep -q "^gemmladder-bench: no usable GPU: " "$err" || fail "bench --random said: $(cat "$err")"
fi

[ $status = 0 ] && echo "check_cli: both tools' --version, --help, errors and exit statuses"
exit $status
