/*
 * harness.h - the few checks the C tests share. Each test program counts its
 * checks, prints every failure with file and line, and exits 0 (all passed),
 * 1 (some failed) or 77 (skipped: no GPU), as meson expects.
 */
#ifndef GL_TEST_HARNESS_H
#define GL_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmladder.h"

static int harness_checks, harness_failures;

/* The facts of variant v from its row (gl_variant_describe): the tests take
 * their lists of variants (tuned ones, the reference, the engine) from the
 * rows, not from names. */
static inline gl_variant_info harness_variant(int v)
{
    gl_variant_info info = {.size = sizeof info};
    if (gl_variant_describe((gl_variant_t)v, &info) != GL_STATUS_SUCCESS)
        info.rows_of = -1;
    return info;
}

/* The tolerance the tests apply to ||C - C_ref|| / ||C_ref|| (inputs
 * uniform in [-1, 1], a sum K deep) for a variant of precision class
 * `precision` (gemmladder.h), or 0 for a class the tests do not know:
 *   FP32 and FP32_EMULATED: 1e-5;
 *   TF32: each operand rounded to TF32 is off by up to u = 2^-11 of
 *   itself, so a product by up to 2u plus FP32's rounding: 3u, and FP32
 *   sums K deep add up to K * 2^-24 more at worst (twice that allowed).
 *   0.0015 at K = 1, 0.0022 at K = 4096, 0.0034 at K = 16384.
 * TF32 variants are also held to twice cuBLAS TF32's error on the same
 * inputs (harness_tf32_ratio_ok). */
#define HARNESS_FP32_TOLERANCE 1e-5
static inline double harness_class_tolerance(int32_t precision, int64_t k)
{
    switch (precision) {
    case GL_PRECISION_FP32:
    case GL_PRECISION_FP32_EMULATED:
        return HARNESS_FP32_TOLERANCE;
    case GL_PRECISION_TF32:
        return 3.0 / 2048.0 + 2.0 * (double)k / 16777216.0;
    default:
        return 0.0;
    }
}

/* The tolerance for variant v on a product K deep, by its row's class. */
static inline double harness_tolerance(int v, int64_t k)
{
    gl_variant_info info = {.size = sizeof info};
    if (gl_variant_describe((gl_variant_t)v, &info) != GL_STATUS_SUCCESS)
        return 0.0;
    return harness_class_tolerance(info.precision, k);
}

/* A TF32 variant's error e beside cuBLAS TF32's on the same inputs,
 * reference_error: at most twice it. Where cuBLAS's error is at FP32's
 * level it did not round to TF32 on that product (cuBLAS may run FP32
 * kernels on small shapes), and the class's bound alone applies. FP32's
 * level is its tolerance times the case's cancellation (reference.h): on a
 * C of a few elements whose sums cancel, an FP32 kernel's error can stand
 * far above the bare tolerance. */
#define HARNESS_TF32_RATIO 2.0
static inline int harness_tf32_ratio_ok(double e, double reference_error, double cancellation)
{
    return !(reference_error > HARNESS_FP32_TOLERANCE * cancellation) ||
           e <= HARNESS_TF32_RATIO * reference_error;
}

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        ++harness_checks;                                                                     \
        if (!(cond)) {                                                                        \
            ++harness_failures;                                                               \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

/* A call must return `want`, and (when `needle` is non-NULL) the message of
 * `handle` must contain `needle`. */
#define CHECK_STATUS(handle, call, want, needle)                                              \
    do {                                                                                      \
        const gl_status_t got_ = (call);                                                      \
        const char *msg_ = gl_last_error(handle), *needle_ = (needle);                        \
        CHECK(got_ == (want), "%s returned %d (%s), expected %d (%s); message: %s", #call,    \
              (int)got_, gl_status_string(got_), (int)(want), gl_status_string(want), msg_); \
        if (needle_)                                                                          \
            CHECK(strstr(msg_, needle_) != NULL,                                              \
                  "message of %s is \"%s\", expected it to mention \"%s\"", #call, msg_,     \
                  needle_);                                                                   \
    } while (0)

/* A CUDA runtime call in test code itself must succeed. */
#define CHECK_CUDA(call)                                                                      \
    do {                                                                                      \
        const cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorString(err_));                                                \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static int harness_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, harness_checks, harness_failures);
    if (harness_checks == 0) {
        fprintf(stderr, "%s: no checks ran\n", name);
        return 1;
    }
    return harness_failures ? 1 : 0;
}

/* Exit code meson reads as "skipped". */
#define HARNESS_SKIP 77

/* The GPU tests' first step: a handle on the current device. Returns -1 with
 * the handle made, or the exit code to end with: HARNESS_SKIP where there is
 * no GPU, a failure otherwise. */
static inline int harness_gpu_handle(gl_handle_t *h, const char *name)
{
    const gl_status_t st = gl_handle_create(h);
    if (st == GL_STATUS_NO_DEVICE) {
        printf("skipped: %s\n", gl_last_error(NULL));
        return HARNESS_SKIP;
    }
    CHECK(st == GL_STATUS_SUCCESS, "gl_handle_create: %s", gl_last_error(NULL));
    return st == GL_STATUS_SUCCESS ? -1 : harness_finish(name);
}

#endif
