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
 *
 * It writes C one of three ways (gl_c_stores, engine.h), which the plain
 * grid picks per launch (compose.cuh, gl_c_stores_for): each thread's runs
 * from its registers (gl_epilogue), the rest only where C's rows are off
 * 16 bytes and K is short, so that C's stores are much of the time: the
 * block's rows through shared memory in bands (gl_banded_epilogue), or
 * neighbouring lanes' runs cut again into C's aligned float4s by shuffles
 * (gl_rows_epilogue).
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
 * Results (row, col .. col + 3) of a row whose place in C may be off 16
 * bytes, with G lanes side by side along it (gl_c4_row_lanes). Stored from
 * each lane's registers (gl_store_c4), such a row is 4 stores of a float
 * a lane, and a warp's store writes 4-byte pieces 16 bytes apart. Here
 * the G lanes store the 16-byte-aligned float4s of the group's 4 G
 * columns instead, t = 0 .. 3 floats in: lane i the float4 at its run's
 * float t (floats t .. 3 of its run, 0 .. t - 1 of the next lane's), each
 * float taken by a shuffle from the lane that holds it. A row has one
 * alignment, so t is the same in every lane of the group, and a sender
 * knows which of its floats is asked for. The group's last lane (where
 * t > 0) has no next run in the group: the width-G shuffle brings it the
 * first lane's, and it stores its own floats t .. 3 and the first lane's
 * 0 .. t - 1, the group's two ends, a float at a time. So does every lane
 * whose float4 is not wholly inside C and owned (owns(col): whether column
 * col of the window is the block's, true on one run of columns, so a
 * float4 is owned where its two ends are), with those tests.
 * Every lane of the warp calls it (the shuffles); row_in: the row is
 * inside C and the block's. Selects and one set of stores, not a case per
 * t: this is the code of every row of a thread's patch.
 */
template <int G, class Owns>
__device__ __forceinline__ void gl_store_c4_rows(const gl_problem &p, int row, int col, float4 v,
                                                 bool row_in, Owns owns)
{
    static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "groups of 2 to 32 lanes");
    const int i = threadIdx.x % G;
    float *const c = p.c + (int64_t)row * p.ldc + col;
    const int t = (int)((0u - (unsigned)(reinterpret_cast<uintptr_t>(c) / sizeof(float))) % 4u);
    float out[4]; /* floats t .. t + 3 of this run and the next */
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int s = t + j, e = s & 3; /* float e of lane i + s / 4 */
        const float send = e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
        out[j] = __shfl_sync(0xffffffffu, send, i + (s >> 2), G);
    }
    if (!row_in)
        return;
    const bool last = i == G - 1 && t > 0; /* out[j] of the next run: the first lane's */
    if (!last && col + t + 3 < p.n && owns(col + t) && owns(col + t + 3)) {
        float4 o = make_float4(p.alpha * out[0], p.alpha * out[1], p.alpha * out[2],
                               p.alpha * out[3]);
        float4 *const q = reinterpret_cast<float4 *>(c + t);
        if (p.beta != 0.0f) {
            const float4 old = *q;
            o.x += p.beta * old.x, o.y += p.beta * old.y;
            o.z += p.beta * old.z, o.w += p.beta * old.w;
        }
        *q = o;
        return;
    }
#pragma unroll 1 /* the edges' code, rolled: once, not 4 times a row */
    for (int j = 0; j < 4; ++j) {
        const int at = t + j - (last && t + j >= 4 ? 4 * G : 0); /* the column, from col */
        const float x = j == 0 ? out[0] : j == 1 ? out[1] : j == 2 ? out[2] : out[3];
        if (col + at < p.n && owns(col + at))
            gl_store_c(c + at, x, p.alpha, p.beta);
    }
}

/* The same results as gl_epilogue, stored by gl_store_c4_rows, for a
 * mainloop whose for_each_c4 hands G neighbouring lanes one row's runs
 * side by side: lane i of each group of G (lanes g G .. g G + G - 1 of the
 * warp) columns c + 4 i .. c + 4 i + 3 of one row, in every call
 * (GL_C_STORES_ROWS). Every thread of the block calls it. */
template <class Schedule, int G, class Mainloop>
__device__ __forceinline__ void gl_rows_epilogue(const gl_problem &p, const Mainloop &m, int wr0,
                                                 int wc0, int row0, int col0)
{
    m.for_each_c4([&](int r, int c, float4 v) {
        const int row = wr0 + r, col = wc0 + c;
        gl_store_c4_rows<G>(p, row, col, v, row < p.m && Schedule::owns(row, row0),
                            [&](int x) { return Schedule::owns(x, col0); });
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
