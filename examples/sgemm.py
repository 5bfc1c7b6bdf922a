#!/usr/bin/env python3
"""sgemm.py - libgemmladder from Python: multiply two random N x N numpy
matrices with every rung this GPU can run and compare each result with
cuBLAS's.

    PYTHONPATH=build/python python3 examples/sgemm.py [N]     (default N = 512)

Exits 0 when every rung agrees with cuBLAS to 1e-5 (relative, Frobenius
norm; 1e-3 for TF32 rungs, whose operands keep 10 bits of mantissa), 1
otherwise, 77 where it cannot run (no CUDA device, or no numpy).
"""
import sys

import gemmladder

try:
    import numpy as np
except ImportError:
    print('this example needs numpy', file=sys.stderr)
    sys.exit(77)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    rng = np.random.default_rng(1)
    A = rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (n, n)).astype(np.float32)
    try:
        handle = gemmladder.Handle()  # on the current CUDA device
    except gemmladder.Error as e:
        if e.status != gemmladder.Status.NO_DEVICE:
            raise
        print(e, file=sys.stderr)
        return 77

    with handle:
        # numpy in, numpy out: each call copies A and B to the GPU and C back.
        reference = handle.sgemm(A, B, variant='cublas')
        print('C = A @ B, %d x %d, gemmladder %s (%s)'
              % (n, n, gemmladder.library_version(), gemmladder.library_path()))
        failed = False
        for variant in gemmladder.variants():
            name = gemmladder.variant_name(variant)
            if not handle.available(variant):
                print('  %-13s not available here' % name)
                continue
            C = handle.sgemm(A, B, variant=variant)
            difference = np.linalg.norm(C - reference) / np.linalg.norm(reference)
            tf32 = gemmladder.variant_info(variant).precision == gemmladder.Precision.TF32
            failed |= not difference <= (1e-3 if tf32 else 1e-5)
            print('  %-13s ||C - C_cublas|| / ||C_cublas|| = %.2e' % (name, difference))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
