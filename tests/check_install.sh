#!/bin/sh
# Installs the build into a temporary root (meson install --destdir) and uses
# it from there, as a prefix moved after installation would be used:
# - pkg-config finds the staged files through PKG_CONFIG_PATH alone (the .pc
#   names its directories relative to itself);
# - a small consumer compiles and links with nothing but
#   `pkg-config --cflags --libs gemmladder`, and runs with the rpath the
#   README suggests and no LD_LIBRARY_PATH;
# - the installed tools run with no LD_LIBRARY_PATH and load the staged
#   library (their rpath is relative to their own directory).
#   check_install.sh MESON BUILD_DIR CONSUMER_SOURCE CC
set -eu
meson=$1 build=$2 consumer=$3 cc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH # meson test's, naming the build tree

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$tmp/root"
pc=$(find "$tmp/root" -name gemmladder.pc | head -n 1)
[ -n "$pc" ] || { echo "no gemmladder.pc was installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir=$(pkg-config --variable=libdir gemmladder)
includedir=$(pkg-config --variable=includedir gemmladder)
for f in "$libdir/libgemmladder.so" "$includedir/gemmladder.h"; do
    [ -e "$f" ] || { echo "missing after install, or the .pc names another place: $f"; exit 1; }
done
echo "pkg-config --cflags --libs: $(pkg-config --cflags --libs gemmladder)"
echo "version: $(pkg-config --modversion gemmladder)"

# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Werror "$consumer" -o "$tmp/consumer" $(pkg-config --cflags --libs gemmladder) \
    -Wl,-rpath,"$libdir"
"$tmp/consumer"

bindir=$(dirname "$(find "$tmp/root" -name gemmladder-bench -type f | head -n 1)")
if [ "$bindir" = . ]; then
    echo "no tools installed (-Dtools=false): not checked"
    exit 0
fi
for tool in gemmladder-bench gemmladder-tune; do
    "$bindir/$tool" --version || { echo "$tool does not run from the staged prefix"; exit 1; }
    loaded=$(ldd "$bindir/$tool" | sed -n 's/.*libgemmladder\.so[.0-9]* => \([^ ]*\).*/\1/p')
    [ "$(realpath "$loaded")" = "$(realpath "$libdir/libgemmladder.so")" ] ||
        { echo "$tool loads '$loaded', not the staged library in $libdir"; exit 1; }
done
echo "tools run from the staged prefix, loading its library"
