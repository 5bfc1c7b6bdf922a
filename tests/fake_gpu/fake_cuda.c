/*
 * fake_cuda.c - the CUDA runtime, driver and cuBLAS calls of the library's
 * host C files, answered without a GPU (fake_gpu.h). Device 0 (and any
 * other) looks like an H100: compute capability 9.0, 132 SMs, 227 KB of
 * shared memory per block, memory pools.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "fake_gpu.h"
#include "variants.h"

static int device_count = 1;
static _Thread_local int current_device;
static _Thread_local cudaError_t last_error;
static _Thread_local fake_launch launches[FAKE_GPU_LOG];
static _Thread_local int launch_count;

static int driver_version = CUDART_VERSION;

void fake_gpu_set_devices(int count) { __atomic_store_n(&device_count, count, __ATOMIC_SEQ_CST); }
void fake_gpu_set_driver(int version) { __atomic_store_n(&driver_version, version, __ATOMIC_SEQ_CST); }

static int devices(void) { return __atomic_load_n(&device_count, __ATOMIC_SEQ_CST); }
static int driver(void) { return __atomic_load_n(&driver_version, __ATOMIC_SEQ_CST); }

static cudaError_t fail(cudaError_t err) { return last_error = err; }

/* ---- allocations ------------------------------------------------------------ */

#define MAX_ALLOCATIONS 4096
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t start, size;
    unsigned char *values; /* for allocations of up to FAKE_GPU_VALUE_BYTES, else NULL */
} allocations[MAX_ALLOCATIONS];
static int allocation_count;
static uint64_t next_address = (uint64_t)1 << 44;

void *fake_gpu_alloc(uint64_t bytes)
{
    void *p = NULL;
    pthread_mutex_lock(&alloc_lock);
    if (allocation_count < MAX_ALLOCATIONS && bytes <= ((uint64_t)1 << 50)) {
        allocations[allocation_count].start = next_address;
        allocations[allocation_count].size = bytes;
        allocations[allocation_count].values =
            bytes <= FAKE_GPU_VALUE_BYTES ? calloc(1, (size_t)bytes) : NULL;
        ++allocation_count;
        p = (void *)(uintptr_t)next_address;
        next_address += (bytes + 4096 + 255) / 256 * 256; /* a gap between allocations */
    }
    pthread_mutex_unlock(&alloc_lock);
    return p;
}

void fake_gpu_free(void *p)
{
    pthread_mutex_lock(&alloc_lock);
    for (int i = 0; i < allocation_count; ++i)
        if (allocations[i].start == (uint64_t)(uintptr_t)p) {
            free(allocations[i].values);
            allocations[i] = allocations[--allocation_count];
            break;
        }
    pthread_mutex_unlock(&alloc_lock);
}

/* The values of bytes [at, at + bytes) of fake device memory, where they
 * lie in one allocation that holds values, else NULL. Under alloc_lock. */
static unsigned char *values_at(uint64_t at, size_t bytes)
{
    for (int i = 0; i < allocation_count; ++i)
        if (at >= allocations[i].start && at - allocations[i].start <= allocations[i].size &&
            bytes <= allocations[i].size - (at - allocations[i].start))
            return allocations[i].values ? allocations[i].values + (at - allocations[i].start)
                                         : NULL;
    return NULL;
}

bool fake_gpu_write(void *device, const void *src, size_t bytes)
{
    pthread_mutex_lock(&alloc_lock);
    unsigned char *v = values_at((uint64_t)(uintptr_t)device, bytes);
    if (v)
        memcpy(v, src, bytes);
    pthread_mutex_unlock(&alloc_lock);
    return v != NULL;
}

void fake_gpu_read(const void *device, void *dst, size_t bytes)
{
    pthread_mutex_lock(&alloc_lock);
    const unsigned char *v = values_at((uint64_t)(uintptr_t)device, bytes);
    if (v)
        memcpy(dst, v, bytes);
    else
        memset(dst, 0, bytes);
    pthread_mutex_unlock(&alloc_lock);
}

/* cuPointerGetAttributes: device memory for the fake allocations, memory
 * type 0 (unknown to CUDA: host memory) for anything else. */
