/*
 * test_gpu_faults.c - failures from below the library, and what stays true.
 *
 *  1. Device memory exhausted: every kernel still runs. Only auto
 *     allocates, and only for big products (scratch for operand copies,
 *     GL_PATH_PACKED); without it, it reads the operands in place, to the
 *     same bits; with memory, a handle keeps its scratch until destroyed.
 *     Operands that auto reads in place with edge windows take no scratch,
 *     and give the bits the copies give. Its matrix-vector path sums the
 *     slices of K without scratch to the bits it gives with scratch. A
 *     handle whose pool never held memory runs every path auto plans
 *     with scratch (split-K, across a batch too, stream-K, a cut last
 *     round, copies, summed slices) on its fallback, right and
 *     deterministic.
 *     Creating cuBLAS state (variant 0, lazily) fails with the
 *     allocation status (or cuBLAS's), never a crash; once memory is freed
 *     the same handle creates it and runs.
 *  2. A CUDA error inside a call: launching on the legacy default stream
 *     while another stream captures in global mode is refused by CUDA; the
 *     call reports GL_STATUS_CUDA_ERROR with CUDA's message and the handle
 *     works afterwards.
 *  3. Every variant can be captured into a CUDA graph (no synchronisation
 *     inside a call, and auto's scratch is stream-ordered, which a graph
 *     holds as an allocation node), and the replayed graph is right, for a
 *     big product whose operands auto copies too.
 * Runs alone (it fills the GPU's memory). Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "harness.h"
#include "reference.h"

enum { M = 129, N = 67, K = 45 };

/* A product big enough that auto copies both operands (K is not a
 * multiple of any BK, M and N of no tile). The variants that may copy: */
enum { PM = 2050, PN = 2052, PK = 1001 };
#define PACKED_RUNGS 1
static const gl_variant_t packed_rungs[PACKED_RUNGS] = {GL_VARIANT_AUTO};

/* Three rows of C (VM x VN x VK) on auto's matrix-vector path: K is cut
 * into slices summed in scratch memory, or, without scratch, by each block
 * in turn, to the same bits. */
enum { VM = 3, VN = 4096, VK = 4096 };
static float *vA, *vB, *gemv_ref; /* its device inputs, and auto's result */

static rng r;
static float hA[M * K], hB[K * N], hC[M * N];
static float *pA, *pB;                   /* device inputs of the packed product */
static float *packed_ref[PACKED_RUNGS]; /* each rung's result, run normally */
static double ref[M * N];
static gemm_case plain = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K, 1.0f, 0.0f, K, N, N};

static double run_and_check(gl_handle_t h, gl_variant_t v, const float *A, const float *B,
                            float *C, gl_status_t *st)
{
    CHECK_CUDA(cudaMemset(C, 0xff, sizeof hC));
    *st = gl_sgemm(h, v, M, N, K, A, B, C);
    if (*st != GL_STATUS_SUCCESS)
        return -1;
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(hC, C, sizeof hC, cudaMemcpyDeviceToHost));
    return relative_error(&plain, hC, ref);
}

/* n floats uniform in [-1, 1) in a new device buffer; *host (when not
 * NULL) keeps a copy, else none is kept. */
static float *device_random(int64_t n, float **host)
{
    float *h = malloc(sizeof(float) * n), *d = NULL;
    for (int64_t i = 0; i < n; ++i)
        h[i] = rng_uniform(&r);
    CHECK_CUDA(cudaMalloc((void **)&d, sizeof(float) * n));
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
    /* from pageable memory the copy may still be on its way: streams that do
     * not wait for the default one must find it done */
    CHECK_CUDA(cudaDeviceSynchronize());
    if (host)
        *host = h;
    else
        free(h);
    return d;
}

/* Rung v on the packed product into the device buffer C (PM x PN); the
 * result's bits on the host. */
static float *packed_run(gl_handle_t h, gl_variant_t v, float *C, gl_status_t *st)
{
    float *out = malloc(sizeof(float) * PM * PN);
    CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * PM * PN));
    *st = gl_sgemm(h, v, PM, PN, PK, pA, pB, C);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(out, C, sizeof(float) * PM * PN, cudaMemcpyDeviceToHost));
    return out;
}

/* The packed product's inputs, and auto's result with memory
 * to spare, checked against cuBLAS. */
