"""Finding, loading and declaring libgemmladder (ctypes), and its errors.

The library is loaded on first use, not at import, so `import gemmladder`
works on machines without the library or a GPU. Search order:

1. the environment variable GEMMLADDER_LIBRARY (a path to the .so); when it
   is set and cannot be loaded, that is an error, never a silent fallback;
2. the path recorded by meson in _location.py, relative to this package's
   directory: the package's own copy (pip install), the library installed
   with it (meson install), or the one built beside it (build tree);
3. the system's dynamic loader: the SONAME libgemmladder.so.<ABI>, then
   ctypes.util.find_library('gemmladder').

The library needs the CUDA runtime and cuBLAS (NEEDED libcudart.so.<CUDA>,
libcublas.so.<CUDA>, libcublasLt.so.<CUDA>). Before loading it, each of them
that is not already in the process is preloaded (RTLD_GLOBAL, so the
library's NEEDED entries resolve to it) from NVIDIA's pip packages where they
are installed (gemmladder[cuda]: nvidia-cuda-runtime and nvidia-cublas),
found through importlib: the file named in the package's RECORD
(importlib.metadata), else the nvidia namespace package's lib directory
(nvidia/cu13/lib). One that is not pip-installed is left to the system's
dynamic loader (LD_LIBRARY_PATH, ldconfig, the library's RUNPATH), as before;
GEMMLADDER_CUDA_FROM_PIP=0 skips the pip packages altogether.
"""
import ctypes
import ctypes.util
import enum
import os
import threading
from typing import List, Optional, Sequence, Tuple

try:
    from . import _location
except ImportError:  # the bare source tree, never configured by meson
    _location = None

# The SONAME major this package's declarations match (the header's GL_ABI_VERSION;
# 1 only for an unconfigured source tree).
ABI_VERSION = _location.ABI_VERSION if _location else 1


class Status(enum.IntEnum):
    """gl_status_t: the library's status codes (values pinned by its ABI)."""
    SUCCESS = 0
    INVALID_ARGUMENT = 1
    UNKNOWN_VARIANT = 2
    UNSUPPORTED_VARIANT = 3
    NO_DEVICE = 4
    CUDA_ERROR = 5
    CUBLAS_ERROR = 6
    TUNING_ERROR = 7
    ALLOC_FAILED = 8


class Error(Exception):
    """A libgemmladder call (or a CUDA runtime call made for one) failed.

    status       the Status (an int if this binding does not know the value)
    status_name  the library's name for it, e.g. "invalid argument"
    message      the library's message saying what exactly was wrong
    function     the C function that failed

    str(error) is "<status_name>: <message>".
    """

    def __init__(self, status: int, message: str, function: Optional[str] = None):
        """Args:
            status: a gl_status_t value.
            message: what exactly was wrong (the library's gl_last_error).
            function: the function that failed.
        Raises:
            Nothing.
        """
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.status_name = _status_name(status)
        self.message = message
        self.function = function
        # The message names the function where that is news (calls without a
        # handle, CUDA runtime calls), so it is not said again here.
        super().__init__('%s: %s' % (self.status_name, message) if message else self.status_name)

    def __reduce__(self):  # pickles (e.g. across multiprocessing) with its fields
        return type(self), (int(self.status), self.message, self.function)


class LibraryNotFoundError(OSError):
    """libgemmladder (or the CUDA runtime) could not be found or loaded."""


def _status_name(status):
    lib = _loaded
    if lib is not None and isinstance(status, int) and -2**31 <= status < 2**31:  # a C int
        return lib.gl_status_string(status).decode()
    return status.name.lower().replace('_', ' ') if isinstance(status, Status) else 'unknown status'


# ---- declarations -------------------------------------------------------------
_handle_t = ctypes.c_void_p
_status_t = ctypes.c_int
_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_fptr = ctypes.c_void_p  # device pointers are passed as plain addresses


