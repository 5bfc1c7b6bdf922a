/*
 * Rung 12, pipelined: rung 8's block -> warp -> thread tiling with the
 * slices brought into shared memory by asynchronous copies, several slices
 * in flight, and the fragments of the next step along K read while this
 * one is multiplied.
 *
 * What changes from rung 8, and why:
 *
 * - Copies that bypass registers. Rung 8 loads the next slice into
 *   registers (LDG), and stores it into shared memory after the compute
 *   (STS): 16 staging registers a thread, the stores and their addresses in
 *   the loop, and a slice that must have arrived by the end of one slice's
 *   compute. Here `cp.async` (compute capability 8.0 and up) copies global
 *   memory straight into shared memory (LDGSTS), and the thread moves on.
 *
 * - A ring of STAGES slices (GL_PIPELINED_STAGES, 4). While the warps
 *   multiply slice s, slices s + 1 .. s + STAGES - 1 are on their way: a
 *   slice's loads have STAGES - 1 slices' compute to arrive in, not one.
 *   Each slice is one commit group; `cp.async.wait_group STAGES - 2` then a
 *   barrier make slice s + 1 visible to every thread, and the same barrier
 *   says that every thread is done with the stage that the next copy
 *   overwrites (read during slice s - 1... see the loop). One barrier per
 *   slice, as in rung 8.
 *
 * - Fragments double-buffered in registers: step k + 1's fragments are read
 *   from shared memory (LDS.128) before step k's FFMAs, across the slice's
 *   end too (the next slice's first step is read right after the barrier,
 *   before the slice's last FFMAs), so the FFMAs never wait for a shared
 *   load.
 *
 * The layout in shared memory stays rung 8's: both slices k-major,
 * dst[k * (BX + 4) + x], read 16 bytes at a time along x (a warp's 32
 * lanes read 8 or 4 distinct float4s of one row: one pass of the banks,
 * the rest broadcast). The catch is A as it is usually stored, row-major
 * with K contiguous (and B transposed): a 16-byte copy moves 4 neighbours
 * along K, and cp.async cannot transpose them. Three ways out were
 * weighed: keep such a slice m-major and read 4 k's of each of a thread's
 * rows (the same number of LDS.128, but 32 fragment registers per 4 steps
 * instead of 8 per step: no register double buffering within 128
 * registers), stage it through registers as rung 8 does (the copy this
 * rung removes), or copy it a float at a time, each float to its
 * transposed place: `cp.async.ca` of 4 bytes. This rung takes the last,
 * as CUTLASS's SIMT multistage mainloops for Ampere do for the operand
 * whose layout disagrees with the shared one: 4x the copy instructions of
 * that operand, which is 8 LDGSTS per 1024 FFMA a thread on the 128 x 128
 * tiles (under 1% of the issue slots), and no registers. A warp's 32 such
 * copies take 8 neighbouring k's of 4 rows: 32-byte runs of global
 * memory, whole sectors, and banks 4k + x, all 32 distinct.
 *
 * So each operand is copied one of three ways (async_copy):
 *   rows across K, 16-byte aligned (ALIGNED): cp.async.cg of 16 bytes,
 *     a warp's copies one run of 128 floats along a row of the slice;
 *   rows across K, any alignment: cp.async.ca of 4 bytes, 32 neighbours;
 *   rows along K (A as stored, B transposed), any alignment: cp.async.ca
 *     of 4 bytes into the transposed place, as above.
 * At the edges of the matrices the copies use cp.async's zero fill (the
 * src-size operand 0: nothing is read, zeros are written), so the compute
 * needs no tests. A slice is copied with tests only where its schedule
 * asks (Schedule::tested) and it does not lie wholly inside the operands.
 *
 * What stays slow: the threads that issue FFMAs also issue the copies and
 * work out their addresses, and the copy of A as stored takes 4 times
 * the instructions of a 16-byte one. On sm_90 the tensor memory
 * accelerator (cp.async.bulk.tensor, completing on an mbarrier) copies a
 * whole slice from one thread's instruction, and could transpose nothing
 * either: the next step is a TMA variant with A m-major in shared memory.
 */
