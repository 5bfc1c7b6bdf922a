/*
 * internal.h - host-side internals shared by the library's C files: the
 * handle, error recording, the choice of tiles, the tables.
 */
#ifndef GL_INTERNAL_H
#define GL_INTERNAL_H

#include <stddef.h>

#include <cuda.h> /* driver types for the pointer query; no libcuda link */

#include "engine/engine.h"
#include "gemmladder.h"
#include "kernels/launch.h"
#include "table_format.h"
#include "tile_rules.h"
#include "variants.h"

#define GL_MESSAGE_SIZE 512

/* Sizes must fit the kernels' int indices. */
#define GL_MAX_DIM 2147483647LL

/* Scratch memory a handle keeps between calls once it has used it; more is
 * handed back to CUDA at the next synchronisation. */
#define GL_SCRATCH_KEEP_BYTES (256ull << 20)

typedef CUresult (*gl_pointer_attributes_fn)(unsigned, CUpointer_attribute *, void **,
                                             CUdeviceptr);

struct gl_handle_s {
    int device;             /* CUDA ordinal, fixed at creation */
    int cc;                 /* compute capability, major * 10 + minor */
    int code_cc;            /* the capability its code was compiled for (gl_build_code) */
    int sm_count;
    int pageable_access;    /* the GPU can read ordinary host memory (HMM/ATS) */
    char device_name[256];
    cudaStream_t stream;
    cublasHandle_t cublas;  /* created on first use */
    cudaMemPool_t scratch;  /* the engine's operand copies; may be NULL */
    int64_t scratch_limit;  /* gl_set_workspace_limit: the most one product
                               takes; GL_WORKSPACE_NO_LIMIT: no cap */
    void *workspace;        /* gl_set_workspace: the caller's buffer, used in
                               place of the pool; NULL: none */
    int64_t workspace_bytes;
    cudaStream_t workspace_stream; /* the stream it serves: the handle's when set */
    gl_pointer_attributes_fn pointer_attributes; /* cuPointerGetAttributes */
    gl_status_t available[GL_VARIANT_MAX];       /* per variant, decided at creation */
    size_t smem_limit;                           /* shared memory a block may opt into */
    bool pinned[GL_VARIANT_MAX];                 /* gl_set_tiles */
    gl_tile_params pin[GL_VARIANT_MAX];
    gl_plan_memo plan_memo;                      /* auto's last plans */
    char message[GL_MESSAGE_SIZE];
};

/* Records a formatted message for handle h (or for the calling thread when h
 * is NULL) and returns status, so failures read `return gl_fail(h, ...)`. */
gl_status_t gl_fail(struct gl_handle_s *h, gl_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The message for a CUDA runtime error: "<what>: <cudaGetErrorString> (<code>)";
 * status GL_STATUS_ALLOC_FAILED for cudaErrorMemoryAllocation, else CUDA_ERROR. */
gl_status_t gl_fail_cuda(struct gl_handle_s *h, const char *what, cudaError_t err);

/* Likewise for a cuBLAS status. */
gl_status_t gl_fail_cublas(struct gl_handle_s *h, const char *what, cublasStatus_t st);

/* "<fn>: variant <v> is not one of 0..<count-1>" (no "<fn>: " for fn ""). */
gl_status_t gl_unknown_variant(struct gl_handle_s *h, const char *fn, gl_variant_t variant);

/* A size M, N or K outside 0 .. GL_MAX_DIM: "<fn>: M (<v>) must be between ...". */
gl_status_t gl_check_size(struct gl_handle_s *h, const char *fn, char name, int64_t value);

/* The scratch memory auto may take for one product of a call on the
 * handle's stream now: the limit, or the smaller of the limit and the
 * caller's buffer where one serves this stream (gl_set_workspace), or 0
 * where there is neither buffer nor pool. Where workspace is not NULL,
 * stores that buffer there (NULL: the pool). */
size_t gl_scratch_budget(const struct gl_handle_s *h, void **workspace);

/* What the driver says of a pointer (cuPointerGetAttributes, through
 * h->pointer_attributes): its memory type (0: not known to CUDA), whether
 * it is managed, its device, its address on the device, and the allocation
 * it lies in (size 0: unknown). The operands' checks (gemm.c) and the
 * workspace's (handle.c) judge it each by their own rules. */
typedef struct gl_pointer_info {
    unsigned int type;
    unsigned int managed; /* the driver writes a boolean; a zeroed word reads either way */
    int ordinal;
    void *device_ptr;
    CUdeviceptr start;
    size_t size;
} gl_pointer_info;

CUresult gl_query_pointer(const struct gl_handle_s *h, const void *p, gl_pointer_info *info);

/* Creates the handle's cuBLAS state bound to its stream, if not done yet. */
gl_status_t gl_handle_cublas(struct gl_handle_s *h);

/* The tile parameters a call of variant d with C of m x n runs with on the
 * handle's device: fixed tiles, a pinned configuration, or the tuning
 * tables' choice for the size class (for auto, perhaps the fill tiles).
 * When info is non-NULL, also says where they came from (a gl_tiles the
 * caller sized). */
gl_tile_params gl_resolve_tiles(const struct gl_handle_s *h, const gl_variant_desc *d, int64_t m,
                                int64_t n, gl_tiles *info);

/* Fills a caller-sized gl_tiles with tiles t and their origin, no table
 * fields. */
void gl_describe_tiles(gl_tiles *out, const gl_tile_params *t, gl_tiles_origin_t origin);

/* ---- the tables (table_layers.c) ------------------------------------------ */

/* Before a handle is created: parses the built-in tables (once per process)
 * and loads the table GEMMLADDER_TUNING names, until that has succeeded or
 * found the variable unset, or gl_tuning_load has superseded it. Returns
 * GL_STATUS_SUCCESS, or the failure with its message in err. */
gl_status_t gl_tuning_init(char *err, size_t err_size);

/* The row the tables hold for variant v's tiles on a device of compute
 * capability cc, size class c: the override layer, then the built-in
 * tables, at each level of gl_tuning_find. Copies it out, with whether it
 * came from the override and (source non-NULL) its table's name. false if
 * no row applies. */
bool gl_table_lookup(int cc, gl_variant_t v, gl_size_class c, size_t smem_limit,
                     gl_tuning_row *row, gl_tiles_origin_t *origin, char *source,
                     size_t source_size);

#endif /* GL_INTERNAL_H */
