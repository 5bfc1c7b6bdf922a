/*
 * rung.h - what every rung of the ladder shares: the problem a launcher is
 * handed, its tile parameters, its execution context, and the one launcher
 * signature. Included from C (the dispatcher, the registry) and from CUDA
 * (the rung files); the device helpers at the end are CUDA only.
 *
 * Internal: nothing here is installed or exported.
 */
#ifndef GL_RUNG_H
#define GL_RUNG_H

#include <stdbool.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "configs.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One product, already validated and normalised by the dispatcher:
 *   C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C
 * everything row-major. op(A) is A when trans_a is false (A stored m x k,
 * element (i, p) at a[i * lda + p]) and A's transpose otherwise (A stored
 * k x m, element (i, p) of op(A) at a[p * lda + i]); likewise B.
 * Guarantees: m, n, k >= 1; alpha != 0; pointers valid for the extents;
 * m is small enough for the grid (the dispatcher splits taller problems).
 * When beta == 0, C must be written without being read.
 */
typedef struct gl_problem {
    int m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    bool trans_a;
    const float *b;
    int64_t ldb;
    bool trans_b;
    float *c;
    int64_t ldc;
    bool padded; /* op(A) and op(B) hold whole tiles, zeros past m, n and k,
                    aligned (gl_pack_operands): copies need no tests */
} gl_problem;


/* Where and with what a launcher runs. */
typedef struct gl_exec {
    cudaStream_t stream;
    cublasHandle_t cublas; /* set only for rungs whose registry row uses cuBLAS */
    int cc;                /* compute capability as major * 10 + minor */
    int sm_count;
    cudaMemPool_t scratch; /* where gl_pack_operands takes memory; NULL: nowhere */
} gl_exec;

/* The one launcher signature. Queues the product on x->stream and returns 0,
 * or the failing library's own error code: a cudaError_t for kernel rungs, a
 * cublasStatus_t for the cuBLAS rung (its registry row says which). */
typedef int (*gl_launch_fn)(const gl_problem *p, const gl_tile_params *t,
                            const gl_exec *x);

/* Each rung's launcher, defined in kernels/NN_<name>.{c,cu}. Rungs 6-8 run
 * the compiled configuration equal to *t (the dispatcher only passes those). */
