/*
 * warptile_paths.cu - auto's launcher: rung 8's kernel, run on the path the
 * plan chose (engine.h), instantiated here with edge policies of the
 * engine's: K in parts (one but for split-K; copies without tests for whole
 * tiles, and for padded copies of the operands, tested ones otherwise) and
 * edge windows. Each waits for the kernel before it in the stream. Operands
 * read a float at a time run on the rung's own launch, unsplit, and on the
 * parts' policy with the kernel for any alignment, split. No part of the
 * kernel is written again.
 */
#define GL_WARPTILE_KERNEL_ONLY
#include "kernels/08_warptile.cu"

#include "engine.h"
#include "pack.h"

namespace {

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
 * kernel.
 */
struct window_edges {
    __device__ static gl_problem part(const gl_problem &p)
    {
        gl_wait_for_previous_grid(); /* launched behind the kernel before it (engine.h) */
        return p;
    }
    __device__ static int window(int x0, int extent, int bx) { return min(x0, extent - bx); }
    __device__ static int first_depth(int k, int bk) { return k - (k - 1) / bk * bk; }
    __device__ static bool tested(int s) { return s == 0 || gl_keep_tests; }
    __device__ static bool owns(int x, int x0) { return x >= x0; }
};

/*
 * K in parts (plan.c): the grid's z is the part of K. Block (x, y, z)
 * computes its tile of the product over part z, a run of K whose depth is a
 * multiple of 32 (so the operands' alignment holds): gl_split_depth's, or
 * the plan's where the last part is short (p.part_depth). Split-K's launcher
 * passes a problem with c = the scratch, ldc = gl_split_ld(n), alpha 1,
 * beta 0, for its parts' products. One part is the whole product: auto
 * runs its interior, packed and tested in-place products on rung 8's
 * kernel this way, so that they are launched behind the kernel before, as
 * its other kernels are.
 * TESTED: with rung 8's tested copies; else, where the operands (or their
 * padded copies) hold whole tiles and every part's depth is a multiple of
 * the slice's, with copies that test nothing, as rung 8's kernel for whole
 * tiles.
 */
template <bool TESTED>
struct k_parts_edges : plain_edges<TESTED> {
    __device__ static gl_problem part(const gl_problem &p)
    {
        gl_wait_for_previous_grid();
        const int parts = gridDim.z, z = blockIdx.z;
        const int depth = p.part_depth > 0 ? p.part_depth
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
 * The engine's kernels: rung 8's kernel with one of the policies above, for
 * each of its configurations, on a grid with `parts` blocks along z (1 but
 * for split-K).
 */
struct engine_config {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *, int parts, const gl_exec *);
    cudaError_t (*prepare)();
};

#define GL_WARPTILE_ARGS BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS
#define GL_WARPTILE_TEMPLATE                                                                    \
    template <class Edges, bool ALIGNED, int BM, int BN, int BK, int WM, int WN, int WNITER,    \
              int TM, int TN, int THREADS>
#define GL_CONFIG_TEMPLATE \
    template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>

GL_WARPTILE_TEMPLATE int launch_edges(const gl_problem *p, int parts, const gl_exec *x)
{
    dim3 grid = gl_tile_grid(p, BM, BN);
    grid.z = (unsigned)parts;
    return gl_launch_dependent(warptile_kernel<Edges, ALIGNED, GL_WARPTILE_ARGS>, grid, THREADS,
                               GL_WARPTILE_SMEM(BM, BN, BK), x, *p);
}

GL_WARPTILE_TEMPLATE cudaError_t prepare_edges()
{
    return gl_allow_shared_memory(warptile_kernel<Edges, ALIGNED, GL_WARPTILE_ARGS>,
                                  GL_WARPTILE_SMEM(BM, BN, BK));
}

#define GL_ENGINE_ROW(EDGES, ALIGNED, BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS)             \
    {{BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},                                            \
     launch_edges<EDGES, ALIGNED, BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>,                \
     prepare_edges<EDGES, ALIGNED, BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>},
#define GL_WINDOWS_ROW(...) GL_ENGINE_ROW(window_edges, true, __VA_ARGS__)
#define GL_PARTS_ROW(...) GL_ENGINE_ROW(k_parts_edges<true>, true, __VA_ARGS__)
#define GL_PARTS_WHOLE_ROW(...) GL_ENGINE_ROW(k_parts_edges<false>, true, __VA_ARGS__)
#define GL_PARTS_ANY_ROW(...) GL_ENGINE_ROW(k_parts_edges<true>, false, __VA_ARGS__)
const engine_config edge_windows[] = {GL_WARPTILE_CONFIGS(GL_WINDOWS_ROW)};
const engine_config k_parts[] = {GL_WARPTILE_CONFIGS(GL_PARTS_ROW)};
const engine_config k_parts_whole[] = {GL_WARPTILE_CONFIGS(GL_PARTS_WHOLE_ROW)};
const engine_config k_parts_any[] = {GL_WARPTILE_CONFIGS(GL_PARTS_ANY_ROW)}; /* a float per load */

/* The blocks an SM holds, asked of the compiler for stream_k_kernel: as
 * rung 8's kernel, but one where the code is for GPUs before sm_90, on
 * which the loop around the tile spilled registers at two (auto plans
 * stream-K only from sm_90, where it is measured; such code runs there only
 * from a build that carries no sm_90 code, and is then right, at half the
 * blocks). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GL_STREAM_K_BLOCKS(THREADS, REGISTERS) 1
#else
#define GL_STREAM_K_BLOCKS(THREADS, REGISTERS) gl_min_blocks(THREADS, REGISTERS)
#endif

/*
 * Stream-K (plan.c, engine.h): block b computes its whole tiles, then its
 * share of the tiles left over, tile by tile, each on rung 8's kernel for
 * one tile (warptile_tile) as a product of its own: the tile's rows and
 * columns, and the slices of K the block holds. A tile it holds whole goes
 * into C; a part of a tile that shares hold together into scratch, its
 * first at w + 2 b tiles, its second at the next, with alpha 1 and beta 0,
 * for add_shared_tiles to add up. Shares are cut at whole slices, so a
 * part of aligned operands stays aligned, and of whole tiles whole.
 */

template <bool TESTED, bool ALIGNED, int BM, int BN, int BK, int WM, int WN, int WNITER, int TM,
          int TN, int THREADS, class S = shape<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>>
__global__ __launch_bounds__(THREADS, GL_STREAM_K_BLOCKS(THREADS, S::REGISTERS))
void stream_k_kernel(const gl_problem p, const gl_stream_k s, float *w)
{
    gl_wait_for_previous_grid(); /* launched behind the kernel before it (engine.h) */
    extern __shared__ float4 smem[];
    float *const buffers = reinterpret_cast<float *>(smem);
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
            q.c = w + ((int64_t)blockIdx.x * 2 + j) * (BM * BN);
            q.ldc = BN, q.alpha = 1.0f, q.beta = 0.0f;
        }
        warptile_tile<plain_edges<TESTED>, ALIGNED, BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>(
            q, 0, 0, buffers);
    }
}