class TilesStruct(ctypes.Structure):
    """struct gl_tiles, field for field; `size` must be set to sizeof before use."""
    _fields_ = [
        ('size', ctypes.c_uint32),
        ('bm', _i32), ('bn', _i32), ('bk', _i32),
        ('tm', _i32), ('tn', _i32),
        ('wm', _i32), ('wn', _i32), ('wniter', _i32),
        ('threads', _i32),
        ('origin', _i32),
        ('line', _i32),
        ('arch', ctypes.c_char * 16),
        ('size_class', ctypes.c_char * 16),
        ('source', ctypes.c_char * 64),
        ('reserved', _i32 * 8),
    ]


class PlanStruct(ctypes.Structure):
    """struct gl_plan, field for field; `size` must be set to sizeof before use."""
    _fields_ = [
        ('size', ctypes.c_uint32),
        ('variant', _i32), ('kernel', _i32), ('path', _i32), ('copies', _i32),
        ('aligned', _i32), ('launches', _i32), ('splits', _i32),
        ('scratch_bytes', _i64),
        ('tiles', TilesStruct),
        ('why', ctypes.c_char * 160),
        ('last_slice_rows', _i32), ('last_slice_path', _i32),
        ('reserved', _i32 * 14),
    ]


class VariantInfoStruct(ctypes.Structure):
    """struct gl_variant_info (since 1.2), field for field; `size` must be set to sizeof."""
    _fields_ = [
        ('size', ctypes.c_uint32),
        ('variant', _i32),
        ('name', ctypes.c_char * 32),
        ('precision', _i32), ('min_cc', _i32), ('arch_specific', _i32), ('reference', _i32),
        ('engine', _i32), ('auto_runs', _i32), ('slow', _i32), ('takes_rows', _i32),
        ('rows_of', _i32), ('config_count', _i32), ('tile_field_count', _i32),
        ('reserved', _i32 * 16),
    ]


class TileFieldStruct(ctypes.Structure):
    """struct gl_tile_field_info (since 1.2), field for field; `size` must be set to sizeof."""
    _fields_ = [
        ('size', ctypes.c_uint32),
        ('name', ctypes.c_char * 16),
        ('min', _i32), ('max', _i32), ('derived', _i32),
        ('reserved', _i32 * 8),
    ]


