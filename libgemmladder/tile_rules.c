/*
 * tile_rules.c - what tile parameters are and what a kernel can run with:
 * the fields tiles have, one schema per kind of tiles (its fields and their
 * ranges, its legality rule: tiles that divide, 16-byte copies in whole
 * rounds; its shared-memory and register model), how many blocks an SM
 * holds, and the fill tiles that replace a table's when its grid would
 * leave SMs idle. Plain C, no CUDA.
 */
#include "tile_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gemmladder.h"
#include "variants.h"

/* ---- fields -------------------------------------------------------------- */

#define FIELD(x) {#x, offsetof(gl_tile_params, x), offsetof(gl_tiles, x)}

/* Fields added after 1.1's nine take words of gl_tiles.reserved, one each,
 * from SLOT(0) to SLOT(3), never reused; reserved[4..7] stay reserved.
 * stages (1.2) holds SLOT(0). */
#define SLOTS 4
#define SLOT(i) (offsetof(gl_tiles, reserved) + sizeof(int32_t) * (i))

const gl_tile_field gl_tile_fields[GL_FIELD_COUNT] = {
    [GL_FIELD_BM] = FIELD(bm),         [GL_FIELD_BN] = FIELD(bn),
    [GL_FIELD_BK] = FIELD(bk),         [GL_FIELD_TM] = FIELD(tm),
    [GL_FIELD_TN] = FIELD(tn),         [GL_FIELD_WM] = FIELD(wm),
    [GL_FIELD_WN] = FIELD(wn),         [GL_FIELD_WNITER] = FIELD(wniter),
    [GL_FIELD_THREADS] = FIELD(threads),
    [GL_FIELD_STAGES] = {"stages", offsetof(gl_tile_params, stages), SLOT(0)},
};

_Static_assert(sizeof(gl_tile_params) == GL_FIELD_COUNT * sizeof(int),
               "every member of gl_tile_params is a field of gl_tile_fields");
_Static_assert(GL_FIELD_COUNT <= 9 + SLOTS, "room in gl_tiles.reserved for the fields");

int gl_tile_field_find(const char *name)
{
    for (int f = 0; f < GL_FIELD_COUNT; ++f)
        if (strcmp(gl_tile_fields[f].name, name) == 0)
            return f;
    return -1;
}

void gl_tile_field_names(char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int f = 0; f < GL_FIELD_COUNT && n < size; ++f)
        n += (size_t)snprintf(out + n, size - n, "%s%s", f ? ", " : "", gl_tile_fields[f].name);
}

void gl_tile_params_text(const gl_tile_params *t, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int f = 0; f < GL_FIELD_COUNT && n < size; ++f)
        if (f <= GL_FIELD_THREADS || gl_tile_value(t, (gl_tile_field_id)f)) /* later ones if set */
            n += (size_t)snprintf(out + n, size - n, "%s%s=%d", f ? " " : "",
                                  gl_tile_fields[f].name, gl_tile_value(t, (gl_tile_field_id)f));
}

/* ---- schemas ------------------------------------------------------------- */

/* Every field a rule multiplies is bounded to 1 .. FIELD_MAX (the parser's
 * range), and products are formed in 64 bits: the largest, 32 * tm * tn *
 * wniter, stays under 2^41. */
#define FIELD_MAX 4096
#define TILE(f) {GL_FIELD_##f, 1, FIELD_MAX, NULL, 0}
#define THREADS {GL_FIELD_THREADS, 64, 1024, NULL, 0}
#define THREADS_PER_PATCH {GL_FIELD_THREADS, 64, 1024, "bm*bn/(tm*tn)", 0}
#define EXACTLY(f, v) {GL_FIELD_##f, v, v, NULL, 0}

