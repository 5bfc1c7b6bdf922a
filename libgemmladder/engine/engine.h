/*
 * engine.h - the engine behind the `auto` variant: the fastest exact-FP32
 * path the library has for a product. It runs rung 8's kernel (or, from
 * sm_90, rung 12's on the same tiles: plan.c, gl_engine_on_ring), with the
 * production machinery the teaching rungs leave out:
 *
 *   - a matrix-vector kernel of its own when C is one row or one column,
 *     or has up to 8 of them and the other operand's rows run across K
 *     (gemv.cu): it reads that operand once, at the speed of memory;
 *   - split-K: a grid of tiles too small for the GPU, with a long K, cut
 *     along K into parts whose products are added up in a fixed order;
 *   - stream-K: a grid of a round and a bit with a long K, its whole
 *     rounds computed as they are and the rest's K dealt out in equal
 *     shares, one to each place the GPU holds, the shared tiles' parts
 *     added up in a fixed order;
 *   - the grid's last round: a round that would leave a quarter or more of
 *     the SMs idle runs after the rest as a product of its own on small
 *     tiles; and a single round with room left over runs on tiles of
 *     half the size;
 *   - fill tiles: the tuning table's tiles give way to small ones when a
 *     grid of large ones would leave most SMs idle in its last round
 *     (tile_rules.c, gl_fill_tiles);
 *   - rung 6's kernel for 64 x 64 tiles (the table's or the fill tiles)
 *     when their grid fills every SM, and for a short K on a grid of many
 *     64 x 64 tiles, or where C or an operand is stored or read a float at
 *     a time: with one buffer per block instead of two, an SM holds more
 *     blocks, and rung 8's double buffer has no latency left to hide;
 *   - interior kernels: when both operands are aligned and whole tiles,
 *     copies without any test;
 *   - edge windows: when every extent is a multiple of 4 and every row
 *     starts on 32 bytes, blocks at the far edge of C compute the tile that
 *     ends at the edge and store only their own part, and the ragged part
 *     of K is read first, so every copy but the first slice's is untested;
 *   - packing: for a product big enough to repay it, or one that split-K
 *     would speed up, operands that cannot be read in 16-byte groups (rows
 *     off 16 bytes, or an extent along them not a multiple of 4) copied
 *     into scratch memory from the handle's pool, aligned and padded with
 *     zeros to whole tiles, then the interior kernel or the split; or the
 *     split in place, its parts a float per load, where the copies cost
 *     more than they save. Aligned operands are read in place: rung 8's
 *     tested copies cost less than a copy; for big products an operand
 *     whose rows run along K (A as stored, B transposed) is copied into
 *     its transpose, whose slices are read as whole rows.
 *
 * The choice between them is made on the host, from the problem alone
 * (gl_engine_plan), so that gl_sgemm_plan can say what a call would do.
 */
#ifndef GL_ENGINE_H
#define GL_ENGINE_H

#include <stddef.h>

#include "gemmladder.h"
#include "kernels/launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One operand's copy into scratch: rows x cols as stored (padded), at
 * `offset` bytes into the scratch block; transposed: the transpose of an
 * operand whose rows run along K (A as stored, B transposed), K rows of
 * cols >= M (A) or N (B) floats (plan.c, transpose_operands). */
typedef struct gl_engine_copy {
    bool made;
    int rows, cols;
    size_t offset;
    bool transposed;
} gl_engine_copy;

/* A matrix times a few vectors: for each of the `vectors` pairs (x_j, y_j),
 * y_j[r] = alpha * sum_k mat[r][k] x_j[k] + beta y_j[r] for r < rows, with
 * mat[r][k] at mat[r * rs + k * ks], x_j[k] at x[j * sxv + k * sx], y_j[r]
 * at y[j * syv + r * sy]. The engine's view of a product whose C has a few
 * rows or columns (gemv.cu): the other operand is the matrix. */
#define GL_GEMV_MAX_VECTORS 8
typedef struct gl_gemv {
    const float *mat;
    int64_t rs, ks;
    const float *x;
    int64_t sx, sxv;
    float *y;
    int64_t sy, syv;
    int rows, k, vectors;
    int slice;    /* across k: the depth of K's slices (the last may be shorter) */
    float alpha, beta;
    bool mat_is_a; /* the matrix is op(A) (C's few columns are the y's), else op(B) */
    bool along_k; /* ks == 1: the matrix's rows run along k (one vector only) */
    bool vec;     /* 16-byte loads of the matrix (and of x, along k) */
} gl_gemv;

