/*
 * test_gpu_api.c - the public API on a GPU: handles and streams, the pointer
 * checks (host memory, foreign and too-small allocations), the BLAS edge
 * cases (M or N = 0, K = 0, alpha = 0), that a rejected call leaves C
 * alone and the CUDA context usable, and that auto's kernels, launched
 * behind the kernel before them, wait for its writes. Exits 77 where there
 * is no GPU.
 */
#include <cuda_runtime_api.h>
#include <math.h>

#include "harness.h"
#include "reference.h"

enum { M = 67, N = 45, K = 33 };

static rng r;

/* late_writer.cu */
cudaError_t test_late_writes(float *dst_a, const float *src_a, int64_t n_a, float *dst_b,
                             const float *src_b, int64_t n_b, float *dst_c, const float *src_c,
                             int64_t n_c, int delay_us, cudaStream_t stream);

static float *device_random(size_t n)
{
    float *h = malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; ++i)
        h[i] = rng_uniform(&r);
    CHECK_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    /* from pageable memory the copy may still be on its way: streams that do
     * not wait for the default one must find it done */
    CHECK_CUDA(cudaDeviceSynchronize());
    free(h);
    return d;
}

static float *to_host(const float *d, size_t n)
{
    float *h = malloc(n * sizeof(float));
    CHECK_CUDA(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

/* C (M x N, row-major) of a plain product by variant v equals the float64
 * reference within v's class's tolerance (v < 0: FP32's). */
static void check_product_of(int v, const char *what, const float *A, const float *B,
                             const float *C, const float *C0, float alpha, float beta)
{
    gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K, alpha, beta, K, N, N};
    float *hA = to_host(A, M * K), *hB = to_host(B, K * N), *hC = to_host(C, M * N);
    double *ref = malloc(sizeof(double) * M * N);
    reference_gemm(&c, hA, hB, C0, ref);
    const double e = relative_error(&c, hC, ref);
    const double tolerance = v >= 0 ? harness_tolerance(v, K) : HARNESS_FP32_TOLERANCE;
    CHECK(e <= tolerance, "%s: relative error %.3g > %.3g", what, e, tolerance);
    free(hA), free(hB), free(hC), free(ref);
}

static void check_product(const char *what, const float *A, const float *B, const float *C,
                          const float *C0, float alpha, float beta)
{
    check_product_of(-1, what, A, B, C, C0, alpha, beta);
}

/* After a rejected call, C must hold exactly what it held before. */
static void check_unchanged(const char *what, const float *C, const float *before)
{
    float *now = to_host(C, M * N);
    CHECK(memcmp(now, before, sizeof(float) * M * N) == 0, "%s changed C", what);
    free(now);
}

static void test_handle(gl_handle_t h)
{
    int dev = -1;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK(gl_handle_device(h) == dev, "handle device %d, current %d", gl_handle_device(h), dev);
    for (int v = 0; v < gl_variant_count(); ++v)
        CHECK_STATUS(h, gl_variant_available(h, (gl_variant_t)v), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_variant_available(h, (gl_variant_t)77), GL_STATUS_UNKNOWN_VARIANT,
                 "variant 77");

    void *s = (void *)1;
    CHECK_STATUS(h, gl_get_stream(h, &s), GL_STATUS_SUCCESS, NULL);
    CHECK(s == NULL, "a new handle uses the default stream");
    CHECK_STATUS(h, gl_get_stream(h, NULL), GL_STATUS_INVALID_ARGUMENT, "stream is NULL");
}

/* Every variant on a caller's stream, cuBLAS included (its lazily created
 * state must follow the stream). */
static void test_streams(gl_handle_t h, const float *A, const float *B, float *C)
{
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_STATUS(h, gl_set_stream(h, stream), GL_STATUS_SUCCESS, NULL);
    void *got = NULL;
    CHECK_STATUS(h, gl_get_stream(h, &got), GL_STATUS_SUCCESS, NULL);
    CHECK(got == (void *)stream, "stream round trip");
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        CHECK_CUDA(cudaMemsetAsync(C, 0xff, sizeof(float) * M * N, stream));
        CHECK_STATUS(h, gl_sgemm(h, (gl_variant_t)v, M, N, K, A, B, C), GL_STATUS_SUCCESS, NULL);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        check_product_of(v, gl_variant_name(v), A, B, C, NULL, 1.0f, 0.0f);
    }
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(stream));
}

