/*
 * test_gpu_workspace.c - auto's scratch memory on a GPU, under the handle's
 * settings (gemmladder.h, "Scratch memory"): on shapes whose plans take
 * scratch of each kind (copies, A's transposed copy, split-K's parts,
 * stream-K's shares, matrix-vector slices, the last round's rows), auto
 * with its pool, under a limit of 0 and a tiny one, in a caller's buffer of
 * exactly what gl_sgemm_workspace_size says, in one a byte short and one of
 * 256 bytes, and in a buffer under CUDA graph capture; each result against
 * the float64 reference with C poisoned (NaN) first where beta is 0, the
 * buffers poisoned too. A plan that fits gives the pool's bits exactly (the
 * same plan), and the captured graph allocates nothing. Exits 77 where
 * there is no GPU. The settings' argument checks and plans without a GPU:
 * test_workspace.c.
 */
#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "harness.h"
#include "reference.h"

static rng r;

/* The engine (auto), the one variant that takes scratch memory: the row
 * that says so (gl_variant_describe). */
static int engine = -1;

static int engine_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v)
        if (harness_variant(v).engine)
            return v;
    return -1;
}

static float *device_random(size_t n)
{
    float *h = malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; ++i)
        h[i] = rng_uniform(&r);
    CHECK_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
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

/* Shapes whose plans with scratch take it in each way (the planner's own
 * choice on an H100 or H200; the test says which plan each one got). */
static const struct {
    gemm_case c;
    const char *what;
} cases[] = {
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 256, 256, 8192, 1.0f, 0.0f, 8192, 256, 256},
     "split-K on aligned operands"},
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 130, 5568, 12832, 0.5f, 2.0f, 12832, 12832, 5568},
     "copies, then split-K with a short last part"},
    {{GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 330, 5704, 1283, 1.0f, 0.0f, 330, 5704, 5704},
     "A transposed and copied, then stream-K"},
    {{GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 5824, 49, 736, 1.0f, 0.0f, 5824, 49, 49},
     "one operand copied, the other read in place"},
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 1025, 1025, 1025, 1.0f, 0.0f, 1025, 1025, 1025},
     "both operands packed"},
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 8, 4096, 4096, 1.0f, 0.0f, 4096, 4096, 4096},
     "matrix-vector, K in slices"},
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 2048, 4096, 2048, 1.0f, 0.0f, 2048, 4096, 4096},
     "A's transposed copy"},
    {{GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 4096, 4096, 1024, 1.0f, 0.0f, 1024, 1024, 4096},
     "A's and B's transposed copies"},
    {{GL_COL_MAJOR, GL_OP_N, GL_OP_N, 3072, 3072, 1024, 1.0f, 0.0f, 3072, 1024, 3072},
     "the last round's rows after the rest"},
};
#define CASES (sizeof cases / sizeof cases[0])

/* A buffer of `bytes` (at least 1) filled with NaN, so a kernel that read
 * scratch it had not written would show. */
static void *poisoned_buffer(size_t bytes)
{
    void *p = NULL;
    CHECK_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
    CHECK_CUDA(cudaMemset(p, 0xff, bytes ? bytes : 1));
    /* cudaMemset runs on the legacy stream, which a non-blocking stream
     * does not wait for: done before any call can use the buffer */
    CHECK_CUDA(cudaDeviceSynchronize());
    return p;
}

static gl_plan plan_of(gl_handle_t h, const gemm_case *c, const float *A, const float *B,
                       const float *C)
{
    gl_plan plan = {.size = sizeof plan};
    CHECK_STATUS(h, gl_sgemm_plan(h, engine, c->layout, c->trans_a, c->trans_b, c->m,
                                  c->n, c->k, A, c->lda, B, c->ldb, C, c->ldc, &plan),
                 GL_STATUS_SUCCESS, NULL);
    return plan;
}

/* Auto on c with C put back to host_c first, on the handle's stream; C's
 * bits after, on the host. */