/* The stream-K kernels of one configuration of tiles. */
struct stream_k_config {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *, const gl_stream_k *, float *w, bool whole, const gl_exec *);
    cudaError_t (*prepare)();
};

/* Operands read in groups (the kernel for any alignment, looped so,
 * spilled registers in its slice loop: the plan copies such operands
 * first); whole: of whole tiles and slices, copies without tests. */
GL_CONFIG_TEMPLATE auto stream_k_for(bool whole)
{
    return whole ? stream_k_kernel<false, true, GL_WARPTILE_ARGS>
                 : stream_k_kernel<true, true, GL_WARPTILE_ARGS>;
}

GL_CONFIG_TEMPLATE int launch_stream_k(const gl_problem *p, const gl_stream_k *s, float *w,
                                       bool whole, const gl_exec *x)
{
    return gl_launch_dependent(stream_k_for<GL_WARPTILE_ARGS>(whole), dim3(s->shares), THREADS,
                               GL_WARPTILE_SMEM(BM, BN, BK), x, *p, *s, w);
}

GL_CONFIG_TEMPLATE cudaError_t prepare_stream_k()
{
    for (const bool whole : {false, true})
        if (const cudaError_t err = gl_allow_shared_memory(stream_k_for<GL_WARPTILE_ARGS>(whole),
                                                           GL_WARPTILE_SMEM(BM, BN, BK)))
            return err;
    return cudaSuccess;
}

#define GL_STREAM_K_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS)                           \
    {{BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},                                            \
     launch_stream_k<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>,                             \
     prepare_stream_k<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>},
const stream_k_config stream_k[] = {GL_WARPTILE_STREAM_K_CONFIGS(GL_STREAM_K_ROW)};

/* The plan's shares (whole: operands, or their copies, of whole tiles and
 * slices: copies without tests), then C's tiles that shares hold in parts,
 * from their parts in scratch w. */
int run_stream_k(const gl_problem *p, const gl_engine_plan *plan, float *w, const gl_exec *x)
{
    for (const stream_k_config &c : stream_k)
        if (gl_tile_params_equal(&c.tiles, &plan->tiles)) {
            const int rc = c.launch(p, &plan->stream_k, w, plan->whole, x);
            return rc ? rc
                      : gl_engine_add_shared_tiles(w, &plan->stream_k, plan->tiles.bm,
                                                   plan->tiles.bn, p, x);
        }
    return cudaErrorInvalidConfiguration;
}

/* Table's kernel for tiles t. */
template <size_t N>
int launch_engine(const engine_config (&table)[N], const gl_problem *p, const gl_tile_params *t,
                  int parts, const gl_exec *x)
{
    for (const engine_config &c : table)
        if (gl_tile_params_equal(&c.tiles, t))
            return c.launch(p, parts, x);
    return cudaErrorInvalidConfiguration;
}

