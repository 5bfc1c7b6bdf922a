/*
 * test_gpu_rungs.c - every available rung against a float64 reference.
 *
 * Shapes that are and are not tile multiples, primes, 1 x 1 x 1, tall and
 * wide, K = 1 and deep K; both layouts, all four transpose pairs, alpha/beta,
 * and leading dimensions larger than needed. Inputs are fresh random values
 * in [-1, 1) (the seed is printed; GL_TEST_SEED repeats a run). Padding of A
 * and B holds NaN, so reading it poisons the result; C is poisoned with NaN
 * before every call (beta == 0) and its padding must come back untouched.
 * Pass: ||C - ref||_F / ||ref||_F within the variant's precision class's
 * tolerance (harness.h: 1e-5 for FP32, a bound growing with K for TF32)
 * and every element finite; a TF32 variant also within twice the error of
 * its class's reference (cuBLAS TF32) on the same inputs. The references
 * run first in each case; the largest errors are printed at the end.
 *
 * GL_TEST_QUICK=1 (the memcheck setup) keeps to the small shapes and a sample
 * of the layout/transpose/alpha-beta/alignment combinations; GL_TEST_QUICK=2
 * (the slower initcheck and synccheck setups) samples less still;
 * GL_TEST_QUICK=3 (racecheck, whose cost grows with every shared-memory
 * access a kernel makes) keeps to the fixed shapes of 300 or less on every
 * side, with level 1's combinations and no random shapes: each rung's edges,
 * K in several slices, both alignments, each transpose, the general form.
 * GL_TEST_PACK=1 (memcheck, initcheck) adds, in quick mode, the big shapes
 * where auto copies its operands into scratch, on auto only.
 * Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>
#include <math.h>

#include "harness.h"
#include "reference.h"

/* The largest error seen per variant, and for TF32 variants the largest
 * ratio to their class's reference on the same case, for the summary. */
static struct {
    double error, ratio, ratio_error, ratio_reference;
    char error_case[200], ratio_case[200];
} worst[64];

/* big: 0 small; 1 big (a sample of combinations, none in quick mode); 2 big,
 * and auto copies its operands (engine/plan.c), which quick mode with
 * GL_TEST_PACK=1 runs on auto only. */
typedef struct shape { int64_t m, n, k; int big; } shape;