static void packed_setup(gl_handle_t h)
{
    pA = device_random((int64_t)PM * PK, NULL);
    pB = device_random((int64_t)PK * PN, NULL);
    float *C = NULL;
    CHECK_CUDA(cudaMalloc((void **)&C, sizeof(float) * PM * PN));
    gl_status_t st;
    float *cublas = packed_run(h, GL_VARIANT_CUBLAS, C, &st);
    CHECK(st == GL_STATUS_SUCCESS, "cuBLAS on %dx%dx%d: %s", PM, PN, PK, gl_last_error(h));
    double *want = malloc(sizeof(double) * PM * PN);
    for (int64_t e = 0; e < (int64_t)PM * PN; ++e)
        want[e] = cublas[e];
    const gemm_case packed = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, PM, PN, PK, 1.0f, 0.0f, PK, PN, PN};
    for (int i = 0; i < PACKED_RUNGS; ++i) {
        packed_ref[i] = packed_run(h, packed_rungs[i], C, &st);
        const double err = relative_error(&packed, packed_ref[i], want);
        CHECK(st == GL_STATUS_SUCCESS && err <= 1e-5, "%s on %dx%dx%d: %s, %.3g from cuBLAS",
              gl_variant_name(packed_rungs[i]), PM, PN, PK, gl_status_string(st), err);
    }
    free(cublas);
    free(want);
    cudaFree(C);
}

/* Auto on the packed product, into C, gives the bits it gave in
 * packed_setup. */
static void packed_check(gl_handle_t h, float *C, const char *when)
{
    for (int i = 0; i < PACKED_RUNGS; ++i) {
        gl_status_t st;
        float *got = packed_run(h, packed_rungs[i], C, &st);
        CHECK(st == GL_STATUS_SUCCESS &&
                  memcmp(got, packed_ref[i], sizeof(float) * PM * PN) == 0,
              "%s on %dx%dx%d %s: %s (%s), %s", gl_variant_name(packed_rungs[i]), PM, PN, PK,
              when, gl_status_string(st), gl_last_error(h),
              st == GL_STATUS_SUCCESS ? "different bits" : "failed");
        free(got);
    }
}

static float *gemv_run(gl_handle_t h, float *C, gl_status_t *st)
{
    float *out = malloc(sizeof(float) * VM * VN);
    CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * VM * VN));
    *st = gl_sgemm(h, GL_VARIANT_AUTO, VM, VN, VK, vA, vB, C);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(out, C, sizeof(float) * VM * VN, cudaMemcpyDeviceToHost));
    return out;
}

/* The rows product's inputs, and auto's result with memory to spare: right,
 * on the path that sums slices in scratch, and the same bits twice. */
static void gemv_setup(gl_handle_t h)
{
    float *a, *b;
    vA = device_random((int64_t)VM * VK, &a);
    vB = device_random((int64_t)VK * VN, &b);
    float *C = NULL;
    CHECK_CUDA(cudaMalloc((void **)&C, sizeof(float) * VM * VN));
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, VM, VN, VK,
                                  vA, VK, vB, VN, C, VN, &plan),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(plan.path == GL_PATH_GEMV && plan.scratch_bytes > 0 && plan.splits > 1,
          "%d x %d x %d: the matrix-vector path, K in slices: path %d, %d slices, %lld bytes (%s)",
          VM, VN, VK, plan.path, plan.splits, (long long)plan.scratch_bytes, plan.why);
    gl_status_t st;
    gemv_ref = gemv_run(h, C, &st);
    double *want = malloc(sizeof(double) * VM * VN);
    for (int i = 0; i < VM; ++i)
        for (int j = 0; j < VN; ++j) {
            double s = 0.0;
            for (int k = 0; k < VK; ++k)
                s += (double)a[i * VK + k] * (double)b[(size_t)k * VN + j];
            want[i * VN + j] = s;
        }
    const gemm_case rows = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, VM, VN, VK, 1.0f, 0.0f, VK, VN, VN};
    const double err = relative_error(&rows, gemv_ref, want);
    CHECK(st == GL_STATUS_SUCCESS && err <= 1e-5, "auto on %d x %d x %d: %s, error %.3g", VM, VN,
          VK, gl_status_string(st), err);
    float *again = gemv_run(h, C, &st);
    CHECK(st == GL_STATUS_SUCCESS && memcmp(again, gemv_ref, sizeof(float) * VM * VN) == 0,
          "auto on %d x %d x %d twice: the same bits", VM, VN, VK);
    free(again), free(want), free(a), free(b);
    cudaFree(C);
}

/* A product auto splits along K (one tile of C, a long K): its inputs on
 * the device and the float64 reference. */
enum { SM = 64, SN = 64, SK = 8192 };
typedef struct split_case {
    float *a, *b, *c;
    float *batch_c; /* two products' C, for batch_check */
    double *want;
} split_case;

