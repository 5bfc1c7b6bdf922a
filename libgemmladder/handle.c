/*
 * handle.c - creating and destroying handles, streams, lazily created cuBLAS
 * state, and which variants a handle's device can run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Decides once, at creation, whether each variant can run on this device. */
static void decide_availability(struct gl_handle_s *h)
{
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *r = gl_variant_find((gl_variant_t)v);
        if (r->uses_cublas)
            h->available[v] = GL_STATUS_SUCCESS; /* cuBLAS carries its own GPU code */
        else if (h->cc < r->min_cc || !gl_build_covers(h->cc) ||
                 (r->arch_specific && !gl_build_has_arch_specific(r->min_cc, h->cc)))
            h->available[v] = GL_STATUS_UNSUPPORTED_VARIANT;
        else
            h->available[v] = GL_STATUS_SUCCESS;
    }
}

/* The pool the engine takes scratch memory from, stream-ordered. A device
 * without memory pools, or a failure here, leaves it NULL: auto then reads
 * unaligned operands in place, which is slower but not wrong. */
static void create_scratch_pool(struct gl_handle_s *h)
{
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, h->device) ||
        !supported) {
        (void)cudaGetLastError();
        return;
    }
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = h->device;
    cudaMemPool_t pool = NULL;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    uint64_t keep = GL_SCRATCH_KEEP_BYTES; /* without it, the pool keeps nothing: slower, fine */
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
        (void)cudaGetLastError();
    h->scratch = pool;
}

/* Why there is no device to use, in the user's terms. The runtime answers
 * "CUDA driver version is insufficient for CUDA runtime version" both when
 * no driver is installed and when it is too old; the driver's version (0:
 * none) tells them apart. */
static gl_status_t fail_no_device(cudaError_t err)
{
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError(); /* callers start clean */
    if (driver == 0)
        return gl_fail(NULL, GL_STATUS_NO_DEVICE,
                       "gl_handle_create: no NVIDIA driver is installed (the CUDA runtime found "
                       "no libcuda.so.1)");
    if (err == cudaErrorInsufficientDriver && driver < runtime)
        return gl_fail(NULL, GL_STATUS_NO_DEVICE,
                       "gl_handle_create: the NVIDIA driver supports CUDA up to %d.%d, older "
                       "than the CUDA runtime %d.%d this library was built with; update the "
                       "driver",
                       driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    if (err == cudaErrorNoDevice || err == cudaSuccess) { /* success: a count of 0 */
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        return gl_fail(NULL, GL_STATUS_NO_DEVICE,
                       "gl_handle_create: the NVIDIA driver (CUDA %d.%d) is installed but finds "
                       "no GPU%s%s%s",
                       driver / 1000, driver % 1000 / 10,
                       visible ? " (CUDA_VISIBLE_DEVICES=\"" : "", visible ? visible : "",
                       visible ? "\")" : "");
    }
    return gl_fail(NULL, GL_STATUS_NO_DEVICE, "gl_handle_create: no usable CUDA device: %s (%s)",
                   cudaGetErrorString(err), cudaGetErrorName(err));
}

gl_status_t gl_handle_create(gl_handle_t *handle)
{
    if (!handle)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_handle_create: handle is NULL");
    *handle = NULL;

    char why[GL_MESSAGE_SIZE - 32];
    const gl_status_t tuning = gl_tuning_init(why, sizeof why);
    if (tuning != GL_STATUS_SUCCESS)
        return gl_fail(NULL, tuning, "gl_handle_create: %s", why);

    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return fail_no_device(err);

    int device = 0;
    if ((err = cudaGetDevice(&device)) != cudaSuccess)
        return gl_fail_cuda(NULL, "gl_handle_create: cudaGetDevice", err);
    /* Makes the device's primary context current, so pointer queries work. */
    if ((err = cudaSetDevice(device)) != cudaSuccess)
        return gl_fail_cuda(NULL, "gl_handle_create: cudaSetDevice", err);

    struct gl_handle_s *h = calloc(1, sizeof *h);
    if (!h)
        return gl_fail(NULL, GL_STATUS_ALLOC_FAILED, "gl_handle_create: out of host memory");
    h->device = device;

    struct cudaDeviceProp prop;
    int major = 0, minor = 0, smem = 0;
    if ((err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device)) ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        (err = cudaDeviceGetAttribute(&h->sm_count, cudaDevAttrMultiProcessorCount, device)) ||
        (err = cudaDeviceGetAttribute(&h->pageable_access, cudaDevAttrPageableMemoryAccess,
                                      device)) ||
        (err = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device))) {
        free(h);
        return gl_fail_cuda(NULL, "gl_handle_create: querying the device", err);
    }
    h->cc = major * 10 + minor;
    h->code_cc = gl_build_code(h->cc);
    h->smem_limit = (size_t)smem;
    snprintf(h->device_name, sizeof h->device_name, "%s", prop.name);

    /* The driver's pointer query answers type, device and extent in one call;
     * fetched through the runtime so the library needs no link to libcuda. */
    enum cudaDriverEntryPointQueryResult found;
    void *fn = NULL;
    err = cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000,
                                           cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) {
        free(h);
        return gl_fail(NULL, GL_STATUS_CUDA_ERROR,
                       "gl_handle_create: the driver does not provide cuPointerGetAttributes (%s)",
                       cudaGetErrorString(err));
    }
    h->pointer_attributes = (gl_pointer_attributes_fn)fn;

    h->scratch_limit = GL_WORKSPACE_NO_LIMIT;
    create_scratch_pool(h);
    decide_availability(h);
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *r = gl_variant_find((gl_variant_t)v);
        if (h->available[v] == GL_STATUS_SUCCESS && r->prepare && (err = r->prepare())) {
            if (h->scratch)
                (void)cudaMemPoolDestroy(h->scratch);
            free(h);
            return gl_fail_cuda(NULL, "gl_handle_create: preparing the kernels", err);
        }
    }
    *handle = h;
    return GL_STATUS_SUCCESS;
}

