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
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "gemmladder-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(2);
}

#define CUDA_OR_DIE(call)                                                                     \
    do {                                                                                      \
        const cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess)                                                                \
            die("CUDA: %s", cudaGetErrorString(e_));                                          \
    } while (0)

#define CUBLAS_OR_DIE(call)                                                                   \
    do {                                                                                      \
        const cublasStatus_t s_ = (call);                                                     \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                      \
            die("cuBLAS: %s", cublasGetStatusName(s_));                                       \
    } while (0)

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
        die("%s must be a positive integer", what);
    return (int)v;
}

static void parse_sizes(options *o, char *list, int square)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nsizes == MAX_SIZES)
            die("at most %s sizes", "64");
        size3 s;
        long long m, n, k;
        char tail;
        if (square) {
            if (sscanf(tok, "%lld%c", &m, &tail) != 1 || m < 1)
                die("bad size '%s' (want a positive integer)", tok);
            s = (size3){m, m, m};
        } else {
            if (sscanf(tok, "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1)
                die("bad shape '%s' (want MxNxK, e.g. 127x4096x4096)", tok);
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
            die("unknown variant '%s'", tok);
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
            die("%s needs a value (see --help)", a);
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
            die("unknown option '%s' (see --help)", a);
    }
    if (o->nsizes == 0)
        o->sizes[o->nsizes++] = (size3){4096, 4096, 4096};
    if (o->nvariants == 0)
        for (int v = 1; v < gl_variant_count(); ++v)
            o->variants[o->nvariants++] = v;
}

/* ---- inputs ------------------------------------------------------------- */

static uint64_t rng_state;

static float uniform(void) /* in [-1, 1), never 0 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((float)(z >> 40) + 0.5f) / 8388608.0f - 1.0f;
}

/* One set of operands; several sets are rotated so calls miss in L2. */
typedef struct operands { float *a, *b, *c; } operands;

static float *random_device(int64_t n)
{
    float *h = malloc(sizeof(float) * (size_t)n), *d;
    if (!h)
        die("out of host memory%s", "");
    for (int64_t i = 0; i < n; ++i)
        h[i] = uniform();
    CUDA_OR_DIE(cudaMalloc((void **)&d, sizeof(float) * (size_t)n));
    CUDA_OR_DIE(cudaMemcpy(d, h, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

/* float64 reference of set 0: upcast on the device, cuBLAS DGEMM. */
static double *reference(cublasHandle_t cb, const operands *op, size3 s)
{
    const int64_t na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
    float *h = malloc(sizeof(float) * (size_t)(na > nb ? na : nb));
    double *hd = malloc(sizeof(double) * (size_t)(na > nb ? na : nb));
    double *da, *db, *dc;
    CUDA_OR_DIE(cudaMalloc((void **)&da, sizeof(double) * (size_t)na));
    CUDA_OR_DIE(cudaMalloc((void **)&db, sizeof(double) * (size_t)nb));
    CUDA_OR_DIE(cudaMalloc((void **)&dc, sizeof(double) * (size_t)nc));
    const struct { const float *src; double *dst; int64_t n; } up[] = {{op->a, da, na}, {op->b, db, nb}};
    for (int i = 0; i < 2; ++i) {
        CUDA_OR_DIE(cudaMemcpy(h, up[i].src, sizeof(float) * (size_t)up[i].n, cudaMemcpyDeviceToHost));
        for (int64_t e = 0; e < up[i].n; ++e)
            hd[e] = h[e];
        CUDA_OR_DIE(cudaMemcpy(up[i].dst, hd, sizeof(double) * (size_t)up[i].n, cudaMemcpyHostToDevice));
    }
    const double one = 1.0, zero = 0.0;
    /* Row-major C = A B is column-major C^T = B^T A^T. */
    CUBLAS_OR_DIE(cublasDgemm_64(cb, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, db, s.n, da,
                                 s.k, &zero, dc, s.n));
    double *ref = malloc(sizeof(double) * (size_t)nc);
    CUDA_OR_DIE(cudaMemcpy(ref, dc, sizeof(double) * (size_t)nc, cudaMemcpyDeviceToHost));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(h);
    free(hd);
    return ref;
}

static double relative_error(const float *dc, const double *ref, int64_t n)
{
    float *h = malloc(sizeof(float) * (size_t)n);
    CUDA_OR_DIE(cudaMemcpy(h, dc, sizeof(float) * (size_t)n, cudaMemcpyDeviceToHost));
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(h[i])) {
            free(h);
            return INFINITY;
        }
        diff += (h[i] - ref[i]) * (h[i] - ref[i]);
        norm += ref[i] * ref[i];
    }
    free(h);
    return sqrt(diff / norm);
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- one rung at one size ------------------------------------------------ */

static result run_variant(gl_handle_t h, int v, size3 s, operands *sets, int nsets,
                          const double *ref, const options *o)
{
    result r = {.variant = v, .s = s, .status = "ok"};
    if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS) {
        r.status = "unavailable";
        return r;
    }
    /* Correctness first, with C poisoned. */
    CUDA_OR_DIE(cudaMemset(sets[0].c, 0xff, sizeof(float) * (size_t)(s.m * s.n)));
    if (gl_sgemm(h, (gl_variant_t)v, s.m, s.n, s.k, sets[0].a, sets[0].b, sets[0].c) != 0 ||
        cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "  %s: %s\n", gl_variant_name(v), gl_last_error(h));
        r.status = "failed";
        return r;
    }
    r.err = relative_error(sets[0].c, ref, s.m * s.n);
    if (!(r.err <= TOLERANCE)) {
        r.status = "wrong";
        return r;
    }

    cudaEvent_t start, stop;
    CUDA_OR_DIE(cudaEventCreate(&start));
    CUDA_OR_DIE(cudaEventCreate(&stop));
    double *ms = malloc(sizeof(double) * (size_t)o->repeats);
    for (int i = 0; i < o->warmup + o->repeats; ++i) {
        const operands *x = &sets[i % nsets];
        CUDA_OR_DIE(cudaEventRecord(start, 0));
        gl_sgemm(h, (gl_variant_t)v, s.m, s.n, s.k, x->a, x->b, x->c);
        CUDA_OR_DIE(cudaEventRecord(stop, 0));
        CUDA_OR_DIE(cudaEventSynchronize(stop));
        float t;
        CUDA_OR_DIE(cudaEventElapsedTime(&t, start, stop));
        if (i >= o->warmup)
            ms[i - o->warmup] = t;
    }
    qsort(ms, (size_t)o->repeats, sizeof *ms, compare_double);
    r.ms = o->repeats % 2 ? ms[o->repeats / 2]
                          : 0.5 * (ms[o->repeats / 2 - 1] + ms[o->repeats / 2]);
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    const double bytes = 4.0 * ((double)s.m * s.k + (double)s.k * s.n + (double)s.m * s.n);
    r.gflops = flops / (r.ms * 1e6);
    r.gbs = bytes / (r.ms * 1e6);
    free(ms);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return r;
}

static void print_device(int dev)
{
    struct cudaDeviceProp p;
    int driver = 0, clock = 0, memclock = 0;
    CUDA_OR_DIE(cudaGetDeviceProperties(&p, dev));
    cudaDriverGetVersion(&driver);
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&memclock, cudaDevAttrMemoryClockRate, dev);
    char date[32];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("device: %s (sm_%d%d, %d SMs, max SM clock %d MHz, memory clock %d MHz, L2 %d MB)\n",
           p.name, p.major, p.minor, p.multiProcessorCount, clock / 1000, memclock / 1000,
           p.l2CacheSize >> 20);
    printf("driver: CUDA %d.%d; library: gemmladder %s; date: %s\n", driver / 1000,
           (driver % 1000) / 10, gl_version_string(), date);
}

