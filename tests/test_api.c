/*
 * test_api.c - the public API without a GPU: names, pinned values, version,
 * and every argument check of gl_sgemm_ex / gl_sgemm. The argument checks run
 * before the handle is looked at, so a NULL handle reaches each of them and
 * the message lands in gl_last_error(NULL). Also checks that no failing call
 * prints anything.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Pinned values: changing any of these breaks the ABI. Every enumerator of
 * the public header has its line here (check_enum_pins.py checks that). */
#define PINNED(name, value) _Static_assert(name == value, #name " is pinned to " #value)
PINNED(GL_STATUS_SUCCESS, 0);
PINNED(GL_STATUS_INVALID_ARGUMENT, 1);
PINNED(GL_STATUS_UNKNOWN_VARIANT, 2);
PINNED(GL_STATUS_UNSUPPORTED_VARIANT, 3);
PINNED(GL_STATUS_NO_DEVICE, 4);
PINNED(GL_STATUS_CUDA_ERROR, 5);
PINNED(GL_STATUS_CUBLAS_ERROR, 6);
PINNED(GL_STATUS_TUNING_ERROR, 7);
PINNED(GL_STATUS_ALLOC_FAILED, 8);
PINNED(GL_VARIANT_CUBLAS, 0);
PINNED(GL_VARIANT_NAIVE, 1);
PINNED(GL_VARIANT_COALESCED, 2);
PINNED(GL_VARIANT_SHARED, 3);
PINNED(GL_VARIANT_BLOCKTILE_1D, 4);
PINNED(GL_VARIANT_BLOCKTILE_2D, 5);
PINNED(GL_VARIANT_VECTORIZED, 6);
PINNED(GL_VARIANT_AUTOTUNED, 7);
PINNED(GL_VARIANT_WARPTILE, 8);
PINNED(GL_VARIANT_AUTO, 9);
PINNED(GL_VARIANT_TF32, 10);
PINNED(GL_VARIANT_CUBLAS_TF32, 11);
PINNED(GL_VARIANT_PIPELINED, 12);
PINNED(GL_OP_N, 0);
PINNED(GL_OP_T, 1);
PINNED(GL_ROW_MAJOR, 0);
PINNED(GL_COL_MAJOR, 1);
PINNED(GL_TILES_FIXED, 0);
PINNED(GL_TILES_BUILTIN, 1);
PINNED(GL_TILES_OVERRIDE, 2);
PINNED(GL_TILES_PINNED, 3);
PINNED(GL_TILES_DEFAULT, 4);
PINNED(GL_TILES_FILL, 5);
PINNED(GL_TILES_THIN, 6);
PINNED(GL_PATH_EDGE_TESTS, 0);
PINNED(GL_PATH_RUNG, 0); /* the name before 1.2 */
PINNED(GL_PATH_INTERIOR, 1);
PINNED(GL_PATH_EDGE_WINDOWS, 2);
PINNED(GL_PATH_PACKED, 3);
PINNED(GL_PATH_CUBLAS, 4);
PINNED(GL_PATH_SCALE, 5);
PINNED(GL_PATH_GEMV, 6);
PINNED(GL_PATH_SPLIT_K, 7);
PINNED(GL_PATH_STREAM_K, 8);
PINNED(GL_PATH_BATCH, 9);
PINNED(GL_PRECISION_FP32, 0);
PINNED(GL_PRECISION_TF32, 1);
PINNED(GL_PRECISION_FP32_EMULATED, 2);

