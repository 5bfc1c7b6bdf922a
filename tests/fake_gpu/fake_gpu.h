/*
 * fake_gpu.h - a test double for the GPU, so the library's host code runs
 * end to end on a machine without one: fake_cuda.c answers the CUDA runtime,
 * driver and cuBLAS calls the host C files make (a device like an H100:
 * compute capability 9.0, 132 SMs), and fake_kernels.c stands in for what
 * nvcc compiles, recording each launch instead of running it. Built with the
 * library's host C files in place of libcudart, libcublas and the .cu
 * objects (tests/meson.build), for the sanitizer builds and the API fuzzer.
 *
 * Device memory is bookkeeping only: fake_gpu_alloc returns addresses that
 * the pointer query knows as device memory of some size, and no kernel
 * reads or writes matrices through them. Small allocations also hold
 * values, for what the GPU reads besides matrices (pointer arrays): the
 * test writes them with fake_gpu_write, and the fake kernels and copies
 * read them with fake_gpu_read.
 */
#ifndef GL_FAKE_GPU_H
#define GL_FAKE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many devices cudaGetDeviceCount reports (default 1; 0: no GPU). */
void fake_gpu_set_devices(int count);

/* The driver's CUDA version, as cudaDriverGetVersion reports it (default:
 * the runtime's, CUDART_VERSION; 0: no driver installed). Below the
 * runtime's, cudaGetDeviceCount fails with cudaErrorInsufficientDriver. */
void fake_gpu_set_driver(int version);

/* A fake device allocation of `bytes` (any size up to 2^50; 256-byte
 * aligned); fake_gpu_free forgets it. Thread-safe. */
void *fake_gpu_alloc(uint64_t bytes);
void fake_gpu_free(void *p);

/* Allocations of at most this many bytes hold values, zeros at first;
 * every other byte of fake device memory reads as zero. */
#define FAKE_GPU_VALUE_BYTES (64 * 1024)

/* Copies `bytes` bytes from host memory src to fake device memory at
 * device (false, nothing written, where they do not all lie in one
 * allocation that holds values), and back: fake_gpu_read fills dst with
 * the values there (zeros where the memory holds none). Thread-safe. */
bool fake_gpu_write(void *device, const void *src, size_t bytes);
void fake_gpu_read(const void *device, void *dst, size_t bytes);

/* One recorded kernel launch (per thread, in order). */
typedef struct fake_launch {
    int variant;        /* rung id, or -1 for the beta-scaling kernel */
    int m, n, k;
    const float *a, *b;
    float *c;
    int64_t lda, ldb, ldc;
    bool trans_a, trans_b;
    float alpha, beta;
    bool batched; /* one product of a batched call, recorded one by one (a
                     pointer array's: the products of non-NULL entries, but
                     cuBLAS's, which records every entry as it is) */
} fake_launch;

/* The launches this thread made since the last fake_gpu_clear_launches: the
 * first min(count, FAKE_GPU_LOG) are kept, all are counted. */
#define FAKE_GPU_LOG 4096
void fake_gpu_clear_launches(void);
int fake_gpu_launch_count(void);
const fake_launch *fake_gpu_launch(int i);

/* What the last launch of auto on this thread was handed about scratch
 * memory (its gl_engine_context): the caller's buffer (NULL: the pool) and
 * the most one product may take. False where auto has not run yet. */
bool fake_gpu_last_auto(void **workspace, size_t *budget);

/* Called by fake_kernels.c. */
void fake_gpu_record(const fake_launch *l);

#endif
