#!/bin/sh
# Both tools' output files (tools/cli.h, cli_output) are written whole or not
# at all: a run that fails, is refused or is interrupted leaves every
# existing file byte for byte as it was and no temporary behind; two outputs
# naming one file are refused (status 2); an output that cannot be written
# is refused (status 4) before any GPU work. The bench checks its outputs
# before it looks for a GPU, so the refusals need none; the cases that need a
# finished or running sweep (a full disk, a file replaced, SIGTERM) run a
# tiny one where there is a GPU, and without one check that the run that
# stops for want of a GPU (status 3) leaves the outputs as they were. (The
# bench's --replot wrote without a GPU; it was removed with the picture,
# now python -m gemmladder.plot's.) The tuner's cases need no GPU.
#   check_tool_files.sh GEMMLADDER_BENCH GEMMLADDER_TUNE
set -u
# absolute paths: the checks run in a directory of their own
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
bench=$(abs "$1") tune=$(abs "$2")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

mkdir "$dir/orig" "$dir/w" || exit 1
w=$dir/w # the outputs' directory: after each case it holds what the case expects, no more
cd "$w" || exit 1
# a sweep that takes a moment on a GPU
tiny="--sizes 64 --variants naive --repeats 1 --warmup 0"

# expect STATUS CMD...: runs CMD, checks its exit status
expect() {
    want=$1
    shift
    "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" = "$want" ] || { fail "$* exited $rc, expected $want"; cat "$dir/out" "$dir/err"; }
}
said() { grep -qF -- "$1" "$dir/err" || fail "$2: stderr lacks \"$1\": $(cat "$dir/err")"; }

# keep FILE...: fills each file with text of its own, remembered in orig/
keep() {
    for f; do
        printf 'precious %s\nsecond line\n' "$f" >"$f" && cp "$f" "$dir/orig/$f"
    done
}
# unchanged CASE FILE...: each file holds what keep put there, byte for byte
unchanged() {
    what=$1
    shift
    for f; do
        cmp -s "$f" "$dir/orig/$f" || fail "$what: $f changed (now $(wc -c <"$f") bytes)"
    done
}
# only CASE NAME...: the outputs' directory holds these names and nothing else
only() {
    what=$1
    shift
    want=$(for f; do echo "$f"; done | sort)
    got=$(ls -A | sort)
    [ "$got" = "$want" ] || fail "$what: the directory holds $(echo $got), expected $(echo $want)"
}

# 1. An output that cannot be written stops the run before anything is
# written: the other outputs keep their text (the bug: keep.csv at 0 bytes).
# The sweep checks its outputs before it looks for a GPU (4, not 3).
keep keep.csv keep.json
# shellcheck disable=SC2086 # $tiny is a list of words
expect 4 "$bench" $tiny --csv keep.csv --json /nonexistent/dir/out.json
said "cannot write /nonexistent/dir/out.json" "the sweep's unwritable --json"
unchanged "the sweep with an unwritable --json" keep.csv
# shellcheck disable=SC2086
expect 4 "$bench" $tiny --csv keep.csv --json "$w"
said "cannot write $w: Is a directory" "a directory as --json"
unchanged "a directory as --json" keep.csv
only "the sweep with an unwritable --json" keep.csv keep.json

# 2. A write that fails half way (a full disk: /dev/full) leaves every other
# output as it was, and the status says so (4); without a GPU the run stops
# first (3), leaving them as they were too.
if [ -w /dev/full ]; then
    # shellcheck disable=SC2086
    "$bench" $tiny --csv keep.csv --json /dev/full >"$dir/out" 2>"$dir/err"
    rc=$?
    case $rc in
    3) ;;
    4)
        said "writing /dev/full failed" "--json /dev/full"
        said "keep.csv left as it was" "--json /dev/full"
        ;;
    *) fail "--json /dev/full: exited $rc, expected 4 (or 3 without a GPU)"; cat "$dir/err" ;;
    esac
    unchanged "--json /dev/full" keep.csv keep.json
    only "--json /dev/full" keep.csv keep.json
fi

