/*
 * sgemm.c - the smallest complete use of libgemmladder from C: multiply two
 * random N x N matrices with every rung this GPU can run (or one, by name)
 * and compare each result with cuBLAS's.
 *
 *   build/examples/sgemm [N [VARIANT]]      (default N = 512, every rung)
 *
 * Exits 0 when every rung agrees with cuBLAS to 1e-5 (relative, Frobenius
 * norm; 1e-3 for TF32 rungs, whose operands keep 10 bits of mantissa), 1 on
 * any failure, 77 where there is no CUDA device.
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

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* ||x - ref|| / ||ref||, accumulated in double. */
static double relative_difference(const float *x, const float *ref, size_t n)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < n; ++i) {
        diff += ((double)x[i] - ref[i]) * ((double)x[i] - ref[i]);
        norm += (double)ref[i] * ref[i];
    }
    return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 512;
    gl_variant_t only = GL_VARIANT_CUBLAS;
    if (n < 1 || (argc > 2 && gl_variant_from_name(argv[2], &only) != GL_STATUS_SUCCESS)) {
        /* The variants as this library names them, whatever its version. */
        fprintf(stderr, "usage: %s [N >= 1 [VARIANT]]\n  VARIANT:", argv[0]);
        for (int v = 0; v < gl_variant_count(); ++v)
            fprintf(stderr, "%s %s", v ? "," : "", gl_variant_name((gl_variant_t)v));
        fprintf(stderr, "\n");
        return 2;
    }
    const size_t count = (size_t)n * (size_t)n, bytes = sizeof(float) * count;

    gl_handle_t h;
    const gl_status_t created = gl_handle_create(&h); /* on the current CUDA device */
    if (created == GL_STATUS_NO_DEVICE) {
        fprintf(stderr, "no CUDA device: %s\n", gl_last_error(NULL));
        return 77;
    }
    GL_CHECK(NULL, created);

    /* Random A and B in [-1, 1] on the host, copied to the GPU. */
    float *host = host_alloc(bytes), *ref = host_alloc(bytes), *out = host_alloc(bytes);
    float *A, *B, *C;
    CUDA_CHECK(cudaMalloc((void **)&A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&B, bytes));
    CUDA_CHECK(cudaMalloc((void **)&C, bytes));
    srand(1);
    for (float *dst = A; dst; dst = dst == A ? B : NULL) {
        for (size_t i = 0; i < count; ++i)
            host[i] = 2.0f * rand() / RAND_MAX - 1.0f;
        CUDA_CHECK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
    }

    /* cuBLAS first: the reference the rungs are compared with. */
    GL_CHECK(h, gl_sgemm(h, GL_VARIANT_CUBLAS, n, n, n, A, B, C));
    CUDA_CHECK(cudaMemcpy(ref, C, bytes, cudaMemcpyDeviceToHost)); /* waits for the GPU */

    printf("C = A * B, %d x %d, gemmladder %s\n", n, n, gl_version_string());
    int failed = 0;
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (argc > 2 && v != (int)only)
            continue;
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS) {
            printf("  %-13s not available: %s\n", gl_variant_name((gl_variant_t)v), gl_last_error(h));
            continue;
        }
        GL_CHECK(h, gl_sgemm(h, (gl_variant_t)v, n, n, n, A, B, C));
        CUDA_CHECK(cudaMemcpy(out, C, bytes, cudaMemcpyDeviceToHost));
        const double diff = relative_difference(out, ref, count);
        gl_variant_info info = {.size = sizeof info};
        GL_CHECK(h, gl_variant_describe((gl_variant_t)v, &info));
        failed |= !(diff <= (info.precision == GL_PRECISION_TF32 ? 1e-3 : 1e-5));
        printf("  %-13s ||C - C_cublas|| / ||C_cublas|| = %.2e\n", gl_variant_name((gl_variant_t)v),
               diff);
    }

    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    free(host);
    free(ref);
    free(out);
    gl_handle_destroy(h);
    return failed;
}
