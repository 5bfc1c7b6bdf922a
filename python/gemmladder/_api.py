"""The Python surface: variants, Handle, gemm/sgemm, tuning tables."""
import atexit
import contextlib
import ctypes
import dataclasses
import enum
import os
import threading
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from . import _arguments, _cudart, _library
from ._arguments import INT32, POINTER
from ._library import (Error, PlanStruct, Status, TileFieldStruct, TilesStruct, VariantInfoStruct,
                       check, load)
from . import _matrix
from ._matrix import ROW
from ._variants import Variant


class Precision(enum.IntEnum):
    """gl_precision_t: what a variant's results are made of (values pinned by the ABI)."""
    FP32 = 0
    TF32 = 1
    FP32_EMULATED = 2


class TilesOrigin(enum.IntEnum):
    """gl_tiles_origin_t: where a tile configuration came from."""
    FIXED = 0
    BUILTIN = 1
    OVERRIDE = 2
    PINNED = 3
    DEFAULT = 4
    FILL = 5
    THIN = 6


class Path(enum.IntEnum):
    """gl_path_t: how the kernel a call runs meets the edges of its product."""
    EDGE_TESTS = 0
    RUNG = 0  # EDGE_TESTS's name before 1.2
    INTERIOR = 1
    EDGE_WINDOWS = 2
    PACKED = 3
    CUBLAS = 4
    SCALE = 5
    GEMV = 6
    SPLIT_K = 7
    STREAM_K = 8
    BATCH = 9


# What a call runs when it names no variant: the engine, the fastest exact-FP32
# path the library has for the shape (as the C examples use).
DEFAULT_VARIANT = Variant.AUTO

# What the public functions take (annotations only; nothing is checked by them).
Array = Any  # a numpy array, a CUDA array (__cuda_array_interface__) or a DLPack tensor
VariantLike = Union[str, int, Variant]
StreamLike = Any  # None, an int cudaStream_t, or a stream object of CuPy, PyTorch, Numba, ...
PathLike = Union[str, bytes, os.PathLike]


# The products' docstrings, shared by Handle's methods and the module's
# functions, which differ only in the handle they run on.
_GEMM_DOC = """C = alpha * op(A) @ op(B) + beta * C in float32, with one rung of the ladder, {on}.

Args:
    A, B: float32 matrices, op(A) M x K and op(B) K x N: 2-D, or 3-D
        batches (batch, rows, cols) of them, which run as one batched call
        (gl_sgemm_strided_batched) with numpy.matmul's broadcasting of the
        batch: a 2-D operand or a batch of 1 against a batch of n serves
        every product (stride 0, never copied); two batches must be as
        long. op() transposes each matrix of a batch. Host arrays
        (numpy, or DLPack tensors in host memory) are copied to the GPU and
        back, any strides, and the call returns when the result is in host
        memory. CUDA arrays (__cuda_array_interface__: CuPy, PyTorch,
        Numba; or DLPack tensors on the GPU) are used in place, each with
        its rows or its columns contiguous (a batch: every matrix so, the
        same number of floats >= 0 apart), and the call returns once the
        work is queued.
    alpha, beta: real numbers that fit a float32: int, float, Fraction,
        Decimal or numpy integer or floating scalars (not bool), rounded
        to float32; a finite value float32 would make infinite or a
        nonzero one it would make 0 is refused, whatever its type
        (infinity and NaN pass as themselves).
    trans_a, trans_b: op(X) is X.T when True (or 'T'; False or 'N': X);
        Python's or numpy's bools.
    out: the M x N result array (batch x M x N where A or B is a batch),
        of the same kind as A and B; needed when beta != 0. None: a new
        array like A's (numpy for host arrays, PyTorch for PyTorch's; CuPy,
        PyTorch or Numba on the GPU). It must not share an element with A
        or B (exactly: views that interleave without sharing one, such as
        Y[:, :4] and Y[:, 4:], are accepted); for a batch of more than one
        product, its memory from its first element to its last must not
        meet A's or B's (the library's rule), and no two of its matrices
        may share an element.
    variant: a name ('warptile'), an id or a Variant.
    stream: CUDA arrays: the stream to run on (an int cudaStream_t, a numpy
        integer, or a stream object); None: the stream the arrays name,
        else the handle's. DLPack tensors on the GPU are exported for it
        ({dlpack}).
Returns:
    out, or the new result array.
Raises:
    TypeError: an argument of a type it does not take (another dtype, not
        an array, alpha a bool or a str, trans_a an int, mixed host and
        CUDA arrays), before anything reaches the GPU.
    ValueError: an argument of the right type whose value the call cannot
        express (1-D or 4-D, mismatched shapes or batch sizes, a masked array, alpha or
        beta outside float32, out overlapping A or B, arrays on different
        GPUs, an unknown variant, a variant name with a NUL), before
        anything reaches the GPU.
    Error: the library or the CUDA runtime failed (status and message){no_device}.
"""

_SGEMM_DOC = """C = A @ B in float32 with one rung of the ladder, {on}.

Args:
    A, B: the M x K and K x N matrices, or 3-D batches of them: numpy
        arrays, CUDA arrays or DLPack tensors (see gemm()).
    variant: a name ('warptile'), an id or a Variant.
    out: the M x N (batch x M x N) result array; None: a new one like A's.
    stream: CUDA arrays: the stream to run on (see gemm()).
Returns:
    out, or the new result array.
Raises:
    TypeError, ValueError: arguments the call cannot express, before
        anything reaches the GPU (as gemm() says).
    Error: the library or the CUDA runtime failed (status and message){no_device}.
"""

_GEMM_BATCHED_DOC = """C[i] = alpha * op(As[i]) @ op(Bs[i]) + beta * C[i] for every i in float32,
one call of the library (gl_sgemm_batched: arrays of pointers), {on}.

Args:
    As, Bs: lists or tuples of as many 2-D float32 matrices, all numpy
        arrays (each distinct one copied to the GPU once, and each C back;
        the call returns when the results are in host memory) or all CUDA
        arrays (used in place; the call returns once the arrays of
        pointers have been read), every product of one shape, layout and
        transposes (CUDA arrays: and leading dimensions). A matrix may
        appear more than once (one A against many B, say).
    alpha, beta, trans_a, trans_b: as gemm() takes them.
    out: a list or tuple of the products' M x N results (needed when
        beta != 0); None: new arrays like As[i]'s. Each must not share an
        element with its product's A or B; the products' results must not
        share one either (not checked between products: a race).
    variant: a name ('warptile'), an id or a Variant.
    stream: CUDA arrays: the stream to run on (an int cudaStream_t or a
        stream object); None: the handle's.
Returns:
    out, or the list of new result arrays.
Raises:
    TypeError: as gemm() (the message names the product), or As, Bs or
        out not a list or tuple.
    ValueError: as gemm() (the message names the product), As, Bs and out
        of different lengths, or products of different shapes, layouts,
        transposes or leading dimensions.
    Error: the library or the CUDA runtime failed (status and message){no_device}.
"""

_ON_HANDLE = {'on': 'on this handle', 'dlpack': "None: the handle's", 'no_device': ''}
_ON_DEFAULT_HANDLE = {'on': "on this thread's default handle (default_handle)",
                      'dlpack': 'None: the default stream',
                      'no_device': ', including NO_DEVICE where there is no usable GPU'}


