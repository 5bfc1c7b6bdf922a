/*
 * plan.c - which path auto takes for a problem (engine.h). Plain C: the
 * launcher (auto.cu) follows the plan, and gl_sgemm_plan reports
 * it.
 */
#include "engine.h"
#include "tile_rules.h"
#include "variants.h"

#include <stdatomic.h>
#include <stdint.h>

/* Every row starts on a 32-byte sector. */
static bool on_sectors(const void *p, int64_t ld) { return ((uintptr_t)p & 31) == 0 && ld % 8 == 0; }

/* v / d for v >= 0 and d >= 1: as a 32-bit division where both fit, as
 * they mostly do, which takes a fraction of a 64-bit one's time on x86-64
 * (the plan divides a few hundred times). */
static int64_t quot(int64_t v, int64_t d)
{
    return ((v | d) >> 32) == 0 ? (int64_t)((uint32_t)v / (uint32_t)d) : v / d;
}

static int64_t ceil_div(int64_t v, int64_t d) { return quot(v + d - 1, d); }

static int64_t round_up(int64_t v, int64_t to) { return ceil_div(v, to) * to; }

/* Tiles of bm x bn that cover C. */
static int64_t tile_count(const gl_problem *p, int bm, int bn)
{
    return ceil_div(p->m, bm) * ceil_div(p->n, bn);
}

/* Rung 8's configurations (configs.h), and those auto runs for reasons of
 * its own (engine.h). */
#define GL_WARPTILE_TILES(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, 0},
static const gl_tile_params warptile_tiles[] = {GL_WARPTILE_CONFIGS(GL_WARPTILE_TILES)};
static const gl_tile_params warptile_thin[] = {GL_THIN_TILES};
static const gl_tile_params warptile_half[] = {GL_HALF_TILES};
static const gl_tile_params warptile_stream_k[] = {GL_STREAM_K_TILES};

/* The fill tiles: auto's row holds them (engine.h, GL_FILL_TILES). */
static const gl_tile_params *fill_tiles(void) { return gl_variant_find(GL_VARIANT_AUTO)->fill; }

/* Blocks of rung 8's kernel on tiles t that one SM holds, as the plan counts
 * them: with the shared memory any supported GPU gives a block. */
static int64_t resident(const gl_tile_params *t)
{
    /* each of rung 8's configurations counted once: the plan asks for a few
     * of them many times, and a count takes six divisions (counted each time,
     * they took a quarter to two fifths of the plan's time) */
    enum { CONFIGS = sizeof warptile_tiles / sizeof warptile_tiles[0] };
    static _Atomic int counted[CONFIGS];
    const gl_tile_schema *schema = gl_variant_find(GL_VARIANT_WARPTILE)->schema;
    for (size_t i = 0; i < CONFIGS; ++i)
        if (gl_tile_params_equal(t, &warptile_tiles[i])) {
            int r = atomic_load_explicit(&counted[i], memory_order_relaxed);
            if (r == 0) {
                r = gl_tiles_resident(schema, t, gl_arch_smem_limit(0));
                atomic_store_explicit(&counted[i], r, memory_order_relaxed);
            }
            return r;
        }
    return gl_tiles_resident(schema, t, gl_arch_smem_limit(0));
}

/* Whether the grid of tiles t leaves a quarter or more of its rounds'
 * places empty (its last round short of full): 3001^2 on 128 x 128 tiles,
 * 576 blocks in three rounds of 264 places, leaves 27%. */
static bool wastes_a_quarter(const gl_problem *p, const gl_tile_params *t, int sms)
{
    const int64_t slots = sms * resident(t), tiles = tile_count(p, t->bm, t->bn);
    const int64_t places = ((tiles - 1) / slots + 1) * slots;
    return 4 * (places - tiles) >= places;
}

/* Whether a split's `parts` products of C (m rows, gl_split_ld(n) floats
 * apart) fit in the 64 MiB of scratch a split may take. */
static bool parts_fit(const gl_problem *p, int64_t parts)
{
    return (double)parts * p->m * gl_split_ld(p->n) * sizeof(float) <= 64.0 * 1024 * 1024;
}

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

/* An operand's copy padded to x_pad x k_pad (x: its extent along C), laid
 * out as the operand is (k_rows: a stored row for each k, as for A
 * transposed and B not), at `offset` bytes into scratch. */
static gl_engine_copy padded_copy(bool k_rows, int64_t x_pad, int64_t k_pad, size_t offset)
{
    return (gl_engine_copy){true, (int)(k_rows ? k_pad : x_pad), (int)(k_rows ? x_pad : k_pad),
                            offset, false};
}

/* The copy's extent along C. */
static int64_t padded_extent(const gl_engine_copy *c, bool k_rows) { return k_rows ? c->cols : c->rows; }

/* Floats that copies of A (copy_a) and B (copy_b) take, padded to tiles u
 * and K to k_pad. */
static double copied_floats(const gl_problem *p, int64_t k_pad, bool copy_a, bool copy_b,
                            const gl_tile_params *u)
{
    return (double)k_pad * (double)((copy_a ? round_up(p->m, u->bm) : 0) +
                                    (copy_b ? round_up(p->n, u->bn) : 0));
}

/* Scratch a copy takes: whole 256-byte blocks, so the next starts aligned. */
static size_t copy_bytes(const gl_engine_copy *c)
{
    return c->made ? ((size_t)c->rows * (size_t)c->cols * sizeof(float) + 255) / 256 * 256 : 0;
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
        plan->path = GL_PATH_EDGE_TESTS;
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
        plan->path = GL_PATH_EDGE_TESTS;
        plan->why = "edge tiles read in place: rung 8's kernel with its tests at the edges";
    }
}


/* Rung 6's tiles: its kernel's first configuration, 64 x 64 (configs.h). */
#define GL_VECTORIZED_TILES(BM, BN, BK, TM, TN) {BM, BN, BK, TM, TN, 0, 0, 0, BM * BN / (TM * TN), 0},
static const gl_tile_params rung6_tiles[] = {GL_VECTORIZED_CONFIGS(GL_VECTORIZED_TILES)};

/* Blocks of rung 6's kernel on its tiles that one SM holds, as resident()
 * counts rung 8's. */
static int64_t rung6_resident(void)
{
    const gl_tile_schema *schema = gl_variant_find(GL_VARIANT_VECTORIZED)->schema;
    return gl_tiles_resident(schema, &rung6_tiles[0], gl_arch_smem_limit(0));
}

/* Rung 6's kernel on its 64 x 64 tiles, for the reason `why`. */
static void take_rung6(const gl_problem *p, const char *why, gl_engine_plan *plan)
{
    plan->kernel = GL_VARIANT_VECTORIZED;
    plan->tiles = rung6_tiles[0];
    plan->path = GL_PATH_EDGE_TESTS;
    plan->aligned = gl_a_vec4_ok(p) && gl_b_vec4_ok(p);
    plan->why = why;
}

/*
 * Whether operands read in place, one of them a float at a time, run on
 * rung 6's kernel: for a K of 128 or less, of 384 or less where its
 * grid of 64 x 64 blocks has one for each SM, and of 1024 or less where it
 * has four; its copy reads the tiles inside the matrices without tests,
 * and an SM holds more of its smaller blocks. Otherwise rung 8's, whose
 * double buffer hides the latency that few blocks leave over a longer K,
 * and whose warp tiles compute more per second. And at any K where the
 * call's tiles are the fill tiles, rung 6's own shape, 64 x 64 x 16: there
 * rung 8's kernel, a test on each load, is the slower. Tiles pinned on the
 * handle stay (docs/engine.md, Rung 6's kernel).
 */
static bool rung6_in_place(const gl_problem *p, const gl_tile_params *t, bool a_ok, bool b_ok,
                           bool pinned, int sms)
{
    const int64_t blocks_64 = tile_count(p, 64, 64);
    return !pinned && !(a_ok && b_ok) &&
           (p->k <= 128 || (p->k <= 384 && blocks_64 >= sms) ||
            (p->k <= 1024 && blocks_64 >= 4 * (int64_t)sms) ||
            gl_tile_params_equal(t, fill_tiles())) &&
           rung6_tiles[0].bm == 64 && rung6_tiles[0].bn == 64;
}

/* Operands as they are, without copies: rung 6's kernel where
 * rung6_in_place says so, else rung 8's path for them (choose_path). */
