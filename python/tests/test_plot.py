"""gemmladder.plot: the ladder's picture drawn by matplotlib from a saved run.

    test_plot.py RUN.json      (meson runs it with the shipped run: suite host)

Draws the shipped run (docs/data/full-h100-2026-11-25.json) to a temporary
SVG and PNG through `python -m gemmladder.plot`, and checks the SVG is one
(XML, the SVG namespace, the device in its title) with a bar per variant at
8192^3 and a line per variant; and that runs gemmladder-bench did not write
are refused with the message and exit status the module documents, leaving
no file behind. The input checks run without matplotlib; the drawing cases
skip, and the test reports skipped (77) when matplotlib is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import support

from gemmladder import plot

try:
    import matplotlib  # noqa: F401 (only whether it is there)
except ImportError:
    matplotlib = None

RUN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), '..', '..', 'docs', 'data', 'full-h100-2026-11-25.json')
SVG = '{http://www.w3.org/2000/svg}'
needs_matplotlib = unittest.skipIf(matplotlib is None, 'matplotlib is not installed')


def command(*args, env=None):
    """python -m gemmladder.plot ARGS: (status, stderr)."""
    p = subprocess.run([sys.executable, '-m', 'gemmladder.plot'] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       env=env)
    return p.returncode, p.stderr


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='gemmladder-plot-')
        with open(RUN) as f:
            self.run_data = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, content):
        with open(self.path(name), 'w') as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return self.path(name)


class Drawing(Base):
    @needs_matplotlib
    def test_svg_of_the_shipped_run(self):
        out = self.path('ladder.svg')
        status, err = command(RUN, '-o', out)
        self.assertEqual(status, 0, err)
        self.assertIn('wrote ' + out, err)
        root = ET.parse(out).getroot()
        self.assertEqual(root.tag, SVG + 'svg')
        self.assertEqual(root.find(SVG + 'title').text, 'GEMM ladder on NVIDIA H100 80GB HBM3')
        ids = {e.get('id') for e in root.iter() if e.get('id')}
        variants = sorted({(r['variant_id'], r['variant']) for r in self.run_data['results']})
        self.assertEqual(len(variants), 10)
        for vid, _ in variants:
            self.assertIn('bar-%d' % vid, ids)      # each variant's bar at 8192^3
            self.assertIn('series-%d' % vid, ids)   # and its line
        text = ' '.join(''.join(e.itertext()) for e in root.iter(SVG + 'text'))
        for needed in ['GEMM ladder (FP32) on NVIDIA H100 80GB HBM3',
                       '8192 x 8192 x 8192', '2026-11-25 23:04 UTC', '% of cuBLAS',
                       'GFLOP/s (log10 scale)', '0 cublas (reference)']:
            self.assertIn(needed, text)
        for vid, name in variants:
            self.assertIn(name, text)
        # The 8192^3 bars' values, as the bench's summary gives them.
        for r in self.run_data['results']:
            if r['m'] == r['n'] == r['k'] == 8192:
                self.assertIn('%.1f' % r['pct_of_reference'], text)
        # The same run gives the same file.
        again = self.path('again.svg')
        self.assertEqual(command(RUN, '-o', again)[0], 0)
        with open(out, 'rb') as a, open(again, 'rb') as b:
            self.assertEqual(a.read(), b.read())

    @needs_matplotlib
    def test_png_and_size(self):
        out = self.path('ladder.png')
        status, err = command(RUN, '-o', out, '--size', '1024')
        self.assertEqual(status, 0, err)
        with open(out, 'rb') as f:
            self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')
        # --size picks the bar panel's shape: one the run lacks is refused.
        status, err = command(RUN, '-o', self.path('x.png'), '--size', '300')
        self.assertEqual(status, 2, err)
        self.assertIn('the run has no 300x300x300', err)
        self.assertFalse(os.path.exists(self.path('x.png')))

    @needs_matplotlib
    def test_in_process(self):
        run = plot.load_run(RUN)
        fig = plot.figure(run)
        self.assertEqual(len(fig.subfigs), 2)  # the bars, the lines
        self.assertEqual(plot.staircase_shape(run), (8192, 8192, 8192, 'row NN'))
        self.assertEqual(plot.staircase_shape(run, 4097), (4097, 4097, 4097, 'row NN'))
        with self.assertRaisesRegex(ValueError, 'the run has no 300x300x300'):
            plot.figure(run, 300)

    @needs_matplotlib
    def test_unwritable_output(self):
        status, err = command(RUN, '-o', os.path.join(self.dir, 'missing', 'x.svg'))
        self.assertEqual(status, 4, err)
        self.assertIn('cannot write', err)
        kept = self.write('kept.svg', 'old')
        os.chmod(self.dir, 0o500)
        try:
            if os.access(self.dir, os.W_OK):  # root writes anyway
                self.skipTest('running as root: a read-only directory is writable')
            status, err = command(RUN, '-o', kept)
            self.assertEqual(status, 4, err)
        finally:
            os.chmod(self.dir, 0o700)
        with open(kept) as f:
            self.assertEqual(f.read(), 'old')

    def test_without_matplotlib(self):
        # A matplotlib that cannot be imported: status 3, saying how to install it.
        blocker = self.write('sitecustomize.py', 'import sys\nsys.modules["matplotlib"] = None\n')
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.dirname(blocker)] + os.environ.get('PYTHONPATH', '').split(os.pathsep)))
        out = self.path('ladder.svg')
        status, err = command(RUN, '-o', out, env=env)
        self.assertEqual(status, 3, err)
        self.assertIn("pip install 'gemmladder[plot]'", err)
        self.assertFalse(os.path.exists(out))
        # Reading and checking a run needs no matplotlib.
        self.assertEqual(len(plot.load_run(RUN)['results']), len(self.run_data['results']))


class Refused(Base):
    """Runs gemmladder-bench did not write: status 1 (4 for a file that cannot be
    read), a message saying why, and no output."""

    def refused(self, content, message, status=1):
        src = self.write('run.json', content) if content is not None else self.path('absent.json')
        out = self.path('out.svg')
        got, err = command(src, '-o', out)
        self.assertEqual(got, status, err)
        self.assertIn(message, err)
        self.assertEqual(err.count('\n'), 1, err)  # one line, no traceback
        self.assertFalse(os.path.exists(out))
        if status == 1:
            with self.assertRaisesRegex(plot.RunError, message.replace('(', r'\(').replace(')', r'\)')):
                plot.load_run(src)

    def result(self, **change):
        r = dict(self.run_data['results'][0])
        for k, v in change.items():
            if v is None:
                del r[k]
            else:
                r[k] = v
        return dict(self.run_data, results=[r])

    def test_not_runs(self):
        cases = [
            ({}, 'not a gemmladder-bench JSON file: no "tool"'),
            ([], 'the top level is not an object'),
            ({'tool': 'other', 'results': []}, '"tool" is not "gemmladder-bench"'),
            ({'tool': 'gemmladder-bench'}, 'no "results"'),
            ({'tool': 'gemmladder-bench', 'results': {}}, '"results" is not a list'),
            ({'tool': 'gemmladder-bench', 'results': []}, '"results" is empty (no rung ran)'),
            ({'tool': 'gemmladder-bench', 'results': [3]}, 'result 1 is not an object'),
            ('{"tool": "gemmladder-bench", "results": [', 'Expecting value at line 1'),
            ('', 'Expecting value at line 1, column 1'),
            (json.dumps(self.run_data) + ' {}', 'Extra data'),
            (self.result(m=0), 'result 1: a bad size m = 0'),
            (self.result(k=2.5), 'result 1: a bad size k = 2.5'),
            (self.result(n=True), 'result 1: a bad size n = True'),
            (self.result(variant_id=-1), 'result 1: a bad variant id -1'),
            (self.result(status='fine'), "result 1: an unknown status 'fine'"),
            (self.result(form='row XX'), "result 1: an unknown form 'row XX'"),
            (self.result(gflops='fast'), 'result 1: "gflops" is not a number'),
            (dict(self.run_data, device=5), '"device" is not a string'),
        ]
        for key in plot.RESULT_NEEDS:
            cases.append((self.result(**{key: None}), 'result 1 has no "%s"' % key))
        for content, message in cases:
            with self.subTest(content=str(content)[:80]):
                self.refused(content, message)

    def test_unreadable(self):
        self.refused(None, 'cannot read', status=4)
        got, err = command(self.dir, '-o', self.path('out.svg'))
        self.assertEqual(got, 4, err)
        self.assertIn('cannot read ' + self.dir, err)
        with open(self.path('binary.json'), 'wb') as f:
            f.write(b'\xff\xfe{}')
        got, err = command(self.path('binary.json'), '-o', self.path('out.svg'))
        self.assertEqual(got, 1, err)
        self.assertIn('not UTF-8', err)

    def test_command_line(self):
        for args in ([], [RUN], ['-o', 'x.svg'], [RUN, '-o', 'x.svg', '--size', '0'],
                     [RUN, '-o', 'x.svg', '--size', 'big'], [RUN, '-o', 'x.svg', '--bogus']):
            with self.subTest(args=args):
                got, err = command(*args)
                self.assertEqual(got, 2, err)
                self.assertIn('usage: python -m gemmladder.plot', err)
        p = subprocess.run([sys.executable, '-m', 'gemmladder.plot', '--help'],
                           stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(p.returncode, 0)
        for said in ('RESULTS.json', '--output', '--size', 'Exit status', "gemmladder[plot]"):
            self.assertIn(said, p.stdout)

    def test_batches_are_left_out(self):
        single = dict(self.run_data['results'][0])
        batched = dict(single, batch=16, broadcast_a=False, gflops=1.0)
        self.assertEqual(plot.staircase_shape(dict(self.run_data, results=[batched, single])),
                         plot.staircase_shape(dict(self.run_data, results=[single])))
        only = dict(self.run_data, results=[batched])
        with self.assertRaisesRegex(plot.RunError, 'only batched products'):
            plot.staircase_shape(only)
        if matplotlib is not None:
            out = self.path('out.svg')
            got, err = command(self.write('batched.json', json.dumps(only)), '-o', out)
            self.assertEqual(got, 1, err)
            self.assertIn('only batched products', err)
            self.assertFalse(os.path.exists(out))

    def test_accepts_a_run_older_than_forms(self):
        run = self.result(form=None, provider=None)
        self.assertEqual(plot.check_run(run), run)
        self.assertEqual(plot.staircase_shape(run), (128, 128, 128, 'row NN'))


if __name__ == '__main__':
    result = unittest.main(argv=sys.argv[:1], exit=False, verbosity=2).result
    if not result.wasSuccessful():
        sys.exit(1)
    sys.exit(support.SKIP if matplotlib is None else 0)
