/*
 * fuzz_api.c - libFuzzer target for the public API's argument checks, with
 * no GPU: products, tuning queries and pins with a NULL handle, name and
 * status lookups, compiled configurations, and the same calls past a real
 * handle on the fake GPU of tests/fake_gpu (the checks that need a device:
 * where pointers lie and how big their allocations are, the slicing of tall
 * products, query and set-tiles). Built with the library's host C sources
 * under ASan and UBSan (tests/meson.build), with fake_gpu/ in place of the
 * CUDA runtime and of what nvcc compiles.
 *
 * Invariants (a broken one is __builtin_trap()):
 *  - a call given a NULL handle never succeeds;
 *  - a failure returns a status in 1..8 and leaves a non-empty message in
 *    gl_last_error(NULL), NUL-terminated and shorter than 512 bytes; the
 *    harness poisons that buffer before each call, so the message must have
 *    been written by the call itself;
 *  - every status is within 0..8;
 *  - gl_sgemm_ex and gl_sgemm return exactly the status, and a message on the
 *    subject, of the first failing check in the order gemmladder.h documents
 *    (a model of it is below);
 *  - names (gl_status_string, gl_variant_name, gl_version_string) are NULL
 *    (gl_variant_name of an unknown id only) or non-empty static strings
 *    lying in the program image; variant names round-trip through
 *    gl_variant_from_name;
 *  - gl_variant_config reads no more of a gl_tiles than its `size` field
 *    claims (the struct is allocated to that size), and on success fills in
 *    a fixed configuration with every table field and the reserved words
 *    zero, the same each time it is asked;
 *  - a failing call writes nothing through its output pointers
 *    (gl_variant_from_name, gl_variant_config, gl_get_stream);
 *  - with a handle, gl_sgemm_ex gives the status and message of the first
 *    failing check, the pointer checks included (a model of those too), and
 *    on success launches exactly the row-major problem the call describes:
 *    slices of at most 2^20 rows that cover its rows once, each with A and C
 *    moved to its first row, or C = beta * C alone when A and B are not read;
 *  - with a handle, gl_tuning_query answers every valid question with a
 *    compiled configuration, and gl_set_tiles accepts exactly the compiled
 *    configurations of the tuned variants, which queries then report pinned;
 *  - with a handle, gl_sgemm_strided_batched with a batch of one gives what
 *    gl_sgemm_ex gives on the same arguments (status, message, launches),
 *    whatever its strides are; with any batch, a failure launches nothing,
 *    and on success every launch reads and writes only inside the fake
 *    device buffers, as many launches per product, each product's C
 *    strideC floats after the one before (launched one by one);
 *  - with a handle, gl_sgemm_batched fails exactly as
 *    gl_sgemm_strided_batched with no products does on a shape that is wrong, then gives the status and message of the
 *    first failing check of its batch and arrays (a model of them); a
 *    failure launches nothing; on success it runs one product for each
 *    entry whose A, B and C are not NULL (cuBLAS: for every entry), each
 *    on that entry's operands, covering its rows once, or scales each
 *    non-NULL C by beta when A and B are not read;
 *  - with a handle, gl_set_workspace_limit and gl_set_workspace give the
 *    status and message of the first failing check (a model of them) and
 *    keep the old setting on a refusal, and auto's plan takes all the
 *    scratch gl_sgemm_workspace_size says where it fits them, else none.
 *
 * Input: a sequence of operations. Each starts with one byte choosing the
 * operation; its arguments follow, each introduced by a tag byte that picks
 * an encoding (small value, edge value, raw bits), so that mutations reach
 * both valid-looking and extreme arguments. Bytes past the end read as 0.
 *
 * The named seeds in tests/fuzz/api (ex-*, name-*, config-*, ...) are written
 * by the same encoder, built from this file alone (no library needed):
 *   cc -DFUZZ_API_WRITE_SEEDS -Iinclude tests/fuzz/fuzz_api.c -o seeds -lm
 *   ./seeds tests/fuzz/api
 * The files named by hash are inputs found by fuzzing that reach further
 * (kept with -merge=1 -use_counters=0: new edges only).
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmladder.h"

#ifndef FUZZ_API_WRITE_SEEDS
#include "fake_gpu.h"
#endif

enum op {
    OP_SGEMM_EX,
    OP_SGEMM,
    OP_FROM_NAME,
    OP_VARIANT_NAME,
    OP_STATUS_STRING,
    OP_VARIANT_CONFIG,
    OP_TUNING_QUERY,
    OP_SET_TILES,
    OP_HANDLE_CALLS, /* variant_available, set/get_stream, device, destroy, create(NULL) */
    OP_SGEMM_EX_DEVICE, /* the product with a handle, on fake device memory */
    OP_TUNING_QUERY_DEVICE,
    OP_SET_TILES_DEVICE,
    OP_WORKSPACE_DEVICE, /* gl_set_workspace(_limit), gl_sgemm_workspace_size, the plan */
    OP_STRIDED_BATCHED_DEVICE, /* gl_sgemm_strided_batched, on fake device memory */
    OP_POINTERS_BATCHED_DEVICE, /* gl_sgemm_batched, on fake device memory */
    OP_COUNT
};

/* Edge values the size encoding can pick directly (the seed writer uses them too). */
static const int64_t edge_sizes[] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 31, 32, 33, 64, 127, 128, 1 << 20, (1 << 20) + 1,
    -1, -2, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, (int64_t)INT32_MIN - 1, UINT32_MAX,
    (int64_t)1 << 32, (int64_t)1 << 40, (int64_t)1 << 62, INT64_MAX, INT64_MIN, INT64_MIN + 1,
    46341, 65535, 65536,
};

#ifndef FUZZ_API_WRITE_SEEDS
/* ======================================================================== */
/* The target.                                                              */

static const int32_t edge_enums[] = {0, 1, 2, 3, 7, 8, 9, 10, -1, -2, 255, 256, 65536,
                                     INT32_MAX, INT32_MIN};

/* The library writes messages into a buffer of this size (internal.h). */
#define MESSAGE_LIMIT 512

#define REQUIRE(cond)              \
    do {                           \
        if (!(cond))               \
            __builtin_trap();      \
    } while (0)

/* ---- decoding ------------------------------------------------------------ */

typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t take_u8(input *in)
{
    if (in->n == 0)
        return 0;
    --in->n;
    return *in->p++;
}

static uint64_t take_raw(input *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= (uint64_t)take_u8(in) << (8 * i);
    return v;
}

/* A size or leading dimension. */
static int64_t take_size(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return (int8_t)take_u8(in);
    case 1: return edge_sizes[take_u8(in) % (sizeof edge_sizes / sizeof edge_sizes[0])];
    case 2: return (int32_t)take_raw(in, 4);
    default: return (int64_t)take_raw(in, 8);
    }
}

/* An enum argument (variant, layout, transpose, status), any int value. */
static int32_t take_enum(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return take_u8(in) % 12;
    case 1: return (int8_t)take_u8(in);
    case 2: return edge_enums[take_u8(in) % (sizeof edge_enums / sizeof edge_enums[0])];
    default: return (int32_t)take_raw(in, 4);
    }
}

static float take_float(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return 0.0f;
    case 1: return 1.0f;
    case 2: return (float)(int8_t)take_u8(in);
    default: {
        const uint32_t bits = (uint32_t)take_raw(in, 4); /* NaNs, infinities, -0 */
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

/* A pointer value; never dereferenced by the checks, so any value will do. */
static void *take_ptr(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return NULL;
    case 1: return (void *)(uintptr_t)(0x10000 + 4 * take_raw(in, 2));
    case 2: return (void *)(uintptr_t)(0x10000 + take_u8(in)); /* any alignment */
    default: return (void *)(uintptr_t)take_raw(in, 8);
    }
}

/* A NUL-terminated string of up to 1023 bytes, in a buffer of exactly its
 * size so that ASan sees any read past the terminator. */
static char *take_string(input *in)
{
    size_t len = (size_t)take_raw(in, 2) % 1024;
    if (len > in->n)
        len = in->n;
    char *s = malloc(len + 1);
    REQUIRE(s);
    memcpy(s, in->p, len);
    s[len] = '\0';
    in->p += len, in->n -= len;
    return s;
}

/* ---- checks --------------------------------------------------------------- */

/* The start and end of the program image (GNU ld and lld define both). */
extern const char __executable_start[];
extern const char _edata[];

/* A static string: in the program image, and non-empty. */
static void require_static_name(const char *s)
{
    REQUIRE(s != NULL);
    REQUIRE(s >= __executable_start && s < _edata);
    REQUIRE(s[0] != '\0');
    REQUIRE(strnlen(s, 256) < 256);
}

static char *thread_message(void)
{
    const char *m = gl_last_error(NULL);
    REQUIRE(m != NULL);
    REQUIRE(m == gl_last_error(NULL)); /* one buffer per thread */
    /* The buffer is the library's own writable array (gl_last_error returns
     * it, const only for the caller): poisoning it lets each check see that
     * the call under test wrote the message. */
    return (char *)m;
}

/* Before a call: a message with no terminator anywhere. */
static void poison_message(void) { memset(thread_message(), 'X', MESSAGE_LIMIT); }

/* After a call: restore a valid string whatever happened. */
static void reset_message(void) { thread_message()[0] = '\0'; }

/* A failure: status 1..8 and a fresh, terminated, non-empty message. Returns
 * the message for further checks. */
static const char *require_failure(gl_status_t st)
{
    REQUIRE((int)st >= 1 && (int)st <= 8);
    const char *m = thread_message();
    const size_t len = strnlen(m, MESSAGE_LIMIT);
    REQUIRE(len > 0 && len < MESSAGE_LIMIT);
    REQUIRE(m == gl_last_error(NULL));
    return m;
}

static void require_status_in_range(gl_status_t st) { REQUIRE((int)st >= 0 && (int)st <= 8); }

static int variant_known(int32_t v) { return v >= 0 && v < gl_variant_count(); }

/* Whether a known variant's tiles come from tuning rows (its row's rows_of). */
static int variant_tuned(int32_t v)
{
    gl_variant_info info = {.size = sizeof info};
    return gl_variant_describe((gl_variant_t)v, &info) == GL_STATUS_SUCCESS && info.rows_of >= 0;
}

/* A tuning call on a NULL handle: an unknown variant is reported first,
 * otherwise the missing handle. */
static void require_refused_without_handle(gl_status_t st, int32_t v)
{
    REQUIRE(st != GL_STATUS_SUCCESS);
    const char *m = require_failure(st);
    if (!variant_known(v))
        REQUIRE(st == GL_STATUS_UNKNOWN_VARIANT);
    else
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT && strstr(m, "handle is NULL"));
    reset_message();
}

