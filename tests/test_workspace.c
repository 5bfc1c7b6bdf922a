/*
 * test_workspace.c - auto's scratch memory under the handle's settings
 * (gl_set_workspace_limit, gl_set_workspace, gl_sgemm_workspace_size), on
 * the fake GPU of fake_gpu/ (no GPU needed): every argument check with its
 * status and message, what gl_sgemm_plan reports under a limit or a
 * buffer, and what auto's launcher is handed. The plans are the real
 * planner's (plan.c); only the kernels are fake. The same settings on a
 * GPU, with results checked: test_gpu_workspace.c.
 */
#include "fake_gpu.h"
#include "harness.h"
#include "engine/engine.h"
#include "internal.h"

static const gl_layout_t R = GL_ROW_MAJOR, Cm = GL_COL_MAJOR;
static const gl_transpose_t N = GL_OP_N, T = GL_OP_T;

/* The engine (auto), the one variant that takes scratch memory: the row
 * that says so (gl_variant_describe). */
static int engine = -1;

static int engine_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v)
        if (harness_variant(v).engine)
            return v;
    return -1;
}

/* A problem as a caller writes it. */
typedef struct shape {
    int64_t m, n, k;
    gl_transpose_t ta, tb;
    gl_layout_t layout;
    int64_t pad_a, pad_b; /* added to the smallest leading dimensions */
} shape;

/* The shapes the engine's goals are stated for (gemmladder-bench --shapes),
 * tall ones cut into slices, and unaligned leading dimensions: between
 * them every path and scratch of every kind (copies, parts, stream-K's
 * shares, matrix-vector slices, the last round's rows). */
static const shape shapes[] = {
    {256, 256, 65536, 0, 0, 0, 0, 0},     {1024, 1024, 32768, 0, 0, 0, 0, 0},
    {127, 4096, 4096, 0, 0, 0, 0, 0},     {4096, 127, 4096, 0, 0, 0, 0, 0},
    {16384, 128, 4096, 0, 0, 0, 0, 0},    {128, 16384, 4096, 0, 0, 0, 0, 0},
    {1, 4096, 4096, 0, 0, 0, 0, 0},       {4096, 1, 4096, 0, 0, 0, 0, 0},
    {1, 8192, 8192, 0, 0, 0, 0, 0},       {8, 4096, 4096, 0, 0, 0, 0, 0},
    {32, 4096, 4096, 0, 0, 0, 0, 0},      {4096, 4096, 64, 0, 0, 0, 0, 0},
    {8192, 8192, 128, 0, 0, 0, 0, 0},     {1000, 1000, 1000, 0, 0, 0, 0, 0},
    {4097, 4097, 4097, 0, 0, 0, 0, 0},    {6000, 6000, 6000, 0, 0, 0, 0, 0},
    {5000, 3000, 7000, 0, 0, 0, 0, 0},    {3072, 5120, 1536, 0, 0, 0, 0, 0},
    {8192, 8192, 1024, 0, 0, 0, 0, 0},    {2304, 2304, 2304, 0, 0, 0, 0, 0},
    {512, 512, 512, 0, 0, 0, 0, 0},       {128, 128, 128, 0, 0, 0, 0, 0},
    {4096, 4096, 4096, 0, 0, 0, 0, 0},    {4096, 4096, 4096, 0, 1, 0, 0, 0},
    {4096, 4096, 4096, 1, 0, 0, 0, 0},    {4096, 4096, 4096, 1, 1, 0, 0, 0},
    {4096, 4096, 4096, 0, 0, 1, 0, 0},    {25, 3971, 7238, 0, 0, 0, 1, 0},
    {922, 4276, 4706, 0, 0, 0, 0, 0},     {3193, 952, 920, 0, 0, 0, 0, 0},
    {257, 8193, 6000, 0, 0, 0, 1, 0},     {1537, 1537, 1537, 0, 0, 0, 0, 0},
    {2049, 2049, 2049, 1, 0, 0, 3, 1},    {6949, 515, 5576, 0, 1, 1, 0, 2},
    {(1 << 20) + 4096, 127, 1025, 0, 0, 0, 0, 0},
    {(1 << 20) + 129, 4097, 6000, 1, 0, 0, 1, 0},
};
#define SHAPES (sizeof shapes / sizeof shapes[0])

