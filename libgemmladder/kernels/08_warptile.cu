/*
 * Rung 8, warptile: rung 7 with a level of tiling for the warp between the
 * block and the thread, and the next K slice copied while this one is used.
 *
 * Block -> warp -> thread. The block's BM x BN tile of C is cut into one
 * WM x WN tile per warp; a warp covers its tile as WMITER x WNITER sub-tiles,
 * and in each sub-tile its 32 lanes own neighbouring TM x TN patches. A
 * thread's results are thus WMITER x WNITER patches spread across the warp
 * tile, and at each step along K the 32 lanes read a few whole float4 runs
 * of the shared slices (which the banks serve in one pass, or broadcast)
 * instead of rung 6's strided reads. Each thread loads WMITER * TM +
 * WNITER * TN values into registers and does all their products: a long run
 * of FFMAs that reads only registers.
 *
 * Double buffering: shared memory holds two slices. While the warps compute
 * on slice s, every thread's loads of slice s + 1 are already on their way
 * from global memory, and they are stashed into the other buffer after the
 * compute, which nobody reads during slice s: one barrier per slice instead
 * of rung 6's two.
 *
 * Slices are copied as in rung 6 (16-byte loads, the transposed stash; 32
 * deep ones stored swizzled, see slice_copy), by one of three kernels:
 * without tests for aligned operands of whole tiles, with tests at the
 * edges for aligned ones, and a float per load for any (rows along K read
 * in stacks of neighbouring rows at one k; on tiles of 128 x 128 and more,
 * the slices of blocks inside C without tests, as in rung 6).
 *
 * This file is the mainloop: how a block computes its accumulators over a
 * range of K. Which tile and which part of K a block takes is its
 * schedule's (the rung runs the plain grid), and the results go out
 * through the one epilogue (epilogue.cuh), a float4 of a row at a time.
 *
 * What stays slow: every slice still waits for its loads at the barrier
 * when a block's warps cannot cover the latency, and the copy goes through
 * registers; asynchronous copies (cp.async, TMA) are the next step. And
 * fewer of its blocks fit an SM than of rung 7's, so its grid falls into
 * rounds more coarsely: where it just overflows a round or loads the SMs
 * unevenly (1536^3 to 1792^3, 2304^3, 2560^3 on an H100) rung 7 is faster;
 * tiles chosen per grid are the engine's (auto's) work.
 */
#include "compose.cuh"

namespace {

/*
 * Copies a BK x BX slice of op(A) (x = rows of C) or op(B) (x = columns of
 * C) into shared memory k-major, dst[k * (BX + GL_SMEM_PAD) + x], a group
 * of 4 floats at a time:
 *   aligned rows (ALIGNED): as rung 6, 4 neighbours along the contiguous
 *   direction in one 16-byte load, stored transposed where k is contiguous;
 *   unaligned rows along K (A as stored, B transposed): a stack, the floats
 *   of neighbouring rows at one k, a load each, 4 of them a float4 of the
 *   k-major slice;
 *   unaligned rows across K: 4 floats of a row a quarter row apart, a load
 *   each, stored one by one.
 * In both unaligned copies a warp's neighbouring lanes read neighbouring
 * floats.
 */
template <int BK, int BX, int THREADS, bool ALIGNED>
struct slice_copy {
    static constexpr int LOADS = BK * BX / (4 * THREADS);
    static_assert(BK % 4 == 0 && BX % 4 == 0, "slices are copied 4 floats at a time");
    static_assert(LOADS >= 1 && (BK * BX) % (4 * THREADS) == 0,
                  "the block's threads must copy a slice in whole rounds of one float4 each");
    static_assert((4 * THREADS) % BK == 0 && (4 * THREADS) % BX == 0,
                  "each round of float4s must cover whole stored rows of the slice");

    const float *ptr;   /* this thread's first group of the current slice */
    int64_t round_step; /* from one of its groups to the next */
    int64_t k_step;     /* from one k to the next */
    int64_t ld_step;    /* from one row to the next: a stack's rows */
    int row, col, row_step;
    bool k_contiguous;
    float4 v[LOADS];