/* ---- the product's checks, as gemmladder.h documents them ------------------ */

typedef struct expectation {
    gl_status_t status;
    const char *needle; /* what the message must mention */
} expectation;

static expectation expect(gl_status_t status, const char *needle)
{
    return (expectation){status, needle};
}

/* ld >= max(1, its dimension) where the dimension is the stored row length
 * (row-major) or column length (column-major). */
static int ld_ok(int64_t ld, int row_major, int64_t rows, int64_t cols)
{
    const int64_t need = row_major ? cols : rows;
    return ld >= 1 && ld >= need;
}

/* The model's answer where C may share an element with an operand it
 * cannot afford to enumerate: the call may refuse it or not. */
static const char overlap_unknown[] = "overlaps (or not)";

/* A stored matrix as element offsets from its first: `outer` runs of
 * `inner`, `ld` apart; span: elements from first to last, or -1 when that
 * overflows (the library then leaves the question to its pointer checks). */
typedef struct model_grid { uintptr_t base; int64_t outer, inner, ld, span; } model_grid;

static model_grid grid_of(const void *p, int rm, int64_t rows, int64_t cols, int64_t ld)
{
    model_grid g = {(uintptr_t)p, rm ? rows : cols, rm ? cols : rows, ld, -1};
    int64_t e;
    if (!__builtin_mul_overflow(g.outer - 1, ld, &e) && !__builtin_add_overflow(e, g.inner, &e) &&
        (uint64_t)e <= UINT64_MAX / 4) /* as gemm.c: its bytes fit a uint64_t */
        g.span = e;
    return g;
}

/* Whether g holds the element e floats from its first. */
static int grid_has(const model_grid *g, int64_t e)
{
    return e >= 0 && e < g->span && e % g->ld < g->inner;
}

/* 1: C shares an element with x (as the library decides: exactly for one
 * ld or a single run, by the spans otherwise); 0: not; -1: not known here
 * (too many elements to look at one by one). */
static int model_overlap(const model_grid *c, const model_grid *x)
{
    if (c->span < 0 || x->span < 0)
        return 0;
    const int64_t d = c->base >= x->base ? (int64_t)((c->base - x->base) / 4)
                                         : -(int64_t)((x->base - c->base) / 4);
    if (d >= x->span || -d >= c->span)
        return 0;
    if (c->ld != x->ld && c->outer > 1 && x->outer > 1)
        return 1;
    if ((double)c->outer * (double)c->inner > 65536.0)
        return -1;
    for (int64_t r = 0; r < c->outer; ++r)
        for (int64_t i = 0; i < c->inner; ++i)
            if (grid_has(x, d + r * c->ld + i))
                return 1;
    return 0;
}