/* Auto's kernels are programmatic dependent launches (engine/engine.h):
 * they may start while the kernel before them still runs, and must wait for
 * it before they read. Here that kernel lets them start at once and writes
 * all three of A, B and C (which held NaN) about 300 microseconds later, on
 * each path that launches this way (the operand copies too); no
 * synchronisation between the two. Each path gives the same bits every
 * time (stream-K's shared tiles too: their parts are added in order). */
static void test_behind_a_kernel(gl_handle_t h)
{
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    static const struct {
        int64_t m, n, k;
        gl_path_t path;
        int copies; /* gl_plan.copies */
        const char *what;
    } cases[] = {
        {1, 4096, 4096, GL_PATH_GEMV, 0, "matrix-vector across K, in slices"},
        {4096, 1, 4096, GL_PATH_GEMV, 0, "matrix-vector along K"},
        {256, 256, 8192, GL_PATH_SPLIT_K, 0, "split-K"},
        {2000, 2000, 100, GL_PATH_EDGE_WINDOWS, 0, "edge windows"},
        {127, 2048, 4096, GL_PATH_SPLIT_K, 1, "A copied, then split-K"},
        {4112, 4120, 1016, GL_PATH_EDGE_WINDOWS, 1 | 4, "A copied transposed"},
        {128, 128, 128, GL_PATH_INTERIOR, 0, "aligned whole tiles"},
        {129, 128, 128, GL_PATH_EDGE_TESTS, 0, "edge tiles read in place"},
        {4096, 4096, 129, GL_PATH_PACKED, 1 | 2, "both copied into whole tiles"},
        {1280, 1280, 1104, GL_PATH_STREAM_K, 0, "stream-K, whole tiles"},
        {1552, 1004, 1192, GL_PATH_STREAM_K, 0, "stream-K, edge tiles"},
        {856, 2392, 1445, GL_PATH_STREAM_K, 1, "A copied, then stream-K"},
        {2881, 745, 1380, GL_PATH_STREAM_K, 2, "B copied, then stream-K"},
        {1780, 2400, 1124, GL_PATH_STREAM_K, 0, "stream-K, a whole round, then empty shares"},
        /* 5 rows past whole rounds of tiles: once planned as a tail of its
         * own, a matrix-vector product that computed the first rows again */
        {133, 28164, 1024, GL_PATH_EDGE_TESTS, 0, "5 rows past two rows of tiles, no tail"},
        {260, 346, 10001, GL_PATH_SPLIT_K, 0, "split-K in place, a float per load"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const int64_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, m, n, k, 1.0f, 0.5f, k, n, n};
        char what[96];
        snprintf(what, sizeof what, "auto behind a late writer, %lldx%lldx%lld (%s)",
                 (long long)m, (long long)n, (long long)k, cases[i].what);
        gl_plan plan = {.size = sizeof plan};
        CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, m, n, k,
                                      NULL, k, NULL, n, NULL, n, &plan),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(plan.path == (int32_t)cases[i].path && plan.copies == cases[i].copies,
              "%s: path %d, copies %d, expected %d, %d", what, plan.path, plan.copies,
              (int)cases[i].path, cases[i].copies);

        float *src[3], *dst[3], *host[3];
        const int64_t count[3] = {m * k, k * n, m * n};
        for (int j = 0; j < 3; ++j) {
            src[j] = device_random((size_t)count[j]);
            host[j] = to_host(src[j], (size_t)count[j]);
            CHECK_CUDA(cudaMalloc((void **)&dst[j], sizeof(float) * (size_t)count[j]));
        }
        double *ref = malloc(sizeof(double) * (size_t)count[2]);
        reference_gemm(&c, host[0], host[1], host[2], ref);
        /* On the default stream and on one of the caller's, twice each: the
         * first launch of a kernel loads it (CUDA loads modules lazily),
         * which may wait for the GPU to finish the writer first. Every
         * round gives the first round's bits. */
        float *first = NULL;
        for (int round = 0; round < 4; ++round) {
            const cudaStream_t s = round < 2 ? NULL : stream;
            CHECK_STATUS(h, gl_set_stream(h, s), GL_STATUS_SUCCESS, NULL);
            for (int j = 0; j < 3; ++j)
                CHECK_CUDA(cudaMemset(dst[j], 0xff, sizeof(float) * (size_t)count[j])); /* NaN */
            CHECK_CUDA(cudaDeviceSynchronize());
            CHECK_CUDA(test_late_writes(dst[0], src[0], count[0], dst[1], src[1], count[1],
                                        dst[2], src[2], count[2], 300, s));
            CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, m, n,
                                        k, c.alpha, dst[0], k, dst[1], n, c.beta, dst[2], n),
                         GL_STATUS_SUCCESS, NULL);
            CHECK_CUDA(cudaDeviceSynchronize());
            float *got = to_host(dst[2], (size_t)count[2]);
            const double e = relative_error(&c, got, ref);
            CHECK(e <= 1e-5, "%s, %s stream, round %d: relative error %.3g", what,
                  s ? "the caller's" : "the default", round % 2 + 1, e);
            if (!first)
                first = got;
            else {
                CHECK(memcmp(got, first, sizeof(float) * (size_t)count[2]) == 0,
                      "%s, %s stream, round %d: the first round's bits", what,
                      s ? "the caller's" : "the default", round % 2 + 1);
                free(got);
            }
        }
        free(first);
        free(ref);
        for (int j = 0; j < 3; ++j)
            cudaFree(src[j]), cudaFree(dst[j]), free(host[j]);
    }
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(stream));
}

