/*
 * test_tuning.c - tuning tables without a GPU: the shipped tables, the
 * configuration lists against the legality filter, the filter's rules, a
 * battery of malformed tables (each rejected with the right line and reason),
 * size classes, lookup fallbacks and layering, and loading through the
 * public API (checked with a handle-shaped struct, since there is no GPU).
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "tuning/builtin.h"

static gl_status_t parse(const char *text, gl_tuning_table **t, char *err, size_t n)
{
    return gl_tuning_parse(text, strlen(text), "t.txt", t, err, n);
}

/* ---- shipped tables and configuration lists ----------------------------- */

static void test_builtin_tables(void)
{
    CHECK(gl_builtin_table_count == 5, "%d shipped tables", gl_builtin_table_count);
    static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90", "default"};
    for (int f = 0; f < gl_builtin_table_count; ++f) {
        const gl_builtin_table *b = &gl_builtin_tables[f];
        gl_tuning_table *t = NULL;
        char err[512] = "";
        const gl_status_t st = gl_tuning_parse(b->text, strlen(b->text), b->name, &t, err, sizeof err);
        CHECK(st == GL_STATUS_SUCCESS, "%s: %s", b->name, err);
        if (!t)
            continue;
        /* Each file holds only its own architecture's rows, and all of them. */
        int want_arch = strncmp(b->name, "sm_", 3) == 0 ? atoi(b->name + 3) : 0;
        int covered[GL_VARIANT_MAX][GL_CLASS_COUNT] = {{0}};
        for (int i = 0; i < t->count; ++i) {
            CHECK(t->rows[i].arch == want_arch, "%s line %d is for arch %d", b->name,
                  t->rows[i].line, t->rows[i].arch);
            covered[t->rows[i].variant][t->rows[i].size_class] = 1;
        }
        for (int v = 0; v < gl_variant_count(); ++v)
            for (int c = 0; c < GL_CLASS_COUNT; ++c)
                if (gl_variant_takes_rows(gl_variant_find((gl_variant_t)v)))
                    CHECK(covered[v][c], "%s covers %s %s", b->name,
                          gl_variant_name((gl_variant_t)v), gl_size_class_name(c));
        int named = 0;
        for (int a = 0; a < 5; ++a)
            named += strncmp(b->name, archs[a], strlen(archs[a])) == 0;
        CHECK(named == 1, "%s is one of the expected tables", b->name);
        gl_tuning_free(t);
    }
}

static void test_config_lists_are_legal(void)
{
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        const gl_tile_params *list = d->configs;
        const int count = d->config_count;
        if (!d->schema || !d->schema->rule)
            continue; /* cuBLAS; rungs 1-3, whose 32 x 32 tiles are written into the kernels */
        CHECK(count > 0, "variant %s compiles configurations", d->name);
        for (int i = 0; i < count; ++i) {
            char why[256] = "";
            /* Legal on every supported GPU: the smallest opt-in limit. */
            CHECK(gl_tiles_legal(d->schema, &list[i], gl_arch_smem_limit(0), why, sizeof why),
                  "%s config %d (bm=%d bn=%d bk=%d tm=%d tn=%d) is illegal: %s", d->name, i,
                  list[i].bm, list[i].bn, list[i].bk, list[i].tm, list[i].tn, why);
            for (int j = 0; j < i; ++j)
                CHECK(!gl_tile_params_equal(&list[i], &list[j]), "%s configs %d and %d repeat",
                      d->name, j, i);
        }
    }
}

/* ---- the legality filter ------------------------------------------------- */

static void expect_legal(const gl_tile_schema *v, gl_tile_params t, size_t limit, int want,
                         const char *needle)
{
    char why[256] = "";
    const int got = gl_tiles_legal(v, &t, limit, why, sizeof why);
    CHECK(got == want, "bm=%d bn=%d bk=%d tm=%d tn=%d threads=%d: legal=%d, want %d (%s)", t.bm,
          t.bn, t.bk, t.tm, t.tn, t.threads, got, want, why);
    if (needle)
        CHECK(strstr(why, needle) != NULL, "reason '%s' should mention '%s'", why, needle);
}

static void test_legality_filter(void)
{
    const gl_tile_schema *V = &gl_schema_vectorized, *W = &gl_schema_warptile;
    const size_t big = 227 * 1024, small = 99 * 1024;
    /* The seeds' arithmetic: a 128 x 128 tile with 8 x 8 thread tiles is 256
     * threads; with 4 x 4 it is 1024, and then a BK = 8 slice (1024 floats)
     * is a quarter of one float4 round: no 16-byte copies. */
    expect_legal(V, (gl_tile_params){128, 128, 8, 8, 8, 0, 0, 0, 256, 0}, big, 1, NULL);
    expect_legal(V, (gl_tile_params){128, 128, 8, 4, 4, 0, 0, 0, 1024, 0}, big, 0, "16-byte rounds");
    expect_legal(V, (gl_tile_params){128, 128, 16, 8, 8, 0, 0, 0, 128, 0}, big, 0, "bm*bn/(tm*tn)");
    expect_legal(V, (gl_tile_params){32, 32, 8, 8, 8, 0, 0, 0, 16, 0}, big, 0,
                 "threads = 16 is outside 64..1024");
    expect_legal(V, (gl_tile_params){128, 128, 8, 6, 8, 0, 0, 0, 256, 0}, big, 0, "divide");
    expect_legal(V, (gl_tile_params){128, 128, 8, 8, 8, 32, 0, 0, 256, 0}, big, 0,
                 "wm = 32: vectorized tiles have no wm");
    expect_legal(V, (gl_tile_params){64, 64, 8, 8, 2, 0, 0, 0, 256, 0}, big, 0, "multiples of 4");
    /* Shared memory: 128 + 128 (+ padding) floats per step of a 128-deep slice. */
    expect_legal(V, (gl_tile_params){128, 128, 128, 8, 8, 0, 0, 0, 256, 0}, big, 1, NULL);
    expect_legal(V, (gl_tile_params){128, 128, 128, 8, 8, 0, 0, 0, 256, 0}, small, 0,
                 "shared memory");
    /* Registers: 16 x 16 results per thread cannot fit in 255. */
    expect_legal(V, (gl_tile_params){256, 256, 8, 16, 16, 0, 0, 0, 256, 0}, big, 0, "registers");
    /* Warptile: warps must cover the block exactly, sub-tiles be 32 lanes. */
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 64, 32, 2, 256, 0}, big, 1, NULL);
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 64, 32, 2, 128, 0}, big, 0, "one per warp");
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 64, 64, 2, 128, 0}, big, 1, NULL);
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 64, 32, 3, 256, 0}, big, 0, NULL);
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 0, 32, 2, 256, 0}, big, 0, "wm = 0 is outside 1..4096");
    expect_legal(W, (gl_tile_params){128, 128, 16, 4, 4, 64, 32, 2, 250, 0}, big, 0, "warps");
    expect_legal(NULL, (gl_tile_params){128, 128, 16, 4, 4, 0, 0, 0, 256, 0}, big, 0,
                 "no tile parameters");
    expect_legal(&gl_schema_shared, (gl_tile_params){32, 32, 32, 1, 1, 0, 0, 0, 1024, 0}, big, 0,
                 "no tile parameters");
    expect_legal(&gl_schema_column, (gl_tile_params){64, 64, 8, 8, 1, 0, 0, 0, 512, 0}, big, 1,
                 NULL);
    expect_legal(&gl_schema_column, (gl_tile_params){64, 64, 8, 8, 2, 0, 0, 0, 256, 0}, big, 0,
                 "tn = 2 is outside 1..1");
    expect_legal(&gl_schema_patch, (gl_tile_params){64, 64, 16, 8, 4, 0, 0, 0, 128, 0}, big, 1,
                 NULL);
    expect_legal(&gl_schema_patch, (gl_tile_params){128, 128, 64, 8, 8, 0, 0, 0, 256, 0}, big, 0,
                 "static shared memory");
}

