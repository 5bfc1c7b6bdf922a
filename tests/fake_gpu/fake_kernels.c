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
    /* A batch (gl_exec.batch) is recorded product by product, marked batched. */
    const int64_t count = batch ? batch->count : 1;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t a = batch ? i * batch->a : 0, b = batch ? i * batch->b : 0;
        const int64_t c = batch ? i * batch->c : 0;
        const fake_launch l = {variant, p->m, p->n, p->k, p->a + a, p->b + b, p->c + c, p->lda,
                               p->ldb, p->ldc, p->trans_a, p->trans_b, p->alpha, p->beta,
                               batch != NULL};
        fake_gpu_record(&l);
    }
    return 0;
}

/* Each launcher the kernel files define, recording the variant whose row names it. */
#define FAKE_LAUNCHER(name)                                                     \
    int name(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)    \
    {                                                                           \
        (void)t;                                                                \
        return record(name, p, x->batch);                                       \
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
    return record(gl_launch_auto, p, x->batch);
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
