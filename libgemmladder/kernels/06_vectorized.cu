/*
 * Rung 6, vectorized: rung 5 with 16-byte memory accesses, the A slice
 * stored transposed in shared memory, and each slice's global loads issued
 * one slice early.
 *
 * Copies from global memory move a float4 per instruction instead of a float
 * (gl_slice_loader in rung.h), and they go into shared memory k-major for
 * both operands: As[i][r] holds op(A)(row0 + r, k0 + i). A thread's TM values
 * of A for step i are then TM consecutive floats, read as float4s like its TN
 * values of B, and C is written a float4 at a time. Fewer, wider
 * instructions for the same bytes.
 *
 * Splitting the copy in two (fetch: global memory to registers; stash:
 * registers to shared memory) lets a thread start reading slice s + 1 right
 * after the barrier that publishes slice s, and only wait for those loads
 * when it stores them, after its math on slice s: the global-memory latency
 * is spent doing FMAs instead of waiting at the barrier. Shared memory still
 * holds one slice, so there are still two barriers per slice (rung 8 removes
 * one).
 *
 * 16-byte accesses need 16-byte aligned matrices with leading dimensions that
 * are multiples of 4. The launcher checks that on the host and runs one of
 * two compiled kernels (gl_copy_path in rung.h): one where both operands are
 * aligned, and one where an operand that is not is read 4 floats with 4
 * plain loads. Only the last K slice is copied with per-row or per-element
 * edge tests; the slices before it read past the edge of C's rows and
 * columns into values that are never stored (gl_unguarded_slices). Warps
 * whose patches lie wholly outside C skip the math.
 *
 * This file also compiles the kernel for every configuration in
 * GL_VECTORIZED_CONFIGS: rung 7 runs this same kernel with the tuning
 * table's choice among them.
 */
#include "configs.h"
#include "rung.h"

