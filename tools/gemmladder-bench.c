/*
 * gemmladder-bench - the ladder on your GPU: every rung against cuBLAS.
 *
 *   gemmladder-bench                   the default sweep, 128 .. 4096 and odd shapes
 *   gemmladder-bench --quick           a few sizes, seconds
 *   gemmladder-bench --full --csv F --json F
 *   gemmladder-bench --ncu             coalescing evidence for rungs 1-2
 *   gemmladder-bench --overhead        the host's time per call, each rung
 *   gemmladder-bench --batched         batches (gl_sgemm_strided_batched) against
 *                                      cuBLAS's strided-batched call
 *   gemmladder-bench --random SEED     100 shapes drawn from SEED, auto's goals on them
 *   gemmladder-bench --help            everything else
 *
 * For each shape, every rung's result is first checked against a float64
 * reference (cuBLAS DGEMM on the same inputs); a rung that is wrong is
 * reported as wrong and not timed. Timing: CUDA events around batches of
 * calls (bu_time_median), warm-up first, the median of the repeats, and
 * enough copies of the inputs rotated that they never sit in L2 between
 * calls. cuBLAS is timed in the
 * same run, so "% cuBLAS" is a ratio from one device at one moment.
 *
 * This file holds what touches the GPU; the command line and the writers of
 * the table, CSV and JSON live in bench_report.c, which is tested without a
 * GPU. The picture is drawn from the JSON by python -m gemmladder.plot.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h> /* the driver API's types, for --overhead's empty kernel */

#include "bench_report.h"
#include "bench_util.h"
#include "cli.h"
#include "gemmladder.h"

static void free_sets(bu_operands *sets, int nsets)
{
    for (int i = 0; i < nsets; ++i) {
        bu_check_cuda(cudaFree(sets[i].a), "cudaFree");
        bu_check_cuda(cudaFree(sets[i].b), "cudaFree");
        bu_check_cuda(cudaFree(sets[i].c), "cudaFree");
        bu_check_cuda(cudaFree(sets[i].pa), "cudaFree");
        bu_check_cuda(cudaFree(sets[i].pb), "cudaFree");
        bu_check_cuda(cudaFree(sets[i].pc), "cudaFree");
    }
}

/* A device array of `count` pointers, entry i at base + i * step. */
static void *pointer_array(const float *base, int64_t count, int64_t step)
{
    const float **host = malloc(sizeof *host * (size_t)count);
    if (!host)
        bu_die("out of host memory for %lld pointers", (long long)count);
    for (int64_t i = 0; i < count; ++i)
        host[i] = base + i * step;
    void *dev = NULL;
    bu_check_cuda(cudaMalloc(&dev, sizeof *host * (size_t)count), "cudaMalloc");
    bu_check_cuda(cudaMemcpy(dev, host, sizeof *host * (size_t)count, cudaMemcpyHostToDevice),
                  "cudaMemcpy");
    free(host);
    return dev;
}

/* ---- one rung at one shape ------------------------------------------------- */

/* The arguments of gl_sgemm_ex for shape s in its form, every matrix
 * stored contiguous. */
typedef struct call_form {
    gl_layout_t layout;
    gl_transpose_t trans_a, trans_b;
    int64_t lda, ldb, ldc;
} call_form;

static call_form form_of(br_shape s)
{
    const int64_t a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
    const int64_t b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
    return (call_form){s.col_major ? GL_COL_MAJOR : GL_ROW_MAJOR, s.trans_a ? GL_OP_T : GL_OP_N,
                       s.trans_b ? GL_OP_T : GL_OP_N, s.col_major ? a_rows : a_cols,
                       s.col_major ? b_rows : b_cols, s.col_major ? s.m : s.n};
}

/* Operands for shape s: its matrices back to back (A's once where it is
 * broadcast), and for a batch through pointer arrays, the arrays. */
static bu_operands operands_for(br_shape s, uint64_t *rng)
{
    bu_operands x = {bu_random_device(br_floats_a(s), rng), bu_random_device(br_floats_b(s), rng),
                     bu_random_device(br_floats_c(s), rng), NULL, NULL, NULL};
    if (s.pointers) {
        x.pa = pointer_array(x.a, s.batch, s.broadcast_a ? 0 : s.m * s.k);
        x.pb = pointer_array(x.b, s.batch, s.k * s.n);
        x.pc = pointer_array(x.c, s.batch, s.m * s.n);
    }
    return x;
}

/* One product C = op(A) op(B) of shape s, in its form; or for a batched
 * shape its whole batch in one gl_sgemm_strided_batched call, each
 * operand's matrices back to back (A's stride 0 where it is broadcast), or
 * in one gl_sgemm_batched call on pointers to the same matrices. */
