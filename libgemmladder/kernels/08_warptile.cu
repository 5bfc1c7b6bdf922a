/*
 * Rung 8, warptile: rung 7 with a level of tiling for the warp between the
 * block and the thread, and the next K slice copied while this one is used.
 *
 * Block -> warp -> thread. The block's BM x BN tile of C is cut into one
 * WM x WN tile per warp; a warp covers its tile as WMITER x WNITER sub-tiles,
 * and in each sub-tile its 32 lanes own neighbouring TM x TN patches. So a
 * thread's results are WMITER x WNITER patches spread across the warp tile,
 * and at each step along K the 32 lanes read a few whole float4 runs of the
 * shared slices (which the banks serve in one pass, or broadcast) instead of
 * rung 6's strided reads. Each thread loads WMITER * TM + WNITER * TN values
 * into registers and does all their products: a long run of FFMAs that reads
 * only registers.
 *
 * The shared slices are double-buffered: while the warps compute on slice s,
 * every thread's loads of slice s + 1 are already on their way from global
 * memory (gl_slice_loader::fetch), and they are stored to the other buffer
 * only after the compute, so one barrier per slice suffices.
 *
 * As in rung 6, the launcher runs the kernel compiled for aligned operands
 * or the one compiled for any alignment (gl_copy_path in rung.h), and every
 * slice but the last is copied without edge tests (gl_unguarded_slices).
 * Two more kernels copy with no tests at all: one for whole tiles
 * (GL_COPY_INTERIOR), and one for aligned operands whose extents are
 * multiples of 4 (GL_COPY_SHIFTED), where a block at C's far edge computes
 * the tile that ends at the edge, overlapping its neighbour's, and stores
 * only its own part, and where the first K slice holds the ragged part of K.
 * The warps' test of whether they lie inside C also keeps the compiler from
 * moving the next slice's loads down next to their use, after most of the
 * FFMAs, where their latency would no longer be hidden.
 */
#include "configs.h"
#include "rung.h"

namespace {

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>
struct shape {
    static constexpr int WMITER = WM * WN / (32 * TM * TN * WNITER);
    static constexpr int REGISTERS = GL_REGISTER_ESTIMATE(
        WMITER * TM * WNITER * TN, WMITER * TM + WNITER * TN, (BM + BN) * BK / (4 * THREADS));
};

/* C is m x n; block (x, y) covers columns [x*BN, +BN) and rows [y*BM, +BM).
 * PATH: how the operands are copied (gl_copy_path in rung.h). */
template <gl_copy_path PATH, int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN,
          int THREADS, class S = shape<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>>
__global__ __launch_bounds__(THREADS, gl_min_blocks(THREADS, S::REGISTERS))
void warptile_kernel(const gl_problem p)
{
    constexpr int WMITER = S::WMITER;
    constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER; /* one sub-tile */
    static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024,
                  "whole warps, 64 to 1024 threads");
    static_assert(BM % WM == 0 && BN % WN == 0 && (BM / WM) * (BN / WN) == THREADS / 32,
                  "the warp tiles must cover the block tile exactly, one per warp");
    static_assert(WMITER >= 1 && WM % WMITER == 0 && WN % WNITER == 0 &&
                      WMITER * WNITER * 32 * TM * TN == WM * WN,
                  "a warp tile must split into WMITER x WNITER sub-tiles");
    static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                  "a sub-tile must be exactly the 32 lanes' TM x TN patches");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are read and written 4 floats at a time");
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD;
    constexpr int STAGE = BK * (SA + SB); /* floats per buffer: As then Bs */
    extern __shared__ float4 smem[];
    float *const buffers = reinterpret_cast<float *>(smem);

    /* The block stores C's rows [row0, +BM) and columns [col0, +BN) that
     * exist; it computes the window starting at (wr0, wc0), the same but in
     * GL_COPY_SHIFTED at C's far edges (gl_window_start). */
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wr0 = gl_window_start<PATH>(row0, p.m, BM);
    const int wc0 = gl_window_start<PATH>(col0, p.n, BN);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int lr = lane / (WSUBN / TN) * TM, lc = lane % (WSUBN / TN) * TN; /* patch in a sub-tile */
    auto load_a = gl_loader_a<BK, BM, THREADS, PATH>(p, wr0);
    auto load_b = gl_loader_b<BK, BN, THREADS, PATH>(p, wc0);

    /* Warps with nothing to store skip the math. */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        (PATH != GL_COPY_SHIFTED || (wr0 + wr + WM > row0 && wc0 + wc + WN > col0));
    float acc[WMITER * TM][WNITER * TN] = {};
    float a[WMITER * TM], b[WNITER * TN];

    const int slices = (p.k - 1) / BK + 1;
    const int unguarded = gl_unguarded_slices<PATH>(p, wr0, wc0, BM, BN, BK);
    const auto fetch = [&](int s) { /* slice s into registers, then on to s + 1 */
        gl_fetch_slice<BK, PATH>(load_a, load_b, p, wr0, wc0, s, unguarded);
        gl_advance_slice<BK, PATH>(load_a, load_b, p, s);
    };
    fetch(0);
    load_a.stash(buffers);
    load_b.stash(buffers + BK * SA);
    __syncthreads();

    for (int s = 0; s < slices; ++s) {
        const float *As = buffers + (s & 1) * STAGE, *Bs = As + BK * SA;
        const bool more = s + 1 < slices;
        if (more) /* slice s + 1 travels from global memory during the compute */
            fetch(s + 1);

        if (active) {
#pragma unroll
            for (int i = 0; i < BK; ++i) {
#pragma unroll
                for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                    for (int t = 0; t < TM; t += 4)
                        *reinterpret_cast<float4 *>(&a[wm * TM + t]) =
                            *reinterpret_cast<const float4 *>(&As[i * SA + wr + wm * WSUBM + lr + t]);
#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                    for (int u = 0; u < TN; u += 4)
                        *reinterpret_cast<float4 *>(&b[wn * TN + u]) =
                            *reinterpret_cast<const float4 *>(&Bs[i * SB + wc + wn * WSUBN + lc + u]);
#pragma unroll
                for (int t = 0; t < WMITER * TM; ++t)
#pragma unroll
                    for (int u = 0; u < WNITER * TN; ++u)
                        acc[t][u] += a[t] * b[u];
            }
        }

        if (more) { /* into the other buffer, which nobody reads during slice s */
            float *next = buffers + ((s + 1) & 1) * STAGE;
            load_a.stash(next);
            load_b.stash(next + BK * SA);
        }
        __syncthreads();
    }

    const bool vec = gl_vec4_ok(p.c, p.ldc);
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int t = 0; t < TM; ++t)
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int u = 0; u < TN; u += 4) {
                    const float *r = &acc[wm * TM + t][wn * TN + u];
                    const int row = wr0 + wr + wm * WSUBM + lr + t;
                    const int col = wc0 + wc + wn * WSUBN + lc + u;
                    if (PATH != GL_COPY_SHIFTED || (row >= row0 && col >= col0)) /* its own */
                        gl_store_c4(p, row, col, make_float4(r[0], r[1], r[2], r[3]), vec);
                }
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>
constexpr size_t smem_bytes()
{
    return GL_WARPTILE_SMEM(BM, BN, BK);
}

