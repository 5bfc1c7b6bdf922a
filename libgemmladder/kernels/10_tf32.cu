/*
 * Rung 10, tf32: rung 8's block -> warp structure with the inner product
 * done by the tensor cores, on operands rounded to TF32.
 *
 * One instruction, mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, is a
 * whole warp's: a 16 x 8 tile of C += (16 x 8 of A) * (8 x 8 of B), 1024
 * multiply-adds, where rung 8's FFMA is one per lane. Each lane holds a
 * piece of each operand in registers (the fragments); group = lane / 4,
 * tid = lane % 4:
 *
 *        A, 16 x 8 (m x k)             B, 8 x 8 (k x n)     C, 16 x 8 (m x n)
 *        k: tid      tid + 4           n: group             n: 2 tid, 2 tid + 1
 *   m: group     a0       a2      k: tid      b0       m: group     c0, c1
 *   m: group + 8 a1       a3      k: tid + 4  b1       m: group + 8 c2, c3
 *
 * so lane 5 (group 1, tid 1) holds A(1, 1), A(9, 1), A(1, 5), A(9, 5),
 * B(1, 1), B(5, 1), and C(1, 2..3), C(9, 2..3). A block's warps each own a
 * WM x WN tile of C as (WM / 16) x (WN / 8) such products, and at each 8
 * deep step of K a warp loads its fragments from shared memory and issues
 * (WM / 16) * (WN / 8) of them. The sums stay in FP32 registers, 4 per
 * product per lane.
 *
 * Why it is faster: a warp's FFMA is 32 multiply-adds and its mma.sync
 * 1024, and the tensor cores finish those several times faster than the
 * FP32 cores the FFMAs; the ratio of peaks is in docs/ladder.md.
 *
 * What it costs: the tensor cores multiply TF32 values, which keep FP32's
 * 8 exponent bits but only 10 of its 23 mantissa bits. Each float of A and
 * B is rounded to the nearest TF32 value (cvt.rna.tf32.f32) as its
 * fragment register is read from shared memory, a relative change of up
 * to 2^-11; the products of those values are exact and summed in FP32. A
 * result's error is thus about 2^-11 of the size of its terms whatever K
 * is, a few hundred times FP32's on random inputs (gemmladder.h,
 * GL_PRECISION_TF32). The same rounding of the same floats as when they
 * were rounded on their way into shared memory: the same results.
 *
 * Fragments come from shared memory with plain 4-byte loads: ldmatrix's
 * transposing form moves 16-bit elements only, so for 32-bit ones the
 * layout in shared memory is what keeps the loads free of bank conflicts.
 * A slice of op(A) is kept as rows of A, x-major (element (m, k) at
 * m * (BK + 4) + k), and a slice of op(B) as rows of B, k-major (element
 * (k, n) at k * (BN + 8) + n): the lanes reading a0 hit banks 4 group + tid
 * (mod 32), the lanes reading b0 banks 8 tid + group, 32 different banks
 * each. Nothing is transposed in registers and no layout needs a second
 * kernel.
 *
 * The slices come in as rung 12's do (async_copy.cuh): cp.async copies
 * global memory straight into shared memory, into a ring of GL_TF32_STAGES
 * (3) slices, one commit group per slice, a wait and one barrier per
 * slice; the warps multiply slice s while slices s + 1 and s + 2 travel.
 * An operand whose rows run the way the slice's do (A as stored, B not
 * transposed) is copied 16 bytes at a time where aligned; one stored the
 * other way round (A transposed, or B transposed, that is stored n x k) a
 * float at a time, each into its transposed place (cp.async cannot
 * transpose), as are unaligned operands; the lanes of a warp are laid so
 * that the 4-byte copies hit 32 different banks (tf32_copy below). At the
 * edges cp.async's zero fill writes zeros without reading. This is why the
 * rounding moved: cp.async writes the floats as they are, so they are
 * rounded where they are read, twice per float (two warps read each
 * fragment), two instructions each on sm_90 (ptxas keeps the test for
 * infinity and NaN and adds half a TF32 unit, and drops the mask, as
 * mma.sync reads only the top 19 bits). In exchange the loop holds no
 * staged floats: 4 warps of 64 x 64 fit in 168 registers, three blocks an
 * SM (12 warps, where the staged copies allowed 8 at about 240 registers),
 * and the loads have two slices' products to arrive in, not one.
 *
 * The rest is rung 8's: the schedules of the engine and the one epilogue
 * (compose.cuh). The epilogue takes runs of 4 columns of one row, and a
 * lane's C fragment holds 2: neighbouring lanes (tid 2j and 2j + 1) swap
 * halves with one shuffle each, so the even lane holds 4 columns of row
 * group and the odd one 4 of row group + 8 (for_each_c4).
 *
 * What stays slow: the fragment loads (128 bytes of shared memory a
 * product, 4-byte loads) are not double-buffered in registers, for want
 * of registers at three blocks an SM, so a warp still waits on its loads
 * at each step, with 12 warps, not 8, to cover them; the rounding adds
 * about two ALU instructions a product; the transposed operands take 4
 * times the copy instructions of a 16-byte one; the 3-slice ring (57 KB for
 * 128 x 128 x 16) leaves GPUs with 100 KB of shared memory an SM (sm_86,
 * sm_89) one such block an SM; and mma.sync is not Hopper's fastest path
 * (wgmma, fed by TMA, is the next rung's).
 */
