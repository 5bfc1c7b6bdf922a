/* builtin.h - the shipped tuning tables, compiled into the library
 * (builtin.c is generated from the *.txt files here by embed.py). */
#ifndef GL_TUNING_BUILTIN_H
#define GL_TUNING_BUILTIN_H

typedef struct gl_builtin_table {
    const char *name; /* file name, e.g. "sm_90.txt" */
    const char *text;
} gl_builtin_table;

extern const gl_builtin_table gl_builtin_tables[];
extern const int gl_builtin_table_count;

#endif
