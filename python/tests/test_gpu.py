"""GPU tests of the Python binding: products through every rung against a
float64 reference (||C - C_ref|| / ||C_ref|| <= 1e-5, inputs uniform in
[-1, 1]) for raw device memory, numpy, CuPy and PyTorch arrays, the latter
two also through DLPack alone; numpy arrays of any strides; transposes
and memory orders, alpha/beta, out=, zero sizes, streams, errors coming back
from the library, views of one allocation as out and A or B (adjacent ones
computed, overlapping ones refused), argument ranges only the GPU side can
judge, the tuning bindings, and batches (3-D arrays through
gl_sgemm_strided_batched: raw device memory, numpy, CuPy and PyTorch, with
broadcasting, padding and gaps, strides read through copies, matmul),
each product of a batch checked on its own.

Exits 77 (skipped) where creating a handle reports no CUDA device; parts
whose package (numpy, CuPy, PyTorch) is missing are skipped one by one.
"""
import ctypes
import math
import sys
import unittest

import support
from support import DLPackOnly

import gemmladder
from gemmladder import _cudart

try:
    import numpy
except ImportError:
    numpy = None

TOLERANCE = 1e-5


def tolerance(v, K=4096):
    """What a variant's precision class allows (tests/harness.h): FP32's
    1e-5, or for TF32, whose operands are rounded to TF32, 3 * 2^-11 plus
    2 K 2^-24 (K at most 4096 here)."""
    if v is not None and gemmladder.variant_info(v).precision == gemmladder.Precision.TF32:
        return 3.0 / 2048.0 + 2.0 * K / 16777216.0
    return TOLERANCE
SHAPES = [(1, 1, 1), (33, 47, 29), (127, 65, 96), (256, 128, 512), (513, 257, 129)]


def runtime():
    rt = _cudart.runtime()
    rt.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    rt.cudaStreamDestroy.argtypes = [ctypes.c_void_p]
    rt.cudaGetDeviceCount.argtypes = [ctypes.POINTER(ctypes.c_int)]
    return rt


class Stream:
    """A non-blocking CUDA stream (it does not wait for the legacy default one)."""

    def __init__(self):
        handle = ctypes.c_void_p()
        _cudart.check(runtime().cudaStreamCreateWithFlags(ctypes.byref(handle), 1), 'cudaStreamCreateWithFlags')
        self.value = handle.value

    def synchronize(self):
        _cudart.synchronize(self.value)

    def close(self):
        runtime().cudaStreamDestroy(self.value)


class DeviceMatrix:
    """cudaMalloc'ed rows x cols float32, row-major with leading dimension ld,
    seen through __cuda_array_interface__ (version 3, naming `stream`)."""

    def __init__(self, rows, cols, values=None, ld=None, stream=None):
        self.rows, self.cols, self.ld, self.stream = rows, cols, ld or max(cols, 1), stream
        self.buffer = _cudart.DeviceBuffer(4 * max(rows * self.ld, 1))
        if values is not None:
            self.upload(values)

    @property
    def __cuda_array_interface__(self):
        return {'shape': (self.rows, self.cols), 'typestr': '<f4', 'data': (self.buffer.address, False),
                'strides': (4 * self.ld, 4), 'version': 3, 'stream': self.stream}

    def upload(self, values):
        host = (ctypes.c_float * (self.rows * self.cols))(*[x for row in values for x in row])
        _cudart.copy_2d(self.buffer.address, 4 * self.ld, ctypes.addressof(host), 4 * self.cols,
                        4 * self.cols, self.rows, _cudart.MEMCPY_HOST_TO_DEVICE, None)
        _cudart.synchronize(None)

    def tolist(self):
        host = (ctypes.c_float * max(self.rows * self.cols, 1))()
        _cudart.synchronize(None)
        _cudart.copy_2d(ctypes.addressof(host), 4 * self.cols, self.buffer.address, 4 * self.ld,
                        4 * self.cols, self.rows, _cudart.MEMCPY_DEVICE_TO_HOST, None)
        _cudart.synchronize(None)
        return [list(host[i * self.cols:(i + 1) * self.cols]) for i in range(self.rows)]


class GpuTest(unittest.TestCase):
    def setUp(self):
        self.handle = gemmladder.Handle()

    def tearDown(self):
        self.handle.close()

    def variants(self):
        """Every variant this GPU can run (the others are reported skipped)."""
        for v in gemmladder.variants():
            if self.handle.available(v):
                yield v

    def assertClose(self, got, want, what='', variant=None):
        if numpy is not None and isinstance(want, numpy.ndarray):
            error = numpy.linalg.norm(numpy.asarray(got, dtype=numpy.float64) - want) / max(numpy.linalg.norm(want), 1e-300)
        else:
            error = support.relative_error(got, want)
        self.assertLessEqual(error, tolerance(variant), '%s: ||C - C_ref|| / ||C_ref|| = %.3g' % (what, error))


