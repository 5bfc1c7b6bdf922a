/*
 * test_gpu_limits.c - every variant at the sizes the API allows, on each
 * path auto has: rows of 2^31 - 1 floats, leading dimensions past 2^31, K
 * of 2^31 - 1, tall products cut into 2048 slices, with C between guard
 * regions that must stay untouched, and a time limit that turns a hang
 * into a failure. Where a 32-bit index wraps, a kernel writes outside C or
 * never ends; here either fails the test.
 *
 * Values are small integers (limits_check.cu), so each element of C is
 * checked exactly, on the GPU. Needs about 90 GiB of device memory: skips
 * (77) on a smaller GPU, and where there is none. Prints the path auto's
 * plan takes for each case, and fails unless the cases reach every path
 * they are meant to (scale, matrix-vector, split-K, packed, the rungs').
 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "limits_check.h"
#include "reference.h"

#define NMAX 2147483647LL
#define GUARD 65536        /* floats before and after C */
#define CALL_SECONDS 120   /* one call and its check; past it the test fails */

/* Which variants a case runs, by what their rows say. */
typedef enum which {
    ALL,       /* every variant */
    FAST,      /* the fast end of the ladder: the reference, the kernels the engine
                  runs, the tuned rungs and the engine (rungs 1-5, one thread an
                  element of C or 32 x 32 blocks, take minutes on a K of 2^25) */
    REFERENCE_AND_ENGINE, /* cuBLAS and auto: a K of 2^31 - 1 on one element */
} which;

static bool runs(which w, int v)
{
    const gl_variant_info info = harness_variant(v);
    switch (w) {
    case FAST:
        return info.reference || info.auto_runs || info.rows_of >= 0 || info.engine;
    case REFERENCE_AND_ENGINE:
        return info.reference || info.engine;
    default:
        return true;
    }
}

typedef struct limit_case {
    const char *name;
    gemm_case g;
    which variants; /* the variants it runs */
    int row_step;   /* check rows i % row_step == 0 exactly (1: all) */
    bool reference; /* sums by lim_reference (C of few elements, long K) */
    int want_path;  /* the path auto's plan must take, or -1 for any */
} limit_case;

static const gl_layout_t R = GL_ROW_MAJOR, Cm = GL_COL_MAJOR;
static const gl_transpose_t N = GL_OP_N, T = GL_OP_T;


static const limit_case cases[] = {
    /* K == 0: only C = beta * C (the review's hang: a 32-bit column
     * counter wrapped past INT_MAX) */
    {"scale, one row of 2^31 - 1", {R, N, N, 1, NMAX, 0, 1.0f, 0.5f, 1, NMAX, NMAX}, ALL, 1,
     false, GL_PATH_SCALE},
    {"scale, column-major, one column of 2^31 - 1", {Cm, N, N, NMAX, 1, 0, 1.0f, 0.5f, NMAX, 1,
                                                     NMAX}, ALL, 1, false, GL_PATH_SCALE},
    {"alpha 0, one row of 2^31 - 1", {R, N, N, 1, NMAX, 3, 0.0f, -2.0f, 3, NMAX, NMAX}, ALL, 1,
     false, GL_PATH_SCALE},
    /* C's row as long as allowed: auto's matrix-vector path (K = 1: cuBLAS
     * gets C's columns in pieces of 2^30, as it fails on one of 2^31 - 1) */
    {"one row of 2^31 - 1, K 1", {R, N, N, 1, NMAX, 1, 1.0f, 0.5f, 1, NMAX, NMAX}, ALL, 1, false,
     -1},
    {"one row of 2^31 - 1, K 3", {R, N, N, 1, NMAX, 3, 1.0f, 0.5f, 3, NMAX, NMAX}, ALL, 1, false,
     GL_PATH_GEMV},
    {"one row of 2^31 - 1, B transposed", {R, N, T, 1, NMAX, 3, 1.0f, 0.0f, 3, 3, NMAX}, ALL, 1,
     false, GL_PATH_GEMV},
    /* nine rows of 2^31 - 4: the tiled kernels, C of 72 GiB */
    {"9 rows of 2^31 - 4", {R, N, N, 9, NMAX - 3, 2, 1.0f, 0.0f, 2, NMAX - 3, NMAX - 3}, ALL, 1,
     false, -1},
    {"column-major, 2^31 - 1 rows of 9", {Cm, N, T, NMAX, 9, 2, -1.0f, 0.5f, NMAX, 9, NMAX}, ALL,
     1, false, -1},
    /* 2^31 - 1 rows of one column: 2048 slices of 2^20 rows */
    {"2^31 - 1 rows, A transposed", {R, T, N, NMAX, 1, 2, 1.0f, 0.5f, NMAX, 1, 1}, ALL, 1, false,
     -1},
    /* leading dimensions past 2^31, odd (rows off 16 bytes) */
    {"ld 3000000001", {R, N, N, 3, 4, 4, 1.0f, 0.5f, 3000000001LL, 3000000001LL, 3000000001LL},
     ALL, 1, false, -1},
    {"ld 3000000001, column-major, transposed",
     {Cm, T, T, 4, 3, 4, 1.0f, 0.0f, 3000000001LL, 3000000001LL, 3000000001LL}, ALL, 1, false,
     -1},
    /* K as long as allowed: auto sums slices of K in scratch */
    {"K 2^31 - 1", {R, N, T, 1, 1, NMAX, 1.0f, 0.0f, NMAX, NMAX, 1},
     REFERENCE_AND_ENGINE, 1, true, GL_PATH_GEMV},
    /* a long K for a small C, A's rows 2^25 apart: split-K */
    {"64 x 64, K 2^25 + 4", {R, N, N, 64, 64, (1 << 25) + 4, 1.0f, 0.5f, (1 << 25) + 4, 64, 64},
     FAST, 1, true, GL_PATH_SPLIT_K},
    /* A's rows off 16 bytes in a big product, A of 2^31 + 2^21 floats:
     * auto copies it, and B for K's edge (rows checked 1 in 61 exactly,
     * the rest written) */
    {"2^20 x 2048 x 2049, lda 2050", {R, N, N, 1 << 20, 2048, 2049, 1.0f, 0.0f, 2050, 2048,
                                       2048}, ALL, 61, false, GL_PATH_PACKED},
};

