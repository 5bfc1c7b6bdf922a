/* A program built against an installed libgemmladder with pkg-config alone:
 * it includes the installed header, links the installed library, and checks
 * that the library it loaded is the version its header describes. */
#include <stdio.h>
#include <string.h>

#include <gemmladder.h>

int main(void)
{
    printf("gemmladder %s (header %d, library %d)\n", gl_version_string(), GL_VERSION,
           (int)gl_version());
    if (gl_version() != GL_VERSION)
        return 1;
    gl_handle_t h = NULL;
    const gl_status_t st = gl_handle_create(&h);
    printf("a handle: %s%s%s\n", gl_status_string(st), st ? ": " : "", /* the message names */
           st ? gl_last_error(NULL) : "");                              /* gl_handle_create */
    gl_handle_destroy(h);
    return st == GL_STATUS_SUCCESS || st == GL_STATUS_NO_DEVICE ? 0 : 1;
}