# name: (restype, argtypes). Functions of ABI 1.0.0, bound when the library loads.
_CORE = {
    'gl_status_string': (ctypes.c_char_p, [_status_t]),
    'gl_variant_count': (_i32, []),
    'gl_variant_name': (ctypes.c_char_p, [ctypes.c_int]),
    'gl_variant_from_name': (_status_t, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
    'gl_version': (_i32, []),
    'gl_version_string': (ctypes.c_char_p, []),
    'gl_handle_create': (_status_t, [ctypes.POINTER(_handle_t)]),
    'gl_handle_destroy': (None, [_handle_t]),
    'gl_set_stream': (_status_t, [_handle_t, ctypes.c_void_p]),
    'gl_get_stream': (_status_t, [_handle_t, ctypes.POINTER(ctypes.c_void_p)]),
    'gl_handle_device': (_i32, [_handle_t]),
    'gl_last_error': (ctypes.c_char_p, [_handle_t]),
    'gl_variant_available': (_status_t, [_handle_t, ctypes.c_int]),
    'gl_sgemm': (_status_t, [_handle_t, ctypes.c_int, _i64, _i64, _i64, _fptr, _fptr, _fptr]),
    'gl_sgemm_ex': (_status_t, [_handle_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                _i64, _i64, _i64, ctypes.c_float, _fptr, _i64, _fptr, _i64,
                                ctypes.c_float, _fptr, _i64]),
}

# The tuning interface: bound on first use, so a library built before it was
# implemented still imports and runs products.
_OPTIONAL = {
    'gl_variant_config_count': (_i32, [ctypes.c_int]),
    'gl_variant_config': (_status_t, [ctypes.c_int, _i32, ctypes.POINTER(TilesStruct)]),
    'gl_tuning_query': (_status_t, [_handle_t, ctypes.c_int, _i64, _i64, _i64,
                                    ctypes.POINTER(TilesStruct)]),
    'gl_set_tiles': (_status_t, [_handle_t, ctypes.c_int, ctypes.POINTER(TilesStruct)]),
    'gl_tuning_load': (_status_t, [ctypes.c_char_p]),
    'gl_tuning_check': (_status_t, [ctypes.c_char_p]),
    # ABI 1.1.0
    'gl_sgemm_plan': (_status_t, [_handle_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_int, _i64, _i64, _i64, _fptr, _i64, _fptr, _i64, _fptr,
                                  _i64, ctypes.POINTER(PlanStruct)]),
    # ABI 1.2.0
    'gl_variant_describe': (_status_t, [ctypes.c_int, ctypes.POINTER(VariantInfoStruct)]),
    'gl_variant_tile_field': (_status_t, [ctypes.c_int, _i32, ctypes.POINTER(TileFieldStruct)]),
    'gl_tiles_get': (_status_t, [ctypes.POINTER(TilesStruct), ctypes.c_char_p, ctypes.POINTER(_i32)]),
    'gl_tiles_set': (_status_t, [ctypes.POINTER(TilesStruct), ctypes.c_char_p, _i32]),
    'gl_set_workspace_limit': (_status_t, [_handle_t, _i64]),
    'gl_get_workspace_limit': (_status_t, [_handle_t, ctypes.POINTER(_i64)]),
    'gl_set_workspace': (_status_t, [_handle_t, ctypes.c_void_p, _i64]),
    'gl_get_workspace': (_status_t, [_handle_t, ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(_i64)]),
    'gl_sgemm_workspace_size': (_status_t, [_handle_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_int, _i64, _i64, _i64, _fptr, _i64, _fptr,
                                            _i64, _fptr, _i64, ctypes.POINTER(_i64)]),
    # Batches (issue 45; after 1.2.0)
    'gl_sgemm_strided_batched': (_status_t, [_handle_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                             ctypes.c_int, _i64, _i64, _i64, ctypes.c_float,
                                             _fptr, _i64, _i64, _fptr, _i64, _i64,
                                             ctypes.c_float, _fptr, _i64, _i64, _i64]),
    # the pointer arrays: device addresses of arrays of device pointers
    'gl_sgemm_batched': (_status_t, [_handle_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_int, _i64, _i64, _i64, ctypes.c_float,
                                     ctypes.c_void_p, _i64, ctypes.c_void_p, _i64,
                                     ctypes.c_float, ctypes.c_void_p, _i64, _i64]),
}

# gl_set_workspace_limit's "no cap" (GL_WORKSPACE_NO_LIMIT, INT64_MAX).
WORKSPACE_NO_LIMIT = 2**63 - 1


def _declare(lib, name):
    function = getattr(lib, name)
    function.restype, function.argtypes = (_CORE.get(name) or _OPTIONAL[name])
    return function


# ---- the CUDA libraries from pip -------------------------------------------------
# The CUDA major the library was built with (13 for an unconfigured tree).
CUDA_MAJOR = int(getattr(_location, 'CUDA_MAJOR', 13)) if _location else 13


def cuda_packages(major: Optional[int] = None) -> List[Tuple[List[str], List[str], List[str]]]:
    """(pip distribution names, library file names, directories under the nvidia
    namespace package) for the CUDA libraries libgemmladder needs, in the order
    they are preloaded (a library after those it needs)."""
    major = CUDA_MAJOR if major is None else major
    if major >= 13:  # one package per component, every library in nvidia/cu<N>/lib
        runtime, blas = ['nvidia-cuda-runtime'], ['nvidia-cublas']
        runtime_dirs = blas_dirs = ['cu%d/lib' % major]
    else:  # CUDA 12: nvidia-cuda-runtime-cu12 (nvidia/cuda_runtime/lib), ...
        runtime, blas = ['nvidia-cuda-runtime-cu%d' % major], ['nvidia-cublas-cu%d' % major]
        runtime_dirs, blas_dirs = ['cuda_runtime/lib'], ['cublas/lib']
    return [(runtime, ['libcudart.so.%d' % major], runtime_dirs),
            (blas, ['libcublasLt.so.%d' % major, 'libcublas.so.%d' % major], blas_dirs)]


def _from_metadata(distributions: Sequence[str], filename: str) -> Optional[str]:
    """The installed file `filename` of the first of `distributions` that lists it."""
    import importlib.metadata  # here: it costs import gemmladder some milliseconds
    for name in distributions:
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in files:
            if f.name == filename:
                path = os.path.abspath(str(f.locate()))
                if os.path.isfile(path):
                    return path
    return None


def _from_namespace(directories: Sequence[str], filename: str) -> Optional[str]:
    """`filename` in one of `directories` under the nvidia namespace package."""
    import importlib.util
    try:
        spec = importlib.util.find_spec('nvidia')
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        for directory in directories:
            path = os.path.join(root, *directory.split('/'), filename)
            if os.path.isfile(path):
                return path
    return None


def find_cuda_libraries(major: Optional[int] = None) -> List[Tuple[str, str]]:
    """[(file name, path)] of the CUDA libraries found in pip packages, in
    preload order; those not pip-installed are left out."""
    found = []
    for distributions, filenames, directories in cuda_packages(major):
        for filename in filenames:
            path = _from_metadata(distributions, filename) or _from_namespace(directories, filename)
            if path:
                found.append((filename, path))
    return found


def _already_loaded(soname: str) -> bool:
    """Whether a library of that SONAME is in the process (RTLD_NOLOAD)."""
    noload = getattr(os, 'RTLD_NOLOAD', 0)
    if not noload:  # no way to ask without loading it
        return False
    try:
        ctypes.CDLL(soname, mode=noload | getattr(os, 'RTLD_LAZY', 1))
        return True
    except OSError:
        return False


_cuda_preloaded: List[Tuple[str, str]] = []
_cuda_handles: List[ctypes.CDLL] = []  # kept: a preloaded library stays loaded


def preload_cuda(major: Optional[int] = None) -> List[Tuple[str, str]]:
    """Preloads the pip-installed CUDA libraries that are not already loaded
    (RTLD_GLOBAL), before libgemmladder; returns [(file name, path or a failure)]
    of what it did, for the not-found message."""
    if os.environ.get('GEMMLADDER_CUDA_FROM_PIP', '') == '0':
        return []
    done = []
    for filename, path in find_cuda_libraries(major):
        if _already_loaded(filename):  # another copy serves: never a second runtime
            continue
        try:
            _cuda_handles.append(ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))
        except OSError as e:  # the system's copy may still do
            done.append((filename, '%s could not be loaded: %s' % (path, e)))
            continue
        _cuda_preloaded.append((filename, path))
        done.append((filename, path))
    return done