static void in_place(const gl_problem *p, const gl_tile_params *t, bool a_ok, bool b_ok,
                     bool pinned, int sms, gl_engine_plan *plan)
{
    if (rung6_in_place(p, t, a_ok, b_ok, pinned, sms)) {
        take_rung6(p,
                   gl_tile_params_equal(t, fill_tiles())
                       ? "an operand read a float at a time and not copied, on the fill tiles: "
                         "rung 6's kernel on the same tiles, which reads its inner tiles untested"
                       : "an operand read a float at a time and not copied, K short for the 64 x "
                         "64 tiles an SM: rung 6's kernel, which reads its inner tiles untested",
                   plan);
        return;
    }
    choose_path(p, t, a_ok, b_ok, false, plan);
}

/* C of a few rows or columns as a matrix times vectors: the other operand
 * is the matrix, its rows those of the y's. by_rows: C's rows are the y's
 * (op(B) is the matrix), else C's columns (op(A) is). */
static gl_gemv gemv_view(const gl_problem *p, bool by_rows)
{
    gl_gemv g = {.k = p->k, .alpha = p->alpha, .beta = p->beta, .y = p->c};
    if (!by_rows) { /* C's column j = op(A) op(B)'s column j */
        g.rows = p->m, g.vectors = p->n, g.mat = p->a, g.x = p->b, g.sy = p->ldc, g.syv = 1;
        g.rs = p->trans_a ? 1 : p->lda, g.ks = p->trans_a ? p->lda : 1;
        g.sx = p->trans_b ? 1 : p->ldb, g.sxv = p->trans_b ? p->ldb : 1;
    } else { /* C's row j = op(A)'s row j op(B): y_j[n] = sum_k op(B)[k][n] op(A)[j][k] */
        g.rows = p->n, g.vectors = p->m, g.mat = p->b, g.x = p->a, g.sy = 1, g.syv = p->ldc;
        g.rs = p->trans_b ? p->ldb : 1, g.ks = p->trans_b ? 1 : p->ldb;
        g.sx = p->trans_a ? p->lda : 1, g.sxv = p->trans_a ? 1 : p->lda;
    }
    g.mat_is_a = !by_rows;
    g.along_k = g.ks == 1 && g.vectors == 1;
    const bool mat_ok = ((uintptr_t)g.mat & 15) == 0;
    g.vec = g.along_k ? mat_ok && (g.rows == 1 || g.rs % 4 == 0) && g.sx == 1 &&
                            ((uintptr_t)g.x & 15) == 0
                      : mat_ok && g.ks % 4 == 0;
    return g;
}

/* Whether C's few rows (by_rows) or columns make a matrix-vector product:
 * one of them, or up to GL_GEMV_MAX_VECTORS where the matrix's rows run
 * across K (a kernel that reads it once, each lane 4 neighbouring rows). */
static bool gemv_fits(const gl_problem *p, bool by_rows)
{
    const int64_t few = by_rows ? p->m : p->n;
    const bool mat_across_k = by_rows ? !p->trans_b : p->trans_a;
    return few == 1 || (few <= GL_GEMV_MAX_VECTORS && mat_across_k);
}

/*
 * Split-K's cost model: the grid's time in the one model of how a grid
 * fills the GPU (gl_grid_time, tile_rules.c), in units of one element of C
 * times one k on one SM. Parts add their scratch traffic (written once and
 * read once) and C's, and the second kernel's launch: on an H100 an SM does
 * 174 G units a second and the GPU moves 3 TB a second, so a byte costs
 * 0.058 units and 3 microseconds 522,000.
 */
#define LAUNCH_UNITS 522000.0 /* a launch's 3 microseconds */

/* Copying `floats` of an operand: each read and written once, at a
 * conservative 2 TB/s (the copy kernel moved 2.5-2.8 TB/s on big operands):
 * 0.087 units a byte. */
static double copy_units(double floats) { return 0.087 * 8.0 * floats; }

/* The cost of the grid of `tiles` tiles t (tile_count), in `parts` along K
 * of `depth` each (but the last). */
static double grid_cost(const gl_problem *p, const gl_tile_params *t, int64_t tiles,
                        int64_t resident, int64_t parts, int64_t depth, int sms)
{
    double cost = gl_grid_time(t, tiles * parts, resident, sms, depth);
    if (parts > 1)
        cost += 0.058 * 4.0 * ((double)parts * 2 + 2) * p->m * p->n + LAUNCH_UNITS;
    return cost;
}

static double tile_cost(const gl_problem *p, const gl_tile_params *t, int64_t resident,
                        int64_t parts, int sms)
{
    const int64_t depth = parts > 1 ? gl_split_depth(p->k, (int)parts) : p->k;
    return grid_cost(p, t, tile_count(p, t->bm, t->bn), resident, parts, depth, sms);
}

/*
 * Split-K for a grid of tiles that leaves the GPU short of blocks: the
 * tiles (the call's, or, unless pinned, 128 x 128, the fill tiles, 128 x 32
 * where C has 256 columns or fewer, or 32 x 128 where it has 32 rows or
 * fewer) and parts (at most one for each 256 of K, rounded up, so that
 * 1000 makes four, 256 deep but the last; at most 64 of them; their
 * products at most 64 MiB of scratch) that the model above puts at under
 * nine tenths of the unsplit time, scaled by unsplit_scale and less
 * copy_cost. The parts tried give each SM one to eight blocks.
 *
 * The thin tiles waste less of C's few columns or rows (71 columns: 96 of
 * 128 x 32's, 128 of 64 x 64's). 32 x 128 only for one row of them: with
 * more, each row of tiles reads all of B again, its blocks far apart in the
 * launch order, where 128 x 32's blocks that share A's rows start together
 * (docs/engine.md, Thin tiles).
 *
 * A plan weighs the split of one problem against up to three rivals, so
 * the search (the model's cheapest split, the first found of equal ones)
 * runs once for each problem and is kept in a split_search.
 */
typedef struct {
    bool done;
    int parts; /* 1: no split */
    const gl_tile_params *tiles;
    double cost;
} split_search;

static const split_search *search_split(split_search *s, const gl_problem *p,
                                        const gl_tile_params *t, bool pinned, int sms)
{
    if (s->done)
        return s;
    *s = (split_search){.done = true, .parts = 1, .tiles = t};
    const gl_tile_params *candidates[5] = {t, &warptile_tiles[0], fill_tiles(),
                                           p->n <= 256 ? &warptile_thin[0] : NULL,
                                           p->m <= 32 ? &warptile_thin[1] : NULL};
    const int64_t by_k = ((int64_t)p->k + 255) / 256, most_parts = by_k < 64 ? by_k : 64;
    for (int c = 0; c < (pinned ? 1 : 5); ++c) {
        const gl_tile_params *u = candidates[c];
        bool seen = false; /* the call's tiles may be 128 x 128 or the fill tiles */
        for (int d = 0; d < c && u && !seen; ++d)
            seen = candidates[d] && gl_tile_params_equal(candidates[d], u);
        if (!u || seen)
            continue;
        const int64_t tiles = tile_count(p, u->bm, u->bn), blocks = resident(u);
        int64_t tried = 1;
        /* from the first count of blocks an SM that makes two parts */
        for (int64_t per_sm = ceil_div(2 * tiles, sms); per_sm <= 8; ++per_sm) {
            int64_t parts = quot(per_sm * sms, tiles);
            const bool most = parts >= most_parts; /* then so are the counts after this */
            if (most)
                parts = most_parts;
            if (parts < 2)
                break; /* K too short for two */
            /* as many parts as K fills at the kernel's depth (gl_parts_schedule),
             * which is that of those parts too: gl_split_depth(k, parts) */
            const int depth = gl_split_depth(p->k, (int)parts);
            parts = (p->k - 1) / depth + 1;
            if (parts != tried && parts_fit(p, parts)) {
                tried = parts;
                const double cost = grid_cost(p, u, tiles, blocks, parts, depth, sms);
                if (s->parts == 1 || cost < s->cost)
                    s->cost = cost, s->parts = (int)parts, s->tiles = u;
            }
            if (most)
                break;
        }
    }
    return s;
}

/* The split (searched in *s, for problem p and the call's tiles *t) if it
 * beats the unsplit grid as above: returns its parts (1: none), *t becomes
 * its tiles, and *split_cost (when asked) its cost, else the bar it missed. */
static int split_parts(split_search *s, const gl_problem *p, const gl_tile_params **t,
                       bool pinned, int sms, double unsplit_scale, double copy_cost,
                       double *split_cost)
{
    const double bar = 0.9 * unsplit_scale * tile_cost(p, *t, resident(*t), 1, sms) - copy_cost;
    const split_search *found = search_split(s, p, *t, pinned, sms);
    const bool split = found->parts > 1 && found->cost < bar;
    if (split_cost)
        *split_cost = split ? found->cost : bar;
    if (!split)
        return 1;
    *t = found->tiles;
    return found->parts;
}

