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
 * - A ring of STAGES slices (the configuration's stages: 4, or 2). While the warps
 *   multiply slice s, slices s + 1 .. s + STAGES - 1 are on their way: a
 *   slice's loads have STAGES - 1 slices' compute to arrive in, not one.
 *   Each slice is one commit group; at the top of slice s's iteration
 *   `cp.async.wait_group STAGES - 2` then a barrier make slice s visible
 *   to every thread, and the same barrier says that every thread is done
 *   with slice s - 1's stage, which the iteration's copies (slice
 *   s + STAGES - 1) then overwrite. One barrier per slice, as in rung 8.
 *
 * - Fragments double-buffered in registers: step k + 1's fragments are read
 *   from shared memory (LDS.128) before step k's FFMAs, across the slice's
 *   end too (slice s's first step is read right after the barrier, before
 *   the FFMAs of slice s - 1's last step, which are the iteration's first;
 *   zeros before slice 0), so the FFMAs never wait for a shared load.
 *
 * - A lean loop around the 1,024 FFMAs of a slice (128 x 128 x 16). The
 *   copies' directions (see below) are decided once: row-major A and B
 *   run a loop with them compiled in (GL_PIPELINED_OWN_NN_LOOP), the other
 *   layouts a generic loop that picks one of four straight runs of copies
 *   per slice. A thread's copies and fragment reads sit at constant offsets
 *   from one shared address each (immediates); the ring's stages are
 *   rotating byte offsets, the same in every thread (ptxas keeps them in
 *   uniform registers); each round of copies is one 64-bit add from the
 *   round before, and each slice one from the slice before. The only test of the FFMAs is the warp's `active`, one branch
 *   a slice, since the last step of a slice is multiplied in the next
 *   slice's iteration, after its barrier.
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
#include <type_traits>

#include "async_copy.cuh"
#include "compose.cuh"

/* Whether row-major A and B (op(A) = A, op(B) = B: A's rows along K, B's
 * across), the layout most products come in, get a loop of their own with
 * the copies' directions compiled in (1), or run the generic loop of the
 * other layouts (0). In sm_90 SASS the own loop holds 3 fewer instructions
 * a slice than the generic one for this layout, and doubles this file's
 * compile time: a GPU run decides. */
#ifndef GL_PIPELINED_OWN_NN_LOOP
#define GL_PIPELINED_OWN_NN_LOOP 1
#endif

namespace {

/*
 * The asynchronous copy of a BK x BX slice of op(A) (x = rows of C) or
 * op(B) (x = columns of C) into shared memory, k-major:
 * dst[k * (BX + GL_SMEM_PAD) + x]. The direction of the operand's rows
 * (ROWS_) is compiled in (GL_ROWS_ALONG_K, GL_ROWS_ACROSS_K), or the
 * operand's at run time (GL_ROWS_EITHER: along_k, and the caller picks
 * the copy for it). A thread copies the same elements of every slice; its
 * first is (x, k) of the slice, the others at fixed offsets from it:
 *   rows along K (A as stored, B transposed), a float each, transposed:
 *     lanes take k = lane % 8 and 4 neighbouring x's, element (jx, jk) at
 *     (x + jx * THREADS / 8, k + 8 * jk): a round per jx, one row of the
 *     operand, whose BK / 8 k's are 32 bytes apart;
 *   rows across K, aligned (ALIGNED): 4 floats of x each, element j at
 *     (x, k + j * THREADS / (BX / 4)): a round per j;
 *   rows across K, any alignment: a float each, element j at
 *     (x, k + j * THREADS / BX): a round per j.
 * The rounds' places in shared memory are constants from the thread's
 * first (immediate offsets of one address); in global memory each round
 * is one 64-bit add from the one before, and a slice one from the last.
 */
enum gl_rows { GL_ROWS_ACROSS_K, GL_ROWS_ALONG_K, GL_ROWS_EITHER };

template <int BK, int BX, int THREADS, bool ALIGNED, gl_rows ROWS_>
struct async_copy {
    static constexpr int STRIDE = BX + GL_SMEM_PAD;
    /* rows along K: x's per round and rounds along x */
    static constexpr int KX = THREADS / 8, KROUNDS = BX / KX;
    /* rows across K: floats per copy, copies per row of the slice, rows per round */
    static constexpr int WIDTH = ALIGNED ? 4 : 1, PER_ROW = BX / WIDTH, ROWS = THREADS / PER_ROW;
    /* both directions, as the generic loop compiles both copies */
    static_assert(BK % 8 == 0 && THREADS % 8 == 0 && KROUNDS * KX == BX,
                  "rows along K: 8 k's by THREADS / 8 x's per round, in whole rounds");
    static_assert(BX % WIDTH == 0 && THREADS % PER_ROW == 0 && BK % ROWS == 0,
                  "rows across K: whole rows of the slice per round, whole rounds per slice");
    static_assert(BX % 32 == 0, "rows of BX + 4 floats: banks 4k + x for the transposed copy");

    const char *ptr;   /* this thread's first element of the current slice */
    const float *safe; /* an element inside the operand, for the copies with zero fill */
    int64_t round;     /* bytes from one round's first element to the next's */
    int64_t k_bytes;   /* bytes from one k to the next: 4 or 4 * ld */
    int x, k;          /* the thread's first element of the slice */
    bool along_k;      /* the rows' direction: ROWS_'s, or the operand's for EITHER */

    __device__ async_copy(const float *base, int64_t ld, bool k_contig, int x0)
        : safe(base), along_k(ROWS_ == GL_ROWS_EITHER ? k_contig : ROWS_ == GL_ROWS_ALONG_K)
    {
        const int t = threadIdx.x;
        if (along_k) {
            k = t % 8, x = t / 8;
            ptr = reinterpret_cast<const char *>(base + ((int64_t)x0 + x) * ld + k);
            round = 4 * KX * ld;
            k_bytes = 4;
        } else {
            x = t % PER_ROW * WIDTH, k = t / PER_ROW;
            ptr = reinterpret_cast<const char *>(base + k * ld + x0 + x);
            round = 4 * ROWS * ld;
            k_bytes = 4 * ld;
        }
    }

    /* The thread's first element's place in a slice, in floats. */
    __device__ __forceinline__ int offset() const { return k * STRIDE + x; }

    /* Copies the slice into the stage at shared address dst (this thread's
     * first element's place: dst of the stage + 4 * offset()), its rows
     * along K or not (ALONG: along_k, as the caller knows it). x_left,
     * k_left: how far the operand reaches from the slice's first x and k;
     * TESTS false: the slice lies inside it. */
    template <bool TESTS, bool ALONG>
    __device__ __forceinline__ void copy(unsigned dst, int x_left, int k_left) const
    {
        const char *q = ptr;
        int64_t r = round;
        /* as in rung 8: form each round's address when it is used, one
         * 64-bit add from the round before (q, r opaque: not a product of
         * r, nor one 64-bit pointer per round held across the slices) */
        asm volatile("" : "+l"(r));
        const auto next_round = [&] {
            q += r;
            asm volatile("" : "+l"(q));
        };
        /* how far the operand reaches from the thread's first element */
        const int xr = x_left - x, kr = k_left - k;
        if constexpr (ALONG) {
#pragma unroll
            for (int jx = 0; jx < KROUNDS; ++jx, next_round())
#pragma unroll
                for (int jk = 0; jk < BK / 8; ++jk) {
                    const unsigned d = dst + 4 * (8 * jk * STRIDE + jx * KX);
                    const float *src = reinterpret_cast<const float *>(q) + 8 * jk;
                    if (TESTS)
                        gl_cp_async4_fill(d, src, safe, jx * KX < xr && 8 * jk < kr);
                    else
                        gl_cp_async4(d, src);
                }
        } else {
#pragma unroll
            for (int j = 0; j < BK / ROWS; ++j, next_round()) {
                const unsigned d = dst + 4 * (j * ROWS * STRIDE);
                const float *src = reinterpret_cast<const float *>(q);
                const bool in = !TESTS || (0 < xr && j * ROWS < kr);
                if (ALIGNED) {
                    if (TESTS)
                        gl_cp_async16_fill(d, src, safe, in);
                    else
                        gl_cp_async16(d, src);
                } else {
                    if (TESTS)
                        gl_cp_async4_fill(d, src, safe, in);
                    else
                        gl_cp_async4(d, src);
                }
            }
        }
    }

    /* On to the slice `depth` further along K. */
    __device__ __forceinline__ void next_slice(int depth) { ptr += depth * k_bytes; }
};

/* f(along_a, along_b) with the two directions as compile-time constants
 * (std::integral_constant), through one branch of four. */
template <class F>
__device__ __forceinline__ void gl_for_directions(bool along_a, bool along_b, F f)
{
    using yes = std::true_type;
    using no = std::false_type;
    if (along_a) {
        if (along_b)
            f(yes(), yes());
        else
            f(yes(), no());
    } else {
        if (along_b)
            f(no(), yes());
        else
            f(no(), no());
    }
}

/*
 * The mainloop of one configuration: rung 8's tiles (BM x BN block, WM x
 * WN warp tiles walked as WMITER x WNITER sub-tiles of 32 lanes' TM x TN
 * patches), fed by a ring of STAGES slices.
 */
template <int BM_, int BN_, int BK_, int WM, int WN, int WNITER, int TM, int TN, int THREADS_,
          int STAGES_>
struct pipelined {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, THREADS = THREADS_;
    static constexpr int STAGES = STAGES_;
    static constexpr int WMITER = WM * WN / (32 * TM * TN * WNITER);
    static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER; /* one sub-tile */
    static constexpr int FA = WMITER * TM, FB = WNITER * TN;       /* fragment floats */
    static constexpr int SMEM = GL_PIPELINED_SMEM(BM, BN, BK, STAGES);
    /* no staged float4s; fragments twice over */
    static constexpr int REGISTERS = GL_REGISTER_ESTIMATE(FA * FB, 2 * (FA + FB), 0);
    static constexpr gl_tile_params tiles = {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, STAGES};
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
    static_assert(BK % 2 == 0, "step BK - 1 in buffer 1, multiplied after the next barrier");

    template <bool ALIGNED>
    struct mainloop {
        float acc[FA][FB] = {};
        int wr, wc, lr, lc; /* the warp's tile in the window, the lane's patch in a sub-tile */

        template <class Schedule>
        __device__ __forceinline__ void run(const gl_problem &p, int wr0, int wc0, int row0,
                                            int col0, float *buffers);

        /* run's copies and loop, for one direction of each operand's rows
         * (KA: A's along K, KB: B's). */
        template <class Schedule, gl_rows RA, gl_rows RB>
        __device__ __forceinline__ void pipeline(const gl_problem &p, int wr0, int wc0,
                                                 bool active, const float *a_frag,
                                                 const float *b_frag, float *buffers);

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

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int STAGES>
template <bool ALIGNED>
template <class Schedule>
__device__ __forceinline__ void
pipelined<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, STAGES>::mainloop<ALIGNED>::run(
    const gl_problem &p, int wr0, int wc0, int row0, int col0, float *buffers)
{
    constexpr int SA = BM + GL_SMEM_PAD;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int lr = lane / (WSUBN / TN) * TM, lc = lane % (WSUBN / TN) * TN; /* patch in a sub-tile */

    /* Warps with nothing to store skip the math (not the copies and
     * barriers, which are the block's). */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        Schedule::owns(wr0 + wr + WM - 1, row0) &&
                        Schedule::owns(wc0 + wc + WN - 1, col0);
    /* This thread's fragments start at its x's in each slice. */
    const float *const a_frag = buffers + wr + lr, *const b_frag = buffers + BK * SA + wc + lc;

    /* for the epilogue (for_each_c4) */
    this->wr = wr, this->wc = wc, this->lr = lr, this->lc = lc;

    /* The copies' directions, decided once for the whole loop (they are
     * the same for every block): row-major A and B in a loop of their own,
     * where the directions are compiled in; the other layouts in the
     * generic loop, which picks the copies of the slice's layout through
     * one branch of four per slice (GL_PIPELINED_OWN_NN_LOOP). */
    if constexpr (GL_PIPELINED_OWN_NN_LOOP) {
        if (!p.trans_a && !p.trans_b) {
            pipeline<Schedule, GL_ROWS_ALONG_K, GL_ROWS_ACROSS_K>(p, wr0, wc0, active, a_frag,
                                                                  b_frag, buffers);
            return;
        }
    }
    pipeline<Schedule, GL_ROWS_EITHER, GL_ROWS_EITHER>(p, wr0, wc0, active, a_frag, b_frag,
                                                       buffers);
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS,
          int STAGES>
template <bool ALIGNED>
template <class Schedule, gl_rows RA, gl_rows RB>
__device__ __forceinline__ void
pipelined<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, STAGES>::mainloop<ALIGNED>::pipeline(
    const gl_problem &p, int wr0, int wc0, bool active, const float *a_frag,
    const float *b_frag, float *buffers)
{
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD;
    /* bytes per stage (As then Bs), and of the ring */
    constexpr unsigned STAGE = 4 * BK * (SA + SB), RING = STAGES * STAGE;
    async_copy<BK, BM, THREADS, ALIGNED, RA> copy_a(p.a, p.lda, !p.trans_a, wr0);
    async_copy<BK, BN, THREADS, ALIGNED, RB> copy_b(p.b, p.ldb, p.trans_b, wc0);

    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    /* A slice of a window inside C that is BK deep inside K needs no tests,
     * whatever the schedule says for the slices of the grid's edges. */
    const bool window_inside = p.m - wr0 >= BM && p.n - wc0 >= BN;
    const unsigned ring = gl_smem_address(buffers);
    const unsigned dst_a = ring + 4 * copy_a.offset(), dst_b = ring + 4 * (BK * SA + copy_b.offset());
    /* Slice s into the stage at byte `stage` of the ring, as one commit
     * group (committed by the caller, also where there is no slice left:
     * the groups then count slices one for one). */
    const auto issue = [&](int s, unsigned stage) {
        const int k_left = s == 0 ? min(depth0, p.k) : p.k - depth0 - (s - 1) * BK;
        const bool tests = Schedule::tested(s) && !(window_inside && k_left >= BK);
        /* the copies in their rows' directions: known here (RA, RB), or
         * one branch of four for the generic loop */
        gl_for_directions(copy_a.along_k, copy_b.along_k, [&](auto along_a, auto along_b) {
            if (tests) {
                copy_a.template copy<true, along_a>(dst_a + stage, p.m - wr0, k_left);
                copy_b.template copy<true, along_b>(dst_b + stage, p.n - wc0, k_left);
            } else {
                copy_a.template copy<false, along_a>(dst_a + stage, 0, 0);
                copy_b.template copy<false, along_b>(dst_b + stage, 0, 0);
            }
        });
        copy_a.next_slice(s == 0 ? depth0 : BK);
        copy_b.next_slice(s == 0 ? depth0 : BK);
    };
    /* The fragments of a stage: the thread's first x's, `stage` bytes on. */
    const auto at = [](const float *frag, unsigned stage) {
        return reinterpret_cast<const float *>(reinterpret_cast<const char *>(frag) + stage);
    };

    /* The first STAGES - 1 slices on their way, slice s into stage s. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            issue(s, s * STAGE);
        gl_cp_async_commit();
    }

    /* The fragments of two steps: buffer 1 holds step BK - 1 of the slice
     * before, multiplied in the next slice's loop: zeros before slice 0
     * (the accumulators stay +0). */
    float a[2][FA] = {}, b[2][FB] = {};
    /* The stages of slice s (read) and of slice s + STAGES - 1 (write,
     * the one slice s - 1 was read from), in bytes of the ring. */
    unsigned read = 0, write = (STAGES - 1) * STAGE;
    const int issues = slices - (STAGES - 1); /* the slices that issue one */
#pragma unroll 1
    for (int s = 0; s < slices; ++s) {
        /* Slice s is here (its group and all before it are done, at most
         * the STAGES - 2 after it in flight), and every thread's reads of
         * slice s - 1 are behind the barrier. */
        gl_cp_async_wait<STAGES - 2>();
        __syncthreads();
        /* Slice s + STAGES - 1 into the stage of slice s - 1 (first: while
         * only buffer 1 of the fragments is live). */
        if (s < issues)
            issue(s + STAGES - 1, write);
        gl_cp_async_commit();
        /* Step 0's fragments, in every warp (the active ones' only test is
         * then the one around the FFMAs), so that their loads are on their
         * way during step BK - 1 of the slice before. */
        const float *As = at(a_frag, read), *Bs = at(b_frag, read);
        fragments<0>(a, b, As, Bs, 0);
        if (active) {
            multiply<1>(a, b); /* step BK - 1 of slice s - 1 */
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
        /* On round the ring: slice s's stage is written next. */
        write = read;
        read = read + STAGE == RING ? 0 : read + STAGE;
    }
    if (active)
        multiply<1>(a, b); /* step BK - 1 of the last slice */
    /* Shared memory is free once every thread is past this barrier: every
     * copy of a slice has arrived (each thread waited for the last slice's
     * group at the top of its last iteration; the groups still counted in
     * flight are empty), and every read is before it: the contract's free
     * shared memory (compose.cuh), which the banded epilogue or a next tile
     * may use at once. */
    __syncthreads();
}

} // namespace

/* The configurations compiled, default first (BM, BN, BK, WM, WN, WNITER,
 * TM, TN, THREADS, STAGES: configs.h). */
#define GL_PIPELINED(...) GL_TILE_KERNELS(pipelined<__VA_ARGS__>)
GL_RUNG(pipelined, GL_PIPELINED_CONFIGS(GL_PIPELINED))
