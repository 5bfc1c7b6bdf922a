/*
 * gemv.cu - the engine's matrix-vector path (engine.h): C with one row or
 * one column, or a few (up to 8). Such a product does 2 flops per vector
 * for each element of the matrix it reads once, so it is bound by memory,
 * and a tiled kernel, which computes whole tiles of C to use a few rows or
 * columns of each, wastes most of its work. Here every element of the
 * matrix is read once, by a load that its warp's neighbours make coalesced.
 *
 * y_j[r] = alpha * sum_k mat[r][k] x_j[k] + beta * y_j[r], for the rows r of
 * the matrix and the vectors j (gl_gemv, built by plan.c). Two kernels, by
 * the matrix's layout:
 *   along_k:  its rows run along k (one vector). A warp takes a row, its
 *             lanes neighbouring k's, and adds up across the warp at the end.
 *   across_k: its rows run along r. A block takes 128 neighbouring r's, a
 *             float4 of them per lane, and its 8 warps split the k's; each
 *             thread keeps a sum for each of its 4 r's and each vector (the
 *             vectors' count rounded up to a power of two, a template
 *             parameter), and the warps' sums are added in shared memory.
 *             When the r's alone make too few blocks for the GPU, K is cut
 *             into `splits` slices, summed by blocks of their own into
 *             scratch memory, and a third kernel adds them up; without
 *             scratch, each block sums the slices in turn, to the same bits.
 * Every sum is added in one fixed order, so a call gives the same bits each
 * time. A batch of matrix-vector products (gl_engine_gemv_batch) is one
 * grid whose z is the product (kernels of their own, BATCH: a single
 * product's keep every register they had), each block summing its slices
 * in turn.
 */
#include "engine.h"
#include "kernels/ladder.cuh"