#define GL_WARPTILE_ARGS BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS
#define GL_WARPTILE_TEMPLATE \
    template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>

GL_WARPTILE_TEMPLATE auto kernel_for(gl_copy_path path)
{
    return path == GL_COPY_INTERIOR ? warptile_kernel<GL_COPY_INTERIOR, GL_WARPTILE_ARGS>
           : path == GL_COPY_SHIFTED ? warptile_kernel<GL_COPY_SHIFTED, GL_WARPTILE_ARGS>
           : path == GL_COPY_ALIGNED ? warptile_kernel<GL_COPY_ALIGNED, GL_WARPTILE_ARGS>
                                     : warptile_kernel<GL_COPY_ANY, GL_WARPTILE_ARGS>;
}

GL_WARPTILE_TEMPLATE int launch(const gl_problem *p, cudaStream_t stream)
{
    kernel_for<GL_WARPTILE_ARGS>(gl_copy_path_for(p, BM, BN, BK))
        <<<gl_tile_grid(p, BM, BN), THREADS, smem_bytes<GL_WARPTILE_ARGS>(), stream>>>(*p);
    return cudaGetLastError();
}

GL_WARPTILE_TEMPLATE cudaError_t prepare()
{
    for (gl_copy_path path : {GL_COPY_INTERIOR, GL_COPY_SHIFTED, GL_COPY_ALIGNED, GL_COPY_ANY})
        if (const cudaError_t err = gl_allow_shared_memory(kernel_for<GL_WARPTILE_ARGS>(path),
                                                           smem_bytes<GL_WARPTILE_ARGS>()))
            return err;
    return cudaSuccess;
}

#define GL_COMPILED(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS)                               \
    {{BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},                                            \
     launch<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>,                                      \
     prepare<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>},
const gl_compiled_config configs[] = {GL_WARPTILE_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

} // namespace

/* As rung 6: a big product whose operands are not aligned or not whole
 * tiles runs on copies that are, and then on the interior kernel. */
extern "C" int gl_launch_warptile(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    return gl_launch_config_packed(configs, p, t, x);
}

extern "C" cudaError_t gl_prepare_warptile(void) { return gl_prepare_configs(configs); }
