/*
 * tuning.h - tile configurations and tuning tables, in plain C with no CUDA
 * dependency: the compiled configuration lists, the legality filter, the
 * table parser and the lookup. The library wraps it (tuning_api.c); the
 * parser fuzzer and the tests build it on its own.
 */
#ifndef GL_TUNING_H
#define GL_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmladder.h"
#include "kernels/configs.h"

/* Number of variant ids (the public enum's values are 0 .. GL_VARIANT_LIMIT-1). */
#define GL_VARIANT_LIMIT 9

/* Variant names, indexed by id: the one list of them. */
extern const char *const gl_variant_names[GL_VARIANT_LIMIT];

/* ---- size classes -------------------------------------------------------- */

typedef enum gl_size_class {
    GL_CLASS_SMALL = 0,  /* M * N <= 1536 * 1536 */
    GL_CLASS_MEDIUM = 1, /* M * N <= 3072 * 3072 */
    GL_CLASS_LARGE = 2,
    GL_CLASS_COUNT = 3
} gl_size_class;

gl_size_class gl_size_class_of(int64_t m, int64_t n);
const char *gl_size_class_name(gl_size_class c);

/* ---- compiled configurations (configs.h) --------------------------------- */

/* The configurations compiled for a variant (rungs 6 and 7 share the
 * vectorized kernel's list); fixed rungs run the first. NULL and 0 for
 * cublas and unknown ids. */
const gl_tile_params *gl_configs_of(gl_variant_t v, int *count);

/* Whether *t is one of the configurations compiled for the variant; the
 * number of them in *count. */
bool gl_tiles_compiled(gl_variant_t v, const gl_tile_params *t, int *count);

/* Whether a variant chooses its tiles per device and size (7 and 8). */
int gl_variant_is_tuned(gl_variant_t v);

/* Shared memory per block a configuration needs, in bytes (0 for rungs
 * without tiles). */
size_t gl_tiles_smem(gl_variant_t v, const gl_tile_params *t);

/* ---- the legality filter ------------------------------------------------- */

/* Whether the configuration can be compiled and run for the variant on a
 * device whose blocks may use smem_limit bytes of shared memory: thread count
 * 64..1024 in whole warps, tiles that divide evenly, 16-byte copies that come
 * out in whole rounds, shared memory within the limit, and an estimate of
 * registers within 255. When not, writes the first broken rule to why. */
int gl_tiles_legal(gl_variant_t v, const gl_tile_params *t, size_t smem_limit, char *why,
                   size_t why_size);

/* The registers a thread of the configuration needs, estimated as the
 * kernels' launch bounds do (GL_REGISTER_ESTIMATE in configs.h). Only for
 * configurations whose divisibility rules hold. */
int gl_tiles_registers(gl_variant_t v, const gl_tile_params *t);

/* ---- filling the GPU ----------------------------------------------------- */

/* Blocks of the configuration one SM holds at once on a device whose blocks
 * may use smem_limit bytes of shared memory: what the launch bounds ask of
 * the compiler (65536 registers over the estimate), at most 2048 threads,
 * and the shared memory (1 KB more per block, which the runtime keeps). */
int gl_tiles_resident(gl_variant_t v, const gl_tile_params *t, size_t smem_limit);

/* Rungs 7 and 8: the rung's fill configuration (configs.h), or NULL. */
const gl_tile_params *gl_fill_config(gl_variant_t v);

/* The fill configuration when running it instead of *t on an m x n grid
 * promises at least a quarter less time on a device of `sms` SMs (rounds of
 * resident blocks, counted whole); NULL to keep *t, and always when sms < 1,
 * the variant has no fill configuration, or it is *t. (The fill tiles fit
 * every GPU: their shared memory is under 48 KB, which the tests check.) */
const gl_tile_params *gl_fill_tiles(gl_variant_t v, const gl_tile_params *t, int64_t m,
                                    int64_t n, int sms, size_t smem_limit);

/* The largest shared memory a block may opt into on an architecture
 * (major * 10 + minor; 0 means "any": the smallest of the supported ones). */
size_t gl_arch_smem_limit(int cc);

/* ---- tuning tables ------------------------------------------------------- */

#define GL_TUNING_MAX_BYTES (1 << 20)
#define GL_TUNING_MAX_LINE 1024
#define GL_TUNING_MAX_ROWS 4096

typedef struct gl_tuning_row {
    int arch;                   /* major * 10 + minor, or 0 for "default" */
    gl_variant_t variant;
    gl_size_class size_class;
    gl_tile_params tiles;
    int line;
} gl_tuning_row;

typedef struct gl_tuning_table {
    char name[64]; /* "built-in sm_90.txt", or the file's path (its tail if long) */
    int count;
    gl_tuning_row *rows;
} gl_tuning_table;

/* Text from a table or a path, for a message: printable ASCII as it is,
 * other bytes as \xNN; when that is wider than room characters, only its
 * end (keep_end: a path's file name) or its start, with "..." for the rest.
 * Writes at most size - 1 characters and a NUL; returns how many. */
size_t gl_show_text(char *out, size_t size, const char *text, size_t room, bool keep_end);

/* Writes "<name>:<line>: <reason>" (no ":<line>" when line is 0) to err,
 * shortening the name rather than the line and the reason, which always fit
 * in a buffer of 512 bytes. */
void gl_table_error(char *err, size_t size, const char *name, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Parses and validates a whole table. On success stores a new table in *out
 * (free with gl_tuning_free) and returns GL_STATUS_SUCCESS; otherwise writes
 * "<name>:<line>: <reason>" to err and returns GL_STATUS_TUNING_ERROR (or
 * GL_STATUS_ALLOC_FAILED), leaving *out NULL. */
gl_status_t gl_tuning_parse(const char *text, size_t length, const char *name,
                            gl_tuning_table **out, char *err, size_t err_size);

void gl_tuning_free(gl_tuning_table *t);

/* The row for (cc, variant, class), searching the layers in order (the
 * override first) at each level: the exact architecture, then the nearest
 * one of the same major, then "default". Rows needing more shared memory
 * than smem_limit are passed over. NULL if no row applies. */
const gl_tuning_row *gl_tuning_find(const gl_tuning_table *const *layers, int layer_count,
                                    int cc, gl_variant_t v, gl_size_class c, size_t smem_limit,
                                    int *layer);

#endif