_Function = TypeVar('_Function', bound=Callable[..., Any])


def _documented(template: str, where: Mapping[str, str]) -> Callable[[_Function], _Function]:
    """Sets the decorated function's docstring to template filled in with where.
    Typed as returning the function itself, so that type checkers see the
    decorated function's own signature (not Any)."""
    def document(function: _Function) -> _Function:
        function.__doc__ = template.format(**where)
        return function
    return document


def variant(v: VariantLike) -> Union[Variant, int]:
    """The variant a name, an id or a Variant stands for.

    Args:
        v: a name ('warptile'), an id (8: an int or a numpy integer, not a
            bool) or a Variant.
    Returns:
        The Variant, or a plain int for an id the library knows but this
        binding's enum does not (a newer library).
    Raises:
        ValueError: the library knows no such name or id, or the name
            holds a NUL character (which C would read as its end).
        TypeError: v is neither a str nor an integer.
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    lib = load()
    if isinstance(v, str):
        encoded = _arguments.text(v, 'the variant name')
        out = ctypes.c_int()
        if lib.gl_variant_from_name(encoded, ctypes.byref(out)) != Status.SUCCESS:
            raise ValueError('unknown variant %s; the library knows %s'
                             % (_arguments.describe(v),
                                ', '.join(repr(_name(i)) for i in range(lib.gl_variant_count()))))
        number = out.value
    elif hasattr(v, '__index__') and not _arguments.is_bool(v):  # int, Variant, numpy integers
        count = lib.gl_variant_count()
        number = _arguments.integer(v, 'the variant id', (0, count - 1),
                                    'unknown variant id %%s; the library knows 0 .. %d' % (count - 1))
    else:
        raise TypeError('variant must be a name, an id or a gemmladder.Variant, got %s'
                        % _arguments.describe(v))
    try:
        return Variant(number)
    except ValueError:
        return number


_to_variant = variant  # for functions whose `variant` argument hides the function


def _name(number):
    return load().gl_variant_name(number).decode()


def variant_name(v: VariantLike) -> str:
    """The library's name of a variant.

    Args:
        v: a name, an id or a Variant.
    Returns:
        The name, e.g. 'blocktile_2d'.
    Raises:
        ValueError, TypeError: as variant() does.
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    return _name(variant(v))


def variants() -> List[Union[Variant, int]]:
    """Every variant the library knows.

    Returns:
        The variants in id order, whether this GPU can run them or not
        (Handle.available_variants() gives those it can).
    Raises:
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    return [variant(i) for i in range(load().gl_variant_count())]


@dataclasses.dataclass(frozen=True)
class TileField:
    """One field of a variant's tiles (gl_variant_tile_field): its name, as Tiles and
    tuning tables write it, its legal range, and whether a tuning row may leave it
    out (it follows from the others)."""
    name: str
    min: int
    max: int
    derived: bool


@dataclasses.dataclass(frozen=True)
class VariantInfo:
    """The facts of a variant, from its descriptor row (gl_variant_describe)."""
    variant: Union[Variant, int]
    name: str
    precision: Union[Precision, int]
    min_cc: int                     # lowest compute capability, major * 10 + minor
    arch_specific: bool             # architecture-specific GPU code: runs on min_cc only
    reference: bool                 # what the others are measured against (cublas)
    engine: bool                    # plans each call (auto; Handle.sgemm_plan)
    auto_runs: bool                 # the engine may run this variant's kernel
    slow: bool                      # tools run it on small shapes only
    takes_rows: bool                # tuning tables have rows for it
    rows_of: Optional[Union[Variant, int]]  # whose rows choose its tiles; None: fixed tiles
    config_count: int               # compiled tile configurations (variant_configs)
    tile_fields: Tuple[TileField, ...]  # the fields its tiles have, as tables write them


def _as_enum(kind, number):
    try:
        return kind(number)
    except ValueError:  # a value newer than this package
        return number


def variant_info(v: VariantLike) -> VariantInfo:
    """The facts of a variant, from the library's descriptor row.

    Args:
        v: a name, an id or a Variant.
    Returns:
        A VariantInfo.
    Raises:
        ValueError, TypeError: as variant() does.
        NotImplementedError: the library predates gl_variant_describe (1.2).
    """
    number = variant(v)
    s = VariantInfoStruct()
    s.size = ctypes.sizeof(s)
    check(_library.optional('gl_variant_describe')(number, ctypes.byref(s)), 'gl_variant_describe')
    fields = []
    get = _library.optional('gl_variant_tile_field')
    for index in range(s.tile_field_count):
        f = TileFieldStruct()
        f.size = ctypes.sizeof(f)
        check(get(number, index, ctypes.byref(f)), 'gl_variant_tile_field')
        fields.append(TileField(f.name.decode(), f.min, f.max, bool(f.derived)))
    return VariantInfo(variant=_as_enum(Variant, s.variant), name=s.name.decode(),
                       precision=_as_enum(Precision, s.precision), min_cc=s.min_cc,
                       arch_specific=bool(s.arch_specific), reference=bool(s.reference),
                       engine=bool(s.engine), auto_runs=bool(s.auto_runs), slow=bool(s.slow),
                       takes_rows=bool(s.takes_rows),
                       rows_of=_as_enum(Variant, s.rows_of) if s.rows_of >= 0 else None,
                       config_count=s.config_count, tile_fields=tuple(fields))


def library_version() -> str:
    """The loaded library's version (gl_version_string).

    Returns:
        'MAJOR.MINOR.PATCH'; __version__ is the version this package was built with.
    Raises:
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    return load().gl_version_string().decode()


