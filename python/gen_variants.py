"""Writes the binding's Variant enum from gemmladder.h's gl_variant_t, so that a
new rung's id is written once, in the header (meson runs this at build time).

    python3 gen_variants.py include/gemmladder.h _variants.py
"""
import re
import sys


def main(header: str, out: str) -> int:
    with open(header, encoding='utf-8') as f:
        text = f.read()
    enum = re.search(r'typedef enum gl_variant \{(.*?)\} gl_variant_t;', text, re.S)
    members = re.findall(r'\bGL_VARIANT_(\w+)\s*=\s*(\d+)', enum.group(1) if enum else '')
    if not members:
        print('gen_variants.py: no GL_VARIANT_NAME = VALUE in gl_variant_t of %s' % header,
              file=sys.stderr)
        return 1
    lines = ['"""gl_variant_t, written from gemmladder.h by python/gen_variants.py at build',
             'time: a new variant goes into the header, not here."""',
             'import enum', '', '',
             'class Variant(enum.IntEnum):',
             '    """gl_variant_t: the rungs of the ladder (ids pinned by the ABI). A library',
             '    newer than this binding may know more ids; they work as plain ints."""']
    lines += ['    %s = %s' % (name, value) for name, value in members]
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
