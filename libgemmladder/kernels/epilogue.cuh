/*
 * epilogue.cuh - the one epilogue: C = alpha * acc + beta * C, guarded at
 * C's edges, for every mainloop. A split-K part is stored by the same code:
 * its problem's C is the part's place in scratch, with alpha 1 and beta 0.
 *
 * The epilogue reads a mainloop's accumulators through one small interface
 * that every fragment layout can provide:
 *
 *     template <class F> void for_each_c4(F f) const;
 *
 * calls f(r, c, v) once for each run of 4 results the thread holds in one
 * row of C, v = results (r, c .. c + 3), where (r, c) counts from the
 * window's origin (the block's tile, unless the scheduler moved it), c a
 * multiple of 4 (a run is one 16-byte store where C allows it). It is
 * valid once the mainloop's run() has returned. A thread's TM x TN patch
 * and a warp tile's sub-tiles cut into such runs; mma.sync's fragments
 * hold 2 neighbouring columns of 2 rows, and rung 10 makes runs of 4 with
 * a shuffle between neighbouring lanes, so every thread calls it (the
 * tests on (r, c) come after, in f). Rungs 1-5 store with gl_store_c
 * themselves, a line each.
 */
#ifndef GL_EPILOGUE_CUH
#define GL_EPILOGUE_CUH

#include "launch.h"

/* One element: c = alpha * acc + beta * c, where beta == 0 means C is not
 * read (it may hold NaN). */
__device__ __forceinline__ void gl_store_c(float *c, float acc, float alpha, float beta)
{
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* Results (row, col .. col + 3): one 16-byte access when C is aligned for it
 * (vec) and all four lie inside C; those outside C are skipped. */
__device__ __forceinline__ void gl_store_c4(const gl_problem &p, int row, int col, float4 acc,
                                            bool vec)
{
    if (row >= p.m || col >= p.n)
        return;
    float *c = p.c + (int64_t)row * p.ldc + col;
    if (vec && col < p.n - 3) {
        float4 out = make_float4(p.alpha * acc.x, p.alpha * acc.y, p.alpha * acc.z,
                                 p.alpha * acc.w);
        if (p.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4 *>(c);
            out.x += p.beta * old.x, out.y += p.beta * old.y;
            out.z += p.beta * old.z, out.w += p.beta * old.w;
        }
        *reinterpret_cast<float4 *>(c) = out;
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (j < p.n - col)
            gl_store_c(c + j, v[j], p.alpha, p.beta);
}

/* A mainloop's results into C: the window at (wr0, wc0), of which the
 * block stores what its scheduler says it owns (Schedule::owns; the block's
 * own tile starts at (row0, col0)). */
template <class Schedule, class Mainloop>
__device__ __forceinline__ void gl_epilogue(const gl_problem &p, const Mainloop &m, int wr0,
                                            int wc0, int row0, int col0)
{
    const bool vec = gl_vec4_ok(p.c, p.ldc);
    m.for_each_c4([&](int r, int c, float4 v) {
        const int row = wr0 + r, col = wc0 + c;
        if (Schedule::owns(row, row0) && Schedule::owns(col, col0))
            gl_store_c4(p, row, col, v, vec);
    });
}

/*
 * The same, through shared memory in bands of rows, for C whose rows are
 * off 16 bytes: stored straight from registers, each of a warp's stores
 * would write 4-byte pieces 16 bytes apart (a thread's run of 4 columns);
 * from a band, the block's threads go side by side along its rows, a warp
 * storing 32 neighbouring floats at a time. Band b holds the window's rows
 * r with r % BANDS == b, BM / BANDS of them (a rung that cuts its results
 * so, R::STORE_BANDS, puts a thread's runs of one band in one pass, and the
 * test below folds away). stage: the mainloop's shared memory, free once
 * run() has returned. Every thread of the block calls it.
 */
template <class Schedule, int BANDS, int BM, int BN, int THREADS, class Mainloop>
__device__ __forceinline__ void gl_banded_epilogue(const gl_problem &p, const Mainloop &m,
                                                   int wr0, int wc0, int row0, int col0,
                                                   float *stage)
{
    constexpr int ROWS = BM / BANDS, STRIDE = BN + 16; /* the padding changes nothing: a
                                                          quarter warp's float4s fall in one row */
    static_assert((BANDS & (BANDS - 1)) == 0 && BM % BANDS == 0, "bands cut the rows evenly");
    static_assert((ROWS * BN) % THREADS == 0 && BN % 32 == 0,
                  "the block's threads store a band in whole rounds, a warp within a row");
#pragma unroll
    for (int b = 0; b < BANDS; ++b) {
        m.for_each_c4([&](int r, int c, float4 v) {
            if ((r & (BANDS - 1)) == b)
                *reinterpret_cast<float4 *>(&stage[r / BANDS * STRIDE + c]) = v;
        });
        __syncthreads(); /* the band is in */
#pragma unroll
        for (int i = 0; i < ROWS * BN / THREADS; ++i) {
            const int e = i * THREADS + threadIdx.x, r = e / BN, c = e % BN;
            const int row = wr0 + r * BANDS + b, col = wc0 + c;
            if (row < p.m && col < p.n && Schedule::owns(row, row0) && Schedule::owns(col, col0))
                gl_store_c(p.c + (int64_t)row * p.ldc + col, stage[r * STRIDE + c], p.alpha,
                           p.beta);
        }
        __syncthreads(); /* the band is out before the next goes in */
    }
}

#endif /* GL_EPILOGUE_CUH */
