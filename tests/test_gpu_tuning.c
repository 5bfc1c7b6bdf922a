/*
 * test_gpu_tuning.c - tuning on a GPU: rungs 7 and 8 run what the tables
 * name (seen through gl_tuning_query), a table loaded at run time changes
 * it, and every compiled configuration of every tiled rung, pinned in turn,
 * computes the right product on shapes that are not tile multiples.
 * Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>
#include <unistd.h>

#include "harness.h"
#include "reference.h"

static rng r;

static float *upload(const float *h, size_t n)
{
    float *d;
    CHECK_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/* Runs the variant (with whatever tiles it resolves to) on one case and
 * compares with the float64 reference. */
static void check_case(gl_handle_t h, gl_variant_t v, const gemm_case *c, const char *what)
{
    const int64_t na = case_extent(c, 'A'), nb = case_extent(c, 'B'), nc = case_extent(c, 'C');
    float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
    float *C0 = malloc(sizeof(float) * nc), *C = malloc(sizeof(float) * nc);
    for (int64_t i = 0; i < na; ++i)
        A[i] = rng_uniform(&r);
    for (int64_t i = 0; i < nb; ++i)
        B[i] = rng_uniform(&r);
    for (int64_t i = 0; i < nc; ++i)
        C0[i] = c->beta != 0.0f ? rng_uniform(&r) : poison_value();
    double *ref = malloc(sizeof(double) * c->m * c->n);
    reference_gemm(c, A, B, C0, ref);
    float *dA = upload(A, na), *dB = upload(B, nb), *dC = upload(C0, nc);
    const gl_status_t st = gl_sgemm_ex(h, v, c->layout, c->trans_a, c->trans_b, c->m, c->n, c->k,
                                       c->alpha, dA, c->lda, dB, c->ldb, c->beta, dC, c->ldc);
    CHECK(st == GL_STATUS_SUCCESS, "%s: %s", what, gl_last_error(h));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(C, dC, sizeof(float) * nc, cudaMemcpyDeviceToHost));
    const double e = relative_error(c, C, ref);
    CHECK(e <= harness_tolerance((int)v, c->k), "%s: relative error %.3g", what, e);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    free(A), free(B), free(C0), free(C), free(ref);
}

static gl_tiles query(gl_handle_t h, gl_variant_t v, int64_t m, int64_t n)
{
    gl_tiles t = {.size = sizeof(gl_tiles)};
    const gl_status_t st = gl_tuning_query(h, v, m, n, 64, &t);
    CHECK(st == GL_STATUS_SUCCESS, "gl_tuning_query: %s", gl_last_error(h));
    return t;
}

static void test_tables_choose(gl_handle_t h, int cc)
{
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d", cc);
    for (int v = 0; v < gl_variant_count(); ++v) { /* the variants with rows of their own */
        if (!harness_variant(v).takes_rows)
            continue;
        const gl_variant_t tuned = (gl_variant_t)v;
        const gl_tiles big = query(h, tuned, 4096, 4096), small = query(h, tuned, 1024, 1024);
        CHECK(big.origin == GL_TILES_BUILTIN && small.origin == GL_TILES_BUILTIN,
              "%s: built-in rows apply", gl_variant_name(tuned));
        CHECK(!strcmp(big.size_class, "large") && !strcmp(small.size_class, "small"),
              "size classes");
        printf("%s on %s: large -> %s line %d (%dx%dx%d), small -> %dx%dx%d\n",
               gl_variant_name(tuned), arch, big.source, big.line, big.bm, big.bn, big.bk,
               small.bm, small.bn, small.bk);
    }
    const gl_tiles fixed = query(h, GL_VARIANT_VECTORIZED, 4096, 4096);
    CHECK(fixed.origin == GL_TILES_FIXED, "rung 6 runs fixed tiles");

    /* A table loaded at run time changes what runs: pick a configuration the
     * built-in table does not use for large problems, load a row naming it,
     * and run through it. */
    const gl_tiles before = query(h, GL_VARIANT_WARPTILE, 4096, 4096);
    gl_tiles other = {.size = sizeof(gl_tiles)};
    for (int i = 0; i < gl_variant_config_count(GL_VARIANT_WARPTILE); ++i) {
        CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, i, &other), GL_STATUS_SUCCESS,
                     NULL);
        if (other.bm != before.bm || other.bn != before.bn || other.wm != before.wm ||
            other.tm != before.tm)
            break;
    }
    char path[] = "/tmp/gl_gpu_tuning_XXXXXX";
    const int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "gemmladder-tuning 1\n%s warptile large bm=%d bn=%d bk=%d wm=%d wn=%d wniter=%d "
               "tm=%d tn=%d threads=%d\n",
            arch, other.bm, other.bn, other.bk, other.wm, other.wn, other.wniter, other.tm,
            other.tn, other.threads);
    fclose(f);
    CHECK_STATUS(NULL, gl_tuning_load(path), GL_STATUS_SUCCESS, NULL);
    const gl_tiles after = query(h, GL_VARIANT_WARPTILE, 4096, 4096);
    CHECK(after.origin == GL_TILES_OVERRIDE && after.bm == other.bm && after.bn == other.bn &&
              after.wm == other.wm && after.line == 2,
          "override row now chosen (origin %d, %dx%d)", after.origin, after.bm, after.bn);
    const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 3100, 3101, 97, 1.5f, -0.5f, 97, 97, 3103};
    check_case(h, GL_VARIANT_WARPTILE, &c, "warptile through the loaded table");
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    CHECK(query(h, GL_VARIANT_WARPTILE, 4096, 4096).origin == GL_TILES_BUILTIN, "back to built-in");
    unlink(path);
}