static float *run(gl_handle_t h, const gemm_case *c, const float *A, const float *B, float *C,
                  const float *host_c, cudaStream_t stream)
{
    const size_t n_c = (size_t)case_extent(c, 'C');
    CHECK_CUDA(cudaMemcpyAsync(C, host_c, sizeof(float) * n_c, cudaMemcpyHostToDevice, stream));
    CHECK_STATUS(h, gl_sgemm_ex(h, engine, c->layout, c->trans_a, c->trans_b, c->m,
                                c->n, c->k, c->alpha, A, c->lda, B, c->ldb, c->beta, C, c->ldc),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    return to_host(C, n_c);
}

/* Runs c as captured in a CUDA graph, on `stream`, with the caller's
 * buffer ws of `bytes`: the graph holds no allocation; launched twice. */
static void run_captured(gl_handle_t h, const gemm_case *c, const float *A, const float *B,
                         float *C, const float *host_c, const double *ref, cudaStream_t stream,
                         void *ws, int64_t bytes, const char *what)
{
    const size_t n_c = (size_t)case_extent(c, 'C');
    CHECK_STATUS(h, gl_set_stream(h, stream), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace(h, ws, bytes), GL_STATUS_SUCCESS, NULL);
    cudaGraph_t graph = NULL;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const gl_status_t st =
        gl_sgemm_ex(h, engine, c->layout, c->trans_a, c->trans_b, c->m, c->n, c->k,
                    c->alpha, A, c->lda, B, c->ldb, c->beta, C, c->ldc);
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    CHECK(st == GL_STATUS_SUCCESS && end == cudaSuccess,
          "%s: captured: %s (%s); end of capture: %s", what, gl_status_string(st),
          gl_last_error(h), cudaGetErrorString(end));
    if (st == GL_STATUS_SUCCESS && end == cudaSuccess) {
        size_t count = 0;
        CHECK_CUDA(cudaGraphGetNodes(graph, NULL, &count));
        cudaGraphNode_t *nodes = calloc(count ? count : 1, sizeof *nodes);
        CHECK_CUDA(cudaGraphGetNodes(graph, nodes, &count));
        int allocations = 0;
        for (size_t i = 0; i < count; ++i) {
            enum cudaGraphNodeType type;
            CHECK_CUDA(cudaGraphNodeGetType(nodes[i], &type));
            allocations += type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree;
        }
        free(nodes);
        CHECK(count > 0 && allocations == 0, "%s: the graph has %zu nodes, %d of them allocations",
              what, count, allocations);
        cudaGraphExec_t exec = NULL;
        CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        for (int round = 0; round < 2; ++round) {
            CHECK_CUDA(cudaMemcpyAsync(C, host_c, sizeof(float) * n_c, cudaMemcpyHostToDevice,
                                       stream));
            CHECK_CUDA(cudaGraphLaunch(exec, stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
            float *got = to_host(C, n_c);
            const double e = relative_error(c, got, ref);
            CHECK(e <= 1e-5, "%s, graph launch %d: relative error %.3g", what, round + 1, e);
            free(got);
        }
        CHECK_CUDA(cudaGraphExecDestroy(exec));
    }
    if (graph)
        CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
}

static void test_case(gl_handle_t h, const gemm_case *c, const char *name, cudaStream_t stream)
{
    const size_t n_a = (size_t)case_extent(c, 'A'), n_b = (size_t)case_extent(c, 'B');
    const size_t n_c = (size_t)case_extent(c, 'C');
    float *A = device_random(n_a), *B = device_random(n_b), *C = device_random(n_c);
    if (c->beta == 0.0f)
        CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * n_c)); /* NaN: must never be read */
    float *hA = to_host(A, n_a), *hB = to_host(B, n_b), *hC = to_host(C, n_c);
    double *ref = malloc(sizeof(double) * (size_t)(c->m * c->n));
    reference_gemm(c, hA, hB, hC, ref);
    free(hA), free(hB);

    int64_t need = -1;
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, c->layout, c->trans_a,
                                            c->trans_b, c->m, c->n, c->k, A, c->lda, B, c->ldb,
                                            C, c->ldc, &need),
                 GL_STATUS_SUCCESS, NULL);
    const gl_plan with = plan_of(h, c, A, B, C);
    printf("%s (%lldx%lldx%lld): %lld bytes of scratch: %s\n", name, (long long)c->m,
           (long long)c->n, (long long)c->k, (long long)need, with.why);
    CHECK(need > 0 && with.scratch_bytes == need,
          "%s: takes scratch (%lld bytes; the plan says %lld)", name, (long long)need,
          (long long)with.scratch_bytes);

    CHECK_STATUS(h, gl_set_stream(h, stream), GL_STATUS_SUCCESS, NULL);
    float *pool = run(h, c, A, B, C, hC, stream);
    double e = relative_error(c, pool, ref);
    CHECK(e <= 1e-5, "%s, the pool: relative error %.3g", name, e);

    void *exact = poisoned_buffer((size_t)need), *tiny = poisoned_buffer(256);
    void *short_one = poisoned_buffer(need > 1 ? (size_t)need - 1 : 1);
    const struct {
        const char *what;
        int64_t limit;
        void *buffer;
        int64_t bytes;
        bool fits; /* runs the plan with scratch: the pool's bits */
    } settings[] = {
        {"a limit of 0", 0, NULL, 0, false},
        {"a limit of 4096 bytes", 4096, NULL, 0, need <= 4096},
        {"a limit of its need", need, NULL, 0, true},
        {"a buffer of its need", GL_WORKSPACE_NO_LIMIT, exact, need, true},
        {"a buffer a byte short", GL_WORKSPACE_NO_LIMIT, short_one, need - 1, false},
        {"a buffer of 256 bytes", GL_WORKSPACE_NO_LIMIT, tiny, 256, need <= 256},
        {"a buffer of 0 bytes", GL_WORKSPACE_NO_LIMIT, tiny, 0, false},
        {"a buffer of its need under a limit of 0", 0, exact, need, false},
    };
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; ++i) {
        char what[160];
        snprintf(what, sizeof what, "%s, %s", name, settings[i].what);
        CHECK_STATUS(h, gl_set_workspace_limit(h, settings[i].limit), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, gl_set_workspace(h, settings[i].buffer, settings[i].bytes),
                     GL_STATUS_SUCCESS, NULL);
        const gl_plan plan = plan_of(h, c, A, B, C);
        CHECK(settings[i].fits ? plan.scratch_bytes == need : plan.scratch_bytes == 0,
              "%s: the plan takes %lld bytes (%s)", what, (long long)plan.scratch_bytes,
              plan.why);
        float *got = run(h, c, A, B, C, hC, stream);
        e = relative_error(c, got, ref);
        CHECK(e <= 1e-5, "%s: relative error %.3g (%s)", what, e, plan.why);
        if (settings[i].fits)
            CHECK(memcmp(got, pool, sizeof(float) * n_c) == 0, "%s: the pool's bits", what);
        free(got);
    }
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);

    char what[160];
    snprintf(what, sizeof what, "%s, graph capture with a buffer of its need", name);
    run_captured(h, c, A, B, C, hC, ref, stream, exact, need, what);

    CHECK_CUDA(cudaFree(exact));
    CHECK_CUDA(cudaFree(tiny));
    CHECK_CUDA(cudaFree(short_one));
    free(pool), free(hC), free(ref);
    CHECK_CUDA(cudaFree(A));
    CHECK_CUDA(cudaFree(B));
    CHECK_CUDA(cudaFree(C));
}

