/*
 * test_dispatch.c - the library past the handle, on the fake GPU of
 * fake_gpu/ (no GPU needed): handle creation, the checks that need a handle
 * (pointers, allocation sizes, query and set-tiles), and what reaches the
 * kernels: the row-major problem a layout becomes, and the slices of at most
 * 2^20 rows a tall product is cut into, up to M = 2^31 - 1 (where a 32-bit
 * row counter overflowed), and the batched calls' products. Built only with the fake (tests/meson.build),
 * under the sanitizers.
 */
#include "fake_gpu.h"
#include "harness.h"
#include "engine/engine.h"
#include "internal.h"

#define SLICE_ROWS (1 << 20) /* gemm.c: MAX_ROWS_PER_LAUNCH */

static const gl_layout_t R = GL_ROW_MAJOR, Cm = GL_COL_MAJOR;
static const gl_transpose_t N = GL_OP_N, T = GL_OP_T;

/* Each reason there is no GPU in its own words, the function named once. */
static void test_no_device(void)
{
    const int runtime = CUDART_VERSION, older = CUDART_VERSION - 1000;
    char no_gpu[128], old_driver[160];
    snprintf(no_gpu, sizeof no_gpu,
             "gl_handle_create: the NVIDIA driver (CUDA %d.%d) is installed but finds no GPU",
             runtime / 1000, runtime % 1000 / 10);
    snprintf(old_driver, sizeof old_driver,
             "gl_handle_create: the NVIDIA driver supports CUDA up to %d.%d, older than the CUDA "
             "runtime %d.%d this library was built with; update the driver",
             older / 1000, older % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    const struct {
        int devices, driver;
        const char *message;
    } cases[] = {
        {0, runtime, no_gpu},
        {1, 0, "gl_handle_create: no NVIDIA driver is installed (the CUDA runtime found no "
               "libcuda.so.1)"},
        {1, older, old_driver},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        fake_gpu_set_devices(cases[i].devices);
        fake_gpu_set_driver(cases[i].driver);
        gl_handle_t h = (gl_handle_t)&h;
        CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_NO_DEVICE, cases[i].message);
        CHECK(h == NULL, "no handle");
        CHECK(!strcmp(gl_last_error(NULL), cases[i].message), "message: %s", gl_last_error(NULL));
    }
    fake_gpu_set_devices(1);
    fake_gpu_set_driver(runtime);
}

/* One product through every variant: one launch each, of the row-major
 * problem the call describes (column-major: the transposed product with A
 * and B swapped). */
static void test_normalised_problem(gl_handle_t h)
{
    float *a = fake_gpu_alloc(4 * 64), *b = fake_gpu_alloc(4 * 64), *c = fake_gpu_alloc(4 * 64);
    for (int v = 0; v < gl_variant_count(); ++v) {
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, R, T, N, 3, 5, 7, 2.0f, a, 3, b, 5, 0.5f,
                                    c, 6),
                     GL_STATUS_SUCCESS, NULL);
        const fake_launch *l = fake_gpu_launch(0);
        CHECK(fake_gpu_launch_count() == 1 && l && l->variant == v && l->m == 3 && l->n == 5 &&
                  l->k == 7 && l->a == a && l->lda == 3 && l->trans_a && l->b == b &&
                  l->ldb == 5 && !l->trans_b && l->c == c && l->ldc == 6 && l->alpha == 2.0f &&
                  l->beta == 0.5f,
              "variant %d, row-major: %d launches", v, fake_gpu_launch_count());
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_ex(h, (gl_variant_t)v, Cm, N, T, 3, 5, 7, 1.0f, a, 3, b, 5, 0.0f,
                                    c, 4),
                     GL_STATUS_SUCCESS, NULL);
        l = fake_gpu_launch(0);
        CHECK(fake_gpu_launch_count() == 1 && l && l->m == 5 && l->n == 3 && l->k == 7 &&
                  l->a == b && l->trans_a && l->b == a && !l->trans_b && l->c == c &&
                  l->ldc == 4,
              "variant %d, column-major: C^T = op(B)^T op(A)^T", v);
    }
    /* alpha == 0: only C = beta * C; and nothing at all when beta is 1. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_WARPTILE, R, N, N, 4, 4, 4, 0.0f, NULL, 4, NULL, 4,
                                3.0f, c, 4),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 1 && fake_gpu_launch(0)->variant == -1 &&
              fake_gpu_launch(0)->beta == 3.0f,
          "alpha = 0 scales C");
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_WARPTILE, R, N, N, 4, 4, 0, 1.0f, NULL, 4, NULL, 4,
                                1.0f, c, 4),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 0, "K = 0, beta = 1: nothing to do");
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
}

/* A tall product is cut into slices of SLICE_ROWS rows of C that cover it
 * exactly, each with A and C moved to its first row. */
