/*
 * Rung 2, coalesced: rung 1 with the thread-to-element map turned sideways.
 *
 * Same work per thread, same loads, same arithmetic. Only the map changes:
 * the block is one-dimensional and threadIdx.x / TILE picks the row while
 * threadIdx.x % TILE picks the column, so the 32 threads of a warp share one
 * row of C and cover 32 neighbouring columns. Their loads of B and stores of
 * C are then 32 consecutive floats (one 128-byte line), and their load of A is
 * one address broadcast to the warp. Data is still re-read from global memory
 * for every element of C; the next rung stages it in shared memory.
 */
#include "ladder.cuh"

namespace {

constexpr int TILE = 32;

/* C is m x n; block (x, y) covers columns [x*TILE, +TILE), rows [y*TILE, +TILE). */
__global__ __launch_bounds__(TILE * TILE) void coalesced_kernel(const gl_problem p)
{
    const int row = blockIdx.y * TILE + threadIdx.x / TILE; /* constant across a warp */
    const int col = blockIdx.x * TILE + threadIdx.x % TILE; /* consecutive across a warp */
    if (row >= p.m || col >= p.n)
        return;

    const gl_matrix_view A = gl_view_a(p), B = gl_view_b(p);
    const float *a = A.at(row, 0), *b = B.at(0, col); /* walk row of op(A), column of op(B) */
    float acc = 0.0f;
#pragma unroll 4
    for (int i = 0; i < p.k; ++i, a += A.col_stride, b += B.row_stride)
        acc += *a * *b;
    gl_store_c(&p.c[(int64_t)row * p.ldc + col], acc, p.alpha, p.beta);
}

} // namespace

extern "C" int gl_launch_coalesced(const gl_problem *p, const gl_tile_params *, const gl_exec *x)
{
    const dim3 grid(gl_ceil_div(p->n, TILE), gl_ceil_div(p->m, TILE));
    coalesced_kernel<<<grid, TILE * TILE, 0, x->stream>>>(*p);
    return cudaGetLastError();
}
