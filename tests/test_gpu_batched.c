/*
 * test_gpu_batched.c - gl_sgemm_strided_batched on every variant against a
 * float64 reference, product by product.
 *
 * Each case is a batch of one shape: row- and column-major, both
 * transposes, alpha and beta, padded leading dimensions, A broadcast to
 * every product (strideA 0), products' C side by side in one matrix (C_i
 * columns [i * N, (i + 1) * N) of one wide C), gaps between products, a
 * batch of one, shapes that take each of auto's batch plans, and twelve
 * random batches (extents 1 .. 96, 1 .. 300 products, any form, A or B now
 * and then broadcast). Inputs are fresh random values (the seed is printed;
 * GL_TEST_SEED repeats a run); every float of C's allocation that belongs
 * to no product holds a NaN that must come back untouched, and C is
 * poisoned before each call where beta == 0. Pass: each product within
 * its variant's tolerance (harness.h). Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

typedef struct batch_case {
    gemm_case g;
    int64_t stride_a, stride_b, stride_c, count;
} batch_case;

static rng r;

/* Floats from the first element of an operand's batch to its last. */
static int64_t batch_floats(const batch_case *b, char which)
{
    const int64_t stride = which == 'A' ? b->stride_a : which == 'B' ? b->stride_b : b->stride_c;
    return (b->count - 1) * stride + case_extent(&b->g, which);
}

/* Whether float e of C's batch belongs to a product: of those products i
 * with 0 <= e - i * strideC < C's extent (strideC > 0 in every batch the
 * call takes). */
static int in_some_product(const batch_case *b, int64_t e)
{
    const int64_t extent = case_extent(&b->g, 'C'), s = b->stride_c;
    int64_t i = e >= extent ? (e - extent) / s + 1 : 0;
    for (; i < b->count && i * s <= e; ++i)
        if (case_is_element(&b->g, 'C', e - i * s))
            return 1;
    return 0;
}

/* A random batch: extents 1 .. 96 (now and then 1, a matrix-vector
 * product), 1 .. 300 products, any layout and transposes, padded leading
 * dimensions and strides, now and then A or B broadcast, alpha and beta. */
static batch_case random_case(void)
{
    batch_case b;
    gemm_case *g = &b.g;
    const int64_t ext[3] = {1 + (int64_t)(rng_next(&r) % 96), 1 + (int64_t)(rng_next(&r) % 96),
                            1 + (int64_t)(rng_next(&r) % 96)};
    g->m = rng_next(&r) % 5 == 0 ? 1 : ext[0];
    g->n = g->m > 1 && rng_next(&r) % 4 == 0 ? 1 : ext[1];
    g->k = ext[2];
    g->layout = rng_next(&r) & 1 ? GL_COL_MAJOR : GL_ROW_MAJOR;
    g->trans_a = rng_next(&r) & 1 ? GL_OP_T : GL_OP_N;
    g->trans_b = rng_next(&r) & 1 ? GL_OP_T : GL_OP_N;
    const int row = g->layout == GL_ROW_MAJOR;
    /* the stored matrices' row (row-major) or column (col-major) lengths */
    const int64_t a_len = row ? (g->trans_a ? g->m : g->k) : (g->trans_a ? g->k : g->m);
    const int64_t b_len = row ? (g->trans_b ? g->k : g->n) : (g->trans_b ? g->n : g->k);
    const int64_t c_len = row ? g->n : g->m;
    g->lda = a_len + (int64_t)(rng_next(&r) % 4);
    g->ldb = b_len + (int64_t)(rng_next(&r) % 4);
    g->ldc = c_len + (int64_t)(rng_next(&r) % 4);
    g->alpha = rng_next(&r) & 1 ? 1.0f : -1.5f;
    g->beta = rng_next(&r) & 1 ? 0.0f : 0.75f;
    b.count = 1 + (int64_t)(rng_next(&r) % 300);
    while (b.count > 1 && b.count * g->m * g->n * g->k > (int64_t)1 << 22)
        b.count /= 2; /* the FP64 reference's time */
    const int pick = (int)(rng_next(&r) % 6);
    b.stride_a = pick == 0 ? 0 : case_extent(g, 'A') + (int64_t)(rng_next(&r) % 6);
    b.stride_b = pick == 1 ? 0 : case_extent(g, 'B') + (int64_t)(rng_next(&r) % 6);
    b.stride_c = case_extent(g, 'C') + (int64_t)(rng_next(&r) % 6);
    return b;
}

static float *upload(const float *h, int64_t n)
{
    float *d = NULL;
    CHECK_CUDA(cudaMalloc((void **)&d, sizeof(float) * (size_t)n));
    CHECK_CUDA(cudaMemcpy(d, h, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice));
    return d;
}

