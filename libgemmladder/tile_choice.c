/*
 * tile_choice.c - the tiles each call runs with (a configuration pinned on
 * the handle, a tuning-table row, auto's fill tiles, or a variant's fixed
 * tiles), and the public functions that show and set them.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Field f of a caller's gl_tiles: a member, or a word of reserved (tile_rules.c). */
static int32_t tiles_value(const gl_tiles *t, gl_tile_field_id f)
{
    return *(const int32_t *)((const char *)t + gl_tile_fields[f].in_tiles);
}

static void set_tiles_value(gl_tiles *t, gl_tile_field_id f, int32_t value)
{
    *(int32_t *)((char *)t + gl_tile_fields[f].in_tiles) = value;
}

void gl_describe_tiles(gl_tiles *out, const gl_tile_params *t, gl_tiles_origin_t origin)
{
    const uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    for (int f = 0; f < GL_FIELD_COUNT; ++f)
        set_tiles_value(out, (gl_tile_field_id)f, gl_tile_value(t, (gl_tile_field_id)f));
    out->origin = origin;
}

gl_tile_params gl_resolve_tiles(const struct gl_handle_s *h, const gl_variant_desc *d, int64_t m,
                                int64_t n, gl_tiles *info)
{
    static const gl_tile_params none = {0};
    if (d->config_count == 0)
        return none;
    if (!gl_variant_tuned(d)) {
        if (info)
            gl_describe_tiles(info, &d->configs[0], GL_TILES_FIXED);
        return d->configs[0];
    }
    if (h->pinned[d->id]) {
        if (info)
            gl_describe_tiles(info, &h->pin[d->id], GL_TILES_PINNED);
        return h->pin[d->id];
    }

    const gl_size_class c = gl_size_class_of(m, n);
    gl_tuning_row row;
    gl_tiles_origin_t origin = GL_TILES_DEFAULT;
    char source[64] = "";
    const bool found = gl_table_lookup(h->cc, (gl_variant_t)d->rows_of, c, h->smem_limit, &row,
                                       &origin, info ? source : NULL, sizeof source);
    gl_tile_params tiles = found ? row.tiles : d->configs[0];
    const gl_tile_params *fill = gl_fill_tiles(d, &tiles, m, n, h->sm_count, h->smem_limit);
    if (fill)
        tiles = *fill, origin = GL_TILES_FILL;
    if (info) {
        gl_describe_tiles(info, &tiles, origin);
        snprintf(info->size_class, sizeof info->size_class, "%s", gl_size_class_name(c));
        if (found) {
            info->line = row.line;
            if (row.arch)
                snprintf(info->arch, sizeof info->arch, "sm_%d", row.arch);
            else
                snprintf(info->arch, sizeof info->arch, "default");
            snprintf(info->source, sizeof info->source, "%s", source);
        }
    }
    return tiles;
}

/* ---- public functions ---------------------------------------------------- */

static gl_status_t check_out(gl_handle_t h, const char *fn, const gl_tiles *t)
{
    if (!t)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "%s: the gl_tiles pointer is NULL", fn);
    if (t->size < sizeof(gl_tiles))
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "%s: gl_tiles.size is %u; set it to sizeof(gl_tiles) (%zu)", fn,
                       (unsigned)t->size, sizeof(gl_tiles));
    return GL_STATUS_SUCCESS;
}

int32_t gl_variant_config_count(gl_variant_t variant)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    return d ? d->config_count : -1;
}

