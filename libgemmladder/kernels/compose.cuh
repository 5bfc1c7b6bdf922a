/*
 * compose.cuh - a rung's mainloop made into kernels: the mainloop, run on
 * each of the engine's schedules (engine/schedules.cuh), followed by the
 * one epilogue (epilogue.cuh). A rung file that is a mainloop ends with
 * one GL_RUNG line naming its configurations, and gets:
 *   gl_<name>_kernels   its kernel table (launch.h): per configuration, a
 *                       launcher for any schedule, and its preparation;
 *   gl_launch_<name>    its own launcher: the plain grid;
 *   gl_prepare_<name>   its preparation, once per handle.
 *
 * The contract. A rung describes each configuration as a type R with
 *   R::tiles                       its gl_tile_params;
 *   R::BM, R::BN, R::BK, R::THREADS, R::SMEM (bytes), R::REGISTERS (an
 *                                  estimate per thread, for the launch
 *                                  bounds: GL_REGISTER_ESTIMATE);
 *   R::mainloop<ALIGNED>           ALIGNED: 16-byte copies (else a float
 *                                  per load), with
 *     template <class Schedule> void run(p, wr0, wc0, row0, col0, smem):
 *         the block's accumulators over p's K, for the window of C at
 *         (wr0, wc0) (its own tile at (row0, col0)), asking Schedule how
 *         deep slice 0 is, which slices to test, and what it stores;
 *     template <class F> void for_each_c4(F f) const: the epilogue's view
 *         of the accumulators (epilogue.cuh), valid after run, called by
 *         every thread of the block (a rung may shuffle inside it).
 *   run must leave shared memory free when it returns (its last slice
 *   done, behind a barrier): stream-K runs the next tile in the same
 *   buffers. Edge windows and stream-K run mainloop<true> only (they take
 *   aligned operands, or the plan copies them first).
 * Optionally, the ways besides runs in which the plain grid may write C
 * (gl_c_stores_for): R::STORE_BANDS, the bands of rows the results cut
 * into (gl_banded_epilogue), and R::C4_ROW_LANES, how many neighbouring
 * lanes hold one row's runs side by side (gl_rows_epilogue).
 * Stream-K kernels are compiled for rungs that say R::STREAM_K (rung 8,
 * which auto's stream-K path runs), on the engine's stream-K tiles only
 * (GL_STREAM_K_TILES, engine.h); so are split-K across a batch's, on the
 * fill tiles only (GL_FILL_TILES: at the 128-register cap of rung 8's
 * 128 x 128 tiles the parts' arithmetic spilled on sm_86).
 */
#ifndef GL_COMPOSE_CUH
#define GL_COMPOSE_CUH

#include <cstddef>

#include "epilogue.cuh"
#include "engine/schedules.cuh"

/* What every kernel made from a mainloop is handed: the problem and its
 * schedule, in one struct. (One struct, not two parameters: ptxas assigns
 * the inner product's registers differently with each layout, and with
 * this one the kernels ran as fast as before the contract; with two, the
 * 128 x 128 kernel for whole tiles ran 7% slower on an H200.) */
struct gl_kernel_args {
    gl_problem p;
    gl_schedule s;
};

/* An optional fact of a rung or a schedule: TRAIT<T>::value is T::NAME
 * where T says it, else FALLBACK. */
#define GL_OPTIONAL_FACT(TRAIT, NAME, TYPE, FALLBACK)                                          \
    template <class T, class = void>                                                          \
    struct TRAIT {                                                                            \
        static constexpr TYPE value = FALLBACK;                                               \
    };                                                                                        \
    template <class T>                                                                        \
    struct TRAIT<T, decltype(void(T::NAME))> {                                                \
        static constexpr TYPE value = T::NAME;                                                \
    }

/* Whether a schedule may give a block nothing to do: a part of no rows. */
GL_OPTIONAL_FACT(gl_may_idle, MAY_IDLE, bool, false);
/* The bands a rung's results cut into for gl_banded_epilogue, or 0 where
 * it stores C only from registers. */
GL_OPTIONAL_FACT(gl_store_bands, STORE_BANDS, int, 0);
/* The lanes that hold one row's runs side by side in each call of a rung's
 * for_each_c4, for gl_rows_epilogue, or 0 where they do not lie so. */