static split_case split_setup(gl_handle_t h)
{
    split_case x = {0};
    float *a, *b;
    x.a = device_random((int64_t)SM * SK, &a);
    x.b = device_random((int64_t)SK * SN, &b);
    x.want = malloc(sizeof(double) * SM * SN);
    for (int i = 0; i < SM; ++i)
        for (int j = 0; j < SN; ++j) {
            double sum = 0.0;
            for (int k = 0; k < SK; ++k)
                sum += (double)a[i * SK + k] * (double)b[k * SN + j];
            x.want[i * SN + j] = sum;
        }
    CHECK_CUDA(cudaMalloc((void **)&x.c, sizeof(float) * SM * SN));
    CHECK_CUDA(cudaMalloc((void **)&x.batch_c, sizeof(float) * 2 * SM * SN));
    free(a), free(b);
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK,
                                  x.a, SK, x.b, SN, x.c, SN, &plan),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(plan.path == GL_PATH_SPLIT_K && plan.splits > 1 && plan.scratch_bytes > 0,
          "%d x %d x %d: split-K: path %d, %d parts (%s)", SM, SN, SK, plan.path, plan.splits,
          plan.why);
    return x;
}

/* Auto on the split product: right (with its parts, or unsplit). */
static void split_check(gl_handle_t h, const split_case *x, const char *when)
{
    CHECK_CUDA(cudaMemset(x->c, 0xff, sizeof(float) * SM * SN));
    const gl_status_t st = gl_sgemm(h, GL_VARIANT_AUTO, SM, SN, SK, x->a, x->b, x->c);
    CHECK_CUDA(cudaDeviceSynchronize());
    float got[SM * SN];
    CHECK_CUDA(cudaMemcpy(got, x->c, sizeof got, cudaMemcpyDeviceToHost));
    const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK, 1.0f, 0.0f, SK, SN, SN};
    const double e = relative_error(&c, got, x->want);
    CHECK(st == GL_STATUS_SUCCESS && e <= 1e-5, "auto on %d x %d x %d %s: %s, error %.3g", SM, SN,
          SK, when, gl_status_string(st), e);
}

/* The split product twice as a strided batch (A and B shared, C side by
 * side): auto splits K across the batch, with scratch for both products'
 * parts; each C right (with its parts, or unsplit). */
static void batch_check(gl_handle_t h, const split_case *x, const char *when)
{
    float *const c = x->batch_c;
    CHECK_CUDA(cudaMemset(c, 0xff, sizeof(float) * 2 * SM * SN));
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N,
                                                  GL_OP_N, SM, SN, SK, x->a, SK, 0, x->b, SN, 0,
                                                  c, SN, SM * SN, 2, &plan),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(plan.path == GL_PATH_BATCH && plan.splits > 1 && plan.scratch_bytes > 0,
          "%d x %d x %d x 2: K split across the batch: path %d, %d parts (%s)", SM, SN, SK,
          plan.path, plan.splits, plan.why);
    const gl_status_t st = gl_sgemm_strided_batched(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N,
                                                    GL_OP_N, SM, SN, SK, 1.0f, x->a, SK, 0, x->b,
                                                    SN, 0, 0.0f, c, SN, SM * SN, 2);
    CHECK_CUDA(cudaDeviceSynchronize());
    static float got[2 * SM * SN];
    CHECK_CUDA(cudaMemcpy(got, c, sizeof got, cudaMemcpyDeviceToHost));
    const gemm_case g = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK, 1.0f, 0.0f, SK, SN, SN};
    for (int i = 0; i < 2; ++i) {
        const double e = relative_error(&g, got + i * SM * SN, x->want);
        CHECK(st == GL_STATUS_SUCCESS && e <= 1e-5,
              "auto on %d x %d x %d x 2 %s, product %d: %s, error %.3g", SM, SN, SK, when, i,
              gl_status_string(st), e);
    }
}

/* A big product auto runs with scratch (stream-K, a last round cut off and
 * split): its inputs, and cuBLAS's result as the reference (the float64
 * one would take the host minutes). */
typedef struct big_case {
    int m, n, k;
    gl_path_t path; /* the path auto plans with scratch */
    bool cut;       /* with the grid's last round's rows run after the rest */
    const char *what;
    float *a, *b, *c;
    double *want;
} big_case;

/* Whether this GPU is one the big shapes were found for: 132 SMs of
 * compute capability 9.0 (an H100 or H200; stream-K runs from sm_90). */
static bool like_h100(void)
{
    int device = 0, sms = 0, major = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return sms == 132 && major == 9;
}

static void big_setup(gl_handle_t h, big_case *x)
{
    x->a = device_random((int64_t)x->m * x->k, NULL);
    x->b = device_random((int64_t)x->k * x->n, NULL);
    CHECK_CUDA(cudaMalloc((void **)&x->c, sizeof(float) * x->m * x->n));
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, x->m, x->n,
                                  x->k, x->a, x->k, x->b, x->n, x->c, x->n, &plan),
                 GL_STATUS_SUCCESS, NULL);
    /* Elsewhere auto may plan them otherwise, and they are only checked
     * for being right. */
    CHECK((plan.path == (int)x->path && (plan.launches > 1) == x->cut && plan.copies == 0 &&
           plan.scratch_bytes > 0) ||
              !like_h100(),
          "%d x %d x %d: %s with scratch: path %d, %d launches, copies %d, %lld bytes (%s)",
          x->m, x->n, x->k, x->what, plan.path, plan.launches, plan.copies,
          (long long)plan.scratch_bytes, plan.why);
    const size_t count = (size_t)x->m * x->n;
    float *got = malloc(sizeof(float) * count);
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_CUBLAS, x->m, x->n, x->k, x->a, x->b, x->c),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaMemcpy(got, x->c, sizeof(float) * count, cudaMemcpyDeviceToHost));
    x->want = malloc(sizeof(double) * count);
    for (size_t e = 0; e < count; ++e)
        x->want[e] = got[e];
    free(got);
}