def cuda_preloaded() -> List[Tuple[str, str]]:
    """[(file name, path)] of the CUDA libraries preloaded from pip packages."""
    return list(_cuda_preloaded)


# ---- loading ------------------------------------------------------------------
_lock = threading.Lock()
_loaded = None
_loaded_path = None


def _candidates():
    """(description, path or name, must_load) in search order."""
    env = os.environ.get('GEMMLADDER_LIBRARY', '')
    if env:
        return [('GEMMLADDER_LIBRARY=%s' % env, env, True)]
    found = []
    if _location and _location.LIBRARY:
        recorded = os.path.normpath(os.path.join(os.path.dirname(__file__), _location.LIBRARY))
        if not os.path.exists(recorded) and _location.LIBRARY_ORIGIN == 'wheel':
            # pip put the library and the package in different site-packages
            # (platlib and purelib): the wheel's RECORD says where.
            recorded = _from_metadata(['gemmladder'], os.path.basename(recorded)) or recorded
        if os.path.exists(recorded):
            found.append(('%s (%s)' % (recorded, _location.LIBRARY_ORIGIN), recorded, True))
        else:
            found.append(('%s (%s): no such file' % (recorded, _location.LIBRARY_ORIGIN), None, False))
    soname = 'libgemmladder.so.%d' % ABI_VERSION
    found.append(('%s (system loader)' % soname, soname, False))
    other = ctypes.util.find_library('gemmladder')
    if other and other != soname:
        found.append(('%s (ctypes.util.find_library)' % other, other, False))
    return found


