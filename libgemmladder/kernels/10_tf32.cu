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
 * B is rounded to the nearest TF32 value (cvt.rna.tf32.f32) on its way into
 * shared memory, a relative change of up to 2^-11; the products of those
 * values are exact and summed in FP32. A result's error is thus about
 * 2^-11 of the size of its terms whatever K is, a few hundred times
 * FP32's on random inputs (gemmladder.h, GL_PRECISION_TF32).
 *
 * Fragments come from shared memory with plain 4-byte loads: ldmatrix's
 * transposing form moves 16-bit elements only, so for 32-bit ones the
 * layout in shared memory is what keeps the loads free of bank conflicts.
 * A slice of op(A) is kept as rows of A, x-major (element (m, k) at
 * m * (BK + 4) + k), and a slice of op(B) as rows of B, k-major (element
 * (k, n) at k * (BN + 8) + n): the lanes reading a0 hit banks 4 group + tid
 * (mod 32), the lanes reading b0 banks 8 tid + group, 32 different banks
 * each. An operand stored the other way round (A transposed, or B
 * transposed, that is stored n x k) is transposed on its way in, as rung
 * 6's A is: its 16-byte loads run along the matrix's rows, so a float4
 * holds 4 neighbours that go to 4 different rows of the slice, and its
 * lanes take neighbouring rows of the matrix so that each of the 4 stores
 * hits 32 different banks (tf32_slice below). Nothing is transposed in
 * registers and no layout needs a second kernel.
 *
 * The rest is rung 8's: two slices in shared memory, the next one's loads
 * issued before this one's products and stored after them, one barrier per
 * slice; 16-byte copies with a test per group at the edges, a float per
 * load where the operands are not aligned for them; the schedules of the
 * engine and the one epilogue (compose.cuh). The epilogue takes runs of 4
 * columns of one row, and a lane's C fragment holds 2: neighbouring lanes
 * (tid 2j and 2j + 1) swap halves with one shuffle each, so the even lane
 * holds 4 columns of row group and the odd one 4 of row group + 8
 * (for_each_c4).
 *
 * What stays slow: a block of 64 x 64 warp tiles needs about 240
 * registers a thread, so an SM holds 8 warps, two a scheduler, too few to
 * hide the latency of the fragment loads (128 bytes of shared memory a
 * product) and of the products (ncu on an H200: the tensor pipe active 39%
 * of the time); the copies go through registers (cp.async would not, but
 * the operands must be rounded on the way), which keeps slices at 16 deep
 * and two in flight; and mma.sync is not Hopper's fastest path (wgmma, fed
 * by TMA, is the next rung's).
 */
#include "compose.cuh"

namespace {

/* Rounds x to the nearest TF32 value (ties away from zero); the result is
 * a float whose low 13 mantissa bits are 0, as mma.sync reads it. */
__device__ __forceinline__ float to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}

__device__ __forceinline__ float4 to_tf32(float4 v)
{
    return make_float4(to_tf32(v.x), to_tf32(v.y), to_tf32(v.z), to_tf32(v.w));
}

/* One 16-byte store to shared memory, written as the instruction itself:
 * where the same code also stores 4 floats one by one (the transposed
 * copies), the compiler otherwise merges both into 4 stores with chosen
 * addresses, and the direct copy's float4s then meet 4-way bank conflicts
 * (measured: 3.4 times the ideal store wavefronts, the block's largest
 * shared-memory cost). */
__device__ __forceinline__ void store_shared4(float *d, float4 t)
{
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(
                     (unsigned)__cvta_generic_to_shared(d)),
                 "f"(t.x), "f"(t.y), "f"(t.z), "f"(t.w)
                 : "memory");
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
 * A BX x BK slice of op(A) (x = rows of C; X_MAJOR, kept as x * (BK + 4) +
 * k) or of op(B) (x = columns of C; kept as k * (BX + 8) + x) copied into
 * shared memory, rounded to TF32, 4 neighbouring floats of a row of the
 * matrix as stored at a time: one 16-byte load where ALIGNED, else 4 loads.
 *   direct (the matrix's rows run the way the slice's do: A as stored, B
 *   not transposed): a warp's lanes take neighbouring groups along a row,
 *   and each stores its 4 floats as one float4;
 *   transposed (A transposed, B transposed): a warp's lanes take the same
 *   group of neighbouring rows, and each stores its 4 floats one by one,
 *   4 rows of the slice apart; with rows of BK + 4 (4 mod 32) or BX + 8 (8
 *   mod 32) floats, a store's 32 lanes hit 32 different banks.
 * A group lies wholly inside or wholly outside the matrix where ALIGNED
 * (gl_a_vec4_ok): one test each; else a test per float.
 */