static gl_status_t shape_call(gl_handle_t h, int v, br_shape s, const bu_operands *x)
{
    const call_form f = form_of(s);
    if (s.pointers)
        return gl_sgemm_batched(h, (gl_variant_t)v, f.layout, f.trans_a, f.trans_b, s.m, s.n,
                                s.k, 1.0f, x->pa, f.lda, x->pb, f.ldb, 0.0f, x->pc, f.ldc,
                                s.batch);
    if (s.batch > 0)
        return gl_sgemm_strided_batched(h, (gl_variant_t)v, f.layout, f.trans_a, f.trans_b, s.m,
                                        s.n, s.k, 1.0f, x->a, f.lda,
                                        s.broadcast_a ? 0 : s.m * s.k, x->b, f.ldb, s.k * s.n,
                                        0.0f, x->c, f.ldc, s.m * s.n, s.batch);
    return gl_sgemm_ex(h, (gl_variant_t)v, f.layout, f.trans_a, f.trans_b, s.m, s.n, s.k, 1.0f,
                       x->a, f.lda, x->b, f.ldb, 0.0f, x->c, f.ldc);
}

/* What bu_time_median calls: one product on the next set of operands. */
typedef struct timed_call {
    gl_handle_t h;
    int variant;
    br_shape s;
    const bu_operands *sets;
    int nsets;
} timed_call;

static int run_timed_call(void *ctx, int repetition)
{
    const timed_call *c = ctx;
    return shape_call(c->h, c->variant, c->s, &c->sets[repetition % c->nsets]);
}

/* The rungs whose rows say they are slow (naive, coalesced) are skipped on
 * shapes above --slow-limit^3 (a batch's work counted whole). */
static int skipped_as_slow(const br_options *o, int v, br_shape s)
{
    const double limit = (double)o->slow_limit;
    return cli_variant(v).slow && o->slow_limit > 0 &&
           (double)s.m * (double)s.n * (double)s.k * (double)br_products(s) >
               limit * limit * limit;
}

static br_result check_and_time(gl_handle_t h, int v, br_shape s, const bu_operands *sets,
                                int nsets, const double *ref, const br_options *o)
{
    br_result r = {.variant_id = v, .shape = s, .runtime_ms = NAN, .gflops = NAN, .gbps = NAN,
                   .pct_of_reference = NAN, .rel_error = NAN, .status = BR_OK};
    snprintf(r.variant, sizeof r.variant, "%s", gl_variant_name((gl_variant_t)v));
    if (skipped_as_slow(o, v, s)) {
        r.status = BR_SKIPPED;
        return r;
    }
    if (gl_variant_available(h, (gl_variant_t)v) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "\n  %s: %s\n", r.variant, gl_last_error(h));
        r.status = BR_UNAVAILABLE;
        return r;
    }
    /* Correctness first, with C poisoned (all bits set: NaN) so a rung that
     * skips an element cannot pass on what was there before. */
    const size_t c_bytes = sizeof(float) * (size_t)br_floats_c(s);
    bu_check_cuda(cudaMemset(sets[0].c, 0xff, c_bytes), "cudaMemset");
    const gl_status_t st = shape_call(h, v, s, &sets[0]);
    if (st != GL_STATUS_SUCCESS) {
        fprintf(stderr, "\n  %s: %s: %s\n", r.variant, gl_status_string(st), gl_last_error(h));
        r.status = BR_FAILED;
        return r;
    }
    /* A fault inside a kernel leaves the context unusable: the tool ends
     * here, naming the rung. */
    char what[192], shape[96];
    snprintf(what, sizeof what, "%s at %s", r.variant, br_shape_text(shape, sizeof shape, s));
    bu_check_cuda(cudaDeviceSynchronize(), what);
    r.rel_error = bu_relative_error(sets[0].c, ref, br_floats_c(s));
    if (!(r.rel_error <= cli_tolerance(v, s.k))) {
        r.status = BR_WRONG;
        return r;
    }
    timed_call c = {h, v, s, sets, nsets};
    r.runtime_ms = bu_time_median(run_timed_call, &c, o->warmup, o->repeats);
    if (r.runtime_ms < 0) {
        fprintf(stderr, "\n  %s: a timed call failed: %s\n", r.variant, gl_last_error(h));
        r.runtime_ms = NAN;
        r.status = BR_FAILED;
        return r;
    }
    br_fill_rates(&r);
    return r;
}

/* What variant v (the engine) runs for a shape (gl_sgemm_plan), as a line
 * under its rows. */
static void print_plan(gl_handle_t h, gl_variant_t v, br_shape s)
{
    gl_plan p = {.size = sizeof p};
    const call_form f = form_of(s);
    /* A batch: the plan of the batched call, as the timed one makes it. */
    const gl_status_t st =
        s.batch > 0
            ? gl_sgemm_strided_batched_plan(h, v, f.layout, f.trans_a, f.trans_b, s.m, s.n, s.k,
                                            NULL, f.lda, s.broadcast_a ? 0 : s.m * s.k, NULL,
                                            f.ldb, s.k * s.n, NULL, f.ldc, s.m * s.n, s.batch, &p)
            : gl_sgemm_plan(h, v, f.layout, f.trans_a, f.trans_b, s.m, s.n, s.k, NULL, f.lda,
                            NULL, f.ldb, NULL, f.ldc, &p);
    if (st != GL_STATUS_SUCCESS)
        return;
    const char *name = gl_variant_name(v);
    static const char *const origins[] = {"fixed", "built-in", "override", "pinned", "default",
                                          "fill",  "thin"};
    const int known =
        p.tiles.origin >= 0 && p.tiles.origin < (int)(sizeof origins / sizeof origins[0]);
    char parts[32] = "";
    if (p.splits > 1)
        snprintf(parts, sizeof parts, ", K in %s%d %s", p.path == GL_PATH_STREAM_K ? "up to " : "",
                 p.splits, p.path == GL_PATH_GEMV ? "slices" : "parts");
    if (p.path == GL_PATH_GEMV) {
        printf("  %s: its matrix-vector kernel%s, %s\n", name, parts, p.why);
        return;
    }
    printf("  %s: %s kernel, %dx%dx%d tiles (%s)%s, %s\n", name,
           p.kernel >= 0 ? gl_variant_name((gl_variant_t)p.kernel) : "no", p.tiles.bm, p.tiles.bn,
           p.tiles.bk, known ? origins[p.tiles.origin] : "?", parts, p.why);
}