static expectation model_sgemm_ex(int32_t variant, int32_t layout, int32_t ta, int32_t tb,
                                  int64_t M, int64_t N, int64_t K, float alpha, const void *A,
                                  int64_t lda, const void *B, int64_t ldb, const void *C,
                                  int64_t ldc)
{
    if (!variant_known(variant))
        return expect(GL_STATUS_UNKNOWN_VARIANT, "variant");
    if (layout != GL_ROW_MAJOR && layout != GL_COL_MAJOR)
        return expect(GL_STATUS_INVALID_ARGUMENT, "layout (");
    if (ta != GL_OP_N && ta != GL_OP_T)
        return expect(GL_STATUS_INVALID_ARGUMENT, "transA (");
    if (tb != GL_OP_N && tb != GL_OP_T)
        return expect(GL_STATUS_INVALID_ARGUMENT, "transB (");
    if (M < 0 || M > INT32_MAX)
        return expect(GL_STATUS_INVALID_ARGUMENT, "M (");
    if (N < 0 || N > INT32_MAX)
        return expect(GL_STATUS_INVALID_ARGUMENT, "N (");
    if (K < 0 || K > INT32_MAX)
        return expect(GL_STATUS_INVALID_ARGUMENT, "K (");
    const int rm = layout == GL_ROW_MAJOR;
    /* Stored shapes: A is M x K (N) or K x M (T); B is K x N or N x K. */
    if (!ld_ok(lda, rm, ta == GL_OP_T ? K : M, ta == GL_OP_T ? M : K))
        return expect(GL_STATUS_INVALID_ARGUMENT, "lda (");
    if (!ld_ok(ldb, rm, tb == GL_OP_T ? N : K, tb == GL_OP_T ? K : N))
        return expect(GL_STATUS_INVALID_ARGUMENT, "ldb (");
    if (!ld_ok(ldc, rm, M, N))
        return expect(GL_STATUS_INVALID_ARGUMENT, "ldc (");
    const int empty = M == 0 || N == 0;
    const int reads_ab = !empty && K > 0 && alpha != 0.0f;
    if (reads_ab && !A)
        return expect(GL_STATUS_INVALID_ARGUMENT, "A is NULL");
    if (reads_ab && !B)
        return expect(GL_STATUS_INVALID_ARGUMENT, "B is NULL");
    if (!empty && !C)
        return expect(GL_STATUS_INVALID_ARGUMENT, "C is NULL");
    if (reads_ab && (uintptr_t)A % 4)
        return expect(GL_STATUS_INVALID_ARGUMENT, "A (");
    if (reads_ab && (uintptr_t)B % 4)
        return expect(GL_STATUS_INVALID_ARGUMENT, "B (");
    if (!empty && (uintptr_t)C % 4)
        return expect(GL_STATUS_INVALID_ARGUMENT, "C (");
    if (reads_ab) { /* C must not share an element with A or B */
        const model_grid c = grid_of(C, rm, M, N, ldc);
        const model_grid a = grid_of(A, rm, ta == GL_OP_T ? K : M, ta == GL_OP_T ? M : K, lda);
        const model_grid b = grid_of(B, rm, tb == GL_OP_T ? N : K, tb == GL_OP_T ? K : N, ldb);
        const int with_a = model_overlap(&c, &a);
        if (with_a)
            return expect(GL_STATUS_INVALID_ARGUMENT, with_a > 0 ? "overlaps A" : overlap_unknown);
        const int with_b = model_overlap(&c, &b);
        if (with_b)
            return expect(GL_STATUS_INVALID_ARGUMENT, with_b > 0 ? "overlaps B" : overlap_unknown);
    }
    return expect(GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
}

static void require_expected(gl_status_t st, expectation e)
{
    const char *m = require_failure(st);
    REQUIRE(st == e.status);
    if (e.needle == overlap_unknown)
        REQUIRE(strstr(m, "overlaps") != NULL || strstr(m, "handle is NULL") != NULL);
    else
        REQUIRE(strstr(m, e.needle) != NULL);
}

/* ---- operations ------------------------------------------------------------ */

static void op_sgemm_ex(input *in)
{
    const int32_t variant = take_enum(in), layout = take_enum(in);
    const int32_t ta = take_enum(in), tb = take_enum(in);
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const float alpha = take_float(in);
    const float *A = take_ptr(in);
    const int64_t lda = take_size(in);
    const float *B = take_ptr(in);
    const int64_t ldb = take_size(in);
    const float beta = take_float(in);
    float *C = take_ptr(in);
    const int64_t ldc = take_size(in);

    poison_message();
    const gl_status_t st = gl_sgemm_ex(NULL, (gl_variant_t)variant, (gl_layout_t)layout,
                                       (gl_transpose_t)ta, (gl_transpose_t)tb, M, N, K, alpha, A,
                                       lda, B, ldb, beta, C, ldc);
    REQUIRE(st != GL_STATUS_SUCCESS);
    require_expected(st, model_sgemm_ex(variant, layout, ta, tb, M, N, K, alpha, A, lda, B, ldb,
                                        C, ldc));
    reset_message();
}

static void op_sgemm(input *in)
{
    const int32_t variant = take_enum(in);
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const float *A = take_ptr(in), *B = take_ptr(in);
    float *C = take_ptr(in);

    poison_message();
    const gl_status_t st = gl_sgemm(NULL, (gl_variant_t)variant, M, N, K, A, B, C);
    REQUIRE(st != GL_STATUS_SUCCESS);
    /* gl_sgemm is gl_sgemm_ex with contiguous row-major operands. */
    require_expected(st, model_sgemm_ex(variant, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K, 1.0f,
                                        A, K > 0 ? K : 1, B, N > 0 ? N : 1, C, N > 0 ? N : 1));
    reset_message();
}

static void op_from_name(input *in)
{
    const uint8_t mode = take_u8(in) % 4;
    char *name = take_string(in);
    gl_variant_t v = (gl_variant_t)-7;
    poison_message();
    gl_status_t st;
    switch (mode) {
    case 0: /* NULL name */
        st = gl_variant_from_name(NULL, &v);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        REQUIRE(strstr(require_failure(st), "name is NULL"));
        REQUIRE(v == (gl_variant_t)-7);
        break;
    case 1: /* NULL destination */
        st = gl_variant_from_name(name, NULL);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        REQUIRE(strstr(require_failure(st), "variant is NULL"));
        break;
    default: {
        st = gl_variant_from_name(name, &v);
        require_status_in_range(st);
        int known = -1;
        for (int32_t i = 0; i < gl_variant_count(); ++i)
            if (strcmp(gl_variant_name((gl_variant_t)i), name) == 0)
                known = i;
        if (known >= 0) {
            REQUIRE(st == GL_STATUS_SUCCESS);
            REQUIRE((int)v == known);
        } else {
            REQUIRE(st == GL_STATUS_UNKNOWN_VARIANT);
            require_failure(st);
            REQUIRE(v == (gl_variant_t)-7); /* not written on failure */
        }
    }
    }
    reset_message();
    free(name);
}

static void op_variant_name(input *in)
{
    const int32_t v = take_enum(in);
    const char *name = gl_variant_name((gl_variant_t)v);
    if (!variant_known(v)) {
        REQUIRE(name == NULL);
        REQUIRE(gl_variant_config_count((gl_variant_t)v) == -1);
        return;
    }
    require_static_name(name);
    REQUIRE(name == gl_variant_name((gl_variant_t)v));
    gl_variant_t back = (gl_variant_t)-1;
    REQUIRE(gl_variant_from_name(name, &back) == GL_STATUS_SUCCESS);
    REQUIRE((int32_t)back == v);
    gl_variant_info info = {.size = sizeof info};
    REQUIRE(gl_variant_describe((gl_variant_t)v, &info) == GL_STATUS_SUCCESS);
    REQUIRE(gl_variant_config_count((gl_variant_t)v) >= (info.tile_field_count > 0 ? 1 : 0));
}

static void op_status_string(input *in)
{
    const int32_t s = take_enum(in);
    const char *name = gl_status_string((gl_status_t)s);
    require_static_name(name);
    REQUIRE(name == gl_status_string((gl_status_t)s));
    const int unknown = strcmp(name, "unknown status") == 0;
    REQUIRE(unknown == !(s >= 0 && s <= 8));
    require_static_name(gl_version_string());
    REQUIRE(gl_version() == GL_VERSION);
}

/* A gl_tiles of `size` bytes as the caller would have it (at least the size
 * field itself), the rest filled with a pattern. */
static gl_tiles *make_tiles(uint32_t size, size_t *bytes)
{
    size_t n = size > 4096 ? 4096 : size; /* a caller lying about its size */
    if (n < sizeof(uint32_t))
        n = sizeof(uint32_t);
    unsigned char *p = malloc(n);
    REQUIRE(p);
    memset(p, 0xA5, n);
    memcpy(p, &size, sizeof size);
    *bytes = n;
    return (gl_tiles *)p;
}

static uint32_t take_tiles_size(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return sizeof(gl_tiles);
    case 1: return take_u8(in);
    case 2: return (uint32_t)((int)sizeof(gl_tiles) + (int8_t)take_u8(in));
    default: return (uint32_t)take_raw(in, 4);
    }
}

static void op_variant_config(input *in)
{
    const int32_t v = take_enum(in);
    const int32_t index = (int32_t)take_size(in);
    const int null_out = take_u8(in) % 8 == 0;
    const uint32_t size = take_tiles_size(in);
    size_t bytes = 0;
    gl_tiles *t = null_out ? NULL : make_tiles(size, &bytes);
    unsigned char *before = NULL;
    if (t) {
        before = malloc(bytes);
        REQUIRE(before);
        memcpy(before, t, bytes);
    }

    poison_message();
    const gl_status_t st = gl_variant_config((gl_variant_t)v, index, t);
    const int32_t count = gl_variant_config_count((gl_variant_t)v);
    if (!variant_known(v)) {
        REQUIRE(st == GL_STATUS_UNKNOWN_VARIANT);
        REQUIRE(count == -1);
    } else if (!t || size < sizeof(gl_tiles) || index < 0 || index >= count) {
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
    } else {
        REQUIRE(st == GL_STATUS_SUCCESS);
    }
    if (st != GL_STATUS_SUCCESS) {
        require_failure(st);
        if (t)
            REQUIRE(memcmp(before, t, bytes) == 0); /* untouched */
    } else {
        REQUIRE(t->size == size);
        REQUIRE(t->origin == GL_TILES_FIXED && t->line == 0);
        /* tm and tn are 0 where the variant's tiles have none (mma warp tiles) */
        REQUIRE(t->bm >= 1 && t->bn >= 1 && t->bk >= 1 && t->tm >= 0 && t->tn >= 0);
        REQUIRE(t->threads >= 32 && t->threads <= 1024 && t->threads % 32 == 0);
        REQUIRE(t->wm >= 0 && t->wn >= 0 && t->wniter >= 0);
        REQUIRE(t->arch[0] == '\0' && t->size_class[0] == '\0' && t->source[0] == '\0');
        for (size_t i = 0; i < sizeof t->reserved / sizeof t->reserved[0]; ++i)
            REQUIRE(t->reserved[i] == 0);
        /* The same question twice gives the same answer. */
        gl_tiles again;
        memset(&again, 0x5A, sizeof again);
        again.size = sizeof again;
        REQUIRE(gl_variant_config((gl_variant_t)v, index, &again) == GL_STATUS_SUCCESS);
        REQUIRE(memcmp((const char *)&again + sizeof again.size,
                       (const char *)t + sizeof t->size, sizeof again - sizeof again.size) == 0);
    }
    reset_message();
    free(before);
    free(t);
}

static void op_tuning_query(input *in)
{
    const int32_t v = take_enum(in);
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const int null_out = take_u8(in) % 4 == 0;
    const uint32_t size = take_tiles_size(in);
    size_t bytes = 0;
    gl_tiles *t = null_out ? NULL : make_tiles(size, &bytes);

    poison_message();
    const gl_status_t st = gl_tuning_query(NULL, (gl_variant_t)v, M, N, K, t);
    require_refused_without_handle(st, v);
    free(t);
}

static void op_set_tiles(input *in)
{
    const int32_t v = take_enum(in);
    const int mode = take_u8(in) % 4;
    const uint32_t size = take_tiles_size(in);
    size_t bytes = 0;
    gl_tiles *t = NULL;
    if (mode == 1)
        t = make_tiles(size, &bytes);
    else if (mode >= 2)
        t = take_ptr(in); /* the handle is checked before tiles is read */

    poison_message();
    const gl_status_t st = gl_set_tiles(NULL, (gl_variant_t)v, t);
    require_refused_without_handle(st, v);
    if (mode == 1)
        free(t);
}

static void op_handle_calls(input *in)
{
    const int32_t v = take_enum(in);
    void *stream = take_ptr(in);
    const uint8_t which = take_u8(in) % 6;
    gl_status_t st = GL_STATUS_SUCCESS;
    poison_message();
    switch (which) {
    case 0:
        st = gl_variant_available(NULL, (gl_variant_t)v);
        REQUIRE(st == (variant_known(v) ? GL_STATUS_INVALID_ARGUMENT : GL_STATUS_UNKNOWN_VARIANT));
        break;
    case 1:
        st = gl_set_stream(NULL, stream);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        break;
    case 2: {
        void *out = (void *)&out;
        st = gl_get_stream(NULL, v & 1 ? NULL : &out);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        REQUIRE(out == (void *)&out);
        break;
    }
    case 3:
        st = gl_handle_create(NULL);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        break;
    case 4:
        st = gl_tuning_check(NULL);
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
        break;
    default:
        REQUIRE(gl_handle_device(NULL) == -1);
        gl_handle_destroy(NULL);
        REQUIRE(gl_variant_count() >= 9);
        break;
    }
    if (which <= 4) {
        const char *m = require_failure(st);
        if (which <= 3 && st == GL_STATUS_INVALID_ARGUMENT)
            REQUIRE(strstr(m, "handle is NULL"));
    }
    reset_message();
}

