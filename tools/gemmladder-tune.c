/*
 * gemmladder-tune - the grid search behind rungs 7 and 8, on your GPU.
 *
 *   gemmladder-tune [--output FILE] [--variants LIST] [--repeats N] [--full]
 *   gemmladder-tune --check FILE
 *
 * For each tuned variant it takes every compiled tile configuration, drops
 * those this GPU cannot run (the legality filter, through gl_set_tiles),
 * checks each survivor's result against a float64 reference, then times it
 * (median of repeated calls after warm-up, inputs rotated past L2) on a few
 * real shapes per size class, with cuBLAS timed on the same shapes. The
 * fastest configuration per size class (geometric mean over the class's
 * shapes) becomes a row of a tuning table in the shipped format, written to
 * FILE (default: gemmladder-tuning-sm_XY.txt), ready for gl_tuning_load or
 * GEMMLADDER_TUNING. FILE is replaced only by a complete table that
 * validates: the table is written to a temporary file beside it, checked,
 * and renamed over it (cli_output), so an interrupted or failed run leaves
 * the old table as it was. --check validates a table offline with the
 * loader's own messages; it needs no GPU. The tuned variants are those a
 * table holds rows for (the loader says which).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_util.h"
#include "cli.h"
#include "gemmladder.h"

typedef struct shape {
    int64_t m, n, k;
} shape;

/* Representative shapes per size class (small: M*N <= 1536^2, medium: <=
 * 3072^2, large: above), including shapes that are not tile multiples. The
 * two skinny ones differ: 127 rows leave A aligned, 127 columns misalign B
 * and C (their rows start at any 4-byte boundary), so both are weighed.
 * 3000^3 is a medium shape whose 128 x 128 grid (576 blocks) runs in 2.2
 * rounds of the 264 an H100 or H200 holds: judged on 2048^3 and 2000^3
 * alone (256 blocks, one round), the class took rung 7 tiles that lose a
 * quarter of their speed at 3000^3 (docs/tuning.md). 1536^3 is the small
 * class's top: its 576 blocks of 64 x 64 take one round where an SM holds
 * five of them, two where it holds four. */
static const shape small_shapes[] = {{1024, 1024, 1024},
                                     {1000, 1000, 1000},
                                     {127, 4096, 4096},
                                     {4096, 127, 4096},
                                     {1536, 1536, 1536}};
static const shape medium_shapes[] = {{2048, 2048, 2048}, {2000, 2000, 2000}, {3000, 3000, 3000}};
static const shape large_shapes[] = {{4096, 4096, 4096}, {4097, 4097, 4097}, {8192, 8192, 8192}};
static const char *const class_names[3] = {"small", "medium", "large"};

#define MAX_CLASS_SHAPES 5 /* the most shapes one class has */
#define SHAPE_COUNT(a) ((int)(sizeof a / sizeof a[0]))
_Static_assert(SHAPE_COUNT(small_shapes) <= MAX_CLASS_SHAPES &&
                   SHAPE_COUNT(medium_shapes) <= MAX_CLASS_SHAPES &&
                   SHAPE_COUNT(large_shapes) <= MAX_CLASS_SHAPES,
               "a size class has more shapes than MAX_CLASS_SHAPES");

#define MAX_CONFIGS 64

typedef struct measured {
    gl_tiles tiles;
    const char *skipped;          /* why it was not timed, or NULL */
    char reason[256];
    double gflops[3][MAX_CLASS_SHAPES]; /* [class][shape] */
    double score[3];              /* geometric mean of GFLOP/s per class */
} measured;

