/*
 * table_layers.c - the process-wide tuning tables: the built-in ones, an
 * override layered over them (gl_tuning_load, GEMMLADDER_TUNING), reading
 * table files, and looking a row up across the layers.
 *
 * The built-in tables are the library's own data: parsed once, all of them
 * or none (a failure, which only running out of memory can cause, is tried
 * again by the next handle creation). The override layer is replaced as a
 * whole under a mutex; a call copies the tiles it chose while holding it, so
 * a table can be loaded while other threads run products. Table files are
 * read outside that mutex, so a slow file never holds up a product.
 */
#define _POSIX_C_SOURCE 200809L /* open, fstat, strerror_r */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "tuning/builtin.h"

#define ENV_TUNING "GEMMLADDER_TUNING"
#define BUILTIN_MAX 16

static struct {
    pthread_mutex_t lock;                  /* guards the tables */
    atomic_bool builtin_ready;             /* set once, after builtin[] is complete */
    gl_tuning_table *builtin[BUILTIN_MAX]; /* one per shipped file */
    int builtin_count;
    gl_tuning_table *override;
    pthread_mutex_t env_lock;              /* serialises reading GEMMLADDER_TUNING */
    bool env_settled;                      /* applied, found unset, or superseded */
} state = {PTHREAD_MUTEX_INITIALIZER, false, {0}, 0, NULL, PTHREAD_MUTEX_INITIALIZER, false};

/* errno's text, from strerror_r (strerror may share its buffer between
 * threads), whichever of its two forms the C library declares: POSIX's
 * fills buf and returns 0, GNU's (under _GNU_SOURCE) returns the text. */
static const char *posix_text(int rc, char *buf) { return rc == 0 ? buf : NULL; }
static const char *gnu_text(const char *text, char *buf) { return (void)buf, text; }
#define error_text(e, buf, size) \
    _Generic(strerror_r(e, buf, size), int: posix_text, default: gnu_text)(strerror_r(e, buf, size), buf)

/* "<path>: <what>: <errno text>". */
static gl_status_t file_error(char *err, size_t size, const char *path, const char *what,
                              int errnum)
{
    char buf[128] = "";
    const char *text = errnum ? error_text(errnum, buf, sizeof buf) : "";
    if (!text) {
        snprintf(buf, sizeof buf, "error %d", errnum);
        text = buf;
    }
    gl_table_error(err, size, path, 0, "%s%s%s", what, errnum ? ": " : "", text);
    return GL_STATUS_TUNING_ERROR;
}

static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)  ? "a FIFO"
           : S_ISCHR(mode) ? "a character device"
           : S_ISBLK(mode) ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "a special file";
}

/* Reads a whole regular file of at most GL_TUNING_MAX_BYTES into a new
 * buffer. Anything else is refused without reading it: opened non-blocking,
 * a FIFO or a device never makes the caller wait. */