/*
 * A split whose blocks make one round with places left over (1024 x 1024 x
 * 32768 on 128 x 128 tiles: 64 tiles x 4 parts = 256 blocks for 264
 * places, so 8 SMs run one block where the others run two, and the round
 * lasts a part's time all the same): each tile's K in one part more, the
 * others shallower and the last short, so that the tiles' short parts run
 * one after another on the places left (8 places, 8 short parts each)
 * while the long ones run. The depth is the least, in multiples of 32,
 * that lets a place left run its short parts, each with a margin of 64 k's
 * for a block's start and end, in a long part's time (at 1024 x 1024 x
 * 32768 a block does about 6 k's a microsecond, and starts and ends in 2
 * or 3): 7968 of 32768 against 8192. Only where the places left are
 * fewer than the tiles, so that each runs two short parts or more, as
 * measured (with more places than tiles each would run one short part
 * beside long ones, a case not measured: 512^3 and 32 x 4096 x 4096 keep
 * their even parts); where the parts stay 4096 deep or more (measured at
 * about 8000; 3072^3's last-round product, 576 deep, keeps even parts);
 * where that leaves a short part and is shallower than the even split;
 * and where the products fit in 64 MiB of scratch. The
 * plan asks it only for parts of whole tiles (with tests it was slower).
 * Returns the depth of
 * each part but the last (0: no such split).
 */
static int short_last_part(const gl_problem *p, int k, const gl_tile_params *t, int parts,
                           int sms)
{
    const int64_t tiles = tile_count(p, t->bm, t->bn), blocks = tiles * parts;
    const int64_t left = sms * resident(t) - blocks; /* places the parts leave */
    if (left <= 0 || left >= tiles || !parts_fit(p, parts + 1))
        return 0;
    const int64_t shorts = (tiles + left - 1) / left; /* on a place left, at most */
    /* shorts x (k - parts x depth + 64) <= depth */
    const int64_t least = (shorts * (k + 64) + shorts * parts) / (1 + shorts * parts);
    const int64_t depth = (least + 31) / 32 * 32;
    if (depth < 4096 || k - parts * depth <= 0 || depth >= gl_split_depth(k, parts))
        return 0;
    return (int)depth;
}

/* The plan cuts K into `parts` on tiles t: their products go to scratch
 * after the copies' `offset` bytes, rows gl_split_ld(n) floats apart. The
 * parts' copies test nothing where op(A)'s rows and op(B)'s columns, in
 * the operand or its padded copy, fill whole tiles of t, and K (padded with
 * the copies) whole slices: each part's depth is a multiple of 32 but the
 * last's, so all are then whole slices. */
static void take_split(const gl_problem *p, const gl_tile_params *t, int parts, size_t offset,
                       int sms, gl_engine_plan *plan)
{
    const int64_t m = plan->a.made ? padded_extent(&plan->a, p->trans_a) : p->m;
    const int64_t n = plan->b.made ? padded_extent(&plan->b, !p->trans_b) : p->n;
    /* operands read in groups, as they are or copied: else each part reads
     * a float per load, with tests */
    plan->aligned = (plan->a.made || gl_a_vec4_ok(p)) && (plan->b.made || gl_b_vec4_ok(p));
    plan->whole = plan->aligned && m % t->bm == 0 && n % t->bn == 0 && plan->k % t->bk == 0;
    plan->part_depth = plan->whole ? short_last_part(p, plan->k, t, parts, sms) : 0;
    if (plan->part_depth > 0)
        ++parts;
    plan->tiles = *t;
    plan->path = GL_PATH_SPLIT_K;
    plan->splits = parts;
    plan->parts_offset = offset;
    plan->bytes = offset + (size_t)parts * (size_t)p->m * (size_t)gl_split_ld(p->n) * sizeof(float);
    static const char *const why[2][2] = {
        {"too few tiles for the GPU and a long K: K cut into parts summed in a fixed order",
         "too few tiles for the GPU and a long K: K cut into parts summed in a fixed order, "
         "whole tiles read without tests"},
        {"an operand copied into aligned tiles, then too few tiles for the GPU and a long K: K "
         "cut into parts summed in a fixed order",
         "an operand copied into aligned tiles, then too few tiles for the GPU and a long K: K "
         "cut into parts summed in a fixed order, whole tiles read without tests"}};
    static const char *const why_short[2] = {
        "too few tiles for the GPU and a long K: K cut into parts summed in a fixed order, the "
        "last short for places left; whole tiles, no tests",
        "an operand copied into aligned tiles, then K cut into parts summed in a fixed order, "
        "the last short for places left; whole tiles, no tests"};
    plan->why = !plan->aligned        ? "too few tiles for the GPU and a long K: K cut into parts "
                                        "summed in a fixed order, an operand read a float at a time"
                : plan->part_depth > 0 ? why_short[offset > 0]
                                       : why[offset > 0][plan->whole];
}

/* Before a split on tiles t whose parts would test their copies because
 * op(A)'s rows or op(B)'s columns stop short of a whole tile: copies of
 * those operands, padded with zeros to whole tiles, where K is whole slices
 * and the copies pay (copy_pays), so that the parts test nothing (127 x
 * 4096 x 4096: A's 127 rows copied into 128). Returns the bytes of scratch
 * the copies take (0: none made). */
static size_t pad_for_split(const gl_problem *p, const gl_tile_params *t, gl_engine_plan *plan)
{
    const bool pad_a = p->m % t->bm != 0, pad_b = p->n % t->bn != 0;
    const int64_t m_pad = round_up(p->m, t->bm), n_pad = round_up(p->n, t->bn);
    if ((!pad_a && !pad_b) || p->k % t->bk != 0 || m_pad > INT32_MAX || n_pad > INT32_MAX)
        return 0;
    gl_engine_copy a = {0}, b = {0};
    if (pad_a)
        a = padded_copy(p->trans_a, m_pad, p->k, 0);
    if (pad_b)
        b = padded_copy(!p->trans_b, n_pad, p->k, copy_bytes(&a));
    const size_t bytes = copy_bytes(&a) + copy_bytes(&b);
    if (!copy_pays(p, (int64_t)(bytes / sizeof(float))))
        return 0;
    plan->a = a, plan->b = b;
    return bytes;
}

/* Rung 8's kernel on tiles t, on the operands as they are: the plan before
 * any choice. */
static void start_plan(const gl_problem *p, const gl_tile_params *t, gl_engine_plan *plan)
{
    *plan = (gl_engine_plan){.kernel = GL_VARIANT_WARPTILE, .tiles = *t, .k = p->k, .splits = 1};
}

/* ---- the plan's rules ----------------------------------------------------
 *
 * gl_engine_plan_for asks these in order, and the first that takes the
 * problem makes the plan. Each states what it does and, in a line, why;
 * the measurements behind them are in docs/engine.md, a section each. */

/* What the rules read of a problem, worked out once. */
typedef struct facts {
    const gl_problem *p;
    const gl_tile_params *t; /* the call's tiles */
    bool pinned, can_copy;
    int sms;
    bool a_ok, b_ok;         /* op(A), op(B) read in 16-byte groups */
    bool windows;            /* edge windows could read them in place: aligned, extents
                                multiples of 4 and at least a tile */
    int64_t blocks_64;       /* C's tiles of 64 x 64 */
    bool short_k;            /* rung 6's reasons (rung6_fits) */
    bool c_unaligned;
    bool rung6;
    int64_t k_pad;           /* K padded to whole slices of the call's tiles */
    bool k_edge;             /* K is not */
    split_search splits[2];  /* split-K's search, for K as it is and padded */
} facts;

/* Matrix-vector. C of one row or column, or of up to 8 whose other
 * operand's rows run across K: a tiled kernel computes whole tiles to use
 * a few rows or columns of each, a matrix-vector kernel reads the matrix
 * once. Where the matrix's rows run across K, a block takes 128 of them; if
 * those blocks cannot keep four to an SM, K is cut into slices of at least
 * 64 (at most 64 of them) that make at most four, summed in a fixed order:
 * in scratch, splits x vectors x rows floats, when the pool has it, else by
 * each block in turn. A slice is a whole number of the kernel's rounds of
 * loads (64 k's), so that no warp ends a slice a k at a time. */
