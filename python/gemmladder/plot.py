"""The ladder's picture from a saved benchmark run, drawn by matplotlib.

    python -m gemmladder.plot RESULTS.json -o ladder.svg [--size N]

RESULTS.json is what ``gemmladder-bench --json FILE`` writes. The picture
has two panels: % of cuBLAS per rung at one shape (the largest square shape
run, or N x N x N with --size), with cuBLAS's own bar as the 100% reference;
and GFLOP/s against N for the square shapes N x N x N whose side is a
multiple of 128, one line per rung, cuBLAS's in black. Both are of single
products: a run's batches (results with a "batch", from --batched or a
fourth factor of --mnk) are left out of the picture. The title names the
device, the subtitle the run's description (GPU, driver, version, date).
The format follows the output's extension: .svg, .png, .pdf, or any other
that matplotlib writes.

matplotlib is an optional dependency of the package: ``pip install
'gemmladder[plot]'`` (or ``pip install matplotlib``). Reading and checking a
run (``load_run``, ``check_run``) needs only the standard library, and
nothing here loads libgemmladder or needs a GPU.

Exit statuses of the command: 0 the picture was written; 1 RESULTS.json is
not a gemmladder-bench run (not JSON, no "tool": "gemmladder-bench", no
results, a result without its variant, size or status); 2 a bad command
line; 3 matplotlib is not installed; 4 RESULTS.json cannot be read or the
output cannot be written. Nothing is written unless the status is 0.
"""
import argparse
import json
import math
import os
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, cast

__all__ = ['RunError', 'check_run', 'load_run', 'staircase_shape', 'figure', 'save', 'main']

EXIT_OK, EXIT_NOT_A_RUN, EXIT_USAGE, EXIT_NO_MATPLOTLIB, EXIT_FAILED = 0, 1, 2, 3, 4

INSTALL_HINT = ("gemmladder.plot needs matplotlib: pip install 'gemmladder[plot]' "
                "(or pip install matplotlib)")

# What gemmladder-bench writes (tools/bench_report.c): the statuses, the forms,
# and the largest size it takes.
STATUSES = ('ok', 'wrong', 'failed', 'unavailable', 'skipped')
FORMS = tuple('%s %s%s' % (layout, a, b) for layout in ('row', 'col') for a in 'NT' for b in 'NT')
MAX_DIM = 16777216
# The fields every result of a run has (the measures may be null; "form" is
# absent in runs older than the forms, which were all row NN).
RESULT_NEEDS = ('variant_id', 'variant', 'm', 'n', 'k', 'status')

# The colours of the C tool's picture: the reference black, then one per id.
_COLOURS = ('#d62728', '#ff7f0e', '#bcbd22', '#2ca02c', '#17becf', '#1f77b4', '#9467bd',
            '#e377c2', '#8c564b', '#7f7f7f')
_MARKERS = ('o', 's', '^', 'D', 'v')
_DASHES = ('-', (0, (7, 3)), (0, (2, 3)), (0, (9, 3, 2, 3)))

Run = Dict[str, Any]
Result = Dict[str, Any]
Shape = Tuple[int, int, int, str]


class RunError(ValueError):
    """The input is not a gemmladder-bench run; the message says why."""


def _not_a_run(why: str) -> RunError:
    return RunError('not a gemmladder-bench JSON file: ' + why)