static CUresult pointer_attributes(unsigned count, CUpointer_attribute *attrs, void **data,
                                   CUdeviceptr ptr)
{
    uint64_t start = 0, size = 0;
    bool found = false;
    pthread_mutex_lock(&alloc_lock);
    for (int i = 0; i < allocation_count && !found; ++i)
        if (ptr >= allocations[i].start && ptr - allocations[i].start < allocations[i].size)
            start = allocations[i].start, size = allocations[i].size, found = true;
    pthread_mutex_unlock(&alloc_lock);
    for (unsigned i = 0; i < count; ++i) {
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned *)data[i] = found ? CU_MEMORYTYPE_DEVICE : 0;
            break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *(bool *)data[i] = false;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            if (found)
                *(int *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
            if (found)
                *(void **)data[i] = (void *)(uintptr_t)ptr;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            if (found)
                *(CUdeviceptr *)data[i] = (CUdeviceptr)start;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
            if (found)
                *(size_t *)data[i] = (size_t)size;
            break;
        default:
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

/* ---- launches ---------------------------------------------------------------- */

void fake_gpu_record(const fake_launch *l)
{
    if (launch_count < FAKE_GPU_LOG)
        launches[launch_count] = *l;
    ++launch_count;
}

void fake_gpu_clear_launches(void) { launch_count = 0; }
int fake_gpu_launch_count(void) { return launch_count; }
const fake_launch *fake_gpu_launch(int i)
{
    return i >= 0 && i < launch_count && i < FAKE_GPU_LOG ? &launches[i] : NULL;
}

/* ---- the runtime --------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 0;
    if (driver() < CUDART_VERSION) /* none installed, or too old */
        return fail(cudaErrorInsufficientDriver);
    *count = devices();
    return *count > 0 ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaDriverGetVersion(int *version)
{
    *version = driver();
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (devices() == 0)
        return fail(cudaErrorNoDevice);
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device >= devices())
        return fail(cudaErrorInvalidDevice);
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device < 0 || device >= devices())
        return fail(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    strcpy(prop->name, "fake GPU (gemmladder tests)");
    prop->major = 9, prop->minor = 0, prop->multiProcessorCount = 132;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device < 0 || device >= devices())
        return fail(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMultiProcessorCount: *value = 132; break;
    case cudaDevAttrPageableMemoryAccess: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 227 * 1024; break;
    case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int version,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *status)
{
    (void)version, (void)flags;
    const bool known = strcmp(symbol, "cuPointerGetAttributes") == 0;
    *fn = known ? (void *)pointer_attributes : NULL;
    if (status)
        *status = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    const cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    default: return "cudaErrorFake";
    }
}

const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    default: return "an error of the fake GPU";
    }
}

/* Copies from fake device memory to the host (the library reads pointer
 * arrays back so); done at once, as on a stream that is idle. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    if (kind != cudaMemcpyDeviceToHost)
        return fail(cudaErrorInvalidValue);
    fake_gpu_read(src, dst, count);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return cudaSuccess;
}

/* Pools are a byte of host memory each, so LeakSanitizer sees one left behind. */
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
    (void)props;
    *pool = (cudaMemPool_t)malloc(1);
    return *pool ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
    free((void *)pool);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    (void)pool, (void)attr, (void)value;
    return cudaSuccess;
}

/* ---- cuBLAS ------------------------------------------------------------------- */

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = (cublasHandle_t)malloc(1);
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    free((void *)handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    (void)handle, (void)mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    (void)handle, (void)stream;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status)
{
    return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_FAKE";
}

/* Column-major C^T = op(B)^T op(A)^T (00_cublas.c): recorded as the
 * row-major product the library asked for. */
cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                 const float *alpha, const float *A, int64_t lda, const float *B,
                                 int64_t ldb, const float *beta, float *C, int64_t ldc)
{
    (void)handle;
    const fake_launch l = {0, (int)n, (int)m, (int)k, B, A, C, ldb, lda, ldc,
                           transb != CUBLAS_OP_N, transa != CUBLAS_OP_N, *alpha, *beta, false};
    fake_gpu_record(&l);
    return CUBLAS_STATUS_SUCCESS;
}

/* The variant whose row uses cuBLAS with TF32 precision. */
static int cublas_tf32_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        if (d->uses_cublas && d->precision == GL_PRECISION_TF32)
            return v;
    }
    return -1;
}

/* A strided batched call (00_cublas.c): recorded as its row-major products,
 * one by one, each marked batched. */
static void record_batch(int variant, cublasOperation_t transa, cublasOperation_t transb,
                         int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                         int64_t lda, int64_t stride_a, const float *B, int64_t ldb,
                         int64_t stride_b, float beta, float *C, int64_t ldc, int64_t stride_c,
                         int64_t count)
{
    for (int64_t i = 0; i < count; ++i) {
        const fake_launch l = {variant, (int)n, (int)m, (int)k, B + i * stride_b,
                               A + i * stride_a, C + i * stride_c, ldb, lda, ldc,
                               transb != CUBLAS_OP_N, transa != CUBLAS_OP_N, alpha, beta, true};
        fake_gpu_record(&l);
    }
}

cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
                                            cublasOperation_t transb, int64_t m, int64_t n,
                                            int64_t k, const float *alpha, const float *A,
                                            int64_t lda, long long int strideA, const float *B,
                                            int64_t ldb, long long int strideB,
                                            const float *beta, float *C, int64_t ldc,
                                            long long int strideC, int64_t batchCount)
{
    (void)handle;
    record_batch(0, transa, transb, m, n, k, *alpha, A, lda, strideA, B, ldb, strideB, *beta, C,
                 ldc, strideC, batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

/* A pointer-array batched call (00_cublas.c): recorded as its row-major
 * products, one by one, each marked batched, with the entries as they are
 * (NULL ones too: cuBLAS does not skip them). */
static void record_pointers(int variant, cublasOperation_t transa, cublasOperation_t transb,
                            int64_t m, int64_t n, int64_t k, float alpha,
                            const float *const A[], int64_t lda, const float *const B[],
                            int64_t ldb, float beta, float *const C[], int64_t ldc, int64_t count)
{
    for (int64_t i = 0; i < count; ++i) {
        const float *a, *b;
        float *c;
        fake_gpu_read(A + i, &a, sizeof a), fake_gpu_read(B + i, &b, sizeof b);
        fake_gpu_read(C + i, &c, sizeof c);
        const fake_launch l = {variant, (int)n, (int)m, (int)k, b, a, c, ldb, lda, ldc,
                               transb != CUBLAS_OP_N, transa != CUBLAS_OP_N, alpha, beta, true};
        fake_gpu_record(&l);
    }
}

cublasStatus_t cublasSgemmBatched_64(cublasHandle_t handle, cublasOperation_t transa,
                                     cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                     const float *alpha, const float *const Aarray[], int64_t lda,
                                     const float *const Barray[], int64_t ldb, const float *beta,
                                     float *const Carray[], int64_t ldc, int64_t batchCount)
{
    (void)handle;
    record_pointers(0, transa, transb, m, n, k, *alpha, Aarray, lda, Barray, ldb, *beta, Carray,
                    ldc, batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                      cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *const Aarray[],
                                      cudaDataType Atype, int64_t lda, const void *const Barray[],
                                      cudaDataType Btype, int64_t ldb, const void *beta,
                                      void *const Carray[], cudaDataType Ctype, int64_t ldc,
                                      int64_t batchCount, cublasComputeType_t computeType,
                                      cublasGemmAlgo_t algo)
{
    (void)handle, (void)Atype, (void)Btype, (void)Ctype, (void)computeType, (void)algo;
    record_pointers(cublas_tf32_variant(), transa, transb, m, n, k, *(const float *)alpha,
                    (const float *const *)Aarray, lda, (const float *const *)Barray, ldb,
                    *(const float *)beta, (float *const *)Carray, ldc, batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmStridedBatchedEx_64(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
    int64_t n, int64_t k, const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
    long long int strideA, const void *B, cudaDataType Btype, int64_t ldb, long long int strideB,
    const void *beta, void *C, cudaDataType Ctype, int64_t ldc, long long int strideC,
    int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)handle, (void)Atype, (void)Btype, (void)Ctype, (void)computeType, (void)algo;
    record_batch(cublas_tf32_variant(), transa, transb, m, n, k, *(const float *)alpha, A, lda,
                 strideA, B, ldb, strideB, *(const float *)beta, C, ldc, strideC, batchCount);
    return CUBLAS_STATUS_SUCCESS;
}

/* cublas_tf32's call (00_cublas.c): recorded as the row-major product, for
 * the variant whose row uses cuBLAS with TF32 precision. */
cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
                               cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                               const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                               const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
                               void *C, cudaDataType Ctype, int64_t ldc,
                               cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)handle, (void)Atype, (void)Btype, (void)Ctype, (void)computeType, (void)algo;
    const fake_launch l = {cublas_tf32_variant(), (int)n, (int)m, (int)k, B, A, C, ldb, lda, ldc,
                           transb != CUBLAS_OP_N, transa != CUBLAS_OP_N, *(const float *)alpha,
                           *(const float *)beta, false};
    fake_gpu_record(&l);
    return CUBLAS_STATUS_SUCCESS;
}