static void usage(void)
{
    printf("usage: gemmladder-tune [--output FILE] [--variants LIST] [--repeats N] [--full]\n"
           "       gemmladder-tune --check FILE\n"
           "\n"
           "Times every compiled tile configuration of the tuned rungs on this GPU, each\n"
           "checked first against a float64 product, on a few shapes per size class, and\n"
           "writes the fastest per class as a tuning table (gl_tuning_load, GEMMLADDER_TUNING).\n"
           "\n"
           "  -o, --output FILE  where to write the table (default gemmladder-tuning-sm_XY.txt);\n"
           "                     checked before any GPU work, and replaced only by a complete\n"
           "                     table that validates (written beside it, then renamed), so\n"
           "                     a failed or interrupted run leaves the old one as it was\n"
           "  --variants LIST    tuned rungs to search, by name, comma-separated (default all;\n"
           "                     a name given twice is searched once)\n"
           "  --repeats N        timed samples (batches of calls) per configuration and shape,\n"
           "                     1 .. 1000 (default 7)\n"
           "  --full             also time 8192^3 for the large class (slower)\n"
           "  --check FILE       validate a table file and exit (no GPU needed); one FILE per\n"
           "                     run: a second --check is refused\n"
           "  -h, --help         this text\n"
           "  -V, --version      the version\n"
           CLI_PREFIX_HELP " (--re for --repeats;\n"
           "--v is refused: --variants or --version?).\n"
           "\n"
           "A run takes about a minute on an H100 (about three with --full).\n"
           "\n" CLI_EXIT_HELP ".\nWith --check: 0 a valid table, 1 an invalid one, 4 a file that cannot be\n"
           "read (missing, unreadable, a directory).\n");
}

/* Says what is wrong with the command line; returns CLI_USAGE. */
static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", bu_tool);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", bu_tool);
    return CLI_USAGE;
}

typedef struct tune_options {
    const char *output, *check, *variants; /* NULL: not given */
    int repeats, full;
} tune_options;

/* Fills *o from the command line. Returns -1 to go on, or the status to exit with. */
static int parse_args(int argc, char **argv, tune_options *o)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},  {"variants", required_argument, NULL, 'v'},
        {"repeats", required_argument, NULL, 'r'}, {"full", no_argument, NULL, 'f'},
        {"check", required_argument, NULL, 'c'},   {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},       {NULL, 0, NULL, 0},
    };
    *o = (tune_options){.repeats = 7};
    int repeats_given = 0;
    optind = 0;
    opterr = 0; /* the messages below say it with the tool's name */
    for (int c; (c = getopt_long(argc, argv, "+:o:hV", options, NULL)) != -1;) {
        char message[256], *end;
        long n;
        if (c == ':' || c == '?')
            return usage_error("%s", cli_option_error(c, argv, options, message, sizeof message));
        if (cli_value_missing(optarg))
            return usage_error("%s needs a value", cli_option_name(options, c, message, sizeof message));
        switch (c) {
        case 'h': usage(); return CLI_OK;
        case 'V': cli_print_version(stdout, bu_tool); return CLI_OK;
        case 'o':
        case 'c': {
            /* A second one would silently replace the first. */
            const char **slot = c == 'o' ? &o->output : &o->check;
            if (*slot)
                return usage_error("%s given twice (%s, then %s): give one",
                                   cli_option_name(options, c, message, sizeof message), *slot,
                                   optarg);
            *slot = optarg;
            break;
        }
        case 'v': o->variants = optarg; break;
        case 'f': o->full = 1; break;
        case 'r':
            n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 1 || n > 1000)
                return usage_error("--repeats: bad value '%s' (want an integer 1 .. 1000)", optarg);
            o->repeats = (int)n;
            repeats_given = 1;
            break;
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (o->check && (o->output || o->variants || o->full || repeats_given))
        return usage_error("--check takes no other option");
    return -1;
}

/* Marks in want[] the variants of `list` (NULL: every tuned one): names
 * separated by commas, none empty, each a tuned variant; a list of any
 * length. Returns -1 to go on, or the status to exit with. */
static int choose_variants(const char *list, int *want)
{
    const int count = gl_variant_count();
    int *tuned = calloc((size_t)count, sizeof *tuned);
    size_t names_size = 1;
    for (int v = 0; v < count; ++v)
        names_size += strlen(gl_variant_name((gl_variant_t)v)) + 2;
    char *names = malloc(names_size), *copy = list ? strdup(list) : NULL;
    if (!tuned || !names || (list && !copy))
        bu_die("out of host memory");
    *names = '\0';
    for (int v = 0; v < count; ++v) {
        tuned[v] = cli_variant(v).takes_rows;
        if (tuned[v])
            strcat(strcat(names, *names ? ", " : ""), gl_variant_name((gl_variant_t)v));
        want[v] = !list && tuned[v];
    }
    int rc = -1;
    /* Split by hand: strtok would pass over empty names (",", "warptile,"). */
    for (char *tok = copy, *next; tok && rc < 0; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        gl_variant_t v;
        if (!*tok)
            rc = usage_error("--variants: an empty name in '%s' (want tuned variants separated "
                             "by commas: %s)",
                             list, names);
        else if (gl_variant_from_name(tok, &v) != GL_STATUS_SUCCESS || !tuned[v])
            rc = usage_error("--variants: '%s' is not a tuned variant (tuned: %s)", tok, names);
        else
            want[v] = 1;
    }
    free(copy);
    free(names);
    free(tuned);
    return rc;
}