/* Leading dimensions of a shape's A, B and C as stored. */
static void lds_of(const shape *s, int64_t *lda, int64_t *ldb, int64_t *ldc)
{
    const bool row = s->layout == R;
    const int64_t a_rows = s->ta == T ? s->k : s->m, a_cols = s->ta == T ? s->m : s->k;
    const int64_t b_rows = s->tb == T ? s->n : s->k, b_cols = s->tb == T ? s->k : s->n;
    *lda = (row ? a_cols : a_rows) + s->pad_a;
    *ldb = (row ? b_cols : b_rows) + s->pad_b;
    *ldc = row ? s->n : s->m;
}

static gl_status_t plan_of(gl_handle_t h, const shape *s, gl_plan *out)
{
    int64_t lda, ldb, ldc;
    lds_of(s, &lda, &ldb, &ldc);
    *out = (gl_plan){.size = sizeof *out};
    return gl_sgemm_plan(h, engine, s->layout, s->ta, s->tb, s->m, s->n, s->k, NULL,
                         lda, NULL, ldb, NULL, ldc, out);
}

static int64_t need_of(gl_handle_t h, const shape *s)
{
    int64_t lda, ldb, ldc, bytes = -1;
    lds_of(s, &lda, &ldb, &ldc);
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, s->layout, s->ta, s->tb, s->m,
                                            s->n, s->k, NULL, lda, NULL, ldb, NULL, ldc, &bytes),
                 GL_STATUS_SUCCESS, NULL);
    return bytes;
}

static bool same_plan(const gl_plan *a, const gl_plan *b) { return !memcmp(a, b, sizeof *a); }

/* The plan under a limit (or buffer) a byte short of a shape's need: the
 * plan of 0, where the call is one product; where it is several (slices of
 * 2^20 rows of C, each planned on its own), those that need at most the
 * limit keep their scratch, so it takes some, but less than the need. */
static bool below_need(const shape *s, const gl_plan *below, const gl_plan *zero, int64_t need)
{
    if ((s->layout == R ? s->m : s->n) <= (1 << 20))
        return same_plan(below, zero);
    return below->scratch_bytes < need;
}

#define SHAPE_FMT "%lld x %lld x %lld (%c%c, %s, pads %lld %lld)"
#define SHAPE_ARGS(s)                                                                          \
    (long long)(s)->m, (long long)(s)->n, (long long)(s)->k, (s)->ta == T ? 'T' : 'N',         \
        (s)->tb == T ? 'T' : 'N', (s)->layout == R ? "row-major" : "column-major",             \
        (long long)(s)->pad_a, (long long)(s)->pad_b

