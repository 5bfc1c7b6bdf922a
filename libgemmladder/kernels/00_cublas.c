/*
 * Rung 0, cublas: the reference. cuBLAS SGEMM with FP32 compute (the handle
 * is created in CUBLAS_DEFAULT_MATH mode, which never uses TF32).
 *
 * cuBLAS is column-major. A row-major matrix read as column-major is its
 * transpose, so the row-major product C = op(A) op(B) is computed as the
 * column-major product C^T = op(B)^T op(A)^T: swap the operands and the
 * sizes m and n, keep each operand's own transpose flag and leading dimension.
 */
#include "launch.h"

int gl_launch_cublas(const gl_problem *p, const gl_tile_params *t, const gl_exec *x)
{
    (void)t;
    const cublasOperation_t op_a = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    return (int)cublasSgemm_64(x->cublas, op_b, op_a, p->n, p->m, p->k, &p->alpha, p->b,
                               p->ldb, p->a, p->lda, &p->beta, p->c, p->ldc);
}
