/*
 * table_format.c - the tuning-table format: parsing (strict: any error
 * rejects the whole table, with its line and reason), size classes, and the
 * lookup of a row across layered tables. Plain C, no CUDA.
 */
#include "table_format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- size classes -------------------------------------------------------- */

static const char *const class_names[GL_CLASS_COUNT] = {"small", "medium", "large"};

gl_size_class gl_size_class_of(int64_t m, int64_t n)
{
    const double mn = (double)m * (double)n;
    if (mn <= 1536.0 * 1536.0)
        return GL_CLASS_SMALL;
    if (mn <= 3072.0 * 3072.0)
        return GL_CLASS_MEDIUM;
    return GL_CLASS_LARGE;
}

const char *gl_size_class_name(gl_size_class c)
{
    return (unsigned)c < GL_CLASS_COUNT ? class_names[c] : "";
}

/* ---- text for messages ---------------------------------------------------- */

/* Bytes a message shows as they are: printable ASCII. Anything else (control
 * characters such as ESC or CR, bytes of other encodings) is shown as \xNN,
 * so a message never carries terminal escapes from a file or a path. */
static size_t shown_width(unsigned char c) { return c >= 0x20 && c < 0x7f ? 1 : 4; }

size_t gl_show_text(char *out, size_t size, const char *s, size_t room, bool keep_end)
{
    if (size == 0)
        return 0;
    if (room > size - 1)
        room = size - 1;
    const size_t len = strlen(s);
    size_t total = 0;
    for (size_t i = 0; i < len; ++i)
        total += shown_width((unsigned char)s[i]);
    /* Too long: keep the end (a path's file name) or the start (a word),
     * whichever says more, with "..." for what is left out. */
    size_t from = 0, to = len;
    const bool cut = total > room && room >= 4;
    if (cut) {
        size_t w = 3;
        if (keep_end) {
            from = len;
            while (from > 0 && w + shown_width((unsigned char)s[from - 1]) <= room)
                w += shown_width((unsigned char)s[--from]);
        } else {
            to = 0;
            while (to < len && w + shown_width((unsigned char)s[to]) <= room)
                w += shown_width((unsigned char)s[to++]);
        }
    }
    size_t n = 0;
    if (cut && keep_end)
        n += (size_t)snprintf(out, size, "...");
    for (size_t i = from; i < to && n + shown_width((unsigned char)s[i]) < size; ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (shown_width(c) == 1)
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "\\x%02X", c);
    }
    if (cut && !keep_end && n + 3 < size)
        n += (size_t)snprintf(out + n, size - n, "...");
    out[n] = '\0';
    return n;
}

void gl_table_error(char *err, size_t size, const char *name, int line, const char *fmt, ...)
{
    if (!err || size == 0)
        return;
    char reason[320], where[24] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(where, sizeof where, ":%d", line);
    /* The line and the reason always fit; the name gets what is left
     * (at least its last 24 characters). */
    const size_t fixed = strlen(where) + 2 + strlen(reason) + 1;
    const size_t room = size > fixed + 24 ? size - fixed : 24;
    char shown[512];
    gl_show_text(shown, sizeof shown, name, room, true);
    snprintf(err, size, "%s%s: %s", shown, where, reason);
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct parser {
    const char *name;
    char *err;
    size_t err_size;
    int line;
    char shown[64]; /* the file's text named by the message being written */
} parser;

#define parse_error(p, ...) \
    (gl_table_error((p)->err, (p)->err_size, (p)->name, (p)->line, __VA_ARGS__), \
     GL_STATUS_TUNING_ERROR)

/* Text from the table, for a message: escaped, and at most 40 characters. */
static const char *show(parser *p, const char *text)
{
    gl_show_text(p->shown, sizeof p->shown, text, 40, false);
    return p->shown;
}

/* "sm_90" -> 90, "sm_100" -> 100, "default" -> 0; -1 if neither. */
static int parse_arch(const char *s)
{
    if (strcmp(s, "default") == 0)
        return 0;
    if (strncmp(s, "sm_", 3) != 0)
        return -1;
    const char *d = s + 3;
    const size_t len = strlen(d);
    if (len < 2 || len > 3 || d[0] == '0')
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; ++i) {
        if (d[i] < '0' || d[i] > '9')
            return -1;
        v = v * 10 + (d[i] - '0');
    }
    const int major = v / 10;
    return major >= 5 && major <= 15 ? v : -1;
}

static int parse_number(const char *s, int *out)
{
    if (!*s || strlen(s) > 4)
        return 0;
    int v = 0;
    for (; *s; ++s) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
    }
    if (v < 1 || v > 4096)
        return 0;
    *out = v;
    return 1;
}

#define MAX_FIELDS 16

/* Splits a line in place into fields separated by blanks (reentrant, unlike
 * strtok). Returns how many, or -1 for more than max. */
