#!/bin/sh
# Both tools' output files (tools/cli.h, cli_output) are written whole or not
# at all: a run that fails, is refused or is interrupted leaves every
# existing file byte for byte as it was and no temporary behind; two outputs
# naming one file are refused (status 2); an output that cannot be written
# is refused (status 4) before any GPU work. No GPU needed: the bench's
# --replot writes without one, and the no-GPU exits come after the outputs
# are checked. Where there is a GPU the same commands hold (runs that would
# take minutes are interrupted or refused first).
#   check_tool_files.sh GEMMLADDER_BENCH GEMMLADDER_TUNE TEST_BENCH_REPORT
set -u
# absolute paths: the checks run in a directory of their own
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
bench=$(abs "$1") tune=$(abs "$2") samples=$(abs "$3")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

mkdir "$dir/s" "$dir/orig" "$dir/w" || exit 1
"$samples" --write-samples "$dir/s" || { echo "cannot write the sample run"; exit 1; }
run=$dir/s/sample.json
w=$dir/w # the outputs' directory: after each case it holds what the case expects, no more
cd "$w" || exit 1

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
keep keep.csv keep.svg
expect 4 "$bench" --replot "$run" --csv keep.csv --json /nonexistent/dir/out.json --svg keep.svg
said "cannot write /nonexistent/dir/out.json" "an unwritable --json"
unchanged "--replot with an unwritable --json" keep.csv keep.svg
only "--replot with an unwritable --json" keep.csv keep.svg
# The sweep checks its outputs before it looks for a GPU (4, not 3).
expect 4 "$bench" --sizes 64 --variants naive --repeats 1 --warmup 0 --csv keep.csv \
    --json /nonexistent/dir/out.json
said "cannot write /nonexistent/dir/out.json" "the sweep's unwritable --json"
unchanged "the sweep with an unwritable --json" keep.csv
expect 4 "$bench" --replot "$run" --csv keep.csv --svg "$w"
said "cannot write $w: Is a directory" "a directory as --svg"
unchanged "a directory as --svg" keep.csv
only "the sweep with an unwritable --json" keep.csv keep.svg

# 2. A write that fails half way (a full disk: /dev/full) leaves every other
# output as it was, and the status says so.
if [ -w /dev/full ]; then
    expect 4 "$bench" --replot "$run" --csv keep.csv --json /dev/full --svg keep.svg
    said "writing /dev/full failed" "--json /dev/full"
    said "keep.csv left as it was" "--json /dev/full"
    unchanged "--json /dev/full" keep.csv keep.svg
    only "--json /dev/full" keep.csv keep.svg
fi

# 3. Two outputs naming one file are refused (2), before anything is written
# (the bug: "wrote mix.out" twice, an SVG followed by the tail of the JSON).
keep mix.out
expect 2 "$bench" --replot "$run" --json mix.out --svg mix.out
said "--json and --svg name the same file, mix.out" "--json mix.out --svg mix.out"
unchanged "--json mix.out --svg mix.out" mix.out
ln -s mix.out link.out
for pair in "mix.out ./mix.out" "mix.out $w/mix.out" "link.out mix.out" "new.out ./new.out" \
    "new.out ../w/new.out"; do
    set -- $pair
    expect 2 "$bench" --replot "$run" --csv "$1" --svg "$2"
    said "--csv $1 and --svg $2 name the same file" "--csv $1 --svg $2"
done
expect 2 "$bench" --sizes 64 --variants naive --repeats 1 --warmup 0 --csv mix.out --json mix.out
said "--csv and --json name the same file, mix.out" "the sweep's --csv and --json"
unchanged "same-file outputs" mix.out
only "same-file outputs" keep.csv keep.svg mix.out link.out
rm link.out mix.out

# 4. A run that succeeds replaces each output whole: a link's target (the
# link stays), an existing file's permission bits kept.
keep real.csv keep.json
chmod 640 keep.json
ln -s real.csv link.csv
expect 0 "$bench" --replot "$run" --csv link.csv --json keep.json --svg new.svg
said "wrote keep.json" "a replot"
[ -L link.csv ] || fail "link.csv is no longer a symbolic link"
head -n 1 real.csv | grep -q '^provider,variant_id,' || fail "real.csv (through link.csv): $(head -n 1 real.csv)"
cmp -s keep.json "$run" || fail "keep.json is not the run written again"
grep -q '</svg>' new.svg || fail "new.svg was not written whole"
[ "$(stat -c %a keep.json)" = 640 ] || fail "keep.json's mode is $(stat -c %a keep.json), was 640"
only "a replot" keep.csv keep.svg real.csv link.csv keep.json new.svg
rm real.csv link.csv keep.json new.svg

# 5. Interrupted: SIGTERM while the run is under way (here: waiting for its
# input, a pipe no one writes) leaves the outputs as they were and removes
# the temporaries they were being written to.
if mkfifo "$dir/run.fifo"; then
    "$bench" --replot "$dir/run.fifo" --csv keep.csv --svg new.svg >"$dir/out" 2>"$dir/err" &
    pid=$!
    tries=0
    until ls -A | grep -q '^\.new\.svg\.' || [ $tries -ge 50 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    ls -A | grep -q '^\.keep\.csv\.' ||
        fail "no temporary beside keep.csv while the replot ran: $(ls -A | tr '\n' ' ')"
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" = 143 ] || fail "the replot ended with $rc after SIGTERM, expected 143"
    unchanged "SIGTERM" keep.csv
    only "SIGTERM" keep.csv keep.svg
fi

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
only "the tuner's run that stopped" keep.csv keep.svg table.txt

[ $status = 0 ] && echo "tool files: existing outputs survive failed, refused and interrupted runs"
exit $status
