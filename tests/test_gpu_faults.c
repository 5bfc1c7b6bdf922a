/*
 * test_gpu_faults.c - failures from below the library, and what stays true.
 *
 *  1. Device memory exhausted: the kernel rungs allocate nothing, so they
 *     still run; creating cuBLAS state (variant 0, lazily) fails with the
 *     allocation status (or cuBLAS's), never a crash; once memory is freed
 *     the same handle creates it and runs.
 *  2. A CUDA error inside a call: launching on the legacy default stream
 *     while another stream captures in global mode is refused by CUDA; the
 *     call reports GL_STATUS_CUDA_ERROR with CUDA's message and the handle
 *     works afterwards.
 *  3. Every rung can be captured into a CUDA graph (no allocation and no
 *     synchronisation inside a call), and the replayed graph is right.
 * Runs alone (it fills the GPU's memory). Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>

#include "harness.h"
#include "reference.h"

enum { M = 129, N = 67, K = 45 };

static rng r;
static float hA[M * K], hB[K * N], hC[M * N];
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

static void test_memory_exhausted(const float *A, const float *B, float *C)
{
    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
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
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    printf("device memory filled: %zu bytes left of %zu\n", free_bytes, total);

    for (int v = 1; v < gl_variant_count(); ++v) {
        gl_status_t st;
        const double e = run_and_check(h, (gl_variant_t)v, A, B, C, &st);
        CHECK(st == GL_STATUS_SUCCESS && e <= 1e-5,
              "%s with the GPU's memory full: %s (%s), error %.3g", gl_variant_name(v),
              gl_status_string(st), gl_last_error(h), e);
    }
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
        CHECK_CUDA(cudaMemset(outs[v], 0xff, sizeof hC));
    }
    CHECK_STATUS(h, gl_sgemm(h, GL_VARIANT_CUBLAS, M, N, K, A, B, outs[0]), GL_STATUS_SUCCESS,
                 NULL);
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaMemset(outs[0], 0xff, sizeof hC));

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
        CHECK(e <= 1e-5, "%s replayed from a CUDA graph: relative error %.3g", gl_variant_name(v),
              e);
        cudaFree(outs[v]);
    }
    printf("every rung captured into one CUDA graph and replayed\n");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_CUDA(cudaStreamDestroy(s));
}

int main(void)
{
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

    test_graph_capture(h, A, B);
    test_cuda_error_inside_a_call(h, A, B, C);
    test_memory_exhausted(A, B, C);

    cudaFree(A), cudaFree(B), cudaFree(C);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_faults");
}