namespace {

template <int BM, int BN, int BK, int TM, int TN>
struct shape {
    static constexpr int THREADS = BM * BN / (TM * TN);
    static constexpr int REGISTERS =
        GL_REGISTER_ESTIMATE(TM * TN, TM + TN, (BM + BN) * BK / (4 * THREADS));
};

/* C is m x n; block (x, y) covers columns [x*BN, +BN) and rows [y*BM, +BM).
 * PATH: how the operands are copied (gl_copy_path in rung.h). */
template <gl_copy_path PATH, int BM, int BN, int BK, int TM, int TN,
          class S = shape<BM, BN, BK, TM, TN>>
__global__ __launch_bounds__(S::THREADS, gl_min_blocks(S::THREADS, S::REGISTERS))
void vectorized_kernel(const gl_problem p)
{
    constexpr int THREADS = S::THREADS;
    static_assert(BM % TM == 0 && BN % TN == 0, "the threads' patches must tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are read and written 4 floats at a time");
    static_assert(THREADS >= 64 && THREADS <= 1024, "a block has 64 to 1024 threads");
    constexpr int SA = BM + GL_SMEM_PAD, SB = BN + GL_SMEM_PAD; /* row strides */
    extern __shared__ float4 smem[];
    float *As = reinterpret_cast<float *>(smem); /* As[i * SA + r] = op(A)(row0 + r, k0 + i) */
    float *Bs = As + BK * SA;                    /* Bs[i * SB + c] = op(B)(k0 + i, col0 + c) */

    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = threadIdx.x / (BN / TN) * TM;
    const int tc = threadIdx.x % (BN / TN) * TN;
    auto load_a = gl_loader_a<BK, BM, THREADS, PATH>(p, row0);
    auto load_b = gl_loader_b<BK, BN, THREADS, PATH>(p, col0);

    /* Warps whose patches all lie outside C skip the math (see rung 4); the
     * warp's first lane has the smallest row and column. */
    const int lane0 = threadIdx.x & ~31;
    const bool active = row0 + lane0 / (BN / TN) * TM < p.m && col0 + lane0 % (BN / TN) * TN < p.n;
    float acc[TM][TN] = {};
    float a[TM], b[TN];
    const int slices = (p.k - 1) / BK + 1;
    const int unguarded = gl_unguarded_slices<PATH>(p, row0, col0, BM, BN, BK);
    const auto fetch = [&](int s) { /* slice s into registers */
        gl_fetch_slice<BK, PATH>(load_a, load_b, p, row0, col0, s, unguarded);
    };
    fetch(0);
    for (int s = 0; s < slices; ++s) {
        load_a.stash(As);
        load_b.stash(Bs);
        __syncthreads();
        if (s + 1 < slices) { /* the next slice's loads travel during this slice's math */
            load_a.advance();
            load_b.advance();
            fetch(s + 1);
        }

        if (active) {
#pragma unroll
            for (int i = 0; i < BK; ++i) {
#pragma unroll
                for (int t = 0; t < TM; t += 4)
                    *reinterpret_cast<float4 *>(&a[t]) =
                        *reinterpret_cast<const float4 *>(&As[i * SA + tr + t]);
#pragma unroll
                for (int u = 0; u < TN; u += 4)
                    *reinterpret_cast<float4 *>(&b[u]) =
                        *reinterpret_cast<const float4 *>(&Bs[i * SB + tc + u]);
#pragma unroll
                for (int t = 0; t < TM; ++t)
#pragma unroll
                    for (int u = 0; u < TN; ++u)
                        acc[t][u] += a[t] * b[u];
            }
        }
        __syncthreads();
    }

    const bool vec = gl_vec4_ok(p.c, p.ldc);
#pragma unroll
    for (int t = 0; t < TM; ++t)
#pragma unroll
        for (int u = 0; u < TN; u += 4)
            gl_store_c4(p, row0 + tr + t, col0 + tc + u,
                        make_float4(acc[t][u], acc[t][u + 1], acc[t][u + 2], acc[t][u + 3]), vec);
}

template <int BM, int BN, int BK, int TM, int TN>
constexpr size_t smem_bytes()
{
    return GL_VECTORIZED_SMEM(BM, BN, BK);
}

/* Interior problems take the aligned kernel too: the unguarded kernel of
 * the 128 x 128 configuration spilled registers. */
template <int BM, int BN, int BK, int TM, int TN>
auto kernel_for(gl_copy_path path)
{
    return path == GL_COPY_ANY ? vectorized_kernel<GL_COPY_ANY, BM, BN, BK, TM, TN>
                               : vectorized_kernel<GL_COPY_ALIGNED, BM, BN, BK, TM, TN>;
}

template <int BM, int BN, int BK, int TM, int TN>
int launch(const gl_problem *p, cudaStream_t stream)
{
    kernel_for<BM, BN, BK, TM, TN>(gl_copy_path_for(p, BM, BN, BK))
        <<<gl_tile_grid(p, BM, BN), BM * BN / (TM * TN), smem_bytes<BM, BN, BK, TM, TN>(),
           stream>>>(*p);
    return cudaGetLastError();
}

template <int BM, int BN, int BK, int TM, int TN>
cudaError_t prepare()
{
    for (gl_copy_path path : {GL_COPY_ALIGNED, GL_COPY_ANY})
        if (const cudaError_t err = gl_allow_shared_memory(kernel_for<BM, BN, BK, TM, TN>(path),
                                                           smem_bytes<BM, BN, BK, TM, TN>()))
            return err;
    return cudaSuccess;
}

#define GL_COMPILED(BM, BN, BK, TM, TN)                                                        \
    {{BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)}, launch<BM, BN, BK, TM, TN>,           \
     prepare<BM, BN, BK, TM, TN>},
const gl_compiled_config configs[] = {GL_VECTORIZED_CONFIGS(GL_COMPILED)};
#undef GL_COMPILED

} // namespace

/* Rung 6 runs the first configuration; rung 7 any of them (07_autotuned.cu).
 * In a big product, an operand that is unaligned or not a whole number of
 * tiles is first copied into scratch memory, aligned and padded with zeros
 * to whole tiles (gl_pack_operands in rung.h): one read and write of it
 * costs less than the 4-byte loads and edge tests it saves. */
extern "C" int gl_launch_vectorized(const gl_problem *p, const gl_tile_params *t,
                                    const gl_exec *x)
{
    return gl_launch_config_packed(configs, p, t, x);
}

extern "C" cudaError_t gl_prepare_vectorized(void) { return gl_prepare_configs(configs); }
