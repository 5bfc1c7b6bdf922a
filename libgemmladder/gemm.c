/*
 * gemm.c - gl_sgemm and gl_sgemm_ex: check every argument, normalise the
 * call to one row-major problem, and hand it to the variant's launcher; and
 * gl_sgemm_plan, which says what that would run.
 *
 * The checks run in a fixed order and report the first failure; none of them
 * queues GPU work. The pure argument checks come first and need no handle,
 * so they behave the same on a machine without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "internal.h"

/* The dispatcher hands kernels at most this many rows at a time, which keeps
 * every rung's row-tile grid dimension under CUDA's 65535 limit. */
#define MAX_ROWS_PER_LAUNCH (1 << 20)

static const char *op_name(gl_transpose_t t) { return t == GL_OP_T ? "T" : "N"; }

/* One operand as the caller stored it: its name and the size it must have. */
typedef struct operand {
    const char *name;      /* "A", "B" or "C" */
    const char *ld_name;   /* "lda", ... */
    const void *ptr;
    int64_t rows, cols;    /* as stored, in the caller's layout */
    int64_t ld;
    const char *rows_name, *cols_name; /* "M", "K", ... for messages */
} operand;

/* ld must cover the stored row (row-major) or column (column-major). */
static gl_status_t check_ld(gl_handle_t h, const operand *x, gl_layout_t layout,
                            const char *trans_name, gl_transpose_t trans)
{
    const bool row_major = layout == GL_ROW_MAJOR;
    const int64_t need = row_major ? x->cols : x->rows;
    const char *need_name = row_major ? x->cols_name : x->rows_name;
    if (x->ld < 1 || x->ld < need) {
        char note[32] = ""; /* formatted only on failure: the success path stays cheap */
        if (trans_name)
            snprintf(note, sizeof note, " with %s = %s", trans_name, op_name(trans));
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s (%lld) must be >= max(1, %s) = %lld for a %s-major %s%s", x->ld_name,
                       (long long)x->ld, need_name, (long long)(need > 1 ? need : 1),
                       row_major ? "row" : "column", x->name, note);
    }
    return GL_STATUS_SUCCESS;
}

/* Bytes from the first to one past the last element of a stored matrix. */
static bool extent_bytes(const operand *x, gl_layout_t layout, uint64_t *bytes)
{
    const int64_t outer = layout == GL_ROW_MAJOR ? x->rows : x->cols;
    const int64_t inner = layout == GL_ROW_MAJOR ? x->cols : x->rows;
    int64_t elems;
    if (__builtin_mul_overflow(outer - 1, x->ld, &elems) ||
        __builtin_add_overflow(elems, inner, &elems) ||
        __builtin_mul_overflow((uint64_t)elems, (uint64_t)sizeof(float), bytes))
        return false;
    return true;
}

/* Bytes from the first element of a batch's first matrix to one past the
 * last of its last: `count` matrices `stride` floats apart (count >= 1). */
static bool batch_bytes(const operand *x, gl_layout_t layout, int64_t count, int64_t stride,
                        uint64_t *bytes)
{
    uint64_t one, last;
    return extent_bytes(x, layout, &one) &&
           !__builtin_mul_overflow((uint64_t)(count - 1), (uint64_t)stride, &last) &&
           !__builtin_mul_overflow(last, (uint64_t)sizeof(float), &last) &&
           !__builtin_add_overflow(one, last, bytes);
}

/* Whether the GPU can reach memory at ptr (the operand or array `name`,
 * a `what`: "matrix", "array of pointers")
 * from the handle's device. One driver query gives the memory type, the
 * owning device and the allocation's range: *room is set to the bytes
 * from ptr to the end of its allocation, or UINT64_MAX where the query
 * gives none (pageable memory). */
static gl_status_t check_reach(gl_handle_t h, const char *name, const char *what,
                               const void *ptr, uint64_t *room)
{
    gl_pointer_info info;
    const CUresult r = gl_query_pointer(h, ptr, &info);
    const unsigned int type = info.type, managed = info.managed;
    const int ordinal = info.ordinal;
    const void *device_ptr = info.device_ptr;
    const CUdeviceptr start = info.start;
    const size_t size = info.size;
    if (r != CUDA_SUCCESS)
        return gl_fail(h, GL_STATUS_CUDA_ERROR,
                       "%s (%p): cuPointerGetAttributes failed with driver error %d", name, ptr,
                       (int)r);
    *room = UINT64_MAX;
    switch (type) {
    case 0: /* not known to CUDA: ordinary host memory */
        if (h->pageable_access)
            return GL_STATUS_SUCCESS; /* the GPU reads pageable memory (HMM/ATS) */
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s (%p) is not device-accessible memory: it looks like an ordinary host "
                       "pointer; copy the %s to the GPU (cudaMalloc + cudaMemcpy) first",
                       name, ptr, what);
    case CU_MEMORYTYPE_DEVICE:
        if (!managed && ordinal != h->device) /* managed memory migrates to any device */
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s (%p) is memory of device %d, but the handle runs on device %d",
                           name, ptr, ordinal, h->device);
        break;
    case CU_MEMORYTYPE_HOST: /* pinned host memory: usable where mapped at the same address */
        if (device_ptr != ptr)
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s (%p) is pinned host memory that is not mapped at the same "
                           "address on the device; pass the pointer from "
                           "cudaHostGetDevicePointer",
                           name, ptr);
        break;
    default:
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s (%p) is not linear device memory (CUDA memory type %u)", name, ptr,
                       type);
    }
    if (size > 0) {
        const uint64_t offset = (uint64_t)(uintptr_t)ptr - (uint64_t)start;
        *room = offset > size ? 0 : size - offset;
    }
    return GL_STATUS_SUCCESS;
}

/* The bytes from the first element of the operand to its last, *bytes: of
 * its one matrix, or of a batch of `count` of them `stride` floats apart;
 * refused where they pass any address space. */
