#!/usr/bin/env python3
"""Nothing lists variants but their rows: no code names a variant outside its
own places.

    check_variant_names.py SOURCE_ROOT

Every fact of a variant sits in its descriptor row (libgemmladder/variants.c),
and everything that lists variants or treats one differently asks the rows
(gl_variant_count, gl_variant_describe). So a variant's name appears only in
the header's enum, its row, its kernel file, the tuning tables and the docs.
This check reads the code under libgemmladder/, tools/, python/, tests/ and
examples/ and fails on any other place that names one:

  - C, C++ and CUDA: an identifier GL_VARIANT_<NAME> of the header's enum,
    or a string literal that is a variant's name or a comma-separated list of
    them ("warptile", "naive,coalesced");
  - Python: Variant.<NAME>, or such a string (or bytes) literal;
  - shell scripts: a variant's name as a word of a command;
  - meson files: such a string literal.

Comments and prose inside longer strings are not code and are not read.
ALLOWED below lists the places that name a variant on purpose, each with
the variants it may name and why; an entry that no longer matches anything
fails the check too, so the list stays short and true.
"""
import io
import os
import re
import sys
import tokenize

ROOTS = ('libgemmladder', 'tools', 'python', 'tests', 'examples')
SKIP_DIRS = {'__pycache__', '.mypy_cache', '.git'}
# Data, not code: the fuzzers' corpora, the ABI baseline, recorded outputs.
SKIP_PATHS = ('tests/fuzz/api/', 'tests/fuzz/tuning/', 'tests/abi/')
C_SUFFIXES = ('.c', '.h', '.cu', '.cuh', '.cpp')

# path (a file, or a folder ending in /): variants it may name, and why.
ALLOWED = [
    ('libgemmladder/variants.c', '*',
     'the descriptor rows: every fact of every variant'),
    ('tests/check_variant_names.py', '*', 'this check: its allowances name variants'),
    ('libgemmladder/engine/', {'vectorized', 'warptile', 'pipelined', 'auto'},
     "the engine's plan names the rungs whose kernels it runs, and auto's own"),
    ('tools/gemmladder-bench.c', {'naive', 'coalesced'},
     '--ncu measures one step of the ladder, rung 1 to rung 2 (memory coalescing)'),
    ('python/gemmladder/_api.py', {'auto'},
     "DEFAULT_VARIANT, the binding's documented default: the engine"),
    ('tests/test_api.c', '*',
     'the ABI record: every released id pinned, and every released name'),
    ('examples/', '*',
     "user programs: each picks the rung it shows and cuBLAS to compare with"),
    # Tests of one variant's own behaviour.
    ('tests/test_internal.c', {'vectorized', 'warptile', 'pipelined', 'auto'},
     "the engine's plans: which rung's kernel auto runs for a shape"),
    ('tests/test_dispatch.c', {'naive', 'warptile', 'auto'},
     "dispatch on the fake GPU: auto's plans and slices, pinning warptile's tiles, "
     "a plain rung's launch"),
    ('tests/test_threads.c', {'naive', 'autotuned', 'warptile'},
     'threads sharing tables and handles: a tuned rung queried, pinned and run'),
    ('tests/test_tuning.c', {'shared', 'vectorized', 'autotuned', 'warptile', 'auto'},
     "the table format's messages and lookup for a tuned rung, auto's fill tiles, "
     "fixed tiles refused"),
    ('tests/test_bench_report.c', {'shared', 'warptile', 'auto'},
     "the bench's --variants parsing, and its report of auto's goals against the rungs"),
    ('tests/test_gpu_api.c', {'naive', 'coalesced', 'shared', 'cublas', 'auto'},
     "the API's checks on a GPU, and auto's plans"),
    ('tests/test_gpu_differential.c', {'auto'}, "auto's plans against its results"),
    ('tests/test_gpu_faults.c', {'shared', 'cublas', 'auto'},
     "faults: auto's scratch and fallbacks, cuBLAS's and a rung's errors"),
    ('tests/test_gpu_limits.c', {'auto'}, "auto's plan at the size limits"),
    ('tests/test_gpu_rungs.c', {'auto'}, "auto's paths on narrow shapes"),
    ('tests/test_gpu_tuning.c', {'vectorized', 'warptile'},
     "fixed tiles, and a table loaded at run time changing warptile's tiles"),
    ('tests/header_c99.c', {'warptile'}, 'the header compiled alone, used as a program uses it'),
    ('tests/header_cxx.cpp', {'cublas'}, 'the header compiled alone, used as a program uses it'),
    ('tests/check_cli.sh', {'naive', 'auto', 'autotuned', 'warptile'},
     "the tools' command lines: --variants given a rung, an untuned one, tuned ones"),
    ('tests/check_tool_files.sh', {'naive', 'autotuned'},
     "the tools' output files, with a one-rung run and a one-row table"),
    ('tests/check_tune.sh', {'autotuned'}, 'a one-row table for the offline check'),
    ('tests/bench/check_outputs.py', {'cublas'}, "the bench's outputs hold the reference"),
    ('python/tests/test_host.py', {'cublas', 'blocktile_2d', 'warptile'},
     "the binding's variant arguments (names, ids, bytes) and a rung without tiles"),
    ('python/tests/test_gpu.py', {'cublas', 'vectorized', 'warptile', 'auto'},
     "products through one rung, cuBLAS's plan, auto's plan"),
]


