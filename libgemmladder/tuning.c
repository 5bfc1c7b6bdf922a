/*
 * tuning.c - configurations, the legality filter, and tuning tables: parsing
 * (strict: any error rejects the whole table) and lookup. Plain C, no CUDA.
 */
#include "tuning.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gl_variant_names[GL_VARIANT_LIMIT] = {
    "cublas",       "naive",      "coalesced", "shared",  "blocktile_1d",
    "blocktile_2d", "vectorized", "autotuned", "warptile",
};

/* ---- size classes -------------------------------------------------------- */

static const char *const class_names[GL_CLASS_COUNT] = {"small", "medium", "large"};

gl_size_class gl_size_class_of(int64_t m, int64_t n)
{
    const double mn = (double)m * (double)n;
    if (mn <= 1536.0 * 1536.0)
        return GL_CLASS_SMALL;
    if (mn <= 3072.0 * 3072.0)
        return GL_CLASS_MEDIUM;
    return GL_CLASS_LARGE;
}

const char *gl_size_class_name(gl_size_class c)
{
    return (unsigned)c < GL_CLASS_COUNT ? class_names[c] : "";
}

/* ---- compiled configurations --------------------------------------------- */

#define GL_ROW(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)},
#define GL_WARP_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},

/* Rungs 1-3 have their 32 x 32 tiles written into their files; listed here
 * so tools can show them. */