static bool matrix_vector(const facts *f, gl_engine_plan *plan)
{
    const gl_problem *p = f->p;
    const bool by_rows = p->m < p->n; /* C's rows are the fewer */
    const bool fits = gemv_fits(p, by_rows);
    if (!fits && !gemv_fits(p, !by_rows))
        return false;
    plan->kernel = GL_VARIANT_AUTO;
    plan->tiles = (gl_tile_params){0};
    plan->path = GL_PATH_GEMV;
    plan->gemv = gemv_view(p, fits ? by_rows : !by_rows);
    plan->aligned = plan->gemv.vec;
    plan->why = plan->gemv.vectors == 1
                    ? "C is one row or one column: a matrix-vector kernel reads the matrix once"
                    : "C has a few rows or columns and the matrix's rows run across K: a "
                      "matrix-vector kernel reads it once";
    if (!plan->gemv.along_k) { /* the slices do not depend on scratch: the same bits */
        const int64_t row_blocks = ((int64_t)plan->gemv.rows + 127) / 128;
        int64_t splits = 4 * (int64_t)f->sms / row_blocks; /* not over: a fifth on some SMs
                                                              would be a quarter more time */
        if (splits > p->k / 64)
            splits = p->k / 64;
        if (splits > 64)
            splits = 64;
        plan->gemv.slice = p->k;
        if (splits > 1) { /* still 2 or more: K is 64 splits or more, so a depth of
                             K / splits rounded up by less than 64 stays under K */
            plan->gemv.slice = (int)round_up((p->k - 1) / splits + 1, 64);
            plan->splits = (int)((p->k - 1) / plan->gemv.slice + 1);
            if (f->can_copy)
                plan->bytes = (size_t)plan->splits * (size_t)plan->gemv.vectors *
                              (size_t)plan->gemv.rows * sizeof(float);
        }
    }
    return true;
}

/* Whether rung 6's kernel on its 64 x 64 tiles suits the grid, which must
 * give every SM a block, for tiles not pinned:
 *   aligned operands on 64 x 64 tiles: its blocks need half rung 8's
 *   shared memory (one slice, not two), so more share an SM, and the
 *   others' math covers their copies' waits;
 *   a short K (64 or less) with eight 64 x 64 tiles or more an SM: a
 *   block's time is mostly its first loads and its stores, which an SM
 *   overlaps across more small blocks than big ones;
 *   C off 16 bytes on such grids, for a K of 384 or less, or 1024 where the
 *   call's tiles are 64 x 64 or leave a quarter of their grid's places
 *   empty: C then goes out a float at a time, and five small blocks an SM
 *   overlap one's stores with the others' math. */
static void rung6_fits(facts *f)
{
    const gl_problem *p = f->p;
    const gl_tile_params *t = f->t;
    const bool many_64 = f->blocks_64 >= 8 * (int64_t)f->sms;
    f->short_k = p->k <= 64 && many_64;
    f->c_unaligned = !gl_vec4_ok(p->c, p->ldc) && many_64 && p->k <= 1024 &&
                     (p->k <= 384 || (t->bm == 64 && t->bn == 64) || wastes_a_quarter(p, t, f->sms));
    f->rung6 = !f->pinned &&
               ((f->a_ok && f->b_ok && ((t->bm == 64 && t->bn == 64) || f->short_k)) ||
                f->c_unaligned) &&
               f->blocks_64 >= f->sms && rung6_tiles[0].bm == 64 && rung6_tiles[0].bn == 64;
}

/* Split-K, operands read in groups: too few tiles for the GPU and a long
 * K (split_parts weighs it). The parts' products go to scratch and a
 * second kernel adds them in order. Not where rung 6's kernel would run
 * a K under 4096 on three 64 x 64 blocks or more an SM, nor in two parts
 * of 128 x 128 tiles where it has two: rung 6's kernel is then faster. */
static bool split_aligned(facts *f, gl_engine_plan *plan)
{
    const gl_problem *p = f->p;
    const bool rung6_not_deep = f->rung6 && p->k < 4096; /* K under deep parts' */
    if (!f->can_copy || !f->a_ok || !f->b_ok ||
        (rung6_not_deep && f->blocks_64 >= 3 * (int64_t)f->sms))
        return false;
    const gl_tile_params *split_tiles = f->t;
    const int parts = split_parts(&f->splits[0], p, &split_tiles, f->pinned, f->sms, 1.0, 0.0, NULL);
    const bool two_big = parts == 2 && (int64_t)split_tiles->bm * split_tiles->bn >= 128 * 128;
    if (parts <= 1 || (rung6_not_deep && f->blocks_64 >= 2 * (int64_t)f->sms && two_big))
        return false;
    take_split(p, split_tiles, parts, pad_for_split(p, split_tiles, plan), f->sms, plan);
    return true;
}

/* Rung 6's kernel, where rung6_fits says so. */
static bool rung6_kernel(const facts *f, gl_engine_plan *plan)
{
    if (!f->rung6)
        return false;
    take_rung6(f->p,
               f->c_unaligned ? "C stored a float at a time, K of 1024 or less, 8 or more 64 x 64 "
                                "tiles an SM: rung 6's kernel, whose small blocks overlap their "
                                "stores with the others' math"
               : f->short_k   ? "a short K on a grid of eight or more 64 x 64 tiles for each SM: "
                                "rung 6's kernel, whose small blocks overlap their first loads "
                                "and their stores of C"
                              : "64 x 64 tiles whose grid fills every SM: rung 6's kernel, which "
                                "fits more blocks on an SM than rung 8's",
               plan);
    return true;
}

/* Operands read in place: without scratch, or where edge windows read
 * them, rows on 32 bytes (on 16 bytes only, each load touches more
 * sectors than a copy costs). */
static bool read_in_place(const facts *f, gl_engine_plan *plan)
{
    const gl_problem *p = f->p;
    if (f->can_copy && !(f->windows && on_sectors(p->a, p->lda) && on_sectors(p->b, p->ldb)))
        return false;
    in_place(p, f->t, f->a_ok, f->b_ok, f->pinned, f->sms, plan);
    return true;
}

/* Split-K with an operand read a float at a time, two ways, the cheaper in
 * the model:
 *   copies for the split: the operands copied (padded to the split's
 *   tiles, at most 256 MiB), then split; weighed against the kernel that
 *   would run unsplit, a float per load, taken as 15% slower than the
 *   model, and charged for the copies' traffic (copy_units), so that a big
 *   operand's copy does not buy a small gain;
 *   in place: the parts on the kernel for any alignment (taken 15% slower
 *   too), no copies; a thin product of a long K so reads its big operand
 *   once, where a copy would read and write it again.
 * Takes the split in place when it wins; else *split_copies says whether
 * the copies' split wins over no split, and *pad gives the tiles the
 * copies are padded to. */
static bool split_unaligned(facts *f, const gl_tile_params **pad, bool *split_copies,
                            gl_engine_plan *plan)
{
    const gl_problem *p = f->p;
    const gl_tile_params *t = f->t;
    *split_copies = false;
    *pad = t;
    if (f->a_ok && f->b_ok)
        return false;
    double copies_cost = 0.0; /* of the copies' split, in the model, and of the copies */
    if (f->k_pad <= INT32_MAX) {
        gl_problem padded = *p;
        padded.k = (int)f->k_pad;
        const bool copy_a = !f->a_ok || f->k_edge, copy_b = !f->b_ok || f->k_edge;
        const gl_tile_params *u = t;
        const int parts = split_parts(&f->splits[f->k_edge], &padded, &u, f->pinned, f->sms,
                                      1.15,
                                      copy_units(copied_floats(p, f->k_pad, copy_a, copy_b, t)),
                                      &copies_cost);
        const double floats = copied_floats(p, f->k_pad, copy_a, copy_b, u); /* on the split's tiles */
        *split_copies = parts > 1 && floats * sizeof(float) <= 256.0 * 1024 * 1024;
        if (*split_copies) {
            *pad = u;
            copies_cost += copy_units(floats);
        }
    }
    const gl_tile_params *v = t;
    double in_place_cost = 0.0;
    const int parts =
        split_parts(&f->splits[0], p, &v, f->pinned, f->sms, 1.0, 0.0, &in_place_cost);
    if (parts <= 1 || (*split_copies && 1.15 * in_place_cost >= copies_cost))
        return false;
    take_split(p, v, parts, 0, f->sms, plan);
    return true;
}

/*
 * Packing: operands copied into scratch as aligned whole tiles (padded with
 * zeros), then rung 8's kernel on them without tests, or split-K on the
 * copies. An operand is copied when it cannot be read in groups, or when
 * edge windows would read it in place but its rows are off 32 bytes and it
 * is short of whole tiles; one read in groups is otherwise read in place
 * with rung 8's tests, which cost less than its copy. The copies are padded
 * to whole tiles of the split's tiles and of the call's (every tile extent
 * is a power of two), for the split may yet not be taken, and rung 8's
 * kernel then reads them on the call's tiles. Falls back to the operands in
 * place where the copies would not pay or not fit the kernels' indices.
 */
