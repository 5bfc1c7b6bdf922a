"""Turning array objects into the arguments of gl_sgemm_ex, in pure Python.

Everything here runs before any CUDA call, so every argument error is raised
(TypeError or ValueError) before anything reaches the GPU. Arrays are read
through the array interfaces, never by importing their framework:
__cuda_array_interface__ (CuPy, PyTorch, Numba, ...) for device memory, and
__array_interface__ (numpy) for host memory.
"""
import sys

MAX_SIZE = 2**31 - 1  # the library's limit for M, N and K
_FLOAT32 = ('<f4', '=f4') if sys.byteorder == 'little' else ('>f4', '=f4')
ROW, COL = 'row', 'col'


class Matrix:
    """One 2-D float32 array as the library needs it: address, shape and
    element strides, plus where it came from."""

    def __init__(self, obj, name):
        self.obj, self.name = obj, name
        info = getattr(obj, '__cuda_array_interface__', None)
        if info is not None:
            self.kind = 'device'
        else:
            info = getattr(obj, '__array_interface__', None)
            if info is None:
                raise TypeError('%s: expected a numpy array or a CUDA array (an object with '
                                '__cuda_array_interface__: CuPy, PyTorch, Numba), got %s'
                                % (name, _type_name(obj)))
            self.kind = 'host'
        typestr = info.get('typestr')
        if typestr not in _FLOAT32:
            raise TypeError('%s has dtype %s; gemmladder computes in float32 only (convert it, '
                            'e.g. with .astype(numpy.float32))' % (name, _dtype_name(obj, typestr)))
        shape = tuple(info.get('shape', ()))
        if len(shape) != 2:
            raise ValueError('%s must be a 2-D matrix, got shape %s' % (name, shape))
        self.rows, self.cols = (int(n) for n in shape)
        strides = info.get('strides')
        if strides is None:  # C-contiguous
            strides = (self.cols * 4, 4)
        if any(int(s) % 4 for s in strides):
            raise ValueError('%s has strides %s (bytes) that are not whole float32 elements'
                             % (name, tuple(strides)))
        self.row_stride, self.col_stride = (int(s) // 4 for s in strides)
        data = info.get('data')
        if not isinstance(data, tuple) or len(data) != 2:
            raise TypeError('%s: its array interface gives no (address, read-only) data tuple' % name)
        self.address, self.readonly = int(data[0] or 0), bool(data[1])
        if info.get('mask') is not None:
            raise ValueError('%s is a masked array; gemmladder takes plain matrices' % name)
        self.stream = None
        if self.kind == 'device' and info.get('version', 0) >= 3:
            self.stream = info.get('stream')
            if self.stream == 0:
                raise ValueError('%s: __cuda_array_interface__ stream 0 is disallowed by the '
                                 'interface (1 is the legacy default stream, 2 per-thread)' % name)
        self.layouts = self._layouts()
        if not self.layouts:
            raise ValueError(
                '%s (shape %s, strides %s bytes) has neither contiguous rows nor contiguous '
                'columns with a leading dimension that covers them; pass a copy '
                '(e.g. .copy(), numpy.ascontiguousarray)'
                % (name, shape, (self.row_stride * 4, self.col_stride * 4)))

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

    def span(self, layout):
        """Bytes from the first element to just past the last, read in `layout`."""
        if not self.rows or not self.cols:
            return 0
        outer, inner = (self.rows, self.cols) if layout == ROW else (self.cols, self.rows)
        return ((outer - 1) * self.layouts[layout] + inner) * 4

    def shape_text(self):
        return '%d x %d' % (self.rows, self.cols)


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

    def __init__(self, A, B, out, alpha, beta, trans_a, trans_b):
        alpha, beta = _scalar(alpha, 'alpha'), _scalar(beta, 'beta')
        trans_a, trans_b = _transpose(trans_a, 'trans_a'), _transpose(trans_b, 'trans_b')
        a, b = Matrix(A, 'A'), Matrix(B, 'B')
        c = Matrix(out, 'out') if out is not None else None
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
                if _overlap(c, m):
                    raise ValueError('out shares memory with %s; C must not overlap A or B' % m.name)
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


def _overlap(x, y):
    if x.kind != y.kind or not x.address or not y.address:
        return False
    x_end = x.address + max(x.span(l) for l in x.layouts)
    y_end = y.address + max(y.span(l) for l in y.layouts)
    return x.address < y_end and y.address < x_end


def _scalar(value, name):
    if isinstance(value, (str, bytes)) or not hasattr(value, '__float__'):
        raise TypeError('%s must be a real number, got %s' % (name, _type_name(value)))
    return float(value)


def _transpose(value, name):
    """True/False, or the BLAS letters 'N'/'T'."""
    if isinstance(value, str) and value.upper() in ('N', 'T'):
        return value.upper() == 'T'
    if isinstance(value, bool) or type(value).__name__ == 'bool_':
        return bool(value)
    raise TypeError("%s must be True, False, 'N' or 'T', got %r" % (name, value))


def _type_name(obj):
    t = type(obj)
    return t.__name__ if t.__module__ == 'builtins' else '%s.%s' % (t.__module__, t.__name__)


def _dtype_name(obj, typestr):
    dtype = getattr(obj, 'dtype', None)
    return str(dtype) if dtype is not None else repr(typestr)
