/*
 * main.c - a program outside the libgemmladder tree, in its own CMake project
 * (CMakeLists.txt beside it finds the library with find_package). It runs
 * C = A * B with one variant (auto, or the one named on the command line) and
 * with cuBLAS on the same random row-major matrices, whose sizes are not
 * multiples of any tile, and prints how far apart the results are.
 *
 *   build/sgemm-downstream [VARIANT]
 *
 * Exits 0 when they agree to 1e-5 (relative, max norm), 1 on any failure,
 * 2 for an unknown variant, 77 without a GPU.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include <gemmladder.h>

enum { M = 211, N = 149, K = 403 };

static float a[M * K], b[K * N], results[2][M * N];

/* C = A * B with one variant, copied back to results[r]; 0 on success. */
static int product(gl_handle_t h, gl_variant_t variant, int r)
{
    float *A = NULL, *B = NULL, *C = NULL;
    cudaError_t e = cudaMalloc((void **)&A, sizeof a);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&B, sizeof b);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&C, sizeof results[r]);
    if (e == cudaSuccess)
        e = cudaMemcpy(A, a, sizeof a, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(B, b, sizeof b, cudaMemcpyHostToDevice);
    gl_status_t st = GL_STATUS_SUCCESS;
    if (e == cudaSuccess) {
        st = gl_sgemm(h, variant, M, N, K, A, B, C);
        if (st == GL_STATUS_SUCCESS) /* the copy waits for the GPU */
            e = cudaMemcpy(results[r], C, sizeof results[r], cudaMemcpyDeviceToHost);
    }
    cudaFree(A); /* NULL is fine */
    cudaFree(B);
    cudaFree(C);
    if (st != GL_STATUS_SUCCESS)
        fprintf(stderr, "gl_sgemm(%s): %s: %s\n", gl_variant_name(variant), gl_status_string(st),
                gl_last_error(h));
    else if (e != cudaSuccess)
        fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    return st != GL_STATUS_SUCCESS || e != cudaSuccess;
}

int main(int argc, char **argv)
{
    gl_variant_t variant = GL_VARIANT_AUTO;
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

    srand(4);
    for (int i = 0; i < M * K; ++i)
        a[i] = 2.0f * rand() / RAND_MAX - 1.0f;
    for (int i = 0; i < K * N; ++i)
        b[i] = 2.0f * rand() / RAND_MAX - 1.0f;
    const int failed = product(h, GL_VARIANT_CUBLAS, 0) || product(h, variant, 1);
    gl_handle_destroy(h);
    if (failed)
        return 1;

    double diff = 0, size = 0;
    for (int i = 0; i < M * N; ++i) {
        const double d = (double)results[1][i] - results[0][i], c = results[0][i];
        diff = d > diff ? d : -d > diff ? -d : diff;
        size = c > size ? c : -c > size ? -c : size;
    }
    printf("gemmladder %s, %s vs cublas, %d x %d x %d: max |C - C_cublas| / max |C_cublas| = %.2e\n",
           gl_version_string(), gl_variant_name(variant), M, N, K, diff / size);
    return diff <= 1e-5 * size ? 0 : 1;
}