static int fail(char *why, size_t size, const char *fmt, ...)
{
    if (why && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* threads = bm * bn / (tm * tn): one thread per patch of C. */
static void one_thread_per_patch(gl_tile_params *t)
{
    t->threads = t->tm > 0 && t->tn > 0 ? t->bm * t->bn / (t->tm * t->tn) : 0;
}

/* The thread tile divides the block tile, into whole warps of threads. */
static int thread_tiles_divide(const gl_tile_params *t, char *why, size_t size)
{
    if (t->bm % t->tm || t->bn % t->tn)
        return fail(why, size, "the %d x %d thread tile does not divide the %d x %d block tile",
                    t->tm, t->tn, t->bm, t->bn);
    if (t->threads % 32)
        return fail(why, size, "%d threads is not a whole number of warps", t->threads);
    return 1;
}

static int threads_cover_block(const gl_tile_params *t, char *why, size_t size)
{
    const int64_t bm = t->bm, bn = t->bn, tm = t->tm, tn = t->tn;
    if (t->threads * tm * tn != bm * bn)
        return fail(why, size, "threads must be bm*bn/(tm*tn) = %lld, not %d",
                    (long long)(bm * bn / (tm * tn)), t->threads);
    return 1;
}

/* The rules the 16-byte slice copy of rungs 6-8 (slice_copy) imposes on a
 * BK x BX slice copied by `threads` threads, 4 floats at a time. */
static int slice_copy_ok(const char *what, int64_t bk, int64_t bx, int64_t threads, char *why,
                         size_t size)
{
    if (bk % 4 || bx % 4)
        return fail(why, size, "%s slice %lld x %lld: both sides must be multiples of 4 for "
                               "16-byte copies", what, (long long)bk, (long long)bx);
    if ((bk * bx) % (4 * threads))
        return fail(why, size,
                    "%s slice of %lld floats is not a whole number of 16-byte rounds for %lld "
                    "threads", what, (long long)(bk * bx), (long long)threads);
    if ((4 * threads) % bk || (4 * threads) % bx)
        return fail(why, size,
                    "%lld threads copying 4 floats each do not cover whole rows of the %lld x "
                    "%lld %s slice", (long long)threads, (long long)bk, (long long)bx, what);
    return 1;
}

static int slices_copy_in_float4s(const gl_tile_params *t, char *why, size_t size)
{
    return slice_copy_ok("A", t->bk, t->bm, t->threads, why, size) &&
           slice_copy_ok("B", t->bk, t->bn, t->threads, why, size);
}

static int thread_tiles_in_float4s(const gl_tile_params *t, char *why, size_t size)
{
    if (t->tm % 4 || t->tn % 4)
        return fail(why, size, "the %d x %d thread tile must be read 4 floats at a time "
                               "(tm and tn multiples of 4)", t->tm, t->tn);
    return 1;
}

/* Accumulators a thread holds. */
static int64_t outputs(const gl_tile_params *t) { return (int64_t)t->bm * t->bn / t->threads; }

/* float4s of the next slice a thread holds while computing on this one. */
static int64_t staged(const gl_tile_params *t)
{
    return ((int64_t)t->bm + t->bn) * t->bk / (4 * (int64_t)t->threads);
}

/* Rungs 1-2: one thread per element of a 32 x 32 tile, written into their files. */
const gl_tile_schema gl_schema_element = {
    .name = "element tiles",
    .field_count = 6,
    .fields = {EXACTLY(BM, 32), EXACTLY(BN, 32), EXACTLY(BK, 1), EXACTLY(TM, 1), EXACTLY(TN, 1),
               EXACTLY(THREADS, 1024)},
};

/* Rung 3: 32 x 32 slices of A and B in shared memory, written into its file. */
static size_t shared_smem(const gl_tile_params *t)
{
    return 4 * ((size_t)t->bm * t->bk + (size_t)t->bk * t->bn);
}

const gl_tile_schema gl_schema_shared = {
    .name = "shared-memory tiles",
    .field_count = 6,
    .fields = {EXACTLY(BM, 32), EXACTLY(BN, 32), EXACTLY(BK, 32), EXACTLY(TM, 1), EXACTLY(TN, 1),
               EXACTLY(THREADS, 1024)},
    .smem = shared_smem,
    .static_smem = true,
};

/* Rungs 4-5: a BM x BK and a BK x BN slice in shared memory, copied a
 * float per thread in whole rows; a TM x TN patch of C per thread. */
static int blocktile_rule(const gl_tile_params *t, char *why, size_t size)
{
    if (!thread_tiles_divide(t, why, size) || !threads_cover_block(t, why, size))
        return 0;
    if (t->threads % t->bk || t->threads % t->bn || (t->bm * t->bk) % t->threads ||
        (t->bk * t->bn) % t->threads)
        return fail(why, size, "%d threads cannot copy the %d x %d and %d x %d slices in whole rows",
                    t->threads, t->bm, t->bk, t->bk, t->bn);
    return 1;
}

static size_t blocktile_smem(const gl_tile_params *t)
{
    return (size_t)GL_BLOCKTILE_SMEM((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk);
}

static int blocktile_registers(const gl_tile_params *t)
{
    return (int)GL_REGISTER_ESTIMATE(outputs(t), (int64_t)t->tm + t->tn, 0);
}

const gl_tile_schema gl_schema_column = {
    .name = "column tiles",
    .field_count = 6,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(TM), EXACTLY(TN, 1), THREADS_PER_PATCH},
    .derive = one_thread_per_patch,
    .rule = blocktile_rule,
    .smem = blocktile_smem,
    .static_smem = true,
    .registers = blocktile_registers,
};

const gl_tile_schema gl_schema_patch = {
    .name = "patch tiles",
    .field_count = 6,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(TM), TILE(TN), THREADS_PER_PATCH},
    .derive = one_thread_per_patch,
    .rule = blocktile_rule,
    .smem = blocktile_smem,
    .static_smem = true,
    .registers = blocktile_registers,
};

/* Rungs 6-7: k-major slices copied with float4s, a TM x TN patch per thread
 * read 4 floats at a time. */
static int vectorized_rule(const gl_tile_params *t, char *why, size_t size)
{
    return thread_tiles_divide(t, why, size) && threads_cover_block(t, why, size) &&
           thread_tiles_in_float4s(t, why, size) && slices_copy_in_float4s(t, why, size);
}

static size_t vectorized_smem(const gl_tile_params *t)
{
    return (size_t)GL_VECTORIZED_SMEM((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk);
}

static int vectorized_registers(const gl_tile_params *t)
{
    return (int)GL_REGISTER_ESTIMATE(outputs(t), (int64_t)t->tm + t->tn, staged(t));
}

const gl_tile_schema gl_schema_vectorized = {
    .name = "vectorized tiles",
    .field_count = 6,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(TM), TILE(TN), THREADS_PER_PATCH},
    .vector_loads = true,
    .derive = one_thread_per_patch,
    .rule = vectorized_rule,
    .smem = vectorized_smem,
    .registers = vectorized_registers,
};

/* Rung 8: each warp a WM x WN tile of the block's, walked as WMITER x
 * WNITER sub-tiles of 32 threads' TM x TN patches; two slices in flight. */
static int warptile_rule(const gl_tile_params *t, char *why, size_t size)
{
    if (!thread_tiles_divide(t, why, size))
        return 0;
    const int64_t bm = t->bm, bn = t->bn, tm = t->tm, tn = t->tn;
    const int64_t wm = t->wm, wn = t->wn, wniter = t->wniter, threads = t->threads;
    if (bm % wm || bn % wn || (bm / wm) * (bn / wn) != threads / 32)
        return fail(why, size,
                    "the %d x %d warp tiles must cover the %d x %d block tile one per warp "
                    "(%d warps)", t->wm, t->wn, t->bm, t->bn, t->threads / 32);
    const int64_t per_row = 32 * tm * tn * wniter; /* elements of one row of sub-tiles */
    if ((wm * wn) % per_row)
        return fail(why, size,
                    "a %d x %d warp tile is not a whole number of rows of %d sub-tiles "
                    "of 32 threads' %d x %d patches",
                    t->wm, t->wn, t->wniter, t->tm, t->tn);
    const int64_t wmiter = wm * wn / per_row; /* >= 1: per_row divides wm * wn >= 1 */
    if (wm % wmiter || wn % wniter)
        return fail(why, size, "wmiter %lld and wniter %d must divide wm %d and wn %d",
                    (long long)wmiter, t->wniter, t->wm, t->wn);
    const int64_t wsubm = wm / wmiter, wsubn = wn / wniter;
    if (wsubm % tm || wsubn % tn || (wsubm / tm) * (wsubn / tn) != 32)
        return fail(why, size,
                    "a %lld x %lld sub-tile must be exactly 32 threads' %d x %d patches",
                    (long long)wsubm, (long long)wsubn, t->tm, t->tn);
    return thread_tiles_in_float4s(t, why, size) && slices_copy_in_float4s(t, why, size);
}

static size_t warptile_smem(const gl_tile_params *t)
{
    return (size_t)GL_WARPTILE_SMEM((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk);
}

static int warptile_registers(const gl_tile_params *t)
{
    const int64_t wmiter = (int64_t)t->wm * t->wn / (32 * (int64_t)t->tm * t->tn * t->wniter);
    return (int)GL_REGISTER_ESTIMATE(outputs(t), wmiter * t->tm + (int64_t)t->wniter * t->tn,
                                     staged(t));
}

const gl_tile_schema gl_schema_warptile = {
    .name = "warp tiles",
    .field_count = 9,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(WM), TILE(WN), TILE(WNITER), TILE(TM), TILE(TN),
               THREADS},
    .vector_loads = true,
    .rule = warptile_rule,
    .smem = warptile_smem,
    .registers = warptile_registers,
};

/* Rung 12 (pipelined): rung 8's warp tiles, fed by asynchronous copies
 * into a ring of `stages` slices (12_pipelined.cu): 16-byte
 * copies of rows across K, and single floats, transposed, of rows along K,
 * each in whole rounds of the block's threads; no staging registers, the
 * fragments twice over. */
static int pipelined_copies_ok(const char *what, int64_t bk, int64_t bx, int64_t threads,
                               char *why, size_t size)
{
    if (bx % 32 || bk % 8)
        return fail(why, size, "%s slice %lld x %lld: bk must be a multiple of 8 and the other "
                               "side of 32 for the transposed copies", what, (long long)bk,
                    (long long)bx);
    if (bx % (threads / 8) || threads % bx || bk % (threads / bx))
        return fail(why, size, "%lld threads do not copy the %lld x %lld %s slice a float at a "
                               "time in whole rounds", (long long)threads, (long long)bk,
                    (long long)bx, what);
    if (bk % (4 * threads / bx))
        return fail(why, size, "%lld threads do not copy the %lld x %lld %s slice 4 floats at a "
                               "time in whole rounds", (long long)threads, (long long)bk,
                    (long long)bx, what);
    return 1;
}

static int pipelined_rule(const gl_tile_params *t, char *why, size_t size)
{
    return warptile_rule(t, why, size) &&
           pipelined_copies_ok("A", t->bk, t->bm, t->threads, why, size) &&
           pipelined_copies_ok("B", t->bk, t->bn, t->threads, why, size);
}

static size_t pipelined_smem(const gl_tile_params *t)
{
    return (size_t)GL_PIPELINED_SMEM((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk,
                                     (int64_t)t->stages);
}

static int pipelined_registers(const gl_tile_params *t)
{
    const int64_t wmiter = (int64_t)t->wm * t->wn / (32 * (int64_t)t->tm * t->tn * t->wniter);
    return (int)GL_REGISTER_ESTIMATE(outputs(t),
                                     2 * (wmiter * t->tm + (int64_t)t->wniter * t->tn), 0);
}

/* 2 slices at least (one multiplied while the next arrives), 8 at most;
 * left out, the ring of four that rung 12 first had */
#define STAGES {GL_FIELD_STAGES, 2, 8, NULL, GL_PIPELINED_UNSET_STAGES}

const gl_tile_schema gl_schema_pipelined = {
    .name = "pipelined warp tiles",
    .field_count = 10,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(WM), TILE(WN), TILE(WNITER), TILE(TM), TILE(TN),
               THREADS, STAGES},
    .vector_loads = true,
    .rule = pipelined_rule,
    .smem = pipelined_smem,
    .registers = pipelined_registers,
};

/* Rung 10 (tf32): each warp a WM x WN tile of the block's, as 16 x 8
 * mma.sync products; GL_TF32_STAGES slices in flight, copied by cp.async
 * and rounded to TF32 as the fragments are read (10_tf32.cu). A slice is
 * copied by one of six plans (tf32_copy::plan there): the matrix's rows
 * `rows` of `len` floats, copies `width` floats wide, a warp's lanes `run`
 * neighbouring copies of a row; the block's threads must cover a run of
 * every row in whole rounds, or several runs of every row in one. */
static int mma_copy_ok(const char *what, int64_t rows, int64_t len, int64_t width, int64_t run,
                       int64_t threads, char *why, size_t size)
{
    const int64_t block = run * rows, rounds = block > threads ? block / threads : 1;
    if (len % (run * width) || threads % run || (block % threads && threads % block) ||
        (rows * len) % (width * threads) || (rows * len / (width * threads)) % rounds)
        return fail(why, size, "%lld threads do not copy the %s slice (%lld rows of %lld floats, "
                               "%lld at a time in runs of %lld) in whole rounds",
                    (long long)threads, what, (long long)rows, (long long)len, (long long)width,
                    (long long)run);
    return 1;
}

static int mma_rule(const gl_tile_params *t, char *why, size_t size)
{
    const int64_t bm = t->bm, bn = t->bn, bk = t->bk, wm = t->wm, wn = t->wn;
    const int64_t threads = t->threads;
    if (threads % 32)
        return fail(why, size, "%d threads is not a whole number of warps", t->threads);
    if (bm % wm || bn % wn || (bm / wm) * (bn / wn) != threads / 32)
        return fail(why, size,
                    "the %d x %d warp tiles must cover the %d x %d block tile one per warp "
                    "(%d warps)", t->wm, t->wn, t->bm, t->bn, t->threads / 32);
    if (wm % 16 || wn % 8)
        return fail(why, size, "a %d x %d warp tile is not whole 16 x 8 mma products", t->wm,
                    t->wn);
    if (bm % 32 || bn % 32 || bk % 8)
        return fail(why, size, "bm and bn must be multiples of 32 and bk of 8 (%d, %d, %d)",
                    t->bm, t->bn, t->bk);
    /* A's slice: rows of k (as stored) or of x (transposed); B's: rows of
     * x (as stored) or of k (transposed) */
    return mma_copy_ok("A", bm, bk, 4, bk / 4 < 8 ? bk / 4 : 8, threads, why, size) &&
           mma_copy_ok("A", bm, bk, 1, 4, threads, why, size) &&
           mma_copy_ok("transposed A", bk, bm, 1, 8, threads, why, size) &&
           mma_copy_ok("B", bk, bn, 4, bn / 4 < 32 ? bn / 4 : 32, threads, why, size) &&
           mma_copy_ok("B", bk, bn, 1, 32, threads, why, size) &&
           mma_copy_ok("transposed B", bn, bk, 1, 4, threads, why, size);
}

static size_t mma_smem(const gl_tile_params *t)
{
    return (size_t)GL_TF32_SMEM((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk);
}

static int mma_registers(const gl_tile_params *t)
{
    return (int)GL_TF32_REGISTERS((int64_t)t->bm, (int64_t)t->bn, (int64_t)t->bk,
                                  (int64_t)t->wm, (int64_t)t->wn, (int64_t)t->threads);
}

const gl_tile_schema gl_schema_mma = {
    .name = "mma warp tiles",
    .field_count = 6,
    .fields = {TILE(BM), TILE(BN), TILE(BK), TILE(WM), TILE(WN), THREADS},
    .vector_loads = true,
    .rule = mma_rule,
    .smem = mma_smem,
    .registers = mma_registers,
};

/* ---- rules and costs ----------------------------------------------------- */

bool gl_tiles_compiled(const gl_variant_desc *d, const gl_tile_params *t, int *count)
{
    *count = d->config_count;
    for (int i = 0; i < *count; ++i)
        if (gl_tile_params_equal(&d->configs[i], t))
            return true;
    return false;
}

size_t gl_tiles_smem(const gl_tile_schema *s, const gl_tile_params *t)
{
    return s && s->smem ? s->smem(t) : 0;
}

size_t gl_arch_smem_limit(int cc)
{
    switch (cc) {
    case 80:
    case 87:
        return 163 * 1024;
    case 90:
    case 100:
    case 103:
        return 227 * 1024;
    case 0:   /* any supported GPU: the least of them */
    case 86:
    case 89:
    case 120:
    case 121:
    default:
        return 99 * 1024;
    }
}

void gl_tiles_fill_unset(const gl_tile_schema *s, gl_tile_params *t)
{
    for (int i = 0; i < s->field_count; ++i)
        if (s->fields[i].unset && !gl_tile_value(t, s->fields[i].field))
            gl_tile_set_value(t, s->fields[i].field, s->fields[i].unset);
}

const gl_tile_range *gl_tile_range_of(const gl_tile_schema *s, gl_tile_field_id f)
{
    for (int i = 0; i < s->field_count; ++i)
        if (s->fields[i].field == f)
            return &s->fields[i];
    return NULL;
}

int gl_tiles_legal(const gl_tile_schema *s, const gl_tile_params *t, size_t smem_limit, char *why,
                   size_t why_size)
{
    if (!s || !s->rule)
        return fail(why, why_size, "this kernel takes no tile parameters%s",
                    s ? ": its tiles are written into its file" : "");
    for (int f = 0; f < GL_FIELD_COUNT; ++f) {
        const gl_tile_range *r = gl_tile_range_of(s, (gl_tile_field_id)f);
        const int value = gl_tile_value(t, (gl_tile_field_id)f);
        if (r && (value < r->min || value > r->max))
            return fail(why, why_size, "%s = %d is outside %d..%d", gl_tile_fields[f].name, value,
                        r->min, r->max);
        if (!r && value)
            return fail(why, why_size, "%s = %d: %s have no %s", gl_tile_fields[f].name, value,
                        s->name, gl_tile_fields[f].name);
    }
    if (!s->rule(t, why, why_size))
        return 0;
    const size_t smem = gl_tiles_smem(s, t);
    if (s->static_smem && smem > 48 * 1024)
        return fail(why, why_size, "%zu bytes of static shared memory; at most 49152", smem);
    if (smem > smem_limit)
        return fail(why, why_size, "needs %zu bytes of shared memory; the limit is %zu", smem,
                    smem_limit);
    const int registers = gl_tiles_registers(s, t);
    if (registers > 255)
        return fail(why, why_size, "needs about %d registers a thread; the limit is 255",
                    registers);
    return 1;
}

int gl_tiles_registers(const gl_tile_schema *s, const gl_tile_params *t)
{
    return s && s->registers ? s->registers(t) : 0;
}

/* ---- filling the GPU ----------------------------------------------------- */

int gl_tiles_resident(const gl_tile_schema *s, const gl_tile_params *t, size_t smem_limit)
{
    const int registers = gl_tiles_registers(s, t);
    int blocks = 2048 / t->threads;
    if (registers > 0 && blocks > 65536 / (t->threads * registers)) /* gl_min_blocks, ladder.cuh */
        blocks = 65536 / (t->threads * registers);
    const int by_smem = (int)((smem_limit + 1024) / (gl_tiles_smem(s, t) + 1024));
    if (blocks > by_smem)
        blocks = by_smem;
    return blocks > 1 ? blocks : 1;
}

/*
 * The one model of how a grid fills the GPU (the fill tiles below, and the
 * plan's choices in engine/plan.c). Time is counted in units of one
 * element of C times one k on one SM. The busiest SM runs
 * ceil(blocks / sms) blocks, in rounds of at most `resident` at once; a
 * round of b blocks of w warps in all takes b tiles' work at full speed
 * with 16 warps or more, and at a speed of 0.5 + w / 32 with fewer (an SM
 * hides its latencies with many warps). Tiles under 128 x 64 compute 18%
 * less per second (docs/engine.md).
 */
double gl_round_work(int64_t blocks, int64_t warps)
{
    if (blocks == 0)
        return 0.0;
    const double speed = 0.5 + (double)(blocks * warps) / 32.0;
    return (double)blocks / (speed < 1.0 ? speed : 1.0);
}

double gl_grid_time(const gl_tile_params *t, int64_t blocks, int64_t resident, int sms,
                    int64_t depth)
{
    const int64_t per_sm = (blocks + sms - 1) / sms, warps = t->threads / 32;
    /* full rounds of `resident` blocks, then the rest; in tiles at full speed */
    const int64_t full = per_sm / resident, rest = per_sm - full * resident;
    const double work = (double)full * gl_round_work(resident, warps) + gl_round_work(rest, warps);
    double time = work * t->bm * t->bn * (double)depth;
    if ((int64_t)t->bm * t->bn < 128 * 64)
        time /= 0.82;
    return time;
}

static double tiles_time(const gl_tile_schema *s, const gl_tile_params *t, int64_t m, int64_t n,
                         int sms, size_t smem_limit)
{
    const int64_t blocks = ((m - 1) / t->bm + 1) * ((n - 1) / t->bn + 1);
    return gl_grid_time(t, blocks, gl_tiles_resident(s, t, smem_limit), sms, 1);
}

/* The fill tiles must promise 8% less time than the table's: the model's
 * margin of error. (With it the rule keeps the choices of its measured
 * predecessor, which counted whole rounds, on all but 24 of 147,456 grids
 * from 16 to 12,288 rows and columns on 132 SMs; docs/engine.md.) */
#define GL_FILL_MARGIN 0.92

const gl_tile_params *gl_fill_tiles(const gl_variant_desc *d, const gl_tile_params *t, int64_t m,
                                    int64_t n, int sms, size_t smem_limit)
{
    const gl_tile_params *fill = d->fill;
    if (!fill || sms < 1 || gl_tile_params_equal(fill, t))
        return NULL;
    const double keep = tiles_time(d->schema, t, m, n, sms, smem_limit);
    return tiles_time(d->schema, fill, m, n, sms, smem_limit) < GL_FILL_MARGIN * keep ? fill : NULL;
}
