#!/bin/sh
# Installs the build into a temporary root, then builds both downstream
# examples against that copy, each finding gemmladder with pkg-config through
# PKG_CONFIG_PATH alone (the .pc names its directories relative to itself, so
# the staged copy works where it is): downstream-make with
# `make PKG_CONFIG_PATH=...`, and downstream-meson with its own `meson setup`.
# Both take the CUDA runtime, which they call themselves, from CUDA_ROOT. Runs
# them where there is a GPU; without one (they exit 77) building them is what
# is tested.
#   check_downstream.sh MESON BUILD_DIR EXAMPLES_DIR CC CUDA_ROOT
# Exits 77 (skipped) only when a tool needed to build them is missing.
set -eu
meson=$1 build=$2 examples=$3 cc=$4 cuda=$5
for tool in pkg-config make; do
    command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$tmp/root"
pc=$(find "$tmp/root" -name gemmladder.pc | head -n 1)
[ -n "$pc" ] || { echo "no gemmladder.pc was installed"; exit 1; }
pcdir=$(dirname "$pc")
pkg() { PKG_CONFIG_PATH="$pcdir" pkg-config "$@" gemmladder; }
echo "pkg-config --cflags --libs: $(pkg --cflags) $(pkg --libs)"

echo "== downstream-make"
cp -R "$examples/downstream-make" "$tmp/make"
make -C "$tmp/make" CC="$cc" PKG_CONFIG_PATH="$pcdir" CUDA_HOME="$cuda"

echo "== downstream-meson"
PKG_CONFIG_PATH="$pcdir" CUDA_PATH="$cuda" CC="$cc" "$meson" setup "$tmp/meson" \
    "$examples/downstream-meson" >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; exit 1; }
grep -i "dependency gemmladder" "$tmp/setup.log" || true
"$meson" compile -C "$tmp/meson"

# Run against the staged library, not the build tree's (which meson test puts
# on LD_LIBRARY_PATH).
ld_path="$(pkg --variable=libdir):$cuda/lib64"
ran=0
for program in "$tmp/make/sgemm-downstream" "$tmp/meson/sgemm-downstream"; do
    rc=0
    LD_LIBRARY_PATH="$ld_path" "$program" || rc=$?
    case $rc in
    0) ran=$((ran + 1)) ;;
    77) echo "no GPU here: $program was built, not run" ;;
    *) echo "FAILED: $program exited $rc"; exit 1 ;;
    esac
done
echo "both downstream examples built; $ran ran on a GPU"