#include "async_copy.cuh"
#include "compose.cuh"

namespace {

/* x rounded to the nearest TF32 value (ties away from zero), as the bits
 * mma.sync reads: a float whose low 13 mantissa bits are 0. */
__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* Shared memory an SM holds for blocks, for the code being compiled (the
 * host's pass: sm_90's, unused). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900 && __CUDA_ARCH__ != 800 && __CUDA_ARCH__ != 870
constexpr int gl_tf32_sm_smem = 100 * 1024; /* sm_86, sm_89 */
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int gl_tf32_sm_smem = 164 * 1024; /* sm_80, sm_87 */
#else
constexpr int gl_tf32_sm_smem = 228 * 1024;
#endif

/* The registers to size a block's launch bounds by: the estimate, or more
 * where shared memory holds fewer blocks than the estimate would ask for. */
constexpr int gl_tf32_registers(int threads, int smem, int estimate)
{
    const int blocks = gl_tf32_sm_smem / (smem + 1024); /* 1 KB an SM keeps per block */
    const int fit = blocks > 0 ? 65536 / (threads * blocks) : 255;
    return estimate > fit ? estimate : fit;
}

/* acc (16 x 8, the C fragment) += a (16 x 8) * b (8 x 8), on one warp. */
__device__ __forceinline__ void mma_16x8x8(float (&acc)[4], const uint32_t (&a)[4],
                                           const uint32_t (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * The asynchronous copy of a BX x BK slice of op(A) (x = rows of C;
 * X_MAJOR, kept as x * (BK + 4) + k) or of op(B) (x = columns of C; kept as
 * k * (BX + 8) + x) into a stage of the ring, as raw FP32 (the fragments
 * are rounded when they are read). The slice's own rows are its stride-1
 * runs (of k for A, of x for B); the matrix's rows either run the same way
 * (direct: A as stored, B not transposed) or across them (transposed: A
 * transposed, B transposed), which the call decides, so each copy has both
 * plans and picks one at run time.
 *
 * A plan (below) lays the block's threads over the matrix's rows in the
 * slice: copies W floats wide along a row (W = 4, cp.async.cg of 16 bytes,
 * where direct and ALIGNED; else 1, cp.async.ca of 4 bytes, each float
 * into its place), a warp's lanes RUN neighbouring copies of a row by
 * 32 / RUN neighbouring rows, the block's threads a column block of RUN
 * copies by all SR rows in one or more rounds (P), or several column
 * blocks a round (CB_STEP). RUN is chosen per plan so that a warp's 4-byte
 * copies land in 32 different banks: with rows of BK + 4 floats (4 mod 8)
 * 8 rows of 4 floats, or 4 rows of 8 floats across them; with rows of
 * BX + 8 (8 mod 32) one row of 32 floats, or 8 rows of 4 floats across
 * them. A 16-byte copy of A (BK = 16) meets 2-way conflicts in a quarter
 * warp, as the float4 stores before it did.
 *
 * A copy lies wholly inside or wholly outside the matrix where ALIGNED
 * (gl_a_vec4_ok): one test each; else a test per float. Outside, it is
 * cp.async's zero fill (src-size 0) from the operand's first element, so
 * no address past the matrix is formed into a copy.
 */
template <int BX, int BK, int THREADS, bool X_MAJOR, bool ALIGNED>
struct tf32_copy {
    static constexpr int STRIDE = X_MAJOR ? BK + 4 : BX + 8; /* floats per row of the slice */
    static constexpr int FLOATS = X_MAJOR ? BX * STRIDE : BK * STRIDE;
    static constexpr int ROWS = X_MAJOR ? BX : BK, LEN = X_MAJOR ? BK : BX; /* the slice's rows */
    static_assert(BX % 32 == 0 && BK % 8 == 0, "slices of whole warps' rows, K in steps of 8");

    template <bool DIRECT>
    struct plan {
        static constexpr int W = DIRECT && ALIGNED ? 4 : 1;
        static constexpr int SR = DIRECT ? ROWS : LEN; /* the matrix's rows in the slice */
        static constexpr int SL = DIRECT ? LEN : ROWS; /* and their length */
        static constexpr int RUN = X_MAJOR ? (!DIRECT ? 8 : !ALIGNED ? 4 : BK / 4 < 8 ? BK / 4 : 8)
                                           : (!DIRECT ? 4 : !ALIGNED ? 32 : BX / 4 < 32 ? BX / 4 : 32);
        static constexpr int BLOCK = RUN * SR; /* copies in a column block */
        static constexpr int P = BLOCK > THREADS ? BLOCK / THREADS : 1;
        static constexpr int CB_STEP = BLOCK > THREADS ? 1 : THREADS / BLOCK;
        static constexpr int ROW_STEP = THREADS / RUN; /* from one round to the next, P > 1 */
        static constexpr int COPIES = SR * SL / (W * THREADS);
        static_assert(SL % (RUN * W) == 0 && THREADS % RUN == 0 &&
                          (BLOCK % THREADS == 0 || THREADS % BLOCK == 0) &&
                          (SR * SL) % (W * THREADS) == 0 && COPIES % P == 0,
                      "the block's threads must copy the slice in whole rounds (mma_rule, "
                      "tile_rules.c)");
        /* Copy n's offset from the thread's first, in rows and floats of the
         * matrix, and where (r, c) of the matrix goes in the slice. */
        __device__ static constexpr int drow(int n) { return n % P * ROW_STEP; }
        __device__ static constexpr int dcol(int n) { return n / P * CB_STEP * RUN * W; }
        __device__ static constexpr int place(int r, int c)
        {
            return DIRECT ? r * STRIDE + c : c * STRIDE + r;
        }
    };

    /* Nothing per thread across the loop, where the accumulators leave
     * few registers: these are the same for the whole block (uniform
     * registers), and each slice works out the thread's copies from
     * threadIdx.x again. */
    const float *base; /* the operand; also the zero fills' address, inside it */
    int64_t ld;
    int x0, k0;        /* the window's first x, the current slice's first k */
    bool k_contig;     /* the matrix's rows run along K */

    __device__ tf32_copy(const float *base_, int64_t ld_, bool k_contig_, int x0_)
        : base(base_), ld(ld_), x0(x0_), k0(0), k_contig(k_contig_)
    {
    }

    /* The slice into the stage at shared address `stage`. x_left, k_left:
     * how far the matrix reaches from the slice's first x and k; TESTS
     * false: the slice lies inside it. */
    template <bool TESTS>
    __device__ __forceinline__ void copy(unsigned stage, int x_left, int k_left) const
    {
        if (k_contig == X_MAJOR)
            copy_as<true, TESTS>(stage, x_left, k_left);
        else
            copy_as<false, TESTS>(stage, x_left, k_left);
    }

    template <bool DIRECT, bool TESTS>
    __device__ __forceinline__ void copy_as(unsigned stage, int x_left, int k_left) const
    {
        using G = plan<DIRECT>;
        constexpr bool K_CONTIG = DIRECT == X_MAJOR; /* the matrix's rows are x's */
        /* As in rung 12, form each round's address and test when it is
         * used: left to itself the compiler works out every copy's address
         * or test once, before the loop, and holds them across it (spilled,
         * beside 128 accumulators). */
        int t = threadIdx.x;
        int64_t st = G::ROW_STEP * ld;
        asm volatile("" : "+r"(t), "+l"(st));
        /* the thread's first copy: row and column of the matrix in the slice */
        const int row = t / G::RUN % G::SR, col = (t / G::BLOCK * G::RUN + t % G::RUN) * G::W;
        const float *ptr = K_CONTIG ? base + (int64_t)(x0 + row) * ld + k0 + col
                                    : base + (int64_t)(k0 + row) * ld + x0 + col;
        /* how far the matrix reaches from it */
        const int rows_in = (K_CONTIG ? x_left : k_left) - row;
        const int cols_in = (K_CONTIG ? k_left : x_left) - col;
        const unsigned d0 = stage + 4 * G::place(row, col);
#pragma unroll
        for (int j = 0; j < G::COPIES; j += G::P) {
            const float *q = ptr + G::dcol(j);
#pragma unroll
            for (int i = 0; i < G::P; ++i, q += st) {
                const int n = j + i, r = G::drow(n), c = G::dcol(n);
                const unsigned d = d0 + 4 * G::place(r, c);
                const bool in = !TESTS || (r < rows_in && c < cols_in);
                if constexpr (G::W == 4) {
                    if (TESTS)
                        gl_cp_async16_fill(d, q, base, in);
                    else
                        gl_cp_async16(d, q);
                } else {
                    if (TESTS)
                        gl_cp_async4_fill(d, q, base, in);
                    else
                        gl_cp_async4(d, q);
                }
            }
        }
    }

    /* On to the slice `depth` further along K. */
    __device__ __forceinline__ void next_slice(int depth) { k0 += depth; }
};

/*
 * The mainloop of one configuration: block -> warp -> mma. The block
 * computes a BM x BN window of C (its own tile, unless its schedule moves
 * it); each warp a WM x WN tile of it, as MT x NT products of 16 x 8.
 */
template <int BM_, int BN_, int BK_, int WM, int WN, int THREADS_>
struct tf32_tile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, THREADS = THREADS_;
    static constexpr int MT = WM / 16, NT = WN / 8; /* products per warp and step of K */
    static constexpr int SMEM = GL_TF32_SMEM(BM, BN, BK);
    /* The estimate, for the blocks asked of ptxas (compose.cuh), but never
     * more blocks than the SM's shared memory holds: on sm_86 and sm_89 one
     * 128 x 128 block, where the cap of three (168 registers) bought
     * nothing and spilled. */
    static constexpr int REGISTERS = gl_tf32_registers(
        THREADS, SMEM, GL_TF32_REGISTERS(BM, BN, BK, WM, WN, THREADS));
    static constexpr gl_tile_params tiles = {BM, BN, BK, 0, 0, WM, WN, 0, THREADS, 0};
    static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024,
                  "whole warps, 64 to 1024 threads");
    static_assert(BM % WM == 0 && BN % WN == 0 && (BM / WM) * (BN / WN) == THREADS / 32,
                  "the warp tiles must cover the block tile exactly, one per warp");
    static_assert(WM % 16 == 0 && WN % 8 == 0, "a warp tile is whole 16 x 8 products");

    using slice_a = tf32_copy<BM, BK, THREADS, true, true>;
    using slice_b = tf32_copy<BN, BK, THREADS, false, true>;
    static constexpr int STAGES = GL_TF32_STAGES;
    static_assert(STAGES >= 2, "a ring of at least two slices");
    static_assert(SMEM == STAGES * 4 * (slice_a::FLOATS + slice_b::FLOATS),
                  "GL_TF32_SMEM is the two slices, STAGES times");

    template <bool ALIGNED>
    struct mainloop {
        float acc[MT][NT][4] = {};

        template <class Schedule>
        __device__ __forceinline__ void run(const gl_problem &p, int wr0, int wc0, int row0,
                                            int col0, float *buffers);

        /* Runs of 4 columns: lanes tid 2j and 2j + 1 of a group hold columns
         * 4j .. 4j + 3 of a product's rows group and group + 8 between them
         * (c0 c1 and c2 c3 each); the even lane gives its c2 c3 for the odd
         * one's c0 c1, and then holds row group, the odd one row group + 8.
         * Every lane of the warp takes part (the shuffle needs them all). */
        template <class F>
        __device__ __forceinline__ void for_each_c4(F f) const
        {
            const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
            const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;
            const int group = lane / 4, tid = lane % 4;
            const bool odd = tid & 1;
#pragma unroll
            for (int mi = 0; mi < MT; ++mi)
#pragma unroll
                for (int ni = 0; ni < NT; ++ni) {
                    const float *c = acc[mi][ni];
                    const float give0 = odd ? c[0] : c[2], give1 = odd ? c[1] : c[3];
                    const float got0 = __shfl_xor_sync(0xffffffffu, give0, 1);
                    const float got1 = __shfl_xor_sync(0xffffffffu, give1, 1);
                    const float4 v = odd ? make_float4(got0, got1, c[2], c[3])
                                         : make_float4(c[0], c[1], got0, got1);
                    f(wr + mi * 16 + group + (odd ? 8 : 0), wc + ni * 8 + tid / 2 * 4, v);
                }
        }
    };
};

template <int BM, int BN, int BK, int WM, int WN, int THREADS>
template <bool ALIGNED>
template <class Schedule>
__device__ __forceinline__ void tf32_tile<BM, BN, BK, WM, WN, THREADS>::mainloop<ALIGNED>::run(
    const gl_problem &p, int wr0, int wc0, int row0, int col0, float *buffers)
{
    using copy_a_t = tf32_copy<BM, BK, THREADS, true, ALIGNED>;
    using copy_b_t = tf32_copy<BN, BK, THREADS, false, ALIGNED>;
    constexpr int SA = copy_a_t::STRIDE, SB = copy_b_t::STRIDE;
    constexpr int STAGE = copy_a_t::FLOATS + copy_b_t::FLOATS; /* floats per stage: As then Bs */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int group = lane / 4, tid = lane % 4;
    copy_a_t copy_a(p.a, p.lda, !p.trans_a, wr0);
    copy_b_t copy_b(p.b, p.ldb, p.trans_b, wc0);
    /* the lane's a0 and b0 of the warp's first product, at the first step */
    const int a0 = (wr + group) * SA + tid, b0 = tid * SB + wc + group;

    /* Warps with nothing to store skip the math (not the copies and
     * barriers, which are the block's). */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        Schedule::owns(wr0 + wr + WM - 1, row0) &&
                        Schedule::owns(wc0 + wc + WN - 1, col0);

    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    /* A slice of a window inside C that is BK deep inside K needs no tests,
     * whatever the schedule says for the slices of the grid's edges (a
     * float per copy is also a test per copy where tested). */
    const bool window_inside = !gl_keep_tests && p.m - wr0 >= BM && p.n - wc0 >= BN;
    const unsigned ring = gl_smem_address(buffers);
    /* Slice s into stage s % STAGES, as one commit group (committed by the
     * caller, also where there is no slice left: the groups then count
     * slices one for one). */
    const auto issue = [&](int s) {
        const int k_left = s == 0 ? min(depth0, p.k) : p.k - depth0 - (s - 1) * BK;
        const unsigned stage = ring + 4 * (s % STAGES) * STAGE;
        if (Schedule::tested(s) && !(window_inside && k_left >= BK)) {
            copy_a.template copy<true>(stage, p.m - wr0, k_left);
            copy_b.template copy<true>(stage + 4 * copy_a_t::FLOATS, p.n - wc0, k_left);
        } else {
            copy_a.template copy<false>(stage, 0, 0);
            copy_b.template copy<false>(stage + 4 * copy_a_t::FLOATS, 0, 0);
        }
        copy_a.next_slice(s == 0 ? depth0 : BK);
        copy_b.next_slice(s == 0 ? depth0 : BK);
    };

    /* The first STAGES - 1 slices on their way. */
#pragma unroll 1
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            issue(s);
        gl_cp_async_commit();
    }

#pragma unroll 1
    for (int s = 0; s < slices; ++s) {
        /* Slice s is here (its group and all before it are done, at most the
         * STAGES - 2 after it in flight), and after the barrier every
         * thread's copies of it are visible and every thread is done with
         * slice s - 1, whose stage the next copy overwrites. */
        gl_cp_async_wait<STAGES - 2>();
        __syncthreads();
        if (s + STAGES - 1 < slices)
            issue(s + STAGES - 1);
        gl_cp_async_commit();

        if (active) {
            const float *As = buffers + s % STAGES * STAGE, *Bs = As + copy_a_t::FLOATS;
#pragma unroll
            for (int kk = 0; kk < BK; kk += 8) {
                /* The step's fragments of B, then those of A a product row at
                 * a time: 4 registers of A live beside B's, not 4 * MT. Each
                 * is rounded to TF32 as it is read. */
                uint32_t b[NT][2];
#pragma unroll
                for (int ni = 0; ni < NT; ++ni) {
                    const float *q = Bs + b0 + kk * SB + ni * 8;
                    b[ni][0] = to_tf32(q[0]);      /* (k = tid, n = group) */
                    b[ni][1] = to_tf32(q[4 * SB]); /* (k = tid + 4, n = group) */
                }
#pragma unroll
                for (int mi = 0; mi < MT; ++mi) {
                    const float *q = As + a0 + mi * 16 * SA + kk;
                    const uint32_t a[4] = {
                        to_tf32(q[0]),          /* (group, tid) */
                        to_tf32(q[8 * SA]),     /* (group + 8, tid) */
                        to_tf32(q[4]),          /* (group, tid + 4) */
                        to_tf32(q[8 * SA + 4]), /* (group + 8, tid + 4) */
                    };
#pragma unroll
                    for (int ni = 0; ni < NT; ++ni)
                        mma_16x8x8(acc[mi][ni], a, b[ni]);
                }
            }
        }
    }
    /* Shared memory is free once every thread is past this barrier: every
     * copy has arrived (the groups after the last slice are empty; the wait
     * says so outright), and every read of it is before the barrier: the
     * contract's free shared memory (compose.cuh), which the banded
     * epilogue or a next tile may use at once. */
    gl_cp_async_wait<0>();
    __syncthreads();
}

} // namespace

/* The configurations compiled, default first (BM, BN, BK, WM, WN, THREADS:
 * configs.h). */
#define GL_TF32(...) GL_TILE_KERNELS(tf32_tile<__VA_ARGS__>)
GL_RUNG(tf32, GL_TF32_CONFIGS(GL_TF32))