/* Auto on handle h, twice, into a poisoned C: within 1e-5 of cuBLAS, and
 * the same bits both times. */
static void big_check(gl_handle_t h, const big_case *x, const char *when)
{
    const size_t count = (size_t)x->m * x->n;
    float *got[2];
    gl_status_t st[2];
    for (int i = 0; i < 2; ++i) {
        got[i] = malloc(sizeof(float) * count);
        CHECK_CUDA(cudaMemset(x->c, 0xff, sizeof(float) * count));
        st[i] = gl_sgemm(h, GL_VARIANT_AUTO, x->m, x->n, x->k, x->a, x->b, x->c);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got[i], x->c, sizeof(float) * count, cudaMemcpyDeviceToHost));
    }
    const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, x->m, x->n, x->k, 1.0f, 0.0f,
                         x->k, x->n, x->n};
    const double e = relative_error(&c, got[0], x->want);
    CHECK(st[0] == GL_STATUS_SUCCESS && st[1] == GL_STATUS_SUCCESS && e <= 1e-5 &&
              memcmp(got[0], got[1], sizeof(float) * count) == 0,
          "auto on %d x %d x %d (%s) %s: %s (%s), %.3g from cuBLAS, %s", x->m, x->n, x->k,
          x->what, when, gl_status_string(st[0]), gl_last_error(h), e,
          memcmp(got[0], got[1], sizeof(float) * count) ? "different bits twice" : "same bits");
    free(got[0]), free(got[1]);
}

/* The scratch auto plans for an m x n x k row-major product on handle h. */
static int64_t scratch_of(gl_handle_t h, int m, int n, int k, const float *a, const float *b,
                          float *c)
{
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, m, n, k, a,
                                  k, b, n, c, n, &plan),
                 GL_STATUS_SUCCESS, NULL);
    return plan.scratch_bytes;
}