GL_OPTIONAL_FACT(gl_c4_row_lanes, C4_ROW_LANES, int, 0);
/* Whether a rung runs stream-K: the engine's stream-K path runs rung 8's
 * kernels, on its stream-K tiles only (engine.h), so those are the kernels
 * compiled. */
GL_OPTIONAL_FACT(gl_stream_k_rung, STREAM_K, bool, false);

/* Whether a rung can write C in a way (gl_c_stores): runs, always; bands
 * where it has them; rows where its lanes lie side by side along a row of C. */
template <class R>
__host__ __device__ constexpr bool gl_has_c_stores(int c_stores)
{
    return c_stores == GL_C_STORES_RUNS ||
           (c_stores == GL_C_STORES_BANDS && gl_store_bands<R>::value > 0) ||
           (c_stores == GL_C_STORES_ROWS && gl_c4_row_lanes<R>::value > 1);
}

/* The grid of tiles: block (x, y, z) owns columns [x*BN, +BN) and rows
 * [y*BM, +BM) of C, on part z of K: its part of the product, its window,
 * the mainloop, the epilogue (C written as C_STORES says). */
template <class R, bool ALIGNED, class Schedule, int C_STORES = GL_C_STORES_RUNS>
__global__ __launch_bounds__(R::THREADS, gl_min_blocks(R::THREADS, R::REGISTERS))
void gl_tile_kernel(const gl_kernel_args args)
{
    extern __shared__ float4 smem[];
    const gl_problem p = Schedule::part(args.p, args.s);
    if constexpr (gl_may_idle<Schedule>::value)
        if (p.m == 0) /* the whole block alike: no barrier is left waiting */
            return;
    const int row0 = blockIdx.y * R::BM, col0 = blockIdx.x * R::BN;
    const int wr0 = Schedule::window(row0, p.m, R::BM), wc0 = Schedule::window(col0, p.n, R::BN);
    static_assert(gl_has_c_stores<R>(C_STORES), "the rung writes C this way");
    typename R::template mainloop<ALIGNED> m;
    m.template run<Schedule>(p, wr0, wc0, row0, col0, reinterpret_cast<float *>(smem));
    if constexpr (C_STORES == GL_C_STORES_BANDS) {
        constexpr int BANDS = gl_store_bands<R>::value;
        static_assert(4 * (R::BM / BANDS) * (R::BN + 16) <= R::SMEM,
                      "a band of C fits in the mainloop's shared memory");
        gl_banded_epilogue<Schedule, BANDS, R::BM, R::BN, R::THREADS>(
            p, m, wr0, wc0, row0, col0, reinterpret_cast<float *>(smem));
    } else if constexpr (C_STORES == GL_C_STORES_ROWS) {
        gl_rows_epilogue<Schedule, gl_c4_row_lanes<R>::value>(p, m, wr0, wc0, row0, col0);
    } else {
        gl_epilogue<Schedule>(p, m, wr0, wc0, row0, col0);
    }
}

/* The blocks an SM holds, asked of the compiler for the stream-K kernel:
 * as for the grid, but one where the code is for GPUs before sm_90, on
 * which the loop around the tile spilled registers at two (auto plans
 * stream-K only from sm_90, where it is measured; such code runs there only
 * from a build that carries no sm_90 code, and is then right, at half the
 * blocks). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GL_STREAM_K_BLOCKS(THREADS, REGISTERS) 1
#else
#define GL_STREAM_K_BLOCKS(THREADS, REGISTERS) gl_min_blocks(THREADS, REGISTERS)
#endif

/* Stream-K: each block its tiles and share (schedules.cuh), aligned
 * operands (those read a float per load are copied first: looped so, the
 * copies spilled registers), tested or of whole tiles. */
template <class R, bool TESTED>
__global__ __launch_bounds__(R::THREADS, GL_STREAM_K_BLOCKS(R::THREADS, R::REGISTERS))
void gl_stream_k_kernel(const gl_kernel_args args)
{
    extern __shared__ float4 smem[];
    float *const buffers = reinterpret_cast<float *>(smem);
    gl_stream_k_tiles<R::BM, R::BN, R::BK>(args.p, args.s, [&](const gl_problem &q) {
        typename R::template mainloop<true> m;
        m.template run<gl_tile_schedule<TESTED>>(q, 0, 0, 0, 0, buffers);
        gl_epilogue<gl_tile_schedule<TESTED>>(q, m, 0, 0, 0, 0);
    });
}