template <int BX, int BK, int THREADS, bool X_MAJOR, bool ALIGNED>
struct tf32_slice {
    static constexpr int STRIDE = X_MAJOR ? BK + 4 : BX + 8; /* floats per row of the slice */
    static constexpr int FLOATS = X_MAJOR ? BX * STRIDE : BK * STRIDE;
    static constexpr int LOADS = BX * BK / (4 * THREADS);
    static_assert(BX % 32 == 0 && BK % 8 == 0, "slices of whole warps' rows, K in steps of 8");
    static_assert(LOADS >= 1 && (BX * BK) % (4 * THREADS) == 0,
                  "the block's threads must copy a slice in whole rounds of 4 floats each");
    static_assert(THREADS % BX == 0 && THREADS % BK == 0,
                  "a transposed copy's round must cover whole groups of rows");

    const float *ptr;   /* this thread's first group of the current slice */
    int64_t round_step; /* from one of its groups to the next */
    int64_t k_step;     /* from one k to the next */
    int row, col;       /* its first group: row and first column of the matrix as stored */
    int row_step, col_step; /* from one of its groups to the next */
    int dst, dst_step;  /* where its first group goes in the slice, and the next */
    bool k_contiguous, direct;
    float4 v[LOADS];

    /* The element (x, k) of the slice, at its place in shared memory. */
    __device__ static int index(int x, int k) { return X_MAJOR ? x * STRIDE + k : k * STRIDE + x; }

    __device__ tf32_slice(const float *base, int64_t ld, bool k_contig, int x0)
        : k_contiguous(k_contig), direct(k_contig == X_MAJOR)
    {
        const int rows = k_contig ? BX : BK, cols = k_contig ? BK : BX; /* as stored */
        if (direct) { /* neighbouring lanes, neighbouring groups of a row */
            row = threadIdx.x / (cols / 4), col = threadIdx.x % (cols / 4) * 4;
            row_step = THREADS / (cols / 4), col_step = 0;
        } else { /* neighbouring lanes, neighbouring rows */
            row = threadIdx.x % rows, col = threadIdx.x / rows * 4;
            row_step = 0, col_step = THREADS / rows * 4;
        }
        ptr = k_contig ? base + ((int64_t)x0 + row) * ld + col : base + row * ld + x0 + col;
        round_step = row_step * ld + col_step;
        k_step = k_contig ? 1 : ld;
        /* (row, col) as stored is (x, k) = (row, col) or (col, row) */
        dst = k_contig ? index(row, col) : index(col, row);
        dst_step = k_contig ? index(row + row_step, col + col_step) - dst
                            : index(col + col_step, row + row_step) - dst;
    }

    __device__ __forceinline__ float4 load4(const float *p) const
    {
        if constexpr (ALIGNED)
            return *reinterpret_cast<const float4 *>(p);
        else
            return make_float4(p[0], p[1], p[2], p[3]);
    }

    /* A slice wholly inside the matrix: no test at all. */
    __device__ __forceinline__ void fetch_inside()
    {
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            v[i] = load4(ptr + i * round_step);
    }