static void test_names(void)
{
    static const char *const statuses[] = {
        "success", "invalid argument", "unknown variant", "variant not supported on this device",
        "no CUDA device", "CUDA error", "cuBLAS error", "tuning table error", "allocation failed"};
    for (int s = 0; s < 9; ++s)
        CHECK(strcmp(gl_status_string((gl_status_t)s), statuses[s]) == 0, "status %d is '%s'", s,
              gl_status_string((gl_status_t)s));
    CHECK(strcmp(gl_status_string((gl_status_t)9), "unknown status") == 0, "status 9");
    CHECK(strcmp(gl_status_string((gl_status_t)-1), "unknown status") == 0, "status -1");

    /* Every id the library has: a name of its own that maps back to it. */
    const int count = gl_variant_count();
    CHECK(count >= 1, "gl_variant_count() = %d", count);
    for (int v = 0; v < count; ++v) {
        const char *name = gl_variant_name((gl_variant_t)v);
        CHECK(name && *name, "variant %d has a name", v);
        if (!name)
            continue;
        gl_variant_t back = (gl_variant_t)-1;
        CHECK_STATUS(NULL, gl_variant_from_name(name, &back), GL_STATUS_SUCCESS, NULL);
        CHECK(back == (gl_variant_t)v, "gl_variant_from_name(%s) = %d", name, (int)back);
    }
    CHECK(gl_variant_name((gl_variant_t)count) == NULL, "name of %d", count);
    CHECK(gl_variant_name((gl_variant_t)-1) == NULL, "name of -1");
    /* Names are part of the ABI like the ids pinned above: a released one
     * never changes (a program may call gl_variant_from_name("warptile")). */
    static const struct { gl_variant_t id; const char *name; } released[] = {
        {GL_VARIANT_CUBLAS, "cublas"},         {GL_VARIANT_NAIVE, "naive"},
        {GL_VARIANT_COALESCED, "coalesced"},   {GL_VARIANT_SHARED, "shared"},
        {GL_VARIANT_BLOCKTILE_1D, "blocktile_1d"}, {GL_VARIANT_BLOCKTILE_2D, "blocktile_2d"},
        {GL_VARIANT_VECTORIZED, "vectorized"}, {GL_VARIANT_AUTOTUNED, "autotuned"},
        {GL_VARIANT_WARPTILE, "warptile"},     {GL_VARIANT_AUTO, "auto"},
        {GL_VARIANT_TF32, "tf32"},             {GL_VARIANT_CUBLAS_TF32, "cublas_tf32"},
        {GL_VARIANT_PIPELINED, "pipelined"},
    };
    for (size_t i = 0; i < sizeof released / sizeof released[0]; ++i) {
        const char *name = gl_variant_name(released[i].id);
        CHECK(name && strcmp(name, released[i].name) == 0, "released variant %d is '%s', not '%s'",
              (int)released[i].id, name ? name : "NULL", released[i].name);
    }
    gl_variant_t v;
    CHECK_STATUS(NULL, gl_variant_from_name("Naive", &v), GL_STATUS_UNKNOWN_VARIANT, "'Naive'");
    CHECK_STATUS(NULL, gl_variant_from_name("", &v), GL_STATUS_UNKNOWN_VARIANT, "''");
    CHECK_STATUS(NULL, gl_variant_from_name(NULL, &v), GL_STATUS_INVALID_ARGUMENT, "name is NULL");
    CHECK_STATUS(NULL, gl_variant_from_name("naive", NULL), GL_STATUS_INVALID_ARGUMENT,
                 "variant is NULL");
}