static void expect_slices(gl_handle_t h, gl_layout_t layout, gl_transpose_t ta, int64_t rows)
{
    /* rows of C x 1 column, K = 1: A is rows x 1 (or 1 x rows), ld as small as allowed. */
    const bool col = layout == GL_COL_MAJOR;
    const int64_t m = col ? 1 : rows, n = col ? rows : 1;
    float *a = fake_gpu_alloc((uint64_t)rows * 4), *b = fake_gpu_alloc((uint64_t)rows * 4);
    float *c = fake_gpu_alloc((uint64_t)rows * 4);
    CHECK(a && b && c, "fake allocations of %lld floats", (long long)rows);
    /* Every leading dimension as small as allowed. Row-major: A is rows x 1
     * (lda 1), or 1 x rows transposed (lda rows). Column-major: the
     * kernels' problem is C^T = op(B)^T op(A)^T, whose rows come from B:
     * 1 x rows (ldb 1), or rows x 1 transposed (ldb rows). Either way row r
     * of the kernels' first operand starts r floats in. */
    const int64_t lda = !col && ta == T ? rows : 1, ldb = col && ta == T ? rows : 1;
    const float *op_a = col ? b : a;
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_NAIVE, layout, col ? N : ta, col ? ta : N, m, n, 1,
                                1.0f, a, lda, b, ldb, 0.0f, c, 1),
                 GL_STATUS_SUCCESS, NULL);
    const int slices = (int)((rows - 1) / SLICE_ROWS + 1);
    CHECK(fake_gpu_launch_count() == slices, "%lld rows: %d launches, want %d", (long long)rows,
          fake_gpu_launch_count(), slices);
    int64_t next = 0;
    bool ok = true;
    for (int i = 0; i < fake_gpu_launch_count() && i < FAKE_GPU_LOG; ++i) {
        const fake_launch *l = fake_gpu_launch(i);
        const int64_t want = rows - next < SLICE_ROWS ? rows - next : SLICE_ROWS;
        ok = ok && l->m == want && l->n == 1 && l->k == 1 && l->a == op_a + next &&
             l->c == c + next;
        next += l->m;
    }
    CHECK(ok && next == rows, "%s-major, transA %s, %lld rows: slices cover every row once "
                              "(%lld covered)",
          col ? "column" : "row", ta == T ? "T" : "N", (long long)rows, (long long)next);
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
}

static void test_slicing(gl_handle_t h)
{
    const int64_t sizes[] = {1, SLICE_ROWS, SLICE_ROWS + 1, 3 * SLICE_ROWS - 1,
                             2146435072LL, 2146435073LL, 2147483647LL};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        expect_slices(h, R, N, sizes[i]);
        expect_slices(h, R, T, sizes[i]);
        expect_slices(h, Cm, N, sizes[i]);
    }
}

/* gl_sgemm_plan's count of auto's launches: one for each slice of rows,
 * and one more for each slice whose grid's last round of blocks runs after
 * the rest (engine/plan.c). On this H100-like GPU 3072 x 3072 x 1024 cuts
 * its last round off; a slice of SLICE_ROWS rows does not, but a last slice
 * of 3072 rows does. */
static void test_auto_launches(gl_handle_t h)
{
    const struct {
        int64_t m;
        int launches;
    } cases[] = {{3072, 2}, {SLICE_ROWS, 1}, {SLICE_ROWS + 3072, 3}, {2 * SLICE_ROWS + 3072, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_plan plan = {.size = sizeof plan};
        CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, N, N, cases[i].m, 3072, 1024, NULL,
                                      1024, NULL, 3072, NULL, 3072, &plan),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(plan.launches == cases[i].launches, "auto, %lld x 3072 x 1024: %d launches, want %d",
              (long long)cases[i].m, (int)plan.launches, cases[i].launches);
    }
}

/* The most scratch one slice's plan holds at once (gemm.c's rule: the rows
 * above the last round free theirs before the last round takes its own). */
static size_t slice_scratch(const gl_engine_plan *plan, const gl_engine_plan *tail)
{
    return plan->tail_rows > 0 && tail->bytes > plan->bytes ? tail->bytes : plan->bytes;
}

/* gl_sgemm_plan against the call, for tall products: the call's slices (as
 * the fake GPU records them, each the problem auto's launcher is handed)
 * planned one by one as the launcher plans them; the plan must report the
 * most scratch of any slice, and say so when the last slice runs another
 * path. Over a grid of tall shapes, transposes, layouts and leading
 * dimensions (the review found 882 of 1,680 under-reported). */