typedef struct run_ctx {
    gl_handle_t h;
    gl_variant_t v;
    shape s;
    bu_operands *sets;
    int nsets;
} run_ctx;

static int run_one(void *ctx, int i)
{
    const run_ctx *c = ctx;
    const bu_operands *x = &c->sets[i % c->nsets];
    return gl_sgemm(c->h, c->v, c->s.m, c->s.n, c->s.k, x->a, x->b, x->c) != GL_STATUS_SUCCESS;
}

/* Inputs, reference and cuBLAS's time for one shape. */
typedef struct prepared {
    shape s;
    bu_operands sets[16];
    int nsets;
    double *ref;
    double cublas_gflops;
} prepared;

static void prepare(prepared *p, gl_handle_t h, cublasHandle_t cb, shape s, int repeats,
                    uint64_t *rng)
{
    p->s = s;
    p->nsets = bu_rotation_sets(gl_handle_device(h), s.m, s.n, s.k);
    for (int i = 0; i < p->nsets; ++i)
        p->sets[i] = (bu_operands){bu_random_device(s.m * s.k, rng),
                                   bu_random_device(s.k * s.n, rng),
                                   bu_random_device(s.m * s.n, rng), NULL, NULL, NULL};
    p->ref = bu_reference(cb, p->sets[0].a, p->sets[0].b, s.m, s.n, s.k, 0, 0, 0);
    /* The reference rung (cuBLAS), which the table's comments compare with. */
    const gl_variant_t reference = (gl_variant_t)cli_reference_variant();
    run_ctx c = {h, reference, s, p->sets, p->nsets};
    const double ms = bu_time_median(run_one, &c, 2, repeats);
    if (ms <= 0)
        bu_die("%s failed on %lldx%lldx%lld: %s", gl_variant_name(reference), (long long)s.m,
               (long long)s.n, (long long)s.k, gl_last_error(h));
    p->cublas_gflops = 2.0 * s.m * s.n * (double)s.k / (ms * 1e6);
}

static void release(prepared *p)
{
    for (int i = 0; i < p->nsets; ++i) {
        cudaFree(p->sets[i].a);
        cudaFree(p->sets[i].b);
        cudaFree(p->sets[i].c);
    }
    free(p->ref);
}

/* Checks, then times, the pinned configuration on one shape; 0 if wrong. */
static double measure(gl_handle_t h, gl_variant_t v, prepared *p, int repeats, char *why,
                      size_t why_size)
{
    const shape s = p->s;
    bu_check_cuda(cudaMemset(p->sets[0].c, 0xff, sizeof(float) * (size_t)(s.m * s.n)),
                  "cudaMemset");
    if (gl_sgemm(h, v, s.m, s.n, s.k, p->sets[0].a, p->sets[0].b, p->sets[0].c) !=
        GL_STATUS_SUCCESS) {
        snprintf(why, why_size, "failed: %s", gl_last_error(h));
        return 0;
    }
    bu_check_cuda(cudaDeviceSynchronize(), "a tuned kernel");
    const double err = bu_relative_error(p->sets[0].c, p->ref, s.m * s.n);
    if (!(err <= cli_tolerance(v, s.k))) {
        snprintf(why, why_size, "wrong result on %lldx%lldx%lld (relative error %.2g)",
                 (long long)s.m, (long long)s.n, (long long)s.k, err);
        return 0;
    }
    run_ctx c = {h, v, s, p->sets, p->nsets};
    const double ms = bu_time_median(run_one, &c, 2, repeats);
    if (ms <= 0) {
        snprintf(why, why_size, "failed while timing: %s", gl_last_error(h));
        return 0;
    }
    return 2.0 * s.m * s.n * (double)s.k / (ms * 1e6);
}