static void test_memory_exhausted(const float *A, const float *B, float *C)
{
    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    /* A handle that runs nothing before the GPU is full: its pool holds no
     * memory, so every path auto plans with scratch takes its fallback. */
    gl_handle_t fresh = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&fresh), GL_STATUS_SUCCESS, NULL);
    split_case split = split_setup(h);
    split_check(h, &split, "with memory to spare");
    batch_check(h, &split, "with memory to spare");
    /* The big products' references and first runs on a handle of their
     * own, destroyed before the memory is filled: h keeps no more scratch
     * than before, and no cuBLAS state. */
    big_case bigs[] = {{.m = 13414, .n = 68, .k = 1196, .path = GL_PATH_STREAM_K,
                        .what = "stream-K"},
                       {.m = 14436, .n = 336, .k = 1050, .path = GL_PATH_EDGE_TESTS, .cut = true,
                        .what = "a last round cut off, split"}};
    enum { NBIG = sizeof bigs / sizeof bigs[0] };
    gl_handle_t setup = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&setup), GL_STATUS_SUCCESS, NULL);
    for (int i = 0; i < NBIG; ++i) {
        big_setup(setup, &bigs[i]);
        big_check(setup, &bigs[i], "with memory to spare");
    }
    gl_handle_destroy(setup);
    float *packed_c = NULL, *gemv_c = NULL; /* taken before the GPU is full */
    CHECK_CUDA(cudaMalloc((void **)&packed_c, sizeof(float) * PM * PN));
    CHECK_CUDA(cudaMalloc((void **)&gemv_c, sizeof(float) * VM * VN));
    /* Take every byte we can, in shrinking chunks. */
    void *blocks[4096];
    int nblocks = 0;
    for (size_t chunk = (size_t)1 << 30; chunk >= ((size_t)1 << 16) && nblocks < 4096;) {
        if (cudaMalloc(&blocks[nblocks], chunk) == cudaSuccess)
            ++nblocks;
        else
            chunk /= 2;
    }
    (void)cudaGetLastError(); /* the last refusal is expected */
    /* cudaMalloc may stop short of chunks a memory pool could still map:
     * take those too, 2 MiB at a time, into a pool of the test's own that
     * keeps them. */
    int device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t drain = NULL;
    CHECK_CUDA(cudaMemPoolCreate(&drain, &props));
    uint64_t keep_all = UINT64_MAX;
    CHECK_CUDA(cudaMemPoolSetAttribute(drain, cudaMemPoolAttrReleaseThreshold, &keep_all));
    void *drained[1024];
    int ndrained = 0;
    while (ndrained < 1024 &&
           cudaMallocFromPoolAsync(&drained[ndrained], (size_t)2 << 20, drain, 0) == cudaSuccess)
        ++ndrained;
    (void)cudaGetLastError();
    CHECK_CUDA(cudaDeviceSynchronize());
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    printf("device memory filled: %zu bytes left of %zu (%d chunks of 2 MiB from a pool)\n",
           free_bytes, total, ndrained);

    for (int v = 0; v < gl_variant_count(); ++v) {
        gl_variant_info info = {.size = sizeof info};
        CHECK_STATUS(NULL, gl_variant_describe((gl_variant_t)v, &info), GL_STATUS_SUCCESS, NULL);
        if (info.reference) /* cuBLAS's, whose state this handle has not made */
            continue;
        gl_status_t st;
        const double e = run_and_check(h, (gl_variant_t)v, A, B, C, &st);
        CHECK(st == GL_STATUS_SUCCESS && e <= harness_tolerance(v, K),
              "%s with the GPU's memory full: %s (%s), error %.3g", gl_variant_name(v),
              gl_status_string(st), gl_last_error(h), e);
    }
    /* h keeps in its pool the scratch of its split product above, which
     * may serve the calls below or not: either way they are right, and
     * give the bits they gave with memory. The empty pool after them
     * shows each fallback. */
    packed_check(h, packed_c, "with the GPU's memory full");
    gl_status_t gst;
    float *gemv_full = gemv_run(h, gemv_c, &gst);
    CHECK(gst == GL_STATUS_SUCCESS && memcmp(gemv_full, gemv_ref, sizeof(float) * VM * VN) == 0,
          "auto on %d x %d x %d with the GPU's memory full: %s, %s", VM, VN, VK,
          gl_status_string(gst), gst == GL_STATUS_SUCCESS ? "compared bits" : gl_last_error(h));
    free(gemv_full);
    split_check(h, &split, "with the GPU's memory full");
    batch_check(h, &split, "with the GPU's memory full");

    /* The handle whose pool is empty: each product below plans scratch, and
     * none can be had, so each runs its fallback: a matrix-vector product
     * whose blocks sum the slices themselves (the same bits), the packed
     * product's operands read in place (the same bits), split-K, stream-K
     * and the cut last round unsplit (right, and the same bits twice).
     * A pool keeps what it took (up to GL_SCRATCH_KEEP_BYTES), so free
     * memory unchanged afterwards shows that no scratch was taken. */
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
    /* split_setup, gemv_setup and big_setup saw scratch in h's plans;
     * fresh plans the same. */
    CHECK(scratch_of(fresh, PM, PN, PK, pA, pB, packed_c) > 0, "%d x %d x %d plans scratch", PM,
          PN, PK);
    split_check(fresh, &split, "on an empty pool with the GPU's memory full");
    batch_check(fresh, &split, "on an empty pool with the GPU's memory full");
    float *gemv_empty = gemv_run(fresh, gemv_c, &gst);
    CHECK(gst == GL_STATUS_SUCCESS && memcmp(gemv_empty, gemv_ref, sizeof(float) * VM * VN) == 0,
          "auto on %d x %d x %d on an empty pool with the GPU's memory full: %s, %s", VM, VN, VK,
          gl_status_string(gst), gst == GL_STATUS_SUCCESS ? "compared bits" : gl_last_error(fresh));
    free(gemv_empty);
    packed_check(fresh, packed_c, "on an empty pool with the GPU's memory full");
    for (int i = 0; i < NBIG; ++i)
        big_check(fresh, &bigs[i], "on an empty pool with the GPU's memory full");
    size_t free_after = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_after, &total));
    CHECK(free_after == free_bytes, "no scratch taken on an empty pool: %zu bytes free, then %zu",
          free_bytes, free_after);
    printf("auto's fallbacks without scratch ran; %zu bytes free before and after\n", free_after);
    const gl_status_t st = gl_sgemm(h, GL_VARIANT_CUBLAS, M, N, K, A, B, C);
    CHECK(st == GL_STATUS_ALLOC_FAILED || st == GL_STATUS_CUBLAS_ERROR ||
              st == GL_STATUS_SUCCESS,
          "cuBLAS with no memory: %s (%s)", gl_status_string(st), gl_last_error(h));
    printf("cuBLAS with the GPU's memory full: %s%s%s\n", gl_status_string(st),
           st ? ": " : "", st ? gl_last_error(h) : "");
    if (st != GL_STATUS_SUCCESS)
        CHECK(strstr(gl_last_error(h), "cuBLAS") || strstr(gl_last_error(h), "cublas"),
              "the message names cuBLAS: %s", gl_last_error(h));
    CHECK_CUDA(cudaDeviceSynchronize());

    for (int i = 0; i < nblocks; ++i)
        cudaFree(blocks[i]);
    for (int i = 0; i < ndrained; ++i)
        CHECK_CUDA(cudaFreeAsync(drained[i], 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemPoolDestroy(drain));
    cudaFree(packed_c);
    cudaFree(gemv_c);
    cudaFree(split.a), cudaFree(split.b), cudaFree(split.c), cudaFree(split.batch_c);
    free(split.want);
    for (int i = 0; i < NBIG; ++i) {
        cudaFree(bigs[i].a), cudaFree(bigs[i].b), cudaFree(bigs[i].c);
        free(bigs[i].want);
    }
    gl_handle_destroy(fresh);
    gl_status_t again;
    const double e = run_and_check(h, GL_VARIANT_CUBLAS, A, B, C, &again);
    CHECK(again == GL_STATUS_SUCCESS && e <= 1e-5, "cuBLAS once memory is back: %s (%s)",
          gl_status_string(again), gl_last_error(h));
    gl_handle_destroy(h);
}