static void run_batch(gl_handle_t h, int v, const batch_case *b)
{
    const gemm_case *g = &b->g;
    const int64_t na = batch_floats(b, 'A'), nb = batch_floats(b, 'B'), nc = batch_floats(b, 'C');
    float *hA = malloc(sizeof(float) * (size_t)na), *hB = malloc(sizeof(float) * (size_t)nb);
    float *hC = malloc(sizeof(float) * (size_t)nc), *got = malloc(sizeof(float) * (size_t)nc);
    for (int64_t i = 0; i < na; ++i)
        hA[i] = rng_uniform(&r);
    for (int64_t i = 0; i < nb; ++i)
        hB[i] = rng_uniform(&r);
    for (int64_t i = 0; i < nc; ++i) /* C's products; NaN wherever no product is */
        hC[i] = in_some_product(b, i) && g->beta != 0.0f ? rng_uniform(&r) : poison_value();
    float *A = upload(hA, na), *B = upload(hB, nb), *C = upload(hC, nc);

    const gl_status_t st = gl_sgemm_strided_batched(
        h, (gl_variant_t)v, g->layout, g->trans_a, g->trans_b, g->m, g->n, g->k, g->alpha, A,
        g->lda, b->stride_a, B, g->ldb, b->stride_b, g->beta, C, g->ldc, b->stride_c, b->count);
    CHECK(st == GL_STATUS_SUCCESS, "%s: %s", gl_variant_name(v), gl_last_error(h));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got, C, sizeof(float) * (size_t)nc, cudaMemcpyDeviceToHost));

    double *ref = malloc(sizeof(double) * (size_t)(g->m * g->n));
    const char *form = g->layout == GL_ROW_MAJOR ? "row" : "col";
    for (int64_t i = 0; i < b->count; ++i) {
        const float *a = hA + i * b->stride_a, *bb = hB + i * b->stride_b;
        reference_gemm(g, a, bb, hC + i * b->stride_c, ref);
        double norm = 0.0;
        for (int64_t e = 0; e < g->m * g->n; ++e)
            norm += ref[e] * ref[e];
        const double e = relative_error(g, got + i * b->stride_c, ref);
        const double tol = harness_tolerance(v, g->k) *
                           cancellation(g, a, bb, hC + i * b->stride_c, sqrt(norm));
        CHECK(e <= tol,
              "%s, product %lld of %lld: %lldx%lldx%lld %s %c%c strides %lld %lld %lld: "
              "relative error %.3g > %.3g",
              gl_variant_name(v), (long long)i, (long long)b->count, (long long)g->m,
              (long long)g->n, (long long)g->k, form, g->trans_a ? 'T' : 'N',
              g->trans_b ? 'T' : 'N', (long long)b->stride_a, (long long)b->stride_b,
              (long long)b->stride_c, e, tol);
    }
    int64_t touched = 0; /* floats of C that belong to no product */
    for (int64_t e = 0; e < nc; ++e)
        touched += !in_some_product(b, e) && !is_poison(got[e]);
    CHECK(touched == 0, "%s: %lld floats of C outside the products changed", gl_variant_name(v),
          (long long)touched);
    free(ref), free(hA), free(hB), free(hC), free(got);
    cudaFree(A), cudaFree(B), cudaFree(C);
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_batched");
    if (early >= 0)
        return early;
    const uint64_t seed = test_seed();
    printf("seed %llu (GL_TEST_SEED=%llu repeats this run)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    r.state = seed;

    const gl_layout_t R = GL_ROW_MAJOR, Cm = GL_COL_MAJOR;
    const gl_transpose_t N = GL_OP_N, T = GL_OP_T;
    const batch_case cases[] = {
        /* tight products back to back */
        {{R, N, N, 37, 29, 41, 1.0f, 0.0f, 41, 29, 29}, 37 * 41, 41 * 29, 37 * 29, 5},
        /* column-major, transposes, padding, alpha and beta, gaps between products */
        {{Cm, T, N, 33, 70, 19, -1.5f, 0.75f, 21, 23, 35}, 21 * 33 + 5, 23 * 70 + 3, 35 * 70 + 9,
         3},
        {{R, T, T, 64, 64, 64, 1.0f, 0.0f, 67, 66, 65}, 64 * 67, 64 * 66, 64 * 65, 4},
        /* one A against every B */
        {{R, N, N, 96, 40, 130, 1.0f, 0.0f, 130, 40, 40}, 0, 130 * 40, 96 * 40, 6},
        /* C_i side by side in one 50 x (4 * 24) matrix */
        {{R, N, T, 50, 24, 33, 1.0f, 0.5f, 33, 33, 96}, 50 * 33, 24 * 33, 24, 4},
        /* a batch of one, and a big product that auto runs on its own paths */
        {{R, N, N, 1000, 1000, 1000, 1.0f, 0.0f, 1000, 1000, 1000}, 0, 0, 1000 * 1000, 1},
        {{R, N, N, 1025, 771, 513, 1.0f, 0.0f, 513, 771, 771}, 1025 * 513, 513 * 771,
         1025 * 771, 2},
        /* auto's other batch plans: matrix-vector products one by one, products
         * that fill a round of the GPU one by one, 64 columns on a grid of
         * smaller tiles */
        {{R, N, N, 1, 3000, 700, 1.0f, 0.0f, 700, 3000, 3000}, 700, 700 * 3000, 3000, 9},
        {{Cm, N, T, 2100, 1, 900, 0.5f, 1.0f, 2100, 1, 2100}, 2100 * 900, 900, 2100, 7},
        {{R, N, N, 2176, 2048, 24, 1.0f, 0.0f, 24, 2048, 2048}, 2176 * 24, 24 * 2048,
         2176 * 2048, 2},
        {{R, N, N, 1500, 64, 500, 1.0f, 0.0f, 500, 64, 64}, 1500 * 500, 500 * 64, 1500 * 64, 5},
    };
    enum { RANDOM = 12 };
    batch_case random[RANDOM];
    for (int i = 0; i < RANDOM; ++i)
        random[i] = random_case();
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            /* the slow rungs on the small cases only */
            if (harness_variant(v).slow && cases[i].g.m * cases[i].g.n * cases[i].g.k > 1 << 22)
                continue;
            run_batch(h, v, &cases[i]);
        }
        for (int i = 0; i < RANDOM; ++i)
            run_batch(h, v, &random[i]);
    }
    gl_handle_destroy(h);
    return harness_finish("test_gpu_batched");
}