/* Every bad argument: its status and message, and nothing changed. */
static void test_arguments(gl_handle_t h)
{
    int64_t limit = -2, bytes = -2;
    void *ws = (void *)&ws;
    /* A new handle: no cap, no buffer. */
    CHECK_STATUS(h, gl_get_workspace_limit(h, &limit), GL_STATUS_SUCCESS, NULL);
    CHECK(limit == GL_WORKSPACE_NO_LIMIT, "a new handle's limit: %lld", (long long)limit);
    CHECK_STATUS(h, gl_get_workspace(h, &ws, &bytes), GL_STATUS_SUCCESS, NULL);
    CHECK(ws == NULL && bytes == 0, "a new handle's buffer: %p, %lld", ws, (long long)bytes);

    /* No handle: the thread's message. */
    CHECK_STATUS(NULL, gl_set_workspace_limit(NULL, 0), GL_STATUS_INVALID_ARGUMENT,
                 "gl_set_workspace_limit: handle is NULL");
    CHECK_STATUS(NULL, gl_get_workspace_limit(NULL, &limit), GL_STATUS_INVALID_ARGUMENT,
                 "gl_get_workspace_limit: handle is NULL");
    CHECK_STATUS(NULL, gl_set_workspace(NULL, NULL, 0), GL_STATUS_INVALID_ARGUMENT,
                 "gl_set_workspace: handle is NULL");
    CHECK_STATUS(NULL, gl_get_workspace(NULL, &ws, &bytes), GL_STATUS_INVALID_ARGUMENT,
                 "gl_get_workspace: handle is NULL");
    CHECK_STATUS(NULL, gl_sgemm_workspace_size(NULL, engine, R, N, N, 4, 4, 4, NULL, 4,
                                               NULL, 4, NULL, 4, &bytes),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");

    /* Outputs NULL. */
    CHECK_STATUS(h, gl_get_workspace_limit(h, NULL), GL_STATUS_INVALID_ARGUMENT,
                 "gl_get_workspace_limit: bytes is NULL");
    CHECK_STATUS(h, gl_get_workspace(h, NULL, &bytes), GL_STATUS_INVALID_ARGUMENT,
                 "gl_get_workspace: workspace is NULL");
    CHECK_STATUS(h, gl_get_workspace(h, &ws, NULL), GL_STATUS_INVALID_ARGUMENT,
                 "gl_get_workspace: bytes is NULL");
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, R, N, N, 4, 4, 4, NULL, 4, NULL,
                                            4, NULL, 4, NULL),
                 GL_STATUS_INVALID_ARGUMENT, "gl_sgemm_workspace_size: bytes is NULL");

    /* The query checks its arguments as gl_sgemm_plan does. */
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, (gl_variant_t)9999, R, N, N, 4, 4, 4, NULL, 4,
                                            NULL, 4, NULL, 4, &bytes),
                 GL_STATUS_UNKNOWN_VARIANT, "9999");
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, R, N, N, 4, 4, 4, NULL, 3, NULL,
                                            4, NULL, 4, &bytes),
                 GL_STATUS_INVALID_ARGUMENT, "lda (3) must be >= max(1, K) = 4");
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, R, N, N, -1, 4, 4, NULL, 4, NULL,
                                            4, NULL, 4, &bytes),
                 GL_STATUS_INVALID_ARGUMENT, "M (-1)");
    CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, R, N, N, 4, 4, 4,
                                            (const float *)(uintptr_t)258, 4, NULL, 4, NULL, 4,
                                            &bytes),
                 GL_STATUS_INVALID_ARGUMENT, "not aligned to 4 bytes");

    /* The limit: negative refused, the old one kept. */
    CHECK_STATUS(h, gl_set_workspace_limit(h, 12345), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_set_workspace_limit(h, -1), GL_STATUS_INVALID_ARGUMENT,
                 "gl_set_workspace_limit: bytes (-1) must be >= 0");
    CHECK_STATUS(h, gl_set_workspace_limit(h, INT64_MIN), GL_STATUS_INVALID_ARGUMENT,
                 "must be >= 0");
    CHECK_STATUS(h, gl_get_workspace_limit(h, &limit), GL_STATUS_SUCCESS, NULL);
    CHECK(limit == 12345, "a refused limit keeps the one before: %lld", (long long)limit);
    CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);

    /* The buffer. */
    char *buf = fake_gpu_alloc(1 << 20);
    CHECK_STATUS(h, gl_set_workspace(h, buf + 256, (1 << 20) - 256), GL_STATUS_SUCCESS, NULL);
    const struct {
        void *p;
        int64_t bytes;
        const char *message;
    } bad[] = {
        {buf, -1, "gl_set_workspace: bytes (-1) must be >= 0"},
        {buf, INT64_MIN, "must be >= 0"},
        {NULL, 256, "gl_set_workspace: workspace is NULL but bytes is 256"},
        {buf + 4, 1024, "is not aligned to 256 bytes"},
        {buf + 128, 1024, "is not aligned to 256 bytes"},
        {buf, (1 << 20) + 1, "of 1048577 bytes, but its allocation has only 1048576 bytes"},
        {buf + 512, (1 << 20) - 256, "but its allocation has only 1048064 bytes from that"},
        {buf, INT64_MAX, "but its allocation has only"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK_STATUS(h, gl_set_workspace(h, bad[i].p, bad[i].bytes), GL_STATUS_INVALID_ARGUMENT,
                     bad[i].message);
        CHECK_STATUS(h, gl_get_workspace(h, &ws, &bytes), GL_STATUS_SUCCESS, NULL);
        CHECK(ws == buf + 256 && bytes == (1 << 20) - 256,
              "case %zu: a refused buffer keeps the one before (%p, %lld)", i, ws,
              (long long)bytes);
    }
    /* Host memory, aligned or not. */
    static _Alignas(256) char host[4096];
    CHECK_STATUS(h, gl_set_workspace(h, host, sizeof host), GL_STATUS_INVALID_ARGUMENT,
                 "is not device memory (host memory)");
    /* The whole allocation, and back to the pool. */
    CHECK_STATUS(h, gl_set_workspace(h, buf, 1 << 20), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_get_workspace(h, &ws, &bytes), GL_STATUS_SUCCESS, NULL);
    CHECK(ws == buf && bytes == 1 << 20, "the buffer set: %p, %lld", ws, (long long)bytes);
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(h, gl_get_workspace(h, &ws, &bytes), GL_STATUS_SUCCESS, NULL);
    CHECK(ws == NULL && bytes == 0, "back to the pool: %p, %lld", ws, (long long)bytes);
    fake_gpu_free(buf);
}

