/*
 * reference.h - what the GPU tests check against: a float64 GEMM on the CPU,
 * random matrices, and the error measure.
 */
#ifndef GL_TEST_REFERENCE_H
#define GL_TEST_REFERENCE_H

#include <stdint.h>

#include "gemmladder.h"

/* One general product, exactly as passed to gl_sgemm_ex. */
typedef struct gemm_case {
    gl_layout_t layout;
    gl_transpose_t trans_a, trans_b;
    int64_t m, n, k;
    float alpha, beta;
    int64_t lda, ldb, ldc;
} gemm_case;

/* Stored shape of each operand (rows x cols in the case's layout). */
void case_stored_shape(const gemm_case *c, char which, int64_t *rows, int64_t *cols);

/* Elements from the first to the last of a stored operand ("A", "B", "C"). */
int64_t case_extent(const gemm_case *c, char which);

/* Whether element index e of a stored operand's buffer is part of the matrix
 * (as opposed to leading-dimension padding). */
int case_is_element(const gemm_case *c, char which, int64_t e);

/* ref = alpha * op(A) * op(B) + beta * C0, in float64, as an m x n row-major
 * array. Uses several threads. C0 is ignored when beta == 0. */
void reference_gemm(const gemm_case *c, const float *A, const float *B, const float *C0,
                    double *ref);

/* ||C - ref||_F / ||ref||_F over the matrix elements of C; a NaN or an
 * infinity anywhere in C gives +infinity. */
double relative_error(const gemm_case *c, const float *C, const double *ref);

/* How far the sums of a small C may cancel: ||M||_F / ref_norm, at least 1,
 * where M = |alpha| |op(A)| |op(B)| + |beta| |C0| is the size of what
 * float32 rounding acts on and ref_norm is ||ref||_F. Every element of a C
 * of a few elements, each a long sum of random terms, can come out much
 * smaller than M by chance, and relative_error's denominator with it: a test
 * allows its tolerance times this. 1 for a C of more than
 * CANCELLATION_MAX_ELEMENTS elements, whose norm averages that out (and
 * whose M would cost as much as the reference). */
#define CANCELLATION_MAX_ELEMENTS 64
double cancellation(const gemm_case *c, const float *A, const float *B, const float *C0,
                    double ref_norm);

/* A small, seedable generator: splitmix64. */
typedef struct rng { uint64_t state; } rng;
uint64_t rng_next(rng *r);
float rng_uniform(rng *r); /* in [-1, 1), never exactly 0 */

/* Seed for this run: $GL_TEST_SEED if set, else the clock. */
uint64_t test_seed(void);

/* The poison and padding value: a quiet NaN with a recognisable payload. */
float poison_value(void);
int is_poison(float x);

#endif
