/*
 * test_gpu_batched.c - gl_sgemm_strided_batched on every variant against a
 * float64 reference, product by product.
 *
 * Each case is a batch of one shape: row- and column-major, both
 * transposes, alpha and beta, padded leading dimensions, A broadcast to
 * every product (strideA 0), products' C side by side in one matrix (C_i
 * columns [i * N, (i + 1) * N) of one wide C), gaps between products, and
 * a batch of one. Inputs are fresh random values (the seed is printed;
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

/* Whether float e of C's batch belongs to a product. */
static int in_some_product(const batch_case *b, int64_t e)
{
    for (int64_t i = 0; i < b->count; ++i) {
        const int64_t x = e - i * b->stride_c;
        if (x >= 0 && x < case_extent(&b->g, 'C') && case_is_element(&b->g, 'C', x))
            return 1;
    }
    return 0;
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
    };
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            /* the slow rungs on the small cases only */
            if (harness_variant(v).slow && cases[i].g.m * cases[i].g.n * cases[i].g.k > 1 << 22)
                continue;
            run_batch(h, v, &cases[i]);
        }
    }
    gl_handle_destroy(h);
    return harness_finish("test_gpu_batched");
}