/* The buffer serves the stream it was set on: calls on another stream take
 * the pool, and a run on each of two streams at once is right on both. */
static void test_two_streams(gl_handle_t h)
{
    const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 256, 256, 8192, 1.0f, 0.0f,
                         8192, 256, 256};
    float *A = device_random(256 * 8192), *B = device_random(8192 * 256);
    float *C1 = device_random(256 * 256), *C2 = device_random(256 * 256);
    float *hA = to_host(A, 256 * 8192), *hB = to_host(B, 8192 * 256);
    double *ref = malloc(sizeof(double) * 256 * 256);
    reference_gemm(&c, hA, hB, NULL, ref);
    int64_t need = 0;
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, GL_ROW_MAJOR, GL_OP_N, GL_OP_N,
                                            256, 256, 8192, A, 8192, B, 256, C1, 256, &need),
                 GL_STATUS_SUCCESS, NULL);
    void *ws = poisoned_buffer((size_t)need);
    cudaStream_t s1, s2;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK_STATUS(h, gl_set_stream(h, s1), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace(h, ws, need), GL_STATUS_SUCCESS, NULL);
    for (int round = 0; round < 4; ++round) {
        CHECK_CUDA(cudaMemsetAsync(C1, 0xff, sizeof(float) * 256 * 256, s1));
        CHECK_CUDA(cudaMemsetAsync(C2, 0xff, sizeof(float) * 256 * 256, s2));
        CHECK_STATUS(h, gl_set_stream(h, s1), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, gl_sgemm(h, engine, 256, 256, 8192, A, B, C1), GL_STATUS_SUCCESS,
                     NULL);
        CHECK_STATUS(h, gl_set_stream(h, s2), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, gl_sgemm(h, engine, 256, 256, 8192, A, B, C2), GL_STATUS_SUCCESS,
                     NULL);
        CHECK_CUDA(cudaDeviceSynchronize());
        float *h1 = to_host(C1, 256 * 256), *h2 = to_host(C2, 256 * 256);
        const double e1 = relative_error(&c, h1, ref), e2 = relative_error(&c, h2, ref);
        CHECK(e1 <= 1e-5 && e2 <= 1e-5, "two streams, round %d: relative errors %.3g, %.3g",
              round, e1, e2);
        free(h1), free(h2);
    }
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(s1));
    CHECK_CUDA(cudaStreamDestroy(s2));
    CHECK_CUDA(cudaFree(ws));
    CHECK_CUDA(cudaFree(A));
    CHECK_CUDA(cudaFree(B));
    CHECK_CUDA(cudaFree(C1));
    CHECK_CUDA(cudaFree(C2));
    free(hA), free(hB), free(ref);
}

