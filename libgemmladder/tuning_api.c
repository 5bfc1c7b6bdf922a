/*
 * tuning_api.c - the process-wide tuning tables (built-in, plus an optional
 * override layer), the public tuning functions, and the choice of tiles for
 * each call.
 *
 * The built-in tables are parsed once. The override layer is replaced as a
 * whole under a mutex; a call copies the tiles it chose while holding it, so
 * a table can be loaded while other threads run products.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tuning/builtin.h"

#define ENV_TUNING "GEMMLADDER_TUNING"

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    gl_tuning_table *builtin[16]; /* one per shipped file */
    int builtin_count;
    gl_tuning_table *override;   /* guarded by lock */
    gl_status_t init_status;     /* what handle creation reports */
    char init_message[GL_MESSAGE_SIZE];
} state = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, {0}, 0, NULL, GL_STATUS_SUCCESS, ""};

/* Reads a whole file (at most GL_TUNING_MAX_BYTES) into a new buffer. */
static gl_status_t read_file(const char *path, char **text, size_t *length, char *err,
                             size_t err_size)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return GL_STATUS_TUNING_ERROR;
    }
    char *buf = malloc(GL_TUNING_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, err_size, "%s: out of memory", path);
        return GL_STATUS_ALLOC_FAILED;
    }
    const size_t n = fread(buf, 1, GL_TUNING_MAX_BYTES + 1, f);
    const int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        snprintf(err, err_size, "%s: read error", path);
        return GL_STATUS_TUNING_ERROR;
    }
    if (n > GL_TUNING_MAX_BYTES) {
        free(buf);
        snprintf(err, err_size, "%s: larger than %d bytes", path, GL_TUNING_MAX_BYTES);
        return GL_STATUS_TUNING_ERROR;
    }
    *text = buf;
    *length = n;
    return GL_STATUS_SUCCESS;
}

static gl_status_t parse_file(const char *path, gl_tuning_table **table, char *err,
                              size_t err_size)
{
    char *text;
    size_t length;
    gl_status_t st = read_file(path, &text, &length, err, err_size);
    if (st == GL_STATUS_SUCCESS)
        st = gl_tuning_parse(text, length, path, table, err, err_size);
    free(text);
    return st;
}

static void install_override(gl_tuning_table *table)
{
    pthread_mutex_lock(&state.lock);
    gl_tuning_table *old = state.override;
    state.override = table;
    pthread_mutex_unlock(&state.lock);
    gl_tuning_free(old);
}

static void init_once(void)
{
    char err[GL_MESSAGE_SIZE - 64];
    for (int i = 0; i < gl_builtin_table_count && i < 16; ++i) {
        char name[64];
        snprintf(name, sizeof name, "built-in %s", gl_builtin_tables[i].name);
        const gl_builtin_table *b = &gl_builtin_tables[i];
        const gl_status_t st = gl_tuning_parse(b->text, strlen(b->text), name,
                                               &state.builtin[state.builtin_count], err,
                                               sizeof err);
        if (st != GL_STATUS_SUCCESS) {
            state.init_status = st;
            snprintf(state.init_message, sizeof state.init_message, "%s", err);
            return;
        }
        ++state.builtin_count;
    }
    const char *path = getenv(ENV_TUNING);
    if (path && *path) {
        gl_tuning_table *t = NULL;
        const gl_status_t st = parse_file(path, &t, err, sizeof err);
        if (st != GL_STATUS_SUCCESS) {
            state.init_status = st;
            snprintf(state.init_message, sizeof state.init_message,
                     ENV_TUNING " names a table that cannot be used: %s", err);
            return;
        }
        install_override(t);
    }
}

gl_status_t gl_tuning_init(const char **message)
{
    pthread_once(&state.once, init_once);
    pthread_mutex_lock(&state.lock);
    const gl_status_t st = state.init_status;
    pthread_mutex_unlock(&state.lock);
    *message = state.init_message;
    return st;
}

/* ---- choosing tiles ------------------------------------------------------ */

