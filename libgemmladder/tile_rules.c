/*
 * tile_rules.c - what tile parameters a kernel can run with, and what they
 * cost it: the legality rules (thread counts, tiles that divide, 16-byte
 * copies in whole rounds, shared memory, registers), the shared-memory and
 * register model, how many blocks an SM holds, and the fill tiles that
 * replace a table's when its grid would leave SMs idle. Plain C, no CUDA.
 */
#include "tile_rules.h"

#include <stdarg.h>
#include <stdio.h>

bool gl_tiles_compiled(const gl_variant_desc *d, const gl_tile_params *t, int *count)
{
    const gl_tile_params *list = d->configs;
    *count = d->config_count;
    for (int i = 0; i < *count; ++i)
        if (gl_tile_params_equal(&list[i], t))
            return true;
    return false;
}

size_t gl_tiles_smem(gl_tile_kind kind, const gl_tile_params *t)
{
    switch (kind) {
    case GL_KIND_SHARED:
        return 4 * 2 * 32 * 32;
    case GL_KIND_COLUMN:
    case GL_KIND_PATCH:
        return (size_t)GL_BLOCKTILE_SMEM(t->bm, t->bn, t->bk);
    case GL_KIND_VECTORIZED:
        return (size_t)GL_VECTORIZED_SMEM(t->bm, t->bn, t->bk);
    case GL_KIND_WARPTILE:
        return (size_t)GL_WARPTILE_SMEM(t->bm, t->bn, t->bk);
    default:
        return 0;
    }
}

/* ---- the legality filter ------------------------------------------------- */

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

/* Every field the filter multiplies is first bounded to 1 .. GL_TILE_FIELD_MAX
 * (the parser's range), and products are formed in 64 bits: the largest,
 * 32 * tm * tn * wniter, stays under 2^41. */
#define GL_TILE_FIELD_MAX 4096

int gl_tiles_legal(gl_tile_kind kind, const gl_tile_params *t, size_t smem_limit, char *why,
                   size_t why_size)
{
    if (kind != GL_KIND_COLUMN && kind != GL_KIND_PATCH && kind != GL_KIND_VECTORIZED &&
        kind != GL_KIND_WARPTILE)
        return fail(why, why_size, "this kernel takes no tile parameters");
    const int warp = kind == GL_KIND_WARPTILE;
    const struct { const char *name; int value; bool used; } fields[] = {
        {"bm", t->bm, true}, {"bn", t->bn, true}, {"bk", t->bk, true},
        {"tm", t->tm, true}, {"tn", t->tn, true}, {"wm", t->wm, warp},
        {"wn", t->wn, warp}, {"wniter", t->wniter, warp},
    }; /* threads: 64 .. 1024, below */
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f)
        if (fields[f].used && (fields[f].value < 1 || fields[f].value > GL_TILE_FIELD_MAX))
            return fail(why, why_size, "%s = %d is outside 1..%d", fields[f].name,
                        fields[f].value, GL_TILE_FIELD_MAX);
    const int64_t bm = t->bm, bn = t->bn, bk = t->bk, tm = t->tm, tn = t->tn;
    if (bm % tm || bn % tn)
        return fail(why, why_size, "the %d x %d thread tile does not divide the %d x %d block tile",
                    t->tm, t->tn, t->bm, t->bn);
    const int64_t threads = t->threads;
    if (threads < 64 || threads > 1024)
        return fail(why, why_size, "%d threads per block; a block needs 64 to 1024", t->threads);
    if (threads % 32)
        return fail(why, why_size, "%d threads is not a whole number of warps", t->threads);

    switch (kind) {
    case GL_KIND_COLUMN:
    case GL_KIND_PATCH:
        if (threads * tm * tn != bm * bn)
            return fail(why, why_size, "threads must be bm*bn/(tm*tn) = %lld, not %d",
                        (long long)(bm * bn / (tm * tn)), t->threads);
        if (threads % bk || threads % bn || (bm * bk) % threads || (bk * bn) % threads)
            return fail(why, why_size,
                        "%d threads cannot copy the %d x %d and %d x %d slices in whole rows",
                        t->threads, t->bm, t->bk, t->bk, t->bn);
        if (kind == GL_KIND_COLUMN && tn != 1)
            return fail(why, why_size, "blocktile_1d computes one column per thread (tn = 1)");
        if (t->wm || t->wn || t->wniter)
            return fail(why, why_size, "wm, wn and wniter apply to warptile only");
        if (gl_tiles_smem(kind, t) > 48 * 1024)
            return fail(why, why_size, "%zu bytes of static shared memory; at most 49152",
                        gl_tiles_smem(kind, t));
        break;
    case GL_KIND_VECTORIZED:
        if (threads * tm * tn != bm * bn)
            return fail(why, why_size, "threads must be bm*bn/(tm*tn) = %lld, not %d",
                        (long long)(bm * bn / (tm * tn)), t->threads);
        if (tm % 4 || tn % 4)
            return fail(why, why_size, "the %d x %d thread tile must be read 4 floats at a time "
                                       "(tm and tn multiples of 4)", t->tm, t->tn);
        if (t->wm || t->wn || t->wniter)
            return fail(why, why_size, "wm, wn and wniter apply to warptile only");
        if (!slice_copy_ok("A", bk, bm, threads, why, why_size) ||
            !slice_copy_ok("B", bk, bn, threads, why, why_size))
            return 0;
        break;
    default: { /* GL_KIND_WARPTILE */
        const int64_t wm = t->wm, wn = t->wn, wniter = t->wniter;
        if (bm % wm || bn % wn || (bm / wm) * (bn / wn) != threads / 32)
            return fail(why, why_size,
                        "the %d x %d warp tiles must cover the %d x %d block tile one per warp "
                        "(%d warps)", t->wm, t->wn, t->bm, t->bn, t->threads / 32);
        const int64_t per_row = 32 * tm * tn * wniter; /* elements of one row of sub-tiles */
        if ((wm * wn) % per_row)
            return fail(why, why_size,
                        "a %d x %d warp tile is not a whole number of rows of %d sub-tiles "
                        "of 32 threads' %d x %d patches",
                        t->wm, t->wn, t->wniter, t->tm, t->tn);
        const int64_t wmiter = wm * wn / per_row; /* >= 1: per_row divides wm * wn >= 1 */
        if (wm % wmiter || wn % wniter)
            return fail(why, why_size, "wmiter %lld and wniter %d must divide wm %d and wn %d",
                        (long long)wmiter, t->wniter, t->wm, t->wn);
        const int64_t wsubm = wm / wmiter, wsubn = wn / wniter;
        if (wsubm % tm || wsubn % tn || (wsubm / tm) * (wsubn / tn) != 32)
            return fail(why, why_size,
                        "a %lld x %lld sub-tile must be exactly 32 threads' %d x %d patches",
                        (long long)wsubm, (long long)wsubn, t->tm, t->tn);
        if (tm % 4 || tn % 4)
            return fail(why, why_size, "the %d x %d thread patch must be read 4 floats at a "
                                       "time (tm and tn multiples of 4)", t->tm, t->tn);
        if (!slice_copy_ok("A", bk, bm, threads, why, why_size) ||
            !slice_copy_ok("B", bk, bn, threads, why, why_size))
            return 0;
        break;
    }
    }

    const size_t smem = gl_tiles_smem(kind, t);
    if (smem > smem_limit)
        return fail(why, why_size, "needs %zu bytes of shared memory; the limit is %zu", smem,
                    smem_limit);
    const int registers = gl_tiles_registers(kind, t);
    if (registers > 255)
        return fail(why, why_size, "needs about %d registers a thread; the limit is 255",
                    registers);
    return 1;
}

