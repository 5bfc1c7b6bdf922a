/*
 * fake_kernels.c - stands in for everything nvcc compiles (fake_gpu.h): each
 * launcher records the problem it was handed and succeeds.
 */
#include "fake_gpu.h"
#include "gemmladder.h"
#include "kernels/launch.h"

static int record(int variant, const gl_problem *p)
{
    const fake_launch l = {variant, p->m, p->n, p->k, p->a, p->b, p->c, p->lda, p->ldb,
                           p->ldc, p->trans_a, p->trans_b, p->alpha, p->beta};
    fake_gpu_record(&l);
    return 0;
}

#define FAKE_LAUNCHER(name, id)                                                     \
    int name(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)        \
    {                                                                               \
        (void)t, (void)x;                                                           \
        return record(id, p);                                                       \
    }

FAKE_LAUNCHER(gl_launch_naive, GL_VARIANT_NAIVE)
FAKE_LAUNCHER(gl_launch_coalesced, GL_VARIANT_COALESCED)
FAKE_LAUNCHER(gl_launch_shared, GL_VARIANT_SHARED)
FAKE_LAUNCHER(gl_launch_blocktile_1d, GL_VARIANT_BLOCKTILE_1D)
FAKE_LAUNCHER(gl_launch_blocktile_2d, GL_VARIANT_BLOCKTILE_2D)
FAKE_LAUNCHER(gl_launch_vectorized, GL_VARIANT_VECTORIZED)
FAKE_LAUNCHER(gl_launch_autotuned, GL_VARIANT_AUTOTUNED)
FAKE_LAUNCHER(gl_launch_warptile, GL_VARIANT_WARPTILE)
FAKE_LAUNCHER(gl_launch_auto, GL_VARIANT_AUTO)

cudaError_t gl_prepare_vectorized(void) { return cudaSuccess; }
cudaError_t gl_prepare_warptile(void) { return cudaSuccess; }
cudaError_t gl_prepare_auto(void) { return cudaSuccess; }

cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream)
{
    (void)stream;
    const fake_launch l = {-1, m, n, 0, NULL, NULL, c, 0, 0, ldc, false, false, 0.0f, beta};
    fake_gpu_record(&l);
    return cudaSuccess;
}