static void test_plan_covers_slices(gl_handle_t h)
{
    const int64_t ms[] = {SLICE_ROWS + 1, SLICE_ROWS + 129, 1049089, SLICE_ROWS + 4096,
                          2 * SLICE_ROWS + 3072, 2 * SLICE_ROWS - 7, 3 * SLICE_ROWS};
    const int64_t ns[] = {1, 3, 32, 127, 1024, 4097};
    const int64_t ks[] = {1, 31, 1024, 1025, 6000};
    const gl_variant_desc *auto_desc = gl_variant_find(GL_VARIANT_AUTO);
    int shapes = 0, differing = 0, with_scratch = 0;
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
            for (size_t l = 0; l < sizeof ks / sizeof ks[0]; ++l)
                for (int form = 0; form < 4; ++form) {
                    const int64_t m = ms[i], n = ns[j], k = ks[l];
                    const gl_transpose_t ta = form & 1 ? T : N, tb = form & 2 ? T : N;
                    const int64_t lda = (ta == T ? m : k) + (form == 3),
                                  ldb = (tb == T ? k : n) + (form == 1);
                    const uint64_t a_bytes = (uint64_t)((ta == T ? k : m) - 1) * lda * 4 +
                                             (uint64_t)(ta == T ? m : k) * 4;
                    const uint64_t b_bytes = (uint64_t)((tb == T ? n : k) - 1) * ldb * 4 +
                                             (uint64_t)(tb == T ? k : n) * 4;
                    float *a = fake_gpu_alloc(a_bytes), *b = fake_gpu_alloc(b_bytes);
                    float *c = fake_gpu_alloc((uint64_t)m * n * 4);
                    gl_plan plan = {.size = sizeof plan};
                    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, ta, tb, m, n, k, a, lda,
                                                  b, ldb, c, n, &plan),
                                 GL_STATUS_SUCCESS, NULL);
                    fake_gpu_clear_launches();
                    CHECK_STATUS(h, gl_sgemm_ex(h, GL_VARIANT_AUTO, R, ta, tb, m, n, k, 1.0f, a,
                                                lda, b, ldb, 0.0f, c, n),
                                 GL_STATUS_SUCCESS, NULL);
                    const gl_tile_params tiles = gl_resolve_tiles(h, auto_desc, m, n, NULL);
                    size_t most = 0;
                    gl_engine_plan first = {0}, last = {0};
                    bool differs = false;
                    for (int s = 0; s < fake_gpu_launch_count(); ++s) {
                        const fake_launch *f = fake_gpu_launch(s);
                        const gl_problem p = {f->m,   f->n,   f->k,       f->alpha, f->beta,
                                              f->a,   f->lda, f->trans_a, f->b,     f->ldb,
                                              f->trans_b, f->c, f->ldc};
                        gl_engine_plan sp, tail;
                        gl_engine_plan_call(&p, &tiles, false, h->sm_count, h->code_cc,
                                            h->scratch != NULL, &sp, &tail);
                        const size_t bytes = slice_scratch(&sp, &tail);
                        most = bytes > most ? bytes : most;
                        last = sp;
                        if (s == 0)
                            first = sp;
                        else
                            differs = differs || sp.path != first.path ||
                                      sp.kernel != first.kernel || sp.splits != first.splits ||
                                      sp.bytes != first.bytes;
                    }
                    CHECK(fake_gpu_launch_count() == (int)((m - 1) / SLICE_ROWS + 1),
                          "%lld rows: %d slices", (long long)m, fake_gpu_launch_count());
                    CHECK(plan.scratch_bytes == (int64_t)most,
                          "auto %lld x %lld x %lld, trans %c%c, lda %lld, ldb %lld: the plan "
                          "reports %lld bytes of scratch, its slices take up to %zu",
                          (long long)m, (long long)n, (long long)k, ta == T ? 'T' : 'N',
                          tb == T ? 'T' : 'N', (long long)lda, (long long)ldb,
                          (long long)plan.scratch_bytes, most);
                    const int64_t rest = m % SLICE_ROWS;
                    CHECK(plan.last_slice_rows == (differs ? rest : 0) &&
                              plan.last_slice_path == (differs ? (int32_t)last.path : plan.path),
                          "auto %lld x %lld x %lld: the last slice %s (path %d); the plan says "
                          "last_slice_rows %d, last_slice_path %d",
                          (long long)m, (long long)n, (long long)k,
                          differs ? "is planned otherwise" : "is planned as the first",
                          (int)last.path, (int)plan.last_slice_rows, (int)plan.last_slice_path);
                    ++shapes, differing += differs, with_scratch += most > 0;
                    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
                }
    CHECK(differing > 0 && with_scratch > 0 && shapes - differing > 0,
          "the grid reaches last slices planned otherwise (%d of %d shapes) and scratch (%d)",
          differing, shapes, with_scratch);
}

/* Auto copies an operand only where the copy changes the kernel: when the
 * other operand can still not be read in 16-byte groups, the copy buys
 * nothing (the review's 257 x 8193 x 6000 with lda = 6001 copied A for rung
 * 8's float-per-load kernel). Over a grid of shapes and leading dimensions:
 * a plan with copies runs the aligned kernels, and no plan that copies says
 * copying does not pay. */
static void test_copies_change_the_kernel(gl_handle_t h)
{
    const int64_t sizes[] = {1, 63, 257, 1000, 2048, 4097, 8193};
    const int64_t ks[] = {64, 1001, 6000};
    int plans = 0, copying = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; ++j)
            for (size_t l = 0; l < sizeof ks / sizeof ks[0]; ++l)
                for (int form = 0; form < 16; ++form) {
                    const int64_t m = sizes[i], n = sizes[j], k = ks[l];
                    const gl_transpose_t ta = form & 1 ? T : N, tb = form & 2 ? T : N;
                    const int64_t lda = (ta == T ? m : k) + (form >> 2 & 1);
                    const int64_t ldb = (tb == T ? k : n) + (form >> 3 & 1);
                    gl_plan plan = {.size = sizeof plan};
                    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, ta, tb, m, n, k, NULL,
                                                  lda, NULL, ldb, NULL, n, &plan),
                                 GL_STATUS_SUCCESS, NULL);
                    ++plans;
                    if (!(plan.copies & 3))
                        continue;
                    ++copying;
                    CHECK(plan.aligned && !strstr(plan.why, "does not pay"),
                          "auto %lld x %lld x %lld, trans %c%c, lda %lld, ldb %lld copies "
                          "(%d) for the kernel it would run anyway: path %d, aligned %d, \"%s\"",
                          (long long)m, (long long)n, (long long)k, ta == T ? 'T' : 'N',
                          tb == T ? 'T' : 'N', (long long)lda, (long long)ldb, (int)plan.copies,
                          (int)plan.path, (int)plan.aligned, plan.why);
                }
    CHECK(copying > 0 && copying < plans, "%d of %d plans copy", copying, plans);
}

/* gl_sgemm_plan's origin of the tiles auto picks for itself: split-K's
 * thin tiles for C of few columns (128 x 32) or rows (32 x 128), and the
 * half tiles (128 x 64, 64 x 128) where the table's grid is one uneven
 * round, reported as fill tiles. Each keeps rung 8's kernel; the thin
 * tiles come with a split. */