static gl_status_t check_span(gl_handle_t h, const operand *x, gl_layout_t layout, int64_t count,
                              int64_t stride, uint64_t *bytes)
{
    if (batch_bytes(x, layout, count, stride, bytes))
        return GL_STATUS_SUCCESS;
    if (count > 1)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s: a batch of %lld matrices of %lld x %lld with %s = %lld, "
                       "stride%s = %lld floats apart, spans more bytes than any address space",
                       x->name, (long long)count, (long long)x->rows, (long long)x->cols,
                       x->ld_name, (long long)x->ld, x->name, (long long)stride);
    return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                   "%s: %lld x %lld with %s = %lld spans more bytes than any address space",
                   x->name, (long long)x->rows, (long long)x->cols, x->ld_name, (long long)x->ld);
}

/* The GPU must be able to reach every byte of the operand from the handle's
 * device: of its one matrix, or of a batch of `count` of them `stride`
 * floats apart. */
static gl_status_t check_pointer(gl_handle_t h, const operand *x, gl_layout_t layout,
                                 int64_t count, int64_t stride)
{
    uint64_t bytes = 0, room = 0;
    gl_status_t st = check_span(h, x, layout, count, stride, &bytes);
    if (st != GL_STATUS_SUCCESS || (st = check_reach(h, x->name, "matrix", x->ptr, &room)) ||
        bytes <= room)
        return st;
    if (count > 1)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s (%p): a batch of %lld matrices of %lld x %lld with %s = %lld, "
                       "stride%s = %lld floats apart, needs %llu bytes, but its allocation "
                       "has only %llu bytes from that address",
                       x->name, x->ptr, (long long)count, (long long)x->rows, (long long)x->cols,
                       x->ld_name, (long long)x->ld, x->name, (long long)stride,
                       (unsigned long long)bytes, (unsigned long long)room);
    return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                   "%s (%p): a %lld x %lld matrix with %s = %lld needs %llu bytes, but "
                   "its allocation has only %llu bytes from that address",
                   x->name, x->ptr, (long long)x->rows, (long long)x->cols, x->ld_name,
                   (long long)x->ld, (unsigned long long)bytes, (unsigned long long)room);
}

/* A pointer array of gl_sgemm_batched (`name`: "A", "B" or "C"): `count`
 * pointers the GPU reads from the handle's device. */
static gl_status_t check_array(gl_handle_t h, const char *name, const void *array, int64_t count)
{
    const uint64_t bytes = (uint64_t)count * sizeof(float *); /* count < 2^31 */
    uint64_t room;
    const gl_status_t st = check_reach(h, name, "array of pointers", array, &room);
    if (st != GL_STATUS_SUCCESS || bytes <= room)
        return st;
    return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                   "%s (%p): an array of %lld pointers needs %llu bytes, but its allocation "
                   "has only %llu bytes from that address",
                   name, array, (long long)count, (unsigned long long)bytes,
                   (unsigned long long)room);
}

/* Entries of each pointer array read back to the host at a time, for the
 * rungs that run a batch's products one by one. */
#define ENTRIES_PER_READ 256

/* Entries [first, first + n) of a pointer-array batch's arrays, read into
 * the host's a, b and c: copies on the handle's stream, waited for (the
 * host needs them now). */
static gl_status_t read_entries(gl_handle_t h, const gl_batch *batch, int64_t first, int64_t n,
                                const float **a, const float **b, float **c)
{
    const size_t bytes = (size_t)n * sizeof(float *);
    cudaError_t err;
    if ((err = cudaMemcpyAsync(a, batch->a_ptrs + first, bytes, cudaMemcpyDeviceToHost,
                               h->stream)) ||
        (err = cudaMemcpyAsync(b, batch->b_ptrs + first, bytes, cudaMemcpyDeviceToHost,
                               h->stream)) ||
        (err = cudaMemcpyAsync(c, batch->c_ptrs + first, bytes, cudaMemcpyDeviceToHost,
                               h->stream)) ||
        (err = cudaStreamSynchronize(h->stream)))
        return gl_fail_cuda(h, "reading the pointer arrays back to the host", err);
    return GL_STATUS_SUCCESS;
}

/* Runs the variant on the products of `batch` (row-major terms; a single
 * call is a batch of one): all at once where its launcher runs batches,
 * else one by one (a pointer array's entries read back to the host for
 * that); each in slices of at most MAX_ROWS_PER_LAUNCH rows of C. The
 * launch context and the tiles are worked out once for them all. */
