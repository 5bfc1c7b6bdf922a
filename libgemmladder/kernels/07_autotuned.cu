/*
 * Rung 7, autotuned: rung 6's kernel, with its tile parameters chosen per GPU
 * and problem size instead of fixed.
 *
 * Nothing in the kernel changes. BM, BN, BK, TM and TN interact (threads per
 * block, registers, shared memory, how many blocks fill the GPU), and the
 * best combination depends on the chip and the shape, so it is measured, not
 * reasoned out. The dispatcher passes the parameters the tuning table names
 * for this device and size (the first entry of GL_VECTORIZED_CONFIGS when no
 * row applies); rung 6's file compiles the kernel for every configuration in
 * that list.
 */
#include "rung.h"

extern "C" int gl_launch_autotuned(const gl_problem *p, const gl_tile_params *t,
                                   const gl_exec *x)
{
    return gl_launch_vectorized(p, t, x);
}