typedef void (*gl_kernel_fn)(const gl_kernel_args);

template <class R>
constexpr bool gl_runs_stream_k()
{
    constexpr gl_tile_params t = GL_STREAM_K_TILES;
    return gl_stream_k_rung<R>::value && gl_tile_params_equal(&t, &R::tiles);
}

template <class R>
constexpr bool gl_runs_batch_parts()
{
    constexpr gl_tile_params t = GL_FILL_TILES;
    return gl_stream_k_rung<R>::value && gl_tile_params_equal(&t, &R::tiles);
}

/* The kernel for a schedule and copies (C written in bands or rows, not
 * runs: c_stores, on the plain grid with single-float copies, where the
 * rung can), or NULL where none is compiled. */
template <class R>
gl_kernel_fn gl_kernel_for(gl_schedule_kind kind, gl_copies copies, int c_stores)
{
    switch (kind) {
    case GL_SCHEDULE_PARTS:
        if (copies == GL_COPIES_SINGLES) {
            if constexpr (gl_has_c_stores<R>(GL_C_STORES_BANDS))
                if (c_stores == GL_C_STORES_BANDS)
                    return gl_tile_kernel<R, false, gl_parts_schedule<true>, GL_C_STORES_BANDS>;
            if constexpr (gl_has_c_stores<R>(GL_C_STORES_ROWS))
                if (c_stores == GL_C_STORES_ROWS)
                    return gl_tile_kernel<R, false, gl_parts_schedule<true>, GL_C_STORES_ROWS>;
        }
        return copies == GL_COPIES_WHOLE    ? gl_tile_kernel<R, true, gl_parts_schedule<false>>
               : copies == GL_COPIES_TESTED ? gl_tile_kernel<R, true, gl_parts_schedule<true>>
                                            : gl_tile_kernel<R, false, gl_parts_schedule<true>>;
    case GL_SCHEDULE_WINDOWS:
        return copies == GL_COPIES_SINGLES ? nullptr
                                           : gl_tile_kernel<R, true, gl_windows_schedule>;
    case GL_SCHEDULE_BATCH:
        return copies == GL_COPIES_WHOLE    ? gl_tile_kernel<R, true, gl_batch_schedule<false>>
               : copies == GL_COPIES_TESTED ? gl_tile_kernel<R, true, gl_batch_schedule<true>>
                                            : gl_tile_kernel<R, false, gl_batch_schedule<true>>;
    case GL_SCHEDULE_POINTERS: /* the 16-byte kernels, and the one of a float per load */
        return copies == GL_COPIES_WHOLE ? gl_tile_kernel<R, true, gl_pointers_schedule<false, true>>
               : copies == GL_COPIES_TESTED
                   ? gl_tile_kernel<R, true, gl_pointers_schedule<true, true>>
                   : gl_tile_kernel<R, false, gl_pointers_schedule<true, false>>;
    case GL_SCHEDULE_BATCH_PARTS:
        if constexpr (gl_runs_batch_parts<R>())
            return copies == GL_COPIES_WHOLE ? gl_tile_kernel<R, true, gl_batch_parts_schedule<false>>
                   : copies == GL_COPIES_TESTED
                       ? gl_tile_kernel<R, true, gl_batch_parts_schedule<true>>
                       : gl_tile_kernel<R, false, gl_batch_parts_schedule<true>>;
        return nullptr;
    case GL_SCHEDULE_STREAM_K:
        if constexpr (gl_runs_stream_k<R>())
            return copies == GL_COPIES_WHOLE    ? gl_stream_k_kernel<R, false>
                   : copies == GL_COPIES_TESTED ? gl_stream_k_kernel<R, true>
                                                : nullptr;
        return nullptr;
    }
    return nullptr;
}

