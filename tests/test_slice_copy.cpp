/*
 * test_slice_copy.cpp - the operand copies of rungs 6-8 (gl_slice_loader in
 * libgemmladder/kernels/rung.h), run on the CPU, one thread at a time.
 *
 * No GPU is needed: rung.h's device helpers are plain C++ once the CUDA
 * headers have been read for the host, so this test compiles them with the
 * host compiler and plays every thread of a block through every K slice, for
 * every tile configuration the library compiles, both operands, all four
 * transpose pairs, aligned and misaligned operands, tight and padded leading
 * dimensions, and shapes with and without edge tiles (a width of 1-3, one
 * that ends inside a group of 4, tile multiples, K a multiple of BK or not).
 * After each slice it compares the block's shared-memory tiles with the
 * matrices: inside the matrix, the element itself; outside it, zero where
 * the copy promises zeros (the slices copied with fetch_edge), and anything
 * but the sentinel elsewhere (gl_unguarded_slices).
 *
 * Every operand sits in a heap block of exactly its extent, NaN in its
 * padding and a distinct value in every element. Under AddressSanitizer (the
 * build adds it where the compiler has it) a read past either end of a
 * matrix stops the test, as compute-sanitizer's memcheck would on the GPU; a
 * value copied from the wrong place, or from the padding, fails a compare.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

/* What the CUDA compiler would provide to rung.h's device code. */
using std::max;
using std::min;
static uint3 threadIdx; /* the thread being played */
#define __CUDACC__ 1
#include "rung.h"
#undef __CUDACC__

static long long checks, failures, shifted_products;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        ++checks;                                                                              \
        if (!(cond) && ++failures <= 20) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

/* A stored matrix in a heap block of exactly offset + extent floats. */
struct stored {
    float *block = nullptr;
    const float *base = nullptr;
    int64_t ld = 0;
    int rows = 0, cols = 0; /* as stored */

    stored(int r, int c, int64_t ld_, int offset) : ld(ld_), rows(r), cols(c)
    {
        const size_t extent = (size_t)(r - 1) * (size_t)ld + (size_t)c + (size_t)offset;
        void *mem = nullptr;
        if (posix_memalign(&mem, 16, extent * sizeof(float)) != 0)
            abort();
        block = static_cast<float *>(mem);
        for (size_t e = 0; e < extent; ++e)
            block[e] = NAN;
        base = block + offset;
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < c; ++j) /* distinct, and exact in a float */
                block[offset + (size_t)i * (size_t)ld + (size_t)j] = (float)(1 + i * 4096 + j);
    }
    stored(const stored &) = delete;
    stored &operator=(const stored &) = delete;
    ~stored() { free(block); }
};

/* Element (x, k) of op(A) (x a row of C) or (k, x) of op(B) (x a column of C),
 * given how it is stored: x contiguous or k contiguous. */
static float element(const stored &s, bool k_contiguous, int x, int k)
{
    return k_contiguous ? s.base[(int64_t)x * s.ld + k] : s.base[(int64_t)k * s.ld + x];
}

static const float SENTINEL = -12345.0f; /* in shared memory before each stash */

/* Checks one slice of one operand in shared memory, laid out k-major. */
static void check_tile(const char *what, const std::vector<float> &tile, int bx, int bk,
                       const stored &s, bool k_contiguous, int x0, int x_size, int k0, int k_size,
                       bool zeros_outside, const char *where)
{
    const int stride = bx + GL_SMEM_PAD;
    for (int kk = 0; kk < bk; ++kk)
        for (int x = 0; x < bx; ++x) {
            const float got = tile[(size_t)kk * stride + x];
            const bool inside = x0 + x < x_size && k0 + kk < k_size;
            if (inside) {
                const float want = element(s, k_contiguous, x0 + x, k0 + kk);
                EXPECT(got == want, "%s %s: (x %d, k %d) holds %g, the matrix %g", what, where,
                       x0 + x, k0 + kk, got, want);
            } else if (zeros_outside) {
                EXPECT(got == 0.0f, "%s %s: (x %d, k %d), outside the matrix, holds %g", what,
                       where, x0 + x, k0 + kk, got);
            } else {
                EXPECT(got != SENTINEL, "%s %s: (x %d, k %d) was not written", what, where,
                       x0 + x, k0 + kk);
            }
        }
}

