/*
 * configs.h - every tile configuration the library compiles: the single
 * source for the kernel instantiations, the registry, and (for the tuning
 * table) what a table may name. C and CUDA both include it.
 *
 * Rungs 4-6 run one fixed configuration each, the first of their list.
 * Rungs 7 and 8 choose among their lists per device and problem size.
 */
#ifndef GL_CONFIGS_H
#define GL_CONFIGS_H

#include <stdbool.h>

/* Tile parameters a rung may be instantiated with. Rungs that take fewer
 * leave the rest 0. bm x bn: the block's tile of C; bk: depth of each K
 * slice; tm x tn: the thread's tile of C; wm x wn and wniter: the warp's
 * tile and how many times it is stamped along N (warptile); stages: the
 * slices in flight in shared memory (pipelined; since 1.2, a field of
 * gl_tiles.reserved, tile_rules.c). */
typedef struct gl_tile_params {
    int bm, bn, bk;
    int tm, tn;
    int wm, wn, wniter;
    int threads;
    int stages;
} gl_tile_params;

/* constexpr in C++, so that kernels can compare tiles as they compile. */
#ifdef __cplusplus
#define GL_CONSTEXPR constexpr
#else
#define GL_CONSTEXPR
#endif

/* The same tiles, whatever their rings: rung 12 runs rung 8's tiles with
 * stages of its own (plan.c, gl_engine_on_ring). */
static inline GL_CONSTEXPR bool gl_tile_params_same_tiles(const gl_tile_params *a,
                                                          const gl_tile_params *b)
{
    return a->bm == b->bm && a->bn == b->bn && a->bk == b->bk && a->tm == b->tm &&
           a->tn == b->tn && a->wm == b->wm && a->wn == b->wn && a->wniter == b->wniter &&
           a->threads == b->threads;
}

static inline GL_CONSTEXPR bool gl_tile_params_equal(const gl_tile_params *a, const gl_tile_params *b)
{
    return gl_tile_params_same_tiles(a, b) && a->stages == b->stages;
}

/* Shared-memory rows of a k-major slice are padded by 4 floats: it keeps
 * 16-byte alignment and spreads the transposing stores over more banks. */
#define GL_SMEM_PAD 4

/* Shared memory a block needs, in bytes: rungs 4-5 hold one BM x BK and one
 * BK x BN slice; rung 6-7 one of each k-major and padded; rung 8 two of each
 * (double buffering). The kernels and the legality filter both use these. */
#define GL_BLOCKTILE_SMEM(BM, BN, BK) (4 * ((BM) * (BK) + (BK) * (BN)))
#define GL_VECTORIZED_SMEM(BM, BN, BK) (4 * (BK) * ((BM) + (BN) + 2 * GL_SMEM_PAD))
#define GL_WARPTILE_SMEM(BM, BN, BK) (2 * GL_VECTORIZED_SMEM(BM, BN, BK))

/* Rungs 4 and 5: X(BM, BN, BK, TM, TN), threads = BM * BN / (TM * TN); they
 * run their one entry. 64 x 64 tiles for rung 5 (not the Vizuara worklog's 128 x 128):
 * on an H200 they are faster at every size from 1024 to 8192, and they fill
 * the GPU at 1024^2 where 128 x 128 tiles leave half the SMs idle. Slices
 * 16 deep for rung 4 too (not the worklog's 8): with 8, each row of A arrived
 * in 32-byte pieces, and where rows are not a multiple of 64 bytes long
 * (1000^3) the H200 took 5% longer per product (docs/ladder.md, rung 4). */
#define GL_BLOCKTILE_1D_CONFIGS(X) X(64, 64, 16, 8, 1)
#define GL_BLOCKTILE_2D_CONFIGS(X) X(64, 64, 16, 8, 4)

/* The vectorized kernel: X(BM, BN, BK, TM, TN). Rung 6 runs the first entry
 * (rung 5's shape, so the step between them is only the vectorization);
 * rung 7 picks among all. */
#define GL_VECTORIZED_CONFIGS(X) \
    X(64, 64, 16, 8, 4)          \
    X(128, 128, 16, 8, 8)        \
    X(64, 128, 16, 8, 8)         \
    X(128, 64, 16, 8, 8)

/* The warptile kernel's configurations (rung 8), default first:
 * X(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS). Each warp owns a WM x WN
 * tile of the block's BM x BN, walked as WMITER x WNITER sub-tiles of 32
 * threads' TM x TN patches, WMITER = WM * WN / (32 * TM * TN * WNITER). */
#define GL_WARPTILE_CONFIGS(X)                 \
    X(128, 128, 16, 64, 32, 2, 4, 4, 256)      \
    X(128, 128, 16, 64, 32, 2, 8, 4, 256)      \
    X(128, 128, 16, 32, 64, 2, 4, 4, 256)      \
    X(64, 128, 16, 32, 64, 2, 4, 4, 128)       \
    X(128, 64, 16, 32, 64, 2, 4, 4, 128)       \
    X(128, 64, 16, 64, 32, 2, 4, 4, 128)       \
    X(64, 64, 16, 32, 32, 2, 4, 4, 128)        \
    X(64, 64, 16, 32, 32, 1, 8, 4, 128)        \
    X(256, 128, 16, 64, 64, 4, 8, 4, 256)      \
    X(64, 64, 32, 32, 32, 1, 8, 4, 128)        \
    X(64, 64, 16, 32, 16, 1, 4, 4, 256)        \
    X(128, 32, 16, 32, 32, 1, 8, 4, 128)       \
    X(32, 128, 16, 32, 32, 1, 4, 8, 128)