static const char *current = "setup";

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_gpu_limits: a call ran past its time limit (a hang?) in: ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, current, strlen(current));
    (void)!write(2, "\n", 1);
    _exit(1);
}

/* count floats of device memory, or NULL where the GPU has no room */
static float *device_floats(int64_t count)
{
    float *p = NULL;
    if (cudaMalloc((void **)&p, (size_t)count * sizeof(float)) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static int64_t stored_span(const gemm_case *g, char which)
{
    return case_extent(g, which);
}

static lim_matrix stored_matrix(const gemm_case *g, char which)
{
    int64_t rows, cols;
    case_stored_shape(g, which, &rows, &cols);
    const bool row_major = g->layout == GL_ROW_MAJOR;
    const int64_t ld = which == 'A' ? g->lda : which == 'B' ? g->ldb : g->ldc;
    return (lim_matrix){row_major ? rows : cols, row_major ? cols : rows, ld};
}

static bool paths_seen[16];

static void run_case(gl_handle_t h, const limit_case *lc, uint64_t seed)
{
    const gemm_case *g = &lc->g;
    const bool reads_ab = g->k > 0 && g->alpha != 0.0f;
    const int64_t a_span = reads_ab ? stored_span(g, 'A') : 0;
    const int64_t b_span = reads_ab ? stored_span(g, 'B') : 0;
    const int64_t c_span = stored_span(g, 'C'), total = c_span + 2 * GUARD;
    float *a = reads_ab ? device_floats(a_span) : NULL;
    float *b = reads_ab ? device_floats(b_span) : NULL;
    float *buf = device_floats(total);
    long long *ref = NULL;
    unsigned long long *counts = NULL;
    const int64_t ref_rows = lc->reference ? g->m : 0, ref_cols = lc->reference ? g->n : 0;
    if (lc->reference)
        CHECK_CUDA(cudaMalloc((void **)&ref, sizeof(long long) * (size_t)(g->m * g->n)));
    CHECK_CUDA(cudaMalloc((void **)&counts, 2 * sizeof(unsigned long long)));
    CHECK(buf && (!reads_ab || (a && b)), "%s: %.1f GiB of device memory", lc->name,
          (double)(a_span + b_span + total) * 4 / (1 << 30));
    if (!buf || (reads_ab && !(a && b))) {
        cudaFree(a), cudaFree(b), cudaFree(buf), cudaFree(ref), cudaFree(counts);
        return;
    }
    if (reads_ab) {
        CHECK_CUDA(lim_fill(a, a_span, seed ^ 0xa, NULL, 0));
        CHECK_CUDA(lim_fill(b, b_span, seed ^ 0xb, NULL, 0));
    }
    float *C = buf + GUARD;
    const lim_matrix cm = stored_matrix(g, 'C');
    const lim_case lim = {g->layout == GL_ROW_MAJOR, g->trans_a == GL_OP_T, g->trans_b == GL_OP_T,
                          g->m, g->n, g->k, g->alpha, g->beta, a, b, g->lda, g->ldb, cm};
    if (lc->reference)
        CHECK_CUDA(lim_reference(&lim, g->m, g->n, ref));

    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, g->layout, g->trans_a, g->trans_b, g->m,
                                  g->n, g->k, a, g->lda, b, g->ldb, C, g->ldc, &plan),
                 GL_STATUS_SUCCESS, NULL);
    const int path = g->alpha == 0.0f ? GL_PATH_SCALE : (int)plan.path;
    printf("%-44s auto: path %d (%s), %d launches, %lld bytes of scratch\n", lc->name, path,
           plan.why, (int)plan.launches, (long long)plan.scratch_bytes);
    CHECK(lc->want_path < 0 || path == lc->want_path, "%s: auto's path is %d, want %d",
          lc->name, path, lc->want_path);
    if (path >= 0 && path < 16)
        paths_seen[path] = true;
    if (plan.kernel != GL_VARIANT_AUTO && path != GL_PATH_SCALE)
        paths_seen[15] = true; /* a rung's kernel */

    for (int v = 0; v < gl_variant_count(); ++v) {
        if (!runs(lc->variants, v))
            continue;
        char what[160];
        snprintf(what, sizeof what, "%s, variant %s", lc->name, gl_variant_name((gl_variant_t)v));
        current = what;
        CHECK_CUDA(lim_fill(buf, total, seed ^ 0xc, g->beta == 0.0f ? &cm : NULL, GUARD));
        CHECK_CUDA(cudaDeviceSynchronize());
        alarm(CALL_SECONDS);
        const time_t t0 = time(NULL);
        const gl_status_t st = gl_sgemm_ex(h, (gl_variant_t)v, g->layout, g->trans_a, g->trans_b,
                                           g->m, g->n, g->k, g->alpha, reads_ab ? a : NULL, g->lda,
                                           reads_ab ? b : NULL, g->ldb, g->beta, C, g->ldc);
        /* cuBLAS's own limit (kernels/00_cublas.c), for either of its
         * references (FP32, TF32): refused, C untouched */
        gl_variant_info info = {.size = sizeof info};
        const bool refused = gl_variant_describe((gl_variant_t)v, &info) == GL_STATUS_SUCCESS &&
                             info.reference && st == GL_STATUS_CUBLAS_ERROR &&
                             strstr(gl_last_error(h), "NOT_SUPPORTED");
        CHECK(st == GL_STATUS_SUCCESS || refused, "%s: %s", what, gl_last_error(h));
        const cudaError_t err = cudaDeviceSynchronize();
        CHECK(err == cudaSuccess, "%s: %s", what, cudaGetErrorString(err));
        if (err != cudaSuccess)
            exit(1); /* the context is gone */
        CHECK_CUDA(cudaMemset(counts, 0, sizeof(unsigned long long)));
        CHECK_CUDA(cudaMemset(counts + 1, 0xff, sizeof(unsigned long long)));
        CHECK_CUDA(lim_check(&lim, buf, total, GUARD, seed ^ 0xc, ref, ref_rows, ref_cols,
                             lc->row_step, refused, counts, counts + 1));
        unsigned long long got[2];
        CHECK_CUDA(cudaMemcpy(got, counts, sizeof got, cudaMemcpyDeviceToHost));
        alarm(0);
        const long long first = (long long)got[1] - GUARD;
        CHECK(got[0] == 0, "%s: %llu wrong floats, the first %lld floats %s C's first", what,
              got[0], first < 0 ? -first : first, first < 0 ? "before" : "after");
        printf("  %-12s %s, %lld s\n", gl_variant_name((gl_variant_t)v),
               got[0] ? "WRONG" : refused ? "refused (cuBLAS's limit), C untouched"
                     : st != GL_STATUS_SUCCESS ? "FAILED" : "ok",
               (long long)(time(NULL) - t0));
        fflush(stdout);
    }
    current = "between cases";
    cudaFree(a), cudaFree(b), cudaFree(buf), cudaFree(ref), cudaFree(counts);
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_limits");
    if (early >= 0)
        return early;
    size_t free_bytes = 0, total_bytes = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < (size_t)92 << 30) {
        printf("skipped: the cases need about 92 GiB of device memory, %.1f GiB are free\n",
               (double)free_bytes / (1 << 30));
        gl_handle_destroy(h);
        return HARNESS_SKIP;
    }
    signal(SIGALRM, on_alarm);
    const uint64_t seed = test_seed();
    printf("seed %llu (GL_TEST_SEED)\n", (unsigned long long)seed);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_case(h, &cases[i], seed + i);
    const int wanted[] = {GL_PATH_SCALE, GL_PATH_GEMV, GL_PATH_SPLIT_K, GL_PATH_PACKED, 15};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; ++i)
        CHECK(paths_seen[wanted[i]], "no case took path %d (15: a rung's kernel)", wanted[i]);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_limits");
}
