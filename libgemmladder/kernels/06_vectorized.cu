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
 * time. Fewer, wider instructions for the same bytes.
 *
 * The copy is split in two, global memory to registers (fetch) and
 * registers to shared memory (stash), so a thread can start reading slice
 * s + 1 right after the barrier that publishes slice s and only wait for it
 * when it stashes it, after its math on slice s: the memory latency is spent
 * on FFMAs instead of at the barrier.
 *
 * 16-byte loads need 16-byte aligned rows. The mainloop comes in two
 * kinds (the launcher checks the operands on the host): for aligned
 * operands, copies that test the edges of the matrices (the last tiles of
 * C, the end of K) and read zeros past them, a test per float4; for any
 * others, a float per load, a warp's lanes side
 * by side along a row so that each load reads runs of neighbouring floats,
 * and tests only in the last tiles: a float per load is also a test per
 * load, which blocks inside C skip.
 *
 * This file is the mainloop; the schedules and the one epilogue are
 * shared (compose.cuh). Row t of every thread's patch makes one band of
 * the tile, which lets C whose rows are off 16 bytes go out through shared
 * memory a band at a time, 32 neighbouring floats per store of a warp
 * (STORE_BANDS; gl_banded_epilogue).
 *
 * What stays slow: one slice in shared memory means two barriers per slice,
 * and a warp's reads of the slices are strided across its 32 threads; rung 8
 * tiles the warp and double-buffers. This file compiles the kernel for every
 * configuration in GL_VECTORIZED_CONFIGS: rung 6 runs the first (rung 5's
 * tiles), rung 7 the one its tuning table names.
 */
#include "compose.cuh"

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
    int64_t k_step;     /* from one k to the next */
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
        k_step = k_contig ? 1 : ld;
    }

    __device__ __forceinline__ float4 load4(const float *p) const
    {
        return *reinterpret_cast<const float4 *>(p);
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

    /* On to the slice after one `depth` deep. */
    __device__ __forceinline__ void next_slice(int depth) { ptr += depth * k_step; }
};

template <int BM_, int BN_, int BK_, int TM, int TN>
struct vectorized {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, THREADS = BM * BN / (TM * TN);
    static constexpr int SMEM = GL_VECTORIZED_SMEM(BM, BN, BK);
    static constexpr int REGISTERS =
        GL_REGISTER_ESTIMATE(TM * TN, TM + TN, (BM + BN) * BK / (4 * THREADS));
    static constexpr gl_tile_params tiles = {BM, BN, BK, TM, TN, 0, 0, 0, THREADS, 0};
    /* Bands of C for gl_banded_epilogue, row t of every patch in band t:
     * on rung 6's own tiles, where they were measured. */
    static constexpr int STORE_BANDS = BM == 64 && BN == 64 ? TM : 0;
    /* For gl_rows_epilogue: the BN / TN lanes of a row of patches hold its
     * runs side by side, where a patch is one run wide and such a row lies
     * within a warp; on rung 6's own tiles, where it was measured. */
    static constexpr int C4_ROW_LANES = BM == 64 && BN == 64 && TN == 4 ? BN / TN : 0;
    static_assert(BM % TM == 0 && BN % TN == 0, "the threads' patches must tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are read and written 4 floats at a time");

    template <bool ALIGNED>
    struct mainloop {
        float acc[TM][TN] = {};
        int tr, tc; /* this thread's patch: rows tr.. and columns tc.. of the window */

        template <class Schedule>
        __device__ __forceinline__ void run(const gl_problem &p, int wr0, int wc0, int row0,
                                            int col0, float *smem);

        template <class F>
        __device__ __forceinline__ void for_each_c4(F f) const
        {
#pragma unroll
            for (int t = 0; t < TM; ++t)
#pragma unroll
                for (int u = 0; u < TN; u += 4)
                    f(tr + t, tc + u,
                      make_float4(acc[t][u], acc[t][u + 1], acc[t][u + 2], acc[t][u + 3]));
        }
    };
};

template <int BM, int BN, int BK, int TM, int TN>
template <bool ALIGNED>
template <class Schedule>
__device__ __forceinline__ void vectorized<BM, BN, BK, TM, TN>::mainloop<ALIGNED>::run(
    const gl_problem &p, int wr0, int wc0, int /* row0 */, int /* col0 */, float *smem)
{
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD; /* row strides */
    float *As = smem;         /* As[i * SA + r] = op(A)(wr0 + r, k0 + i) */
    float *Bs = As + BK * SA; /* Bs[i * SB + c] = op(B)(k0 + i, wc0 + c) */

    const int tr = threadIdx.x / (BN / TN) * TM;
    const int tc = threadIdx.x % (BN / TN) * TN;
    slice_copy<BK, BM, THREADS, ALIGNED> copy_a(p.a, p.lda, !p.trans_a, wr0);
    slice_copy<BK, BN, THREADS, ALIGNED> copy_b(p.b, p.ldb, p.trans_b, wc0);

    /* Warps whose patches all lie outside C skip the math (the warp's
     * first lane has the smallest row and column). Only grids whose copies
     * test slices after the first have such warps: in whole tiles and edge
     * windows every warp has results. */
    const int lane0 = threadIdx.x & ~31;
    const bool active = !Schedule::tested(1) || (wr0 + lane0 / (BN / TN) * TM < p.m &&
                                                 wc0 + lane0 % (BN / TN) * TN < p.n);
    float a[TM], b[TN];
    /* Single floats, a test each: only the last tiles test. A block whose
     * window lies inside C copies each slice that lies inside K untested. */
    const bool singles_inside = !ALIGNED && p.m - wr0 >= BM && p.n - wc0 >= BN;
    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    const auto fetch = [&](int s) { /* slice s into registers */
        const int k_left = s == 0 ? min(depth0, p.k) : p.k - depth0 - (s - 1) * BK;
        if (singles_inside && k_left >= BK) {
            copy_a.fetch_singles_inside();
            copy_b.fetch_singles_inside();
        } else { /* whole tiles too: their tests always pass, and without them
                    the 128 x 128 kernel spilled registers on sm_86 and sm_89 */
            copy_a.fetch(p.m - wr0, k_left);
            copy_b.fetch(p.n - wc0, k_left);
        }
    };
    fetch(0);
    for (int s = 0; s < slices; ++s) {
        copy_a.stash(As);
        copy_b.stash(Bs);
        __syncthreads();
        if (s + 1 < slices) { /* the next slice's loads travel during this slice's math */
            copy_a.next_slice(s == 0 ? depth0 : BK);
            copy_b.next_slice(s == 0 ? depth0 : BK);
            fetch(s + 1);
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
    this->tr = tr, this->tc = tc; /* for the epilogue (for_each_c4) */
}

} // namespace

/* The configurations compiled, rung 6's first (BM, BN, BK, TM, TN:
 * configs.h); rung 7 runs any of them (07_autotuned.cu). */
#define GL_VECTORIZED(...) GL_TILE_KERNELS(vectorized<__VA_ARGS__>)
GL_RUNG(vectorized, GL_VECTORIZED_CONFIGS(GL_VECTORIZED))