    /* Aligned slices 32 deep are stored swizzled: element (k, x) at
     * k * (BX + 4) + (x ^ (k & 8)). In the transposed stash a warp stores
     * 4 neighbouring x's for each of 8 groups of 4 k's; rows of BX + 4
     * floats put every other group on the same banks, 4 lanes to a bank,
     * and flipping x's bit 3 in every other run of 8 k's halves that. A
     * float4 of 4 neighbouring x's stays whole. (With 16-deep slices it
     * would remove the 2 lanes to a bank left there, but the 128 x 128
     * kernels ran 5-7% slower with it.) Not on sm_80, where ptxas of CUDA
     * 13.0 spilled the swizzled kernels. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 860
    static constexpr bool SWIZZLED = false;
#else
    static constexpr bool SWIZZLED = ALIGNED && BK >= 32;
#endif

    __device__ slice_copy(const float *base, int64_t ld, bool k_contig, int x0)
        : k_contiguous(k_contig)
    {
        const int groups_per_row = (k_contig ? BK : BX) / 4;
        row = threadIdx.x / groups_per_row;
        col = threadIdx.x % groups_per_row * (ALIGNED ? 4 : 1);
        row_step = THREADS / groups_per_row;
        if (!ALIGNED && k_contig) { /* a stack: rows [row, +4 LOADS) at k = col */
            col = threadIdx.x % BK;
            row = threadIdx.x / BK * 4 * LOADS;
            row_step = 4;
        } else if (!ALIGNED) { /* single floats across K */
            row = singles_row(row);
        }
        ld_step = ld;
        round_step = row_step * ld;
        ptr = k_contig ? base + ((int64_t)x0 + row) * ld + col : base + row * ld + x0 + col;
        k_step = k_contig ? 1 : ld;
    }

    /* Which stored row a thread copies single floats of, across K: stored
     * rows are BX + 4 = 4 (mod 32) floats apart in shared memory, so the 2
     * rows of a warp in 64-float rows store into distinct banks when they
     * are 4 apart; wider rows are taken in order. */
    __device__ static int singles_row(int q)
    {
        static_assert(ALIGNED || THREADS % 128 == 0, "rows are dealt out in blocks of 32 and 8");
        static_assert(ALIGNED || BX >= 32, "single floats across K: rows of 32 floats or more");
        return BX / 4 == 16 ? (q & ~7) | (q >> 1 & 3) | (q & 1) << 2 : q;
    }

    __device__ __forceinline__ float4 load4(const float *p) const
    {
        return *reinterpret_cast<const float4 *>(p);
    }

    /* A slice wholly inside the matrix: no test at all. */
    __device__ __forceinline__ void fetch_inside()
    {
        if constexpr (!ALIGNED) {
            if (k_contiguous)
                fetch_stack<false>(0, 0);
            else
                fetch_singles<false>(0, 0);
        } else {
#pragma unroll
            for (int i = 0; i < LOADS; ++i)
                v[i] = load4(ptr + i * round_step);
        }
    }

    /* Unaligned rows along K: the thread's 4 * LOADS floats at its k, in
     * neighbouring rows, each tested and read alone. A warp's lanes take
     * neighbouring k's, so each of its loads reads runs of 16 or 32
     * neighbouring floats of a row, where 4 floats a quarter row apart (the
     * copy across K below) read 16 bytes from each of 8 rows. The step goes
     * through an empty asm, as in rung 6, so that the compiler forms each
     * row's address from the pointer and the step when it loads instead of
     * holding one per row across the slices. Group i, rows [4i, +4), is a
     * float4 of the k-major slice and is stored as one (ptxas splits A's
     * into four 4-byte stores; forcing one 16-byte store made 4097^3 1%
     * slower on an H100). TESTS false: the slice lies inside the matrix. */
    template <bool TESTS = true>
    __device__ __forceinline__ void fetch_stack(int rows_left, int k_left)
    {
        static_assert(THREADS % BK == 0, "a stack's k is its thread's");
        const bool k_in = col < k_left;
        const int rows_in = rows_left - row;
        const float *p = ptr;
        int64_t step = ld_step;
        asm volatile("" : "+l"(step));
        float f[4 * LOADS];
#pragma unroll
        for (int j = 0; j < 4 * LOADS; ++j, p += step)
            f[j] = !TESTS || (k_in && j < rows_in) ? *p : 0.0f;
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            v[i] = make_float4(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
    }

    __device__ __forceinline__ void stash_stack(float *dst) const
    {
        constexpr int STRIDE = BX + GL_SMEM_PAD;
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            *reinterpret_cast<float4 *>(&dst[col * STRIDE + row + i * row_step]) = v[i];
    }

    /* Unaligned rows across K: group i is 4 floats of its row a quarter row
     * apart, each tested and read alone (TESTS false: the slice lies inside
     * the matrix), and stored at fixed offsets from one address. */
    template <bool TESTS = true>
    __device__ __forceinline__ void fetch_singles(int rows_left, int cols_left)
    {
        constexpr int SPREAD = BX / 4;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const float *p = ptr + i * round_step;
            if constexpr (!TESTS) {
                v[i] = make_float4(p[0], p[SPREAD], p[2 * SPREAD], p[3 * SPREAD]);
                continue;
            }
            const bool row_in = row + i * row_step < rows_left;
            v[i].x = row_in && col < cols_left ? p[0] : 0.0f;
            v[i].y = row_in && col + SPREAD < cols_left ? p[SPREAD] : 0.0f;
            v[i].z = row_in && col + 2 * SPREAD < cols_left ? p[2 * SPREAD] : 0.0f;
            v[i].w = row_in && col + 3 * SPREAD < cols_left ? p[3 * SPREAD] : 0.0f;
        }
    }

    __device__ __forceinline__ void stash_singles(float *dst) const
    {
        constexpr int STRIDE = BX + GL_SMEM_PAD, SPREAD = BX / 4, ROW_STEP = THREADS / SPREAD;
        float *d = dst + row * STRIDE + col;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const float f[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
#pragma unroll
            for (int j = 0; j < 4; ++j) /* stored row i * ROW_STEP, column j * SPREAD */
                d[i * ROW_STEP * STRIDE + j * SPREAD] = f[j];
        }
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
                fetch_stack(rows_left, cols_left);
            else
                fetch_singles(rows_left, cols_left);
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
                stash_stack(dst);
            else
                stash_singles(dst);
        } else {
            constexpr int STRIDE = BX + GL_SMEM_PAD;
#pragma unroll
            for (int i = 0; i < LOADS; ++i) {
                const int r = row + i * row_step;
                if (k_contiguous) { /* (x = r, k = col..col+3): the transposed stash */
                    const int x = SWIZZLED ? r ^ (col & 8) : r;
                    dst[(col + 0) * STRIDE + x] = v[i].x;
                    dst[(col + 1) * STRIDE + x] = v[i].y;
                    dst[(col + 2) * STRIDE + x] = v[i].z;
                    dst[(col + 3) * STRIDE + x] = v[i].w;
                } else {
                    const int x = SWIZZLED ? col ^ (r & 8) : col;
                    *reinterpret_cast<float4 *>(&dst[r * STRIDE + x]) = v[i];
                }
            }
        }
    }

    /* On to the slice `depth` further along K. */
    __device__ __forceinline__ void next_slice(int depth) { ptr += depth * k_step; }
};


