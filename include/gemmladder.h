/*
 * gemmladder.h - public C interface of libgemmladder.
 *
 * libgemmladder runs one FP32 matrix product, C = alpha * op(A) * op(B) + beta * C,
 * through any rung of the GEMM optimisation ladder (naive kernel up to warp
 * tiling), with cuBLAS as the reference rung. Every rung computes the same
 * function for every size; they differ only in speed.
 *
 * This header is plain C (C99 or later, or C++): it needs no CUDA header.
 * Streams are passed as `void *` holding a cudaStream_t, and matrices as
 * device pointers (memory the handle's GPU can read and write).
 *
 * Conventions used throughout:
 *  - Every function that can fail returns gl_status_t; GL_STATUS_SUCCESS is 0.
 *  - After a failure, gl_last_error(handle) holds a message that names the
 *    argument and values at fault; failures of calls made without a handle
 *    (or with a NULL one) are recorded per thread and read with
 *    gl_last_error(NULL).
 *  - The library never prints, exits or aborts.
 *  - Enum values are part of the ABI: they are pinned and never renumbered.
 */
#ifndef GEMMLADDER_H
#define GEMMLADDER_H

#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Version. This block is the single source of the version: the build reads
 * it, and gl_version() returns the same numbers from the compiled library.  */

#define GL_VERSION_MAJOR 1
#define GL_VERSION_MINOR 2
#define GL_VERSION_PATCH 0

/* ABI version: the N in the SONAME libgemmladder.so.N. It changes only when a
 * released function, type or enum value changes incompatibly (docs/abi.md). */
#define GL_ABI_VERSION 1

#define GL_MAKE_VERSION(major, minor, patch) \
    ((major) * 10000 + (minor) * 100 + (patch))
#define GL_VERSION \
    GL_MAKE_VERSION(GL_VERSION_MAJOR, GL_VERSION_MINOR, GL_VERSION_PATCH)

#if defined(_WIN32)
#define GL_API
#elif defined(__GNUC__) || defined(__clang__)
#define GL_API __attribute__((visibility("default")))
#else
#define GL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes. */

typedef enum gl_status {
    GL_STATUS_SUCCESS = 0,
    /* An argument is wrong: NULL pointer, negative size, leading dimension
     * too small, a pointer the GPU cannot access, ... The message says which. */
    GL_STATUS_INVALID_ARGUMENT = 1,
    /* The variant id is not one this library knows (see gl_variant_count). */
    GL_STATUS_UNKNOWN_VARIANT = 2,
    /* The variant exists but cannot run here: the device is too old for it,
     * or this build carries no GPU code the device can run. */
    GL_STATUS_UNSUPPORTED_VARIANT = 3,
    /* No CUDA device is present, or the driver could not be initialised. */
    GL_STATUS_NO_DEVICE = 4,
    /* The CUDA runtime reported an error; the message carries its text. */
    GL_STATUS_CUDA_ERROR = 5,
    /* cuBLAS reported an error; the message carries its name. */
    GL_STATUS_CUBLAS_ERROR = 6,
    /* A tuning table could not be used (reserved for the tuning interface). */
    GL_STATUS_TUNING_ERROR = 7,
    /* Memory (host, device, or a cuBLAS workspace) could not be allocated. */
    GL_STATUS_ALLOC_FAILED = 8
} gl_status_t;

/* Short English name of a status, e.g. "invalid argument". Never NULL: an
 * unknown value gives "unknown status". The string is static. */
GL_API const char *gl_status_string(gl_status_t status);

/* ------------------------------------------------------------------------ */
/* Variants: the rungs of the ladder. Ids are dense, start at 0 and are never
 * renumbered; new rungs are appended. */

typedef enum gl_variant {
    GL_VARIANT_CUBLAS = 0,       /* reference: cuBLAS SGEMM, FP32 compute      */
    GL_VARIANT_NAIVE = 1,        /* one thread per element of C               */
    GL_VARIANT_COALESCED = 2,    /* warp walks along a row of C               */
    GL_VARIANT_SHARED = 3,       /* K-tiles of A and B staged in shared memory */
    GL_VARIANT_BLOCKTILE_1D = 4, /* each thread computes TM results           */
    GL_VARIANT_BLOCKTILE_2D = 5, /* each thread computes a TM x TN patch      */
    GL_VARIANT_VECTORIZED = 6,   /* 16-byte loads, A transposed in shared mem  */
    GL_VARIANT_AUTOTUNED = 7,    /* rung 6 with tiles from the tuning table   */
    GL_VARIANT_WARPTILE = 8,     /* block -> warp -> thread tiling            */
    GL_VARIANT_AUTO = 9,         /* the engine: the fastest exact-FP32 path the
                                    library has for the shape (since 1.1)    */
    GL_VARIANT_TF32 = 10,        /* tensor cores: warp-level mma.sync on TF32
                                    operands, FP32 sums (since 1.2)          */
    GL_VARIANT_CUBLAS_TF32 = 11, /* reference of the TF32 class: cuBLAS with
                                    CUBLAS_COMPUTE_32F_FAST_TF32 (since 1.2)  */
    GL_VARIANT_PIPELINED = 12    /* rung 8 fed by cp.async: a ring of slices,
                                    fragments double-buffered (since 1.2) */
} gl_variant_t;

/* Number of variant ids this library knows: valid ids are 0 .. count-1. A
 * known id may still be unavailable on a device (gl_variant_available). */
GL_API int32_t gl_variant_count(void);

/* Name of a variant, e.g. "blocktile_2d", or NULL for an unknown id. The
 * string is static. */
GL_API const char *gl_variant_name(gl_variant_t variant);

/* Looks a variant up by its name (as gl_variant_name gives it, case
 * sensitive). Returns GL_STATUS_SUCCESS and stores the id in *variant;
 * GL_STATUS_INVALID_ARGUMENT if name or variant is NULL;
 * GL_STATUS_UNKNOWN_VARIANT if no variant has that name. */
GL_API gl_status_t gl_variant_from_name(const char *name, gl_variant_t *variant);

