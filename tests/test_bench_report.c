/*
 * test_bench_report.c - gemmladder-bench's GPU-free half (tools/bench_report.c)
 * on fixed inputs: the command line (sweeps, shape lists, variants,
 * --workspace-limit, and the errors for bad ones, the removed --svg,
 * --svg-size and --replot), the table, CSV and JSON writers (well-formed,
 * with the expected rows), the reader of ncu's CSV, and the tools' output
 * files (cli.h: written whole or not at all).
 *
 *   test_bench_report NCU_FIXTURE           run the checks
 *   test_bench_report --write-samples DIR   write the fixed report's CSV and
 *                                           JSON for tests/bench/check_outputs.py
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_report.h"
#include "cli.h"
#include "harness.h"

/* ---- small tools ----------------------------------------------------------- */

/* Parses argv given as one string of space-separated words. */
static int parse(br_options *o, const char *words, char *err, size_t err_size)
{
    static char buf[2048];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "gemmladder-bench %s", words);
    for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    err[0] = '\0';
    return br_parse_args(o, argc, argv, err, err_size);
}

static int count_of(const char *haystack, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

/* Runs a writer into a string the caller frees. */
#define CAPTURE(text, call)                                                                    \
    do {                                                                                       \
        size_t size_;                                                                          \
        FILE *out = open_memstream(&(text), &size_);                                           \
        call;                                                                                  \
        fclose(out);                                                                           \
    } while (0)

/* ---- a JSON validator (RFC 8259 grammar, no semantics) ----------------------- */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        ++p;
    return p;
}

static const char *json_string_token(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (; *p != '"'; ++p) {
        if ((unsigned char)*p < 0x20)
            return NULL; /* includes the end of the text */
        if (*p == '\\') {
            ++p;
            if (*p == 'u') {
                for (int i = 1; i <= 4; ++i)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || *p == '\0') {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *json_number(const char *p)
{
    if (*p == '-')
        ++p;
    if (*p == '0')
        ++p;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p))
            ++p;
    else
        return NULL;
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p))
            return NULL;
        while (isdigit((unsigned char)*p))
            ++p;
    }
    if (*p == 'e' || *p == 'E') {
        ++p;
        if (*p == '+' || *p == '-')
            ++p;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            ++p;
    }
    return p;
}

