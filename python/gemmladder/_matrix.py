"""Turning array objects into the arguments of gl_sgemm_ex, in pure Python.

Everything here runs before any CUDA call, so every argument error is raised
(TypeError or ValueError) before anything reaches the GPU. Arrays are read
through their interfaces, never by importing their framework:
__cuda_array_interface__ (CuPy, PyTorch, Numba, ...) for device memory,
__array_interface__ (numpy) for host memory, and DLPack (__dlpack__, for
either) for the rest. numpy is imported only to copy a host array whose
elements the library cannot walk. Scalars, flags and the integers of the
interfaces are converted by _arguments, as every argument is.

C must not overlap A or B, in the exact sense: no element of out may lie in
the same bytes as an element of A or B (numpy.shares_memory's exact
answer). Views that interleave without sharing an element, such as
Y[:, :4] and Y[:, 4:], are accepted.
"""
import sys
from typing import List, Optional, Tuple

from . import _arguments, _dlpack
from ._arguments import INT64, POINTER

MAX_SIZE = 2**31 - 1  # the library's limit for M, N and K
_FLOAT32 = ('<f4', '=f4') if sys.byteorder == 'little' else ('>f4', '=f4')
ROW, COL = 'row', 'col'


class Matrix:
    """One 2-D float32 array as the library needs it: address, shape and
    element strides, plus where it came from. A host array whose rows and
    columns are both strided is read through a C-ordered copy (`copy`)."""

    def __init__(self, obj, name, stream=None):
        """`stream`: the cudaStream_t (0: the default) the product will run on,
        for DLPack producers of device memory to order their work before."""
        self.obj, self.name = obj, name
        self.keep = None  # a DLPack capsule that must outlive the call
        self.copy = None
        info = self._interface(stream)
        typestr = info.get('typestr')
        if typestr not in _FLOAT32:
            raise TypeError('%s has dtype %s; gemmladder computes in float32 only (convert it, '
                            'e.g. with .astype(numpy.float32))' % (name, _dtype_name(obj, typestr)))
        shape = tuple(info.get('shape', ()))
        if len(shape) != 2:
            raise ValueError('%s must be a 2-D matrix, got shape %s' % (name, shape))
        self.rows, self.cols = (_arguments.integer(n, '%s: the shape' % name, (0, INT64[1])) for n in shape)
        strides = info.get('strides')
        if strides is None:  # C-contiguous
            strides = (self.cols * 4, 4)
        if len(strides) != 2:
            raise ValueError('%s has %d strides for a 2-D shape' % (name, len(strides)))
        strides = tuple(_arguments.integer(s, '%s: a stride' % name) for s in strides)
        if any(s % 4 for s in strides):
            raise ValueError('%s has strides %s (bytes) that are not whole float32 elements'
                             % (name, tuple(strides)))
        self.row_stride, self.col_stride = (s // 4 for s in strides)
        data = info.get('data')
        if not isinstance(data, tuple) or len(data) != 2:
            raise TypeError('%s: its array interface gives no (address, read-only) data tuple' % name)
        self.address = _arguments.integer(data[0] or 0, '%s: the data address' % name, POINTER)
        self.readonly = bool(data[1])
        if info.get('mask') is not None:
            raise ValueError('%s is a masked array; gemmladder takes plain matrices' % name)
        self.extent = self._extent()
        # The elements' memory, as given (a copy, below, does not change it).
        self.runs = _runs(self.address, self.rows, self.cols, self.row_stride, self.col_stride)
        self.memory = {'shape': (self.rows, self.cols), 'typestr': _FLOAT32[0],
                       'data': (self.address, False), 'strides': strides}
        self.stream = None
        if self.kind == 'device' and info.get('version', 0) >= 3:
            self.stream = info.get('stream')
            if self.stream == 0:
                raise ValueError('%s: __cuda_array_interface__ stream 0 is disallowed by the '
                                 'interface (1 is the legacy default stream, 2 per-thread)' % name)
            if self.stream is not None:
                self.stream = _arguments.integer(self.stream, '%s: __cuda_array_interface__ stream'
                                                 % name, POINTER)
        self.layouts = self._layouts()
        if not self.layouts and self.kind == 'host':
            self._use_copy(info)
        if not self.layouts:
            raise ValueError(
                '%s (shape %s, strides %s bytes) has neither contiguous rows nor contiguous '
                'columns with a leading dimension that covers them; CUDA arrays are used in place, '
                'so pass a copy (e.g. .copy())'
                % (name, shape, (self.row_stride * 4, self.col_stride * 4)))

    def _interface(self, stream):
        """The array's interface dict; sets self.kind ('device' or 'host')."""
        obj, name = self.obj, self.name
        masked = sys.modules.get('numpy.ma')
        if masked is not None and isinstance(obj, masked.MaskedArray):
            raise ValueError('%s is a numpy masked array, whose mask gemmladder would ignore; pass '
                             '%s.filled(0) (masked elements as 0) or %s.data' % (name, name, name))
        for attribute, kind in (('__cuda_array_interface__', 'device'), ('__array_interface__', 'host')):
            info = getattr(obj, attribute, None)
            if info is not None:
                self.kind = kind
                return info
        if not _dlpack.is_producer(obj):
            raise TypeError('%s: expected a numpy array, a CUDA array (__cuda_array_interface__: CuPy, '
                            'PyTorch, Numba) or a DLPack tensor (__dlpack__), got %s'
                            % (name, _type_name(obj)))
        device_type, _ = _dlpack.device(obj)
        if device_type in (_dlpack.CUDA, _dlpack.CUDA_MANAGED):
            self.kind, dlpack_stream = 'device', stream or 1  # 1: the legacy default stream
        elif device_type in (_dlpack.CPU, _dlpack.CUDA_HOST):
            self.kind, dlpack_stream = 'host', None
        else:
            raise TypeError('%s is %s memory (DLPack device type %d); gemmladder takes CUDA or host '
                            'memory' % (name, _dlpack.DEVICE_NAMES.get(device_type, 'unknown'), device_type))
        info, self.keep = _dlpack.export(obj, dlpack_stream)
        if self.kind == 'device':  # the array names the stream it was exported for
            info.update(version=3, stream=dlpack_stream)
        return info

    def _extent(self):
        """[first, last) byte addresses of the memory the elements occupy."""
        first = last = self.address
        if self.rows and self.cols:
            for count, stride in ((self.rows, self.row_stride), (self.cols, self.col_stride)):
                reach = (count - 1) * stride * 4
                first, last = min(first, first + reach), max(last, last + reach)
            last += 4
        return first, last

    def _use_copy(self, info):
        """Reads the elements through a C-ordered copy (host arrays only)."""
        import numpy
        self.original = _Interface(info)
        self.copy = numpy.array(self.original, dtype=numpy.float32, order='C')
        self.address, self.row_stride, self.col_stride = self.copy.ctypes.data, self.cols, 1
        self.layouts = self._layouts()

    def write_back(self):
        """Copies a result computed into the copy back into the array (host `out`)."""
        import numpy
        numpy.asarray(self.original)[...] = self.copy

    def _layouts(self):
        """{ROW or COL: leading dimension} for each way the library can read it."""
        r, c, rs, cs = self.rows, self.cols, self.row_stride, self.col_stride
        if r == 0 or c == 0:
            return {ROW: max(c, 1), COL: max(r, 1)}
        found = {}
        if c == 1 or cs == 1:
            ld = rs if r > 1 else c
            if ld >= c:
                found[ROW] = ld
        if r == 1 or rs == 1:
            ld = cs if c > 1 else r
            if ld >= r:
                found[COL] = ld
        return found

    def shape_text(self):
        return '%d x %d' % (self.rows, self.cols)


class _Interface:
    """Memory an array interface describes, for numpy to read or write."""

    def __init__(self, info):
        self.__array_interface__ = {'version': 3, 'shape': tuple(info['shape']), 'typestr': info['typestr'],
                                    'data': info['data'], 'strides': info.get('strides')}


class Operand:
    """A Matrix as one argument of gl_sgemm_ex: stored in `layout` with leading
    dimension `ld`, transposed (by the library) or not."""

    def __init__(self, matrix, layout, transpose, ld):
        self.matrix, self.layout, self.transpose, self.ld = matrix, layout, transpose, ld

    @property
    def outer(self):  # rows (row-major) or columns (column-major) as stored
        m = self.matrix
        return m.rows if self.layout == ROW else m.cols

    @property
    def inner(self):
        m = self.matrix
        return m.cols if self.layout == ROW else m.rows


class Plan:
    """A validated product C = alpha op(A) op(B) + beta C, ready for gl_sgemm_ex."""

    def __init__(self, A, B, out, alpha, beta, trans_a, trans_b, stream=None):
        """`stream`: the cudaStream_t the product will run on, if known (see Matrix)."""
        alpha, beta = _arguments.real(alpha, 'alpha'), _arguments.real(beta, 'beta')
        trans_a = _arguments.transpose(trans_a, 'trans_a')
        trans_b = _arguments.transpose(trans_b, 'trans_b')
        a, b = Matrix(A, 'A', stream), Matrix(B, 'B', stream)
        c = Matrix(out, 'out', stream) if out is not None else None
        if a.kind != b.kind or (c is not None and c.kind != a.kind):
            raise TypeError('A, B%s must all be numpy arrays or all be CUDA arrays; got %s'
                            % (' and out' if c is not None else '',
                               ', '.join(_type_name(m.obj) for m in (a, b, c) if m is not None)))
        M, K = (a.cols, a.rows) if trans_a else (a.rows, a.cols)
        K_b, N = (b.cols, b.rows) if trans_b else (b.rows, b.cols)
        if K != K_b:
            raise ValueError('shapes do not match: op(A) is %d x %d (A %s%s) but op(B) is %d x %d '
                             '(B %s%s)' % (M, K, a.shape_text(), ', transposed' if trans_a else '',
                                           K_b, N, b.shape_text(), ', transposed' if trans_b else ''))
        if c is not None and (c.rows, c.cols) != (M, N):
            raise ValueError('out is %s but op(A) op(B) is %d x %d' % (c.shape_text(), M, N))
        for size, what in ((M, 'M'), (N, 'N'), (K, 'K')):
            if size > MAX_SIZE:
                raise ValueError('%s = %d is larger than the library takes (%d)' % (what, size, MAX_SIZE))
        if c is not None:
            if c.readonly:
                raise ValueError('out is read-only')
            for m in (a, b):
                if share(c, m):
                    raise ValueError('out overlaps %s: at least one element of out is also one of %s '
                                     '(C must not overlap A or B)' % (m.name, m.name))
        if beta != 0.0 and c is None:
            raise ValueError('beta = %g reads C: pass it as out=' % beta)

        self.kind, self.alpha, self.beta = a.kind, alpha, beta
        self.M, self.N, self.K = M, N, K
        # One layout for all three, the output's; an input stored the other way
        # is the transpose of itself read that way, so its flag flips.
        self.layout = ROW if c is None or ROW in c.layouts else COL
        self.a = _operand(a, trans_a, self.layout)
        self.b = _operand(b, trans_b, self.layout)
        self.c = Operand(c, self.layout, False, c.layouts[self.layout]) if c is not None else None

    def set_output(self, out):
        """Attaches the output allocated for a call without out= (C-contiguous)."""
        c = Matrix(out, 'out')
        self.c = Operand(c, self.layout, False, c.layouts[self.layout])

    def operands(self):
        return [x for x in (self.a, self.b, self.c) if x is not None]


def _operand(matrix, transpose, layout):
    if layout in matrix.layouts:
        return Operand(matrix, layout, transpose, matrix.layouts[layout])
    other = COL if layout == ROW else ROW
    return Operand(matrix, other, not transpose, matrix.layouts[other])


def share(x: 'Matrix', y: 'Matrix') -> bool:
    """Whether matrices x and y share an element: some byte of one of x's
    floats is a byte of one of y's (numpy.shares_memory's exact answer).

    Exact and cheap where each matrix's elements are runs of contiguous
    floats at a fixed pitch (every CUDA array the library takes, and every
    host array with contiguous rows or columns): a lattice test, below. Host
    arrays whose rows and columns are both strided (read through copies, so
    numpy is there) are asked of numpy.shares_memory, with a bound on its
    work; where numpy gives up, they count as sharing."""
    if not (x.rows and x.cols and y.rows and y.cols):
        return False  # no elements
    if x.kind != y.kind or not (x.extent[0] < y.extent[1] and y.extent[0] < x.extent[1]):
        return False  # the spans do not meet
    if x.runs is not None and y.runs is not None:
        return _runs_meet(x.runs, y.runs)
    import numpy
    too_hard = getattr(getattr(numpy, 'exceptions', numpy), 'TooHardError')
    try:
        return bool(numpy.shares_memory(numpy.asarray(_Interface(x.memory)), numpy.asarray(_Interface(y.memory)),
                                        max_work=_NUMPY_MAX_WORK))  # type: ignore[arg-type]  # (stubs: -1, 0 only)
    except too_hard:
        return True


_NUMPY_MAX_WORK = 1 << 20


Runs = Tuple[int, int, int, int]  # (start, count, pitch, width)


def _runs(address: int, rows: int, cols: int, row_stride: int, col_stride: int) -> Optional[Runs]:
    """A matrix's elements as (start, count, pitch, width): `count` runs of
    `width` contiguous floats, each `pitch` floats after the last, the first
    at byte address `start`; pitch > width when count > 1. None when the
    elements form no such runs (both strides other than 0 and +-1, both
    dimensions longer than 1). None for an empty matrix too: it has no
    elements (its span is empty, so share() never asks)."""
    if rows == 0 or cols == 0:
        return None
    # Dimensions that do not change the set of elements drop out: length 1,
    # or stride 0 (broadcast). A negative stride walks the same set backwards.
    dims: List[Tuple[int, int]] = []
    for count, stride in ((rows, row_stride), (cols, col_stride)):
        if count > 1 and stride != 0:
            if stride < 0:
                address += 4 * (count - 1) * stride
                stride = -stride
            dims.append((count, stride))
    if not dims:
        return address, 1, 0, 1
    if len(dims) == 1:
        (count, stride), = dims
        run = (address, 1, 0, count) if stride == 1 else (address, count, stride, 1)
    else:
        (count, stride), (other, other_stride) = dims
        if other_stride == 1:
            run = (address, count, stride, other)
        elif stride == 1:
            run = (address, other, other_stride, count)
        else:
            return None
    start, count, pitch, width = run
    if pitch <= width:  # each run starts before the last ends: one run
        return start, 1, 0, (count - 1) * pitch + width
    return run


def _runs_meet(x: Runs, y: Runs) -> bool:
    """Whether two sets of runs (as _runs gives them) share a byte."""
    (s1, n1, p1, w1), (s2, n2, p2, w2) = x, y
    # x's run i, [s1 + 4 p1 i, + 4 w1), meets y's run k, [s2 + 4 p2 k, + 4 w2),
    # where 4 z lies strictly between d - 4 w1 and d + 4 w2, with z = p1 i - p2 k
    # and d = s2 - s1: where L <= z <= H.
    d = s2 - s1
    low = (d - 4 * w1) // 4 + 1
    high = -(-(d + 4 * w2) // 4) - 1
    return _lattice_meets(p1, n1 - 1, p2, n2 - 1, low, high)


def _lattice_meets(a: int, n: int, b: int, k: int, low: int, high: int) -> bool:
    """Whether low <= a i - b j <= high for some 0 <= i <= n, 0 <= j <= k
    (a, b, n, k >= 0). Exact, in O(log) steps."""
    if a == 0:
        n = 0
    if b == 0:
        k = 0
    if low > high:
        return False
    if n == 0:
        return _multiple_in(b, k, -high, -low)
    if k == 0:
        return _multiple_in(a, n, low, high)
    # j = 0 or j = k.
    if _multiple_in(a, n, low, high) or _multiple_in(a, n, low + b * k, high + b * k):
        return True
    # Otherwise a solution's j, strictly inside (0, k), comes with a window of
    # j's for its i, [(a i - high) / b, (a i - low) / b], that lies strictly
    # inside (0, k) too (a window reaching 0 or k would hold 0 or k as well).
    # Those i form a range, over which the window holds an integer exactly
    # where (a i - low) mod b <= high - low.
    first = max(0, high // a + 1)
    last = min(n, -(-(low + b * k) // a) - 1)
    if first > last:
        return False
    width = high - low
    if width >= b - 1:
        return True
    t = _first_within(a % b, (a * first - low) % b, b, width)
    return t is not None and t <= last - first


def _multiple_in(a: int, n: int, low: int, high: int) -> bool:
    """Whether a i lies in [low, high] for some 0 <= i <= n (a >= 0)."""
    if a == 0:
        return low <= 0 <= high
    return max(0, -(-low // a)) <= min(n, high // a)


def _first_within(a: int, c: int, m: int, width: int) -> Optional[int]:
    """The least t >= 0 with (a t + c) mod m <= width, or None
    (0 <= a, c < m; 0 <= width < m)."""
    low = -c % m
    high = low + width
    if high < m:
        return _least(a, m, low, high)
    found = [t for t in (_least(a, m, low, m - 1), _least(a, m, 0, high - m)) if t is not None]
    return min(found) if found else None


def _least(a: int, m: int, low: int, high: int) -> Optional[int]:
    """The least x >= 0 with low <= a x mod m <= high, or None
    (0 <= low <= high < m). Euclid's steps: O(log m)."""
    a %= m
    if low == 0:
        return 0
    if a == 0:
        return None
    x = -(-low // a)
    if a * x <= high:  # a x reaches [low, high] before wrapping past m
        return x
    # Else [low, high] holds no multiple of a, and x is least where
    # a x - m y lands in it for the least y >= 1 with a multiple of a in
    # [low + m y, high + m y]: where m y mod a lies in [a - high % a, a - low % a].
    y = _least(m % a, a, a - high % a, a - low % a)
    if y is None:
        return None
    return -(-(low + m * y) // a)


def _type_name(obj):
    t = type(obj)
    return t.__name__ if t.__module__ == 'builtins' else '%s.%s' % (t.__module__, t.__name__)


def _dtype_name(obj, typestr):
    dtype = getattr(obj, 'dtype', None)
    return str(dtype) if dtype is not None else repr(typestr)