/*
 * Stream-K's shares (plan.c, take_stream_k; schedules.cuh). A grid of
 * `tiles` tiles on `shares` blocks, one for each place the GPU holds at once: block b first
 * computes `rounds` tiles whole, b, b + shares, ... (so the blocks that run
 * together compute neighbouring tiles at the same K, as a plain grid's
 * first rounds do, and share their loads in L2), then its share of the
 * tiles left over, rounds x shares onwards. Those are taken as one run of
 * tiles x slices steps (a tile's K in `slices` slices, tile by tile) cut
 * into `shares` runs as equal as whole steps allow; `steps` is the run's
 * length. A share is at most a tile (fewer tiles are left over than there
 * are shares), so it holds parts of one or two tiles.
 */
typedef struct gl_stream_k {
    int64_t steps;
    int slices, shares, rounds;
} gl_stream_k;

/*
 * The tiles auto runs for reasons of its own (plan.c; docs/engine.md), all
 * of them configurations of rung 8 (configs.h), in gl_tile_params' order
 * (bm, bn, bk, tm, tn, wm, wn, wniter, threads):
 *   fill: for grids whose last round of blocks would leave most SMs idle,
 *     and the rows of that round: small tiles, five blocks to an SM;
 *   thin: for split-K on C of few columns (128 x 32) or few rows (32 x 128);
 *   half: half the default's area, for grids that spread more evenly so;
 *   stream-K: the default's.
 */
#define GL_FILL_TILES {64, 64, 16, 8, 4, 32, 32, 1, 128, 0}
#define GL_THIN_TILES {128, 32, 16, 8, 4, 32, 32, 1, 128, 0}, {32, 128, 16, 4, 8, 32, 32, 1, 128, 0}
#define GL_HALF_TILES {128, 64, 16, 4, 4, 32, 64, 2, 128, 0}, {64, 128, 16, 4, 4, 32, 64, 2, 128, 0}
#define GL_STREAM_K_TILES {128, 128, 16, 4, 4, 64, 32, 2, 256, 0}

/* Split-K: the depth of each of K's `parts`, a multiple of 32 that keeps
 * the operands' 16-byte alignment; the last part takes what is left. The
 * plan makes as many parts as K fills at this depth, so none is empty. */
static inline GL_HOST_DEVICE int gl_split_depth(int k, int parts)
{
    /* 64-bit: rounding K up passes INT_MAX near it; with parts >= 2 (the
     * plan's splits) the depth itself fits an int. */
    return (int)((((int64_t)k - 1) / parts + 1 + 31) / 32 * 32);
}

/* The row stride of a part's m x n product in scratch: n rounded up to a
 * multiple of 4, so that every row starts on 16 bytes and the parts store
 * float4s whatever n is. */
static inline GL_HOST_DEVICE int64_t gl_split_ld(int n)
{
    return ((int64_t)n + 3) / 4 * 4;
}

/* The first step of share b (b = shares: the end of the last). */
static inline GL_HOST_DEVICE int64_t gl_share_start(const gl_stream_k *s, int64_t b)
{
    return s->steps * b / s->shares;
}

/* The share that holds step x: the last b whose start is x or before. */
static inline GL_HOST_DEVICE int64_t gl_share_of(const gl_stream_k *s, int64_t x)
{
    return ((x + 1) * s->shares - 1) / s->steps;
}

/* Share b's part of the t-th tile left over: its slices [*s0, *s1), and
 * where its product goes in scratch, *j: 0 for the share's first tile, 1
 * for its second. False where the share holds none of that tile. */
static inline GL_HOST_DEVICE bool gl_share_part(const gl_stream_k *s, int64_t b, int64_t t,
                                                int *s0, int *s1, int *j)
{
    const int64_t first = t * s->slices, start = gl_share_start(s, b);
    const int64_t end = gl_share_start(s, b + 1);
    const int64_t lo = start > first ? start : first;
    const int64_t hi = end < first + s->slices ? end : first + s->slices;
    if (lo >= hi)
        return false;
    *s0 = (int)(lo - first), *s1 = (int)(hi - first), *j = start < first ? 1 : 0;
    return true;
}

