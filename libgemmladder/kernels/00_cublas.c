/*
 * Rung 0, cublas: the reference. cuBLAS SGEMM with FP32 compute (the handle
 * is created in CUBLAS_DEFAULT_MATH mode, which never uses TF32). And
 * variant 11, cublas_tf32: the reference of the TF32 class, the same
 * product through cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32, which lets
 * cuBLAS round the operands to TF32 and run them on the tensor cores (the
 * compute type is the call's, so the handle's FP32 mode stays as it is).
 *
 * cuBLAS is column-major. A row-major matrix read as column-major is its
 * transpose, so the row-major product C = op(A) op(B) is computed as the
 * column-major product C^T = op(B)^T op(A)^T: swap the operands and the
 * sizes m and n, keep each operand's own transpose flag and leading dimension.
 *
 * A batch (gl_exec.batch) goes to cuBLAS's own batched calls in one call,
 * the reference for batches being what a cuBLAS user would run:
 * cublasSgemmStridedBatched and cublasGemmStridedBatchedEx for
 * gl_sgemm_strided_batched, cublasSgemmBatched and cublasGemmBatchedEx for
 * gl_sgemm_batched's pointer arrays (their 64-bit forms, as cuBLAS 13's
 * headers declare them), which cuBLAS reads as they are: the dispatcher
 * hands it every row at once (gemm.c), since no slice of rows can move
 * the arrays' entries.
 */
#include "launch.h"

/* cuBLAS 13.0 fails (CUBLAS_STATUS_INTERNAL_ERROR) on a 1 x 2147483647
 * product; C's columns go to it in pieces of at most this many. */
#define MAX_COLUMNS_PER_CALL (1 << 30)

/* Elements from an operand's first to its last (stored rows x cols, ld). */
static int64_t span(int64_t rows, int64_t cols, int64_t ld) { return (rows - 1) * ld + cols; }

/* C = alpha op(A) op(B) + beta C, FP32 (SGEMM) or with TF32 products. */
static int launch(const gl_problem *p, const gl_exec *x, bool tf32)
{
    /* cuBLAS 13.0 reads out of bounds (an illegal address, which ends the
     * CUDA context) on a product of one row or column whose matrix operand
     * spans more than 2^31 - 1 elements (1 x (2^31 - 1) x 3 with ldb =
     * 2^31 - 1): refused instead. */
    if ((p->m == 1 || p->n == 1) &&
        (span(p->trans_a ? p->k : p->m, p->trans_a ? p->m : p->k, p->lda) > INT32_MAX ||
         span(p->trans_b ? p->n : p->k, p->trans_b ? p->k : p->n, p->ldb) > INT32_MAX ||
         span(p->m, p->n, p->ldc) > INT32_MAX))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    const cublasOperation_t op_a = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const gl_batch *g = gl_exec_batch(x);
    if (g && g->c_ptrs) { /* pointer arrays: C's columns cannot go in pieces */
        if (p->n > MAX_COLUMNS_PER_CALL)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        return (int)(tf32 ? cublasGemmBatchedEx_64(
                                x->cublas, op_b, op_a, p->n, p->m, p->k, &p->alpha,
                                (const void *const *)g->b_ptrs, CUDA_R_32F, p->ldb,
                                (const void *const *)g->a_ptrs, CUDA_R_32F, p->lda, &p->beta,
                                (void *const *)g->c_ptrs, CUDA_R_32F, p->ldc, g->count,
                                CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT)
                          : cublasSgemmBatched_64(x->cublas, op_b, op_a, p->n, p->m, p->k,
                                                  &p->alpha, g->b_ptrs, p->ldb, g->a_ptrs,
                                                  p->lda, &p->beta, g->c_ptrs, p->ldc, g->count));
    }
    for (int64_t n0 = 0; n0 < p->n; n0 += MAX_COLUMNS_PER_CALL) {
        const int64_t n = p->n - n0 < MAX_COLUMNS_PER_CALL ? p->n - n0 : MAX_COLUMNS_PER_CALL;
        /* op(B)'s column n0: B's column n0 as stored, or its row n0 transposed */
        const float *b = p->b + (p->trans_b ? n0 * p->ldb : n0);
        cublasStatus_t st;
        if (g)
            st = tf32 ? cublasGemmStridedBatchedEx_64(
                            x->cublas, op_b, op_a, n, p->m, p->k, &p->alpha, b, CUDA_R_32F,
                            p->ldb, g->b, p->a, CUDA_R_32F, p->lda, g->a, &p->beta, p->c + n0,
                            CUDA_R_32F, p->ldc, g->c, g->count, CUBLAS_COMPUTE_32F_FAST_TF32,
                            CUBLAS_GEMM_DEFAULT)
                      : cublasSgemmStridedBatched_64(x->cublas, op_b, op_a, n, p->m, p->k,
                                                     &p->alpha, b, p->ldb, g->b, p->a, p->lda,
                                                     g->a, &p->beta, p->c + n0, p->ldc, g->c,
                                                     g->count);
        else
            st = tf32 ? cublasGemmEx_64(x->cublas, op_b, op_a, n, p->m, p->k, &p->alpha, b,
                                        CUDA_R_32F, p->ldb, p->a, CUDA_R_32F, p->lda, &p->beta,
                                        p->c + n0, CUDA_R_32F, p->ldc,
                                        CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT)
                      : cublasSgemm_64(x->cublas, op_b, op_a, n, p->m, p->k, &p->alpha, b,
                                       p->ldb, p->a, p->lda, &p->beta, p->c + n0, p->ldc);
        if (st != CUBLAS_STATUS_SUCCESS)
            return (int)st;
    }
    return CUBLAS_STATUS_SUCCESS;
}

int gl_launch_cublas(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    (void)t;
    return launch(p, x, false);
}

int gl_launch_cublas_tf32(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    (void)t;
    return launch(p, x, true);
}
