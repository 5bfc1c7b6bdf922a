/*
 * status.c - version, status names, and where failure messages are kept.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

/* Indexed by status value; the public enum pins the values. */
static const char *const status_names[] = {
    [GL_STATUS_SUCCESS] = "success",
    [GL_STATUS_INVALID_ARGUMENT] = "invalid argument",
    [GL_STATUS_UNKNOWN_VARIANT] = "unknown variant",
    [GL_STATUS_UNSUPPORTED_VARIANT] = "variant not supported on this device",
    [GL_STATUS_NO_DEVICE] = "no CUDA device",
    [GL_STATUS_CUDA_ERROR] = "CUDA error",
    [GL_STATUS_CUBLAS_ERROR] = "cuBLAS error",
    [GL_STATUS_TUNING_ERROR] = "tuning table error",
    [GL_STATUS_ALLOC_FAILED] = "allocation failed",
};

const char *gl_status_string(gl_status_t status)
{
    const unsigned i = (unsigned)status;
    if (i < sizeof status_names / sizeof status_names[0] && status_names[i])
        return status_names[i];
    return "unknown status";
}

#define GL_STR_(x) #x
#define GL_STR(x) GL_STR_(x)

int32_t gl_version(void) { return GL_VERSION; }

const char *gl_version_string(void)
{
    return GL_STR(GL_VERSION_MAJOR) "." GL_STR(GL_VERSION_MINOR) "." GL_STR(GL_VERSION_PATCH);
}

/* Messages of calls that had no handle to keep them, one buffer per thread. */
static _Thread_local char thread_message[GL_MESSAGE_SIZE];

static char *message_buffer(struct gl_handle_s *h)
{
    return h ? h->message : thread_message;
}

const char *gl_last_error(gl_handle_t handle)
{
    return message_buffer(handle);
}

gl_status_t gl_fail(struct gl_handle_s *h, gl_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message_buffer(h), GL_MESSAGE_SIZE, fmt, ap);
    va_end(ap);
    return status;
}

gl_status_t gl_fail_cuda(struct gl_handle_s *h, const char *what, cudaError_t err)
{
    const gl_status_t status =
        err == cudaErrorMemoryAllocation ? GL_STATUS_ALLOC_FAILED : GL_STATUS_CUDA_ERROR;
    return gl_fail(h, status, "%s: %s (%s, %d)", what, cudaGetErrorString(err),
                   cudaGetErrorName(err), (int)err);
}

gl_status_t gl_fail_cublas(struct gl_handle_s *h, const char *what, cublasStatus_t st)
{
    const gl_status_t status =
        st == CUBLAS_STATUS_ALLOC_FAILED ? GL_STATUS_ALLOC_FAILED : GL_STATUS_CUBLAS_ERROR;
    return gl_fail(h, status, "%s: %s (%d)", what, cublasGetStatusName(st), (int)st);
}