class RawDeviceMemory(GpuTest):
    """Device memory described by __cuda_array_interface__ alone: needs no numpy."""

    def test_every_variant(self):
        rng = support.rng(11)
        for M, N, K in SHAPES[:3]:
            A, B = support.random_matrix(M, K, rng), support.random_matrix(K, N, rng)
            a, b = DeviceMatrix(M, K, A), DeviceMatrix(K, N, B)
            want = support.reference(A, B)
            for v in self.variants():
                with self.subTest(variant=v.name if hasattr(v, 'name') else v, M=M, N=N, K=K):
                    c = DeviceMatrix(M, N, ld=N + 3)
                    self.assertIs(self.handle.sgemm(a, b, variant=v, out=c), c)
                    self.assertClose(c.tolist(), want, gemmladder.variant_name(v), variant=v)

    def test_alpha_beta_transposes(self):
        rng = support.rng(12)
        M, N, K = 45, 38, 51
        A, B, C = support.random_matrix(K, M, rng), support.random_matrix(N, K, rng), support.random_matrix(M, N, rng)
        a, b, c = DeviceMatrix(K, M, A), DeviceMatrix(N, K, B), DeviceMatrix(M, N, C)
        self.handle.gemm(a, b, trans_a=True, trans_b='T', alpha=-1.5, beta=0.25, out=c, variant='vectorized')
        self.assertClose(c.tolist(), support.reference(A, B, -1.5, 0.25, C, True, True))

    def test_zero_sizes(self):
        c = DeviceMatrix(3, 4, [[1.0] * 4] * 3)
        self.handle.gemm(DeviceMatrix(3, 0), DeviceMatrix(0, 4), beta=2.0, out=c)  # K = 0: C = beta C
        self.assertEqual(c.tolist(), [[2.0] * 4] * 3)
        self.handle.gemm(DeviceMatrix(0, 5), DeviceMatrix(5, 4), out=DeviceMatrix(0, 4))  # M = 0: nothing

    def test_stream_named_by_the_arrays(self):
        rng = support.rng(13)
        stream = Stream()
        try:
            A, B = support.random_matrix(200, 300, rng), support.random_matrix(300, 100, rng)
            a, b = DeviceMatrix(200, 300, A, stream=stream.value), DeviceMatrix(300, 100, B, stream=stream.value)
            c = DeviceMatrix(200, 100, stream=stream.value)
            self.handle.sgemm(a, b, out=c)
            self.assertEqual(self.handle.stream, 0)  # the handle's own stream is left as it was
            stream.synchronize()
            self.assertClose(c.tolist(), support.reference(A, B))
            # An explicit stream, and the handle's stream property.
            self.handle.gemm(a, b, out=c, alpha=2.0, stream=stream.value)
            stream.synchronize()
            self.assertClose(c.tolist(), support.reference(A, B, 2.0))
            self.handle.stream = stream.value
            self.assertEqual(self.handle.stream, stream.value)
            self.handle.sgemm(DeviceMatrix(200, 300, A), DeviceMatrix(300, 100, B), out=c)
            self.handle.synchronize()
            self.assertClose(c.tolist(), support.reference(A, B))
            self.handle.stream = None
            self.assertEqual(self.handle.stream, 0)
        finally:
            stream.close()

    def test_library_errors_come_back(self):
        class Misaligned(DeviceMatrix):
            """Its interface points 2 bytes into the allocation: a check only
            the library makes (a float must sit on a 4-byte boundary)."""
            @property
            def __cuda_array_interface__(self):
                face = dict(DeviceMatrix.__cuda_array_interface__.fget(self))
                face['data'] = (self.buffer.address + 2, False)
                return face

        out = Misaligned(4, 3)
        with self.assertRaises(gemmladder.Error) as caught:
            self.handle.sgemm(DeviceMatrix(4, 5), DeviceMatrix(5, 3), out=out)
        e = caught.exception
        self.assertIs(e.status, gemmladder.Status.INVALID_ARGUMENT)
        self.assertEqual(e.function, 'gl_sgemm_ex')
        self.assertIn('not aligned to 4 bytes', e.message)
        self.assertEqual(self.handle.last_error(), e.message)

    def test_handle_lifetime_and_defaults(self):
        self.assertIn(gemmladder.Variant.CUBLAS, self.handle.available_variants())
        self.assertIs(gemmladder.default_handle(), gemmladder.default_handle())
        c = gemmladder.sgemm(DeviceMatrix(2, 2, [[1, 2], [3, 4]]), DeviceMatrix(2, 2, [[1, 0], [0, 1]]),
                             out=DeviceMatrix(2, 2))
        self.assertEqual(c.tolist(), [[1, 2], [3, 4]])
        with gemmladder.Handle() as h:
            self.assertEqual(h.device, self.handle.device)
        self.assertTrue(h.closed)
        with self.assertRaisesRegex(ValueError, 'closed'):
            h.sgemm(DeviceMatrix(1, 1), DeviceMatrix(1, 1), out=DeviceMatrix(1, 1))
        h.close()  # twice is fine

    def test_sgemm_plan(self):
        P, V = gemmladder.Path, gemmladder.Variant
        plan = self.handle.sgemm_plan(4096, 4096, 4096)
        # rung 8's kernel, or rung 12's on the same tiles where the code is for sm_90 or newer
        self.assertEqual((plan.variant, plan.path), (V.AUTO, P.INTERIOR))
        self.assertIn(plan.kernel, (V.WARPTILE, V.PIPELINED))
        self.assertTrue(plan.aligned and plan.why and plan.tiles.bm > 0)
        plan = self.handle.sgemm_plan(4097, 4097, 4097, 'auto')
        self.assertIn(plan.path, (P.PACKED, P.EDGE_TESTS))  # EDGE_TESTS where the pool has no scratch
        self.assertEqual(self.handle.sgemm_plan(64, 64, 64, 'cublas').path, P.CUBLAS)
        self.assertEqual(self.handle.sgemm_plan(64, 64, 0, 'warptile').path, P.SCALE)
        self.assertIsNone(self.handle.sgemm_plan(64, 64, 0, 'warptile').kernel)
        col = self.handle.sgemm_plan(300, 200, 100, 'vectorized', trans_a=True, column_major=True)
        self.assertEqual((col.kernel, col.path), (V.VECTORIZED, P.EDGE_TESTS))
        with self.assertRaisesRegex(gemmladder.Error, 'lda'):
            self.handle.sgemm_plan(300, 200, 100, lda=5)

    def test_arrays_on_different_gpus(self):
        count = ctypes.c_int()
        runtime().cudaGetDeviceCount(ctypes.byref(count))
        if count.value < 2:
            self.skipTest('one GPU')
        with _cudart.on_device(1):
            other = DeviceMatrix(5, 3)
        with self.assertRaisesRegex(ValueError, 'different GPUs'):
            gemmladder.sgemm(DeviceMatrix(4, 5), other, out=DeviceMatrix(4, 3))
        with self.assertRaisesRegex(ValueError, 'the handle runs on GPU'):
            gemmladder.Handle(1).sgemm(DeviceMatrix(4, 5), DeviceMatrix(5, 3), out=DeviceMatrix(4, 3))


class DeviceView:
    """rows x cols floats of a DeviceMatrix's memory, from element `offset`
    on, `strides` elements apart (row, column), through __cuda_array_interface__."""

    def __init__(self, matrix, rows, cols, strides, offset):
        self.matrix, self.shape, self.strides, self.offset = matrix, (rows, cols), strides, offset

    @property
    def __cuda_array_interface__(self):
        return {'shape': self.shape, 'typestr': '<f4', 'data': (self.matrix.buffer.address + 4 * self.offset, False),
                'strides': tuple(4 * s for s in self.strides), 'version': 3, 'stream': None}

    def indices(self):
        return [[self.offset + i * self.strides[0] + j * self.strides[1] for j in range(self.shape[1])]
                for i in range(self.shape[0])]

    def values(self, memory):
        return [[memory[k] for k in row] for row in self.indices()]