/* Every compiled configuration is correct: pinned one at a time (rungs 7
 * and 8, and auto), on odd shapes, transposes, alpha/beta, through every
 * path: the first five cases have operands aligned for 16-byte loads (two
 * are multiples of every compiled tile, which auto copies without tests;
 * three have edge tiles in every dimension, and extents that are multiples
 * of 4, which auto computes with edge windows wherever they are at least a
 * tile), the rest have leading dimensions that rule out 16-byte loads (the
 * first two of them with blocks wholly inside C on every tile, which rung
 * 8's kernel copies untested where it can, slices of K inside: A and B as
 * stored, then both transposed). */
static int test_every_configuration(gl_handle_t h)
{
    int ran = 0;
    const gemm_case cases[] = {
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 256, 256, 64, 1.0f, 0.0f, 64, 256, 256},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_T, 512, 256, 96, -0.5f, 2.0f, 512, 96, 260},
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 260, 132, 36, 1.0f, 0.0f, 36, 132, 132},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 196, 68, 20, 1.5f, -1.0f, 196, 68, 72},
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 264, 140, 44, 0.5f, 1.0f, 44, 48, 140},
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 257, 263, 129, 1.0f, 0.0f, 129, 263, 263},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_T, 260, 270, 70, -0.75f, 0.25f, 261, 71, 271},
        {GL_COL_MAJOR, GL_OP_T, GL_OP_N, 130, 67, 300, -1.0f, 0.5f, 301, 303, 131},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_T, 1, 1000, 17, 2.0f, 0.0f, 1, 17, 1000},
    };
    for (int v = 0; v < gl_variant_count(); ++v) { /* the variants whose tiles rows choose */
        if (harness_variant(v).rows_of < 0)
            continue;
        const gl_variant_t tuned = (gl_variant_t)v;
        const int count = gl_variant_config_count(tuned);
        for (int k = 0; k < count; ++k) {
            gl_tiles t = {.size = sizeof(gl_tiles)};
            CHECK_STATUS(NULL, gl_variant_config(tuned, k, &t), GL_STATUS_SUCCESS, NULL);
            if (gl_set_tiles(h, tuned, &t) != GL_STATUS_SUCCESS) {
                printf("%s config %d does not fit this device: %s\n", gl_variant_name(tuned),
                       k, gl_last_error(h));
                continue;
            }
            CHECK(query(h, tuned, 257, 263).origin == GL_TILES_PINNED, "pinned");
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
                char what[128];
                snprintf(what, sizeof what, "%s config %d (%dx%dx%d) case %zu",
                         gl_variant_name(tuned), k, t.bm, t.bn, t.bk, c);
                check_case(h, tuned, &cases[c], what);
                ++ran;
            }
        }
        CHECK_STATUS(h, gl_set_tiles(h, tuned, NULL), GL_STATUS_SUCCESS, NULL);
    }
    return ran;
}

/* Where the table's tiles would leave most SMs idle in the grid's last round,
 * auto runs its fill tiles (docs/engine.md), and the product is as right as
 * any other; the rungs run their rows. On 132 SMs (H100, H200) the 128 x
 * 128 rows of sm_90.txt give way at 2049 x 2049 (289 blocks, 264 at once)
 * but not at 2048 x 2048 (256). */
static void test_fill(gl_handle_t h, int cc)
{
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gl_handle_device(h)));
    for (int v = 0; v < gl_variant_count(); ++v) { /* the variants whose tiles rows choose */
        const gl_variant_info info = harness_variant(v);
        if (info.rows_of < 0)
            continue;
        const gl_variant_t tuned = (gl_variant_t)v;
        const gl_tiles fit = query(h, tuned, 2048, 2048), odd = query(h, tuned, 2049, 2049);
        printf("%s on %d SMs: 2048^2 -> %dx%d (origin %d), 2049^2 -> %dx%d (origin %d)\n",
               gl_variant_name(tuned), sms, fit.bm, fit.bn, fit.origin, odd.bm, odd.bn,
               odd.origin);
        if (cc == 90 && sms == 132 && info.engine)
            CHECK(fit.origin == GL_TILES_BUILTIN && fit.bm == 128 && odd.origin == GL_TILES_FILL &&
                      odd.bm == 64 && odd.line == fit.line,
                  "auto: the medium row at 2048^2, the fill tiles in its place at 2049^2");
        if (!info.engine)
            CHECK(odd.origin != GL_TILES_FILL, "%s runs its row", gl_variant_name(tuned));
        const gemm_case c = {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 2049, 2049, 97, 1.0f, 0.5f, 97, 2049, 2049};
        check_case(h, tuned, &c, "2049 x 2049 x 97 on the tiles the query named");
    }
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_tuning");
    if (early >= 0)
        return early;
    const uint64_t seed = test_seed();
    printf("seed %llu\n", (unsigned long long)seed);
    r.state = seed;
    int major = 0, minor = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gl_handle_device(h)));
    CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, gl_handle_device(h)));
    test_tables_choose(h, major * 10 + minor);
    test_fill(h, major * 10 + minor);
    printf("%d pinned-configuration runs checked\n", test_every_configuration(h));
    gl_handle_destroy(h);
    return harness_finish("test_gpu_tuning");
}
