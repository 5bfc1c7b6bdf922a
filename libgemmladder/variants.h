/*
 * variants.h - one descriptor per variant: every fact about it in one row of
 * variants.c. Names, availability, the tuning tables' variants, the tools'
 * lists and the Python binding's check all derive from these rows.
 */
#ifndef GL_VARIANTS_H
#define GL_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gemmladder.h"
#include "kernels/launch.h"
#include "tile_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for variants in per-handle arrays; gl_variant_count() is the number
 * of rows, which variants.c checks fits. */
#define GL_VARIANT_MAX 32

/* One row per variant (variants.c): every fact about it. */
typedef struct gl_variant_desc {
    gl_variant_t id;
    const char *name;        /* as gl_variant_name gives it */
    gl_precision_t precision;
    int min_cc;              /* lowest compute capability it runs on, major * 10 + minor */
    bool arch_specific;      /* architecture-specific GPU code (sm_90a): runs on min_cc only */
    bool uses_cublas;        /* the launcher needs exec->cublas; its codes are cuBLAS's */
    bool reference;          /* what the others are measured against (tools, tests) */
    bool engine;             /* plans each call: paths, copies, splits (gl_sgemm_plan) */
    bool auto_runs;          /* the engine may run this variant's kernel */
    bool slow;               /* tools run it on small shapes only */
    bool batches;            /* its launcher runs a whole batch (gl_exec.batch) in one
                                go; else gemm.c hands it the products one by one */
    const gl_tile_schema *schema; /* what its tiles are (tile_rules.h); NULL: none */
    const gl_tile_params *configs; /* the configurations compiled for it; the first is
                                      what it runs when nothing else says */
    int config_count;
    int rows_of;             /* tuned: the variant whose tuning-table rows choose its
                                tiles (itself, or auto: warptile); -1: fixed tiles */
    const gl_tile_params *fill; /* small tiles for grids that would leave SMs idle, or NULL */
    gl_launch_fn launch;
    gl_prepare_fn prepare;   /* once per handle on its device, or NULL */
    const gl_kernel_table *kernels; /* a rung whose file is a mainloop (kernels/compose.cuh):
                                       its kernels on every schedule, per configuration,
                                       for the engine; else NULL */
} gl_variant_desc;

/* The row for a variant id, or NULL for an unknown one. */
const gl_variant_desc *gl_variant_find(gl_variant_t id);

/* The variant a tuning-table row names, by name, or NULL: only variants
 * that take rows of their own (gl_variant_takes_rows). */
const gl_variant_desc *gl_variant_with_rows(const char *name);

/* "autotuned, warptile": the variants that take tuning rows, for messages. */
void gl_variants_with_rows(char *out, size_t size);

/* Its tiles come from tuning rows (its own or another variant's). */
static inline bool gl_variant_tuned(const gl_variant_desc *d) { return d->rows_of >= 0; }

/* Tuning tables have rows of its own. */
static inline bool gl_variant_takes_rows(const gl_variant_desc *d)
{
    return d->rows_of == (int)d->id;
}

/* ---- build facts --------------------------------------------------------- */

/* Whether this build holds GPU code a device of compute capability cc
 * (major*10+minor) can run: machine code for the same major and an equal or
 * lower minor, or PTX for an equal or lower capability. `archs` lists the
 * machine-code capabilities, comma-separated ("80,86,89,90"), ptx_cc the
 * PTX one (0 for none). */
bool gl_arch_list_covers(const char *archs, int ptx_cc, int cc);

/* The same question for this build's own list (from the gpu_archs option). */
bool gl_build_covers(int cc);

/* The capability the code that runs on a device of capability cc was
 * compiled for: the highest machine code of cc's major at or below it
 * (which CUDA prefers), else the PTX, compiled for the device as it loads,
 * where ptx_cc <= cc; 0 where nothing runs. Code compiled for sm_80 and run
 * on an sm_90 device has no sm_90 instructions (griddepcontrol). */
int gl_arch_list_code(const char *archs, int ptx_cc, int cc);
int gl_build_code(int cc);

/* Whether a variant of architecture-specific code for capability arch_cc
 * (sm_90a: no PTX, no other GPU) runs on a device of capability cc: cc is
 * arch_cc and this build holds machine code for it. */
bool gl_build_has_arch_specific(int arch_cc, int cc);

/* "sm_80, sm_86, ... + PTX compute_90", for messages. */
const char *gl_build_arch_string(void);


#ifdef __cplusplus
}
#endif

#endif /* GL_VARIANTS_H */
