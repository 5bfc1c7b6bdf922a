/*
 * Rung 5, blocktile_2d: rung 4 with each thread computing a TM x TN patch of
 * C instead of a TM x 1 column.
 *
 * For each step i along the K slice, a thread loads TM values of the A slice
 * and TN values of the B slice into registers, then does all TM * TN
 * multiply-adds between them: TM + TN shared loads for TM * TN multiply-adds
 * (12 for 32 with the 8 x 4 patch it runs, 16 for 64 with 8 x 8), against
 * TM + 1 for TM in rung 4. It runs 64 x 64 block tiles with a 16-deep slice
 * (configs.h says why not the worklog's 128 x 128). What remains: the copies are
 * one float at a time, and the A values a thread needs sit in different rows
 * of As; rung 6 fixes both.
 */
#include "ladder.cuh"

namespace {

/* C is m x n; block (x, y) covers columns [x*BN, +BN) and rows [y*BM, +BM). */
template <int BM, int BN, int BK, int TM, int TN>
__global__ __launch_bounds__(BM * BN / (TM * TN)) void blocktile_2d_kernel(const gl_problem p)
{
    constexpr int THREADS = BM * BN / (TM * TN);
    static_assert(BM % TM == 0 && BN % TN == 0, "the threads' patches must tile the block");
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = threadIdx.x / (BN / TN) * TM; /* this thread's patch: rows tr.. */
    const int tc = threadIdx.x % (BN / TN) * TN; /* ...and columns tc.. of the tile */
    gl_window_copy<BM, BK, THREADS> copy_a(gl_view_a(p), row0, 0, p.m, p.k);
    gl_window_copy<BK, BN, THREADS> copy_b(gl_view_b(p), 0, col0, p.k, p.n);
    const bool active = row0 + tr < p.m && col0 + tc < p.n; /* see rung 4 */

    float acc[TM][TN] = {};
    float a[TM], b[TN];
    for (int slice = 0, slices = (p.k - 1) / BK + 1; slice < slices; ++slice) {
        copy_a.copy(As);
        copy_b.copy(Bs);
        copy_a.move_right(BK);
        copy_b.move_down(BK);
        __syncthreads();

        if (active) {
#pragma unroll
            for (int i = 0; i < BK; ++i) {
#pragma unroll
                for (int t = 0; t < TM; ++t)
                    a[t] = As[tr + t][i];
#pragma unroll
                for (int u = 0; u < TN; ++u)
                    b[u] = Bs[i][tc + u];
#pragma unroll
                for (int t = 0; t < TM; ++t)
#pragma unroll
                    for (int u = 0; u < TN; ++u)
                        acc[t][u] += a[t] * b[u];
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int t = 0; t < TM; ++t) {
        const int row = row0 + tr + t;
#pragma unroll
        for (int u = 0; u < TN; ++u) {
            const int col = col0 + tc + u;
            if (row < p.m && col < p.n)
                gl_store_c(&p.c[(int64_t)row * p.ldc + col], acc[t][u], p.alpha, p.beta);
        }
    }
}

template <int BM, int BN, int BK, int TM, int TN>
int launch(const gl_problem *p, const gl_exec *x)
{
    blocktile_2d_kernel<BM, BN, BK, TM, TN>
        <<<gl_tile_grid(p, BM, BN), BM * BN / (TM * TN), 0, x->stream>>>(*p);
    return cudaGetLastError();
}

#define GL_COMPILED(BM, BN, BK, TM, TN) \
    {{BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN), 0}, launch<BM, BN, BK, TM, TN>, nullptr},
const gl_compiled_config configs[] = {GL_BLOCKTILE_2D_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

} // namespace

extern "C" int gl_launch_blocktile_2d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    return gl_launch_config(configs, p, t, x);
}
