/*
 * tile_rules.h - what tile parameters are and what a kernel can run with
 * (tile_rules.c): the fields tiles can have, each variant's tile schema
 * (its fields with their legal ranges, its legality rule, its shared-memory
 * and register model), and what they cost it. Plain C, no CUDA.
 */
#ifndef GL_TILE_RULES_H
#define GL_TILE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/configs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gl_variant_desc;

/* ---- fields -------------------------------------------------------------- */

/* Every field any variant's tiles have. A new field is a member of
 * gl_tile_params (configs.h, and gl_tile_params_equal), an id here and a
 * line in gl_tile_fields (tile_rules.c) with a word of gl_tiles.reserved of
 * its own; the tables, gl_tiles_get/set, gl_set_tiles, the queries and the
 * Python binding then carry it by name. */
typedef enum gl_tile_field_id {
    GL_FIELD_BM,
    GL_FIELD_BN,
    GL_FIELD_BK,
    GL_FIELD_TM,
    GL_FIELD_TN,
    GL_FIELD_WM,
    GL_FIELD_WN,
    GL_FIELD_WNITER,
    GL_FIELD_THREADS,
    GL_FIELD_STAGES,
    GL_FIELD_COUNT
} gl_tile_field_id;

typedef struct gl_tile_field {
    const char *name;    /* as tables, gl_tiles_get/set and messages write it */
    size_t in_params;    /* its offset in gl_tile_params */
    size_t in_tiles;     /* its offset in the public gl_tiles: a member of the 1.0
                            struct, or a word of reserved that no other field has */
} gl_tile_field;

extern const gl_tile_field gl_tile_fields[GL_FIELD_COUNT];

/* The field named `name`, or -1. */
int gl_tile_field_find(const char *name);

/* "bm, bn, bk, ...": every field's name, for messages. */
void gl_tile_field_names(char *out, size_t size);

/* "bm=128 bn=128 bk=16 ...": every field of t, for messages. */
void gl_tile_params_text(const gl_tile_params *t, char *out, size_t size);

static inline int gl_tile_value(const gl_tile_params *t, gl_tile_field_id f)
{
    return *(const int *)((const char *)t + gl_tile_fields[f].in_params);
}

static inline void gl_tile_set_value(gl_tile_params *t, gl_tile_field_id f, int value)
{
    *(int *)((char *)t + gl_tile_fields[f].in_params) = value;
}

/* ---- schemas ------------------------------------------------------------- */

/* One field of a schema and the values it may take. */
typedef struct gl_tile_range {
    gl_tile_field_id field;
    int min, max;
    const char *derived; /* NULL, or how it follows from the others (the schema's derive
                            sets it): "bm*bn/(tm*tn)"; a table may leave it out */
    int unset;           /* what a configuration that leaves it 0 (a table row
                            without it, a caller's gl_tiles from before the field)
                            runs with; 0: it must be given */
} gl_tile_range;

/* What a kind of tiles is: a variant's row points at one. A new kind of
 * tiles is a new schema in tile_rules.c, named by its rows. */
typedef struct gl_tile_schema {
    const char *name;   /* what the tiles are, for messages: "warp tiles" */
    int field_count;
    gl_tile_range fields[GL_FIELD_COUNT]; /* its fields, in the order tables write
                                             them; the others must be 0 */
    bool vector_loads;  /* its kernel copies operands 16 bytes at a time where
                           they are aligned (gl_plan.aligned) */
    /* Sets the derived fields from the others; NULL: none. */
    void (*derive)(gl_tile_params *t);
    /* The rule beyond the ranges, shared memory and registers:
     * 1 if t keeps it, else 0 with the broken rule in why. Called with every
     * field in its range. NULL: the tiles are written into the kernel's file,
     * and no others can be chosen. */
    int (*rule)(const gl_tile_params *t, char *why, size_t why_size);
    /* Shared memory a block needs, in bytes. */
    size_t (*smem)(const gl_tile_params *t);
    /* Static shared memory (declared in the kernel): at most 48 KB, whatever
     * the device allows. */
    bool static_smem;
    /* Registers a thread needs, estimated as the kernels' launch bounds do
     * (GL_REGISTER_ESTIMATE in configs.h); only for tiles the rule accepts.
     * NULL: not modelled (rungs 1-3). */
    int (*registers)(const gl_tile_params *t);
} gl_tile_schema;