/* The pipelined kernel's configurations (rung 12), default first, in rung
 * 8's form and a ring's depth: X(BM, BN, BK, WM, WN, WNITER, TM, TN,
 * THREADS, STAGES). Two of 128 x 128: rung 8's default tiles (8 warps of
 * 64 x 32, 64 results a thread, two blocks an SM within 128 registers where
 * shared memory holds two: sm_80, sm_90), and 4 warps of 64 x 64 (128
 * results a thread, two blocks an SM within 255), cuBLAS's warp tiles,
 * in slices 8 deep so that a slice's loop stays at 1,024 FFMA
 * as the first's (the instruction cache); and 64 x 64 x 16 in 4 warps of
 * 32 x 32 (32 results a thread), for products whose grid of 128 x 128 tiles
 * is a round or less (1024^3: 64 blocks for 132 SMs); and 64 x 64 x 32,
 * rung 8's tiles for small products, so that auto runs them on this kernel
 * too (plan.c, gl_engine_on_ring). As rung 12's own small tiles, four slices deep,
 * they ran 1024^3 6% faster than 64 x 64 x 16 on an H200, but 1280^3-1536^3
 * 29-59% slower: four slices of 17 KB leave room for three blocks an SM,
 * against six; so they come two slices deep as well, as rung 8 holds them.
 * Last, cuBLAS's FFMA kernel on sm_90 (256 x 128 x 8, 8 warps of 64 x 64,
 * three slices, one block an SM) with the operands' roles swapped, so that
 * A as stored, copied a float at a time, is the narrower slice, and slices
 * 16 deep: 128 x 256 x 16, 205-241 registers, 75.3 KB. (8 deep, in three
 * slices or four, and 16 deep in four ran 4096^3 and 8192^3 no faster on
 * an H200: docs/ladder.md.) Four slices in flight otherwise. */
#define GL_PIPELINED_CONFIGS(X)                \
    X(128, 128, 16, 64, 32, 2, 4, 4, 256, 4)   \
    X(128, 128, 8, 64, 64, 4, 4, 4, 128, 4)    \
    X(64, 64, 16, 32, 32, 1, 8, 4, 128, 4)     \
    X(64, 64, 32, 32, 32, 1, 8, 4, 128, 4)     \
    X(64, 64, 32, 32, 32, 1, 8, 4, 128, 2)     \
    X(128, 256, 16, 64, 64, 4, 4, 4, 256, 3)
/* The ring of a rung-12 configuration that does not say (a tuning row or a
 * caller's gl_tiles without `stages`). */
#define GL_PIPELINED_UNSET_STAGES 4
#define GL_PIPELINED_SMEM(BM, BN, BK, STAGES) ((STAGES) * GL_VECTORIZED_SMEM(BM, BN, BK))

/* The tensor-core rung's configurations (rung 10, tf32), default first:
 * X(BM, BN, BK, WM, WN, THREADS). Each warp owns a WM x WN tile of the
 * block's BM x BN, computed as (WM / 16) x (WN / 8) mma.sync products of
 * 16 x 8 per 8 deep step of K. Shared memory holds a ring of
 * GL_TF32_STAGES slices, A's rows along K padded to BK + 4 floats and B's
 * rows across K padded to BN + 8 (10_tf32.cu says why): 57 KB for
 * 128 x 128 x 16, so three blocks an SM on sm_90 (and two on sm_80, one
 * where an SM has 100 KB). Warp tiles of 64 x 64 read 128 bytes of shared
 * memory per product, against 192 for 64 x 32: on an H200 the 128 x 128
 * blocks of 4 such warps ran 13% faster at 4096^3 than 8 warps of 64 x 32
 * (with the earlier mainloop, whose copies went through registers). On the
 * ring of cp.async slices they ran 14% faster at 4096^3 and 3% at 8192^3
 * than 128 x 256 blocks of 8 such warps, which an SM holds one of
 * (docs/ladder.md). */
#define GL_TF32_CONFIGS(X)           \
    X(128, 128, 16, 64, 64, 128)     \
    X(128, 256, 16, 64, 64, 256)     \
    X(64, 64, 32, 32, 32, 128)
/* Slices in flight: with 3, a slice's copies have two slices' products
 * to arrive in; 4 would still fit three 128 x 128 x 16 blocks in an
 * sm_90 SM, but not 128 x 256 x 16 into an SM of 100 KB. */
#define GL_TF32_STAGES 3
#define GL_TF32_SMEM(BM, BN, BK) (GL_TF32_STAGES * 4 * ((BM) * ((BK) + 4) + (BK) * ((BN) + 8)))

/* Registers one thread of a tiled kernel needs, roughly: its accumulators,
 * its fragments of A and B, the float4s it stages per K slice, and about 32
 * for addresses and indices; small tiles still need about 88 in all. The
 * kernels size their occupancy with it (measured against ptxas's counts),
 * and configurations needing more than a thread can have (255) are illegal. */
#define GL_REGISTER_ESTIMATE_(r) ((r) > 88 ? (r) : 88)
#define GL_REGISTER_ESTIMATE(outputs, fragments, staged_float4s) \
    GL_REGISTER_ESTIMATE_((outputs) + (fragments) + 4 * (staged_float4s) + 32)

/* The tensor-core rung's estimate: a warp's accumulators shared by its 32
 * lanes, one step's fragments of B (2 registers per 8 columns) and of one
 * 16-row product of A at a time, twice (4 registers each), and 16 for the
 * copies' and fragments' addresses; no staged floats (the copies are
 * asynchronous). For 4 warps of 64 x 64 that is 168, three blocks an SM. */
#define GL_TF32_REGISTERS(BM, BN, BK, WM, WN, THREADS) \
    GL_REGISTER_ESTIMATE_((WM) * (WN) / 32 + (WN) / 8 * 2 + 8 + 16)

#endif
