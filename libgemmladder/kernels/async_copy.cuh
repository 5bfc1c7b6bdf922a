/*
 * async_copy.cuh - asynchronous copies from global into shared memory
 * (cp.async, PTX, compute capability 8.0 and up), as the rungs that keep a
 * ring of slices in flight use them: rung 12 (12_pipelined.cu) and rung 10
 * (10_tf32.cu). A copy goes straight into shared memory (LDGSTS) without
 * passing through the thread's registers; a thread's copies are grouped
 * into commit groups, and it waits for all but the newest N of its groups
 * to arrive. A barrier after the wait makes every thread's copies visible
 * to the block.
 */
#ifndef GL_ASYNC_COPY_CUH
#define GL_ASYNC_COPY_CUH

__device__ __forceinline__ unsigned gl_smem_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16 bytes, cached in L2 only (the slice is read once per block). */
__device__ __forceinline__ void gl_cp_async16(unsigned dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

/* 4 bytes: cp.async.cg takes 16 only. */
__device__ __forceinline__ void gl_cp_async4(unsigned dst, const float *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src));
}

/* The same, or zeros without a read where `in` is false (src-size 0); src
 * then points at `safe`, an address inside the operand, so that no address
 * past the matrix is ever formed into a copy. */
__device__ __forceinline__ void gl_cp_async16_fill(unsigned dst, const float *src,
                                                   const float *safe, bool in)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(in ? src : safe), "r"(in ? 16 : 0));
}

__device__ __forceinline__ void gl_cp_async4_fill(unsigned dst, const float *src,
                                                  const float *safe, bool in)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst),
                 "l"(in ? src : safe), "r"(in ? 4 : 0));
}

__device__ __forceinline__ void gl_cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Until at most N of this thread's commit groups are still in flight. */
template <int N>
__device__ __forceinline__ void gl_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

#endif /* GL_ASYNC_COPY_CUH */