static void packed(facts *f, const gl_tile_params *pad, bool split_copies, gl_engine_plan *plan)
{
    const gl_problem *p = f->p;
    const gl_tile_params *t = f->t;
    const bool a_ok = f->a_ok, b_ok = f->b_ok, k_edge = f->k_edge;
    const int64_t k_pad = f->k_pad;
    const bool windows = f->windows;
    struct {
        gl_engine_copy *copy;
        bool ok, k_rows; /* read in groups; stored rows run along K (A transposed, B not) */
        int64_t x, bx;
    } ops[2] = {{&plan->a, a_ok, p->trans_a, p->m, pad->bm > t->bm ? pad->bm : t->bm},
                {&plan->b, b_ok, !p->trans_b, p->n, pad->bn > t->bn ? pad->bn : t->bn}};
    bool short_of_tiles[2], want[2], whole = true; /* whole: every operand is, or will be,
                                                      aligned whole tiles */
    for (int i = 0; i < 2; ++i) {
        short_of_tiles[i] = k_edge || ops[i].x % ops[i].bx != 0 || !ops[i].ok;
        want[i] = !ops[i].ok || (windows && short_of_tiles[i]);
    }
    if (k_edge && (want[0] || want[1])) /* K padded in one operand only would not match */
        want[0] = want[1] = true;
    size_t bytes = 0;
    for (int i = 0; i < 2; ++i) {
        const int64_t x_pad = round_up(ops[i].x, ops[i].bx);
        /* the kernels' int indices; and the copies' bytes, summed in a
         * size_t, far from its end (2^56 floats: no memory holds them) */
        if (x_pad > INT32_MAX || k_pad > INT32_MAX || (double)x_pad * (double)k_pad > 0x1p56) {
            plan->a.made = plan->b.made = false; /* A's, if B's failed here */
            in_place(p, t, a_ok, b_ok, f->pinned, f->sms, plan);
            return;
        }
        gl_engine_copy c = padded_copy(ops[i].k_rows, x_pad, k_pad, bytes);
        c.made = want[i] && (split_copies || copy_pays(p, (int64_t)c.rows * c.cols));
        *ops[i].copy = c.made ? c : (gl_engine_copy){0};
        bytes += copy_bytes(&c);
        whole = whole && (c.made || !short_of_tiles[i]);
    }
    /* a copy buys nothing while the other operand still cannot be read in
     * groups: rung 8's kernel would read both a float per load */
    if (bytes == 0 || (k_edge && !whole) || !(a_ok || plan->a.made) ||
        !(b_ok || plan->b.made)) {
        plan->a.made = plan->b.made = false;
        in_place(p, t, a_ok, b_ok, f->pinned, f->sms, plan);
        return;
    }
    plan->bytes = bytes;
    plan->k = (int)k_pad;
    choose_path(p, t, a_ok || plan->a.made, b_ok || plan->b.made, whole, plan);
    /* Split-K on the copies, asked again: it must now beat rung 8's kernel
     * on them, not the float-per-load kernel it was weighed against. */
    gl_problem copied = *p;
    copied.k = (int)k_pad;
    const gl_tile_params *split_tiles = t;
    const int parts =
        split_parts(&f->splits[k_edge], &copied, &split_tiles, f->pinned, f->sms, 1.0, 0.0, NULL);
    if (parts > 1) {
        take_split(p, split_tiles, parts, bytes, f->sms, plan);
        return;
    }
    /* Copies made for a K that rung 6's kernel would take in place, on
     * tiles larger than its own: the model weighs the copies and rung 8's
     * kernel on them against rung 6's kernel; at such a K the copies cost
     * little and what decides is how full each grid's last round is. */
    if ((int64_t)t->bm * t->bn > (int64_t)rung6_tiles[0].bm * rung6_tiles[0].bn &&
        rung6_in_place(p, t, a_ok, b_ok, f->pinned, f->sms) &&
        tile_cost(p, &rung6_tiles[0], rung6_resident(), 1, f->sms) <
            tile_cost(&copied, t, resident(t), 1, f->sms) + copy_units(bytes / sizeof(float)) +
                LAUNCH_UNITS) {
        start_plan(p, t, plan);
        in_place(p, t, a_ok, b_ok, f->pinned, f->sms, plan);
    }
}

void gl_engine_plan_for(const gl_problem *p, const gl_tile_params *t, bool pinned, int sms,
                        bool can_copy, gl_engine_plan *plan)
{
    start_plan(p, t, plan);
    facts f = {.p = p, .t = t, .pinned = pinned, .can_copy = can_copy, .sms = sms,
               .a_ok = gl_a_vec4_ok(p), .b_ok = gl_b_vec4_ok(p),
               .blocks_64 = tile_count(p, 64, 64), .k_pad = round_up(p->k, t->bk)};
    f.k_edge = f.k_pad != p->k; /* then both are copied, so K pads alike */
    f.windows = f.a_ok && f.b_ok && p->m % 4 == 0 && p->n % 4 == 0 && p->k % 4 == 0 &&
                p->m >= t->bm && p->n >= t->bn;
    if (matrix_vector(&f, plan))
        return;
    rung6_fits(&f);
    if (split_aligned(&f, plan) || rung6_kernel(&f, plan) || read_in_place(&f, plan))
        return;
    const gl_tile_params *pad;
    bool split_copies;
    if (split_unaligned(&f, &pad, &split_copies, plan))
        return;
    packed(&f, pad, split_copies, plan);
}

/*
 * The grid's last round. Where the call's tiles leave the last round of
 * blocks at most three quarters full and K is long, the rows of C that
 * round covers may run after the rest, as a product of their own planned
 * from the fill tiles (64 x 64, five blocks to an SM), on rung 6's kernel
 * or split along K, whose blocks spread that work over every SM instead of
 * leaving a quarter or more of the places empty; if split-K's model
 * (tile_cost) puts the two products and the second launch under 97% of the
 * one. The model keeps 6000^3 whole: its last round has a block or fewer
 * for each SM, and such lone blocks run fast. Returns those rows (0: none), whole rows of tiles so that the
 * rows above fill whole rounds, *tail_plan, their plan, and *cut_cost, the
 * model's cost of the two products.
 */
static int tail_rows(const gl_problem *p, const gl_tile_params *t, int sms, bool can_copy,
                     gl_engine_plan *tail_plan, double *cut_cost)
{
    const gl_tile_params *fill = fill_tiles();
    if ((int64_t)t->bm * t->bn <= (int64_t)fill->bm * fill->bn || p->k < 1024)
        return 0;
    const int64_t slots = sms * resident(t);
    if (slots < 1)
        return 0;
    const int64_t cols = round_up(p->n, t->bn) / t->bn, tiles = tile_count(p, t->bm, t->bn);
    const int64_t rounds = (tiles - 1) / slots + 1, last = tiles - (rounds - 1) * slots;
    if (rounds < 2 || 4 * last > 3 * slots)
        return 0;
    const int64_t top = (rounds - 1) * slots / cols * t->bm; /* rows of C in whole rounds */
    if (top <= 0 || top >= p->m)
        return 0;
    gl_problem above, tail;
    gl_engine_cut_rows(p, (int)top, &above, &tail);
    if (tile_count(&tail, fill->bm, fill->bn) < sms) /* too few to spread */
        return 0;
    /* The model above, with the tail as planned (on the fill tiles, or
     * split), and its launch; the tail is planned only where the rows
     * above and a launch leave it room. */
    const double whole = tile_cost(p, t, slots / sms, 1, sms);
    const double rest = tile_cost(&above, t, slots / sms, 1, sms) + LAUNCH_UNITS;
    if (rest > 0.97 * whole)
        return 0;
    gl_engine_plan_for(&tail, fill, false, sms, can_copy, tail_plan);
    /* A tail of a few rows would be a matrix-vector product, which reads
     * B again: not what the model below weighs (and a plan that holds its
     * call's pointers, which the memo of plans cannot keep). */
    if (tail_plan->path == GL_PATH_GEMV)
        return 0;
    const bool split = tail_plan->path == GL_PATH_SPLIT_K;
    /* Copies the tail makes of its own: B's again, where the rows above
     * copy it too. */
    const size_t tail_bytes = copy_bytes(&tail_plan->a) + copy_bytes(&tail_plan->b);
    const double tail_copies =
        tail_bytes > 0 ? copy_units((double)(tail_bytes / sizeof(float))) + LAUNCH_UNITS : 0.0;
    const gl_tile_params *tail_tiles = split ? &tail_plan->tiles : fill;
    const double cut = rest + tail_copies +
                       tile_cost(&tail, tail_tiles, resident(tail_tiles),
                                 split ? tail_plan->splits : 1, sms);
    if (cut > 0.97 * whole)
        return 0;
    *cut_cost = cut;
    return tail.m;
}

