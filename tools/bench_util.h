/*
 * bench_util.h - what the command-line tools share: random device matrices,
 * a float64 reference product, the error measure, and event timing.
 * Every CUDA or cuBLAS failure here ends the tool with a message (tools may
 * exit; the library never does).
 */
#ifndef GL_BENCH_UTIL_H
#define GL_BENCH_UTIL_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gemmladder.h"

/* Prints "<tool>: <message>" to stderr and exits with CLI_FAILED (cli.h). */
void bu_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

void bu_check_cuda(cudaError_t err, const char *what);
void bu_check_cublas(cublasStatus_t st, const char *what);

/* The tool's name for messages (set once from argv[0]). */
extern const char *bu_tool;

/* A device buffer of n floats, uniform in [-1, 1) and never 0. */
float *bu_random_device(int64_t n, uint64_t *rng_state);

/* float64 reference of C = op(A) op(B) (op(A) m x k, op(B) k x n, every
 * matrix contiguous, row-major or, with col_major, column-major; trans_a
 * and trans_b: A stored k x m, B stored n x k), computed on the device by
 * cuBLAS DGEMM on upcast copies. Returns a host array of m * n doubles, C as
 * stored, that the caller frees. */
double *bu_reference(cublasHandle_t cb, const float *dA, const float *dB, int64_t m, int64_t n,
                     int64_t k, int col_major, int trans_a, int trans_b);

/* The same for `batch` products (batch >= 1) of that shape, each operand's
 * matrices back to back on the device (strides m k, k n, m n), or with
 * broadcast_a one A for all of them: cublasDgemmStridedBatched on upcast
 * copies, a slice of the batch at a time so the double copies stay under
 * about 512 MiB (one product at a time where a product needs more). Returns
 * a host array of batch * m * n doubles, the batch's C as stored, that the
 * caller frees. */
double *bu_reference_batched(cublasHandle_t cb, const float *dA, const float *dB, int64_t m,
                             int64_t n, int64_t k, int col_major, int trans_a, int trans_b,
                             int64_t batch, int broadcast_a);

/* ||C - ref|| / ||ref|| for device C (m * n floats); +inf if C holds a NaN
 * or an infinity. */
double bu_relative_error(const float *dC, const double *ref, int64_t count);

/* A run of one operation to time: called with the index of the repetition,
 * so it can rotate through several input sets. Returns 0 on success. */
typedef int (*bu_run_fn)(void *ctx, int repetition);

/* The median of n >= 1 values (sorts them in place). */
double bu_median(double *values, int n);

/* How long one timed sample lasts, about (see bu_time_median). */
#define BU_SAMPLE_MS 2.0

/* Median milliseconds per call over `repeats` timed samples, after `warmup`
 * single calls. A sample is a batch of calls issued back to back between two
 * CUDA events on the default stream, its time divided by the batch: the
 * batch (1 to 64 calls) makes a sample last about BU_SAMPLE_MS judging by the
 * fastest warm-up, so that a short product is not timed together with the
 * host's launch work in front of it. Returns a negative value if a call
 * failed. */
double bu_time_median(bu_run_fn run, void *ctx, int warmup, int repeats);

/* One line describing the device, clocks, driver and date, for reports. */
void bu_device_description(int device, char *out, size_t size);

/* Sets of operands (A, B, C) enough to make every call miss in L2. */
typedef struct bu_operands {
    float *a, *b, *c;
    /* For a batch through pointer arrays: device arrays of pointers to its
     * matrices in a, b and c; else NULL. */
    const float **pa, **pb;
    float **pc;
} bu_operands;

int bu_rotation_sets(int device, int64_t m, int64_t n, int64_t k);
/* The same for a set of set_bytes bytes (a batch's operands, all of them). */
int bu_rotation_sets_bytes(int device, double set_bytes);

#endif
