/*
 * internal.h - host-side internals shared by the library's C files: the
 * handle, error recording, the registry of rungs, build facts.
 */
#ifndef GL_INTERNAL_H
#define GL_INTERNAL_H

#include <stddef.h>

#include <cuda.h> /* driver types for the pointer query; no libcuda link */

#include "gemmladder.h"
#include "kernels/rung.h"
#include "tuning.h"

#define GL_MESSAGE_SIZE 512

/* Scratch memory a handle keeps between calls once it has used it; more is
 * handed back to CUDA at the next synchronisation. */
#define GL_SCRATCH_KEEP_BYTES (256ull << 20)

typedef CUresult (*gl_pointer_attributes_fn)(unsigned, CUpointer_attribute *, void **,
                                             CUdeviceptr);

struct gl_handle_s {
    int device;             /* CUDA ordinal, fixed at creation */
    int cc;                 /* compute capability, major * 10 + minor */
    int sm_count;
    int pageable_access;    /* the GPU can read ordinary host memory (HMM/ATS) */
    char device_name[256];
    cudaStream_t stream;
    cublasHandle_t cublas;  /* created on first use */
    cudaMemPool_t scratch;  /* rungs 6-8's padded copies (gl_pack_operands); may be NULL */
    gl_pointer_attributes_fn pointer_attributes; /* cuPointerGetAttributes */
    gl_status_t available[GL_VARIANT_LIMIT];     /* per variant, decided at creation */
    size_t smem_limit;                           /* shared memory a block may opt into */
    bool pinned[GL_VARIANT_LIMIT];               /* gl_set_tiles */
    gl_tile_params pin[GL_VARIANT_LIMIT];
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

/* Creates the handle's cuBLAS state bound to its stream, if not done yet. */
gl_status_t gl_handle_cublas(struct gl_handle_s *h);

/* ---- the registry: one row per rung ------------------------------------- */

typedef struct gl_rung {
    gl_variant_t id;         /* its name: gl_variant_names[id] */
    int min_cc;              /* lowest compute capability it runs on (major*10+minor) */
    bool uses_cublas;        /* the launcher needs exec->cublas; its codes are cuBLAS's */
    bool tuned;              /* tiles come from the tuning table, per device and size */
    gl_launch_fn launch;     /* NULL: the id is reserved but not built yet */
    cudaError_t (*prepare)(void); /* once per handle on its device, or NULL */
} gl_rung;

/* The row for a variant id, or NULL for an unknown id. */
const gl_rung *gl_rung_find(gl_variant_t id);

/* The tile parameters a call of `rung` with C of m x n runs with on the
 * handle's device: fixed tiles, a pinned configuration, or the tuning
 * tables' choice for the size class. When info is non-NULL, also says where
 * they came from (a gl_tiles the caller sized). */
gl_tile_params gl_resolve_tiles(const struct gl_handle_s *h, const gl_rung *rung, int64_t m,
                                int64_t n, gl_tiles *info);

/* Before a handle is created: parses the built-in tables (once per process)
 * and loads the table GEMMLADDER_TUNING names, until that has succeeded or
 * found the variable unset, or gl_tuning_load has superseded it. Returns
 * GL_STATUS_SUCCESS, or the failure with its message in err. */
gl_status_t gl_tuning_init(char *err, size_t err_size);

/* ---- build facts --------------------------------------------------------- */

/* Whether this build holds GPU code a device of compute capability cc
 * (major*10+minor) can run: machine code for the same major and an equal or
 * lower minor, or PTX for an equal or lower capability. `archs` lists the
 * machine-code capabilities, comma-separated ("80,86,89,90"), ptx_cc the
 * PTX one (0 for none). */
bool gl_arch_list_covers(const char *archs, int ptx_cc, int cc);

/* The same question for this build's own list (from the cuda_archs option). */
bool gl_build_covers(int cc);

/* "sm_80, sm_86, ... + PTX compute_90", for messages. */
const char *gl_build_arch_string(void);

#endif /* GL_INTERNAL_H */