/* A limit of 0: no plan takes scratch or copies an operand, and each is
 * the plan the planner makes without scratch; a limit (or buffer) of what
 * gl_sgemm_workspace_size says runs the plan with all the scratch it
 * wants, one byte less the plan of 0. */
static void test_plans_obey_the_limit(gl_handle_t h)
{
    const uint64_t big = (uint64_t)16 << 30;
    char *buf = fake_gpu_alloc(big); /* bookkeeping only: nothing is written */
    int with_scratch = 0;
    for (size_t i = 0; i < SHAPES; ++i) {
        const shape *s = &shapes[i];
        gl_plan free_plan, zero, at, below;
        CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, plan_of(h, s, &free_plan), GL_STATUS_SUCCESS, NULL);
        const int64_t need = need_of(h, s);
        CHECK(need == free_plan.scratch_bytes,
              SHAPE_FMT ": gl_sgemm_workspace_size says %lld, the plan with no limit takes %lld",
              SHAPE_ARGS(s), (long long)need, (long long)free_plan.scratch_bytes);
        with_scratch += need > 0;

        CHECK_STATUS(h, gl_set_workspace_limit(h, 0), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, plan_of(h, s, &zero), GL_STATUS_SUCCESS, NULL);
        CHECK(zero.scratch_bytes == 0 && zero.copies == 0 && zero.path != GL_PATH_PACKED &&
                  zero.path != GL_PATH_SPLIT_K && zero.path != GL_PATH_STREAM_K &&
                  zero.last_slice_path != GL_PATH_PACKED &&
                  zero.last_slice_path != GL_PATH_SPLIT_K &&
                  zero.last_slice_path != GL_PATH_STREAM_K,
              SHAPE_FMT ", limit 0: %lld bytes, copies %d, path %d (%s)", SHAPE_ARGS(s),
              (long long)zero.scratch_bytes, (int)zero.copies, (int)zero.path, zero.why);
        CHECK(need_of(h, s) == need, SHAPE_FMT ": the query ignores the limit", SHAPE_ARGS(s));

        /* The plan of 0 is the planner's without scratch (slices of 2^20
         * rows aside, which test_dispatch's slice test covers). */
        if (s->m <= (1 << 20) && s->n <= (1 << 20)) {
            int64_t lda, ldb, ldc;
            lds_of(s, &lda, &ldb, &ldc);
            const bool row = s->layout == R;
            const float *a = (const float *)(uintptr_t)256, *b = a;
            gl_problem q = row ? (gl_problem){(int)s->m, (int)s->n, (int)s->k, 1.0f, 0.0f, a,
                                              lda, s->ta == T, b, ldb, s->tb == T,
                                              (float *)(uintptr_t)256, ldc}
                               : (gl_problem){(int)s->n, (int)s->m, (int)s->k, 1.0f, 0.0f, b,
                                              ldb, s->tb == T, a, lda, s->ta == T,
                                              (float *)(uintptr_t)256, ldc};
            const gl_tile_params tiles =
                gl_resolve_tiles(h, gl_variant_find(engine), q.m, q.n, NULL);
            gl_engine_plan ep, tail;
            gl_engine_plan_call(&q, &tiles, false, h->sm_count, h->code_cc, false, &ep, &tail);
            CHECK(ep.path == (gl_path_t)zero.path && ep.splits == zero.splits &&
                      (int)ep.kernel == zero.kernel && ep.bytes == 0 &&
                      (ep.tail_rows == 0 || tail.bytes == 0),
                  SHAPE_FMT ", limit 0: path %d, the planner's without scratch %d",
                  SHAPE_ARGS(s), (int)zero.path, (int)ep.path);
        }
        if (need == 0) {
            CHECK(same_plan(&zero, &free_plan),
                  SHAPE_FMT ": needs no scratch, yet a limit of 0 changes its plan",
                  SHAPE_ARGS(s));
            continue;
        }
        CHECK_STATUS(h, gl_set_workspace_limit(h, need), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, plan_of(h, s, &at), GL_STATUS_SUCCESS, NULL);
        CHECK(same_plan(&at, &free_plan),
              SHAPE_FMT ": a limit of its need (%lld) runs another plan (%s) than no limit (%s)",
              SHAPE_ARGS(s), (long long)need, at.why, free_plan.why);
        CHECK_STATUS(h, gl_set_workspace_limit(h, need - 1), GL_STATUS_SUCCESS, NULL);
        CHECK_STATUS(h, plan_of(h, s, &below), GL_STATUS_SUCCESS, NULL);
        CHECK(below_need(s, &below, &zero, need),
              SHAPE_FMT ": a limit one byte short of %lld runs another plan (%s) than 0 (%s)",
              SHAPE_ARGS(s), (long long)need, below.why, zero.why);

        /* The caller's buffer: the same, alone and under a limit. */
        CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
        if ((uint64_t)need <= big) {
            CHECK_STATUS(h, gl_set_workspace(h, buf, need), GL_STATUS_SUCCESS, NULL);
            CHECK_STATUS(h, plan_of(h, s, &at), GL_STATUS_SUCCESS, NULL);
            CHECK(same_plan(&at, &free_plan), SHAPE_FMT ": a buffer of %lld bytes: %s",
                  SHAPE_ARGS(s), (long long)need, at.why);
            CHECK_STATUS(h, gl_set_workspace(h, buf, need - 1), GL_STATUS_SUCCESS, NULL);
            CHECK_STATUS(h, plan_of(h, s, &below), GL_STATUS_SUCCESS, NULL);
            CHECK(below_need(s, &below, &zero, need), SHAPE_FMT ": a buffer of %lld bytes: %s",
                  SHAPE_ARGS(s), (long long)need - 1, below.why);
            CHECK_STATUS(h, gl_set_workspace(h, buf, (int64_t)big), GL_STATUS_SUCCESS, NULL);
            CHECK_STATUS(h, gl_set_workspace_limit(h, need - 1), GL_STATUS_SUCCESS, NULL);
            CHECK_STATUS(h, plan_of(h, s, &below), GL_STATUS_SUCCESS, NULL);
            CHECK(below_need(s, &below, &zero, need),
                  SHAPE_FMT ": a big buffer under a limit one byte short: %s", SHAPE_ARGS(s),
                  below.why);
            CHECK(need_of(h, s) == need, SHAPE_FMT ": the query ignores the buffer",
                  SHAPE_ARGS(s));
            CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
        }
    }
    CHECK(with_scratch >= 10, "%d of %zu shapes take scratch", with_scratch, SHAPES);
    CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
    fake_gpu_free(buf);
}