/*
 * Which tile and which range of K each block of a mainloop's kernel
 * computes, and in what order (schedules.cuh): the schedules every rung
 * compiled as a mainloop runs on (kernels/compose.cuh).
 */
typedef enum gl_schedule_kind {
    GL_SCHEDULE_PARTS,    /* K in `parts` parts along the grid's z; one part: the
                             plain grid */
    GL_SCHEDULE_WINDOWS,  /* edge windows: blocks at C's far edge compute the
                             tile that ends there; K's ragged part first */
    GL_SCHEDULE_STREAM_K, /* one block per place on the GPU, each its share of
                             the tiles' K slices */
    GL_SCHEDULE_BATCH,    /* a batch of products of one shape along the grid's z
                             (gl_exec.batch): block (x, y, z) its tile of product z */
    GL_SCHEDULE_POINTERS, /* the same, each product's operands read from arrays
                             of pointers (gl_sgemm_batched) */
    GL_SCHEDULE_BATCH_PARTS, /* a batch with each product's K in `parts` parts:
                                block (x, y, z) its tile of product z / parts over
                                part z % parts (rung 8's fill tiles only) */
} gl_schedule_kind;

/* GL_SCHEDULE_BATCH: from one product's operands to the next's, in floats. */
typedef struct gl_batch_strides {
    int64_t a, b, c;
} gl_batch_strides;

/* GL_SCHEDULE_POINTERS: the arrays of the products' operands (device memory). */
typedef struct gl_batch_pointers {
    const float *const *a;
    const float *const *b;
    float *const *c;
} gl_batch_pointers;

/* How the mainloop copies the operands' slices: aligned operands of whole
 * tiles and slices without a test, aligned ones with tests at the edges,
 * or any a float per load. */
typedef enum gl_copies { GL_COPIES_WHOLE, GL_COPIES_TESTED, GL_COPIES_SINGLES } gl_copies;

/* The copies a grid of tiles t takes for p (and batch b, or NULL): 16-byte
 * ones where the operands allow them (and every product's, by the batch's
 * strides; pointer arrays' p has no operands, and their blocks ask their
 * entries), without tests where p is whole tiles; else a float per load. */
static inline gl_copies gl_copies_for(const gl_problem *p, const gl_tile_params *t,
                                      const gl_batch *b)
{
    const bool aligned = gl_a_vec4_ok(p) && gl_b_vec4_ok(p) &&
                         (!b || (b->a % 4 == 0 && b->b % 4 == 0));
    const bool whole = p->m % t->bm == 0 && p->n % t->bn == 0 && p->k % t->bk == 0;
    return !aligned ? GL_COPIES_SINGLES : whole ? GL_COPIES_WHOLE : GL_COPIES_TESTED;
}

/* How the epilogue writes C (kernels/epilogue.cuh; chosen at launch by
 * gl_c_stores_for, compose.cuh). */
typedef enum gl_c_stores {
    GL_C_STORES_RUNS,  /* from registers, a thread's runs of 4 columns: a float4
                          each where C's rows are 16-byte aligned, else 4 floats */
    GL_C_STORES_BANDS, /* through shared memory in bands of rows, where the rung
                          has them (R::STORE_BANDS; gl_banded_epilogue) */
    GL_C_STORES_ROWS   /* from registers, neighbouring lanes' runs of a row cut
                          again into C's 16-byte-aligned float4s, where the rung's
                          lanes lie so (C4_ROW_LANES; gl_rows_epilogue) */
} gl_c_stores;