class OverlappingViews(GpuTest):
    """out and A or B as views of one allocation: adjacent ones (sharing no
    element) are computed right by every variant, with nothing written
    outside out; ones sharing an element are refused before the GPU."""

    CASES = [  # (case, view, out, shared): element strides and offsets in one 256-float allocation
        ('left and right halves', (4, 4, (8, 1), 0), (4, 4, (8, 1), 4), False),
        ('top and bottom', (4, 4, (8, 1), 0), (4, 4, (8, 1), 32), False),
        ('out ends where the view starts', (4, 4, (4, 1), 16), (4, 4, (4, 1), 0), False),
        ('column-major beside each other', (4, 4, (1, 16), 0), (4, 4, (1, 16), 4), False),
        ("out's last element is the view's first", (4, 4, (4, 1), 16), (4, 4, (4, 1), 1), True),
        ("out's first element is the view's last", (4, 4, (4, 1), 0), (4, 4, (4, 1), 15), True),
        ('one element of out inside the view', (4, 4, (8, 1), 0), (4, 4, (64, 1), 19), True),
        # Different leading dimensions, spans meeting, no element shared: the
        # binding passes them; the library may refuse them (its test is exact
        # only for one leading dimension or a single run), naming both.
        ('ld 16 and ld 8 interleaved', (4, 2, (16, 1), 0), (4, 2, (8, 1), 2), None),
        ("out in the view's padding", (4, 4, (8, 1), 0), (4, 4, (64, 1), 20), None),
    ]

    def test_views_of_one_allocation(self):
        rng = support.rng(14)
        memory = DeviceMatrix(1, 256, [[rng.uniform(-1.0, 1.0) for _ in range(256)]]).tolist()[0]  # as float32
        for case, view_at, out_at, shared in self.CASES:
            for role in ('A', 'B'):
                for v in self.variants():
                    with self.subTest(case=case, operand=role, variant=gemmladder.variant_name(v)):
                        base = DeviceMatrix(1, 256, [memory])
                        view, out = DeviceView(base, *view_at), DeviceView(base, *out_at)
                        M, N = out.shape
                        if role == 'A':
                            other = support.random_matrix(view.shape[1], N, rng)
                            a, b, A, B = view, DeviceMatrix(view.shape[1], N, other), view.values(memory), other
                        else:
                            other = support.random_matrix(M, view.shape[0], rng)
                            a, b, A, B = DeviceMatrix(M, view.shape[0], other), view, other, view.values(memory)
                        if shared:
                            with self.assertRaisesRegex(ValueError, '^out overlaps %s' % role):
                                self.handle.gemm(a, b, out=out, variant=v)
                            self.assertEqual(base.tolist()[0], memory)
                            continue
                        try:
                            self.handle.gemm(a, b, out=out, variant=v)
                        except gemmladder.Error as e:
                            if shared is not None:
                                raise
                            self.assertIs(e.status, gemmladder.Status.INVALID_ARGUMENT)
                            self.assertIn('overlaps %s' % role, e.message)
                            self.assertEqual(base.tolist()[0], memory)
                            continue
                        self.handle.synchronize()
                        after = base.tolist()[0]
                        self.assertClose(out.values(after), support.reference(A, B), case, variant=v)
                        written = {k for row in out.indices() for k in row}
                        self.assertEqual([x for k, x in enumerate(after) if k not in written],
                                         [x for k, x in enumerate(memory) if k not in written])


class ArgumentRanges(GpuTest):
    """Integers only the library or the CUDA runtime can judge come back as
    gemmladder.Error; those no C parameter can hold are ValueError."""

    def test_device_ordinals(self):
        count = ctypes.c_int()
        runtime().cudaGetDeviceCount(ctypes.byref(count))
        with self.assertRaises(gemmladder.Error) as caught:
            gemmladder.Handle(count.value)
        self.assertIs(caught.exception.status, gemmladder.Status.CUDA_ERROR)
        for bad, error in ((-1, ValueError), (2**31, ValueError), (True, TypeError), (0.0, TypeError)):
            with self.subTest(device=bad), self.assertRaises(error):
                gemmladder.Handle(bad)
        if numpy is not None:
            with gemmladder.Handle(numpy.int64(0)) as h:
                self.assertEqual(h.device, 0)

    def test_sizes(self):
        with self.assertRaisesRegex(gemmladder.Error, r'M \(2147483648\) must be between'):
            self.handle.sgemm_plan(2**31, 4, 4)  # an int64_t the library refuses
        with self.assertRaises(ValueError):
            self.handle.sgemm_plan(2**64 + 4, 4, 4)  # no int64_t: ctypes would have passed 4
        with self.assertRaises(gemmladder.Error):
            self.handle.tuning_query('warptile', -1, 4, 4)
        with self.assertRaises(ValueError):
            self.handle.tuning_query('warptile', 2**64 - 1, 4, 4)  # ctypes would have passed -1