static const gl_tile_params simple_configs[] = {{32, 32, 1, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params shared_configs[] = {{32, 32, 32, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params blocktile_1d_configs[] = {GL_BLOCKTILE_1D_CONFIGS(GL_ROW)};
static const gl_tile_params blocktile_2d_configs[] = {GL_BLOCKTILE_2D_CONFIGS(GL_ROW)};
static const gl_tile_params vectorized_configs[] = {GL_VECTORIZED_CONFIGS(GL_ROW)};
static const gl_tile_params warptile_configs[] = {GL_WARPTILE_CONFIGS(GL_WARP_ROW)};

#define GL_LIST(a) (*count = (int)(sizeof a / sizeof a[0]), a)

const gl_tile_params *gl_configs_of(gl_variant_t v, int *count)
{
    switch (v) {
    case GL_VARIANT_NAIVE:
    case GL_VARIANT_COALESCED:
        return GL_LIST(simple_configs);
    case GL_VARIANT_SHARED:
        return GL_LIST(shared_configs);
    case GL_VARIANT_BLOCKTILE_1D:
        return GL_LIST(blocktile_1d_configs);
    case GL_VARIANT_BLOCKTILE_2D:
        return GL_LIST(blocktile_2d_configs);
    case GL_VARIANT_VECTORIZED:
    case GL_VARIANT_AUTOTUNED:
        return GL_LIST(vectorized_configs);
    case GL_VARIANT_WARPTILE:
        return GL_LIST(warptile_configs);
    default:
        *count = 0;
        return NULL;
    }
}

bool gl_tiles_compiled(gl_variant_t v, const gl_tile_params *t, int *count)
{
    const gl_tile_params *list = gl_configs_of(v, count);
    for (int i = 0; i < *count; ++i)
        if (gl_tile_params_equal(&list[i], t))
            return true;
    return false;
}

int gl_variant_is_tuned(gl_variant_t v)
{
    return v == GL_VARIANT_AUTOTUNED || v == GL_VARIANT_WARPTILE;
}

size_t gl_tiles_smem(gl_variant_t v, const gl_tile_params *t)
{
    switch (v) {
    case GL_VARIANT_SHARED:
        return 4 * 2 * 32 * 32;
    case GL_VARIANT_BLOCKTILE_1D:
    case GL_VARIANT_BLOCKTILE_2D:
        return (size_t)GL_BLOCKTILE_SMEM(t->bm, t->bn, t->bk);
    case GL_VARIANT_VECTORIZED:
    case GL_VARIANT_AUTOTUNED:
        return (size_t)GL_VECTORIZED_SMEM(t->bm, t->bn, t->bk);
    case GL_VARIANT_WARPTILE:
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

/* The rules the vectorized slice copy (rung.h, gl_slice_loader) imposes on a
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

int gl_tiles_legal(gl_variant_t v, const gl_tile_params *t, size_t smem_limit, char *why,
                   size_t why_size)
{
    const int warp = v == GL_VARIANT_WARPTILE;
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

    switch (v) {
    case GL_VARIANT_BLOCKTILE_1D:
    case GL_VARIANT_BLOCKTILE_2D:
        if (threads * tm * tn != bm * bn)
            return fail(why, why_size, "threads must be bm*bn/(tm*tn) = %lld, not %d",
                        (long long)(bm * bn / (tm * tn)), t->threads);
        if (threads % bk || threads % bn || (bm * bk) % threads || (bk * bn) % threads)
            return fail(why, why_size,
                        "%d threads cannot copy the %d x %d and %d x %d slices in whole rows",
                        t->threads, t->bm, t->bk, t->bk, t->bn);
        if (v == GL_VARIANT_BLOCKTILE_1D && tn != 1)
            return fail(why, why_size, "blocktile_1d computes one column per thread (tn = 1)");
        if (t->wm || t->wn || t->wniter)
            return fail(why, why_size, "wm, wn and wniter apply to warptile only");
        if (gl_tiles_smem(v, t) > 48 * 1024)
            return fail(why, why_size, "%zu bytes of static shared memory; at most 49152",
                        gl_tiles_smem(v, t));
        break;
    case GL_VARIANT_VECTORIZED:
    case GL_VARIANT_AUTOTUNED:
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
    case GL_VARIANT_WARPTILE: {
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
    default:
        return fail(why, why_size, "variant %d has no tile parameters", (int)v);
    }

    const size_t smem = gl_tiles_smem(v, t);
    if (smem > smem_limit)
        return fail(why, why_size, "needs %zu bytes of shared memory; the limit is %zu", smem,
                    smem_limit);
    const int registers = gl_tiles_registers(v, t);
    if (registers > 255)
        return fail(why, why_size, "needs about %d registers a thread; the limit is 255",
                    registers);
    return 1;
}

int gl_tiles_registers(gl_variant_t v, const gl_tile_params *t)
{
    const int64_t outputs = (int64_t)t->bm * t->bn / t->threads; /* accumulators */
    int64_t fragments = (int64_t)t->tm + t->tn;
    if (v == GL_VARIANT_WARPTILE) {
        const int64_t wmiter =
            (int64_t)t->wm * t->wn / (32 * (int64_t)t->tm * t->tn * t->wniter);
        fragments = wmiter * t->tm + (int64_t)t->wniter * t->tn;
    }
    const int64_t staged = (v == GL_VARIANT_BLOCKTILE_1D || v == GL_VARIANT_BLOCKTILE_2D)
                               ? 0
                               : ((int64_t)t->bm + t->bn) * t->bk / (4 * (int64_t)t->threads);
    return (int)GL_REGISTER_ESTIMATE(outputs, fragments, staged);
}

/* ---- filling the GPU ----------------------------------------------------- */

int gl_tiles_resident(gl_variant_t v, const gl_tile_params *t, size_t smem_limit)
{
    int blocks = 65536 / (t->threads * gl_tiles_registers(v, t)); /* gl_min_blocks in rung.h */
    const int by_threads = 2048 / t->threads;
    const int by_smem = (int)((smem_limit + 1024) / (gl_tiles_smem(v, t) + 1024));
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
static double grid_cost(gl_variant_t v, const gl_tile_params *t, int64_t m, int64_t n, int sms,
                        size_t smem_limit)
{
    const int64_t blocks = ((m - 1) / t->bm + 1) * ((n - 1) / t->bn + 1);
    const int64_t resident = gl_tiles_resident(v, t, smem_limit), at_once = resident * sms;
    const int64_t rounds = (blocks - 1) / at_once + 1;
    return (double)rounds * (double)resident * t->bm * t->bn;
}

/* The fill tiles must promise at least a quarter less time. Where both
 * fill the GPU, the tables' 128 x 128 warptiles compute 22% more per second
 * than the 64 x 64 fill tiles (46.1 against 37.8 TFLOP/s at 2048^3 on an
 * H200); 0.75 keeps them wherever their last round is at least a sixth full
 * (3072^3, 4097^3) and drops them where it holds a few blocks (1537^3,
 * 2049^3, 2300^3). docs/tuning.md has the measurements. */
#define GL_FILL_MARGIN 0.75

static const gl_tile_params autotuned_fill[] = {GL_AUTOTUNED_FILL_CONFIG(GL_ROW)};
static const gl_tile_params warptile_fill[] = {GL_WARPTILE_FILL_CONFIG(GL_WARP_ROW)};

const gl_tile_params *gl_fill_config(gl_variant_t v)
{
    return v == GL_VARIANT_AUTOTUNED ? autotuned_fill
           : v == GL_VARIANT_WARPTILE ? warptile_fill
                                      : NULL;
}

const gl_tile_params *gl_fill_tiles(gl_variant_t v, const gl_tile_params *t, int64_t m,
                                    int64_t n, int sms, size_t smem_limit)
{
    const gl_tile_params *fill = gl_fill_config(v);
    if (!fill || sms < 1 || gl_tile_params_equal(fill, t))
        return NULL;
    const double keep = grid_cost(v, t, m, n, sms, smem_limit);
    return grid_cost(v, fill, m, n, sms, smem_limit) < GL_FILL_MARGIN * keep ? fill : NULL;
}

/* ---- parsing ------------------------------------------------------------- */

/* ---- text for messages ---------------------------------------------------- */

/* Bytes a message shows as they are: printable ASCII. Anything else (control
 * characters such as ESC or CR, bytes of other encodings) is shown as \xNN,
 * so a message never carries terminal escapes from a file or a path. */
static size_t shown_width(unsigned char c) { return c >= 0x20 && c < 0x7f ? 1 : 4; }

size_t gl_show_text(char *out, size_t size, const char *s, size_t room, bool keep_end)
{
    if (size == 0)
        return 0;
    if (room > size - 1)
        room = size - 1;
    const size_t len = strlen(s);
    size_t total = 0;
    for (size_t i = 0; i < len; ++i)
        total += shown_width((unsigned char)s[i]);
    /* Too long: keep the end (a path's file name) or the start (a word),
     * whichever says more, with "..." for what is left out. */
    size_t from = 0, to = len;
    const bool cut = total > room && room >= 4;
    if (cut) {
        size_t w = 3;
        if (keep_end) {
            from = len;
            while (from > 0 && w + shown_width((unsigned char)s[from - 1]) <= room)
                w += shown_width((unsigned char)s[--from]);
        } else {
            to = 0;
            while (to < len && w + shown_width((unsigned char)s[to]) <= room)
                w += shown_width((unsigned char)s[to++]);
        }
    }
    size_t n = 0;
    if (cut && keep_end)
        n += (size_t)snprintf(out, size, "...");
    for (size_t i = from; i < to && n + shown_width((unsigned char)s[i]) < size; ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (shown_width(c) == 1)
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "\\x%02X", c);
    }
    if (cut && !keep_end && n + 3 < size)
        n += (size_t)snprintf(out + n, size - n, "...");
    out[n] = '\0';
    return n;
}

void gl_table_error(char *err, size_t size, const char *name, int line, const char *fmt, ...)
{
    if (!err || size == 0)
        return;
    char reason[320], where[24] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(where, sizeof where, ":%d", line);
    /* The line and the reason always fit; the name gets what is left
     * (at least its last 24 characters). */
    const size_t fixed = strlen(where) + 2 + strlen(reason) + 1;
    const size_t room = size > fixed + 24 ? size - fixed : 24;
    char shown[512];
    gl_show_text(shown, sizeof shown, name, room, true);
    snprintf(err, size, "%s%s: %s", shown, where, reason);
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct parser {
    const char *name;
    char *err;
    size_t err_size;
    int line;
    char shown[64]; /* the file's text named by the message being written */
} parser;

#define parse_error(p, ...) \
    (gl_table_error((p)->err, (p)->err_size, (p)->name, (p)->line, __VA_ARGS__), \
     GL_STATUS_TUNING_ERROR)

/* Text from the table, for a message: escaped, and at most 40 characters. */
static const char *show(parser *p, const char *text)
{
    gl_show_text(p->shown, sizeof p->shown, text, 40, false);
    return p->shown;
}

/* "sm_90" -> 90, "sm_100" -> 100, "default" -> 0; -1 if neither. */
static int parse_arch(const char *s)
{
    if (strcmp(s, "default") == 0)
        return 0;
    if (strncmp(s, "sm_", 3) != 0)
        return -1;
    const char *d = s + 3;
    const size_t len = strlen(d);
    if (len < 2 || len > 3 || d[0] == '0')
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; ++i) {
        if (d[i] < '0' || d[i] > '9')
            return -1;
        v = v * 10 + (d[i] - '0');
    }
    const int major = v / 10;
    return major >= 5 && major <= 15 ? v : -1;
}

static int parse_number(const char *s, int *out)
{
    if (!*s || strlen(s) > 4)
        return 0;
    int v = 0;
    for (; *s; ++s) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
    }
    if (v < 1 || v > 4096)
        return 0;
    *out = v;
    return 1;
}

enum { KEY_BM, KEY_BN, KEY_BK, KEY_TM, KEY_TN, KEY_WM, KEY_WN, KEY_WNITER, KEY_THREADS, KEYS };
static const char *const key_names[KEYS] = {"bm", "bn", "bk", "tm", "tn",
                                            "wm", "wn", "wniter", "threads"};

#define MAX_FIELDS 16

/* Splits a line in place into fields separated by blanks (reentrant, unlike
 * strtok). Returns how many, or -1 for more than max. */
static int split_fields(char *line, char **field, int max)
{
    int n = 0;
    for (char *s = line;;) {
        while (*s == ' ' || *s == '\t' || *s == '\v' || *s == '\f')
            ++s;
        if (!*s)
            return n;
        if (n == max)
            return -1;
        field[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\v' && *s != '\f')
            ++s;
        if (*s)
            *s++ = '\0';
    }
}

static gl_status_t parse_row(parser *p, char **field, int fields, gl_tuning_row *row)
{
    if (fields < 3)
        return parse_error(p, "a row needs an architecture, a variant and a size class, "
                              "then key=value tile parameters");
    row->arch = parse_arch(field[0]);
    if (row->arch < 0)
        return parse_error(p, "unknown architecture '%s' (want sm_XY, such as sm_90, or default)",
                           show(p, field[0]));
    int v = 0;
    while (v < GL_VARIANT_LIMIT && strcmp(field[1], gl_variant_names[v]) != 0)
        ++v;
    if (v == GL_VARIANT_LIMIT)
        return parse_error(p, "unknown variant '%s'", show(p, field[1]));
    row->variant = (gl_variant_t)v;
    if (!gl_variant_is_tuned(row->variant))
        return parse_error(p, "variant '%s' has fixed tiles; only autotuned and warptile "
                              "take tuning rows", field[1]);
    int c = 0;
    while (c < GL_CLASS_COUNT && strcmp(field[2], class_names[c]) != 0)
        ++c;
    if (c == GL_CLASS_COUNT)
        return parse_error(p, "unknown size class '%s' (small, medium or large)",
                           show(p, field[2]));
    row->size_class = (gl_size_class)c;

    int value[KEYS] = {0};
    for (int f = 3; f < fields; ++f) {
        char *eq = strchr(field[f], '=');
        if (!eq)
            return parse_error(p, "expected key=value, got '%s'", show(p, field[f]));
        *eq = '\0';
        int k = 0;
        while (k < KEYS && strcmp(field[f], key_names[k]) != 0)
            ++k;
        if (k == KEYS)
            return parse_error(p, "unknown key '%s' (bm, bn, bk, tm, tn, wm, wn, wniter, threads)",
                               show(p, field[f]));
        if (value[k])
            return parse_error(p, "key '%s' is given twice", key_names[k]);
        if (!parse_number(eq + 1, &value[k]))
            return parse_error(p, "bad value '%s' for %s (want an integer from 1 to 4096)",
                               show(p, eq + 1), key_names[k]);
    }
    const int warp = row->variant == GL_VARIANT_WARPTILE;
    for (int k = 0; k < KEYS; ++k) {
        const int needed = k <= KEY_TN || warp;
        const int allowed = needed || k == KEY_THREADS;
        if (needed && !value[k])
            return parse_error(p, "missing key '%s' for %s", key_names[k], field[1]);
        if (!allowed && value[k])
            return parse_error(p, "key '%s' does not apply to %s", key_names[k], field[1]);
    }
    gl_tile_params *t = &row->tiles;
    *t = (gl_tile_params){value[KEY_BM], value[KEY_BN], value[KEY_BK], value[KEY_TM],
                          value[KEY_TN], value[KEY_WM], value[KEY_WN], value[KEY_WNITER],
                          value[KEY_THREADS]};
    if (!warp) { /* the vectorized kernel's thread count follows from its tiles */
        const int derived = t->bm * t->bn / (t->tm * t->tn); /* tm, tn >= 1 here */
        if (t->threads && t->threads != derived)
            return parse_error(p, "threads=%d, but bm*bn/(tm*tn) = %d", t->threads, derived);
        t->threads = derived;
    }

    char why[256];
    if (!gl_tiles_legal(row->variant, t, gl_arch_smem_limit(row->arch), why, sizeof why))
        return parse_error(p, "illegal %s configuration: %s", field[1], why);
    int count = 0;
    if (!gl_tiles_compiled(row->variant, t, &count))
        return parse_error(p, "this %s configuration is legal but not compiled into the "
                              "library (it builds the %d listed in kernels/configs.h)",
                           field[1], count);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_parse(const char *text, size_t length, const char *name,
                            gl_tuning_table **out, char *err, size_t err_size)
{
    *out = NULL;
    parser p = {name, err, err_size, 0, ""};
    if (length > GL_TUNING_MAX_BYTES)
        return parse_error(&p, "a table may be at most %d bytes", GL_TUNING_MAX_BYTES);

    gl_tuning_table *t = calloc(1, sizeof *t);
    if (!t) {
        gl_table_error(err, err_size, name, 0, "out of memory");
        return GL_STATUS_ALLOC_FAILED;
    }
    gl_show_text(t->name, sizeof t->name, name, sizeof t->name - 1, true);

    gl_status_t st = GL_STATUS_SUCCESS;
    int saw_format = 0, capacity = 0;
    char line[GL_TUNING_MAX_LINE + 1];
    /* A UTF-8 byte-order mark, which some editors write, is skipped. */
    const size_t bom = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (size_t pos = bom; pos < length && st == GL_STATUS_SUCCESS;) {
        ++p.line;
        size_t end = pos;
        while (end < length && text[end] != '\n')
            ++end;
        size_t len = end - pos;
        if (len > 0 && text[pos + len - 1] == '\r')
            --len;
        if (len > GL_TUNING_MAX_LINE) {
            st = parse_error(&p, "line is longer than %d characters", GL_TUNING_MAX_LINE);
            break;
        }
        if (memchr(text + pos, '\0', len)) {
            st = parse_error(&p, "line contains a NUL byte");
            break;
        }
        memcpy(line, text + pos, len);
        line[len] = '\0';
        pos = end + 1;

        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *field[MAX_FIELDS];
        const int fields = split_fields(line, field, MAX_FIELDS);
        if (fields < 0) {
            st = parse_error(&p, "more than %d fields", MAX_FIELDS);
            break;
        }
        if (fields == 0)
            continue;

        if (!saw_format) {
            if (strcmp(field[0], "gemmladder-tuning") != 0)
                st = parse_error(&p, "expected the format line 'gemmladder-tuning 1' before "
                                     "any row, found '%s'", show(&p, field[0]));
            else if (fields < 2)
                st = parse_error(&p, "the format line names no version (want "
                                     "'gemmladder-tuning 1')");
            else if (strcmp(field[1], "1") != 0)
                st = parse_error(&p, "format version '%s' is not supported (this library "
                                     "reads version 1)", show(&p, field[1]));
            else if (fields > 2)
                st = parse_error(&p, "unexpected '%s' after the format line's version",
                                 show(&p, field[2]));
            saw_format = 1;
            continue;
        }
        if (strcmp(field[0], "gemmladder-tuning") == 0) {
            st = parse_error(&p, "a second format line");
            break;
        }

        gl_tuning_row row = {0};
        row.line = p.line;
        if ((st = parse_row(&p, field, fields, &row)) != GL_STATUS_SUCCESS)
            break;
        for (int i = 0; i < t->count; ++i) {
            const gl_tuning_row *r = &t->rows[i];
            if (r->arch == row.arch && r->variant == row.variant &&
                r->size_class == row.size_class) {
                st = parse_error(&p, "duplicates the row on line %d (same architecture, "
                                     "variant and size class)", r->line);
                break;
            }
        }
        if (st != GL_STATUS_SUCCESS)
            break;
        if (t->count == GL_TUNING_MAX_ROWS) {
            st = parse_error(&p, "more than %d rows", GL_TUNING_MAX_ROWS);
            break;
        }
        if (t->count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            gl_tuning_row *rows = realloc(t->rows, sizeof *rows * (size_t)capacity);
            if (!rows) {
                gl_table_error(err, err_size, name, 0, "out of memory");
                st = GL_STATUS_ALLOC_FAILED;
                break;
            }
            t->rows = rows;
        }
        t->rows[t->count++] = row;
    }
    if (st == GL_STATUS_SUCCESS && !saw_format) {
        p.line = 0;
        st = parse_error(&p, "no format line: a table starts with 'gemmladder-tuning 1'");
    }
    if (st != GL_STATUS_SUCCESS) {
        gl_tuning_free(t);
        return st;
    }
    *out = t;
    return GL_STATUS_SUCCESS;
}

void gl_tuning_free(gl_tuning_table *t)
{
    if (t) {
        free(t->rows);
        free(t);
    }
}

/* ---- lookup -------------------------------------------------------------- */

/* How well a row's architecture suits a device: 3 exact, 2 same major at or
 * below, 1 same major above, 0 for a default row, -1 unrelated. Within a
 * level, nearer architectures win (see closer()). */
static int level(int row_arch, int cc)
{
    if (row_arch == cc)
        return 3;
    if (row_arch == 0)
        return 0;
    if (row_arch / 10 != cc / 10)
        return -1;
    return row_arch < cc ? 2 : 1;
}

static int closer(int a, int b, int cc)
{
    const int da = a > cc ? a - cc : cc - a, db = b > cc ? b - cc : cc - b;
    return da < db;
}

const gl_tuning_row *gl_tuning_find(const gl_tuning_table *const *layers, int layer_count,
                                    int cc, gl_variant_t v, gl_size_class c, size_t smem_limit,
                                    int *layer)
{
    for (int want = 3; want >= 0; --want) {
        for (int l = 0; l < layer_count; ++l) {
            const gl_tuning_table *t = layers[l];
            const gl_tuning_row *best = NULL;
            for (int i = 0; t && i < t->count; ++i) {
                const gl_tuning_row *r = &t->rows[i];
                if (r->variant != v || r->size_class != c || level(r->arch, cc) != want ||
                    gl_tiles_smem(v, &r->tiles) > smem_limit)
                    continue;
                if (!best || closer(r->arch, best->arch, cc))
                    best = r;
            }
            if (best) {
                if (layer)
                    *layer = l;
                return best;
            }
        }
    }
    return NULL;
}
