/*
 * api_stubs.c - stand-ins for what nvcc compiles (the kernel launchers, the
 * kernels' preparation, the beta scaling), so that the library's host C
 * files can be built into the API fuzzer with clang alone. The registry and
 * the dispatcher refer to them, but nothing reaches them without a handle,
 * and the fuzzer never has one: each fails, so a call that did get here
 * would report an error rather than succeed.
 */
#include "kernels/rung.h"

#define STUB_LAUNCHER(name)                                                         \
    int name(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)        \
    {                                                                               \
        (void)p, (void)t, (void)x;                                                  \
        return (int)cudaErrorNotSupported;                                          \
    }

STUB_LAUNCHER(gl_launch_naive)
STUB_LAUNCHER(gl_launch_coalesced)
STUB_LAUNCHER(gl_launch_shared)
STUB_LAUNCHER(gl_launch_blocktile_1d)
STUB_LAUNCHER(gl_launch_blocktile_2d)
STUB_LAUNCHER(gl_launch_vectorized)
STUB_LAUNCHER(gl_launch_autotuned)
STUB_LAUNCHER(gl_launch_warptile)

cudaError_t gl_prepare_vectorized(void) { return cudaErrorNotSupported; }
cudaError_t gl_prepare_warptile(void) { return cudaErrorNotSupported; }

cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream)
{
    (void)m, (void)n, (void)beta, (void)c, (void)ldc, (void)stream;
    return cudaErrorNotSupported;
}
