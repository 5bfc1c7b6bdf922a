/*
 * rung.h - what every rung of the ladder shares: the problem a launcher is
 * handed, its tile parameters, its execution context, and the one launcher
 * signature. Included from C (the dispatcher, the registry) and from CUDA
 * (the rung files); the device helpers at the end are CUDA only.
 *
 * Internal: nothing here is installed or exported.
 */
#ifndef GL_RUNG_H
#define GL_RUNG_H

#include <stdbool.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One product, already validated and normalised by the dispatcher:
 *   C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C
 * everything row-major. op(A) is A when trans_a is false (A stored m x k,
 * element (i, p) at a[i * lda + p]) and A's transpose otherwise (A stored
 * k x m, element (i, p) of op(A) at a[p * lda + i]); likewise B.
 * Guarantees: m, n, k >= 1; alpha != 0; pointers valid for the extents;
 * m is small enough for the grid (the dispatcher splits taller problems).
 * When beta == 0, C must be written without being read.
 */
typedef struct gl_problem {
    int m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    bool trans_a;
    const float *b;
    int64_t ldb;
    bool trans_b;
    float *c;
    int64_t ldc;
} gl_problem;

/* Tile parameters a rung may be instantiated with. Rungs that take fewer
 * leave the rest 0. bm x bn: the block's tile of C; bk: depth of each K
 * slice; tm x tn: the thread's tile of C; wm x wn and wniter: the warp's
 * tile and how many times it is stamped along N (warptile). */
typedef struct gl_tile_params {
    int bm, bn, bk;
    int tm, tn;
    int wm, wn, wniter;
    int threads;
} gl_tile_params;

/* Where and with what a launcher runs. */
typedef struct gl_exec {
    cudaStream_t stream;
    cublasHandle_t cublas; /* set only for rungs whose registry row uses cuBLAS */
    int cc;                /* compute capability as major * 10 + minor */
    int sm_count;
} gl_exec;

/* The one launcher signature. Queues the product on x->stream and returns 0,
 * or the failing library's own error code: a cudaError_t for kernel rungs, a
 * cublasStatus_t for the cuBLAS rung (its registry row says which). */
typedef int (*gl_launch_fn)(const gl_problem *p, const gl_tile_params *t,
                            const gl_exec *x);

/* Each rung's launcher, defined in kernels/NN_<name>.{c,cu}. */
int gl_launch_cublas(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_naive(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_coalesced(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_shared(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);

/* Not a rung: C = beta * C, for K == 0 or alpha == 0 (kernels/scale_c.cu). */
cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* ---- device helpers shared by the rung files ---------------------------- */

/* A read-only matrix seen through strides: element (i, j) is at
 * p[i * row_stride + j * col_stride]. The strides absorb the transpose, so the
 * simple rungs index op(A) and op(B) the same way whatever the layout. */
struct gl_matrix_view {
    const float *p;
    int64_t row_stride, col_stride;
    __device__ __forceinline__ const float *at(int64_t i, int64_t j) const
    {
        return p + i * row_stride + j * col_stride;
    }
    __device__ __forceinline__ float operator()(int64_t i, int64_t j) const { return *at(i, j); }
};

__device__ __forceinline__ gl_matrix_view gl_view_a(const gl_problem &p)
{
    return p.trans_a ? gl_matrix_view{p.a, 1, p.lda}
                     : gl_matrix_view{p.a, p.lda, 1};
}

__device__ __forceinline__ gl_matrix_view gl_view_b(const gl_problem &p)
{
    return p.trans_b ? gl_matrix_view{p.b, 1, p.ldb}
                     : gl_matrix_view{p.b, p.ldb, 1};
}

/* The BLAS epilogue for one element: c = alpha * acc + beta * c, where
 * beta == 0 means C is not read (it may hold NaN). */
__device__ __forceinline__ void gl_store_c(float *c, float acc, float alpha, float beta)
{
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* Number of b-sized tiles covering a >= 1 items (no overflow near INT_MAX). */
static inline unsigned gl_ceil_div(int a, int b) { return (unsigned)((a - 1) / b + 1); }
#endif

#endif /* GL_RUNG_H */