def header_variants(root):
    """{enumerator: name} of gl_variant_t in the public header."""
    text = open(os.path.join(root, 'include', 'gemmladder.h'), encoding='utf-8').read()
    body = re.search(r'typedef\s+enum\s+gl_variant\s*\{(.*?)\}', text, re.S).group(1)
    return {e: e[len('GL_VARIANT_'):].lower() for e in re.findall(r'\b(GL_VARIANT_\w+)\s*=', body)}


def names_in_literal(text, names):
    """The variants a string literal is: a name, or names separated by commas."""
    parts = [p.strip() for p in text.split(',')]
    return parts if parts and all(p in names for p in parts) else []


def scan_c(text, enum, names):
    """(line, variant, what) for each identifier or literal naming a variant,
    outside comments."""
    found = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            line += text.count('\n', i, j)
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            if c == '"':
                for v in names_in_literal(text[i + 1:j], names):
                    found.append((line, v, text[i:j + 1]))
            i = j + 1
        elif c.isalpha() or c == '_':
            j = i
            while j < n and (text[j].isalnum() or text[j] == '_'):
                j += 1
            word = text[i:j]
            if word in enum:
                found.append((line, enum[word], word))
            i = j
        else:
            line += c == '\n'
            i += 1
    return found


def scan_python(text, names):
    found = []
    upper = {v.upper(): v for v in names}
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for k, tok in enumerate(tokens):
        if tok.type == tokenize.STRING:
            m = re.match(r'(?i)^[rbu]*("""|\'\'\'|"|\')(.*)\1$', tok.string, re.S)
            if m:
                for v in names_in_literal(m.group(2), names):
                    found.append((tok.start[0], v, tok.string))
        elif (tok.type == tokenize.NAME and tok.string in upper and k >= 2 and
              tokens[k - 1].string == '.' and tokens[k - 2].string == 'Variant'):
            found.append((tok.start[0], upper[tok.string], 'Variant.' + tok.string))
    return found


def scan_shell(text, names):
    found = []
    word = re.compile(r'(?<![\w.-])(%s)(?![\w.-])' % '|'.join(map(re.escape, names)))
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r'(^|\s)#.*', '', line)
        for m in word.finditer(code):
            found.append((number, m.group(1), m.group(0)))
    return found


def scan_meson(text, names):
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"#.*", '', line) if "'" not in line.split('#')[0] else line
        for m in re.finditer(r"'([^'\n]*)'", code):
            for v in names_in_literal(m.group(1), names):
                found.append((number, v, m.group(0)))
    return found


def kernel_file_variant(path, names):
    """The variant whose own kernel file this is (kernels/NN_<name>.cu), or None."""
    m = re.match(r'libgemmladder/kernels/\d\d_(\w+)\.(c|cu)$', path)
    return m.group(1) if m and m.group(1) in names else None


def allowed(path, variant, names, used):
    if kernel_file_variant(path, names) == variant:
        return True
    for k, (place, which, _) in enumerate(ALLOWED):
        if (path == place or (place.endswith('/') and path.startswith(place))) and \
                (which == '*' or variant in which):
            used.add((k, variant if which != '*' else '*'))
            return True
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    enum = header_variants(root)
    names = set(enum.values())
    if not names:
        print('no variants found in include/gemmladder.h')
        return 1
    problems, files, used = [], 0, set()
    for top in ROOTS:
        for folder, dirs, entries in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for entry in sorted(entries):
                full = os.path.join(folder, entry)
                path = os.path.relpath(full, root).replace(os.sep, '/')
                if path.startswith(SKIP_PATHS):
                    continue
                if entry.endswith(C_SUFFIXES):
                    scan = lambda t: scan_c(t, enum, names)
                elif entry.endswith('.py'):
                    scan = lambda t: scan_python(t, names)
                elif entry.endswith('.sh'):
                    scan = lambda t: scan_shell(t, names)
                elif entry == 'meson.build':
                    scan = lambda t: scan_meson(t, names)
                else:
                    continue
                files += 1
                text = open(full, encoding='utf-8', errors='replace').read()
                for line, variant, what in scan(text):
                    if not allowed(path, variant, names, used):
                        problems.append('%s:%d: names variant %s (%s): ask its row instead '
                                        '(gl_variant_describe, or variants.h in the library)'
                                        % (path, line, variant, what))
    for k, (place, which, why) in enumerate(ALLOWED):
        for v in (['*'] if which == '*' else sorted(which)):
            if (k, v) not in used:
                problems.append('check_variant_names.py: the allowance for %s to name %s (%s) '
                                'matches nothing: remove it' % (place, v, why))
    for p in problems:
        print(p)
    print('%d files read, %d variants, %d places named a variant where they should ask '
          'the rows' % (files, len(names), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