/* The plans of the variants asked for whose rows say they plan their calls
 * (the engine, auto). */
static void print_plans(gl_handle_t h, const br_options *o, br_shape s)
{
    /* No plan query takes pointer arrays: auto runs the strided twin's plan
     * made without scratch (K not split across the batch), and one grid of
     * the call's tiles where that plan runs each product on its own. */
    if (s.pointers)
        return;
    for (int i = 0; i < o->nvariants; ++i)
        if (cli_variant(o->variants[i]).engine)
            print_plan(h, (gl_variant_t)o->variants[i], s);
}

/* --workspace-limit: the cap on auto's scratch, set on the tool's handle
 * before anything runs on it (checks and timed calls alike). CLI_OK, or
 * CLI_FAILED after a message. */
static int apply_workspace_limit(gl_handle_t h, const br_options *o)
{
    if (!o->workspace_limit_given)
        return CLI_OK;
    if (gl_set_workspace_limit(h, o->workspace_limit) != GL_STATUS_SUCCESS) {
        fprintf(stderr, "%s: --workspace-limit %lld: %s\n", bu_tool,
                (long long)o->workspace_limit, gl_last_error(h));
        return CLI_FAILED;
    }
    return CLI_OK;
}

/* ---- the sweep --------------------------------------------------------------- */

/* The run's --csv and --json, in that order (cli_output: each written to a
 * temporary beside it, renamed into place when both are complete). */
enum { NOUTPUTS = 2 };
static void outputs_of(const br_options *o, cli_output out[NOUTPUTS])
{
    out[0] = (cli_output){.option = "--csv", .path = o->csv_path};
    out[1] = (cli_output){.option = "--json", .path = o->json_path};
}

/* Writes the report to every output opened by cli_outputs_open and puts
 * them in place: all of them, or (after a message) none. 0, or -1. */
static int write_outputs(cli_output out[NOUTPUTS], const br_report *rep)
{
    if (out[0].f)
        out[0].failed = br_write_csv(out[0].f, rep) != 0;
    if (out[1].f)
        out[1].failed = br_write_json(out[1].f, rep) != 0;
    if (cli_outputs_commit(bu_tool, out, NOUTPUTS) != CLI_OK)
        return -1;
    for (int i = 0; i < NOUTPUTS; ++i)
        if (out[i].path)
            fprintf(stderr, "%s: wrote %s\n", bu_tool, out[i].path);
    return 0;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The GPU's memory bandwidth as a device-to-device cudaMemcpyAsync of 256
 * MiB sees it: bytes read plus bytes written per second, the median of 10
 * copies timed by events (the yardstick of the matrix-vector shapes, which
 * read their big operand once). */
static double copy_gbps(void)
{
    const size_t bytes = (size_t)256 << 20;
    void *src = NULL, *dst = NULL;
    cudaEvent_t start, stop;
    bu_check_cuda(cudaMalloc(&src, bytes), "cudaMalloc");
    bu_check_cuda(cudaMalloc(&dst, bytes), "cudaMalloc");
    bu_check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    bu_check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    bu_check_cuda(cudaMemset(src, 0, bytes), "cudaMemset");
    double ms[10];
    for (int i = -2; i < 10; ++i) { /* two untimed first */
        bu_check_cuda(cudaEventRecord(start, 0), "cudaEventRecord");
        bu_check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0),
                      "cudaMemcpyAsync");
        bu_check_cuda(cudaEventRecord(stop, 0), "cudaEventRecord");
        bu_check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float t = 0.0f;
        bu_check_cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        if (i >= 0)
            ms[i] = t;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
    return 2.0 * (double)bytes / (bu_median(ms, 10) * 1e-3) / 1e9;
}