/* What a variant's results are made of (gl_variant_info.precision), and so
 * how far they may be from the exact product. u = 2^-24 is FP32's unit
 * roundoff, u_tf32 = 2^-11 TF32's (10 stored mantissa bits, FP32's exponent
 * range). Classes are appended; values are never renumbered.
 *  - FP32: FP32 inputs, FP32 products and sums (FFMA). Each element of C is
 *    off by at most about K u times the sum of its terms' magnitudes; on
 *    random inputs ||C - C_exact|| / ||C_exact|| is about 1e-7 to 1e-6.
 *  - TF32: A and B rounded to TF32 (round to nearest), their products exact
 *    and summed in FP32 (tensor cores). The rounding adds up to 2 u_tf32
 *    (about 1e-3) of each term's magnitude, whatever K: relative errors of
 *    about 1e-4 to 5e-4 on random inputs, a few hundred times FP32's. TF32
 *    keeps FP32's exponent range: only a value within a rounding step of
 *    FP32's largest rounds up to infinity.
 *  - FP32_EMULATED: FP32-level error from tensor-core products (each operand
 *    split into a TF32 "big" part and a TF32 "small" remainder, three
 *    products summed in FP32): no worse than FP32 on the same inputs
 *    for finite values of moderate range; reserved for a later variant,
 *    whose documentation will say how it treats infinities, NaN and values
 *    near FP32's range limits (since 1.2). */
typedef enum gl_precision {
    GL_PRECISION_FP32 = 0,         /* FP32 inputs, FP32 products and sums (FFMA) */
    GL_PRECISION_TF32 = 1,         /* inputs rounded to TF32, FP32 sums (since 1.2) */
    GL_PRECISION_FP32_EMULATED = 2 /* FP32 accuracy from tensor-core products
                                      (reserved; since 1.2) */
} gl_precision_t;

/* The facts of one variant, from its descriptor row (since 1.2). Set `size`
 * to sizeof(gl_variant_info) first. Flags are 0 or 1. */
typedef struct gl_variant_info {
    uint32_t size;
    int32_t variant;        /* the id */
    char name[32];          /* as gl_variant_name gives it */
    int32_t precision;      /* gl_precision_t */
    int32_t min_cc;         /* lowest compute capability it runs on, major * 10 + minor */
    int32_t arch_specific;  /* its GPU code is architecture-specific (sm_90a):
                               it runs on compute capability min_cc only */
    int32_t reference;      /* the reference the variants of its precision class
                               are measured against: cuBLAS SGEMM for FP32,
                               cuBLAS TF32 for TF32; one per class */
    int32_t engine;         /* the engine: it plans each call (paths, copies,
                               splits; gl_sgemm_plan) rather than running one kernel */
    int32_t auto_runs;      /* the engine (auto) may run this variant's kernel */
    int32_t slow;           /* so slow that tools run it on small shapes only */
    int32_t takes_rows;     /* tuning tables have rows for it (docs/tuning.md) */
    int32_t rows_of;        /* the variant whose tuning rows choose its tiles:
                               itself, another (auto: warptile's), or -1 for
                               tiles fixed at compile time */
    int32_t config_count;   /* tile configurations compiled for it (gl_variant_config) */
    int32_t tile_field_count; /* fields its tiles have (gl_variant_tile_field);
                                 0 for a variant without tiles (cublas) */
    int32_t reserved[16];   /* zero */
} gl_variant_info;

/* Stores the facts of a variant in *out (out->size must be set).
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT for an unknown id;
 * GL_STATUS_INVALID_ARGUMENT if out is NULL or out->size is too small.
 * Needs no GPU. (Since 1.2.) */
GL_API gl_status_t gl_variant_describe(gl_variant_t variant, gl_variant_info *out);

/* ------------------------------------------------------------------------ */
/* Version at run time. */

/* GL_VERSION of the library actually loaded (major*10000 + minor*100 + patch). */
GL_API int32_t gl_version(void);

/* The loaded library's version as "MAJOR.MINOR.PATCH". Static string. */
GL_API const char *gl_version_string(void);

/* ------------------------------------------------------------------------ */
/* Handles. A handle binds the CUDA device that was current when it was
 * created, a stream, lazily created cuBLAS state, and a memory pool for the
 * scratch memory of the auto variant (see gl_sgemm_ex). A handle is used by one
 * thread at a time; separate handles may be used from separate threads. */

typedef struct gl_handle_s *gl_handle_t;

/* Creates a handle on the calling thread's current CUDA device, using the
 * default stream (NULL). Does not create cuBLAS state: that happens the first
 * time the handle runs a variant that uses it (GL_VARIANT_CUBLAS or
 * GL_VARIANT_CUBLAS_TF32).
 *   handle  out: the new handle; set to NULL on failure.
 * Returns GL_STATUS_SUCCESS;
 *   GL_STATUS_INVALID_ARGUMENT if handle is NULL;
 *   GL_STATUS_NO_DEVICE if there is no usable CUDA device or driver;
 *   GL_STATUS_CUDA_ERROR if querying the device failed otherwise;
 *   GL_STATUS_ALLOC_FAILED if host memory for the handle ran out;
 *   GL_STATUS_TUNING_ERROR if GEMMLADDER_TUNING names a tuning table that
 *     cannot be loaded (the next creation reads the variable again, so
 *     fixing the file or unsetting the variable is enough).
 * On failure the message is read with gl_last_error(NULL). */
GL_API gl_status_t gl_handle_create(gl_handle_t *handle);

/* Destroys a handle, its cuBLAS state and its scratch memory pool. Work
 * already queued on its stream is not waited for (scratch memory that work
 * uses is released when it is done); the stream itself belongs to the
 * caller and is left alone, and so is a buffer given with
 * gl_set_workspace. NULL is a no-op. */
GL_API void gl_handle_destroy(gl_handle_t handle);

/* Sets the stream later calls run on: a cudaStream_t cast to void *, or NULL
 * for the default stream. The stream must belong to the handle's device and
 * stay valid while the handle uses it. A buffer set with gl_set_workspace
 * serves only the stream it was set on (see there).
 * Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if handle is NULL;
 * GL_STATUS_CUBLAS_ERROR if the cuBLAS state could not be moved to it. */
GL_API gl_status_t gl_set_stream(gl_handle_t handle, void *stream);

/* Stores the handle's stream (as set by gl_set_stream) in *stream.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if handle or stream
 * is NULL. */
GL_API gl_status_t gl_get_stream(gl_handle_t handle, void **stream);

/* CUDA device ordinal the handle was created on, or -1 if handle is NULL. */
GL_API int32_t gl_handle_device(gl_handle_t handle);