static gl_status_t run_variant(gl_handle_t h, const gl_variant_desc *d, const gl_problem *p,
                               const gl_batch *batch)
{
    void *workspace = NULL;
    const size_t budget = gl_scratch_budget(h, &workspace);
    const gl_engine_context engine = {h->scratch, h->pinned[d->id], &h->plan_memo, workspace,
                                      budget};
    const bool pointers = batch->c_ptrs != NULL;
    const bool at_once = d->batches && (batch->count > 1 || pointers);
    gl_batch rows = *batch; /* at once: with the slice's first row, for pointer arrays */
    gl_exec x = {h->stream, NULL, h->code_cc, h->sm_count, &engine, at_once ? &rows : NULL};
    if (d->uses_cublas) {
        const gl_status_t st = gl_handle_cublas(h);
        if (st != GL_STATUS_SUCCESS)
            return st;
        x.cublas = h->cublas;
    }
    const gl_tile_params tiles = gl_resolve_tiles(h, d, p->m, p->n, NULL);
    /* Pointer arrays run at once leave the problem without operands: the
     * kernels move each product's to the slice's first row (rows.row0).
     * cuBLAS cannot, and takes every row in one call instead. */
    const bool entries_on_device = pointers && at_once;
    const int64_t slice_rows = entries_on_device && d->uses_cublas ? p->m : MAX_ROWS_PER_LAUNCH;
    const int64_t launches = at_once ? 1 : batch->count;
    const float *entry_a[ENTRIES_PER_READ], *entry_b[ENTRIES_PER_READ];
    float *entry_c[ENTRIES_PER_READ];
    for (int64_t i = 0; i < launches; ++i) {
        /* Product i's operands: moved on by the strides, or its entries
         * (a NULL one: skipped, as the kernels skip it). */
        const float *a = NULL, *b = NULL;
        float *c = NULL;
        if (!pointers) {
            a = p->a + i * batch->a, b = p->b + i * batch->b, c = p->c + i * batch->c;
        } else if (!at_once) {
            const int64_t j = i % ENTRIES_PER_READ, left = launches - i;
            gl_status_t st;
            if (j == 0 && (st = read_entries(h, batch, i,
                                             left < ENTRIES_PER_READ ? left : ENTRIES_PER_READ,
                                             entry_a, entry_b, entry_c)))
                return st;
            if (!entry_a[j] || !entry_b[j] || !entry_c[j])
                continue;
            a = entry_a[j], b = entry_b[j], c = entry_c[j];
        }
        /* 64-bit: m0 + MAX_ROWS_PER_LAUNCH passes INT_MAX for m near it. */
        for (int64_t m0 = 0; m0 < p->m; m0 += slice_rows) {
            gl_problem slice = *p;
            slice.m = (int)(p->m - m0 < slice_rows ? p->m - m0 : slice_rows);
            if (entries_on_device)
                rows.row0 = m0;
            else
                gl_move_to_row(&slice, a, b, c, m0);
            const int rc = d->launch(&slice, &tiles, &x);
            if (rc != 0) {
                char what[96];
                snprintf(what, sizeof what, "variant '%s' on a %d x %d x %d product", d->name,
                         p->m, p->n, p->k);
                if (d->uses_cublas)
                    return gl_fail_cublas(h, what, (cublasStatus_t)rc);
                if (rc == cudaErrorNoKernelImageForDevice ||
                    rc == cudaErrorInvalidDeviceFunction)
                    return gl_fail(h, GL_STATUS_UNSUPPORTED_VARIANT, "%s: %s", what,
                                   cudaGetErrorString((cudaError_t)rc));
                return gl_fail_cuda(h, what, (cudaError_t)rc);
            }
        }
    }
    return GL_STATUS_SUCCESS;
}

/* A call, checked: its variant, its operands as stored, and the row-major
 * problem it is. */
typedef struct call {
    const gl_variant_desc *d;
    gl_layout_t layout;
    operand a, b, c;
    bool empty;    /* M == 0 or N == 0: nothing to do */
    bool reads_ab; /* A and B are read: not empty, K > 0, alpha != 0 */
    gl_problem p;
} call;

/* ---- whether C shares an element with A or B ------------------------------- */

/* A stored matrix as the addresses it covers: `outer` runs of `inner`
 * floats, `ld` floats apart (rows of a row-major matrix, columns of a
 * column-major one), the first at `base`, `span` floats from first to last. */
typedef struct grid {
    uintptr_t base; /* bytes */
    int64_t outer, inner, ld, span;
} grid;

/* Its grid, or false where its span passes the address space (the pointer
 * checks report that). */
static bool grid_of(const operand *x, gl_layout_t layout, grid *g)
{
    const bool row_major = layout == GL_ROW_MAJOR;
    uint64_t bytes;
    if (!extent_bytes(x, layout, &bytes))
        return false;
    *g = (grid){(uintptr_t)x->ptr, row_major ? x->rows : x->cols, row_major ? x->cols : x->rows,
                x->ld, (int64_t)(bytes / sizeof(float))};
    return true;
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }

/* Whether the run of floats [x0, x1) (indices from g's base, x0 < x1) holds
 * an element of g: the first run of g that ends after x0 is the only
 * candidate, and it meets the run if it starts before x1. */
static bool run_meets(int64_t x0, int64_t x1, const grid *g)
{
    int64_t r = floor_div(x0, g->ld);
    if (r < 0)
        r = 0;
    else if (x0 - r * g->ld >= g->inner) /* x0 lies in the padding after run r */
        ++r;
    return r < g->outer && r * g->ld < x1;
}

/* Whether grids g and h (both non-empty, 4-byte aligned) share an element.
 * Exact where the answer is cheap: disjoint spans, one of them a single
 * run, or equal leading dimensions (submatrices of one matrix); otherwise
 * the spans' intersection counts as sharing. */
static bool grids_share(const grid *g, const grid *h)
{
    /* h's base in floats from g's (user addresses are far below 2^63 bytes
     * apart) */
    const int64_t d = h->base >= g->base ? (int64_t)((h->base - g->base) / sizeof(float))
                                         : -(int64_t)((g->base - h->base) / sizeof(float));
    if (d >= g->span || -d >= h->span)
        return false; /* the spans do not meet */
    if (h->outer == 1)
        return run_meets(d, d + h->inner, g);
    if (g->outer == 1)
        return run_meets(-d, -d + g->inner, h);
    if (g->ld != h->ld)
        return true;
    /* One ld: h's run i covers g's runs q + i, columns [s, s + inner), and
     * the next run's [0, s + inner - ld) where it passes the end of one. */
    const int64_t ld = g->ld, q = floor_div(d, ld), s = d - q * ld;
    const bool rows_meet = q < g->outer && q + h->outer > 0;
    const bool wrapped_rows_meet = q + 1 < g->outer && q + 1 + h->outer > 0;
    return (rows_meet && s < g->inner) || (wrapped_rows_meet && s + h->inner > ld);
}

/* C must not share an element with A or B (BLAS's rule): the kernels read A
 * and B while C is written. */
static gl_status_t check_overlap(gl_handle_t h, const call *k)
{
    grid c, x;
    if (!grid_of(&k->c, k->layout, &c))
        return GL_STATUS_SUCCESS;
    const operand *const ab[2] = {&k->a, &k->b};
    for (int i = 0; i < 2; ++i) {
        const operand *o = ab[i];
        if (grid_of(o, k->layout, &x) && grids_share(&c, &x))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "C (%p, %lld x %lld, ldc = %lld) overlaps %s (%p, %lld x %lld, "
                           "%s = %lld): C must not share memory with A or B",
                           k->c.ptr, (long long)k->c.rows, (long long)k->c.cols,
                           (long long)k->c.ld, o->name, o->ptr, (long long)o->rows,
                           (long long)o->cols, o->ld_name, (long long)o->ld);
    }
    return GL_STATUS_SUCCESS;
}

