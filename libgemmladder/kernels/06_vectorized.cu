/*
 * Rung 6, vectorized: rung 5 with 16-byte memory accesses, A stored
 * transposed in shared memory, and each slice's loads issued one slice early.
 *
 * Copies from global memory move a float4 per instruction instead of a float
 * (slice_copy below), and both slices go into shared memory k-major:
 * As[i][r] holds op(A)(row0 + r, k0 + i). A row-major A is contiguous along
 * K, so each float4 read from it is written to shared memory as four floats
 * down a column of As: the transposed stash. In exchange, a thread's TM
 * values of A for step i of the slice are TM consecutive floats, which it
 * reads as float4s, like its TN values of B; C is written a float4 at a
 * time. Fewer, wider instructions for the same bytes. (C whose rows are off
 * 16 bytes goes out a float at a time, and, with a short K on a grid of a
 * few blocks an SM, through shared memory in bands of rows, so that each
 * store of a warp writes 32 neighbouring floats: store_band.)
 *
 * The copy is split in two, global memory to registers (fetch) and
 * registers to shared memory (stash), so a thread can start reading slice
 * s + 1 right after the barrier that publishes slice s and only wait for it
 * when it stashes it, after its math on slice s: the memory latency is spent
 * on FFMAs instead of at the barrier.
 *
 * 16-byte loads need 16-byte aligned rows. The launcher checks the operands
 * on the host and runs one of three kernels: for aligned operands of whole
 * tiles, copies without tests; for aligned operands, copies that test the
 * edges of the matrices (the last tiles of C, the end of K) and read zeros
 * past them; for any others, the same a float per load, a warp's lanes side
 * by side along a row so that each load reads runs of neighbouring floats,
 * and tests only in the last tiles: a float per load is also a test per
 * load, which blocks inside C skip. (The last has a twin that stores C in
 * bands: see banded.)
 *
 * What stays slow: one slice in shared memory means two barriers per slice,
 * and a warp's reads of the slices are strided across its 32 threads; rung 8
 * tiles the warp and double-buffers. This file compiles the kernel for every
 * configuration in GL_VECTORIZED_CONFIGS: rung 6 runs the first (rung 5's
 * tiles), rung 7 the one its tuning table names.
 */
#include "ladder.cuh"

namespace {

/*
 * Copies a BK x BX slice of op(A) (x = rows of C) or of op(B) (x = columns
 * of C) into shared memory k-major, dst[k * (BX + GL_SMEM_PAD) + x]. In
 * memory either k or x is the contiguous direction (A as stored and B
 * transposed run along k; A transposed and B as stored along x), and the
 * slice's stored rows run along it. Each thread copies the same floats of
 * every slice, so its addresses are worked out once:
 *   ALIGNED (rows on 16 bytes, gl_a_vec4_ok): LOADS groups of 4 neighbours,
 *   one 16-byte load each;
 *   otherwise: 4 * LOADS single floats, the threads side by side along the
 *   stored rows, so that each load of a warp reads runs of neighbouring
 *   floats: whole 32-byte sectors but at the ends of a run. (4 neighbours
 *   read a float at a time would use a quarter of each sector per load.)
 */
template <int BK, int BX, int THREADS, bool ALIGNED>
struct slice_copy {
    static constexpr int LOADS = BK * BX / (4 * THREADS);
    static_assert(BK % 4 == 0 && BX % 4 == 0, "slices are copied 4 floats at a time");
    static_assert(LOADS >= 1 && (BK * BX) % (4 * THREADS) == 0,
                  "the block's threads must copy a slice in whole rounds of one float4 each");
    static_assert((4 * THREADS) % BK == 0 && (4 * THREADS) % BX == 0,
                  "each round of float4s must cover whole stored rows of the slice");
    static_assert(ALIGNED || (THREADS % BK == 0 && THREADS % BX == 0),
                  "each round of single floats must cover whole stored rows of the slice");

    const float *ptr;   /* this thread's first group of the current slice */
    int64_t round_step; /* from one of its groups to the next */
    int64_t slice_step; /* from one slice to the next */
    int row, col;       /* its first group, as stored: row, and column of the group's start */
    int row_step;
    bool k_contiguous;
    float4 v[LOADS];
    float single[ALIGNED ? 1 : 4 * LOADS]; /* unaligned rows: a float per load */

