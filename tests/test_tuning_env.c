/*
 * test_tuning_env.c - run with GEMMLADDER_TUNING naming an illegal table:
 * handle creation must fail with GL_STATUS_TUNING_ERROR and say which
 * variable, file, line and rule, whether or not there is a GPU; an explicit
 * gl_tuning_load of a good table (or of none) clears the failure.
 */
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    const char *path = getenv("GEMMLADDER_TUNING");
    CHECK(path && *path, "the test runs with GEMMLADDER_TUNING set");
    char where[512];
    snprintf(where, sizeof where, "GEMMLADDER_TUNING names a table that cannot be used: %s:2:",
             path ? path : "");
    for (int attempt = 0; attempt < 2; ++attempt) {
        gl_handle_t h = (gl_handle_t)&h;
        CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_TUNING_ERROR, where);
        CHECK(h == NULL, "no handle on failure");
        CHECK(strstr(gl_last_error(NULL), "16-byte") != NULL, "names the broken rule: %s",
              gl_last_error(NULL));
    }
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    gl_handle_t h = NULL;
    const gl_status_t st = gl_handle_create(&h);
    CHECK(st == GL_STATUS_SUCCESS || st == GL_STATUS_NO_DEVICE,
          "after an explicit load creation proceeds: %s", gl_last_error(NULL));
    gl_handle_destroy(h);
    return harness_finish("test_tuning_env");
}
