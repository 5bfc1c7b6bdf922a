/*
 * pack.cu - the engine's operand copies (engine.h, "packing"): an operand
 * is copied into scratch memory keeping its layout, its rows starting on 16
 * bytes, and both its extents padded with zeros to whole tiles, so the
 * kernel's copies need no tests and the end of K no special case. The zeros
 * add nothing to any result.
 */
#include "engine.h"
#include "kernels/ladder.cuh"
#include "pack.h"

namespace {

constexpr int THREADS = 256;

/* dst (rows x cols, ld4 float4s apart) = src (src_rows x src_cols, ld apart)
 * padded with zeros, a float4 of dst per thread and step: the threads run
 * over dst's float4s in order, so a narrow operand (4096 x 128) keeps every
 * thread busy as a wide one does. cols is a multiple of 4. */
__global__ __launch_bounds__(THREADS) void pack_kernel(const float *src, int64_t ld, int src_rows,
                                                       int src_cols, int rows, int cols,
                                                       float4 *dst, int64_t ld4)
{
    const int64_t cols4 = cols / 4, count = (int64_t)rows * cols4;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * THREADS) {
        const int64_t r = i / cols4, c = i % cols4 * 4;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (r < src_rows) {
            const float *s = src + r * ld + c;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (c + j < src_cols)
                    v[j] = s[j];
        }
        dst[r * ld4 + c / 4] = make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* One operand into its copy; *ptr and *ld then name the copy. */
cudaError_t copy_operand(const gl_engine_copy &copy, bool k_rows, int x, int k, void *scratch,
                         const float **ptr, int64_t *ld, cudaStream_t stream)
{
    float4 *dst = reinterpret_cast<float4 *>(static_cast<char *>(scratch) + copy.offset);
    const int src_rows = k_rows ? k : x, src_cols = k_rows ? x : k;
    const int64_t blocks = ((int64_t)copy.rows * (copy.cols / 4) - 1) / THREADS + 1;
    const unsigned grid = blocks < (1 << 20) ? (unsigned)blocks : 1u << 20; /* then a stride */
    pack_kernel<<<grid, THREADS, 0, stream>>>(*ptr, *ld, src_rows, src_cols, copy.rows, copy.cols,
                                              dst, copy.cols / 4);
    *ptr = reinterpret_cast<const float *>(dst);
    *ld = copy.cols;
    return cudaGetLastError();
}

} // namespace

cudaError_t gl_engine_copy_operands(gl_problem *p, const gl_engine_plan *plan, void *scratch,
                                    cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    if (plan->a.made)
        err = copy_operand(plan->a, p->trans_a, p->m, p->k, scratch, &p->a, &p->lda, stream);
    if (!err && plan->b.made)
        err = copy_operand(plan->b, !p->trans_b, p->n, p->k, scratch, &p->b, &p->ldb, stream);
    p->k = plan->k;
    return err;
}