int main(int argc, char **argv)
{
    options o;
    parse_args(&o, argc, argv);

    gl_handle_t h;
    if (gl_handle_create(&h) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "gemmladder-bench: %s\n", gl_last_error(NULL));
        return 1;
    }
    int dev = gl_handle_device(h), l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    print_device(dev);
    rng_state = (uint64_t)time(NULL);

    cublasHandle_t cb;
    CUBLAS_OR_DIE(cublasCreate(&cb));

    printf("\n%-13s %6s %6s %6s %10s %10s %9s %9s %9s\n", "variant", "M", "N", "K", "ms",
           "GFLOP/s", "GB/s", "% cuBLAS", "rel.err");
    for (int si = 0; si < o.nsizes; ++si) {
        const size3 s = o.sizes[si];
        const double set_bytes = 4.0 * ((double)s.m * s.k + (double)s.k * s.n + (double)s.m * s.n);
        int nsets = (int)ceil(2.0 * l2 / set_bytes) + 1;
        nsets = nsets > 16 ? 16 : nsets;
        operands sets[16];
        for (int i = 0; i < nsets; ++i)
            sets[i] = (operands){random_device(s.m * s.k), random_device(s.k * s.n),
                                 random_device(s.m * s.n)};
        double *ref = reference(cb, &sets[0], s);
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
