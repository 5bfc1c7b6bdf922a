/*
 * variants.c - the descriptor table: one row per variant, indexed by its id
 * (ids are ABI: never renumbered, new variants appended), holding every
 * fact of the variant: precision, where it runs, what the engine and the
 * tools may do with it, its tile schema (tile_rules.c) and configurations,
 * its launcher. Adding a variant is its file (kernels/NN_<name>.cu), its id
 * in gemmladder.h, its row here, and its file in meson.build; every list of
 * variants derives from this table (gl_variant_count, gl_variant_describe),
 * which tests/check_variant_names.py holds the rest of the tree to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The configurations each kind of kernel compiles (configs.h). Rungs 1-3
 * have their 32 x 32 tiles written into their files; listed so tools can
 * show them. */
#define GL_ROW(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN), 0},
#define GL_WARP_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, 0},
static const gl_tile_params element_configs[] = {{32, 32, 1, 1, 1, 0, 0, 0, 1024, 0}};
static const gl_tile_params shared_configs[] = {{32, 32, 32, 1, 1, 0, 0, 0, 1024, 0}};
static const gl_tile_params column_configs[] = {GL_BLOCKTILE_1D_CONFIGS(GL_ROW)};
static const gl_tile_params patch_configs[] = {GL_BLOCKTILE_2D_CONFIGS(GL_ROW)};
static const gl_tile_params vectorized_configs[] = {GL_VECTORIZED_CONFIGS(GL_ROW)};
static const gl_tile_params warptile_configs[] = {GL_WARPTILE_CONFIGS(GL_WARP_ROW)};
static const gl_tile_params warptile_fill[] = {GL_FILL_TILES};
#define GL_RING_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, STAGES) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, STAGES},
static const gl_tile_params pipelined_configs[] = {GL_PIPELINED_CONFIGS(GL_RING_ROW)};
#define GL_MMA_ROW(BM, BN, BK, WM, WN, THREADS) {BM, BN, BK, 0, 0, WM, WN, 0, THREADS, 0},
static const gl_tile_params tf32_configs[] = {GL_TF32_CONFIGS(GL_MMA_ROW)};

/* What each variant's file defines (kernels/NN_<name>.{c,cu}; engine/auto.cu):
 * its launcher, and where it has them, its preparation and kernel table. */
