"""gemmladder: the FP32 GEMM optimisation ladder (libgemmladder) from Python.

    import numpy as np, gemmladder
    A = np.random.rand(512, 256).astype(np.float32)
    B = np.random.rand(256, 128).astype(np.float32)
    C = gemmladder.sgemm(A, B, variant='warptile')           # numpy in, numpy out
    C = gemmladder.gemm(A, B.T, trans_b=True, alpha=2.0)
    D = gemmladder.matmul(np.stack([A, A]), B)               # numpy.matmul's shapes: 2 x 512 x 128
    Cs = gemmladder.gemm_batched([A, A], [B, B])             # lists of matrices: pointer arrays

    with gemmladder.Handle() as h:                           # on the current GPU
        C = h.sgemm(cupy_a, cupy_b, variant=gemmladder.Variant.VECTORIZED)

Host arrays (numpy, or DLPack tensors in host memory) are copied to the GPU
and back; CUDA arrays (__cuda_array_interface__: CuPy, PyTorch, Numba; or
DLPack tensors on the GPU) are used in place, and the result is an array of
the same kind. Failures of the library raise gemmladder.Error; arguments the
call cannot express raise TypeError or ValueError before anything reaches the
GPU. Only ctypes and the standard library are needed; numpy, CuPy and
PyTorch are imported only when given. The library is loaded on first use:
see _library.py for where it is looked for.
"""
from ._library import Error, LibraryNotFoundError, Status, ABI_VERSION
from ._library import _location
from ._api import (DEFAULT_VARIANT, Handle, Path, Precision, SgemmPlan, TileField, Tiles,
                   TilesOrigin, Variant, VariantInfo, default_handle, gemm, gemm_batched,
                   library_path, library_version, matmul, sgemm, tuning_check, tuning_load,
                   tuning_supported, variant, variant_configs, variant_info, variant_name,
                   variants)

# The version this package was built with (the header's GL_VERSION_*);
# library_version() gives the loaded library's.
__version__ = _location.VERSION if _location else '0+unconfigured'

__all__ = [
    'ABI_VERSION', 'DEFAULT_VARIANT', 'Error', 'Handle', 'LibraryNotFoundError', 'Path',
    'Precision', 'SgemmPlan', 'Status', 'TileField', 'Tiles',
    'TilesOrigin', 'Variant', 'VariantInfo', 'default_handle', 'gemm', 'gemm_batched',
    'library_path',
    'library_version', 'matmul', 'sgemm', 'tuning_check', 'tuning_load', 'tuning_supported', 'variant',
    'variant_configs', 'variant_info', 'variant_name', 'variants',
]