static int run_sweep(const br_options *o)
{
    /* Outputs first, so a bad path fails now, not after minutes (nor after
     * the GPU is found missing). */
    cli_output out[NOUTPUTS];
    outputs_of(o, out);
    int rc = cli_outputs_open(bu_tool, out, NOUTPUTS);
    if (rc)
        return rc;
    gl_handle_t h;
    if ((rc = cli_open_handle(bu_tool, &h, o->skip_without_gpu)) != CLI_OK) {
        cli_outputs_discard(out, NOUTPUTS);
        return rc;
    }
    if ((rc = apply_workspace_limit(h, o)) != CLI_OK) {
        cli_outputs_discard(out, NOUTPUTS);
        gl_handle_destroy(h);
        return rc;
    }
    const int dev = gl_handle_device(h);
    struct cudaDeviceProp prop;
    bu_check_cuda(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    char device[512], date[32];
    bu_device_description(dev, device, sizeof device);
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const uint64_t seed = o->seed_given ? o->seed : (uint64_t)now;
    uint64_t rng = seed;

    cublasHandle_t cb; /* for the float64 reference only */
    bu_check_cublas(cublasCreate(&cb), "cublasCreate");

    const int reference = cli_reference_variant(); /* cuBLAS: first in each shape's rows */
    const int per_shape = 1 + o->nvariants;
    br_result *results = malloc(sizeof *results * (size_t)(o->nshapes * per_shape));
    if (!results)
        bu_die("out of host memory");
    size_t count = 0;
    int bad = 0;

    printf("device: %s\n", device);
    const double copy_rate = o->sweep == BR_SWEEP_SHAPES ? copy_gbps() : 0.0;
    const int batch_column = br_any_batched(o);
    if (copy_rate > 0)
        printf("memory: a device-to-device copy of 256 MiB moves %.0f GB/s (read plus written)\n",
               copy_rate);
    char limit[96], random_set[96];
    br_workspace_text(o, limit, sizeof limit);
    br_random_text(o, random_set, sizeof random_set);
    printf("%d timed samples (batches of calls, about %.0f ms each) after %d warm-up, median; "
           "inputs uniform in [-1, 1), seed %llu; checked against float64 first (tolerance "
           "%.0e for FP32, %.2g + %.2g K for TF32)%s%s%s%s\n\n",
           o->repeats, BU_SAMPLE_MS, o->warmup, (unsigned long long)seed, CLI_FP32_TOLERANCE,
           CLI_TF32_TOLERANCE, CLI_TF32_TOLERANCE_PER_K, *limit ? "; " : "", limit,
           *random_set ? "; " : "", random_set);
    br_table_header_batched(stdout, batch_column);
    fflush(stdout);

    const double start = seconds_now();
    for (int si = 0; si < o->nshapes; ++si) {
        const br_shape s = o->shapes[si];
        const double shape_start = seconds_now();
        /* A batch's sets are counted by all of its bytes (a single
         * product's as they always were). */
        const int nsets =
            s.batch > 0 ? bu_rotation_sets_bytes(dev, 4.0 * ((double)br_floats_a(s) +
                                                             (double)br_floats_b(s) +
                                                             (double)br_floats_c(s)))
                        : bu_rotation_sets(dev, s.m, s.n, s.k);
        char shape_name[96];
        fprintf(stderr, "[%d/%d] %s (%d input set%s):", si + 1, o->nshapes,
                br_shape_text(shape_name, sizeof shape_name, s), nsets, nsets > 1 ? "s" : "");
        bu_operands sets[16];
        for (int i = 0; i < nsets; ++i)
            sets[i] = operands_for(s, &rng);
        double *ref = s.batch > 0 ? bu_reference_batched(cb, sets[0].a, sets[0].b, s.m, s.n, s.k,
                                                         s.col_major, s.trans_a, s.trans_b,
                                                         s.batch, s.broadcast_a)
                                  : bu_reference(cb, sets[0].a, sets[0].b, s.m, s.n, s.k,
                                                 s.col_major, s.trans_a, s.trans_b);

        br_result *row = &results[count];
        for (int i = 0; i < per_shape; ++i) {
            const int v = i == 0 ? reference : o->variants[i - 1];
            fprintf(stderr, " %s", gl_variant_name((gl_variant_t)v));
            row[i] = check_and_time(h, v, s, sets, nsets, ref, o);
            bad |= row[i].status == BR_WRONG || row[i].status == BR_FAILED;
        }
        fprintf(stderr, " (%.1f s)\n", seconds_now() - shape_start);
        for (int i = 0; i < per_shape; ++i) {
            /* % of cuBLAS only where both ran correctly. */
            if (row[0].status == BR_OK && row[i].status == BR_OK)
                row[i].pct_of_reference = 100.0 * row[i].gflops / row[0].gflops;
            br_table_row_batched(stdout, &row[i], batch_column);
        }
        print_plans(h, o, s);
        fflush(stdout);
        count += (size_t)per_shape;
        free(ref);
        free_sets(sets, nsets);
    }
    fprintf(stderr, "%s: %d shape%s in %.1f s\n", bu_tool, o->nshapes, o->nshapes > 1 ? "s" : "",
            seconds_now() - start);

    const br_report rep = {.device = device, .device_name = prop.name, .date = date,
                           .version = gl_version_string(), .repeats = o->repeats,
                           .warmup = o->warmup, .seed = seed, .results = results,
                           .count = count};
    printf("\n");
    br_write_summary(stdout, &rep, 0);
    if (o->sweep == BR_SWEEP_SHAPES)
        br_write_goals(stdout, &rep, copy_rate);
    if (o->sweep == BR_SWEEP_BATCHED)
        br_write_batch_goals(stdout, &rep);
    if (o->sweep == BR_SWEEP_RANDOM)
        br_write_random_goals(stdout, &rep);
    if (*random_set)
        printf("%s\n", random_set); /* after the goals too: the header is 100 shapes back */
    printf("device: %s\n", device);
    if (bad)
        printf("SOME RUNGS WERE WRONG OR FAILED: see the status column\n");

    const int write_failed = write_outputs(out, &rep) != 0;

    free(results);
    bu_check_cublas(cublasDestroy(cb), "cublasDestroy");
    gl_handle_destroy(h);
    return write_failed ? CLI_FAILED : bad ? CLI_WRONG : CLI_OK;
}

/* ---- --profile-once: the target of --ncu ------------------------------------- */

/* A handle on the GPU (with --workspace-limit's cap), and the device's
 * line printed (and the cap's); or the tool's exit code. */
static int open_and_describe(const br_options *o, gl_handle_t *h)
{
    int rc = cli_open_handle(bu_tool, h, o->skip_without_gpu);
    if (rc)
        return rc;
    if ((rc = apply_workspace_limit(*h, o)) != CLI_OK) {
        gl_handle_destroy(*h);
        return rc;
    }
    char device[512], limit[96];
    bu_device_description(gl_handle_device(*h), device, sizeof device);
    printf("device: %s\n", device);
    if (*br_workspace_text(o, limit, sizeof limit))
        printf("%s\n", limit);
    return 0;
}

static int run_profile_once(const br_options *o)
{
    gl_handle_t h;
    const int rc = open_and_describe(o, &h);
    if (rc)
        return rc;
    const int64_t n = o->ncu_size;
    uint64_t rng = o->seed_given ? o->seed : (uint64_t)time(NULL);
    float *a = bu_random_device(n * n, &rng), *b = bu_random_device(n * n, &rng),
          *c = bu_random_device(n * n, &rng);
    int failed = 0;
    for (int i = 0; i < o->nvariants; ++i) {
        const gl_variant_t v = (gl_variant_t)o->variants[i];
        const gl_status_t st = gl_sgemm(h, v, n, n, n, a, b, c);
        if (st != GL_STATUS_SUCCESS) {
            fprintf(stderr, "%s: %s: %s\n", bu_tool, gl_variant_name(v), gl_last_error(h));
            failed = 1;
            continue;
        }
        bu_check_cuda(cudaDeviceSynchronize(), "running a rung");
        printf("ran %s once at %lldx%lldx%lld\n", gl_variant_name(v), (long long)n, (long long)n,
               (long long)n);
    }
    bu_check_cuda(cudaFree(a), "cudaFree");
    bu_check_cuda(cudaFree(b), "cudaFree");
    bu_check_cuda(cudaFree(c), "cudaFree");
    gl_handle_destroy(h);
    return failed ? CLI_WRONG : CLI_OK;
}

/* ---- --overhead: the host's time per call -------------------------------------- */

enum { OVERHEAD_CALLS = 50, OVERHEAD_BUSY = 6144 };

/* What --overhead times besides the variants, for scale: a step of a call
 * with no library around it. */
enum { FLOOR_MEMSET = -1, FLOOR_EMPTY_KERNEL = -2, FLOOR_POINTER_QUERIES = -3 };

/*
 * The launch floor: a kernel that does nothing, with as many bytes of
 * parameters as the library's tiled kernels take (KERNEL_PARAM_BYTES),
 * written in PTX, which the driver compiles for this GPU when it loads it.
 * Loaded and launched through the driver's own entry points, fetched
 * through the runtime as the library fetches cuPointerGetAttributes, so
 * the tool needs no link to libcuda.
 */
#define KERNEL_PARAM_BYTES 144 /* a gl_problem and a gl_schedule: test_internal.c checks it */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
static const char empty_kernel_ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry empty(.param .align 8 .b8 p[" STRINGIFY(KERNEL_PARAM_BYTES) "]) { ret; }\n";

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);