static const char *json_value(const char *p, int depth)
{
    if (depth > 32)
        return NULL;
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        const int object = *p == '{';
        p = json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (object) {
                if (!(p = json_string_token(json_ws(p))))
                    return NULL;
                p = json_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if (!(p = json_value(p, depth + 1)))
                return NULL;
            p = json_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return json_string_token(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return json_number(p);
}

static int json_valid(const char *text)
{
    const char *end = json_value(text, 0);
    return end && *json_ws(end) == '\0';
}

static void test_checkers(void)
{
    /* The checkers themselves must reject what is broken, or the checks on
     * the writers below prove nothing. */
    CHECK(json_valid("{\"a\": [1, -2.5e-3, \"x\\\"y\", null, true, false, {}], \"b\": []}"),
          "valid JSON rejected");
    CHECK(!json_valid("{\"a\": NaN}"), "NaN accepted");
    CHECK(!json_valid("{\"a\": inf}"), "inf accepted");
    CHECK(!json_valid("{\"a\": 1,}"), "trailing comma accepted");
    CHECK(!json_valid("[1 2]"), "missing comma accepted");
    CHECK(!json_valid("{\"a\" 1}"), "missing colon accepted");
    CHECK(!json_valid("{\"a\": \"x\ny\"}"), "raw newline in a string accepted");
    CHECK(!json_valid("{\"a\": 01}"), "leading zero accepted");
    CHECK(!json_valid("{\"a\": 1} x"), "trailing text accepted");
    CHECK(!json_valid("{\"a\": [1}"), "unclosed array accepted");
}

/* ---- the command line ----------------------------------------------------- */

static int has_shape(const br_options *o, int64_t m, int64_t n, int64_t k)
{
    for (int i = 0; i < o->nshapes; ++i)
        if (o->shapes[i].m == m && o->shapes[i].n == n && o->shapes[i].k == k)
            return 1;
    return 0;
}

#define CHECK_SHAPE(o, i, M, N, K)                                                             \
    CHECK((o).nshapes > (i) && (o).shapes[i].m == (M) && (o).shapes[i].n == (N) &&            \
              (o).shapes[i].k == (K),                                                          \
          "shape %d is %lldx%lldx%lld, expected %lldx%lldx%lld", (i),                          \
          (long long)(o).shapes[i].m, (long long)(o).shapes[i].n, (long long)(o).shapes[i].k,  \
          (long long)(M), (long long)(N), (long long)(K))

static void test_sweeps(void)
{
    br_options o;
    char err[512];
    const int rungs = gl_variant_count() - 1;

    CHECK(parse(&o, "", err, sizeof err) == 0, "no arguments: %s", err);
    CHECK(o.mode == BR_MODE_BENCH && o.sweep == BR_SWEEP_MEDIUM, "default mode %d sweep %d",
          o.mode, o.sweep);
    CHECK(o.nshapes == 8, "default sweep has %d shapes, expected 8", o.nshapes);
    CHECK_SHAPE(o, 0, 128, 128, 128);
    CHECK_SHAPE(o, 5, 4096, 4096, 4096);
    CHECK_SHAPE(o, 6, 1000, 1000, 1000);
    CHECK_SHAPE(o, 7, 127, 4096, 4096);
    CHECK(o.repeats == 10 && o.warmup == 2 && o.slow_limit == 0, "default timing %d %d %lld",
          o.repeats, o.warmup, (long long)o.slow_limit);
    CHECK(o.nvariants == rungs && o.variants[0] == 1 && o.variants[rungs - 1] == rungs,
          "default runs %d rungs from %d", o.nvariants, o.variants[0]);
    CHECK(!o.csv_path && !o.json_path && !o.skip_without_gpu && !o.seed_given,
          "default outputs");

    CHECK(parse(&o, "--quick", err, sizeof err) == 0, "--quick: %s", err);
    CHECK(o.sweep == BR_SWEEP_QUICK && o.nshapes == 4, "--quick has %d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 256, 256, 256);
    CHECK_SHAPE(o, 2, 2048, 2048, 2048);
    CHECK_SHAPE(o, 3, 1000, 1000, 1000);
    CHECK(o.repeats == 5 && o.warmup == 1 && o.slow_limit == 1024, "--quick timing %d %d %lld",
          o.repeats, o.warmup, (long long)o.slow_limit);

    CHECK(parse(&o, "--full", err, sizeof err) == 0, "--full: %s", err);
    CHECK(o.sweep == BR_SWEEP_FULL && o.nshapes == 13, "--full has %d shapes", o.nshapes);
    CHECK(has_shape(&o, 8192, 8192, 8192) && has_shape(&o, 4097, 4097, 4097) &&
              has_shape(&o, 127, 4096, 4096) && has_shape(&o, 1000, 1000, 1000) &&
              has_shape(&o, 4096, 127, 4096) && has_shape(&o, 128, 4096, 4096) &&
              has_shape(&o, 4096, 128, 4096),
          "--full shapes: the odd ones and the multiples they are compared with");

    /* Explicit options override the sweep's parts, not all of it. */
    CHECK(parse(&o, "--quick --sizes 512 --repeats 3 --warmup 0", err, sizeof err) == 0, "%s",
          err);
    CHECK(o.nshapes == 1 && o.repeats == 3 && o.warmup == 0 && o.slow_limit == 1024,
          "--quick --sizes 512 --repeats 3 --warmup 0: %d shapes, %d %d %lld", o.nshapes,
          o.repeats, o.warmup, (long long)o.slow_limit);
    CHECK(parse(&o, "--quick --slow-limit 0", err, sizeof err) == 0 && o.slow_limit == 0,
          "--slow-limit 0: %s", err);
}

static void test_shapes(void)
{
    br_options o;
    char err[512];

    CHECK(parse(&o, "--sizes 512,1024", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 2, "two sizes, got %d", o.nshapes);
    CHECK_SHAPE(o, 1, 1024, 1024, 1024);

    CHECK(parse(&o, "--sizes 128:1024,1000", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 5, "range 128:1024 and 1000: %d shapes", o.nshapes);
    CHECK_SHAPE(o, 3, 1024, 1024, 1024);
    CHECK_SHAPE(o, 4, 1000, 1000, 1000);

    CHECK(parse(&o, "--mnk 127x4096x4096,1x2x3 --sizes=64", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 3, "--mnk and --sizes: %d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 127, 4096, 4096); /* in the order given */
    CHECK_SHAPE(o, 1, 1, 2, 3);
    CHECK_SHAPE(o, 2, 64, 64, 64);
    CHECK(!o.shapes[0].col_major && !o.shapes[0].trans_a && !o.shapes[0].trans_b,
          "row NN unless said");
    CHECK(parse(&o, "--mnk 8x9x10:colTN,8x9x10:NT,8x9x10:col,8x9x10:rowTT", err, sizeof err) == 0,
          "%s", err);
    CHECK(o.nshapes == 4 && o.shapes[0].col_major && o.shapes[0].trans_a &&
              !o.shapes[0].trans_b && !o.shapes[1].col_major && !o.shapes[1].trans_a &&
              o.shapes[1].trans_b && o.shapes[2].col_major && !o.shapes[2].trans_a &&
              !o.shapes[2].trans_b && !o.shapes[3].col_major && o.shapes[3].trans_a &&
              o.shapes[3].trans_b && !strcmp(br_form_name(o.shapes[0]), "col TN"),
          "forms after ':'");
    /* --m/--n/--k combinations come after the rest. */
    CHECK(parse(&o, "--k 7 --sizes 5", err, sizeof err) == 0, "%s", err);
    CHECK_SHAPE(o, 0, 5, 5, 5);
    CHECK_SHAPE(o, 1, 4096, 4096, 7);

    CHECK(parse(&o, "--m 4096 --n 4096 --k 1024,2048", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 2, "--m --n --k: %d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 4096, 4096, 1024);
    CHECK_SHAPE(o, 1, 4096, 4096, 2048);

    CHECK(parse(&o, "--k 256", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 1, "--k alone: %d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 4096, 4096, 256);

    CHECK(parse(&o, "--m 1,2 --n 3:6", err, sizeof err) == 0, "%s", err);
    CHECK(o.nshapes == 4, "--m 1,2 --n 3:6: %d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 1, 3, 4096);
    CHECK_SHAPE(o, 1, 1, 6, 4096);
    CHECK_SHAPE(o, 3, 2, 6, 4096);

    CHECK(parse(&o, "--sizes 65536", err, sizeof err) == 0, "65536^2 elements fit: %s", err);
}

static void test_variants_and_outputs(void)
{
    br_options o;
    char err[512];

    CHECK(parse(&o, "--variants naive,shared,8", err, sizeof err) == 0, "%s", err);
    CHECK(o.nvariants == 3 && o.variants[0] == 1 && o.variants[1] == 3 && o.variants[2] == 8,
          "naive,shared,8 gave %d rungs", o.nvariants);
    CHECK(parse(&o, "--variants warptile,naive,1,cublas", err, sizeof err) == 0, "%s", err);
    CHECK(o.nvariants == 2 && o.variants[0] == 1 && o.variants[1] == 8,
          "duplicates and cublas: %d rungs", o.nvariants);
    CHECK(parse(&o, "--variants cublas", err, sizeof err) == 0 && o.nvariants == 0,
          "cublas alone: %d rungs (%s)", o.nvariants, err);
    CHECK(parse(&o, "--variants all", err, sizeof err) == 0 &&
              o.nvariants == gl_variant_count() - 1,
          "all: %d rungs (%s)", o.nvariants, err);

    CHECK(parse(&o, "--sizes 1024 --csv a.csv --json=b.json --seed 42", err, sizeof err) == 0,
          "%s", err);
    CHECK(o.csv_path && !strcmp(o.csv_path, "a.csv") && o.json_path &&
              !strcmp(o.json_path, "b.json"),
          "output paths");
    CHECK(o.seed == 42 && o.seed_given, "seed %llu", (unsigned long long)o.seed);

    CHECK(parse(&o, "--help", err, sizeof err) == 0 && o.mode == BR_MODE_HELP, "--help");
    CHECK(parse(&o, "--sizes 12 -h", err, sizeof err) == 0 && o.mode == BR_MODE_HELP, "-h");
    CHECK(parse(&o, "--ncu", err, sizeof err) == 0 && o.mode == BR_MODE_NCU &&
              o.ncu_size == 1024,
          "--ncu: %s", err);
    CHECK(parse(&o, "--ncu --ncu-size 2048", err, sizeof err) == 0 && o.ncu_size == 2048,
          "--ncu-size: %s", err);
    CHECK(parse(&o, "--profile-once", err, sizeof err) == 0 && o.mode == BR_MODE_PROFILE_ONCE &&
              o.nvariants == 2 && o.variants[0] == 1 && o.variants[1] == 2,
          "--profile-once runs naive and coalesced: %s", err);
    CHECK(parse(&o, "--quick --skip-without-gpu", err, sizeof err) == 0 && o.skip_without_gpu,
          "--skip-without-gpu: %s", err);
    CHECK(parse(&o, "--version", err, sizeof err) == 0 && o.mode == BR_MODE_VERSION, "--version");
    CHECK(parse(&o, "-V --bogus", err, sizeof err) == 0 && o.mode == BR_MODE_VERSION, "-V");
    CHECK(parse(&o, "--shapes", err, sizeof err) == 0 && o.mode == BR_MODE_BENCH &&
              o.sweep == BR_SWEEP_SHAPES && o.nshapes == 27 && o.shapes[0].m == 256 &&
              o.shapes[0].k == 65536 && o.shapes[6].m == 1 && o.shapes[21].k == 128 &&
              o.shapes[22].k == 4096 && !o.shapes[22].col_major && !o.shapes[22].trans_a &&
              !o.shapes[22].trans_b && o.shapes[24].trans_a && !o.shapes[24].trans_b &&
              o.shapes[26].col_major && !o.shapes[26].trans_a && !o.shapes[26].trans_b &&
              o.slow_limit == 1024 && o.repeats == 10,
          "--shapes: the goal set: %s", err);
    CHECK(parse(&o, "--overhead", err, sizeof err) == 0 && o.mode == BR_MODE_OVERHEAD &&
              o.nshapes == 2 && o.shapes[0].m == 256 && o.shapes[1].k == 4097 &&
              o.repeats == 5 && o.slow_limit == 1024 && o.nvariants == gl_variant_count() - 1,
          "--overhead: 256^3 and 4097^3, every rung, 5 samples: %s", err);
    CHECK(parse(&o, "--overhead --mnk 1x4096x4096 --variants auto --repeats 9", err, sizeof err) ==
                  0 &&
              o.mode == BR_MODE_OVERHEAD && o.nshapes == 1 && o.shapes[0].m == 1 &&
              o.nvariants == 1 && o.variants[0] == GL_VARIANT_AUTO && o.repeats == 9,
          "--overhead with shapes and rungs: %s", err);
    /* Option names may be shortened while they stay unambiguous (getopt_long). */
    CHECK(parse(&o, "--qui --vari=naive", err, sizeof err) == 0 && o.sweep == BR_SWEEP_QUICK &&
              o.nvariants == 1,
          "abbreviations: %s", err);
    CHECK(parse(&o, "--repe 3 --warm 0 --sl 64 --mn 8x9x10", err, sizeof err) == 0 &&
              o.repeats == 3 && o.warmup == 0 && o.slow_limit == 64 && o.nshapes == 1 &&
              o.shapes[0].k == 10,
          "abbreviated timing options: %s", err);
    /* A name that is a whole option is that option, though others begin with it. */
    CHECK(parse(&o, "--sizes 8 --m 8", err, sizeof err) == 0 && o.nshapes == 2 &&
              o.shapes[1].m == 8 && o.shapes[1].n == 4096,
          "--m whole (not --mnk): %s", err);
    CHECK(parse(&o, "--ncu", err, sizeof err) == 0 && o.mode == BR_MODE_NCU,
          "--ncu whole (not --ncu-size): %s", err);
}

/* --workspace-limit BYTES: gl_set_workspace_limit's cap on the tool's
 * handle (issue 46), 0 .. INT64_MAX, shown in the header line. */
static void test_workspace_limit(void)
{
    br_options o;
    char err[512], text[96];
    CHECK(parse(&o, "--quick", err, sizeof err) == 0 && !o.workspace_limit_given &&
              !*br_workspace_text(&o, text, sizeof text),
          "no --workspace-limit: no cap, nothing in the header: %s", err);
    CHECK(parse(&o, "--shapes --variants auto --workspace-limit 0", err, sizeof err) == 0 &&
              o.workspace_limit_given && o.workspace_limit == 0 &&
              o.sweep == BR_SWEEP_SHAPES && o.nshapes == 27 && o.nvariants == 1 &&
              o.variants[0] == GL_VARIANT_AUTO,
          "--shapes --variants auto --workspace-limit 0: %s", err);
    CHECK(!strcmp(br_workspace_text(&o, text, sizeof text), "auto's scratch limited to 0 bytes"),
          "the header's text of a cap of 0: \"%s\"", text);
    CHECK(parse(&o, "--wo=67108864 --sizes 64", err, sizeof err) == 0 &&
              o.workspace_limit_given && o.workspace_limit == 67108864 &&
              !strcmp(br_workspace_text(&o, text, sizeof text),
                      "auto's scratch limited to 67108864 bytes"),
          "--wo (shortened): %s; \"%s\"", err, text);
    CHECK(parse(&o, "--workspace 9223372036854775807", err, sizeof err) == 0 &&
              o.workspace_limit == INT64_MAX,
          "GL_WORKSPACE_NO_LIMIT's value: %s", err);
    CHECK(parse(&o, "--workspace-limit 5 --workspace-limit 0", err, sizeof err) == 0 &&
              o.workspace_limit == 0,
          "the last --workspace-limit counts: %s", err);
    CHECK(parse(&o, "--overhead --variants auto --workspace-limit 0", err, sizeof err) == 0 &&
              o.mode == BR_MODE_OVERHEAD && o.workspace_limit_given,
          "--overhead under a cap: %s", err);
    CHECK(parse(&o, "--profile-once --variants auto --workspace-limit 0", err, sizeof err) == 0 &&
              o.mode == BR_MODE_PROFILE_ONCE && o.workspace_limit_given,
          "--profile-once under a cap: %s", err);
}

/* --batched (issue 45's set) and batches in --mnk: MxNxKxBATCH, bA. */
#define CHECK_BATCH(o, i, B, BA)                                                               \
    CHECK((o).nshapes > (i) && (o).shapes[i].batch == (B) && (o).shapes[i].broadcast_a == (BA), \
          "shape %d has batch %lld%s, expected %lld%s", (i), (long long)(o).shapes[i].batch,   \
          (o).shapes[i].broadcast_a ? " bA" : "", (long long)(B), (BA) ? " bA" : "")

static void test_batched(void)
{
    br_options o;
    char err[512];

    CHECK(parse(&o, "--batched", err, sizeof err) == 0, "--batched: %s", err);
    CHECK(o.mode == BR_MODE_BENCH && o.sweep == BR_SWEEP_BATCHED && o.nshapes == 10,
          "--batched: sweep %d, %d shapes", o.sweep, o.nshapes);
    CHECK_SHAPE(o, 0, 64, 64, 64);
    CHECK_BATCH(o, 0, 4096, 0);
    CHECK_SHAPE(o, 1, 128, 128, 64);
    CHECK_BATCH(o, 1, 768, 0);
    CHECK_SHAPE(o, 2, 512, 512, 64);
    CHECK_BATCH(o, 2, 96, 0);
    CHECK_SHAPE(o, 3, 256, 256, 256);
    CHECK_BATCH(o, 3, 256, 0);
    CHECK_SHAPE(o, 4, 256, 256, 256);
    CHECK_BATCH(o, 4, 256, 1); /* one A against every B */
    CHECK_SHAPE(o, 5, 1024, 1024, 1024);
    CHECK_BATCH(o, 5, 16, 0);
    CHECK_SHAPE(o, 6, 4096, 64, 4096);
    CHECK_BATCH(o, 6, 8, 0);
    CHECK_SHAPE(o, 7, 1, 4096, 4096);
    CHECK_BATCH(o, 7, 64, 0);
    CHECK_SHAPE(o, 8, 1024, 1024, 1024);
    CHECK_BATCH(o, 8, 1, 0); /* a batch of 1 ... */
    CHECK_SHAPE(o, 9, 1024, 1024, 1024);
    CHECK_BATCH(o, 9, 0, 0); /* ... next to the single product */
    for (int i = 0; i < o.nshapes; ++i)
        CHECK(!o.shapes[i].col_major && !o.shapes[i].trans_a && !o.shapes[i].trans_b,
              "--batched shape %d is not row NN", i);
    CHECK(o.repeats == 10 && o.warmup == 2 && o.slow_limit == 1024 &&
              o.nvariants == gl_variant_count() - 1,
          "--batched timing %d %d %lld, %d rungs", o.repeats, o.warmup, (long long)o.slow_limit,
          o.nvariants);
    CHECK(br_any_batched(&o), "--batched has batched shapes");
    CHECK(br_products(o.shapes[0]) == 4096 && br_products(o.shapes[8]) == 1 &&
              br_products(o.shapes[9]) == 1,
          "products of a batch, a batch of 1, a single product");
    CHECK(br_floats_a(o.shapes[3]) == 256 * 65536 && br_floats_a(o.shapes[4]) == 65536 &&
              br_floats_b(o.shapes[4]) == 256 * 65536 && br_floats_c(o.shapes[4]) == 256 * 65536 &&
              br_floats_a(o.shapes[6]) == INT64_C(8) * 4096 * 4096 &&
              br_floats_b(o.shapes[6]) == 8 * 4096 * 64 && br_floats_c(o.shapes[9]) == 1 << 20,
          "floats of each operand over the batch, a broadcast A once");
    char text[96];
    CHECK(!strcmp(br_shape_text(text, sizeof text, o.shapes[4]), "256x256x256 row NN x256 bA") &&
              !strcmp(br_shape_text(text, sizeof text, o.shapes[8]),
                      "1024x1024x1024 row NN x1") &&
              !strcmp(br_shape_text(text, sizeof text, o.shapes[9]), "1024x1024x1024 row NN"),
          "shape names: %s", text);

    /* Shapes given replace the set; the sweep's timing and goals stay. */
    CHECK(parse(&o, "--batched --mnk 8x8x8x3 --variants auto", err, sizeof err) == 0 &&
              o.sweep == BR_SWEEP_BATCHED && o.nshapes == 1 && o.slow_limit == 1024 &&
              o.nvariants == 1,
          "--batched with --mnk: %s", err);
    CHECK_BATCH(o, 0, 3, 0);
    /* No batch anywhere: the table keeps its columns. */
    CHECK(parse(&o, "--quick", err, sizeof err) == 0 && !br_any_batched(&o), "--quick: %s", err);

    CHECK(parse(&o, "--mnk 64x64x64x4096,256x256x256x256bA:colTN,1x2x3x1,5x6x7,"
                    "1x1x1x2147483647,4096x1x4096x300bA,8x9x10x2:NT",
                err, sizeof err) == 0,
          "batches in --mnk: %s", err);
    CHECK(o.nshapes == 7 && br_any_batched(&o), "%d shapes", o.nshapes);
    CHECK_SHAPE(o, 0, 64, 64, 64);
    CHECK_BATCH(o, 0, 4096, 0);
    CHECK_SHAPE(o, 1, 256, 256, 256);
    CHECK_BATCH(o, 1, 256, 1);
    CHECK(o.shapes[1].col_major && o.shapes[1].trans_a && !o.shapes[1].trans_b,
          "a batch's form after ':'");
    CHECK_SHAPE(o, 2, 1, 2, 3);
    CHECK_BATCH(o, 2, 1, 0);
    CHECK_SHAPE(o, 3, 5, 6, 7);
    CHECK_BATCH(o, 3, 0, 0);
    CHECK_BATCH(o, 4, BR_MAX_BATCH, 0);
    CHECK_SHAPE(o, 5, 4096, 1, 4096); /* 300 As would be over the bound; one is not */
    CHECK_BATCH(o, 5, 300, 1);
    CHECK(!o.shapes[6].col_major && !o.shapes[6].trans_a && o.shapes[6].trans_b,
          "8x9x10x2:NT");
    CHECK_BATCH(o, 6, 2, 0);
    /* --overhead takes batches too: their host time per call. */
    CHECK(parse(&o, "--overhead --mnk 64x64x64x4096 --variants auto", err, sizeof err) == 0 &&
              o.mode == BR_MODE_OVERHEAD && o.nshapes == 1 && o.shapes[0].batch == 4096,
          "--overhead with a batch: %s", err);

    /* --pointers: each batched shape again right after it, through pointer
     * arrays; single products once. */
    CHECK(parse(&o, "--pointers --mnk 64x64x64x4096,5x6x7,256x256x256x256bA:colTN", err,
                sizeof err) == 0 &&
              o.nshapes == 5,
          "--pointers: %s (%d shapes)", err, o.nshapes);
    const int twin_of[5] = {0, 0, 1, 2, 2}, pointers_at[5] = {0, 1, 0, 0, 1};
    static const br_shape given[3] = {BR_MNKB(64, 64, 64, 4096), BR_MNK(5, 6, 7),
                                      {.m = 256, .n = 256, .k = 256, .col_major = 1, .trans_a = 1,
                                       .batch = 256, .broadcast_a = 1}};
    for (int i = 0; i < 5 && o.nshapes == 5; ++i) {
        br_shape want = given[twin_of[i]];
        want.pointers = pointers_at[i];
        CHECK(!memcmp(&o.shapes[i], &want, sizeof want), "--pointers: shape %d is not %s", i,
              br_shape_text(text, sizeof text, want));
    }
    CHECK(!strcmp(br_shape_text(text, sizeof text, o.shapes[4]),
                  "256x256x256 col TN x256 bA ptr"),
          "a pointer-array batch's name: %s", text);
    CHECK(parse(&o, "--batched --pointers", err, sizeof err) == 0 && o.nshapes == 19 &&
              o.shapes[17].batch == 1 && o.shapes[17].pointers && !o.shapes[18].pointers &&
              o.shapes[18].batch == 0,
          "--batched --pointers: %s (%d shapes)", err, o.nshapes);
}

/* --random SEED: the random set, drawn from the seed. */
static void test_random(void)
{
    br_options o, again;
    char err[512], text[96];

    CHECK(parse(&o, "--random 7", err, sizeof err) == 0, "--random 7: %s", err);
    CHECK(o.mode == BR_MODE_BENCH && o.sweep == BR_SWEEP_RANDOM && o.nshapes == 100 &&
              o.random_set && o.random_seed == 7,
          "--random 7: sweep %d, %d shapes, set %d, seed %llu", o.sweep, o.nshapes, o.random_set,
          (unsigned long long)o.random_seed);
    CHECK(o.repeats == 10 && o.warmup == 2 && o.slow_limit == 1024 &&
              o.nvariants == gl_variant_count() - 1 && !o.seed_given,
          "--random timing %d %d %lld, %d rungs; --seed apart", o.repeats, o.warmup,
          (long long)o.slow_limit, o.nvariants);
    int odd_elsewhere = 0, unaligned_elsewhere = 0;
    int64_t smallest = INT64_MAX, largest = 0;
    for (int i = 0; i < o.nshapes; ++i) {
        const br_shape s = o.shapes[i];
        br_shape_text(text, sizeof text, s);
        const double work = 2.0 * (double)s.m * (double)s.n * (double)s.k;
        CHECK(s.m >= 1 && s.m <= 16384 && s.n >= 1 && s.n <= 16384 && s.k >= 1 && s.k <= 16384,
              "--random 7: shape %d (%s) is out of 1 .. 16384", i, text);
        CHECK(work >= 4e6 && work <= 137e9, "--random 7: shape %d (%s) does %g FLOP", i, text,
              work);
        CHECK(!s.col_major && !s.trans_a && !s.trans_b && s.batch == 0 && !s.broadcast_a &&
                  !s.pointers,
              "--random 7: shape %d (%s) is not a single row NN product", i, text);
        if (i % 3 == 2) {
            CHECK(s.m % 64 == 63 && s.n % 64 == 0 && s.k % 64 == 0 && s.n >= 64 && s.k >= 64,
                  "--random 7: shape %d (%s) is not M = 64a - 1 against N, K multiples of 64",
                  i, text);
        } else {
            odd_elsewhere |= s.m % 2 || s.n % 2 || s.k % 2;
            unaligned_elsewhere |= s.m % 64 || s.n % 64 || s.k % 64;
        }
        const int64_t low = s.m < s.n ? (s.m < s.k ? s.m : s.k) : (s.n < s.k ? s.n : s.k);
        const int64_t high = s.m > s.n ? (s.m > s.k ? s.m : s.k) : (s.n > s.k ? s.n : s.k);
        smallest = low < smallest ? low : smallest;
        largest = high > largest ? high : largest;
    }
    CHECK(odd_elsewhere && unaligned_elsewhere,
          "--random 7: the other shapes are all even (%d) or all multiples of 64 (%d)",
          !odd_elsewhere, !unaligned_elsewhere);
    /* log-uniform: the extents reach both ends of 1 .. 16384 */
    CHECK(smallest <= 16 && largest >= 8192, "--random 7: extents only from %lld to %lld",
          (long long)smallest, (long long)largest);
    CHECK(!strcmp(br_random_text(&o, text, sizeof text), "shapes: random set of seed 7 "
                                                          "(--random 7)"),
          "the header's text of --random 7: \"%s\"", text);

    /* One seed, one set; another seed, another. */
    CHECK(parse(&again, "--random 7", err, sizeof err) == 0 && again.nshapes == 100 &&
              !memcmp(again.shapes, o.shapes, sizeof o.shapes),
          "--random 7 twice drew different sets: %s", err);
    CHECK(parse(&again, "--random 8", err, sizeof err) == 0 && again.nshapes == 100 &&
              memcmp(again.shapes, o.shapes, sizeof o.shapes),
          "--random 8 drew --random 7's set: %s", err);
    /* The generator pinned: its first shapes from seed 1 (a change to the
     * draw changes every set a run was named by). */
    CHECK(parse(&o, "--random 1", err, sizeof err) == 0 && o.nshapes == 100, "--random 1: %s",
          err);
    CHECK_SHAPE(o, 0, 14, 644, 245);
    CHECK_SHAPE(o, 1, 192, 1433, 154);
    CHECK_SHAPE(o, 2, 511, 2432, 7232);
    /* Any whole number up to INT64_MAX; shortened; the last one counts. */
    CHECK(parse(&o, "--random 0", err, sizeof err) == 0 && o.nshapes == 100 &&
              o.random_seed == 0,
          "--random 0: %s", err);
    CHECK(parse(&o, "--random 9223372036854775807", err, sizeof err) == 0 && o.nshapes == 100 &&
              o.random_seed == INT64_MAX,
          "--random INT64_MAX: %s", err);
    CHECK(parse(&o, "--ra=3 --random 2026", err, sizeof err) == 0 && o.random_seed == 2026 &&
              !strcmp(br_random_text(&o, text, sizeof text),
                      "shapes: random set of seed 2026 (--random 2026)"),
          "--ra=3 --random 2026: %s; \"%s\"", err, text);

    /* Shapes given replace the set, as they do --batched's; the sweep's
     * timing and goals stay, and the header names no set. */
    CHECK(parse(&o, "--random 5 --mnk 8x8x8 --variants auto", err, sizeof err) == 0 &&
              o.sweep == BR_SWEEP_RANDOM && o.nshapes == 1 && !o.random_set &&
              o.slow_limit == 1024 && o.nvariants == 1 &&
              !*br_random_text(&o, text, sizeof text),
          "--random with --mnk: %s", err);
    CHECK_SHAPE(o, 0, 8, 8, 8);
    CHECK(parse(&o, "--random 5 --k 64", err, sizeof err) == 0 && o.nshapes == 1 &&
              !o.random_set,
          "--random with --k: %s", err);
    CHECK_SHAPE(o, 0, 4096, 4096, 64);
    CHECK(parse(&o, "--random 5 --slow-limit 0 --repeats 3", err, sizeof err) == 0 &&
              o.slow_limit == 0 && o.repeats == 3 && o.nshapes == 100,
          "--random's timing given: %s", err);
    CHECK(parse(&o, "--quick", err, sizeof err) == 0 && !o.random_set &&
              !*br_random_text(&o, text, sizeof text),
          "no --random, nothing in the header: %s", err);
}

/* Each bad command line must fail with a message naming what is wrong. */
static void test_bad_arguments(void)
{
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"--sizes abc", "bad size 'abc'"},
        {"--overhead --csv a.csv", "--overhead prints its own table"},
        {"--shapes --full", "--quick, --full and --shapes exclude each other"},
        {"--overhead --full", "--overhead prints its own table"},
        {"--sizes 0", "bad size '0'"},
        {"--sizes -5", "bad size '-5'"},
        {"--sizes 1.5", "bad size '1.5'"},
        {"--sizes 1,,2", "bad size ''"},
        {"--sizes 1024,", "bad size ''"},
        {"--sizes 99999999", "bad size '99999999'"},
        {"--sizes 4096:128", "bad range '4096:128'"},
        {"--sizes", "--sizes needs a value"},
        {"--sizes --quick", "--sizes needs a value"},
        {"--csv", "--csv needs a value"},
        {"--csv=", "--csv needs a value"},
        {"--mnk 12x", "bad shape '12x'"},
        {"--pointers --mnk 5x6x7", "--pointers: no batched shape to run through pointer arrays"},
        {"--pointers", "--pointers: no batched shape"},
        {"--pointers --overhead --mnk 5x6x7x2", "--pointers times batches in the table"},
        {"--mnk 1x2", "bad shape '1x2'"},
        {"--mnk 1x2x3x4x5", "bad shape '1x2x3x4x5'"},
        /* a batch (4th factor): 1 .. 2^31 - 1, then bA for a broadcast A */
        {"--mnk 64x64x64x0", "--mnk: bad batch '0' in '64x64x64x0' (want an integer 1 .. "
                             "2147483647, then bA for one A against every B"},
        {"--mnk 64x64x64x-5", "bad batch '-5' in '64x64x64x-5'"},
        {"--mnk 64x64x64xabc", "bad batch 'abc'"},
        {"--mnk 64x64x64x1.5", "bad batch '1.5'"},
        {"--mnk 64x64x64x+4", "bad batch '+4'"},
        {"--mnk 64x64x64x2147483648", "bad batch '2147483648'"},
        {"--mnk 64x64x64x99999999999999999999", "bad batch '99999999999999999999'"},
        {"--mnk 64x64x64x", "bad batch '' in '64x64x64x'"},
        {"--mnk 64x64x64xbA", "bad batch 'bA'"},
        {"--mnk 64x64x64x0bA", "bad batch '0' in '64x64x64x0bA'"},
        {"--mnk 64x64x64x8ba", "bad batch '8ba'"},
        {"--mnk 64x64x64x8:colX", "bad form 'colX' after 64x64x64x8"},
        {"--mnk 4096x4096x4096x300", "has an operand over 4294967296 elements in its batch"},
        {"--batched --quick", "--batched and --quick exclude each other"},
        {"--shapes --batched", "--batched and --shapes exclude each other"},
        {"--batched=1", "--batched takes no value"},
        {"--mnk 0x1x1", "bad shape '0x1x1'"},
        {"--mnk 100000x100000x1", "over"},
        {"--mnk 8x9x10:TX", "bad form 'TX'"},
        {"--mnk 8x9x10:", "bad form ''"},
        {"--mnk 8x9x10:colN", "bad form 'colN'"},
        {"--m 1 --m 2", "--m given twice"},
        {"--k x", "bad size 'x'"},
        {"--variants foo", "unknown variant 'foo'"},
        {"--variants naive,", "unknown variant ''"},
        {"--variants 99", "unknown variant id '99'"},
        {"--variants", "--variants needs a value"},
        {"--repeats 0", "--repeats: bad value '0'"},
        {"--warmup -1", "--warmup: bad value '-1'"},
        {"--seed x", "--seed: bad value 'x'"},
        {"--seed 99999999999999999999999", "--seed: bad value"},
        {"--quick --full", "exclude"},
        {"--ncu --profile-once", "exclude"},
        {"--quick=1", "--quick takes no value"},
        {"--version=2", "--version takes no value"},
        {"--bogus", "unknown option '--bogus'"},
        {"-x", "unknown option '-x'"},
        /* ambiguous prefixes: refused, naming the options they could be */
        {"--s 5", "ambiguous option '--s': --skip-without-gpu, --sizes, --slow-limit, "
                  "--seed, --svg, --svg-size or --shapes?"},
        {"--sv 5", "ambiguous option '--sv': --svg or --svg-size?"},
        {"--re 5", "ambiguous option '--re': --repeats or --replot?"},
        {"--re=5", "ambiguous option '--re': --repeats or --replot?"},
        {"--nc", "ambiguous option '--nc': --ncu or --ncu-size?"},
        {"--svgs 5", "unknown option '--svgs'"},
        {"4096", "unexpected argument '4096'"},
        /* removed: the picture is gemmladder.plot's, and the message says so
         * (with a value or none, whole or shortened, named whole) */
        {"--svg x.svg", "--svg was removed: the bench writes --json FILE, and python -m "
                        "gemmladder.plot FILE -o ladder.svg draws the picture (pip install "
                        "'gemmladder[plot]')"},
        {"--quick --json a.json --svg=x.svg", "--svg was removed: "},
        {"--svg", "--svg was removed: "},
        {"--svg-size 512", "--svg-size was removed: "},
        {"--svg-s 512", "--svg-size was removed: "},
        {"--replot run.json", "--replot was removed: "},
        {"--replot", "--replot was removed: "},
        {"--repl run.json --svg a.svg", "--replot was removed: "},
        {"--ncu-size 0", "--ncu-size: bad value"},
        /* --workspace-limit: a whole number of bytes, 0 .. INT64_MAX */
        {"--workspace-limit -1", "--workspace-limit: bad value '-1' (want an integer 0 .. "
                                 "9223372036854775807)"},
        {"--workspace-limit 64M", "--workspace-limit: bad value '64M'"},
        {"--workspace-limit 1.5", "--workspace-limit: bad value '1.5'"},
        {"--workspace-limit 0x10", "--workspace-limit: bad value '0x10'"},
        {"--workspace-limit +1", "--workspace-limit: bad value '+1'"},
        {"--workspace-limit 9223372036854775808", "--workspace-limit: bad value"},
        {"--workspace-limit 99999999999999999999999", "--workspace-limit: bad value"},
        {"--wor x", "--workspace-limit: bad value 'x'"},
        {"--workspace-limit", "--workspace-limit needs a value"},
        {"--workspace-limit=", "--workspace-limit needs a value"},
        {"--wo --quick", "--workspace-limit needs a value"},
        {"--w 0", "ambiguous option '--w': --warmup or --workspace-limit?"},
        {"--ncu --workspace-limit 0", "--workspace-limit does not apply"},
        /* --random SEED: a whole number 0 .. INT64_MAX, a sweep of its own */
        {"--random", "--random needs a value"},
        {"--random -1", "--random: bad value '-1' (want an integer 0 .. 9223372036854775807)"},
        {"--random abc", "--random: bad value 'abc'"},
        {"--random 1.5", "--random: bad value '1.5'"},
        {"--random 9223372036854775808", "--random: bad value '9223372036854775808'"},
        {"--random=", "--random needs a value"},
        {"--random --quick", "--random needs a value"},
        {"--random 5 --batched", "--random and --batched exclude each other"},
        {"--random 5 --quick", "--random and --quick exclude each other"},
        {"--full --random 5", "--random and --full exclude each other"},
        {"--random 5 --shapes", "--random and --shapes exclude each other"},
        {"--random 5 --pointers", "--pointers: no batched shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        br_options o;
        char err[512];
        const int rc = parse(&o, cases[i].args, err, sizeof err);
        CHECK(rc == -1, "'%s' was accepted", cases[i].args);
        CHECK(strstr(err, cases[i].message) != NULL, "'%s' said \"%s\", expected \"%s\"",
              cases[i].args, err, cases[i].message);
        /* one pointer to --help, the tool's "Try 'gemmladder-bench --help'." line */
        CHECK(strstr(err, "--help") == NULL && strchr(err, '\n') == NULL,
              "'%s' said \"%s\": the tool adds the line naming --help", cases[i].args, err);
    }
}

static void test_usage(void)
{
    char *text = NULL;
    CAPTURE(text, br_print_usage(out));
    static const char *const mentioned[] = {"--quick", "--full", "--sizes", "--mnk", "--m LIST",
                                            "--variants", "--csv", "--json", "--svg",
                                            "--svg-size", "--ncu", "--repeats", "--warmup",
                                            "--skip-without-gpu", "127x4096x4096", "77",
                                            "--version", "--replot", "3 no usable",
                                            "python -m gemmladder.plot RUN.json -o ladder.svg",
                                            "were removed: they stop with status 2",
                                            "--workspace-limit BYTES", "--batched",
                                            "64x64x64x4096", "256x256x256x256bA",
                                            "batch of 1", "form,batch,broadcast_a",
                                            "--pointers", "cublasSgemmBatched",
                                            "cublasSgemmStridedBatched",
                                            "cublasDgemmStridedBatched",
                                            "M*N*K*batch", "--random SEED",
                                            "log-uniform in 1 .. 16384",
                                            "4e6 .. 137e9 FLOP", "M = 64a - 1",
                                            "random set of seed",
                                            BR_NCU_SECTORS, BR_NCU_REQUESTS};
    for (size_t i = 0; i < sizeof mentioned / sizeof mentioned[0]; ++i)
        CHECK(strstr(text, mentioned[i]) != NULL, "--help does not mention %s", mentioned[i]);
    free(text);
}

/* ---- the writers ------------------------------------------------------------- */

/* The fixed results: three shapes, every status, awkward characters in the
 * device name. */
static br_result fixture[32];
static size_t fixture_count;

static void add_result(int id, int64_t m, int64_t n, int64_t k, double ms, double err,
                       br_status status)
{
    br_result *r = &fixture[fixture_count++];
    *r = (br_result){.variant_id = id, .shape = {m, n, k}, .runtime_ms = ms, .gflops = NAN,
                     .gbps = NAN, .pct_of_reference = NAN, .rel_error = err, .status = status};
    snprintf(r->variant, sizeof r->variant, "%s", gl_variant_name((gl_variant_t)id));
    br_fill_rates(r);
}

/* A result of a batch of `batch` products (bA: one A for all of them). */
static void add_batch(int id, int64_t m, int64_t n, int64_t k, int64_t batch, int broadcast_a,
                      double ms, br_status status)
{
    add_result(id, m, n, k, ms, status == BR_OK ? 1e-7 : INFINITY, status);
    br_result *r = &fixture[fixture_count - 1];
    r->shape.batch = batch, r->shape.broadcast_a = broadcast_a;
    br_fill_rates(r);
}

static int same_shape_of(br_shape a, br_shape b)
{
    return a.m == b.m && a.n == b.n && a.k == b.k && a.col_major == b.col_major &&
           a.trans_a == b.trans_a && a.trans_b == b.trans_b && a.batch == b.batch &&
           a.broadcast_a == b.broadcast_a && a.pointers == b.pointers;
}

/* % of cuBLAS as the tool computes it: only where both ran correctly, at
 * the same shape (form and batch included). */
static void fill_pct(void)
{
    for (size_t i = 0; i < fixture_count; ++i)
        for (size_t j = 0; j < fixture_count; ++j)
            if (fixture[j].variant_id == 0 && fixture[j].status == BR_OK &&
                fixture[i].status == BR_OK && same_shape_of(fixture[i].shape, fixture[j].shape))
                fixture[i].pct_of_reference = 100.0 * fixture[i].gflops / fixture[j].gflops;
}

static br_report make_fixture(void)
{
    static const br_status at_1024[9] = {BR_OK, BR_OK, BR_OK, BR_WRONG, BR_OK,
                                         BR_OK, BR_OK, BR_OK, BR_OK};
    static const br_status at_4096[9] = {BR_OK, BR_OK, BR_WRONG, BR_FAILED, BR_UNAVAILABLE,
                                         BR_OK, BR_OK, BR_OK, BR_SKIPPED};
    fixture_count = 0;
    for (int i = 0; i < 9; ++i) {
        const double ms = 0.05 * (i == 0 ? 1 : 9 - i + 1);
        add_result(i, 1024, 1024, 1024, at_1024[i] == BR_OK ? ms : NAN,
                   at_1024[i] == BR_WRONG ? INFINITY : 1e-7 * (i + 1), at_1024[i]);
    }
    for (int i = 0; i < 9; ++i) {
        const double ms = i == 0 ? 2.0 : i == 1 ? 200.0 : 2.0 / (0.1 * i);
        const int ran = at_4096[i] == BR_OK;
        add_result(i, 4096, 4096, 4096, ran ? ms : NAN,
                   at_4096[i] == BR_WRONG ? 3.2e-2 : ran ? 2e-7 : NAN, at_4096[i]);
    }
    add_result(0, 127, 4096, 4096, 0.1, 1e-7, BR_OK);
    add_result(8, 127, 4096, 4096, 0.125, 1e-7, BR_OK);
    /* Batches: many small products, and one A against a batch of B. */
    add_batch(0, 64, 64, 64, 4096, 0, 1.0, BR_OK);
    add_batch(8, 64, 64, 64, 4096, 0, 1.25, BR_OK);
    add_batch(0, 256, 256, 256, 256, 1, 1.0, BR_OK);
    add_batch(8, 256, 256, 256, 256, 1, NAN, BR_WRONG);
    /* The first batch again through pointer arrays. */
    add_batch(0, 64, 64, 64, 4096, 0, 1.0, BR_OK);
    fixture[fixture_count - 1].shape.pointers = 1;
    add_batch(8, 64, 64, 64, 4096, 0, 1.5, BR_OK);
    fixture[fixture_count - 1].shape.pointers = 1;
    fill_pct();
    return (br_report){.device = "NVIDIA \"Test\" <GPU> & co (sm_90); driver 13.0",
                       .device_name = "NVIDIA \"Test\" <GPU> & co", .date = "2026-11-21T10:00:00Z",
                       .version = "1.0.0", .repeats = 10, .warmup = 2, .seed = 42,
                       .results = fixture, .count = fixture_count};
}


static void test_rates_and_staircase(void)
{
    br_result r = {.shape = {4096, 4096, 4096}, .runtime_ms = 2.0};
    br_fill_rates(&r);
    CHECK(fabs(r.gflops - 68719.476736) < 1e-6, "gflops %.6f", r.gflops);
    CHECK(fabs(r.gbps - 100.663296) < 1e-6, "gbps %.6f", r.gbps);
    r.runtime_ms = NAN;
    br_fill_rates(&r);
    CHECK(isnan(r.gflops) && isnan(r.gbps), "rates of an untimed result");
    /* A batch: its work and each of its matrices once; a broadcast A once. */
    br_result b = {.shape = BR_MNKB(64, 64, 64, 4096), .runtime_ms = 1.0};
    br_fill_rates(&b);
    CHECK(fabs(b.gflops - 2147.483648) < 1e-6 && fabs(b.gbps - 201.326592) < 1e-6,
          "a batch's rates: %.6f GFLOP/s, %.6f GB/s", b.gflops, b.gbps);
    b = (br_result){.shape = BR_MNKB_A(256, 256, 256, 256), .runtime_ms = 1.0};
    br_fill_rates(&b);
    CHECK(fabs(b.gflops - 8589.934592) < 1e-6 && fabs(b.gbps - 134.479872) < 1e-6,
          "a broadcast batch's rates: %.6f GFLOP/s, %.6f GB/s", b.gflops, b.gbps);
    b = (br_result){.shape = BR_MNKB(1024, 1024, 1024, 1), .runtime_ms = 1.0};
    br_result single = {.shape = BR_MNK(1024, 1024, 1024), .runtime_ms = 1.0};
    br_fill_rates(&b);
    br_fill_rates(&single);
    CHECK(b.gflops == single.gflops && b.gbps == single.gbps,
          "a batch of 1's rates are the single product's");

    const br_report rep = make_fixture();
    br_shape s;
    CHECK(br_staircase_shape(&rep, 0, &s) == 0 && s.m == 4096 && s.k == 4096,
          "default staircase %lld", (long long)s.m);
    CHECK(br_staircase_shape(&rep, 1024, &s) == 0 && s.m == 1024, "--svg-size 1024: %lld",
          (long long)s.m);
    /* Without square shapes: the one with the most work. */
    const br_result odd[2] = {{.shape = {127, 4096, 4096}}, {.shape = {4096, 127, 8192}}};
    const br_report odd_rep = {.results = odd, .count = 2};
    CHECK(br_staircase_shape(&odd_rep, 0, &s) == 0 && s.k == 8192, "no squares: %lld", (long long)s.k);
    /* A square shape wins over more work elsewhere. */
    const br_result mixed[2] = {{.shape = {8192, 8192, 127}}, {.shape = {64, 64, 64}}};
    const br_report mixed_rep = {.results = mixed, .count = 2};
    CHECK(br_staircase_shape(&mixed_rep, 0, &s) == 0 && s.m == 64, "square wins: %lld", (long long)s.m);
    const br_report empty = {0};
    CHECK(br_staircase_shape(&empty, 0, &s) == -1, "no results");

    CHECK(!strcmp(br_status_name(BR_OK), "ok") && !strcmp(br_status_name(BR_WRONG), "wrong") &&
              !strcmp(br_status_name(BR_FAILED), "failed") &&
              !strcmp(br_status_name(BR_UNAVAILABLE), "unavailable") &&
              !strcmp(br_status_name(BR_SKIPPED), "skipped"),
          "status names");
}

static void test_table(void)
{
    const br_report rep = make_fixture();
    char *text = NULL;
    CAPTURE(text, {
        br_table_header(out);
        for (size_t i = 0; i < rep.count; ++i)
            br_table_row(out, &rep.results[i]);
        br_write_summary(out, &rep, 0);
    });
    CHECK(count_of(text, "\n") == (int)rep.count + 2, "table has %d lines", count_of(text, "\n"));
    CHECK(strstr(text, "GFLOP/s") && strstr(text, "% cuBLAS") && strstr(text, "rel.err") &&
              strstr(text, "status") && strstr(text, " class "),
          "table header: %s", text);
    CHECK(strstr(text, " 0 cublas        FP32    4096   4096   4096 row NN     2.0000    68719.5  "
                       "  100.7    100.0"),
          "cuBLAS row, with its precision class: %s", text);
    CHECK(strstr(text, "3.2e-02  wrong"), "wrong row shows its error: %s", text);
    CHECK(strstr(text, "inf  wrong"), "diverged row shows inf: %s", text);
    /* Once in the table, once in the summary (which says "(failed)"). */
    CHECK(count_of(text, "unavailable") == 2 && count_of(text, "skipped") == 2 &&
              count_of(text, " failed\n") == 1,
          "statuses in the table");
    CHECK(strstr(text, "% of cuBLAS at 4096x4096x4096: naive 1.0, coalesced (wrong), shared "
                       "(failed), blocktile_1d (unavailable), blocktile_2d 50.0"),
          "summary: %s", text);
    free(text);
}

/* A run with batches: the table's batch column, and the summary's shape. */
static void test_batched_table(void)
{
    const br_report rep = make_fixture();
    char *text = NULL;
    CAPTURE(text, {
        br_table_header_batched(out, 1);
        for (size_t i = 0; i < rep.count; ++i)
            br_table_row_batched(out, &rep.results[i], 1);
        br_write_summary(out, &rep, 0);
    });
    CHECK(count_of(text, "\n") == (int)rep.count + 2, "table has %d lines", count_of(text, "\n"));
    CHECK(strstr(text, "id variant       class      M      N      K form        batch    time ms "
                       "   GFLOP/s     GB/s % cuBLAS   rel.err  status\n"),
          "header with the batch column: %s", text);
    CHECK(strstr(text, "\n 0 cublas        FP32    4096   4096   4096 row NN          -     2.0000 "
                       "   68719.5    100.7    100.0   2.0e-07  ok\n"),
          "a single product: '-' for its batch: %s", text);
    CHECK(strstr(text, "\n 0 cublas        FP32      64     64     64 row NN       4096     1.0000 "
                       "    2147.5    201.3    100.0   1.0e-07  ok\n"),
          "a batch of 4096: %s", text);
    CHECK(strstr(text, "\n 8 warptile      FP32     256    256    256 row NN     256 bA          - "
                       "         -        -        -       inf  wrong\n"),
          "a broadcast batch: %s", text);
    CHECK(strstr(text, "\n 8 warptile      FP32      64     64     64 row NN   4096 ptr     1.5000 "
                       "    1431.7    134.2     66.7   1.0e-07  ok\n"),
          "a batch through pointer arrays: %s", text);
    /* Every line's columns where the header has them. */
    const char *header_end = strchr(text, '\n');
    const int status_at = (int)(strstr(text, "status") - text);
    for (const char *line = header_end + 1; *line && strncmp(line, "% of", 4); ) {
        const char *end = strchr(line, '\n');
        CHECK(end - line > status_at && line[status_at - 1] == ' ' && line[status_at - 2] == ' ' &&
                  line[status_at] != ' ',
              "a row's status is not under the header's: %.*s", (int)(end - line), line);
        line = end + 1;
    }
    CHECK(strstr(text, "% of cuBLAS at 4096x4096x4096: naive 1.0,"), "summary: %s", text);
    free(text);
    /* Batches alone: the summary's shape is the square batch with the most
     * work, named with its batch. */
    CHECK(rep.count == 26 && rep.results[20].shape.batch == 4096, "the fixture's batches");
    const br_report batches = {.results = rep.results + 20, .count = 4};
    CAPTURE(text, br_write_summary(out, &batches, 0));
    CHECK(!strcmp(text, "% of cuBLAS at 256x256x256 x256 bA: warptile (wrong)\n"), "summary: %s",
          text);
    free(text);

    /* Without the column, the rows are the table of single products. */
    char *plain = NULL, *same = NULL;
    CAPTURE(plain, {
        br_table_header(out);
        br_table_row(out, &rep.results[0]);
    });
    CAPTURE(same, {
        br_table_header_batched(out, 0);
        br_table_row_batched(out, &rep.results[0], 0);
    });
    CHECK(!strcmp(plain, same) && !strstr(plain, "batch"), "the table without the column: %s",
          plain);
    free(plain);
    free(same);
}

/* The summary compares each odd shape with its nearest multiple of 128. */
static void test_odd_shapes(void)
{
    fixture_count = 0;
    add_result(0, 1024, 1024, 1024, 0.10, 1e-7, BR_OK);
    add_result(6, 1024, 1024, 1024, 0.20, 1e-7, BR_OK);
    add_result(8, 1024, 1024, 1024, 0.10, 1e-7, BR_OK);
    add_result(0, 1000, 1000, 1000, 0.10, 1e-7, BR_OK);
    add_result(6, 1000, 1000, 1000, 0.20, 1e-7, BR_OK);    /* 0.93 of its speed at 1024 */
    add_result(8, 1000, 1000, 1000, NAN, NAN, BR_SKIPPED); /* left out of the line */
    add_result(0, 4097, 4097, 4097, 1.0, 1e-7, BR_OK);     /* 4096 not run: no line */
    add_result(0, 127, 4096, 4096, 0.10, 1e-7, BR_OK);
    add_result(0, 128, 4096, 4096, 0.10, 1e-7, BR_OK);
    const br_report rep = {.results = fixture, .count = fixture_count};
    char *text = NULL;
    CAPTURE(text, br_write_summary(out, &rep, 0));
    CHECK(strstr(text, "GFLOP/s at 1000x1000x1000 over 1024x1024x1024: cublas 0.93, vectorized 0.93\n"),
          "1000 against 1024: %s", text);
    CHECK(strstr(text, "GFLOP/s at 127x4096x4096 over 128x4096x4096: cublas 0.99\n"),
          "127 against 128: %s", text);
    CHECK(!strstr(text, "GFLOP/s at 4097") && !strstr(text, "warptile 0") &&
              count_of(text, "GFLOP/s at") == 2,
          "only shapes and rungs measured on both sides: %s", text);
    free(text);
}

/* Auto against the engine's goals: each line, with shapes under a goal,
 * a form too slow, a rung faster than auto, a wrong result, and nothing at
 * all without auto. */
static void add_form(int id, int64_t m, int64_t n, int64_t k, int col, int ta, int tb, double ms,
                     br_status status)
{
    add_result(id, m, n, k, ms, status == BR_OK ? 1e-7 : INFINITY, status);
    br_shape *s = &fixture[fixture_count - 1].shape;
    s->col_major = col, s->trans_a = ta, s->trans_b = tb;
}

static void test_goals(void)
{
    const int AUTO = GL_VARIANT_AUTO, WARP = GL_VARIANT_WARPTILE, SHARED = GL_VARIANT_SHARED;
    fixture_count = 0;
    add_form(0, 1024, 1024, 32768, 0, 0, 0, 1.0, BR_OK);
    add_form(AUTO, 1024, 1024, 32768, 0, 0, 0, 1.125, BR_OK); /* 88.9: under */
    add_form(WARP, 1024, 1024, 32768, 0, 0, 0, 1.5, BR_OK);
    add_form(0, 1, 4096, 4096, 0, 0, 0, 0.025, BR_OK);
    add_form(AUTO, 1, 4096, 4096, 0, 0, 0, 0.0253, BR_OK); /* 98.8: under 100 */
    add_form(WARP, 1, 4096, 4096, 0, 0, 0, 0.14, BR_OK);
    add_form(0, 4096, 1, 4096, 0, 0, 0, 0.03, BR_OK);
    add_form(AUTO, 4096, 1, 4096, 0, 0, 0, 0.026, BR_OK); /* no rung ran: not compared */
    add_form(0, 4096, 4096, 4096, 0, 0, 0, 2.65, BR_OK);
    add_form(AUTO, 4096, 4096, 4096, 0, 0, 0, 2.94, BR_OK);
    add_form(WARP, 4096, 4096, 4096, 0, 0, 0, 2.93, BR_OK); /* faster, but within 2% */
    add_form(0, 4096, 4096, 4096, 0, 0, 1, 2.72, BR_OK);
    add_form(AUTO, 4096, 4096, 4096, 0, 0, 1, 3.04, BR_OK); /* +3.4% on row NN */
    add_form(0, 4096, 4096, 4096, 0, 1, 1, 2.78, BR_OK);
    add_form(AUTO, 4096, 4096, 4096, 0, 1, 1, 3.2, BR_OK); /* +8.8%: over */
    add_form(0, 4096, 4096, 4096, 1, 0, 0, 2.66, BR_OK);
    add_form(AUTO, 4096, 4096, 4096, 1, 0, 0, 2.93, BR_OK);
    add_form(0, 128, 128, 128, 0, 0, 0, 0.0096, BR_OK);
    add_form(AUTO, 128, 128, 128, 0, 0, 0, 0.00705, BR_OK);
    add_form(SHARED, 128, 128, 128, 0, 0, 0, 0.00675, BR_OK); /* 4.4% faster than auto */
    add_form(0, 2000, 2000, 100, 0, 0, 0, 0.1, BR_OK);
    add_form(AUTO, 2000, 2000, 100, 0, 0, 0, NAN, BR_WRONG);
    double log_sum = 0.0;
    int timed = 0;
    for (size_t i = 0; i < fixture_count; ++i)
        for (size_t j = 0; j < fixture_count; ++j) {
            br_result *a = &fixture[i];
            const br_result *c = &fixture[j];
            if (c->variant_id == 0 && a->status == BR_OK && a->shape.m == c->shape.m &&
                a->shape.n == c->shape.n && a->shape.k == c->shape.k &&
                a->shape.col_major == c->shape.col_major && a->shape.trans_a == c->shape.trans_a &&
                a->shape.trans_b == c->shape.trans_b) {
                a->pct_of_reference = 100.0 * a->gflops / c->gflops;
                if (a->variant_id == AUTO)
                    log_sum += log(a->pct_of_reference), ++timed;
            }
        }
    const br_report rep = {.results = fixture, .count = fixture_count};
    char *text = NULL;
    CAPTURE(text, br_write_goals(out, &rep, 2900.0));
    CHECK(strstr(text, "auto against the engine's goals (% of cuBLAS in this run):\n"),
          "goals header: %s", text);
    CHECK(strstr(text, "  at least 90 on every shape: 5 of 9; under: 1024x1024x32768 88.9, "
                       "4096x4096x4096 row NT 89.5, 4096x4096x4096 row TT 86.9, 2000x2000x100 "
                       "(wrong)\n"),
          "every shape: %s", text);
    char want[256];
    snprintf(want, sizeof want, "  at least 95 on the geometric mean: %.1f over 8 shapes\n",
             exp(log_sum / timed));
    CHECK(timed == 8 && strstr(text, want), "geometric mean (want %s): %s", want, text);
    const double share_1 = 100.0 * 4.0 * (4096 + 4096.0 * 4096 + 4096) / (0.0253 * 1e6) / 2900.0;
    const double share_2 = 100.0 * 4.0 * (4096 + 4096.0 * 4096 + 4096) / (0.026 * 1e6) / 2900.0;
    snprintf(want, sizeof want,
             "  at least 100 where M or N is 1: 1x4096x4096 98.8 (%.0f%% of the copy's GB/s) "
             "under, 4096x1x4096 115.4 (%.0f%% of the copy's GB/s)\n",
             share_1, share_2);
    CHECK(strstr(text, want), "vectors (want %s): %s", want, text);
    CHECK(strstr(text, "  within 5% of the row NN time at the same size: 4096x4096x4096 row NT "
                       "+3.4%, 4096x4096x4096 row TT +8.8% over, 4096x4096x4096 col NN -0.3%\n"),
          "forms: %s", text);
    CHECK(strstr(text, "  as fast as the fastest rung, within 2%: 3 of 4; slower: 128x128x128 "
                       "(shared 4.4% faster)\n"),
          "rungs: %s", text);
    CHECK(count_of(text, "\n") == 6, "six lines: %s", text);
    free(text);

    /* Without a copy's rate, no share of it; without auto, nothing. */
    CAPTURE(text, br_write_goals(out, &rep, 0.0));
    CHECK(!strstr(text, "copy's") && strstr(text, "1x4096x4096 98.8 under"), "no copy: %s", text);
    free(text);
    const br_report ladder = make_fixture();
    CAPTURE(text, br_write_goals(out, &ladder, 2900.0));
    CHECK(!strcmp(text, ""), "no auto, no goals: %s", text);
    free(text);
}

/* Auto against the goals for batches (--batched): every batched shape,
 * the geometric mean, a batch of 1 against the single call; nothing
 * without auto or without batches. */
static void test_batch_goals(void)
{
    const int AUTO = GL_VARIANT_AUTO, WARP = GL_VARIANT_WARPTILE;
    fixture_count = 0;
    add_batch(0, 64, 64, 64, 4096, 0, 1.0, BR_OK);
    add_batch(AUTO, 64, 64, 64, 4096, 0, 1.05, BR_OK); /* 95.2 */
    add_batch(WARP, 64, 64, 64, 4096, 0, 0.5, BR_OK);  /* faster: no line for it here */
    add_batch(0, 128, 128, 64, 768, 0, 1.0, BR_OK);
    add_batch(AUTO, 128, 128, 64, 768, 0, 1.2, BR_OK); /* 83.3: under */
    add_batch(0, 256, 256, 256, 256, 1, 1.0, BR_OK);
    add_batch(AUTO, 256, 256, 256, 256, 1, 0.9, BR_OK); /* 111.1 */
    add_batch(0, 4096, 64, 4096, 8, 0, 1.0, BR_OK);
    add_batch(AUTO, 4096, 64, 4096, 8, 0, NAN, BR_WRONG);
    add_batch(0, 1024, 1024, 1024, 1, 0, 1.0, BR_OK);
    add_batch(AUTO, 1024, 1024, 1024, 1, 0, 1.03, BR_OK); /* 97.1; +3.0% on the single call */
    add_batch(0, 1024, 1024, 1024, 0, 0, 0.99, BR_OK);
    add_batch(AUTO, 1024, 1024, 1024, 0, 0, 1.0, BR_OK); /* a single product: not a batched shape */
    add_batch(0, 512, 512, 512, 1, 0, 0.1, BR_OK);
    add_batch(AUTO, 512, 512, 512, 1, 0, 0.11, BR_OK); /* 90.9; +10.0%: over */
    add_batch(0, 512, 512, 512, 0, 0, 0.1, BR_OK);
    add_batch(AUTO, 512, 512, 512, 0, 0, 0.1, BR_OK);
    add_batch(0, 32, 32, 32, 1, 0, 0.01, BR_OK); /* a batch of 1 without its single product */
    add_batch(AUTO, 32, 32, 32, 1, 0, 0.01, BR_OK);
    /* Pointer-array twins: neither every shape's nor the mean's, each
     * against its strided batch's time. */
    const struct {
        int id;
        int64_t m, n, k, batch;
        double ms;
    } twins[] = {{0, 64, 64, 64, 4096, 1.03},  {AUTO, 64, 64, 64, 4096, 1.1},
                 {0, 128, 128, 64, 768, 1.0},  {AUTO, 128, 128, 64, 768, 1.32},
                 {AUTO, 8, 8, 8, 2, 1.0}}; /* without its strided batch: no word */
    for (size_t i = 0; i < sizeof twins / sizeof twins[0]; ++i) {
        add_batch(twins[i].id, twins[i].m, twins[i].n, twins[i].k, twins[i].batch, 0, twins[i].ms,
                  BR_OK);
        fixture[fixture_count - 1].shape.pointers = 1;
    }
    fill_pct();
    double log_sum = 0.0;
    int timed = 0;
    for (size_t i = 0; i < fixture_count; ++i)
        if (fixture[i].variant_id == AUTO && fixture[i].shape.batch > 0 &&
            !fixture[i].shape.pointers && fixture[i].status == BR_OK)
            log_sum += log(fixture[i].pct_of_reference), ++timed;
    const br_report rep = {.results = fixture, .count = fixture_count};
    char *text = NULL;
    CAPTURE(text, br_write_batch_goals(out, &rep));
    CHECK(strstr(text, "auto against the goals for batches (% of cuBLAS's strided-batched call "
                       "in this run):\n"),
          "header: %s", text);
    CHECK(strstr(text, "  at least 90 on every batched shape: 5 of 7; under: 128x128x64 x768 "
                       "83.3, 4096x64x4096 x8 (wrong)\n"),
          "every batched shape: %s", text);
    char want[256];
    snprintf(want, sizeof want, "  at least 100 on the geometric mean: %.1f over 6 shapes\n",
             exp(log_sum / timed));
    CHECK(timed == 6 && strstr(text, want), "geometric mean (want %s): %s", want, text);
    CHECK(strstr(text, "  a batch of 1 within 5% of the single call's time: 1024x1024x1024 +3.0% "
                       "(cublas +1.0%), 512x512x512 +10.0% over (cublas +0.0%)\n"),
          "a batch of 1: %s", text);
    CHECK(strstr(text, "  the pointer-array call within 5% of the strided call's time: 64x64x64 "
                       "x4096 +4.8% (cublas +3.0%), 128x128x64 x768 +10.0% over (cublas +0.0%)\n"),
          "pointer arrays: %s", text);
    CHECK(count_of(text, "\n") == 5, "five lines: %s", text);
    free(text);

    /* The single call was wrong: said so, not compared. */
    fixture[12].status = BR_WRONG;
    fixture[12].runtime_ms = NAN;
    CAPTURE(text, br_write_batch_goals(out, &rep));
    CHECK(strstr(text, "single call's time: 1024x1024x1024 (wrong), 512x512x512 +10.0% over"),
          "a wrong single call: %s", text);
    free(text);

    /* No auto, or no batch: nothing (the --shapes goals are br_write_goals'). */
    const br_report ladder = make_fixture();
    CAPTURE(text, br_write_batch_goals(out, &ladder));
    CHECK(!strcmp(text, ""), "no auto, no goals: %s", text);
    free(text);
    fixture_count = 0;
    add_batch(0, 1024, 1024, 1024, 0, 0, 1.0, BR_OK);
    add_batch(AUTO, 1024, 1024, 1024, 0, 0, 1.0, BR_OK);
    fill_pct();
    const br_report singles = {.results = fixture, .count = fixture_count};
    CAPTURE(text, br_write_batch_goals(out, &singles));
    CHECK(!strcmp(text, ""), "no batch, no goals: %s", text);
    free(text);
}

/* Auto against the goals for a random set (--random): every shape, the
 * geometric mean; nothing without auto. */
static void test_random_goals(void)
{
    const int AUTO = GL_VARIANT_AUTO, WARP = GL_VARIANT_WARPTILE;
    fixture_count = 0;
    add_result(0, 14, 644, 245, 0.01, 1e-7, BR_OK);
    add_result(AUTO, 14, 644, 245, 0.008, 1e-7, BR_OK); /* 125.0 */
    add_result(WARP, 14, 644, 245, 0.02, 1e-7, BR_OK);  /* not auto: no word */
    add_result(0, 511, 2432, 7232, 1.0, 1e-7, BR_OK);
    add_result(AUTO, 511, 2432, 7232, 1.2, 1e-7, BR_OK); /* 83.3: under */
    add_result(0, 1723, 16157, 415, 1.0, 1e-7, BR_OK);
    add_result(AUTO, 1723, 16157, 415, 1.0, 1e-7, BR_OK); /* 100.0 */
    add_result(0, 296, 3, 7924, 0.1, 1e-7, BR_OK);
    add_result(AUTO, 296, 3, 7924, NAN, INFINITY, BR_WRONG);
    fill_pct();
    const br_report rep = {.results = fixture, .count = fixture_count};
    char *text = NULL;
    CAPTURE(text, br_write_random_goals(out, &rep));
    char want[512];
    snprintf(want, sizeof want,
             "auto against the goals for a random set (%% of cuBLAS in this run):\n"
             "  at least 90 on every shape: 2 of 4; under: 511x2432x7232 83.3, 296x3x7924 "
             "(wrong)\n"
             "  at least 100 on the geometric mean: %.1f over 3 shapes\n",
             exp((log(125.0) + log(100.0 / 1.2) + log(100.0)) / 3.0));
    CHECK(!strcmp(text, want), "random goals (want %s): %s", want, text);
    free(text);

    /* Auto never timed: the shapes under, no mean. */
    fixture[4].status = BR_FAILED;
    fixture[4].runtime_ms = fixture[4].pct_of_reference = NAN;
    fixture[1].status = fixture[6].status = BR_UNAVAILABLE;
    fixture[1].runtime_ms = fixture[6].runtime_ms = NAN;
    fixture[1].pct_of_reference = fixture[6].pct_of_reference = NAN;
    CAPTURE(text, br_write_random_goals(out, &rep));
    CHECK(strstr(text, "  at least 90 on every shape: 0 of 4; under: 14x644x245 (unavailable), "
                       "511x2432x7232 (failed), 1723x16157x415 (unavailable), 296x3x7924 "
                       "(wrong)\n") &&
              !strstr(text, "geometric mean") && count_of(text, "\n") == 2,
          "auto never timed: %s", text);
    free(text);

    /* No auto: nothing. */
    const br_report ladder = make_fixture();
    CAPTURE(text, br_write_random_goals(out, &ladder));
    CHECK(!strcmp(text, ""), "no auto, no goals: %s", text);
    free(text);
}

static const char *csv_header =
    "provider,variant_id,variant,m,n,k,runtime_ms,gflops,gbps,pct_of_reference,rel_error,status,"
    "form,batch,broadcast_a,pointers\n";

static void test_csv(void)
{
    const br_report rep = make_fixture();
    char *text = NULL;
    int rc = 0;
    CAPTURE(text, rc = br_write_csv(out, &rep));
    CHECK(rc == 0, "br_write_csv returned %d", rc);
    CHECK(!strncmp(text, csv_header, strlen(csv_header)), "CSV header: %.120s", text);
    CHECK(count_of(text, "\n") == (int)rep.count + 1, "CSV has %d lines, expected %d",
          count_of(text, "\n"), (int)rep.count + 1);
    /* Every line has the header's 16 fields. */
    int line_no = 0;
    for (const char *p = text; *p; ++line_no) {
        const char *end = strchr(p, '\n');
        int commas = 0;
        for (const char *q = p; q < end; ++q)
            commas += *q == ',';
        CHECK(commas == 15, "CSV line %d has %d fields", line_no, commas + 1);
        p = end + 1;
    }
    CHECK(strstr(text,
                 "\ncublas,0,cublas,4096,4096,4096,2,68719.5,100.663,100,2.000e-07,ok,row NN,0,0,0\n"),
          "cuBLAS row: %s", text);
    CHECK(strstr(text, "\ngemmladder,2,coalesced,4096,4096,4096,,,,,3.200e-02,wrong,row NN,0,0,0\n"),
          "wrong row: empty measurements, error kept");
    CHECK(strstr(text, "\ngemmladder,3,shared,1024,1024,1024,,,,,inf,wrong,row NN,0,0,0\n"),
          "inf error");
    CHECK(strstr(text,
                 "\ngemmladder,4,blocktile_1d,4096,4096,4096,,,,,,unavailable,row NN,0,0,0\n"),
          "unavailable row");
    /* Batches: the batch, and whether A is broadcast. */
    CHECK(strstr(text, "\ncublas,0,cublas,64,64,64,1,2147.48,201.327,100,1.000e-07,ok,row NN,4096,"
                       "0,0\n"),
          "a batch's row: %s", text);
    CHECK(strstr(text, "\ngemmladder,8,warptile,64,64,64,1.25,1717.99,161.061,80,1.000e-07,ok,"
                       "row NN,4096,0,0\n"),
          "a batch's row, %% of cuBLAS's batched call: %s", text);
    CHECK(strstr(text, "\ncublas,0,cublas,256,256,256,1,8589.93,134.48,100,1.000e-07,ok,row NN,"
                       "256,1,0\n") &&
              strstr(text, "\ngemmladder,8,warptile,256,256,256,,,,,inf,wrong,row NN,256,1,0\n"),
          "a broadcast batch's rows: %s", text);
    CHECK(strstr(text, "\ngemmladder,8,warptile,127,4096,4096,0.125,"), "odd shape row");
    CHECK(strstr(text, "\ngemmladder,8,warptile,64,64,64,1.5,1431.66,134.218,66.6667,1.000e-07,"
                       "ok,row NN,4096,0,1\n"),
          "a pointer-array batch's row: %s", text);
    free(text);
}

static void test_json(void)
{
    const br_report rep = make_fixture();
    char *text = NULL;
    int rc = 0;
    CAPTURE(text, rc = br_write_json(out, &rep));
    CHECK(rc == 0, "br_write_json returned %d", rc);
    CHECK(json_valid(text), "JSON does not parse:\n%s", text);
    CHECK(strstr(text, "\"device\": \"NVIDIA \\\"Test\\\" <GPU> & co (sm_90); driver 13.0\""),
          "device string escaped");
    CHECK(strstr(text, "\"date\": \"2026-11-21T10:00:00Z\""), "date");
    CHECK(strstr(text, "\"gemmladder_version\": \"1.0.0\"") && strstr(text, "\"seed\": 42") &&
              strstr(text, "\"repeats\": 10"),
          "settings");
    CHECK(count_of(text, "\"status\": ") == (int)rep.count, "%d results",
          count_of(text, "\"status\": "));
    static const char *const keys[] = {"provider", "variant_id", "variant", "m", "n", "k",
                                       "runtime_ms", "gflops", "gbps", "pct_of_reference",
                                       "rel_error", "status", "form", "batch",
                                       "broadcast_a", "pointers"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"%s\": ", keys[i]);
        CHECK(count_of(text, quoted) == (int)rep.count, "key %s appears %d times", keys[i],
              count_of(text, quoted));
    }
    CHECK(strstr(text, "\"variant\": \"coalesced\", \"m\": 4096, \"n\": 4096, \"k\": 4096, "
                       "\"runtime_ms\": null, \"gflops\": null, \"gbps\": null, "
                       "\"pct_of_reference\": null, \"rel_error\": 3.200e-02, \"status\": \"wrong\""),
          "a wrong result in JSON");
    CHECK(!strstr(text, "nan") && !strstr(text, "inf"), "JSON holds nan or inf");
    CHECK(strstr(text, "\"status\": \"ok\", \"form\": \"row NN\", \"batch\": 0, "
                       "\"broadcast_a\": false, \"pointers\": false}"),
          "a single product's batch in JSON: %s", text);
    CHECK(strstr(text, "\"variant\": \"cublas\", \"m\": 64, \"n\": 64, \"k\": 64, ") &&
              strstr(text, "\"form\": \"row NN\", \"batch\": 4096, \"broadcast_a\": false, "
                       "\"pointers\": false}"),
          "a batch in JSON: %s", text);
    CHECK(count_of(text, "\"batch\": 4096, \"broadcast_a\": false, \"pointers\": true}") == 2,
          "a pointer-array batch in JSON: %s", text);
    CHECK(count_of(text, "\"batch\": 256, \"broadcast_a\": true, \"pointers\": false}") == 2,
          "a broadcast batch in JSON: %s", text);
    free(text);

    const br_report empty = {.device = "d\x01\n"};
    CAPTURE(text, rc = br_write_json(out, &empty));
    CHECK(json_valid(text), "empty report's JSON does not parse:\n%s", text);
    CHECK(strstr(text, "\"d\\u0001\\u000a\""), "control characters escaped: %s", text);
    free(text);
}

/* ---- ncu's CSV ------------------------------------------------------------------ */

static void test_ncu(const char *fixture_path)
{
    br_ncu_loads naive, coalesced, absent;
    FILE *f = fopen(fixture_path, "r");
    CHECK(f != NULL, "cannot open %s", fixture_path);
    if (f) {
        CHECK(br_parse_ncu_csv(f, "naive_kernel", &naive) == 0, "details fixture");
        rewind(f);
        CHECK(br_parse_ncu_csv(f, "coalesced_kernel", &coalesced) == 0, "details fixture");
        rewind(f);
        CHECK(br_parse_ncu_csv(f, "unprofiled_kernel", &absent) == 0 && absent.found == 0,
              "a kernel not profiled has no rows");
        fclose(f);
        CHECK(naive.found == 2 && naive.sectors == 1107296256.0 && naive.requests == 67108864.0,
              "naive: %d rows, %.0f sectors, %.0f requests", naive.found, naive.sectors,
              naive.requests);
        CHECK(coalesced.found == 2 && coalesced.sectors == 167772160.0 &&
                  coalesced.requests == 67108864.0,
              "coalesced: %d rows, %.0f sectors, %.0f requests", coalesced.found,
              coalesced.sectors, coalesced.requests);
    }

    /* Raw page: one column per metric, a units row under the header. */
    static const char raw[] =
        "==PROF== Connected to process 1\n"
        "\"ID\",\"Kernel Name\",\"" BR_NCU_REQUESTS "\",\"" BR_NCU_SECTORS "\"\n"
        "\"\",\"\",\"request\",\"sector\"\n"
        "\"0\",\"naive_kernel(gl_problem)\",\"1,000\",\"16,500\"\n"
        "\"1\",\"coalesced_kernel(gl_problem)\",\"1000\",\"2500\"\n";
    f = fmemopen((void *)raw, sizeof raw - 1, "r");
    CHECK(br_parse_ncu_csv(f, "naive_kernel", &naive) == 0 && naive.requests == 1000 &&
              naive.sectors == 16500,
          "raw page: %.0f requests, %.0f sectors", naive.requests, naive.sectors);
    fclose(f);

    /* Scaled units, and a second launch adds up. */
    static const char scaled[] =
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"coalesced_kernel\",\"" BR_NCU_SECTORS "\",\"Ksector\",\"2.5\"\n"
        "\"0\",\"coalesced_kernel\",\"" BR_NCU_REQUESTS "\",\"request\",\"1000\"\n"
        "\"1\",\"coalesced_kernel\",\"" BR_NCU_REQUESTS "\",\"Mrequest\",\"0.001\"\n";
    f = fmemopen((void *)scaled, sizeof scaled - 1, "r");
    CHECK(br_parse_ncu_csv(f, "coalesced_kernel", &coalesced) == 0 &&
              coalesced.sectors == 2500 && fabs(coalesced.requests - 2000) < 1e-9,
          "scaled units: %.0f sectors, %.0f requests", coalesced.sectors, coalesced.requests);
    fclose(f);

    static const char nothing[] = "==PROF== ERR_NVGPUCTRPERM - no permission\n";
    f = fmemopen((void *)nothing, sizeof nothing - 1, "r");
    CHECK(br_parse_ncu_csv(f, "naive_kernel", &naive) == -1 && naive.found == 0,
          "output without a CSV table");
    fclose(f);
}

/* ---- samples for check_outputs.py ------------------------------------------------ */

static int write_file(const char *dir, const char *name, const br_report *rep, int kind)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const int rc = kind == 0 ? br_write_csv(f, rep) : br_write_json(f, rep);
    return fclose(f) != 0 || rc != 0 ? -1 : 0;
}

static int write_samples(const char *dir)
{
    const br_report rep = make_fixture(), empty = {.device = "none", .device_name = "none"};
    char path[4096];
    snprintf(path, sizeof path, "%s/expect.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f || write_file(dir, "sample.csv", &rep, 0) || write_file(dir, "sample.json", &rep, 1) ||
        write_file(dir, "empty.csv", &empty, 0) || write_file(dir, "empty.json", &empty, 1)) {
        fprintf(stderr, "cannot write the samples in %s\n", dir);
        return 1;
    }
    /* What the parsers must find in sample.*; empty.* has no rows. */
    size_t batched = 0;
    for (size_t i = 0; i < rep.count; ++i)
        batched += rep.results[i].shape.batch > 0;
    fprintf(f, "rows %zu\nbatched %zu\n", rep.count, batched);
    return fclose(f) ? 1 : 0;
}

/* ---- output files (cli.h): whole or not at all --------------------------------- */

/* Whether the file holds exactly `text`. */
static int holds(const char *path, const char *text)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return !strcmp(buf, text);
}

static int entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void test_outputs(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], a[600], b[600], c[600];
    snprintf(dir, sizeof dir, "%s/test_bench_report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return;
    }
    snprintf(a, sizeof a, "%s/a.csv", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(c, sizeof c, "%s/./a.csv", dir);
    FILE *f = fopen(a, "w");
    CHECK(f && fputs("old a\n", f) >= 0 && fclose(f) == 0, "writing %s", a);

    /* A writer that fails (the second) leaves both destinations as they were. */
    cli_output out[3] = {{.option = "--csv", .path = a},
                         {.option = "--json", .path = b},
                         {.option = "--svg", .path = NULL}};
    CHECK(cli_outputs_open("test", out, 3) == CLI_OK && out[0].f && out[1].f && !out[2].f,
          "opening two outputs");
    CHECK(entries(dir) == 3, "%d entries, expected a.csv and the two temporaries", entries(dir));
    fputs("new a\n", out[0].f);
    fputs("new b\n", out[1].f);
    out[1].failed = 1;
    CHECK(cli_outputs_commit("test", out, 3) == CLI_FAILED, "a failed writer's commit");
    CHECK(holds(a, "old a\n") && access(b, F_OK) != 0 && entries(dir) == 1,
          "after a failed writer: a.csv changed, b.json made, or a temporary left");

    /* Discarded: nothing changes. */
    CHECK(cli_outputs_open("test", out, 3) == CLI_OK, "opening again");
    fputs("new a\n", out[0].f);
    cli_outputs_discard(out, 3);
    CHECK(holds(a, "old a\n") && entries(dir) == 1, "after a discard");

    /* Committed: each replaced whole, the old file's mode kept. */
    CHECK(chmod(a, 0640) == 0, "chmod");
    CHECK(cli_outputs_open("test", out, 3) == CLI_OK, "opening a third time");
    fputs("new a\n", out[0].f);
    fputs("new b\n", out[1].f);
    CHECK(cli_outputs_commit("test", out, 3) == CLI_OK, "a commit");
    struct stat st;
    CHECK(holds(a, "new a\n") && holds(b, "new b\n") && entries(dir) == 2,
          "after a commit: a.csv, b.json and nothing else, with the new text");
    CHECK(stat(a, &st) == 0 && (st.st_mode & 07777) == 0640, "a.csv's mode %o, was 640",
          (unsigned)(st.st_mode & 07777));

    /* The same file under two names, existing or not: refused, nothing made. */
    cli_output same[2] = {{.option = "--csv", .path = a}, {.option = "--json", .path = c}};
    CHECK(cli_outputs_open("test", same, 2) == CLI_USAGE, "%s and %s", a, c);
    snprintf(c, sizeof c, "%s/./new.txt", dir);
    snprintf(b, sizeof b, "%s/new.txt", dir);
    cli_output two[2] = {{.option = "--csv", .path = b}, {.option = "--json", .path = c}};
    CHECK(cli_outputs_open("test", two, 2) == CLI_USAGE && entries(dir) == 2, "%s and %s", b, c);

    /* A missing directory: refused, the other output untouched. */
    snprintf(c, sizeof c, "%s/missing/x.svg", dir);
    cli_output missing[2] = {{.option = "--csv", .path = a}, {.option = "--svg", .path = c}};
    CHECK(cli_outputs_open("test", missing, 2) == CLI_FAILED && holds(a, "new a\n") &&
              entries(dir) == 2,
          "%s", c);

    snprintf(b, sizeof b, "%s/b.json", dir);
    remove(a);
    remove(b);
    CHECK(rmdir(dir) == 0, "%s left non-empty", dir);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-samples"))
        return write_samples(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: test_bench_report NCU_FIXTURE | --write-samples DIR\n");
        return 1;
    }
    test_checkers();
    test_sweeps();
    test_shapes();
    test_variants_and_outputs();
    test_workspace_limit();
    test_batched();
    test_random();
    test_bad_arguments();
    test_usage();
    test_rates_and_staircase();
    test_table();
    test_batched_table();
    test_odd_shapes();
    test_goals();
    test_batch_goals();
    test_random_goals();
    test_csv();
    test_json();
    test_outputs();
    test_ncu(argv[1]);
    return harness_finish("test_bench_report");
}
