/*
 * Not a rung: rungs 6-8 copy operands that their copies into shared memory
 * cannot read at full speed (unaligned, or not whole tiles unless every
 * extent is a multiple of 4 and every row starts on 32 bytes) into scratch
 * memory first, when that pays (rung.h, gl_pack_operands). A copy keeps
 * the operand's layout; its rows start on 16 bytes, and both its extents
 * are padded with zeros to whole tiles, so the kernel's copies need no
 * tests and the end of K no special case. The zeros add nothing to any
 * result.
 */
#include "rung.h"

namespace {

constexpr int THREADS = 256;

/* dst (rows x cols, ld4 float4s apart) = src (src_rows x src_cols, ld apart)
 * padded with zeros: block x covers 4 * THREADS columns, block y strides
 * over the rows. cols is a multiple of 4. */
__global__ __launch_bounds__(THREADS) void pack_kernel(const float *src, int64_t ld, int src_rows,
                                                       int src_cols, int rows, int cols,
                                                       float4 *dst, int64_t ld4)
{
    const int64_t c = ((int64_t)blockIdx.x * THREADS + threadIdx.x) * 4;
    if (c >= cols)
        return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (r < src_rows) {
            const float *s = src + (int64_t)r * ld + c;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (c + j < src_cols)
                    v[j] = s[j];
        }
        dst[(int64_t)r * ld4 + c / 4] = make_float4(v[0], v[1], v[2], v[3]);
    }
}

int64_t round_up(int v, int to) { return ((int64_t)v + to - 1) / to * to; }

/* Every row of the matrix starts on a 32-byte sector. */
bool on_sectors(const float *p, int64_t ld) { return ((uintptr_t)p & 31) == 0 && ld % 8 == 0; }

/* One operand as stored, rows x cols, and the tile multiples its copy gets:
 * x is m (A) or n (B) and pads to bx; k pads to bk. */
struct operand {
    const float **ptr;
    int64_t *ld;
    bool k_rows;   /* stored rows run along K (A transposed, B not) */
    int x, bx;     /* C's extent this operand spans, and its tile */
    int rows, cols; /* of the copy */
    bool copy;
    size_t offset; /* bytes into the scratch block */
};

} // namespace

extern "C" int gl_pack_operands(gl_problem *p, const gl_exec *x, int bm, int bn, int bk,
                                void **scratch)
{
    *scratch = NULL;
    if (!x->scratch || p->padded)
        return 0;
    /* Operands with extents that are multiples of 4 and rows that start on
     * 32 bytes (whole sectors) are read in place at nearly full speed: rung
     * 8 moves its edge tiles inside them (GL_COPY_SHIFTED), rung 6 tests
     * only its edge blocks and last slice. Rows on 16 bytes only cost more
     * sectors per load than the copy (4096 x 4096 x 4100, docs/ladder.md). */
    if (gl_copy_path_for(p, bm, bn, bk) == GL_COPY_SHIFTED && on_sectors(p->a, p->lda) &&
        on_sectors(p->b, p->ldb))
        return 0;
    const int64_t k_pad = round_up(p->k, bk);
    operand ops[2] = {
        {&p->a, &p->lda, p->trans_a, p->m, bm, 0, 0, false, 0},
        {&p->b, &p->ldb, !p->trans_b, p->n, bn, 0, 0, false, 0},
    };
    const bool k_edge = p->k != k_pad; /* then both copy, to pad K alike */
    size_t bytes = 0;
    bool all = true; /* every operand is, or will be, whole aligned tiles */
    for (operand &o : ops) {
        const int64_t x_pad = round_up(o.x, o.bx);
        if (x_pad > INT32_MAX || k_pad > INT32_MAX) /* the kernels' int indices */
            return 0;
        const bool short_of_tiles = k_edge || o.x != x_pad || !gl_vec4_ok(*o.ptr, *o.ld);
        o.rows = (int)(o.k_rows ? k_pad : x_pad);
        o.cols = (int)(o.k_rows ? x_pad : k_pad);
        o.copy = short_of_tiles && gl_pack_pays(p->m, p->n, p->k, (int64_t)o.rows * o.cols);
        all = all && (o.copy || !short_of_tiles);
        if (o.copy) {
            o.offset = bytes;
            bytes += ((size_t)o.rows * o.cols * sizeof(float) + 255) / 256 * 256;
        }
    }
    if (k_edge && !all) /* K padded in one operand only would not match */
        return 0;
    if (bytes == 0)
        return 0;

    void *mem = NULL;
    if (cudaMallocFromPoolAsync(&mem, bytes, x->scratch, x->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error: the kernels read the operands in place */
        return 0;
    }
    for (operand &o : ops) {
        if (!o.copy)
            continue;
        float4 *dst = reinterpret_cast<float4 *>(static_cast<char *>(mem) + o.offset);
        const int src_rows = o.k_rows ? p->k : o.x, src_cols = o.k_rows ? o.x : p->k;
        const dim3 grid(gl_ceil_div(o.cols, 4 * THREADS), o.rows < 65535 ? o.rows : 65535);
        pack_kernel<<<grid, THREADS, 0, x->stream>>>(*o.ptr, *o.ld, src_rows, src_cols, o.rows,
                                                     o.cols, dst, o.cols / 4);
        if (const cudaError_t err = cudaGetLastError()) {
            gl_release_scratch(mem, x);
            return err;
        }
        *o.ptr = reinterpret_cast<const float *>(dst);
        *o.ld = o.cols;
    }
    p->k = (int)k_pad;
    p->padded = all;
    *scratch = mem;
    return 0;
}

extern "C" void gl_release_scratch(void *scratch, const gl_exec *x)
{
    /* A failure here (none is known to happen on a stream that just took
     * the kernel) would leave the memory to the pool until the handle is
     * destroyed; it must not become the next launch's error. */
    if (scratch && cudaFreeAsync(scratch, x->stream) != cudaSuccess)
        (void)cudaGetLastError();
}