/* The checks that need no handle, in the order gemmladder.h lists them.
 * A plan (gl_sgemm_plan) lets A, B and C be NULL. */
static gl_status_t check_call(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                              gl_transpose_t transA, gl_transpose_t transB, int64_t M, int64_t N,
                              int64_t K, float alpha, const float *A, int64_t lda, const float *B,
                              int64_t ldb, float beta, float *C, int64_t ldc, bool plan,
                              call *out)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(h, "", variant);
    if (layout != GL_ROW_MAJOR && layout != GL_COL_MAJOR)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "layout (%d) must be GL_ROW_MAJOR (0) or GL_COL_MAJOR (1)", (int)layout);
    if (transA != GL_OP_N && transA != GL_OP_T)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "transA (%d) must be GL_OP_N (0) or GL_OP_T (1)", (int)transA);
    if (transB != GL_OP_N && transB != GL_OP_T)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "transB (%d) must be GL_OP_N (0) or GL_OP_T (1)", (int)transB);
    gl_status_t st;
    if ((st = gl_check_size(h, "", 'M', M)) || (st = gl_check_size(h, "", 'N', N)) ||
        (st = gl_check_size(h, "", 'K', K)))
        return st;

    /* Operands as stored. */
    const bool ta = transA == GL_OP_T, tb = transB == GL_OP_T;
    *out = (call){d, layout,
                  {"A", "lda", A, ta ? K : M, ta ? M : K, lda, ta ? "K" : "M", ta ? "M" : "K"},
                  {"B", "ldb", B, tb ? N : K, tb ? K : N, ldb, tb ? "N" : "K", tb ? "K" : "N"},
                  {"C", "ldc", C, M, N, ldc, "M", "N"},
                  M == 0 || N == 0, false, {0}};
    if ((st = check_ld(h, &out->a, layout, "transA", transA)) ||
        (st = check_ld(h, &out->b, layout, "transB", transB)) ||
        (st = check_ld(h, &out->c, layout, NULL, GL_OP_N)))
        return st;

    out->reads_ab = !out->empty && K > 0 && alpha != 0.0f;
    const bool empty = out->empty, reads_ab = out->reads_ab;
    if (!plan && reads_ab && !A)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "A is NULL (M = %lld, K = %lld)",
                       (long long)M, (long long)K);
    if (!plan && reads_ab && !B)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "B is NULL (K = %lld, N = %lld)",
                       (long long)K, (long long)N);
    if (!plan && !empty && !C)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "C is NULL (M = %lld, N = %lld)",
                       (long long)M, (long long)N);
    /* A float the GPU loads must sit on a 4-byte boundary; anything else is a
     * misaligned-address fault, which would end the CUDA context. */
    const struct { const char *name; const void *p; bool used; } ptrs[] = {
        {"A", A, reads_ab}, {"B", B, reads_ab}, {"C", C, !empty}};
    for (int i = 0; i < 3; ++i)
        if (ptrs[i].used && (uintptr_t)ptrs[i].p % sizeof(float))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s (%p) is not aligned to 4 bytes, the size of a float",
                           ptrs[i].name, ptrs[i].p);
    if (reads_ab && A && B && C && (st = check_overlap(h, out)))
        return st;
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "handle is NULL");

    /* Row-major problem. A column-major product is the row-major product of
     * the transposes, C^T = op(B)^T op(A)^T: swap the operands and M with N. */
    out->p = (gl_problem){(int)M, (int)N, (int)K, alpha, beta, A, lda, ta, B, ldb, tb, C, ldc};
    if (layout == GL_COL_MAJOR)
        out->p =
            (gl_problem){(int)N, (int)M, (int)K, alpha, beta, B, ldb, tb, A, lda, ta, C, ldc};
    return GL_STATUS_SUCCESS;
}

/* Checks and dispatch; the device is already the handle's. b: the call's
 * products, in the caller's terms (a, b and c: the strides of A, B and C,
 * or their pointer arrays; a single call is a batch of one). */
static gl_status_t sgemm_on_device(gl_handle_t h, const call *c, const gl_batch *b)
{
    gl_status_t st;
    if (b->c_ptrs) { /* pointer arrays: the arrays themselves, the entries unseen */
        if ((c->reads_ab && ((st = check_array(h, "A", b->a_ptrs, b->count)) ||
                             (st = check_array(h, "B", b->b_ptrs, b->count)))) ||
            (st = check_array(h, "C", b->c_ptrs, b->count)))
            return st;
    } else {
        if (c->reads_ab && ((st = check_pointer(h, &c->a, c->layout, b->count, b->a)) ||
                            (st = check_pointer(h, &c->b, c->layout, b->count, b->b))))
            return st;
        if ((st = check_pointer(h, &c->c, c->layout, b->count, b->c)))
            return st;
    }
    if (h->available[c->d->id] != GL_STATUS_SUCCESS)
        return gl_variant_available(h, c->d->id); /* records why */

    if (!c->reads_ab) { /* C = beta * C, product by product */
        cudaError_t err = cudaSuccess;
        if (c->p.beta != 1.0f && b->c_ptrs)
            err = gl_launch_scale_c_pointers(c->p.m, c->p.n, c->p.beta, b->c_ptrs, b->count,
                                             c->p.ldc, h->stream);
        for (int64_t i = 0; c->p.beta != 1.0f && !b->c_ptrs && !err && i < b->count; ++i)
            err = gl_launch_scale_c(c->p.m, c->p.n, c->p.beta, c->p.c + i * b->c, c->p.ldc,
                                    h->stream);
        return err == cudaSuccess ? GL_STATUS_SUCCESS : gl_fail_cuda(h, "scaling C by beta", err);
    }
    /* The row-major problem swapped the operands of a column-major call. */
    const bool swapped = c->layout == GL_COL_MAJOR;
    const gl_batch rows = {.count = b->count,
                           .a = swapped ? b->b : b->a,
                           .b = swapped ? b->a : b->b,
                           .c = b->c,
                           .a_ptrs = swapped ? b->b_ptrs : b->a_ptrs,
                           .b_ptrs = swapped ? b->a_ptrs : b->b_ptrs,
                           .c_ptrs = b->c_ptrs};
    return run_variant(h, c->d, &c->p, &rows);
}