/* Plays the copies of the block whose C tile starts at (row0, col0), for
 * every K slice, as the kernels of rungs 6-8 run them: the block copies the
 * window gl_window_start gives, and slice s holds K from k0 on, the first
 * slice gl_first_slice_depth deep. */
template <int BM, int BN, int BK, int THREADS, gl_copy_path PATH>
static void copy_block(const gl_problem &p, const stored &a, const stored &b, int row0, int col0,
                       const char *where)
{
    const int wr0 = gl_window_start<PATH>(row0, p.m, BM);
    const int wc0 = gl_window_start<PATH>(col0, p.n, BN);
    EXPECT(wr0 >= 0 && wc0 >= 0 && wr0 <= row0 && wc0 <= col0 && wr0 % 4 == 0 && wc0 % 4 == 0,
           "%s: window at (%d, %d) for the tile at (%d, %d)", where, wr0, wc0, row0, col0);
    std::vector<gl_slice_loader<BK, BM, THREADS, PATH>> la;
    std::vector<gl_slice_loader<BK, BN, THREADS, PATH>> lb;
    for (unsigned t = 0; t < (unsigned)THREADS; ++t) {
        threadIdx.x = t;
        la.push_back(gl_loader_a<BK, BM, THREADS, PATH>(p, wr0));
        lb.push_back(gl_loader_b<BK, BN, THREADS, PATH>(p, wc0));
    }
    std::vector<float> as((size_t)BK * (BM + GL_SMEM_PAD)), bs((size_t)BK * (BN + GL_SMEM_PAD));
    const int slices = (p.k - 1) / BK + 1;
    const int unguarded = gl_unguarded_slices<PATH>(p, wr0, wc0, BM, BN, BK);
    const int first = gl_first_slice_depth<PATH>(p.k, BK);
    EXPECT(PATH == GL_COPY_SHIFTED ? first >= 1 && first <= BK && (p.k - first) % BK == 0
                                   : first == BK,
           "%s: first slice %d deep", where, first);
    for (int s = 0, k0 = 0; s < slices; k0 += s == 0 ? first : BK, ++s) {
        std::fill(as.begin(), as.end(), SENTINEL);
        std::fill(bs.begin(), bs.end(), SENTINEL);
        for (unsigned t = 0; t < (unsigned)THREADS; ++t) {
            threadIdx.x = t;
            gl_fetch_slice<BK, PATH>(la[t], lb[t], p, wr0, wc0, s, unguarded);
            la[t].stash(as.data());
            lb[t].stash(bs.data());
            gl_advance_slice<BK, PATH>(la[t], lb[t], p, s);
        }
        /* Zeros are promised where a slice is tested; the ragged first slice
         * of GL_COPY_SHIFTED has them past its depth. */
        const bool ragged = PATH == GL_COPY_SHIFTED && s == 0;
        const bool zeros = ragged || s >= unguarded;
        const int k_end = ragged ? first : p.k;
        check_tile("A", as, BM, BK, a, !p.trans_a, wr0, p.m, k0, k_end, zeros, where);
        check_tile("B", bs, BN, BK, b, p.trans_b, wc0, p.n, k0, k_end, zeros, where);
    }
}

/* Every block of one product, through the loaders of the path the launcher
 * would choose. */
template <int BM, int BN, int BK, int THREADS>
static void copy_product(const gl_problem &p, const stored &a, const stored &b, const char *where)
{
    for (int row0 = 0; row0 < p.m; row0 += BM)
        for (int col0 = 0; col0 < p.n; col0 += BN)
            switch (gl_copy_path_for(&p, BM, BN, BK)) {
            case GL_COPY_INTERIOR:
                copy_block<BM, BN, BK, THREADS, GL_COPY_INTERIOR>(p, a, b, row0, col0, where);
                break;
            case GL_COPY_ALIGNED:
                copy_block<BM, BN, BK, THREADS, GL_COPY_ALIGNED>(p, a, b, row0, col0, where);
                break;
            case GL_COPY_ANY:
                copy_block<BM, BN, BK, THREADS, GL_COPY_ANY>(p, a, b, row0, col0, where);
                break;
            case GL_COPY_SHIFTED:
                ++shifted_products;
                copy_block<BM, BN, BK, THREADS, GL_COPY_SHIFTED>(p, a, b, row0, col0, where);
                break;
            }
}