/* Message describing the most recent failed call made with this handle, or,
 * for handle == NULL, the most recent failed call on this thread that had no
 * handle to record it in (gl_handle_create, or any call passed a NULL
 * handle). "" if there was none. Successful calls do not clear it. The string
 * belongs to the library and stays valid until the next call with the same
 * handle (or, for NULL, the next such call on this thread). */
GL_API const char *gl_last_error(gl_handle_t handle);

/* Reports whether a variant can run on the handle's device with this build.
 * Returns GL_STATUS_SUCCESS if it can;
 *   GL_STATUS_UNKNOWN_VARIANT for an unknown id;
 *   GL_STATUS_UNSUPPORTED_VARIANT if the device's compute capability is below
 *     the variant's minimum, or the library holds no GPU code for it;
 *   GL_STATUS_INVALID_ARGUMENT if handle is NULL. */
GL_API gl_status_t gl_variant_available(gl_handle_t handle, gl_variant_t variant);

/* ------------------------------------------------------------------------ */
/* Matrix products. */

typedef enum gl_transpose {
    GL_OP_N = 0, /* use the matrix as stored     */
    GL_OP_T = 1  /* use the matrix's transpose   */
} gl_transpose_t;

typedef enum gl_layout {
    GL_ROW_MAJOR = 0, /* element (i, j) at p[i * ld + j] */
    GL_COL_MAJOR = 1  /* element (i, j) at p[i + j * ld] */
} gl_layout_t;

/* C = A * B with the chosen variant, all matrices row-major and contiguous:
 * A is M x K, B is K x N, C is M x N (leading dimensions K, N and N).
 * A, B and C are device pointers; C must not overlap A or B (a call where
 * it does is refused, as gl_sgemm_ex says). The call is
 * asynchronous on the handle's stream: it returns once the work is queued.
 * Same as gl_sgemm_ex(handle, variant, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N,
 * K, 1.0f, A, K, B, N, 0.0f, C, N); see there for sizes of 0 and for every
 * status returned. */
GL_API gl_status_t gl_sgemm(gl_handle_t handle, gl_variant_t variant,
                            int64_t M, int64_t N, int64_t K,
                            const float *A, const float *B, float *C);

/* The general product, with BLAS semantics:
 *   C = alpha * op(A) * op(B) + beta * C
 * where op(A) is M x K, op(B) is K x N and C is M x N.
 *   layout          GL_ROW_MAJOR or GL_COL_MAJOR, for all three matrices.
 *   transA, transB  GL_OP_N or GL_OP_T.
 *   M, N, K         sizes, each 0 .. 2147483647.
 *   alpha, beta     scalars, passed by value (host).
 *   A, lda          op(A) is A if transA is N, else A's transpose; A as stored
 *                   has rows x cols = M x K (N) or K x M (T) and, in row-major,
 *                   lda >= its column count (>= 1); in column-major,
 *                   lda >= its row count (>= 1).
 *   B, ldb          likewise for B (K x N as stored when transB is N).
 *   C, ldc          M x N; ldc >= N (row-major) or >= M (column-major).
 * Pointers are device-accessible memory on the handle's device (cudaMalloc,
 * cudaMallocManaged, mapped pinned host memory). Leading-dimension padding of
 * C is never written. C must not share an element with A or B (as in BLAS):
 * a call where it does is refused. The test is exact where C and the other
 * operand have the same leading dimension (say, two submatrices of one
 * matrix) or either is a single row (column-major: column); otherwise C's
 * span, from its first element to its last, must not meet the operand's.
 * A and B may overlap each other.
 * Sizes of zero follow BLAS: M == 0 or N == 0 does nothing and succeeds, and
 * the pointers may be NULL; K == 0 or alpha == 0 sets C = beta * C without
 * reading A or B (which may then be NULL). When beta == 0, C is only written,
 * never read, so it may hold NaN or garbage.
 * The call is asynchronous on the handle's stream. The auto variant may
 * take scratch memory in stream order from the handle's pool (or the
 * caller's buffer, within the handle's limit: gl_set_workspace): for big
 * products whose operands are not aligned whole tiles, to copy A or B
 * (aligned and padded; same results), and for products it cuts along K, to
 * hold the parts' sums (split-K: at most 64 MiB); the handle keeps up to
 * 256 MiB of it between calls and releases it in gl_handle_destroy.
 * Without that memory (none in the pool, or more than the limit or the
 * buffer allows) it reads A and B in place and runs split-K's products
 * unsplit (right, but not the same bits as split): it is never an error.
 * Every call on the same inputs with the same memory gives the same bits.
 * The other variants allocate nothing. gl_sgemm_plan says what a call
 * would run.
 * Returns GL_STATUS_SUCCESS;
 *   GL_STATUS_UNKNOWN_VARIANT for an unknown variant id;
 *   GL_STATUS_INVALID_ARGUMENT for a bad layout or transpose value, a size
 *     outside 0 .. 2147483647, a leading dimension too small, a NULL pointer
 *     the call would read or write or one not aligned to 4 bytes (the size
 *     of a float), C overlapping A or B (the message names both), a NULL
 *     handle, or a pointer that is not
 *     device-accessible, lies on another device, or whose allocation is
 *     smaller than the matrix described;
 *   GL_STATUS_UNSUPPORTED_VARIANT if the variant cannot run on this device;
 *   GL_STATUS_CUDA_ERROR if CUDA failed to query a pointer or to launch;
 *   GL_STATUS_CUBLAS_ERROR or GL_STATUS_ALLOC_FAILED if cuBLAS could not be
 *     created or failed (GL_VARIANT_CUBLAS and GL_VARIANT_CUBLAS_TF32 only;
 *     CUBLAS_STATUS_NOT_SUPPORTED for a product of one row or column whose
 *     matrix spans more than 2^31 - 1 elements, on which cuBLAS 13.0 reads
 *     out of bounds). GL_VARIANT_CUBLAS_TF32 runs cuBLAS's own kernels as
 *     they are: on a tall product (1,048,909 x 20 x 24, row-major, A
 *     transposed) cuBLAS 13.0's TF32 kernel was seen to read 16 bytes
 *     1,532 past the end of A (compute-sanitizer memcheck, H200), with
 *     right results; the library's own variants read only the matrices.
 * Arguments are checked in the order listed in the parameter list above
 * (variant first, handle after the sizes and pointers), and the first
 * failure is reported; nothing is queued on the GPU when a check fails. */
