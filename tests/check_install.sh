#!/bin/sh
# Installs the build into a temporary prefix, then compiles and links a small
# consumer with nothing but `pkg-config --cflags --libs gemmladder` pointed at
# that prefix, and runs it.
#   check_install.sh MESON BUILD_DIR CONSUMER_SOURCE CC
set -eu
meson=$1 build=$2 consumer=$3 cc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$tmp/root"
pc=$(find "$tmp/root" -name gemmladder.pc | head -n 1)
[ -n "$pc" ] || { echo "no gemmladder.pc was installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
prefix=$(pkg-config --variable=prefix gemmladder)
pcflags="--define-variable=prefix=$tmp/root$prefix"
libdir=$(pkg-config $pcflags --variable=libdir gemmladder)

for f in "$libdir/libgemmladder.so" "$(pkg-config $pcflags --variable=includedir gemmladder)/gemmladder.h"; do
    [ -e "$f" ] || { echo "missing after install: $f"; exit 1; }
done
echo "pkg-config --cflags --libs: $(pkg-config $pcflags --cflags --libs gemmladder)"
echo "version: $(pkg-config --modversion gemmladder)"

# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Werror "$consumer" -o "$tmp/consumer" $(pkg-config $pcflags --cflags --libs gemmladder)
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/consumer"
