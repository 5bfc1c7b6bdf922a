/*
 * main.c - a program outside the libgemmladder tree, built against an
 * installed copy found with pkg-config (see the Makefile beside it). It runs
 * one rung (warptile, or the one named on the command line) and cuBLAS on
 * the same random row-major matrices and prints how far apart they are.
 *
 *   ./sgemm-downstream [VARIANT]
 *
 * Exits 0 when they agree to 1e-5, 1 on any failure, 77 without a GPU.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include <gemmladder.h>

enum { M = 300, N = 200, K = 500 };

#define CUDA_CHECK(call)                                                                      \
    do {                                                                                      \
        const cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                       \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

#define GL_CHECK(h, call)                                                                     \
    do {                                                                                      \
        const gl_status_t s_ = (call);                                                        \
        if (s_ != GL_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s: %s: %s\n", #call, gl_status_string(s_), gl_last_error(h));   \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

static float a[M * K], b[K * N], c_rung[M * N], c_cublas[M * N];

/* Runs C = A * B with one variant on the GPU and copies C back. */
static int product(gl_handle_t h, gl_variant_t variant, float *c)
{
    float *A, *B, *C;
    CUDA_CHECK(cudaMalloc((void **)&A, sizeof a));
    CUDA_CHECK(cudaMalloc((void **)&B, sizeof b));
    CUDA_CHECK(cudaMalloc((void **)&C, sizeof c_rung));
    CUDA_CHECK(cudaMemcpy(A, a, sizeof a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B, b, sizeof b, cudaMemcpyHostToDevice));
    GL_CHECK(h, gl_sgemm(h, variant, M, N, K, A, B, C));
    CUDA_CHECK(cudaMemcpy(c, C, sizeof c_rung, cudaMemcpyDeviceToHost)); /* waits for the GPU */
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    return 0;
}

int main(int argc, char **argv)
{
    gl_variant_t variant = GL_VARIANT_WARPTILE;
    if (argc > 1 && gl_variant_from_name(argv[1], &variant) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "unknown variant \"%s\"\n", argv[1]);
        return 2;
    }
    gl_handle_t h;
    const gl_status_t st = gl_handle_create(&h);
    if (st != GL_STATUS_SUCCESS) {
        /* The message names gl_handle_create itself. */
        fprintf(stderr, "%s: %s\n", gl_status_string(st), gl_last_error(NULL));
        return st == GL_STATUS_NO_DEVICE ? 77 : 1;
    }

    srand(2);
    for (int i = 0; i < M * K; ++i)
        a[i] = 2.0f * rand() / RAND_MAX - 1.0f;
    for (int i = 0; i < K * N; ++i)
        b[i] = 2.0f * rand() / RAND_MAX - 1.0f;
    if (product(h, variant, c_rung) || product(h, GL_VARIANT_CUBLAS, c_cublas)) {
        gl_handle_destroy(h);
        return 1;
    }
    gl_handle_destroy(h);

    /* Relative difference in the max norm: no libm needed, so the link line
     * is pkg-config's alone. */
    double diff = 0, size = 0;
    for (int i = 0; i < M * N; ++i) {
        const double d = (double)c_rung[i] - c_cublas[i];
        diff = d > diff ? d : -d > diff ? -d : diff;
        size = c_cublas[i] > size ? c_cublas[i] : -c_cublas[i] > size ? -c_cublas[i] : size;
    }
    printf("gemmladder %s, %s vs cublas, %d x %d x %d: max |C - C_cublas| / max |C_cublas| = %.2e\n",
           gl_version_string(), gl_variant_name(variant), M, N, K, diff / size);
    return diff <= 1e-5 * size ? 0 : 1;
}