GL_API gl_status_t gl_sgemm_ex(gl_handle_t handle, gl_variant_t variant,
                               gl_layout_t layout,
                               gl_transpose_t transA, gl_transpose_t transB,
                               int64_t M, int64_t N, int64_t K,
                               float alpha,
                               const float *A, int64_t lda,
                               const float *B, int64_t ldb,
                               float beta,
                               float *C, int64_t ldc);

/* A batch of products of one shape, each operand's matrices a fixed number
 * of floats apart (cublasSgemmStridedBatched's form): for i = 0 .. batch - 1,
 *   C_i = alpha * op(A_i) * op(B_i) + beta * C_i,
 *   A_i = A + i * strideA, B_i = B + i * strideB, C_i = C + i * strideC.
 * Each product is what gl_sgemm_ex(handle, variant, layout, transA, transB,
 * M, N, K, alpha, A_i, lda, B_i, ldb, beta, C_i, ldc) computes, with the
 * same results, and the arguments mean what they mean there. Besides:
 *   strideA, strideB  >= 0; 0 gives every product the same matrix (one A
 *                     against many B, say).
 *   strideC           >= 0. The products' C must not share an element, so
 *                     that no product reads what another writes: with
 *                     batch > 1, strideC is refused where C_0 and some C_k
 *                     would share one (exact: C_k is C_0 moved by k *
 *                     strideC), which includes strideC == 0; where checking
 *                     every such pair would take more than 2^20 steps,
 *                     strideC must reach past C_0's last element.
 *   batch             0 .. 2147483647; 0 does nothing and succeeds, and A, B
 *                     and C may then be NULL.
 * With batch > 1, the floats from C_0's first element to C_(batch-1)'s
 * last must not meet those of A's matrices or of B's (an input may not lie
 * among the outputs); with batch == 1 the rule is gl_sgemm_ex's. Every
 * operand's whole batch, from its first element to its last, must lie in
 * one allocation on the handle's device, as a single matrix must.
 * Asynchronous on the handle's stream, as gl_sgemm_ex. The cuBLAS variants
 * run the batch as one call of cuBLAS's own (cublasSgemmStridedBatched;
 * cublasGemmStridedBatchedEx for GL_VARIANT_CUBLAS_TF32). Rungs 6-8, 10
 * and 12 run up to 65535 products a launch, each block its tile of one
 * product; rungs 1-5 queue the products one after another. Auto plans the
 * batch: one such grid; that grid with each product's K in parts, summed
 * from scratch (within the handle's workspace settings, for the whole
 * batch at once), where it fills at most half the GPU and K is long; the
 * matrix-vector kernel on every product; or each product on its own plan
 * (gl_sgemm_strided_batched_plan says which).
 * Returns what gl_sgemm_ex returns, and GL_STATUS_INVALID_ARGUMENT for a
 * negative stride, a batch outside 0 .. 2147483647, an operand's batch
 * that spans more bytes than an address space, and C's products or
 * batches overlapping as above. gl_sgemm_ex's arguments are checked
 * first, in its order, on the first product (with batch == 0 the pointers
 * only for their alignment); then strideA, strideB, strideC and batch; then
 * the batches' spans and overlaps; then the operands' memory. */
GL_API gl_status_t gl_sgemm_strided_batched(gl_handle_t handle, gl_variant_t variant,
                                            gl_layout_t layout, gl_transpose_t transA,
                                            gl_transpose_t transB, int64_t M, int64_t N,
                                            int64_t K, float alpha,
                                            const float *A, int64_t lda, int64_t strideA,
                                            const float *B, int64_t ldb, int64_t strideB,
                                            float beta,
                                            float *C, int64_t ldc, int64_t strideC,
                                            int64_t batch);

/* A batch of products of one shape given as arrays of pointers
 * (cublasSgemmBatched's form): for i = 0 .. batch - 1,
 *   C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i].
 * A, B and C are device arrays of `batch` device pointers each (memory the
 * handle's device can read, holding pointers to its memory), for products
 * whose matrices lie anywhere, in any order: an entry may repeat (one A
 * against many B, say). Each product is what gl_sgemm_ex(handle, variant,
 * layout, transA, transB, M, N, K, alpha, A[i], lda, B[i], ldb, beta,
 * C[i], ldc) computes, with the same results, and the arguments mean what
 * they mean there.
 *   batch             0 .. 2147483647; 0 does nothing and succeeds, and A, B
 *                     and C may then be NULL (so may A and B where K == 0 or
 *                     alpha == 0, and all three where M or N is 0).
 * What is checked on the host: gl_sgemm_ex's checks of the shape (layout,
 * transposes, sizes, leading dimensions), the handle, batch, and the arrays
 * themselves: not NULL, aligned to 8 bytes (a pointer's size), device-
 * accessible memory of the handle's device that holds `batch` pointers
 * where the pointer query can tell (as for gl_sgemm_ex's matrices). The
 * library never reads the entries on the host but where said below.
 * What is checked on the device, cheaply: an entry that is NULL (in A, B or
 * C) skips its product, whose C is left as it is. Every other entry is
 * used as it is, with the copies its own alignment allows (a pointer that
 * is not 16-byte aligned is read a float per load; every alignment of a
 * float is right).
 * What is not checked: that each entry points to memory holding its
 * matrix, that it is 4-byte aligned, that one product's C shares no
 * element with another's or with an A or B (overlapping C entries race: an
 * undefined result; a repeated A or B entry is fine). An entry that is
 * not a valid device pointer faults as any bad device pointer does: the
 * CUDA context is lost, and that call or a later one returns
 * GL_STATUS_CUDA_ERROR.
 * Asynchronous on the handle's stream, as gl_sgemm_ex, but: rungs 1-5
 * (naive .. blocktile_2d), which run the products one by one, read the
 * arrays back to the host first, in copies on the handle's stream that
 * they wait for (a synchronisation, also in the way of graph capture); the
 * others never read them on the host. Rungs 6-8, 10 and 12 run up to
 * 65535 products a launch, each block its tile of one product, in two
 * launches where lda and ldb allow 16-byte copies: the products whose
 * entries are 16-byte aligned, then the others. Auto plans the batch from
 * its shape as gl_sgemm_strided_batched_plan says, but without scratch
 * (no split of K across the batch) and with one grid of the call's tiles
 * where the strided call would run each product on its own plan; its
 * matrix-vector kernel reads the entries too, in the same two passes. The
 * cuBLAS variants hand the arrays to cuBLAS as they are, in one call
 * (cublasSgemmBatched; cublasGemmBatchedEx for GL_VARIANT_CUBLAS_TF32):
 * cuBLAS does not skip NULL entries, which it reads as bad device
 * pointers, chooses its kernel
 * without seeing the entries and takes them to be 16-byte aligned (cuBLAS
 * 13.0's TF32 kernel was seen to fault with "misaligned address" on
 * entries 4 bytes off; give the cuBLAS variants aligned entries), and
 * takes no C of more than 2^30 columns in this form
 * (CUBLAS_STATUS_NOT_SUPPORTED). With
 * K == 0 or alpha == 0, every variant scales each C[i] by beta on the
 * device (NULL entries skipped).
 * Returns what gl_sgemm_ex returns, and GL_STATUS_INVALID_ARGUMENT for a
 * batch outside 0 .. 2147483647, a matrix of the shape and leading
 * dimension given that spans more bytes than an address space, and an
 * array that is NULL, not aligned to 8 bytes, not device-accessible, on
 * another device, or whose allocation holds fewer than `batch` pointers
 * from it. The checks run in that order: gl_sgemm_ex's of the shape and
 * the handle, then batch, then the matrices' spans (A's, B's, C's), then
 * A, B and C for NULL and alignment, then their memory. */