static void test_cuda_error_inside_a_call(gl_handle_t h, const float *A, const float *B, float *C)
{
    cudaStream_t capturing;
    CHECK_CUDA(cudaStreamCreate(&capturing));
    CHECK_CUDA(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal));
    /* h runs on the legacy default stream, which may not be used now. */
    const gl_status_t st = gl_sgemm(h, GL_VARIANT_SHARED, M, N, K, A, B, C);
    cudaGraph_t graph = NULL;
    (void)cudaStreamEndCapture(capturing, &graph);
    if (graph)
        cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    CHECK(st == GL_STATUS_CUDA_ERROR, "launch during another stream's global capture: %s (%s)",
          gl_status_string(st), gl_last_error(h));
    CHECK(strstr(gl_last_error(h), "variant 'shared'") != NULL || strstr(gl_last_error(h), "A ("),
          "the message says where: %s", gl_last_error(h));
    printf("CUDA error inside a call: %s: %s\n", gl_status_string(st), gl_last_error(h));
    CHECK_CUDA(cudaStreamDestroy(capturing));

    gl_status_t after;
    const double e = run_and_check(h, GL_VARIANT_SHARED, A, B, C, &after);
    CHECK(after == GL_STATUS_SUCCESS && e <= 1e-5, "the handle works afterwards: %s",
          gl_last_error(h));
}

static void test_graph_capture(gl_handle_t h, const float *A, const float *B)
{
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_STATUS(h, gl_set_stream(h, s), GL_STATUS_SUCCESS, NULL);
    /* cuBLAS state is made outside the capture (its creation allocates). */
    float *outs[16];
    const int nv = gl_variant_count();
    for (int v = 0; v < nv; ++v) {
        CHECK_CUDA(cudaMalloc((void **)&outs[v], sizeof hC));
        /* on s: a memset on the default stream is not ordered before the
         * graph launched on the non-blocking s */
        CHECK_CUDA(cudaMemsetAsync(outs[v], 0xff, sizeof hC, s));
    }
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_CUBLAS, M, N, K, A, B, outs[0]), GL_STATUS_SUCCESS,
                 NULL);
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaMemsetAsync(outs[0], 0xff, sizeof hC, s));

    /* Thread-local capture refuses anything unsafe this thread does while
     * capturing (allocations, synchronisation): the strict test. */
    cudaGraph_t graph = NULL;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int v = 0; v < nv; ++v)
        CHECK_STATUS(h, gl_sgemm(h, (gl_variant_t)v, M, N, K, A, B, outs[v]), GL_STATUS_SUCCESS,
                     NULL);
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    CHECK(ended == cudaSuccess, "thread-local capture: %s", cudaGetErrorString(ended));
    if (ended != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    for (int v = 0; v < nv; ++v) {
        CHECK_CUDA(cudaMemcpy(hC, outs[v], sizeof hC, cudaMemcpyDeviceToHost));
        const double e = relative_error(&plain, hC, ref);
        CHECK(e <= harness_tolerance(v, K), "%s replayed from a CUDA graph: relative error %.3g",
              gl_variant_name(v), e);
        cudaFree(outs[v]);
    }
    printf("every rung captured into one CUDA graph and replayed\n");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(s));
}

/* The scratch a handle keeps: after auto on the packed product the device
 * has at least the two padded copies less free memory (which shows the copies
 * were made: the handle keeps up to GL_SCRATCH_KEEP_BYTES between calls),
 * and destroying the handle gives it back. */
