// The public header alone, compiled as C++ (extern "C", no C-only constructs).
#include "gemmladder.h"

int main()
{
    gl_handle_t h = nullptr;
    const gl_status_t s = gl_sgemm(h, GL_VARIANT_CUBLAS, 1, 1, 1, nullptr, nullptr, nullptr);
    return (s == GL_STATUS_INVALID_ARGUMENT && gl_version() == GL_VERSION) ? 0 : 1;
}
