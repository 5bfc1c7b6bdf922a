/*
 * schedules.cuh - the engine's schedulers, on the device: which tile of C
 * and which range of K each block of a mainloop's kernel computes, and
 * which of the results it stores. Generic over mainloops: a mainloop asks
 * its schedule, and kernels/compose.cuh builds every rung's kernels from a
 * mainloop, a schedule and the epilogue.
 *
 * A schedule answers:
 *   part(p, s)              the product the block's grid computes: p itself,
 *                           or the part of K picked by blockIdx.z (the
 *                           block's first step: it waits there for the
 *                           kernel before it, when launched behind it);
 *   window(x0, extent, bx)  the first row (column) of the window of C that
 *                           the block whose own tile starts at x0 computes;
 *   first_depth(k, bk)      how deep K slice 0 is (the others are bk deep,
 *                           but a short last one);
 *   tested(s)               whether slice s is copied with tests at the
 *                           edges (else it lies wholly inside the matrices);
 *   owns(x, x0)             whether row (column) x of its window is the
 *                           block's to store.
 * Stream-K is a loop over tiles around the plain tile (gl_stream_k_tiles
 * below; its kernel is in kernels/compose.cuh).
 */
#ifndef GL_SCHEDULES_CUH
#define GL_SCHEDULES_CUH

#include "engine.h"
#include "kernels/ladder.cuh"

/* One tile, its own: the window is the block's tile, slices start at
 * k = 0, the block stores what lies inside C, and every slice is tested
 * but for copies of whole tiles (TESTED false). */
template <bool TESTED>
struct gl_tile_schedule {
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &) { return p; }
    __device__ static int window(int x0, int, int) { return x0; }
    __device__ static int first_depth(int, int bk) { return bk; }
    __device__ static bool tested(int) { return TESTED || gl_keep_tests; }
    __device__ static bool owns(int, int) { return true; }
};

/*
 * K in parts: the grid's z is the part of K. Block (x, y, z) computes its
 * tile of the product over part z, a run of K whose depth is a multiple of
 * 32 (so the operands' alignment holds): gl_split_depth's, or the plan's
 * where the last part is short (s.part_depth). Split-K passes a problem
 * with c = the scratch, ldc = gl_split_ld(n), alpha 1, beta 0, for its
 * parts' products. One part is the whole product: the plain grid, which a
 * rung's own launcher runs.
 */
template <bool TESTED>
struct gl_parts_schedule : gl_tile_schedule<TESTED> {
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &s)
    {
        gl_wait_for_previous_grid(); /* a no-op unless launched behind a kernel */
        const int parts = gridDim.z, z = blockIdx.z;
        const int depth = s.part_depth > 0 ? s.part_depth
                          : parts == 1      ? p.k /* gl_split_depth would round K past INT_MAX */
                                            : gl_split_depth(p.k, parts);
        const int k0 = z * depth;
        gl_problem q = p;
        q.k = min(depth, p.k - k0);
        q.a = p.trans_a ? p.a + (int64_t)k0 * p.lda : p.a + k0;
        q.b = p.trans_b ? p.b + k0 : p.b + (int64_t)k0 * p.ldb;
        q.c = p.c + (int64_t)z * p.m * p.ldc;
        return q;
    }
};

/*
 * A batch of products of one shape: the grid's z is the product. Block
 * (x, y, z) computes its tile of product z, whose operands lie z times the
 * strides after the first product's (a launch holds at most 65535 products;
 * compose.cuh moves the first on for each launch of a longer batch).
 */
template <bool TESTED>
struct gl_batch_schedule : gl_tile_schedule<TESTED> {
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &s)
    {
        const int64_t z = blockIdx.z;
        gl_problem q = p;
        q.a = p.a + z * s.batch.a;
        q.b = p.b + z * s.batch.b;
        q.c = p.c + z * s.batch.c;
        return q;
    }
};