static void test_scratch_memory(void)
{
    const size_t copies = sizeof(float) * ((size_t)PM * 1008 + (size_t)1008 * PN); /* BK >= 16 */
    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    float *C = NULL;
    CHECK_CUDA(cudaMalloc((void **)&C, sizeof(float) * PM * PN));
    size_t before = 0, held = 0, after = 0, total = 0;
    CHECK_CUDA(cudaMemGetInfo(&before, &total));
    gl_status_t st;
    free(packed_run(h, GL_VARIANT_AUTO, C, &st));
    CHECK(st == GL_STATUS_SUCCESS, "auto on %dx%dx%d: %s", PM, PN, PK, gl_last_error(h));
    CHECK_CUDA(cudaMemGetInfo(&held, &total));
    gl_handle_destroy(h);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemGetInfo(&after, &total));
    printf("scratch held after a packed product: %.1f MB (its copies: %.1f MB); %.1f MB back "
           "after gl_handle_destroy\n",
           ((double)before - held) / 1e6, copies / 1e6, ((double)after - held) / 1e6);
    CHECK(before >= held + copies, "the handle holds the packed copies' scratch: free %zu -> %zu",
          before, held);
    CHECK(after >= held + copies * 9 / 10, "gl_handle_destroy gives the scratch back: %zu -> %zu",
          held, after);
    cudaFree(C);
}

/* Auto reads aligned operands whose extents are multiples of 4 in place,
 * with edge windows (GL_PATH_EDGE_WINDOWS), when every row starts on 32
 * bytes: no scratch however big the product. With A's rows on 16 bytes
 * only it may copy them (here it does); either way the products are
 * added in the same order of k, so both give the same bits, and those are
 * right. */
static void test_edge_windows_in_place(void)
{
    enum { SM = 2000, SN = 2000, SK = 1000, LDA16 = SK + 4 }; /* 1000 % 8 == 0, 1004 % 8 == 4 */
    /* half of what padded copies of A and B would take */
    const size_t half_copies = sizeof(float) * ((size_t)2048 * 1008 + (size_t)1008 * 2048) / 2;
    float *a = malloc(sizeof(float) * SM * LDA16), *b = malloc(sizeof(float) * SK * SN);
    float *c_in_place = malloc(sizeof(float) * SM * SN);
    float *c_packed = malloc(sizeof(float) * SM * SN);
    for (int i = 0; i < SM * LDA16; ++i)
        a[i] = i % LDA16 < SK ? rng_uniform(&r) : poison_value();
    for (int i = 0; i < SK * SN; ++i)
        b[i] = rng_uniform(&r);
    float *dA16 = NULL, *dA32 = NULL, *dB = NULL, *dC = NULL;
    CHECK_CUDA(cudaMalloc((void **)&dA16, sizeof(float) * SM * LDA16));
    CHECK_CUDA(cudaMalloc((void **)&dA32, sizeof(float) * SM * SK));
    CHECK_CUDA(cudaMalloc((void **)&dB, sizeof(float) * SK * SN));
    CHECK_CUDA(cudaMalloc((void **)&dC, sizeof(float) * SM * SN));
    CHECK_CUDA(cudaMemcpy(dA16, a, sizeof(float) * SM * LDA16, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy2D(dA32, sizeof(float) * SK, a, sizeof(float) * LDA16, sizeof(float) * SK,
                            SM, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, b, sizeof(float) * SK * SN, cudaMemcpyHostToDevice));

    gl_handle_t h = NULL;
    for (int pass = 0; pass < 2; ++pass) { /* the first loads the kernel, then a fresh handle */
        CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
        size_t before = 0, held = 0, total = 0;
        CHECK_CUDA(cudaMemGetInfo(&before, &total));
        CHECK_CUDA(cudaMemset(dC, 0xff, sizeof(float) * SM * SN));
        CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_AUTO, SM, SN, SK, dA32, dB, dC),
                     GL_STATUS_SUCCESS, NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemGetInfo(&held, &total));
        if (pass == 1)
            CHECK(held + half_copies > before, "in place, no scratch: free %zu -> %zu", before,
                  held);
        gl_handle_destroy(h);
    }
    CHECK_CUDA(cudaMemcpy(c_in_place, dC, sizeof(float) * SM * SN, cudaMemcpyDeviceToHost));
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaMemset(dC, 0xff, sizeof(float) * SM * SN));
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_CUBLAS, SM, SN, SK, dA32, dB, dC), GL_STATUS_SUCCESS,
                 NULL);
    CHECK_CUDA(cudaMemcpy(c_packed, dC, sizeof(float) * SM * SN, cudaMemcpyDeviceToHost));
    double *want = malloc(sizeof(double) * SM * SN);
    for (int64_t e = 0; e < (int64_t)SM * SN; ++e)
        want[e] = c_packed[e];
    const gemm_case windows = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK, 1.0f, 0.0f, SK, SN, SN};
    const double err = relative_error(&windows, c_in_place, want);
    CHECK(err <= 1e-5, "auto in place on %dx%dx%d: %.3g from cuBLAS", SM, SN, SK, err);
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK,
                                  dA32, SK, dB, SN, dC, SN, &plan),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(plan.path == GL_PATH_EDGE_WINDOWS && plan.scratch_bytes == 0 && plan.copies == 0,
          "the plan says edge windows in place: path %d, %s", plan.path, plan.why);
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK,
                                  dA16, LDA16, dB, SN, dC, SN, &plan),
                 GL_STATUS_SUCCESS, NULL);
    printf("auto on %dx%dx%d, lda %d: path %d (%s)\n", SM, SN, SK, LDA16, plan.path, plan.why);
    CHECK_CUDA(cudaMemset(dC, 0xff, sizeof(float) * SM * SN));
    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, SM, SN, SK,
                                1.0f, dA16, LDA16, dB, SN, 0.0f, dC, SN),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaMemcpy(c_packed, dC, sizeof(float) * SM * SN, cudaMemcpyDeviceToHost));
    CHECK(memcmp(c_in_place, c_packed, sizeof(float) * SM * SN) == 0,
          "auto on %dx%dx%d: lda %d and lda %d differ", SM, SN, SK, SK, LDA16);
    printf("auto on %dx%dx%d: lda %d and %d to the same bits\n", SM, SN, SK, SK, LDA16);
    gl_handle_destroy(h);
    cudaFree(dA16), cudaFree(dA32), cudaFree(dB), cudaFree(dC);
    free(a), free(b), free(c_in_place), free(c_packed), free(want);
}