/* ---- past the handle, on the fake GPU -------------------------------------- */

static gl_handle_t handle; /* created once, on the fake device */

#define DEVICE_BUFFERS 3
static struct { char *p; uint64_t bytes; } buffers[DEVICE_BUFFERS];
static float host_buffer[64]; /* memory CUDA does not know: refused */

static int buffers_made;

/* A failure with a handle: its message is the handle's, fresh, and the
 * thread's (poisoned before the call) is left alone. */
static void require_expected_on_handle(gl_status_t st, expectation e)
{
    REQUIRE((int)st >= 1 && (int)st <= 8 && st == e.status);
    const char *m = gl_last_error(handle);
    REQUIRE(strnlen(m, MESSAGE_LIMIT) > 0 && strnlen(m, MESSAGE_LIMIT) < MESSAGE_LIMIT);
    REQUIRE(strstr(m, e.needle) != NULL);
    REQUIRE(memchr(thread_message(), '\0', MESSAGE_LIMIT) == NULL);
    strcpy((char *)m, "(checked)"); /* so the next failure must write its own */
}

/* Fake device allocations of sizes the input chooses, made by the first call
 * that needs them and freed after the input. */
static void make_buffers(input *in)
{
    if (buffers_made)
        return;
    buffers_made = 1;
    for (int i = 0; i < DEVICE_BUFFERS; ++i) {
        buffers[i].bytes = 4 + ((uint64_t)take_size(in) & (((uint64_t)1 << 40) - 1));
        buffers[i].p = fake_gpu_alloc(buffers[i].bytes);
        REQUIRE(buffers[i].p);
    }
}

static void free_buffers(void)
{
    for (int i = 0; buffers_made && i < DEVICE_BUFFERS; ++i)
        fake_gpu_free(buffers[i].p);
    buffers_made = 0;
}

/* A pointer for a call with a handle: NULL, into one of the buffers (at any
 * byte offset, so misaligned too, or past its end), or host memory. */
static void *take_device_ptr(input *in)
{
    switch (take_u8(in) % 4) {
    case 0: return NULL;
    case 1: return buffers[take_u8(in) % DEVICE_BUFFERS].p;
    case 2: return buffers[take_u8(in) % DEVICE_BUFFERS].p + take_raw(in, 3);
    default: return (char *)host_buffer + take_u8(in) % 8 * 4;
    }
}

/* check_pointer in gemm.c, as documented: the span of the stored matrix
 * must not overflow, the pointer must lie in device memory, and its
 * allocation must hold the span from there. */
static int model_pointer(const char *name, const void *p, int64_t rows, int64_t cols, int64_t ld,
                         int row_major, expectation *e)
{
    const int64_t outer = row_major ? rows : cols, inner = row_major ? cols : rows;
    int64_t elems;
    uint64_t bytes;
    static char needle[64];
    if (__builtin_mul_overflow(outer - 1, ld, &elems) ||
        __builtin_add_overflow(elems, inner, &elems) ||
        __builtin_mul_overflow((uint64_t)elems, (uint64_t)4, &bytes)) {
        *e = expect(GL_STATUS_INVALID_ARGUMENT, "spans more bytes than any address space");
        return 0;
    }
    for (int i = 0; i < DEVICE_BUFFERS; ++i) {
        const uintptr_t start = (uintptr_t)buffers[i].p, at = (uintptr_t)p;
        if (at >= start && at - start < buffers[i].bytes) {
            if (bytes > buffers[i].bytes - (at - start)) {
                snprintf(needle, sizeof needle, "%s (%p): a ", name, p);
                *e = expect(GL_STATUS_INVALID_ARGUMENT, needle);
                return 0;
            }
            return 1;
        }
    }
    *e = expect(GL_STATUS_INVALID_ARGUMENT, "is not device-accessible memory");
    return 0;
}

static void op_sgemm_ex_device(input *in)
{
    make_buffers(in);
    const int32_t variant = take_enum(in) % 12, layout = take_u8(in) % 3;
    const int32_t ta = take_u8(in) % 3, tb = take_u8(in) % 3;
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const float alpha = take_float(in);
    const float *A = take_device_ptr(in);
    const int64_t lda = take_size(in);
    const float *B = take_device_ptr(in);
    const int64_t ldb = take_size(in);
    const float beta = take_float(in);
    float *C = take_device_ptr(in);
    const int64_t ldc = take_size(in);

    expectation e = model_sgemm_ex(variant, layout, ta, tb, M, N, K, alpha, A, lda, B, ldb, C,
                                   ldc);
    const int checks_pass = e.status == GL_STATUS_INVALID_ARGUMENT &&
                            strcmp(e.needle, "handle is NULL") == 0;
    const int empty = M == 0 || N == 0, reads_ab = !empty && K > 0 && alpha != 0.0f;
    const int rm = layout == GL_ROW_MAJOR;
    int ok = checks_pass && !empty;
    if (ok && reads_ab)
        ok = model_pointer("A", A, ta == GL_OP_T ? K : M, ta == GL_OP_T ? M : K, lda, rm, &e) &&
             model_pointer("B", B, tb == GL_OP_T ? N : K, tb == GL_OP_T ? K : N, ldb, rm, &e);
    if (ok)
        ok = model_pointer("C", C, M, N, ldc, rm, &e);

    fake_gpu_clear_launches();
    poison_message();
    const gl_status_t st = gl_sgemm_ex(handle, (gl_variant_t)variant, (gl_layout_t)layout,
                                       (gl_transpose_t)ta, (gl_transpose_t)tb, M, N, K, alpha, A,
                                       lda, B, ldb, beta, C, ldc);
    if (e.needle == overlap_unknown) { /* refused as overlapping, or run, or a pointer check */
        REQUIRE(st == GL_STATUS_SUCCESS || st == GL_STATUS_INVALID_ARGUMENT);
        reset_message();
        return;
    }
    if (checks_pass && empty) { /* BLAS: nothing to do, nothing touched */
        REQUIRE(st == GL_STATUS_SUCCESS && fake_gpu_launch_count() == 0);
    } else if (!ok) {
        REQUIRE(fake_gpu_launch_count() == 0);
        require_expected_on_handle(st, e);
    } else {
        REQUIRE(st == GL_STATUS_SUCCESS);
        /* The row-major problem: column-major is C^T = op(B)^T op(A)^T. */
        const int64_t m = rm ? M : N, n = rm ? N : M;
        const float *a = rm ? A : B;
        const int64_t la = rm ? lda : ldb;
        const int trans_a = (rm ? ta : tb) == GL_OP_T;
        if (!reads_ab) {
            REQUIRE(fake_gpu_launch_count() == (beta == 1.0f ? 0 : 1));
            if (beta != 1.0f) {
                const fake_launch *l = fake_gpu_launch(0);
                REQUIRE(l->variant == -1 && l->m == m && l->n == n && l->c == C && l->ldc == ldc);
            }
        } else {
            const int64_t slice = 1 << 20;
            REQUIRE(fake_gpu_launch_count() == (m - 1) / slice + 1);
            int64_t row = 0;
            for (int i = 0; i < fake_gpu_launch_count(); ++i) {
                const fake_launch *l = fake_gpu_launch(i);
                REQUIRE(l && l->variant == variant);
                REQUIRE(l->m == (m - row < slice ? m - row : slice) && l->n == n && l->k == K);
                REQUIRE(l->a == (trans_a ? a + row : a + row * la) && l->lda == la);
                REQUIRE(l->b == (rm ? B : A) && l->c == C + row * ldc && l->ldc == ldc);
                REQUIRE(l->trans_a == trans_a && l->trans_b == ((rm ? tb : ta) == GL_OP_T));
                REQUIRE(memcmp(&l->alpha, &alpha, sizeof alpha) == 0);
                REQUIRE(memcmp(&l->beta, &beta, sizeof beta) == 0);
                row += l->m;
            }
            REQUIRE(row == m);
        }
    }
    reset_message();
}

/* Whether the floats of a stored row-major matrix of rows x cols (leading
 * dimension ld) at p all lie inside one of the fake device buffers. */