/* sgemm_on_device on the handle's device, the caller's current device
 * restored after. */
static gl_status_t sgemm_on_handle_device(gl_handle_t h, const call *c, const gl_batch *b)
{
    int current = -1;
    cudaError_t err = cudaGetDevice(&current);
    if (err != cudaSuccess)
        return gl_fail_cuda(h, "cudaGetDevice", err);
    if (current != h->device && (err = cudaSetDevice(h->device)) != cudaSuccess)
        return gl_fail_cuda(h, "switching to the handle's device", err);
    const gl_status_t st = sgemm_on_device(h, c, b);
    if (current != h->device)
        (void)cudaSetDevice(current);
    return st;
}

gl_status_t gl_sgemm_ex(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                        gl_transpose_t transA, gl_transpose_t transB, int64_t M, int64_t N,
                        int64_t K, float alpha, const float *A, int64_t lda, const float *B,
                        int64_t ldb, float beta, float *C, int64_t ldc)
{
    call c;
    const gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, alpha, A, lda,
                                      B, ldb, beta, C, ldc, false, &c);
    if (st != GL_STATUS_SUCCESS || c.empty)
        return st;
    return sgemm_on_handle_device(h, &c, &(gl_batch){.count = 1});
}

/* ---- batches of one shape --------------------------------------------------- */

/* The most pairs of a batch's C compared one by one (check_batch). */
#define MAX_OVERLAP_STEPS (1 << 20)

/* Whether the byte ranges [p, p + n) and [q, q + m) meet. */
static bool ranges_meet(const void *p, uint64_t n, const void *q, uint64_t m)
{
    const uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return x <= y ? y - x < n : x - y < m;
}

/* A batch's count of products. */
static gl_status_t check_count(gl_handle_t h, int64_t count)
{
    if (count < 0 || count > GL_MAX_DIM)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "batch (%lld) must be between 0 and %lld",
                       (long long)count, (long long)GL_MAX_DIM);
    return GL_STATUS_SUCCESS;
}

/* The batch's own arguments, after check_call has checked the first
 * product's: strides and count; their spans in memory; C's products apart
 * from each other, and C's batch apart from A's and B's. */
static gl_status_t check_batch(gl_handle_t h, const call *k, const gl_batch *b)
{
    gl_status_t st;
    const struct { const char *name; int64_t value; } strides[] = {
        {"strideA", b->a}, {"strideB", b->b}, {"strideC", b->c}};
    for (int i = 0; i < 3; ++i)
        if (strides[i].value < 0)
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "%s (%lld) must be >= 0",
                           strides[i].name, (long long)strides[i].value);
    if ((st = check_count(h, b->count)))
        return st;
    if (b->count < 2 || k->empty)
        return GL_STATUS_SUCCESS; /* one product: gl_sgemm_ex's rules, already checked */

    /* Each operand's whole batch within an address space. */
    const operand *const ops[3] = {&k->a, &k->b, &k->c};
    const int64_t op_stride[3] = {b->a, b->b, b->c};
    uint64_t bytes[3] = {0, 0, 0};
    for (int i = k->reads_ab ? 0 : 2; i < 3; ++i)
        if (!batch_bytes(ops[i], k->layout, b->count, op_stride[i], &bytes[i]))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s: a batch of %lld matrices of %lld x %lld with %s = %lld, "
                           "stride%s = %lld floats apart, spans more bytes than any address "
                           "space",
                           ops[i]->name, (long long)b->count, (long long)ops[i]->rows,
                           (long long)ops[i]->cols, ops[i]->ld_name, (long long)ops[i]->ld,
                           ops[i]->name, (long long)op_stride[i]);

    /* No two products' C share an element: C_k is C_0 moved by k * strideC,
     * and C_i, C_j share one exactly when C_0 and C_(j - i) do. */
    grid c0 = {0, 0, 0, 0, 0};
    (void)grid_of(&k->c, k->layout, &c0); /* its extent fits: batch_bytes said so */
    if (b->c == 0)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "strideC is 0 with batch = %lld: every product would write the same C "
                       "(give each its own: strideC >= %lld, C's span in floats)",
                       (long long)b->count, (long long)c0.span);
    const int64_t steps = (c0.span - 1) / b->c < b->count - 1
                              ? (c0.span - 1) / b->c
                              : b->count - 1;
    if (steps > MAX_OVERLAP_STEPS)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "strideC (%lld) is less than C's span (%lld floats) and the batch of "
                       "%lld too long to compare each product's C with the others: give each "
                       "product's C its own span (strideC >= %lld)",
                       (long long)b->c, (long long)c0.span, (long long)b->count,
                       (long long)c0.span);
    for (int64_t j = 1; j <= steps; ++j) {
        grid cj = c0;
        cj.base += (uintptr_t)(j * b->c) * sizeof(float);
        if (grids_share(&c0, &cj))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "the products' C overlap: C_0 and C_%lld (%lld x %lld, ldc = %lld, "
                           "strideC = %lld) share elements; each product needs a C of its own",
                           (long long)j, (long long)k->c.rows, (long long)k->c.cols,
                           (long long)k->c.ld, (long long)b->c);
    }

    /* No input among the outputs (a plan's NULL pointers stand for none). */
    for (int i = 0; k->reads_ab && k->c.ptr && i < 2; ++i)
        if (ops[i]->ptr && ranges_meet(k->c.ptr, bytes[2], ops[i]->ptr, bytes[i]))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "C's batch (%p, %llu bytes from its first element to its last) "
                           "meets %s's (%p, %llu bytes): a batch's inputs may not lie among "
                           "its outputs",
                           k->c.ptr, (unsigned long long)bytes[2], ops[i]->name, ops[i]->ptr,
                           (unsigned long long)bytes[i]);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_sgemm_strided_batched(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                                     gl_transpose_t transA, gl_transpose_t transB, int64_t M,
                                     int64_t N, int64_t K, float alpha, const float *A,
                                     int64_t lda, int64_t strideA, const float *B, int64_t ldb,
                                     int64_t strideB, float beta, float *C, int64_t ldc,
                                     int64_t strideC, int64_t batch_count)
{
    const gl_batch b = {.count = batch_count, .a = strideA, .b = strideB, .c = strideC};
    call c;
    /* With no products the pointers are not looked at (as check_call's plan). */
    gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, alpha, A, lda, B,
                                ldb, beta, C, ldc, batch_count == 0, &c);
    if (st != GL_STATUS_SUCCESS || (st = check_batch(h, &c, &b)) != GL_STATUS_SUCCESS ||
        c.empty || batch_count == 0)
        return st;
    return sgemm_on_handle_device(h, &c, &b);
}