/* Sets the fields of t that its schema gives a value for when unset
 * (gl_tile_range.unset) and that are 0. */
void gl_tiles_fill_unset(const gl_tile_schema *s, gl_tile_params *t);

/* The schema's range for field f, or NULL where its tiles have no such field. */
const gl_tile_range *gl_tile_range_of(const gl_tile_schema *s, gl_tile_field_id f);

/* The schemas of today's rungs, in ladder order; the rows name them. */
extern const gl_tile_schema gl_schema_element;    /* one thread per element (rungs 1-2) */
extern const gl_tile_schema gl_schema_shared;     /* 32 x 32 slices in shared memory (rung 3) */
extern const gl_tile_schema gl_schema_column;     /* a TM x 1 column per thread (rung 4) */
extern const gl_tile_schema gl_schema_patch;      /* a TM x TN patch per thread (rung 5) */
extern const gl_tile_schema gl_schema_vectorized; /* float4 copies, k-major slices (rungs 6-7) */
extern const gl_tile_schema gl_schema_warptile;   /* warp tiles, two slices (rung 8, auto) */
extern const gl_tile_schema gl_schema_mma;        /* warp tiles of mma.sync products (rung 10) */
extern const gl_tile_schema gl_schema_pipelined; /* warp tiles, a ring of slices (rung 12) */

/* ---- rules and costs ----------------------------------------------------- */

/* Whether *t is one of the configurations compiled for the variant; the
 * number of them in *count. */
bool gl_tiles_compiled(const struct gl_variant_desc *d, const gl_tile_params *t, int *count);

/* Shared memory per block a kernel of this schema needs, in bytes (0 for no
 * schema). */
size_t gl_tiles_smem(const gl_tile_schema *s, const gl_tile_params *t);

/* Whether a kernel of this schema can be compiled and run with the tiles on
 * a device whose blocks may use smem_limit bytes of shared memory: every
 * field of the schema in its range and the others 0, the schema's rule, shared memory within the limit, and an estimate of
 * registers within 255. When not, writes the first broken rule to why.
 * Safe for any field values; s NULL (no tiles) is never legal. */
int gl_tiles_legal(const gl_tile_schema *s, const gl_tile_params *t, size_t smem_limit,
                   char *why, size_t why_size);

/* The registers a thread needs (the schema's estimate; 0 where it has
 * none). Only for tiles the rule accepts. */
int gl_tiles_registers(const gl_tile_schema *s, const gl_tile_params *t);

/* Blocks one SM holds at once on a device whose blocks may use smem_limit
 * bytes of shared memory: what the launch bounds ask of the compiler (65536
 * registers over the estimate), at most 2048 threads, and the shared memory
 * (1 KB more per block, which the runtime keeps). */
int gl_tiles_resident(const gl_tile_schema *s, const gl_tile_params *t, size_t smem_limit);

/* How long a round of `blocks` blocks of `warps` warps each takes an SM,
 * in tiles' work at full speed (tile_rules.c: the model). */
double gl_round_work(int64_t blocks, int64_t warps);

/* How long a grid of `blocks` blocks of tiles t, each `depth` deep in K,
 * takes on `sms` SMs that hold `resident` at once, in units of one element
 * of C times one k on one SM: the one model of how a grid fills the GPU,
 * for the fill tiles and the engine's plan. */
double gl_grid_time(const gl_tile_params *t, int64_t blocks, int64_t resident, int sms,
                    int64_t depth);

/* The variant's fill tiles when running them instead of *t on an m x n grid
 * promises less time on a device of `sms` SMs (gl_grid_time, with a
 * margin); NULL to keep *t, and always when sms < 1, the variant has no
 * fill tiles, or they are *t. (Fill tiles fit every GPU: their shared
 * memory is under 48 KB, which the tests check.) */
const gl_tile_params *gl_fill_tiles(const struct gl_variant_desc *d, const gl_tile_params *t,
                                    int64_t m, int64_t n, int sms, size_t smem_limit);

/* The largest shared memory a block may opt into on an architecture
 * (major * 10 + minor; 0 means "any": the smallest of the supported ones). */
size_t gl_arch_smem_limit(int cc);


#ifdef __cplusplus
}
#endif

#endif /* GL_TILE_RULES_H */