void gl_handle_destroy(gl_handle_t h)
{
    if (!h)
        return;
    if (h->cublas) {
        int current = -1;
        const bool switch_device = cudaGetDevice(&current) == cudaSuccess && current != h->device;
        if (switch_device)
            (void)cudaSetDevice(h->device);
        (void)cublasDestroy(h->cublas);
        if (switch_device)
            (void)cudaSetDevice(current);
    }
    /* Scratch still in use by queued work is freed by CUDA once that work
     * is done (cudaMemPoolDestroy returns at once). */
    if (h->scratch)
        (void)cudaMemPoolDestroy(h->scratch);
    free(h);
}

gl_status_t gl_handle_cublas(struct gl_handle_s *h)
{
    if (h->cublas)
        return GL_STATUS_SUCCESS;
    cublasHandle_t c = NULL;
    cublasStatus_t st = cublasCreate(&c);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gl_fail_cublas(h, "creating cuBLAS state: cublasCreate", st);
    /* Default math: FP32 throughout, never TF32 tensor cores. */
    if ((st = cublasSetMathMode(c, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS ||
        (st = cublasSetStream(c, h->stream)) != CUBLAS_STATUS_SUCCESS) {
        cublasDestroy(c);
        return gl_fail_cublas(h, "configuring cuBLAS state", st);
    }
    h->cublas = c;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_set_stream(gl_handle_t h, void *stream)
{
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_set_stream: handle is NULL");
    if (h->cublas) {
        const cublasStatus_t st = cublasSetStream(h->cublas, (cudaStream_t)stream);
        if (st != CUBLAS_STATUS_SUCCESS)
            return gl_fail_cublas(h, "gl_set_stream: cublasSetStream", st);
    }
    h->stream = (cudaStream_t)stream;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_get_stream(gl_handle_t h, void **stream)
{
    if (!h || !stream)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "gl_get_stream: %s is NULL",
                       h ? "stream" : "handle");
    *stream = (void *)h->stream;
    return GL_STATUS_SUCCESS;
}

int32_t gl_handle_device(gl_handle_t h) { return h ? h->device : -1; }

gl_status_t gl_variant_available(gl_handle_t h, gl_variant_t variant)
{
    const gl_variant_desc *r = gl_variant_find(variant);
    if (!r)
        return gl_unknown_variant(h, "gl_variant_available", variant);
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_variant_available: handle is NULL");
    if (h->available[variant] == GL_STATUS_SUCCESS)
        return GL_STATUS_SUCCESS;
    if (h->cc < r->min_cc)
        return gl_fail(h, GL_STATUS_UNSUPPORTED_VARIANT,
                       "variant '%s' needs compute capability %d.%d; device %d (%s) has %d.%d",
                       r->name, r->min_cc / 10, r->min_cc % 10, h->device, h->device_name,
                       h->cc / 10, h->cc % 10);
    if (r->arch_specific && gl_build_covers(h->cc))
        return gl_fail(h, GL_STATUS_UNSUPPORTED_VARIANT,
                       "variant '%s' is code for compute capability %d.%d only (sm_%da), which "
                       "this build %s; device %d (%s) has %d.%d",
                       r->name, r->min_cc / 10, r->min_cc % 10, r->min_cc,
                       gl_build_code(r->min_cc) == r->min_cc ? "holds" : "does not hold",
                       h->device, h->device_name, h->cc / 10, h->cc % 10);
    return gl_fail(h, GL_STATUS_UNSUPPORTED_VARIANT,
                   "variant '%s': this build holds GPU code for %s, none of which runs on "
                   "device %d (%s, compute capability %d.%d)",
                   r->name, gl_build_arch_string(), h->device, h->device_name, h->cc / 10,
                   h->cc % 10);
}

/* ---- scratch memory: the limit and the caller's buffer ------------------------ */

/* The bytes a caller's buffer must be aligned to: auto lays its copies out
 * in 256-byte blocks (plan.c, copy_bytes) from the start of its scratch,
 * and its kernels read them 16 bytes at a time; cudaMalloc's alignment,
 * and cublasSetWorkspace's requirement. */
#define WORKSPACE_ALIGNMENT 256

size_t gl_scratch_budget(const struct gl_handle_s *h, void **workspace)
{
    const bool buffer = h->workspace && h->workspace_stream == h->stream;
    if (workspace)
        *workspace = buffer ? h->workspace : NULL;
    const int64_t most = buffer ? (h->workspace_bytes < h->scratch_limit ? h->workspace_bytes
                                                                         : h->scratch_limit)
                         : h->scratch ? h->scratch_limit
                                      : 0;
    return (size_t)most; /* >= 0; size_t is 64 bits wherever CUDA runs */
}

gl_status_t gl_set_workspace_limit(gl_handle_t h, int64_t bytes)
{
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_set_workspace_limit: handle is NULL");
    if (bytes < 0)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace_limit: bytes (%lld) must be >= 0 (0: no scratch; "
                       "GL_WORKSPACE_NO_LIMIT: no cap)",
                       (long long)bytes);
    h->scratch_limit = bytes;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_get_workspace_limit(gl_handle_t h, int64_t *bytes)
{
    if (!h || !bytes)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "gl_get_workspace_limit: %s is NULL",
                       h ? "bytes" : "handle");
    *bytes = h->scratch_limit;
    return GL_STATUS_SUCCESS;
}

CUresult gl_query_pointer(const struct gl_handle_s *h, const void *p, gl_pointer_info *info)
{
    *info = (gl_pointer_info){.ordinal = -1};
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *data[] = {&info->type,       &info->managed, &info->ordinal,
                    &info->device_ptr, &info->start,   &info->size};
    return h->pointer_attributes(sizeof attrs / sizeof attrs[0], attrs, data,
                                 (CUdeviceptr)(uintptr_t)p);
}

/* A caller's buffer must be device memory the handle's GPU reads at full
 * speed, with `bytes` bytes from `p` inside one allocation. */
static gl_status_t check_workspace(gl_handle_t h, const void *p, int64_t bytes)
{
    gl_pointer_info info;
    const CUresult r = gl_query_pointer(h, p, &info);
    const unsigned int type = info.type;
    const int ordinal = info.ordinal;
    const CUdeviceptr start = info.start;
    const size_t size = info.size;
    if (r != CUDA_SUCCESS)
        return gl_fail(h, GL_STATUS_CUDA_ERROR,
                       "gl_set_workspace: workspace (%p): cuPointerGetAttributes failed with "
                       "driver error %d",
                       p, (int)r);
    if (type != CU_MEMORYTYPE_DEVICE) {
        char kind[32];
        snprintf(kind, sizeof kind, "%s", type == 0 ? "host memory" : "pinned host memory");
        if (type != 0 && type != CU_MEMORYTYPE_HOST)
            snprintf(kind, sizeof kind, "memory of type %u", type);
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace: workspace (%p) is not device memory (%s); allocate it "
                       "with cudaMalloc",
                       p, kind);
    }
    if (!info.managed && ordinal != h->device)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace: workspace (%p) is memory of device %d, but the handle "
                       "runs on device %d",
                       p, ordinal, h->device);
    if (size > 0) {
        const uint64_t offset = (uint64_t)(uintptr_t)p - (uint64_t)start;
        if (offset > size || (uint64_t)bytes > size - offset)
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "gl_set_workspace: workspace (%p) of %lld bytes, but its allocation "
                           "has only %llu bytes from that address",
                           p, (long long)bytes,
                           (unsigned long long)(offset > size ? 0 : size - offset));
    }
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_set_workspace(gl_handle_t h, void *workspace, int64_t bytes)
{
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_set_workspace: handle is NULL");
    if (bytes < 0)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace: bytes (%lld) must be >= 0", (long long)bytes);
    if (!workspace && bytes != 0)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace: workspace is NULL but bytes is %lld (NULL and 0 "
                       "return the handle to its pool)",
                       (long long)bytes);
    if ((uintptr_t)workspace % WORKSPACE_ALIGNMENT)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_set_workspace: workspace (%p) is not aligned to %d bytes (as "
                       "cudaMalloc aligns)",
                       workspace, WORKSPACE_ALIGNMENT);
    if (workspace) {
        const gl_status_t st = check_workspace(h, workspace, bytes);
        if (st != GL_STATUS_SUCCESS)
            return st;
    }
    h->workspace = workspace;
    h->workspace_bytes = bytes;
    h->workspace_stream = h->stream;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_get_workspace(gl_handle_t h, void **workspace, int64_t *bytes)
{
    if (!h || !workspace || !bytes)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "gl_get_workspace: %s is NULL",
                       !h ? "handle" : !workspace ? "workspace" : "bytes");
    *workspace = h->workspace;
    *bytes = h->workspace_bytes;
    return GL_STATUS_SUCCESS;
}