/* The rows' facts and tile fields through the public queries (no GPU). */
static void test_variant_facts(void)
{
    int references = 0, engines = 0, tuned = 0;
    int of_class[3] = {0}, references_of[3] = {0}; /* per precision class */
    for (int v = 0; v < gl_variant_count(); ++v) {
        gl_variant_info info = {.size = sizeof info};
        CHECK_STATUS(NULL, gl_variant_describe((gl_variant_t)v, &info), GL_STATUS_SUCCESS, NULL);
        const bool known_class = info.precision >= GL_PRECISION_FP32 &&
                                 info.precision <= GL_PRECISION_FP32_EMULATED;
        if (known_class)
            ++of_class[info.precision], references_of[info.precision] += info.reference;
        /* auto is FP32 and runs only FP32 kernels */
        CHECK(!(info.engine || info.auto_runs) || info.precision == GL_PRECISION_FP32,
              "%s: precision %d, engine %d, auto_runs %d", info.name, (int)info.precision,
              (int)info.engine, (int)info.auto_runs);
        CHECK(info.variant == v && strcmp(info.name, gl_variant_name((gl_variant_t)v)) == 0 &&
                  known_class &&
                  info.config_count == gl_variant_config_count((gl_variant_t)v) &&
                  info.takes_rows == (info.rows_of == v) && info.reserved[0] == 0,
              "gl_variant_describe(%d)", v);
        references += info.reference, engines += info.engine, tuned += info.takes_rows;
        for (int i = 0; i < info.tile_field_count; ++i) {
            gl_tile_field_info field = {.size = sizeof field};
            CHECK_STATUS(NULL, gl_variant_tile_field((gl_variant_t)v, i, &field),
                         GL_STATUS_SUCCESS, NULL);
            CHECK(*field.name && field.min >= 1 && field.min <= field.max,
                  "%s field %d: %s %d..%d", info.name, i, field.name, (int)field.min,
                  (int)field.max);
            /* each configuration's value of it, by name */
            for (int c = 0; c < info.config_count; ++c) {
                gl_tiles t = {.size = sizeof t};
                int32_t value = -1;
                CHECK(gl_variant_config((gl_variant_t)v, c, &t) == GL_STATUS_SUCCESS &&
                          gl_tiles_get(&t, field.name, &value) == GL_STATUS_SUCCESS &&
                          value >= field.min && value <= field.max,
                      "%s configuration %d: %s = %d", info.name, c, field.name, (int)value);
            }
        }
        gl_tile_field_info field = {.size = sizeof field};
        CHECK_STATUS(NULL, gl_variant_tile_field((gl_variant_t)v, info.tile_field_count, &field),
                     GL_STATUS_INVALID_ARGUMENT, "is outside");
    }
    CHECK(references >= 1 && engines == 1 && tuned >= 1, "%d references, %d engines, %d tuned",
          references, engines, tuned);
    /* The tolerance the GPU tests hold each variant to (harness.h) is its
     * class's as the query reports it: FP32's 1e-5 for FP32 (and FP32
     * emulated), for TF32 a looser bound that grows with K. */
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_info info = harness_variant(v);
        const double t1 = harness_tolerance(v, 1), t4096 = harness_tolerance(v, 4096);
        CHECK(t1 > 0 && t1 == harness_class_tolerance(info.precision, 1) &&
                  t4096 == harness_class_tolerance(info.precision, 4096),
              "%s: tolerance %g for precision class %d", info.name, t1, (int)info.precision);
        if (info.precision == GL_PRECISION_TF32)
            CHECK(t1 > HARNESS_FP32_TOLERANCE && t4096 > t1 && t4096 < 1e-2,
                  "%s (tf32): tolerance %g at K = 1, %g at K = 4096", info.name, t1, t4096);
        else
            CHECK(t1 == HARNESS_FP32_TOLERANCE && t4096 == HARNESS_FP32_TOLERANCE,
                  "%s: tolerance %g, %g", info.name, t1, t4096);
    }
    /* One reference per precision class that has variants, none for others. */
    for (int c = 0; c < 3; ++c)
        CHECK(references_of[c] == (of_class[c] > 0), "precision class %d: %d variants, %d "
              "references", c, of_class[c], references_of[c]);

    gl_variant_info info = {.size = sizeof info - 1};
    const gl_variant_t unknown = (gl_variant_t)gl_variant_count();
    CHECK_STATUS(NULL, gl_variant_describe(unknown, &info), GL_STATUS_UNKNOWN_VARIANT,
                 "gl_variant_describe: variant");
    CHECK_STATUS(NULL, gl_variant_describe((gl_variant_t)0, NULL), GL_STATUS_INVALID_ARGUMENT,
                 "pointer is NULL");
    CHECK_STATUS(NULL, gl_variant_describe((gl_variant_t)0, &info), GL_STATUS_INVALID_ARGUMENT,
                 "set it to sizeof(gl_variant_info)");
    gl_tile_field_info field = {.size = sizeof field};
    CHECK_STATUS(NULL, gl_variant_tile_field(unknown, 0, &field), GL_STATUS_UNKNOWN_VARIANT,
                 NULL);
    CHECK_STATUS(NULL, gl_variant_tile_field((gl_variant_t)0, -1, &field),
                 GL_STATUS_INVALID_ARGUMENT, "index -1");
    CHECK_STATUS(NULL, gl_variant_tile_field((gl_variant_t)0, 0, NULL),
                 GL_STATUS_INVALID_ARGUMENT, "pointer is NULL");

    /* Named fields: the nine members, and nothing else yet. */
    gl_tiles t = {.size = sizeof t};
    int32_t value = 0;
    CHECK_STATUS(NULL, gl_tiles_set(&t, "wniter", 3), GL_STATUS_SUCCESS, NULL);
    CHECK(t.wniter == 3, "gl_tiles_set writes the member");
    t.bk = 16;
    CHECK_STATUS(NULL, gl_tiles_get(&t, "bk", &value), GL_STATUS_SUCCESS, NULL);
    CHECK(value == 16, "gl_tiles_get reads the member");
    CHECK_STATUS(NULL, gl_tiles_get(&t, "colour", &value), GL_STATUS_INVALID_ARGUMENT,
                 "gl_tiles_get: no tile field is named 'colour' (bm, bn, bk");
    CHECK_STATUS(NULL, gl_tiles_set(&t, "", 1), GL_STATUS_INVALID_ARGUMENT, "named ''");
    CHECK_STATUS(NULL, gl_tiles_get(&t, NULL, &value), GL_STATUS_INVALID_ARGUMENT,
                 "field is NULL");
    CHECK_STATUS(NULL, gl_tiles_get(&t, "bm", NULL), GL_STATUS_INVALID_ARGUMENT,
                 "value is NULL");
    CHECK_STATUS(NULL, gl_tiles_get(NULL, "bm", &value), GL_STATUS_INVALID_ARGUMENT,
                 "pointer is NULL");
    t.size = 8;
    CHECK_STATUS(NULL, gl_tiles_set(&t, "bm", 1), GL_STATUS_INVALID_ARGUMENT,
                 "gl_tiles.size is 8");
    for (size_t i = 0; i < sizeof t.reserved / sizeof t.reserved[0]; ++i)
        CHECK(t.reserved[i] == 0, "reserved[%zu] untouched", i);
}