/* Auto on the packed product captured into a graph: the scratch
 * becomes the graph's own allocation; the replay gives the same bits. */
static void test_graph_capture_packed(gl_handle_t h)
{
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_STATUS(h, gl_set_stream(h, s), GL_STATUS_SUCCESS, NULL);
    float *outs[PACKED_RUNGS];
    for (int i = 0; i < PACKED_RUNGS; ++i) {
        CHECK_CUDA(cudaMalloc((void **)&outs[i], sizeof(float) * PM * PN));
        CHECK_CUDA(cudaMemsetAsync(outs[i], 0xff, sizeof(float) * PM * PN, s)); /* as above */
    }
    cudaGraph_t graph = NULL;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < PACKED_RUNGS; ++i)
        CHECK_STATUS(h, gl_sgemm(h, packed_rungs[i], PM, PN, PK, pA, pB, outs[i]),
                     GL_STATUS_SUCCESS, NULL);
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    CHECK(ended == cudaSuccess, "thread-local capture of %dx%dx%d: %s", PM, PN, PK,
          cudaGetErrorString(ended));
    if (ended == cudaSuccess) {
        cudaGraphExec_t exec;
        CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        CHECK_CUDA(cudaGraphLaunch(exec, s));
        CHECK_CUDA(cudaStreamSynchronize(s));
        float *got = malloc(sizeof(float) * PM * PN);
        for (int i = 0; i < PACKED_RUNGS; ++i) {
            CHECK_CUDA(cudaMemcpy(got, outs[i], sizeof(float) * PM * PN, cudaMemcpyDeviceToHost));
            CHECK(memcmp(got, packed_ref[i], sizeof(float) * PM * PN) == 0,
                  "%s on %dx%dx%d replayed from a CUDA graph: different bits",
                  gl_variant_name(packed_rungs[i]), PM, PN, PK);
        }
        free(got);
        printf("auto on %dx%dx%d (copied operands) captured and replayed\n", PM, PN, PK);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    } else {
        (void)cudaGetLastError();
    }
    for (int i = 0; i < PACKED_RUNGS; ++i)
        cudaFree(outs[i]);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(s));
}

int main(void)
{
    /* Kernels load when the context is made, so that none loads (and takes
     * memory) once the memory is full; the test needs it, whatever the
     * environment says. */
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_faults");
    if (early >= 0)
        return early;
    r.state = test_seed();
    printf("seed %llu\n", (unsigned long long)r.state);
    for (int i = 0; i < M * K; ++i)
        hA[i] = rng_uniform(&r);
    for (int i = 0; i < K * N; ++i)
        hB[i] = rng_uniform(&r);
    reference_gemm(&plain, hA, hB, NULL, ref);
    float *A, *B, *C;
    CHECK_CUDA(cudaMalloc((void **)&A, sizeof hA));
    CHECK_CUDA(cudaMalloc((void **)&B, sizeof hB));
    CHECK_CUDA(cudaMalloc((void **)&C, sizeof hC));
    CHECK_CUDA(cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize()); /* landed, for the non-blocking streams below */

    packed_setup(h);
    gemv_setup(h);
    test_graph_capture(h, A, B);
    test_graph_capture_packed(h);
    test_scratch_memory();
    test_edge_windows_in_place();
    test_cuda_error_inside_a_call(h, A, B, C);
    test_memory_exhausted(A, B, C);

    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(pA), cudaFree(pB), cudaFree(vA), cudaFree(vB);
    free(gemv_ref);
    for (int i = 0; i < PACKED_RUNGS; ++i)
        free(packed_ref[i]);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_faults");
}