GL_API gl_status_t gl_sgemm_batched(gl_handle_t handle, gl_variant_t variant, gl_layout_t layout,
                                    gl_transpose_t transA, gl_transpose_t transB, int64_t M,
                                    int64_t N, int64_t K, float alpha,
                                    const float *const A[], int64_t lda,
                                    const float *const B[], int64_t ldb, float beta,
                                    float *const C[], int64_t ldc, int64_t batch);

/* ------------------------------------------------------------------------ */
/* Tile parameters and tuning tables.
 *
 * Rungs 4-8 are compiled for a fixed list of tile configurations. Rungs 4-6
 * always run their one; rungs 7 (autotuned) and 8 (warptile), and auto
 * (which runs rung 8's kernel and reads its rows), choose per GPU
 * architecture and problem size from a tuning table: a built-in table (rows
 * for sm_80, sm_86, sm_89, sm_90 and a default), with an optional override
 * table layered over it, loaded by gl_tuning_load() or named by the
 * environment variable GEMMLADDER_TUNING (read when a handle is created,
 * until one creation has loaded its table or found it unset or empty, or a
 * gl_tuning_load has succeeded: then never again). docs/tuning.md describes
 * the file format. A handle can also pin one configuration for a variant
 * (gl_set_tiles), which wins over any table. For auto, a table's tiles give
 * way to small "fill" tiles on a problem where they would leave most SMs
 * idle in the grid's last round of blocks.
 *
 * Problems fall into size classes by M * N: "small" up to 1536 * 1536,
 * "medium" up to 3072 * 3072, "large" above. */

/* Where a configuration came from (gl_tiles.origin). */
typedef enum gl_tiles_origin {
    GL_TILES_FIXED = 0,    /* the rung always runs these tiles */
    GL_TILES_BUILTIN = 1,  /* a row of the built-in table */
    GL_TILES_OVERRIDE = 2, /* a row of the loaded override table */
    GL_TILES_PINNED = 3,   /* pinned on the handle with gl_set_tiles */
    GL_TILES_DEFAULT = 4,  /* no row applies: the rung's first configuration */
    GL_TILES_FILL = 5,     /* auto: the row (or default) would leave SMs
                              idle in the grid's last round of blocks:
                              smaller tiles run instead, 64 x 64, or, where
                              the grid is one uneven round, 128 x 64 or
                              64 x 128 (gl_sgemm_plan; docs/engine.md) */
    GL_TILES_THIN = 6      /* auto (gl_sgemm_plan): split-K's thin tiles,
                              128 x 32 or 32 x 128, for C of few columns or
                              rows (docs/engine.md) */
} gl_tiles_origin_t;

/* One tile configuration. Fields a rung does not use are 0. Before passing
 * a gl_tiles to the library, set `size` to sizeof(gl_tiles): later versions
 * may append fields and use it to know what the caller has. */
typedef struct gl_tiles {
    uint32_t size;
    int32_t bm, bn;        /* the block's tile of C */
    int32_t bk;            /* depth of each K slice */
    int32_t tm, tn;        /* each thread's patch of C (or sub-patch, warptile) */
    int32_t wm, wn;        /* warptile: each warp's tile of C */
    int32_t wniter;        /* warptile: sub-tiles along N per warp tile */
    int32_t threads;       /* threads per block */
    int32_t origin;        /* gl_tiles_origin_t (filled in by queries) */
    int32_t line;          /* the table row's line, or 0 */
    char arch[16];         /* the row's architecture: "sm_90", "default", or "" */
    char size_class[16];   /* "small", "medium", "large", or "" */
    char source[64];       /* the table's name: "built-in sm_90.txt", a path, or "" */
    int32_t reserved[8];   /* zero, but for the words of fields added since
                              1.2, read and written by name (gl_tiles_get) */
} gl_tiles;

/* Tile fields by name (since 1.2). The fields above (bm .. threads) are
 * also gl_tiles members; fields that later rungs add (pipeline stages, an
 * MMA shape, a cluster size) are read and written only by name: the
 * library keeps each in a word of `reserved` of its own, taken from
 * reserved[0] upwards and never reused (reserved[4..7] stay reserved).
 * A field a configuration does not use is 0.
 *
 * gl_tiles_get stores the value of `field` ("bm", "wniter", ...) in *value;
 * gl_tiles_set writes it (any value: the functions that take tiles check
 * them). Both need tiles->size set.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if a pointer is
 * NULL, tiles->size is too small, or no variant's tiles have a field of
 * that name (the message lists them). Need no GPU. */
GL_API gl_status_t gl_tiles_get(const gl_tiles *tiles, const char *field, int32_t *value);
GL_API gl_status_t gl_tiles_set(gl_tiles *tiles, const char *field, int32_t value);