typedef struct gl_schedule {
    gl_schedule_kind kind;
    gl_copies copies;
    int parts;            /* GL_SCHEDULE_PARTS, _BATCH_PARTS: K's parts (>= 1) */
    int part_depth;       /* GL_SCHEDULE_PARTS, _BATCH_PARTS: the depth of each part but the last,
                             when the plan set one; 0: gl_split_depth's */
    bool dependent;       /* launched behind the kernel before it (gl_launch_dependent) */
    unsigned char c_stores; /* a gl_c_stores: how C is written (a byte, beside
                               `dependent`: the kernels' parameters keep their size) */
    int first_row;        /* GL_SCHEDULE_POINTERS: the launch's first row of C, to
                             which each product's A and C move (gl_move_to_row);
                             in the padding before the union (compose.cuh) */
    union { /* no larger than the shares: the kernels' parameters keep their size */
        gl_stream_k stream_k;       /* GL_SCHEDULE_STREAM_K: the shares */
        gl_batch_strides batch;     /* GL_SCHEDULE_BATCH, _BATCH_PARTS: the products' strides */
        gl_batch_pointers pointers; /* GL_SCHEDULE_POINTERS: the products' arrays */
    };
    float *scratch;       /* GL_SCHEDULE_STREAM_K: where the parts of shared tiles go */
} gl_schedule;

/* What auto's launcher needs beyond a rung's (gl_exec.engine). */
typedef struct gl_engine_context {
    cudaMemPool_t scratch_pool; /* where the engine takes scratch memory; NULL: no pool */
    bool tiles_pinned;     /* the tiles were pinned with gl_set_tiles: run as they are */
    struct gl_plan_memo *plan_memo; /* auto's last plans; NULL: none */
    void *workspace;       /* the caller's buffer (gl_set_workspace), 256-byte
                              aligned, taken in place of the pool; NULL: the pool */
    size_t scratch_budget; /* the most scratch one product may take (the handle's
                              limit, the buffer's size; gl_scratch_budget): a plan
                              that needs more runs without (gl_engine_plan_within) */
} gl_engine_context;

typedef struct gl_engine_plan {
    gl_variant_t kernel;  /* whose kernel runs: GL_VARIANT_WARPTILE, _VECTORIZED, or
                             _AUTO for the engine's own (GL_PATH_GEMV) */
    gl_tile_params tiles; /* the tiles it runs (none for GL_PATH_GEMV) */
    gl_path_t path;     /* GL_PATH_EDGE_TESTS, _INTERIOR, _EDGE_WINDOWS, _PACKED, _GEMV, _SPLIT_K
                           or _STREAM_K */
    bool aligned;       /* 16-byte loads from both operands (after any copy) */
    gl_engine_copy a, b;
    int k;              /* K of the kernel's problem: padded with zeros when copied */
    gl_gemv gemv;       /* GL_PATH_GEMV: the product as a matrix times vectors */
    int splits;         /* GL_PATH_GEMV: slices of K summed in scratch (1: none);
                           GL_PATH_SPLIT_K: the parts K is cut into */
    bool whole;         /* GL_PATH_SPLIT_K: the operands (or their copies) hold
                           whole tiles and every part whole slices: copies
                           without tests */
    size_t bytes;       /* scratch the copies (or the slices' sums) take */
    size_t parts_offset; /* GL_PATH_SPLIT_K: where the parts' products start in
                            scratch, after any copies */
    int part_depth;     /* GL_PATH_SPLIT_K: the depth of each part but the last,
                           when the last is short (plan.c, short_last_part);
                           0: gl_split_depth's */
    gl_stream_k stream_k; /* GL_PATH_STREAM_K: the shares */
    int tail_rows;      /* rows at C's bottom (of the grid's last round) that run
                           after the rest as a product of their own, planned
                           from the fill tiles (gl_engine_plan_call); the plan
                           is then for the rows above them */
    const char *why;    /* one sentence, static */
} gl_engine_plan;

/* What auto does for problem p with tiles t (a warptile configuration;
 * pinned: set with gl_set_tiles, and run as they are) on a GPU of `sms`
 * SMs, with scratch memory (can_copy) or without. */
void gl_engine_plan_for(const gl_problem *p, const gl_tile_params *t, bool pinned, int sms,
                        bool can_copy, gl_engine_plan *plan);

/* Rung 12's kernel in place of rung 8's on the plan's tiles, where the code
 * is for capability cc 9.0 or newer, the tiles are not pinned and the path
 * is not stream-K's (plan.c); every plan auto runs goes through it. */
void gl_engine_on_ring(gl_engine_plan *plan, bool pinned, int cc);

