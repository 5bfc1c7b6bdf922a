/*
 * Rung 3, shared: rung 2 with K walked in TILE-wide slices staged in shared
 * memory.
 *
 * The block still computes a TILE x TILE tile of C with one thread per
 * element, but instead of every thread fetching its own row of A and column
 * of B from global memory, the block copies a TILE x TILE slice of each into
 * shared memory (one element per thread, coalesced), waits, and then every
 * thread reads the slice TILE times from there. Each value fetched from
 * global memory is reused TILE times. Two barriers per slice: one so nobody
 * reads a slice before it is complete, one so nobody overwrites it while
 * others still read. Every thread still does one load from shared memory per
 * multiply-add, which is what the next rung attacks.
 */
#include "ladder.cuh"

namespace {

constexpr int TILE = 32;

/* C is m x n; block (x, y) covers columns [x*TILE, +TILE), rows [y*TILE, +TILE).
 * Outside the matrices the slices are padded with zeros, which add nothing. */
__global__ __launch_bounds__(TILE * TILE) void shared_kernel(const gl_problem p)
{
    __shared__ float As[TILE][TILE]; /* As[r][i] = op(A)(row0 + r, k0 + i) */
    __shared__ float Bs[TILE][TILE]; /* Bs[i][c] = op(B)(k0 + i, col0 + c) */

    const int ty = threadIdx.x / TILE, tx = threadIdx.x % TILE;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const gl_matrix_view A = gl_view_a(p), B = gl_view_b(p);

    float acc = 0.0f;
    for (int slice = 0, slices = (p.k - 1) / TILE + 1; slice < slices; ++slice) {
        const int k0 = slice * TILE; /* counting slices, not k0, cannot overflow near INT_MAX */
        As[ty][tx] = (row < p.m && tx < p.k - k0) ? A(row, k0 + tx) : 0.0f;
        Bs[ty][tx] = (ty < p.k - k0 && col < p.n) ? B(k0 + ty, col) : 0.0f;
        __syncthreads(); /* the slices are complete */

        for (int i = 0; i < TILE; ++i)
            acc += As[ty][i] * Bs[i][tx];
        __syncthreads(); /* everyone is done reading before the next copy */
    }
    if (row < p.m && col < p.n)
        gl_store_c(&p.c[(int64_t)row * p.ldc + col], acc, p.alpha, p.beta);
}

} // namespace

extern "C" int gl_launch_shared(const gl_problem *p, const gl_tile_params *, const gl_exec *x)
{
    const dim3 grid(gl_ceil_div(p->n, TILE), gl_ceil_div(p->m, TILE));
    shared_kernel<<<grid, TILE * TILE, 0, x->stream>>>(*p);
    return cudaGetLastError();
}