static void test_own_tiles_origin(gl_handle_t h)
{
    const struct {
        int64_t m, n, k;
        int bm, bn;
        gl_tiles_origin_t origin;
    } cases[] = {{1000, 72, 2000, 128, 32, GL_TILES_THIN},
                 {32, 1024, 4096, 32, 128, GL_TILES_THIN},
                 {3193, 952, 920, 128, 64, GL_TILES_FILL},
                 {752, 3984, 216, 128, 64, GL_TILES_FILL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_plan plan = {.size = sizeof plan};
        CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, N, N, cases[i].m, cases[i].n,
                                      cases[i].k, NULL, cases[i].k, NULL, cases[i].n, NULL,
                                      cases[i].n, &plan),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(plan.kernel == GL_VARIANT_WARPTILE && plan.tiles.origin == (int)cases[i].origin &&
                  (plan.path == GL_PATH_SPLIT_K) == (cases[i].origin == GL_TILES_THIN) &&
                  plan.tiles.bm == cases[i].bm && plan.tiles.bn == cases[i].bn,
              "auto, %lld x %lld x %lld: kernel %d, path %d, %d x %d tiles of origin %d",
              (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k,
              (int)plan.kernel, (int)plan.path, (int)plan.tiles.bm, (int)plan.tiles.bn,
              (int)plan.tiles.origin);
    }
}

/* The checks after the handle: where pointers lie and how big their
 * allocations are. */
static void test_pointer_checks(gl_handle_t h)
{
    float *a = fake_gpu_alloc(4 * 24), *b = fake_gpu_alloc(4 * 30), *c = fake_gpu_alloc(4 * 20);
    const gl_variant_t V = GL_VARIANT_WARPTILE;
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 4, 5, 6, 1, a, 6, b, 5, 0, c, 5),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 4, 5, 6, 1, a + 1, 6, b, 5, 0, c, 5),
                 GL_STATUS_INVALID_ARGUMENT, "needs 96 bytes, but its allocation has only 92");
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 4, 5, 6, 1, a, 6, b, 6, 0, c, 5),
                 GL_STATUS_INVALID_ARGUMENT, "B (");
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 4, 5, 6, 1, a, 6, b, 5, 0, c, 6),
                 GL_STATUS_INVALID_ARGUMENT, "C (");
    float host[64];
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 4, 5, 6, 1, host, 6, b, 5, 0, c, 5),
                 GL_STATUS_INVALID_ARGUMENT, "ordinary host pointer");
    /* An extent past any address space. */
    CHECK_STATUS(h, gl_sgemm_ex(h, V, R, N, N, 2147483647LL, 5, 6, 1, a, INT64_MAX / 2, b, 5, 0,
                                c, 5),
                 GL_STATUS_INVALID_ARGUMENT, "spans more bytes than any address space");
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
}

/* gl_tuning_query and gl_set_tiles past the handle, with edge sizes. */
static void test_query_and_pins(gl_handle_t h)
{
    static const int64_t edges[] = {0, 1, 2, 127, 4096, 2147483647LL, 2147483648LL, -1,
                                    INT64_MAX, INT64_MIN};
    for (int v = 0; v < gl_variant_count(); ++v)
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; ++i)
            for (size_t j = 0; j < sizeof edges / sizeof edges[0]; ++j) {
                gl_tiles t = {.size = sizeof(gl_tiles)};
                const bool fits = edges[i] >= 0 && edges[i] <= 2147483647LL && edges[j] >= 0 &&
                                  edges[j] <= 2147483647LL;
                const gl_status_t want = harness_variant(v).tile_field_count == 0 || !fits
                                             ? GL_STATUS_INVALID_ARGUMENT
                                             : GL_STATUS_SUCCESS;
                CHECK_STATUS(h, gl_tuning_query(h, (gl_variant_t)v, edges[i], edges[j], 1, &t),
                             want, NULL);
                if (want == GL_STATUS_SUCCESS)
                    CHECK(t.bm > 0 && t.bn > 0 && t.threads >= 32, "variant %d: tiles", v);
            }
    gl_tiles pin = {.size = sizeof(gl_tiles)};
    CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, 0, &pin), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_tiles(h, GL_VARIANT_WARPTILE, &pin), GL_STATUS_SUCCESS, NULL);
    static const int32_t bad[] = {0, -1, 3, 4095, 4096, 4097, 65536, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        gl_tiles t = pin;
        t.wniter = t.tm = t.bk = bad[i];
        CHECK_STATUS(h, gl_set_tiles(h, GL_VARIANT_WARPTILE, &t), GL_STATUS_TUNING_ERROR,
                     "is not one of the");
    }
    CHECK_STATUS(h, gl_set_tiles(h, GL_VARIANT_WARPTILE, NULL), GL_STATUS_SUCCESS, NULL);
}

/* gl_sgemm_strided_batched: today one launch per product, each operand moved
 * by its stride (column-major: A and B swapped, with their strides); its own
 * checks, each with its status and message. */