/* Every value the parser accepts (1..4096) for every field, as powers of two
 * and their neighbours, one field and every pair of fields at a time around
 * each compiled configuration, and all fields equal: the filter answers
 * (under the sanitizer builds: without an overflow or a division by zero),
 * and a rejection always says why. */
static void test_legality_sweep(void)
{
    int values[64], nvalues = 0;
    for (int p = 1; p <= 4096; p *= 2)
        for (int d = -1; d <= 1; ++d)
            if (p + d >= 1 && p + d <= 4096 && (nvalues == 0 || values[nvalues - 1] < p + d))
                values[nvalues++] = p + d;
    /* Each schema whose tiles can be chosen once, around its variants' configurations. */
    long calls = 0, legal = 0, unexplained = 0;
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        bool seen = !d->schema || !d->schema->rule;
        for (int w = 0; w < v; ++w)
            seen |= gl_variant_find((gl_variant_t)w)->configs == d->configs;
        if (seen)
            continue;
        const gl_tile_params *list = d->configs;
        const int count = d->config_count;
        for (int base = 0; base < count + nvalues; ++base) {
            gl_tile_params b;
            for (int f = 0; f < GL_FIELD_COUNT; ++f)
                gl_tile_set_value(&b, (gl_tile_field_id)f,
                                  base < count ? gl_tile_value(&list[base], (gl_tile_field_id)f)
                                               : values[base - count]);
            for (int f = 0; f < GL_FIELD_COUNT; ++f)
                for (int g = f; g < GL_FIELD_COUNT; ++g) {
                    if (g != f && base >= count)
                        continue; /* pairs around the compiled configurations only */
                    const gl_tile_field_id F = (gl_tile_field_id)f, G = (gl_tile_field_id)g;
                    const int keep_f = gl_tile_value(&b, F), keep_g = gl_tile_value(&b, G);
                    for (int i = 0; i < nvalues; ++i)
                        for (int j = 0; j < (g == f ? 1 : nvalues); ++j) {
                            gl_tile_set_value(&b, F, values[i]);
                            if (g != f)
                                gl_tile_set_value(&b, G, values[j]);
                            char why[256] = "";
                            const int ok = gl_tiles_legal(d->schema, &b, gl_arch_smem_limit(90),
                                                          why, sizeof why);
                            ++calls;
                            legal += ok;
                            unexplained += !ok && why[0] == '\0';
                        }
                    gl_tile_set_value(&b, F, keep_f), gl_tile_set_value(&b, G, keep_g);
                }
        }
    }
    CHECK(unexplained == 0, "%ld of %ld rejections gave no reason", unexplained, calls);
    CHECK(calls > 500000 && legal > 0, "%ld configurations judged, %ld legal", calls, legal);

    /* The same values through the parser, one field of the variant's schema
     * at a time around each compiled configuration of each variant that
     * takes rows: each row is accepted or rejected with its line and a
     * reason. */
    long rows = 0, wrong = 0;
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        if (!gl_variant_takes_rows(d))
            continue;
        const gl_tile_schema *schema = d->schema;
        for (int base = 0; base < d->config_count; ++base)
            for (int f = 0; f < schema->field_count; ++f)
                for (int i = 0; i < nvalues; ++i) {
                    gl_tile_params b = d->configs[base];
                    gl_tile_set_value(&b, schema->fields[f].field, values[i]);
                    char text[256], err[512] = "";
                    int n = snprintf(text, sizeof text, "gemmladder-tuning 1\nsm_90 %s large",
                                     d->name);
                    for (int k = 0; k < schema->field_count; ++k) {
                        const gl_tile_field_id key = schema->fields[k].field;
                        n += snprintf(text + n, sizeof text - (size_t)n, " %s=%d",
                                      gl_tile_fields[key].name, gl_tile_value(&b, key));
                    }
                    snprintf(text + n, sizeof text - (size_t)n, "\n");
                    gl_tuning_table *t = NULL;
                    const gl_status_t st = parse(text, &t, err, sizeof err);
                    ++rows;
                    int compiled_count = 0;
                    const bool compiled = gl_tiles_compiled(d, &b, &compiled_count);
                    wrong += st == GL_STATUS_SUCCESS ? !compiled || !t
                                                     : st != GL_STATUS_TUNING_ERROR || t ||
                                                           strncmp(err, "t.txt:2: ", 9) != 0 ||
                                                           strlen(err) < 20;
                    gl_tuning_free(t);
                }
    }
    CHECK(wrong == 0, "%ld of %ld rows were not accepted (compiled) or rejected with a line "
                      "and a reason", wrong, rows);
}

