/*
 * Rung 7, autotuned: rung 6's kernel, with its tile parameters chosen per
 * GPU and problem size instead of fixed.
 *
 * Nothing in the kernel changes. BM, BN, BK, TM and TN interact (threads per
 * block, registers, shared memory, how many blocks fill the GPU), and the
 * best combination depends on the chip and the shape, so it is measured,
 * not reasoned out: gemmladder-tune times every compiled configuration on
 * the GPU at hand and writes the fastest per size class as a table row,
 *
 *     sm_90  autotuned  large  bm=64 bn=64 bk=16 tm=8 tn=4
 *
 * Before each call the dispatcher looks the row up (tile_choice.c,
 * gl_resolve_tiles: a configuration pinned on the handle, else the loaded
 * table, else the built-in one; within a table the exact architecture, then
 * the same major, then "default") and hands its tiles to this launcher.
 * Rung 6's file compiles the kernel for every configuration a row may name
 * (GL_VECTORIZED_CONFIGS in configs.h).
 *
 * On the H100 and H200 the tuner keeps rung 6's own tiles in every size
 * class, so there the two rungs run the same kernel at the same speed; on
 * other GPUs the table may name others (docs/tuning.md).
 */
#include "launch.h"

/* Rung 6's launcher (06_vectorized.cu). */
extern "C" int gl_launch_vectorized(const gl_problem *p, const gl_tile_params *t,
                                    const gl_exec *x);

extern "C" int gl_launch_autotuned(const gl_problem *p, const gl_tile_params *t,
                                   const gl_exec *x)
{
    return gl_launch_vectorized(p, t, x);
}