static const shape shapes[] = {
    {1, 1, 1, 0},       {2, 3, 4, 0},        {32, 32, 32, 0},      {64, 96, 128, 0},
    {127, 131, 137, 0}, {33, 65, 17, 0},     {257, 263, 1, 0},     {1, 517, 300, 0},
    {300, 1, 517, 0},   {4099, 7, 33, 0},    {5, 3001, 29, 0},     {33, 37, 4097, 0},
    {129, 257, 65, 0},  {255, 129, 31, 0},   {1000, 1000, 1000, 1}, {1024, 1024, 1024, 1},
    {127, 2048, 1024, 1}, {2048, 127, 1024, 1}, {1025, 1023, 1027, 1},
    /* K a multiple of every BK with edges in M and N: groups of 4 that
     * straddle the edge; n = 6 and n = 2 put a straddling group of B (and,
     * transposed, of A) next to the end of the allocation. */
    {61, 67, 64, 0},    {67, 6, 96, 0},      {70, 2, 64, 0},
    /* Aligned, every extent a multiple of 4 and at least a tile, but not
     * whole tiles: auto moves its edge windows back inside C and reads the
     * ragged part of K first (GL_PATH_EDGE_WINDOWS); with k = 4 that is all
     * of K. A big one too, whose rows start on 32 bytes: read in place
     * rather than copied. (At 2000 x 1000 x 1000 auto runs rung 6's kernel
     * on its 64 x 64 tiles.) */
    {132, 68, 36, 0},   {260, 200, 4, 0},    {68, 1000, 92, 0},    {2000, 2000, 100, 1},
    {2000, 1000, 1000, 1},
    /* Big enough that auto copies operands into padded, aligned scratch
     * (GL_PATH_PACKED): both (edges in M and N; in M, N and K), or only the
     * thin B. */
    {1537, 1539, 800, 2}, {2050, 2052, 1001, 2}, {3000, 127, 1536, 2},
    /* Copied, and on an H100 its grid's last round (the last 905 rows)
     * runs after, split along K on copies of its own. */
    {3977, 1283, 1029, 2},
    /* On an H100, grids of 128 x 128 tiles that make one uneven round, run
     * on 128 x 64 or 64 x 128 (gl_engine_plan_call): copied (2107 x 1411 x
     * 727), on edge windows or in place, as the form has it. */
    {2107, 1411, 727, 2}, {3224, 796, 240, 1}, {1043, 2934, 716, 1},
    /* Aligned, its grid of 64 x 64 tiles two blocks an SM: split, where
     * rung 6's kernel ran before. */
    {1824, 600, 1248, 1},
    /* Where such copies and rung 8's 128 x 128 tiles cost more, in split-K's
     * model, than rung 6's kernel in place on 64 x 64 tiles: rung 6 runs;
     * and B read a float at a time on the fill tiles (an H100's), where
     * rung 6's kernel runs at any K. */
    {1356, 1985, 669, 1}, {417, 4881, 1069, 1},
    /* C of one row or one column: auto's matrix-vector path, the matrix's
     * rows along K (a warp a row) or across it (blocks of 128, K in slices
     * where those are too few: 1 x 129 x 640 makes 10 slices), rows that end
     * inside a float4, and long rows. (A C of a few long sums may cancel:
     * its tolerance grows by reference.h's cancellation.) */
    {1, 2048, 3000, 1}, {2048, 1, 3000, 1}, {1, 129, 640, 0}, {131, 1, 650, 0},
    {3, 1, 3000, 0},    {1, 4096, 4096, 1},  {4096, 1, 4096, 1},
    /* A few rows (or, column-major, columns) of C: the same path with up
     * to 8 vectors where the matrix's rows run across K (each count is
     * rounded up to a power of two, the rest skipped), and tiles where
     * they run along it. */
    {2, 300, 700, 0},   {5, 1000, 129, 0},   {8, 131, 2000, 0},    {9, 260, 1000, 0},
    {7, 4096, 4096, 1},
    /* Few tiles and a long K: auto cuts K into parts summed in scratch
     * (GL_PATH_SPLIT_K); at K = 1000, four parts, the last 232 deep. At
     * 128 x 128 x 4096 (aligned) the parts read whole tiles without tests,
     * and at 2048 x 127 x 4096 and 127 x 2048 x 4096 too, once the thin
     * operand is copied and padded to 128. */
    {100, 96, 4096, 1}, {40, 40, 16384, 0}, {200, 200, 1000, 0}, {128, 128, 4096, 0},
    {2048, 127, 4096, 2}, {127, 2048, 4096, 2},
    /* On the thin tiles: 128 x 32 for C of few columns, 32 x 128 for a few
     * rows; aligned, and with an operand read a float at a time (K odd),
     * split in place. */
    {1000, 72, 2000, 0}, {1000, 70, 2001, 0}, {32, 1024, 4096, 0}, {20, 1000, 3001, 0},
    /* An operand read a float at a time, split in place (its parts on rung
     * 8's kernel for any alignment) on other tiles. */
    {731, 54, 1245, 0}, {187, 529, 5171, 0}, {300, 300, 5001, 0},
    /* Both transposed, on an H100: copied for a split on thin tiles that
     * is then not taken, so run packed on 64 x 64 tiles, which the copies
     * must fill (engine/plan.c pads them to both). */
    {1077, 197, 269, 0},
    /* A short K on eight 64 x 64 tiles or more for each of an H100's SMs
     * (33 x 32): auto runs rung 6's kernel, whatever its table's tiles; K
     * ends inside a slice. */
    {2112, 2048, 60, 1},
    /* C's rows off 16 bytes (N odd, where the form leaves ldc = N) and K of
     * 384 or less, on 33 x 33 tiles of 64 x 64: auto runs rung 6's kernel
     * whatever the operands' alignment. */
    {2049, 2049, 300, 1},
    /* B's rows read a float at a time, in place: rung 6's kernel too, for a
     * K of 384 or less on a 64 x 64 tile an SM (26 x 22 tiles), and of up
     * to 1024 on four (68 x 11). Operands read a float at a time on few
     * tiles with a long K are copied and split: {33, 37, 4097} and {1025,
     * 1023, 1027} above. */
    {1601, 1407, 300, 1}, {4289, 703, 705, 1},
    /* C's rows off 16 bytes, K of 96 or less and 264 blocks of 64 x 64
     * (two an SM on an H100): rung 6's kernel for operands read a float at
     * a time stores C in bands of rows through shared memory; at K = 97, a
     * float at a time. Partial tiles in M and N, K ending inside a slice;
     * the big one on auto's rung 6 too. */
    {700, 1501, 96, 0}, {700, 1501, 97, 0}, {700, 1501, 3, 0}, {968, 3773, 16, 1},
    /* The same on more than ten blocks an SM of a 132-SM GPU (H100, H200;
     * 22 x 65 and 40 x 36 tiles):
     * C in rows of aligned float4s, each lane's 4 results cut again along
     * the row's alignment by shuffles with its neighbours. */
    {1345, 4099, 9, 0}, {2500, 2301, 50, 1},
    /* Grids of 128 x 128 tiles under two rounds of an H100's 264 places,
     * K of 1024 or more: auto's stream-K (100 tiles in 264 shares, whole;
     * 104 with edges; A's rows of 1445 floats copied (row NN); a whole
     * round, then 2 tiles of 71 slices in 264 shares, some empty), its
     * tiles' parts added in scratch. */
    {1280, 1280, 1104, 1}, {1552, 1004, 1192, 1}, {856, 2392, 1445, 2}, {1780, 2400, 1124, 1},
};