/* ---- parsing ------------------------------------------------------------- */

#define HEAD "gemmladder-tuning 1\n"
#define GOOD_V "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\n"
#define GOOD_W_NO_NL "sm_90 warptile large bm=128 bn=128 bk=16 wm=64 wn=32 wniter=2 tm=4 tn=4 threads=256"
#define GOOD_W GOOD_W_NO_NL "\n"

static void expect_rejected(const char *text, const char *where, const char *reason)
{
    gl_tuning_table *t = (gl_tuning_table *)&t;
    char err[512] = "";
    const gl_status_t st = parse(text, &t, err, sizeof err);
    CHECK(st == GL_STATUS_TUNING_ERROR, "accepted: %s", text);
    CHECK(t == NULL, "no table left behind");
    CHECK(strstr(err, where) != NULL, "error '%s' should say '%s' for: %s", err, where, text);
    CHECK(strstr(err, reason) != NULL, "error '%s' should say '%s' for: %s", err, reason, text);
}

static void test_parser(void)
{
    gl_tuning_table *t = NULL;
    char err[512] = "";
    /* Comments, blank lines, tabs, CRLF, a comment after a row. */
    const char *good = "# a comment\n\n  " HEAD "\t\n" GOOD_V "sm_90 warptile large\tbm=128 "
                       "bn=128 bk=16 wm=64 wn=32 wniter=2 tm=4 tn=4 threads=256 # fastest\r\n"
                       "default autotuned large bm=128 bn=128 bk=16 tm=8 tn=8 threads=256\n";
    CHECK(parse(good, &t, err, sizeof err) == GL_STATUS_SUCCESS, "good table: %s", err);
    if (t) {
        CHECK(t->count == 3, "3 rows, got %d", t->count);
        CHECK(t->rows[0].arch == 90 && t->rows[0].variant == GL_VARIANT_AUTOTUNED &&
                  t->rows[0].size_class == GL_CLASS_SMALL && t->rows[0].tiles.threads == 128 &&
                  t->rows[0].line == 5,
              "first row parsed");
        CHECK(t->rows[1].tiles.wniter == 2 && t->rows[1].line == 6, "second row parsed");
        CHECK(t->rows[2].arch == 0, "default row");
        gl_tuning_free(t);
    }
    CHECK(parse(HEAD, &t, err, sizeof err) == GL_STATUS_SUCCESS && t && t->count == 0,
          "a table with no rows is valid");
    gl_tuning_free(t);

    expect_rejected("", "t.txt", "no format line");
    expect_rejected("# only a comment\n", "t.txt", "no format line");
    expect_rejected(GOOD_V, "t.txt:1:", "format line");
    expect_rejected("gemmladder-tuning 2\n" GOOD_V, "t.txt:1:", "version '2'");
    expect_rejected("gemmladder-tuning\n", "t.txt:1:", "names no version");
    expect_rejected(HEAD HEAD, "t.txt:2:", "second format line");
    expect_rejected(HEAD GOOD_V "sm_9 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:3:",
                    "unknown architecture 'sm_9'");
    expect_rejected(HEAD "gfx90a autotuned small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "unknown architecture");
    expect_rejected(HEAD "sm_90 turbo small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "unknown variant 'turbo'");
    expect_rejected(HEAD "sm_90 vectorized small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "variant 'vectorized' takes no rows of its own; only autotuned, warptile");
    expect_rejected(HEAD "sm_90 auto small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "variant 'auto' takes no rows of its own");
    expect_rejected(HEAD "sm_90 autotuned huge bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "unknown size class 'huge'");
    expect_rejected(HEAD "sm_90 autotuned\n", "t.txt:2:", "a row needs");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8\n", "t.txt:2:",
                    "missing key 'tn'");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4 wm=32\n", "t.txt:2:",
                    "'wm' does not apply");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4 bm=64\n", "t.txt:2:",
                    "given twice");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4 colour=red\n",
                    "t.txt:2:", "unknown key 'colour'");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn\n", "t.txt:2:",
                    "expected key=value");
    expect_rejected(HEAD "sm_90 autotuned small bm=sixty bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "bad value 'sixty' for bm");
    expect_rejected(HEAD "sm_90 autotuned small bm=0 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "bad value '0'");
    expect_rejected(HEAD "sm_90 autotuned small bm=-64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "bad value '-64'");
    expect_rejected(HEAD "sm_90 autotuned small bm=99999 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "bad value");
    expect_rejected(HEAD "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=4 threads=64\n",
                    "t.txt:2:", "bm*bn/(tm*tn) = 128");
    expect_rejected(HEAD "sm_90 autotuned small bm=128 bn=128 bk=8 tm=4 tn=4\n", "t.txt:2:",
                    "illegal autotuned configuration");
    expect_rejected(HEAD "sm_90 autotuned small bm=256 bn=256 bk=8 tm=16 tn=16\n", "t.txt:2:",
                    "registers");
    expect_rejected(HEAD "sm_90 autotuned small bm=128 bn=128 bk=32 tm=8 tn=4\n", "t.txt:2:",
                    "not compiled");
    expect_rejected(HEAD "sm_90 warptile small bm=128 bn=128 bk=16 tm=4 tn=4\n", "t.txt:2:",
                    "missing key 'wm'");
    expect_rejected(HEAD GOOD_W GOOD_V GOOD_W, "t.txt:4:", "duplicates the row on line 2");
    expect_rejected(HEAD "sm_90 autotuned small bm=64\0 bn=64\n", "t.txt", "");
    {
        char buf[2048];
        memset(buf, 'x', sizeof buf - 1);
        buf[sizeof buf - 1] = '\0';
        char *text = malloc(sizeof buf + 64);
        snprintf(text, sizeof buf + 64, HEAD "%s\n", buf);
        expect_rejected(text, "t.txt:2:", "longer than");
        free(text);
    }
    /* A NUL byte inside the given length. */
    {
        const char text[] = HEAD "sm_90 autotuned small bm=64\0 bn=64 bk=16 tm=8 tn=4\n";
        gl_tuning_table *nt = NULL;
        CHECK(gl_tuning_parse(text, sizeof text - 1, "t.txt", &nt, err, sizeof err) ==
                      GL_STATUS_TUNING_ERROR &&
                  strstr(err, "t.txt:2: line contains a NUL byte"),
              "NUL byte: %s", err);
    }
    /* A long name keeps its tail in the table. */
    char name[200];
    memset(name, 'd', sizeof name);
    strcpy(name + 150, "/tail.txt");
    CHECK(gl_tuning_parse(HEAD, strlen(HEAD), name, &t, err, sizeof err) == GL_STATUS_SUCCESS &&
              strstr(t->name, "/tail.txt"),
          "table name keeps the end of a long path");
    gl_tuning_free(t);
}

/* Messages quote text from the file escaped and short, and say what is
 * wrong with the format line. */
static void test_messages(void)
{
    gl_tuning_table *t = NULL;
    char err[512];
    CHECK(parse("\xEF\xBB\xBF" HEAD GOOD_V, &t, err, sizeof err) == GL_STATUS_SUCCESS && t &&
              t->count == 1 && t->rows[0].line == 2,
          "a UTF-8 byte-order mark is skipped: %s", err);
    gl_tuning_free(t);
    expect_rejected("gemmladder-tuning 1 extra\n", "t.txt:1:",
                    "unexpected 'extra' after the format line's version");
    expect_rejected("\xEF\xBB\xBF\xEF\xBB\xBF" HEAD, "t.txt:1:", "found '\\xEF\\xBB\\xBF");
    expect_rejected(HEAD "sm_90 \x1b[31mturbo small bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "unknown variant '\\x1B[31mturbo'");
    expect_rejected(HEAD "sm_90 autotuned\rsmall bm=64 bn=64 bk=16 tm=8 tn=4\n", "t.txt:2:",
                    "unknown variant 'autotuned\\x0Dsmall'");
    parse(HEAD "sm_90 \x1b]0;title\x07 small bm=64\n", &t, err, sizeof err);
    for (const char *c = err; *c; ++c)
        CHECK((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f,
              "control byte 0x%02x in the message", (unsigned char)*c);
    /* A long word is cut, the message keeps its line and reason. */
    char *text = malloc(1200);
    snprintf(text, 1200, HEAD "sm_90 %01000d small bm=64\n", 7);
    CHECK(parse(text, &t, err, sizeof err) == GL_STATUS_TUNING_ERROR &&
              strstr(err, "t.txt:2: unknown variant '0000") && strstr(err, "...'") &&
              strlen(err) < 100,
          "a 1000-character word: %s", err);
    free(text);
    /* The rule a warptile row breaks, with its numbers. */
    expect_rejected(HEAD "sm_90 warptile large bm=128 bn=128 bk=16 wm=64 wn=32 wniter=3 tm=4 "
                         "tn=4 threads=256\n",
                    "t.txt:2:", "a 64 x 32 warp tile is not a whole number of rows of 3 "
                                "sub-tiles of 32 threads' 4 x 4 patches");
    parse(HEAD "sm_90 warptile large bm=128 bn=128 bk=16 wm=64 wn=32 wniter=3 tm=4 tn=4 "
               "threads=256\n", &t, err, sizeof err);
    CHECK(!strstr(err, " 0 x 0"), "no placeholder numbers: %s", err);
    /* Absurd values get the table's error status, a line and a reason. */
    expect_rejected(HEAD "sm_90 warptile large bm=4096 bn=4096 bk=4096 wm=4096 wn=4096 "
                         "wniter=4096 tm=4096 tn=4096 threads=1024\n",
                    "t.txt:2: illegal warptile configuration", "");
    expect_rejected(HEAD "sm_90 warptile large bm=2048 bn=2048 bk=16 wm=2048 wn=2048 "
                         "wniter=2048 tm=2048 tn=2048 threads=1024\n",
                    "t.txt:2: illegal warptile configuration", "");
}

/* Files that are not tables: each refused at once with what it is; a long
 * path is shortened, never the line and the reason. */
static void expect_file_error(const char *path, const char *needle)
{
    CHECK_STATUS(NULL, gl_tuning_check(path), GL_STATUS_TUNING_ERROR, needle);
    CHECK_STATUS(NULL, gl_tuning_load(path), GL_STATUS_TUNING_ERROR, needle);
    CHECK(strlen(gl_last_error(NULL)) < 512, "message fits");
}

static void test_table_files(void)
{
    alarm(60); /* a file that blocks must not hang the test run */
    char dir[] = "/tmp/gl_files_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[4200];

    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    expect_file_error(path, "fifo: is a FIFO, not a regular file");
    unlink(path);
    expect_file_error(dir, ": is a directory, not a table file");
    expect_file_error("/dev/null", "/dev/null: is a character device, not a regular file");
    expect_file_error("/dev/zero", "/dev/zero: is a character device, not a regular file");

    char loop_a[64], loop_b[64];
    snprintf(loop_a, sizeof loop_a, "%s/a", dir);
    snprintf(loop_b, sizeof loop_b, "%s/b", dir);
    CHECK(symlink(loop_b, loop_a) == 0 && symlink(loop_a, loop_b) == 0, "symlink loop");
    expect_file_error(loop_a, "a: cannot open: Too many levels of symbolic links");
    unlink(loop_a), unlink(loop_b);

    /* A path of 4000 characters: the reason and the path's end survive. */
    memset(path, 'p', 4000);
    memcpy(path, "/tmp/", 5);
    strcpy(path + 3990, "/table.txt");
    expect_file_error(path, "/table.txt: cannot open: File name too long");
    CHECK(strstr(gl_last_error(NULL), "gl_tuning_load: ...") == gl_last_error(NULL),
          "the path is cut at its start: %s", gl_last_error(NULL));

    /* A real file under a long path, with an error on line 3. */
    int n = snprintf(path, sizeof path, "%s", dir);
    for (int i = 0; i < 3; ++i) {
        n += snprintf(path + n, sizeof path - (size_t)n, "/%0200d", i);
        CHECK(mkdir(path, 0700) == 0, "mkdir %d", i);
    }
    snprintf(path + n, sizeof path - (size_t)n, "/bad.txt");
    FILE *f = fopen(path, "w");
    fputs(HEAD GOOD_V "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=3\n", f);
    fclose(f);
    expect_file_error(path, "/bad.txt:3: illegal autotuned configuration: the 8 x 3 thread tile "
                            "does not divide the 64 x 64 block tile");

    /* A file this process may not read (as root: from a child that gives
     * the privilege up). */
    char locked[64];
    snprintf(locked, sizeof locked, "%s/locked.txt", dir);
    f = fopen(locked, "w");
    fputs(HEAD, f);
    fclose(f);
    chmod(locked, 0);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3); /* a container that cannot drop root: nothing to test */
        const gl_status_t st = gl_tuning_check(locked);
        _exit(st == GL_STATUS_TUNING_ERROR &&
                      strstr(gl_last_error(NULL), "locked.txt: cannot open: Permission denied")
                  ? 0
                  : 1);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        printf("note: could not drop root to test an unreadable file\n");
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "an unreadable file: cannot open: Permission denied (child status %d)", status);
    unlink(locked);
    unlink(path);
    for (int i = 2; i >= 0; --i) {
        *strrchr(path, '/') = '\0';
        rmdir(path);
    }
    rmdir(dir);
    alarm(0);
}

/* ---- size classes and lookup ---------------------------------------------- */

static void test_size_classes(void)
{
    CHECK(gl_size_class_of(1536, 1536) == GL_CLASS_SMALL, "1536^2 small");
    CHECK(gl_size_class_of(1537, 1536) == GL_CLASS_MEDIUM, "just over 1536^2 is medium");
    CHECK(gl_size_class_of(127, 4096) == GL_CLASS_SMALL, "127 x 4096 small");
    CHECK(gl_size_class_of(2048, 2048) == GL_CLASS_MEDIUM, "2048^2 medium");
    CHECK(gl_size_class_of(3072, 3072) == GL_CLASS_MEDIUM, "3072^2 medium");
    CHECK(gl_size_class_of(3073, 3072) == GL_CLASS_LARGE, "just over 3072^2 is large");
    CHECK(gl_size_class_of(2147483647, 2147483647) == GL_CLASS_LARGE, "huge is large");
    CHECK(gl_size_class_of(0, 5) == GL_CLASS_SMALL, "empty is small");
}

static gl_tuning_table *table(const char *text)
{
    gl_tuning_table *t = NULL;
    char err[512];
    if (parse(text, &t, err, sizeof err) != GL_STATUS_SUCCESS)
        fprintf(stderr, "test table rejected: %s\n", err);
    return t;
}

#define ROW_V(arch, cls, bm, bn, bk, tn) arch " autotuned " cls " bm=" #bm " bn=" #bn " bk=" #bk " tm=8 tn=" #tn "\n"

/* Rung 12's `stages`: a row may leave it out (the ring of four that rung 12
 * first had), must keep it in 2..8, and must name a compiled ring; no other
 * rung's row takes it. */
static void test_stages(void)
{
#define RING_128 "sm_90 pipelined large bm=128 bn=128 bk=16 wm=64 wn=32 wniter=2 tm=4 tn=4 threads=256"
    const size_t lim = 227 * 1024;
    int layer = -1;
    gl_variant_t ring = (gl_variant_t)-1; /* the rung whose tiles have a ring */
    for (int v = 0; v < gl_variant_count(); ++v)
        if (gl_variant_find((gl_variant_t)v)->schema == &gl_schema_pipelined)
            ring = (gl_variant_t)v;
    gl_tuning_table *t = table(HEAD RING_128 "\n"
                                    "sm_90 pipelined small bm=64 bn=64 bk=32 wm=32 wn=32 wniter=1 "
                                    "tm=8 tn=4 threads=128 stages=2\n");
    CHECK(t != NULL, "pipelined rows with and without stages");
    const gl_tuning_table *layers[1] = {t};
    const gl_tuning_row *r =
        gl_tuning_find(layers, 1, 90, ring, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->tiles.stages == GL_PIPELINED_UNSET_STAGES, "stages left out: %d",
          r ? r->tiles.stages : -1);
    r = gl_tuning_find(layers, 1, 90, ring, GL_CLASS_SMALL, lim, &layer);
    CHECK(r && r->tiles.stages == 2 && r->tiles.bk == 32, "stages=2: %d", r ? r->tiles.stages : -1);
    gl_tuning_free(t);
    expect_rejected(HEAD RING_128 " stages=1\n", "t.txt:2:", "stages");
    expect_rejected(HEAD RING_128 " stages=9\n", "t.txt:2:", "stages");
    expect_rejected(HEAD RING_128 " stages=3\n", "t.txt:2:", "not compiled");
    expect_rejected(HEAD GOOD_W_NO_NL " stages=4\n", "t.txt:2:", "does not apply");
    /* what gl_set_tiles and the parser do with a configuration without it */
    gl_tile_params p = {128, 128, 16, 4, 4, 64, 32, 2, 256, 0};
    gl_tiles_fill_unset(&gl_schema_pipelined, &p);
    CHECK(p.stages == GL_PIPELINED_UNSET_STAGES, "filled: %d", p.stages);
    gl_tile_params w = {128, 128, 16, 4, 4, 64, 32, 2, 256, 0};
    gl_tiles_fill_unset(&gl_schema_warptile, &w);
    CHECK(w.stages == 0, "warptile has no stages: %d", w.stages);
#undef RING_128
}

static void test_lookup(void)
{
    gl_tuning_table *builtin = table(HEAD ROW_V("sm_90", "large", 128, 128, 16, 8)
                                         ROW_V("sm_80", "large", 128, 64, 16, 8)
                                         ROW_V("sm_86", "large", 64, 128, 16, 8)
                                         ROW_V("default", "large", 64, 64, 16, 4)
                                         ROW_V("default", "small", 64, 128, 16, 8));
    gl_tuning_table *over = table(HEAD ROW_V("sm_89", "large", 128, 128, 16, 8)
                                      ROW_V("default", "large", 128, 64, 16, 8));
    const gl_tuning_table *layers[2] = {over, builtin};
    const size_t lim = 227 * 1024;
    int layer = -1;
    const gl_variant_t V = GL_VARIANT_AUTOTUNED;
    const gl_tuning_row *r;

    r = gl_tuning_find(layers + 1, 1, 90, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 90 && r->tiles.bk == 16, "exact architecture");
    r = gl_tuning_find(layers + 1, 1, 87, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 86, "same major, nearest below (8.7 -> sm_86), got %d", r ? r->arch : -1);
    r = gl_tuning_find(layers + 1, 1, 89, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 86, "same major, nearest below (8.9 -> sm_86)");
    r = gl_tuning_find(layers + 1, 1, 75, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 0, "unrelated major falls to default, got %d", r ? r->arch : -1);
    r = gl_tuning_find(layers + 1, 1, 100, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 0, "a newer GPU gets default rows, never sm_90's");
    r = gl_tuning_find(layers + 1, 1, 90, V, GL_CLASS_SMALL, lim, &layer);
    CHECK(r && r->arch == 0 && r->tiles.bm == 64 && r->tiles.bn == 128,
          "missing class at exact arch falls through");
    r = gl_tuning_find(layers + 1, 1, 90, V, GL_CLASS_MEDIUM, lim, &layer);
    CHECK(r == NULL, "no row anywhere: NULL");
    r = gl_tuning_find(layers + 1, 1, 90, GL_VARIANT_WARPTILE, GL_CLASS_LARGE, lim, &layer);
    CHECK(r == NULL, "other variant's rows do not apply");

    /* Layering: the override wins at the same level only. */
    r = gl_tuning_find(layers, 2, 89, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 89 && layer == 0, "override's exact row");
    r = gl_tuning_find(layers, 2, 90, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 90 && layer == 1, "built-in exact beats override default");
    r = gl_tuning_find(layers, 2, 75, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 0 && layer == 0 && r->tiles.bn == 64, "override default beats built-in default");
    r = gl_tuning_find(layers, 2, 86, V, GL_CLASS_LARGE, lim, &layer);
    CHECK(r && r->arch == 86 && layer == 1, "built-in exact (sm_86) beats override same-major (sm_89)");

    /* Rows that need more shared memory than the device has are passed over. */
    r = gl_tuning_find(layers + 1, 1, 90, V, GL_CLASS_LARGE, 10 * 1024, &layer);
    CHECK(r && r->arch == 0, "too big for the device: next row that fits, got %d", r ? r->arch : -1);
    gl_tuning_free(builtin);
    gl_tuning_free(over);
}

/* ---- the public loader, seen through a handle-shaped struct -------------- */

static const char *write_file(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/gl_tuning_XXXXXX");
    const int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        fprintf(stderr, "cannot write %s\n", path);
    close(fd);
    return path;
}

static gl_tiles query(struct gl_handle_s *h, gl_variant_t v, int64_t m, int64_t n)
{
    gl_tiles out = {.size = sizeof(gl_tiles)};
    gl_resolve_tiles(h, gl_variant_find(v), m, n, &out);
    return out;
}

/* The row on a given line of a shipped table (parsed once per call; tests only). */
static const gl_tuning_row *builtin_row(const char *file, int line)
{
    static gl_tuning_table *t;
    gl_tuning_free(t);
    t = NULL;
    for (int f = 0; f < gl_builtin_table_count; ++f) {
        const gl_builtin_table *b = &gl_builtin_tables[f];
        char err[512];
        if (strcmp(b->name, file) == 0 &&
            gl_tuning_parse(b->text, strlen(b->text), b->name, &t, err, sizeof err) == 0)
            for (int i = 0; i < t->count; ++i)
                if (t->rows[i].line == line)
                    return &t->rows[i];
    }
    return NULL;
}

static void test_public_loader(void)
{
    struct gl_handle_s h = {0}; /* what gl_resolve_tiles reads: device facts, pins */
    h.cc = 90;
    h.smem_limit = 227 * 1024;
    const gl_variant_t V = GL_VARIANT_AUTOTUNED;

    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    gl_tiles t = query(&h, V, 4096, 4096);
    CHECK(t.origin == GL_TILES_BUILTIN && strcmp(t.arch, "sm_90") == 0 &&
              strcmp(t.source, "built-in sm_90.txt") == 0 && strcmp(t.size_class, "large") == 0 &&
              t.line > 0,
          "built-in sm_90 row: origin %d arch %s source %s", t.origin, t.arch, t.source);
    const gl_tuning_row *row = builtin_row("sm_90.txt", t.line);
    CHECK(row && row->variant == V && row->size_class == GL_CLASS_LARGE &&
              row->tiles.bm == t.bm && row->tiles.bn == t.bn && row->tiles.bk == t.bk &&
              row->tiles.tm == t.tm && row->tiles.tn == t.tn,
          "the query returns the tiles of sm_90.txt line %d", t.line);
    t = query(&h, V, 1024, 1024);
    CHECK(strcmp(t.size_class, "small") == 0 && t.bm == 64, "small class picks 64-wide tiles");
    t = query(&h, GL_VARIANT_VECTORIZED, 4096, 4096);
    CHECK(t.origin == GL_TILES_FIXED && t.bm == 64, "vectorized is fixed");
    h.cc = 75;
    t = query(&h, V, 4096, 4096);
    CHECK(t.origin == GL_TILES_BUILTIN && strcmp(t.arch, "default") == 0, "sm_75 -> default rows");
    h.cc = 90;

    /* An override layered over the built-in table. */
    const char *good = write_file(HEAD "sm_90 autotuned large bm=128 bn=64 bk=16 tm=8 tn=8\n");
    CHECK_STATUS(NULL, gl_tuning_check(good), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(NULL, gl_tuning_load(good), GL_STATUS_SUCCESS, NULL);
    t = query(&h, V, 4096, 4096);
    CHECK(t.origin == GL_TILES_OVERRIDE && t.bn == 64 && t.line == 2 &&
              strstr(t.source, "gl_tuning_"),
          "override row wins: origin %d bn %d source %s", t.origin, t.bn, t.source);
    t = query(&h, V, 2048, 2048);
    CHECK(t.origin == GL_TILES_BUILTIN, "classes the override lacks come from the built-in table");

    /* A bad file is rejected whole and the table in use stays. */
    const char *bad = write_file(HEAD "sm_90 autotuned large bm=64 bn=64 bk=16 tm=8 tn=4\n"
                                      "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=3\n");
    char where[96];
    snprintf(where, sizeof where, "%s:3: illegal", bad);
    CHECK_STATUS(NULL, gl_tuning_load(bad), GL_STATUS_TUNING_ERROR, where);
    CHECK_STATUS(NULL, gl_tuning_check(bad), GL_STATUS_TUNING_ERROR, where);
    t = query(&h, V, 4096, 4096);
    CHECK(t.origin == GL_TILES_OVERRIDE && t.bn == 64 && t.bm == 128, "previous override kept");
    unlink(bad);

    CHECK_STATUS(NULL, gl_tuning_load("/nonexistent/table.txt"), GL_STATUS_TUNING_ERROR,
                 "/nonexistent/table.txt: cannot open");
    CHECK_STATUS(NULL, gl_tuning_check(NULL), GL_STATUS_INVALID_ARGUMENT, "path is NULL");
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    t = query(&h, V, 4096, 4096);
    CHECK(t.origin == GL_TILES_BUILTIN, "override removed");
    unlink(good);

    /* Pinned tiles win over every table; pins are checked. */
    gl_tiles pin = {.size = sizeof(gl_tiles)};
    CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, 3, &pin), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_WARPTILE, &pin), GL_STATUS_SUCCESS, NULL);
    t = query(&h, GL_VARIANT_WARPTILE, 4096, 4096);
    CHECK(t.origin == GL_TILES_PINNED && t.bm == pin.bm && t.bn == pin.bn && t.wm == pin.wm,
          "pinned configuration");
    pin.bk = 24;
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_WARPTILE, &pin), GL_STATUS_TUNING_ERROR,
                 "not one of the");
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_SHARED, &pin), GL_STATUS_TUNING_ERROR,
                 "fixed tiles");
    pin.size = 8;
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_WARPTILE, &pin), GL_STATUS_INVALID_ARGUMENT,
                 "gl_tiles.size is 8");
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_WARPTILE, NULL), GL_STATUS_SUCCESS, NULL);
    t = query(&h, GL_VARIANT_WARPTILE, 4096, 4096);
    CHECK(t.origin == GL_TILES_BUILTIN, "unpinned");
    /* A pin the device cannot hold. */
    h.smem_limit = 16 * 1024;
    pin.size = sizeof(gl_tiles);
    CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, 0, &pin), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_WARPTILE, &pin), GL_STATUS_TUNING_ERROR,
                 "shared memory");
}

