/*
 * registry.c - the ladder: one row per rung. Adding a rung is one kernel file
 * and one row here.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernels/configs.h"

/* Tile parameters from configs.h entries. */
#define GL_APPLY(f, ...) f(__VA_ARGS__)
#define GL_TILES(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)}
#define GL_VEC_ROW(BM, BN, BK, TM, TN) GL_TILES(BM, BN, BK, TM, TN),
#define GL_WARP_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},

/* What rungs 7 and 8 can run: the compiled configurations, defaults first. */
static const gl_tile_params vectorized_configs[] = {GL_VECTORIZED_CONFIGS(GL_VEC_ROW)};
static const gl_tile_params warptile_configs[] = {GL_WARPTILE_CONFIGS(GL_WARP_ROW)};

/* Indexed by variant id. Rungs 1-3 use fixed 32 x 32 tiles (a constant in
 * their files); the rows record them for tools and docs. */
static const gl_rung rungs[GL_VARIANT_LIMIT] = {
    [GL_VARIANT_CUBLAS] = {GL_VARIANT_CUBLAS, "cublas", 0, true, false, gl_launch_cublas, NULL,
                           {0}},
    [GL_VARIANT_NAIVE] = {GL_VARIANT_NAIVE, "naive", 70, false, false, gl_launch_naive, NULL,
                          {32, 32, 1, 1, 1, 0, 0, 0, 1024}},
    [GL_VARIANT_COALESCED] = {GL_VARIANT_COALESCED, "coalesced", 70, false, false,
                              gl_launch_coalesced, NULL, {32, 32, 1, 1, 1, 0, 0, 0, 1024}},
    [GL_VARIANT_SHARED] = {GL_VARIANT_SHARED, "shared", 70, false, false, gl_launch_shared, NULL,
                           {32, 32, 32, 1, 1, 0, 0, 0, 1024}},
    [GL_VARIANT_BLOCKTILE_1D] = {GL_VARIANT_BLOCKTILE_1D, "blocktile_1d", 70, false, false,
                                 gl_launch_blocktile_1d, NULL,
                                 GL_APPLY(GL_TILES, GL_BLOCKTILE_1D_CONFIG)},
    [GL_VARIANT_BLOCKTILE_2D] = {GL_VARIANT_BLOCKTILE_2D, "blocktile_2d", 70, false, false,
                                 gl_launch_blocktile_2d, NULL,
                                 GL_APPLY(GL_TILES, GL_BLOCKTILE_2D_CONFIG)},
    [GL_VARIANT_VECTORIZED] = {GL_VARIANT_VECTORIZED, "vectorized", 70, false, false,
                               gl_launch_vectorized, gl_prepare_vectorized,
                               GL_APPLY(GL_TILES, GL_VECTORIZED_CONFIG)},
    [GL_VARIANT_AUTOTUNED] = {GL_VARIANT_AUTOTUNED, "autotuned", 70, false, true,
                              gl_launch_autotuned, gl_prepare_vectorized, {0}},
    [GL_VARIANT_WARPTILE] = {GL_VARIANT_WARPTILE, "warptile", 70, false, true,
                             gl_launch_warptile, gl_prepare_warptile, {0}},
};

const gl_rung *gl_rung_find(gl_variant_t id)
{
    const unsigned i = (unsigned)id;
    return i < GL_VARIANT_LIMIT ? &rungs[i] : NULL;
}

const gl_tile_params *gl_compiled_configs(gl_variant_t id, int *count)
{
    switch (id) {
    case GL_VARIANT_VECTORIZED:
    case GL_VARIANT_AUTOTUNED:
        *count = (int)(sizeof vectorized_configs / sizeof vectorized_configs[0]);
        return vectorized_configs;
    case GL_VARIANT_WARPTILE:
        *count = (int)(sizeof warptile_configs / sizeof warptile_configs[0]);
        return warptile_configs;
    default:
        *count = 0;
        return NULL;
    }
}

gl_tile_params gl_tiles_for(const gl_rung *rung, int cc, int m, int n, int k)
{
    (void)cc, (void)m, (void)n, (void)k; /* the tuning table will choose here */
    if (rung->id == GL_VARIANT_AUTOTUNED)
        return vectorized_configs[0];
    if (rung->id == GL_VARIANT_WARPTILE)
        return warptile_configs[0];
    return rung->tiles;
}

int32_t gl_variant_count(void) { return GL_VARIANT_LIMIT; }

const char *gl_variant_name(gl_variant_t variant)
{
    const gl_rung *r = gl_rung_find(variant);
    return r ? r->name : NULL;
}

gl_status_t gl_variant_from_name(const char *name, gl_variant_t *variant)
{
    if (!name || !variant)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_variant_from_name: %s is NULL",
                       name ? "variant" : "name");
    for (int i = 0; i < GL_VARIANT_LIMIT; ++i) {
        if (strcmp(rungs[i].name, name) == 0) {
            *variant = rungs[i].id;
            return GL_STATUS_SUCCESS;
        }
    }
    return gl_fail(NULL, GL_STATUS_UNKNOWN_VARIANT, "gl_variant_from_name: no variant is named '%s'",
                   name);
}

/* ---- build facts --------------------------------------------------------- */

bool gl_arch_list_covers(const char *archs, int ptx_cc, int cc)
{
    if (ptx_cc > 0 && ptx_cc <= cc)
        return true;
    for (const char *s = archs; s && *s;) {
        char *end;
        const long a = strtol(s, &end, 10);
        if (end == s)
            break;
        if (a / 10 == cc / 10 && a <= cc)
            return true;
        s = *end == ',' ? end + 1 : end;
    }
    return false;
}

bool gl_build_covers(int cc) { return gl_arch_list_covers(GL_CUDA_SASS_ARCHS, GL_CUDA_PTX_ARCH, cc); }

const char *gl_build_arch_string(void) { return GL_CUDA_ARCH_STRING; }
