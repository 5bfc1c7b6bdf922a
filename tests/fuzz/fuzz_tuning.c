/*
 * fuzz_tuning.c - libFuzzer target for the tuning-table parser. Any input
 * must either be rejected with a message naming the table, or give a table
 * whose every row is legal, compiled and unique; never a crash, a leak or
 * undefined behaviour (built with ASan and UBSan).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "table_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gl_tuning_table *t = NULL;
    char err[512];
    err[0] = '\0';
    const gl_status_t st = gl_tuning_parse((const char *)data, size, "fuzz", &t, err, sizeof err);
    if (st != GL_STATUS_SUCCESS) {
        if (t || strncmp(err, "fuzz", 4) != 0)
            __builtin_trap(); /* a rejection leaves no table and names the table */
        return 0;
    }
    for (int i = 0; i < t->count; ++i) {
        const gl_tuning_row *r = &t->rows[i];
        char why[256];
        const gl_variant_desc *d = gl_variant_find(r->variant);
        int count = 0;
        if (!d || !gl_variant_takes_rows(d) ||
            !gl_tiles_legal(d->schema, &r->tiles, gl_arch_smem_limit(r->arch), why, sizeof why) ||
            !gl_tiles_compiled(d, &r->tiles, &count))
            __builtin_trap();
        for (int j = 0; j < i; ++j)
            if (t->rows[j].arch == r->arch && t->rows[j].variant == r->variant &&
                t->rows[j].size_class == r->size_class)
                __builtin_trap();
    }
    gl_tuning_free(t);
    return 0;
}