#include "async_copy.cuh"
#include "compose.cuh"

namespace {

/*
 * The asynchronous copy of a BK x BX slice of op(A) (x = rows of C) or
 * op(B) (x = columns of C) into shared memory, k-major:
 * dst[k * (BX + GL_SMEM_PAD) + x]. A thread copies the same elements of
 * every slice; its first is (x, k) of the slice, the others at fixed
 * offsets from it:
 *   rows along K (k_contiguous), a float each, transposed: lanes take
 *     k = lane % 8 and 4 neighbouring x's, element (jx, jk) at
 *     (x + jx * THREADS / 8, k + 8 * jk);
 *   rows across K, aligned (ALIGNED): 4 floats of x each, element j at
 *     (x, k + j * THREADS / (BX / 4));
 *   rows across K, any alignment: a float each, element j at
 *     (x, k + j * THREADS / BX).
 */
template <int BK, int BX, int THREADS, bool ALIGNED>
struct async_copy {
    static constexpr int STRIDE = BX + GL_SMEM_PAD;
    /* rows along K: x's per round and rounds along x */
    static constexpr int KX = THREADS / 8, KROUNDS = BX / KX;
    /* rows across K: floats per copy, copies per row of the slice, rows per round */
    static constexpr int WIDTH = ALIGNED ? 4 : 1, PER_ROW = BX / WIDTH, ROWS = THREADS / PER_ROW;
    static_assert(BK % 8 == 0 && THREADS % 8 == 0 && BX % KX == 0,
                  "rows along K: 8 k's by THREADS / 8 x's per round, in whole rounds");
    static_assert(BX % WIDTH == 0 && THREADS % PER_ROW == 0 && BK % ROWS == 0,
                  "rows across K: whole rows of the slice per round, whole rounds per slice");
    static_assert(BX % 32 == 0, "rows of BX + 4 floats: banks 4k + x for the transposed copy");

    const float *ptr;  /* this thread's first element of the current slice */
    const float *safe; /* an element inside the operand, for the copies with zero fill */
    int64_t step;      /* from one round to the next */
    int64_t k_step;    /* from one slice's first k to the next's: 1 or ld */
    int x, k;          /* the thread's first element of the slice */
    bool k_contiguous;

    __device__ async_copy(const float *base, int64_t ld, bool k_contig, int x0)
        : safe(base), k_contiguous(k_contig)
    {
        const int t = threadIdx.x;
        if (k_contig) {
            k = t % 8, x = t / 8;
            ptr = base + ((int64_t)x0 + x) * ld + k;
            step = KX * ld;
            k_step = 1;
        } else {
            x = t % PER_ROW * WIDTH, k = t / PER_ROW;
            ptr = base + k * ld + x0 + x;
            step = ROWS * ld;
            k_step = ld;
        }
    }

    /* The thread's first element's place in a slice, in floats. */
    __device__ __forceinline__ int offset() const { return k * STRIDE + x; }

    /* Copies the slice into the stage at shared address dst (this thread's
     * first element's place: dst of the stage + 4 * offset()). x_left,
     * k_left: how far the operand reaches from the slice's first x and k;
     * TESTS false: the slice lies inside it. */
    template <bool TESTS>
    __device__ __forceinline__ void copy(unsigned dst, int x_left, int k_left) const
    {
        const float *q = ptr;
        int64_t st = step;
        /* as in rung 8: form each round's address when it is used, instead
         * of holding one 64-bit pointer per round across the slices */
        asm volatile("" : "+l"(st));
        if (k_contiguous) {
#pragma unroll
            for (int jx = 0; jx < KROUNDS; ++jx, q += st)
#pragma unroll
                for (int jk = 0; jk < BK / 8; ++jk) {
                    const unsigned d = dst + 4 * (8 * jk * STRIDE + jx * KX);
                    if (TESTS)
                        gl_cp_async4_fill(d, q + 8 * jk, safe,
                                          x + jx * KX < x_left && k + 8 * jk < k_left);
                    else
                        gl_cp_async4(d, q + 8 * jk);
                }
        } else {
#pragma unroll
            for (int j = 0; j < BK / ROWS; ++j, q += st) {
                const unsigned d = dst + 4 * (j * ROWS * STRIDE);
                const bool in = !TESTS || (x < x_left && k + j * ROWS < k_left);
                if (ALIGNED) {
                    if (TESTS)
                        gl_cp_async16_fill(d, q, safe, in);
                    else
                        gl_cp_async16(d, q);
                } else {
                    if (TESTS)
                        gl_cp_async4_fill(d, q, safe, in);
                    else
                        gl_cp_async4(d, q);
                }
            }
        }
    }