/* ---- batches of pointer arrays ---------------------------------------------- */

gl_status_t gl_sgemm_batched(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                             gl_transpose_t transA, gl_transpose_t transB, int64_t M, int64_t N,
                             int64_t K, float alpha, const float *const A[], int64_t lda,
                             const float *const B[], int64_t ldb, float beta, float *const C[],
                             int64_t ldc, int64_t batch_count)
{
    /* The shape's checks (the entries are not the call's to look at: no
     * pointer is handed to check_call), then the batch's and the arrays'. */
    call c;
    gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, alpha, NULL, lda,
                                NULL, ldb, beta, NULL, ldc, true, &c);
    if (st != GL_STATUS_SUCCESS || (st = check_count(h, batch_count)) != GL_STATUS_SUCCESS ||
        c.empty || batch_count == 0)
        return st;
    /* No entry's matrix may pass an address space (the kernels move entries
     * to a slice's first row). */
    const operand *const ops[3] = {&c.a, &c.b, &c.c};
    uint64_t bytes;
    for (int i = c.reads_ab ? 0 : 2; i < 3; ++i)
        if ((st = check_span(h, ops[i], layout, 1, 0, &bytes)))
            return st;
    const struct { const char *name; const void *array; bool used; } arrays[] = {
        {"A", A, c.reads_ab}, {"B", B, c.reads_ab}, {"C", C, true}};
    for (int i = 0; i < 3; ++i) {
        if (arrays[i].used && !arrays[i].array)
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s is NULL (batch = %lld): pass a device array of the products' %s "
                           "pointers",
                           arrays[i].name, (long long)batch_count, arrays[i].name);
        /* A pointer the GPU loads must sit on its own size's boundary. */
        if (arrays[i].used && (uintptr_t)arrays[i].array % sizeof(float *))
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "%s (%p) is not aligned to %zu bytes, the size of a pointer",
                           arrays[i].name, arrays[i].array, sizeof(float *));
    }
    const gl_batch b = {.count = batch_count,
                        .a_ptrs = c.reads_ab ? A : NULL,
                        .b_ptrs = c.reads_ab ? B : NULL,
                        .c_ptrs = C};
    return sgemm_on_handle_device(h, &c, &b);
}

gl_status_t gl_sgemm(gl_handle_t h, gl_variant_t variant, int64_t M, int64_t N, int64_t K,
                     const float *A, const float *B, float *C)
{
    /* Contiguous row-major: leading dimensions are the row lengths (at least 1,
     * so that an empty product still passes the ld checks). */
    return gl_sgemm_ex(h, variant, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, M, N, K, 1.0f, A,
                       K > 0 ? K : 1, B, N > 0 ? N : 1, 0.0f, C, N > 0 ? N : 1);
}

/* ---- what a call would run --------------------------------------------------- */

/* A stand-in for a NULL pointer of a plan: aligned as cudaMalloc aligns. */
static const float *as_allocated(const float *p) { return p ? p : (const float *)(uintptr_t)256; }

/* The first slice of checked call c's rows, as the launcher sees it. */
static gl_problem first_slice(const call *c)
{
    gl_problem first = c->p;
    first.a = as_allocated(first.a), first.b = as_allocated(first.b);
    first.c = (float *)as_allocated(first.c);
    if (first.m > MAX_ROWS_PER_LAUNCH)
        first.m = MAX_ROWS_PER_LAUNCH;
    return first;
}

/* What checked call c would run with `budget` bytes of scratch for each
 * product (gl_scratch_budget's, or SIZE_MAX: all it wants), into a
 * caller-sized *out. */