/* Case c on device operands A, B and C: C poisoned (NaN) where beta is 0,
 * then *host_c, a copy of C as it is (for the caller to put back before
 * each run, and free), and the float64 reference, which the caller frees. */
static double *reference_of(const gemm_case *c, const float *A, const float *B, float *C,
                            float **host_c)
{
    const int64_t n_a = case_extent(c, 'A'), n_b = case_extent(c, 'B');
    const int64_t n_c = case_extent(c, 'C');
    if (c->beta == 0.0f)
        CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * (size_t)n_c)); /* NaN */
    float *hA = to_host(A, (size_t)n_a), *hB = to_host(B, (size_t)n_b);
    *host_c = to_host(C, (size_t)n_c);
    double *ref = malloc(sizeof(double) * (size_t)(c->m * c->n));
    reference_gemm(c, hA, hB, *host_c, ref);
    free(hA), free(hB);
    return ref;
}

/* Variant v on case c, C first put back to host_c: C's bits after, on the
 * host (the caller frees them). */
static float *run_case(gl_handle_t h, gl_variant_t v, const gemm_case *c, const float *A,
                       const float *B, float *C, const float *host_c)
{
    const size_t n_c = (size_t)case_extent(c, 'C');
    CHECK_CUDA(cudaMemcpy(C, host_c, sizeof(float) * n_c, cudaMemcpyHostToDevice));
    CHECK_STATUS(h, gl_sgemm_ex(h, v, c->layout, c->trans_a, c->trans_b, c->m, c->n, c->k,
                                c->alpha, A, c->lda, B, c->ldb, c->beta, C, c->ldc),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaDeviceSynchronize());
    return to_host(C, n_c);
}

/* Auto's paths combined with transposes, padded rows and pointers off 16
 * bytes, each on a shape the planner sends down it (engine/plan.c): a last
 * round cut off onto rung 6's kernel or split in place, stream-K and a
 * split with a short last part on copies, a product packed with one copy.
 * C holds NaN first where beta is 0; each path gives the same bits twice. */