template <class R>
int gl_launch_scheduled(const gl_problem *p, const gl_schedule *s, const gl_exec *x)
{
    const gl_kernel_fn kernel = gl_kernel_for<R>(s->kind, s->copies, s->c_stores);
    if (!kernel)
        return cudaErrorInvalidConfiguration; /* the plan only asks for compiled kernels */
    dim3 grid = gl_tile_grid(p, R::BM, R::BN);
    if (s->kind == GL_SCHEDULE_BATCH || s->kind == GL_SCHEDULE_POINTERS ||
        s->kind == GL_SCHEDULE_BATCH_PARTS) {
        /* up to GL_GRID_YZ_MAX products (or products' parts of K) a launch */
        const int64_t count = x->batch ? x->batch->count : 1;
        const int parts = s->kind == GL_SCHEDULE_BATCH_PARTS ? s->parts : 1;
        const int64_t per_launch = GL_GRID_YZ_MAX / parts;
        for (int64_t first = 0; first < count; first += per_launch) {
            gl_kernel_args args = {*p, *s};
            if (s->kind == GL_SCHEDULE_POINTERS) {
                args.s.pointers.a += first, args.s.pointers.b += first;
                args.s.pointers.c += first;
            } else {
                args.p.a += first * s->batch.a, args.p.b += first * s->batch.b;
                args.p.c += first * s->batch.c;
            }
            grid.z = (unsigned)((count - first < per_launch ? count - first : per_launch) * parts);
            /* Behind the kernel before only where the grid cannot finish
             * before it (K's parts across a batch, whose blocks all wait; the
             * second kernel of pointer arrays, whose first block waits); the
             * others launch in stream order. */
            const bool waits = s->kind == GL_SCHEDULE_BATCH_PARTS ||
                               (s->kind == GL_SCHEDULE_POINTERS && s->copies == GL_COPIES_SINGLES);
            if (s->dependent && waits) {
                if (const cudaError_t err =
                        gl_launch_dependent(kernel, grid, R::THREADS, R::SMEM, x, args))
                    return err;
                continue;
            }
            kernel<<<grid, R::THREADS, R::SMEM, x->stream>>>(args);
            if (const cudaError_t err = cudaGetLastError())
                return err;
        }
        return cudaSuccess;
    }
    if (s->kind == GL_SCHEDULE_PARTS)
        grid.z = (unsigned)s->parts;
    if (s->kind == GL_SCHEDULE_STREAM_K)
        grid = dim3((unsigned)s->stream_k.shares);
    const gl_kernel_args args = {*p, *s};
    if (s->dependent)
        return gl_launch_dependent(kernel, grid, R::THREADS, R::SMEM, x, args);
    kernel<<<grid, R::THREADS, R::SMEM, x->stream>>>(args);
    return cudaGetLastError();
}

template <class R>
cudaError_t gl_prepare_scheduled()
{
    for (const gl_schedule_kind kind :
         {GL_SCHEDULE_PARTS, GL_SCHEDULE_WINDOWS, GL_SCHEDULE_STREAM_K, GL_SCHEDULE_BATCH,
          GL_SCHEDULE_POINTERS, GL_SCHEDULE_BATCH_PARTS})
        for (const gl_copies copies : {GL_COPIES_WHOLE, GL_COPIES_TESTED, GL_COPIES_SINGLES})
            for (const int c_stores : {GL_C_STORES_RUNS, GL_C_STORES_BANDS, GL_C_STORES_ROWS})
                if (gl_has_c_stores<R>(c_stores)) /* else the runs kernel again */
                    if (const gl_kernel_fn kernel = gl_kernel_for<R>(kind, copies, c_stores))
                        if (const cudaError_t err = gl_allow_shared_memory(kernel, R::SMEM))
                            return err;
    return cudaSuccess;
}

/*
 * How the plain grid writes C (gl_c_stores; a rung that cannot write it
 * so writes runs). Runs, unless C's rows are off 16 bytes and K is so
 * short that storing C is much of a block's time; then, on a grid of more
 * blocks than SMs but at most ten for each, whose stores queue with little
 * math of other blocks to cover them, in bands through shared memory
 * (gl_banded_epilogue); on more blocks, whose bands' barriers cost more
 * than they save, in rows of aligned float4s (gl_rows_epilogue); on one
 * block an SM or none, where a band is the block's wait, in runs
 * (docs/ladder.md, rung 6).
 */
static inline gl_c_stores gl_c_stores_for(const gl_problem *p, const gl_tile_params *t,
                                          const gl_exec *x)
{
    const int64_t blocks = (int64_t)gl_ceil_div(p->m, t->bm) * gl_ceil_div(p->n, t->bn);
    if (gl_vec4_ok(p->c, p->ldc) || p->k > 96 || blocks <= x->sm_count)
        return GL_C_STORES_RUNS;
    return blocks <= 10 * (int64_t)x->sm_count ? GL_C_STORES_BANDS : GL_C_STORES_ROWS;
}