static void test_strided_batch(gl_handle_t h)
{
    enum { FLOATS = 1024 };
    float *a = fake_gpu_alloc(4 * FLOATS), *b = fake_gpu_alloc(4 * FLOATS);
    float *c = fake_gpu_alloc(4 * FLOATS);
    /* 3 products of 4 x 5 x 6, row-major, tight: A 24, B 30, C 20 floats each. */
    for (int v = 0; v < gl_variant_count(); ++v) {
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_strided_batched(h, (gl_variant_t)v, R, N, N, 4, 5, 6, 1.0f, a,
                                                 6, 24, b, 5, 30, 0.0f, c, 5, 20, 3),
                     GL_STATUS_SUCCESS, NULL);
        /* The rows that say `batches` in one batched call (recorded product
         * by product), the others a launch per product. */
        const bool batched = gl_variant_find((gl_variant_t)v)->batches;
        int ok = fake_gpu_launch_count() == 3;
        for (int i = 0; ok && i < 3; ++i) {
            const fake_launch *l = fake_gpu_launch(i);
            ok = l->variant == v && l->m == 4 && l->n == 5 && l->k == 6 && l->a == a + 24 * i &&
                 l->b == b + 30 * i && l->c == c + 20 * i && l->batched == batched;
        }
        CHECK(ok, "variant %d: 3 products, each operand moved by its stride (%d launches)", v,
              fake_gpu_launch_count());
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        CHECK(!d->kernels || batched,
              "variant %d: a rung made from a mainloop runs a batch in one call", v);
    }
    /* Column-major: the kernels see C^T = op(B)^T op(A)^T, B's stride on their A. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, Cm, N, N, 4, 5, 6, 1.0f, a,
                                             4, 24, b, 6, 30, 0.0f, c, 4, 20, 2),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 2 && fake_gpu_launch(1)->a == b + 30 &&
              fake_gpu_launch(1)->b == a + 24 && fake_gpu_launch(1)->c == c + 20,
          "column-major: the second product's operands swapped and moved");
    /* strideA 0: one A against every B. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, R, N, N, 4, 5, 6, 1.0f, a,
                                             6, 0, b, 5, 30, 0.0f, c, 5, 20, 3),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 3 && fake_gpu_launch(2)->a == a &&
              fake_gpu_launch(2)->b == b + 60,
          "strideA 0 broadcasts A");
    /* C's products side by side in one matrix: 4 x 2 each, ldc 6, 2 floats apart. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, R, N, N, 4, 2, 6, 1.0f, a,
                                             6, 24, b, 2, 12, 0.0f, c, 6, 2, 3),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 3, "interleaved outputs that share no element run");
    /* No products: nothing runs, NULL pointers allowed. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, 1.0f, NULL,
                                             6, 24, NULL, 5, 30, 0.0f, NULL, 5, 20, 0),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 0, "batch 0 does nothing");
    /* alpha 0: each product's C scaled. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, R, N, N, 4, 5, 6, 0.0f,
                                             NULL, 6, 24, NULL, 5, 30, 2.0f, c, 5, 20, 3),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 3 && fake_gpu_launch(2)->variant == -1 &&
              fake_gpu_launch(2)->c == c + 40,
          "alpha 0 scales each product's C");

    /* The batch's own checks. */
    const struct {
        int64_t sa, sb, sc, count, ldc;
        const float *aa;
        const char *message;
    } bad[] = {
        {-1, 30, 20, 3, 5, a, "strideA (-1) must be >= 0"},
        {24, -30, 20, 3, 5, a, "strideB (-30) must be >= 0"},
        {24, 30, -20, 3, 5, a, "strideC (-20) must be >= 0"},
        {24, 30, 20, -1, 5, a, "batch (-1) must be between 0 and 2147483647"},
        {24, 30, 0, 2, 5, a, "strideC is 0 with batch = 2: every product would write the same C"},
        {24, 30, 10, 3, 5, a, "the products' C overlap: C_0 and C_1"},
        {24, 30, 20, 5, 5, a, "a batch of 5 matrices of 4 x 5 with ldc = 5, strideC = 20 floats "
                              "apart, needs 400 bytes, but its allocation has only"},
        {INT64_MAX / 2, 30, 20, 3, 5, a, "A: a batch of 3 matrices of 4 x 6 with lda = 6, strideA "
                                         "= 4611686018427387903 floats apart, spans more bytes"},
        /* A_0 apart from C_0, but A's batch among C's: A 40 floats into C's. */
        {24, 30, 20, 3, 5, c + 40, "C's batch"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fake_gpu_clear_launches();
        /* C moved on 96 floats into its allocation for the allocation-size case. */
        float *cc = strstr(bad[i].message, "allocation") ? c + FLOATS - 96 : c;
        CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, R, N, N, 4, 5, 6, 1.0f,
                                                 bad[i].aa, 6, bad[i].sa, b, 5, bad[i].sb, 0.0f, cc,
                                                 bad[i].ldc,
                                                 bad[i].sc, bad[i].count),
                     GL_STATUS_INVALID_ARGUMENT, bad[i].message);
        CHECK(fake_gpu_launch_count() == 0, "case %zu: nothing launched", i);
    }
    /* Too many pairs of C to compare: strideC 1 against a span of 2^21 + 2. */
    CHECK_STATUS(h, gl_sgemm_strided_batched(h, GL_VARIANT_WARPTILE, R, N, N, 2, 1, 6, 1.0f, a,
                                             6, 0, b, 1, 0, 0.0f, c, (1 << 21) + 1, 1,
                                             (1 << 20) + 2),
                 GL_STATUS_INVALID_ARGUMENT, "too long to compare each product's C");
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
}

/* gl_sgemm_strided_batched_plan: what a batch runs, per variant, and its
 * checks (the batch's as the call's). */