/* Extra random shapes per run, drawn from the seed. */
#define RANDOM_SHAPES 40
typedef struct buffers {
    float *hA, *hB, *hC0, *hC;
    float *dA, *dB, *dC;
    double *ref;
    double cancellation; /* how far C's sums may cancel (reference.h) */
} buffers;

/* A device allocation of exactly offset + n floats (so reading past the
 * matrix is a memcheck error), the matrix copied in at `offset`. */
static float *device_copy(const float *h, int64_t n, int offset)
{
    float *d = NULL;
    CHECK_CUDA(cudaMalloc((void **)&d, sizeof(float) * (size_t)(n + offset > 0 ? n + offset : 1)));
    if (n > 0)
        CHECK_CUDA(cudaMemcpy(d + offset, h, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice));
    return d;
}

/* Random values in the matrix, NaN in the padding. */
static float *host_operand(const gemm_case *c, char which, rng *r, int random_elements)
{
    const int64_t n = case_extent(c, which);
    float *h = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t e = 0; e < n; ++e)
        h[e] = case_is_element(c, which, e) && random_elements ? rng_uniform(r) : poison_value();
    return h;
}

static void describe(const gemm_case *c, char *out, size_t size)
{
    snprintf(out, size, "%lldx%lldx%lld %s %c%c alpha=%g beta=%g lda=%lld ldb=%lld ldc=%lld",
             (long long)c->m, (long long)c->n, (long long)c->k,
             c->layout == GL_ROW_MAJOR ? "row" : "col", c->trans_a == GL_OP_T ? 'T' : 'N',
             c->trans_b == GL_OP_T ? 'T' : 'N', c->alpha, c->beta, (long long)c->lda,
             (long long)c->ldb, (long long)c->ldc);
}

/* Runs one case on every available variant (or only on variant `only`). The operands
 * sit `offset` floats into their allocations (1 for A, 2 for B, 3 for C when
 * misaligned), which takes away the rungs' 16-byte path. */