/*
 * An operand whose rows run along K (A as stored, B transposed) into its
 * transpose, for big products on aligned operands read in place. Rung 8's
 * kernel reads a slice 16 deep of such an operand as 64-byte pieces of 128
 * rows, but of its transpose as 512-byte rows, and ran 2.4-3.8% faster on
 * A transposed at 2048^3 .. 8192^3; rung 12's, which copies such an
 * operand a float at a time, ran 4096^3 4% faster (docs/engine.md,
 * Packing). A copy reads and writes its operand once, 8 X K bytes (X: M for
 * A, N for B), 60 / Y of the product's time at 45 TFLOP/s and 3 TB/s (Y:
 * the other extent): it pays for Y of 3072 or more (2% against 2.4-4%),
 * and where M N K is at least 2^34 (0.76 ms at 45 TFLOP/s), so that its
 * launch, a few microseconds, is under half a percent. Each copy's
 * scratch, its operand's size, is held to 256 MiB. A and B are the
 * row-major problem's: a column-major call's are swapped.
 */
static void transpose_operands(const gl_problem *p, bool can_copy, gl_engine_plan *plan)
{
    if (!can_copy || plan->kernel != GL_VARIANT_WARPTILE || plan->bytes > 0 ||
        (plan->path != GL_PATH_INTERIOR && plan->path != GL_PATH_EDGE_WINDOWS) ||
        (double)p->m * (double)p->n * (double)p->k < 0x1p34)
        return;
    /* at most 256 MiB, and rows the copy's grid spans (32 floats a block
     * along its y) */
    const double most = 256.0 * 1024 * 1024;
    const int64_t lda = round_up(p->m, 8), ldb = round_up(p->n, 8); /* rows on 32 bytes */
    const int64_t widest = (int64_t)GL_GRID_YZ_MAX * 32;
    if (!p->trans_a && p->n >= 3072 && lda <= widest &&
        (double)lda * (double)p->k * sizeof(float) <= most)
        plan->a = (gl_engine_copy){true, p->k, (int)lda, 0, true};
    if (p->trans_b && p->m >= 3072 && ldb <= widest &&
        (double)ldb * (double)p->k * sizeof(float) <= most)
        plan->b = (gl_engine_copy){true, p->k, (int)ldb, copy_bytes(&plan->a), true};
    if (!plan->a.made && !plan->b.made)
        return;
    plan->bytes = copy_bytes(&plan->a) + copy_bytes(&plan->b);
    static const char *const why[2][3] = {
        {"aligned whole tiles: copies without tests, from A copied transposed, whose slices are "
         "read as whole rows",
         "aligned whole tiles: copies without tests, from B copied transposed, whose slices are "
         "read as whole rows",
         "aligned whole tiles: copies without tests, from A and B copied transposed, whose "
         "slices are read as whole rows"},
        {"extents are multiples of 4: edge windows inside C, from A copied transposed, whose "
         "slices are read as whole rows",
         "extents are multiples of 4: edge windows inside C, from B copied transposed, whose "
         "slices are read as whole rows",
         "extents are multiples of 4: edge windows inside C, from A and B copied transposed, "
         "whose slices are read as whole rows"}};
    plan->why = why[plan->path == GL_PATH_EDGE_WINDOWS]
                   [plan->a.made && plan->b.made ? 2 : plan->b.made ? 1 : 0];
}

/* Whether the rows above a product's last round, planned as `top`, may
 * run cut from the rest (the whole product planned as `whole`): on rung 8's
 * kernel unsplit, where they read aligned operands in place, or copy what
 * the whole would copy and read it alike (else the top may read in place,
 * a float at a time, what the whole copies, and run slower uncut). */
static bool top_may_cut(const gl_engine_plan *top, const gl_engine_plan *whole)
{
    if (top->kernel != GL_VARIANT_WARPTILE || top->path == GL_PATH_SPLIT_K)
        return false;
    const bool in_place = top->aligned && !top->a.made && !top->b.made;
    const bool as_whole = whole->kernel == GL_VARIANT_WARPTILE &&
                          whole->path != GL_PATH_SPLIT_K && top->aligned == whole->aligned &&
                          top->a.made == whole->a.made && top->b.made == whole->b.made;
    return in_place || as_whole;
}

/*
 * Rung 8's 128 x 64 and 64 x 128 tiles for a call whose grid of its own
 * tiles makes a single round with room left over, so that some SMs run two
 * blocks while others run one and wait: a grid of half tiles holds twice
 * the blocks, which spread more evenly (docs/engine.md, Half tiles). Where
 * split-K's model (tile_cost; tiles of 128 x 64 and
 * more compute as fast as 128 x 128, as the pinned tiles measured) puts
 * their grid at under nine tenths of the call's, and it too is one round.
 * Not where the call's tiles would copy an operand for a split: there the
 * half tiles, unsplit, ran slower; nor where the plan on the half tiles
 * would not run rung 8's kernel on them (rung 6's kernel, or a split on
 * other tiles), which the model did not weigh (gl_engine_plan_call). Only
 * in place of tiles of 64 x 64 and more other than the half tiles
 * themselves. Returns the half tiles to weigh, or NULL.
 */
static const gl_tile_params *half_tiles_for(const gl_problem *p, const gl_tile_params *t,
                                            bool pinned, int sms)
{
    if (pinned || t->bm < 64 || t->bn < 64 || gl_engine_half_tiles(t) ||
        tile_count(p, t->bm, t->bn) > sms * resident(t))
        return NULL;
    const gl_tile_params *best = NULL;
    double best_cost = 0.9 * tile_cost(p, t, resident(t), 1, sms);
    for (size_t i = 0; i < sizeof warptile_half / sizeof warptile_half[0]; ++i) {
        const gl_tile_params *h = &warptile_half[i];
        const double cost = tile_cost(p, h, resident(h), 1, sms);
        if (tile_count(p, h->bm, h->bn) <= sms * resident(h) && cost < best_cost)
            best = h, best_cost = cost;
    }
    return best;
}

/*
 * Stream-K, on its tiles (configs.h), where a grid's last round would leave
 * SMs idle: a block for each place the GPU holds at once computes whole
 * tiles for as many rounds as the grid fills, then an equal share of the
 * slices of K of the tiles left over (engine.h, gl_stream_k), so that
 * every SM works to the end; a second kernel adds up the tiles that shares
 * hold in parts. For a K of 1024 or more, on grids of under two rounds
 * (on more, 2.8 to 7.8 rounds, it ran 5-12% slower than the plans it would
 * replace: 10 shapes), where split-K's model (tile_cost: the work spread
 * evenly, plus each share's parts written and read, their starts and ends,
 * and the second launch) puts it under 95% of the grid unsplit on the
 * call's tiles, the fill tiles and the half tiles, and of `rival` (the
 * plan's split, or its last round cut, when it has one); and the parts'
 * scratch (two tiles a share) within 64 MiB (docs/engine.md, Stream-K).
 * Operands read a float at a time are copied first, padded with zeros to
 * whole tiles and, where their rows run along K, to rows of a multiple of
 * 4 (the kernel reads K as it is: a group of 4 that reaches past it reads
 * the zeros), where the copies cost less than reading them a float per
 * load would (taken as 15% slower, as for split-K) and take at most 256
 * MiB; else there is no stream-K (its kernel for any alignment spilled
 * registers in its slice loop). Returns whether *plan is now stream-K's.
 */