static int inside_a_buffer(const float *p, int64_t rows, int64_t cols, int64_t ld)
{
    int64_t elems;
    if (rows < 1 || cols < 1 || __builtin_mul_overflow(rows - 1, ld, &elems) ||
        __builtin_add_overflow(elems, cols, &elems) || elems > INT64_MAX / 4)
        return 0;
    const uint64_t bytes = 4 * (uint64_t)elems;
    for (int i = 0; i < DEVICE_BUFFERS; ++i) {
        const uintptr_t start = (uintptr_t)buffers[i].p, at = (uintptr_t)p;
        if (at >= start && at - start <= buffers[i].bytes &&
            bytes <= buffers[i].bytes - (at - start))
            return 1;
    }
    return 0;
}

static void op_strided_batched_device(input *in)
{
    make_buffers(in);
    const int32_t variant = take_enum(in) % 12, layout = take_u8(in) % 3;
    const int32_t ta = take_u8(in) % 3, tb = take_u8(in) % 3;
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const float alpha = take_float(in), beta = take_float(in);
    const float *A = take_device_ptr(in), *B = take_device_ptr(in);
    float *C = take_device_ptr(in);
    const int64_t lda = take_size(in), ldb = take_size(in), ldc = take_size(in);
    const int64_t sa = take_size(in), sb = take_size(in), sc = take_size(in);
    /* Small batches, or any value the checks refuse: a valid batch of
     * billions of products would run for hours, a launch each. */
    int64_t batch = take_u8(in) % 8 ? (int64_t)(take_u8(in) % 7) - 1 : take_size(in);
    if (batch > 6 && batch <= 2147483647)
        batch %= 7;

    /* A batch of one is the single call, whatever the strides say. */
    fake_gpu_clear_launches();
    poison_message();
    const gl_status_t single = gl_sgemm_ex(handle, (gl_variant_t)variant, (gl_layout_t)layout,
                                           (gl_transpose_t)ta, (gl_transpose_t)tb, M, N, K,
                                           alpha, A, lda, B, ldb, beta, C, ldc);
    char single_message[MESSAGE_LIMIT];
    snprintf(single_message, sizeof single_message, "%s", gl_last_error(handle));
    const int single_launches = fake_gpu_launch_count();
    fake_gpu_clear_launches();
    poison_message();
    gl_status_t st = gl_sgemm_strided_batched(
        handle, (gl_variant_t)variant, (gl_layout_t)layout, (gl_transpose_t)ta,
        (gl_transpose_t)tb, M, N, K, alpha, A, lda, sa < 0 ? 0 : sa, B, ldb, sb < 0 ? 0 : sb, beta,
        C, ldc, sc < 0 ? 0 : sc, 1);
    REQUIRE(st == single && fake_gpu_launch_count() == single_launches);
    if (st != GL_STATUS_SUCCESS)
        REQUIRE(strcmp(gl_last_error(handle), single_message) == 0);

    /* Its plan first: the same checks (alpha 1 stands for any other than 0). */
    gl_plan plan = {.size = sizeof plan};
    const gl_status_t planned = gl_sgemm_strided_batched_plan(
        handle, (gl_variant_t)variant, (gl_layout_t)layout, (gl_transpose_t)ta,
        (gl_transpose_t)tb, M, N, K, A, lda, sa, B, ldb, sb, C, ldc, sc, batch, &plan);
    REQUIRE((int)planned >= 0 && (int)planned <= 8);

    /* Any batch. */
    fake_gpu_clear_launches();
    poison_message();
    st = gl_sgemm_strided_batched(handle, (gl_variant_t)variant, (gl_layout_t)layout,
                                  (gl_transpose_t)ta, (gl_transpose_t)tb, M, N, K, alpha, A, lda,
                                  sa, B, ldb, sb, beta, C, ldc, sc, batch);
    REQUIRE((int)st >= 0 && (int)st <= 8);
    if (st == GL_STATUS_SUCCESS && alpha != 0.0f)
        REQUIRE(planned == GL_STATUS_SUCCESS && plan.launches >= 0 && plan.path >= 0 &&
                plan.path <= GL_PATH_BATCH && memchr(plan.why, '\0', sizeof plan.why));
    if (st != GL_STATUS_SUCCESS) {
        REQUIRE(fake_gpu_launch_count() == 0);
        const char *m = gl_last_error(handle);
        REQUIRE(strnlen(m, MESSAGE_LIMIT) > 0 && strnlen(m, MESSAGE_LIMIT) < MESSAGE_LIMIT);
        REQUIRE(memchr(thread_message(), '\0', MESSAGE_LIMIT) == NULL);
        REQUIRE(sa >= 0 || strstr(m, "strideA") || single != GL_STATUS_SUCCESS);
        reset_message();
        return;
    }
    REQUIRE(sa >= 0 && sb >= 0 && sc >= 0 && batch >= 0);
    const int64_t launches = fake_gpu_launch_count();
    if (M == 0 || N == 0 || batch == 0 || launches == 0) {
        REQUIRE(launches == 0 || (M > 0 && N > 0 && batch > 0));
        reset_message();
        return;
    }
    REQUIRE(launches % batch == 0);
    const int64_t per_product = launches / batch;
    for (int64_t i = 0; i < launches && i < FAKE_GPU_LOG; ++i) {
        const fake_launch *l = fake_gpu_launch((int)i);
        REQUIRE(inside_a_buffer(l->c, l->m, l->n, l->ldc));
        if (i % per_product == 0 && !l->batched) /* a batched call's come slice by slice */
            REQUIRE(l->c == C + i / per_product * sc);
        if (l->variant >= 0) { /* a product, not the beta-scaling kernel */
            REQUIRE(inside_a_buffer(l->a, l->trans_a ? l->k : l->m, l->trans_a ? l->m : l->k,
                                    l->lda));
            REQUIRE(inside_a_buffer(l->b, l->trans_b ? l->n : l->k, l->trans_b ? l->k : l->n,
                                    l->ldb));
        }
    }
    reset_message();
}

/* Pointer arrays: up to this many entries each. */
#define MAX_ENTRIES 6