static void run_case(gl_handle_t h, const gemm_case *c, int misaligned, rng *r, int *ran,
                     int only)
{
    const int64_t nA = case_extent(c, 'A'), nB = case_extent(c, 'B'), nC = case_extent(c, 'C');
    const int oa = misaligned ? 1 : 0, ob = misaligned ? 2 : 0, oc = misaligned ? 3 : 0;
    buffers b = {0};
    b.hA = host_operand(c, 'A', r, 1);
    b.hB = host_operand(c, 'B', r, 1);
    b.hC0 = host_operand(c, 'C', r, c->beta != 0.0f); /* all poison when beta == 0 */
    b.hC = malloc(sizeof(float) * (size_t)nC);
    b.ref = malloc(sizeof(double) * (size_t)(c->m * c->n));
    reference_gemm(c, b.hA, b.hB, b.hC0, b.ref);
    double ref_norm = 0.0;
    for (int64_t i = 0; i < c->m * c->n; ++i)
        ref_norm += b.ref[i] * b.ref[i];
    b.cancellation = cancellation(c, b.hA, b.hB, b.hC0, sqrt(ref_norm));
    b.dA = device_copy(b.hA, nA, oa);
    b.dB = device_copy(b.hB, nB, ob);
    b.dC = device_copy(b.hC0, nC, oc);

    char what[180];
    describe(c, what, sizeof what);
    if (misaligned)
        strcat(what, " misaligned");
    /* The references first (pass 0): each class's reference error on these
     * inputs, which the class's other variants are compared with. */
    double reference_error[3] = {-1.0, -1.0, -1.0};
    for (int turn = 0; turn < 2 * gl_variant_count(); ++turn) {
        const int v = turn % gl_variant_count(), pass = turn / gl_variant_count();
        const gl_variant_info info = harness_variant(v);
        if (info.reference != (pass == 0))
            continue;
        if ((only >= 0 && v != only) || gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS)
            continue;
        CHECK_CUDA(cudaMemcpy(b.dC + oc, b.hC0, sizeof(float) * (size_t)nC, cudaMemcpyHostToDevice));
        const gl_status_t st =
            gl_sgemm_ex(h, (gl_variant_t)v, c->layout, c->trans_a, c->trans_b, c->m, c->n, c->k,
                        c->alpha, b.dA + oa, c->lda, b.dB + ob, c->ldb, c->beta, b.dC + oc,
                        c->ldc);
        CHECK(st == GL_STATUS_SUCCESS, "%s on %s: %s: %s", gl_variant_name(v), what,
              gl_status_string(st), gl_last_error(h));
        const cudaError_t err = cudaDeviceSynchronize();
        CHECK(err == cudaSuccess, "%s on %s: kernel failed: %s", gl_variant_name(v), what,
              cudaGetErrorString(err));
        if (st != GL_STATUS_SUCCESS || err != cudaSuccess)
            continue;
        CHECK_CUDA(cudaMemcpy(b.hC, b.dC + oc, sizeof(float) * (size_t)nC, cudaMemcpyDeviceToHost));

        const double e = relative_error(c, b.hC, b.ref);
        const double tolerance = harness_tolerance(v, c->k) * b.cancellation;
        CHECK(e <= tolerance, "%s on %s: relative error %.3g > %.3g", gl_variant_name(v), what, e,
              tolerance);
        const int precision = info.precision >= 0 && info.precision < 3 ? info.precision : 0;
        if (info.reference)
            reference_error[precision] = e;
        else if (precision == GL_PRECISION_TF32)
            CHECK(harness_tf32_ratio_ok(e, reference_error[precision], b.cancellation),
                  "%s on %s: relative error %.3g, more than %g times its reference's %.3g",
                  gl_variant_name(v), what, e, HARNESS_TF32_RATIO, reference_error[precision]);
        if (v < 64 && e > worst[v].error) {
            worst[v].error = e;
            snprintf(worst[v].error_case, sizeof worst[v].error_case, "%s", what);
        }
        if (v < 64 && !info.reference && precision == GL_PRECISION_TF32 &&
            reference_error[precision] > HARNESS_FP32_TOLERANCE * b.cancellation &&
            e / reference_error[precision] > worst[v].ratio) {
            worst[v].ratio = e / reference_error[precision];
            worst[v].ratio_error = e, worst[v].ratio_reference = reference_error[precision];
            snprintf(worst[v].ratio_case, sizeof worst[v].ratio_case, "%s", what);
        }
        int64_t touched = 0;
        for (int64_t i = 0; i < nC; ++i)
            touched += !case_is_element(c, 'C', i) && !is_poison(b.hC[i]);
        CHECK(touched == 0, "%s on %s: wrote %lld padding elements of C", gl_variant_name(v),
              what, (long long)touched);
        ++*ran;
    }
    cudaFree(b.dA);
    cudaFree(b.dB);
    cudaFree(b.dC);
    free(b.hA);
    free(b.hB);
    free(b.hC0);
    free(b.hC);
    free(b.ref);
}

/* Minimal leading dimension of a stored operand, plus pad. */
static int64_t min_ld(const gemm_case *c, char which, int64_t pad)
{
    int64_t rows, cols;
    case_stored_shape(c, which, &rows, &cols);
    const int64_t need = c->layout == GL_ROW_MAJOR ? cols : rows;
    return (need > 1 ? need : 1) + pad;
}

/* combo bits: 1 column-major, 2 transA, 4 transB, 8 general (alpha, beta,
 * padded leading dimensions), 16 misaligned pointers. */