@unittest.skipIf(numpy is None, 'numpy is not installed')
class NumpyRoundTrip(GpuTest):
    def setUp(self):
        super().setUp()
        self.rng = numpy.random.default_rng(21)

    def uniform(self, *shape):
        return self.rng.uniform(-1.0, 1.0, shape).astype(numpy.float32)

    def test_every_variant(self):
        for M, N, K in SHAPES:
            a, b = self.uniform(M, K), self.uniform(K, N)
            want = a.astype(numpy.float64) @ b
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), M=M, N=N, K=K):
                    c = self.handle.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, numpy.ndarray)
                    self.assertEqual((c.shape, c.dtype), ((M, N), numpy.float32))
                    self.assertClose(c, want, gemmladder.variant_name(v), variant=v)
                    self.assertClose(gemmladder.sgemm(a, b, variant=gemmladder.variant_name(v)), want,
                                     variant=v)

    def test_transposes_and_orders(self):
        M, N, K = 67, 45, 83
        for trans_a in (False, True):
            for trans_b in (False, True):
                for order in ('C', 'F'):
                    with self.subTest(trans_a=trans_a, trans_b=trans_b, order=order):
                        a = numpy.array(self.uniform(*((K, M) if trans_a else (M, K))), order=order)
                        b = numpy.array(self.uniform(*((N, K) if trans_b else (K, N))), order=order)
                        opa = a.T if trans_a else a
                        opb = b.T if trans_b else b
                        c = self.handle.gemm(a, b, trans_a=trans_a, trans_b=trans_b)
                        self.assertClose(c, opa.astype(numpy.float64) @ opb)
                        # The same product, stated by passing the transposed views.
                        self.assertClose(self.handle.sgemm(opa, opb), opa.astype(numpy.float64) @ opb)

    def test_alpha_beta_out(self):
        M, N, K = 130, 70, 90
        a, b = self.uniform(M, K), self.uniform(K, N)
        for out in (self.uniform(M, N), numpy.asfortranarray(self.uniform(M, N)), self.uniform(M, N + 9)[:, 4:4 + N]):
            with self.subTest(c_contiguous=out.flags.c_contiguous, f_contiguous=out.flags.f_contiguous):
                before = out.astype(numpy.float64)
                got = self.handle.gemm(a, b, alpha=0.75, beta=-2.0, out=out, variant='warptile')
                self.assertIs(got, out)
                self.assertClose(out, 0.75 * (a.astype(numpy.float64) @ b) - 2.0 * before)
        parent = numpy.full((M, N + 9), 7.0, numpy.float32)  # padding of a view of it stays untouched
        self.handle.sgemm(a, b, out=parent[:, 4:4 + N])
        self.assertTrue((parent[:, :4] == 7).all() and (parent[:, 4 + N:] == 7).all())

    def test_any_strides(self):
        base = self.uniform(200, 150)
        a = base[::3, ::2]          # 67 x 75: neither rows nor columns contiguous
        b = base[::-2, 1:76].T      # 75 x 100, rows reversed
        whole = numpy.full((67, 300), 7.0, numpy.float32)
        out = whole[:, ::3]         # 67 x 100, every third column
        before = out.astype(numpy.float64)
        want = a.astype(numpy.float64) @ b
        self.assertClose(self.handle.sgemm(a, b), want)
        self.assertIs(self.handle.gemm(a, b, alpha=2.0, beta=-1.0, out=out), out)
        self.assertClose(out, 2.0 * want - before)
        self.assertTrue((numpy.delete(whole, numpy.arange(0, 300, 3), axis=1) == 7.0).all())

    def test_explicit_stream(self):
        stream = Stream()
        try:
            a, b = self.uniform(64, 32), self.uniform(32, 48)
            self.assertClose(self.handle.sgemm(a, b, stream=stream.value), a.astype(numpy.float64) @ b)
            self.assertEqual(self.handle.stream, 0)
        finally:
            stream.close()


def _import(name):
    try:
        return __import__(name)
    except ImportError:
        return None


cupy = _import('cupy') if numpy is not None else None


@unittest.skipIf(cupy is None, 'CuPy is not installed')
class CupyRoundTrip(GpuTest):
    def uniform(self, *shape):
        return cupy.random.uniform(-1.0, 1.0, shape).astype(cupy.float32)

    def reference(self, a, b):
        return cupy.asnumpy(a).astype(numpy.float64) @ cupy.asnumpy(b)

    def test_every_variant(self):
        for M, N, K in SHAPES:
            a, b = self.uniform(M, K), self.uniform(K, N)
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), M=M, N=N, K=K):
                    c = gemmladder.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, cupy.ndarray)
                    self.assertEqual((c.shape, c.dtype, c.device.id), ((M, N), cupy.float32, a.device.id))
                    self.assertClose(cupy.asnumpy(c), self.reference(a, b), variant=v)

    def test_views_out_alpha_beta(self):
        a, b = self.uniform(90, 70), self.uniform(50, 90)
        c = self.handle.sgemm(a.T, b.T)  # Fortran-ordered views, zero-copy
        self.assertClose(cupy.asnumpy(c), self.reference(a.T, b.T))
        out = cupy.asfortranarray(self.uniform(70, 50))
        before = cupy.asnumpy(out).astype(numpy.float64)
        self.assertIs(self.handle.gemm(a, b, trans_a=True, trans_b=True, alpha=2.0, beta=0.5, out=out), out)
        self.assertClose(cupy.asnumpy(out), 2.0 * self.reference(a.T, b.T) + 0.5 * before)

    def test_current_stream(self):
        with cupy.cuda.Stream(non_blocking=True) as stream:
            a, b = self.uniform(300, 200), self.uniform(200, 100)
            c = gemmladder.sgemm(a, b)  # CuPy names its current stream: the product runs there
            d = c * 1  # queued after it on the same stream
        stream.synchronize()
        self.assertClose(cupy.asnumpy(d), self.reference(a, b))

    def test_dlpack(self):
        with cupy.cuda.Stream(non_blocking=True) as stream:
            # Queued on a stream the product does not run on: exporting them
            # for the handle's stream orders that stream after this one.
            a, b = self.uniform(600, 500), self.uniform(400, 600)
            a *= 1
            b *= 1
            out = cupy.empty((500, 400), dtype=cupy.float32)
            self.assertIs(self.handle.gemm(DLPackOnly(a), DLPackOnly(b), trans_a=True, trans_b=True,
                                           out=out), out)
            self.handle.synchronize()
            self.assertClose(cupy.asnumpy(out), self.reference(a.T, b.T))
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v)):
                    c = cupy.empty((400, 500), dtype=cupy.float32)
                    gemmladder.sgemm(DLPackOnly(b), DLPackOnly(a), variant=v, out=DLPackOnly(c))
                    cupy.cuda.Stream.null.synchronize()  # the default handle's stream
                    self.assertClose(cupy.asnumpy(c), self.reference(b, a), variant=v)
        stream.synchronize()


torch = _import('torch') if numpy is not None else None
if torch is not None and not torch.cuda.is_available():
    torch = None


