/*
 * Not a rung: rungs 6-8 copy an operand that their 16-byte loads cannot read
 * into scratch memory with aligned rows first, when that pays (rung.h,
 * gl_align_operands). The copy keeps the operand's layout and only pads each
 * stored row to a multiple of 4 floats, with zeros.
 */
#include "rung.h"

namespace {

constexpr int THREADS = 256;

/* Row r of src (cols floats, ld apart) to row r of dst (ld4 float4s apart):
 * block x covers 4 * THREADS columns, block y strides over the rows. */
__global__ __launch_bounds__(THREADS) void align_rows_kernel(const float *src, int64_t ld,
                                                             int rows, int cols, float4 *dst,
                                                             int64_t ld4)
{
    const int c = (blockIdx.x * THREADS + threadIdx.x) * 4;
    if (c >= cols)
        return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float *s = src + (int64_t)r * ld + c;
        const float4 v = make_float4(s[0], c + 1 < cols ? s[1] : 0.0f, c + 2 < cols ? s[2] : 0.0f,
                                     c + 3 < cols ? s[3] : 0.0f);
        dst[(int64_t)r * ld4 + c / 4] = v;
    }
}

/* One operand as stored: rows x cols, ld apart; where its copy goes. */
struct operand {
    const float **ptr;
    int64_t *ld;
    int rows, cols;
    bool copy;
    size_t offset; /* bytes into the scratch block */
};

int64_t padded(int cols) { return ((int64_t)cols + 3) / 4 * 4; }

} // namespace

extern "C" int gl_align_operands(gl_problem *p, const gl_exec *x, void **scratch)
{
    *scratch = NULL;
    if (!x->scratch)
        return 0;
    operand ops[2] = {
        {&p->a, &p->lda, p->trans_a ? p->k : p->m, p->trans_a ? p->m : p->k, false, 0},
        {&p->b, &p->ldb, p->trans_b ? p->n : p->k, p->trans_b ? p->k : p->n, false, 0},
    };
    size_t bytes = 0;
    for (operand &o : ops) {
        o.copy = !gl_vec4_ok(*o.ptr, *o.ld) &&
                 gl_align_pays(p->m, p->n, p->k, (int64_t)o.rows * o.cols);
        if (o.copy) {
            o.offset = bytes;
            bytes += ((size_t)o.rows * padded(o.cols) * sizeof(float) + 255) / 256 * 256;
        }
    }
    if (bytes == 0)
        return 0;

    void *mem = NULL;
    if (cudaMallocFromPoolAsync(&mem, bytes, x->scratch, x->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error: the 4-byte path runs instead */
        return 0;
    }
    for (operand &o : ops) {
        if (!o.copy)
            continue;
        float4 *dst = reinterpret_cast<float4 *>(static_cast<char *>(mem) + o.offset);
        const dim3 grid(gl_ceil_div(o.cols, 4 * THREADS), o.rows < 65535 ? o.rows : 65535);
        align_rows_kernel<<<grid, THREADS, 0, x->stream>>>(*o.ptr, *o.ld, o.rows, o.cols, dst,
                                                           padded(o.cols) / 4);
        if (const cudaError_t err = cudaGetLastError()) {
            (void)cudaFreeAsync(mem, x->stream);
            return err;
        }
        *o.ptr = reinterpret_cast<const float *>(dst);
        *o.ld = padded(o.cols);
    }
    *scratch = mem;
    return 0;
}

extern "C" void gl_release_scratch(void *scratch, const gl_exec *x)
{
    if (scratch)
        (void)cudaFreeAsync(scratch, x->stream);
}