/*
 * The mainloop of one configuration: block -> warp -> thread. The block
 * computes a BM x BN window of C (its own tile, unless its schedule moves
 * it); each warp a WM x WN tile of it, as WMITER x WNITER sub-tiles of its
 * 32 lanes' TM x TN patches.
 */
template <int BM_, int BN_, int BK_, int WM, int WN, int WNITER, int TM, int TN, int THREADS_>
struct warptile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, THREADS = THREADS_;
    static constexpr int WMITER = WM * WN / (32 * TM * TN * WNITER);
    static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER; /* one sub-tile */
    static constexpr int SMEM = GL_WARPTILE_SMEM(BM, BN, BK);
    static constexpr int REGISTERS = GL_REGISTER_ESTIMATE(
        WMITER * TM * WNITER * TN, WMITER * TM + WNITER * TN, (BM + BN) * BK / (4 * THREADS));
    static constexpr gl_tile_params tiles = {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, 0};
    static constexpr bool STREAM_K = true; /* auto's stream-K path runs it (compose.cuh) */
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

    template <bool ALIGNED>
    struct mainloop {
        float acc[WMITER * TM][WNITER * TN] = {};
        int wr, wc, lr, lc; /* the warp's tile in the window, the lane's patch in a sub-tile */

        template <class Schedule>
        __device__ __forceinline__ void run(const gl_problem &p, int wr0, int wc0, int row0,
                                            int col0, float *buffers);

        /* Row t of the patch in sub-tile (wm, wn), 4 columns at a time. */
        template <class F>
        __device__ __forceinline__ void for_each_c4(F f) const
        {
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                for (int t = 0; t < TM; ++t)
#pragma unroll
                    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                        for (int u = 0; u < TN; u += 4) {
                            const float *r = &acc[wm * TM + t][wn * TN + u];
                            f(wr + wm * WSUBM + lr + t, wc + wn * WSUBN + lc + u,
                              make_float4(r[0], r[1], r[2], r[3]));
                        }
        }
    };
};

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>
template <bool ALIGNED>
template <class Schedule>
__device__ __forceinline__ void
warptile<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>::mainloop<ALIGNED>::run(
    const gl_problem &p, int wr0, int wc0, int row0, int col0, float *buffers)
{
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD;
    constexpr int STAGE = BK * (SA + SB); /* floats per buffer: As then Bs */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int lr = lane / (WSUBN / TN) * TM, lc = lane % (WSUBN / TN) * TN; /* patch in a sub-tile */
    slice_copy<BK, BM, THREADS, ALIGNED> copy_a(p.a, p.lda, !p.trans_a, wr0);
    slice_copy<BK, BN, THREADS, ALIGNED> copy_b(p.b, p.ldb, p.trans_b, wc0);
    /* Swizzled slices (slice_copy): in rows k with bit 3 set, the thread's
     * fragments start at its x's with bit 3 flipped; the offsets added to
     * the start (wm * WSUBM + t, wn * WSUBN + u) leave that bit alone. The
     * plain slices keep their index as it was written before the swizzle:
     * the 128 x 128 kernels' registers, and their speed, moved with it. */
    constexpr bool SWIZZLED = decltype(copy_a)::SWIZZLED;
    static_assert(!SWIZZLED || (WSUBM % 16 == 0 && WSUBN % 16 == 0 && 8 % TM == 0 && 8 % TN == 0),
                  "fragment offsets must not reach bit 3");
    const int xa = wr + lr, xb = wc + lc, xa8 = xa ^ 8, xb8 = xb ^ 8;

    /* Warps with nothing to store skip the math. */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        Schedule::owns(wr0 + wr + WM - 1, row0) &&
                        Schedule::owns(wc0 + wc + WN - 1, col0);
    float a[WMITER * TM], b[WNITER * TN];

    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    /* A float per load is also a test per load: as in rung 6, a block of
     * the kernel for any alignment whose window lies inside C copies the
     * slices that lie inside K untested. Only on tiles of 128 x 128 and
     * more: on smaller ones, whose grids are mostly edge blocks or too few
     * to hide their loads, the kernel with both copies ran up to 10%
     * slower (docs/ladder.md). */
    constexpr bool UNTESTED_INSIDE = !ALIGNED && !gl_keep_tests && BM >= 128 && BN >= 128;
    const bool window_inside = UNTESTED_INSIDE && p.m - wr0 >= BM && p.n - wc0 >= BN;
    const auto fetch = [&](int s) { /* slice s into registers, then on to slice s + 1 */
        const int k_left = s == 0 ? min(depth0, p.k) : p.k - depth0 - (s - 1) * BK;
        if (ALIGNED ? Schedule::tested(s) : !(window_inside && k_left >= BK)) {
            copy_a.fetch(p.m - wr0, k_left);
            copy_b.fetch(p.n - wc0, k_left);
        } else {
            copy_a.fetch_inside();
            copy_b.fetch_inside();
        }
        copy_a.next_slice(s == 0 ? depth0 : BK);
        copy_b.next_slice(s == 0 ? depth0 : BK);
    };
    fetch(0);
    copy_a.stash(buffers);
    copy_b.stash(buffers + BK * SA);
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
                            *reinterpret_cast<const float4 *>(
                            SWIZZLED ? &As[i * SA + (i & 8 ? xa8 : xa) + wm * WSUBM + t]
                                     : &As[i * SA + wr + wm * WSUBM + lr + t]);
#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                    for (int u = 0; u < TN; u += 4)
                        *reinterpret_cast<float4 *>(&b[wn * TN + u]) =
                            *reinterpret_cast<const float4 *>(
                            SWIZZLED ? &Bs[i * SB + (i & 8 ? xb8 : xb) + wn * WSUBN + u]
                                     : &Bs[i * SB + wc + wn * WSUBN + lc + u]);
#pragma unroll
                for (int t = 0; t < WMITER * TM; ++t)
#pragma unroll
                    for (int u = 0; u < WNITER * TN; ++u)
                        acc[t][u] += a[t] * b[u];
            }
        }

        if (more) { /* into the other buffer, which nobody reads during slice s */
            float *next = buffers + ((s + 1) & 1) * STAGE;
            copy_a.stash(next);
            copy_b.stash(next + BK * SA);
        }
        __syncthreads();
    }
    /* for the epilogue (for_each_c4); set here, not as they are worked out
     * above, which changed ptxas's registers in the inner product */
    this->wr = wr, this->wc = wc, this->lr = lr, this->lc = lc;
}

} // namespace

/* The configurations compiled, default first (BM, BN, BK, WM, WN, WNITER,
 * TM, TN, THREADS: configs.h). */
#define GL_WARPTILE(...) GL_TILE_KERNELS(warptile<__VA_ARGS__>)
GL_RUNG(warptile, GL_WARPTILE_CONFIGS(GL_WARPTILE))