@unittest.skipIf(torch is None, 'PyTorch with CUDA is not installed')
class TorchRoundTrip(GpuTest):
    def uniform(self, *shape):
        return torch.rand(shape, device='cuda', dtype=torch.float32) * 2 - 1

    def reference(self, a, b):
        return a.double().cpu().numpy() @ b.double().cpu().numpy()

    def test_every_variant(self):
        for M, N, K in SHAPES:
            a, b = self.uniform(M, K), self.uniform(K, N)
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), M=M, N=N, K=K):
                    c = gemmladder.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, torch.Tensor)
                    self.assertEqual((tuple(c.shape), c.dtype, c.device), ((M, N), torch.float32, a.device))
                    self.assertClose(c.cpu().numpy(), self.reference(a, b), variant=v)

    def test_views_out_alpha_beta(self):
        a, b = self.uniform(90, 70), self.uniform(50, 90)
        self.assertClose(self.handle.sgemm(a.t(), b.t()).cpu().numpy(), self.reference(a.t(), b.t()))
        out = self.uniform(70, 50)
        before = out.double().cpu().numpy()
        self.handle.gemm(a, b, trans_a=True, trans_b=True, alpha=-1.0, beta=3.0, out=out)
        self.assertClose(out.cpu().numpy(), -self.reference(a.t(), b.t()) + 3.0 * before)

    def test_current_stream(self):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            a, b = self.uniform(300, 200), self.uniform(200, 100)
            c = gemmladder.sgemm(a, b)  # ordered on torch's current stream
            d = c * 1
        stream.synchronize()
        self.assertClose(d.cpu().numpy(), self.reference(a, b))

    def test_dlpack(self):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            # Queued on torch's stream; the product runs on the handle's, after it.
            a, b = self.uniform(700, 300), self.uniform(300, 500)
            out = torch.empty((700, 500), device='cuda', dtype=torch.float32)
            self.assertIs(self.handle.sgemm(DLPackOnly(a), DLPackOnly(b), out=out), out)
        self.handle.synchronize()
        self.assertClose(out.cpu().numpy(), self.reference(a, b))
        for v in self.variants():
            with self.subTest(variant=gemmladder.variant_name(v)):
                c = torch.empty((300, 300), device='cuda', dtype=torch.float32)
                self.handle.sgemm(DLPackOnly(a.t()), DLPackOnly(a), variant=v, out=DLPackOnly(c))
                self.handle.synchronize()
                self.assertClose(c.cpu().numpy(), self.reference(a.t(), a), variant=v)

    def test_cpu_tensors(self):
        # Host memory through DLPack (torch has no __array_interface__): copied
        # to the GPU and back, any strides; the result is a CPU tensor.
        a = torch.rand((90, 160), dtype=torch.float32) * 2 - 1
        b = torch.rand((160, 70), dtype=torch.float32) * 2 - 1
        c = gemmladder.sgemm(a, b)
        self.assertIsInstance(c, torch.Tensor)
        self.assertEqual((tuple(c.shape), c.device.type), ((90, 70), 'cpu'))
        self.assertClose(c.numpy(), self.reference(a, b))
        strided = a[:, ::2]  # 90 x 80 with a column stride of 2
        self.assertClose(gemmladder.sgemm(strided, b[::2]).numpy(), self.reference(strided, b[::2]))


# ---- batches (issue 45): 3-D arrays through gl_sgemm_strided_batched, and matmul ----
BATCH_SHAPES = [(5, 33, 47, 29), (3, 1, 64, 16), (17, 16, 16, 16), (2, 129, 65, 96)]  # (batch, M, N, K)


class DeviceBatch:
    """cudaMalloc'ed floats seen as a 3-D batch (`shape`, element `strides`)
    through __cuda_array_interface__; every float of the allocation, the
    gaps between matrices included, holds `fill` before `values` go in."""

    def __init__(self, shape, strides, values=None, fill=float('nan'), stream=None):
        self.shape, self.strides, self.stream = shape, strides, stream
        self.size = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 1
        self.buffer = _cudart.DeviceBuffer(4 * self.size)
        memory = [fill] * self.size
        for i, matrix in enumerate(values or []):
            for r, row in enumerate(matrix):
                for c, x in enumerate(row):
                    memory[self.index(i, r, c)] = x
        self.write(memory)

    def index(self, i, r, c):
        return i * self.strides[0] + r * self.strides[1] + c * self.strides[2]

    @property
    def __cuda_array_interface__(self):
        return {'shape': self.shape, 'typestr': '<f4', 'data': (self.buffer.address, False),
                'strides': tuple(4 * s for s in self.strides), 'version': 3, 'stream': self.stream}

    def write(self, memory):
        host = (ctypes.c_float * self.size)(*memory)
        _cudart.copy_2d(self.buffer.address, 4 * self.size, ctypes.addressof(host), 4 * self.size,
                        4 * self.size, 1, _cudart.MEMCPY_HOST_TO_DEVICE, None)
        _cudart.synchronize(None)

    def memory(self):
        host = (ctypes.c_float * self.size)()
        _cudart.synchronize(None)
        _cudart.copy_2d(ctypes.addressof(host), 4 * self.size, self.buffer.address, 4 * self.size,
                        4 * self.size, 1, _cudart.MEMCPY_DEVICE_TO_HOST, None)
        _cudart.synchronize(None)
        return list(host)

    def values(self, memory=None):
        memory = self.memory() if memory is None else memory
        n, rows, cols = self.shape
        return [[[memory[self.index(i, r, c)] for c in range(cols)] for r in range(rows)] for i in range(n)]

    def cells(self):
        n, rows, cols = self.shape
        return {self.index(i, r, c) for i in range(n) for r in range(rows) for c in range(cols)}


class BatchTest(GpuTest):
    def assertBatchClose(self, got, want, what='', variant=None):
        """Each matrix of the batch on its own, so that a wrong batch index cannot hide."""
        self.assertEqual(len(got), len(want), what)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertClose(g, w, '%s, product %d' % (what, i), variant=variant)


