#!/bin/sh
# A bounded libFuzzer run over a corpus kept in the repository: the corpus is
# copied first, so the run never writes into the source tree.
#   run_fuzz.sh FUZZER CORPUS_DIR RUNS [DICTIONARY]
set -eu
fuzzer=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$2 runs=$3
dict=${4:+-dict=$4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/new"
cp -r "$corpus" "$tmp/seed"
cd "$tmp"
# A failure exits 1: libFuzzer's own default, 77, is what meson reads as
# "skipped".
# shellcheck disable=SC2086
"$fuzzer" -runs="$runs" -seed=1 -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
    -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 $dict new seed
