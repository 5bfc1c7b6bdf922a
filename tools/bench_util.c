/* bench_util.c - shared pieces of the command-line tools (see bench_util.h). */
#include "bench_util.h"

#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *bu_tool = "gemmladder";

void bu_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", bu_tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(CLI_FAILED);
}

void bu_check_cuda(cudaError_t err, const char *what)
{
    if (err != cudaSuccess)
        bu_die("%s: %s", what, cudaGetErrorString(err));
}

void bu_check_cublas(cublasStatus_t st, const char *what)
{
    if (st != CUBLAS_STATUS_SUCCESS)
        bu_die("%s: %s", what, cublasGetStatusName(st));
}

static float uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((float)(z >> 40) + 0.5f) / 8388608.0f - 1.0f;
}

float *bu_random_device(int64_t n, uint64_t *rng_state)
{
    float *h = malloc(sizeof(float) * (size_t)n), *d = NULL;
    if (!h)
        bu_die("out of host memory for %lld floats", (long long)n);
    for (int64_t i = 0; i < n; ++i)
        h[i] = uniform(rng_state);
    bu_check_cuda(cudaMalloc((void **)&d, sizeof(float) * (size_t)n), "cudaMalloc");
    bu_check_cuda(cudaMemcpy(d, h, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice),
                  "cudaMemcpy");
    free(h);
    return d;
}

