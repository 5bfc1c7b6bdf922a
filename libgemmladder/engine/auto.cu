/*
 * auto.cu - auto's dispatcher: the plan for the call (plan.c, engine.h),
 * then the kernels it names. The tiled paths run a rung's mainloop on one
 * of the engine's schedules (schedules.cuh) through its kernel table: the
 * plain grid, K in parts (split-K), edge windows, stream-K; the operand
 * copies, the matrix-vector kernels and the sums of parts are the
 * engine's own. Each kernel is launched behind the one before it in the
 * stream (gl_launch_dependent), but a rung's own launch.
 */
#include "engine.h"
#include "pack.h"
#include "variants.h"

namespace {

/* The rung whose mainloop auto's tiled paths run unless the plan names
 * another: the rung whose tuning rows choose auto's tiles (auto's row,
 * rows_of). */
const gl_variant_desc *tiled_rung()
{
    return gl_variant_find((gl_variant_t)gl_variant_find(GL_VARIANT_AUTO)->rows_of);
}

/* Rung `rung`'s kernel on tiles t and schedule s, launched behind the
 * kernel before. */
int launch(const gl_variant_desc *rung, const gl_problem *p, const gl_tile_params *t,
           gl_schedule s, const gl_exec *x)
{
    const gl_tile_kernels *k = gl_kernels_for(rung->kernels, t);
    if (!k)
        return cudaErrorInvalidConfiguration;
    s.dependent = true;
    return k->launch(p, &s, x);
}

gl_schedule parts(gl_copies copies, int count, int part_depth)
{
    gl_schedule s = {};
    s.kind = GL_SCHEDULE_PARTS, s.copies = copies, s.parts = count, s.part_depth = part_depth;
    return s;
}

/* The plan's shares (whole: operands, or their copies, of whole tiles and
 * slices: copies without tests), then C's tiles that shares hold in parts,
 * from their parts in scratch w. */
int run_stream_k(const gl_variant_desc *rung, const gl_problem *p, const gl_engine_plan *plan,
                 float *w, const gl_exec *x)
{
    gl_schedule s = {};
    s.kind = GL_SCHEDULE_STREAM_K;
    s.copies = plan->whole ? GL_COPIES_WHOLE : GL_COPIES_TESTED;
    s.stream_k = plan->stream_k, s.scratch = w;
    const int rc = launch(rung, p, &plan->tiles, s, x);
    return rc ? rc
              : gl_engine_add_shared_tiles(w, &plan->stream_k, plan->tiles.bm, plan->tiles.bn, p,
                                           x);
}

/* The plan's parts' products into scratch w (whole: with copies that test
 * nothing; not aligned: a float per load), then C from their sum. */
int run_split(const gl_variant_desc *rung, const gl_problem *p, const gl_engine_plan *plan,
              float *w, const gl_exec *x)
{
    gl_problem into_w = *p;
    into_w.c = w, into_w.ldc = gl_split_ld(p->n), into_w.alpha = 1.0f, into_w.beta = 0.0f;
    const gl_copies copies = !plan->aligned ? GL_COPIES_SINGLES
                             : plan->whole  ? GL_COPIES_WHOLE
                                            : GL_COPIES_TESTED;
    const int rc =
        launch(rung, &into_w, &plan->tiles, parts(copies, plan->splits, plan->part_depth), x);
    return rc ? rc : gl_engine_add_parts(w, plan->splits, p, x);
}

/* The plan's kernel for problem p (the operands' copies, when it made any;
 * split-K's parts in scratch). */
int run(const gl_problem *p, const gl_engine_plan *plan, void *scratch, const gl_exec *x)
{
    /* a tuned rung's mainloop on the plan's schedule (the tiled rung's, or
     * rung 12's on the same tiles: plan.c, gl_engine_on_ring), or the own launch of a
     * rung with fixed tiles (rung 6's) */
    const gl_variant_desc *rung = gl_variant_find(plan->kernel);
    if (!gl_variant_tuned(rung))
        return rung->launch(p, &plan->tiles, x);
    switch (plan->path) {
    case GL_PATH_SPLIT_K: /* the parts' products in scratch, after any copies */
    case GL_PATH_STREAM_K: {
        float *const w =
            reinterpret_cast<float *>(static_cast<char *>(scratch) + plan->parts_offset);
        return plan->path == GL_PATH_SPLIT_K ? run_split(rung, p, plan, w, x)
                                             : run_stream_k(rung, p, plan, w, x);
    }
    case GL_PATH_EDGE_WINDOWS: {
        gl_schedule windows = {};
        windows.kind = GL_SCHEDULE_WINDOWS, windows.copies = GL_COPIES_TESTED;
        return launch(rung, p, &plan->tiles, windows, x);
    }
    case GL_PATH_INTERIOR:
    case GL_PATH_PACKED: /* whole tiles: copies without tests */
        return launch(rung, p, &plan->tiles, parts(GL_COPIES_WHOLE, 1, 0), x);
    default: /* GL_PATH_EDGE_TESTS: the plain grid with tested copies, or, for an
                operand read a float at a time, the rung's own launch */
        return plan->aligned ? launch(rung, p, &plan->tiles, parts(GL_COPIES_TESTED, 1, 0), x)
                             : rung->launch(p, &plan->tiles, x);
    }
}

/* `bytes` of scratch: the caller's buffer, which the plan fits
 * (gl_engine_plan_within, gl_engine_plan_batch), or memory from the pool
 * in stream order; NULL where the pool has none (not an error: the caller
 * runs its plan without scratch). Given back with give_back_scratch. */
void *take_scratch(size_t bytes, const gl_exec *x)
{
    if (bytes == 0)
        return NULL;
    /* In stream order, as the pool's memory: the kernels before it in the
     * stream (an earlier call's, the rows above this tail's) are done with
     * it before these touch memory (gl_wait_for_previous_grid, or a plain
     * launch's order). */
    if (x->engine->workspace)
        return x->engine->workspace;
    void *scratch = NULL;
    if (cudaMallocFromPoolAsync(&scratch, bytes, x->engine->scratch_pool, x->stream) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return scratch;
}

/* Freed in stream order once the kernels are done. A failure here (none is
 * known on a stream that just took the kernel) leaves the memory to the
 * pool until the handle goes; it must not become the next launch's error. */
void give_back_scratch(void *scratch, const gl_exec *x)
{
    if (scratch && scratch != x->engine->workspace &&
        cudaFreeAsync(scratch, x->stream) != cudaSuccess)
        (void)cudaGetLastError();
}

/* One product on its plan, made with tiles t: scratch from take_scratch,
 * or, where there is none, the plan without scratch. */
int run_product(const gl_problem *p, const gl_tile_params *t, gl_engine_plan *plan,
                const gl_exec *x)
{
    void *const scratch = take_scratch(plan->bytes, x);
    if (plan->bytes > 0 && !scratch) {
        gl_engine_plan_for(p, t, x->engine->tiles_pinned, x->sm_count, false, plan);
        gl_engine_on_ring(plan, x->engine->tiles_pinned, x->code_cc);
    }
    int rc;
    if (plan->path == GL_PATH_GEMV) {
        rc = gl_engine_gemv(&plan->gemv, plan->splits, scratch, x);
    } else {
        gl_problem copied = *p; /* the operands as the kernel reads them */
        rc = gl_engine_copy_operands(&copied, plan, scratch, x);
        if (rc == 0)
            rc = run(&copied, plan, scratch, x);
    }
    give_back_scratch(scratch, x);
    return rc;
}

/* Batch b of products of p on `plan` (GL_BATCH_SPLIT): every product's K
 * in parts on one grid (GL_SCHEDULE_BATCH_PARTS), their products in
 * scratch w (plan->bytes), each product's after the one before, then each
 * C from the sum of its parts. */
int run_batch_split(const gl_problem *p, const gl_batch *b, const gl_engine_batch_plan *plan,
                    float *w, const gl_exec *x)
{
    gl_problem into_w = *p;
    into_w.c = w, into_w.ldc = gl_split_ld(p->n), into_w.alpha = 1.0f, into_w.beta = 0.0f;
    const gl_tile_params *t = &plan->tiles;
    gl_schedule s = parts(gl_copies_for(p, t, b), plan->splits, 0);
    s.kind = GL_SCHEDULE_BATCH_PARTS;
    s.batch = gl_batch_strides{b->a, b->b, (int64_t)plan->splits * p->m * into_w.ldc};
    const int rc = launch(tiled_rung(), &into_w, t, s, x);
    return rc ? rc : gl_engine_add_batch_parts(w, plan->splits, p, b->count, b->c, x);
}

/* One product on its plan, made with the call's tiles (its rows above the
 * grid's last round, then that round's rows, where the plan cuts them). */
int run_call(const gl_problem *p, const gl_tile_params *call_tiles, const gl_exec *x)
{
    gl_engine_plan plan, tail_plan;
    const gl_engine_context *e = x->engine;
    const gl_tile_params *t =
        gl_engine_plan_within(e->plan_memo, p, call_tiles, e->tiles_pinned, x->sm_count,
                              x->code_cc, e->scratch_budget, &plan, &tail_plan);
    if (plan.tail_rows == 0)
        return run_product(p, t, &plan, x);
    /* The rows above the grid's last round, then that round's rows as a
     * product of their own (its A and C start tail_rows from the bottom). */
    gl_problem top, tail;
    gl_engine_cut_rows(p, p->m - plan.tail_rows, &top, &tail);
    if (const int rc = run_product(&top, t, &plan, x))
        return rc;
    return run_product(&tail, gl_engine_tail_tiles(), &tail_plan, x);
}

} // namespace

extern "C" int gl_launch_auto(const gl_problem *p, const gl_tile_params *call_tiles,
                              const gl_exec *x)
{
    const gl_batch *b = gl_exec_batch(x);
    if (!b)
        return run_call(p, call_tiles, x);
    /* A batch (plan.c, gl_engine_plan_batch): one grid of every product's
     * tiles on a rung's batched launch, that grid with K in parts, the
     * matrix-vector kernel over every product, or each product on its own
     * plan. Pointer arrays (gl_sgemm_batched) take the plan made without
     * scratch, and where each product would run on its own (which needs
     * its operands on the host) one grid of the call's tiles. */
    gl_engine_batch_plan plan;
    gl_engine_plan_batch(p, b->count, call_tiles, x->engine->tiles_pinned, x->sm_count,
                         x->code_cc, b->c_ptrs ? 0 : x->engine->scratch_budget, &plan);
    if (plan.mode == GL_BATCH_SPLIT) {
        if (float *const w = static_cast<float *>(take_scratch(plan.bytes, x))) {
            const int rc = run_batch_split(p, b, &plan, w, x);
            give_back_scratch(w, x);
            return rc;
        }
        /* the pool has none: the plan without scratch */
        gl_engine_plan_batch(p, b->count, call_tiles, x->engine->tiles_pinned, x->sm_count,
                             x->code_cc, 0, &plan);
    }
    if (plan.mode == GL_BATCH_GRID)
        return gl_variant_find(plan.kernel)->launch(p, &plan.tiles, x);
    if (plan.mode == GL_BATCH_GEMV) {
        gl_gemv g = plan.gemv;
        const gl_gemv_products products = gl_engine_gemv_products(&g, p, b);
        return gl_engine_gemv_batch(&g, plan.splits, b->count, &products, x);
    }
    if (b->c_ptrs)
        return tiled_rung()->launch(p, call_tiles, x);
    gl_exec one = *x;
    one.batch = NULL;
    for (int64_t i = 0; i < b->count; ++i) {
        gl_problem q = *p;
        q.a += i * b->a, q.b += i * b->b, q.c += i * b->c;
        if (const int rc = run_call(&q, call_tiles, &one))
            return rc;
    }
    return 0;
}

/* auto runs the tiled rung's kernels (and rung 6's and rung 12's, each
 * prepared by its own row): the rung's own preparation covers every
 * schedule. */
extern "C" cudaError_t gl_prepare_auto(void) { return tiled_rung()->prepare(); }
