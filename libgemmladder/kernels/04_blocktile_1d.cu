/*
 * Rung 4, blocktile_1d: rung 3 with each thread computing TM results, a
 * column of TM neighbouring elements of C, instead of one.
 *
 * In rung 3 every multiply-add needed two loads from shared memory. Here a
 * thread keeps one value of the B slice in a register and uses it for TM
 * multiply-adds against TM values of the A slice: about 1 + 1/TM shared
 * loads per multiply-add instead of 2. The block tile grows to BM x BN with
 * BM * BN / TM threads, so each value copied from global memory is also
 * reused more. What remains: the A values are still re-read from shared
 * memory for every multiply-add; rung 5 keeps them in registers too.
 */
#include "ladder.cuh"

namespace {

/* C is m x n; block (x, y) covers columns [x*BN, +BN) and rows [y*BM, +BM). */
template <int BM, int BN, int BK, int TM>
__global__ __launch_bounds__(BM * BN / TM) void blocktile_1d_kernel(const gl_problem p)
{
    constexpr int THREADS = BM * BN / TM;
    static_assert(BM % TM == 0, "each thread's TM rows must tile the block's BM rows");
    __shared__ float As[BM][BK]; /* As[r][i] = op(A)(row0 + r, k0 + i) */
    __shared__ float Bs[BK][BN]; /* Bs[i][c] = op(B)(k0 + i, col0 + c) */

    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tc = threadIdx.x % BN;      /* this thread's column of the tile... */
    const int tr = threadIdx.x / BN * TM; /* ...and its first of TM rows */
    gl_window_copy<BM, BK, THREADS> copy_a(gl_view_a(p), row0, 0, p.m, p.k);
    gl_window_copy<BK, BN, THREADS> copy_b(gl_view_b(p), 0, col0, p.k, p.n);
    /* Threads whose results all fall outside C (edge tiles) skip the math. */
    const bool active = row0 + tr < p.m && col0 + tc < p.n;

    float acc[TM] = {};
    for (int slice = 0, slices = (p.k - 1) / BK + 1; slice < slices; ++slice) {
        copy_a.copy(As);
        copy_b.copy(Bs);
        copy_a.move_right(BK);
        copy_b.move_down(BK);
        __syncthreads();

        if (active) {
            for (int i = 0; i < BK; ++i) {
                const float b = Bs[i][tc]; /* one load, TM uses */
#pragma unroll
                for (int t = 0; t < TM; ++t)
                    acc[t] += As[tr + t][i] * b;
            }
        }
        __syncthreads();
    }

    const int col = col0 + tc;
#pragma unroll
    for (int t = 0; t < TM; ++t) {
        const int row = row0 + tr + t;
        if (row < p.m && col < p.n)
            gl_store_c(&p.c[(int64_t)row * p.ldc + col], acc[t], p.alpha, p.beta);
    }
}

template <int BM, int BN, int BK, int TM, int TN>
int launch(const gl_problem *p, const gl_exec *x)
{
    static_assert(TN == 1, "one column per thread: that is what makes this rung 1D");
    blocktile_1d_kernel<BM, BN, BK, TM>
        <<<gl_tile_grid(p, BM, BN), BM * BN / TM, 0, x->stream>>>(*p);
    return cudaGetLastError();
}

#define GL_COMPILED(BM, BN, BK, TM, TN) \
    {{BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN), 0}, launch<BM, BN, BK, TM, TN>, nullptr},
const gl_compiled_config configs[] = {GL_BLOCKTILE_1D_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

} // namespace

extern "C" int gl_launch_blocktile_1d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    return gl_launch_config(configs, p, t, x);
}