static int split_fields(char *line, char **field, int max)
{
    int n = 0;
    for (char *s = line;;) {
        while (*s == ' ' || *s == '\t' || *s == '\v' || *s == '\f')
            ++s;
        if (!*s)
            return n;
        if (n == max)
            return -1;
        field[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\v' && *s != '\f')
            ++s;
        if (*s)
            *s++ = '\0';
    }
}

static gl_status_t parse_row(parser *p, char **field, int fields, gl_tuning_row *row)
{
    if (fields < 3)
        return parse_error(p, "a row needs an architecture, a variant and a size class, "
                              "then key=value tile parameters");
    row->arch = parse_arch(field[0]);
    if (row->arch < 0)
        return parse_error(p, "unknown architecture '%s' (want sm_XY, such as sm_90, or default)",
                           show(p, field[0]));
    const gl_variant_desc *d = gl_variant_with_rows(field[1]);
    if (!d) {
        char tuned[96];
        gl_variants_with_rows(tuned, sizeof tuned);
        for (int v = 0; v < gl_variant_count(); ++v)
            if (strcmp(field[1], gl_variant_find((gl_variant_t)v)->name) == 0)
                return parse_error(p, "variant '%s' takes no rows of its own; only %s do",
                                   field[1], tuned);
        return parse_error(p, "unknown variant '%s'", show(p, field[1]));
    }
    row->variant = d->id;
    int c = 0;
    while (c < GL_CLASS_COUNT && strcmp(field[2], class_names[c]) != 0)
        ++c;
    if (c == GL_CLASS_COUNT)
        return parse_error(p, "unknown size class '%s' (small, medium or large)",
                           show(p, field[2]));
    row->size_class = (gl_size_class)c;

    /* key=value pairs: the fields of the variant's tiles (tile_rules.c). */
    const gl_tile_schema *schema = d->schema;
    int value[GL_FIELD_COUNT] = {0};
    for (int f = 3; f < fields; ++f) {
        char *eq = strchr(field[f], '=');
        if (!eq)
            return parse_error(p, "expected key=value, got '%s'", show(p, field[f]));
        *eq = '\0';
        const int k = gl_tile_field_find(field[f]);
        if (k < 0) {
            char known[160];
            gl_tile_field_names(known, sizeof known);
            return parse_error(p, "unknown key '%s' (%s)", show(p, field[f]), known);
        }
        if (value[k])
            return parse_error(p, "key '%s' is given twice", field[f]);
        if (!parse_number(eq + 1, &value[k]))
            return parse_error(p, "bad value '%s' for %s (want an integer from 1 to 4096)",
                               show(p, eq + 1), field[f]);
    }
    gl_tile_params *t = &row->tiles;
    *t = (gl_tile_params){0};
    for (int k = 0; k < GL_FIELD_COUNT; ++k) {
        const gl_tile_range *r = gl_tile_range_of(schema, (gl_tile_field_id)k);
        if (r && !r->derived && !r->unset && !value[k])
            return parse_error(p, "missing key '%s' for %s", gl_tile_fields[k].name, field[1]);
        if (!r && value[k])
            return parse_error(p, "key '%s' does not apply to %s", gl_tile_fields[k].name,
                               field[1]);
        gl_tile_set_value(t, (gl_tile_field_id)k, value[k]);
    }
    gl_tiles_fill_unset(schema, t);
    if (schema->derive) { /* fields that follow from the others: given, they must agree */
        gl_tile_params derived = *t;
        schema->derive(&derived);
        for (int i = 0; i < schema->field_count; ++i) {
            const gl_tile_field_id k = schema->fields[i].field;
            const int want = gl_tile_value(&derived, k);
            if (schema->fields[i].derived && value[k] && value[k] != want)
                return parse_error(p, "%s=%d, but %s = %d", gl_tile_fields[k].name, value[k],
                                   schema->fields[i].derived, want);
        }
        *t = derived;
    }

    char why[256];
    if (!gl_tiles_legal(schema, t, gl_arch_smem_limit(row->arch), why, sizeof why))
        return parse_error(p, "illegal %s configuration: %s", field[1], why);
    int count = 0;
    if (!gl_tiles_compiled(d, t, &count))
        return parse_error(p, "this %s configuration is legal but not compiled into the "
                              "library (it builds the %d listed in kernels/configs.h)",
                           field[1], count);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_parse(const char *text, size_t length, const char *name,
                            gl_tuning_table **out, char *err, size_t err_size)
{
    *out = NULL;
    parser p = {name, err, err_size, 0, ""};
    if (length > GL_TUNING_MAX_BYTES)
        return parse_error(&p, "a table may be at most %d bytes", GL_TUNING_MAX_BYTES);

    gl_tuning_table *t = calloc(1, sizeof *t);
    if (!t) {
        gl_table_error(err, err_size, name, 0, "out of memory");
        return GL_STATUS_ALLOC_FAILED;
    }
    gl_show_text(t->name, sizeof t->name, name, sizeof t->name - 1, true);

    gl_status_t st = GL_STATUS_SUCCESS;
    int saw_format = 0, capacity = 0;
    char line[GL_TUNING_MAX_LINE + 1];
    /* A UTF-8 byte-order mark, which some editors write, is skipped. */
    const size_t bom = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (size_t pos = bom; pos < length && st == GL_STATUS_SUCCESS;) {
        ++p.line;
        size_t end = pos;
        while (end < length && text[end] != '\n')
            ++end;
        size_t len = end - pos;
        if (len > 0 && text[pos + len - 1] == '\r')
            --len;
        if (len > GL_TUNING_MAX_LINE) {
            st = parse_error(&p, "line is longer than %d characters", GL_TUNING_MAX_LINE);
            break;
        }
        if (memchr(text + pos, '\0', len)) {
            st = parse_error(&p, "line contains a NUL byte");
            break;
        }
        memcpy(line, text + pos, len);
        line[len] = '\0';
        pos = end + 1;

        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *field[MAX_FIELDS];
        const int fields = split_fields(line, field, MAX_FIELDS);
        if (fields < 0) {
            st = parse_error(&p, "more than %d fields", MAX_FIELDS);
            break;
        }
        if (fields == 0)
            continue;

        if (!saw_format) {
            if (strcmp(field[0], "gemmladder-tuning") != 0)
                st = parse_error(&p, "expected the format line 'gemmladder-tuning 1' before "
                                     "any row, found '%s'", show(&p, field[0]));
            else if (fields < 2)
                st = parse_error(&p, "the format line names no version (want "
                                     "'gemmladder-tuning 1')");
            else if (strcmp(field[1], "1") != 0)
                st = parse_error(&p, "format version '%s' is not supported (this library "
                                     "reads version 1)", show(&p, field[1]));
            else if (fields > 2)
                st = parse_error(&p, "unexpected '%s' after the format line's version",
                                 show(&p, field[2]));
            saw_format = 1;
            continue;
        }
        if (strcmp(field[0], "gemmladder-tuning") == 0) {
            st = parse_error(&p, "a second format line");
            break;
        }

        gl_tuning_row row = {0};
        row.line = p.line;
        if ((st = parse_row(&p, field, fields, &row)) != GL_STATUS_SUCCESS)
            break;
        for (int i = 0; i < t->count; ++i) {
            const gl_tuning_row *r = &t->rows[i];
            if (r->arch == row.arch && r->variant == row.variant &&
                r->size_class == row.size_class) {
                st = parse_error(&p, "duplicates the row on line %d (same architecture, "
                                     "variant and size class)", r->line);
                break;
            }
        }
        if (st != GL_STATUS_SUCCESS)
            break;
        if (t->count == GL_TUNING_MAX_ROWS) {
            st = parse_error(&p, "more than %d rows", GL_TUNING_MAX_ROWS);
            break;
        }
        if (t->count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            gl_tuning_row *rows = realloc(t->rows, sizeof *rows * (size_t)capacity);
            if (!rows) {
                gl_table_error(err, err_size, name, 0, "out of memory");
                st = GL_STATUS_ALLOC_FAILED;
                break;
            }
            t->rows = rows;
        }
        t->rows[t->count++] = row;
    }
    if (st == GL_STATUS_SUCCESS && !saw_format) {
        p.line = 0;
        st = parse_error(&p, "no format line: a table starts with 'gemmladder-tuning 1'");
    }
    if (st != GL_STATUS_SUCCESS) {
        gl_tuning_free(t);
        return st;
    }
    *out = t;
    return GL_STATUS_SUCCESS;
}

void gl_tuning_free(gl_tuning_table *t)
{
    if (t) {
        free(t->rows);
        free(t);
    }
}

/* ---- lookup -------------------------------------------------------------- */

/* How well a row's architecture suits a device: 3 exact, 2 same major at or
 * below, 1 same major above, 0 for a default row, -1 unrelated. Within a
 * level, nearer architectures win (see closer()). */
static int level(int row_arch, int cc)
{
    if (row_arch == cc)
        return 3;
    if (row_arch == 0)
        return 0;
    if (row_arch / 10 != cc / 10)
        return -1;
    return row_arch < cc ? 2 : 1;
}

static int closer(int a, int b, int cc)
{
    const int da = a > cc ? a - cc : cc - a, db = b > cc ? b - cc : cc - b;
    return da < db;
}

const gl_tuning_row *gl_tuning_find(const gl_tuning_table *const *layers, int layer_count,
                                    int cc, gl_variant_t v, gl_size_class c, size_t smem_limit,
                                    int *layer)
{
    for (int want = 3; want >= 0; --want) {
        for (int l = 0; l < layer_count; ++l) {
            const gl_tuning_table *t = layers[l];
            const gl_tuning_row *best = NULL;
            for (int i = 0; t && i < t->count; ++i) {
                const gl_tuning_row *r = &t->rows[i];
                if (r->variant != v || r->size_class != c || level(r->arch, cc) != want ||
                    gl_tiles_smem(gl_variant_find(v)->schema, &r->tiles) > smem_limit)
                    continue;
                if (!best || closer(r->arch, best->arch, cc))
                    best = r;
            }
            if (best) {
                if (layer)
                    *layer = l;
                return best;
            }
        }
    }
    return NULL;
}