gl_status_t gl_variant_config(gl_variant_t variant, int32_t index, gl_tiles *out)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(NULL, "gl_variant_config", variant);
    gl_status_t st = check_out(NULL, "gl_variant_config", out);
    if (st)
        return st;
    if (index < 0 || index >= d->config_count)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT,
                       "gl_variant_config: index %d is outside 0..%d for variant '%s'",
                       (int)index, d->config_count - 1, d->name);
    gl_describe_tiles(out, &d->configs[index], GL_TILES_FIXED);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_check_size(gl_handle_t h, const char *fn, char name, int64_t value)
{
    if (value < 0 || value > GL_MAX_DIM)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT, "%s%s%c (%lld) must be between 0 and %lld",
                       fn, *fn ? ": " : "", name, (long long)value, (long long)GL_MAX_DIM);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_query(gl_handle_t h, gl_variant_t variant, int64_t M, int64_t N,
                            int64_t K, gl_tiles *out)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(h, "gl_tuning_query", variant);
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_tuning_query: handle is NULL");
    gl_status_t st = check_out(h, "gl_tuning_query", out);
    if (st || (st = gl_check_size(h, "gl_tuning_query", 'M', M)) ||
        (st = gl_check_size(h, "gl_tuning_query", 'N', N)) ||
        (st = gl_check_size(h, "gl_tuning_query", 'K', K)))
        return st;
    if (d->config_count == 0)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_tuning_query: variant '%s' has no tile parameters", d->name);
    gl_resolve_tiles(h, d, M, N, out);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_set_tiles(gl_handle_t h, gl_variant_t variant, const gl_tiles *tiles)
{
    const gl_variant_desc *d = gl_variant_find(variant);
    if (!d)
        return gl_unknown_variant(h, "gl_set_tiles", variant);
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_set_tiles: handle is NULL");
    if (!gl_variant_tuned(d))
        return gl_fail(h, GL_STATUS_TUNING_ERROR,
                       "gl_set_tiles: variant '%s' runs fixed tiles; only the variants that "
                       "choose theirs per device and size take a configuration",
                       d->name);
    if (!tiles) {
        h->pinned[variant] = false;
        return GL_STATUS_SUCCESS;
    }
    gl_status_t st = check_out(h, "gl_set_tiles", tiles);
    if (st)
        return st;
    gl_tile_params t;
    for (int f = 0; f < GL_FIELD_COUNT; ++f)
        gl_tile_set_value(&t, (gl_tile_field_id)f, tiles_value(tiles, (gl_tile_field_id)f));
    if (d->schema)
        gl_tiles_fill_unset(d->schema, &t);
    int count = 0;
    if (!gl_tiles_compiled(d, &t, &count)) {
        char text[160];
        gl_tile_params_text(&t, text, sizeof text);
        return gl_fail(h, GL_STATUS_TUNING_ERROR,
                       "gl_set_tiles: %s is not one of the %d compiled %s configurations", text,
                       count, d->name);
    }
    char why[256];
    if (!gl_tiles_legal(d->schema, &t, h->smem_limit, why, sizeof why))
        return gl_fail(h, GL_STATUS_TUNING_ERROR, "gl_set_tiles: not on device %d: %s",
                       h->device, why);
    h->pin[variant] = t;
    h->pinned[variant] = true;
    return GL_STATUS_SUCCESS;
}

/* The field named `name` of a caller's gl_tiles, after the checks of fn. */
static gl_status_t named_field(const char *fn, const gl_tiles *tiles, const char *name,
                               const void *value, int *field)
{
    gl_status_t st = check_out(NULL, fn, tiles);
    if (st)
        return st;
    if (!name || !value)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                       name ? "value" : "field");
    *field = gl_tile_field_find(name);
    if (*field < 0) {
        char known[160];
        gl_tile_field_names(known, sizeof known);
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "%s: no tile field is named '%.40s' (%s)",
                       fn, name, known);
    }
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tiles_get(const gl_tiles *tiles, const char *field, int32_t *value)
{
    int f = 0;
    const gl_status_t st = named_field("gl_tiles_get", tiles, field, value, &f);
    if (st == GL_STATUS_SUCCESS)
        *value = tiles_value(tiles, (gl_tile_field_id)f);
    return st;
}

gl_status_t gl_tiles_set(gl_tiles *tiles, const char *field, int32_t value)
{
    int f = 0;
    const gl_status_t st = named_field("gl_tiles_set", tiles, field, &value, &f);
    if (st == GL_STATUS_SUCCESS)
        set_tiles_value(tiles, (gl_tile_field_id)f, value);
    return st;
}
