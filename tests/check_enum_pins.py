#!/usr/bin/env python3
"""Every enumerator of the public header is pinned by a _Static_assert.

    check_enum_pins.py gemmladder.h test_api.c

abidiff sees an enum only where a function's signature uses it, so a
renumbered value of an enum that no signature names (gl_tiles_origin_t, read
from an int32_t field) would pass the ABI check; the asserts in test_api.c
catch it at compile time, and this check makes sure none is missing: each
enumerator written `NAME = VALUE` in the header needs `PINNED(NAME, VALUE)`.
"""
import re
import sys


def main():
    header, test = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
    enums = re.findall(r"typedef\s+enum\s+\w*\s*\{(.*?)\}", header, re.S)
    if not enums:
        print("no enums found in the header")
        return 1
    values = []
    for body in enums:
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            m = re.fullmatch(r"(GL_\w+)\s*=\s*(\d+)", item)
            if not m:
                print("enumerator without a pinned value: %r" % item)
                return 1
            values.append(m.groups())
    pinned = set(re.findall(r"^PINNED\((GL_\w+),\s*(\d+)\);", test, re.M))
    missing = [v for v in values if v not in pinned]
    for name, value in missing:
        print("%s = %s has no PINNED(%s, %s) in %s" % (name, value, name, value, sys.argv[2]))
    print("%d enumerators, %d pinned" % (len(values), len(values) - len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
