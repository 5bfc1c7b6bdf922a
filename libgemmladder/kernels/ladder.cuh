/*
 * ladder.cuh - the plumbing the rung files share, none of it a rung's
 * algorithm: views of op(A) and op(B), the epilogue (epilogue.cuh), grid
 * sizes, staging a window of a matrix in shared memory
 * with zeros past its edges, and running the compiled configuration a call
 * names.
 */
#ifndef GL_LADDER_CUH
#define GL_LADDER_CUH

#include "epilogue.cuh"
#include "launch.h"

/* A read-only matrix seen through strides: element (i, j) is at
 * p[i * row_stride + j * col_stride]. The strides absorb the transpose, so
 * a rung indexes op(A) and op(B) the same way whatever the layout. */
struct gl_matrix_view {
    const float *p;
    int64_t row_stride, col_stride;
    __device__ __forceinline__ const float *at(int64_t i, int64_t j) const
    {
        return p + i * row_stride + j * col_stride;
    }
    __device__ __forceinline__ float operator()(int64_t i, int64_t j) const { return *at(i, j); }
};

__device__ __forceinline__ gl_matrix_view gl_view_a(const gl_problem &p)
{
    return p.trans_a ? gl_matrix_view{p.a, 1, p.lda} : gl_matrix_view{p.a, p.lda, 1};
}

__device__ __forceinline__ gl_matrix_view gl_view_b(const gl_problem &p)
{
    return p.trans_b ? gl_matrix_view{p.b, 1, p.ldb} : gl_matrix_view{p.b, p.ldb, 1};
}

/* Number of b-sized tiles covering a >= 1 items (no overflow near INT_MAX). */
static inline unsigned gl_ceil_div(int a, int b) { return (unsigned)((a - 1) / b + 1); }

/* The grid every tiled rung uses: x over column tiles of C, y over row tiles. */
static inline dim3 gl_tile_grid(const gl_problem *p, int bm, int bn)
{
    return dim3(gl_ceil_div(p->n, bn), gl_ceil_div(p->m, bm));
}

/*
 * Copies a ROWS x COLS window of a matrix view into shared memory
 * dst[ROWS][COLS], one K slice after another, zeros where the window hangs
 * over the matrix's edge (they add nothing to any product). Each thread
 * copies the same column of the window in ROUNDS rows STEP apart, so its
 * addresses are worked out once; the window then moves right (an A slice
 * walks along K) or down (a B slice does). How rungs 4 and 5 stage slices.
 */
template <int ROWS, int COLS, int THREADS>
struct gl_window_copy {
    static_assert(THREADS % COLS == 0 && (ROWS * COLS) % THREADS == 0,
                  "the threads must copy the window in whole rounds of whole rows");
    static constexpr int ROUNDS = ROWS * COLS / THREADS, STEP = THREADS / COLS;

    const float *ptr;
    int64_t round_step, row_stride, col_stride;
    int row, col, rows_left, cols_left;

    /* The window's top-left element is (r0, c0) of a rows x cols matrix. */
    __device__ gl_window_copy(gl_matrix_view m, int r0, int c0, int rows, int cols)
        : round_step(STEP * m.row_stride), row_stride(m.row_stride), col_stride(m.col_stride),
          row(threadIdx.x / COLS), col(threadIdx.x % COLS), rows_left(rows - r0),
          cols_left(cols - c0)
    {
        ptr = m.at((int64_t)r0 + row, (int64_t)c0 + col);
    }

    __device__ __forceinline__ void copy(float (*dst)[COLS]) const
    {
#pragma unroll
        for (int j = 0; j < ROUNDS; ++j) {
            const int r = row + j * STEP;
            dst[r][col] = r < rows_left && col < cols_left ? ptr[j * round_step] : 0.0f;
        }
    }

    __device__ __forceinline__ void move_right(int n) { ptr += n * col_stride, cols_left -= n; }
    __device__ __forceinline__ void move_down(int n) { ptr += n * row_stride, rows_left -= n; }
};

/* ptxas of CUDA 13.0 spilled registers in the 128 x 128 kernels for whole
 * tiles on sm_80 (and 8.7) when their copies had no tests; there they keep
 * the tests, which always pass. Only speed differs. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 860
constexpr bool gl_keep_tests = true;
#else
constexpr bool gl_keep_tests = false;
#endif

/* ---- launching the compiled configurations --------------------------------- */

/* A configuration a rung file compiles, and how to run it. */
struct gl_compiled_config {
    gl_tile_params tiles;
    int (*launch)(const gl_problem *, const gl_exec *);
    cudaError_t (*prepare)(); /* NULL when the kernel needs no preparation */
};

/* Runs the entry of `list` whose tiles equal *t. */
template <size_t N>
int gl_launch_config(const gl_compiled_config (&list)[N], const gl_problem *p,
                     const gl_tile_params *t, const gl_exec *x)
{
    for (const gl_compiled_config &c : list)
        if (gl_tile_params_equal(&c.tiles, t))
            return c.launch(p, x);
    return cudaErrorInvalidConfiguration; /* the dispatcher only passes compiled tiles */
}

template <size_t N>
cudaError_t gl_prepare_configs(const gl_compiled_config (&list)[N])
{
    for (const gl_compiled_config &c : list)
        if (c.prepare)
            if (const cudaError_t err = c.prepare())
                return err;
    return cudaSuccess;
}

/* Over 48 KB of dynamic shared memory a kernel must be allowed it explicitly;
 * done once per handle, never per call. */
template <class Kernel>
cudaError_t gl_allow_shared_memory(Kernel kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Resident blocks per SM to ask the compiler for (__launch_bounds__): as many
 * as the register file holds when each thread gets `registers` (an estimate,
 * GL_REGISTER_ESTIMATE in configs.h), so it neither spills nor wastes
 * occupancy. */
constexpr int gl_min_blocks(int threads, int registers)
{
    return 65536 / (threads * registers) > 1 ? 65536 / (threads * registers) : 1;
}

#endif /* GL_LADDER_CUH */
