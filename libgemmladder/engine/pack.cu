/*
 * pack.cu - the engine's operand copies (engine.h, "packing"): an operand
 * is copied into scratch memory keeping its layout, its rows starting on 16
 * bytes, and both its extents padded with zeros to whole tiles, so the
 * kernel's copies need no tests and the end of K no special case. The zeros
 * add nothing to any result. Or an operand whose rows run along K is
 * copied into its transpose, which the kernels read faster (plan.c,
 * transpose_operands).
 */
#include "engine.h"
#include "kernels/ladder.cuh"
#include "pack.h"

namespace {

constexpr int THREADS = 256;

/* One operand's copy: dst (rows x cols, ld4 float4s apart) = src (src_rows
 * x src_cols, ld apart) padded with zeros, by `blocks` blocks. */
struct pack_job {
    const float *src;
    int64_t ld;
    int src_rows, src_cols, rows, cols; /* cols: a multiple of 4 */
    float4 *dst;
    int64_t ld4, blocks; /* blocks 0: no copy */
};

/* Both operands' copies in one launch: the first a.blocks blocks copy A,
 * the others B. A job's threads run over its dst's float4s in order, one
 * each and step, so a narrow operand (4096 x 128) keeps every thread busy
 * as a wide one does. */
__global__ __launch_bounds__(THREADS) void pack_kernel(const pack_job a, const pack_job b)
{
    gl_wait_for_previous_grid(); /* launched behind the kernel before it (engine.h) */
    const bool first = blockIdx.x < a.blocks;
    const pack_job j = first ? a : b;
    const int64_t block = first ? blockIdx.x : blockIdx.x - a.blocks;
    const int64_t cols4 = j.cols / 4, count = (int64_t)j.rows * cols4;
    for (int64_t i = block * THREADS + threadIdx.x; i < count; i += j.blocks * THREADS) {
        const int64_t r = i / cols4, c = i % cols4 * 4;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (r < j.src_rows) {
            const float *s = j.src + r * j.ld + c;
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (c + e < j.src_cols)
                    v[e] = s[e];
        }
        j.dst[r * j.ld4 + c / 4] = make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* dst (k rows of ld floats) = the transpose of a (m rows of k, lda apart),
 * the columns from m to ld zeros; a block moves a 32 x 32 tile through
 * shared memory, so that it reads A's rows and writes dst's rows whole. */
constexpr int TILE = 32, TILE_ROWS = 8;
__global__ __launch_bounds__(TILE * TILE_ROWS) void transpose_kernel(const float *a, int64_t lda,
                                                                     int m, int k, float *dst,
                                                                     int64_t ld)
{
    gl_wait_for_previous_grid();
    __shared__ float tile[TILE][TILE + 1]; /* + 1: a column's 32 floats on 32 banks */
    const int64_t k0 = (int64_t)blockIdx.x * TILE, m0 = (int64_t)blockIdx.y * TILE;
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
#pragma unroll
    for (int i = ty; i < TILE; i += TILE_ROWS) /* A's row m0 + i, columns k0 + tx */
        tile[i][tx] = m0 + i < m && k0 + tx < k ? a[(m0 + i) * lda + k0 + tx] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = ty; i < TILE; i += TILE_ROWS) /* dst's row k0 + i, columns m0 + tx */
        if (k0 + i < k && m0 + tx < ld)
            dst[(k0 + i) * ld + m0 + tx] = tile[tx][i];
}

/* The job that copies one operand; *ptr and *ld then name the copy. */
pack_job copy_job(const gl_engine_copy &copy, bool k_rows, int x, int k, void *scratch,
                  const float **ptr, int64_t *ld)
{
    float4 *dst = reinterpret_cast<float4 *>(static_cast<char *>(scratch) + copy.offset);
    const int64_t blocks = ((int64_t)copy.rows * (copy.cols / 4) - 1) / THREADS + 1;
    const pack_job j = {*ptr, *ld, k_rows ? k : x, k_rows ? x : k, copy.rows, copy.cols, dst,
                        copy.cols / 4, blocks < (1 << 20) ? blocks : 1 << 20 /* then a stride */};
    *ptr = reinterpret_cast<const float *>(dst);
    *ld = copy.cols;
    return j;
}

/* An operand of `rows` rows of k floats at *ptr, *ld apart (A as stored,
 * or B transposed) into its transpose in scratch (plan.c,
 * transpose_operands): k rows of copy.cols floats, the columns past `rows`
 * zeros; *ptr and *ld then name the copy. */
cudaError_t transposed_copy(const gl_engine_copy &copy, int rows, int k, void *scratch,
                            const float **ptr, int64_t *ld, const gl_exec *x)
{
    float *dst = reinterpret_cast<float *>(static_cast<char *>(scratch) + copy.offset);
    const dim3 grid((unsigned)((k - 1) / TILE + 1), (unsigned)((copy.cols - 1) / TILE + 1));
    const float *src = *ptr;
    const int64_t src_ld = *ld;
    *ptr = dst, *ld = copy.cols;
    return gl_launch_dependent(transpose_kernel, grid, TILE * TILE_ROWS, 0, x, src, src_ld, rows,
                               k, dst, (int64_t)copy.cols);
}

} // namespace

cudaError_t gl_engine_copy_operands(gl_problem *p, const gl_engine_plan *plan, void *scratch,
                                    const gl_exec *x)
{
    if (plan->a.transposed || plan->b.transposed) { /* into their transposes alone */
        if (plan->a.transposed) {
            if (const cudaError_t err = transposed_copy(plan->a, p->m, p->k, scratch, &p->a,
                                                        &p->lda, x))
                return err;
            p->trans_a = true;
        }
        if (plan->b.transposed) {
            if (const cudaError_t err = transposed_copy(plan->b, p->n, p->k, scratch, &p->b,
                                                        &p->ldb, x))
                return err;
            p->trans_b = false;
        }
        return cudaSuccess;
    }
    pack_job a = {}, b = {};
    if (plan->a.made)
        a = copy_job(plan->a, p->trans_a, p->m, p->k, scratch, &p->a, &p->lda);
    if (plan->b.made)
        b = copy_job(plan->b, !p->trans_b, p->n, p->k, scratch, &p->b, &p->ldb);
    p->k = plan->k;
    if (a.blocks + b.blocks == 0)
        return cudaSuccess;
    return gl_launch_dependent(pack_kernel, dim3((unsigned)(a.blocks + b.blocks)), THREADS, 0, x,
                               a, b);
}
