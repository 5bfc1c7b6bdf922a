/*
 * plan.c - which path auto takes for a problem (engine.h). Plain C: the
 * launcher (warptile_paths.cu) follows the plan, and gl_sgemm_plan reports
 * it.
 */
#include "engine.h"
#include "tile_rules.h"

#include <stdint.h>

/* Every row starts on a 32-byte sector. */
static bool on_sectors(const void *p, int64_t ld) { return ((uintptr_t)p & 31) == 0 && ld % 8 == 0; }

static int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/*
 * Whether copying an operand into `elements` floats of scratch pays off for
 * an m x n x k product. The copy costs a launch and one read and write of
 * the operand; it saves the edge tests and 4-byte loads, 5-20% of the
 * product's time, which grows with m * n * k. At 40 TFLOP/s and 3 TB/s that
 * is worth it when m * n * k exceeds about 2^28 plus 1024 per element
 * copied: never at 1024^3, always at 2048^3 (docs/engine.md has the
 * measurements).
 */
static bool copy_pays(const gl_problem *p, int64_t elements)
{
    return (double)p->m * (double)p->n * (double)p->k >= 0x1p28 + 1024.0 * (double)elements;
}

/* The path for operands as they are (after any copies): copied whole
 * (whole), tile multiples, edge windows, or the rung's own copies. */
static void choose_path(const gl_problem *p, const gl_tile_params *t, bool a_ok, bool b_ok,
                        bool whole, gl_engine_plan *plan)
{
    plan->aligned = a_ok && b_ok;
    if (whole) {
        plan->path = GL_PATH_PACKED;
        plan->why = "operands copied into aligned whole tiles, then copies without tests";
    } else if (!plan->aligned) {
        plan->path = GL_PATH_RUNG;
        plan->why = "an operand cannot be read in 16-byte groups and copying it does not pay: "
                    "rung 8's kernel, a float per load";
    } else if (p->m % t->bm == 0 && p->n % t->bn == 0 && p->k % t->bk == 0) {
        plan->path = GL_PATH_INTERIOR;
        plan->why = "aligned whole tiles: copies without tests";
    } else if (p->m % 4 == 0 && p->n % 4 == 0 && p->k % 4 == 0 && p->m >= t->bm &&
               p->n >= t->bn) {
        plan->path = GL_PATH_EDGE_WINDOWS;
        plan->why = "extents are multiples of 4: edge blocks move their windows inside C, "
                    "K's ragged part first";
    } else {
        plan->path = GL_PATH_RUNG;
        plan->why = "edge tiles read in place: rung 8's kernel with its tests at the edges";
    }
}

/* Rung 6's tiles: its kernel's first configuration, 64 x 64 (configs.h). */
#define GL_VECTORIZED_TILES(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN)},
static const gl_tile_params rung6_tiles[] = {GL_VECTORIZED_CONFIGS(GL_VECTORIZED_TILES)};

/* C of one row or one column as a matrix times a vector: the other
 * operand is the matrix, its rows those of y. */
static gl_gemv gemv_view(const gl_problem *p)
{
    gl_gemv g = {.k = p->k, .alpha = p->alpha, .beta = p->beta, .y = p->c};
    if (p->n == 1) { /* C's column = op(A) op(B)'s column */
        g.rows = p->m, g.mat = p->a, g.x = p->b, g.sy = p->ldc;
        g.rs = p->trans_a ? 1 : p->lda, g.ks = p->trans_a ? p->lda : 1;
        g.sx = p->trans_b ? 1 : p->ldb;
    } else { /* C's row = op(A)'s row op(B): y[j] = sum_k op(B)[k][j] x[k] */
        g.rows = p->n, g.mat = p->b, g.x = p->a, g.sy = 1;
        g.rs = p->trans_b ? p->ldb : 1, g.ks = p->trans_b ? 1 : p->ldb;
        g.sx = p->trans_a ? p->lda : 1;
    }
    g.along_k = g.ks == 1;
    const bool mat_ok = ((uintptr_t)g.mat & 15) == 0;
    g.vec = g.along_k ? mat_ok && (g.rows == 1 || g.rs % 4 == 0) && g.sx == 1 &&
                            ((uintptr_t)g.x & 15) == 0
                      : mat_ok && g.ks % 4 == 0;
    return g;
}