def _is_count(v: object, low: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= MAX_DIM


def _is_measure(v: object) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def check_run(run: object) -> Run:
    """Checks that `run` (parsed JSON) is a gemmladder-bench run, as the C
    tool's reader did: "tool": "gemmladder-bench", a non-empty "results"
    list, each result an object with variant_id (>= 0), variant, m, n, k
    (>= 1) and a known status; "form", when there, a known form; measures
    numbers or null. Returns it; raises RunError saying what is wrong."""
    if not isinstance(run, dict):
        raise _not_a_run('the top level is not an object')
    tool = run.get('tool')
    if tool != 'gemmladder-bench':
        raise _not_a_run('%s (a run written by gemmladder-bench --json has "tool": '
                         '"gemmladder-bench")' % ('no "tool"' if tool is None
                                                  else '"tool" is not "gemmladder-bench"'))
    if 'results' not in run:
        raise _not_a_run('no "results"')
    results = run['results']
    if not isinstance(results, list):
        raise _not_a_run('"results" is not a list')
    if not results:
        raise _not_a_run('"results" is empty (no rung ran)')
    for i, r in enumerate(results, 1):
        if not isinstance(r, dict):
            raise _not_a_run('result %d is not an object' % i)
        for key in RESULT_NEEDS:
            if key not in r:
                raise _not_a_run('result %d has no "%s"' % (i, key))
        if not _is_count(r['variant_id'], 0):
            raise _not_a_run('result %d: a bad variant id %r' % (i, r['variant_id']))
        for key in 'mnk':
            if not _is_count(r[key], 1):
                raise _not_a_run('result %d: a bad size %s = %r' % (i, key, r[key]))
        if not isinstance(r['variant'], str) or not r['variant']:
            raise _not_a_run('result %d: a bad variant name %r' % (i, r['variant']))
        if r['status'] not in STATUSES:
            raise _not_a_run('result %d: an unknown status %r' % (i, r['status']))
        if 'form' in r and r['form'] not in FORMS:
            raise _not_a_run('result %d: an unknown form %r' % (i, r['form']))
        for key in ('runtime_ms', 'gflops', 'gbps', 'pct_of_reference', 'rel_error'):
            if not _is_measure(r.get(key)):
                raise _not_a_run('result %d: "%s" is not a number' % (i, key))
    for key in ('device', 'device_name', 'date', 'gemmladder_version'):
        if key in run and not isinstance(run[key], str):
            raise _not_a_run('"%s" is not a string' % key)
    return run


def load_run(path: Union[str, 'os.PathLike[str]']) -> Run:
    """Reads and checks a run written by ``gemmladder-bench --json``. Raises
    OSError when the file cannot be read, RunError when it is not a run."""
    with open(path, 'rb') as f:
        data = f.read()
    try:
        run = json.loads(data.decode('utf-8'))
    except UnicodeDecodeError as e:
        raise _not_a_run('not UTF-8 text (byte %d)' % e.start) from None
    except json.JSONDecodeError as e:
        raise _not_a_run('%s at line %d, column %d' % (e.msg, e.lineno, e.colno)) from None
    return check_run(run)


def _shape(r: Result) -> Shape:
    return (r['m'], r['n'], r['k'], r.get('form', 'row NN'))


def _single(run: Run) -> List[Result]:
    """The results of single products: a batch's (its "batch" 1 or more) are
    not points of the ladder's picture."""
    return [r for r in run['results'] if not r.get('batch')]


def _square(s: Shape) -> bool:
    return s[0] == s[1] == s[2]


def _reference(r: Result) -> bool:
    """cuBLAS, by the provider the bench names (id 0 in runs without one)."""
    provider = r.get('provider')
    return bool(provider != 'gemmladder' if provider is not None else r['variant_id'] == 0)


def _finite(v: Any) -> bool:
    return v is not None and math.isfinite(float(v))


def staircase_shape(run: Run, size: Optional[int] = None) -> Shape:
    """The shape of the bar panel: size^3 when given (ValueError if the run
    has none), else the largest square shape, else the shape with the most work."""
    check_run(run)
    shapes = [_shape(r) for r in _single(run)]
    if not shapes:
        raise _not_a_run('it has only batched products, and the picture is of single ones')
    if size is not None:
        for s in shapes:
            if s[:3] == (size, size, size):
                return s
        raise ValueError('--size %d: the run has no %dx%dx%d' % (size, size, size, size))
    return max(shapes, key=lambda s: (_square(s), s[0] * s[1] * s[2]))


def _need_matplotlib() -> None:
    """Raises ImportError saying how to install matplotlib where it is missing."""
    try:
        import matplotlib  # noqa: F401 (only whether it is there)
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e


def _colour(r: Result) -> str:
    return '#222222' if _reference(r) else _COLOURS[(r['variant_id'] - 1) % len(_COLOURS)]


def _subtitle(run: Run) -> str:
    """The run's description on two lines (the GPU; then driver, version, date)."""
    device = run.get('device') or run.get('device_name') or 'unknown device'
    first, _, rest = device.partition('; ')
    date = run.get('date', '')
    if date and date[:10] not in device:
        rest = (rest + '; ' if rest else '') + date
    return first + ('\n' + rest if rest else '')


def _on_the_lines(r: Result) -> bool:
    """Square, row NN, a multiple of 128, measured: 1000^3 and 4097^3 would put
    edge-tile dips into the lines (the bench's summary compares them)."""
    s = _shape(r)
    return (r['status'] == 'ok' and _square(s) and s[0] % 128 == 0 and s[3] == 'row NN'
            and _finite(r.get('gflops')) and r['gflops'] > 0)


def _series(run: Run) -> List[Tuple[Result, List[Tuple[int, float]]]]:
    """One (first result, [(N, GFLOP/s)]) per variant, by id, points by N."""
    by_id: Dict[int, List[Result]] = {}
    for r in _single(run):
        if _on_the_lines(r):
            by_id.setdefault(r['variant_id'], []).append(r)
    return [(rs[0], sorted((r['m'], float(r['gflops'])) for r in rs))
            for _, rs in sorted(by_id.items())]


def _coincides(a: List[Tuple[int, float]], b: List[Tuple[int, float]]) -> bool:
    """Whether series b lies within 2% of series a at each of b's sizes."""
    at = dict(a)
    return all(n in at and abs(g / at[n] - 1) <= 0.02 for n, g in b)


def figure(run: Run, size: Optional[int] = None) -> Any:
    """The picture of a run as a matplotlib Figure (not attached to pyplot).
    Raises RunError for a run check_run refuses, ValueError for a size it
    lacks, and
    ImportError (saying how to install it) without matplotlib."""
    check_run(run)
    _need_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, NullLocator
    stair = staircase_shape(run, size)

    fig = Figure(figsize=(11, 10), dpi=100, layout='constrained')
    name = run.get('device_name') or run.get('device') or 'unknown device'
    fig.suptitle('GEMM ladder (FP32) on %s' % name, fontsize=17, fontweight='bold',
                 x=0.01, ha='left')
    # Two subfigures, so that the line panel's legend beside it does not
    # narrow the bar panel.
    top_fig, bottom_fig = cast(Any, fig.subfigures(2, 1, height_ratios=(1, 1.1)))
    bars, lines = top_fig.subplots(), bottom_fig.subplots()
    bars.set_title(_subtitle(run), fontsize=10, color='#555555', loc='left', pad=30)

    # Panel 1: % of cuBLAS per rung at one shape.
    rows = sorted((r for r in _single(run) if _shape(r) == stair),
                  key=lambda r: r['variant_id'])
    form = '' if stair[3] == 'row NN' else ' (%s)' % stair[3]
    bars.text(0, 1.04, '%% of cuBLAS per rung at %d x %d x %d%s (same run)'
              % (stair[0], stair[1], stair[2], form), transform=bars.transAxes,
              fontsize=13, fontweight='bold')
    ref = [r for r in rows if _reference(r) and r['status'] == 'ok' and _finite(r.get('gflops'))]
    if ref:
        bars.text(1, 1.04, 'cuBLAS: %.0f GFLOP/s' % ref[0]['gflops'], transform=bars.transAxes,
                  fontsize=10, color='#555555', ha='right')
    top = max([100.0] + [r['pct_of_reference'] for r in rows if _finite(r.get('pct_of_reference'))])
    top = 20 * math.ceil(top / 20)
    xs = range(len(rows))
    for x, r in zip(xs, rows):
        pct = r.get('pct_of_reference')
        if r['status'] == 'ok' and _finite(pct):
            gflops = r.get('gflops')
            bar = bars.bar(x, pct, width=0.6, color=_colour(r), zorder=2,
                           label='%s: %.1f%% of cuBLAS%s' % (
                               r['variant'], pct,
                               ', %.0f GFLOP/s' % gflops if _finite(gflops) else ''))
            bar[0].set_gid('bar-%d' % r['variant_id'])
            bars.annotate('%.1f' % pct, (x, pct), xytext=(0, 3), textcoords='offset points',
                          ha='center', va='bottom', fontsize=10)
        else:  # no bar: say why where it would stand
            bars.annotate('no ref' if r['status'] == 'ok' else r['status'], (x, 0),
                          xytext=(0, 3), textcoords='offset points', ha='center',
                          va='bottom', fontsize=10, color='#bb0000')
    bars.set_xticks(list(xs), ['%s\nid %d' % (r['variant'], r['variant_id']) for r in rows],
                    fontsize=10)
    bars.set_xlim(-0.6, len(rows) - 0.4)
    bars.set_ylim(0, top * 1.08)
    bars.set_yticks(range(0, top + 1, 20))
    bars.set_ylabel('% of cuBLAS', fontsize=12)
    bars.grid(axis='y', color='#dddddd', zorder=0)
    bars.axhline(100, color='#222222', linewidth=1, linestyle=':', zorder=1)
    for side in ('top', 'right'):
        bars.spines[side].set_visible(False)

    # Panel 2: GFLOP/s against N for the square shapes, one line per rung.
    lines.text(0, 1.09, 'GFLOP/s against size: N x N x N, N a multiple of 128',
               transform=lines.transAxes, fontsize=13, fontweight='bold')
    lines.text(0, 1.03, 'Other shapes (1000^3, 4097^3, thin ones) are in the bench\'s table '
               'and summary, beside their nearest multiple of 128.', transform=lines.transAxes,
               fontsize=9, color='#555555')
    series = _series(run)
    if not series:
        lines.text(0.5, 0.5, 'no square shape ran correctly', transform=lines.transAxes,
                   ha='center', fontsize=12)
        lines.set_axis_off()
        return fig
    for k, (first, pts) in enumerate(series):
        vid, is_ref = first['variant_id'], _reference(first)
        on = next((f['variant_id'] for f, p in series[:k] if _coincides(p, pts)), None)
        label = '%d %s%s' % (vid, first['variant'],
                             ' (reference)' if is_ref else
                             ' (on %d: within 2%%)' % on if on is not None else '')
        line, = lines.plot([n for n, _ in pts], [g for _, g in pts], color=_colour(first),
                           linestyle=_DASHES[vid % len(_DASHES)], linewidth=3 if is_ref else 2,
                           marker=_MARKERS[vid % len(_MARKERS)],
                           markersize=10 if on is not None else 6,
                           markerfacecolor='none' if on is not None else _colour(first),
                           markeredgewidth=1.5, label=label, zorder=3 if is_ref else 2)
        line.set_gid('series-%d' % vid)
    ns = sorted({n for _, pts in series for n, _ in pts})
    lo, hi = math.floor(math.log2(ns[0])), math.ceil(math.log2(ns[-1]))
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    lines.set_xscale('log', base=2)
    lines.set_xlim(2 ** lo / 1.15, 2 ** hi * 1.15)
    lines.xaxis.set_major_locator(FixedLocator([2 ** e for e in range(lo, hi + 1)]))
    lines.xaxis.set_minor_locator(NullLocator())
    lines.set_xticks([2 ** e for e in range(lo, hi + 1)],
                     ['%d' % 2 ** e for e in range(lo, hi + 1)])
    lines.set_yscale('log')
    gs = [g for _, pts in series for _, g in pts]
    lines.set_ylim(10 ** math.floor(math.log10(min(gs))), 10 ** math.ceil(math.log10(max(gs))))
    lines.set_xlabel('N (log2 scale)', fontsize=12)
    lines.set_ylabel('GFLOP/s (log10 scale)', fontsize=12)
    lines.grid(which='major', color='#dddddd')
    lines.grid(which='minor', axis='y', color='#f0f0f0')
    lines.legend(loc='upper left', bbox_to_anchor=(1.01, 1), fontsize=10, frameon=False,
                 title='id variant', title_fontsize=10, alignment='left')
    for side in ('top', 'right'):
        lines.spines[side].set_visible(False)
    return fig


def save(run: Run, path: str, size: Optional[int] = None) -> None:
    """Draws `run` into `path`, in the format its extension names. The file is
    written beside it under a temporary name and renamed over `path` once
    whole, so a failure leaves an existing file as it was."""
    fig = figure(run, size)
    from matplotlib import rc_context
    fmt = os.path.splitext(path)[1][1:].lower() or None
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', dir=directory)
    try:
        # A fixed salt for the SVG's ids (the same run, the same file), and
        # text as text (smaller, searchable; the viewer's sans-serif font).
        with os.fdopen(fd, 'wb') as f, rc_context({'svg.hashsalt': 'gemmladder', 'svg.fonttype': 'none'}):
            fig.savefig(f, format=fmt, metadata=_metadata(fmt, run))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _metadata(fmt: Optional[str], run: Run) -> Optional[Dict[str, Any]]:
    """A title, and no date, so that a picture redrawn from the same run is
    the same file (SVG and PDF carry a date by default)."""
    title = 'GEMM ladder on %s' % (run.get('device_name') or 'unknown device')
    if fmt == 'svg':
        return {'Title': title, 'Date': None, 'Creator': 'gemmladder.plot (matplotlib)'}
    if fmt == 'pdf':
        return {'Title': title, 'CreationDate': None, 'Creator': 'gemmladder.plot (matplotlib)'}
    if fmt == 'png':
        return {'Title': title, 'Software': 'gemmladder.plot (matplotlib)'}
    return None


def _positive(text: str) -> int:
    try:
        v = int(text, 10)
    except ValueError:
        v = 0
    if not 1 <= v <= MAX_DIM:
        raise argparse.ArgumentTypeError('%r is not a size from 1 to %d' % (text, MAX_DIM))
    return v


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line; returns its exit status (the module's docstring)."""
    parser = argparse.ArgumentParser(
        prog='python -m gemmladder.plot',
        description='Draws the ladder from a run saved by gemmladder-bench --json: % of cuBLAS '
                    'per rung at one shape, and GFLOP/s against N for the square shapes.',
        epilog='Exit status: 0 written; 1 RESULTS.json is not a gemmladder-bench run; 2 a bad '
               'command line; 3 matplotlib is not installed (pip install \'gemmladder[plot]\'); '
               '4 RESULTS.json cannot be read or OUTPUT cannot be written. Nothing is written '
               'unless the status is 0.')
    parser.add_argument('results', metavar='RESULTS.json', help='a run: gemmladder-bench --json')
    parser.add_argument('-o', '--output', metavar='OUTPUT', required=True,
                        help='the picture; its extension picks the format (.svg, .png, .pdf)')
    parser.add_argument('--size', metavar='N', type=_positive,
                        help='the bar panel\'s shape, N x N x N (default: the largest square '
                             'shape run)')
    args = parser.parse_args(argv)
    prog = parser.prog
    try:
        run = load_run(args.results)
    except OSError as e:
        print('%s: cannot read %s: %s' % (prog, args.results, e.strerror or e), file=sys.stderr)
        return EXIT_FAILED
    except RunError as e:
        print('%s: %s: %s' % (prog, args.results, e), file=sys.stderr)
        return EXIT_NOT_A_RUN
    try:
        save(run, args.output, args.size)
    except RunError as e:
        print('%s: %s: %s' % (prog, args.results, e), file=sys.stderr)
        return EXIT_NOT_A_RUN
    except ValueError as e:  # --size names a shape the run lacks
        print('%s: %s: %s' % (prog, args.results, e), file=sys.stderr)
        return EXIT_USAGE
    except ImportError as e:
        print('%s: %s' % (prog, e), file=sys.stderr)
        return EXIT_NO_MATPLOTLIB
    except OSError as e:
        print('%s: cannot write %s: %s' % (prog, args.output, e.strerror or e), file=sys.stderr)
        return EXIT_FAILED
    print('%s: wrote %s' % (prog, args.output), file=sys.stderr)
    return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