static gemm_case make_case(shape sh, int combo)
{
    gemm_case c = (gemm_case){combo & 1 ? GL_COL_MAJOR : GL_ROW_MAJOR, combo & 2 ? GL_OP_T : GL_OP_N,
                     combo & 4 ? GL_OP_T : GL_OP_N, sh.m, sh.n, sh.k, 1.0f, 0.0f, 0, 0, 0};
    const int general = combo & 8;
    if (general) {
        c.alpha = -1.5f;
        c.beta = 0.75f;
    }
    c.lda = min_ld(&c, 'A', general ? 3 : 0);
    c.ldb = min_ld(&c, 'B', general ? 5 : 0);
    c.ldc = min_ld(&c, 'C', general ? 7 : 0);
    return c;
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_rungs");
    if (early >= 0)
        return early;

    const uint64_t seed = test_seed();
    /* The level, not just whether it is set: `getenv(...) && atoi(...)` read
     * every level as 1, and the racecheck, initcheck and synccheck setups
     * ran level 1's sample. */
    const int quick = getenv("GL_TEST_QUICK") ? atoi(getenv("GL_TEST_QUICK")) : 0;
    const int pack = getenv("GL_TEST_PACK") && atoi(getenv("GL_TEST_PACK"));
    /* GL_TEST_ONLY=NAME: one variant (for a sanitizer's run over the
     * engine's kernels, which only auto runs). */
    const char *only_name = getenv("GL_TEST_ONLY");
    gl_variant_t only_variant = (gl_variant_t)-1;
    if (only_name && *only_name && gl_variant_from_name(only_name, &only_variant) != GL_STATUS_SUCCESS) {
        CHECK(0, "GL_TEST_ONLY=%s: not a variant", only_name);
        return harness_finish("test_gpu_rungs");
    }
    const int only = (int)only_variant;
    printf("seed %llu (GL_TEST_SEED=%llu repeats this run)", (unsigned long long)seed,
           (unsigned long long)seed);
    if (quick)
        printf(", quick mode (GL_TEST_QUICK=%d)", quick);
    printf("\n");
    rng r = {seed};

    /* Every rung must run here: a GPU of compute capability 8.0 or newer is
     * what this library is built for. */
    printf("variants:");
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_status_t av = gl_variant_available(h, (gl_variant_t)v);
        printf(" %s%s", gl_variant_name(v), av == GL_STATUS_SUCCESS ? "" : "(unavailable)");
        CHECK(av == GL_STATUS_SUCCESS, "%s unavailable: %s", gl_variant_name(v), gl_last_error(h));
    }
    printf("\n");

    int ran = 0;
    /* The fixed shapes: every layout and transpose pair, plain (alpha 1,
     * beta 0, tight leading dimensions), general (alpha, beta, padded) and
     * misaligned (operands 1, 2 and 3 floats into their allocations). Big
     * shapes and quick mode get a sample that still covers both layouts,
     * each transpose, the general form and misalignment. */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const shape sh = shapes[s];
        if (quick && (sh.big == 1 || (sh.big == 2 && !pack)))
            continue;
        if (quick == 3 && (sh.big || sh.m > 300 || sh.n > 300 || sh.k > 300))
            continue;
        /* In quick mode the big == 2 shapes run misaligned (combination 27;
         * and 16 at level 1) on auto only. */
        const int narrow = quick && sh.big == 2;
        for (int combo = 0; combo < 32; ++combo) {
            const int sample = combo == 0 || combo == 27 ||
                               (quick != 2 && (combo == 7 || combo == 10 || combo == 13 || combo == 16));
            if ((sh.big || quick) && !sample)
                continue;
            if (narrow && combo != 27 && !(quick != 2 && combo == 16))
                continue;
            const gemm_case c = make_case(sh, combo);
            run_case(h, &c, combo & 16, &r, &ran, narrow ? GL_VARIANT_AUTO : only);
        }
    }
    /* Random shapes, up to 300 on each side (or 1100 outside quick mode),
     * with a random combination each. */
    const int random_shapes = quick == 3 ? 0 : quick == 2 ? RANDOM_SHAPES / 5 : RANDOM_SHAPES;
    for (int i = 0; i < random_shapes; ++i) {
        const int64_t limit = quick ? 300 : 1100;
        const shape sh = {1 + (int64_t)(rng_next(&r) % limit), 1 + (int64_t)(rng_next(&r) % limit),
                          1 + (int64_t)(rng_next(&r) % limit), 0};
        const int combo = (int)(rng_next(&r) % 32);
        const gemm_case c = make_case(sh, combo);
        run_case(h, &c, combo & 16, &r, &ran, only);
    }
    printf("%d rung runs checked\n", ran);
    printf("largest relative error per variant (precision class):\n");
    for (int v = 0; v < gl_variant_count() && v < 64; ++v) {
        const gl_variant_info info = harness_variant(v);
        if (worst[v].error_case[0])
            printf("  %-13s %s  %.3g on %s\n", info.name,
                   info.precision == GL_PRECISION_TF32 ? "TF32" : "FP32", worst[v].error,
                   worst[v].error_case);
        if (worst[v].ratio_case[0])
            printf("  %-13s      %.2f times its reference's error at most: %.3g against %.3g on "
                   "%s\n", info.name, worst[v].ratio, worst[v].ratio_error,
                   worst[v].ratio_reference, worst[v].ratio_case);
    }
    gl_handle_destroy(h);
    return harness_finish("test_gpu_rungs");
}