/*
 * Split-K across a batch: the grid's z is the product times s.parts plus
 * the part. Block (x, y, z) computes its tile of product i = z / parts over
 * part j = z % parts of K, cut as gl_parts_schedule cuts it, into C moved
 * on i times the stride and j m x ldc slices (auto passes scratch as C,
 * each product's parts after the one before: s.batch.c = parts m ldc). A
 * launch holds at most 65535 values of z (compose.cuh).
 */
template <bool TESTED>
struct gl_batch_parts_schedule : gl_tile_schedule<TESTED> {
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &s)
    {
        gl_wait_for_previous_grid(); /* a no-op unless launched behind a kernel */
        const int parts = s.parts, z = blockIdx.z, i = z / parts, j = z - i * parts;
        const int depth = s.part_depth > 0 ? s.part_depth : gl_split_depth(p.k, parts);
        const int k0 = j * depth;
        gl_problem q = p;
        q.k = min(depth, p.k - k0);
        q.a = p.a + i * s.batch.a + (p.trans_a ? (int64_t)k0 * p.lda : k0);
        q.b = p.b + i * s.batch.b + (p.trans_b ? k0 : (int64_t)k0 * p.ldb);
        q.c = p.c + i * s.batch.c + (int64_t)j * p.m * p.ldc;
        return q;
    }
};

/*
 * A batch given as arrays of pointers (gl_sgemm_batched): the grid's z is
 * the product, whose operands block (x, y, z) reads from the arrays
 * (compose.cuh moves the arrays on for each launch of a longer batch),
 * then moves A and C to the launch's first row. The host sees none of the
 * entries, so the blocks check their product's, cheaply: a NULL entry
 * gives no product, and its C is left as it is. Nor can the host choose
 * the copies by the entries' alignment without reading them back (a
 * synchronisation), so the launcher runs the batch twice where the leading
 * dimensions allow 16-byte copies: a kernel of 16-byte copies (ALIGNED)
 * doing the products whose entries allow them, then one of a float per
 * load doing the others; each kernel's blocks for the other kernel's
 * products return at once. Every product runs exactly once, with the
 * copies its alignment allows. A block with no product gets a problem of
 * no rows (MAY_IDLE: gl_tile_kernel returns at once).
 * The second kernel is launched behind the first (gl_launch_dependent):
 * the first's blocks let it start once they have read their entries, so
 * its blocks are set up, and those with nothing to do gone, while the
 * first's last blocks run (a plain launch cost 10-14% of a batch of small
 * products). Its blocks read their entries before they wait (the first
 * kernel writes none, and began after everything before it had
 * finished); those with a product, and the grid's first block whatever it
 * holds, wait for the first kernel to finish, so that the grid cannot
 * finish before it and a dependent launch behind it sees every C.
 */
template <bool TESTED, bool ALIGNED>
struct gl_pointers_schedule : gl_tile_schedule<TESTED> {
    static constexpr bool MAY_IDLE = true;
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &s)
    {
        if (!ALIGNED && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0)
            gl_wait_for_previous_grid();
        const int64_t z = blockIdx.z;
        const float *const a = s.pointers.a[z], *const b = s.pointers.b[z];
        float *const c = s.pointers.c[z];
        gl_problem q = p;
        if (!a || !b || !c) {
            q.m = 0;
            return q;
        }
        gl_move_to_row(&q, a, b, c, s.first_row);
        if ((gl_a_vec4_ok(&q) && gl_b_vec4_ok(&q)) != ALIGNED) {
            q.m = 0; /* the other kernel's product */
            return q;
        }
        if (ALIGNED)
            gl_let_next_grid_start();
        else
            gl_wait_for_previous_grid();
        return q;
    }
};

