/* The public header alone, compiled as strict C99 with every warning an error. */
#include "gemmladder.h"

int main(void)
{
    gl_handle_t h = 0;
    gl_variant_t v = GL_VARIANT_WARPTILE;
    gl_status_t s = GL_STATUS_SUCCESS;
    (void)h, (void)v, (void)s;
    return gl_version() == GL_VERSION ? 0 : 1;
}
