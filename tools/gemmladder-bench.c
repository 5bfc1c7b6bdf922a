/*
 * gemmladder-bench - the ladder on your GPU: every rung against cuBLAS.
 *
 *   gemmladder-bench [--sizes 1024,4096] [--mnk 127x4096x4096,...]
 *                    [--variants naive,shared,...] [--repeats N] [--warmup N]
 *
 * For each size, every rung's result is first checked against a float64
 * reference (cuBLAS DGEMM on the same inputs); a rung that is wrong is
 * reported as wrong and not timed. Timing: CUDA events around each call,
 * warm-up first, the median of the repeats, and enough copies of the inputs
 * rotated that they never sit in L2 between calls. cuBLAS is timed in the
 * same run, so "% cuBLAS" is a ratio from one device at one moment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "gemmladder.h"

#define MAX_SIZES 64
#define TOLERANCE 1e-5

typedef struct size3 { int64_t m, n, k; } size3;

typedef struct options {
    size3 sizes[MAX_SIZES];
    int nsizes;
    int variants[32];
    int nvariants;
    int repeats, warmup;
} options;

typedef struct result {
    int variant;
    size3 s;
    double ms, gflops, gbs, pct, err;
    const char *status; /* "ok", "wrong", "failed", "unavailable" */
} result;

static void usage(void)
{
    printf("usage: gemmladder-bench [--sizes S1,S2,...] [--mnk MxNxK,...]\n"
           "                        [--variants NAME|ID,...] [--repeats N] [--warmup N]\n"
           "  --sizes     square sizes (default 4096)\n"
           "  --mnk       explicit shapes, e.g. 127x4096x4096\n"
           "  --variants  rungs to run (default: all available); cuBLAS always runs\n"
           "  --repeats   timed calls per rung and size, median reported (default 10)\n"
           "  --warmup    untimed calls first (default 2)\n");
}

static int parse_int(const char *s, const char *what)
{
    char *end;
    const long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 1000000)
        bu_die("%s must be a positive integer", what);
    return (int)v;
}

static void parse_sizes(options *o, char *list, int square)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nsizes == MAX_SIZES)
            bu_die("at most %d sizes", MAX_SIZES);
        size3 s;
        long long m, n, k;
        char tail;
        if (square) {
            if (sscanf(tok, "%lld%c", &m, &tail) != 1 || m < 1)
                bu_die("bad size '%s' (want a positive integer)", tok);
            s = (size3){m, m, m};
        } else {
            if (sscanf(tok, "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1)
                bu_die("bad shape '%s' (want MxNxK, e.g. 127x4096x4096)", tok);
            s = (size3){m, n, k};
        }
        o->sizes[o->nsizes++] = s;
    }
}

static void parse_variants(options *o, char *list)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        gl_variant_t v;
        char *end;
        const long id = strtol(tok, &end, 10);
        if (*end == '\0' && id >= 0 && id < gl_variant_count())
            v = (gl_variant_t)id;
        else if (gl_variant_from_name(tok, &v) != GL_STATUS_SUCCESS)
            bu_die("unknown variant '%s'", tok);
        if (o->nvariants < 32 && v != GL_VARIANT_CUBLAS)
            o->variants[o->nvariants++] = (int)v;
    }
}

static void parse_args(options *o, int argc, char **argv)
{
    *o = (options){.repeats = 10, .warmup = 2};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            exit(0);
        }
        if (i + 1 >= argc)
            bu_die("%s needs a value (see --help)", a);
        char *val = argv[++i];
        if (!strcmp(a, "--sizes"))
            parse_sizes(o, val, 1);
        else if (!strcmp(a, "--mnk"))
            parse_sizes(o, val, 0);
        else if (!strcmp(a, "--variants"))
            parse_variants(o, val);
        else if (!strcmp(a, "--repeats"))
            o->repeats = parse_int(val, "--repeats");
        else if (!strcmp(a, "--warmup"))
            o->warmup = parse_int(val, "--warmup");
        else
            bu_die("unknown option '%s' (see --help)", a);
    }
    if (o->nsizes == 0)
        o->sizes[o->nsizes++] = (size3){4096, 4096, 4096};
    if (o->nvariants == 0)
        for (int v = 1; v < gl_variant_count(); ++v)
            o->variants[o->nvariants++] = v;
}

/* One set of operands; several sets are rotated so calls miss in L2. */
typedef struct call {
    gl_handle_t h;
    int variant;
    size3 s;
    bu_operands *sets;
    int nsets;
} call;

static int run_call(void *ctx, int i)
{
    const call *c = ctx;
    const bu_operands *x = &c->sets[i % c->nsets];
    return gl_sgemm(c->h, (gl_variant_t)c->variant, c->s.m, c->s.n, c->s.k, x->a, x->b, x->c);
}