/* The steps timed for scale: the empty kernel (module, function, launch,
 * unload) and the pointer queries. */
typedef struct scale_steps {
    CUmodule module; /* NULL: could not be loaded; the floor is not timed */
    CUfunction function;
    launch_fn launch;
    CUresult (*unload)(CUmodule);
    /* cuPointerGetAttributes: the queries the library makes of A, B and C
     * (gemm.c, check_pointer). NULL: not timed. */
    CUresult (*pointer_attributes)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
} scale_steps;

static void *driver_entry(const char *name)
{
    enum cudaDriverEntryPointQueryResult found;
    void *fn = NULL;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return fn;
}

static scale_steps scale_steps_load(void)
{
    scale_steps e = {0};
    e.pointer_attributes =
        (CUresult(*)(unsigned, CUpointer_attribute *, void **, CUdeviceptr))driver_entry(
            "cuPointerGetAttributes");
    CUresult (*load)(CUmodule *, const void *) =
        (CUresult(*)(CUmodule *, const void *))driver_entry("cuModuleLoadData");
    CUresult (*get)(CUfunction *, CUmodule, const char *) =
        (CUresult(*)(CUfunction *, CUmodule, const char *))driver_entry("cuModuleGetFunction");
    e.launch = (launch_fn)driver_entry("cuLaunchKernel");
    e.unload = (CUresult(*)(CUmodule))driver_entry("cuModuleUnload");
    if (!load || !get || !e.launch || !e.unload ||
        load(&e.module, empty_kernel_ptx) != CUDA_SUCCESS)
        return (scale_steps){.pointer_attributes = e.pointer_attributes};
    if (get(&e.function, e.module, "empty") != CUDA_SUCCESS) {
        e.unload(e.module);
        return (scale_steps){.pointer_attributes = e.pointer_attributes};
    }
    return e;
}