void gl_engine_plan_for(const gl_problem *p, const gl_tile_params *t, bool pinned, int sms,
                        bool can_copy, gl_engine_plan *plan)
{
    *plan = (gl_engine_plan){.kernel = GL_VARIANT_WARPTILE, .tiles = *t, .k = p->k, .splits = 1};
    if (p->m == 1 || p->n == 1) {
        /* A tiled kernel computes whole tiles to use one row or column of
         * each: read the matrix once instead. Where the matrix's rows run
         * across K, a block takes 128 of them; if those blocks cannot keep
         * four to an SM, K is cut into slices of at least 64 (at most 64
         * of them), summed in a fixed order: in scratch, splits x rows
         * floats, when the pool has it, else by each block in turn. */
        plan->kernel = GL_VARIANT_AUTO;
        plan->tiles = (gl_tile_params){0};
        plan->path = GL_PATH_GEMV;
        plan->gemv = gemv_view(p);
        plan->aligned = plan->gemv.vec;
        plan->why = "C is one row or one column: a matrix-vector kernel reads the matrix once";
        if (!plan->gemv.along_k) { /* the slices do not depend on scratch: the same bits */
            const int64_t row_blocks = ((int64_t)plan->gemv.rows + 127) / 128;
            int64_t splits = (4 * (int64_t)sms + row_blocks - 1) / row_blocks;
            if (splits > p->k / 64)
                splits = p->k / 64;
            if (splits > 64)
                splits = 64;
            if (splits > 1) {
                plan->splits = (int)splits;
                plan->bytes = (size_t)splits * (size_t)plan->gemv.rows * sizeof(float);
            }
        }
        return;
    }
    const bool a_ok = gl_a_vec4_ok(p), b_ok = gl_b_vec4_ok(p);
    /* Aligned operands on 64 x 64 tiles in a grid that fills every SM:
     * rung 6's kernel, whose blocks need half the shared memory (one slice,
     * not two), so more of them share an SM, and whose copies wait on
     * memory that the other blocks' math covers. With fewer blocks than
     * SMs, rung 8's double buffer is what hides it; and for operands read a
     * float at a time rung 8's copies are the cheaper (docs/engine.md). */
    const int64_t blocks_64 = round_up(p->m, 64) / 64 * (round_up(p->n, 64) / 64);
    if (!pinned && a_ok && b_ok && t->bm == 64 && t->bn == 64 && blocks_64 >= sms &&
        rung6_tiles[0].bm == 64 && rung6_tiles[0].bn == 64) {
        plan->kernel = GL_VARIANT_VECTORIZED;
        plan->tiles = rung6_tiles[0];
        plan->path = GL_PATH_RUNG;
        plan->aligned = true;
        plan->why = "64 x 64 tiles whose grid fills every SM: rung 6's kernel, which fits more "
                    "blocks on an SM than rung 8's";
        return;
    }
    /* Split-K: a grid of tiles that fills at most half of the GPU's places
     * for blocks, with a long K, is cut along K into parts that fill them
     * once, each at least 512 deep (K at least 2048); their products go to scratch (parts x M
     * x N floats, at most 64 MiB) and a second kernel adds them up in
     * order. Operands read in groups only, for now. The places are counted
     * with the smallest shared memory of the GPUs the library is built for
     * (99 KB a block). */
    if (can_copy && a_ok && b_ok && p->k >= 2048) {
        const int64_t blocks = ((int64_t)p->m + t->bm - 1) / t->bm * (((int64_t)p->n + t->bn - 1) / t->bn);
        const int64_t places = (int64_t)gl_tiles_resident(GL_KIND_WARPTILE, t, 99 * 1024) * sms;
        int64_t parts = blocks * 2 <= places ? places / blocks : 1;
        if (parts > p->k / 512)
            parts = p->k / 512;
        if (parts > 32)
            parts = 32;
        while (parts > 1 && (double)parts * p->m * p->n * sizeof(float) > 64.0 * 1024 * 1024)
            --parts;
        if (parts > 1) {
            plan->path = GL_PATH_SPLIT_K;
            plan->aligned = true;
            plan->splits = (int)parts;
            plan->bytes = (size_t)parts * (size_t)p->m * (size_t)p->n * sizeof(float);
            plan->why = "too few tiles for the GPU and a long K: K cut into parts summed in a "
                        "fixed order";
            return;
        }
    }
    const bool windows = a_ok && b_ok && p->m % 4 == 0 && p->n % 4 == 0 && p->k % 4 == 0 &&
                         p->m >= t->bm && p->n >= t->bn;
    /* Rows on 32 bytes are read in place at nearly full speed with edge
     * windows; on 16 bytes only, each load touches more sectors than the
     * copy costs (4096 x 4096 x 4100: 2.7% slower in place, docs/engine.md). */
    if (!can_copy || (windows && on_sectors(p->a, p->lda) && on_sectors(p->b, p->ldb))) {
        choose_path(p, t, a_ok, b_ok, false, plan);
        return;
    }
    const int64_t k_pad = round_up(p->k, t->bk);
    const bool k_edge = k_pad != p->k; /* then both are copied, so K pads alike */
    struct {
        gl_engine_copy *copy;
        bool ok, k_rows; /* read in groups; stored rows run along K (A transposed, B not) */
        int64_t x, bx;
    } ops[2] = {{&plan->a, a_ok, p->trans_a, p->m, t->bm}, {&plan->b, b_ok, !p->trans_b, p->n, t->bn}};
    /* An operand is copied when it cannot be read in groups, or when edge
     * windows would read it in place but its rows are off 32 bytes and it
     * is short of whole tiles; an operand read in groups is otherwise read
     * in place, with rung 8's tests, which cost less than its copy (127 x
     * 4096 x 4096: 64.9% of cuBLAS in place, 62.4% copied). */
    bool short_of_tiles[2], want[2], whole = true; /* whole: every operand is, or will be,
                                                      aligned whole tiles */
    for (int i = 0; i < 2; ++i) {
        short_of_tiles[i] = k_edge || ops[i].x % ops[i].bx != 0 || !ops[i].ok;
        want[i] = !ops[i].ok || (windows && short_of_tiles[i]);
    }
    if (k_edge && (want[0] || want[1]))
        want[0] = want[1] = true;
    size_t bytes = 0;
    for (int i = 0; i < 2; ++i) {
        const int64_t x_pad = round_up(ops[i].x, ops[i].bx);
        if (x_pad > INT32_MAX || k_pad > INT32_MAX) { /* the kernels' int indices */
            choose_path(p, t, a_ok, b_ok, false, plan);
            return;
        }
        const int rows = (int)(ops[i].k_rows ? k_pad : x_pad), cols = (int)(ops[i].k_rows ? x_pad : k_pad);
        const bool made = want[i] && copy_pays(p, (int64_t)rows * cols);
        *ops[i].copy = (gl_engine_copy){made, rows, cols, made ? bytes : 0};
        if (made)
            bytes += ((size_t)rows * (size_t)cols * sizeof(float) + 255) / 256 * 256;
        whole = whole && (made || !short_of_tiles[i]);
    }
    if (bytes == 0 || (k_edge && !whole)) { /* K padded in one operand only would not match */
        plan->a.made = plan->b.made = false;
        choose_path(p, t, a_ok, b_ok, false, plan);
        return;
    }
    plan->bytes = bytes;
    plan->k = (int)k_pad;
    choose_path(p, t, a_ok || plan->a.made, b_ok || plan->b.made, whole, plan);
}