namespace {

constexpr int WARPS = 8, THREADS = 32 * WARPS;

/* The matrix is read once, by evict-first loads (as cuBLAS's matrix-vector
 * kernel reads it): L2 gives its lines up first, not x's, y's or the
 * slices' sums (docs/engine.md, "Matrix-vector", has the numbers). */
template <class T> __device__ __forceinline__ T read_once(const T *p) { return __ldcs(p); }

/* Product blockIdx.z of batch b as g, from the first's (strides) or from
 * its entries (pointer arrays); false where this kernel has no such
 * product: an entry is NULL, or the batch runs in two passes (split) and
 * the entries' alignment puts it in the other: the kernel of 16-byte loads
 * (VEC) takes the products whose matrix, and x along k, start on 16 bytes,
 * the other kernel the rest. */
template <bool VEC>
__device__ __forceinline__ bool take_product(gl_gemv &g, const gl_gemv_products &b, bool split)
{
    const int64_t z = blockIdx.z;
    if (!b.y) {
        g.mat += z * b.steps.a, g.x += z * b.steps.b, g.y += z * b.steps.c;
        return true;
    }
    const float *const mat = b.mat[z], *const x = b.x[z];
    float *const y = b.y[z];
    if (!mat || !x || !y)
        return false;
    g.mat = mat + b.moves.a, g.x = x + b.moves.b, g.y = y + b.moves.c;
    const bool aligned = ((uintptr_t)g.mat & 15) == 0 && (!g.along_k || ((uintptr_t)g.x & 15) == 0);
    return !split || aligned == VEC;
}

__device__ __forceinline__ void store_y(const gl_gemv &g, int j, int64_t r, float sum)
{
    float *y = g.y + j * g.syv + r * g.sy;
    gl_store_c(y, sum, g.alpha, g.beta);
}

/* One warp a row; VEC: the row and x read 16 bytes at a time (both
 * aligned, x contiguous). */
template <bool VEC, bool BATCH>
__global__ __launch_bounds__(THREADS) void along_k(gl_gemv g, const gl_gemv_products b, bool split)
{
    gl_wait_for_previous_grid();
    if (BATCH && !take_product<VEC>(g, b, split))
        return;
    const int64_t r = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (r >= g.rows)
        return;
    const float *row = g.mat + r * g.rs;
    float sum = 0.0f;
    int64_t k = lane;
    if (VEC) {
        const float4 *row4 = reinterpret_cast<const float4 *>(row);
        const float4 *x4 = reinterpret_cast<const float4 *>(g.x);
        const int64_t k4 = g.k / 4;
#pragma unroll 4 /* loads of the next rounds on their way during this one's math */
        for (int64_t i = lane; i < k4; i += 32) {
            const float4 a = read_once(row4 + i), b = x4[i];
            sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
        k = 4 * k4 + lane; /* the last k % 4 */
    }
    for (; k < g.k; k += 32)
        sum += read_once(row + k) * g.x[k * g.sx];
#pragma unroll
    for (int d = 16; d > 0; d /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (lane == 0)
        store_y(g, 0, r, sum);
}

/* Block x: rows [128 x, +128) of each y_j. K is cut into `splits` slices,
 * each summed the same way: with partial set, block (x, z) sums slice z
 * into partial[(z * vectors + j) * rows + r], and add_slices adds them up;
 * without, block x sums every slice in turn and adds them up in the same
 * order, so both give the same bits. V: the vectors' count rounded up to a
 * power of two. VEC: the matrix's rows start on 16 bytes, so 4 r's are one
 * load. */
template <int V, bool VEC, bool BATCH>
__global__ __launch_bounds__(THREADS) void across_k(gl_gemv g, const gl_gemv_products b, bool split,
                                                    int splits, float *partial)
{
    gl_wait_for_previous_grid();
    if (BATCH && !take_product<VEC>(g, b, split))
        return; /* the whole block: z is the block's */
    __shared__ float4 sums[WARPS][32];
    __shared__ float4 running[V][32]; /* without partial: the slices' sums so far */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t r = ((int64_t)blockIdx.x * 32 + lane) * 4;
    const int z0 = partial ? blockIdx.y : 0, z1 = partial ? z0 + 1 : splits;
    if (!partial && warp == 0)
        for (int j = 0; j < V; ++j)
            running[j][lane] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int z = z0; z < z1; ++z) {
        const int64_t k0 = (int64_t)z * g.slice, k1 = min(k0 + g.slice, (int64_t)g.k);
        float acc[V][4] = {};
        int64_t k = k0 + warp;
        /* ROUNDS rounds' loads issued together, then their math: 8 for one
         * vector (0.4-2% faster than 4 on an H100 at 1 x 4096 x 4096 ..
         * 1 x 16384 x 16384, 2026-11-26; 12 and 16 no faster), 4 for more,
         * whose x's take V registers a round. */
        constexpr int ROUNDS = V == 1 ? 8 : 4;
        if (VEC && r + 3 < g.rows)
            for (; k + (ROUNDS - 1) * WARPS < k1; k += ROUNDS * WARPS) {
                float4 a[ROUNDS];
                float xk[ROUNDS][V];
#pragma unroll
                for (int u = 0; u < ROUNDS; ++u) {
                    const int64_t ku = k + u * WARPS;
                    a[u] = read_once(reinterpret_cast<const float4 *>(g.mat + ku * g.ks + r));
                    const float *x = g.x + ku * g.sx;
#pragma unroll
                    for (int j = 0; j < V; ++j, x += g.sxv)
                        xk[u][j] = V == 1 || j < g.vectors ? *x : 0.0f;
                }
#pragma unroll
                for (int u = 0; u < ROUNDS; ++u)
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        acc[j][0] += a[u].x * xk[u][j], acc[j][1] += a[u].y * xk[u][j];
                        acc[j][2] += a[u].z * xk[u][j], acc[j][3] += a[u].w * xk[u][j];
                    }
            }
        /* The rest, and rows that end inside a float4; lanes past the last
         * row have nothing to add. */
        for (; k < k1 && r < g.rows; k += WARPS) {
            const float *m = g.mat + k * g.ks + r;
            float a[4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                a[i] = r + i < g.rows ? read_once(m + i) : 0.0f;
            const float *x = g.x + k * g.sx;
#pragma unroll
            for (int j = 0; j < V; ++j, x += g.sxv)
                if (V == 1 || j < g.vectors) {
                    const float xk = *x;
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        acc[j][i] += a[i] * xk;
                }
        }
#pragma unroll
        for (int j = 0; j < V; ++j) {
            if (j >= g.vectors)
                break;
            sums[warp][lane] = make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
            __syncthreads();
            if (warp == 0) {
                float total[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                for (int w = 0; w < WARPS; ++w) { /* in order: the same bits every time */
                    const float4 s = sums[w][lane];
                    total[0] += s.x, total[1] += s.y, total[2] += s.z, total[3] += s.w;
                }
                if (partial) {
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        if (r + i < g.rows)
                            partial[((int64_t)z * g.vectors + j) * g.rows + r + i] = total[i];
                } else {
                    float4 &run = running[j][lane];
                    run.x += total[0], run.y += total[1], run.z += total[2], run.w += total[3];
                }
            }
            __syncthreads(); /* sums is free for the next vector */
        }
    }
    if (!partial && warp == 0)
        for (int j = 0; j < g.vectors; ++j) {
            const float4 run = running[j][lane];
            const float sum[4] = {run.x, run.y, run.z, run.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (r + i < g.rows)
                    store_y(g, j, r + i, sum[i]);
        }
}

/* y_j[r] from the slices' sums, added in order of the slice. */
__global__ __launch_bounds__(THREADS) void add_slices(const gl_gemv g, int splits,
                                                      const float *partial)
{
    gl_wait_for_previous_grid();
    const int64_t e = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (e >= (int64_t)g.vectors * g.rows)
        return;
    const int j = (int)(e / g.rows);
    const int64_t r = e % g.rows;
    float sum = 0.0f;
    for (int z = 0; z < splits; ++z)
        sum += partial[(int64_t)z * g.vectors * g.rows + e];
    store_y(g, j, r, sum);
}

unsigned blocks(int64_t items, int64_t per_block) { return (unsigned)((items - 1) / per_block + 1); }

/* The matrix-vector kernel for g (the vectors' count rounded up to a power
 * of two, across k), on a grid of z products of batch b (BATCH) or on g
 * alone (z = 1). */
template <bool VEC, bool BATCH>
cudaError_t launch(const gl_gemv &g, const gl_gemv_products &b, bool split, unsigned z,
                   int splits, float *partial, const gl_exec *x)
{
    if (g.along_k)
        return gl_launch_dependent(along_k<VEC, BATCH>, dim3(blocks(g.rows, WARPS), 1, z),
                                   THREADS, 0, x, g, b, split);
    static_assert(GL_GEMV_MAX_VECTORS == 8, "across_k is compiled for up to 8 vectors");
    const int v = g.vectors;
    const auto kernel = v <= 1 ? across_k<1, VEC, BATCH>
                        : v <= 2 ? across_k<2, VEC, BATCH>
                        : v <= 4 ? across_k<4, VEC, BATCH>
                                 : across_k<8, VEC, BATCH>;
    const dim3 grid(blocks(g.rows, 128), partial ? (unsigned)splits : 1u, z);
    return gl_launch_dependent(kernel, grid, THREADS, 0, x, g, b, split, splits, partial);
}

} // namespace

extern "C" int gl_engine_gemv(const gl_gemv *g, int splits, void *scratch, const gl_exec *x)
{
    /* The slices' sums go to scratch when there is some; else each block
     * runs through the slices itself, to the same bits. */
    float *partial = splits > 1 && !g->along_k ? static_cast<float *>(scratch) : nullptr;
    const gl_gemv_products one = {};
    const cudaError_t err = g->vec ? launch<true, false>(*g, one, false, 1, splits, partial, x)
                                   : launch<false, false>(*g, one, false, 1, splits, partial, x);
    if (err || !partial)
        return err;
    return gl_launch_dependent(add_slices, dim3(blocks((int64_t)g->vectors * g->rows, THREADS)),
                               THREADS, 0, x, *g, splits, (const float *)partial);
}

extern "C" int gl_engine_gemv_batch(const gl_gemv *g, int splits, int64_t count,
                                    const gl_gemv_products *b, const gl_exec *x)
{
    /* Pointer arrays whose steps allow 16-byte loads run in two passes:
     * the products whose entries allow them too, then the rest. */
    const bool split = b->y && g->vec;
    for (int64_t first = 0; first < count; first += GL_GRID_YZ_MAX) { /* products a launch */
        gl_gemv f = *g;
        gl_gemv_products q = *b;
        if (q.y)
            q.mat += first, q.x += first, q.y += first;
        else
            f.mat += first * q.steps.a, f.x += first * q.steps.b, f.y += first * q.steps.c;
        const unsigned z = gl_grid_yz(count - first);
        cudaError_t err = f.vec ? launch<true, true>(f, q, split, z, splits, nullptr, x)
                                : launch<false, true>(f, q, split, z, splits, nullptr, x);
        if (!err && split)
            err = launch<false, true>(f, q, split, z, splits, nullptr, x);
        if (err)
            return err;
    }
    return 0;
}