/* The six attributes the library asks of each operand, of A, B and C. */
static int pointer_queries(const scale_steps *e, float *a, float *b, float *c)
{
    unsigned int type, managed;
    int ordinal;
    void *device_ptr;
    CUdeviceptr start;
    size_t size;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *data[] = {&type, &managed, &ordinal, &device_ptr, &start, &size};
    const float *operands[] = {a, b, c};
    for (int i = 0; i < 3; ++i)
        if (e->pointer_attributes(sizeof attrs / sizeof attrs[0], attrs, data,
                                  (CUdeviceptr)(uintptr_t)operands[i]) != CUDA_SUCCESS)
            return 0;
    return 1;
}

/* One call of variant v on shape s, or one FLOOR_ step with no library
 * around it: a cudaMemsetAsync of C or the empty kernel on the handle's
 * stream, or the pointer queries. 0 if it failed. */
static int overhead_call(gl_handle_t h, const scale_steps *e, int v, br_shape s, float *a,
                         float *b, float *c)
{
    if (v == FLOOR_POINTER_QUERIES)
        return e->pointer_attributes && pointer_queries(e, a, b, c);
    if (v < 0) {
        void *stream = NULL;
        if (gl_get_stream(h, &stream) != GL_STATUS_SUCCESS)
            return 0;
        if (v == FLOOR_MEMSET)
            return cudaMemsetAsync(c, 0, sizeof(float) * (size_t)br_floats_c(s),
                                   (cudaStream_t)stream) == cudaSuccess;
        if (!e->module)
            return 0;
        unsigned char params[KERNEL_PARAM_BYTES] = {0};
        void *args[] = {params};
        return e->launch(e->function, 1, 1, 1, 32, 1, 1, 0, (CUstream)stream, args, NULL) ==
               CUDA_SUCCESS;
    }
    const bu_operands x = {a, b, c, NULL, NULL, NULL}; /* --overhead takes no --pointers */
    return shape_call(h, v, s, &x) == GL_STATUS_SUCCESS;
}

/* Microseconds the host spends in each overhead_call of v while the GPU is
 * busy: a cuBLAS product of OVERHEAD_BUSY^3 (about 9 ms on an H100) is
 * queued first, then OVERHEAD_CALLS calls are timed by the host clock; the
 * median of the samples. NAN if a call failed. */
static double host_us_per_call(gl_handle_t h, const scale_steps *e, int v, br_shape s, float *a,
                               float *b, float *c, float *busy[3], int repeats)
{
    /* One call first: loads the kernels, creates cuBLAS state, fills the
     * pool, so the samples see the steady state. */
    if (!overhead_call(h, e, v, s, a, b, c))
        return NAN;
    bu_check_cuda(cudaDeviceSynchronize(), "the first call");
    double *samples = malloc(sizeof(double) * (size_t)repeats);
    if (!samples)
        bu_die("out of memory");
    int ok = 1;
    for (int r = 0; r < repeats && ok; ++r) {
        ok = gl_sgemm(h, (gl_variant_t)cli_reference_variant(), OVERHEAD_BUSY, OVERHEAD_BUSY, OVERHEAD_BUSY, busy[0],
                      busy[1], busy[2]) == GL_STATUS_SUCCESS;
        const double t0 = seconds_now();
        for (int i = 0; i < OVERHEAD_CALLS && ok; ++i)
            ok = overhead_call(h, e, v, s, a, b, c);
        samples[r] = (seconds_now() - t0) * 1e6 / OVERHEAD_CALLS;
        bu_check_cuda(cudaDeviceSynchronize(), "the timed calls");
    }
    const double median = ok ? bu_median(samples, repeats) : NAN;
    free(samples);
    return median;
}