/* The plan's parts' products into scratch w (whole: with copies that test
 * nothing; not aligned: a float per load), then C from their sum. */
int run_split(const gl_problem *p, const gl_engine_plan *plan, float *w, const gl_exec *x)
{
    gl_problem into_w = *p;
    into_w.c = w, into_w.ldc = gl_split_ld(p->n), into_w.alpha = 1.0f, into_w.beta = 0.0f;
    into_w.part_depth = plan->part_depth;
    const int rc = launch_engine(!plan->aligned ? k_parts_any
                                 : plan->whole  ? k_parts_whole
                                                : k_parts,
                                 &into_w, &plan->tiles, plan->splits, x);
    return rc ? rc : gl_engine_add_parts(w, plan->splits, p, x);
}

/* The plan's kernel for problem p (the operands' copies, when it made any;
 * split-K's parts in scratch). */
int run(const gl_problem *p, const gl_tile_params *t, const gl_engine_plan *plan, void *scratch,
        const gl_exec *x)
{
    if (plan->kernel == GL_VARIANT_VECTORIZED)
        return gl_launch_vectorized(p, &plan->tiles, x);
    switch (plan->path) {
    case GL_PATH_SPLIT_K:
        return run_split(p, plan,
                         reinterpret_cast<float *>(static_cast<char *>(scratch) +
                                                   plan->parts_offset),
                         x);
    case GL_PATH_STREAM_K:
        return run_stream_k(p, plan,
                            reinterpret_cast<float *>(static_cast<char *>(scratch) +
                                                      plan->parts_offset),
                            x);
    case GL_PATH_EDGE_WINDOWS:
        return launch_engine(edge_windows, p, t, 1, x);
    case GL_PATH_INTERIOR:
    case GL_PATH_PACKED: /* whole tiles: K in one part, copies without tests */
        return launch_engine(k_parts_whole, p, t, 1, x);
    default: /* GL_PATH_RUNG: K in one part with rung 8's tested copies, or, for
                an operand read a float at a time, rung 8's own launch */
        return plan->aligned ? launch_engine(k_parts, p, t, 1, x) : gl_launch_warptile(p, t, x);
    }
}

/* One product on its plan, made with tiles t: scratch from the pool in
 * stream order, or, where the pool has none, the plan without scratch. */
int run_product(const gl_problem *p, const gl_tile_params *t, gl_engine_plan *plan,
                const gl_exec *x)
{
    void *scratch = NULL;
    if (plan->bytes > 0 &&
        cudaMallocFromPoolAsync(&scratch, plan->bytes, x->scratch, x->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error: the plan without scratch */
        scratch = NULL;
        gl_engine_plan_for(p, t, x->tiles_pinned, x->sm_count, false, plan);
    }
    int rc;
    if (plan->path == GL_PATH_GEMV) {
        rc = gl_engine_gemv(&plan->gemv, plan->splits, scratch, x);
    } else {
        gl_problem copied = *p; /* the operands as the kernel reads them */
        rc = gl_engine_copy_operands(&copied, plan, scratch, x);
        if (rc == 0)
            rc = run(&copied, t, plan, scratch, x);
    }
    /* Freed in stream order once the kernels are done. A failure here (none
     * is known on a stream that just took the kernel) leaves the memory to
     * the pool until the handle goes; it must not become the next launch's
     * error. */
    if (scratch && cudaFreeAsync(scratch, x->stream) != cudaSuccess)
        (void)cudaGetLastError();
    return rc;
}

} // namespace

extern "C" int gl_launch_auto(const gl_problem *p, const gl_tile_params *call_tiles,
                              const gl_exec *x)
{
    gl_engine_plan plan, tail_plan;
    const gl_tile_params *t =
        gl_engine_plan_remembered(x->plan_memo, p, call_tiles, x->tiles_pinned, x->sm_count, x->cc,
                                  x->scratch != NULL, &plan, &tail_plan);
    if (plan.tail_rows == 0)
        return run_product(p, t, &plan, x);
    /* The rows above the grid's last round, then that round's rows as a
     * product of their own (its A and C start tail_rows from the bottom). */
    gl_problem top, tail;
    gl_engine_cut_rows(p, p->m - plan.tail_rows, &top, &tail);
    if (const int rc = run_product(&top, t, &plan, x))
        return rc;
    return run_product(&tail, gl_engine_tail_tiles(), &tail_plan, x);
}

extern "C" cudaError_t gl_prepare_auto(void)
{
    for (const auto *table : {&edge_windows, &k_parts, &k_parts_whole, &k_parts_any})
        for (const engine_config &c : *table)
            if (const cudaError_t err = c.prepare())
                return err;
    for (const stream_k_config &c : stream_k)
        if (const cudaError_t err = c.prepare())
            return err;
    return cudaSuccess;
}
