/*
 * table_format.h - the tuning-table format (table_format.c): size classes,
 * rows and tables, the parser, and the lookup across layered tables. Plain
 * C, no CUDA; the parser fuzzer and the tests build it on its own.
 */
#ifndef GL_TABLE_FORMAT_H
#define GL_TABLE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "variants.h" /* and tile_rules.h */

/* ---- size classes -------------------------------------------------------- */

typedef enum gl_size_class {
    GL_CLASS_SMALL = 0,  /* M * N <= 1536 * 1536 */
    GL_CLASS_MEDIUM = 1, /* M * N <= 3072 * 3072 */
    GL_CLASS_LARGE = 2,
    GL_CLASS_COUNT = 3
} gl_size_class;

gl_size_class gl_size_class_of(int64_t m, int64_t n);
const char *gl_size_class_name(gl_size_class c);

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
#endif /* GL_TABLE_FORMAT_H */
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

#endif /* GL_TABLE_FORMAT_H */
