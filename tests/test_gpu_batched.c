/*
 * test_gpu_batched.c - gl_sgemm_strided_batched and gl_sgemm_batched on
 * every variant against a float64 reference, product by product.
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
 * its variant's tolerance (harness.h).
 *
 * The pointer arrays: random shapes (half of them with every extent and
 * leading dimension a multiple of 4, where the kernels of 16-byte copies
 * run), layouts, transposes, alpha and beta, batches of 1 to 300 products
 * (past 256, what rungs 1-5 read back at once), entries in random order
 * from pools of fewer A and B matrices than products (repeated entries:
 * broadcast), a random half of the matrices one float past an aligned
 * start, and one product with a NULL entry whose C must come back as it
 * was (but on cuBLAS, which does not skip them); eight of the shapes have
 * C of one row or column, or a few (auto's matrix-vector kernel). Each C
 * lies in a slot of its own between NaNs that must stay. GL_TEST_ONLY=NAME
 * keeps to one variant. Exits 77 where there is no GPU.
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
static batch_case random_batch(void)
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

/* n fresh random floats, in [-1, 1). */
static float *random_floats(int64_t n)
{
    float *x = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; ++i)
        x[i] = rng_uniform(&r);
    return x;
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
    float *hA = random_floats(na), *hB = random_floats(nb);
    float *hC = malloc(sizeof(float) * (size_t)nc), *got = malloc(sizeof(float) * (size_t)nc);
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

/* ---- pointer arrays ----------------------------------------------------------- */

/* A number in [lo, hi]. */
static int64_t between(int64_t lo, int64_t hi) { return lo + (int64_t)(rng_next(&r) % (uint64_t)(hi - lo + 1)); }

/* A random case: sizes up to `most`, half of them with every extent and
 * leading dimension a multiple of 4 (16-byte copies where the entries are
 * aligned); few > 0: C of 1 .. few rows or columns (auto's matrix-vector
 * kernel, whose matrix then has up to 8 * most rows). */
static gemm_case random_case(int64_t most, int64_t few)
{
    const int by4 = (int)between(0, 1);
    gemm_case g;
    g.layout = between(0, 1) ? GL_ROW_MAJOR : GL_COL_MAJOR;
    g.trans_a = between(0, 1) ? GL_OP_T : GL_OP_N, g.trans_b = between(0, 1) ? GL_OP_T : GL_OP_N;
    g.m = by4 ? 4 * between(1, most / 4) : between(1, most);
    g.n = by4 ? 4 * between(1, most / 4) : between(1, most);
    g.k = by4 ? 4 * between(1, most / 4) : between(1, most);
    if (few > 0) {
        int64_t *const small = between(0, 1) ? &g.m : &g.n, *const big = small == &g.m ? &g.n : &g.m;
        *small = between(1, few);
        *big = by4 ? 4 * between(1, 2 * most) : between(1, 8 * most);
    }
    g.alpha = between(0, 3) ? 1.0f : -1.25f;
    g.beta = between(0, 1) ? 0.0f : 0.5f;
    const char ops[3] = {'A', 'B', 'C'};
    int64_t *const lds[3] = {&g.lda, &g.ldb, &g.ldc};
    for (int i = 0; i < 3; ++i) { /* the least ld, padded or not */
        int64_t rows, cols;
        case_stored_shape(&g, ops[i], &rows, &cols);
        const int64_t need = g.layout == GL_ROW_MAJOR ? cols : rows;
        *lds[i] = by4 ? need + 4 * between(0, 1) : need + between(0, 2);
    }
    return g;
}

/* Floats of each matrix's slot: its extent, a float in front for the
 * misaligned ones, rounded up to keep every slot 16-byte aligned. */
static int64_t slot_floats(const gemm_case *g, char which)
{
    return (case_extent(g, which) + 1 + 3) / 4 * 4;
}