/* What auto does for a call made with tiles t (its table's, or the fill
 * tiles) on a GPU whose code was compiled for capability cc (major * 10
 * + minor, gl_exec.code_cc):
 * gl_engine_plan_for's plan on the tiles it returns, which are t or,
 * unless pinned, where t's grid is one round with room left over and
 * theirs costs less, rung 8's 128 x 64 or 64 x 128 tiles
 * (GL_HALF_TILES), the tiles to launch the plan with. Or, where
 * those tiles would leave the grid's last round of blocks at most three
 * quarters full, K is long and split-K's model says it pays, the plan for
 * the rows above that round, with tail_rows set, and *tail_plan the plan
 * for those rows alone, made from gl_engine_tail_tiles; never for pinned
 * tiles. Or, on sm_90 and newer, with scratch and tiles not pinned,
 * stream-K's plan (plan.c, take_stream_k) on its tiles. */
const gl_tile_params *gl_engine_plan_call(const gl_problem *p, const gl_tile_params *t,
                                          bool pinned, int sms, int cc, bool can_copy,
                                          gl_engine_plan *plan, gl_engine_plan *tail_plan);

/* The plans of a handle's last calls (gl_engine_plan_call), each with what
 * it was made from: the problem as the plan reads it (plan_key in plan.c:
 * no alpha or beta, and of A, B and C only where they sit in a 32-byte
 * sector), the call's tiles and the GPU's facts. Eight of them, the oldest
 * replaced first, so that a loop over a few shapes (a network's layers)
 * keeps all of them. A handle is used by one thread at a time, and so is
 * its memo. */
#define GL_PLAN_MEMO_ENTRIES 8

typedef struct gl_plan_memo_entry {
    bool valid;
    gl_problem key;
    gl_tile_params call;
    bool pinned, can_copy;
    int sms, cc;
    const gl_tile_params *tiles; /* the tiles the plan runs; NULL: the call's */
    gl_engine_plan plan, tail_plan;
} gl_plan_memo_entry;

typedef struct gl_plan_memo {
    gl_plan_memo_entry entries[GL_PLAN_MEMO_ENTRIES];
    int next; /* the entry the next new plan takes */
} gl_plan_memo;

/* gl_engine_plan_call, through a memo (NULL: none): a call whose plan is
 * made from the same facts as a remembered one's takes that plan without
 * weighing the paths again (planning takes up to a couple of microseconds;
 * the memo's check well under a tenth). A matrix-vector plan, which holds
 * the call's pointers and alpha and beta, is made each time (it takes a
 * tenth of a microsecond). */
const gl_tile_params *gl_engine_plan_remembered(gl_plan_memo *memo, const gl_problem *p,
                                                const gl_tile_params *t, bool pinned, int sms,
                                                int cc, bool can_copy, gl_engine_plan *plan,
                                                gl_engine_plan *tail_plan);

/* The most scratch a plan and its tail's (where it has tail_rows) hold at
 * once: the rows above the last round free theirs before the last round's
 * rows take their own. */
static inline size_t gl_engine_plan_scratch(const gl_engine_plan *plan,
                                            const gl_engine_plan *tail_plan)
{
    return plan->tail_rows > 0 && tail_plan->bytes > plan->bytes ? tail_plan->bytes
                                                                 : plan->bytes;
}

/* gl_engine_plan_remembered within `budget` bytes of scratch (the handle's
 * limit or the caller's buffer, gl_set_workspace): the plan made with
 * scratch where budget > 0 and it needs at most that much at once, else the
 * plan made without (can_copy false), which takes none. All or nothing, so
 * that gl_sgemm_plan (gemm.c) and the launcher (auto.cu) make one plan from
 * one rule. */
static inline const gl_tile_params *
gl_engine_plan_within(gl_plan_memo *memo, const gl_problem *p, const gl_tile_params *t,
                      bool pinned, int sms, int cc, size_t budget, gl_engine_plan *plan,
                      gl_engine_plan *tail_plan)
{
    const gl_tile_params *u =
        gl_engine_plan_remembered(memo, p, t, pinned, sms, cc, budget > 0, plan, tail_plan);
    if (budget > 0 && gl_engine_plan_scratch(plan, tail_plan) > budget)
        u = gl_engine_plan_remembered(memo, p, t, pinned, sms, cc, false, plan, tail_plan);
    return u;
}