def load():
    """The loaded library (a ctypes.CDLL), loading it the first time."""
    global _loaded, _loaded_path
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        cuda = preload_cuda()
        tried = []
        for description, target, must_load in _candidates():
            if target is None:
                tried.append(description)
                continue
            try:
                lib = ctypes.CDLL(target)
            except OSError as e:
                if must_load:
                    raise LibraryNotFoundError(
                        'libgemmladder could not be loaded from %s: %s' % (description, e)) from None
                tried.append('%s: %s' % (description, e))
                continue
            try:
                for name in _CORE:
                    _declare(lib, name)
            except AttributeError as e:
                raise LibraryNotFoundError('%s is not libgemmladder %d.x: %s'
                                           % (description, ABI_VERSION, e)) from None
            _loaded_path = path_of(lib.gl_version, target)
            _loaded = lib
            return lib
        raise LibraryNotFoundError(
            'libgemmladder not found. Tried:\n  %s\nBuild it (meson compile), install it, or set '
            'GEMMLADDER_LIBRARY to the path of libgemmladder.so.%d.%s'
            % ('\n  '.join(tried), ABI_VERSION, _cuda_note(cuda)))


def _cuda_note(preloaded: Sequence[Tuple[str, str]]) -> str:
    """What the not-found message says of the CUDA libraries."""
    if preloaded:
        return '\nCUDA libraries from pip packages:\n  %s' % '\n  '.join(
            '%s: %s' % entry for entry in preloaded)
    return ('\nThe CUDA %d runtime and cuBLAS come from the system (LD_LIBRARY_PATH, ldconfig) '
            'or from pip install gemmladder[cuda].' % CUDA_MAJOR)


class _DlInfo(ctypes.Structure):
    _fields_ = [('dli_fname', ctypes.c_char_p), ('dli_fbase', ctypes.c_void_p),
                ('dli_sname', ctypes.c_char_p), ('dli_saddr', ctypes.c_void_p)]


def path_of(function, fallback):
    """The file a loaded function lives in (dladdr): a SONAME resolves to a path."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:  # glibc before 2.34 keeps it in libdl
        try:
            dladdr = ctypes.CDLL(ctypes.util.find_library('dl') or 'libdl.so.2').dladdr
        except (OSError, AttributeError):
            return fallback
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    if dladdr(ctypes.cast(function, ctypes.c_void_p), ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(os.fsdecode(info.dli_fname))
    return fallback


def library_path():
    """Path of the libgemmladder actually loaded (loading it if needed)."""
    load()
    return _loaded_path


def optional(name):
    """A function of the tuning interface, declared on first use; raises
    NotImplementedError if the loaded library does not export it."""
    lib = load()
    try:
        return _declare(lib, name)
    except AttributeError:
        raise NotImplementedError(
            '%s is not exported by the loaded libgemmladder (%s, version %s): the library '
            'predates the tuning interface' % (name, _loaded_path, lib.gl_version_string().decode())
        ) from None


def has(name):
    """Whether the loaded library exports `name`."""
    return hasattr(load(), name)


def check(status, function, handle=None):
    """Raises Error for a failed status, with the library's message for `handle`
    (None: the calling thread's message for calls without a handle)."""
    if status != Status.SUCCESS:
        message = load().gl_last_error(handle)
        raise Error(status, message.decode(errors='replace') if message else '', function)
