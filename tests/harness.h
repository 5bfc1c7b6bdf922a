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
