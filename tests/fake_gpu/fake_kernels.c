/*
 * fake_kernels.c - stands in for everything nvcc compiles (fake_gpu.h): each
 * launcher records the problem it was handed and succeeds.
 */
#include "fake_gpu.h"
#include "gemmladder.h"
#include "engine/engine.h"
#include "kernels/launch.h"
#include "variants.h"

static int record(gl_launch_fn self, const gl_problem *p, const gl_batch *batch)
{
    /* The variant whose row names this launcher (variants.c). */
    int variant = -1;
    for (int v = 0; v < gl_variant_count() && variant < 0; ++v)
        if (gl_variant_find((gl_variant_t)v)->launch == self)
            variant = v;
    /* A batch (gl_exec.batch) is recorded product by product, marked batched;
     * a pointer array's products as the kernels run them: each entry read,
     * NULL ones skipped, A and C moved to the slice's first row. */
    const int64_t count = batch ? batch->count : 1;
    for (int64_t i = 0; i < count; ++i) {
        gl_problem q = *p;
        if (batch && batch->c_ptrs) {
            const float *a, *b;
            float *c;
            fake_gpu_read(batch->a_ptrs + i, &a, sizeof a);
            fake_gpu_read(batch->b_ptrs + i, &b, sizeof b);
            fake_gpu_read(batch->c_ptrs + i, &c, sizeof c);
            if (!a || !b || !c)
                continue;
            gl_move_to_row(&q, a, b, c, batch->row0);
        } else if (batch) {
            q.a += i * batch->a, q.b += i * batch->b, q.c += i * batch->c;
        }
        const fake_launch l = {variant, q.m, q.n, q.k, q.a, q.b, q.c, q.lda, q.ldb, q.ldc,
                               q.trans_a, q.trans_b, q.alpha, q.beta, batch != NULL};
        fake_gpu_record(&l);
    }
    return 0;
}

/* Each launcher the kernel files define, recording the variant whose row names it. */
#define FAKE_LAUNCHER(name)                                                     \
    int name(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)    \
    {                                                                           \
        (void)t;                                                                \
        return record(name, p, gl_exec_batch(x));                               \
    }

FAKE_LAUNCHER(gl_launch_naive)
FAKE_LAUNCHER(gl_launch_coalesced)
FAKE_LAUNCHER(gl_launch_shared)
FAKE_LAUNCHER(gl_launch_blocktile_1d)
FAKE_LAUNCHER(gl_launch_blocktile_2d)
FAKE_LAUNCHER(gl_launch_vectorized)
FAKE_LAUNCHER(gl_launch_autotuned)
FAKE_LAUNCHER(gl_launch_warptile)
FAKE_LAUNCHER(gl_launch_tf32)
FAKE_LAUNCHER(gl_launch_pipelined)

/* auto's: also what its engine context says about scratch (fake_gpu.h). */
static _Thread_local struct {
    bool seen;
    void *workspace;
    size_t budget;
} last_auto;

int gl_launch_auto(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    (void)t;
    last_auto.seen = x->engine != NULL;
    last_auto.workspace = x->engine ? x->engine->workspace : NULL;
    last_auto.budget = x->engine ? x->engine->scratch_budget : 0;
    return record(gl_launch_auto, p, gl_exec_batch(x));
}

bool fake_gpu_last_auto(void **workspace, size_t *budget)
{
    *workspace = last_auto.workspace, *budget = last_auto.budget;
    return last_auto.seen;
}

/* Rung 8's kernel table: none here (the fake auto launcher above records
 * the call instead of running the engine's paths). */
const gl_kernel_table gl_vectorized_kernels = {NULL, 0};
const gl_kernel_table gl_warptile_kernels = {NULL, 0};
const gl_kernel_table gl_tf32_kernels = {NULL, 0};
const gl_kernel_table gl_pipelined_kernels = {NULL, 0};

cudaError_t gl_prepare_vectorized(void) { return cudaSuccess; }
cudaError_t gl_prepare_warptile(void) { return cudaSuccess; }
cudaError_t gl_prepare_auto(void) { return cudaSuccess; }
cudaError_t gl_prepare_tf32(void) { return cudaSuccess; }
cudaError_t gl_prepare_pipelined(void) { return cudaSuccess; }

cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream)
{
    (void)stream;
    const fake_launch l = {-1, m, n, 0, NULL, NULL, c, 0, 0, ldc, false, false, 0.0f, beta, false};
    fake_gpu_record(&l);
    return cudaSuccess;
}

cudaError_t gl_launch_scale_c_pointers(int m, int n, float beta, float *const *c, int64_t count,
                                       int64_t ldc, cudaStream_t stream)
{
    for (int64_t i = 0; i < count; ++i) {
        float *ci;
        fake_gpu_read(c + i, &ci, sizeof ci);
        if (ci && gl_launch_scale_c(m, n, beta, ci, ldc, stream) != cudaSuccess)
            return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
