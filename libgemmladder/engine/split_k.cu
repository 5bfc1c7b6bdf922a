/*
 * split_k.cu - the second half of the engine's split-K path (plan.c,
 * warptile_paths.cu): C from the parts' products in scratch. Each element
 * adds the parts in order of K, so a call gives the same bits every time;
 * no atomics.
 */
#include "engine.h"
#include "kernels/ladder.cuh"

namespace {

constexpr int THREADS = 256;

__global__ __launch_bounds__(THREADS) void add_parts(const float *w, int parts, gl_problem p)
{
    gl_wait_for_previous_grid();
    const int64_t e = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (e >= (int64_t)p.m * p.n)
        return;
    const int64_t row = e / p.n, col = e % p.n, ld = gl_split_ld(p.n);
    const float *part = w + row * ld + col;
    float sum = 0.0f;
    for (int z = 0; z < parts; ++z, part += p.m * ld)
        sum += *part;
    float *c = p.c + row * p.ldc + col;
    *c = p.beta == 0.0f ? p.alpha * sum : p.alpha * sum + p.beta * *c;
}

} // namespace

extern "C" int gl_engine_add_parts(const float *w, int parts, const gl_problem *p,
                                   const gl_exec *x)
{
    const int64_t slice = (int64_t)p->m * p->n;
    return gl_launch_dependent(add_parts, dim3((unsigned)((slice - 1) / THREADS + 1)), THREADS, 0,
                               x, w, parts, *p);
}
