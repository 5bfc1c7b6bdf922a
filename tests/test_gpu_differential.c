/*
 * test_gpu_differential.c - random products on every rung against a float64
 * reference computed by cuBLAS DGEMM on the same inputs.
 *
 * Each case draws M, N, K from 1 to 3000 (log-uniform, with primes and
 * values either side of tile edges mixed in), the layout, both transposes,
 * leading-dimension padding of 0 to 7, alpha and beta (0 and 1 included) and
 * an offset of 0 to 3 floats into each allocation (so 16-byte paths are
 * sometimes unavailable). C's padding must come back untouched, and with
 * beta == 0 C starts as NaN. The seed is printed: GL_TEST_SEED=<seed>
 * repeats a run. 300 cases by default; GL_TEST_CASES=n for n, GL_TEST_LONG=1
 * for 3000, GL_TEST_QUICK=1 for 30. The first cases are fixed shapes where
 * auto runs the rows of the grid's last round of blocks as a product of
 * their own (engine/plan.c, tail_rows), or copies an operand into its transpose
 * first (transpose_operands), or splits K with a short last part (short_last_part),
 * with tight, aligned operands and the rest drawn as
 * usual, on auto alone. Each variant is held to its precision class's
 * tolerance (harness.h), a TF32 variant also to twice its class's
 * reference's error (cuBLAS TF32) on the same case, which runs first; the
 * largest errors are printed at the end. Exits 77 where there is no GPU.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>

#include "harness.h"
#include "reference.h"

static const int primes[] = {2, 3, 5, 7, 13, 31, 61, 127, 251, 509, 1021, 2039, 2999};
static const int edges[] = {63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025};

static int64_t draw_dim(rng *r)
{
    switch (rng_next(r) % 4) {
    case 0:
        return primes[rng_next(r) % (sizeof primes / sizeof primes[0])];
    case 1:
        return edges[rng_next(r) % (sizeof edges / sizeof edges[0])];
    default: /* log-uniform in [1, 3000] */
        return (int64_t)floor(exp((double)(rng_next(r) % 1000000) / 1e6 * log(3000.0))) ;
    }
}

static float draw_scalar(rng *r)
{
    static const float fixed[] = {0.0f, 1.0f, -1.0f, 0.5f};
    return rng_next(r) % 2 ? fixed[rng_next(r) % 4] : rng_uniform(r) * 2.0f;
}

static int64_t min_ld(const gemm_case *c, char which)
{
    int64_t rows, cols;
    case_stored_shape(c, which, &rows, &cols);
    const int64_t need = c->layout == GL_ROW_MAJOR ? cols : rows;
    return need > 1 ? need : 1;
}