    /* On to the slice `depth` further along K. */
    __device__ __forceinline__ void next_slice(int depth) { ptr += depth * k_step; }
};

/*
 * The mainloop of one configuration: rung 8's tiles (BM x BN block, WM x
 * WN warp tiles walked as WMITER x WNITER sub-tiles of 32 lanes' TM x TN
 * patches), fed by a ring of STAGES slices.
 */
template <int BM_, int BN_, int BK_, int WM, int WN, int WNITER, int TM, int TN, int THREADS_>
struct pipelined {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, THREADS = THREADS_;
    static constexpr int STAGES = GL_PIPELINED_STAGES;
    static constexpr int WMITER = WM * WN / (32 * TM * TN * WNITER);
    static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER; /* one sub-tile */
    static constexpr int FA = WMITER * TM, FB = WNITER * TN;       /* fragment floats */
    static constexpr int SMEM = GL_PIPELINED_SMEM(BM, BN, BK);
    /* no staged float4s; fragments twice over */
    static constexpr int REGISTERS = GL_REGISTER_ESTIMATE(FA * FB, 2 * (FA + FB), 0);
    static constexpr gl_tile_params tiles = {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS};
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
    static_assert(STAGES >= 2, "a ring of at least two slices");
    static_assert(BK % 2 == 0, "the next slice's first fragments go into buffer 0");

    template <bool ALIGNED>
    struct mainloop {
        float acc[FA][FB] = {};
        int wr, wc, lr, lc; /* the warp's tile in the window, the lane's patch in a sub-tile */

        template <class Schedule>
        __device__ __forceinline__ void run(const gl_problem &p, int wr0, int wc0, int row0,
                                            int col0, float *buffers);

        /* Step k's fragments of the slice at As, Bs (this thread's first
         * x's) into buffer BUF. */
        template <int BUF>
        __device__ __forceinline__ void fragments(float (&a)[2][FA], float (&b)[2][FB],
                                                  const float *As, const float *Bs, int k) const
        {
            constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD;
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                for (int t = 0; t < TM; t += 4)
                    *reinterpret_cast<float4 *>(&a[BUF][wm * TM + t]) =
                        *reinterpret_cast<const float4 *>(&As[k * SA + wm * WSUBM + t]);
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int u = 0; u < TN; u += 4)
                    *reinterpret_cast<float4 *>(&b[BUF][wn * TN + u]) =
                        *reinterpret_cast<const float4 *>(&Bs[k * SB + wn * WSUBN + u]);
        }

