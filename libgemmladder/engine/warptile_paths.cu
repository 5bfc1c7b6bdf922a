/*
 * warptile_paths.cu - auto's launcher: rung 8's kernels, run on the path the
 * plan chose (engine.h): the rung's own (its kernel for whole tiles, for
 * whole tiles and for padded copies of the operands; its tested ones
 * otherwise), and, for edge windows, rung 8's kernel instantiated here with
 * an edge policy of the engine's. No part of the kernel is written again.
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
    __device__ static int window(int x0, int extent, int bx) { return min(x0, extent - bx); }
    __device__ static int first_depth(int k, int bk) { return k - (k - 1) / bk * bk; }
    __device__ static bool tested(int s) { return s == 0 || gl_keep_tests; }
    __device__ static bool owns(int x, int x0) { return x >= x0; }
};

#define GL_WARPTILE_ARGS BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS
#define GL_WARPTILE_TEMPLATE \
    template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>

/* The kernel of the engine's own path (the others are the rung's). */
GL_WARPTILE_TEMPLATE int launch(const gl_problem *p, cudaStream_t stream)
{
    warptile_kernel<window_edges, true, GL_WARPTILE_ARGS>
        <<<gl_tile_grid(p, BM, BN), THREADS, GL_WARPTILE_SMEM(BM, BN, BK), stream>>>(*p);
    return cudaGetLastError();
}

GL_WARPTILE_TEMPLATE cudaError_t prepare()
{
    return gl_allow_shared_memory(warptile_kernel<window_edges, true, GL_WARPTILE_ARGS>,
                                  GL_WARPTILE_SMEM(BM, BN, BK));
}

#define GL_COMPILED(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS)                               \
    {{BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},                                            \
     launch<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>,                                      \
     prepare<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>},
const gl_compiled_config edge_windows[] = {GL_WARPTILE_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

/* The plan's kernel for problem p (the operands' copies, when it made any). */
int run(const gl_problem *p, const gl_tile_params *t, const gl_engine_plan *plan,
        const gl_exec *x)
{
    switch (plan->path) {
    case GL_PATH_EDGE_WINDOWS:
        return gl_launch_config(edge_windows, p, t, x->stream);
    case GL_PATH_PACKED:
        return gl_launch_warptile_whole(p, t, x);
    default: /* GL_PATH_INTERIOR, GL_PATH_RUNG: the rung's launcher picks its kernel */
        return gl_launch_warptile(p, t, x);
    }
}

} // namespace

extern "C" int gl_launch_auto(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    gl_engine_plan plan;
    gl_engine_plan_for(p, t, x->tiles_pinned, x->sm_count, x->scratch != NULL, &plan);
    if (plan.kernel == GL_VARIANT_VECTORIZED)
        return gl_launch_vectorized(p, &plan.tiles, x);

    void *scratch = NULL;
    if (plan.bytes > 0 &&
        cudaMallocFromPoolAsync(&scratch, plan.bytes, x->scratch, x->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error: the plan without scratch */
        scratch = NULL;
        gl_engine_plan_for(p, t, x->tiles_pinned, x->sm_count, false, &plan);
    }
    int rc;
    if (plan.path == GL_PATH_GEMV) {
        rc = gl_engine_gemv(&plan.gemv, plan.splits, scratch, x->stream);
    } else if (scratch) {
        gl_problem copied = *p;
        rc = gl_engine_copy_operands(&copied, &plan, scratch, x->stream);
        if (rc == 0)
            rc = run(&copied, t, &plan, x);
    } else {
        rc = run(p, t, &plan, x);
    }
    /* Freed in stream order once the kernels are done. A failure here (none
     * is known on a stream that just took the kernel) leaves the memory to
     * the pool until the handle goes; it must not become the next launch's
     * error. */
    if (scratch && cudaFreeAsync(scratch, x->stream) != cudaSuccess)
        (void)cudaGetLastError();
    return rc;
}

extern "C" cudaError_t gl_prepare_auto(void) { return gl_prepare_configs(edge_windows); }