static void test_batched_plan(gl_handle_t h)
{
    gl_plan p = {.size = sizeof p}, one = {.size = sizeof one};
    /* Auto, matrix-vector products: each on its own plan. */
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, N, N, 1, 4096, 4096, NULL, 4096, NULL,
                                  4096, NULL, 4096, &one),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 1, 4096, 4096, NULL,
                                                  4096, 4096, NULL, 4096, 4096 * 4096, NULL, 4096,
                                                  4096, 64, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_GEMV && p.launches == 1 && p.scratch_bytes == 0 &&
              p.splits == one.splits && strstr(p.why, "matrix-vector kernel"),
          "auto, 64 matrix-vector products: path %d, %d launches (one: %d), %s", p.path,
          p.launches, one.launches, p.why);
    /* Column-major: the matrix is the row-major problem's B, the caller's A,
     * whose stride (2 floats on) reads it a float at a time; B's (x) is 4. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, Cm, N, N, 4096, 1, 4096,
                                                  NULL, 4096, 4096 * 4096 + 2, NULL, 4096, 4096,
                                                  NULL, 4096, 4096, 8, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_GEMV && !p.aligned, "column-major matrix-vector batch: aligned %d",
          p.aligned);
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, Cm, N, N, 4096, 1, 4096,
                                                  NULL, 4096, 4096 * 4096, NULL, 4096, 4098,
                                                  NULL, 4096, 4096, 8, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_GEMV && p.aligned, "the same, A's stride 16-byte: aligned %d",
          p.aligned);
    /* Auto, a product a tile: one grid. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 64, 64, 64, NULL,
                                                  64, 4096, NULL, 64, 4096, NULL, 64, 4096, 4096,
                                                  &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_BATCH && p.launches == 1 && p.scratch_bytes == 0 && p.aligned &&
              p.tiles.bm > 0 && strstr(p.why, "one grid"),
          "auto, 4096 products of 64^3: path %d, %d launches, %dx%d tiles, %s", p.path,
          p.launches, p.tiles.bm, p.tiles.bn, p.why);
    /* Auto, three products of 300 x 200 with K 1000: a short grid, K in 3
     * parts across the batch (1000 / 256), each product's parts in scratch
     * at once; a launch of parts and one of sums. Without scratch (a limit
     * of 0): the grid unsplit. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 300, 200, 1000,
                                                  NULL, 1000, 300000, NULL, 200, 200000, NULL,
                                                  200, 60000, 3, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_BATCH && p.splits == 3 && p.launches == 2 &&
              p.scratch_bytes == (int64_t)3 * 3 * 300 * 200 * 4 && p.tiles.bm == 64 &&
              p.tiles.bn == 64 && strstr(p.why, "K in parts"),
          "auto, 3 products of 300x200x1000: path %d, %d parts, %d launches, %lld bytes, "
          "%dx%d tiles, %s",
          p.path, p.splits, p.launches, (long long)p.scratch_bytes, p.tiles.bm, p.tiles.bn,
          p.why);
    CHECK_STATUS(h, gl_set_workspace_limit(h, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 300, 200, 1000,
                                                  NULL, 1000, 300000, NULL, 200, 200000, NULL,
                                                  200, 60000, 3, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_BATCH && p.splits == 1 && p.launches == 1 && p.scratch_bytes == 0,
          "the same without scratch: %d parts, %d launches, %lld bytes", p.splits, p.launches,
          (long long)p.scratch_bytes);
    CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
    /* A rung's batch grid: up to 65535 products a launch; strides off 16
     * bytes read a float at a time. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_WARPTILE, R, N, N, 8, 8, 8, NULL,
                                                  8, 65, NULL, 8, 64, NULL, 8, 64, 70000, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_BATCH && p.launches == 2 && !p.aligned,
          "warptile, 70000 products: path %d, %d launches, aligned %d", p.path, p.launches,
          p.aligned);
    /* Rungs 1-5 a launch per product; cuBLAS its own batched call. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_NAIVE, R, N, N, 4, 5, 6, NULL, 6,
                                                  24, NULL, 5, 30, NULL, 5, 20, 3, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_EDGE_TESTS && p.launches == 3, "naive: %d launches", p.launches);
    for (int v = 0; v < gl_variant_count(); ++v) {
        if (!gl_variant_find((gl_variant_t)v)->uses_cublas)
            continue;
        CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, (gl_variant_t)v, R, N, N, 4, 5, 6, NULL,
                                                      6, 24, NULL, 5, 30, NULL, 5, 20, 3, &p),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(p.path == GL_PATH_CUBLAS && strstr(p.why, "strided-batched"), "variant %d: %s", v,
              p.why);
    }
    /* K 0: each product's C scaled. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 0, NULL, 1,
                                                  0, NULL, 5, 0, NULL, 5, 20, 3, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.path == GL_PATH_SCALE && p.launches == 3, "K 0: %d launches", p.launches);
    /* The checks. */
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, NULL, 6,
                                                  24, NULL, 5, 30, NULL, 5, 20, -1, &p),
                 GL_STATUS_INVALID_ARGUMENT, "batch (-1) must be between 0 and 2147483647");
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, NULL, 6,
                                                  24, NULL, 5, 30, NULL, 5, 10, 3, &p),
                 GL_STATUS_INVALID_ARGUMENT, "the products' C overlap: C_0 and C_1");
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, NULL, 6,
                                                  24, NULL, 5, 30, NULL, 5, 20, 3, NULL),
                 GL_STATUS_INVALID_ARGUMENT, "gl_sgemm_strided_batched_plan: the gl_plan pointer");
    /* A plan's matrices within an address space, as a call's: the plan works
     * out where its slices of 2^20 rows start (found by fuzz_api, UBSan). */
    CHECK_STATUS(h, gl_sgemm_plan(h, GL_VARIANT_AUTO, R, N, N, (1 << 20) + 5, 4, 4, NULL,
                                  (int64_t)1 << 61, NULL, 4, NULL, 4, &p),
                 GL_STATUS_INVALID_ARGUMENT, "A: 1048581 x 4 with lda = 2305843009213693952 spans "
                                             "more bytes than any address space");
    CHECK_STATUS(h, gl_sgemm_strided_batched_plan(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, NULL,
                                                  (int64_t)1 << 62, 0, NULL, 5, 30, NULL, 5, 20,
                                                  0, &p),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(p.launches == 0 && strstr(p.why, "batch is 0"), "batch 0: %d launches, %s", p.launches,
          p.why);
}