    /* base, ld: the operand as stored; x0: the block's first row (A) or
     * column (B) of C. */
    __device__ slice_copy(const float *base, int64_t ld, bool k_contig, int x0)
        : k_contiguous(k_contig)
    {
        /* loads along a stored row (BX x BK or BK x BX): float4s, or floats */
        const int per_row = (k_contig ? BK : BX) / (ALIGNED ? 4 : 1);
        row = threadIdx.x / per_row;
        col = threadIdx.x % per_row * (ALIGNED ? 4 : 1);
        row_step = THREADS / per_row;
        round_step = row_step * ld;
        ptr = k_contig ? base + ((int64_t)x0 + row) * ld + col : base + row * ld + x0 + col;
        slice_step = k_contig ? BK : BK * ld;
    }

    __device__ __forceinline__ float4 load4(const float *p) const
    {
        return *reinterpret_cast<const float4 *>(p);
    }

    /* A slice whose contiguous direction lies inside the matrix: each group
     * is one load, or zeros in rows past its edge (rows_left: how far the
     * matrix reaches from the slice's first stored row). */
    __device__ __forceinline__ void fetch_rows(int rows_left)
    {
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            v[i] = row + i * row_step < rows_left ? load4(ptr + i * round_step)
                                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }

    /* Unaligned rows (running along K when K_ROWS): a float per load, the
     * block's threads side by side along the stored rows, so that a warp
     * reads 32 neighbouring floats, or two rows' 16; each float is tested
     * alone. A thread's 4 * LOADS floats lie in one column, ROW_STEP rows
     * apart, a constant within each K_ROWS: its tests and its stores in
     * stash_singles are against and at fixed offsets. The pointer moves on
     * by a step the compiler cannot see through (the empty asm), so that it
     * adds as it goes instead of keeping each row's offset in a register of
     * its own: that made the 128 x 128 kernel spill. */
    template <bool K_ROWS, bool TESTS>
    __device__ __forceinline__ void fetch_singles(int rows_left, int cols_left)
    {
        constexpr int ROW_STEP = THREADS / (K_ROWS ? BK : BX);
        const bool col_in = !TESTS || col < cols_left;
        const int rows_in = rows_left - row;
        const float *p = ptr;
        int64_t step = round_step;
        asm volatile("" : "+l"(step));
#pragma unroll
        for (int j = 0; j < 4 * LOADS; ++j, p += step)
            single[j] = col_in && (!TESTS || j * ROW_STEP < rows_in) ? *p : 0.0f;
    }

    /* Unaligned rows, a slice wholly inside the matrix: no test at all. */
    __device__ __forceinline__ void fetch_singles_inside()
    {
        if (k_contiguous)
            fetch_singles<true, false>(0, 0);
        else
            fetch_singles<false, false>(0, 0);
    }

    template <bool K_ROWS>
    __device__ __forceinline__ void stash_singles(float *dst) const
    {
        constexpr int STRIDE = BX + GL_SMEM_PAD, ROW_STEP = THREADS / (K_ROWS ? BK : BX);
        float *d = K_ROWS ? dst + col * STRIDE + row : dst + row * STRIDE + col;
#pragma unroll
        for (int j = 0; j < 4 * LOADS; ++j) /* stored row row + j * ROW_STEP */
            d[K_ROWS ? j * ROW_STEP : j * ROW_STEP * STRIDE] = single[j];
    }

