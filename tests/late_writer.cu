/*
 * late_writer.cu - a kernel for test_gpu_api that lets the kernels queued
 * behind it start early and then writes their inputs late: on sm_90 and
 * newer it first allows its dependents to launch
 * (griddepcontrol.launch_dependents), waits, and only then copies. The
 * engine's kernels are launched as programmatic dependents (engine.h); one
 * that read memory before waiting for the grid before it would read what
 * was there before the copy.
 */
#include <cuda_runtime.h>
#include <stdint.h>

typedef struct late_copy {
    float *dst;
    const float *src;
    int64_t n;
} late_copy;

__global__ void late_writer(late_copy a, late_copy b, late_copy c, unsigned long long delay_ns)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    while (now - start < delay_ns);
    const late_copy copies[3] = {a, b, c};
    for (const late_copy &k : copies)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < k.n;
             i += (int64_t)gridDim.x * blockDim.x)
            k.dst[i] = k.src[i];
}

/* Queues dst_x = src_x (n_x floats each, x = a, b, c) on `stream`, written
 * after about delay_us microseconds, by a few blocks that leave most of the
 * GPU to the kernels behind them. */
extern "C" cudaError_t test_late_writes(float *dst_a, const float *src_a, int64_t n_a,
                                        float *dst_b, const float *src_b, int64_t n_b,
                                        float *dst_c, const float *src_c, int64_t n_c,
                                        int delay_us, cudaStream_t stream)
{
    late_writer<<<8, 256, 0, stream>>>(late_copy{dst_a, src_a, n_a}, late_copy{dst_b, src_b, n_b},
                                       late_copy{dst_c, src_c, n_c},
                                       1000ull * (unsigned long long)delay_us);
    return cudaGetLastError();
}