static double *upcast(const float *d, int64_t n)
{
    float *h = malloc(sizeof(float) * (size_t)n);
    double *hd = malloc(sizeof(double) * (size_t)n), *dd = NULL;
    if (!h || !hd)
        bu_die("out of host memory");
    bu_check_cuda(cudaMemcpy(h, d, sizeof(float) * (size_t)n, cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
    for (int64_t i = 0; i < n; ++i)
        hd[i] = h[i];
    bu_check_cuda(cudaMalloc((void **)&dd, sizeof(double) * (size_t)n), "cudaMalloc");
    bu_check_cuda(cudaMemcpy(dd, hd, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice),
                  "cudaMemcpy");
    free(h);
    free(hd);
    return dd;
}

double *bu_reference(cublasHandle_t cb, const float *dA, const float *dB, int64_t m, int64_t n,
                     int64_t k, int col_major, int trans_a, int trans_b)
{
    double *da = upcast(dA, m * k), *db = upcast(dB, k * n), *dc = NULL;
    bu_check_cuda(cudaMalloc((void **)&dc, sizeof(double) * (size_t)(m * n)), "cudaMalloc");
    const double one = 1.0, zero = 0.0;
    const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                            op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (col_major) { /* cuBLAS's own layout */
        bu_check_cublas(cublasDgemm_64(cb, op_a, op_b, m, n, k, &one, da, trans_a ? k : m, db,
                                       trans_b ? n : k, &zero, dc, m),
                        "cublasDgemm");
    } else { /* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T */
        bu_check_cublas(cublasDgemm_64(cb, op_b, op_a, n, m, k, &one, db, trans_b ? k : n, da,
                                       trans_a ? m : k, &zero, dc, n),
                        "cublasDgemm");
    }
    double *ref = malloc(sizeof(double) * (size_t)(m * n));
    if (!ref)
        bu_die("out of host memory");
    bu_check_cuda(cudaMemcpy(ref, dc, sizeof(double) * (size_t)(m * n), cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return ref;
}

/* Double copies of A, B and C above this many bytes are made a slice of
 * the batch at a time. */
#define REFERENCE_SLICE_BYTES ((double)(512 << 20))

double *bu_reference_batched(cublasHandle_t cb, const float *dA, const float *dB, int64_t m,
                             int64_t n, int64_t k, int col_major, int trans_a, int trans_b,
                             int64_t batch, int broadcast_a)
{
    double *ref = malloc(sizeof(double) * (size_t)(batch * m * n));
    if (!ref)
        bu_die("out of host memory for the float64 reference of %lld products",
               (long long)batch);
    const double per_product =
        8.0 * ((broadcast_a ? 0.0 : (double)(m * k)) + (double)(k * n) + (double)(m * n));
    int64_t slice = (int64_t)(REFERENCE_SLICE_BYTES / per_product);
    slice = slice < 1 ? 1 : slice > batch ? batch : slice;
    const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                            op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const double one = 1.0, zero = 0.0;
    const long long stride_a = broadcast_a ? 0 : (long long)(m * k), stride_b = k * n,
                    stride_c = m * n;
    double *da_all = broadcast_a ? upcast(dA, m * k) : NULL, *dc = NULL;
    bu_check_cuda(cudaMalloc((void **)&dc, sizeof(double) * (size_t)(slice * m * n)),
                  "cudaMalloc");
    for (int64_t first = 0; first < batch; first += slice) {
        const int64_t count = batch - first < slice ? batch - first : slice;
        double *da = broadcast_a ? da_all : upcast(dA + first * m * k, count * m * k);
        double *db = upcast(dB + first * k * n, count * k * n);
        if (col_major) { /* cuBLAS's own layout */
            bu_check_cublas(cublasDgemmStridedBatched_64(cb, op_a, op_b, m, n, k, &one, da,
                                                         trans_a ? k : m, stride_a, db,
                                                         trans_b ? n : k, stride_b, &zero, dc,
                                                         m, stride_c, count),
                            "cublasDgemmStridedBatched");
        } else { /* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T */
            bu_check_cublas(cublasDgemmStridedBatched_64(cb, op_b, op_a, n, m, k, &one, db,
                                                         trans_b ? k : n, stride_b, da,
                                                         trans_a ? m : k, stride_a, &zero, dc,
                                                         n, stride_c, count),
                            "cublasDgemmStridedBatched");
        }
        bu_check_cuda(cudaMemcpy(ref + first * m * n, dc, sizeof(double) * (size_t)(count * m * n),
                                 cudaMemcpyDeviceToHost),
                      "cudaMemcpy");
        if (!broadcast_a)
            cudaFree(da);
        cudaFree(db);
    }
    cudaFree(da_all);
    cudaFree(dc);
    return ref;
}

double bu_relative_error(const float *dC, const double *ref, int64_t count)
{
    float *h = malloc(sizeof(float) * (size_t)count);
    if (!h)
        bu_die("out of host memory");
    bu_check_cuda(cudaMemcpy(h, dC, sizeof(float) * (size_t)count, cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < count; ++i) {
        if (!isfinite(h[i])) {
            free(h);
            return INFINITY;
        }
        diff += (h[i] - ref[i]) * (h[i] - ref[i]);
        norm += ref[i] * ref[i];
    }
    free(h);
    return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bu_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double bu_time_median(bu_run_fn run, void *ctx, int warmup, int repeats)
{
    cudaEvent_t start, stop;
    bu_check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    bu_check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    double *ms = malloc(sizeof(double) * (size_t)repeats);
    double result = -1.0, fastest = INFINITY;
    int call = 0, batch = 1, i = 0;
    for (; i < warmup + repeats; ++i) {
        if (i == warmup) /* samples of about BU_SAMPLE_MS each, from the fastest warm-up */
            batch = isfinite(fastest) && fastest > 0 ? (int)fmin(fmax(BU_SAMPLE_MS / fastest, 1), 64) : 1;
        const int calls = i < warmup ? 1 : batch;
        bu_check_cuda(cudaEventRecord(start, 0), "cudaEventRecord");
        int failed = 0;
        for (int j = 0; j < calls && !failed; ++j)
            failed = run(ctx, call++) != 0;
        if (failed)
            break;
        bu_check_cuda(cudaEventRecord(stop, 0), "cudaEventRecord");
        bu_check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float t = 0;
        bu_check_cuda(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        if (i < warmup)
            fastest = fmin(fastest, t);
        else
            ms[i - warmup] = t / calls;
    }
    if (i == warmup + repeats)
        result = bu_median(ms, repeats);
    free(ms);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return result;
}

void bu_device_description(int device, char *out, size_t size)
{
    struct cudaDeviceProp p;
    int driver = 0, clock = 0, memclock = 0;
    bu_check_cuda(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    cudaDriverGetVersion(&driver);
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&memclock, cudaDevAttrMemoryClockRate, device);
    char date[32];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    snprintf(out, size,
             "%s (sm_%d%d, %d SMs, max SM clock %d MHz, memory clock %d MHz, L2 %d MB); "
             "CUDA driver %d.%d; gemmladder %s; %s",
             p.name, p.major, p.minor, p.multiProcessorCount, clock / 1000, memclock / 1000,
             p.l2CacheSize >> 20, driver / 1000, (driver % 1000) / 10, gl_version_string(), date);
}

int bu_rotation_sets(int device, int64_t m, int64_t n, int64_t k)
{
    return bu_rotation_sets_bytes(device,
                                  4.0 * ((double)m * k + (double)k * n + (double)m * n));
}

int bu_rotation_sets_bytes(int device, double set_bytes)
{
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    const int sets = (int)ceil(2.0 * l2 / set_bytes) + 1;
    return sets > 16 ? 16 : sets;
}