def library_path() -> str:
    """Where the loaded libgemmladder is.

    Returns:
        The path of the library file, loading the library first if needed.
    Raises:
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    return _library.library_path()


# ---- tile configurations and tuning tables ----------------------------------------
@dataclasses.dataclass(frozen=True)
class Tiles:
    """One tile configuration (struct gl_tiles). Fields a rung does not use are 0;
    origin, line, arch, size_class and source say where a queried one came from.
    Tile fields the library added after the nine below (pipeline stages, ...) are
    in `more`, as (name, value) pairs of those that are set; get(name) reads any."""
    bm: int
    bn: int
    bk: int
    tm: int
    tn: int
    wm: int = 0
    wn: int = 0
    wniter: int = 0
    threads: int = 0
    origin: TilesOrigin = TilesOrigin.FIXED
    line: int = 0
    arch: str = ''
    size_class: str = ''
    source: str = ''
    more: Tuple[Tuple[str, int], ...] = ()

    # struct gl_tiles's members since 1.0 (the fields among them the library names).
    _NUMBERS = ('bm', 'bn', 'bk', 'tm', 'tn', 'wm', 'wn', 'wniter', 'threads', 'line')
    _TEXTS = ('arch', 'size_class', 'source')

    def get(self, name: str) -> int:
        """The value of a tile field, one of the nine above or one in `more`.

        Args:
            name: the field's name, as the library gives it ('bm', 'wniter', ...).
        Returns:
            Its value; 0 where it is not set.
        Raises:
            ValueError: no variant's tiles have a field of that name.
        """
        if name in self._NUMBERS[:-1]:
            return getattr(self, name)
        if name not in _tile_field_names():
            raise ValueError('no tile field is named %r; the library knows %s'
                             % (name, ', '.join(_tile_field_names())))
        return dict(self.more).get(name, 0)

    @classmethod
    def _from_struct(cls, s):
        numbers = {k: getattr(s, k) for k in cls._NUMBERS}
        texts = {k: getattr(s, k).decode(errors='replace') for k in cls._TEXTS}
        more = []
        # a struct the library did not fill in (size 0) holds no later fields
        for name in _tile_field_names() if s.size else ():
            if name not in cls._NUMBERS:  # a field kept in a word of gl_tiles.reserved
                value = _INT32()
                check(_library.optional('gl_tiles_get')(ctypes.byref(s), name.encode(),
                                                        ctypes.byref(value)), 'gl_tiles_get')
                if value.value:
                    more.append((name, value.value))
        return cls(origin=_as_enum(TilesOrigin, s.origin), more=tuple(more), **numbers, **texts)

    def _to_struct(self):
        s = _new_tiles_struct()
        for k in self._NUMBERS + ('origin',):
            setattr(s, k, _arguments.integer(getattr(self, k), 'Tiles.' + k, INT32))
        for name, value in self.more:
            if name in self._NUMBERS or name not in _tile_field_names():
                raise ValueError('Tiles.more: %r is not a tile field the library adds (it knows %s)'
                                 % (name, ', '.join(_tile_field_names())))
            check(_library.optional('gl_tiles_set')(ctypes.byref(s), name.encode(),
                                                    _arguments.integer(value, 'Tiles.more', INT32)),
                  'gl_tiles_set')
        for k in self._TEXTS:
            encoded = _arguments.text(getattr(self, k), 'Tiles.' + k)
            room = getattr(TilesStruct, k).size - 1  # and its NUL
            if len(encoded) > room:
                raise ValueError('Tiles.%s is %d bytes; the C struct holds %d' % (k, len(encoded), room))
            setattr(s, k, encoded)
        return s


_INT32 = ctypes.c_int32
_field_names = None


def _tile_field_names():
    """Every tile field name the library's variants use, in first-seen order
    (gl_variant_tile_field); () for a library that predates the query."""
    global _field_names
    if _field_names is None:
        names = []
        if _library.has('gl_variant_tile_field'):
            for v in range(load().gl_variant_count()):
                for f in variant_info(v).tile_fields:
                    if f.name not in names:
                        names.append(f.name)
        _field_names = tuple(names)
    return _field_names


def _new_tiles_struct():
    s = TilesStruct()
    s.size = ctypes.sizeof(TilesStruct)  # the library reads only what the caller has
    return s


@dataclasses.dataclass(frozen=True)
class SgemmPlan:
    """What a call would run (struct gl_plan, from Handle.sgemm_plan)."""
    variant: Union[Variant, int]
    kernel: Optional[Union[Variant, int]]  # the variant whose kernel runs; None: Path.SCALE
    path: Union[Path, int]
    copies: int                # bit 0: A copied, bit 1: B; bit 2: A copied transposed, bit 3: B
    aligned: bool              # both operands read 16 bytes at a time
    launches: int
    splits: int                # K cut into this many parts (Path.SPLIT_K, Path.GEMV; at most, of
                               # one tile, for Path.STREAM_K); 1: not
    scratch_bytes: int         # the most any slice of rows takes
    tiles: Tiles
    why: str
    last_slice_rows: int = 0   # over 2^20 rows: the last slice's rows where it is planned
                               # otherwise than the others (fields above), else 0
    last_slice_path: Union[Path, int, None] = None  # that slice's path, else path

    @classmethod
    def _from_struct(cls, s):
        def as_path(i):
            try:
                return Path(i)
            except ValueError:  # a path newer than this package
                return i
        path = as_path(s.path)
        def as_variant(i):
            try:
                return Variant(i)
            except ValueError:  # a variant newer than this package
                return i
        return cls(variant=as_variant(s.variant), kernel=as_variant(s.kernel) if s.kernel >= 0 else None,
                   path=path, copies=s.copies, aligned=bool(s.aligned), launches=s.launches, splits=s.splits,
                   scratch_bytes=s.scratch_bytes, tiles=Tiles._from_struct(s.tiles),
                   why=s.why.decode(errors='replace'), last_slice_rows=s.last_slice_rows,
                   last_slice_path=as_path(s.last_slice_path))


def tuning_supported() -> bool:
    """Whether the loaded library exports the tuning interface.

    Returns:
        True when variant_configs(), tuning_load(), tuning_check() and the
        Handle's tuning methods can be used.
    Raises:
        LibraryNotFoundError: libgemmladder cannot be loaded.
    """
    return _library.has('gl_tuning_check')


def variant_configs(v: VariantLike) -> List[Tiles]:
    """Every tile configuration compiled for a variant.

    Args:
        v: a name, an id or a Variant.
    Returns:
        A list of Tiles (empty for cublas, which has none).
    Raises:
        ValueError, TypeError: as variant() does.
        Error: the library refused a configuration index.
        NotImplementedError: the library has no tuning interface.
    """
    number = variant(v)
    count = _library.optional('gl_variant_config_count')(number)
    get = _library.optional('gl_variant_config')
    configs = []
    for index in range(max(count, 0)):
        s = _new_tiles_struct()
        check(get(number, index, ctypes.byref(s)), 'gl_variant_config')
        configs.append(Tiles._from_struct(s))
    return configs


def tuning_load(path: Optional[PathLike]) -> None:
    """Layers a tuning table file over the built-in table, for the whole process.

    Args:
        path: the table file (docs/tuning.md describes the format): a str,
            bytes or os.PathLike; or None to remove the override.
    Returns:
        None.
    Raises:
        Error: status TUNING_ERROR for a bad file, with file, line and
            reason; the table in use stays as it was.
        TypeError: path is not a str, bytes, os.PathLike or None.
        ValueError: path holds a NUL character (which C would read as its end).
        NotImplementedError: the library has no tuning interface.
    """
    encoded = None if path is None else _arguments.path(path)
    check(_library.optional('gl_tuning_load')(encoded), 'gl_tuning_load')


def tuning_check(path: PathLike) -> None:
    """Validates a tuning table file as tuning_load would, without loading it (no GPU needed).

    Args:
        path: the table file: a str, bytes or os.PathLike.
    Returns:
        None: the table is valid.
    Raises:
        Error: status TUNING_ERROR for a bad file, with file, line and reason.
        TypeError: path is not a str, bytes or os.PathLike.
        ValueError: path holds a NUL character (which C would read as its end).
        NotImplementedError: the library has no tuning interface.
    """
    check(_library.optional('gl_tuning_check')(_arguments.path(path)), 'gl_tuning_check')


# ---- streams ------------------------------------------------------------------------
def _stream_value(stream):
    """A cudaStream_t as an int from an int (or a numpy integer) or a stream
    object of a framework (__cuda_stream__, torch's .cuda_stream, CuPy's
    .ptr, Numba's .handle)."""
    if stream is None:
        return None
    if hasattr(stream, '__index__') and not _arguments.is_bool(stream):
        value = stream
    elif hasattr(stream, '__cuda_stream__'):
        value = stream.__cuda_stream__()[1]
    elif hasattr(stream, 'cuda_stream'):
        value = stream.cuda_stream
    elif hasattr(stream, 'ptr'):
        value = stream.ptr
    elif hasattr(stream, 'handle'):
        value = getattr(stream.handle, 'value', stream.handle)
    else:
        raise TypeError('stream must be a cudaStream_t as an int or a CUDA stream object, got %s'
                        % _arguments.describe(stream))
    value = _arguments.integer(value or 0, 'stream', POINTER,
                               'stream %s is not a cudaStream_t (0 .. 2**64 - 1)')
    return _canonical(value)


def _device(device: Any) -> Optional[int]:
    """A CUDA device ordinal (a C int) or None."""
    if device is None:
        return None
    return _arguments.integer(device, 'device', (0, INT32[1]),
                              'device %s is not a CUDA device ordinal (0 .. 2**31 - 1)')


def _canonical(stream):
    # The library is built with the legacy default stream as NULL, so
    # cudaStreamLegacy (1, as the CUDA Array Interface writes it) is NULL.
    return 0 if stream == 1 else stream


def _framework(obj):
    return type(obj).__module__.split('.')[0]


def _stream_of(operand):
    """The stream an array's producer named, or None when it asks for no ordering."""
    m = operand.matrix
    if m.stream is not None:
        return _canonical(int(m.stream))
    if m.kind == 'device' and _framework(m.obj) == 'torch':
        # PyTorch's interface names no stream, but its work is queued on its
        # current stream: order after that.
        import torch
        return int(torch.cuda.current_stream(m.obj.device).cuda_stream)
    return None


# ---- handles ------------------------------------------------------------------------
@contextlib.contextmanager
def _device_buffers(device):
    """A list for the block's device buffers, allocated on `device` (the
    handle's GPU): each freed after the block, and on an error freed without
    reporting theirs, so that the first error is the one raised."""
    buffers = []
    with _cudart.on_device(device):
        try:
            yield buffers
        except BaseException:
            for buffer in buffers:
                buffer.free(report_errors=False)
            raise
        for buffer in buffers:
            buffer.free()


class Handle:
    """A libgemmladder handle: a CUDA device (the current one when created, or
    `device`), a stream, and cuBLAS state created when first needed.

    Use it from one thread at a time; close() it (or use `with`) to free it.
    """

    def __init__(self, device: Optional[int] = None):
        """Creates a handle (gl_handle_create).

        Args:
            device: the CUDA device ordinal to run on (an int or a numpy
                integer, not a bool); None: the current device.
        Raises:
            Error: status NO_DEVICE where there is no usable GPU (the message
                says whether the driver is missing, too old, or sees no GPU;
                the same whatever the device); CUDA_ERROR for an ordinal the
                CUDA runtime has no device for.
            TypeError: device is not an integer or None.
            ValueError: device is negative or past a C int (before the
                library is loaded).
            LibraryNotFoundError: libgemmladder cannot be loaded.
        """
        self._ptr = None
        device = _device(device)  # ValueError, TypeError: before the library is loaded
        lib = load()
        handle = ctypes.c_void_p()
        switch = _cudart.on_device(device)
        try:
            switch.__enter__()
        except Error as e:
            if e.status is not Status.NO_DEVICE:
                raise  # an ordinal this runtime has no device for: CUDA_ERROR
            # The runtime has no usable GPU at all, which it reports in its
            # own terms ("CUDA driver version is insufficient" where no driver
            # is installed). gl_handle_create says why in the user's, as for
            # Handle(): the same error whatever the device.
            check(lib.gl_handle_create(ctypes.byref(handle)), 'gl_handle_create')
            lib.gl_handle_destroy(handle)  # the runtime found a GPU after all
            raise
        try:
            check(lib.gl_handle_create(ctypes.byref(handle)), 'gl_handle_create')
        finally:
            switch.__exit__(None, None, None)
        self._ptr = handle.value
        self._device = lib.gl_handle_device(self._ptr)

    # -- lifetime
    def close(self) -> None:
        """Destroys the handle (queued work is not waited for); closing it again does nothing.

        Returns:
            None.
        Raises:
            Nothing.
        """
        ptr, self._ptr = self._ptr, None
        if ptr:
            load().gl_handle_destroy(ptr)

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._ptr is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def __repr__(self):
        if self.closed:
            return '<gemmladder.Handle closed>'
        return '<gemmladder.Handle device=%d stream=%#x>' % (self._device, self.stream)

    def _handle(self):
        if self._ptr is None:
            raise ValueError('the handle is closed')
        return self._ptr

    def _check(self, status, function):
        check(status, function, self._ptr)

    # -- properties
    @property
    def device(self) -> int:
        """The CUDA device ordinal the handle runs on (ValueError once closed)."""
        self._handle()
        return self._device

    @property
    def stream(self) -> int:
        """The handle's stream as an int cudaStream_t (0: the default stream).
        Set it to an int (or a numpy integer, not a bool), a framework's
        stream object, or None (TypeError for another type, ValueError for
        an int outside 0 .. 2**64 - 1; ValueError once closed)."""
        out = ctypes.c_void_p()
        self._check(load().gl_get_stream(self._handle(), ctypes.byref(out)), 'gl_get_stream')
        return out.value or 0

    @stream.setter
    def stream(self, stream: StreamLike) -> None:
        value = _stream_value(stream)
        self._check(load().gl_set_stream(self._handle(), value or None), 'gl_set_stream')

    def available(self, v: VariantLike) -> bool:
        """Whether a variant can run on this handle's device with this build.

        Args:
            v: a name, an id or a Variant.
        Returns:
            True or False; last_error() says why not.
        Raises:
            ValueError, TypeError: as variant() does, or the handle is closed.
        """
        status = load().gl_variant_available(self._handle(), variant(v))
        if status == Status.UNSUPPORTED_VARIANT:
            return False
        self._check(status, 'gl_variant_available')
        return True

    def available_variants(self) -> List[Union[Variant, int]]:
        """The variants this handle's device can run with this build.

        Returns:
            A list of variants, in id order.
        Raises:
            ValueError: the handle is closed.
        """
        return [v for v in variants() if self.available(v)]

    def last_error(self) -> str:
        """The library's message for the last failed call with this handle.

        Returns:
            The message ('' if no call failed yet).
        Raises:
            ValueError: the handle is closed.
        """
        message = load().gl_last_error(self._handle())
        return message.decode(errors='replace') if message else ''

    def synchronize(self) -> None:
        """Waits for the work queued on the handle's stream.

        Returns:
            None.
        Raises:
            Error: the CUDA runtime reported an error (of this or earlier work).
            ValueError: the handle is closed.
        """
        _cudart.synchronize(self.stream or None)

    # -- products
    @_documented(_SGEMM_DOC, _ON_HANDLE)
    def sgemm(self, A: Array, B: Array, variant: VariantLike = DEFAULT_VARIANT,
              out: Optional[Array] = None, stream: StreamLike = None) -> Array:
        return self.gemm(A, B, out=out, variant=variant, stream=stream)

    @_documented(_GEMM_DOC, _ON_HANDLE)
    def gemm(self, A: Array, B: Array, *, alpha: float = 1.0, beta: float = 0.0,
             trans_a: Union[bool, str] = False, trans_b: Union[bool, str] = False,
             out: Optional[Array] = None, variant: VariantLike = DEFAULT_VARIANT,
             stream: StreamLike = None) -> Array:
        stream = _stream_value(stream)
        plan = _matrix.plan(A, B, out, alpha, beta, trans_a, trans_b,
                            self.stream if stream is None else stream)
        number = _to_variant(variant)
        _check_devices(plan, self.device)
        return self._run(plan, number, stream)

    @_documented(_GEMM_BATCHED_DOC, _ON_HANDLE)
    def gemm_batched(self, As: Sequence[Array], Bs: Sequence[Array], *, alpha: float = 1.0,
                     beta: float = 0.0, trans_a: Union[bool, str] = False,
                     trans_b: Union[bool, str] = False, out: Optional[Sequence[Array]] = None,
                     variant: VariantLike = DEFAULT_VARIANT,
                     stream: StreamLike = None) -> List[Array]:
        stream = _stream_value(stream)
        plans = _matrix.pointer_plans(As, Bs, out, alpha, beta, trans_a, trans_b,
                                      self.stream if stream is None else stream)
        number = _to_variant(variant)
        for plan in plans:
            _check_devices(plan, self.device)
        self._require_available(number)
        if plans and plans[0].kind == 'host':
            self._run_host_pointers(plans, number, stream)
        else:
            self._run_device_pointers(plans, number, stream)
        return [plan.c.matrix.obj for plan in plans]

    def _call_pointers(self, plan, number, a_array, b_array, c_array, lds, count, stream):
        """gl_sgemm_batched on the products' pointers, which go to the GPU in
        one buffer of three arrays, freed once the call is done with it."""
        addresses = [a_array, b_array, c_array]
        entries = (ctypes.c_void_p * (3 * count))(*(a or None for x in addresses for a in x))
        size = ctypes.sizeof(ctypes.c_void_p) * count
        arrays = _cudart.DeviceBuffer(3 * size)
        try:
            _cudart.copy_2d(arrays.address, 3 * size, ctypes.addressof(entries), 3 * size, 3 * size, 1,
                            _cudart.MEMCPY_HOST_TO_DEVICE, stream or None)
            function = _library.optional('gl_sgemm_batched')
            with self._on_stream(stream):
                self._check(function(
                    self._ptr, number, 0 if plan.layout == ROW else 1, int(plan.a.transpose),
                    int(plan.b.transpose), plan.M, plan.N, plan.K, plan.alpha, arrays.address,
                    lds[0], arrays.address + size, lds[1], plan.beta, arrays.address + 2 * size,
                    lds[2], count), 'gl_sgemm_batched')
            _cudart.synchronize(stream or None)  # the arrays are read on the GPU
        finally:
            arrays.free(report_errors=False)

    def _run_device_pointers(self, plans, number, stream):
        for plan in plans:
            if plan.c is None:
                plan.set_output(_allocate_like(plan, self._device))
        first = plans[0] if plans else None
        if first is None or not (first.M and first.N):
            return  # no element of C to write
        run = stream if stream is not None else self.stream
        self._call_pointers(first, number, [p.a.matrix.address for p in plans],
                            [p.b.matrix.address for p in plans],
                            [p.c.matrix.address for p in plans],
                            [first.a.ld, first.b.ld, first.c.ld], len(plans), run)

    def _run_host_pointers(self, plans, number, stream):
        """Host arrays: each distinct matrix packed once on the GPU (ld = its
        stored rows' length), one call, and each C copied back."""
        for plan in plans:
            if plan.c is None:
                plan.set_output(_allocate_like(plan, self._device))
        first = plans[0]
        if not (first.M and first.N):
            return
        run = stream if stream is not None else self.stream
        roles = [[p.a for p in plans], [p.b for p in plans], [p.c for p in plans]]
        addresses = []
        with _device_buffers(self._device) as buffers:
            for role, operands in enumerate(roles):
                # One place for each distinct matrix (the same array, met again).
                places, offsets, nbytes = {}, [], 0
                for operand in operands:
                    key = (operand.matrix.address, operand.matrix.rows, operand.matrix.cols,
                           operand.ld)
                    if key not in places or role == 2:
                        places[key], nbytes = nbytes, nbytes + operand.outer * operand.inner * 4
                    offsets.append(places[key])
                buffer = _cudart.DeviceBuffer(nbytes)
                buffers.append(buffer)
                addresses.append([buffer.address + o for o in offsets])
                copied = set()
                for operand, address in zip(operands, addresses[-1]):
                    if (role < 2 or plans[0].beta != 0.0) and address not in copied:
                        _copy(operand, address, _cudart.MEMCPY_HOST_TO_DEVICE, run)
                        copied.add(address)
            lds = [max(operand.inner, 1) for operand in first.operands()]
            self._call_pointers(first, number, addresses[0], addresses[1], addresses[2], lds,
                                len(plans), run)
            for plan, address in zip(plans, addresses[2]):
                _copy(plan.c, address, _cudart.MEMCPY_DEVICE_TO_HOST, run)
            _cudart.synchronize(run or None)
        for plan in plans:
            if plan.c.matrix.copy is not None:
                plan.c.matrix.write_back()

    def _run(self, plan, number, stream):
        self._require_available(number)
        if plan.kind == 'host':
            return self._run_host(plan, number, stream)
        return self._run_device(plan, number, stream)

    def _require_available(self, number):
        # A rung this GPU cannot run fails here, before any copy or allocation.
        self._check(load().gl_variant_available(self._handle(), number), 'gl_variant_available')

    @contextlib.contextmanager
    def _on_stream(self, stream):
        """The handle on `stream` for the block (None: its own), then back."""
        lib = load()
        previous = self.stream
        switch = stream is not None and stream != previous
        if switch:
            self._check(lib.gl_set_stream(self._ptr, stream or None), 'gl_set_stream')
        try:
            yield lib
        finally:
            if switch:
                lib.gl_set_stream(self._ptr, previous or None)

    def _call(self, plan, number, a_ptr, a_ld, b_ptr, b_ld, c_ptr, c_ld, stream):
        with self._on_stream(stream) as lib:
            self._check(lib.gl_sgemm_ex(
                self._ptr, number, 0 if plan.layout == ROW else 1,
                int(plan.a.transpose), int(plan.b.transpose), plan.M, plan.N, plan.K,
                plan.alpha, a_ptr or None, a_ld, b_ptr or None, b_ld, plan.beta, c_ptr or None,
                c_ld), 'gl_sgemm_ex')

    def _call_batched(self, plan, number, a_ptr, a_ld, a_stride, b_ptr, b_ld, b_stride, c_ptr, c_ld,
                      c_stride, stream):
        function = _library.optional('gl_sgemm_strided_batched')
        with self._on_stream(stream):
            self._check(function(
                self._ptr, number, 0 if plan.layout == ROW else 1,
                int(plan.a.transpose), int(plan.b.transpose), plan.M, plan.N, plan.K,
                plan.alpha, a_ptr or None, a_ld, a_stride, b_ptr or None, b_ld, b_stride,
                plan.beta, c_ptr or None, c_ld, c_stride, plan.batch), 'gl_sgemm_strided_batched')

    def _run_device(self, plan, number, stream):
        given_out = plan.c
        if plan.c is None:
            plan.set_output(_allocate_like(plan, self._device))
        # Streams named by the arrays, the caller's out first: the product runs
        # on the first (or the given stream, or the handle's), and every other
        # one is ordered both ways with it through events, never by blocking.
        named = []
        for operand in (given_out, plan.a, plan.b, plan.c):
            s = _stream_of(operand) if operand is not None else None
            if s is not None and s not in named:
                named.append(s)
        run = stream if stream is not None else (named[0] if named else self.stream)
        others = [s for s in named if s != run]
        for s in others:
            _cudart.make_wait(run or None, s or None)
        if plan.batch is None:
            self._call(plan, number, plan.a.matrix.address, plan.a.ld, plan.b.matrix.address,
                       plan.b.ld, plan.c.matrix.address, plan.c.ld, run)
        elif plan.batch and plan.M and plan.N:  # else no element of C to write
            self._call_batched(plan, number, plan.a.matrix.address, plan.a.ld, plan.a.stride,
                               plan.b.matrix.address, plan.b.ld, plan.b.stride,
                               plan.c.matrix.address, plan.c.ld, plan.c.stride, run)
        for s in others:
            _cudart.make_wait(s or None, run or None)
        return plan.c.matrix.obj

    def _run_host(self, plan, number, stream):
        """Host arrays: each operand packed on the GPU (ld = its stored rows'
        length; a batch's distinct matrices one after another, a broadcast
        one once, stride 0), one call, and C copied back."""
        if plan.c is None:
            plan.set_output(_allocate_like(plan, self._device))
        run = stream if stream is not None else self.stream
        batched = plan.batch is not None
        copy = _copy_batch if batched else _copy
        with _device_buffers(self._device) as buffers:
            for operand in plan.operands():
                count = operand.count if batched else 1
                buffers.append(_cudart.DeviceBuffer(count * operand.outer * operand.inner * 4))
            uploads = [plan.a, plan.b] + ([plan.c] if plan.beta != 0.0 else [])
            for operand, buffer in zip(uploads, buffers):
                copy(operand, buffer.address, _cudart.MEMCPY_HOST_TO_DEVICE, run)
            lds = [max(operand.inner, 1) for operand in plan.operands()]
            if not batched:
                self._call(plan, number, buffers[0].address, lds[0], buffers[1].address,
                           lds[1], buffers[2].address, lds[2], run)
            elif plan.batch and plan.M and plan.N:  # else no element of C to write
                strides = [operand.outer * operand.inner if operand.count > 1 else 0
                           for operand in plan.operands()]
                self._call_batched(plan, number, buffers[0].address, lds[0], strides[0],
                                   buffers[1].address, lds[1], strides[1],
                                   buffers[2].address, lds[2], strides[2], run)
            copy(plan.c, buffers[2].address, _cudart.MEMCPY_DEVICE_TO_HOST, run)
            _cudart.synchronize(run or None)
        if plan.c.matrix.copy is not None:
            plan.c.matrix.write_back()
        return plan.c.matrix.obj

    # -- what a call would run
    def sgemm_plan(self, M: int, N: int, K: int, v: VariantLike = DEFAULT_VARIANT, *,
                   trans_a: Union[bool, str] = False, trans_b: Union[bool, str] = False,
                   column_major: bool = False,
                   lda: Optional[int] = None, ldb: Optional[int] = None,
                   ldc: Optional[int] = None) -> 'SgemmPlan':
        """What a product of these sizes would run now (gl_sgemm_plan), for operands
        as cudaMalloc aligns them: the kernel, its tiles, the path through the edges,
        the copies auto would make and why.

        Args:
            M, N, K: C is M x N, op(A) M x K, op(B) K x N: ints or numpy
                integers (not bools).
            v: the variant (default auto).
            trans_a, trans_b: op(A) = A^T, op(B) = B^T: True/False (Python's or
                numpy's) or 'N'/'T', as gemm() takes them.
            column_major: the matrices are column-major (default row-major):
                True/False (Python's or numpy's).
            lda, ldb, ldc: leading dimensions (ints or numpy integers);
                default: the matrices are contiguous.
        Returns:
            SgemmPlan.
        Raises:
            Error: status INVALID_ARGUMENT for sizes or leading dimensions the call
                would refuse (the message says which), UNKNOWN_VARIANT.
            TypeError: a size, leading dimension or flag of another type (a
                float, a bool for a size, an int for a flag), or as variant() does.
            ValueError: a size or leading dimension past int64_t (the C
                parameter), a transpose string other than 'N'/'T', as
                variant() does, or the handle is closed.
            NotImplementedError: the library is older than 1.1.0.
        """
        s = PlanStruct()
        s.size = ctypes.sizeof(PlanStruct)
        arguments = self._plan_arguments(M, N, K, v, trans_a, trans_b, column_major, lda, ldb, ldc)
        self._check(_library.optional('gl_sgemm_plan')(*arguments, ctypes.byref(s)),
                    'gl_sgemm_plan')
        return SgemmPlan._from_struct(s)

    def _plan_arguments(self, M, N, K, v, trans_a, trans_b, column_major, lda, ldb, ldc):
        # gl_sgemm_plan's arguments but the last, as C values: NULL operands
        # (aligned as cudaMalloc aligns), contiguous unless the ld is given.
        M, N, K = (_arguments.integer(x, name) for x, name in ((M, 'M'), (N, 'N'), (K, 'K')))
        lda, ldb, ldc = (None if x is None else _arguments.integer(x, name)
                         for x, name in ((lda, 'lda'), (ldb, 'ldb'), (ldc, 'ldc')))
        trans_a = _arguments.transpose(trans_a, 'trans_a')
        trans_b = _arguments.transpose(trans_b, 'trans_b')
        column_major = _arguments.flag(column_major, 'column_major')
        number = variant(v)

        def stored(rows, cols, transposed):  # the stored matrix's leading dimension
            r, c = (cols, rows) if transposed else (rows, cols)
            return max(1, r if column_major else c)
        return (self._handle(), number, 1 if column_major else 0, int(trans_a), int(trans_b),
                M, N, K, None, stored(M, K, trans_a) if lda is None else lda,
                None, stored(K, N, trans_b) if ldb is None else ldb, None,
                stored(M, N, False) if ldc is None else ldc)

    # -- scratch memory (auto's workspace)
    def workspace_size(self, M: int, N: int, K: int, v: VariantLike = DEFAULT_VARIANT, *,
                       trans_a: Union[bool, str] = False, trans_b: Union[bool, str] = False,
                       column_major: bool = False,
                       lda: Optional[int] = None, ldb: Optional[int] = None,
                       ldc: Optional[int] = None) -> int:
        """The scratch memory, in bytes, a product of these sizes would take with
        no limit on it (gl_sgemm_workspace_size): a buffer (set_workspace) or a
        workspace_limit of at least that many bytes runs the plan auto makes with
        all the scratch it wants; one of fewer, the plan without scratch. 0 for
        every variant but auto. Not affected by the handle's limit or buffer.

        Args:
            M, N, K, v, trans_a, trans_b, column_major, lda, ldb, ldc: as
                sgemm_plan() takes them.
        Returns:
            The bytes, an int >= 0.
        Raises:
            Error, TypeError, ValueError: as sgemm_plan() raises them.
            NotImplementedError: the library is older than 1.2.0.
        """
        arguments = self._plan_arguments(M, N, K, v, trans_a, trans_b, column_major, lda, ldb, ldc)
        out = ctypes.c_int64()
        self._check(_library.optional('gl_sgemm_workspace_size')(*arguments, ctypes.byref(out)),
                    'gl_sgemm_workspace_size')
        return out.value

    @property
    def workspace_limit(self) -> Optional[int]:
        """The most scratch memory auto takes for one product, in bytes, from the
        handle's pool or its buffer (gl_set_workspace_limit); None: no cap (a new
        handle's). A product whose plan needs more runs the plan without scratch:
        slower, never wrong, never an error. Set it to an int >= 0 (0: no scratch
        at all) or None (TypeError for another type, ValueError for a negative
        value or one past int64_t; ValueError once closed; NotImplementedError
        for a library older than 1.2.0)."""
        out = ctypes.c_int64()
        self._check(_library.optional('gl_get_workspace_limit')(self._handle(), ctypes.byref(out)),
                    'gl_get_workspace_limit')
        return None if out.value == _library.WORKSPACE_NO_LIMIT else out.value

    @workspace_limit.setter
    def workspace_limit(self, limit: Optional[int]) -> None:
        value = (_library.WORKSPACE_NO_LIMIT if limit is None
                 else _arguments.integer(limit, 'workspace_limit', (0, 2**63 - 1)))
        self._check(_library.optional('gl_set_workspace_limit')(self._handle(), value),
                    'gl_set_workspace_limit')

    @property
    def workspace(self) -> Optional[Tuple[int, int]]:
        """The caller's buffer auto takes its scratch from (set_workspace), as
        (device address, bytes), or None where the handle uses its pool."""
        address, size = ctypes.c_void_p(), ctypes.c_int64()
        self._check(_library.optional('gl_get_workspace')(self._handle(), ctypes.byref(address),
                                                          ctypes.byref(size)), 'gl_get_workspace')
        return (address.value, size.value) if address.value else None

    def set_workspace(self, address: Optional[int], nbytes: int = 0) -> None:
        """Hands auto a buffer of the caller's for its scratch memory in place of
        the handle's pool (gl_set_workspace), e.g. for CUDA graph capture:
        `nbytes` bytes of device memory of the handle's GPU at `address` (an int,
        such as cupy's `buf.data.ptr` or torch's `buf.data_ptr()`), aligned to 256
        bytes. None (with nbytes 0) returns the handle to its pool; an address
        with nbytes 0 is a buffer that takes no scratch (and never the pool).

        The buffer serves calls on the stream that is the handle's now; calls
        on another stream (a `stream=` argument, or after setting `stream`) take
        the pool instead, so two calls that may run at once never share it. The
        library never frees it: keep the object that owns it alive, and set
        another buffer (or None) before freeing it, until calls that may use it
        have finished on the GPU. workspace_size() says how much a product needs.

        Args:
            address: the buffer's device address, or None.
            nbytes: its size in bytes (0 with None).
        Returns:
            None.
        Raises:
            Error: status INVALID_ARGUMENT for a buffer that is not device memory
                of the handle's GPU, not aligned to 256 bytes, shorter than
                nbytes, or None with nbytes other than 0 (the
                message says which); the handle keeps its buffer.
            TypeError: address or nbytes is not an integer (or None for
                address).
            ValueError: address outside 0 .. 2**64 - 1, nbytes negative or past
                int64_t, or the handle is closed.
            NotImplementedError: the library is older than 1.2.0.
        """
        pointer = None if address is None else _arguments.integer(address, 'address',
                                                                  _arguments.POINTER)
        size = _arguments.integer(nbytes, 'nbytes', (0, 2**63 - 1))
        self._check(_library.optional('gl_set_workspace')(self._handle(), pointer or None, size),
                    'gl_set_workspace')

    # -- tuning
    def tuning_query(self, v: VariantLike, M: int, N: int, K: int) -> Tiles:
        """The tile configuration gl_sgemm_ex would run now, and where it comes from.

        Args:
            v: a tuned or fixed-tile variant (not cublas).
            M, N, K: the product's sizes (M and N are C's): ints or numpy
                integers (not bools).
        Returns:
            Tiles, with origin, table line, architecture and size class filled in.
        Raises:
            Error: status INVALID_ARGUMENT for cublas or sizes out of range.
            TypeError: a size that is not an integer, or as variant() does.
            ValueError: a size past int64_t (the C parameter), as variant()
                does, or the handle is closed.
            NotImplementedError: the library has no tuning interface.
        """
        M, N, K = (_arguments.integer(x, name) for x, name in ((M, 'M'), (N, 'N'), (K, 'K')))
        number = variant(v)
        s = _new_tiles_struct()
        self._check(_library.optional('gl_tuning_query')(self._handle(), number, M, N, K,
                                                         ctypes.byref(s)), 'gl_tuning_query')
        return Tiles._from_struct(s)

    def set_tiles(self, v: VariantLike, tiles: Optional[Tiles]) -> None:
        """Pins a compiled configuration for a tuned variant on this handle.

        Args:
            v: a tuned variant (autotuned, warptile).
            tiles: one of variant_configs(v); None unpins.
        Returns:
            None.
        Raises:
            Error: status TUNING_ERROR if the variant takes no tuning, or the
                tiles are not compiled or do not fit the device.
            TypeError: tiles is not a Tiles or None, a field of another type,
                or as variant() does.
            ValueError: a field the C struct cannot hold (a number past
                int32_t, a text with a NUL or too long for its array), as
                variant() does, or the handle is closed.
            NotImplementedError: the library has no tuning interface.
        """
        if tiles is not None and not isinstance(tiles, Tiles):
            raise TypeError('tiles must be a gemmladder.Tiles or None, got %s' % _arguments.type_name(tiles))
        s = None if tiles is None else ctypes.byref(tiles._to_struct())
        self._check(_library.optional('gl_set_tiles')(self._handle(), variant(v), s), 'gl_set_tiles')


def _copy(operand, device_address, kind, stream):
    """Host <-> packed device copy of one operand, row by stored row."""
    m = operand.matrix
    width, height = operand.inner * 4, operand.outer
    host_pitch, device_pitch = operand.ld * 4, max(operand.inner, 1) * 4
    if kind == _cudart.MEMCPY_HOST_TO_DEVICE:
        _cudart.copy_2d(device_address, device_pitch, m.address, host_pitch, width, height, kind,
                        stream or None)
    else:
        _cudart.copy_2d(m.address, host_pitch, device_address, device_pitch, width, height, kind,
                        stream or None)


def _copy_batch(operand, device_address, kind, stream):
    """Host <-> packed device copy of an operand's `count` matrices, one after
    another: one 2-D copy where the host matrices follow each other at the
    same pitch as their rows, else one a matrix."""
    m = operand.matrix
    width, height = operand.inner * 4, operand.outer
    host_pitch, device_pitch = operand.ld * 4, max(operand.inner, 1) * 4
    if not (width and height and operand.count):
        return  # no elements (and perhaps no buffer)
    if operand.count > 1 and m.batch_stride == operand.outer * operand.ld:
        copies = [(0, height * operand.count)]
    else:
        copies = [(i, height) for i in range(operand.count)]
    for index, rows in copies:
        host, device = m.at(index), device_address + index * height * device_pitch
        if kind == _cudart.MEMCPY_HOST_TO_DEVICE:
            _cudart.copy_2d(device, device_pitch, host, host_pitch, width, rows, kind, stream or None)
        else:
            _cudart.copy_2d(host, host_pitch, device, device_pitch, width, rows, kind, stream or None)


def _check_devices(plan, handle_device=None):
    """The one GPU the arrays live on (None if unknown); ValueError if they
    are on different GPUs, or on another GPU than the handle."""
    if plan.kind != 'device':
        return handle_device
    found = {}
    for operand in plan.operands():
        d = _cudart.pointer_device(operand.matrix.address)
        if d is not None:
            found.setdefault(d, operand.matrix.name)
    if len(found) > 1:
        raise ValueError('the arrays are on different GPUs: %s' % ', '.join(
            '%s on GPU %d' % (name, d) for d, name in sorted(found.items())))
    device = next(iter(found), None)
    if handle_device is not None and device is not None and device != handle_device:
        raise ValueError('%s is on GPU %d but the handle runs on GPU %d'
                         % (found[device], device, handle_device))
    return device


def _allocate_like(plan, device):
    """An empty M x N float32 result of the framework A (else B) comes from;
    numpy for other host arrays."""
    shape = plan.shape
    for operand in (plan.a, plan.b):
        obj = operand.matrix.obj
        framework = _framework(obj)
        if framework == 'torch':
            import torch
            return torch.empty(shape, dtype=torch.float32, device=obj.device)
        if plan.kind == 'host':
            continue
        if framework == 'cupy':
            import cupy
            with cupy.cuda.Device(device):
                return cupy.empty(shape, dtype=cupy.float32)
        if framework == 'numba':
            import numpy
            from numba import cuda
            with cuda.gpus[device]:
                return cuda.device_array(shape, dtype=numpy.float32)
    if plan.kind == 'host':
        import numpy
        return numpy.empty(shape, dtype=numpy.float32)
    raise TypeError('cannot allocate the result like %s (%s): pass out= (a %s float32 CUDA array)'
                    % (plan.a.matrix.name, type(plan.a.matrix.obj).__name__,
                       ' x '.join(str(n) for n in shape)))


# ---- module-level calls: one default handle per thread and device ---------------------
_local = threading.local()
_default_handles = []
_default_lock = threading.Lock()


def default_handle(device: Optional[int] = None) -> Handle:
    """The handle the module-level gemm() and sgemm() use in this thread.

    Args:
        device: the CUDA device ordinal (an int or a numpy integer, not a
            bool); None: the current device.
    Returns:
        This thread's Handle for the device, created on first use and
        closed at exit.
    Raises:
        Error: status NO_DEVICE where there is no usable GPU; CUDA_ERROR for
            an ordinal the CUDA runtime has no device for.
        TypeError: device is not an integer or None.
        ValueError: device is negative or past a C int.
    """
    device = _device(device)
    if device is None:
        try:
            device = _cudart.get_device()
        except Error:
            device = None  # creating the handle below reports what is wrong
    handles = getattr(_local, 'handles', None)
    if handles is None:
        handles = _local.handles = {}
    handle = handles.get(device)
    if handle is None or handle.closed:
        handle = handles[device] = Handle(device)
        with _default_lock:
            _default_handles.append(handle)
    return handle


@atexit.register
def _close_default_handles():
    # Before the CUDA runtime tears itself down at process exit.
    with _default_lock:
        for handle in _default_handles:
            handle.close()
        _default_handles.clear()


@_documented(_GEMM_DOC, _ON_DEFAULT_HANDLE)
def gemm(A: Array, B: Array, *, alpha: float = 1.0, beta: float = 0.0,
         trans_a: Union[bool, str] = False, trans_b: Union[bool, str] = False,
         out: Optional[Array] = None, variant: VariantLike = DEFAULT_VARIANT,
         stream: StreamLike = None) -> Array:
    stream = _stream_value(stream)
    plan = _matrix.plan(A, B, out, alpha, beta, trans_a, trans_b, stream)
    number = _to_variant(variant)
    handle = default_handle(_check_devices(plan))
    return handle._run(plan, number, stream)


@_documented(_SGEMM_DOC, _ON_DEFAULT_HANDLE)
def sgemm(A: Array, B: Array, variant: VariantLike = DEFAULT_VARIANT,
          out: Optional[Array] = None, stream: StreamLike = None) -> Array:
    return gemm(A, B, out=out, variant=variant, stream=stream)


@_documented(_GEMM_BATCHED_DOC, _ON_DEFAULT_HANDLE)
def gemm_batched(As: Sequence[Array], Bs: Sequence[Array], *, alpha: float = 1.0,
                 beta: float = 0.0, trans_a: Union[bool, str] = False,
                 trans_b: Union[bool, str] = False, out: Optional[Sequence[Array]] = None,
                 variant: VariantLike = DEFAULT_VARIANT, stream: StreamLike = None) -> List[Array]:
    stream = _stream_value(stream)
    plans = _matrix.pointer_plans(As, Bs, out, alpha, beta, trans_a, trans_b, stream)
    devices = {_check_devices(plan) for plan in plans} - {None}
    if len(devices) > 1:
        raise ValueError('the products are on different GPUs: %s' % sorted(devices))
    handle = default_handle(next(iter(devices), None))
    return handle.gemm_batched(As, Bs, alpha=alpha, beta=beta, trans_a=trans_a, trans_b=trans_b,
                               out=out, variant=variant, stream=stream)


def matmul(a: Array, b: Array, *, variant: VariantLike = DEFAULT_VARIANT,
           out: Optional[Array] = None) -> Array:
    """a @ b in float32 on this thread's default handle, as numpy.matmul and
    torch.matmul compute it for 2-D and 3-D float32 arrays, so that it can
    stand in for them: (M, K) @ (K, N) is (M, N); a 3-D batch (n, M, K) @
    (n, K, N) is (n, M, N), a 2-D operand or a batch of 1 serving every
    matrix of the other (broadcasting: (n, M, K) @ (K, N) is (n, M, N)).
    One call to the library (gl_sgemm_ex, or gl_sgemm_strided_batched for
    a batch), with gemm()'s handling of arrays: host arrays copied to the
    GPU and back, CUDA arrays used in place, the result of the inputs' kind.

    Args:
        a, b: float32 arrays, 2-D or 3-D (batch, rows, cols): numpy arrays,
            CUDA arrays (CuPy, PyTorch, Numba) or DLPack tensors, both in
            host memory or both on one GPU.
        variant: a name ('warptile'), an id or a Variant (default auto).
        out: the result array, of the result's shape exactly; None: a new
            one like a's (numpy for host arrays, a tensor for PyTorch's).
    Returns:
        out, or the new result array.
    Raises:
        TypeError: a or b (or out) of another dtype than float32, not an
            array, or host and CUDA arrays mixed.
        ValueError: a 1-D or 4-D operand (numpy's vector and stacked cases
            are not taken: reshape a vector to (1, n) or (n, 1)), a's
            columns not b's rows, batch sizes that do not broadcast, out of
            another shape or overlapping a or b, an unknown variant.
        Error: the library or the CUDA runtime failed, including NO_DEVICE
            where there is no usable GPU.
    """
    plan = _matrix.plan(a, b, out, 1.0, 0.0, False, False, None, matmul=True)
    number = _to_variant(variant)
    handle = default_handle(_check_devices(plan))
    return handle._run(plan, number, None)