static bool take_stream_k(const gl_problem *p, const gl_tile_params *call, int sms, double rival,
                          gl_engine_plan *plan)
{
    const gl_tile_params *t = &warptile_stream_k[0];
    if (p->k < 1024)
        return false;
    const int64_t r = resident(t), shares = sms * r, tiles = tile_count(p, t->bm, t->bn);
    const int64_t rounds = tiles / shares, left = tiles % shares;
    const int64_t slices = ((int64_t)p->k - 1) / t->bk + 1;
    /* steps x shares, the most the shares' arithmetic multiplies (engine.h),
     * and slices x bk, the kernel's int (gl_stream_k_tiles) */
    if (left == 0 || rounds > 1 || (double)left * (double)slices * (double)shares >= 0x1p62 ||
        slices * t->bk > INT32_MAX)
        return false;
    const double tile_area = (double)t->bm * t->bn;
    const double parts_bytes = (double)shares * 2.0 * tile_area * sizeof(float);
    if (parts_bytes > 64.0 * 1024 * 1024)
        return false;
    /* the rivals, unsplit */
    const gl_tile_params *fill = fill_tiles();
    double best = tile_cost(p, call, resident(call), 1, sms);
    const gl_tile_params *others[3] = {fill, &warptile_half[0], &warptile_half[1]};
    for (int i = 0; i < 3; ++i) {
        const double c = tile_cost(p, others[i], resident(others[i]), 1, sms);
        best = c < best ? c : best;
    }
    if (rival > 0.0 && rival < best)
        best = rival;
    /* stream-K: every SM busy to the end */
    const double work = (double)tiles / (double)sms * gl_round_work(r, t->threads / 32) / (double)r *
                        tile_area * (double)p->k;
    /* each share's parts: written, read, and C written; and their two
     * starts and ends, taken as 2 slices' work each */
    const double traffic = 0.058 * 4.0 * tile_area * (double)(4 * shares + left) +
                           (double)r * 4.0 * t->bk * tile_area;
    const bool a_ok = gl_a_vec4_ok(p), b_ok = gl_b_vec4_ok(p);
    /* copies of what cannot be read in groups */
    gl_engine_copy a = {0}, b = {0};
    double copies = 0.0;
    bool copied = false;
    if (!a_ok || !b_ok) {
        const int64_t m_pad = round_up(p->m, t->bm), n_pad = round_up(p->n, t->bn);
        const int64_t k4 = round_up(p->k, 4); /* rows along K: on 16 bytes */
        if (!a_ok)
            a = padded_copy(p->trans_a, m_pad, p->trans_a ? p->k : k4, 0);
        if (!b_ok)
            b = padded_copy(!p->trans_b, n_pad, p->trans_b ? k4 : p->k, copy_bytes(&a));
        const double floats = (double)(copy_bytes(&a) + copy_bytes(&b)) / sizeof(float);
        copies = copy_units(floats) + LAUNCH_UNITS;
        copied = m_pad <= INT32_MAX && n_pad <= INT32_MAX && copies < 0.15 * work &&
                 floats * sizeof(float) <= 256.0 * 1024 * 1024;
        if (!copied)
            copies = 0.0;
    }
    if (!(a_ok && b_ok) && !copied)
        return false;
    if (work + traffic + LAUNCH_UNITS + copies >= 0.95 * best)
        return false;
    gl_engine_plan sk;
    start_plan(p, t, &sk);
    if (copied)
        sk.a = a, sk.b = b;
    const size_t offset = copy_bytes(&sk.a) + copy_bytes(&sk.b);
    const int64_t m = sk.a.made ? padded_extent(&sk.a, p->trans_a) : p->m;
    const int64_t n = sk.b.made ? padded_extent(&sk.b, !p->trans_b) : p->n;
    sk.path = GL_PATH_STREAM_K;
    sk.aligned = true;
    sk.whole = m % t->bm == 0 && n % t->bn == 0 && p->k % t->bk == 0;
    sk.stream_k = (gl_stream_k){left * slices, (int)slices, (int)shares, (int)rounds};
    /* at most how many parts a tile's K is cut into: each share holds
     * `least` steps or one more, and each part at least a slice */
    const int64_t least = left * slices / shares;
    const int64_t most = least > 0 ? (slices - 1) / least + 2 : slices;
    sk.splits = (int)(most < slices ? most : slices);
    sk.parts_offset = offset;
    sk.bytes = offset + (size_t)parts_bytes;
    sk.why = copied ? "an operand copied into aligned tiles; a last round that would leave SMs "
                      "idle, and a long K: whole rounds, then the rest's K in equal shares, one "
                      "a block"
                    : "a last round that would leave SMs idle, and a long K: any whole rounds of "
                      "tiles, then the other tiles' K slices in equal shares, one a block";
    *plan = sk;
    return true;
}

/*
 * Rung 12's kernel in place of rung 8's, on the same tiles: its ring of
 * asynchronous copies, on every schedule but stream-K's, whose kernel only
 * rung 8 compiles (compose.cuh). Where the GPU's code is for sm_90 or
 * newer, the only GPUs it was measured on against rung 8, faster on the
 * whole over every path (docs/engine.md, Rung 12's kernel); not for tiles
 * pinned on the handle, which run rung 8's kernel as they are.
 */
void gl_engine_on_ring(gl_engine_plan *plan, bool pinned, int cc)
{
    const gl_variant_desc *ring = gl_variant_find(GL_VARIANT_PIPELINED);
    if (pinned || cc < 90 || cc < ring->min_cc || plan->kernel != GL_VARIANT_WARPTILE ||
        plan->path == GL_PATH_STREAM_K)
        return;
    /* the first of rung 12's configurations on these tiles, with its ring */
    for (int i = 0; i < ring->config_count; ++i)
        if (gl_tile_params_same_tiles(&ring->configs[i], &plan->tiles)) {
            plan->kernel = ring->id;
            plan->tiles = ring->configs[i];
            return;
        }
}

static const gl_tile_params *plan_call(const gl_problem *p, const gl_tile_params *call,
                                       bool pinned, int sms, int cc, bool can_copy,
                                       gl_engine_plan *plan, gl_engine_plan *tail_plan)
{
    const gl_tile_params *t = call;
    gl_engine_plan_for(p, t, pinned, sms, can_copy, plan);
    const gl_tile_params *half = half_tiles_for(p, t, pinned, sms);
    if (half && !(plan->path == GL_PATH_SPLIT_K && (plan->a.made || plan->b.made))) {
        gl_engine_plan on_half;
        gl_engine_plan_for(p, half, false, sms, can_copy, &on_half);
        if (on_half.kernel == GL_VARIANT_WARPTILE && gl_tile_params_equal(&on_half.tiles, half))
            *plan = on_half, t = half;
    }
    double cut_cost = 0.0;
    const int tail = pinned ? 0 : tail_rows(p, t, sms, can_copy, tail_plan, &cut_cost);
    if (!pinned && can_copy && cc >= 90 && plan->path != GL_PATH_GEMV && plan->part_depth == 0) {
        double rival = tail > 0 ? cut_cost : 0.0;
        if (plan->path == GL_PATH_SPLIT_K) {
            const double split =
                tile_cost(p, &plan->tiles, resident(&plan->tiles), plan->splits, sms);
            rival = rival > 0.0 && rival < split ? rival : split;
        }
        /* not for a split whose last part is short (short_last_part: 1024 x
         * 1024 x 32768 ran 10% slower on stream-K) */
        if (take_stream_k(p, t, sms, rival, plan))
            return &warptile_stream_k[0];
    }
    if (tail > 0) {
        const gl_engine_plan whole = *plan;
        gl_problem top = *p;
        top.m -= tail;
        gl_engine_plan_for(&top, t, pinned, sms, can_copy, plan);
        if (top_may_cut(plan, &whole)) {
            plan->tail_rows = tail;
            plan->why =
                plan->path == GL_PATH_INTERIOR
                    ? "aligned whole tiles: copies without tests; the rows of the grid's last "
                      "round run after, as a product of their own that fills the SMs"
                : plan->path == GL_PATH_EDGE_WINDOWS
                    ? "extents are multiples of 4: edge windows inside C; the rows of the "
                      "grid's last round run after, as a product of their own that fills the SMs"
                : plan->path == GL_PATH_PACKED
                    ? "operands copied into aligned whole tiles; the rows of the grid's last "
                      "round run after, as a product of their own that fills the SMs"
                    : "edge tiles read in place with rung 8's tests; the rows of the grid's last "
                      "round run after, as a product of their own that fills the SMs";
            return t;
        }
        *plan = whole;
    }
    transpose_operands(p, can_copy, plan);
    return t;
}

const gl_tile_params *gl_engine_plan_call(const gl_problem *p, const gl_tile_params *call,
                                          bool pinned, int sms, int cc, bool can_copy,
                                          gl_engine_plan *plan, gl_engine_plan *tail_plan)
{
    const gl_tile_params *t = plan_call(p, call, pinned, sms, cc, can_copy, plan, tail_plan);
    gl_engine_on_ring(plan, pinned, cc);
    if (plan->tail_rows > 0)
        gl_engine_on_ring(tail_plan, pinned, cc);
    return t;
}

/* The problem as the plan reads it: of A, B and C only where each sits in
 * a 32-byte sector (on_sectors, gl_vec4_ok), and alpha and beta not at all
 * (same_key passes them over); the matrix-vector plan, which keeps them, is
 * not remembered. */
