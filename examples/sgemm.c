/*
 * sgemm.c - the smallest complete use of libgemmladder: multiply two random
 * matrices with every rung this GPU can run and compare each result with
 * cuBLAS's.
 *
 *   build/examples/sgemm [N]        (default N = 512)
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gemmladder.h>

/* Every call is checked; on failure, print the library's own message. */
#define GL_CHECK(h, call)                                                                     \
    do {                                                                                      \
        const gl_status_t s_ = (call);                                                        \
        if (s_ != GL_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s: %s: %s\n", #call, gl_status_string(s_), gl_last_error(h));   \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CUDA_CHECK(call)                                                                      \
    do {                                                                                      \
        const cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                       \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 512;
    if (n < 1) {
        fprintf(stderr, "usage: %s [N >= 1]\n", argv[0]);
        return 2;
    }
    const size_t bytes = sizeof(float) * (size_t)n * (size_t)n;

    gl_handle_t h;
    GL_CHECK(NULL, gl_handle_create(&h)); /* on the current CUDA device */

    /* Random A and B in [-1, 1] on the host, copied to the GPU. */
    float *host = malloc(bytes), *ref = malloc(bytes), *out = malloc(bytes);
    float *A, *B, *C;
    CUDA_CHECK(cudaMalloc((void **)&A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&B, bytes));
    CUDA_CHECK(cudaMalloc((void **)&C, bytes));
    srand(1);
    for (float *dst = A; dst; dst = dst == A ? B : NULL) {
        for (size_t i = 0; i < (size_t)n * n; ++i)
            host[i] = 2.0f * rand() / RAND_MAX - 1.0f;
        CUDA_CHECK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
    }

    /* cuBLAS first: the reference the rungs are compared with. */
    GL_CHECK(h, gl_sgemm(h, GL_VARIANT_CUBLAS, n, n, n, A, B, C));
    CUDA_CHECK(cudaMemcpy(ref, C, bytes, cudaMemcpyDeviceToHost)); /* waits for the GPU */

    printf("C = A * B, %d x %d, gemmladder %s\n", n, n, gl_version_string());
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS) {
            printf("  %-13s not available: %s\n", gl_variant_name(v), gl_last_error(h));
            continue;
        }
        GL_CHECK(h, gl_sgemm(h, (gl_variant_t)v, n, n, n, A, B, C));
        CUDA_CHECK(cudaMemcpy(out, C, bytes, cudaMemcpyDeviceToHost));
        double diff = 0, norm = 0;
        for (size_t i = 0; i < (size_t)n * n; ++i) {
            diff += (double)(out[i] - ref[i]) * (out[i] - ref[i]);
            norm += (double)ref[i] * ref[i];
        }
        printf("  %-13s ||C - C_cublas|| / ||C_cublas|| = %.2e\n", gl_variant_name(v),
               sqrt(diff / norm));
    }

    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    free(host);
    free(ref);
    free(out);
    gl_handle_destroy(h);
    return 0;
}