static int run_overhead(const br_options *o)
{
    gl_handle_t h;
    const int rc = open_and_describe(o, &h);
    if (rc)
        return rc;
    printf("host time per call, the GPU kept busy by a %dx%dx%d cuBLAS product queued first: "
           "median of %d samples of %d calls; for scale, a cudaMemsetAsync of C and an empty "
           "kernel with %d bytes of parameters are one enqueue each, and 3 pointer queries "
           "are the cuPointerGetAttributes calls a product makes of A, B and C, with no "
           "library around them\n\n",
           OVERHEAD_BUSY, OVERHEAD_BUSY, OVERHEAD_BUSY, o->repeats, OVERHEAD_CALLS,
           KERNEL_PARAM_BYTES);
    uint64_t rng = o->seed_given ? o->seed : (uint64_t)time(NULL);
    float *busy[3];
    for (int i = 0; i < 3; ++i)
        busy[i] = bu_random_device((int64_t)OVERHEAD_BUSY * OVERHEAD_BUSY, &rng);
    const scale_steps floors = scale_steps_load();
    printf("%-28s %-17s %10s\n", "shape", "variant", "us/call");
    int failed = 0;
    for (int si = 0; si < o->nshapes; ++si) {
        const br_shape s = o->shapes[si];
        float *a = bu_random_device(br_floats_a(s), &rng),
              *b = bu_random_device(br_floats_b(s), &rng),
              *c = bu_random_device(br_floats_c(s), &rng);
        char shape[96];
        br_shape_text(shape, sizeof shape, s);
        printf("%-28s %-17s %10.2f\n", shape, "cudaMemsetAsync",
               host_us_per_call(h, &floors, FLOOR_MEMSET, s, a, b, c, busy, o->repeats));
        if (floors.module)
            printf("%-28s %-17s %10.2f\n", shape, "empty kernel",
                   host_us_per_call(h, &floors, FLOOR_EMPTY_KERNEL, s, a, b, c, busy, o->repeats));
        else
            printf("%-28s %-17s %10s\n", shape, "empty kernel", "unavailable");
        if (floors.pointer_attributes)
            printf("%-28s %-17s %10.2f\n", shape, "3 pointer queries",
                   host_us_per_call(h, &floors, FLOOR_POINTER_QUERIES, s, a, b, c, busy,
                                    o->repeats));
        else
            printf("%-28s %-17s %10s\n", shape, "3 pointer queries", "unavailable");
        for (int i = -1; i < o->nvariants; ++i) { /* the reference first, as in the sweep */
            const gl_variant_t v =
                i < 0 ? (gl_variant_t)cli_reference_variant() : (gl_variant_t)o->variants[i];
            if (skipped_as_slow(o, v, s)) {
                printf("%-28s %-17s %10s\n", shape, gl_variant_name(v), "skipped");
                continue;
            }
            if (gl_variant_available(h, v) != GL_STATUS_SUCCESS) {
                printf("%-28s %-17s %10s\n", shape, gl_variant_name(v), "unavailable");
                continue;
            }
            const double us = host_us_per_call(h, &floors, v, s, a, b, c, busy, o->repeats);
            if (isnan(us)) {
                fprintf(stderr, "%s: %s: %s\n", bu_tool, gl_variant_name(v), gl_last_error(h));
                failed = 1;
                continue;
            }
            printf("%-28s %-17s %10.2f\n", shape, gl_variant_name(v), us);
            fflush(stdout);
        }
        bu_check_cuda(cudaFree(a), "cudaFree");
        bu_check_cuda(cudaFree(b), "cudaFree");
        bu_check_cuda(cudaFree(c), "cudaFree");
    }
    for (int i = 0; i < 3; ++i)
        bu_check_cuda(cudaFree(busy[i]), "cudaFree");
    if (floors.module)
        (void)floors.unload(floors.module);
    gl_handle_destroy(h);
    return failed ? CLI_FAILED : CLI_OK;
}

/* ---- --ncu ---------------------------------------------------------------------- */

static int executable(const char *path)
{
    return path && *path && access(path, X_OK) == 0;
}

/* Nsight Compute's CLI: $NCU, then PATH, then the toolkit's bin/. */
static int find_ncu(char *out, size_t size)
{
    const char *env = getenv("NCU");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return executable(out);
    }
    const char *path = getenv("PATH");
    if (path) {
        for (const char *p = path; *p;) {
            const size_t len = strcspn(p, ":");
            snprintf(out, size, "%.*s/ncu", (int)len, p);
            if (len && executable(out))
                return 1;
            p += len + (p[len] == ':');
        }
    }
    const char *cuda_home = getenv("CUDA_HOME");
    if (cuda_home && *cuda_home) {
        snprintf(out, size, "%s/bin/ncu", cuda_home);
        if (executable(out))
            return 1;
    }
    snprintf(out, size, "/usr/local/cuda/bin/ncu");
    return executable(out);
}

/* One line a shell can run: words quoted only where they need it. */
static void print_command(FILE *out, const char *const *args)
{
    for (int i = 0; args[i]; ++i) {
        const int plain = args[i][0] && strspn(args[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "abcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_./,:=+-") == strlen(args[i]);
        fprintf(out, plain ? "%s%s" : "%s'%s'", i ? " " : "", args[i]);
    }
    fputc('\n', out);
}

static void copy_file(const char *path, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, out);
    fclose(f);
}

/* --ncu measures one step of the ladder, from rung 1 to rung 2 (memory
 * coalescing): the sectors per load request of their kernels. */
#define NCU_RUNGS "naive,coalesced"
#define NCU_KERNELS "naive_kernel|coalesced_kernel"