static void describe_plan(gl_handle_t h, const call *k, size_t budget, gl_plan *out)
{
    const call c = *k;
    const gl_variant_t variant = c.d->id;
    const uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    out->variant = (int32_t)variant;
    out->splits = 1;
    out->kernel = (int32_t)c.d->id;
    out->tiles.size = sizeof out->tiles;
    const char *why;
    if (c.empty || !c.reads_ab) {
        out->kernel = -1;
        out->path = GL_PATH_SCALE;
        out->launches = c.empty ? 0 : 1;
        why = c.empty ? "M or N is 0: nothing to do" : "K is 0: only C = beta * C";
    } else {
        const gl_problem first = first_slice(&c);
        out->launches = (int32_t)((c.p.m - 1) / MAX_ROWS_PER_LAUNCH + 1);
        /* Tiles for the whole product, as run_variant resolves them. */
        const gl_tile_params tiles = gl_resolve_tiles(h, c.d, c.p.m, c.p.n, &out->tiles);
        const bool vec = gl_a_vec4_ok(&first) && gl_b_vec4_ok(&first);
        if (c.d->uses_cublas) {
            out->path = GL_PATH_CUBLAS;
            why = "cuBLAS SGEMM, FP32 compute";
        } else if (c.d->engine) {
            gl_engine_plan plan, tail_plan;
            gl_engine_plan_within(NULL, &first, &tiles, h->pinned[c.d->id], h->sm_count,
                                  h->code_cc, budget, &plan, &tail_plan);
            /* A launch more for each slice whose last round's rows run after
             * the rest: the full slices are planned as the first, a shorter
             * last one on its own. */
            const int64_t full = c.p.m / MAX_ROWS_PER_LAUNCH, rest = c.p.m % MAX_ROWS_PER_LAUNCH;
            if (plan.tail_rows > 0)
                out->launches += (int32_t)(full > 0 ? full : 1);
            /* the rows above the last round free theirs before the tail takes its own */
            size_t most = gl_engine_plan_scratch(&plan, &tail_plan);
            if (full > 0 && rest > 0) {
                gl_problem last = first;
                last.m = (int)rest;
                gl_engine_plan last_plan, last_tail_plan;
                gl_engine_plan_within(NULL, &last, &tiles, h->pinned[c.d->id], h->sm_count,
                                      h->code_cc, budget, &last_plan, &last_tail_plan);
                out->launches += last_plan.tail_rows > 0;
                const size_t last_most = gl_engine_plan_scratch(&last_plan, &last_tail_plan);
                most = last_most > most ? last_most : most;
                if (last_plan.path != plan.path || last_plan.kernel != plan.kernel ||
                    last_plan.splits != plan.splits || last_plan.bytes != plan.bytes) {
                    out->last_slice_rows = (int32_t)rest;
                    out->last_slice_path = last_plan.path;
                }
            }
            out->kernel = plan.kernel;
            /* a kernel with fixed tiles of its own (rung 6's, or none: the engine's
             * matrix-vector kernel), or a tuned rung's on the engine's tiles */
            const gl_variant_desc *k = gl_variant_find(plan.kernel);
            if (k->engine || !gl_variant_tuned(k))
                gl_describe_tiles(&out->tiles, &plan.tiles, GL_TILES_FIXED);
            else if (gl_tile_params_same_tiles(&plan.tiles, &tiles)) /* the call's, rung 12's ring */
                (void)gl_tiles_set(&out->tiles, "stages", plan.tiles.stages);
            else /* the engine's own choice */
                gl_describe_tiles(&out->tiles, &plan.tiles,
                                  (c.d->fill && gl_tile_params_same_tiles(&plan.tiles, c.d->fill)) ||
                                          gl_engine_half_tiles(&plan.tiles)
                                      ? GL_TILES_FILL
                                  : gl_engine_thin_tiles(&plan.tiles) ? GL_TILES_THIN
                                                                      : GL_TILES_DEFAULT);
            out->splits = plan.splits;
            out->path = plan.path;
            out->aligned = plan.aligned;
            out->copies =
                (plan.a.made ? 1 : 0) | (plan.b.made ? 2 : 0) | (plan.a.transposed ? 4 : 0) |
                (plan.b.transposed ? 8 : 0);
            out->scratch_bytes = (int64_t)most;
            why = plan.why;
        } else {
            out->path = GL_PATH_EDGE_TESTS;
            out->aligned = c.d->schema && c.d->schema->vector_loads && vec;
            why = "the rung's own kernel";
        }
    }
    if (out->last_slice_rows == 0)
        out->last_slice_path = out->path;
    snprintf(out->why, sizeof out->why, "%s", why);
}

/* A plan's matrices each within an address space, as a call's pointer
 * checks (check_pointer) find them: a plan works out where its slices of
 * rows start in them, pointers given or not. */
static gl_status_t check_plan_spans(gl_handle_t h, const call *c)
{
    uint64_t bytes;
    gl_status_t st = GL_STATUS_SUCCESS;
    if (c->reads_ab && ((st = check_span(h, &c->a, c->layout, 1, 0, &bytes)) ||
                        (st = check_span(h, &c->b, c->layout, 1, 0, &bytes))))
        return st;
    return c->empty ? GL_STATUS_SUCCESS : check_span(h, &c->c, c->layout, 1, 0, &bytes);
}

gl_status_t gl_sgemm_plan(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                          gl_transpose_t transA, gl_transpose_t transB, int64_t M, int64_t N,
                          int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                          const float *C, int64_t ldc, gl_plan *out)
{
    call c;
    gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, 1.0f, A, lda, B,
                                ldb, 0.0f, (float *)C, ldc, true, &c);
    if (st != GL_STATUS_SUCCESS || (st = check_plan_spans(h, &c)) != GL_STATUS_SUCCESS)
        return st;
    if (!out)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "gl_sgemm_plan: the gl_plan pointer is NULL");
    if (out->size < sizeof(gl_plan))
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_sgemm_plan: gl_plan.size is %u; set it to sizeof(gl_plan) (%zu)",
                       (unsigned)out->size, sizeof(gl_plan));
    describe_plan(h, &c, gl_scratch_budget(h, NULL), out); /* the settings on its stream now */
    return GL_STATUS_SUCCESS;
}

/* Launches of a grid of every product's tiles: up to GL_GRID_YZ_MAX products each,
 * for each launch of one product. */