static void test_engine_paths(gl_handle_t h)
{
    static const struct {
        gemm_case c;
        int offset;     /* floats: A, B and C start this many, twice and three times it, in */
        gl_path_t path; /* the whole product's (a cut's rows above) */
        int tail;       /* rows of C after the rest: > 0, or 0 */
        const char *what;
    } cases[] = {
        {{GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 792, 12812, 1031, 1.0f, 0.5f, 792, 12812, 12812}, 0,
         GL_PATH_EDGE_TESTS, 1, "A transposed, its last round's rows on rung 6's kernel"},
        {{GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 14704, 334, 1034, -1.0f, 0.0f, 1034, 334, 334}, 1,
         GL_PATH_EDGE_TESTS, 1, "a float per load above, the last round's rows split in place"},
        {{GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 330, 5704, 1283, 1.0f, 0.0f, 330, 5704, 5704}, 0,
         GL_PATH_STREAM_K, 0, "A transposed and copied, then stream-K"},
        {{GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 130, 5568, 12832, 0.5f, 2.0f, 12832, 12832, 5568}, 0,
         GL_PATH_SPLIT_K, 0, "copies, then split-K with a short last part"},
        {{GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 5824, 49, 736, 1.0f, 0.0f, 5824, 49, 49}, 0,
         GL_PATH_PACKED, 0, "one operand copied, the other read in place"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const gemm_case *c = &cases[i].c;
        const char *what = cases[i].what;
        const int64_t n_a = case_extent(c, 'A'), n_b = case_extent(c, 'B');
        const int64_t n_c = case_extent(c, 'C'), off = cases[i].offset;
        float *dA = device_random((size_t)(n_a + off));
        float *dB = device_random((size_t)(n_b + 2 * off));
        float *dC = device_random((size_t)(n_c + 3 * off));
        const float *A = dA + off, *B = dB + 2 * off;
        float *C = dC + 3 * off;
        gl_plan plan = {.size = sizeof plan};
        CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, c->layout, c->trans_a, c->trans_b, c->m,
                                      c->n, c->k, A, c->lda, B, c->ldb, C, c->ldc, &plan),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(plan.path == (int32_t)cases[i].path && (plan.launches > 1) == (cases[i].tail > 0),
              "%s: path %d, %d launches (want path %d%s): %s", what, plan.path, plan.launches,
              (int)cases[i].path, cases[i].tail ? ", a tail" : "", plan.why);
        float *hC;
        double *ref = reference_of(c, A, B, C, &hC);
        float *first = NULL;
        for (int round = 0; round < 2; ++round) {
            float *got = run_case(h, GL_VARIANT_AUTO, c, A, B, C, hC);
            const double e = relative_error(c, got, ref);
            CHECK(e <= 1e-5, "%s (%lldx%lldx%lld), round %d: relative error %.3g", what,
                  (long long)c->m, (long long)c->n, (long long)c->k, round + 1, e);
            if (!first) {
                first = got;
            } else {
                CHECK(memcmp(got, first, sizeof(float) * (size_t)n_c) == 0,
                      "%s: the first round's bits", what);
                free(got);
            }
        }
        free(first), free(ref), free(hC);
        cudaFree(dA), cudaFree(dB), cudaFree(dC);
    }
}

/* Products taller than the 2^20 rows of C a launch takes (gemm.c), so the
 * dispatcher runs them in slices, each planned on its own by auto (the last
 * slice here is one row, a matrix-vector product, or a few hundred), with A
 * transposed and padded, and column-major, where the slices cut the columns
 * of C (stored with a row of padding, which must stay as it was): every
 * variant right against float64 on each. */
static void test_tall_products(gl_handle_t h)
{
    enum { SLICE = 1 << 20 };
    static const gemm_case cases[] = {
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SLICE + 1, 4, 24, 1.0f, 0.0f, 24, 4, 4},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_N, SLICE + 333, 20, 24, 0.5f, 2.0f, SLICE + 336, 20, 20},
        {GL_COL_MAJOR, GL_OP_N, GL_OP_N, 20, SLICE + 7, 16, 1.0f, -1.0f, 20, 16, 21},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const gemm_case *c = &cases[i];
        const int64_t n_a = case_extent(c, 'A'), n_b = case_extent(c, 'B');
        const int64_t n_c = case_extent(c, 'C');
        float *A = device_random((size_t)n_a), *B = device_random((size_t)n_b);
        float *C = device_random((size_t)n_c);
        float *hC;
        double *ref = reference_of(c, A, B, C, &hC);
        /* The cuBLAS rungs read copies of A and B with NaN after them:
         * cuBLAS 13.0's TF32 kernel (cutlass_80_tensorop_s1688gemm_64x64_32x6
         * _nt_align4) reads 16 bytes 1,532 past the end of A on the second
         * case (compute-sanitizer memcheck, H200, 2026-11-29), which is
         * cuBLAS's to mend; our rungs keep the exact allocations. */
        float *padded[2];
        const int64_t extent[2] = {n_a, n_b};
        for (int i = 0; i < 2; ++i) {
            CHECK_CUDA(cudaMalloc((void **)&padded[i], sizeof(float) * (size_t)(extent[i] + 4096)));
            CHECK_CUDA(cudaMemset(padded[i], 0xff, sizeof(float) * (size_t)(extent[i] + 4096)));
            CHECK_CUDA(cudaMemcpy(padded[i], i ? B : A, sizeof(float) * (size_t)extent[i],
                                  cudaMemcpyDeviceToDevice));
        }
        gl_plan plan = {.size = sizeof plan};
        CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, c->layout, c->trans_a, c->trans_b, c->m,
                                      c->n, c->k, A, c->lda, B, c->ldb, C, c->ldc, &plan),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(plan.launches >= 2, "%lldx%lldx%lld: %d launches, want a slice at a time",
              (long long)c->m, (long long)c->n, (long long)c->k, plan.launches);
        for (int v = 0; v < gl_variant_count(); ++v) {
            const int cublas = harness_variant(v).reference;
            float *got = run_case(h, (gl_variant_t)v, c, cublas ? padded[0] : A,
                                  cublas ? padded[1] : B, C, hC);
            const double e = relative_error(c, got, ref);
            int64_t padding_changed = 0; /* C's elements past each column's M rows */
            for (int64_t x = 0; x < n_c; ++x)
                padding_changed += !case_is_element(c, 'C', x) && memcmp(&got[x], &hC[x], 4);
            CHECK(e <= harness_tolerance(v, c->k) && padding_changed == 0,
                  "%s on %s %c%c %lldx%lldx%lld: relative error %.3g, %lld padding floats "
                  "changed",
                  gl_variant_name(v), c->layout == GL_ROW_MAJOR ? "row" : "col",
                  c->trans_a == GL_OP_T ? 'T' : 'N', c->trans_b == GL_OP_T ? 'T' : 'N',
                  (long long)c->m, (long long)c->n, (long long)c->k, e,
                  (long long)padding_changed);
            free(got);
        }
        free(ref), free(hC);
        cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(padded[0]), cudaFree(padded[1]);
    }
}