static void run_pointer_batch(gl_handle_t h, int v, const gemm_case *g, int64_t count)
{
    const int64_t pool_a = between(1, count), pool_b = between(1, count);
    const int64_t sa = slot_floats(g, 'A'), sb = slot_floats(g, 'B'), sc = slot_floats(g, 'C');
    const int64_t na = pool_a * sa, nb = pool_b * sb, nc = count * sc;
    float *hA = random_floats(na), *hB = random_floats(nb);
    float *hC = malloc(sizeof(float) * (size_t)nc), *got = malloc(sizeof(float) * (size_t)nc);
    /* cuBLAS's batched calls choose their kernels without seeing the
     * entries, and take them to be 16-byte aligned (gemmladder.h): on cuBLAS
     * every entry at its slot's start, without NULLs. */
    gl_plan plan = {.size = sizeof plan};
    CHECK(gl_sgemm_plan(h, (gl_variant_t)v, g->layout, g->trans_a, g->trans_b, g->m, g->n, g->k,
                        NULL, g->lda, NULL, g->ldb, NULL, g->ldc, &plan) == GL_STATUS_SUCCESS,
          "%s: plan: %s", gl_variant_name(v), gl_last_error(h));
    const int on_cublas = plan.path == GL_PATH_CUBLAS;
    const int64_t misaligned = on_cublas ? 0 : 1;
    /* Each pool matrix at its slot's start or one float on (misaligned). */
    int64_t *off_a = malloc(sizeof(int64_t) * (size_t)pool_a);
    int64_t *off_b = malloc(sizeof(int64_t) * (size_t)pool_b);
    for (int64_t i = 0; i < pool_a; ++i)
        off_a[i] = i * sa + between(0, misaligned);
    for (int64_t i = 0; i < pool_b; ++i)
        off_b[i] = i * sb + between(0, misaligned);
    /* Product i: pool matrices in random order, C in slot perm[i] (another
     * order), at its start or a float on. */
    int64_t *ia = malloc(sizeof(int64_t) * (size_t)count), *ib = malloc(sizeof(int64_t) * (size_t)count);
    int64_t *oc = malloc(sizeof(int64_t) * (size_t)count);
    for (int64_t i = 0; i < count; ++i)
        ia[i] = between(0, pool_a - 1), ib[i] = between(0, pool_b - 1), oc[i] = i * sc;
    for (int64_t i = count - 1; i > 0; --i) { /* shuffle the C slots */
        const int64_t j = between(0, i), t = oc[i];
        oc[i] = oc[j], oc[j] = t;
    }
    for (int64_t i = 0; i < count; ++i)
        oc[i] += between(0, misaligned);
    for (int64_t i = 0; i < nc; ++i)
        hC[i] = poison_value();
    for (int64_t i = 0; i < count; ++i)
        for (int64_t e = 0; e < case_extent(g, 'C'); ++e)
            if (case_is_element(g, 'C', e) && g->beta != 0.0f)
                hC[oc[i] + e] = rng_uniform(&r);
    float *A = upload(hA, na), *B = upload(hB, nb), *C = upload(hC, nc);

    /* The arrays; one product (not on cuBLAS) with a NULL entry in A, B or C. */
    const int64_t skipped = on_cublas ? -1 : between(0, count - 1);
    const int null_in = (int)between(0, 2);
    const float **ea = malloc(sizeof(float *) * (size_t)count);
    const float **eb = malloc(sizeof(float *) * (size_t)count);
    float **ec = malloc(sizeof(float *) * (size_t)count);
    for (int64_t i = 0; i < count; ++i) {
        ea[i] = i == skipped && null_in == 0 ? NULL : A + off_a[ia[i]];
        eb[i] = i == skipped && null_in == 1 ? NULL : B + off_b[ib[i]];
        ec[i] = i == skipped && null_in == 2 ? NULL : C + oc[i];
    }
    void *dA = NULL, *dB = NULL, *dC = NULL;
    const size_t bytes = sizeof(float *) * (size_t)count;
    CHECK_CUDA(cudaMalloc(&dA, bytes));
    CHECK_CUDA(cudaMalloc(&dB, bytes));
    CHECK_CUDA(cudaMalloc(&dC, bytes));
    CHECK_CUDA(cudaMemcpy(dA, ea, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, eb, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dC, ec, bytes, cudaMemcpyHostToDevice));

    const gl_status_t st = gl_sgemm_batched(h, (gl_variant_t)v, g->layout, g->trans_a, g->trans_b,
                                            g->m, g->n, g->k, g->alpha, dA, g->lda, dB, g->ldb,
                                            g->beta, dC, g->ldc, count);
    CHECK(st == GL_STATUS_SUCCESS, "%s: %s", gl_variant_name(v), gl_last_error(h));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got, C, sizeof(float) * (size_t)nc, cudaMemcpyDeviceToHost));

    double *ref = malloc(sizeof(double) * (size_t)(g->m * g->n));
    const char *form = g->layout == GL_ROW_MAJOR ? "row" : "col";
    int64_t failures = 0;
    for (int64_t i = 0; i < count && failures < 3; ++i) {
        const float *a = hA + off_a[ia[i]], *bb = hB + off_b[ib[i]], *c0 = hC + oc[i];
        if (i == skipped) { /* its C as it was, bit for bit */
            const int same = memcmp(got + oc[i], c0, sizeof(float) * (size_t)case_extent(g, 'C')) == 0;
            CHECK(same, "%s: product %lld of %lld has a NULL %c entry, but its C changed",
                  gl_variant_name(v), (long long)i, (long long)count, "ABC"[null_in]);
            failures += !same;
            continue;
        }
        reference_gemm(g, a, bb, c0, ref);
        double norm = 0.0;
        for (int64_t e = 0; e < g->m * g->n; ++e)
            norm += ref[e] * ref[e];
        const double e = relative_error(g, got + oc[i], ref);
        const double tol = harness_tolerance(v, g->k) * cancellation(g, a, bb, c0, sqrt(norm));
        CHECK(e <= tol,
              "%s, pointer arrays, product %lld of %lld: %lldx%lldx%lld %s %c%c ld %lld %lld %lld "
              "A%s B%s C%s: relative error %.3g > %.3g",
              gl_variant_name(v), (long long)i, (long long)count, (long long)g->m,
              (long long)g->n, (long long)g->k, form, g->trans_a ? 'T' : 'N',
              g->trans_b ? 'T' : 'N', (long long)g->lda, (long long)g->ldb, (long long)g->ldc,
              off_a[ia[i]] % 4 ? "+1" : "", off_b[ib[i]] % 4 ? "+1" : "", oc[i] % 4 ? "+1" : "", e,
              tol);
        failures += !(e <= tol);
    }
    int64_t *owner = malloc(sizeof(int64_t) * (size_t)count); /* the product of each C slot */
    for (int64_t j = 0; j < count; ++j)
        owner[oc[j] / sc] = j;
    int64_t touched = 0; /* floats of C that belong to no product */
    for (int64_t i = 0; i < nc; ++i) {
        const int64_t e = i - oc[owner[i / sc]];
        const int inside = e >= 0 && e < case_extent(g, 'C') && case_is_element(g, 'C', e);
        touched += !inside && !is_poison(got[i]);
    }
    CHECK(touched == 0, "%s: %lld floats of C outside the products changed", gl_variant_name(v),
          (long long)touched);
    free(owner);
    free(ref), free(hA), free(hB), free(hC), free(got), free(off_a), free(off_b);
    free(ia), free(ib), free(oc), free(ea), free(eb), free(ec);
    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