    /* Any slice: x_left, k_left are how far the matrix reaches from the
     * slice's first x and k; floats past them are read as 0. */
    __device__ __forceinline__ void fetch(int x_left, int k_left)
    {
        const int rows_left = k_contiguous ? x_left : k_left;
        const int cols_left = k_contiguous ? k_left : x_left;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const int r = row + i * row_step, c = col + i * col_step;
            const float *p = ptr + i * round_step;
            if constexpr (ALIGNED) {
                v[i] = r < rows_left && c < cols_left ? load4(p)
                                                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
                const bool in = r < rows_left;
                v[i].x = in && c < cols_left ? p[0] : 0.0f;
                v[i].y = in && c + 1 < cols_left ? p[1] : 0.0f;
                v[i].z = in && c + 2 < cols_left ? p[2] : 0.0f;
                v[i].w = in && c + 3 < cols_left ? p[3] : 0.0f;
            }
        }
    }

    /* Into the slice at s, rounded to TF32. */
    __device__ __forceinline__ void stash(float *s) const
    {
        /* the group's 4 floats: neighbours in a row of the slice, or 4 rows apart */
        constexpr int APART = STRIDE;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const float4 t = to_tf32(v[i]);
            float *d = s + dst + i * dst_step;
            if (direct) {
                store_shared4(d, t);
            } else {
                d[0] = t.x, d[APART] = t.y, d[2 * APART] = t.z, d[3 * APART] = t.w;
            }
        }
    }

    /* On to the slice `depth` further along K. */
    __device__ __forceinline__ void next_slice(int depth) { ptr += depth * k_step; }
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
    static constexpr int REGISTERS = GL_TF32_REGISTERS(BM, BN, BK, WM, WN, THREADS);
    static constexpr gl_tile_params tiles = {BM, BN, BK, 0, 0, WM, WN, 0, THREADS};
    static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024,
                  "whole warps, 64 to 1024 threads");
    static_assert(BM % WM == 0 && BN % WN == 0 && (BM / WM) * (BN / WN) == THREADS / 32,
                  "the warp tiles must cover the block tile exactly, one per warp");
    static_assert(WM % 16 == 0 && WN % 8 == 0, "a warp tile is whole 16 x 8 products");

    using slice_a = tf32_slice<BM, BK, THREADS, true, true>;
    using slice_b = tf32_slice<BN, BK, THREADS, false, true>;
    static_assert(SMEM == 2 * 4 * (slice_a::FLOATS + slice_b::FLOATS),
                  "GL_TF32_SMEM is the two slices, twice");

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
    using copy_a_t = tf32_slice<BM, BK, THREADS, true, ALIGNED>;
    using copy_b_t = tf32_slice<BN, BK, THREADS, false, ALIGNED>;
    constexpr int SA = copy_a_t::STRIDE, SB = copy_b_t::STRIDE;
    constexpr int STAGE = copy_a_t::FLOATS + copy_b_t::FLOATS; /* floats per buffer: As then Bs */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN; /* warp tile in the window */
    const int group = lane / 4, tid = lane % 4;
    copy_a_t copy_a(p.a, p.lda, !p.trans_a, wr0);
    copy_b_t copy_b(p.b, p.ldb, p.trans_b, wc0);
    /* the lane's a0 and b0 of the warp's first product, at the first step */
    const int a0 = (wr + group) * SA + tid, b0 = tid * SB + wc + group;

    /* Warps with nothing to store skip the math. */
    const bool active = wr0 + wr < p.m && wc0 + wc < p.n &&
                        Schedule::owns(wr0 + wr + WM - 1, row0) &&
                        Schedule::owns(wc0 + wc + WN - 1, col0);

    const int slices = (p.k - 1) / BK + 1;
    const int depth0 = Schedule::first_depth(p.k, BK);
    /* A float per load is also a test per load: a block whose window lies
     * inside C copies the slices that lie inside K untested, as rung 8. */
    const bool window_inside = !ALIGNED && !gl_keep_tests && p.m - wr0 >= BM && p.n - wc0 >= BN;
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
    copy_b.stash(buffers + copy_a_t::FLOATS);
    __syncthreads();

    for (int s = 0; s < slices; ++s) {
        const float *As = buffers + (s & 1) * STAGE, *Bs = As + copy_a_t::FLOATS;
        const bool more = s + 1 < slices;
        if (more) /* slice s + 1 travels from global memory during the products */
            fetch(s + 1);

        if (active) {
#pragma unroll
            for (int kk = 0; kk < BK; kk += 8) {
                uint32_t a[MT][4], b[NT][2];
#pragma unroll
                for (int mi = 0; mi < MT; ++mi) {
                    const float *q = As + a0 + mi * 16 * SA + kk;
                    a[mi][0] = __float_as_uint(q[0]);          /* (group, tid) */
                    a[mi][1] = __float_as_uint(q[8 * SA]);     /* (group + 8, tid) */
                    a[mi][2] = __float_as_uint(q[4]);          /* (group, tid + 4) */
                    a[mi][3] = __float_as_uint(q[8 * SA + 4]); /* (group + 8, tid + 4) */
                }
#pragma unroll
                for (int ni = 0; ni < NT; ++ni) {
                    const float *q = Bs + b0 + kk * SB + ni * 8;
                    b[ni][0] = __float_as_uint(q[0]);      /* (k = tid, n = group) */
                    b[ni][1] = __float_as_uint(q[4 * SB]); /* (k = tid + 4, n = group) */
                }
#pragma unroll
                for (int mi = 0; mi < MT; ++mi)
#pragma unroll
                    for (int ni = 0; ni < NT; ++ni)
                        mma_16x8x8(acc[mi][ni], a[mi], b[ni]);
            }
        }

        if (more) { /* into the other buffer, which nobody reads during slice s */
            float *next = buffers + ((s + 1) & 1) * STAGE;
            copy_a.stash(next);
            copy_b.stash(next + copy_a_t::FLOATS);
        }
        __syncthreads();
    }
}

} // namespace

/* The configurations compiled, default first (BM, BN, BK, WM, WN, THREADS:
 * configs.h). */
#define GL_TF32(...) GL_TILE_KERNELS(tf32_tile<__VA_ARGS__>)
GL_RUNG(tf32, GL_TF32_CONFIGS(GL_TF32))
