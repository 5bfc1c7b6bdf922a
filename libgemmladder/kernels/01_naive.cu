/*
 * Rung 1, naive: one thread per element of C.
 *
 * Each thread walks the whole K dimension for its (row, col) element, reading
 * a row of op(A) and a column of op(B) straight from global memory. The thread
 * index is mapped so that threadIdx.x picks the row: the 32 threads of a warp
 * therefore handle 32 different rows of one column of C, and their loads of A
 * and stores of C land 32 rows apart. That is the uncoalesced pattern the next
 * rung removes.
 */
#include "ladder.cuh"

namespace {

constexpr int TILE = 32; /* a block covers TILE x TILE elements of C */

/* C is m x n; block (x, y) covers columns [x*TILE, +TILE), rows [y*TILE, +TILE). */
__global__ __launch_bounds__(TILE * TILE) void naive_kernel(const gl_problem p)
{
    const int row = blockIdx.y * TILE + threadIdx.x; /* x varies fastest in a warp... */
    const int col = blockIdx.x * TILE + threadIdx.y; /* ...so a warp runs down a column */
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

extern "C" int gl_launch_naive(const gl_problem *p, const gl_tile_params *, const gl_exec *x)
{
    const dim3 grid(gl_ceil_div(p->n, TILE), gl_ceil_div(p->m, TILE));
    const dim3 block(TILE, TILE);
    naive_kernel<<<grid, block, 0, x->stream>>>(*p);
    return cudaGetLastError();
}