static void op_pointers_batched_device(input *in)
{
    make_buffers(in);
    const int32_t variant = take_enum(in) % 12, layout = take_u8(in) % 3;
    const int32_t ta = take_u8(in) % 3, tb = take_u8(in) % 3;
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const float alpha = take_float(in), beta = take_float(in);
    const int64_t lda = take_size(in), ldb = take_size(in), ldc = take_size(in);
    int64_t batch = take_u8(in) % 8 ? (int64_t)(take_u8(in) % 8) - 1 : take_size(in);
    if (batch > MAX_ENTRIES && batch <= 2147483647)
        batch %= MAX_ENTRIES + 1;
    /* Each array: 1 .. MAX_ENTRIES entries the input chooses (any pointer),
     * in fake memory that holds them, passed as it is, or NULL, misaligned,
     * host memory. */
    const float *entries[3][MAX_ENTRIES] = {{0}};
    int64_t lengths[3];
    void *allocations[3];
    const void *arrays[3];
    for (int i = 0; i < 3; ++i) {
        lengths[i] = 1 + take_u8(in) % MAX_ENTRIES;
        allocations[i] = fake_gpu_alloc(sizeof(float *) * (uint64_t)lengths[i]);
        for (int64_t j = 0; j < lengths[i]; ++j)
            entries[i][j] = take_device_ptr(in);
        REQUIRE(fake_gpu_write(allocations[i], entries[i], sizeof(float *) * (size_t)lengths[i]));
        switch (take_u8(in) % 8) {
        case 0: arrays[i] = NULL; break;
        case 1: arrays[i] = (char *)allocations[i] + 1 + take_u8(in) % 7; break;
        case 2: arrays[i] = host_buffer; break;
        default: arrays[i] = allocations[i]; break;
        }
    }

    /* The shape's checks are those of a strided batch of no products (its
     * pointers are not looked at). */
    poison_message();
    const gl_status_t shape = gl_sgemm_strided_batched(
        handle, (gl_variant_t)variant, (gl_layout_t)layout, (gl_transpose_t)ta,
        (gl_transpose_t)tb, M, N, K, alpha, NULL, lda, 0, NULL, ldb, 0, beta, NULL, ldc, 0, 0);
    char shape_message[MESSAGE_LIMIT];
    snprintf(shape_message, sizeof shape_message, "%s", gl_last_error(handle));
    fake_gpu_clear_launches();
    poison_message();
    const gl_status_t st = gl_sgemm_batched(
        handle, (gl_variant_t)variant, (gl_layout_t)layout, (gl_transpose_t)ta,
        (gl_transpose_t)tb, M, N, K, alpha, (const float *const *)arrays[0], lda,
        (const float *const *)arrays[1], ldb, beta, (float *const *)arrays[2], ldc, batch);
    for (int i = 0; i < 3; ++i)
        fake_gpu_free(allocations[i]);
    if (shape != GL_STATUS_SUCCESS) {
        REQUIRE(st == shape && fake_gpu_launch_count() == 0);
        REQUIRE(strcmp(gl_last_error(handle), shape_message) == 0);
        reset_message();
        return;
    }

    /* The batch's and the arrays' checks, in the documented order. */
    const int empty = M == 0 || N == 0, reads_ab = !empty && K > 0 && alpha != 0.0f;
    expectation e = expect(GL_STATUS_SUCCESS, "");
    static char needle[64];
    const char names[3] = {'A', 'B', 'C'};
    if (batch < 0 || batch > 2147483647) {
        e = expect(GL_STATUS_INVALID_ARGUMENT, "batch (");
    } else if (!empty && batch > 0) {
        /* Each operand's matrix within an address space (its stored shape). */
        const int rm = layout == GL_ROW_MAJOR;
        const int64_t rows[3] = {ta == GL_OP_T ? K : M, tb == GL_OP_T ? N : K, M};
        const int64_t cols[3] = {ta == GL_OP_T ? M : K, tb == GL_OP_T ? K : N, N};
        const int64_t lds[3] = {lda, ldb, ldc};
        for (int i = reads_ab ? 0 : 2; i < 3 && e.status == GL_STATUS_SUCCESS; ++i) {
            int64_t elems;
            uint64_t bytes;
            if (__builtin_mul_overflow((rm ? rows[i] : cols[i]) - 1, lds[i], &elems) ||
                __builtin_add_overflow(elems, rm ? cols[i] : rows[i], &elems) ||
                __builtin_mul_overflow((uint64_t)elems, (uint64_t)4, &bytes))
                e = expect(GL_STATUS_INVALID_ARGUMENT, "spans more bytes than any address space");
        }
        for (int i = reads_ab ? 0 : 2; i < 3 && e.status == GL_STATUS_SUCCESS; ++i) {
            if (!arrays[i]) {
                snprintf(needle, sizeof needle, "%c is NULL (batch = %lld)", names[i],
                         (long long)batch);
                e = expect(GL_STATUS_INVALID_ARGUMENT, needle);
            } else if ((uintptr_t)arrays[i] % 8) {
                e = expect(GL_STATUS_INVALID_ARGUMENT, "is not aligned to 8 bytes");
            }
        }
        for (int i = reads_ab ? 0 : 2; i < 3 && e.status == GL_STATUS_SUCCESS; ++i) {
            if (arrays[i] == host_buffer) {
                e = expect(GL_STATUS_INVALID_ARGUMENT, "is not device-accessible memory");
            } else if (lengths[i] < batch) {
                snprintf(needle, sizeof needle, "%c (%p): an array of %lld pointers needs",
                         names[i], arrays[i], (long long)batch);
                e = expect(GL_STATUS_INVALID_ARGUMENT, needle);
            }
        }
    }
    if (e.status != GL_STATUS_SUCCESS) {
        REQUIRE(fake_gpu_launch_count() == 0);
        require_expected_on_handle(st, e);
        reset_message();
        return;
    }
    /* The variants that run cuBLAS: their plans say so, whatever the shape. */
    gl_plan plan = {.size = sizeof plan};
    REQUIRE(gl_sgemm_plan(handle, (gl_variant_t)variant, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 1, 1, 1,
                          NULL, 1, NULL, 1, NULL, 1, &plan) == GL_STATUS_SUCCESS);
    const int cublas = plan.path == GL_PATH_CUBLAS;
    if (cublas && reads_ab && st == GL_STATUS_CUBLAS_ERROR) { /* shapes cuBLAS is not given */
        REQUIRE(fake_gpu_launch_count() == 0);
        reset_message();
        return;
    }
    REQUIRE(st == GL_STATUS_SUCCESS);
    const int64_t launches = fake_gpu_launch_count();
    if (empty || batch == 0) {
        REQUIRE(launches == 0);
        reset_message();
        return;
    }
    /* The row-major problem: column-major swaps A's and B's entries, M and N. */
    const int rm = layout == GL_ROW_MAJOR;
    const int64_t m = rm ? M : N, n = rm ? N : M;
    int64_t kept = 0; /* products whose entries are all set */
    for (int64_t j = 0; j < batch; ++j)
        kept += (!reads_ab || (entries[0][j] && entries[1][j])) && entries[2][j];
    if (!reads_ab) {
        REQUIRE(launches == (beta == 1.0f ? 0 : kept));
        for (int64_t i = 0; i < launches && i < FAKE_GPU_LOG; ++i)
            REQUIRE(fake_gpu_launch((int)i)->variant == -1 && fake_gpu_launch((int)i)->m == m);
        reset_message();
        return;
    }
    const int64_t slices = cublas ? 1 : (m - 1) / (1 << 20) + 1;
    REQUIRE(launches == (cublas ? batch : kept) * slices);
    int64_t rows = 0;
    for (int64_t i = 0; i < launches && i < FAKE_GPU_LOG; ++i) {
        const fake_launch *l = fake_gpu_launch((int)i);
        REQUIRE(l->variant == variant && l->n == n && l->k == K);
        int found = 0; /* B's entry is never moved: it names the product */
        for (int64_t j = 0; j < batch && !found; ++j)
            found = l->b == entries[rm ? 1 : 0][j];
        REQUIRE(found);
        rows += l->m;
    }
    if (launches <= FAKE_GPU_LOG)
        REQUIRE(rows == m * (cublas ? batch : kept));
    reset_message();
}

/* Whether t is one of the configurations gl_variant_config lists. */
static int compiled(int32_t v, const gl_tiles *t)
{
    for (int32_t i = 0; i < gl_variant_config_count((gl_variant_t)v); ++i) {
        gl_tiles c = {.size = sizeof c};
        REQUIRE(gl_variant_config((gl_variant_t)v, i, &c) == GL_STATUS_SUCCESS);
        if (c.bm == t->bm && c.bn == t->bn && c.bk == t->bk && c.tm == t->tm && c.tn == t->tn &&
            c.wm == t->wm && c.wn == t->wn && c.wniter == t->wniter && c.threads == t->threads)
            return 1;
    }
    return 0;
}

static void op_tuning_query_device(input *in)
{
    const int32_t v = take_enum(in);
    const int64_t M = take_size(in), N = take_size(in), K = take_size(in);
    const int null_out = take_u8(in) % 8 == 0;
    const uint32_t size = take_tiles_size(in);
    size_t bytes = 0;
    gl_tiles *t = null_out ? NULL : make_tiles(size, &bytes);

    poison_message();
    const gl_status_t st = gl_tuning_query(handle, (gl_variant_t)v, M, N, K, t);
    expectation e = expect(st, "gl_tuning_query: ");
    const int sizes_ok = M >= 0 && M <= INT32_MAX && N >= 0 && N <= INT32_MAX && K >= 0 &&
                         K <= INT32_MAX;
    if (!variant_known(v)) {
        REQUIRE(st == GL_STATUS_UNKNOWN_VARIANT);
    } else if (!t || size < sizeof(gl_tiles) || !sizes_ok ||
               gl_variant_config_count((gl_variant_t)v) == 0) { /* cublas: no tiles */
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
    } else {
        REQUIRE(st == GL_STATUS_SUCCESS && t->size == size);
        REQUIRE(t->origin >= GL_TILES_FIXED && t->origin <= GL_TILES_FILL);
        REQUIRE(compiled(v, t));
        REQUIRE(strnlen(t->source, sizeof t->source) < sizeof t->source);
    }
    if (st != GL_STATUS_SUCCESS)
        require_expected_on_handle(st, e);
    reset_message();
    free(t);
}

static void op_set_tiles_device(input *in)
{
    const int32_t v = take_enum(in);
    const int unpin = take_u8(in) % 8 == 0;
    gl_tiles t = {.size = sizeof t};
    /* A compiled configuration, perhaps with one field set to any value. */
    const int32_t count = gl_variant_config_count((gl_variant_t)(v >= 0 ? v : 0));
    if (variant_known(v) && count > 0)
        REQUIRE(gl_variant_config((gl_variant_t)v, take_u8(in) % count, &t) == GL_STATUS_SUCCESS);
    if (take_u8(in) % 2) {
        int32_t *fields[] = {&t.bm, &t.bn, &t.bk, &t.tm, &t.tn, &t.wm, &t.wn, &t.wniter,
                             &t.threads};
        *fields[take_u8(in) % 9] = take_enum(in);
    }
    t.size = take_u8(in) % 8 == 0 ? take_tiles_size(in) : sizeof t;

    poison_message();
    const gl_status_t st = gl_set_tiles(handle, (gl_variant_t)v, unpin ? NULL : &t);
    const int tuned = variant_known(v) && variant_tuned(v);
    if (!variant_known(v))
        REQUIRE(st == GL_STATUS_UNKNOWN_VARIANT);
    else if (!tuned)
        REQUIRE(st == GL_STATUS_TUNING_ERROR);
    else if (unpin)
        REQUIRE(st == GL_STATUS_SUCCESS);
    else if (t.size < sizeof t)
        REQUIRE(st == GL_STATUS_INVALID_ARGUMENT);
    else
        REQUIRE(st == (compiled(v, &t) ? GL_STATUS_SUCCESS : GL_STATUS_TUNING_ERROR));
    if (st != GL_STATUS_SUCCESS)
        require_expected_on_handle(st, expect(st, "gl_set_tiles: "));
    if (st == GL_STATUS_SUCCESS && !unpin) {
        gl_tiles q = {.size = sizeof q};
        REQUIRE(gl_tuning_query(handle, (gl_variant_t)v, 4096, 4096, 4096, &q) ==
                GL_STATUS_SUCCESS);
        REQUIRE(q.origin == GL_TILES_PINNED && q.bm == t.bm && q.wniter == t.wniter &&
                q.threads == t.threads);
    }
    reset_message();
}