static gl_problem plan_key(const gl_problem *p)
{
    gl_problem key = *p;
    key.a = (const float *)((uintptr_t)p->a & 31);
    key.b = (const float *)((uintptr_t)p->b & 31);
    key.c = (float *)((uintptr_t)p->c & 31);
    return key;
}

static bool same_key(const gl_problem *x, const gl_problem *y)
{
    return x->m == y->m && x->n == y->n && x->k == y->k && x->a == y->a && x->lda == y->lda &&
           x->trans_a == y->trans_a && x->b == y->b && x->ldb == y->ldb &&
           x->trans_b == y->trans_b && x->c == y->c && x->ldc == y->ldc;
}

const gl_tile_params *gl_engine_plan_remembered(gl_plan_memo *memo, const gl_problem *p,
                                                const gl_tile_params *t, bool pinned, int sms,
                                                int cc, bool can_copy, gl_engine_plan *plan,
                                                gl_engine_plan *tail_plan)
{
    if (!memo)
        return gl_engine_plan_call(p, t, pinned, sms, cc, can_copy, plan, tail_plan);
    const gl_problem key = plan_key(p);
    for (int i = 0; i < GL_PLAN_MEMO_ENTRIES; ++i) {
        const gl_plan_memo_entry *e = &memo->entries[i];
        if (e->valid && same_key(&e->key, &key) && gl_tile_params_equal(&e->call, t) &&
            e->pinned == pinned && e->can_copy == can_copy && e->sms == sms && e->cc == cc) {
            *plan = e->plan;
            *tail_plan = e->tail_plan;
            return e->tiles ? e->tiles : t;
        }
    }
    const gl_tile_params *u =
        gl_engine_plan_call(p, t, pinned, sms, cc, can_copy, plan, tail_plan);
    if (plan->path != GL_PATH_GEMV) {
        gl_plan_memo_entry *e = &memo->entries[memo->next];
        memo->next = (memo->next + 1) % GL_PLAN_MEMO_ENTRIES;
        *e = (gl_plan_memo_entry){.valid = true, .key = key, .call = *t, .pinned = pinned,
                                  .can_copy = can_copy, .sms = sms, .cc = cc,
                                  .tiles = u == t ? NULL : u, .plan = *plan};
        if (plan->tail_rows > 0)
            e->tail_plan = *tail_plan;
    }
    return u;
}

const gl_tile_params *gl_engine_tail_tiles(void) { return fill_tiles(); }

/* Whether t is one of the `count` tiles of `list` (rung 12's ring or not). */
static bool listed(const gl_tile_params *t, const gl_tile_params *list, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (gl_tile_params_same_tiles(t, &list[i]))
            return true;
    return false;
}

bool gl_engine_half_tiles(const gl_tile_params *t)
{
    return listed(t, warptile_half, sizeof warptile_half / sizeof warptile_half[0]);
}

bool gl_engine_thin_tiles(const gl_tile_params *t)
{
    return listed(t, warptile_thin, sizeof warptile_thin / sizeof warptile_thin[0]);
}

/* K's parts for a batch of `count` products on tiles t (the fill tiles)
 * whose grid fills at most half the places the GPU holds: as many as fill
 * them, but at least 4 and at most 8, each 256 deep or more (so 2 or 3
 * where K is under 1024, none under 512), where their
 * products fit `budget` bytes and the 64 MiB a split may take; 1: none.
 * The one model of a grid sees no gain here (an SM's blocks share its FFMA
 * pipes however many there are), but blocks whose SM holds few others
 * wait on their loads with little to cover them. Measured (H200, four
 * batches of such grids, one run): one grid 60-122% of cuBLAS, K in 2
 * parts 97-135%, in 4 parts 98-192%. A grid of more than half the places
 * gains nothing: 4096 x 64 x 4096 x 8 (512 tiles) ran 86% unsplit, 82-84%
 * in 2 or 4 parts. */
static int batch_parts(const gl_problem *p, int64_t count, const gl_tile_params *t, int sms,
                       size_t budget, size_t *bytes)
{
    const int64_t tiles = count * tile_count(p, t->bm, t->bn), places = sms * resident(t);
    if (2 * tiles > places)
        return 1;
    int64_t parts = places / tiles < 4 ? 4 : places / tiles;
    if (parts > 8)
        parts = 8;
    if (parts > p->k / 256)
        parts = p->k / 256;
    if (parts < 2)
        return 1;
    parts = (p->k - 1) / gl_split_depth(p->k, (int)parts) + 1; /* as the kernels cut K */
    const double floats = (double)count * parts * p->m * gl_split_ld(p->n);
    if (floats * sizeof(float) > (double)budget || floats * sizeof(float) > 64.0 * 1024 * 1024)
        return 1;
    *bytes = (size_t)(floats * sizeof(float));
    return (int)parts;
}

/*
 * A batch of products of one shape (measured in docs/engine.md, Batches):
 *   tiles pinned on the handle: one grid of every product's tiles, on them;
 *   matrix-vector products: the matrix-vector kernel of a product's plan
 *     over the whole batch, the grid's z the product, each block summing
 *     its K's slices in turn (no scratch: the bits of the single call's
 *     plan without it). A launch a product would put a launch's gap of
 *     3-4 microseconds on each product's 15 of reading (64 products of
 *     1 x 4096 x 4096: 80% of cuBLAS so, 102% as one grid);
 *   products whose grid of the call's tiles fills a round of the GPU or
 *     more: each on its own plan, one after another, with every path of a
 *     single call;
 *   a batch whose grid of the fill tiles fills at most half the places the
 *     GPU holds, with K of 512 or more: each product's K in parts on the
 *     fill tiles (batch_parts), as split-K does a single product's, where
 *     the scratch is there;
 *   else one grid of every product's tiles (GL_SCHEDULE_BATCH), which fills
 *     the GPU where one product would not: on rung 12's kernel and its
 *     default tiles where K is 256 or more and M and N whole tiles of them
 *     (its ring of slices covers the first loads that short-lived blocks
 *     otherwise wait for: even with rung 8's to 13% faster on six such
 *     batches; on ragged ones, 200 x 300 x 500 or 333 x 333 x 1000, 5-26%
 *     slower),
 *     else on the call's tiles. (The one model of a grid, gl_grid_time,
 *     preferred the half tiles or rung 6's kernel on most of the bench's
 *     batched shapes, which ran 2-10% slower there: it is not asked.)
 */
void gl_engine_plan_batch(const gl_problem *p, int64_t count, const gl_tile_params *t,
                          bool pinned, int sms, int cc, size_t budget,
                          gl_engine_batch_plan *plan)
{
    *plan = (gl_engine_batch_plan){.mode = GL_BATCH_GRID, .kernel = GL_VARIANT_WARPTILE, .tiles = *t};
    plan->why = "tiles pinned on the handle: the batch's tiles in one grid";
    if (pinned)
        return;
    if (gemv_fits(p, true) || gemv_fits(p, false)) {
        gl_engine_plan single;
        gl_engine_plan_for(p, t, false, sms, false, &single);
        if (single.path == GL_PATH_GEMV) {
            plan->mode = GL_BATCH_GEMV, plan->gemv = single.gemv, plan->splits = single.splits;
            plan->tiles = (gl_tile_params){0};
            plan->kernel = GL_VARIANT_AUTO;
            plan->why = "matrix-vector products: the matrix-vector kernel over the batch, the "
                        "grid's z the product";
            return;
        }
    }
    if (tile_count(p, t->bm, t->bn) >= (int64_t)sms * resident(t)) {
        plan->mode = GL_BATCH_EACH;
        plan->why = "a product fills a round of the GPU: each on its own plan, one after another";
        return;
    }
    size_t bytes = 0;
    const int parts = batch_parts(p, count, fill_tiles(), sms, budget, &bytes);
    if (parts > 1) {
        plan->mode = GL_BATCH_SPLIT, plan->splits = parts, plan->bytes = bytes;
        plan->tiles = *fill_tiles();
        plan->why = "the batch's tiles leave the GPU short of a round: each product's K in "
                    "parts, their products in scratch, then summed";
        return;
    }
    const gl_variant_desc *ring = gl_variant_find(GL_VARIANT_PIPELINED);
    const gl_tile_params *rt = &ring->configs[0];
    if (p->k >= 256 && p->m % rt->bm == 0 && p->n % rt->bn == 0 && cc >= ring->min_cc) {
        plan->kernel = ring->id, plan->tiles = *rt;
        plan->why = "the batch's tiles in one grid, on rung 12's kernel, whose ring of slices "
                    "hides the first loads of short-lived blocks";
        return;
    }
    plan->why = "a product leaves the GPU short of a round: the batch's tiles in one grid";
}
