"""The package's public surface as a type checker sees it: mypy --strict on
code that uses it (issue 46: the `_documented` decorator, untyped, made
gemmladder.sgemm, gemmladder.gemm and Handle().sgemm `Any`, so
`Handle().sgemm(1, 2, variant=3.5)` passed the checker).

Checked with --follow-imports=silent: the package's own modules are read
for their types, and only the code below is held to --strict. Exits 77
(meson: skipped) where mypy is not installed for this Python."""
import inspect
import os
import re
import subprocess
import sys
import tempfile
import unittest

import support

import gemmladder

try:
    import mypy  # noqa: F401 (only whether it is there)
except ImportError:
    mypy = None

# Code a user writes: every public name used the way its documentation says,
# so --strict must find nothing.
GOOD = '''
from typing import Optional, Tuple, Union
import gemmladder

def run(a: object, b: object, stream: Optional[int]) -> None:
    v: Union[gemmladder.Variant, int] = gemmladder.variant('warptile')
    name: str = gemmladder.variant_name(v)
    c = gemmladder.sgemm(a, b, variant=name)
    c = gemmladder.gemm(a, b, alpha=2.0, beta=0.5, trans_a=True, trans_b='n', out=c,
                        variant=gemmladder.Variant.VECTORIZED, stream=stream)
    with gemmladder.Handle(device=0) as h:
        c = h.sgemm(a, b, variant=8, out=c, stream=stream)
        c = h.gemm(a, b, alpha=1.0, variant='auto')
        d: int = h.device
        ok: bool = h.available('warptile')
        h.workspace_limit = 64 << 20
        h.workspace_limit = None
        limit: Optional[int] = h.workspace_limit
        need: int = h.workspace_size(4097, 4097, 4097, 'auto', trans_a=True, ldc=4100)
        h.set_workspace(1 << 40, need)
        h.set_workspace(None)
        ws: Optional[Tuple[int, int]] = h.workspace
    h2: gemmladder.Handle = gemmladder.default_handle(0)
    d3 = gemmladder.matmul(a, b)
    d3 = gemmladder.matmul(a, b, variant='warptile', out=d3)
    d3 = gemmladder.matmul(a, b, variant=gemmladder.Variant.AUTO, out=None)
    version: str = gemmladder.library_version()
'''

# Each line a call the checker must refuse, with what mypy says of it.
BAD = [
    ("gemmladder.Handle().sgemm(1, 2, variant=3.5)", r'Argument "variant" to "sgemm" of "Handle"'),
    ("gemmladder.sgemm(1, 2, variant=3.5)", r'Argument "variant" to "sgemm"'),
    ("gemmladder.gemm(1, 2, alpha='x')", r'Argument "alpha" to "gemm"'),
    ("gemmladder.gemm(1, 2, 3)", r'Too many positional arguments for "gemm"'),
    ("gemmladder.Handle().gemm(1, 2, bogus=1)", r'Unexpected keyword argument "bogus" for "gemm"'),
    ("gemmladder.sgemm(1)", r'Missing positional argument "B" in call to "sgemm"'),
    ("gemmladder.Handle(device='0')", r'Argument "device" to "Handle"'),
    ("gemmladder.Handle().set_workspace(1.5)", r'Argument 1 to "set_workspace" of "Handle"'),
    ("gemmladder.matmul(1, 2, variant=3.5)", r'Argument "variant" to "matmul"'),
    ("gemmladder.matmul(1, 2, 'auto')", r'Too many positional arguments for "matmul"'),
    ("gemmladder.matmul(1, 2, alpha=2.0)", r'Unexpected keyword argument "alpha" for "matmul"'),
]


def public_callables():
    """'gemmladder.NAME' and 'gemmladder.Handle().NAME' for each public
    function and Handle method."""
    names = []
    for name in gemmladder.__all__:
        obj = getattr(gemmladder, name)
        if inspect.isfunction(obj):
            names.append('gemmladder.' + name)
    for name, obj in vars(gemmladder.Handle).items():
        if not name.startswith('_') and inspect.isfunction(obj):
            names.append('gemmladder.Handle().' + name)
    return names


@unittest.skipIf(mypy is None, 'mypy is not installed for this Python')
class Types(unittest.TestCase):
    def mypy(self, code):
        """mypy --strict's lines about `code` (and its exit status)."""
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(gemmladder.__file__)))
        with tempfile.TemporaryDirectory() as tmp:
            probe = os.path.join(tmp, 'probe.py')
            with open(probe, 'w') as f:
                f.write(code)
            env = dict(os.environ, MYPYPATH=package_parent)
            done = subprocess.run(
                [sys.executable, '-m', 'mypy', '--strict', '--follow-imports=silent',
                 '--no-error-summary', '--show-error-codes', '--cache-dir', os.path.join(tmp, 'cache'),
                 '--python-version', '%d.%d' % sys.version_info[:2], probe],
                env=env, capture_output=True, text=True, cwd=tmp)
        self.assertNotIn('Traceback', done.stderr, done.stderr)
        # (run in tmp: mypy names the probe relative to it)
        return done.returncode, [line for line in done.stdout.splitlines()
                                 if line.startswith('probe.py:')]

    def test_documented_use_passes_strict(self):
        rc, lines = self.mypy(GOOD)
        self.assertEqual((rc, lines), (0, []))

    def test_wrong_calls_are_refused(self):
        code = 'import gemmladder\n' + ''.join(call + '\n' for call, _ in BAD)
        rc, lines = self.mypy(code)
        self.assertEqual(rc, 1, lines)
        for number, (call, message) in enumerate(BAD, start=2):
            with self.subTest(call=call):
                said = [line for line in lines if re.search(r':%d: error: ' % number, line)]
                self.assertTrue(said, 'mypy let %s pass: %s' % (call, lines))
                self.assertTrue(any(re.search(message, line) for line in said), said)

    def test_no_public_callable_is_any(self):
        names = public_callables()
        self.assertIn('gemmladder.sgemm', names)
        self.assertIn('gemmladder.Handle().sgemm', names)
        code = 'import gemmladder\n' + ''.join('reveal_type(%s)\n' % n for n in names)
        _, lines = self.mypy(code)
        revealed = [line for line in lines if 'Revealed type is' in line]
        self.assertEqual(len(revealed), len(names), lines)
        for name, line in zip(names, revealed):
            with self.subTest(name=name):
                self.assertRegex(line, r'Revealed type is "(def|Overload)', line)


if __name__ == '__main__':
    support.run(support.SKIP)