int gl_tiles_registers(gl_tile_kind kind, const gl_tile_params *t)
{
    const int64_t outputs = (int64_t)t->bm * t->bn / t->threads; /* accumulators */
    int64_t fragments = (int64_t)t->tm + t->tn;
    if (kind == GL_KIND_WARPTILE) {
        const int64_t wmiter =
            (int64_t)t->wm * t->wn / (32 * (int64_t)t->tm * t->tn * t->wniter);
        fragments = wmiter * t->tm + (int64_t)t->wniter * t->tn;
    }
    const int64_t staged = (kind == GL_KIND_COLUMN || kind == GL_KIND_PATCH)
                               ? 0
                               : ((int64_t)t->bm + t->bn) * t->bk / (4 * (int64_t)t->threads);
    return (int)GL_REGISTER_ESTIMATE(outputs, fragments, staged);
}

/* ---- filling the GPU ----------------------------------------------------- */

int gl_tiles_resident(gl_tile_kind kind, const gl_tile_params *t, size_t smem_limit)
{
    int blocks = 65536 / (t->threads * gl_tiles_registers(kind, t)); /* gl_min_blocks, ladder.cuh */
    const int by_threads = 2048 / t->threads;
    const int by_smem = (int)((smem_limit + 1024) / (gl_tiles_smem(kind, t) + 1024));
    if (blocks > by_threads)
        blocks = by_threads;
    if (blocks > by_smem)
        blocks = by_smem;
    return blocks > 1 ? blocks : 1;
}

/* How long an m x n grid of the tiles takes, in units of one element of C
 * computed by one SM: the GPU holds resident * sms blocks at once, so the
 * grid runs in ceil(blocks / (resident * sms)) rounds, and in each round an
 * SM computes resident tiles of bm x bn. It counts a part-full last round
 * as a whole one, and takes every tile element to cost the same, which
 * flatters small tiles; the margin below takes that back. */
static double grid_cost(gl_tile_kind kind, const gl_tile_params *t, int64_t m, int64_t n, int sms,
                        size_t smem_limit)
{
    const int64_t blocks = ((m - 1) / t->bm + 1) * ((n - 1) / t->bn + 1);
    const int64_t resident = gl_tiles_resident(kind, t, smem_limit), at_once = resident * sms;
    const int64_t rounds = (blocks - 1) / at_once + 1;
    return (double)rounds * (double)resident * t->bm * t->bn;
}

/* The fill tiles must promise at least a quarter less time. Where both
 * fill the GPU, the tables' 128 x 128 warptiles compute 22% more per second
 * than the 64 x 64 fill tiles (46.1 against 37.8 TFLOP/s at 2048^3 on an
 * H200); 0.75 keeps them wherever their last round is at least an eighth full
 * (3072^3, 4097^3) and drops them where it holds a few blocks (1537^3,
 * 2049^3, 2300^3). docs/engine.md has the measurements. */
#define GL_FILL_MARGIN 0.75

const gl_tile_params *gl_fill_tiles(const gl_variant_desc *d, const gl_tile_params *t, int64_t m,
                                    int64_t n, int sms, size_t smem_limit)
{
    const gl_tile_params *fill = d->fill;
    if (!fill || sms < 1 || gl_tile_params_equal(fill, t))
        return NULL;
    const double keep = grid_cost(d->kind, t, m, n, sms, smem_limit);
    return grid_cost(d->kind, fill, m, n, sms, smem_limit) < GL_FILL_MARGIN * keep ? fill : NULL;
}
