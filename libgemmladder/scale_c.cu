/*
 * C = beta * C, the whole product when K == 0 or alpha == 0 (BLAS semantics:
 * A and B are not read then). Not a rung; the dispatcher calls it for every
 * variant. beta == 0 writes zeros without reading C.
 */
#include "kernels/launch.h"

namespace {

constexpr int THREADS = 256;

/* One block per row chunk; the grid strides over rows, threads over columns.
 * Both counters are 64-bit: a 32-bit one stepping by THREADS would pass
 * INT_MAX and wrap when n is within THREADS of it, and never end. With a
 * pointer array (cs), the grid's z is the product, whose C is cs[z] (NULL:
 * skipped). */
__global__ __launch_bounds__(THREADS) void scale_c_kernel(int m, int n, float beta, float *c,
                                                          float *const *cs, int64_t ldc)
{
    if (cs && !(c = cs[blockIdx.z]))
        return;
    for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
        float *row = c + i * ldc;
        for (int64_t j = threadIdx.x; j < n; j += THREADS)
            row[j] = beta == 0.0f ? 0.0f : beta * row[j];
    }
}

} // namespace

extern "C" cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                                         cudaStream_t stream)
{
    const unsigned blocks = m < 65535 ? (unsigned)m : 65535u;
    scale_c_kernel<<<blocks, THREADS, 0, stream>>>(m, n, beta, c, nullptr, ldc);
    return cudaGetLastError();
}

extern "C" cudaError_t gl_launch_scale_c_pointers(int m, int n, float beta, float *const *c,
                                                  int64_t count, int64_t ldc, cudaStream_t stream)
{
    const unsigned blocks = m < 65535 ? (unsigned)m : 65535u;
    for (int64_t first = 0; first < count; first += GL_GRID_YZ_MAX) { /* products a launch */
        const dim3 grid(blocks, 1, gl_grid_yz(count - first));
        scale_c_kernel<<<grid, THREADS, 0, stream>>>(m, n, beta, nullptr, c + first, ldc);
        if (const cudaError_t err = cudaGetLastError())
            return err;
    }
    return cudaSuccess;
}