class RawDeviceBatches(BatchTest):
    """Device memory described by a 3-D __cuda_array_interface__: needs no numpy."""

    def test_every_variant(self):
        rng = support.rng(45)
        for n, M, N, K in BATCH_SHAPES[:3]:
            A = [support.random_matrix(M, K, rng) for _ in range(n)]
            B = support.random_matrix(K, N, rng)                             # one B for every product
            a = DeviceBatch((n, M, K), (M * (K + 3) + 5, K + 3, 1), A)      # padded rows, gaps between
            b = DeviceMatrix(K, N, B)
            want = [support.reference(x, B) for x in A]
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), n=n, M=M, N=N, K=K):
                    c = DeviceBatch((n, M, N), (M, 1, n * M))                # column-major, side by side
                    self.assertIs(self.handle.sgemm(a, b, variant=v, out=c), c)
                    self.handle.synchronize()
                    memory = c.memory()
                    self.assertBatchClose(c.values(memory), want, gemmladder.variant_name(v), variant=v)
                    padded = DeviceBatch((n, M, N), (M * (N + 2) + 3, N + 2, 1))
                    self.handle.sgemm(a, b, variant=v, out=padded)
                    memory = padded.memory()
                    self.assertBatchClose(padded.values(memory), want, gemmladder.variant_name(v), variant=v)
                    cells = padded.cells()
                    self.assertTrue(all(math.isnan(x) for k, x in enumerate(memory) if k not in cells))

    def test_broadcasts_and_alpha_beta(self):
        rng = support.rng(46)
        n, M, N, K = 6, 20, 30, 40
        A1 = support.random_matrix(M, K, rng)
        B = [support.random_matrix(N, K, rng) for _ in range(n)]             # transposed
        C = [support.random_matrix(M, N, rng) for _ in range(n)]
        for case, a in (('2-D A', DeviceMatrix(M, K, A1)), ('a batch of 1', DeviceBatch((1, M, K), (M * K, K, 1), [A1])),
                        ('stride 0', DeviceBatch((n, M, K), (0, K, 1), [A1]))):
            with self.subTest(case):
                b = DeviceBatch((n, N, K), (N * K, K, 1), B)
                c = DeviceBatch((n, M, N), (M * N, N, 1), C)
                self.handle.gemm(a, b, trans_b=True, alpha=-1.5, beta=0.5, out=c)
                self.assertBatchClose(c.values(), [support.reference(A1, B[i], -1.5, 0.5, C[i], False, True)
                                                   for i in range(n)], case)

    def test_refused_before_the_gpu(self):
        b = DeviceBatch((3, 5, 2), (10, 2, 1))
        forwards = DeviceBatch((3, 4, 5), (20, 5, 1))
        backwards = type('Backwards', (), {'__cuda_array_interface__': dict(
            forwards.__cuda_array_interface__, data=(forwards.buffer.address + 4 * 40, False),
            strides=(-80, 20, 4))})()
        with self.assertRaisesRegex(ValueError, 'walks its batch backwards'):
            self.handle.sgemm(backwards, b, out=DeviceBatch((3, 4, 2), (8, 2, 1)))
        with self.assertRaisesRegex(ValueError, 'neither contiguous rows nor contiguous columns'):
            self.handle.sgemm(DeviceBatch((3, 4, 5), (40, 10, 2)), b, out=DeviceBatch((3, 4, 2), (8, 2, 1)))
        with self.assertRaisesRegex(ValueError, 'two of its matrices share an element'):
            self.handle.sgemm(DeviceBatch((3, 4, 5), (20, 5, 1)), b, out=DeviceBatch((3, 4, 2), (0, 2, 1)))

    def test_empty_batches(self):
        c = DeviceBatch((0, 4, 2), (8, 2, 1))
        self.assertIs(self.handle.sgemm(DeviceBatch((0, 4, 5), (20, 5, 1)), DeviceMatrix(5, 2), out=c), c)
        c = DeviceBatch((3, 4, 2), (8, 2, 1), [[[1.0] * 2] * 4] * 3)
        self.handle.gemm(DeviceBatch((3, 4, 0), (0, 1, 1)), DeviceMatrix(0, 2), beta=2.0, out=c)  # K = 0
        self.assertEqual(c.values(), [[[2.0] * 2] * 4] * 3)


@unittest.skipIf(numpy is None, 'numpy is not installed')
class NumpyBatches(BatchTest):
    def setUp(self):
        super().setUp()
        self.rng = numpy.random.default_rng(45)

    def uniform(self, *shape):
        return self.rng.uniform(-1.0, 1.0, shape).astype(numpy.float32)

    def reference(self, a, b):
        return numpy.matmul(numpy.asarray(a, numpy.float64), numpy.asarray(b, numpy.float64))

    def test_every_variant(self):
        for n, M, N, K in BATCH_SHAPES:
            a, b = self.uniform(n, M, K), self.uniform(n, K, N)
            want = self.reference(a, b)
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), n=n, M=M, N=N, K=K):
                    c = self.handle.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, numpy.ndarray)
                    self.assertEqual((c.shape, c.dtype), ((n, M, N), numpy.float32))
                    self.assertBatchClose(c, want, gemmladder.variant_name(v), variant=v)

    def test_broadcasts(self):
        n, M, N, K = 9, 40, 24, 56
        x, y = self.uniform(n, M, K), self.uniform(n, K, N)
        for a, b in ((x, y[0]), (x[0], y), (x[:1], y), (x, y[:1]), (numpy.broadcast_to(x[0], x.shape), y),
                     (x.transpose(0, 2, 1).copy().transpose(0, 2, 1), y), (x[::2], y[::2])):
            with self.subTest(a=(a.shape, a.strides), b=(b.shape, b.strides)):
                want = self.reference(a, b)
                got = gemmladder.sgemm(a, b)
                self.assertEqual(got.shape, want.shape)
                self.assertBatchClose(got, want)

    def test_any_strides_out_alpha_beta_transposes(self):
        n, M, N, K = 4, 37, 29, 45
        base = self.uniform(2 * n, 2 * K, 3 * M)
        a = base[::-2, ::2, ::3]                     # K x M matrices, none contiguous, batch backwards
        b = self.uniform(n, N, K)
        whole = numpy.full((n, M, 3 * N), 7.0, numpy.float32)
        out = whole[:, :, ::3]                       # every third column
        before = out.astype(numpy.float64)
        want = 2.0 * self.reference(a.transpose(0, 2, 1), b.transpose(0, 2, 1)) - before
        self.assertIs(self.handle.gemm(a, b, trans_a=True, trans_b=True, alpha=2.0, beta=-1.0, out=out), out)
        self.assertBatchClose(out, want)
        self.assertTrue((numpy.delete(whole, numpy.arange(0, 3 * N, 3), axis=2) == 7.0).all())

    def test_matmul(self):
        for sa, sb in (((30, 20), (20, 10)), ((3, 30, 20), (3, 20, 10)), ((3, 30, 20), (20, 10)),
                       ((30, 20), (3, 20, 10)), ((1, 30, 20), (4, 20, 10)), ((0, 3, 4), (4, 5)),
                       ((2, 0, 4), (2, 4, 5)), ((2, 3, 0), (0, 5))):
            with self.subTest(a=sa, b=sb):
                a, b = self.uniform(*sa), self.uniform(*sb)
                want = self.reference(a, b)
                got = gemmladder.matmul(a, b)
                self.assertEqual((type(got), got.shape, got.dtype), (numpy.ndarray, want.shape, numpy.float32))
                if want.size:
                    self.assertClose(got, want)
                out = numpy.full(want.shape, numpy.nan, numpy.float32)
                self.assertIs(gemmladder.matmul(a, b, out=out, variant='warptile'), out)
                if want.size:
                    self.assertClose(out, want)