/* ---- one rung at one size ------------------------------------------------ */

static result run_variant(gl_handle_t h, int v, size3 s, bu_operands *sets, int nsets,
                          const double *ref, const options *o)
{
    result r = {.variant = v, .s = s, .status = "ok"};
    if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS) {
        r.status = "unavailable";
        return r;
    }
    /* Correctness first, with C poisoned. */
    bu_check_cuda(cudaMemset(sets[0].c, 0xff, sizeof(float) * (size_t)(s.m * s.n)), "cudaMemset");
    if (gl_sgemm(h, (gl_variant_t)v, s.m, s.n, s.k, sets[0].a, sets[0].b, sets[0].c) != 0 ||
        cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "  %s: %s\n", gl_variant_name(v), gl_last_error(h));
        r.status = "failed";
        return r;
    }
    r.err = bu_relative_error(sets[0].c, ref, s.m * s.n);
    if (!(r.err <= TOLERANCE)) {
        r.status = "wrong";
        return r;
    }
    call c = {h, v, s, sets, nsets};
    r.ms = bu_time_median(run_call, &c, o->warmup, o->repeats);
    if (r.ms < 0) {
        r.status = "failed";
        return r;
    }
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    const double bytes = 4.0 * ((double)s.m * s.k + (double)s.k * s.n + (double)s.m * s.n);
    r.gflops = flops / (r.ms * 1e6);
    r.gbs = bytes / (r.ms * 1e6);
    return r;
}

int main(int argc, char **argv)
{
    bu_tool = "gemmladder-bench";
    options o;
    parse_args(&o, argc, argv);

    gl_handle_t h;
    if (gl_handle_create(&h) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "gemmladder-bench: %s\n", gl_last_error(NULL));
        return 1;
    }
    const int dev = gl_handle_device(h);
    char device[512];
    bu_device_description(dev, device, sizeof device);
    printf("device: %s\n", device);
    uint64_t rng = (uint64_t)time(NULL);

    cublasHandle_t cb;
    bu_check_cublas(cublasCreate(&cb), "cublasCreate");

    printf("\n%-13s %6s %6s %6s %10s %10s %9s %9s %9s\n", "variant", "M", "N", "K", "ms",
           "GFLOP/s", "GB/s", "% cuBLAS", "rel.err");
    for (int si = 0; si < o.nsizes; ++si) {
        const size3 s = o.sizes[si];
        const int nsets = bu_rotation_sets(dev, s.m, s.n, s.k);
        bu_operands sets[16];
        for (int i = 0; i < nsets; ++i)
            sets[i] = (bu_operands){bu_random_device(s.m * s.k, &rng),
                                    bu_random_device(s.k * s.n, &rng),
                                    bu_random_device(s.m * s.n, &rng)};
        double *ref = bu_reference(cb, sets[0].a, sets[0].b, s.m, s.n, s.k);
        fprintf(stderr, "[%lldx%lldx%lld] ", (long long)s.m, (long long)s.n, (long long)s.k);

        result base = run_variant(h, GL_VARIANT_CUBLAS, s, sets, nsets, ref, &o);
        base.pct = 100.0;
        result rows[32];
        for (int i = 0; i < o.nvariants; ++i) {
            fprintf(stderr, "%s ", gl_variant_name(o.variants[i]));
            rows[i] = run_variant(h, o.variants[i], s, sets, nsets, ref, &o);
            rows[i].pct = base.gflops > 0 ? 100.0 * rows[i].gflops / base.gflops : 0;
        }
        fprintf(stderr, "\n");
        for (int i = -1; i < o.nvariants; ++i) {
            const result *r = i < 0 ? &base : &rows[i];
            if (strcmp(r->status, "ok"))
                printf("%-13s %6lld %6lld %6lld %10s (%s, rel.err %.2g)\n",
                       gl_variant_name(r->variant), (long long)s.m, (long long)s.n,
                       (long long)s.k, "-", r->status, r->err);
            else
                printf("%-13s %6lld %6lld %6lld %10.3f %10.1f %9.1f %8.1f%% %9.1e\n",
                       gl_variant_name(r->variant), (long long)s.m, (long long)s.n,
                       (long long)s.k, r->ms, r->gflops, r->gbs, r->pct, r->err);
        }
        free(ref);
        for (int i = 0; i < nsets; ++i) {
            cudaFree(sets[i].a);
            cudaFree(sets[i].b);
            cudaFree(sets[i].c);
        }
    }
    cublasDestroy(cb);
    gl_handle_destroy(h);
    return 0;
}