/* The pointer checks against real allocations: host memory, pinned or
 * not; a buffer past its allocation; one of cudaMallocAsync's. */
static void test_buffers(gl_handle_t h)
{
    void *pinned = NULL, *dev = NULL, *async = NULL;
    CHECK_CUDA(cudaMallocHost(&pinned, 1 << 16));
    CHECK_STATUS(h, gl_set_workspace(h, pinned, 1 << 16), GL_STATUS_INVALID_ARGUMENT,
                 "is not device memory (pinned host memory)");
    CHECK_CUDA(cudaFreeHost(pinned));
    void *host = aligned_alloc(256, 1 << 16);
    CHECK_STATUS(h, gl_set_workspace(h, host, 1 << 16), GL_STATUS_INVALID_ARGUMENT,
                 "is not device memory");
    free(host);
    CHECK_CUDA(cudaMalloc(&dev, 1 << 16));
    CHECK_STATUS(h, gl_set_workspace(h, (char *)dev + 256, 1 << 16), GL_STATUS_INVALID_ARGUMENT,
                 "but its allocation has only 65280 bytes from that address");
    CHECK_STATUS(h, gl_set_workspace(h, (char *)dev + 16, 1024), GL_STATUS_INVALID_ARGUMENT,
                 "is not aligned to 256 bytes");
    CHECK_STATUS(h, gl_set_workspace(h, dev, 1 << 16), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaFree(dev));
    CHECK_CUDA(cudaMallocAsync(&async, 1 << 16, NULL));
    CHECK_CUDA(cudaStreamSynchronize(NULL));
    CHECK_STATUS(h, gl_set_workspace(h, async, 1 << 16), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaFreeAsync(async, NULL));
    CHECK_CUDA(cudaStreamSynchronize(NULL));
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_workspace");
    if (early >= 0)
        return early;
    engine = engine_variant();
    CHECK(engine >= 0, "a variant's row says it is the engine");
    if (engine < 0)
        return harness_finish("test_gpu_workspace");
    const uint64_t seed = test_seed();
    printf("seed %llu\n", (unsigned long long)seed);
    r.state = seed;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    test_buffers(h);
    for (size_t i = 0; i < CASES; ++i)
        test_case(h, &cases[i].c, cases[i].what, stream);
    test_two_streams(h);
    CHECK_CUDA(cudaStreamDestroy(stream));
    gl_handle_destroy(h);
    return harness_finish("test_gpu_workspace");
}