@unittest.skipIf(cupy is None, 'CuPy is not installed')
class CupyBatches(BatchTest):
    def uniform(self, *shape):
        return cupy.random.uniform(-1.0, 1.0, shape).astype(cupy.float32)

    def reference(self, a, b):
        return numpy.matmul(cupy.asnumpy(a).astype(numpy.float64), cupy.asnumpy(b).astype(numpy.float64))

    def test_every_variant(self):
        for n, M, N, K in BATCH_SHAPES:
            a, b = self.uniform(n, M, K), self.uniform(n, K, N)
            want = self.reference(a, b)
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), n=n, M=M, N=N, K=K):
                    c = gemmladder.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, cupy.ndarray)
                    self.assertEqual((c.shape, c.dtype, c.device.id), ((n, M, N), cupy.float32, a.device.id))
                    self.assertBatchClose(cupy.asnumpy(c), want, variant=v)

    def test_broadcasts_and_views(self):
        n, M, N, K = 7, 50, 30, 40
        x, y = self.uniform(n, M, K), self.uniform(n, K, N)
        for a, b in ((x, y[0]), (x[0], y), (x[:1], y), (cupy.broadcast_to(x[0], x.shape), y),
                     (x.transpose(0, 2, 1).copy().transpose(0, 2, 1), y),   # column-major matrices
                     (x[::2], y[::2]), (x[:, :, :30], y[:, :30, :])):       # batch and row gaps
            with self.subTest(a=(a.shape, a.strides), b=(b.shape, b.strides)):
                got = gemmladder.matmul(a, b)
                self.assertIsInstance(got, cupy.ndarray)
                self.assertBatchClose(cupy.asnumpy(got), self.reference(a, b))

    def test_out_alpha_beta(self):
        a, b = self.uniform(5, 60, 40), self.uniform(5, 30, 60)
        out = self.uniform(5, 40, 30).transpose(0, 2, 1).copy().transpose(0, 2, 1)  # column-major
        before = cupy.asnumpy(out).astype(numpy.float64)
        self.assertIs(self.handle.gemm(a, b, trans_a=True, trans_b=True, alpha=2.0, beta=0.5, out=out), out)
        self.handle.synchronize()
        want = 2.0 * self.reference(a.transpose(0, 2, 1), b.transpose(0, 2, 1)) + 0.5 * before
        self.assertBatchClose(cupy.asnumpy(out), want)

    def test_strides_it_cannot_read(self):
        a = self.uniform(3, 20, 40)[:, :, ::2]
        with self.assertRaisesRegex(ValueError, 'CUDA arrays are used in place'):
            gemmladder.matmul(a, self.uniform(20, 10))
        self.assertBatchClose(cupy.asnumpy(gemmladder.matmul(a.copy(), self.uniform(20, 10) * 0)),
                              numpy.zeros((3, 20, 10)))

    def test_dlpack(self):
        a, b = self.uniform(4, 30, 20), self.uniform(4, 20, 10)
        out = cupy.empty((4, 30, 10), dtype=cupy.float32)
        self.assertIs(self.handle.sgemm(DLPackOnly(a), DLPackOnly(b), out=out), out)
        self.handle.synchronize()
        self.assertBatchClose(cupy.asnumpy(out), self.reference(a, b))


@unittest.skipIf(torch is None, 'PyTorch with CUDA is not installed')
class TorchBatches(BatchTest):
    def uniform(self, *shape, device='cuda'):
        return torch.rand(shape, device=device, dtype=torch.float32) * 2 - 1

    def reference(self, a, b):
        return numpy.matmul(a.double().cpu().numpy(), b.double().cpu().numpy())

    def test_every_variant(self):
        for n, M, N, K in BATCH_SHAPES:
            a, b = self.uniform(n, M, K), self.uniform(n, K, N)
            want = self.reference(a, b)
            for v in self.variants():
                with self.subTest(variant=gemmladder.variant_name(v), n=n, M=M, N=N, K=K):
                    c = gemmladder.sgemm(a, b, variant=v)
                    self.assertIsInstance(c, torch.Tensor)
                    self.assertEqual((tuple(c.shape), c.dtype, c.device), ((n, M, N), torch.float32, a.device))
                    self.assertBatchClose(c.cpu().numpy(), want, variant=v)

    def test_matmul_like_torch(self):
        n, M, N, K = 6, 48, 20, 36
        x, y = self.uniform(n, M, K), self.uniform(n, K, N)
        for a, b in ((x, y), (x, y[0]), (x[0], y), (x[:1], y), (x[0].expand(n, M, K), y),
                     (x.transpose(1, 2).contiguous().transpose(1, 2), y), (x[::2], y[::2]), (x[0], y[0])):
            with self.subTest(a=(tuple(a.shape), a.stride()), b=(tuple(b.shape), b.stride())):
                got = gemmladder.matmul(a, b)
                self.assertEqual((type(got), tuple(got.shape)), (torch.Tensor, tuple(torch.matmul(a, b).shape)))
                if got.dim() == 3:
                    self.assertBatchClose(got.cpu().numpy(), self.reference(a, b))
                else:
                    self.assertClose(got.cpu().numpy(), self.reference(a, b))

    def test_out_and_refusals(self):
        a, b = self.uniform(3, 40, 30), self.uniform(3, 30, 20)
        out = torch.empty((3, 40, 20), device='cuda', dtype=torch.float32)
        self.assertIs(gemmladder.matmul(a, b, out=out), out)
        torch.cuda.synchronize()
        self.assertBatchClose(out.cpu().numpy(), self.reference(a, b))
        with self.assertRaisesRegex(ValueError, 'CUDA arrays are used in place'):
            gemmladder.matmul(a[:, :, ::2], b[:, :15])
        with self.assertRaisesRegex(TypeError, 'float64'):
            gemmladder.matmul(a.double(), b.double())
        with self.assertRaisesRegex(ValueError, 'batch sizes do not match: a holds 3 matrices and b 2'):
            gemmladder.matmul(a, b[:2])

    def test_cpu_tensors(self):
        # Host memory through DLPack: copied to the GPU and back, any strides.
        a, b = self.uniform(5, 30, 40, device='cpu'), self.uniform(40, 20, device='cpu')
        c = gemmladder.matmul(a, b)
        self.assertEqual((type(c), tuple(c.shape), c.device.type), (torch.Tensor, (5, 30, 20), 'cpu'))
        self.assertBatchClose(c.numpy(), self.reference(a, b))
        strided = a[::2, :, ::2]
        self.assertBatchClose(gemmladder.matmul(strided, b[::2]).numpy(), self.reference(strided, b[::2]))