static void test_pointers(gl_handle_t h, const float *A, const float *B, float *C)
{
    int pageable = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess,
                                      gl_handle_device(h)));
    CHECK_CUDA(cudaMemset(C, 0, sizeof(float) * M * N));
    float *before = to_host(C, M * N);

    /* Ordinary host memory: rejected, unless this GPU reads pageable memory. */
    float *hostA = to_host(A, M * K);
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        const gl_status_t st = gl_sgemm(h, (gl_variant_t)v, M, N, K, hostA, B, C);
        if (pageable) {
            CHECK(st == GL_STATUS_SUCCESS, "pageable host A on %s: %s", gl_variant_name(v),
                  gl_last_error(h));
            CHECK_CUDA(cudaDeviceSynchronize());
            check_product("pageable host A", A, B, C, NULL, 1.0f, 0.0f);
        } else {
            CHECK(st == GL_STATUS_INVALID_ARGUMENT && strstr(gl_last_error(h), "A (") &&
                      strstr(gl_last_error(h), "not device-accessible"),
                  "host A on %s: %s: %s", gl_variant_name(v), gl_status_string(st),
                  gl_last_error(h));
            check_unchanged("host A", C, before);
        }
    }
    if (!pageable) {
        float host_c[4];
        CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_NAIVE, 2, 2, 1, A, B, host_c),
                     GL_STATUS_INVALID_ARGUMENT, "C (");
        CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_SHARED, M, N, K, A, (const float *)0x10, C),
                     GL_STATUS_INVALID_ARGUMENT, "B (0x10) is not device-accessible");
    }
    free(hostA);

    /* Allocations smaller than the matrix, or an offset pointer running past
     * the end of its allocation. */
    float *small;
    CHECK_CUDA(cudaMalloc((void **)&small, sizeof(float) * (M * K - 1)));
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_COALESCED, M, N, K, small, B, C),
                 GL_STATUS_INVALID_ARGUMENT, "needs 8844 bytes");
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_CUBLAS, M, N, K, A + 1, B, C),
                 GL_STATUS_INVALID_ARGUMENT, "only 8840 bytes");
    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_NAIVE, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K,
                                1.0f, A, K, B, N, 0.0f, C, N + 1),
                 GL_STATUS_INVALID_ARGUMENT, "C (");
    check_unchanged("too-small allocations", C, before);
    cudaFree(small);

    /* Pinned and managed memory are device-accessible and work. */
    float *pinned, *managed;
    CHECK_CUDA(cudaMallocHost((void **)&pinned, sizeof(float) * K * N));
    CHECK_CUDA(cudaMemcpy(pinned, B, sizeof(float) * K * N, cudaMemcpyDeviceToHost));
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_SHARED, M, N, K, A, pinned, C), GL_STATUS_SUCCESS,
                 NULL);
    CHECK_CUDA(cudaDeviceSynchronize());
    check_product("pinned B", A, B, C, NULL, 1.0f, 0.0f);
    CHECK_CUDA(cudaMallocManaged((void **)&managed, sizeof(float) * M * N, cudaMemAttachGlobal));
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_NAIVE, M, N, K, A, B, managed), GL_STATUS_SUCCESS,
                 NULL);
    CHECK_CUDA(cudaDeviceSynchronize());
    check_product("managed C", A, B, managed, NULL, 1.0f, 0.0f);
    cudaFreeHost(pinned);
    cudaFree(managed);

    /* The context survived all of it. */
    CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * M * N));
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_SHARED, M, N, K, A, B, C), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaDeviceSynchronize());
    check_product("after the rejected calls", A, B, C, NULL, 1.0f, 0.0f);
    free(before);
}

