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

    def __init__(self, obj, name, stream=None, batched=False):
        """`stream`: the cudaStream_t (0: the default) the product will run on,
        for DLPack producers of device memory to order their work before.
        `batched`: a 3-D array (batch, rows, cols) is taken too, as a batch of
        matrices `batch_stride` floats apart (`batch` is None for a 2-D one)."""
        self.obj, self.name = obj, name
        self.keep = None  # a DLPack capsule that must outlive the call
        self.copy = None
        info = self._interface(stream)
        typestr = info.get('typestr')
        if typestr not in _FLOAT32:
            raise TypeError('%s has dtype %s; gemmladder computes in float32 only (convert it, '
                            'e.g. with .astype(numpy.float32))' % (name, _dtype_name(obj, typestr)))
        shape = tuple(info.get('shape', ()))
        if len(shape) != 2 and not (batched and len(shape) == 3):
            raise ValueError(dimension_message(name, shape, batched))
        dims = tuple(_arguments.integer(n, '%s: the shape' % name, (0, INT64[1])) for n in shape)
        self.batch = dims[0] if len(dims) == 3 else None
        self.rows, self.cols = dims[-2:]
        strides = info.get('strides')
        if strides is None:  # C-contiguous
            strides = (self.rows * self.cols * 4, self.cols * 4, 4)[3 - len(dims):]
        if len(strides) != len(dims):
            raise ValueError('%s has %d strides for a %d-D shape' % (name, len(strides), len(dims)))
        strides = tuple(_arguments.integer(s, '%s: a stride' % name) for s in strides)
        if any(s % 4 for s in strides):
            raise ValueError('%s has strides %s (bytes) that are not whole float32 elements'
                             % (name, tuple(strides)))
        self.row_stride, self.col_stride = (s // 4 for s in strides[-2:])
        # Floats from one matrix of the batch to the next; 0 where there is at
        # most one (its stride then means nothing) or the array broadcasts it.
        self.batch_stride = strides[0] // 4 if self.batch is not None and self.batch > 1 else 0
        data = info.get('data')
        if not isinstance(data, tuple) or len(data) != 2:
            raise TypeError('%s: its array interface gives no (address, read-only) data tuple' % name)
        self.address = _arguments.integer(data[0] or 0, '%s: the data address' % name, POINTER)
        self.readonly = bool(data[1])
        if info.get('mask') is not None:
            raise ValueError('%s is a masked array; gemmladder takes plain matrices' % name)
        self.extent = self._extent()
        # The elements' memory, as given (a copy, below, does not change it):
        # runs for a matrix, or a batch whose matrices are all the same one.
        self.runs = None
        if not self.batch_stride:
            self.runs = _runs(self.address, self.rows, self.cols, self.row_stride, self.col_stride)
        self.memory = {'shape': shape, 'typestr': _FLOAT32[0],
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
                % (name, shape, strides))
        if self.batch_stride < 0 and self.kind == 'device':  # host batches are copied matrix by matrix
            raise ValueError(
                '%s (shape %s, strides %s bytes) walks its batch backwards; the library takes '
                'batch strides >= 0 and CUDA arrays are used in place, so pass a copy (e.g. .copy())'
                % (name, shape, strides))

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
        if self.rows and self.cols and self.batch != 0:
            for count, stride in ((self.rows, self.row_stride), (self.cols, self.col_stride),
                                  (self.batch or 1, self.batch_stride)):
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
        if self.batch_stride:
            self.batch_stride = self.rows * self.cols
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
        if self.batch is not None:
            return '%d x %d x %d' % (self.batch, self.rows, self.cols)
        return '%d x %d' % (self.rows, self.cols)

    def at(self, index):
        """The byte address of matrix `index` of the batch."""
        return self.address + 4 * index * self.batch_stride


def dimension_message(name: str, shape: Tuple[int, ...], batched: bool) -> str:
    """The ValueError's text for an array of a dimension the call does not take."""
    text = '%s must be a 2-D matrix, got shape %s' % (name, shape)
    if batched:
        text += ' (%d-D); gemmladder takes 2-D matrices and 3-D batches of them (batch, rows, cols)' % len(shape)
        if len(shape) == 1:
            text += ': reshape a vector to (1, n) or (n, 1)'
    return text


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


def _scalars(alpha, beta, trans_a, trans_b):
    return (_arguments.real(alpha, 'alpha'), _arguments.real(beta, 'beta'),
            _arguments.transpose(trans_a, 'trans_a'), _arguments.transpose(trans_b, 'trans_b'))


class Plan:
    """A validated product C = alpha op(A) op(B) + beta C, ready for gl_sgemm_ex."""

    batch = None  # one product (BatchPlan: a batch of them)

    def __init__(self, A, B, out, alpha, beta, trans_a, trans_b, stream=None):
        """`stream`: the cudaStream_t the product will run on, if known (see Matrix)."""
        alpha, beta, trans_a, trans_b = _scalars(alpha, beta, trans_a, trans_b)
        a, b = Matrix(A, 'A', stream), Matrix(B, 'B', stream)
        c = Matrix(out, 'out', stream) if out is not None else None
        self._build(a, b, c, alpha, beta, trans_a, trans_b)

    def _build(self, a, b, c, alpha, beta, trans_a, trans_b, matmul=False):
        M, N, K = _sizes(a, b, c, trans_a, trans_b, matmul)
        if c is not None and (c.rows, c.cols) != (M, N):
            raise ValueError('%s is %s but %s is %d x %d'
                             % (c.name, c.shape_text(), _product_text(a, b, matmul), M, N))
        _check_sizes(M, N, K)
        if c is not None:
            _check_writable(c)
            for m in (a, b):
                if share(c, m):
                    raise ValueError('%s overlaps %s: at least one element of %s is also one of %s '
                                     '(C must not overlap A or B)' % (c.name, m.name, c.name, m.name))
        _check_beta(beta, c)

        self.kind, self.alpha, self.beta = a.kind, alpha, beta
        self.M, self.N, self.K = M, N, K
        # One layout for all three, the output's; an input stored the other way
        # is the transpose of itself read that way, so its flag flips.
        self.layout = ROW if c is None or ROW in c.layouts else COL
        self.a = _operand(a, trans_a, self.layout)
        self.b = _operand(b, trans_b, self.layout)
        self.c = Operand(c, self.layout, False, c.layouts[self.layout]) if c is not None else None

    @property
    def shape(self):
        """The result's shape."""
        return (self.M, self.N)

    def set_output(self, out):
        """Attaches the output allocated for a call without out= (C-contiguous)."""
        c = Matrix(out, 'out')
        self.c = Operand(c, self.layout, False, c.layouts[self.layout])

    def operands(self):
        return [x for x in (self.a, self.b, self.c) if x is not None]


def _product_text(a, b, matmul):
    return ('%s @ %s' if matmul else 'op(%s) op(%s)') % (a.name, b.name)


def _sizes(a, b, c, trans_a, trans_b, matmul=False):
    """M, N, K of op(a) op(b), after the kinds and inner sizes are checked."""
    if a.kind != b.kind or (c is not None and c.kind != a.kind):
        raise TypeError('%s, %s%s must all be numpy arrays or all be CUDA arrays; got %s'
                        % (a.name, b.name, ' and %s' % c.name if c is not None else '',
                           ', '.join(_type_name(m.obj) for m in (a, b, c) if m is not None)))
    M, K = (a.cols, a.rows) if trans_a else (a.rows, a.cols)
    K_b, N = (b.cols, b.rows) if trans_b else (b.rows, b.cols)
    if K != K_b and matmul:
        raise ValueError('shapes do not match: %s is %s and %s is %s, but %s @ %s needs %s\'s '
                         'columns (%d) to be as many as %s\'s rows (%d)'
                         % (a.name, a.shape_text(), b.name, b.shape_text(), a.name, b.name, a.name,
                            K, b.name, K_b))
    if K != K_b:
        raise ValueError('shapes do not match: op(%s) is %d x %d (%s %s%s) but op(%s) is %d x %d '
                         '(%s %s%s)' % (a.name, M, K, a.name, a.shape_text(), ', transposed' if trans_a else '',
                                        b.name, K_b, N, b.name, b.shape_text(),
                                        ', transposed' if trans_b else ''))
    return M, N, K


def _check_sizes(M, N, K):
    for size, what in ((M, 'M'), (N, 'N'), (K, 'K')):
        if size > MAX_SIZE:
            raise ValueError('%s = %d is larger than the library takes (%d)' % (what, size, MAX_SIZE))


def _check_writable(c):
    if c.readonly:
        raise ValueError('%s is read-only' % c.name)


def _check_beta(beta, c):
    if beta != 0.0 and c is None:
        raise ValueError('beta = %g reads C: pass it as out=' % beta)


def pointer_plans(As, Bs, outs, alpha, beta, trans_a, trans_b, stream=None) -> List[Plan]:
    """One Plan per product of a pointer-array batch (gl_sgemm_batched): As,
    Bs (and outs, if given) sequences of as many 2-D arrays, product i
    op(As[i]) op(Bs[i]). The call takes one shape, layout, pair of
    transposes and (CUDA arrays) leading dimension per operand for all
    products: every product must agree with the first on them (host arrays
    are packed, so their leading dimensions need not)."""
    sequences = [('As', As), ('Bs', Bs)] + ([('out', outs)] if outs is not None else [])
    for name, sequence in sequences:
        if isinstance(sequence, (str, bytes)) or not isinstance(sequence, (list, tuple)):
            raise TypeError('%s must be a list or tuple of 2-D arrays, got %s'
                            % (name, _arguments.type_name(sequence)))
    if any(len(sequence) != len(As) for _, sequence in sequences):
        raise ValueError('%s: one matrix of each for every product'
                         % ', '.join('%s holds %d' % (name, len(sequence)) for name, sequence in sequences))
    plans = []
    for i in range(len(As)):
        try:
            plans.append(Plan(As[i], Bs[i], outs[i] if outs is not None else None, alpha, beta,
                              trans_a, trans_b, stream))
        except (TypeError, ValueError) as e:
            raise type(e)('product %d: %s' % (i, e)) from None

    def terms(p):
        ops = [p.a, p.b] + ([p.c] if p.c is not None else [])
        lds = tuple(x.ld for x in ops) if p.kind == 'device' else ()
        return (p.kind, p.M, p.N, p.K, p.layout, p.a.transpose, p.b.transpose) + lds

    for i, p in enumerate(plans[1:], 1):
        if terms(p) != terms(plans[0]):
            raise ValueError('product %d is not stored as product 0 is: every product of a '
                             'pointer-array batch has the same kind of array, M, N and K, layout '
                             '(row- or column-major), transposes and, for CUDA arrays, leading '
                             'dimensions (product 0: %s; product %d: %s)'
                             % (i, _terms_text(plans[0]), i, _terms_text(p)))
    return plans


def _terms_text(p):
    return '%s arrays, %d x %d x %d, %s-major, %s%s, ld %s' % (
        p.kind, p.M, p.N, p.K, 'row' if p.layout == ROW else 'column', 'T' if p.a.transpose else 'N',
        'T' if p.b.transpose else 'N', '/'.join(str(x.ld) for x in p.operands()))


def plan(A, B, out, alpha, beta, trans_a, trans_b, stream=None, matmul=False):
    """A Plan for 2-D arrays (exactly what Plan makes of them), or a BatchPlan
    where one of them is a 3-D batch. Each array's interface is read once.
    matmul: the arrays are named a, b and out, and messages say a @ b."""
    alpha, beta, trans_a, trans_b = _scalars(alpha, beta, trans_a, trans_b)
    names = ('a', 'b', 'out') if matmul else ('A', 'B', 'out')
    a, b = Matrix(A, names[0], stream, batched=True), Matrix(B, names[1], stream, batched=True)
    c = Matrix(out, names[2], stream, batched=True) if out is not None else None
    if a.batch is None and b.batch is None and (c is None or c.batch is None):
        single = Plan.__new__(Plan)
        single._build(a, b, c, alpha, beta, trans_a, trans_b, matmul)
        return single
    return BatchPlan(a, b, c, alpha, beta, trans_a, trans_b, matmul)


def broadcast_batch(batch_a: Optional[int], batch_b: Optional[int],
                    names: Tuple[str, str] = ('A', 'B')) -> Optional[int]:
    """The batch of products numpy.matmul and torch.matmul make of operands
    holding batch_a and batch_b matrices (None: a 2-D matrix, which every
    product shares; so does a batch of 1). None: one 2-D product.
    ValueError for two batches of different sizes, neither of them 1."""
    if batch_a is None or batch_b is None:
        return batch_b if batch_a is None else batch_a
    if batch_a == batch_b or batch_b == 1:
        return batch_a
    if batch_a == 1:
        return batch_b
    raise ValueError('batch sizes do not match: %s holds %d matrices and %s %d (a batch broadcasts '
                     'against another only when they are as long, or one holds 1 or is 2-D)'
                     % (names[0], batch_a, names[1], batch_b))


def operand_stride(batch: int, operand_batch: Optional[int], operand_stride: int) -> int:
    """gl_sgemm_strided_batched's stride for an operand (floats) in a batch of
    `batch` products: 0 where the operand broadcasts (2-D, a batch of 1, or a
    batch stride of 0: every product reads the same matrix), else its own
    batch stride."""
    if operand_batch is None or operand_batch == 1 or batch <= 1:
        return 0
    return operand_stride


def batch_arguments(batch_a: Optional[int], stride_a: int, batch_b: Optional[int], stride_b: int,
                    names: Tuple[str, str] = ('A', 'B')) -> Tuple[int, int, int]:
    """(batch, strideA, strideB) of gl_sgemm_strided_batched for operands of
    these batch sizes (None: 2-D) and batch strides (floats), with matmul's
    broadcasting (broadcast_batch). One 2-D product is a batch of 1."""
    batch = broadcast_batch(batch_a, batch_b, names)
    count = 1 if batch is None else batch
    return count, operand_stride(count, batch_a, stride_a), operand_stride(count, batch_b, stride_b)


def products_share(rows: int, cols: int, row_stride: int, col_stride: int, batch: int,
                   batch_stride: int, limit: int = 1 << 16) -> bool:
    """Whether two matrices of a batch (rows x cols, element strides
    (row_stride, col_stride), each batch_stride floats after the last) share
    an element: exact for matrices that form runs (_runs, as every output the
    library writes in place does), counting as sharing otherwise or where more
    than `limit` pairs would need a look. Matrix i and j share one exactly
    where matrix 0 and matrix |j - i| do."""
    if batch <= 1 or rows == 0 or cols == 0:
        return False
    if batch_stride == 0:
        return True
    first = _runs(0, rows, cols, row_stride, col_stride)
    if first is None:
        return True
    start, count, pitch, width = first
    span = 4 * ((count - 1) * pitch + width)  # bytes from the first element's to past the last
    step = 4 * abs(batch_stride)
    reach = min(batch - 1, (span - 1) // step)  # the k whose matrix k could meet matrix 0
    if reach > limit:
        return True
    return any(_runs_meet(first, (start + k * step, count, pitch, width)) for k in range(1, reach + 1))


class BatchPlan:
    """A validated batch of products C_i = alpha op(A_i) op(B_i) + beta C_i,
    with matmul's broadcasting, ready for gl_sgemm_strided_batched. Each
    Operand has `stride` (the call's, floats) and `count` (the distinct
    matrices it holds: 1 where every product reads the same one)."""

    def __init__(self, a, b, c, alpha, beta, trans_a, trans_b, matmul=False):
        M, N, K = _sizes(a, b, c, trans_a, trans_b, matmul)
        batch, stride_a, stride_b = batch_arguments(a.batch, a.batch_stride, b.batch, b.batch_stride,
                                                    (a.name, b.name))
        if a.batch is None and b.batch is None:  # a 3-D out for one product
            want = '%d x %d' % (M, N)
        else:
            want = '%d x %d x %d' % (batch, M, N)
        if c is not None and c.shape_text() != want:
            raise ValueError('%s is %s but %s is %s%s'
                             % (c.name, c.shape_text(), _product_text(a, b, matmul), want,
                                ' (numpy.matmul\'s broadcasting of %s %s and %s %s)'
                                % (a.name, a.shape_text(), b.name, b.shape_text())
                                if a.batch != b.batch else ''))
        _check_sizes(M, N, K)
        if batch > MAX_SIZE:
            raise ValueError('a batch of %d products is more than the library takes (%d)' % (batch, MAX_SIZE))
        if c is not None:
            _check_writable(c)
            if products_share(c.rows, c.cols, c.row_stride, c.col_stride, c.batch or 1, c.batch_stride):
                raise ValueError('%s (shape %s, strides %s bytes): two of its matrices share an element, '
                                 'and each product must write its own'
                                 % (c.name, c.memory['shape'], c.memory['strides']))
            for m in (a, b):
                if self._overlap(c, m, batch):
                    raise ValueError(
                        '%s overlaps %s: %s' % (c.name, m.name,
                                                'at least one element of %s is also one of %s (C must not '
                                                'overlap A or B)' % (c.name, m.name) if batch <= 1 else
                                                'the memory from %s\'s first element to its last meets '
                                                '%s\'s (a batch\'s outputs must lie apart from its inputs)'
                                                % (c.name, m.name)))
        _check_beta(beta, c)

        self.kind, self.alpha, self.beta = a.kind, alpha, beta
        self.M, self.N, self.K, self.batch = M, N, K, batch
        self.layout = ROW if c is None or ROW in c.layouts else COL
        self.a = _operand(a, trans_a, self.layout)
        self.b = _operand(b, trans_b, self.layout)
        for operand, stride in ((self.a, stride_a), (self.b, stride_b)):
            operand.stride, operand.count = stride, batch if stride else 1
        self.c = None
        if c is not None:
            self._attach(c)

    @staticmethod
    def _overlap(c, m, batch):
        if batch <= 1:
            return share(c, m)
        # The library's rule for batches: spans (see gl_sgemm_strided_batched).
        empty = not (c.rows and c.cols and m.rows and m.cols) or m.batch == 0
        return not empty and c.kind == m.kind and c.extent[0] < m.extent[1] and m.extent[0] < c.extent[1]

    def _attach(self, c):
        self.c = Operand(c, self.layout, False, c.layouts[self.layout])
        self.c.stride, self.c.count = c.batch_stride if self.batch > 1 else 0, self.batch

    @property
    def shape(self):
        """The result's shape: (batch, M, N), or (M, N) where A and B are both 2-D."""
        if self.a.matrix.batch is None and self.b.matrix.batch is None:
            return (self.M, self.N)
        return (self.batch, self.M, self.N)

    def set_output(self, out):
        """Attaches the output allocated for a call without out= (C-contiguous)."""
        self._attach(Matrix(out, 'out', batched=True))

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