static gl_status_t read_file(const char *path, char **text, size_t *length, char *err,
                             size_t err_size)
{
    *text = NULL;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return file_error(err, err_size, path, "cannot open", errno);
    struct stat st;
    gl_status_t status = GL_STATUS_SUCCESS;
    char *buf = NULL;
    size_t n = 0;
    if (fstat(fd, &st) != 0) {
        status = file_error(err, err_size, path, "cannot read its status", errno);
    } else if (S_ISDIR(st.st_mode)) {
        status = file_error(err, err_size, path, "is a directory, not a table file", 0);
    } else if (!S_ISREG(st.st_mode)) {
        char what[64];
        snprintf(what, sizeof what, "is %s, not a regular file", file_kind(st.st_mode));
        status = file_error(err, err_size, path, what, 0);
    } else if (!(buf = malloc(GL_TUNING_MAX_BYTES + 1))) {
        gl_table_error(err, err_size, path, 0, "out of memory");
        status = GL_STATUS_ALLOC_FAILED;
    } else {
        /* Read to the end, not to st_size: files in /proc report 0. */
        while (n <= GL_TUNING_MAX_BYTES) {
            const ssize_t got = read(fd, buf + n, GL_TUNING_MAX_BYTES + 1 - n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                status = file_error(err, err_size, path, "read error", errno);
                break;
            }
            if (got == 0)
                break;
            n += (size_t)got;
        }
        if (status == GL_STATUS_SUCCESS && n > GL_TUNING_MAX_BYTES) {
            gl_table_error(err, err_size, path, 0, "larger than %d bytes", GL_TUNING_MAX_BYTES);
            status = GL_STATUS_TUNING_ERROR;
        }
    }
    close(fd);
    if (status != GL_STATUS_SUCCESS) {
        free(buf);
        return status;
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

/* Parses the shipped tables, unless that is done: all of them, into place
 * only once each one has parsed. */
static gl_status_t load_builtin_tables(char *err, size_t err_size)
{
    if (atomic_load_explicit(&state.builtin_ready, memory_order_acquire))
        return GL_STATUS_SUCCESS;
    gl_status_t st = GL_STATUS_SUCCESS;
    pthread_mutex_lock(&state.lock);
    if (!atomic_load_explicit(&state.builtin_ready, memory_order_relaxed)) {
        gl_tuning_table *parsed[BUILTIN_MAX] = {0};
        const int count = gl_builtin_table_count < BUILTIN_MAX ? gl_builtin_table_count
                                                               : BUILTIN_MAX;
        for (int i = 0; i < count && st == GL_STATUS_SUCCESS; ++i) {
            char name[64];
            snprintf(name, sizeof name, "built-in %s", gl_builtin_tables[i].name);
            const char *text = gl_builtin_tables[i].text;
            st = gl_tuning_parse(text, strlen(text), name, &parsed[i], err, err_size);
        }
        if (st == GL_STATUS_SUCCESS) {
            memcpy(state.builtin, parsed, sizeof parsed);
            state.builtin_count = count;
            atomic_store_explicit(&state.builtin_ready, true, memory_order_release);
        } else {
            for (int i = 0; i < count; ++i)
                gl_tuning_free(parsed[i]);
        }
    }
    pthread_mutex_unlock(&state.lock);
    return st;
}

gl_status_t gl_tuning_init(char *err, size_t err_size)
{
    gl_status_t st = load_builtin_tables(err, err_size);
    if (st != GL_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&state.env_lock);
    if (!state.env_settled) {
        const char *path = getenv(ENV_TUNING);
        gl_tuning_table *t = NULL;
        if (path && *path) {
            char why[GL_MESSAGE_SIZE - 64];
            st = parse_file(path, &t, why, sizeof why);
            if (st != GL_STATUS_SUCCESS)
                snprintf(err, err_size, ENV_TUNING " names a table that cannot be used: %s", why);
        }
        if (st == GL_STATUS_SUCCESS) {
            if (t)
                install_override(t);
            state.env_settled = true;
        }
    }
    pthread_mutex_unlock(&state.env_lock);
    return st;
}

/* ---- lookup ---------------------------------------------------------------- */

bool gl_table_lookup(int cc, gl_variant_t v, gl_size_class c, size_t smem_limit,
                     gl_tuning_row *row, gl_tiles_origin_t *origin, char *source,
                     size_t source_size)
{
    char unused[8];
    (void)load_builtin_tables(unused, sizeof unused); /* done already once a handle exists */
    const gl_tuning_table *layers[1 + BUILTIN_MAX];
    int layer = -1;
    pthread_mutex_lock(&state.lock);
    int count = 0;
    layers[count++] = state.override;
    for (int i = 0; i < state.builtin_count; ++i)
        layers[count++] = state.builtin[i];
    const gl_tuning_row *found = gl_tuning_find(layers, count, cc, v, c, smem_limit, &layer);
    if (found) {
        *row = *found;
        *origin = layer == 0 ? GL_TILES_OVERRIDE : GL_TILES_BUILTIN;
        if (source) /* only when asked: calls themselves do not need it */
            snprintf(source, source_size, "%s", layers[layer]->name);
    }
    pthread_mutex_unlock(&state.lock);
    return found != NULL;
}

/* ---- loading and checking files ---------------------------------------------- */

gl_status_t gl_tuning_load(const char *path)
{
    gl_tuning_table *t = NULL;
    pthread_mutex_lock(&state.env_lock); /* one load (or environment read) at a time */
    if (path) {
        char err[GL_MESSAGE_SIZE - 32];
        const gl_status_t st = parse_file(path, &t, err, sizeof err);
        if (st != GL_STATUS_SUCCESS) {
            pthread_mutex_unlock(&state.env_lock);
            return gl_fail(NULL, st, "gl_tuning_load: %s", err);
        }
    }
    install_override(t);
    state.env_settled = true; /* an explicit load supersedes GEMMLADDER_TUNING */
    pthread_mutex_unlock(&state.env_lock);
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