/* BLAS edge cases on every variant. */
static void test_blas_edges(gl_handle_t h, const float *A, const float *B, float *C)
{
    float *C0 = malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * N; ++i)
        C0[i] = rng_uniform(&r);
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        const char *name = gl_variant_name(v);
        char what[64];

        /* M == 0 and N == 0: success, nothing touched (NULL pointers allowed). */
        CHECK_CUDA(cudaMemcpy(C, C0, sizeof(float) * M * N, cudaMemcpyHostToDevice));
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 0, N, K,
                                    1.0f, NULL, K, NULL, N, 0.0f, NULL, N),
                     GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, gl_sgemm(h, (gl_variant_t)v, M, 0, K, A, B, C), GL_STATUS_SUCCESS, NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        snprintf(what, sizeof what, "%s, M or N = 0", name);
        check_unchanged(what, C, C0);

        /* K == 0: C = beta * C, A and B not read (NULL). */
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, 0,
                                    2.0f, NULL, 1, NULL, N, -0.5f, C, N),
                     GL_STATUS_SUCCESS, NULL);
        float *got = to_host(C, M * N);
        int bad = 0;
        for (int i = 0; i < M * N; ++i)
            bad += got[i] != -0.5f * C0[i];
        CHECK(bad == 0, "%s, K = 0: %d elements are not beta * C", name, bad);
        free(got);

        /* alpha == 0 and beta == 0 on a NaN-poisoned C: zeros, not NaN. */
        CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * M * N));
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K,
                                    0.0f, NULL, K, NULL, N, 0.0f, C, N),
                     GL_STATUS_SUCCESS, NULL);
        got = to_host(C, M * N);
        bad = 0;
        for (int i = 0; i < M * N; ++i)
            bad += got[i] != 0.0f;
        CHECK(bad == 0, "%s, alpha = beta = 0: %d elements are not 0", name, bad);
        free(got);

        /* beta == 0 never reads C: NaN in C must not leak into the result. */
        CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * M * N));
        CHECK_STATUS(h, gl_sgemm(h, (gl_variant_t)v, M, N, K, A, B, C), GL_STATUS_SUCCESS, NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        snprintf(what, sizeof what, "%s over NaN", name);
        check_product_of(v, what, A, B, C, NULL, 1.0f, 0.0f);

        /* alpha and beta both in play. */
        CHECK_CUDA(cudaMemcpy(C, C0, sizeof(float) * M * N, cudaMemcpyHostToDevice));
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K,
                                    0.25f, A, K, B, N, 3.0f, C, N),
                     GL_STATUS_SUCCESS, NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        snprintf(what, sizeof what, "%s alpha/beta", name);
        check_product_of(v, what, A, B, C, C0, 0.25f, 3.0f);
    }
    free(C0);
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_api");
    if (early >= 0)
        return early;
    const uint64_t seed = test_seed();
    printf("seed %llu\n", (unsigned long long)seed);
    r.state = seed;

    float *A = device_random(M * K), *B = device_random(K * N), *C = device_random(M * N);
    test_handle(h);
    test_streams(h, A, B, C);
    test_pointers(h, A, B, C);
    test_blas_edges(h, A, B, C);
    test_behind_a_kernel(h);
    test_engine_paths(h);
    test_tall_products(h);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_api");
}