/* One field of a variant's tiles (gl_variant_tile_field; since 1.2). Set
 * `size` to sizeof(gl_tile_field_info) first. */
typedef struct gl_tile_field_info {
    uint32_t size;
    char name[16];          /* as gl_tiles_get and tuning tables write it */
    int32_t min, max;       /* its legal range; the variant's rule may narrow
                               it further (tiles must divide evenly, fit the
                               shared memory and registers, ...) */
    int32_t derived;        /* a tuning row may leave it out: it follows from
                               the others (threads = bm * bn / (tm * tn)) */
    int32_t reserved[8];    /* zero */
} gl_tile_field_info;

/* Stores field `index` (0 .. gl_variant_info.tile_field_count - 1) of a
 * variant's tiles in *out, in the order tuning tables write them.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT if out is NULL, out->size is too small, or
 * index is out of range. Needs no GPU. */
GL_API gl_status_t gl_variant_tile_field(gl_variant_t variant, int32_t index,
                                         gl_tile_field_info *out);

/* Number of tile configurations compiled for a variant (0 for cublas), or -1
 * for an unknown variant. */
GL_API int32_t gl_variant_config_count(gl_variant_t variant);

/* Stores compiled configuration `index` (0 .. count-1) of a variant in *out,
 * with origin GL_TILES_FIXED and no table fields. For rungs 4-6, index 0 is
 * the configuration they run.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT if out is NULL, out->size is too small, or
 * index is out of range. */
GL_API gl_status_t gl_variant_config(gl_variant_t variant, int32_t index, gl_tiles *out);

/* The tile configuration gl_sgemm_ex(handle, variant, ..., M, N, K, ...)
 * would run now, and where it came from (pinned, override row, built-in row,
 * fixed, default, or the fill tiles in place of a row). Sizes follow
 * gl_sgemm_ex (any layout: M and N are C's). For auto: the tiles of its
 * table rows and fill rule, before the engine's choice of kernel, which may
 * run rung 6's kernel on its own tiles instead; gl_sgemm_plan tells.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT for a NULL handle or out, out->size too small,
 * sizes outside 0 .. 2147483647, or variant cublas (no tiles). */
GL_API gl_status_t gl_tuning_query(gl_handle_t handle, gl_variant_t variant, int64_t M,
                                   int64_t N, int64_t K, gl_tiles *out);

/* Pins a configuration for a tuned variant (autotuned, warptile, auto) on this
 * handle: every later call with that variant runs it, whatever the tables
 * say. tiles == NULL unpins. The configuration must be one the library
 * compiled (gl_variant_config), with every field equal, and must fit the
 * device (shared memory). The tuner uses this to time each configuration.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT for a NULL handle or tiles->size too small;
 * GL_STATUS_TUNING_ERROR if the variant takes no tuning, or the tiles are not
 * a compiled configuration or do not fit the device (the message says
 * which). */
GL_API gl_status_t gl_set_tiles(gl_handle_t handle, gl_variant_t variant, const gl_tiles *tiles);

/* Loads a tuning table file and layers it over the built-in table for every
 * handle in the process, replacing any table loaded before; path == NULL
 * removes the override layer. After a successful call GEMMLADDER_TUNING is
 * no longer read. A file with any error is rejected as a whole and the table
 * in use stays as it was. Only a regular file is read: a directory, FIFO,
 * device or socket is refused at once. Safe to call while other threads run
 * products: calls already running keep the configuration they chose.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_TUNING_ERROR with the message
 * "<path>:<line>: <reason>" (read with gl_last_error(NULL)) for a file that
 * cannot be read or has a syntax error, an unknown architecture, variant,
 * size class or key, a configuration that is illegal or not compiled, or a
 * duplicate row; GL_STATUS_ALLOC_FAILED if host memory ran out. */
GL_API gl_status_t gl_tuning_load(const char *path);

/* Validates a tuning table file exactly as gl_tuning_load does, without
 * loading it. Needs no GPU. Same statuses and messages as gl_tuning_load;
 * GL_STATUS_INVALID_ARGUMENT if path is NULL. */
GL_API gl_status_t gl_tuning_check(const char *path);

/* ------------------------------------------------------------------------ */
/* What a call runs. */

/* How a variant's kernel meets the edges of a product (gl_plan.path). */
typedef enum gl_path {
    GL_PATH_EDGE_TESTS = 0,   /* the plain grid: copies test the edges of C
                                 and K and read zeros past them (a rung's
                                 own way; since 1.2) */
    GL_PATH_RUNG = 0,         /* GL_PATH_EDGE_TESTS's name before 1.2, kept */
    GL_PATH_INTERIOR = 1,     /* auto: aligned operands of whole tiles, copied
                                 into shared memory without any test */
    GL_PATH_EDGE_WINDOWS = 2, /* auto: extents that are multiples of 4; blocks
                                 at C's far edge compute the tile that ends at
                                 the edge, and K's ragged part comes first */
    GL_PATH_PACKED = 3,       /* auto: operands copied into aligned whole tiles
                                 in scratch memory first, then as INTERIOR */
    GL_PATH_CUBLAS = 4,       /* cuBLAS SGEMM */
    GL_PATH_SCALE = 5,        /* K == 0 or alpha == 0: only C = beta * C */
    GL_PATH_GEMV = 6,         /* auto: C is one row or one column, or up to
                                 8 whose other operand's rows run across K;
                                 a matrix-vector kernel reads that operand
                                 once (kernel: auto's own, no tiles) */
    GL_PATH_SPLIT_K = 7,      /* auto: too few tiles for the GPU and a long K:
                                 K cut into parts whose products go to scratch,
                                 then added up in a fixed order */
    GL_PATH_STREAM_K = 8,     /* auto: a grid whose last round would leave
                                 SMs idle, with a long K: its tiles' K slices
                                 cut into one equal share for each block;
                                 tiles that blocks share are summed in scratch
                                 in a fixed order */
    GL_PATH_BATCH = 9         /* a batch (gl_sgemm_strided_batched_plan): the
                                 tiles of all its products in one grid, up to
                                 65535 products a launch (rungs 6-8, 10, 12,
                                 and auto where a product alone would leave
                                 the GPU short of blocks) */
} gl_path_t;