/* ---- filling the GPU ----------------------------------------------------- */

static void test_fill(void)
{
    const size_t sm90 = gl_arch_smem_limit(90);
    const gl_variant_desc *a = gl_variant_find(GL_VARIANT_AUTO);
    const gl_tile_schema *W = &gl_schema_warptile, *V = &gl_schema_vectorized;
    const gl_tile_params w128 = {128, 128, 16, 4, 4, 64, 32, 2, 256, 0}, a128 = {128, 128, 16, 8, 8,
                                                                                0, 0, 0, 256, 0};
    const gl_tile_params *wfill = a->fill;
    for (int v = 0; v < gl_variant_count(); ++v)
        CHECK((gl_variant_find((gl_variant_t)v)->fill != NULL) == (v == GL_VARIANT_AUTO),
              "only auto has fill tiles (variant %d)", v);
    int count = 0;
    CHECK(gl_tiles_compiled(a, &w128, &count), "the 128 x 128 tiles below are compiled");

    /* Resident blocks as ptxas's counts give them on sm_90 (cuobjdump
     * --dump-resource-usage): 128 registers x 256 threads -> 2 blocks; the fill
     * tiles at 94-96 registers x 128 threads -> 5; 64 x 64 x 32 warptiles at
     * 126-128 -> 4. */
    const gl_tile_params w64k32 = {64, 64, 32, 8, 4, 32, 32, 1, 128, 0};
    const gl_tile_params v64 = {64, 64, 16, 8, 4, 0, 0, 0, 128, 0};
    CHECK(gl_tiles_resident(W, &w128, sm90) == 2, "128 x 128 warptile: %d blocks an SM",
          gl_tiles_resident(W, &w128, sm90));
    CHECK(gl_tiles_resident(W, wfill, sm90) == 5, "fill warptile: %d blocks an SM",
          gl_tiles_resident(W, wfill, sm90));
    CHECK(gl_tiles_resident(W, &w64k32, sm90) == 4, "64 x 64 x 32 warptile: %d blocks an SM",
          gl_tiles_resident(W, &w64k32, sm90));
    CHECK(gl_tiles_resident(V, &a128, sm90) == 2 && gl_tiles_resident(V, &v64, sm90) == 5,
          "rungs 6-7: 2 and 5 blocks an SM");
    const gl_tile_params w256 = {256, 128, 16, 8, 4, 64, 64, 4, 256, 0};
    CHECK(gl_tiles_resident(W, &w256, sm90) == 1, "256 x 128 warptile: one block an SM");

    /* 132 SMs (H100, H200). 128 x 128 tiles hold 264 blocks at once. */
    const struct { int64_t m, n; const gl_tile_params *t; bool fill; const char *why; } cases[] = {
        {2048, 2048, &w128, false, "256 blocks: one round"},
        {2049, 2049, &w128, true, "289 blocks: a second round of 25"},
        {1537, 1537, &w128, true, "169 blocks leave 95 SMs with one; 625 fill blocks fit"},
        {2300, 2300, &w128, true, "324 blocks: a second round of 60"},
        {3072, 3072, &w128, false, "576 blocks: the third round is 48 of 264, the fill's fourth 324 of 660"},
        {4096, 4096, &w128, false, "1024 blocks: four rounds, nearly full"},
        {4097, 4097, &w128, false, "1089 blocks: five rounds against the fill's seven"},
        {1536, 1536, &w64k32, true, "576 blocks of 64 x 64 x 32 at 4 an SM: 528 and then 48"},
        {1024, 1024, &w64k32, false, "256 blocks: one round either way"},
        {127, 4096, &w64k32, false, "128 blocks: one round either way"},
        {1, 1, &w128, true, "one block either way, a quarter of the work in the fill tile"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const gl_tile_params *got = gl_fill_tiles(a, cases[i].t, cases[i].m, cases[i].n, 132, sm90);
        CHECK((got != NULL) == cases[i].fill && (!got || got == wfill),
              "%lld x %lld on %dx%d tiles: fill %d, want %d (%s)", (long long)cases[i].m,
              (long long)cases[i].n, cases[i].t->bm, cases[i].t->bn, got != NULL, cases[i].fill,
              cases[i].why);
    }
    CHECK(!gl_fill_tiles(a, &w128, 2049, 2049, 0, sm90), "no SM count (no device): no fill");
    CHECK(!gl_fill_tiles(a, wfill, 2049, 2049, 132, sm90), "the fill tiles never replace themselves");
    CHECK(!gl_fill_tiles(gl_variant_find(GL_VARIANT_WARPTILE), &w128, 2049, 2049, 132, sm90),
          "rung 8 runs its table's tiles");

    /* Through gl_resolve_tiles (what gl_tuning_query and the calls use):
     * auto reads warptile's rows, gives them up for the fill tiles where the
     * rule says, says which row it replaced, and never replaces a pin. */
    struct gl_handle_s h = {0};
    h.cc = 90, h.smem_limit = sm90, h.sm_count = 132;
    const char *table = write_file(HEAD "sm_90 warptile medium bm=128 bn=128 bk=16 wm=64 wn=32 "
                                        "wniter=2 tm=4 tn=4 threads=256\n");
    CHECK_STATUS(NULL, gl_tuning_load(table), GL_STATUS_SUCCESS, NULL);
    gl_tiles t = query(&h, GL_VARIANT_AUTO, 2048, 2048);
    CHECK(t.origin == GL_TILES_OVERRIDE && t.bm == 128, "2048^2: the row (origin %d)", t.origin);
    t = query(&h, GL_VARIANT_AUTO, 2049, 2049);
    CHECK(t.origin == GL_TILES_FILL && t.bm == wfill->bm && t.bn == wfill->bn &&
              t.wm == wfill->wm && t.line == 2 && strcmp(t.size_class, "medium") == 0 &&
              strstr(t.source, "gl_tuning_"),
          "2049^2: fill tiles in place of line 2 (origin %d, %dx%d, line %d)", t.origin, t.bm,
          t.bn, t.line);
    t = query(&h, GL_VARIANT_WARPTILE, 2049, 2049);
    CHECK(t.origin == GL_TILES_OVERRIDE && t.bm == 128, "rung 8 keeps the row at 2049^2");
    h.sm_count = 0;
    CHECK(query(&h, GL_VARIANT_AUTO, 2049, 2049).origin == GL_TILES_OVERRIDE,
          "no SM count: the row");
    h.sm_count = 132;
    gl_tiles pin = {.size = sizeof(gl_tiles), .bm = 128, .bn = 128, .bk = 16, .tm = 4, .tn = 4,
                    .wm = 64, .wn = 32, .wniter = 2, .threads = 256};
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_AUTO, &pin), GL_STATUS_SUCCESS, NULL);
    t = query(&h, GL_VARIANT_AUTO, 2049, 2049);
    CHECK(t.origin == GL_TILES_PINNED && t.bm == 128, "a pin is run as pinned");
    CHECK_STATUS(&h, gl_set_tiles(&h, GL_VARIANT_AUTO, NULL), GL_STATUS_SUCCESS, NULL);
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    unlink(table);
}