static int run_ncu(const br_options *o, const char *argv0)
{
    char ncu[PATH_MAX], self[PATH_MAX], size[32], seed[32], log_path[PATH_MAX];
    const int have_ncu = find_ncu(ncu, sizeof ncu);
    /* The tool profiles itself: the same binary, in --profile-once mode. */
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0)
        self[len] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv0);
    snprintf(size, sizeof size, "%lld", (long long)o->ncu_size);
    snprintf(seed, sizeof seed, "%llu",
             (unsigned long long)(o->seed_given ? o->seed : (uint64_t)time(NULL)));
    const char *tmp = getenv("TMPDIR");
    snprintf(log_path, sizeof log_path, "%s/gemmladder-ncu-XXXXXX", tmp && *tmp ? tmp : "/tmp");

    const char *args[] = {have_ncu ? ncu : "ncu",
                          "--clock-control", "none",
                          "--print-units", "base",
                          "--csv",
                          "--log-file", log_path,
                          "--kernel-name", "regex:" NCU_KERNELS,
                          "--metrics", BR_NCU_SECTORS "," BR_NCU_REQUESTS,
                          self, "--profile-once", "--variants", NCU_RUNGS,
                          "--ncu-size", size, "--seed", seed,
                          NULL};
    if (!have_ncu) {
        /* The same measurement, for a machine where ncu is installed. */
        const char *by_hand[] = {"ncu", "--clock-control", "none", "--kernel-name",
                                 "regex:" NCU_KERNELS, "--metrics",
                                 BR_NCU_SECTORS "," BR_NCU_REQUESTS, self, "--profile-once",
                                 "--variants", NCU_RUNGS, "--ncu-size", size, NULL};
        const char *env = getenv("NCU");
        if (env && *env)
            fprintf(stderr, "%s: NCU=%s is not an executable\n", bu_tool, env);
        fprintf(stderr,
                "%s: Nsight Compute's ncu was not found (looked at $NCU, on PATH, in "
                "$CUDA_HOME/bin and /usr/local/cuda/bin).\n"
                "Install Nsight Compute (it comes with the CUDA toolkit, or on its own) and "
                "run --ncu again, or run by hand\n  ",
                bu_tool);
        print_command(stderr, by_hand);
        fprintf(stderr, "and divide sectors by requests for each kernel.\n");
        return CLI_FAILED;
    }
    const int fd = mkstemp(log_path);
    if (fd < 0)
        bu_die("cannot create a temporary file %s: %s", log_path, strerror(errno));
    close(fd);

    fprintf(stderr, "%s: running ", bu_tool);
    print_command(stderr, args);
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0)
        bu_die("fork: %s", strerror(errno));
    if (pid == 0) {
        execv(ncu, (char *const *)args);
        fprintf(stderr, "%s: cannot run %s: %s\n", bu_tool, ncu, strerror(errno));
        _exit(127);
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            bu_die("waitpid: %s", strerror(errno));
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        fprintf(stderr, "%s: ncu failed (%s %d); its output:\n", bu_tool,
                WIFEXITED(wstatus) ? "exit status" : "signal",
                WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
        copy_file(log_path, stderr);
        fprintf(stderr,
                "%s: if it mentions ERR_NVGPUCTRPERM, reading GPU counters needs permission: "
                "run as root, or see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n",
                bu_tool);
        remove(log_path);
        return CLI_FAILED;
    }

    static const char *const kernels[2] = {"naive_kernel", "coalesced_kernel"};
    br_ncu_loads loads[2];
    int missing = 0;
    for (int i = 0; i < 2; ++i) {
        FILE *f = fopen(log_path, "r");
        if (!f)
            bu_die("cannot read %s: %s", log_path, strerror(errno));
        if (br_parse_ncu_csv(f, kernels[i], &loads[i]) != 0 || loads[i].requests <= 0)
            missing = 1;
        fclose(f);
    }
    if (missing) {
        fprintf(stderr, "%s: ncu ran but its output lacks the load counters of %s and %s; "
                        "its output is in %s\n",
                bu_tool, kernels[0], kernels[1], log_path);
        return CLI_FAILED;
    }
    remove(log_path);

    printf("\nglobal loads at %sx%sx%s, ncu --clock-control none:\n", size, size, size);
    printf("%-18s %14s %14s %16s\n", "kernel", "requests", "sectors", "sectors/request");
    for (int i = 0; i < 2; ++i)
        printf("%-18s %14.0f %14.0f %16.2f\n", kernels[i], loads[i].requests, loads[i].sectors,
               loads[i].sectors / loads[i].requests);
    printf("A warp's 32 four-byte loads need 4 sectors of 32 bytes when they are "
           "consecutive,\n1 when all read the same word, 32 when each lands in its own "
           "sector.\n");
    return 0;
}

int main(int argc, char **argv)
{
    bu_tool = "gemmladder-bench";
    br_options o;
    char err[512];
    if (br_parse_args(&o, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", bu_tool, err, bu_tool);
        return CLI_USAGE;
    }
    switch (o.mode) {
    case BR_MODE_HELP:
        br_print_usage(stdout);
        return CLI_OK;
    case BR_MODE_VERSION:
        cli_print_version(stdout, bu_tool);
        return CLI_OK;
    case BR_MODE_NCU:
        return run_ncu(&o, argv[0]);
    case BR_MODE_PROFILE_ONCE:
        return run_profile_once(&o);
    case BR_MODE_OVERHEAD:
        return run_overhead(&o);
    case BR_MODE_BENCH:
        break;
    }
    return run_sweep(&o);
}
