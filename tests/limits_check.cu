/*
 * limits_check.cu - the device side of test_gpu_limits.c: fills and checks
 * buffers of many GiB on the GPU itself, so that products at the API's size
 * limits are checked element by element without copying them back.
 *
 * Every value is a small integer (-1, 0 or 1) drawn from a hash of a seed
 * and the element's index, so every sum a product makes is an integer far
 * below 2^24: exact in float32 whatever the order of summation, split or
 * not. A product is right when each element equals its reference exactly.
 */
#include <cstdint>
#include <cuda_runtime.h>

#include "limits_check.h"

namespace {

__device__ __host__ inline uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__device__ inline float value(uint64_t seed, int64_t e)
{
    return (float)(int)(mix(seed ^ (uint64_t)e) % 3) - 1.0f;
}

/* Whether element e (from the matrix's first) is one of the matrix's, and
 * its (outer, inner) position. */
__device__ inline bool element(const lim_matrix &x, int64_t e, int64_t *outer, int64_t *inner)
{
    if (e < 0 || e >= (x.outer - 1) * x.ld + x.inner)
        return false;
    *outer = e / x.ld, *inner = e % x.ld;
    return *inner < x.inner;
}

/* Stored element (r, c) of a matrix in layout `row_major`. */
__device__ inline float at(const float *p, bool row_major, int64_t ld, int64_t r, int64_t c)
{
    return row_major ? p[r * ld + c] : p[c * ld + r];
}

__global__ void fill_kernel(float *buf, int64_t count, uint64_t seed, lim_matrix poison_of,
                            int64_t first)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t o, i;
        const bool poisoned = poison_of.ld > 0 && element(poison_of, e - first, &o, &i);
        buf[e] = poisoned ? __int_as_float(0x7fc0dead) : value(seed, e);
    }
}

/* op(A)(i, p) * op(B)(p, j) summed over p, exactly (integers). */
__device__ inline long long dot(const lim_case &c, int64_t i, int64_t j, int64_t p0, int64_t p1,
                                int64_t step)
{
    long long acc = 0;
    for (int64_t p = p0; p < p1; p += step) {
        const float a = c.trans_a ? at(c.a, c.row_major, c.lda, p, i)
                                  : at(c.a, c.row_major, c.lda, i, p);
        const float b = c.trans_b ? at(c.b, c.row_major, c.ldb, j, p)
                                  : at(c.b, c.row_major, c.ldb, p, j);
        acc += (long long)a * (long long)b;
    }
    return acc;
}

/* One block per element (i, j) of C's first rows x cols: its sum over K. */
__global__ void reference_kernel(lim_case c, int64_t rows, int64_t cols, long long *ref)
{
    __shared__ long long part[256];
    const int64_t i = blockIdx.x / cols, j = blockIdx.x % cols;
    part[threadIdx.x] = i < rows ? dot(c, i, j, threadIdx.x, c.k, blockDim.x) : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        ref[blockIdx.x] = part[0];
}

/* Every element of C's buffer: outside the matrix (guards before and after,
 * ld padding) as filled; inside, alpha * sum + beta * C0 exactly, the sum
 * from ref (C's element (i, j) at ref[i * ref_cols + j], for i < ref_rows)
 * or, where ref is NULL, summed here; rows i with i % row_step != 0 only
 * written (not the poison, a value of the kind the product makes). With
 * untouched, every element must be as filled (a refused call). */
__global__ void check_kernel(lim_case c, const float *buf, int64_t count, int64_t first,
                             uint64_t seed, const long long *ref, int64_t ref_rows,
                             int64_t ref_cols, int64_t row_step, bool untouched,
                             unsigned long long *bad, unsigned long long *first_bad)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t o, in;
        const float got = buf[e];
        bool ok;
        if (untouched || !element(c.c_matrix, e - first, &o, &in)) {
            const bool poisoned = untouched && c.beta == 0.0f &&
                                  element(c.c_matrix, e - first, &o, &in);
            ok = __float_as_int(got) ==
                 (poisoned ? 0x7fc0dead : __float_as_int(value(seed, e)));
        } else {
            const int64_t i = c.row_major ? o : in, j = c.row_major ? in : o;
            if (i % row_step != 0) {
                ok = got == got && fabsf(got) <= fabsf(c.alpha) * (float)c.k + 2.0f;
            } else {
                long long acc;
                if (ref)
                    acc = i < ref_rows ? ref[i * ref_cols + j] : 0;
                else
                    acc = c.k > 0 && c.alpha != 0.0f ? dot(c, i, j, 0, c.k, 1) : 0;
                const float c0 = c.beta == 0.0f ? 0.0f : value(seed, e);
                const float want = c.alpha * (float)acc + c.beta * c0;
                ok = got == want && !(ref && i >= ref_rows);
            }
        }
        if (!ok) {
            atomicAdd(bad, 1ULL);
            atomicMin(first_bad, (unsigned long long)e);
        }
    }
}

constexpr int THREADS = 256, BLOCKS = 132 * 16;

} // namespace

extern "C" cudaError_t lim_fill(float *buf, int64_t count, uint64_t seed,
                                const lim_matrix *poison_of, int64_t first)
{
    const lim_matrix none = {0, 0, 0};
    fill_kernel<<<BLOCKS, THREADS>>>(buf, count, seed, poison_of ? *poison_of : none, first);
    return cudaGetLastError();
}

extern "C" cudaError_t lim_reference(const lim_case *c, int64_t rows, int64_t cols,
                                     long long *ref)
{
    reference_kernel<<<(unsigned)(rows * cols), THREADS>>>(*c, rows, cols, ref);
    return cudaGetLastError();
}

extern "C" cudaError_t lim_check(const lim_case *c, const float *buf, int64_t count,
                                 int64_t first, uint64_t seed, const long long *ref,
                                 int64_t ref_rows, int64_t ref_cols, int64_t row_step,
                                 bool untouched, unsigned long long *bad,
                                 unsigned long long *first_bad)
{
    check_kernel<<<BLOCKS, THREADS>>>(*c, buf, count, first, seed, ref, ref_rows, ref_cols,
                                      row_step, untouched, bad, first_bad);
    return cudaGetLastError();
}