        template <int BUF>
        __device__ __forceinline__ void multiply(const float (&a)[2][FA], const float (&b)[2][FB])
        {
#pragma unroll
            for (int t = 0; t < FA; ++t)
#pragma unroll
                for (int u = 0; u < FB; ++u)
                    acc[t][u] += a[BUF][t] * b[BUF][u];
        }

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
pipelined<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>::mainloop<ALIGNED>::run(
    const gl_problem &p, int wr0, int wc0, int row0, int col0, float *buffers)
{
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD;
    constexpr int STAGE = BK * (SA + SB); /* floats per stage: As then Bs */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int lr = lane / (WSUBN / TN) * TM, lc = lane % (WSUBN / TN) * TN; /* patch in a sub-tile */
    async_copy<BK, BM, THREADS, ALIGNED> copy_a(p.a, p.lda, !p.trans_a, wr0);
    async_copy<BK, BN, THREADS, ALIGNED> copy_b(p.b, p.ldb, p.trans_b, wc0);

    /* Warps with nothing to store skip the math (not the copies and
     * barriers, which are the block's). */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        Schedule::owns(wr0 + wr + WM - 1, row0) &&
                        Schedule::owns(wc0 + wc + WN - 1, col0);

    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    /* A slice of a window inside C that is BK deep inside K needs no tests,
     * whatever the schedule says for the slices of the grid's edges. */
    const bool window_inside = p.m - wr0 >= BM && p.n - wc0 >= BN;
    const unsigned ring = gl_smem_address(buffers);
    const unsigned dst_a = ring + 4 * copy_a.offset(), dst_b = ring + 4 * (BK * SA + copy_b.offset());
    /* Slice s into stage s % STAGES, as one commit group (committed by the
     * caller, also where there is no slice left: the groups then count
     * slices one for one). */
    const auto issue = [&](int s) {
        const int k_left = s == 0 ? min(depth0, p.k) : p.k - depth0 - (s - 1) * BK;
        const unsigned stage = 4 * (s % STAGES) * STAGE;
        if (Schedule::tested(s) && !(window_inside && k_left >= BK)) {
            copy_a.template copy<true>(dst_a + stage, p.m - wr0, k_left);
            copy_b.template copy<true>(dst_b + stage, p.n - wc0, k_left);
        } else {
            copy_a.template copy<false>(dst_a + stage, 0, 0);
            copy_b.template copy<false>(dst_b + stage, 0, 0);
        }
        copy_a.next_slice(s == 0 ? depth0 : BK);
        copy_b.next_slice(s == 0 ? depth0 : BK);
    };

    /* The first STAGES - 1 slices on their way. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            issue(s);
        gl_cp_async_commit();
    }

    /* This thread's fragments start at its x's in each slice. */
    const float *const a_frag = buffers + wr + lr, *const b_frag = buffers + BK * SA + wc + lc;
    float a[2][FA], b[2][FB];

    gl_cp_async_wait<STAGES - 2>(); /* slice 0 is here */
    __syncthreads();
    if (active)
        fragments<0>(a, b, a_frag, b_frag, 0);

#pragma unroll 1
    for (int s = 0; s < slices; ++s) {
        /* Slice s + STAGES - 1 into the stage of slice s - 1, which every
         * thread finished reading before the barrier that ended slice s - 1. */
        if (s + STAGES - 1 < slices)
            issue(s + STAGES - 1);
        gl_cp_async_commit();

        const int stage = s % STAGES * STAGE;
        const float *As = a_frag + stage, *Bs = b_frag + stage;
        if (active) {
#pragma unroll
            for (int k = 0; k < BK - 1; k += 2) {
                fragments<1>(a, b, As, Bs, k + 1);
                multiply<0>(a, b);
                if (k + 2 < BK) {
                    fragments<0>(a, b, As, Bs, k + 2);
                    multiply<1>(a, b);
                }
            }
        }
        /* Slice s + 1 is here (its group and all before it are done, at most
         * the STAGES - 2 after it in flight), and every thread's reads of
         * slice s are behind the barrier. */
        gl_cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (active) {
            /* Unconditional, so that ptxas issues the loads before step BK -
             * 1's FFMAs (behind a test it put them after); after the last
             * slice they read a stage no copy writes any more, unused. */
            const int next = (s + 1) % STAGES * STAGE;
            fragments<0>(a, b, a_frag + next, b_frag + next, 0);
            multiply<1>(a, b); /* step BK - 1 */
        }
    }
    /* Shared memory is free once every thread is past this barrier: every
     * copy of a slice has arrived (the groups still counted in flight are
     * empty), and every read is before it, the unused reads after the last
     * slice too: the contract's free shared memory (compose.cuh), which the
     * banded epilogue or a next tile may use at once. */
    __syncthreads();

    /* for the epilogue (for_each_c4) */
    this->wr = wr, this->wc = wc, this->lr = lr, this->lc = lc;
}

} // namespace

/* The configurations compiled, default first (BM, BN, BK, WM, WN, WNITER,
 * TM, TN, THREADS: configs.h). */
#define GL_PIPELINED(...) GL_TILE_KERNELS(pipelined<__VA_ARGS__>)
GL_RUNG(pipelined, GL_PIPELINED_CONFIGS(GL_PIPELINED))