/*
 * Edge windows, for aligned operands whose extents are multiples of 4 and
 * at least a tile. A block at the far edge of C computes the window that
 * ends at the edge instead of its own tile: it overlaps its neighbour's
 * tile, but reads only rows and columns inside the operands, and stores
 * only the part that is its own (x >= x0). The move keeps 16-byte
 * alignment, since extent and bx are multiples of 4. K slice 0 holds the
 * part of K that whole slices leave over (1 to bk, a multiple of 4), read
 * with zeros after it, so every slice after it is whole and untested. The
 * products are still added in the order of k: the same bits as the plain
 * grid.
 */
struct gl_windows_schedule {
    __device__ static gl_problem part(const gl_problem &p, const gl_schedule &)
    {
        gl_wait_for_previous_grid();
        return p;
    }
    __device__ static int window(int x0, int extent, int bx) { return min(x0, extent - bx); }
    __device__ static int first_depth(int k, int bk) { return k - (k - 1) / bk * bk; }
    __device__ static bool tested(int s) { return s == 0 || gl_keep_tests; }
    __device__ static bool owns(int x, int x0) { return x >= x0; }
};

/*
 * Stream-K (plan.c, engine.h): block b computes its whole tiles, then its
 * share of the tiles left over, tile by tile, each as a product of its own
 * on the plain tile schedule: the tile's rows and columns, and the slices
 * of K the block holds. A tile it holds whole goes into C; a part of a tile
 * that shares hold together goes into scratch, its first at w + 2 b tiles,
 * its second at the next, with alpha 1 and beta 0, for add_shared_tiles to
 * add up. Shares are cut at whole slices, so a part of aligned operands
 * stays aligned, and of whole tiles whole. gl_stream_k_tiles calls f(q)
 * for each of the block's tiles, q its product.
 */
template <int BM, int BN, int BK, class F>
__device__ __forceinline__ void gl_stream_k_tiles(const gl_problem &p, const gl_schedule &sched,
                                                  F f)
{
    gl_wait_for_previous_grid(); /* launched behind the kernel before it (engine.h) */
    const gl_stream_k &s = sched.stream_k;
    const int cols = (p.n - 1) / BN + 1;
    const int64_t start = gl_share_start(&s, blockIdx.x), end = gl_share_start(&s, blockIdx.x + 1);
    /* the share's first tile left over, and how many it touches (one or two) */
    const int first = (int)(start / s.slices);
    const int touched = end > start ? (int)((end - 1) / s.slices) - first + 1 : 0;
    /* the whole rounds' tiles, then the tiles of the share: tile t's
     * slices [s0, s1), part j of the share */
    for (int i = -s.rounds; i < touched; ++i) {
        int64_t t;
        int s0 = 0, s1 = s.slices, j = 0;
        if (i < 0) {
            t = blockIdx.x + (int64_t)(i + s.rounds) * s.shares;
        } else {
            t = (int64_t)s.rounds * s.shares + first + i;
            gl_share_part(&s, blockIdx.x, first + i, &s0, &s1, &j);
        }
        const int row0 = (int)(t / cols) * BM, col0 = (int)(t % cols) * BN, k0 = s0 * BK;
        gl_problem q = p;
        q.m = min(BM, p.m - row0), q.n = min(BN, p.n - col0);
        q.k = (int)min((int64_t)s1 * BK, (int64_t)p.k) - k0;
        q.a = p.trans_a ? p.a + (int64_t)k0 * p.lda + row0 : p.a + (int64_t)row0 * p.lda + k0;
        q.b = p.trans_b ? p.b + (int64_t)col0 * p.ldb + k0 : p.b + (int64_t)k0 * p.ldb + col0;
        q.c = p.c + (int64_t)row0 * p.ldc + col0;
        if (s0 > 0 || s1 < s.slices) { /* a part: into scratch */
            q.c = sched.scratch + ((int64_t)blockIdx.x * 2 + j) * (BM * BN);
            q.ldc = BN, q.alpha = 1.0f, q.beta = 0.0f;
        }
        f(q);
    }
}

#endif /* GL_SCHEDULES_CUH */