    /* Any slice: x_left, k_left are how far the matrix reaches from the
     * slice's first x and k. A group of 4 neighbours lies wholly inside or
     * wholly outside the matrix (gl_a_vec4_ok): one test each. */
    __device__ __forceinline__ void fetch(int x_left, int k_left)
    {
        const int rows_left = k_contiguous ? x_left : k_left;
        const int cols_left = k_contiguous ? k_left : x_left;
        if constexpr (!ALIGNED) {
            if (k_contiguous)
                fetch_singles<true, true>(rows_left, cols_left);
            else
                fetch_singles<false, true>(rows_left, cols_left);
        } else {
#pragma unroll
            for (int i = 0; i < LOADS; ++i)
                v[i] = row + i * row_step < rows_left && col < cols_left
                           ? load4(ptr + i * round_step)
                           : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    }

    __device__ __forceinline__ void stash(float *dst) const
    {
        if constexpr (!ALIGNED) {
            if (k_contiguous)
                stash_singles<true>(dst);
            else
                stash_singles<false>(dst);
        } else {
            constexpr int STRIDE = BX + GL_SMEM_PAD;
#pragma unroll
            for (int i = 0; i < LOADS; ++i) {
                const int r = row + i * row_step;
                if (k_contiguous) { /* (x = r, k = col..col+3): the transposed stash */
                    dst[(col + 0) * STRIDE + r] = v[i].x;
                    dst[(col + 1) * STRIDE + r] = v[i].y;
                    dst[(col + 2) * STRIDE + r] = v[i].z;
                    dst[(col + 3) * STRIDE + r] = v[i].w;
                } else { /* (k = r, x = col..col+3): already k-major */
                    *reinterpret_cast<float4 *>(&dst[r * STRIDE + col]) = v[i];
                }
            }
        }
    }

    __device__ __forceinline__ void next_slice() { ptr += slice_step; }
};

/*
 * Row t of every thread's patch, a band of ROWS rows of the block's tile of
 * C (rows t, t + TM, t + 2 TM, ... of the tile at (row0, col0)), stored
 * from shared memory: each thread has put its results for the band at
 * stage[r * BAND_STRIDE(BN) + c], for row r of the band and column c of the
 * tile, and the block's threads, side by side along the band's rows, store
 * it, each warp 32 neighbouring floats of a row of C at a time. Every thread
 * of the block calls it. (The 16 floats that pad a row of the band change
 * nothing: a quarter warp's float4s fall in one row. The kernel was
 * measured with them.)
 */
__host__ __device__ constexpr int BAND_STRIDE(int bn) { return bn + 16; }

template <int ROWS, int BN, int THREADS, int TM>
__device__ __forceinline__ void store_band(const gl_problem &p, int row0, int col0, int t,
                                           const float *stage)
{
    static_assert((ROWS * BN) % THREADS == 0 && BN % 32 == 0,
                  "the block's threads store the band in whole rounds, a warp within a row");
    __syncthreads(); /* every thread's part of the band is in */
#pragma unroll
    for (int i = 0; i < ROWS * BN / THREADS; ++i) {
        const int e = i * THREADS + threadIdx.x, r = e / BN, c = e % BN;
        const int row = row0 + r * TM + t, col = col0 + c;
        if (row < p.m && col < p.n)
            gl_store_c(p.c + (int64_t)row * p.ldc + col, stage[r * BAND_STRIDE(BN) + c], p.alpha,
                       p.beta);
    }
    __syncthreads(); /* the band is out before the next is put */
}

template <int BM, int BN, int BK, int TM, int TN>
struct shape {
    static constexpr int THREADS = BM * BN / (TM * TN);
    static constexpr int REGISTERS =
        GL_REGISTER_ESTIMATE(TM * TN, TM + TN, (BM + BN) * BK / (4 * THREADS));
};

/* C is m x n; block (x, y) covers columns [x*BN, +BN) and rows [y*BM, +BM).
 * TESTED: copies test the edges of the matrices; the launcher compiles it
 * out for problems of whole tiles. BANDED: C goes out in bands of rows
 * (store_band; the launcher says where). */
template <bool ALIGNED, bool TESTED, bool BANDED, int BM, int BN, int BK, int TM, int TN,
          class S = shape<BM, BN, BK, TM, TN>>
__global__ __launch_bounds__(S::THREADS, gl_min_blocks(S::THREADS, S::REGISTERS))
void vectorized_kernel(const gl_problem p)
{
    constexpr int THREADS = S::THREADS;
    static_assert(BM % TM == 0 && BN % TN == 0, "the threads' patches must tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are read and written 4 floats at a time");
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD; /* row strides */
    extern __shared__ float4 smem[];
    float *As = reinterpret_cast<float *>(smem); /* As[i * SA + r] = op(A)(row0 + r, k0 + i) */
    float *Bs = As + BK * SA;                    /* Bs[i * SB + c] = op(B)(k0 + i, col0 + c) */

    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = threadIdx.x / (BN / TN) * TM;
    const int tc = threadIdx.x % (BN / TN) * TN;
    slice_copy<BK, BM, THREADS, ALIGNED> copy_a(p.a, p.lda, !p.trans_a, row0);
    slice_copy<BK, BN, THREADS, ALIGNED> copy_b(p.b, p.ldb, p.trans_b, col0);

    /* Warps whose patches all lie outside C skip the math; the warp's first
     * lane has the smallest row and column. */
    const int lane0 = threadIdx.x & ~31;
    const bool active = row0 + lane0 / (BN / TN) * TM < p.m && col0 + lane0 % (BN / TN) * TN < p.n;
    float acc[TM][TN] = {};
    float a[TM], b[TN];
    /* Single floats, a test each: only the last tiles test. A block whose
     * tile lies inside C copies each slice that lies inside K untested. */
    const bool singles_inside = !ALIGNED && p.m - row0 >= BM && p.n - col0 >= BN;
    const int slices = (p.k - 1) / BK + 1;
    const auto fetch = [&](int k0) { /* the slice starting at k0 into registers */
        if (singles_inside && p.k - k0 >= BK) {
            copy_a.fetch_singles_inside();
            copy_b.fetch_singles_inside();
        } else if (TESTED || gl_keep_tests) {
            copy_a.fetch(p.m - row0, p.k - k0);
            copy_b.fetch(p.n - col0, p.k - k0);
        } else { /* whole tiles: the row tests always pass */
            copy_a.fetch_rows(copy_a.k_contiguous ? p.m - row0 : p.k - k0);
            copy_b.fetch_rows(copy_b.k_contiguous ? p.n - col0 : p.k - k0);
        }
    };
    fetch(0);
    for (int s = 0; s < slices; ++s) {
        copy_a.stash(As);
        copy_b.stash(Bs);
        __syncthreads();
        if (s + 1 < slices) { /* the next slice's loads travel during this slice's math */
            copy_a.next_slice();
            copy_b.next_slice();
            fetch((s + 1) * BK);
        }

        if (active) {
#pragma unroll
            for (int i = 0; i < BK; ++i) {
#pragma unroll
                for (int t = 0; t < TM; t += 4)
                    *reinterpret_cast<float4 *>(&a[t]) =
                        *reinterpret_cast<const float4 *>(&As[i * SA + tr + t]);
#pragma unroll
                for (int u = 0; u < TN; u += 4)
                    *reinterpret_cast<float4 *>(&b[u]) =
                        *reinterpret_cast<const float4 *>(&Bs[i * SB + tc + u]);
#pragma unroll
                for (int t = 0; t < TM; ++t)
#pragma unroll
                    for (int u = 0; u < TN; ++u)
                        acc[t][u] += a[t] * b[u];
            }
        }
        __syncthreads(); /* everyone is done with the slice before the next stash */
    }

    if constexpr (!BANDED) {
        const bool vec = gl_vec4_ok(p.c, p.ldc);
#pragma unroll
        for (int t = 0; t < TM; ++t)
#pragma unroll
            for (int u = 0; u < TN; u += 4)
                gl_store_c4(p, row0 + tr + t, col0 + tc + u,
                            make_float4(acc[t][u], acc[t][u + 1], acc[t][u + 2], acc[t][u + 3]),
                            vec);
    } else { /* band t holds row t of every thread's patch */
        static_assert(BM / TM * BAND_STRIDE(BN) <= BK * (SA + SB), "a band fits in the slices");
        float *band_row = As + tr / TM * BAND_STRIDE(BN) + tc;
#pragma unroll
        for (int t = 0; t < TM; ++t) {
#pragma unroll
            for (int u = 0; u < TN; u += 4)
                *reinterpret_cast<float4 *>(&band_row[u]) =
                    make_float4(acc[t][u], acc[t][u + 1], acc[t][u + 2], acc[t][u + 3]);
            store_band<BM / TM, BN, THREADS, TM>(p, row0, col0, t, As);
        }
    }
}

/* The kernels: aligned operands of whole tiles (no tests), aligned, any,
 * and any with C stored in bands. */
enum copies { WHOLE_TILES, ALIGNED_ONLY, ANY_ALIGNMENT, ANY_BANDED };

template <int BM, int BN, int BK, int TM, int TN>
auto kernel_for(copies c)
{
    if constexpr (BM == 64 && BN == 64) /* bands: on rung 6's tiles only (banded) */
        if (c == ANY_BANDED)
            return vectorized_kernel<false, true, true, BM, BN, BK, TM, TN>;
    return c == WHOLE_TILES    ? vectorized_kernel<true, false, false, BM, BN, BK, TM, TN>
           : c == ALIGNED_ONLY ? vectorized_kernel<true, true, false, BM, BN, BK, TM, TN>
                               : vectorized_kernel<false, true, false, BM, BN, BK, TM, TN>;
}

/*
 * C whose rows are off 16 bytes is stored a float at a time, and each of a
 * warp's stores then writes 4-byte pieces 16 bytes apart (its lanes' patches
 * are 4 floats wide). Where K is short, so that storing C is much of a
 * block's time, and the grid has more blocks than SMs but at most ten for
 * each, so that their stores queue but few other blocks' math covers them,
 * the kernel stores C in bands of rows instead, a warp's stores 32
 * neighbouring floats (store_band): 968 x 3773 x 16, 944 blocks for 132 SMs,
 * ran 1.57x faster so, 783 x 4914 x 26 1.20x. With more blocks the bands'
 * barriers cost more than they save (3001 x 3001 x 80: 2.3% slower, 4097 x
 * 4097 x 64 3.8%), and with one or none an SM the barriers are the block's
 * wait (287 x 162 x 85, 15 blocks: 12% slower; H200, 2026-11-26). Only in
 * the kernel for operands read a float at a time, which such C mostly comes
 * with (op(B)'s rows as stored are C's, but for B transposed): in the others
 * the bands' code changed the compiler's schedule of the slice loop. And
 * only on rung 6's own tiles, 64 x 64, where it was measured and is tested;
 * rung 7's other configurations store C as before.
 */
static bool banded(const gl_problem *p, int bm, int bn, const gl_exec *x)
{
    const int64_t blocks = (int64_t)gl_ceil_div(p->m, bm) * gl_ceil_div(p->n, bn);
    return !gl_vec4_ok(p->c, p->ldc) && p->k <= 96 && blocks > x->sm_count &&
           blocks <= 10 * (int64_t)x->sm_count;
}

template <int BM, int BN, int BK, int TM, int TN>
int launch(const gl_problem *p, const gl_exec *x)
{
    const bool aligned = gl_a_vec4_ok(p) && gl_b_vec4_ok(p);
    const bool whole = p->m % BM == 0 && p->n % BN == 0 && p->k % BK == 0;
    const copies c = aligned ? (whole ? WHOLE_TILES : ALIGNED_ONLY)
                             : (banded(p, BM, BN, x) ? ANY_BANDED : ANY_ALIGNMENT);
    kernel_for<BM, BN, BK, TM, TN>(c)
        <<<gl_tile_grid(p, BM, BN), BM * BN / (TM * TN), GL_VECTORIZED_SMEM(BM, BN, BK),
           x->stream>>>(*p);
    return cudaGetLastError();
}

template <int BM, int BN, int BK, int TM, int TN>
cudaError_t prepare()
{
    for (copies c : {WHOLE_TILES, ALIGNED_ONLY, ANY_ALIGNMENT, ANY_BANDED})
        if (const cudaError_t err = gl_allow_shared_memory(kernel_for<BM, BN, BK, TM, TN>(c),
                                                           GL_VECTORIZED_SMEM(BM, BN, BK)))
            return err;
    return cudaSuccess;
}

#define GL_COMPILED(BM, BN, BK, TM, TN)                                                        \
    {{BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)}, launch<BM, BN, BK, TM, TN>,           \
     prepare<BM, BN, BK, TM, TN>},
const gl_compiled_config configs[] = {GL_VECTORIZED_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

} // namespace

/* Rung 6 runs the first configuration; rung 7 any of them (07_autotuned.cu). */
extern "C" int gl_launch_vectorized(const gl_problem *p, const gl_tile_params *t,
                                    const gl_exec *x)
{
    return gl_launch_config(configs, p, t, x);
}

extern "C" cudaError_t gl_prepare_vectorized(void) { return gl_prepare_configs(configs); }