/* The engine (auto): the variant whose row says so. */
static gl_variant_t engine_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v) {
        gl_variant_info info = {.size = sizeof info};
        if (gl_variant_describe((gl_variant_t)v, &info) == GL_STATUS_SUCCESS && info.engine)
            return (gl_variant_t)v;
    }
    __builtin_trap();
}

/* Scratch memory past the handle: gl_set_workspace_limit and
 * gl_set_workspace give the status and message of the first failing check
 * in gemmladder.h's order (a model of it), keep the setting on a refusal
 * and take it on success; gl_sgemm_workspace_size ignores the settings;
 * and gl_sgemm_plan of a product of one slice takes all the scratch it
 * wants where that fits the limit and the buffer, else none. The handle
 * goes back to its pool with no limit afterwards. */
static void op_workspace_device(input *in)
{
    static _Alignas(256) char host_workspace[4096]; /* memory CUDA does not know */
    make_buffers(in);
    const int64_t limit = take_size(in), bytes = take_size(in);
    const int which = take_u8(in) % (DEVICE_BUFFERS + 2);
    /* within an allocation or the gap of at least 4096 bytes after it */
    const uint64_t offset = take_raw(in, 2) & 0xfff;
    char *p = which < DEVICE_BUFFERS    ? buffers[which].p + offset
              : which == DEVICE_BUFFERS ? NULL
                                        : host_workspace;
    static const int64_t shapes[][3] = {{4097, 4097, 4097}, {256, 256, 8192}, {1, 4096, 4096},
                                        {127, 4096, 4096}, {64, 64, 64}};
    const int64_t *mnk = shapes[take_u8(in) % (sizeof shapes / sizeof shapes[0])];
    const gl_variant_t auto_v = engine_variant();
    int64_t need = -1, again = -2, set = -3, kept_bytes = -4;
    void *kept = (void *)&kept;
    REQUIRE(gl_sgemm_workspace_size(handle, auto_v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, mnk[0],
                                    mnk[1], mnk[2], NULL, mnk[2], NULL, mnk[1], NULL, mnk[1],
                                    &need) == GL_STATUS_SUCCESS &&
            need >= 0);

    poison_message();
    gl_status_t st = gl_set_workspace_limit(handle, limit);
    REQUIRE(st == (limit < 0 ? GL_STATUS_INVALID_ARGUMENT : GL_STATUS_SUCCESS));
    if (st != GL_STATUS_SUCCESS)
        require_expected_on_handle(st, expect(st, "gl_set_workspace_limit: bytes ("));
    REQUIRE(gl_get_workspace_limit(handle, &set) == GL_STATUS_SUCCESS);
    REQUIRE(set == (limit < 0 ? GL_WORKSPACE_NO_LIMIT : limit));

    expectation e = expect(GL_STATUS_SUCCESS, "");
    if (bytes < 0)
        e = expect(GL_STATUS_INVALID_ARGUMENT, "must be >= 0");
    else if (!p && bytes != 0)
        e = expect(GL_STATUS_INVALID_ARGUMENT, "is NULL but bytes is");
    else if ((uintptr_t)p % 256)
        e = expect(GL_STATUS_INVALID_ARGUMENT, "is not aligned to 256 bytes");
    else if (p == host_workspace || (p && offset >= buffers[which].bytes))
        e = expect(GL_STATUS_INVALID_ARGUMENT, "is not device memory");
    else if (p && (uint64_t)bytes > buffers[which].bytes - offset)
        e = expect(GL_STATUS_INVALID_ARGUMENT, "but its allocation has only");
    poison_message();
    st = gl_set_workspace(handle, p, bytes);
    REQUIRE(st == e.status);
    if (st != GL_STATUS_SUCCESS)
        require_expected_on_handle(st, e);
    REQUIRE(gl_get_workspace(handle, &kept, &kept_bytes) == GL_STATUS_SUCCESS);
    REQUIRE(st == GL_STATUS_SUCCESS ? kept == p && kept_bytes == bytes
                                    : kept == NULL && kept_bytes == 0);

    const int64_t budget = kept && kept_bytes < set ? kept_bytes : set;
    gl_plan plan = {.size = sizeof plan};
    REQUIRE(gl_sgemm_plan(handle, auto_v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, mnk[0], mnk[1],
                          mnk[2], NULL, mnk[2], NULL, mnk[1], NULL, mnk[1],
                          &plan) == GL_STATUS_SUCCESS);
    REQUIRE(plan.scratch_bytes == (need <= budget ? need : 0));
    REQUIRE(gl_sgemm_workspace_size(handle, auto_v, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, mnk[0],
                                    mnk[1], mnk[2], NULL, mnk[2], NULL, mnk[1], NULL, mnk[1],
                                    &again) == GL_STATUS_SUCCESS &&
            again == need);
    REQUIRE(gl_set_workspace(handle, NULL, 0) == GL_STATUS_SUCCESS);
    REQUIRE(gl_set_workspace_limit(handle, GL_WORKSPACE_NO_LIMIT) == GL_STATUS_SUCCESS);
    reset_message();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    if (!handle)
        REQUIRE(gl_handle_create(&handle) == GL_STATUS_SUCCESS);
    /* Each input starts from the same state: nothing pinned. */
    for (int v = 0; v < gl_variant_count(); ++v)
        if (variant_tuned(v))
            REQUIRE(gl_set_tiles(handle, (gl_variant_t)v, NULL) == GL_STATUS_SUCCESS);
    while (in.n > 0) {
        switch (take_u8(&in) % OP_COUNT) {
        case OP_SGEMM_EX: op_sgemm_ex(&in); break;
        case OP_SGEMM: op_sgemm(&in); break;
        case OP_FROM_NAME: op_from_name(&in); break;
        case OP_VARIANT_NAME: op_variant_name(&in); break;
        case OP_STATUS_STRING: op_status_string(&in); break;
        case OP_VARIANT_CONFIG: op_variant_config(&in); break;
        case OP_TUNING_QUERY: op_tuning_query(&in); break;
        case OP_SET_TILES: op_set_tiles(&in); break;
        case OP_SGEMM_EX_DEVICE: op_sgemm_ex_device(&in); break;
        case OP_TUNING_QUERY_DEVICE: op_tuning_query_device(&in); break;
        case OP_SET_TILES_DEVICE: op_set_tiles_device(&in); break;
        case OP_WORKSPACE_DEVICE: op_workspace_device(&in); break;
        case OP_STRIDED_BATCHED_DEVICE: op_strided_batched_device(&in); break;
        case OP_POINTERS_BATCHED_DEVICE: op_pointers_batched_device(&in); break;
        default: op_handle_calls(&in); break;
        }
    }
    free_buffers();
    /* gl_last_error(NULL) is always a valid string between calls. */
    REQUIRE(strnlen(gl_last_error(NULL), MESSAGE_LIMIT) < MESSAGE_LIMIT);
    return 0;
}

#else
/* ======================================================================== */
/* The seed writer: one file per interesting call, in the encoding above.  */

#include <stdarg.h>

static unsigned char seed[4096];
static size_t seed_len;

static void put(int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; ++i)
        seed[seed_len++] = (unsigned char)(v >> (8 * i));
}

static int edge_index(int64_t v)
{
    for (size_t i = 0; i < sizeof edge_sizes / sizeof edge_sizes[0]; ++i)
        if (edge_sizes[i] == v)
            return (int)i;
    return -1;
}

/* Sizes: small as tag 0, listed edges as tag 1, the rest raw. */
static void put_size(int64_t v)
{
    if (v >= -128 && v <= 127)
        put(1, 0), put(1, (uint64_t)(int8_t)v);
    else if (edge_index(v) >= 0)
        put(1, 1), put(1, (uint64_t)edge_index(v));
    else
        put(1, 3), put(8, (uint64_t)v);
}

static void put_enum(int32_t v)
{
    if (v >= 0 && v < 12)
        put(1, 0), put(1, (uint64_t)v);
    else
        put(1, 3), put(4, (uint32_t)v);
}

static void put_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put(1, 3), put(4, bits);
}

static void put_ptr(uintptr_t p)
{
    if (p == 0)
        put(1, 0);
    else
        put(1, 3), put(8, p);
}

static void put_string(const char *s)
{
    put(2, strlen(s));
    memcpy(seed + seed_len, s, strlen(s));
    seed_len += strlen(s);
}

static const char *dir;

static void emit(const char *fmt, ...)
{
    char name[256], path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(seed, 1, seed_len, f) != seed_len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    seed_len = 0;
}

