#!/bin/sh
# Installs the build into a temporary root (meson install --destdir), then
# configures and builds examples/downstream-cmake against that copy with
# cmake, finding gemmladder through CMAKE_PREFIX_PATH alone (the package's
# config file works its directories out from its own place, so the staged
# copy works where it is), and checks that the program links the staged
# library. Runs it where there is a GPU; without one (it exits 77) building
# it is what is tested. Also checks the version file: a request for another
# major version is refused.
#   check_downstream_cmake.sh MESON BUILD_DIR PROJECT_DIR CC CUDA_ROOT
# Exits 77 (skipped) only when cmake is missing.
set -eu
meson=$1 build=$2 project=$3 cc=$4 cuda=$5
command -v cmake >/dev/null || { echo "skipped: no cmake"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH # meson test's, naming the build tree

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$tmp/root"
config=$(find "$tmp/root" -name gemmladderConfig.cmake | head -n 1)
[ -n "$config" ] || { echo "no gemmladderConfig.cmake was installed"; exit 1; }
[ -e "$(dirname "$config")/gemmladderConfigVersion.cmake" ] ||
    { echo "no gemmladderConfigVersion.cmake beside $config"; exit 1; }
# The prefix: the config file is <prefix>/<libdir>/cmake/gemmladder/, and the
# header <prefix>/<includedir>/gemmladder.h; take the deepest directory
# holding both.
header=$(find "$tmp/root" -name gemmladder.h | head -n 1)
prefix=$(dirname "$header")
while [ "${config#"$prefix"/}" = "$config" ]; do prefix=$(dirname "$prefix"); done
echo "staged prefix: $prefix"
echo "config: ${config#"$prefix"/}"

configure() { # SOURCE BINARY [ARGS...]
    src=$1 bin=$2
    shift 2
    cmake -S "$src" -B "$bin" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCUDAToolkit_ROOT="$cuda" "$@" >"$bin.log" 2>&1
}

echo "== downstream-cmake"
cp -R "$project" "$tmp/src"
configure "$tmp/src" "$tmp/cmake" || { cat "$tmp/cmake.log"; exit 1; }
found=$(sed -n 's/^gemmladder_DIR:PATH=//p' "$tmp/cmake/CMakeCache.txt")
echo "found: gemmladder_DIR=$found"
[ "$(realpath "$found")" = "$(realpath "$(dirname "$config")")" ] ||
    { echo "cmake found gemmladder at '$found', not the staged copy"; exit 1; }
cmake --build "$tmp/cmake" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
program=$tmp/cmake/sgemm-downstream

staged=$(realpath "$(find "$tmp/root" -name 'libgemmladder.so' | head -n 1)")
loaded=$(ldd "$program" | sed -n 's/.*libgemmladder\.so[.0-9]* => \([^ ]*\).*/\1/p')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$staged" ] ||
    { echo "$program loads '$loaded', not the staged library $staged"; ldd "$program"; exit 1; }
echo "links the staged library (rpath from the imported target), no LD_LIBRARY_PATH"

# The version file: 1.0 (above) was accepted; the next major version is not.
major=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9]*\)\..*/\1/p' "$(dirname "$config")/gemmladderConfigVersion.cmake")
mkdir "$tmp/next"
cat >"$tmp/next/CMakeLists.txt" <<END
cmake_minimum_required(VERSION 3.17)
project(next LANGUAGES C)
find_package(gemmladder $((major + 1)).0 REQUIRED)
END
if configure "$tmp/next" "$tmp/next-build"; then
    echo "find_package(gemmladder $((major + 1)).0) accepted version $major"; exit 1
fi
grep -q "compatible with requested version" "$tmp/next-build.log" ||
    { cat "$tmp/next-build.log"; echo "refused, but not for its version"; exit 1; }
echo "find_package(gemmladder $((major + 1)).0) refused"

rc=0
"$program" || rc=$?
case $rc in
0) echo "ran on a GPU" ;;
77) echo "no GPU here: $program was built, not run" ;;
*) echo "FAILED: $program exited $rc"; exit 1 ;;
esac
