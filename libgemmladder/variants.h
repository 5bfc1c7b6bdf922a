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

/* Room for variants in per-handle arrays; gl_variant_count() is the number
 * of rows, which variants.c checks fits. */
#define GL_VARIANT_MAX 32

typedef enum gl_precision {
    GL_PRECISION_FP32 = 0, /* FP32 inputs, FP32 products and sums */
} gl_precision;

/* What a variant's tile parameters mean, for the legality rules and the
 * shared-memory and register model (tile_rules.c). */
typedef enum gl_tile_kind {
    GL_KIND_NONE,       /* no tiles: cuBLAS */
    GL_KIND_ELEMENT,    /* one thread per element of a 32 x 32 tile (rungs 1-2) */
    GL_KIND_SHARED,     /* 32 x 32 slices in shared memory (rung 3) */
    GL_KIND_COLUMN,     /* a TM x 1 column per thread (rung 4) */
    GL_KIND_PATCH,      /* a TM x TN patch per thread (rung 5) */
    GL_KIND_VECTORIZED, /* float4 copies into k-major slices (rungs 6-7) */
    GL_KIND_WARPTILE,   /* warp tiles, double-buffered slices (rung 8, auto) */
} gl_tile_kind;

typedef struct gl_variant_desc {
    gl_variant_t id;
    const char *name;       /* as gl_variant_name gives it */
    gl_precision precision;
    int min_cc;             /* lowest compute capability it runs on, major * 10 + minor */
    bool uses_cublas;       /* the launcher needs exec->cublas; its codes are cuBLAS's */
    gl_tile_kind kind;
    const gl_tile_params *configs; /* the configurations compiled for it; the first is
                                      what it runs when nothing else says */
    int config_count;
    int rows_of;            /* tuned: the variant whose tuning-table rows choose its
                               tiles (itself, or auto: warptile); -1: fixed tiles */
    const gl_tile_params *fill; /* small tiles for grids that would leave SMs idle, or NULL */
    gl_launch_fn launch;
    gl_prepare_fn prepare;  /* once per handle on its device, or NULL */
} gl_variant_desc;

/* The row for a variant id, or NULL for an unknown one. */
const gl_variant_desc *gl_variant_find(gl_variant_t id);

/* The variant a tuning-table row names, by name, or NULL: only variants
 * that choose their tiles from their own rows (autotuned, warptile). */
const gl_variant_desc *gl_variant_with_rows(const char *name);

/* "autotuned, warptile": the variants that take tuning rows, for messages. */
void gl_variants_with_rows(char *out, size_t size);

static inline bool gl_variant_tuned(const gl_variant_desc *d) { return d->rows_of >= 0; }

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

/* "sm_80, sm_86, ... + PTX compute_90", for messages. */
const char *gl_build_arch_string(void);

#endif /* GL_VARIANTS_H */