static void describe(gl_tiles *out, const gl_tile_params *t, gl_tiles_origin_t origin)
{
    const uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    out->bm = t->bm, out->bn = t->bn, out->bk = t->bk, out->tm = t->tm, out->tn = t->tn;
    out->wm = t->wm, out->wn = t->wn, out->wniter = t->wniter, out->threads = t->threads;
    out->origin = origin;
}

gl_tile_params gl_resolve_tiles(const struct gl_handle_s *h, const gl_rung *rung, int64_t m,
                                int64_t n, gl_tiles *info)
{
    static const gl_tile_params none = {0};
    int count = 0;
    const gl_tile_params *list = gl_configs_of(rung->id, &count);
    if (count == 0)
        return none;
    if (!rung->tuned) {
        if (info)
            describe(info, &list[0], GL_TILES_FIXED);
        return list[0];
    }
    if (h->pinned[rung->id]) {
        if (info)
            describe(info, &h->pin[rung->id], GL_TILES_PINNED);
        return h->pin[rung->id];
    }

    const gl_size_class c = gl_size_class_of(m, n);
    const gl_tuning_table *layers[17];
    int layer = -1;
    pthread_mutex_lock(&state.lock);
    int nlayers = 0;
    layers[nlayers++] = state.override;
    for (int i = 0; i < state.builtin_count; ++i)
        layers[nlayers++] = state.builtin[i];
    const gl_tuning_row *row = gl_tuning_find(layers, nlayers, h->cc, rung->id, c,
                                              h->smem_limit, &layer);
    gl_tile_params tiles = row ? row->tiles : list[0];
    gl_tiles_origin_t origin = !row ? GL_TILES_DEFAULT
                               : layer == 0 ? GL_TILES_OVERRIDE : GL_TILES_BUILTIN;
    const gl_tile_params *fill = gl_fill_tiles(rung->id, &tiles, m, n, h->sm_count, h->smem_limit);
    if (fill)
        tiles = *fill, origin = GL_TILES_FILL;
    if (info) {
        describe(info, &tiles, origin);
        snprintf(info->size_class, sizeof info->size_class, "%s", gl_size_class_name(c));
        if (row) {
            info->line = row->line;
            if (row->arch)
                snprintf(info->arch, sizeof info->arch, "sm_%d", row->arch);
            else
                snprintf(info->arch, sizeof info->arch, "default");
            snprintf(info->source, sizeof info->source, "%s", layers[layer]->name);
        }
    }
    pthread_mutex_unlock(&state.lock);
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
    if (!gl_rung_find(variant))
        return -1;
    int count = 0;
    gl_configs_of(variant, &count);
    return count;
}

