/*
 * registry.c - the ladder: one row per rung. Adding a rung is one kernel file
 * and one row here (plus its configurations in kernels/configs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ROW(id, min_cc, cublas, tuned, launch, prepare) \
    [id] = {id, min_cc, cublas, tuned, launch, prepare}

/* Indexed by variant id; names come from gl_variant_names. */
static const gl_rung rungs[GL_VARIANT_LIMIT] = {
    ROW(GL_VARIANT_CUBLAS, 0, true, false, gl_launch_cublas, NULL),
    ROW(GL_VARIANT_NAIVE, 70, false, false, gl_launch_naive, NULL),
    ROW(GL_VARIANT_COALESCED, 70, false, false, gl_launch_coalesced, NULL),
    ROW(GL_VARIANT_SHARED, 70, false, false, gl_launch_shared, NULL),
    ROW(GL_VARIANT_BLOCKTILE_1D, 70, false, false, gl_launch_blocktile_1d, NULL),
    ROW(GL_VARIANT_BLOCKTILE_2D, 70, false, false, gl_launch_blocktile_2d, NULL),
    ROW(GL_VARIANT_VECTORIZED, 70, false, false, gl_launch_vectorized, gl_prepare_vectorized),
    ROW(GL_VARIANT_AUTOTUNED, 70, false, true, gl_launch_autotuned, gl_prepare_vectorized),
    ROW(GL_VARIANT_WARPTILE, 70, false, true, gl_launch_warptile, gl_prepare_warptile),
};

const gl_rung *gl_rung_find(gl_variant_t id)
{
    const unsigned i = (unsigned)id;
    return i < GL_VARIANT_LIMIT ? &rungs[i] : NULL;
}

int32_t gl_variant_count(void) { return GL_VARIANT_LIMIT; }

const char *gl_variant_name(gl_variant_t variant)
{
    const unsigned i = (unsigned)variant;
    return i < GL_VARIANT_LIMIT ? gl_variant_names[i] : NULL;
}

gl_status_t gl_variant_from_name(const char *name, gl_variant_t *variant)
{
    if (!name || !variant)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_variant_from_name: %s is NULL",
                       name ? "variant" : "name");
    for (int i = 0; i < GL_VARIANT_LIMIT; ++i) {
        if (strcmp(gl_variant_names[i], name) == 0) {
            *variant = (gl_variant_t)i;
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