/* What gl_sgemm_plan reports. Set `size` to sizeof(gl_plan) first. */
typedef struct gl_plan {
    uint32_t size;
    int32_t variant;       /* the variant asked about */
    int32_t kernel;        /* the variant whose kernel runs (auto: warptile,
                              pipelined on the same tiles where the code is
                              for sm_90 or newer (since 1.2), vectorized for
                              64 x 64 tiles, or auto for its matrix-vector
                              kernel); -1 for GL_PATH_SCALE */
    int32_t path;          /* gl_path_t */
    int32_t copies;        /* operands auto copies into scratch first: bit 0
                              set when A is copied, bit 1 B; bit 2 when A's
                              copy is its transpose, bit 3 (since 1.2) when
                              B's is (big products on GL_PATH_INTERIOR or
                              GL_PATH_EDGE_WINDOWS). A and B of the
                              row-major problem auto runs: a column-major
                              call's are swapped */
    int32_t aligned;       /* 1: the kernel reads both operands 16 bytes at a time */
    int32_t launches;      /* launches of the product's kernel: rows of C go
                              2^20 at a time (a copy of the operands adds a
                              kernel that makes it, each time; split-K,
                              stream-K and summed slices add a kernel that
                              sums them; auto adds one for each slice of
                              rows whose grid's last round runs after the
                              rest) */
    int32_t splits;        /* K cut into this many parts, summed in a fixed
                              order (GL_PATH_SPLIT_K, and GL_PATH_GEMV's
                              slices); GL_PATH_STREAM_K: at most this many
                              parts of one tile's K; 1: not cut */
    int64_t scratch_bytes; /* scratch memory auto takes: its copies of the
                              operands, and the sums of K's parts
                              (GL_PATH_SPLIT_K, _STREAM_K, _GEMV); the most at
                              once, where the last round's rows run after
                              (they take theirs when the rows above have
                              freed theirs) */
    gl_tiles tiles;        /* the tiles, and where they came from; zeros for
                              cuBLAS, GL_PATH_SCALE and GL_PATH_GEMV. Auto
                              may pick its own: origin GL_TILES_DEFAULT for
                              the variant's first configuration,
                              GL_TILES_FILL for its fill tiles or its half
                              tiles (128 x 64, 64 x 128), GL_TILES_THIN for
                              split-K's thin tiles */
    char why[160];         /* one sentence: why this path */
    int32_t last_slice_rows; /* products of more than 2^20 rows run in slices
                              of 2^20 rows; where the last, shorter one is
                              planned otherwise (another path, kernel, split
                              or scratch), its rows, else 0. The fields
                              above describe the other slices; launches and
                              scratch_bytes cover them all */
    int32_t last_slice_path; /* gl_path_t of that last slice (when
                              last_slice_rows > 0), else path */
    int32_t reserved[14];  /* zero */
} gl_plan;

/* What gl_sgemm_ex(handle, variant, layout, transA, transB, M, N, K, alpha,
 * A, lda, B, ldb, beta, C, ldc) would run now, for any alpha other than 0:
 * the kernel, its tiles and their origin, the path through the edges of the
 * problem, and the operand copies it would make, under the handle's
 * workspace settings (gl_set_workspace_limit, gl_set_workspace, on the
 * handle's stream now). A, B and C are looked at
 * for their alignment only, never read; NULL stands for a pointer as
 * cudaMalloc returns it (256-byte aligned). The other arguments are checked
 * as gl_sgemm_ex checks them, with the same statuses and messages; so is
 * C's overlap with A and B where all three are given.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT for a bad argument, a NULL handle or out, or
 * out->size too small. */
GL_API gl_status_t gl_sgemm_plan(gl_handle_t handle, gl_variant_t variant, gl_layout_t layout,
                                 gl_transpose_t transA, gl_transpose_t transB, int64_t M,
                                 int64_t N, int64_t K, const float *A, int64_t lda,
                                 const float *B, int64_t ldb, const float *C, int64_t ldc,
                                 gl_plan *out);

/* What gl_sgemm_strided_batched would run for the same arguments (alpha
 * other than 0), as gl_sgemm_plan says it for a single call, with the
 * batch's checks too (A, B and C looked at for their alignment and, where
 * all three are given, for their batches' overlaps; NULL as there). A
 * batch of 0 or 1 is planned as a single call. For auto: path
 * GL_PATH_BATCH, with the grid's kernel and tiles, where its products'
 * tiles share one grid (splits: K's parts where the grid splits it, and
 * scratch_bytes then the whole batch's parts, taken at once; where the
 * pool cannot give them then, the call runs the plan without scratch, as
 * a single call does); else each product runs on its own plan, one after
 * another, and the fields are that plan's (launches and scratch_bytes for
 * the whole batch; scratch is taken product by product, so the most at once
 * is one product's). `why` says which and why. The cuBLAS variants: path
 * GL_PATH_CUBLAS (cuBLAS's batched call); rungs 1-5: their own kernel, a
 * launch per product. Since 1.2. */
GL_API gl_status_t gl_sgemm_strided_batched_plan(
    gl_handle_t handle, gl_variant_t variant, gl_layout_t layout, gl_transpose_t transA,
    gl_transpose_t transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
    int64_t strideA, const float *B, int64_t ldb, int64_t strideB, const float *C, int64_t ldc,
    int64_t strideC, int64_t batch_count, gl_plan *out);

