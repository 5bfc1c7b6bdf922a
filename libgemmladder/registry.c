/*
 * registry.c - the ladder: one row per rung. Adding a rung is one kernel file
 * and one row here.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernels/configs.h"

/* Tile parameters from configs.h entries. */
#define GL_ROW(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)},
#define GL_WARP_ROW(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS},

/* What each tiled rung compiles; fixed rungs run the first entry. Rungs 1-3
 * have their 32 x 32 tiles written into their files; listed for tools. */
static const gl_tile_params simple_configs[] = {{32, 32, 1, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params shared_configs[] = {{32, 32, 32, 1, 1, 0, 0, 0, 1024}};
static const gl_tile_params blocktile_1d_configs[] = {GL_BLOCKTILE_1D_CONFIGS(GL_ROW)};
static const gl_tile_params blocktile_2d_configs[] = {GL_BLOCKTILE_2D_CONFIGS(GL_ROW)};
static const gl_tile_params vectorized_configs[] = {GL_VECTORIZED_CONFIGS(GL_ROW)};
static const gl_tile_params warptile_configs[] = {GL_WARPTILE_CONFIGS(GL_WARP_ROW)};

#define GL_LIST(a) a, (int)(sizeof a / sizeof a[0])

/* Indexed by variant id. */
static const gl_rung rungs[GL_VARIANT_LIMIT] = {
    [GL_VARIANT_CUBLAS] = {GL_VARIANT_CUBLAS, "cublas", 0, true, false, gl_launch_cublas, NULL,
                           NULL, 0},
    [GL_VARIANT_NAIVE] = {GL_VARIANT_NAIVE, "naive", 70, false, false, gl_launch_naive, NULL,
                          GL_LIST(simple_configs)},
    [GL_VARIANT_COALESCED] = {GL_VARIANT_COALESCED, "coalesced", 70, false, false,
                              gl_launch_coalesced, NULL, GL_LIST(simple_configs)},
    [GL_VARIANT_SHARED] = {GL_VARIANT_SHARED, "shared", 70, false, false, gl_launch_shared, NULL,
                           GL_LIST(shared_configs)},
    [GL_VARIANT_BLOCKTILE_1D] = {GL_VARIANT_BLOCKTILE_1D, "blocktile_1d", 70, false, false,
                                 gl_launch_blocktile_1d, NULL, GL_LIST(blocktile_1d_configs)},
    [GL_VARIANT_BLOCKTILE_2D] = {GL_VARIANT_BLOCKTILE_2D, "blocktile_2d", 70, false, false,
                                 gl_launch_blocktile_2d, NULL, GL_LIST(blocktile_2d_configs)},
    [GL_VARIANT_VECTORIZED] = {GL_VARIANT_VECTORIZED, "vectorized", 70, false, false,
                               gl_launch_vectorized, gl_prepare_vectorized,
                               GL_LIST(vectorized_configs)},
    [GL_VARIANT_AUTOTUNED] = {GL_VARIANT_AUTOTUNED, "autotuned", 70, false, true,
                              gl_launch_autotuned, gl_prepare_vectorized,
                              GL_LIST(vectorized_configs)},
    [GL_VARIANT_WARPTILE] = {GL_VARIANT_WARPTILE, "warptile", 70, false, true,
                             gl_launch_warptile, gl_prepare_warptile, GL_LIST(warptile_configs)},
};

const gl_rung *gl_rung_find(gl_variant_t id)
{
    const unsigned i = (unsigned)id;
    return i < GL_VARIANT_LIMIT ? &rungs[i] : NULL;
}

gl_tile_params gl_tiles_for(const gl_rung *rung, int cc, int sm_count, int m, int n, int k)
{
    (void)cc, (void)k;
    static const gl_tile_params none = {0};
    if (rung->config_count == 0)
        return none;
    if (!rung->tuned)
        return rung->configs[0];
    /* Until the tuning table chooses: 128 x 128 tiles (the lists' defaults)
     * once they give every SM a block, else a 64-wide configuration. */
    const long long big_tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    if (big_tiles >= sm_count)
        return rung->id == GL_VARIANT_AUTOTUNED ? vectorized_configs[1] : warptile_configs[0];
    return rung->id == GL_VARIANT_AUTOTUNED ? vectorized_configs[0] : warptile_configs[7];
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