/* How auto runs a batch of products of one shape (gl_sgemm_strided_batched,
 * gl_exec.batch): all of them in one grid (GL_SCHEDULE_BATCH) on `kernel`'s
 * kernel and `tiles`; that grid with each product's K in `splits` parts,
 * their products in scratch, then summed into each C (GL_BATCH_SPLIT, on
 * the tiled rung's kernel); the matrix-vector kernel over all of them; or
 * each product on its own plan, one after another. */
typedef enum gl_batch_mode {
    GL_BATCH_GRID,
    GL_BATCH_GEMV,
    GL_BATCH_EACH,
    GL_BATCH_SPLIT
} gl_batch_mode;

typedef struct gl_engine_batch_plan {
    gl_batch_mode mode;
    gl_variant_t kernel;  /* GL_BATCH_GRID, _SPLIT: the rung whose kernel runs it */
    gl_tile_params tiles; /* GL_BATCH_GRID, _SPLIT: its tiles */
    gl_gemv gemv;         /* GL_BATCH_GEMV: the first product as a matrix times vectors */
    int splits;           /* GL_BATCH_GEMV: K's slices, each block summing them in turn;
                             GL_BATCH_SPLIT: K's parts (gl_split_depth deep but the last) */
    size_t bytes;         /* GL_BATCH_SPLIT: the scratch the parts' products take:
                             count x splits x m x gl_split_ld(n) floats */
    const char *why;      /* one sentence, static */
} gl_engine_batch_plan;

/* The plan for a batch of `count` products of p made with tiles t
 * (pinned: set with gl_set_tiles) on a GPU of `sms` SMs whose code was
 * compiled for capability cc, with at most `budget` bytes of scratch
 * (plan.c says which and why). */
void gl_engine_plan_batch(const gl_problem *p, int64_t count, const gl_tile_params *t,
                          bool pinned, int sms, int cc, size_t budget,
                          gl_engine_batch_plan *plan);

/* Where a matrix-vector batch's products are (gl_engine_gemv_batch):
 * product i's matrix, x and y i `steps` floats on from the first's; or, for
 * pointer arrays (y set), entries i of the arrays, moved on by `moves`
 * floats (to the launch's first row, gl_batch.row0). */
typedef struct gl_gemv_products {
    gl_batch_strides steps, moves;
    const float *const *mat;
    const float *const *x;
    float *const *y;
} gl_gemv_products;

/* Batch b of problem p as products of the matrix-vector view g of the
 * first: g keeps its 16-byte loads only where every product's steps allow
 * them (for pointer arrays, the kernels ask each product's entries too). */
static inline gl_gemv_products gl_engine_gemv_products(gl_gemv *g, const gl_problem *p,
                                                       const gl_batch *b)
{
    gl_gemv_products q = {{0, 0, 0}, {0, 0, 0}, NULL, NULL, NULL};
    const bool a_is_mat = g->mat_is_a;
    if (b->c_ptrs) { /* gl_move_to_row's moves of A and C */
        const int64_t a_move = b->row0 * (p->trans_a ? 1 : p->lda), c_move = b->row0 * p->ldc;
        q.mat = a_is_mat ? b->a_ptrs : b->b_ptrs, q.x = a_is_mat ? b->b_ptrs : b->a_ptrs;
        q.y = b->c_ptrs;
        q.moves.a = a_is_mat ? a_move : 0, q.moves.b = a_is_mat ? 0 : a_move, q.moves.c = c_move;
        return q;
    }
    q.steps.a = a_is_mat ? b->a : b->b, q.steps.b = a_is_mat ? b->b : b->a, q.steps.c = b->c;
    if (q.steps.a % 4 != 0 || (g->along_k && q.steps.b % 4 != 0))
        g->vec = false;
    return q;
}

/* The matrix-vector kernel on `count` products of batch b (g: the view of
 * the first; for pointer arrays, made from a problem without operands, so
 * that only its strides decide its 16-byte loads), up to 65535 a launch,
 * the grid's z the product; each block
 * sums K's `splits` slices in turn, without scratch. Pointer arrays whose
 * steps allow 16-byte loads take two launches: the products whose entries
 * allow them, then the rest. */