int gl_launch_cublas(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_naive(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_coalesced(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_shared(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_blocktile_1d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_blocktile_2d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_vectorized(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_autotuned(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_warptile(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);

/* Once per handle, on its device: lets the configurations that need more than
 * 48 KB of shared memory have it (cudaFuncSetAttribute). */
cudaError_t gl_prepare_vectorized(void);
cudaError_t gl_prepare_warptile(void);


/*
 * Not a rung: what rungs 6-8 may do before their kernel (kernels/pack.cu).
 * Their copies from global memory are cheapest when every row of an operand
 * starts on 16 bytes (gl_vec4_ok: else 4 plain loads per 4 floats) and when
 * the block's tiles lie wholly inside the operands (else each copy is
 * tested against the edges, or, at the end of K, done element by element).
 * When the product is big enough to repay it (gl_pack_pays), an operand
 * that falls short (but not when every extent is a multiple of 4 and every
 * row starts on 32 bytes: rung 8 reads those in place with shifted edge
 * tiles, GL_COPY_SHIFTED) is first copied into scratch memory with its rows
 * aligned and its extents padded with zeros to whole tiles (BM or BN along
 * C, BK along K; both operands when K is not a multiple of BK), and *p is
 * pointed at the copies: p->k becomes the padded depth (the zeros add
 * nothing), and p->padded says when no copy needs a test any more. *scratch
 * receives the memory to hand to gl_release_scratch once the product's
 * kernel is queued (NULL when nothing was copied). Scratch memory that
 * cannot be had is not an error: *p stays as it was. Returns 0 or the copy
 * kernel's cudaError_t.
 */
int gl_pack_operands(gl_problem *p, const gl_exec *x, int bm, int bn, int bk, void **scratch);
void gl_release_scratch(void *scratch, const gl_exec *x);

/* Whether copying an operand into `elements` floats of scratch pays off for
 * an m x n x k product. The copy costs a launch and one read and write of
 * the operand; it saves the edge and 4-byte paths' penalty, 5-20% of the
 * product's time, which grows with m * n * k. At 40 TFLOP/s and 3 TB/s that
 * is worth it when m * n * k exceeds about 2^28 plus 1024 per element
 * copied: never at 1024^3, always at 2048^3 (docs/ladder.md, rung 6, has
 * the measurements). */
static inline bool gl_pack_pays(int m, int n, int k, int64_t elements)
{
    return (double)m * (double)n * (double)k >= 0x1p28 + 1024.0 * (double)elements;
}

/* Not a rung: C = beta * C, for K == 0 or alpha == 0 (kernels/scale_c.cu). */
cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* ---- device helpers shared by the rung files ---------------------------- */

/* A read-only matrix seen through strides: element (i, j) is at
 * p[i * row_stride + j * col_stride]. The strides absorb the transpose, so the
 * simple rungs index op(A) and op(B) the same way whatever the layout. */
struct gl_matrix_view {
    const float *p;
    int64_t row_stride, col_stride;
    __device__ __forceinline__ const float *at(int64_t i, int64_t j) const
    {
        return p + i * row_stride + j * col_stride;
    }
    __device__ __forceinline__ float operator()(int64_t i, int64_t j) const { return *at(i, j); }
};

__device__ __forceinline__ gl_matrix_view gl_view_a(const gl_problem &p)
{
    return p.trans_a ? gl_matrix_view{p.a, 1, p.lda}
                     : gl_matrix_view{p.a, p.lda, 1};
}

__device__ __forceinline__ gl_matrix_view gl_view_b(const gl_problem &p)
{
    return p.trans_b ? gl_matrix_view{p.b, 1, p.ldb}
                     : gl_matrix_view{p.b, p.ldb, 1};
}

/* The BLAS epilogue for one element: c = alpha * acc + beta * c, where
 * beta == 0 means C is not read (it may hold NaN). */
__device__ __forceinline__ void gl_store_c(float *c, float acc, float alpha, float beta)
{
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* Number of b-sized tiles covering a >= 1 items (no overflow near INT_MAX). */
static inline unsigned gl_ceil_div(int a, int b) { return (unsigned)((a - 1) / b + 1); }

/* The grid every tiled rung uses: x over column tiles of C, y over row tiles
 * (the dispatcher keeps m small enough for y). */
static inline dim3 gl_tile_grid(const gl_problem *p, int bm, int bn)
{
    return dim3(gl_ceil_div(p->n, bn), gl_ceil_div(p->m, bm));
}

/*
 * Copies, one K slice at a time, a ROWS x COLS window of a matrix view into
 * shared memory dst[ROWS][COLS], zeros where the window hangs over the edge
 * of the matrix. Each thread always copies the same column of the window, in
 * ROUNDS rows STEP apart, so its addresses are worked out once; the window
 * then moves right (the A slice walks along K) or down (the B slice does).
 * Introduced by rung 4; rung 5 copies the same way.
 */
template <int ROWS, int COLS, int THREADS>
struct gl_window_copy {
    static_assert(THREADS % COLS == 0 && (ROWS * COLS) % THREADS == 0,
                  "the threads must copy the window in whole rounds of whole rows");
    static constexpr int ROUNDS = ROWS * COLS / THREADS, STEP = THREADS / COLS;

    const float *ptr;
    int64_t round_step, row_stride, col_stride;
    int row, col, rows_left, cols_left;

    /* The window's top-left element is (r0, c0) of a rows x cols matrix. */
    __device__ gl_window_copy(gl_matrix_view m, int r0, int c0, int rows, int cols)
        : round_step(STEP * m.row_stride), row_stride(m.row_stride), col_stride(m.col_stride),
          row(threadIdx.x / COLS), col(threadIdx.x % COLS), rows_left(rows - r0),
          cols_left(cols - c0)
    {
        ptr = m.at(r0 + row, c0 + col);
    }

    __device__ __forceinline__ void copy(float (*dst)[COLS]) const
    {
#pragma unroll
        for (int j = 0; j < ROUNDS; ++j) {
            const int r = row + j * STEP;
            dst[r][col] = r < rows_left && col < cols_left ? ptr[j * round_step] : 0.0f;
        }
    }

    __device__ __forceinline__ void move_right(int n) { ptr += n * col_stride, cols_left -= n; }
    __device__ __forceinline__ void move_down(int n) { ptr += n * row_stride, rows_left -= n; }
};

/* 16-byte accesses need a 16-byte aligned base and a leading dimension that
 * keeps every row aligned. */
__host__ __device__ __forceinline__ bool gl_vec4_ok(const void *p, int64_t ld)
{
    return ((uintptr_t)p & 15) == 0 && ld % 4 == 0;
}

/*
 * The ways rungs 6-8 copy their operands, each compiled as its own kernel
 * and chosen per call on the host (gl_copy_path_for):
 *   GL_COPY_INTERIOR  both operands aligned for 16-byte loads and m, n, k
 *                     multiples of the tile, or operands padded to whole
 *                     tiles (gl_pack_operands): no tests at all in the
 *                     copies (rung 8; rung 6 runs GL_COPY_ALIGNED for these);
 *   GL_COPY_SHIFTED   both aligned, m, n and k multiples of 4 and m, n at
 *                     least a tile: a block at C's far edge copies the tile
 *                     that ends at the edge instead (gl_window_start), and
 *                     the first K slice, not the last, holds the part of K
 *                     left over by whole slices (gl_first_slice_depth), so
 *                     every slice after the first is copied untested (rung 8;
 *                     rung 6 runs GL_COPY_ALIGNED for these);
 *   GL_COPY_ALIGNED   both aligned, any shape;
 *   GL_COPY_ANY       an operand that is not reads each group of 4 floats
 *                     with 4 plain loads (the other keeps its 16-byte loads).
 */
enum gl_copy_path { GL_COPY_INTERIOR, GL_COPY_ALIGNED, GL_COPY_ANY, GL_COPY_SHIFTED };

static inline gl_copy_path gl_copy_path_for(const gl_problem *p, int bm, int bn, int bk)
{
    if (p->padded)
        return GL_COPY_INTERIOR;
    if (!gl_vec4_ok(p->a, p->lda) || !gl_vec4_ok(p->b, p->ldb))
        return GL_COPY_ANY;
    if (p->m % bm == 0 && p->n % bn == 0 && p->k % bk == 0)
        return GL_COPY_INTERIOR;
    if (p->m % 4 == 0 && p->n % 4 == 0 && p->k % 4 == 0 && p->m >= bm && p->n >= bn)
        return GL_COPY_SHIFTED;
    return GL_COPY_ALIGNED;
}

/* Whether the interior kernel's copies really go untested. On sm_80-sm_89
 * the unguarded warptile kernel of the 128 x 128 configuration spilled
 * registers, so there it runs as GL_COPY_ALIGNED. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GL_UNGUARDED_INTERIOR 0
#else
#define GL_UNGUARDED_INTERIOR 1
#endif

/* Whether a kernel compiled for `path` copies with no tests at all (but
 * the ragged first slice of GL_COPY_SHIFTED). */
__host__ __device__ constexpr bool gl_copies_untested(gl_copy_path path)
{
    return (path == GL_COPY_INTERIOR || path == GL_COPY_SHIFTED) && GL_UNGUARDED_INTERIOR;
}

/*
 * GL_COPY_SHIFTED. The first row (or column) of the window of C a block
 * computes, for the block whose own tile starts at x0 in an extent of
 * `extent` >= bx: its own tile's, except at the far edge, where the window
 * is moved back to end at the edge. It overlaps its neighbour's tile there,
 * but reads only rows and columns inside the operands, so none of its copies
 * needs a test; it stores only the part that is its own (x >= x0). The
 * move keeps 16-byte alignment, since extent and bx are multiples of 4.
 */
template <gl_copy_path PATH>
__device__ __forceinline__ int gl_window_start(int x0, int extent, int bx)
{
    return PATH == GL_COPY_SHIFTED ? min(x0, extent - bx) : x0;
}

/* How deep K slice 0 is: bk, or in GL_COPY_SHIFTED the part of K that whole
 * slices leave over (1 to bk, a multiple of 4), read with zeros after it, so
 * that every slice after it is whole. The products are still added in the
 * order of k, so the result is the same to the bit. */
template <gl_copy_path PATH>
__device__ __forceinline__ int gl_first_slice_depth(int k, int bk)
{
    return PATH == GL_COPY_SHIFTED ? k - (k - 1) / bk * bk : bk;
}

/*
 * How many K slices, from the first, the block whose C tile starts at
 * (row0, col0) may copy with gl_slice_loader::fetch, which tests nothing;
 * the rest go through fetch_edge. All of them in a kernel whose copies are
 * untested (gl_copies_untested), and when the block's tile lies inside C
 * and K is a multiple of BK. Otherwise all but the last: it holds
 * the end of K, where the zeros past it matter, and the last stored row of
 * an operand whose x is contiguous, where a group that straddles the edge
 * would read past the end of the matrix. None when such an operand's
 * leading dimension is below 4, where earlier rows' straddling groups could
 * too (x is then at most 3 wide). In GL_COPY_SHIFTED all of them: there the
 * tested slice is the first (gl_fetch_slice), not the last.
 */
template <gl_copy_path PATH>
__device__ __forceinline__ int gl_unguarded_slices(const gl_problem &p, int row0, int col0, int bm,
                                                   int bn, int bk)
{
    const int slices = (p.k - 1) / bk + 1;
    if (gl_copies_untested(PATH) || PATH == GL_COPY_SHIFTED ||
        (p.k % bk == 0 && row0 + bm <= p.m && col0 + bn <= p.n))
        return slices;
    if ((p.trans_a && p.lda < 4) || (!p.trans_b && p.ldb < 4))
        return 0;
    return slices - 1;
}

/* Writes four results of row `row`, columns col..col+3, through the BLAS
 * epilogue; columns at or past n and rows at or past m are skipped. */
__device__ __forceinline__ void gl_store_c4(const gl_problem &p, int row, int col, float4 acc,
                                            bool vec)
{
    if (row >= p.m)
        return;
    float *c = p.c + (int64_t)row * p.ldc + col;
    if (vec && col + 3 < p.n) {
        float4 out = make_float4(p.alpha * acc.x, p.alpha * acc.y, p.alpha * acc.z,
                                 p.alpha * acc.w);
        if (p.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4 *>(c);
            out.x += p.beta * old.x, out.y += p.beta * old.y;
            out.z += p.beta * old.z, out.w += p.beta * old.w;
        }
        *reinterpret_cast<float4 *>(c) = out;
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (col + j < p.n)
            gl_store_c(c + j, v[j], p.alpha, p.beta);
}


/*
 * Copies, one K slice at a time, the part of an operand a block needs into
 * shared memory laid out k-major: dst[k * (BX + GL_SMEM_PAD) + x] for the
 * slice's BK x BX elements. The operand is op(A) with x = row of C, or op(B)
 * with x = column of C; in memory either k or x is the contiguous direction
 * (which one depends on the layout and transpose), and every thread copies
 * groups of 4 neighbouring floats along it: a 16-byte load per group when
 * the operand is aligned for that, else 4 plain loads (GL_COPY_ANY only).
 *
 * The copy is split so it can overlap compute: fetch() or fetch_edge() reads
 * global memory into registers, stash() writes them to shared memory,
 * advance() moves to the next K slice. fetch(), for every slice but the
 * last, only skips the groups that lie wholly past C's last row or column
 * (their registers keep values that end up only in results that are never
 * stored); fetch_edge() tests every group against both edges and reads
 * zeros outside the matrix (gl_unguarded_slices says which slices need
 * it). Introduced by rung 6; rung 8 double-buffers with it.
 */
template <int BK, int BX, int THREADS, gl_copy_path PATH>
struct gl_slice_loader {
    static constexpr int LOADS = BK * BX / (4 * THREADS); /* groups per thread per slice */
    static_assert(BK % 4 == 0 && BX % 4 == 0, "slices are copied 4 floats at a time");
    static_assert(LOADS >= 1 && (BK * BX) % (4 * THREADS) == 0,
                  "the block's threads must copy a slice in whole rounds of one float4 each");
    static_assert((4 * THREADS) % BK == 0 && (4 * THREADS) % BX == 0,
                  "each round of float4s must cover whole stored rows of the slice");

    const float *ptr;   /* this thread's first group of the current slice */
    int64_t round_step; /* from one of this thread's groups to its next */
    int64_t slice_step; /* from one K slice to the next */
    int row, col;       /* this thread's first group in the slice, as stored */
    int row_step;       /* stored rows between this thread's groups */
    bool k_contiguous, vec;
    float4 v[LOADS];

    /* base/ld: the operand as stored; x0: first x of the block. */
    __device__ gl_slice_loader(const float *base, int64_t ld, bool k_contig, int x0)
        : k_contiguous(k_contig), vec(PATH != GL_COPY_ANY || gl_vec4_ok(base, ld))
    {
        /* Stored as rows x cols = BX x BK (k contiguous) or BK x BX (x contiguous). */
        const int groups_per_row = (k_contig ? BK : BX) / 4;
        row = threadIdx.x / groups_per_row;
        col = threadIdx.x % groups_per_row * 4;
        row_step = THREADS / groups_per_row;
        round_step = row_step * ld;
        ptr = k_contig ? base + (int64_t)(x0 + row) * ld + col : base + (int64_t)row * ld + x0 + col;
        slice_step = k_contig ? BK : BK * ld;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) /* what fetch() leaves unread stays defined */
            v[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }

    /* A slice before the last one (gl_unguarded_slices), of an operand
     * whose extent from the block's first x is x_left: groups past x_left
     * are not read, which leaves their registers holding an earlier slice's
     * values; those land only in rows or columns of the block's tile that
     * lie outside C, which are never stored, so they need no zeros. Nothing
     * else is tested: a group that straddles x_left is read whole (in these
     * slices that stays inside the matrix), and no slice reaches the end
     * of K. */
    __device__ __forceinline__ void fetch(int x_left)
    {
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const float *p = ptr + i * round_step;
            if (gl_copies_untested(PATH) || (k_contiguous ? row + i * row_step < x_left : col < x_left))
                v[i] = vec ? *reinterpret_cast<const float4 *>(p)
                           : make_float4(p[0], p[1], p[2], p[3]);
        }
    }

    /* Any slice: groups outside the matrix read as zeros. x_left, k_left:
     * the matrix's extent from the slice's first x and k (the callers work
     * them out again each time rather than keep them in registers through
     * the K loop). A thread whose 4 columns are all inside needs only a test
     * per row, whole groups in or out; a group that straddles the edge is
     * read element by element. */
    __device__ __forceinline__ void fetch_edge(int x_left, int k_left)
    {
        const int rows_left = k_contiguous ? x_left : k_left;
        const int cols_left = k_contiguous ? k_left : x_left;
        const int valid_cols = min(max(cols_left - col, 0), 4);
        if (valid_cols == 4) {
#pragma unroll
            for (int i = 0; i < LOADS; ++i) {
                const float *p = ptr + i * round_step;
                v[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                if (row + i * row_step < rows_left)
                    v[i] = vec ? *reinterpret_cast<const float4 *>(p)
                               : make_float4(p[0], p[1], p[2], p[3]);
            }
            return;
        }
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const float *p = ptr + i * round_step;
            const int valid = row + i * row_step < rows_left ? valid_cols : 0;
            v[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (valid > 0) v[i].x = p[0];
            if (valid > 1) v[i].y = p[1];
            if (valid > 2) v[i].z = p[2];
            /* valid is at most 3 here; without this test ptxas spilled
             * registers in the 128 x 128 kernels for sm_80 (CUDA 13.0). */
            if (valid > 3) v[i].w = p[3];
        }
    }

    __device__ __forceinline__ void stash(float *dst) const
    {
        constexpr int STRIDE = BX + GL_SMEM_PAD;
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const int r = row + i * row_step;
            if (k_contiguous) { /* (x = r, k = col..col+3): transpose into k-major */
                dst[(col + 0) * STRIDE + r] = v[i].x;
                dst[(col + 1) * STRIDE + r] = v[i].y;
                dst[(col + 2) * STRIDE + r] = v[i].z;
                dst[(col + 3) * STRIDE + r] = v[i].w;
            } else { /* (k = r, x = col..col+3): already k-major */
                *reinterpret_cast<float4 *>(&dst[r * STRIDE + col]) = v[i];
            }
        }
    }

    /* On to the next K slice: BK further along K, or `depth` further (after
     * the ragged first slice of GL_COPY_SHIFTED; kept apart so that the K
     * loop's advance stays one addition). */
    __device__ __forceinline__ void advance()
    {
        ptr += slice_step;
    }
    __device__ __forceinline__ void advance(int depth)
    {
        ptr += slice_step / BK * depth;
    }
};

/* Slice s of both operands into the loaders' registers, for the block whose
 * window starts at (row0, col0): untested while s < unguarded
 * (gl_unguarded_slices), tested after; in GL_COPY_SHIFTED, slice 0 holds
 * the ragged part of K (gl_first_slice_depth) and the rest are untested. */
template <int BK, gl_copy_path PATH, class LoaderA, class LoaderB>
__device__ __forceinline__ void gl_fetch_slice(LoaderA &load_a, LoaderB &load_b,
                                               const gl_problem &p, int row0, int col0, int s,
                                               int unguarded)
{
    if (PATH == GL_COPY_SHIFTED && s == 0) {
        const int depth = gl_first_slice_depth<PATH>(p.k, BK);
        load_a.fetch_edge(p.m - row0, depth);
        load_b.fetch_edge(p.n - col0, depth);
    } else if (s < unguarded) {
        load_a.fetch(p.m - row0);
        load_b.fetch(p.n - col0);
    } else {
        load_a.fetch_edge(p.m - row0, p.k - s * BK);
        load_b.fetch_edge(p.n - col0, p.k - s * BK);
    }
}

/* From slice s of both operands on to slice s + 1. */
template <int BK, gl_copy_path PATH, class LoaderA, class LoaderB>
__device__ __forceinline__ void gl_advance_slice(LoaderA &load_a, LoaderB &load_b,
                                                 const gl_problem &p, int s)
{
    if (PATH == GL_COPY_SHIFTED && s == 0) {
        load_a.advance(gl_first_slice_depth<PATH>(p.k, BK));
        load_b.advance(gl_first_slice_depth<PATH>(p.k, BK));
    } else {
        load_a.advance();
        load_b.advance();
    }
}

/* Loaders for the two operands of a block whose C tile starts at (row0, col0). */
template <int BK, int BM, int THREADS, gl_copy_path PATH>
__device__ __forceinline__ gl_slice_loader<BK, BM, THREADS, PATH> gl_loader_a(const gl_problem &p,
                                                                              int row0)
{
    return gl_slice_loader<BK, BM, THREADS, PATH>(p.a, p.lda, !p.trans_a, row0);
}

template <int BK, int BN, int THREADS, gl_copy_path PATH>
__device__ __forceinline__ gl_slice_loader<BK, BN, THREADS, PATH> gl_loader_b(const gl_problem &p,
                                                                              int col0)
{
    return gl_slice_loader<BK, BN, THREADS, PATH>(p.b, p.ldb, p.trans_b, col0);
}

/* The configurations a rung file compiles, and how to run one of them. */
struct gl_compiled_config {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *, cudaStream_t);
    cudaError_t (*prepare)(); /* NULL when the kernel needs no preparation */
};

/* Runs the entry of `list` whose tiles equal *t. */
template <size_t N>
int gl_launch_config(const gl_compiled_config (&list)[N], const gl_problem *p,
                     const gl_tile_params *t, cudaStream_t stream)
{
    for (const gl_compiled_config &c : list)
        if (gl_tile_params_equal(&c.tiles, t))
            return c.launch(p, stream);
    return cudaErrorInvalidConfiguration; /* the dispatcher only passes compiled tiles */
}

/* Rungs 6-8: the same, on copies of the operands packed into whole tiles
 * when that pays (gl_pack_operands); the scratch is released, in stream
 * order, once the kernel is queued. */
template <size_t N>
int gl_launch_config_packed(const gl_compiled_config (&list)[N], const gl_problem *p,
                            const gl_tile_params *t, const gl_exec *x)
{
    gl_problem packed = *p;
    void *scratch = NULL;
    int rc = gl_pack_operands(&packed, x, t->bm, t->bn, t->bk, &scratch);
    if (rc == 0)
        rc = gl_launch_config(list, &packed, t, x->stream);
    gl_release_scratch(scratch, x);
    return rc;
}

template <size_t N>
cudaError_t gl_prepare_configs(const gl_compiled_config (&list)[N])
{
    for (const gl_compiled_config &c : list)
        if (c.prepare)
            if (const cudaError_t err = c.prepare())
                return err;
    return cudaSuccess;
}

/* Over 48 KB of dynamic shared memory a kernel must be allowed it explicitly;
 * done once per handle (gl_prepare_*), never per call. */
template <class Kernel>
cudaError_t gl_allow_shared_memory(Kernel kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Resident blocks per SM to ask the compiler for (__launch_bounds__): as many
 * as the register file holds when each thread gets `registers` (an estimate,
 * GL_REGISTER_ESTIMATE), so the compiler neither spills nor wastes occupancy. */
constexpr int gl_min_blocks(int threads, int registers)
{
    return 65536 / (threads * registers) > 1 ? 65536 / (threads * registers) : 1;
}
#endif

#endif /* GL_RUNG_H */
