/*
 * limits_check.h - what test_gpu_limits.c asks of limits_check.cu.
 */
#ifndef GL_TEST_LIMITS_CHECK_H
#define GL_TEST_LIMITS_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A stored matrix as element offsets: `outer` runs of `inner`, `ld` apart. */
typedef struct lim_matrix {
    int64_t outer, inner, ld;
} lim_matrix;

/* One product as the caller passed it, and where C sits. */
typedef struct lim_case {
    bool row_major, trans_a, trans_b;
    int64_t m, n, k;
    float alpha, beta;
    const float *a, *b;
    int64_t lda, ldb;
    lim_matrix c_matrix;
} lim_case;

/* buf[e] = a value in {-1, 0, 1} from (seed, e), for e < count; the
 * elements of *poison_of (NULL: none), whose first lies at buf + first, get
 * a NaN instead. */
cudaError_t lim_fill(float *buf, int64_t count, uint64_t seed, const lim_matrix *poison_of,
                     int64_t first);

/* ref[i * cols + j] = the exact sum over K of op(A)(i, p) op(B)(p, j), for
 * i < rows, j < cols (rows * cols blocks; for C of few elements). */
cudaError_t lim_reference(const lim_case *c, int64_t rows, int64_t cols, long long *ref);

/* Counts into *bad the elements of buf (count of them, C's first at
 * buf + first, filled by lim_fill with seed) that are wrong: outside C
 * changed at all; inside, not alpha * sum + beta * C0 (sums from ref where
 * given, else summed there), on rows i % row_step == 0; other rows only
 * checked written; with untouched, C too must be as filled (a call that was
 * refused). *first_bad: the lowest wrong index. */
cudaError_t lim_check(const lim_case *c, const float *buf, int64_t count, int64_t first,
                      uint64_t seed, const long long *ref, int64_t ref_rows, int64_t ref_cols,
                      int64_t row_step, bool untouched, unsigned long long *bad,
                      unsigned long long *first_bad);

#ifdef __cplusplus
}
#endif

#endif