int gl_engine_gemv_batch(const gl_gemv *g, int splits, int64_t count, const gl_gemv_products *b,
                         const gl_exec *x);

/* Problem p cut at C's row `rows`: *top, the rows above it, and *bottom,
 * the rest, each with its own A and C. */
static inline void gl_engine_cut_rows(const gl_problem *p, int rows, gl_problem *top,
                                      gl_problem *bottom)
{
    *top = *p, *bottom = *p;
    top->m = rows;
    bottom->m = p->m - rows;
    bottom->a = p->trans_a ? p->a + rows : p->a + (int64_t)rows * p->lda;
    bottom->c = p->c + (int64_t)rows * p->ldc;
}

/* Whether t are the half tiles above. */
bool gl_engine_half_tiles(const gl_tile_params *t);

/* The tiles the plan for a call's tail_rows is made from: the fill tiles. */
const gl_tile_params *gl_engine_tail_tiles(void);

/* Whether t are split-K's thin tiles (GL_THIN_TILES). */
bool gl_engine_thin_tiles(const gl_tile_params *t);

/* Queues the matrix-vector product g on x's stream; with splits > 1,
 * scratch (when not NULL) holds splits * g->vectors * g->rows floats.
 * Returns a cudaError_t. */
int gl_engine_gemv(const gl_gemv *g, int splits, void *scratch, const gl_exec *x);

/* C = alpha * (the sum of `parts` m x n slices of w, in order, their rows
 * gl_split_ld(n) floats apart) + beta * C (split_k.cu), queued on x's
 * stream right behind the kernel that wrote w. Returns a cudaError_t. */
int gl_engine_add_parts(const float *w, int parts, const gl_problem *p, const gl_exec *x);

/* The same for each of `count` products: product i's parts follow product
 * i - 1's in w, and its C is p's moved on by i * c_step floats. */
int gl_engine_add_batch_parts(const float *w, int parts, const gl_problem *p, int64_t count,
                              int64_t c_step, const gl_exec *x);

/* C's tiles of bm x bn that stream-K's shares s hold in parts, each the
 * sum of its parts in order of K, times alpha, plus beta * C
 * (split_k.cu): share b's part of the first tile it holds is at w + 2 b
 * bm bn, of the second at w + (2 b + 1) bm bn. Queued on x's stream right
 * behind the kernel that wrote w. Returns a cudaError_t. */
int gl_engine_add_shared_tiles(const float *w, const gl_stream_k *s, int bm, int bn,
                               const gl_problem *p, const gl_exec *x);

#ifdef __cplusplus
}

/* The engine's kernels (the matrix-vector kernels, rung 8's kernel on K's
 * parts, one for a product that is not split, and on edge windows, the
 * kernels that add up what the kernel before them left in scratch, and the
 * operand copies; not rung 6's kernel, nor rung 8's for operands read a
 * float at a time unsplit, which their rungs' launchers start) are launched
 * as programmatic dependent launches on sm_90 and newer: the GPU starts
 * setting a kernel up while the kernel before it in the stream (the call's
 * own first kernel, or whatever the caller queued last) still runs its last
 * blocks, instead of after it has finished, and the kernel's first step,
 * gl_wait_for_previous_grid, holds its blocks until that kernel has
 * finished and its writes are visible. Where the code was compiled for an
 * older GPU (gl_exec.code_cc) they launch as usual, and the wait compiles to
 * nothing. */
template <class... Params, class... Args>
cudaError_t gl_launch_dependent(void (*kernel)(Params...), dim3 grid, unsigned threads,
                                size_t shared_bytes, const gl_exec *x, Args... args)
{
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = x->stream;
    config.attrs = &overlap;
    config.numAttrs = x->code_cc >= 90 ? 1 : 0;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

/* Lets the kernel queued behind this one with gl_launch_dependent start
 * its blocks once every block of this one has called this or finished
 * (else only once all have finished); they still wait for this one to
 * finish in gl_wait_for_previous_grid. */
__device__ __forceinline__ void gl_let_next_grid_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* First thing in a kernel launched with gl_launch_dependent, before it
 * reads or writes any memory: waits until the grid before it has finished
 * and its writes are visible. */
__device__ __forceinline__ void gl_wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
#endif

#endif /* GL_ENGINE_H */