static void ex(int32_t v, int32_t layout, int32_t ta, int32_t tb, int64_t M, int64_t N, int64_t K,
               float alpha, uintptr_t A, int64_t lda, uintptr_t B, int64_t ldb, float beta,
               uintptr_t C, int64_t ldc)
{
    put(1, OP_SGEMM_EX);
    put_enum(v), put_enum(layout), put_enum(ta), put_enum(tb);
    put_size(M), put_size(N), put_size(K), put_float(alpha);
    put_ptr(A), put_size(lda), put_ptr(B), put_size(ldb), put_float(beta);
    put_ptr(C), put_size(ldc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    const uintptr_t A = 0x10000, B = 0x20000, C = 0x30000;

    /* Products: each check failing in turn, then everything right but the handle. */
    ex(9, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-variant");
    ex(1, 2, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-layout");
    ex(1, 0, 2, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-transa");
    ex(1, 0, 0, -1, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-transb");
    ex(1, 0, 0, 0, -1, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-m");
    ex(1, 0, 0, 0, 4, (int64_t)INT32_MAX + 1, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-n");
    ex(1, 0, 0, 0, 4, 5, INT64_MIN, 1, A, 6, B, 5, 0, C, 5), emit("ex-k");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 5, B, 5, 0, C, 5), emit("ex-lda-row-n");
    ex(1, 0, 1, 0, 4, 5, 6, 1, A, 3, B, 5, 0, C, 5), emit("ex-lda-row-t");
    ex(1, 1, 0, 0, 4, 5, 6, 1, A, 3, B, 6, 0, C, 4), emit("ex-lda-col-n");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 4, 0, C, 5), emit("ex-ldb-row-n");
    ex(1, 1, 0, 1, 4, 5, 6, 1, A, 4, B, 4, 0, C, 4), emit("ex-ldb-col-t");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 4), emit("ex-ldc-row");
    ex(1, 1, 0, 0, 4, 5, 6, 1, A, 4, B, 6, 0, C, 3), emit("ex-ldc-col");
    ex(1, 0, 0, 0, 4, 5, 0, 1, A, 0, B, 5, 0, C, 5), emit("ex-lda-zero-k");
    ex(1, 0, 0, 0, 4, 5, 6, 1, 0, 6, B, 5, 0, C, 5), emit("ex-a-null");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, 0, 5, 0, C, 5), emit("ex-b-null");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, 0, 5), emit("ex-c-null");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A + 2, 6, B, 5, 0, C, 5), emit("ex-a-misaligned");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B + 1, 5, 0, C, 5), emit("ex-b-misaligned");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C + 3, 5), emit("ex-c-misaligned");
    ex(1, 0, 0, 0, 4, 5, 0, 1, 0, 1, 0, 5, 2, C, 5), emit("ex-k0-null-ab");
    ex(1, 0, 0, 0, 4, 5, 6, 0, 0, 6, 0, 5, 2, C, 5), emit("ex-alpha0-null-ab");
    ex(1, 0, 0, 0, 4, 5, 6, -0.0f, A + 1, 6, B + 1, 5, 2, C, 5), emit("ex-alpha-minus0");
    ex(1, 0, 0, 0, 4, 5, 6, NAN, A, 6, B, 5, 0, C, 5), emit("ex-alpha-nan");
    ex(1, 0, 0, 0, 0, 5, 6, 1, 0, 6, 0, 5, 0, 0, 5), emit("ex-m0-all-null");
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5), emit("ex-valid-row-nn");
    ex(0, 1, 1, 1, 4, 5, 6, 1, A, 6, B, 5, 0, C, 4), emit("ex-valid-col-tt");
    ex(8, 0, 1, 1, INT32_MAX, INT32_MAX, INT32_MAX, 1, A, INT32_MAX, B, INT32_MAX, 1, C,
       INT32_MAX), emit("ex-valid-max-sizes");
    ex(8, 1, 0, 0, 1 << 20, 1, 1, 1, A, INT64_MAX, B, INT64_MAX, 1, C, INT64_MAX),
        emit("ex-valid-huge-ld");

    /* The short call. */
    put(1, OP_SGEMM), put_enum(42), put_size(4), put_size(5), put_size(6), put_ptr(A), put_ptr(B),
        put_ptr(C), emit("sgemm-variant");
    put(1, OP_SGEMM), put_enum(1), put_size(4), put_size(5), put_size(6), put_ptr(A), put_ptr(0),
        put_ptr(C), emit("sgemm-b-null");
    put(1, OP_SGEMM), put_enum(1), put_size(4), put_size(5), put_size(6), put_ptr(A), put_ptr(B),
        put_ptr(C), emit("sgemm-valid");
    put(1, OP_SGEMM), put_enum(1), put_size(0), put_size(0), put_size(0), put_ptr(0), put_ptr(0),
        put_ptr(0), emit("sgemm-empty");

    /* Names. */
    for (int v = 0; v < gl_variant_count(); ++v)
        put(1, OP_FROM_NAME), put(1, 2), put_string(gl_variant_name((gl_variant_t)v)),
            emit("name-%s", gl_variant_name((gl_variant_t)v));
    put(1, OP_FROM_NAME), put(1, 2), put_string("Naive"), emit("name-wrong-case");
    put(1, OP_FROM_NAME), put(1, 2), put_string(""), emit("name-empty");
    const char *some_name = gl_variant_name((gl_variant_t)1);
    put(1, OP_FROM_NAME), put(1, 0), put_string(some_name), emit("name-null-name");
    put(1, OP_FROM_NAME), put(1, 1), put_string(some_name), emit("name-null-out");
    {
        char long_name[700];
        memset(long_name, 'w', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = '\0';
        put(1, OP_FROM_NAME), put(1, 2), put_string(long_name), emit("name-long");
    }
    for (int v = -1; v <= gl_variant_count(); ++v)
        put(1, OP_VARIANT_NAME), put_enum(v), put(1, OP_STATUS_STRING), put_enum(v),
            emit("names-%d", v);

    /* Configurations: every size-field case. */
    put(1, OP_VARIANT_CONFIG), put_enum(8), put_size(0), put(1, 1), put(1, 0),
        emit("config-valid");
    put(1, OP_VARIANT_CONFIG), put_enum(7), put_size(5), put(1, 1), put(1, 0),
        emit("config-last");
    put(1, OP_VARIANT_CONFIG), put_enum(7), put_size(6), put(1, 1), put(1, 0),
        emit("config-index-past");
    put(1, OP_VARIANT_CONFIG), put_enum(0), put_size(0), put(1, 1), put(1, 0),
        emit("config-cublas");
    put(1, OP_VARIANT_CONFIG), put_enum(4), put_size(0), put(1, 0), put(1, 0),
        emit("config-null-out");
    put(1, OP_VARIANT_CONFIG), put_enum(4), put_size(0), put(1, 1), put(1, 1), put(1, 0),
        emit("config-size-0");
    put(1, OP_VARIANT_CONFIG), put_enum(4), put_size(0), put(1, 1), put(1, 2), put(1, (uint8_t)-1),
        emit("config-size-short");
    put(1, OP_VARIANT_CONFIG), put_enum(4), put_size(0), put(1, 1), put(1, 2), put(1, 64),
        emit("config-size-long");
    put(1, OP_VARIANT_CONFIG), put_enum(4), put_size(-1), put(1, 1), put(1, 0),
        emit("config-index-negative");
    put(1, OP_VARIANT_CONFIG), put_enum(99), put_size(0), put(1, 1), put(1, 0),
        emit("config-variant");

    /* Tuning with a NULL handle. */
    put(1, OP_TUNING_QUERY), put_enum(8), put_size(4096), put_size(4096), put_size(4096),
        put(1, 1), put(1, 0), emit("query-valid");
    put(1, OP_TUNING_QUERY), put_enum(10), put_size(1), put_size(1), put_size(1), put(1, 1),
        put(1, 0), emit("query-variant");
    put(1, OP_SET_TILES), put_enum(7), put(1, 1), put(1, 0), emit("set-tiles-valid");
    put(1, OP_SET_TILES), put_enum(7), put(1, 0), put(1, 0), emit("set-tiles-unpin");
    put(1, OP_SET_TILES), put_enum(3), put(1, 2), put(1, 0), put_ptr(0xdead), emit("set-tiles-ptr");

    /* The other handle calls. */
    for (int which = 0; which < 6; ++which)
        put(1, OP_HANDLE_CALLS), put_enum(which == 0 ? 5 : 0), put_ptr(0x1234), put(1, which),
            emit("handle-%d", which);

    /* One input with a bit of everything, for sequences of calls. */
    ex(1, 0, 0, 0, 4, 5, 6, 1, A, 6, B, 5, 0, C, 5);
    put(1, OP_FROM_NAME), put(1, 2), put_string("nope");
    put(1, OP_VARIANT_CONFIG), put_enum(8), put_size(1), put(1, 1), put(1, 0);
    put(1, OP_HANDLE_CALLS), put_enum(2), put_ptr(0), put(1, 0);
    emit("mixed");
    return 0;
}
#endif