/* A device array of pointers (fake memory that holds values). */
static void *device_array(const void *const *entries, int count)
{
    void *d = fake_gpu_alloc(sizeof(void *) * (uint64_t)count);
    CHECK(fake_gpu_write(d, entries, sizeof(void *) * (size_t)count), "array written");
    return d;
}

/* Whether launch i is the product of rows [row0, row0 + m) of a 4 x 5 x 6
 * product (row-major, N N, tight) on operands a, b, c, by variant v. */
static bool is_product(int i, int v, int m, int64_t row0, const float *a, const float *b,
                       const float *c, int64_t lda, int64_t ldc, bool batched)
{
    const fake_launch *l = fake_gpu_launch(i);
    /* (cuBLAS records a NULL entry as it is: no arithmetic on it) */
    return l && l->variant == v && l->m == m && l->n == 5 && l->k == 6 &&
           l->a == (row0 ? a + row0 * lda : a) && l->b == b &&
           l->c == (row0 ? c + row0 * ldc : c) && l->batched == batched;
}

/* gl_sgemm_batched: each product from its entries, in any order, repeated
 * ones too; a NULL entry skips its product (but on cuBLAS, which takes the
 * arrays as they are); rungs 1-5 read the arrays back and run each product;
 * tall products in slices whose A and C move after the entries are read;
 * and the call's own checks, each with its status and message. */