/* ------------------------------------------------------------------------ */
/* Scratch memory ("workspace"; since 1.2).
 *
 * Of all variants only auto takes scratch memory of the library's (the
 * cuBLAS variants use cuBLAS's own workspace): for the copies of the
 * operands it packs into aligned whole tiles (or A's transposed copy), for
 * the parts of split-K and stream-K, and for the slices of its
 * matrix-vector kernel (gl_plan.scratch_bytes says how much a call takes;
 * docs/engine.md). By default it takes what a plan asks for (at most 64 MiB
 * of parts, plus the copies) in stream order from a memory pool the handle
 * owns, which keeps up to 256 MiB between calls. Two settings of the handle
 * change that, as cublasSetWorkspace does for cuBLAS:
 *  - a limit (gl_set_workspace_limit): auto takes at most that many bytes
 *    for one product; 0: none at all, and the pool is never touched;
 *  - a buffer of the caller's (gl_set_workspace): auto takes its scratch
 *    from it and never from the pool, e.g. under CUDA graph capture, or
 *    where a framework manages the GPU's memory.
 * Where both are set, auto takes at most the smaller of the two.
 *
 * A product whose plan needs more than that runs the plan auto makes
 * without scratch, the plan of a limit of 0: unaligned operands read in
 * place (a float per load where they must be), K not cut into parts, A not
 * transposed. It is always right and never an error; it may be slower, and
 * its bits may differ from the plan with scratch (split-K adds in another
 * order); each plan gives the same bits every time. The rule is all or
 * nothing for each product, so a limit below a plan's need gives the same
 * plan as 0 (a call of more than 2^20 rows of C is a product for each
 * slice of 2^20 rows: a slice that needs less keeps its scratch), and
 * gl_sgemm_plan shows the plan under the handle's settings. How much a
 * product needs for the plan auto makes with all the scratch it wants is
 * gl_sgemm_workspace_size's answer: a buffer or a limit of at least that
 * many bytes runs that plan.
 *
 * Sizes are int64_t bytes, as gl_plan.scratch_bytes is (the interface has
 * no size_t: docs/abi.md). The settings belong to the handle and follow its
 * rule: one thread at a time. */

/* The limit of a new handle: none (auto takes what its plans ask for). */
#define GL_WORKSPACE_NO_LIMIT ((int64_t)0x7fffffffffffffffLL)

/* Caps the scratch memory auto takes for one product at `bytes` (its own
 * copies and parts, from the pool or the caller's buffer): 0 to take none,
 * GL_WORKSPACE_NO_LIMIT (the default) for no cap. Products whose plan needs
 * more run the plan without scratch (above). Memory the pool keeps from
 * earlier calls stays with it until the handle is destroyed.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if handle is NULL or
 * bytes is negative (the limit stays as it was). Needs no GPU work. */
GL_API gl_status_t gl_set_workspace_limit(gl_handle_t handle, int64_t bytes);

/* Stores the handle's limit (GL_WORKSPACE_NO_LIMIT where none is set) in
 * *bytes. Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if handle or
 * bytes is NULL. */
GL_API gl_status_t gl_get_workspace_limit(gl_handle_t handle, int64_t *bytes);

/* Hands auto a buffer of the caller's for its scratch memory, in place of
 * the handle's pool: `bytes` bytes of device memory at `workspace` (a
 * device pointer, as cudaMalloc returns it). workspace == NULL with
 * bytes == 0 returns the handle to its pool; a workspace with bytes == 0
 * (a product that needs none: gl_sgemm_workspace_size) is a buffer of 0
 * bytes, so auto takes no scratch on its stream and never the pool.
 *  - The buffer must be memory of the handle's device (cudaMalloc,
 *    cudaMallocAsync, a memory pool's, or cudaMallocManaged), aligned to
 *    256 bytes (as those return it: auto lays its copies out in 256-byte
 *    blocks and reads them 16 bytes at a time), and hold `bytes` bytes from
 *    `workspace` within its allocation. The library checks all three.
 *  - It serves the calls made on the stream that was the handle's when it
 *    was set (gl_set_stream): after gl_set_stream to another stream, calls
 *    take their scratch from the pool (under the limit), as if no buffer
 *    were set, and gl_set_stream back makes them use the buffer again. So
 *    calls of one handle that may run at the same time on different streams
 *    never share it. Two handles given one buffer do share it: calls of
 *    theirs that may run at the same time race on its contents, so give
 *    each handle that may run at once a buffer of its own.
 *  - Calls use it in stream order: each call is done with it before the
 *    next call on the stream starts. It stays the caller's: the library
 *    never frees it, not even in gl_handle_destroy, and it must stay valid
 *    until the last call that may use it has finished on the GPU (before
 *    freeing it, set another buffer or NULL, and synchronise the stream or
 *    free it in stream order on it).
 *  - Nothing is allocated while a buffer serves the call, so auto can run
 *    under CUDA graph capture; a captured graph holds the buffer's address.
 * Products whose plan needs more than `bytes` (or the limit) run the plan
 * without scratch (above); gl_sgemm_workspace_size says how much a product
 * needs.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT for a NULL handle,
 * a negative `bytes`, workspace NULL with bytes other than 0, a workspace
 * not aligned to 256 bytes, not device memory (host memory, pinned or not), on
 * another device, or whose allocation holds fewer than `bytes` bytes from
 * it; GL_STATUS_CUDA_ERROR if the pointer could not be queried. On failure
 * the handle keeps the workspace it had. */
GL_API gl_status_t gl_set_workspace(gl_handle_t handle, void *workspace, int64_t bytes);

/* Stores the buffer set with gl_set_workspace and its size in *workspace
 * and *bytes (NULL and 0 where the handle uses its pool), whichever stream
 * it serves. Returns GL_STATUS_SUCCESS; GL_STATUS_INVALID_ARGUMENT if
 * handle, workspace or bytes is NULL. */
GL_API gl_status_t gl_get_workspace(gl_handle_t handle, void **workspace, int64_t *bytes);

/* The scratch memory, in bytes, that gl_sgemm_ex with these arguments (and
 * any alpha other than 0) would take with no limit on it: the plan auto
 * makes with all the scratch it wants (gl_plan.scratch_bytes of that plan).
 * A buffer (gl_set_workspace) or limit of at least that many bytes runs
 * that plan; one of fewer, the plan without scratch. 0 for every variant
 * but auto, and for products auto runs without scratch anyway. Arguments as
 * gl_sgemm_plan takes them (A, B and C looked at for their alignment only;
 * NULL: as cudaMalloc aligns); the handle's limit and buffer are not, so
 * the answer is the same whatever they are.
 * Returns GL_STATUS_SUCCESS; GL_STATUS_UNKNOWN_VARIANT;
 * GL_STATUS_INVALID_ARGUMENT for a bad argument (as gl_sgemm_plan), a NULL
 * handle, or bytes NULL. */
GL_API gl_status_t gl_sgemm_workspace_size(gl_handle_t handle, gl_variant_t variant,
                                           gl_layout_t layout, gl_transpose_t transA,
                                           gl_transpose_t transB, int64_t M, int64_t N,
                                           int64_t K, const float *A, int64_t lda,
                                           const float *B, int64_t ldb, const float *C,
                                           int64_t ldc, int64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* GEMMLADDER_H */