# 3. Two outputs naming one file are refused (2), before anything is written
# (the bug: "wrote mix.out" twice, one output followed by the tail of another).
keep mix.out
ln -s mix.out link.out
for pair in "mix.out mix.out" "mix.out ./mix.out" "mix.out $w/mix.out" "link.out mix.out" \
    "new.out ./new.out" "new.out ../w/new.out"; do
    set -- $pair
    # shellcheck disable=SC2086
    expect 2 "$bench" $tiny --csv "$1" --json "$2"
    if [ "$1" = "$2" ]; then
        said "--csv and --json name the same file, $1" "--csv $1 --json $2"
    else
        said "--csv $1 and --json $2 name the same file" "--csv $1 --json $2"
    fi
done
unchanged "same-file outputs" mix.out
only "same-file outputs" keep.csv keep.json mix.out link.out
rm link.out mix.out

# 4. A run that succeeds (a GPU) replaces each output whole: a link's target
# (the link stays), an existing file's permission bits kept. Without a GPU
# (77 here) nothing is written and both stay as they were.
keep real.csv
chmod 640 keep.json
ln -s real.csv link.csv
# shellcheck disable=SC2086
"$bench" $tiny --skip-without-gpu --csv link.csv --json keep.json >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" = 0 ]; then
    said "wrote keep.json" "a sweep"
    head -n 1 real.csv | grep -q '^provider,variant_id,' || fail "real.csv (through link.csv): $(head -n 1 real.csv)"
    grep -q '"tool": "gemmladder-bench"' keep.json || fail "keep.json is not a run: $(head -c 200 keep.json)"
elif [ "$rc" = 77 ]; then
    unchanged "a sweep without a GPU" real.csv keep.json
else
    fail "a sweep exited $rc, expected 0 (or 77 without a GPU)"
    cat "$dir/err"
fi
[ -L link.csv ] || fail "link.csv is no longer a symbolic link"
[ "$(stat -c %a keep.json)" = 640 ] || fail "keep.json's mode is $(stat -c %a keep.json), was 640"
only "a sweep" keep.csv keep.json real.csv link.csv
rm real.csv link.csv keep.json
keep keep.json

# 5. Interrupted (a GPU): SIGTERM while the sweep is under way leaves the
# outputs as they were and removes the temporaries they were being written
# to. Without a GPU the run ends at once (77), leaving them as they were.
"$bench" --sizes 4096 --variants naive --repeats 1000 --skip-without-gpu --csv keep.csv \
    --json new.json >"$dir/out" 2>"$dir/err" &
pid=$!
tries=0
while kill -0 "$pid" 2>/dev/null && ! ls -A | grep -q '^\.new\.json\.' && [ $tries -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
if kill -0 "$pid" 2>/dev/null; then
    ls -A | grep -q '^\.keep\.csv\.' ||
        fail "no temporary beside keep.csv while the sweep ran: $(ls -A | tr '\n' ' ')"
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" = 143 ] || fail "the sweep ended with $rc after SIGTERM, expected 143"
else
    wait "$pid"
    rc=$?
    [ "$rc" = 77 ] || fail "the sweep to interrupt ended by itself with $rc: $(cat "$dir/err")"
fi
unchanged "SIGTERM" keep.csv keep.json
only "SIGTERM" keep.csv keep.json

# 6. The tuner: its table replaced only by a complete one. A bad --output
# fails at once (4), before the GPU is looked for.
expect 4 "$tune" --output /nonexistent/dir/table.txt
said "cannot write /nonexistent/dir/table.txt" "the tuner's unwritable --output"
# With the table it replaces in use (GEMMLADDER_TUNING), a run that stops (no
# GPU: status 3) or is interrupted (a GPU: SIGTERM after 2 s) leaves it whole.
printf 'gemmladder-tuning 1\nsm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\n' >table.txt
cp table.txt "$dir/orig/table.txt"
GEMMLADDER_TUNING=$w/table.txt "$tune" --output table.txt --repeats 1 >"$dir/out" 2>"$dir/err" &
pid=$!
tries=0
while kill -0 "$pid" 2>/dev/null && [ $tries -lt 20 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
case $rc in
3 | 143) ;;
*) fail "the tuner ended with $rc, expected 3 (no GPU) or 143 (SIGTERM)"; cat "$dir/err" ;;
esac
unchanged "the tuner's run that stopped" table.txt
only "the tuner's run that stopped" keep.csv keep.json table.txt

[ $status = 0 ] && echo "tool files: existing outputs survive failed, refused and interrupted runs"
exit $status
