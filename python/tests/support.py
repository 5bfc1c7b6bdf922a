"""What the Python tests share: the header's facts, array stand-ins built on
ctypes (so the tests need neither numpy nor a GPU framework), a float64
reference, and meson's exit codes."""
import ctypes
import math
import os
import random
import re
import sys
import unittest

SKIP = 77  # meson: the test was skipped


def header_text():
    with open(os.environ['GEMMLADDER_TEST_HEADER']) as f:
        return f.read()


def header_defines():
    """{'GL_VERSION_MAJOR': 1, ...}: every numeric #define of the header."""
    return {k: int(v) for k, v in re.findall(r'^#define (GL_\w+) +(\d+)\b', header_text(), re.M)}


def header_enum(prefix):
    """{'SUCCESS': 0, ...}: the pinned values of the enum whose members start with prefix."""
    return {k: int(v) for k, v in re.findall(r'\b%s(\w+) = (\d+)' % prefix, header_text())}


def header_version():
    d = header_defines()
    return '%d.%d.%d' % (d['GL_VERSION_MAJOR'], d['GL_VERSION_MINOR'], d['GL_VERSION_PATCH'])


class FakeArray:
    """A 2-D float32 matrix in host memory (a ctypes buffer) that describes itself
    with __cuda_array_interface__ (device=True: it claims to be GPU memory, for
    argument checks that must fail before any pointer is used) or with
    __array_interface__ (device=False: a host array, numpy-style).

    rows x cols, element strides (row_stride, col_stride), or C-order when None."""

    def __init__(self, rows, cols, strides=None, device=True, typestr='<f4', values=None,
                 stream=None, version=3, readonly=False, base=None, offset=0, extra=None):
        self.shape = (rows, cols)
        self.strides = strides or (cols, 1)
        if base is None:
            span = 1 + sum((n - 1) * abs(s) for n, s in zip(self.shape, self.strides)) if rows and cols else 1
            self.buffer = (ctypes.c_float * (span + offset))()
        else:  # a view of another FakeArray's memory
            self.buffer = base.buffer
            offset += base.offset
        self.offset = offset
        self.device, self.typestr, self.stream, self.version = device, typestr, stream, version
        self.readonly, self.extra = readonly, extra or {}
        if values is not None:
            for i in range(rows):
                for j in range(cols):
                    self[i, j] = values[i][j]

    @property
    def address(self):
        return ctypes.addressof(self.buffer) + 4 * self.offset

    def _interface(self):
        d = {'shape': self.shape, 'typestr': self.typestr, 'data': (self.address, self.readonly),
             'strides': tuple(4 * s for s in self.strides), 'version': self.version}
        if self.version >= 3 and self.device:
            d['stream'] = self.stream
        d.update(self.extra)
        return d

    def __getattr__(self, name):
        if name == ('__cuda_array_interface__' if self.device else '__array_interface__'):
            return self._interface()
        raise AttributeError(name)

    def _index(self, key):
        i, j = key
        return self.offset + i * self.strides[0] + j * self.strides[1]

    def __getitem__(self, key):
        return self.buffer[self._index(key)]

    def __setitem__(self, key, value):
        self.buffer[self._index(key)] = value

    def tolist(self):
        return [[self[i, j] for j in range(self.shape[1])] for i in range(self.shape[0])]


class FakeDLPack:
    """A FakeArray seen through DLPack alone (__dlpack__ and __dlpack_device__),
    on `device_type` (2: CUDA, 1: CPU, ...). Each export builds a DLPack
    tensor over the array's memory (versioned, with `flags`, when the consumer
    asks for DLPack 1.x and `versioned` is set) and records the stream the
    consumer named."""

    _NAMES = {False: b'dltensor', True: b'dltensor_versioned'}  # alive as long as the class

    def __init__(self, array, device_type=2, bits=32, code=2, versioned=False, flags=0, shape=None):
        self.array, self.device_type, self.bits, self.code = array, device_type, bits, code
        self.versioned, self.flags, self.shape = versioned, flags, shape or array.shape
        self.streams, self._kept = [], []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None, max_version=None):
        from gemmladder import _dlpack
        self.streams.append(stream)
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * ndim)(*self.shape)
        strides = (ctypes.c_int64 * ndim)(*(self.array.strides + (1,) * ndim)[:ndim])
        versioned = self.versioned and max_version is not None and max_version[0] >= 1
        managed = (_dlpack._ManagedTensorVersioned if versioned else _dlpack._ManagedTensor)()
        if versioned:
            managed.version.major, managed.flags = 1, self.flags
        t = managed.dl_tensor
        t.data, t.byte_offset = ctypes.addressof(self.array.buffer), 4 * self.array.offset
        t.device.device_type, t.ndim = self.device_type, ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = self.code, self.bits, 1
        t.shape, t.strides = shape, strides
        self._kept.append((managed, shape, strides))
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(managed), self._NAMES[versioned], None)


class DLPackOnly:
    """An array seen through DLPack alone (__dlpack__, __dlpack_device__), as
    a framework without the array interfaces would show it."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def random_matrix(rows, cols, rng):
    return [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def reference(A, B, alpha=1.0, beta=0.0, C=None, trans_a=False, trans_b=False):
    """alpha op(A) op(B) + beta C in float64, from lists of rows."""
    a = [list(r) for r in zip(*A)] if trans_a else A
    b = [list(r) for r in zip(*B)] if trans_b else B
    M, K, N = len(a), len(b), len(b[0]) if b else 0
    out = []
    for i in range(M):
        row = []
        for j in range(N):
            s = math.fsum(a[i][k] * b[k][j] for k in range(K))
            row.append(alpha * s + (beta * C[i][j] if beta else 0.0))
        out.append(row)
    return out


def relative_error(got, ref):
    """||got - ref|| / ||ref|| (Frobenius), for lists of rows."""
    diff = sum((g - r) ** 2 for gr, rr in zip(got, ref) for g, r in zip(gr, rr))
    norm = sum(r * r for rr in ref for r in rr)
    return math.sqrt(diff / norm) if norm else math.sqrt(diff)


def run(exit_code_if_nothing_ran=0):
    """Runs the module's unittest cases (the command line's arguments are the
    script's, not unittest's); exit 1 on failure, else 0."""
    result = unittest.main(argv=sys.argv[:1], exit=False, verbosity=2).result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun == 0 or result.testsRun == len(result.skipped):
        sys.exit(exit_code_if_nothing_ran)
    sys.exit(0)


def rng(seed=1):
    return random.Random(seed)