/* Host float array -> device doubles (padding as 0, which DGEMM never reads). */
static double *upload_double(const gemm_case *c, char which, const float *h, int64_t n)
{
    double *hd = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), *d;
    for (int64_t e = 0; e < n; ++e)
        hd[e] = case_is_element(c, which, e) ? (double)h[e] : 0.0;
    CHECK_CUDA(cudaMalloc((void **)&d, sizeof(double) * (size_t)(n > 0 ? n : 1)));
    CHECK_CUDA(cudaMemcpy(d, hd, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
    free(hd);
    return d;
}

/* ref (as stored, ldc) = alpha op(A) op(B) + beta C0, by cuBLAS DGEMM. */
static double *reference_on_gpu(cublasHandle_t cb, const gemm_case *c, const float *A,
                                 const float *B, const float *C0)
{
    const int64_t na = case_extent(c, 'A'), nb = case_extent(c, 'B'), nc = case_extent(c, 'C');
    double *dA = upload_double(c, 'A', A, na), *dB = upload_double(c, 'B', B, nb);
    double *dC = upload_double(c, 'C', C0, nc);
    const double alpha = c->alpha, beta = c->beta;
    const cublasOperation_t oa = c->trans_a == GL_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t ob = c->trans_b == GL_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t st;
    if (c->layout == GL_COL_MAJOR)
        st = cublasDgemm_64(cb, oa, ob, c->m, c->n, c->k, &alpha, dA, c->lda, dB, c->ldb, &beta,
                            dC, c->ldc);
    else /* row-major C is column-major C^T = op(B)^T op(A)^T */
        st = cublasDgemm_64(cb, ob, oa, c->n, c->m, c->k, &alpha, dB, c->ldb, dA, c->lda, &beta,
                            dC, c->ldc);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasDgemm_64 failed: %s\n", cublasGetStatusName(st));
        exit(1);
    }
    double *ref = malloc(sizeof(double) * (size_t)nc);
    CHECK_CUDA(cudaMemcpy(ref, dC, sizeof(double) * (size_t)nc, cudaMemcpyDeviceToHost));
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    return ref;
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_differential");
    if (early >= 0)
        return early;
    cublasHandle_t cb;
    if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }

    const uint64_t seed = test_seed();
    int cases = getenv("GL_TEST_LONG") && atoi(getenv("GL_TEST_LONG")) ? 3000 : 300;
    if (getenv("GL_TEST_QUICK") && atoi(getenv("GL_TEST_QUICK")))
        cases = 30;
    if (getenv("GL_TEST_CASES"))
        cases = atoi(getenv("GL_TEST_CASES"));
    printf("seed %llu, %d cases (GL_TEST_SEED=%llu repeats this run)\n",
           (unsigned long long)seed, cases, (unsigned long long)seed);
    rng r = {seed};

    /* Fixed shapes first, on auto alone, whose plan on an H100's 132 SMs
     * says `plan`: edge windows and interior above the last round's rows;
     * interior and edge windows on A copied transposed (the row-major
     * problem's A as stored: A row-major, or B column-major, not
     * transposed; either layout), and on B copied transposed (B row-major,
     * or A column-major, transposed); split-K with a short last part, one
     * and two long parts to a tile. */
    static const struct {
        int64_t m, n, k;
        const char *plan;
    } fixed[] = {{3000, 3000, 1024, "last round"},
                 {3072, 3072, 1024, "last round"},
                 {4096, 4096, 1024, "transposed"},
                 {4112, 4120, 1016, "transposed"},
                 {4096, 4096, 1024, "B copied transposed"},
                 {4112, 4120, 1016, "B copied transposed"},
                 {1024, 1024, 32768, "short"},
                 {2048, 1024, 16384, "short"}};
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    int runs = 0, failed_cases = 0;
    double worst_error[64] = {0}, worst_ratio[64] = {0}; /* per variant, for the summary */
    int64_t worst_k[64] = {0};
    for (int i = 0; i < cases; ++i) {
        gemm_case c = {rng_next(&r) % 2 ? GL_COL_MAJOR : GL_ROW_MAJOR,
                       rng_next(&r) % 2 ? GL_OP_T : GL_OP_N, rng_next(&r) % 2 ? GL_OP_T : GL_OP_N,
                       draw_dim(&r), draw_dim(&r), draw_dim(&r), draw_scalar(&r),
                       draw_scalar(&r), 0, 0, 0};
        const int tail = i < nfixed; /* tight and aligned: no draws for them */
        if (tail) {
            c.m = fixed[i].m, c.n = fixed[i].n, c.k = fixed[i].k;
            if (strcmp(fixed[i].plan, "transposed") == 0) { /* the row-major problem's A as stored */
                if (c.layout == GL_ROW_MAJOR)
                    c.trans_a = GL_OP_N;
                else
                    c.trans_b = GL_OP_N; /* the row-major problem's A is B */
            }
            if (strcmp(fixed[i].plan, "B copied transposed") == 0) { /* the row-major problem's B */
                if (c.layout == GL_ROW_MAJOR)
                    c.trans_b = GL_OP_T;
                else
                    c.trans_a = GL_OP_T; /* the row-major problem's B is A */
            }
        }
        c.lda = min_ld(&c, 'A') + (tail ? 0 : (int64_t)(rng_next(&r) % 8));
        c.ldb = min_ld(&c, 'B') + (tail ? 0 : (int64_t)(rng_next(&r) % 8));
        c.ldc = min_ld(&c, 'C') + (tail ? 0 : (int64_t)(rng_next(&r) % 8));
        const int oa = tail ? 0 : (int)(rng_next(&r) % 4), ob = tail ? 0 : (int)(rng_next(&r) % 4),
                  oc = tail ? 0 : (int)(rng_next(&r) % 4);
        const int64_t na = case_extent(&c, 'A'), nb = case_extent(&c, 'B'),
                      nc = case_extent(&c, 'C');

        float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
        float *C0 = malloc(sizeof(float) * nc), *C = malloc(sizeof(float) * nc);
        for (int64_t e = 0; e < na; ++e)
            A[e] = case_is_element(&c, 'A', e) ? rng_uniform(&r) : poison_value();
        for (int64_t e = 0; e < nb; ++e)
            B[e] = case_is_element(&c, 'B', e) ? rng_uniform(&r) : poison_value();
        for (int64_t e = 0; e < nc; ++e)
            C0[e] = case_is_element(&c, 'C', e) && c.beta != 0.0f ? rng_uniform(&r)
                                                                  : poison_value();
        double *ref = reference_on_gpu(cb, &c, A, B, C0);
        double norm = 0.0; /* ||ref||_F^2 */
        for (int64_t e = 0; e < nc; ++e)
            if (case_is_element(&c, 'C', e))
                norm += ref[e] * ref[e];
        const double cancel = cancellation(&c, A, B, C0, sqrt(norm));

        float *dA, *dB, *dC;
        CHECK_CUDA(cudaMalloc((void **)&dA, sizeof(float) * (size_t)(na + oa)));
        CHECK_CUDA(cudaMalloc((void **)&dB, sizeof(float) * (size_t)(nb + ob)));
        CHECK_CUDA(cudaMalloc((void **)&dC, sizeof(float) * (size_t)(nc + oc)));
        CHECK_CUDA(cudaMemcpy(dA + oa, A, sizeof(float) * na, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dB + ob, B, sizeof(float) * nb, cudaMemcpyHostToDevice));

        char what[200];
        snprintf(what, sizeof what,
                 "case %d: %lldx%lldx%lld %s %c%c alpha=%g beta=%g ld=%lld,%lld,%lld offsets=%d,%d,%d",
                 i, (long long)c.m, (long long)c.n, (long long)c.k,
                 c.layout == GL_ROW_MAJOR ? "row" : "col", c.trans_a == GL_OP_T ? 'T' : 'N',
                 c.trans_b == GL_OP_T ? 'T' : 'N', c.alpha, c.beta, (long long)c.lda,
                 (long long)c.ldb, (long long)c.ldc, oa, ob, oc);
        const int failures_before = harness_failures;
        if (tail) { /* the plan says so where the GPU has an H100's 132 SMs */
            int sms = 0;
            CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                              gl_handle_device(h)));
            gl_plan plan = {.size = sizeof plan};
            CHECK(gl_sgemm_plan(h, GL_VARIANT_AUTO, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k,
                                dA, c.lda, dB, c.ldb, dC, c.ldc, &plan) == GL_STATUS_SUCCESS,
                  "%s: gl_sgemm_plan: %s", what, gl_last_error(h));
            CHECK(sms != 132 || strstr(plan.why, fixed[i].plan) != NULL,
                  "%s: auto's plan is \"%s\", without \"%s\"", what, plan.why, fixed[i].plan);
        }
        /* the references first: their errors on this case */
        double reference_error[3] = {-1.0, -1.0, -1.0};
        for (int turn = 0; turn < 2 * gl_variant_count(); ++turn) {
            const int v = turn % gl_variant_count();
            const gl_variant_info info = harness_variant(v);
            if (info.reference != (turn < gl_variant_count()))
                continue;
            if (tail && v != GL_VARIANT_AUTO)
                continue;
            CHECK_CUDA(cudaMemcpy(dC + oc, C0, sizeof(float) * nc, cudaMemcpyHostToDevice));
            const gl_status_t s =
                gl_sgemm_ex(h, (gl_variant_t)v, c.layout, c.trans_a, c.trans_b, c.m, c.n, c.k,
                            c.alpha, dA + oa, c.lda, dB + ob, c.ldb, c.beta, dC + oc, c.ldc);
            CHECK(s == GL_STATUS_SUCCESS, "%s, %s: %s", what, gl_variant_name(v), gl_last_error(h));
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(cudaMemcpy(C, dC + oc, sizeof(float) * nc, cudaMemcpyDeviceToHost));
            double diff = 0;
            int64_t bad = 0, padding = 0;
            for (int64_t e = 0; e < nc; ++e) {
                if (!case_is_element(&c, 'C', e)) {
                    padding += !is_poison(C[e]);
                    continue;
                }
                bad += !isfinite(C[e]);
                diff += (C[e] - ref[e]) * (C[e] - ref[e]);
            }
            const double err = norm > 0 ? sqrt(diff / norm) : sqrt(diff);
            const double tolerance = harness_tolerance(v, c.k) * cancel;
            CHECK(bad == 0 && err <= tolerance,
                  "%s, %s: relative error %.3g (tolerance %.3g), %lld non-finite", what,
                  gl_variant_name(v), err, tolerance, (long long)bad);
            const int precision = info.precision >= 0 && info.precision < 3 ? info.precision : 0;
            const double ref_err = reference_error[precision];
            if (info.reference)
                reference_error[precision] = err;
            else if (precision == GL_PRECISION_TF32)
                CHECK(harness_tf32_ratio_ok(err, ref_err, cancel),
                      "%s, %s: relative error %.3g, more than %g times its reference's %.3g", what,
                      gl_variant_name(v), err, HARNESS_TF32_RATIO, ref_err);
            if (v < 64 && err > worst_error[v])
                worst_error[v] = err, worst_k[v] = c.k;
            if (v < 64 && !info.reference && precision == GL_PRECISION_TF32 &&
                ref_err > HARNESS_FP32_TOLERANCE * cancel && err / ref_err > worst_ratio[v])
                worst_ratio[v] = err / ref_err;
            CHECK(padding == 0, "%s, %s: %lld padding elements written", what, gl_variant_name(v),
                  (long long)padding);
            ++runs;
        }
        failed_cases += harness_failures != failures_before;
        cudaFree(dA), cudaFree(dB), cudaFree(dC);
        free(A), free(B), free(C0), free(C), free(ref);
    }
    printf("%d cases, %d rung runs checked, %d cases with failures\n", cases, runs, failed_cases);
    for (int v = 0; v < gl_variant_count() && v < 64; ++v) {
        const gl_variant_info info = harness_variant(v);
        if (worst_k[v] > 0)
            printf("  %-13s %s: largest relative error %.3g (K = %lld)%s", info.name,
                   info.precision == GL_PRECISION_TF32 ? "TF32" : "FP32", worst_error[v],
                   (long long)worst_k[v], worst_ratio[v] > 0 ? "" : "\n");
        if (worst_ratio[v] > 0)
            printf(", at most %.2f times its reference's\n", worst_ratio[v]);
    }
    cublasDestroy(cb);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_differential");
}