/* A rung's own launch: the plain grid, with the copies its operands allow;
 * for a batch (gl_exec.batch), the batch's grid, 16-byte copies where every
 * product's operands allow them; for pointer arrays, whose entries only the
 * blocks see, the 16-byte kernel where the leading dimensions and extents
 * allow it, then the kernel of a float per load for the products whose
 * entries are not aligned (schedules.cuh, gl_pointers_schedule). */
static inline int gl_launch_plain(const gl_kernel_table *table, const gl_problem *p,
                                  const gl_tile_params *t, const gl_exec *x)
{
    static_assert(sizeof(gl_batch_strides) <= sizeof(gl_stream_k) &&
                      sizeof(gl_batch_pointers) <= sizeof(gl_stream_k),
                  "the batch's strides and arrays share the stream-K shares' place in "
                  "gl_schedule");
    static_assert(offsetof(gl_schedule, first_row) + sizeof(int) <= offsetof(gl_schedule, stream_k),
                  "first_row sits in the padding before the union: gl_schedule keeps its size");
    const gl_tile_kernels *k = gl_kernels_for(table, t);
    if (!k)
        return cudaErrorInvalidConfiguration; /* the dispatcher only passes compiled tiles */
    const gl_batch *b = gl_exec_batch(x);
    const bool pointers = b && b->c_ptrs;
    /* Pointer arrays: p has no operands (NULL, which gl_vec4_ok takes as
     * aligned), so this asks only whether lda, ldb and the extents allow
     * 16-byte copies; the blocks ask the entries. */
    gl_schedule s = {};
    s.kind = !b ? GL_SCHEDULE_PARTS : pointers ? GL_SCHEDULE_POINTERS : GL_SCHEDULE_BATCH;
    s.copies = gl_copies_for(p, t, b);
    const bool aligned = s.copies != GL_COPIES_SINGLES;
    s.parts = 1;
    s.c_stores = (unsigned char)(!b && !aligned ? gl_c_stores_for(p, t, x) : GL_C_STORES_RUNS);
    if (pointers) {
        s.pointers = gl_batch_pointers{b->a_ptrs, b->b_ptrs, b->c_ptrs};
        s.first_row = (int)b->row0;
        if (aligned) { /* the products whose entries allow 16-byte copies, then the rest,
                          set up while the first's last blocks run (schedules.cuh) */
            if (const int rc = k->launch(p, &s, x))
                return rc;
            s.copies = GL_COPIES_SINGLES;
            s.dependent = true;
        }
    } else if (b) {
        s.batch = gl_batch_strides{b->a, b->b, b->c};
    }
    return k->launch(p, &s, x);
}

static inline cudaError_t gl_prepare_table(const gl_kernel_table *table)
{
    for (int i = 0; i < table->count; ++i)
        if (const cudaError_t err = table->entries[i].prepare())
            return err;
    return cudaSuccess;
}

/* One configuration's entry in its rung's table. */
#define GL_TILE_KERNELS(...) {__VA_ARGS__::tiles, gl_launch_scheduled<__VA_ARGS__>, \
                              gl_prepare_scheduled<__VA_ARGS__>},

/* The rung's table, launcher and preparation, from its entries. */
#define GL_RUNG(name, ...)                                                                      \
    namespace {                                                                                 \
    const gl_tile_kernels name##_entries[] = {__VA_ARGS__};                                     \
    }                                                                                           \
    extern "C" const gl_kernel_table gl_##name##_kernels = {                                    \
        name##_entries, (int)(sizeof name##_entries / sizeof name##_entries[0])};               \
    extern "C" int gl_launch_##name(const gl_problem *p, const gl_tile_params *t,               \
                                    const gl_exec *x)                                           \
    {                                                                                           \
        return gl_launch_plain(&gl_##name##_kernels, p, t, x);                                  \
    }                                                                                           \
    extern "C" cudaError_t gl_prepare_##name(void) { return gl_prepare_table(&gl_##name##_kernels); }

#endif /* GL_COMPOSE_CUH */
