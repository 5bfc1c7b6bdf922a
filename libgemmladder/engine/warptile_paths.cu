/*
 * warptile_paths.cu - auto's launcher: rung 8's kernel, run on the path the
 * plan chose (engine.h), with two edge policies of the engine's own beside
 * the rung's plain one. The kernel is the rung's, instantiated here; no
 * part of its algorithm is written again.
 */
#define GL_WARPTILE_KERNEL_ONLY
#include "kernels/08_warptile.cu"

#include "engine.h"
#include "pack.h"

namespace {

/* On sm_80 the untested copies of the 128 x 128 kernels spilled registers
 * (ptxas of CUDA 13.0); there the engine's kernels keep testing every
 * slice. Their windows always pass the tests, so only speed differs. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 860
constexpr bool tests_kept = true;
#else
constexpr bool tests_kept = false;
#endif

/* Operands that are whole aligned tiles (tile multiples, or copies padded
 * to them): no copy is ever tested. */
struct interior_edges {
    __device__ static int window(int x0, int, int) { return x0; }
    __device__ static int first_depth(int, int bk) { return bk; }
    __device__ static bool tested(int) { return tests_kept; }
    __device__ static bool owns(int, int) { return true; }
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
 * kernel.
 */
struct window_edges {
    __device__ static int window(int x0, int extent, int bx) { return min(x0, extent - bx); }
    __device__ static int first_depth(int k, int bk) { return k - (k - 1) / bk * bk; }
    __device__ static bool tested(int s) { return s == 0 || tests_kept; }
    __device__ static bool owns(int x, int x0) { return x >= x0; }
};

#define GL_WARPTILE_ARGS BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS
#define GL_WARPTILE_TEMPLATE \
    template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int THREADS>

/* The kernels of the engine's own paths; GL_PATH_RUNG runs the rung's. */
GL_WARPTILE_TEMPLATE auto kernel_for(gl_path_t path)
{
    return path == GL_PATH_EDGE_WINDOWS ? warptile_kernel<window_edges, true, GL_WARPTILE_ARGS>
                                        : warptile_kernel<interior_edges, true, GL_WARPTILE_ARGS>;
}

GL_WARPTILE_TEMPLATE int launch(const gl_problem *p, gl_path_t path, cudaStream_t stream)
{
    kernel_for<GL_WARPTILE_ARGS>(path)
        <<<gl_tile_grid(p, BM, BN), THREADS, GL_WARPTILE_SMEM(BM, BN, BK), stream>>>(*p);
    return cudaGetLastError();
}

GL_WARPTILE_TEMPLATE cudaError_t prepare()
{
    for (gl_path_t path : {GL_PATH_INTERIOR, GL_PATH_EDGE_WINDOWS})
        if (const cudaError_t err = gl_allow_shared_memory(kernel_for<GL_WARPTILE_ARGS>(path),
                                                           GL_WARPTILE_SMEM(BM, BN, BK)))
            return err;
    return cudaSuccess;
}

struct engine_config {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *, gl_path_t, cudaStream_t);
    cudaError_t (*prepare)();
};

#define GL_COMPILED(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS)                               \
    {{BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},                                            \
     launch<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>,                                      \
     prepare<BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS>},
const engine_config configs[] = {GL_WARPTILE_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

/* The plan's kernel for problem p (the operands' copies, when it made any). */
int run(const gl_problem *p, const gl_tile_params *t, const gl_engine_plan *plan,
        const gl_exec *x)
{
    if (plan->path == GL_PATH_RUNG)
        return gl_launch_warptile(p, t, x);
    for (const engine_config &c : configs)
        if (gl_tile_params_equal(&c.tiles, t))
            return c.launch(p, plan->path, x->stream);
    return cudaErrorInvalidConfiguration; /* the dispatcher only passes compiled tiles */
}

} // namespace

extern "C" int gl_launch_auto(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    gl_engine_plan plan;
    gl_engine_plan_for(p, t, x->scratch != NULL, &plan);
    if (plan.bytes == 0)
        return run(p, t, &plan, x);

    void *scratch = NULL;
    if (cudaMallocFromPoolAsync(&scratch, plan.bytes, x->scratch, x->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error: the operands are read in place */
        gl_engine_plan_for(p, t, false, &plan);
        return run(p, t, &plan, x);
    }
    gl_problem copied = *p;
    int rc = gl_engine_copy_operands(&copied, &plan, scratch, x->stream);
    if (rc == 0)
        rc = run(&copied, t, &plan, x);
    /* Freed in stream order once the kernel is done. A failure here (none
     * is known on a stream that just took the kernel) leaves the memory to
     * the pool until the handle goes; it must not become the next launch's
     * error. */
    if (cudaFreeAsync(scratch, x->stream) != cudaSuccess)
        (void)cudaGetLastError();
    return rc;
}

extern "C" cudaError_t gl_prepare_auto(void)
{
    for (const engine_config &c : configs)
        if (const cudaError_t err = c.prepare())
            return err;
    return cudaSuccess;
}