class Tuning(GpuTest):
    def setUp(self):
        super().setUp()
        if not gemmladder.tuning_supported():
            self.skipTest('the library does not export the tuning interface yet')

    def test_query_pin_and_unpin(self):
        rng = support.rng(31)
        M, N, K = 100, 90, 80
        A, B = support.random_matrix(M, K, rng), support.random_matrix(K, N, rng)
        a, b, c = DeviceMatrix(M, K, A), DeviceMatrix(K, N, B), DeviceMatrix(M, N)
        want = support.reference(A, B)
        for name in [i.name for i in map(gemmladder.variant_info, gemmladder.variants()) if i.takes_rows]:
            if not self.handle.available(name):
                continue
            chosen = self.handle.tuning_query(name, 1024, 1024, 1024)
            self.assertIn(chosen.origin, (gemmladder.TilesOrigin.BUILTIN, gemmladder.TilesOrigin.OVERRIDE,
                                          gemmladder.TilesOrigin.DEFAULT, gemmladder.TilesOrigin.FILL))
            for tiles in gemmladder.variant_configs(name):
                with self.subTest(variant=name, tiles=tiles):
                    try:
                        self.handle.set_tiles(name, tiles)
                    except gemmladder.Error as e:  # does not fit this GPU's shared memory
                        self.assertIs(e.status, gemmladder.Status.TUNING_ERROR)
                        continue
                    pinned = self.handle.tuning_query(name, M, N, K)
                    self.assertIs(pinned.origin, gemmladder.TilesOrigin.PINNED)
                    self.assertEqual((pinned.bm, pinned.bn, pinned.bk), (tiles.bm, tiles.bn, tiles.bk))
                    self.handle.sgemm(a, b, variant=name, out=c)
                    self.assertClose(c.tolist(), want, '%s %s' % (name, tiles), variant=name)
            self.handle.set_tiles(name, None)
            self.assertEqual(self.handle.tuning_query(name, 1024, 1024, 1024), chosen)


class Workspace(GpuTest):
    """Auto's scratch memory under the handle's settings (workspace_limit,
    set_workspace, workspace_size): the plan each gives, and a right product
    (C holds NaN first) under a limit of 0, a limit of its need, a buffer of
    its need and one a byte short; a misaligned buffer refused."""

    def test_limit_and_buffer(self):
        M, N, K = 1, 512, 4096  # a matrix-vector product whose slices take scratch
        rng = support.rng(23)
        A, B = support.random_matrix(M, K, rng), support.random_matrix(K, N, rng)
        a, b = DeviceMatrix(M, K, A), DeviceMatrix(K, N, B)
        want = support.reference(A, B)
        h = self.handle
        self.assertIsNone(h.workspace_limit)
        self.assertIsNone(h.workspace)
        need = h.workspace_size(M, N, K)
        self.assertGreater(need, 0)
        self.assertEqual(h.sgemm_plan(M, N, K).scratch_bytes, need)
        exact, short = _cudart.DeviceBuffer(need), _cudart.DeviceBuffer(need)
        settings = [('a limit of 0', 0, None, 0, 0),
                    ('a limit of its need', need, None, 0, need),
                    ('a buffer of its need', None, exact.address, need, need),
                    ('a buffer a byte short', None, short.address, need - 1, 0)]
        try:
            for what, limit, address, nbytes, takes in settings:
                with self.subTest(what):
                    h.workspace_limit = limit
                    h.set_workspace(address, nbytes)
                    self.assertEqual(h.workspace_limit, limit)
                    self.assertEqual(h.workspace, None if address is None else (address, nbytes))
                    self.assertEqual(h.sgemm_plan(M, N, K).scratch_bytes, takes)
                    self.assertEqual(h.workspace_size(M, N, K), need)
                    c = DeviceMatrix(M, N, [[float('nan')] * N] * M)
                    h.sgemm(a, b, variant='auto', out=c)
                    h.synchronize()
                    self.assertClose(c.tolist(), want, what)
            with self.assertRaises(gemmladder.Error) as caught:
                h.set_workspace(exact.address + 16, 64)
            self.assertEqual(caught.exception.status, gemmladder.Status.INVALID_ARGUMENT)
            self.assertIn('is not aligned to 256 bytes', caught.exception.message)
            self.assertEqual(h.workspace, (short.address, need - 1))  # kept
        finally:
            h.set_workspace(None)
            h.workspace_limit = None
            h.synchronize()
            exact.free()
            short.free()
        self.assertIsNone(h.workspace)


def main():
    try:
        gemmladder.Handle().close()
    except gemmladder.Error as e:
        if e.status != gemmladder.Status.NO_DEVICE:
            raise
        print('skipped: %s' % e)
        sys.exit(support.SKIP)
    support.run()


if __name__ == '__main__':
    main()