static void test_version(void)
{
    CHECK(gl_version() == GL_VERSION, "gl_version() = %d, header says %d", (int)gl_version(),
          GL_VERSION);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", GL_VERSION_MAJOR, GL_VERSION_MINOR, GL_VERSION_PATCH);
    CHECK(strcmp(gl_version_string(), want) == 0, "gl_version_string() = %s, want %s",
          gl_version_string(), want);
    CHECK(GL_MAKE_VERSION(1, 2, 3) == 10203, "GL_MAKE_VERSION");
}

static void test_handle_arguments(void)
{
    CHECK_STATUS(NULL, gl_handle_create(NULL), GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    gl_handle_destroy(NULL); /* no-op */
    CHECK_STATUS(NULL, gl_set_stream(NULL, NULL), GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    void *stream = (void *)1;
    CHECK_STATUS(NULL, gl_get_stream(NULL, &stream), GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK(gl_handle_device(NULL) == -1, "gl_handle_device(NULL)");
    char unknown[64];
    snprintf(unknown, sizeof unknown, "variant %d", (int)gl_variant_count());
    CHECK_STATUS(NULL, gl_variant_available(NULL, (gl_variant_t)gl_variant_count()),
                 GL_STATUS_UNKNOWN_VARIANT, unknown);
    CHECK_STATUS(NULL, gl_variant_available(NULL, GL_VARIANT_NAIVE), GL_STATUS_INVALID_ARGUMENT,
                 "handle is NULL");

    /* Without a GPU creation fails cleanly; with one it succeeds. */
    gl_handle_t h = (gl_handle_t)&h;
    const gl_status_t st = gl_handle_create(&h);
    if (st == GL_STATUS_SUCCESS) {
        CHECK(h != NULL, "handle set");
        gl_handle_destroy(h);
    } else {
        CHECK(st == GL_STATUS_NO_DEVICE, "gl_handle_create: %s: %s", gl_status_string(st),
              gl_last_error(NULL));
        CHECK(h == NULL, "handle cleared on failure");
        /* Named once: "gl_handle_create: no NVIDIA driver is installed ...". */
        const char *message = gl_last_error(NULL), *name = "gl_handle_create: ";
        CHECK(strncmp(message, name, strlen(name)) == 0 && !strstr(message + 1, name),
              "message: %s", message);
    }
}

/* Device-looking pointers: the argument checks never dereference them. */
static const float *const A = (const float *)0x1000;
static const float *const B = (const float *)0x2000;
static float *const C = (float *)0x3000;

#define EX(...) gl_sgemm_ex(NULL, __VA_ARGS__)

static void test_sgemm_arguments(void)
{
    const gl_variant_t V = GL_VARIANT_NAIVE;
    const gl_layout_t R = GL_ROW_MAJOR, Cm = GL_COL_MAJOR;
    const gl_transpose_t N = GL_OP_N, T = GL_OP_T;

    /* Variant, layout, transposes. */
    char unknown[64];
    snprintf(unknown, sizeof unknown, "variant %d is not one of 0..%d", (int)gl_variant_count(),
             (int)gl_variant_count() - 1);
    CHECK_STATUS(NULL, EX((gl_variant_t)gl_variant_count(), R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_UNKNOWN_VARIANT, unknown);
    CHECK_STATUS(NULL, EX((gl_variant_t)-1, R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_UNKNOWN_VARIANT, "variant -1");
    CHECK_STATUS(NULL, EX(V, (gl_layout_t)2, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "layout (2)");
    CHECK_STATUS(NULL, EX(V, R, (gl_transpose_t)2, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "transA (2)");
    CHECK_STATUS(NULL, EX(V, R, N, (gl_transpose_t)-1, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "transB (-1)");

    /* Sizes. */
    CHECK_STATUS(NULL, EX(V, R, N, N, -1, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "M (-1) must be between 0 and 2147483647");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, -5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "N (-5)");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, -6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "K (-6)");
    CHECK_STATUS(NULL, EX(V, R, N, N, 2147483648LL, 5, 6, 1, A, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "M (2147483648)");

    /* Leading dimensions, row-major: lda covers A's stored columns. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 5, B, 5, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "lda (5) must be >= max(1, K) = 6 for a row-major A with transA = N");
    CHECK_STATUS(NULL, EX(V, R, T, N, 4, 5, 6, 1, A, 3, B, 5, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "lda (3) must be >= max(1, M) = 4 for a row-major A with transA = T");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, B, 4, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "ldb (4) must be >= max(1, N) = 5 for a row-major B with transB = N");
    CHECK_STATUS(NULL, EX(V, R, N, T, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "ldb (5) must be >= max(1, K) = 6 for a row-major B with transB = T");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 4), GL_STATUS_INVALID_ARGUMENT,
                 "ldc (4) must be >= max(1, N) = 5 for a row-major C");
    /* Column-major: lda covers A's stored rows. */
    CHECK_STATUS(NULL, EX(V, Cm, N, N, 4, 5, 6, 1, A, 3, B, 6, 0, C, 4),
                 GL_STATUS_INVALID_ARGUMENT,
                 "lda (3) must be >= max(1, M) = 4 for a column-major A with transA = N");
    CHECK_STATUS(NULL, EX(V, Cm, T, N, 4, 5, 6, 1, A, 5, B, 6, 0, C, 4),
                 GL_STATUS_INVALID_ARGUMENT,
                 "lda (5) must be >= max(1, K) = 6 for a column-major A with transA = T");
    CHECK_STATUS(NULL, EX(V, Cm, N, N, 4, 5, 6, 1, A, 4, B, 5, 0, C, 4),
                 GL_STATUS_INVALID_ARGUMENT,
                 "ldb (5) must be >= max(1, K) = 6 for a column-major B with transB = N");
    CHECK_STATUS(NULL, EX(V, Cm, N, T, 4, 5, 6, 1, A, 4, B, 4, 0, C, 4),
                 GL_STATUS_INVALID_ARGUMENT,
                 "ldb (4) must be >= max(1, N) = 5 for a column-major B with transB = T");
    CHECK_STATUS(NULL, EX(V, Cm, N, N, 4, 5, 6, 1, A, 4, B, 6, 0, C, 3),
                 GL_STATUS_INVALID_ARGUMENT, "ldc (3) must be >= max(1, M) = 4 for a column-major C");
    /* ld >= 1 even when the dimension is 0, and ld is checked for empty products too. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 0, 1, A, 0, B, 5, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "lda (0) must be >= max(1, K) = 1");
    CHECK_STATUS(NULL, EX(V, R, N, N, 0, 5, 6, 1, A, -2, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "lda (-2)");

    /* NULL pointers the call would use. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, NULL, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "A is NULL (M = 4, K = 6)");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, NULL, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "B is NULL (K = 6, N = 5)");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, NULL, 5),
                 GL_STATUS_INVALID_ARGUMENT, "C is NULL (M = 4, N = 5)");
    /* Pointers off a float's 4-byte boundary. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, (const float *)0x1002, 6, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "A (0x1002) is not aligned to 4 bytes");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, (const float *)0x2001, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "B (0x2001) is not aligned");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, (float *)0x3003, 5),
                 GL_STATUS_INVALID_ARGUMENT, "C (0x3003) is not aligned");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 0, 1, (const float *)0x1002, 1, B, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL"); /* A unused when K = 0 */
    /* ...and ones it would not: K == 0 or alpha == 0 never read A and B, and
     * M == 0 or N == 0 touches nothing; the next failure is the NULL handle. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 0, 1, NULL, 1, NULL, 5, 0, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 0, NULL, 6, NULL, 5, 2, C, 5),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, EX(V, R, N, N, 0, 5, 6, 1, NULL, 6, NULL, 5, 0, NULL, 5),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 0, 6, 1, NULL, 6, NULL, 1, 0, NULL, 1),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    /* Everything right but the handle. */
    CHECK_STATUS(NULL, EX(V, R, N, N, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), GL_STATUS_INVALID_ARGUMENT,
                 "handle is NULL");
    CHECK_STATUS(NULL, EX(GL_VARIANT_CUBLAS, Cm, T, T, 4, 5, 6, 1, A, 6, B, 5, 0, C, 4),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");

    /* The short call derives its leading dimensions from the sizes. */
    CHECK_STATUS(NULL, gl_sgemm(NULL, (gl_variant_t)42, 4, 5, 6, A, B, C),
                 GL_STATUS_UNKNOWN_VARIANT, "variant 42");
    CHECK_STATUS(NULL, gl_sgemm(NULL, V, 4, 5, -6, A, B, C), GL_STATUS_INVALID_ARGUMENT, "K (-6)");
    CHECK_STATUS(NULL, gl_sgemm(NULL, V, 4, 5, 6, A, NULL, C), GL_STATUS_INVALID_ARGUMENT,
                 "B is NULL");
    CHECK_STATUS(NULL, gl_sgemm(NULL, V, 4, 5, 6, A, B, C), GL_STATUS_INVALID_ARGUMENT,
                 "handle is NULL");
    CHECK_STATUS(NULL, gl_sgemm(NULL, V, 0, 0, 0, NULL, NULL, NULL), GL_STATUS_INVALID_ARGUMENT,
                 "handle is NULL");
}

/* ---- C overlapping A or B ---------------------------------------------------- */

static uint64_t overlap_state;
static int64_t overlap_rand(int64_t n) /* uniform in 0 .. n - 1 */
{
    /* xorshift64, with no bit shifted out (clang's integer checks run this) */
    uint64_t x = overlap_state;
    x ^= (x & ((1ULL << 51) - 1)) << 13;
    x ^= x >> 7;
    x ^= (x & ((1ULL << 47) - 1)) << 17;
    overlap_state = x;
    return (int64_t)(x % (uint64_t)n);
}

/* A stored operand as element offsets: `outer` runs of `inner`, `ld` apart. */
typedef struct stored { int64_t outer, inner, ld; } stored;

static int64_t stored_span(stored x) { return (x.outer - 1) * x.ld + x.inner; }

static bool stored_has(stored x, int64_t e)
{
    return e >= 0 && e < stored_span(x) && e % x.ld < x.inner;
}

/* Whether x, based at element 0, and y, based at element d, share an element. */
static bool brute_share(stored x, stored y, int64_t d)
{
    for (int64_t r = 0; r < y.outer; ++r)
        for (int64_t c = 0; c < y.inner; ++c)
            if (stored_has(x, d + r * y.ld + c))
                return true;
    return false;
}

/* Every product call with C placed before, across, inside and after A (or
 * B), touching it or not, for random small shapes, layouts, transposes and
 * leading dimensions: refused exactly when C shares an element with it
 * (where the rule is exact: equal leading dimensions, or a single run), or
 * when the spans meet (otherwise); accepted (up to the NULL handle) when
 * not. The operand not under test lies far away. */
static void test_overlap(void)
{
    overlap_state = (uint64_t)time(NULL) | 1; /* xorshift's state is never 0 */
    const uint64_t seed = overlap_state;
    int refused = 0, accepted = 0, exact = 0;
    float *const base = (float *)0x10000000; /* element 0 of the operand under test */
    for (int trial = 0; trial < 20000; ++trial) {
        const gl_layout_t layout = overlap_rand(2) ? GL_COL_MAJOR : GL_ROW_MAJOR;
        const gl_transpose_t ta = overlap_rand(2) ? GL_OP_T : GL_OP_N;
        const gl_transpose_t tb = overlap_rand(2) ? GL_OP_T : GL_OP_N;
        const int64_t M = 1 + overlap_rand(5), N = 1 + overlap_rand(5), K = 1 + overlap_rand(5);
        const bool row_major = layout == GL_ROW_MAJOR;
        /* stored rows x cols of A, B and C */
        const int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
        const int64_t a_need = row_major ? ac : ar, b_need = row_major ? bc : br;
        const int64_t c_need = row_major ? N : M;
        /* often the same ld for C and the operand, as submatrices of one matrix */
        int64_t lda = a_need + overlap_rand(4), ldb = b_need + overlap_rand(4);
        int64_t ldc = c_need + overlap_rand(4);
        const bool on_b = overlap_rand(2);
        if (overlap_rand(2)) {
            const int64_t ld = (on_b ? ldb : lda) > ldc ? (on_b ? ldb : lda) : ldc;
            ldc = ld;
            *(on_b ? &ldb : &lda) = ld;
        }
        const stored a = {row_major ? ar : ac, row_major ? ac : ar, lda};
        const stored b = {row_major ? br : bc, row_major ? bc : br, ldb};
        const stored c = {row_major ? M : N, row_major ? N : M, ldc};
        const stored x = on_b ? b : a;
        const int64_t d = -stored_span(c) - 1 + overlap_rand(stored_span(c) + stored_span(x) + 2);
        const float *A = on_b ? (const float *)0x1000 : base;
        const float *B = on_b ? base : (const float *)0x2000;
        float *Cp = base + d;

        const bool one_run = x.outer == 1 || c.outer == 1;
        const bool spans_meet = d < stored_span(x) && -d < stored_span(c);
        const bool want_refused =
            x.ld == c.ld || one_run ? brute_share(x, c, d) : spans_meet;
        exact += x.ld == c.ld || one_run;
        const gl_status_t st = gl_sgemm_ex(NULL, GL_VARIANT_NAIVE, layout, ta, tb, M, N, K, 1.0f,
                                           A, lda, B, ldb, 0.0f, Cp, ldc);
        const char *msg = gl_last_error(NULL);
        const bool was_refused = st == GL_STATUS_INVALID_ARGUMENT && strstr(msg, "overlaps");
        CHECK(was_refused == want_refused &&
                  (was_refused || strstr(msg, "handle is NULL")),
              "seed %llu: %s %c%c M %lld N %lld K %lld, C at %lld elements from %s (ld %lld, "
              "ldc %lld): %s, expected %s",
              (unsigned long long)seed, row_major ? "row" : "col", ta ? 'T' : 'N',
              tb ? 'T' : 'N', (long long)M, (long long)N, (long long)K, (long long)d,
              on_b ? "B" : "A", (long long)x.ld, (long long)ldc, msg,
              want_refused ? "refused" : "accepted");
        if (was_refused) {
            ++refused;
            CHECK(strstr(msg, on_b ? "overlaps B" : "overlaps A") && strstr(msg, "C ("),
                  "message names both: %s", msg);
        } else {
            ++accepted;
        }
    }
    CHECK(refused > 1000 && accepted > 1000 && exact > 1000,
          "the trials reached both answers: %d refused, %d accepted, %d exact", refused,
          accepted, exact);

    /* The review's case: C == A, 512^3, every variant; and C one element
     * past A's end (adjacent, accepted), or its last element A's first. */
    float *const a512 = (float *)0x20000000;
    for (int v = 0; v < gl_variant_count(); ++v)
        CHECK_STATUS(NULL, gl_sgemm(NULL, (gl_variant_t)v, 512, 512, 512, a512, B, a512),
                     GL_STATUS_INVALID_ARGUMENT, "overlaps A");
    CHECK_STATUS(NULL, gl_sgemm(NULL, GL_VARIANT_AUTO, 512, 512, 512, a512, B, a512 + 512 * 512),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, gl_sgemm(NULL, GL_VARIANT_AUTO, 512, 512, 512, a512, B,
                                a512 - 512 * 512 + 1),
                 GL_STATUS_INVALID_ARGUMENT, "overlaps A");
    /* Interleaved columns of one matrix Y (ld 8): A = Y[:, :4], C = Y[:, 4:]. */
    CHECK_STATUS(NULL, EX(GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 6, 4, 4, 1.0f, a512, 8,
                          B, 4, 0.0f, a512 + 4, 8),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, EX(GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 6, 4, 4, 1.0f, a512, 8,
                          B, 4, 0.0f, a512 + 3, 8),
                 GL_STATUS_INVALID_ARGUMENT, "overlaps A");
    /* K == 0 or alpha == 0: A and B are not read, so C may overlap them. */
    CHECK_STATUS(NULL, EX(GL_VARIANT_AUTO, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 4, 4, 4, 0.0f, a512, 4,
                          B, 4, 1.0f, a512, 4),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
}

/* The library never prints: run every failing call above with stdout and
 * stderr pointed at a file, and expect the file to stay empty. */
static void test_silence(void)
{
    char path[] = "/tmp/gl_test_silence_XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    const int saved_out = dup(1), saved_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);

    const int checks = harness_checks, failures = harness_failures;
    test_names();
    test_handle_arguments();
    test_sgemm_arguments();
    const int new_failures = harness_failures - failures;
    fflush(stdout);
    fflush(stderr);

    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    const off_t size = lseek(fd, 0, SEEK_END);
    if (size > 0) { /* show what was written, failed checks' reports included */
        char buf[4096];
        lseek(fd, 0, SEEK_SET);
        for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
            fwrite(buf, 1, (size_t)n, stderr);
    }
    close(fd);
    unlink(path);
    harness_checks = checks; /* the repeated checks were counted above already */
    harness_failures = failures + new_failures;
    CHECK(size == 0, "the library wrote %lld bytes to stdout/stderr", (long long)size);
}

int main(void)
{
    test_names();
    test_variant_facts();
    test_version();
    test_handle_arguments();
    test_sgemm_arguments();
    test_overlap();
    test_silence();
    return harness_finish("test_api");
}