static void test_config_enumeration(void)
{
    gl_tiles t = {.size = sizeof(gl_tiles)};
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        CHECK((gl_variant_config_count(d->id) == 0) == (d->schema == NULL),
              "%s: configurations exactly where there are tiles", d->name);
        /* where threads follow from the tiles, the configurations say so */
        const gl_tile_range *threads = d->schema ? gl_tile_range_of(d->schema, GL_FIELD_THREADS)
                                                 : NULL;
        for (int i = 0; threads && threads->derived && i < d->config_count; ++i) {
            CHECK_STATUS(NULL, gl_variant_config(d->id, i, &t), GL_STATUS_SUCCESS, NULL);
            CHECK(t.origin == GL_TILES_FIXED && t.threads == t.bm * t.bn / (t.tm * t.tn),
                  "%s configuration %d: one thread per patch", d->name, i);
        }
    }
    CHECK(gl_variant_config_count((gl_variant_t)gl_variant_count()) == -1, "unknown variant");
    CHECK(gl_variant_config_count(GL_VARIANT_WARPTILE) > 1, "warptile compiles several");
    CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, 99, &t), GL_STATUS_INVALID_ARGUMENT,
                 "index 99 is outside");
    CHECK_STATUS(NULL, gl_variant_config((gl_variant_t)99, 0, &t), GL_STATUS_UNKNOWN_VARIANT,
                 "variant 99");
    CHECK_STATUS(NULL, gl_variant_config(GL_VARIANT_WARPTILE, 0, NULL),
                 GL_STATUS_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(NULL, gl_tuning_query(NULL, GL_VARIANT_WARPTILE, 1, 1, 1, &t),
                 GL_STATUS_INVALID_ARGUMENT, "handle is NULL");
    CHECK_STATUS(NULL, gl_set_tiles(NULL, GL_VARIANT_WARPTILE, &t), GL_STATUS_INVALID_ARGUMENT,
                 "handle is NULL");
}

int main(void)
{
    test_builtin_tables();
    test_config_lists_are_legal();
    test_legality_filter();
    test_legality_sweep();
    test_parser();
    test_stages();
    test_messages();
    test_table_files();
    test_size_classes();
    test_lookup();
    test_public_loader();
    test_fill();
    test_config_enumeration();
    return harness_finish("test_tuning");
}