gl_status_t gl_variant_config(gl_variant_t variant, int32_t index, gl_tiles *out)
{
    if (!gl_rung_find(variant))
        return gl_fail(NULL, GL_STATUS_UNKNOWN_VARIANT,
                       "gl_variant_config: variant %d is not one of 0..%d", (int)variant,
                       GL_VARIANT_LIMIT - 1);
    gl_status_t st = check_out(NULL, "gl_variant_config", out);
    if (st)
        return st;
    int count = 0;
    const gl_tile_params *list = gl_configs_of(variant, &count);
    if (index < 0 || index >= count)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT,
                       "gl_variant_config: index %d is outside 0..%d for variant '%s'",
                       (int)index, count - 1, gl_variant_names[variant]);
    describe(out, &list[index], GL_TILES_FIXED);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_query(gl_handle_t h, gl_variant_t variant, int64_t M, int64_t N,
                            int64_t K, gl_tiles *out)
{
    const gl_rung *rung = gl_rung_find(variant);
    if (!rung)
        return gl_fail(h, GL_STATUS_UNKNOWN_VARIANT,
                       "gl_tuning_query: variant %d is not one of 0..%d", (int)variant,
                       GL_VARIANT_LIMIT - 1);
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_tuning_query: handle is NULL");
    gl_status_t st = check_out(h, "gl_tuning_query", out);
    if (st)
        return st;
    const int64_t sizes[3] = {M, N, K};
    for (int i = 0; i < 3; ++i)
        if (sizes[i] < 0 || sizes[i] > 2147483647LL)
            return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                           "gl_tuning_query: %c (%lld) must be between 0 and 2147483647",
                           "MNK"[i], (long long)sizes[i]);
    if (rung->uses_cublas)
        return gl_fail(h, GL_STATUS_INVALID_ARGUMENT,
                       "gl_tuning_query: variant 'cublas' has no tile parameters");
    gl_resolve_tiles(h, rung, M, N, out);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_set_tiles(gl_handle_t h, gl_variant_t variant, const gl_tiles *tiles)
{
    const gl_rung *rung = gl_rung_find(variant);
    if (!rung)
        return gl_fail(h, GL_STATUS_UNKNOWN_VARIANT,
                       "gl_set_tiles: variant %d is not one of 0..%d", (int)variant,
                       GL_VARIANT_LIMIT - 1);
    if (!h)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_set_tiles: handle is NULL");
    if (!rung->tuned)
        return gl_fail(h, GL_STATUS_TUNING_ERROR,
                       "gl_set_tiles: variant '%s' runs fixed tiles; only autotuned and "
                       "warptile take a configuration",
                       gl_variant_names[variant]);
    if (!tiles) {
        h->pinned[variant] = false;
        return GL_STATUS_SUCCESS;
    }
    gl_status_t st = check_out(h, "gl_set_tiles", tiles);
    if (st)
        return st;
    const gl_tile_params t = {tiles->bm, tiles->bn, tiles->bk,     tiles->tm,     tiles->tn,
                              tiles->wm, tiles->wn, tiles->wniter, tiles->threads};
    int count = 0;
    if (!gl_tiles_compiled(variant, &t, &count))
        return gl_fail(h, GL_STATUS_TUNING_ERROR,
                       "gl_set_tiles: bm=%d bn=%d bk=%d tm=%d tn=%d wm=%d wn=%d wniter=%d "
                       "threads=%d is not one of the %d compiled %s configurations",
                       t.bm, t.bn, t.bk, t.tm, t.tn, t.wm, t.wn, t.wniter, t.threads, count,
                       gl_variant_names[variant]);
    char why[256];
    if (!gl_tiles_legal(variant, &t, h->smem_limit, why, sizeof why))
        return gl_fail(h, GL_STATUS_TUNING_ERROR, "gl_set_tiles: not on device %d: %s",
                       h->device, why);
    h->pin[variant] = t;
    h->pinned[variant] = true;
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_load(const char *path)
{
    const char *why;
    (void)gl_tuning_init(&why); /* the built-in tables and the environment come first */
    gl_tuning_table *t = NULL;
    if (path) {
        char err[GL_MESSAGE_SIZE - 32];
        const gl_status_t st = parse_file(path, &t, err, sizeof err);
        if (st != GL_STATUS_SUCCESS)
            return gl_fail(NULL, st, "gl_tuning_load: %s", err);
    }
    install_override(t);
    /* An explicit load (or removal) supersedes a bad GEMMLADDER_TUNING. */
    pthread_mutex_lock(&state.lock);
    if (state.builtin_count == gl_builtin_table_count)
        state.init_status = GL_STATUS_SUCCESS;
    pthread_mutex_unlock(&state.lock);
    return GL_STATUS_SUCCESS;
}

gl_status_t gl_tuning_check(const char *path)
{
    if (!path)
        return gl_fail(NULL, GL_STATUS_INVALID_ARGUMENT, "gl_tuning_check: path is NULL");
    char err[GL_MESSAGE_SIZE - 32];
    gl_tuning_table *t = NULL;
    const gl_status_t st = parse_file(path, &t, err, sizeof err);
    gl_tuning_free(t);
    return st == GL_STATUS_SUCCESS ? st : gl_fail(NULL, st, "gl_tuning_check: %s", err);
}
