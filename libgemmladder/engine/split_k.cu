/*
 * split_k.cu - the second half of the engine's split-K and stream-K paths
 * (plan.c, auto.cu): C from the parts' products in scratch. Each
 * element adds the parts in order of K, so a call gives the same bits every
 * time; no atomics.
 */
#include "engine.h"
#include "kernels/ladder.cuh"

namespace {

constexpr int THREADS = 256;

/* Block (x, y): THREADS elements of product y's C (y = 0 for one product),
 * whose parts follow product y - 1's in w and whose C is c_step floats on
 * from product y - 1's. */
__global__ __launch_bounds__(THREADS) void add_parts(const float *w, int parts, gl_problem p,
                                                     int64_t c_step)
{
    gl_wait_for_previous_grid();
    const int64_t e = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (e >= (int64_t)p.m * p.n)
        return;
    const int64_t row = e / p.n, col = e % p.n, ld = gl_split_ld(p.n);
    w += (int64_t)blockIdx.y * parts * p.m * ld;
    p.c += (int64_t)blockIdx.y * c_step;
    const float *part = w + row * ld + col;
    float sum = 0.0f;
    for (int z = 0; z < parts; ++z, part += p.m * ld)
        sum += *part;
    float *c = p.c + row * p.ldc + col;
    gl_store_c(c, sum, p.alpha, p.beta);
}

/* Block (t, y): the y-th run of THREADS groups of 4 floats of the t-th
 * tile left over after stream-K's whole rounds, if shares hold it in parts
 * (engine.h, gl_engine_add_shared_tiles); bn is a multiple of 4, so a
 * group lies in one row of the tile, and read whole where it lies in C. */
__global__ __launch_bounds__(THREADS) void add_shared_tiles(const float *w, gl_stream_k s, int bm,
                                                            int bn, gl_problem p)
{
    gl_wait_for_previous_grid();
    const int64_t first = (int64_t)blockIdx.x * s.slices; /* the tile's first step */
    const int64_t b0 = gl_share_of(&s, first), b1 = gl_share_of(&s, first + s.slices - 1);
    if (b0 == b1) /* one share holds it whole: in C already */
        return;
    const int64_t tile = (int64_t)s.rounds * s.shares + blockIdx.x;
    const int e = (blockIdx.y * THREADS + threadIdx.x) * 4; /* the group's first element */
    const int cols = (p.n - 1) / bn + 1;
    const int row = (int)(tile / cols) * bm + e / bn, col = (int)(tile % cols) * bn + e % bn;
    if (e >= bm * bn || row >= p.m || col >= p.n)
        return;
    const int64_t size = (int64_t)bm * bn;
    const int inside = min(4, p.n - col); /* the parts hold only C's elements */
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t b = b0; b <= b1; ++b) { /* in order of K */
        int s0, s1, j;
        if (!gl_share_part(&s, b, blockIdx.x, &s0, &s1, &j)) /* an empty share */
            continue;
        const float *part = w + (2 * b + j) * size + e;
        if (inside == 4) {
            const float4 v = *reinterpret_cast<const float4 *>(part);
            sum[0] += v.x, sum[1] += v.y, sum[2] += v.z, sum[3] += v.w;
        } else {
            for (int i = 0; i < inside; ++i)
                sum[i] += part[i];
        }
    }
    float *c = p.c + (int64_t)row * p.ldc + col;
    for (int i = 0; i < inside; ++i)
        gl_store_c(&c[i], sum[i], p.alpha, p.beta);
}

} // namespace

extern "C" int gl_engine_add_shared_tiles(const float *w, const gl_stream_k *s, int bm, int bn,
                                          const gl_problem *p, const gl_exec *x)
{
    const int64_t left = s->steps / s->slices; /* tiles left over after the whole rounds */
    if (left == 0)
        return cudaSuccess;
    const unsigned runs = (unsigned)(((int64_t)bm * bn / 4 - 1) / THREADS + 1);
    return gl_launch_dependent(add_shared_tiles, dim3((unsigned)left, runs), THREADS, 0, x, w, *s,
                               bm, bn, *p);
}

extern "C" int gl_engine_add_batch_parts(const float *w, int parts, const gl_problem *p,
                                         int64_t count, int64_t c_step, const gl_exec *x)
{
    const int64_t slice = (int64_t)p->m * p->n;
    for (int64_t first = 0; first < count; first += GL_GRID_YZ_MAX) { /* products a launch */
        gl_problem q = *p;
        q.c += first * c_step;
        const unsigned y = gl_grid_yz(count - first);
        const cudaError_t err = gl_launch_dependent(
            add_parts, dim3((unsigned)((slice - 1) / THREADS + 1), y), THREADS, 0, x,
            w + first * parts * (int64_t)p->m * gl_split_ld(p->n), parts, q, c_step);
        if (err)
            return err;
    }
    return cudaSuccess;
}

extern "C" int gl_engine_add_parts(const float *w, int parts, const gl_problem *p,
                                   const gl_exec *x)
{
    return gl_engine_add_batch_parts(w, parts, p, 1, 0, x);
}
