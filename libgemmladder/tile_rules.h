/*
 * tile_rules.h - what tile parameters a kernel can run with and what they
 * cost it (tile_rules.c). Plain C, no CUDA.
 */
#ifndef GL_TILE_RULES_H
#define GL_TILE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "variants.h"

/* Whether *t is one of the configurations compiled for the variant; the
 * number of them in *count. */
bool gl_tiles_compiled(const gl_variant_desc *d, const gl_tile_params *t, int *count);

/* Shared memory per block a kernel of this kind needs, in bytes (0 for
 * kinds without tiles). */
size_t gl_tiles_smem(gl_tile_kind kind, const gl_tile_params *t);

/* Whether a kernel of this kind can be compiled and run with the tiles on a
 * device whose blocks may use smem_limit bytes of shared memory: every
 * field 1..4096, thread count 64..1024 in whole warps, tiles that divide
 * evenly, 16-byte copies that come out in whole rounds, shared memory
 * within the limit, and an estimate of registers within 255. When not,
 * writes the first broken rule to why. Safe for any field values. */
int gl_tiles_legal(gl_tile_kind kind, const gl_tile_params *t, size_t smem_limit, char *why,
                   size_t why_size);

/* The registers a thread needs, estimated as the kernels' launch bounds do
 * (GL_REGISTER_ESTIMATE in configs.h). Only for tiles whose divisibility
 * rules hold. */
int gl_tiles_registers(gl_tile_kind kind, const gl_tile_params *t);

/* Blocks one SM holds at once on a device whose blocks may use smem_limit
 * bytes of shared memory: what the launch bounds ask of the compiler (65536
 * registers over the estimate), at most 2048 threads, and the shared memory
 * (1 KB more per block, which the runtime keeps). */
int gl_tiles_resident(gl_tile_kind kind, const gl_tile_params *t, size_t smem_limit);

/* The variant's fill tiles when running them instead of *t on an m x n grid
 * promises at least a quarter less time on a device of `sms` SMs (rounds of
 * resident blocks, counted whole); NULL to keep *t, and always when sms < 1,
 * the variant has no fill tiles, or they are *t. (Fill tiles fit every GPU:
 * their shared memory is under 48 KB, which the tests check.) */
const gl_tile_params *gl_fill_tiles(const gl_variant_desc *d, const gl_tile_params *t, int64_t m,
                                    int64_t n, int sms, size_t smem_limit);

/* The largest shared memory a block may opt into on an architecture
 * (major * 10 + minor; 0 means "any": the smallest of the supported ones). */
size_t gl_arch_smem_limit(int cc);

#endif /* GL_TILE_RULES_H */