static int32_t batch_launches(int32_t per_product, int64_t count)
{
    const int64_t n = (int64_t)per_product * ((count - 1) / GL_GRID_YZ_MAX + 1);
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

/* What checked call c's batch b (count > 1, in the caller's terms) would
 * run: *out holds what one of its products would (describe_plan). */
static void describe_batch(gl_handle_t h, const call *c, const gl_batch *b, gl_plan *out)
{
    const int64_t each = (int64_t)out->launches * b->count;
    const int32_t launches_each = each > INT32_MAX ? INT32_MAX : (int32_t)each;
    const bool strides_vec4 = b->a % 4 == 0 && b->b % 4 == 0;
    /* A's and B's strides in the row-major problem's terms (c->p): a
     * column-major call's operands are swapped there. */
    const bool swapped = c->layout == GL_COL_MAJOR;
    const int64_t stride_a = swapped ? b->b : b->a, stride_b = swapped ? b->a : b->b;
    if (out->path == GL_PATH_SCALE) {
        out->launches = out->launches > 0 && c->p.beta != 1.0f ? launches_each : 0;
    } else if (c->d->uses_cublas) {
        snprintf(out->why, sizeof out->why, "cuBLAS's strided-batched call, %s compute",
                 c->d->precision == GL_PRECISION_TF32 ? "TF32" : "FP32");
    } else if (c->d->engine) {
        const gl_problem first = first_slice(c);
        gl_tiles described = {.size = sizeof described};
        const gl_tile_params tiles = gl_resolve_tiles(h, c->d, c->p.m, c->p.n, &described);
        gl_engine_batch_plan plan;
        gl_engine_plan_batch(&first, b->count, &tiles, h->pinned[c->d->id], h->sm_count,
                             h->code_cc, gl_scratch_budget(h, NULL), &plan);
        const int32_t row_slices = (int32_t)((c->p.m - 1) / MAX_ROWS_PER_LAUNCH + 1);
        if (plan.mode == GL_BATCH_EACH) {
            out->launches = launches_each;
        } else if (plan.mode == GL_BATCH_GEMV) { /* the single plan's kernel, no scratch */
            out->launches = batch_launches(row_slices, b->count);
            out->splits = plan.splits, out->scratch_bytes = 0;
            const gl_batch strides = {.count = b->count, .a = stride_a, .b = stride_b, .c = b->c};
            (void)gl_engine_gemv_products(&plan.gemv, &first, &strides);
            out->aligned = plan.gemv.vec;
        } else {
            out->tiles = described;
            if (plan.mode == GL_BATCH_SPLIT) /* the fill tiles, as a single call's plan says */
                gl_describe_tiles(&out->tiles, &plan.tiles, GL_TILES_FILL);
            else if (gl_tile_params_same_tiles(&plan.tiles, &tiles)) /* the call's, rung 12's ring */
                (void)gl_tiles_set(&out->tiles, "stages", plan.tiles.stages);
            else /* another rung's kernel and tiles */
                gl_describe_tiles(&out->tiles, &plan.tiles, GL_TILES_FIXED);
            out->path = out->last_slice_path = GL_PATH_BATCH;
            out->kernel = (int32_t)plan.kernel;
            out->aligned = gl_a_vec4_ok(&first) && gl_b_vec4_ok(&first) && strides_vec4;
            out->copies = 0, out->splits = 1, out->scratch_bytes = 0, out->last_slice_rows = 0;
            out->launches = batch_launches(row_slices, b->count);
            if (plan.mode == GL_BATCH_SPLIT) { /* each launch's parts, then their sums */
                out->splits = plan.splits, out->scratch_bytes = (int64_t)plan.bytes;
                const int64_t per_launch = GL_GRID_YZ_MAX / plan.splits;
                const int64_t n = (int64_t)row_slices * ((b->count - 1) / per_launch + 1) +
                                  batch_launches(row_slices, b->count);
                out->launches = n > INT32_MAX ? INT32_MAX : (int32_t)n;
            }
        }
        snprintf(out->why, sizeof out->why, "%s", plan.why);
    } else if (c->d->batches) {
        out->path = out->last_slice_path = GL_PATH_BATCH;
        out->aligned = out->aligned && strides_vec4;
        out->launches = batch_launches(out->launches, b->count);
        snprintf(out->why, sizeof out->why, "the rung's own kernel, the batch's tiles in one grid");
    } else {
        out->launches = launches_each;
        snprintf(out->why, sizeof out->why, "the rung's own kernel, a launch for each product");
    }
}

gl_status_t gl_sgemm_strided_batched_plan(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                                          gl_transpose_t transA, gl_transpose_t transB, int64_t M,
                                          int64_t N, int64_t K, const float *A, int64_t lda,
                                          int64_t strideA, const float *B, int64_t ldb,
                                          int64_t strideB, const float *C, int64_t ldc,
                                          int64_t strideC, int64_t batch_count, gl_plan *out)
{
    const gl_batch b = {.count = batch_count, .a = strideA, .b = strideB, .c = strideC};
    call c;
    gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, 1.0f, A, lda, B,
                                ldb, 0.0f, (float *)C, ldc, true, &c);
    /* With no products, as the call, the matrices are not looked at. */
    if (st != GL_STATUS_SUCCESS ||
        (batch_count != 0 && (st = check_plan_spans(h, &c)) != GL_STATUS_SUCCESS) ||
        (st = check_batch(h, &c, &b)) != GL_STATUS_SUCCESS)
        return st;
    if (!out)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_sgemm_strided_batched_plan: the gl_plan pointer is NULL");
    if (out->size < sizeof(gl_plan))
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_sgemm_strided_batched_plan: gl_plan.size is %u; set it to "
                       "sizeof(gl_plan) (%zu)",
                       (unsigned)out->size, sizeof(gl_plan));
    c.empty |= batch_count == 0;
    describe_plan(h, &c, gl_scratch_budget(h, NULL), out);
    if (batch_count == 0)
        snprintf(out->why, sizeof out->why, "batch is 0: nothing to do");
    else if (batch_count > 1)
        describe_batch(h, &c, &b, out);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_sgemm_workspace_size(gl_handle_t h, gl_variant_t variant, gl_layout_t layout,
                                    gl_transpose_t transA, gl_transpose_t transB, int64_t M,
                                    int64_t N, int64_t K, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, const float *C, int64_t ldc,
                                    int64_t *bytes)
{
    call c;
    gl_status_t st = check_call(h, variant, layout, transA, transB, M, N, K, 1.0f, A, lda, B,
                                ldb, 0.0f, (float *)C, ldc, true, &c);
    if (st != GL_STATUS_SUCCESS || (st = check_plan_spans(h, &c)) != GL_STATUS_SUCCESS)
        return st;
    if (!bytes)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "gl_sgemm_workspace_size: bytes is NULL");
    gl_plan plan = {.size = sizeof plan};
    describe_plan(h, &c, SIZE_MAX, &plan); /* all the scratch it wants, pool or not */
    *bytes = plan.scratch_bytes;
    return GL_STATUS_SUCCESS;
}