int gl_launch_cublas(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_naive(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_coalesced(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_shared(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_blocktile_1d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_blocktile_2d(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_vectorized(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_autotuned(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_warptile(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_auto(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_tf32(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
int gl_launch_cublas_tf32(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
cudaError_t gl_prepare_vectorized(void);
cudaError_t gl_prepare_warptile(void);
cudaError_t gl_prepare_auto(void);
extern const gl_kernel_table gl_vectorized_kernels;
cudaError_t gl_prepare_tf32(void);
extern const gl_kernel_table gl_warptile_kernels;
int gl_launch_pipelined(const gl_problem *p, const gl_tile_params *t, const gl_exec *x);
cudaError_t gl_prepare_pipelined(void);
extern const gl_kernel_table gl_pipelined_kernels;
extern const gl_kernel_table gl_tf32_kernels;

#define CONFIGS(list) .configs = list, .config_count = (int)(sizeof list / sizeof list[0])
#define FIXED_TILES .rows_of = -1

/* Every fact of each variant; fields left out are false, NULL or 0. */
static const gl_variant_desc variants[] = {
    {.id = GL_VARIANT_CUBLAS, .name = "cublas", .precision = GL_PRECISION_FP32, .min_cc = 0,
     .uses_cublas = true, .reference = true, .batches = true, FIXED_TILES,
     .launch = gl_launch_cublas},
    {.id = GL_VARIANT_NAIVE, .name = "naive", .precision = GL_PRECISION_FP32, .min_cc = 70,
     .slow = true, .schema = &gl_schema_element, CONFIGS(element_configs), FIXED_TILES,
     .launch = gl_launch_naive},
    {.id = GL_VARIANT_COALESCED, .name = "coalesced", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .slow = true, .schema = &gl_schema_element, CONFIGS(element_configs),
     FIXED_TILES, .launch = gl_launch_coalesced},
    {.id = GL_VARIANT_SHARED, .name = "shared", .precision = GL_PRECISION_FP32, .min_cc = 70,
     .schema = &gl_schema_shared, CONFIGS(shared_configs), FIXED_TILES,
     .launch = gl_launch_shared},
    {.id = GL_VARIANT_BLOCKTILE_1D, .name = "blocktile_1d", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .schema = &gl_schema_column, CONFIGS(column_configs), FIXED_TILES,
     .launch = gl_launch_blocktile_1d},
    {.id = GL_VARIANT_BLOCKTILE_2D, .name = "blocktile_2d", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .schema = &gl_schema_patch, CONFIGS(patch_configs), FIXED_TILES,
     .launch = gl_launch_blocktile_2d},
    {.id = GL_VARIANT_VECTORIZED, .name = "vectorized", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .auto_runs = true, .batches = true, .schema = &gl_schema_vectorized,
     CONFIGS(vectorized_configs), FIXED_TILES, .launch = gl_launch_vectorized,
     .prepare = gl_prepare_vectorized, .kernels = &gl_vectorized_kernels},
    {.id = GL_VARIANT_AUTOTUNED, .name = "autotuned", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .batches = true, .schema = &gl_schema_vectorized,
     CONFIGS(vectorized_configs), .rows_of = GL_VARIANT_AUTOTUNED, .launch = gl_launch_autotuned,
     .prepare = gl_prepare_vectorized},
    {.id = GL_VARIANT_WARPTILE, .name = "warptile", .precision = GL_PRECISION_FP32,
     .min_cc = 70, .auto_runs = true, .batches = true, .schema = &gl_schema_warptile,
     CONFIGS(warptile_configs), .rows_of = GL_VARIANT_WARPTILE, .launch = gl_launch_warptile,
     .prepare = gl_prepare_warptile, .kernels = &gl_warptile_kernels},
    {.id = GL_VARIANT_AUTO, .name = "auto", .precision = GL_PRECISION_FP32, .min_cc = 70,
     .engine = true, .batches = true, .schema = &gl_schema_warptile, CONFIGS(warptile_configs),
     .rows_of = GL_VARIANT_WARPTILE, .fill = warptile_fill, .launch = gl_launch_auto,
     .prepare = gl_prepare_auto},
    /* mma.sync on TF32 needs compute capability 8.0; auto never runs it
     * (auto_runs false): auto is FP32. */
    {.id = GL_VARIANT_TF32, .name = "tf32", .precision = GL_PRECISION_TF32, .min_cc = 80,
     .batches = true, .schema = &gl_schema_mma, CONFIGS(tf32_configs), .rows_of = GL_VARIANT_TF32,
     .launch = gl_launch_tf32, .prepare = gl_prepare_tf32, .kernels = &gl_tf32_kernels},
    /* The TF32 class's reference, as cublas is FP32's. */
    {.id = GL_VARIANT_CUBLAS_TF32, .name = "cublas_tf32", .precision = GL_PRECISION_TF32,
     .min_cc = 0, .uses_cublas = true, .reference = true, .batches = true, FIXED_TILES,
     .launch = gl_launch_cublas_tf32},
    /* cp.async needs compute capability 8.0. auto runs it in place of
     * rung 8's kernel on the same tiles where its code is for sm_90 or
     * newer (plan.c, gl_engine_on_ring), and for batches of whole tiles. */
    {.id = GL_VARIANT_PIPELINED, .name = "pipelined", .precision = GL_PRECISION_FP32,
     .min_cc = 80, .auto_runs = true, .batches = true, .schema = &gl_schema_pipelined,
     CONFIGS(pipelined_configs),
     .rows_of = GL_VARIANT_PIPELINED, .launch = gl_launch_pipelined,
     .prepare = gl_prepare_pipelined, .kernels = &gl_pipelined_kernels},
};

#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))
_Static_assert(sizeof variants / sizeof variants[0] <= GL_VARIANT_MAX,
               "handles keep per-variant state for at most GL_VARIANT_MAX variants");

const gl_variant_desc *gl_variant_find(gl_variant_t id)
{
    const unsigned i = (unsigned)id;
    return i < (unsigned)VARIANT_COUNT ? &variants[i] : NULL;
}

const gl_variant_desc *gl_variant_with_rows(const char *name)
{
    for (int i = 0; i < VARIANT_COUNT; ++i)
        if (gl_variant_takes_rows(&variants[i]) && strcmp(variants[i].name, name) == 0)
            return &variants[i];
    return NULL;
}

void gl_variants_with_rows(char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < VARIANT_COUNT && n < size; ++i)
        if (gl_variant_takes_rows(&variants[i]))
            n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", variants[i].name);
}

int32_t gl_variant_count(void) { return VARIANT_COUNT; }

const char *gl_variant_name(gl_variant_t variant)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    return d ? d->name : NULL;
}

gl_status_t gl_variant_from_name(const char *name, gl_variant_t *variant)
{
    if (!name || !variant)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_variant_from_name: %s is NULL",
                       name ? "variant" : "name");
    for (int i = 0; i < VARIANT_COUNT; ++i) {
        if (strcmp(variants[i].name, name) == 0) {
            *variant = variants[i].id;
            return GL_STATUS_SUCCESS;
        }
    }
    return gl_fail(NULL, GL_STATUS_UNKNOWN_VARIANT,
                   "gl_variant_from_name: no variant is named '%s'", name);
}

gl_status_t gl_unknown_variant(gl_handle_t h, const char *fn, gl_variant_t variant)
{
    return gl_fail(h, GL_STATUS_UNKNOWN_VARIANT, "%s%svariant %d is not one of 0..%d", fn,
                   *fn ? ": " : "", (int)variant, (int)gl_variant_count() - 1);
}

/* ---- the public queries ---------------------------------------------------- */

/* A caller's size-versioned struct of type `type` at out (size: its size
 * field, read only where out is not NULL): present, and as big as this
 * library's. */
static gl_status_t check_sized_out(const char *fn, const char *type, const void *out,
                                   const uint32_t *size, size_t need)
{
    if (!out)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "%s: the %s pointer is NULL", fn, type);
    if (*size < need)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT,
                       "%s: %s.size is %u; set it to sizeof(%s) (%zu)", fn, type,
                       (unsigned)*size, type, need);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_variant_describe(gl_variant_t variant, gl_variant_info *out)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(NULL, "gl_variant_describe", variant);
    const gl_status_t st = check_sized_out("gl_variant_describe", "gl_variant_info", out,
                                           out ? &out->size : NULL, sizeof *out);
    if (st != GL_STATUS_SUCCESS)
        return st;
    const uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    out->variant = (int32_t)d->id;
    snprintf(out->name, sizeof out->name, "%s", d->name);
    out->precision = (int32_t)d->precision;
    out->min_cc = d->min_cc;
    out->arch_specific = d->arch_specific;
    out->reference = d->reference;
    out->engine = d->engine;
    out->auto_runs = d->auto_runs;
    out->slow = d->slow;
    out->takes_rows = gl_variant_takes_rows(d);
    out->rows_of = d->rows_of;
    out->config_count = d->config_count;
    out->tile_field_count = d->schema ? d->schema->field_count : 0;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_variant_tile_field(gl_variant_t variant, int32_t index, gl_tile_field_info *out)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(NULL, "gl_variant_tile_field", variant);
    const gl_status_t st = check_sized_out("gl_variant_tile_field", "gl_tile_field_info", out,
                                           out ? &out->size : NULL, sizeof *out);
    if (st != GL_STATUS_SUCCESS)
        return st;
    const int count = d->schema ? d->schema->field_count : 0;
    if (index < 0 || index >= count)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT,
                       "gl_variant_tile_field: index %d is outside 0..%d for variant '%s'",
                       (int)index, count - 1, d->name);
    const gl_tile_range *r = &d->schema->fields[index];
    const uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    snprintf(out->name, sizeof out->name, "%s", gl_tile_fields[r->field].name);
    out->min = r->min;
    out->max = r->max;
    out->derived = r->derived != NULL;
    return GL_STATUS_SUCCESS;
}

/* ---- build facts --------------------------------------------------------- */

int gl_arch_list_code(const char *archs, int ptx_cc, int cc)
{
    int best = 0;
    for (const char *s = archs; s && *s;) {
        char *end;
        const long a = strtol(s, &end, 10);
        if (end == s)
            break;
        if (a / 10 == cc / 10 && a <= cc && a > best)
            best = (int)a;
        s = *end == ',' ? end + 1 : end;
    }
    return best > 0 ? best : ptx_cc > 0 && ptx_cc <= cc ? ptx_cc : 0;
}

int gl_build_code(int cc) { return gl_arch_list_code(GL_CUDA_SASS_ARCHS, GL_CUDA_PTX_ARCH, cc); }

bool gl_arch_list_covers(const char *archs, int ptx_cc, int cc)
{
    return gl_arch_list_code(archs, ptx_cc, cc) != 0;
}

bool gl_build_covers(int cc) { return gl_arch_list_covers(GL_CUDA_SASS_ARCHS, GL_CUDA_PTX_ARCH, cc); }

bool gl_build_has_arch_specific(int arch_cc, int cc)
{
    return cc == arch_cc && gl_arch_list_code(GL_CUDA_SASS_ARCHS, 0, cc) == arch_cc;
}

const char *gl_build_arch_string(void) { return GL_CUDA_ARCH_STRING; }