/* Other variants take no scratch, whatever the settings; empty products
 * and K = 0 none either. */
static void test_other_variants(gl_handle_t h)
{
    for (int v = 0; v < gl_variant_count(); ++v) {
        int64_t bytes = -1;
        CHECK_STATUS(h, gl_sgemm_workspace_size(h, (gl_variant_t)v, R, N, N, 4097, 4097, 4097,
                                                NULL, 4097, NULL, 4097, NULL, 4097, &bytes),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(harness_variant(v).engine ? bytes > 0 : bytes == 0, "variant %d: %lld bytes", v,
              (long long)bytes);
    }
    const int64_t sizes[][3] = {{0, 4097, 4097}, {4097, 0, 4097}, {4097, 4097, 0}};
    for (size_t i = 0; i < 3; ++i) {
        int64_t bytes = -1;
        CHECK_STATUS(h, gl_sgemm_workspace_size(h, engine, Cm, T, T, sizes[i][0],
                                                sizes[i][1], sizes[i][2], NULL, 4097, NULL, 4097,
                                                NULL, 4097, &bytes),
                     GL_STATUS_SUCCESS, NULL);
        CHECK(bytes == 0, "%lld x %lld x %lld: %lld bytes", (long long)sizes[i][0],
              (long long)sizes[i][1], (long long)sizes[i][2], (long long)bytes);
    }
}

/* What auto's launcher is handed: the pool and no cap, the limit, the
 * caller's buffer on the stream it was set for and the pool on another. */
static void test_what_auto_is_handed(gl_handle_t h)
{
    float *a = fake_gpu_alloc(4 * 64), *b = fake_gpu_alloc(4 * 64), *c = fake_gpu_alloc(4 * 64);
    char *buf = fake_gpu_alloc(1 << 20);
    void *ws = NULL;
    size_t budget = 0;
#define RUN(what, want_ws, want_budget)                                                        \
    do {                                                                                       \
        CHECK_STATUS(h, gl_sgemm(h, engine, 4, 4, 4, a, b, c), GL_STATUS_SUCCESS,     \
                     NULL);                                                                    \
        CHECK(fake_gpu_last_auto(&ws, &budget) && ws == (void *)(want_ws) &&                   \
                  budget == (size_t)(want_budget),                                             \
              "%s: auto was handed buffer %p and %zu bytes", what, ws, budget);                \
    } while (0)
    RUN("a new handle", NULL, GL_WORKSPACE_NO_LIMIT);
    CHECK_STATUS(h, gl_set_workspace_limit(h, 0), GL_STATUS_SUCCESS, NULL);
    RUN("limit 0", NULL, 0);
    CHECK_STATUS(h, gl_set_workspace_limit(h, 4096), GL_STATUS_SUCCESS, NULL);
    RUN("limit 4096", NULL, 4096);
    CHECK_STATUS(h, gl_set_workspace(h, buf, 1 << 20), GL_STATUS_SUCCESS, NULL);
    RUN("a buffer of 1 MiB under a limit of 4096", buf, 4096);
    CHECK_STATUS(h, gl_set_workspace_limit(h, GL_WORKSPACE_NO_LIMIT), GL_STATUS_SUCCESS, NULL);
    RUN("a buffer of 1 MiB", buf, 1 << 20);
    CHECK_STATUS(h, gl_set_workspace(h, buf, 0), GL_STATUS_SUCCESS, NULL);
    RUN("a buffer of 0 bytes", buf, 0);
    CHECK_STATUS(h, gl_set_workspace(h, buf, 1 << 20), GL_STATUS_SUCCESS, NULL);

    /* Another stream: the pool; back on the buffer's stream: the buffer. */
    void *other = (void *)(uintptr_t)0x5000;
    CHECK_STATUS(h, gl_set_stream(h, other), GL_STATUS_SUCCESS, NULL);
    RUN("another stream", NULL, GL_WORKSPACE_NO_LIMIT);
    void *got = NULL;
    int64_t bytes = 0;
    CHECK_STATUS(h, gl_get_workspace(h, &got, &bytes), GL_STATUS_SUCCESS, NULL);
    CHECK(got == buf && bytes == 1 << 20, "the buffer stays set on another stream");
    gl_plan plan = {.size = sizeof plan}, there = {.size = sizeof there};
    CHECK_STATUS(h, gl_set_workspace(h, buf, 256), GL_STATUS_SUCCESS, NULL); /* for `other` now */
    CHECK_STATUS(h, gl_sgemm_plan(h, engine, R, N, N, 4097, 4097, 4097, NULL, 4097,
                                  NULL, 4097, NULL, 4097, &plan),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(plan.scratch_bytes == 0, "a 256-byte buffer: 4097^3 planned without scratch");
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
    RUN("the default stream, the buffer set for another", NULL, GL_WORKSPACE_NO_LIMIT);
    CHECK_STATUS(h, gl_sgemm_plan(h, engine, R, N, N, 4097, 4097, 4097, NULL, 4097,
                                  NULL, 4097, NULL, 4097, &there),
                 GL_STATUS_SUCCESS, NULL);
    CHECK(there.scratch_bytes > 0, "the pool on the default stream: 4097^3 packed");
    CHECK_STATUS(h, gl_set_stream(h, other), GL_STATUS_SUCCESS, NULL);
    RUN("back on the buffer's stream", buf, 256);
    CHECK_STATUS(h, gl_set_workspace(h, NULL, 0), GL_STATUS_SUCCESS, NULL);
    RUN("back to the pool", NULL, GL_WORKSPACE_NO_LIMIT);
    CHECK_STATUS(h, gl_set_stream(h, NULL), GL_STATUS_SUCCESS, NULL);
#undef RUN
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c), fake_gpu_free(buf);
}

int main(void)
{
    engine = engine_variant();
    CHECK(engine >= 0, "a variant's row says it is the engine");
    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    if (h && engine >= 0) {
        test_arguments(h);
        test_plans_obey_the_limit(h);
        test_other_variants(h);
        test_what_auto_is_handed(h);
        gl_handle_destroy(h);
    }
    return harness_finish("test_workspace");
}
