/*
 * dev-sweep - developer tool, not installed: times every compiled tile
 * configuration of the tiled kernels (rungs 4-8) on chosen shapes, with
 * cuBLAS in the same run, by calling the launchers directly. It is how the
 * default configurations were chosen; the tuner (gemmladder-tune) does the
 * same job through the public API.
 *
 *   dev-sweep MxNxK [MxNxK...]
 */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "internal.h"

#define CUDA(call) bu_check_cuda((call), #call)

/* One timed product: a rung's launcher on one configuration, or cuBLAS. */
typedef struct timed {
    int (*launch)(const gl_problem *, const gl_tile_params *, const gl_exec *); /* NULL: cuBLAS */
    cublasHandle_t cb;
    gl_problem *p;
    int sets;
    float **a, **b, **c;
    const gl_tile_params *t;
    const gl_exec *x;
} timed;

static int run_timed(void *ctx, int repetition)
{
    const timed *w = ctx;
    gl_problem *p = w->p;
    const int s = repetition % w->sets;
    p->a = w->a[s], p->b = w->b[s], p->c = w->c[s];
    if (w->launch)
        return w->launch(p, w->t, w->x);
    return cublasSgemm(w->cb, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k, &p->alpha, p->b,
                       (int)p->ldb, p->a, (int)p->lda, &p->beta, p->c, (int)p->ldc) !=
           CUBLAS_STATUS_SUCCESS;
}

/* Milliseconds per call, timed as the benchmark does (bu_time_median: batches
 * of back-to-back calls, median of 9 after 2 warm-ups), rotating over `sets`. */
static float time_it(int (*launch)(const gl_problem *, const gl_tile_params *, const gl_exec *),
                     cublasHandle_t cb, gl_problem *p, int sets, float **a, float **b, float **c,
                     const gl_tile_params *t, const gl_exec *x)
{
    timed w = {launch, cb, p, sets, a, b, c, t, x};
    const double ms = bu_time_median(run_timed, &w, 2, 9);
    if (ms < 0)
        bu_die("a timed call failed");
    return (float)ms;
}

static float *random_buffer(size_t n)
{
    float *h = malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; ++i)
        h[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
    return d;
}

int main(int argc, char **argv)
{
    bu_tool = "dev-sweep";
    cublasHandle_t cb;
    bu_check_cublas(cublasCreate(&cb), "cublasCreate");
    gl_handle_t h;
    if (gl_handle_create(&h)) {
        fprintf(stderr, "%s\n", gl_last_error(NULL));
        return 1;
    }
    const gl_exec x = {0, NULL, h->cc, h->sm_count, NULL}; /* no scratch: always the in-place paths */
    printf("%-11s %5s %5s %5s  %-32s %9s %8s\n", "rung", "M", "N", "K", "tiles", "GFLOP/s",
           "%cuBLAS");
    for (int arg = 1; arg < argc; ++arg) {
        int m, n, k;
        if (sscanf(argv[arg], "%dx%dx%d", &m, &n, &k) != 3)
            return 2;
        const int sets = 3;
        float *a[3], *b[3], *c[3];
        for (int s = 0; s < sets; ++s)
            a[s] = random_buffer((size_t)m * k), b[s] = random_buffer((size_t)k * n),
            c[s] = random_buffer((size_t)m * n);
        gl_problem p = {m, n, k, 1.0f, 0.0f, a[0], k, false, b[0], n, false, c[0], n, false};
        const double gflop = 2.0 * m * n * (double)k / 1e9;
        const float base = time_it(NULL, cb, &p, sets, a, b, c, NULL, &x);
        printf("%-11s %5d %5d %5d  %-32s %9.0f %7.1f%%\n", "cublas", m, n, k, "-", gflop / base * 1e3,
               100.0);
        const gl_variant_t rungs[] = {GL_VARIANT_BLOCKTILE_1D, GL_VARIANT_BLOCKTILE_2D,
                                      GL_VARIANT_VECTORIZED, GL_VARIANT_AUTOTUNED,
                                      GL_VARIANT_WARPTILE};
        for (int r = 0; r < 5; ++r) {
            const gl_rung *rung = gl_rung_find(rungs[r]);
            int count = 0;
            const gl_tile_params *cfg = gl_configs_of(rungs[r], &count);
            if (rungs[r] == GL_VARIANT_VECTORIZED)
                continue; /* the autotuned rows time the same kernel */
            for (int i = 0; i < count; ++i) {
                const float ms = time_it(rung->launch, cb, &p, sets, a, b, c, &cfg[i], &x);
                char name[64];
                snprintf(name, sizeof name, "%dx%dx%d t%dx%d w%dx%dx%d n%d", cfg[i].bm, cfg[i].bn,
                         cfg[i].bk, cfg[i].tm, cfg[i].tn, cfg[i].wm, cfg[i].wn, cfg[i].wniter,
                         cfg[i].threads);
                printf("%-11s %5d %5d %5d  %-32s %9.0f %7.1f%%\n", gl_variant_names[rung->id], m, n, k, name,
                       gflop / ms * 1e3, 100.0 * base / ms);
            }
        }
        for (int s = 0; s < sets; ++s)
            cudaFree(a[s]), cudaFree(b[s]), cudaFree(c[s]);
        fflush(stdout);
    }
    gl_handle_destroy(h);
    cublasDestroy(cb);
    return 0;
}