/* How the operands are placed: both aligned (leading dimensions rounded up
 * to a multiple of 4, plus `pad`), both one float off with tight leading
 * dimensions, or A aligned and B not. */
enum placement { ALIGNED_TIGHT, ALIGNED_PADDED, MISALIGNED, MIXED, PLACEMENTS };
static const char *const placement_names[] = {"aligned", "aligned+padded", "misaligned", "mixed"};

static int64_t leading_dimension(int cols, bool aligned, int pad)
{
    return aligned ? (cols + 3) / 4 * 4 + pad : cols;
}

template <int BM, int BN, int BK, int THREADS>
static void run_config()
{
    /* Widths around each tile edge: 1 or 3 wide (a leading dimension below
     * 4 when tight), a partial group of 4, one or four past the tile, two
     * tiles; K a multiple of BK, or one or four past (a last slice of one
     * row; a ragged first slice of four when everything is a multiple of 4
     * and aligned: GL_COPY_SHIFTED). */
    const int ms[] = {1, BM - 3, BM + 1, BM + 4};
    const int ns[] = {1, 3, BN + 4, BN + 6, 2 * BN};
    const int ks[] = {5, 2 * BK, 2 * BK + 1, 2 * BK + 4};
    for (int m : ms)
        for (int n : ns)
            for (int k : ks)
                for (int trans = 0; trans < 4; ++trans)
                    for (int place = 0; place < PLACEMENTS; ++place) {
                        const bool ta = trans & 1, tb = trans & 2;
                        const bool align_a = place != MISALIGNED;
                        const bool align_b = place == ALIGNED_TIGHT || place == ALIGNED_PADDED;
                        const int pad = place == ALIGNED_PADDED ? 8 : 0;
                        /* op(A) is m x k, stored k x m when transposed; op(B) k x n. */
                        const int ar = ta ? k : m, ac = ta ? m : k;
                        const int br = tb ? n : k, bc = tb ? k : n;
                        const stored a(ar, ac, leading_dimension(ac, align_a, pad), align_a ? 0 : 1);
                        const stored b(br, bc, leading_dimension(bc, align_b, pad), align_b ? 0 : 1);
                        gl_problem p{};
                        p.m = m, p.n = n, p.k = k, p.alpha = 1.0f;
                        p.a = a.base, p.lda = a.ld, p.trans_a = ta;
                        p.b = b.base, p.ldb = b.ld, p.trans_b = tb;
                        char where[160];
                        snprintf(where, sizeof where,
                                 "tile %dx%dx%d (%d threads), %dx%dx%d %c%c %s lda %lld ldb %lld",
                                 BM, BN, BK, THREADS, m, n, k, ta ? 'T' : 'N', tb ? 'T' : 'N',
                                 placement_names[place], (long long)a.ld, (long long)b.ld);
                        copy_product<BM, BN, BK, THREADS>(p, a, b, where);
                    }
}

int main(void)
{
    int configs = 0;
#define VECTORIZED(BM, BN, BK, TM, TN) (run_config<BM, BN, BK, BM * BN / (TM * TN)>(), ++configs);
    GL_VECTORIZED_CONFIGS(VECTORIZED)
#undef VECTORIZED
#define WARPTILE(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    (run_config<BM, BN, BK, THREADS>(), ++configs);
    GL_WARPTILE_CONFIGS(WARPTILE)
#undef WARPTILE
    EXPECT(shifted_products > 0, "no product took GL_COPY_SHIFTED");
    printf("slice copies of %d tile configurations: %lld checks (%lld blocks of shifted "
           "windows), %lld failed\n",
           configs, checks, shifted_products, failures);
    return failures ? 1 : 0;
}
