"""Reading a DLPack tensor (an object with __dlpack__ and __dlpack_device__)
through ctypes, as the array interfaces read the others.

The producer's capsule is kept alive, unconsumed, for as long as the memory
is used; when it is released, the producer's own capsule destructor frees the
tensor (the protocol's rule for a capsule nobody took).
"""
import ctypes

# DLDeviceType values this binding can use.
CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
DEVICE_NAMES = {1: 'CPU', 2: 'CUDA', 3: 'CUDA host', 4: 'OpenCL', 7: 'Vulkan', 8: 'Metal', 9: 'VPI',
                10: 'ROCm', 11: 'ROCm host', 13: 'CUDA managed', 14: 'oneAPI'}
_TYPE_CODES = {0: 'i', 1: 'u', 2: 'f', 4: 'bfloat', 5: 'c', 6: 'b'}
_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY


class _Device(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', _Device), ('ndim', ctypes.c_int32),
                ('dtype', _DataType), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)), ('byte_offset', ctypes.c_uint64)]


class _ManagedTensor(ctypes.Structure):  # DLPack before 1.0: capsule "dltensor"
    _fields_ = [('dl_tensor', _Tensor), ('manager_ctx', ctypes.c_void_p), ('deleter', ctypes.c_void_p)]


class _Version(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint32), ('minor', ctypes.c_uint32)]


class _ManagedTensorVersioned(ctypes.Structure):  # DLPack 1.x: capsule "dltensor_versioned"
    _fields_ = [('version', _Version), ('manager_ctx', ctypes.c_void_p), ('deleter', ctypes.c_void_p),
                ('flags', ctypes.c_uint64), ('dl_tensor', _Tensor)]


_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype, _is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def is_producer(obj):
    return hasattr(obj, '__dlpack__') and hasattr(obj, '__dlpack_device__')


def device(obj):
    """(DLDeviceType, device id) of a producer, without exporting anything."""
    device_type, device_id = obj.__dlpack_device__()
    return int(device_type), int(device_id)


def export(obj, stream):
    """Exports a producer's tensor. `stream` is what __dlpack__ takes: None for
    host memory; for CUDA, the stream the consumer will use (1: the legacy
    default stream), which the producer orders its pending work before.

    Returns (interface, capsule): `interface` describes the tensor as
    __array_interface__ would ('shape', 'typestr', 'data': (address,
    read-only), 'strides' in bytes or None); keep `capsule` while it is used."""
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:  # a producer from before DLPack 1.0 takes no max_version
        capsule = obj.__dlpack__(stream=stream)
    readonly = False
    if _is_valid(capsule, b'dltensor_versioned'):
        managed = _ManagedTensorVersioned.from_address(_get_pointer(capsule, b'dltensor_versioned'))
        readonly = bool(managed.flags & _READ_ONLY)
    elif _is_valid(capsule, b'dltensor'):
        managed = _ManagedTensor.from_address(_get_pointer(capsule, b'dltensor'))
    else:
        raise TypeError('%s.__dlpack__() returned %r, not a DLPack capsule' % (type(obj).__name__, capsule))
    t = managed.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    itemsize = t.dtype.bits * t.dtype.lanes // 8
    strides = tuple(t.strides[i] * itemsize for i in range(t.ndim)) if t.strides else None
    code = _TYPE_CODES.get(t.dtype.code, 'dtype code %d ' % t.dtype.code)
    typestr = '=%s%d' % (code, itemsize) if t.dtype.lanes == 1 else '%s%dx%d' % (code, t.dtype.bits,
                                                                              t.dtype.lanes)
    interface = {'shape': shape, 'typestr': typestr, 'strides': strides,
                 'data': ((t.data or 0) + t.byte_offset, readonly)}
    return interface, capsule
