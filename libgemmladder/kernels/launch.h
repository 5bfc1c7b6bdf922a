/*
 * launch.h - how the host code hands one product to a variant's file: the
 * problem (checked, and made row-major by the dispatcher), the tile
 * parameters, where to run it, and the one launcher signature every
 * variant implements. C (the dispatcher, the descriptor table) and CUDA (the
 * kernel files) both include it.
 *
 * Internal: nothing here is installed or exported.
 */
#ifndef GL_LAUNCH_H
#define GL_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "configs.h"

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
 * m <= 2^20, so that row tiles fit a grid's y dimension (the dispatcher
 * splits taller problems). When beta == 0, C is written without being read.
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

/* A batch of products of one shape, in the row-major problem's terms, in
 * one of two forms:
 *  - strided (gl_sgemm_strided_batched): product i is the problem with a, b
 *    and c moved on by i * a, i * b and i * c floats;
 *  - pointer arrays (gl_sgemm_batched; c_ptrs set, the strides 0): product
 *    i's operands are a_ptrs[i], b_ptrs[i] and c_ptrs[i], device arrays the
 *    host never reads, so the problem handed to a launcher has no operands
 *    (a, b and c NULL) and the launch's slice of rows starts at row0, to
 *    which the kernels move each product's A and C once they have read
 *    them (gl_move_to_row). A product with a NULL entry is skipped: its C
 *    is left as it is. */
typedef struct gl_batch {
    int64_t count, a, b, c;
    const float *const *a_ptrs;
    const float *const *b_ptrs;
    float *const *c_ptrs; /* set for pointer arrays (C's is always read; A's and
                             B's only where A and B are) */
    int64_t row0;
} gl_batch;

/* Where and with what a launcher runs. */
typedef struct gl_exec {
    cudaStream_t stream;
    cublasHandle_t cublas; /* set only for variants whose descriptor uses cuBLAS */
    int code_cc;           /* the capability the device's code was compiled for, major * 10
                              + minor (gl_build_code): the device's own, or older */
    int sm_count;
    const struct gl_engine_context *engine; /* auto's: its scratch pool, pinned tiles and
                                               last plans (engine.h); set for every
                                               call, read by auto only */
    const gl_batch *batch; /* the products to run, for a launcher whose row says
                              `batches`; NULL (and for every other launcher): one */
} gl_exec;

/* The batch a launcher runs at once: x->batch, where it holds more than one
 * product or pointer arrays (whose one product the problem does not hold);
 * else NULL, the problem alone. */
static inline const gl_batch *gl_exec_batch(const gl_exec *x)
{
    return x->batch && (x->batch->count > 1 || x->batch->c_ptrs) ? x->batch : NULL;
}

#ifdef __CUDACC__
#define GL_HOST_DEVICE __host__ __device__
#else
#define GL_HOST_DEVICE
#endif

/* The most blocks a grid has along y or z (CUDA's limit): batches launch
 * this many products (or products' parts) at a time, and grids whose y or
 * z counts something else stay under it. */
#define GL_GRID_YZ_MAX 65535

/* A launch's share of `left` products (or parts) along y or z. */
static inline unsigned gl_grid_yz(int64_t left)
{
    return (unsigned)(left < GL_GRID_YZ_MAX ? left : GL_GRID_YZ_MAX);
}

/* 16-byte accesses need a 16-byte aligned base and a leading dimension that
 * keeps every row aligned. */
static inline GL_HOST_DEVICE bool gl_vec4_ok(const void *p, int64_t ld)
{
    return ((uintptr_t)p & 15) == 0 && ld % 4 == 0;
}

/* Whether the tiled kernels copy op(A) (op(B)) in groups of 4 neighbouring
 * floats, one 16-byte load each: its rows are aligned, and the extent they
 * run along (K for A as stored and B transposed, M or N otherwise) is a
 * multiple of 4, so that no group lies across the matrix's edge. Otherwise
 * they read it a float per load. (The kernels' copies, their launchers and
 * the engine's plan.) */
static inline GL_HOST_DEVICE bool gl_a_vec4_ok(const gl_problem *p)
{
    return gl_vec4_ok(p->a, p->lda) && (p->trans_a ? p->m : p->k) % 4 == 0;
}
static inline GL_HOST_DEVICE bool gl_b_vec4_ok(const gl_problem *p)
{
    return gl_vec4_ok(p->b, p->ldb) && (p->trans_b ? p->k : p->n) % 4 == 0;
}

/* A product's operands a, b, c (one entry of each pointer array, say) moved
 * to row r0 of C, the first of a launch's slice of rows: A's row r0 (its
 * column, transposed) and C's; B as it is. In address arithmetic: an
 * entry is the caller's, unchecked, and pointer arithmetic past an object
 * would be undefined where a bad entry is merely a fault to come. */
static inline GL_HOST_DEVICE void gl_move_to_row(gl_problem *q, const float *a, const float *b,
                                                 float *c, int64_t r0)
{
    const uint64_t a_floats = (uint64_t)r0 * (uint64_t)(q->trans_a ? 1 : q->lda);
    q->a = (const float *)((uintptr_t)a + (uintptr_t)(a_floats * sizeof(float)));
    q->b = b;
    q->c = (float *)((uintptr_t)c + (uintptr_t)((uint64_t)r0 * (uint64_t)q->ldc * sizeof(float)));
}

/* The one launcher signature. Queues the product on x->stream and returns 0,
 * or the failing library's own error code: a cudaError_t for kernels, a
 * cublasStatus_t for the cuBLAS variant (its descriptor says which). *t is
 * one of the variant's compiled configurations (configs.h). */
typedef int (*gl_launch_fn)(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);

/* Once per handle, on its device: lets the kernels that need more than 48 KB
 * of shared memory have it. */
typedef cudaError_t (*gl_prepare_fn)(void);

/* A rung whose file is a mainloop (kernels/compose.cuh) compiles, for each
 * of its configurations, kernels for every schedule the engine runs
 * (engine/schedules.cuh): `launch` queues the product on the schedule *s
 * and returns a cudaError_t. Its rung's own launcher runs the plain grid. */
struct gl_schedule;
typedef struct gl_tile_kernels {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *p, const struct gl_schedule *s, const gl_exec *x);
    gl_prepare_fn prepare;
} gl_tile_kernels;

typedef struct gl_kernel_table {
    const gl_tile_kernels *entries;
    int count;
} gl_kernel_table;

/* The entry of table for tiles t, or NULL. */
static inline const gl_tile_kernels *gl_kernels_for(const gl_kernel_table *table,
                                                    const gl_tile_params *t)
{
    for (int i = 0; i < table->count; ++i)
        if (gl_tile_params_equal(&table->entries[i].tiles, t))
            return &table->entries[i];
    return NULL;
}

/* Not a variant: C = beta * C, for K == 0 or alpha == 0 (scale_c.cu). */
cudaError_t gl_launch_scale_c(int m, int n, float beta, float *c, int64_t ldc,
                              cudaStream_t stream);

/* The same for the `count` products of a pointer array's C (device memory,
 * read on the device; a NULL entry's product is skipped). */
cudaError_t gl_launch_scale_c_pointers(int m, int n, float beta, float *const *c, int64_t count,
                                       int64_t ldc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GL_LAUNCH_H */
