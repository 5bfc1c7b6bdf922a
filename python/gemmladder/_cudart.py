"""The few CUDA runtime functions the binding needs, through ctypes.

The runtime must be the very copy libgemmladder runs on: the current device
and every allocation are per-runtime state. So it is looked up by SONAME
among the libraries already loaded (libgemmladder pulled it in) before the
loader is asked to find one.
"""
import ctypes
import ctypes.util
import os
import threading

from . import _library
from ._library import Error, LibraryNotFoundError, Status

SONAMES = ('libcudart.so.13', 'libcudart.so.12')

MEMCPY_HOST_TO_DEVICE = 1
MEMCPY_DEVICE_TO_HOST = 2
EVENT_DISABLE_TIMING = 0x02
MEMORY_TYPE_DEVICE = 2
ERROR_NO_DEVICE = (35, 100)  # cudaErrorInsufficientDriver, cudaErrorNoDevice


class _PointerAttributes(ctypes.Structure):
    """struct cudaPointerAttributes (CUDA 11 and later)."""
    _fields_ = [('type', ctypes.c_int), ('device', ctypes.c_int),
                ('devicePointer', ctypes.c_void_p), ('hostPointer', ctypes.c_void_p),
                ('reserved', ctypes.c_long * 8)]


_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
_DECLARATIONS = {
    'cudaGetErrorName': (ctypes.c_char_p, [ctypes.c_int]),
    'cudaGetErrorString': (ctypes.c_char_p, [ctypes.c_int]),
    'cudaGetDevice': (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
    'cudaSetDevice': (ctypes.c_int, [ctypes.c_int]),
    'cudaMalloc': (ctypes.c_int, [ctypes.POINTER(_vp), _sz]),
    'cudaFree': (ctypes.c_int, [_vp]),
    'cudaMemcpy2DAsync': (ctypes.c_int, [_vp, _sz, _vp, _sz, _sz, _sz, ctypes.c_int, _vp]),
    'cudaStreamSynchronize': (ctypes.c_int, [_vp]),
    'cudaEventCreateWithFlags': (ctypes.c_int, [ctypes.POINTER(_vp), ctypes.c_uint]),
    'cudaEventRecord': (ctypes.c_int, [_vp, _vp]),
    'cudaStreamWaitEvent': (ctypes.c_int, [_vp, _vp, ctypes.c_uint]),
    'cudaEventDestroy': (ctypes.c_int, [_vp]),
    'cudaPointerGetAttributes': (ctypes.c_int, [ctypes.POINTER(_PointerAttributes), _vp]),
}

_lock = threading.Lock()
_runtime = None


def runtime():
    """The CUDA runtime libgemmladder uses (a ctypes.CDLL with the functions above)."""
    global _runtime
    if _runtime is not None:
        return _runtime
    with _lock:
        if _runtime is None:
            _library.load()  # brings its own runtime into the process
            lib = _open()
            for name, (restype, argtypes) in _DECLARATIONS.items():
                function = getattr(lib, name)
                function.restype, function.argtypes = restype, argtypes
            _runtime = lib
    return _runtime


def _open():
    noload = getattr(os, 'RTLD_NOLOAD', 0) | getattr(os, 'RTLD_LAZY', 0)
    for mode in (noload, ctypes.DEFAULT_MODE):  # the loaded copy first
        for name in SONAMES:
            try:
                return ctypes.CDLL(name, mode=mode)
            except OSError:
                pass
    other = ctypes.util.find_library('cudart')
    if other:
        try:
            return ctypes.CDLL(other)
        except OSError:
            pass
    raise LibraryNotFoundError('the CUDA runtime (%s) could not be loaded' % ' or '.join(SONAMES))


def check(error, what):
    """Raises Error (status CUDA_ERROR, or NO_DEVICE) for a failed runtime call."""
    if error:
        rt = runtime()
        status = Status.NO_DEVICE if error in ERROR_NO_DEVICE else Status.CUDA_ERROR
        raise Error(status, '%s: %s (%s)' % (what, rt.cudaGetErrorString(error).decode(),
                                             rt.cudaGetErrorName(error).decode()), what)


def get_device():
    device = ctypes.c_int()
    check(runtime().cudaGetDevice(ctypes.byref(device)), 'cudaGetDevice')
    return device.value


class on_device:
    """Makes `device` current for a block and restores the previous one (None: no change)."""

    def __init__(self, device):
        self.device, self.previous = device, None

    def __enter__(self):
        if self.device is not None:
            self.previous = get_device()
            if self.previous != self.device:
                check(runtime().cudaSetDevice(self.device), 'cudaSetDevice(%d)' % self.device)
        return self

    def __exit__(self, *exc):
        if self.previous is not None and self.previous != self.device:
            runtime().cudaSetDevice(self.previous)


def pointer_device(address):
    """The device holding device memory at `address`, or None (not device memory,
    managed memory, or no CUDA here): callers then let the library decide."""
    if not address:
        return None
    try:
        rt = runtime()
    except LibraryNotFoundError:
        return None
    attributes = _PointerAttributes()
    if rt.cudaPointerGetAttributes(ctypes.byref(attributes), address):
        return None
    return attributes.device if attributes.type == MEMORY_TYPE_DEVICE else None


class DeviceBuffer:
    """cudaMalloc'ed memory, freed by free() (or when collected)."""

    def __init__(self, nbytes):
        self.address = None
        if nbytes:
            pointer = ctypes.c_void_p()
            check(runtime().cudaMalloc(ctypes.byref(pointer), nbytes), 'cudaMalloc(%d bytes)' % nbytes)
            self.address = pointer.value

    def free(self, report_errors=True):
        if self.address:
            address, self.address = self.address, None
            error = runtime().cudaFree(address)
            if report_errors:
                check(error, 'cudaFree')

    def __del__(self):
        if self.address and _runtime is not None:
            _runtime.cudaFree(self.address)


def copy_2d(dst, dst_pitch, src, src_pitch, width, height, kind, stream):
    """Copies `height` rows of `width` bytes between strided buffers on `stream`."""
    if width and height:
        check(runtime().cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height, kind, stream),
              'cudaMemcpy2DAsync(%d x %d bytes)' % (height, width))


def synchronize(stream):
    check(runtime().cudaStreamSynchronize(stream), 'cudaStreamSynchronize')


def make_wait(waiter, producer):
    """Work queued on `waiter` from now on waits for what is queued on `producer`
    now, without blocking the host (an event recorded on one, waited on by the other)."""
    rt = runtime()
    event = ctypes.c_void_p()
    check(rt.cudaEventCreateWithFlags(ctypes.byref(event), EVENT_DISABLE_TIMING),
          'cudaEventCreateWithFlags')
    try:
        check(rt.cudaEventRecord(event, producer), 'cudaEventRecord(stream %#x)' % (producer or 0))
        check(rt.cudaStreamWaitEvent(waiter, event, 0), 'cudaStreamWaitEvent(stream %#x)' % (waiter or 0))
    finally:
        rt.cudaEventDestroy(event)  # released once the wait has been satisfied
