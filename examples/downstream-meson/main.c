/*
 * main.c - a program outside the libgemmladder tree, in its own meson
 * project (meson.build beside it finds the library with pkg-config). It uses
 * the general call the way a BLAS user would: column-major storage,
 * C = alpha * A * B^T + beta * C, run with one rung (warptile, or the one
 * named on the command line) and with cuBLAS, and prints how far apart the
 * results are.
 *
 *   build/sgemm-downstream [VARIANT]
 *
 * Exits 0 when they agree to 1e-5 (relative, Frobenius norm), 1 on any
 * failure, 77 without a GPU.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gemmladder.h>

enum { M = 257, N = 130, K = 333 };

#define CUDA_CHECK(call)                                                                      \
    do {                                                                                      \
        const cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                       \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

#define GL_CHECK(h, call)                                                                     \
    do {                                                                                      \
        const gl_status_t s_ = (call);                                                        \
        if (s_ != GL_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s: %s: %s\n", #call, gl_status_string(s_), gl_last_error(h));   \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

/* Column-major: A is M x K (lda = M), B is N x K (ldb = N), C is M x N (ldc = M). */
static float a[M * K], b[N * K], c0[M * N], results[2][M * N];

int main(int argc, char **argv)
{
    gl_variant_t variant = GL_VARIANT_WARPTILE;
    if (argc > 1 && gl_variant_from_name(argv[1], &variant) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "unknown variant \"%s\"\n", argv[1]);
        return 2;
    }
    gl_handle_t h = NULL;
    const gl_status_t st = gl_handle_create(&h);
    if (st != GL_STATUS_SUCCESS) {
        /* The message names gl_handle_create itself. */
        fprintf(stderr, "%s: %s\n", gl_status_string(st), gl_last_error(NULL));
        return st == GL_STATUS_NO_DEVICE ? 77 : 1;
    }

    srand(3);
    float *arrays[] = {a, b, c0};
    const int sizes[] = {M * K, N * K, M * N};
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < sizes[j]; ++i)
            arrays[j][i] = 2.0f * rand() / RAND_MAX - 1.0f;

    float *A = NULL, *B = NULL, *C = NULL;
    CUDA_CHECK(cudaMalloc((void **)&A, sizeof a));
    CUDA_CHECK(cudaMalloc((void **)&B, sizeof b));
    CUDA_CHECK(cudaMalloc((void **)&C, sizeof c0));
    CUDA_CHECK(cudaMemcpy(A, a, sizeof a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B, b, sizeof b, cudaMemcpyHostToDevice));

    /* cuBLAS, then the rung, each from the same starting C (beta reads it). */
    const gl_variant_t runs[2] = {GL_VARIANT_CUBLAS, variant};
    for (int r = 0; r < 2; ++r) {
        CUDA_CHECK(cudaMemcpy(C, c0, sizeof c0, cudaMemcpyHostToDevice));
        GL_CHECK(h, gl_sgemm_ex(h, runs[r], GL_COL_MAJOR, GL_OP_N, GL_OP_T, M, N, K, 0.5f, A, M, B, N,
                                2.0f, C, M));
        CUDA_CHECK(cudaMemcpy(results[r], C, sizeof c0, cudaMemcpyDeviceToHost)); /* waits */
    }
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    gl_handle_destroy(h);

    double diff = 0, norm = 0;
    for (int i = 0; i < M * N; ++i) {
        diff += ((double)results[1][i] - results[0][i]) * ((double)results[1][i] - results[0][i]);
        norm += (double)results[0][i] * results[0][i];
    }
    const double relative = sqrt(diff / norm);
    printf("gemmladder %s, column-major C = 0.5 A B^T + 2 C, %d x %d x %d: %s vs cublas: "
           "||C - C_cublas|| / ||C_cublas|| = %.2e\n",
           gl_version_string(), M, N, K, gl_variant_name(variant), relative);
    return relative <= 1e-5 ? 0 : 1;

fail:
    cudaFree(A); /* NULL is fine */
    cudaFree(B);
    cudaFree(C);
    gl_handle_destroy(h);
    return 1;
}