/* The engine (auto): the variant whose row says it plans each call. */
static gl_variant_t engine_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v)
        if (harness_variant(v).engine)
            return (gl_variant_t)v;
    return (gl_variant_t)-1;
}

/* Pointer arrays are run in two kernels, the second launched behind the
 * first; with every entry aligned the second has nothing to do. A call
 * queued right after (auto, which launches behind the kernel before it)
 * that reads a product's C must see it whole: C_0 of a batch of long
 * products (poisoned first) is the next call's A, with no synchronisation
 * between; that call's result against float64 from C_0 as it came out. */
static void test_pointer_order(gl_handle_t h)
{
    const gl_variant_t engine = engine_variant();
    enum { PM = 512, PK = 4096, COUNT = 4 };
    const gemm_case first = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, PM, PM, PK, 1.0f, 0.0f, PK, PM, PM};
    const gemm_case second = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, PM, PM, PM, 1.0f, 0.0f, PM, PM, PM};
    float *hA = random_floats((int64_t)COUNT * PM * PK), *hB = random_floats((int64_t)PK * PM);
    float *hE = random_floats((int64_t)PM * PM);
    float *A = upload(hA, (int64_t)COUNT * PM * PK), *B = upload(hB, (int64_t)PK * PM);
    float *E = upload(hE, (int64_t)PM * PM), *C = NULL, *D = NULL;
    CHECK_CUDA(cudaMalloc((void **)&C, sizeof(float) * COUNT * PM * PM));
    CHECK_CUDA(cudaMalloc((void **)&D, sizeof(float) * PM * PM));
    CHECK_CUDA(cudaMemset(C, 0xff, sizeof(float) * COUNT * PM * PM)); /* NaN */
    const float *ea[COUNT], *eb[COUNT];
    float *ec[COUNT];
    for (int i = 0; i < COUNT; ++i)
        ea[i] = A + (int64_t)i * PM * PK, eb[i] = B, ec[i] = C + (int64_t)i * PM * PM;
    void *dA = NULL, *dB = NULL, *dC = NULL;
    CHECK_CUDA(cudaMalloc(&dA, sizeof ea));
    CHECK_CUDA(cudaMalloc(&dB, sizeof eb));
    CHECK_CUDA(cudaMalloc(&dC, sizeof ec));
    CHECK_CUDA(cudaMemcpy(dA, ea, sizeof ea, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, eb, sizeof eb, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dC, ec, sizeof ec, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(gl_sgemm_batched(h, engine, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, PM, PM, PK, 1.0f,
                           dA, PK, dB, PM, 0.0f, dC, PM, COUNT) == GL_STATUS_SUCCESS,
          "pointer arrays before a dependent call: %s", gl_last_error(h));
    CHECK(gl_sgemm(h, engine, PM, PM, PM, C, E, D) == GL_STATUS_SUCCESS,
          "the call behind them: %s", gl_last_error(h));
    CHECK_CUDA(cudaDeviceSynchronize());
    float *c0 = malloc(sizeof(float) * PM * PM), *got = malloc(sizeof(float) * PM * PM);
    double *ref = malloc(sizeof(double) * PM * PM);
    CHECK_CUDA(cudaMemcpy(c0, C, sizeof(float) * PM * PM, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(got, D, sizeof(float) * PM * PM, cudaMemcpyDeviceToHost));
    reference_gemm(&first, hA, hB, NULL, ref);
    const double e0 = relative_error(&first, c0, ref);
    CHECK(e0 <= harness_tolerance(engine, PK), "C_0 of the pointer batch: error %.3g",
          e0);
    reference_gemm(&second, c0, hE, NULL, ref);
    const double e = relative_error(&second, got, ref);
    CHECK(e <= harness_tolerance(engine, PM),
          "auto right behind a pointer batch, reading its C_0: error %.3g (NaN: it ran before "
          "C_0 was written)",
          e);
    free(hA), free(hB), free(hE), free(c0), free(got), free(ref);
    cudaFree(A), cudaFree(B), cudaFree(E), cudaFree(C), cudaFree(D);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

/* Auto's split of K across a batch is planned for the split cases here
 * (on a GPU of 64 SMs or more, whose places those grids fill at most half
 * of), so that their runs above test the split. */
static void test_split_planned(gl_handle_t h, const batch_case *cases, size_t count)
{
    int sms = 0, device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (sms < 64)
        return;
    for (size_t i = 0; i < count; ++i) {
        const gemm_case *g = &cases[i].g;
        gl_plan p = {.size = sizeof p};
        CHECK(gl_sgemm_strided_batched_plan(h, engine_variant(), g->layout, g->trans_a,
                                            g->trans_b, g->m, g->n, g->k, NULL, g->lda,
                                            cases[i].stride_a,
                                            NULL, g->ldb, cases[i].stride_b, NULL, g->ldc,
                                            cases[i].stride_c, cases[i].count,
                                            &p) == GL_STATUS_SUCCESS &&
                  p.path == GL_PATH_BATCH && p.splits > 1,
              "%lldx%lldx%lld x%lld: K not split across the batch: path %d, %d parts (%s)",
              (long long)g->m, (long long)g->n, (long long)g->k, (long long)cases[i].count, p.path,
              p.splits, p.why);
    }
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
    /* GL_TEST_ONLY=NAME: one variant (for a sanitizer's run over auto's or
     * a rung's batch kernels). */
    const char *only_name = getenv("GL_TEST_ONLY");
    gl_variant_t only = (gl_variant_t)-1;
    if (only_name && *only_name && gl_variant_from_name(only_name, &only) != GL_STATUS_SUCCESS) {
        CHECK(0, "GL_TEST_ONLY=%s: not a variant", only_name);
        gl_handle_destroy(h);
        return harness_finish("test_gpu_batched");
    }

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
        /* matrix-vector products of a few vectors, 16-byte loads and not */
        {{R, N, N, 5, 3000, 700, 1.0f, 0.5f, 700, 3000, 3000}, 5 * 700, 700 * 3000, 5 * 3000, 6},
        {{R, N, T, 1, 1001, 333, -1.0f, 0.0f, 333, 333, 1001}, 335, 1001 * 333 + 1, 1003, 11},
    };
    /* grids short of half a round with a long K: K in parts across the batch
     * (tested copies; a float per load, 8 parts, the last short) */
    const batch_case split_cases[] = {
        {{R, N, N, 300, 200, 1000, 1.0f, 0.5f, 1000, 200, 200}, 300 * 1000, 1000 * 200, 300 * 200,
         3},
        {{Cm, T, N, 129, 67, 2049, -1.0f, 0.0f, 2050, 2052, 131}, 2050 * 129 + 1, 2052 * 67 + 3,
         131 * 67 + 1, 2},
    };
    const size_t nsplit = sizeof split_cases / sizeof split_cases[0];
    test_split_planned(h, split_cases, nsplit);
    /* more than 65535 matrix-vector products: two launches */
    const batch_case many_gemv = {{R, N, N, 1, 8, 8, 1.0f, 0.0f, 8, 8, 8}, 8, 64, 8, 70000};
    enum { RANDOM = 12 };
    batch_case random[RANDOM];
    for (int i = 0; i < RANDOM; ++i)
        random[i] = random_batch();
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS ||
            (only_name && *only_name && v != (int)only))
            continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            /* the slow rungs on the small cases only */
            if (harness_variant(v).slow && cases[i].g.m * cases[i].g.n * cases[i].g.k > 1 << 22)
                continue;
            run_batch(h, v, &cases[i]);
        }
        for (size_t i = 0; i < nsplit; ++i)
            run_batch(h, v, &split_cases[i]);
        if (v == (int)engine_variant())
            run_batch(h, v, &many_gemv);
        for (int i = 0; i < RANDOM; ++i)
            run_batch(h, v, &random[i]);
    }
    /* Pointer arrays: random cases, the same for every variant (a seed of
     * their own), and a long batch of small products. */
    const uint64_t pointer_seed = rng_next(&r);
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS ||
            (only_name && *only_name && v != (int)only))
            continue;
        r.state = pointer_seed;
        for (int i = 0; i < 12; ++i) {
            const gemm_case g = random_case(harness_variant(v).slow ? 64 : 160, 0);
            run_pointer_batch(h, v, &g, between(1, 40));
        }
        for (int i = 0; i < 8; ++i) { /* a row or column of C, or a few */
            const gemm_case g = random_case(harness_variant(v).slow ? 64 : 200, i < 4 ? 1 : 8);
            run_pointer_batch(h, v, &g, between(1, 40));
        }
        const gemm_case g = random_case(24, 0);
        run_pointer_batch(h, v, &g, between(257, 300));
    }
    if (!only_name || !*only_name || only == engine_variant())
        test_pointer_order(h);
    gl_handle_destroy(h);
    return harness_finish("test_gpu_batched");
}