static int check_only(const char *path)
{
    /* A file that cannot be read is no table to judge: status 4, as for
     * any input file the tools cannot read, not 1 (an invalid table). Opened only
     * where that cannot wait for a writer: the loader refuses a FIFO or a
     * device itself. */
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
        FILE *in = cli_open_input(bu_tool, path);
        if (!in)
            return CLI_FAILED;
        fclose(in);
    }
    if (gl_tuning_check(path) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "%s: %s\n", bu_tool, gl_last_error(NULL));
        return CLI_WRONG;
    }
    printf("%s: a valid tuning table\n", path);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    bu_tool = "gemmladder-tune";
    tune_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.check)
        return check_only(o.check);
    const int repeats = o.repeats, full = o.full;
    const char *output = o.output;

    int *want = calloc((size_t)gl_variant_count(), sizeof *want);
    if (!want)
        bu_die("out of host memory");
    if ((rc = choose_variants(o.variants, want)) >= 0) {
        free(want);
        return rc;
    }
    /* The output before any GPU work, when it is named: a bad path fails
     * now, not after the preparation (the default's name needs the GPU's
     * architecture, so it is opened as soon as that is known). */
    cli_output out = {.option = "--output", .path = output};
    if (output && (rc = cli_outputs_open(bu_tool, &out, 1)) != CLI_OK) {
        free(want);
        return rc;
    }
    const time_t started = time(NULL);
    gl_handle_t h;
    if ((rc = cli_open_handle(bu_tool, &h, 0)) != CLI_OK) {
        cli_outputs_discard(&out, 1);
        free(want);
        return rc;
    }
    const int dev = gl_handle_device(h);
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    char arch[16], device[512], default_output[64];
    snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    snprintf(default_output, sizeof default_output, "gemmladder-tuning-%s.txt", arch);
    if (!output) {
        out.path = output = default_output;
        if ((rc = cli_outputs_open(bu_tool, &out, 1)) != CLI_OK) {
            gl_handle_destroy(h);
            free(want);
            return rc;
        }
    }
    bu_device_description(dev, device, sizeof device);
    printf("device: %s\n", device);

    cublasHandle_t cb;
    bu_check_cublas(cublasCreate(&cb), "cublasCreate");
    uint64_t rng = (uint64_t)started;

    const shape *class_shapes[3] = {small_shapes, medium_shapes, large_shapes};
    /* the large class's last shape, 8192^3, with --full only */
    const int class_counts[3] = {SHAPE_COUNT(small_shapes), SHAPE_COUNT(medium_shapes),
                                 SHAPE_COUNT(large_shapes) - !full};
    prepared shapes[3][MAX_CLASS_SHAPES];
    fprintf(stderr, "preparing inputs, references and cuBLAS timings...\n");
    for (int c = 0; c < 3; ++c)
        for (int s = 0; s < class_counts[c]; ++s)
            prepare(&shapes[c][s], h, cb, class_shapes[c][s], repeats, &rng);

    FILE *table = out.f;
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&started));
    fprintf(table, "gemmladder-tuning 1\n# Tile parameters for %s, written by gemmladder-tune on %s.\n"
                   "# Device: %s\n# Each row: the fastest compiled configuration for the size "
                   "class (geometric\n# mean of GFLOP/s over its shapes); %% of cuBLAS timed in "
                   "the same run.\n#\n",
            arch, date, device);

    for (int vi = 0; vi < gl_variant_count(); ++vi) {
        const gl_variant_t v = (gl_variant_t)vi;
        if (!want[v])
            continue;
        static measured m[MAX_CONFIGS];
        const int count = gl_variant_config_count(v);
        if (count > MAX_CONFIGS)
            bu_die("more than %d configurations", MAX_CONFIGS);
        int legal = 0;
        for (int i = 0; i < count; ++i) {
            measured *x = &m[i];
            memset(x, 0, sizeof *x);
            x->tiles.size = sizeof x->tiles;
            if (gl_variant_config(v, i, &x->tiles) != GL_STATUS_SUCCESS)
                bu_die("%s", gl_last_error(NULL));
            char name[160];
            cli_tiles_text(v, &x->tiles, name, sizeof name);
            fprintf(stderr, "[%s %d/%d] %s:", gl_variant_name(v), i + 1, count, name);
            if (gl_set_tiles(h, v, &x->tiles) != GL_STATUS_SUCCESS) {
                snprintf(x->reason, sizeof x->reason, "%s", gl_last_error(h));
                x->skipped = x->reason;
                fprintf(stderr, " skipped: %s\n", x->reason);
                continue;
            }
            ++legal;
            for (int c = 0; c < 3 && !x->skipped; ++c) {
                double log_sum = 0;
                for (int s = 0; s < class_counts[c] && !x->skipped; ++s) {
                    x->gflops[c][s] = measure(h, v, &shapes[c][s], repeats, x->reason,
                                              sizeof x->reason);
                    if (x->gflops[c][s] <= 0)
                        x->skipped = x->reason;
                    else
                        log_sum += log(x->gflops[c][s]);
                    fprintf(stderr, " %.0f", x->gflops[c][s]);
                }
                x->score[c] = x->skipped ? 0 : exp(log_sum / class_counts[c]);
            }
            fprintf(stderr, x->skipped ? " -> excluded: %s\n" : " GFLOP/s\n",
                    x->skipped ? x->skipped : "");
        }
        gl_set_tiles(h, v, NULL);

        printf("\n%s: %d compiled configurations, %d legal on this GPU\n", gl_variant_name(v),
               count, legal);
        for (int c = 0; c < 3; ++c) {
            /* Rank by the class's geometric mean; print the top three. */
            int order[MAX_CONFIGS], n = 0;
            for (int i = 0; i < count; ++i)
                if (!m[i].skipped)
                    order[n++] = i;
            for (int a = 0; a < n; ++a)
                for (int b = a + 1; b < n; ++b)
                    if (m[order[b]].score[c] > m[order[a]].score[c]) {
                        const int t = order[a];
                        order[a] = order[b];
                        order[b] = t;
                    }
            if (n == 0) {
                fprintf(table, "# %s %s: no configuration ran correctly here\n",
                        gl_variant_name(v), class_names[c]);
                continue;
            }
            printf("  %s (", class_names[c]);
            for (int s = 0; s < class_counts[c]; ++s)
                printf("%s%lldx%lldx%lld", s ? ", " : "", (long long)class_shapes[c][s].m,
                       (long long)class_shapes[c][s].n, (long long)class_shapes[c][s].k);
            printf("):\n");
            for (int r = 0; r < n && r < 3; ++r) {
                const measured *x = &m[order[r]];
                char name[160];
                cli_tiles_text(v, &x->tiles, name, sizeof name);
                printf("    %d. %-70s", r + 1, name);
                for (int s = 0; s < class_counts[c]; ++s)
                    printf(" %5.1f%%", 100.0 * x->gflops[c][s] / shapes[c][s].cublas_gflops);
                printf("  of cuBLAS\n");
            }
            const measured *best = &m[order[0]];
            char name[160], pct[96] = "";
            cli_tiles_text(v, &best->tiles, name, sizeof name);
            for (int s = 0; s < class_counts[c]; ++s) {
                char one[24];
                snprintf(one, sizeof one, "%s%.1f%%", s ? " " : "",
                         100.0 * best->gflops[c][s] / shapes[c][s].cublas_gflops);
                strncat(pct, one, sizeof pct - strlen(pct) - 1);
            }
            fprintf(table, "%-7s %-10s %-7s %s  # %s of cuBLAS\n", arch, gl_variant_name(v),
                    class_names[c], name, pct);
        }
    }
    if (cli_outputs_close(bu_tool, &out, 1) != CLI_OK)
        return CLI_FAILED; /* the old table, if any, is as it was */

    for (int c = 0; c < 3; ++c)
        for (int s = 0; s < class_counts[c]; ++s)
            release(&shapes[c][s]);
    cublasDestroy(cb);
    gl_handle_destroy(h);
    free(want);

    /* The table must load as written, before it replaces anything (a
     * device or pipe written in place cannot be read back). */
    if (out.tmp && gl_tuning_check(out.tmp) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "%s: the table written does not validate, so %s was left as it was: %s\n",
                bu_tool, output, gl_last_error(NULL));
        cli_outputs_discard(&out, 1);
        return CLI_FAILED;
    }
    if (cli_outputs_commit(bu_tool, &out, 1) != CLI_OK)
        return CLI_FAILED;
    printf("\nwrote %s in %.0f s; use it with gl_tuning_load(\"%s\") or "
           "GEMMLADDER_TUNING=%s\n",
           output, difftime(time(NULL), started), output, output);
    return 0;
}
