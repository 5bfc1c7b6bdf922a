#!/bin/sh
# The shared library exports only gl_ functions, under the version node, and
# carries the SONAME libgemmladder.so.<ABI major>.
#   check_exports.sh LIBRARY ABI_MAJOR
set -eu
lib=$1
abi=$2
status=0

bad=$(nm -D --defined-only "$lib" | awk '$2 != "A" && $3 !~ /^gl_[a-z0-9_]+@@GEMMLADDER_/ { print $3 }')
if [ -n "$bad" ]; then
    echo "exported symbols that are not gl_ functions:"; echo "$bad"; status=1
fi
count=$(nm -D --defined-only "$lib" | awk '$3 ~ /^gl_/' | wc -l)
if [ "$count" -lt 1 ]; then
    echo "no gl_ symbols exported"; status=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "libgemmladder.so.$abi" ]; then
    echo "SONAME is '$soname', expected libgemmladder.so.$abi"; status=1
fi
echo "$count gl_ symbols exported, SONAME $soname"
exit $status
