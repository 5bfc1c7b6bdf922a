/*
 * variants.c - the descriptor table: one row per variant, indexed by its id
 * (ids are ABI: never renumbered, new variants appended). Adding a variant
 * is its file (kernels/NN_<name>.cu), its id in gemmladder.h, its row here,
 * and its file in meson.build; every list of variants derives from this
 * table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The configurations each kind of kernel compiles (configs.h). Rungs 1-3
 * have their 32 x 32 tiles written into their files; listed so tools can
 * show them. */
#define GL_ROW(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)},
#define GL_WARP_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},
static const gl_tile_params element_configs[] = {{32, 32, 1, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params shared_configs[] = {{32, 32, 32, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params column_configs[] = {GL_BLOCKTILE_1D_CONFIGS(GL_ROW)};
static const gl_tile_params patch_configs[] = {GL_BLOCKTILE_2D_CONFIGS(GL_ROW)};
static const gl_tile_params vectorized_configs[] = {GL_VECTORIZED_CONFIGS(GL_ROW)};
static const gl_tile_params warptile_configs[] = {GL_WARPTILE_CONFIGS(GL_WARP_ROW)};
static const gl_tile_params warptile_fill[] = {GL_WARPTILE_FILL_CONFIG(GL_WARP_ROW)};

#define CONFIGS(list) list, (int)(sizeof list / sizeof list[0])
#define FIXED -1

static const gl_variant_desc variants[] = {
    /* id, name, precision, min_cc, uses_cublas, kind, configs, rows_of, fill, launch, prepare */
    {GL_VARIANT_CUBLAS, "cublas", GL_PRECISION_FP32, 0, true, GL_KIND_NONE, NULL, 0, FIXED,
     NULL, gl_launch_cublas, NULL},
    {GL_VARIANT_NAIVE, "naive", GL_PRECISION_FP32, 70, false, GL_KIND_ELEMENT,
     CONFIGS(element_configs), FIXED, NULL, gl_launch_naive, NULL},
    {GL_VARIANT_COALESCED, "coalesced", GL_PRECISION_FP32, 70, false, GL_KIND_ELEMENT,
     CONFIGS(element_configs), FIXED, NULL, gl_launch_coalesced, NULL},
    {GL_VARIANT_SHARED, "shared", GL_PRECISION_FP32, 70, false, GL_KIND_SHARED,
     CONFIGS(shared_configs), FIXED, NULL, gl_launch_shared, NULL},
    {GL_VARIANT_BLOCKTILE_1D, "blocktile_1d", GL_PRECISION_FP32, 70, false, GL_KIND_COLUMN,
     CONFIGS(column_configs), FIXED, NULL, gl_launch_blocktile_1d, NULL},
    {GL_VARIANT_BLOCKTILE_2D, "blocktile_2d", GL_PRECISION_FP32, 70, false, GL_KIND_PATCH,
     CONFIGS(patch_configs), FIXED, NULL, gl_launch_blocktile_2d, NULL},
    {GL_VARIANT_VECTORIZED, "vectorized", GL_PRECISION_FP32, 70, false, GL_KIND_VECTORIZED,
     CONFIGS(vectorized_configs), FIXED, NULL, gl_launch_vectorized, gl_prepare_vectorized},
    {GL_VARIANT_AUTOTUNED, "autotuned", GL_PRECISION_FP32, 70, false, GL_KIND_VECTORIZED,
     CONFIGS(vectorized_configs), GL_VARIANT_AUTOTUNED, NULL, gl_launch_autotuned,
     gl_prepare_vectorized},
    {GL_VARIANT_WARPTILE, "warptile", GL_PRECISION_FP32, 70, false, GL_KIND_WARPTILE,
     CONFIGS(warptile_configs), GL_VARIANT_WARPTILE, NULL, gl_launch_warptile,
     gl_prepare_warptile},
    {GL_VARIANT_AUTO, "auto", GL_PRECISION_FP32, 70, false, GL_KIND_WARPTILE,
     CONFIGS(warptile_configs), GL_VARIANT_WARPTILE, warptile_fill, gl_launch_auto,
     gl_prepare_auto},
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
        if (variants[i].rows_of == (int)variants[i].id && strcmp(variants[i].name, name) == 0)
            return &variants[i];
    return NULL;
}

void gl_variants_with_rows(char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < VARIANT_COUNT && n < size; ++i)
        if (variants[i].rows_of == (int)variants[i].id)
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

const char *gl_build_arch_string(void) { return GL_CUDA_ARCH_STRING; }