static void test_pointer_batch(gl_handle_t h)
{
    enum { FLOATS = 1024 };
    float *a = fake_gpu_alloc(4 * FLOATS), *b = fake_gpu_alloc(4 * FLOATS);
    float *c = fake_gpu_alloc(4 * FLOATS);
    /* Product 0: A_2 B_0 C_1; product 1: A_0 B_0 C_0 (B repeated, and A + 1 float:
     * misaligned); product 2: NULL C; product 3: A_2 B_1 C_2. */
    const float *ea[] = {a + 48, a + 1, a, a + 48};
    const float *eb[] = {b, b, b + 30, b + 30};
    float *ec[] = {c + 20, c, NULL, c + 40};
    const float *const *A = device_array((const void *const *)ea, 4);
    const float *const *B = device_array((const void *const *)eb, 4);
    float *const *C = device_array((const void *const *)ec, 4);
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_batched(h, (gl_variant_t)v, R, N, N, 4, 5, 6, 1.0f, A, 6, B, 5,
                                         0.0f, C, 5, 4),
                     GL_STATUS_SUCCESS, NULL);
        /* cuBLAS records every entry, the others skip product 2. */
        const int want[] = {0, 1, 3}, all[] = {0, 1, 2, 3};
        const int *products = d->uses_cublas ? all : want, count = d->uses_cublas ? 4 : 3;
        int ok = fake_gpu_launch_count() == count;
        for (int i = 0; ok && i < count; ++i) {
            const int j = products[i];
            ok = is_product(i, v, 4, 0, ea[j], eb[j], ec[j], 6, 5, d->batches);
        }
        CHECK(ok, "variant %d: each product from its entries (%d launches)", v,
              fake_gpu_launch_count());
    }
    /* Column-major: the kernels see C^T = op(B)^T op(A)^T, the arrays swapped. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_WARPTILE, Cm, N, N, 5, 4, 6, 1.0f, B, 5, A, 6,
                                     0.0f, C, 5, 4),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 3 && is_product(2, GL_VARIANT_WARPTILE, 4, 0, ea[3], eb[3],
                                                     ec[3], 6, 5, true),
          "column-major: the arrays swapped");
    /* More products than one read back holds (256): rung 1, every other C NULL. */
    enum { MANY = 300 };
    const float *ma[MANY], *mb[MANY];
    float *mc[MANY];
    for (int i = 0; i < MANY; ++i)
        ma[i] = a + i % 7, mb[i] = b + i % 5, mc[i] = i % 2 ? NULL : c + i;
    const float *const *MA = device_array((const void *const *)ma, MANY);
    const float *const *MB = device_array((const void *const *)mb, MANY);
    float *const *MC = device_array((const void *const *)mc, MANY);
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_NAIVE, R, N, N, 4, 5, 6, 1.0f, MA, 6, MB, 5,
                                     0.0f, MC, 5, MANY),
                 GL_STATUS_SUCCESS, NULL);
    int ok = fake_gpu_launch_count() == MANY / 2;
    for (int i = 0; ok && i < MANY / 2; ++i)
        ok = is_product(i, GL_VARIANT_NAIVE, 4, 0, ma[2 * i], mb[2 * i], mc[2 * i], 6, 5, false);
    CHECK(ok, "rung 1: %d products read back in pieces (%d launches)", MANY / 2,
          fake_gpu_launch_count());
    /* alpha 0: each C scaled, NULL entries skipped; A and B may be NULL. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, 0.0f, NULL, 6, NULL, 5,
                                     2.0f, C, 5, 4),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 3 && fake_gpu_launch(2)->variant == -1 &&
              fake_gpu_launch(2)->c == ec[3],
          "alpha 0 scales each product's C");
    /* No products, or none of C's elements: nothing runs, NULL arrays allowed. */
    fake_gpu_clear_launches();
    CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_AUTO, R, N, N, 4, 5, 6, 1.0f, NULL, 6, NULL, 5,
                                     0.0f, NULL, 5, 0),
                 GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_AUTO, R, N, N, 0, 5, 6, 1.0f, NULL, 6, NULL, 5,
                                     0.0f, NULL, 5, 3),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(fake_gpu_launch_count() == 0, "batch 0 and M 0 do nothing");

    /* Tall products: slices of 2^20 rows, A and C moved to each slice's first
     * row once the entries are read; cuBLAS takes every row in one call. */
    const int64_t rows = SLICE_ROWS + 5;
    float *ta = fake_gpu_alloc((uint64_t)rows * 6 * 4), *tc = fake_gpu_alloc((uint64_t)rows * 5 * 4);
    const float *tea[] = {ta};
    float *tec[] = {tc};
    const float *const *TA = device_array((const void *const *)tea, 1);
    const float *const *TB = device_array((const void *const *)eb, 1);
    float *const *TC = device_array((const void *const *)tec, 1);
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_batched(h, (gl_variant_t)v, R, N, N, rows, 5, 6, 1.0f, TA, 6, TB,
                                         5, 0.0f, TC, 5, 1),
                     GL_STATUS_SUCCESS, NULL);
        const bool batched = d->batches;
        ok = d->uses_cublas
                 ? fake_gpu_launch_count() == 1 &&
                       fake_gpu_launch(0)->m == rows && fake_gpu_launch(0)->a == ta
                 : fake_gpu_launch_count() == 2 &&
                       is_product(0, v, SLICE_ROWS, 0, ta, eb[0], tc, 6, 5, batched) &&
                       is_product(1, v, 5, SLICE_ROWS, ta, eb[0], tc, 6, 5, batched);
        CHECK(ok, "variant %d: a tall product of pointer arrays in slices (%d launches)", v,
              fake_gpu_launch_count());
    }

    /* The call's own checks. */
    const float *host[4] = {0};
    const struct {
        int64_t ldb, count;
        const float *const *aa;
        const float *const *bb;
        float *const *cc;
        const char *message;
    } bad[] = {
        {5, -1, A, B, C, "batch (-1) must be between 0 and 2147483647"},
        {4, 4, A, B, C, "ldb (4) must be >= max(1, N) = 5 for a row-major B with transB = N"},
        {INT64_MAX / 2, 4, A, B, C, "B: 6 x 5 with ldb = 4611686018427387903 spans more bytes "
                                    "than any address space"},
        {5, 4, NULL, B, C, "A is NULL (batch = 4): pass a device array of the products' A "
                           "pointers"},
        {5, 4, A, B, NULL, "C is NULL (batch = 4)"},
        {5, 4, A, (const float *const *)((const char *)B + 4), C,
         "is not aligned to 8 bytes, the size of a pointer"},
        {5, 4, host, B, C, "is not device-accessible memory: it looks like an ordinary host "
                           "pointer; copy the array of pointers to the GPU"},
        {5, 5, A, B, C, "an array of 5 pointers needs 40 bytes, but its allocation has only 32 "
                        "bytes from that address"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fake_gpu_clear_launches();
        CHECK_STATUS(h, gl_sgemm_batched(h, GL_VARIANT_WARPTILE, R, N, N, 4, 5, 6, 1.0f, bad[i].aa,
                                         6, bad[i].bb, bad[i].ldb, 0.0f, bad[i].cc, 5,
                                         bad[i].count),
                     GL_STATUS_INVALID_ARGUMENT, bad[i].message);
        CHECK(fake_gpu_launch_count() == 0, "case %zu: nothing launched", i);
    }
    CHECK_STATUS(NULL, gl_sgemm_batched(NULL, GL_VARIANT_WARPTILE, R, N, N, 4, 5, 6, 1.0f, A, 6, B,
                                        5, 0.0f, C, 5, 4),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    const void *arrays[] = {A, B, C, MA, MB, MC, TA, TB, TC, a, b, c, ta, tc};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        fake_gpu_free((void *)arrays[i]);
}

int main(void)
{
    test_no_device();
    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    if (h) {
        CHECK(gl_handle_device(h) == 0, "device 0");
        for (int v = 0; v < gl_variant_count(); ++v)
            CHECK_STATUS(h, gl_variant_available(h, (gl_variant_t)v), GL_STATUS_SUCCESS, NULL);
        test_normalised_problem(h);
        test_slicing(h);
        test_auto_launches(h);
        test_plan_covers_slices(h);
        test_copies_change_the_kernel(h);
        test_own_tiles_origin(h);
        test_pointer_checks(h);
        test_query_and_pins(h);
        test_strided_batch(h);
        test_batched_plan(h);
        test_pointer_batch(h);
        gl_handle_destroy(h);
    }
    return harness_finish("test_dispatch");
}
