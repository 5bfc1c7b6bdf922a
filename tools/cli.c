/* cli.c - exit statuses, --version, opening a handle and writing output
 * files whole for the tools (cli.h). */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_option_error(int c, char *const *argv, const struct option *options, char *buf,
                             size_t size)
{
    const char *arg = argv[optind - 1];
    if (c == ':') {
        /* by its whole name where it was shortened (--ch: --check) */
        char name[64];
        if (optopt && !strncmp(arg, "--", 2))
            arg = cli_option_name(options, optopt, name, sizeof name);
        snprintf(buf, size, "%s needs a value", arg);
        return buf;
    }
    if (optopt && !strncmp(arg, "--", 2)) {
        snprintf(buf, size, "%.*s takes no value", (int)strcspn(arg, "="), arg);
        return buf;
    }
    /* getopt_long leaves optopt 0 for a long option it does not know and
     * for a prefix of several: the options say which. */
    if (!strncmp(arg, "--", 2) && arg[2] && arg[2] != '=') {
        const size_t len = strcspn(arg + 2, "=");
        int matches = 0;
        for (const struct option *o = options; o->name; ++o)
            matches += !strncmp(o->name, arg + 2, len);
        if (matches > 1) {
            size_t n = (size_t)snprintf(buf, size, "ambiguous option '--%.*s': ", (int)len, arg + 2);
            int listed = 0;
            for (const struct option *o = options; o->name && n < size; ++o)
                if (!strncmp(o->name, arg + 2, len))
                    n += (size_t)snprintf(buf + n, size - n, "%s--%s",
                                          !listed++ ? "" : listed == matches ? " or " : ", ",
                                          o->name);
            if (n < size)
                snprintf(buf + n, size - n, "?");
            return buf;
        }
    }
    snprintf(buf, size, "unknown option '%s'", arg);
    return buf;
}

FILE *cli_open_input(const char *tool, const char *path)
{
    FILE *in = fopen(path, "r");
    struct stat st;
    if (in && fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(in);
        in = NULL;
        errno = EISDIR;
    }
    if (!in)
        fprintf(stderr, "%s: cannot read %s: %s\n", tool, path, strerror(errno));
    return in;
}

const char *cli_option_name(const struct option *options, int c, char *buf, size_t size)
{
    for (const struct option *o = options; o->name; ++o)
        if (o->val == c) {
            snprintf(buf, size, "--%s", o->name);
            return buf;
        }
    snprintf(buf, size, "-%c", c);
    return buf;
}

int cli_value_missing(const char *value)
{
    return value && (*value == '\0' || !strncmp(value, "--", 2));
}

void cli_print_version(FILE *out, const char *tool)
{
    fprintf(out, "%s (gemmladder) %d.%d.%d\n", tool, GL_VERSION_MAJOR, GL_VERSION_MINOR,
            GL_VERSION_PATCH);
    if (gl_version() != GL_VERSION)
        fprintf(out, "running with libgemmladder %s\n", gl_version_string());
}

int cli_open_handle(const char *tool, gl_handle_t *h, int skip_without_gpu)
{
    const gl_status_t st = gl_handle_create(h);
    if (st == GL_STATUS_SUCCESS)
        return CLI_OK;
    if (st == GL_STATUS_NO_DEVICE) {
        /* The library's message says which: no driver, an old one, no device. */
        fprintf(stderr, "%s: no usable GPU: %s\n", tool, gl_last_error(NULL));
        if (skip_without_gpu) {
            fprintf(stderr, "%s: skipped\n", tool);
            return CLI_SKIPPED;
        }
        return CLI_NO_GPU;
    }
    fprintf(stderr, "%s: cannot start: %s: %s\n", tool, gl_status_string(st), gl_last_error(NULL));
    return CLI_FAILED;
}

/* ---- variants ----------------------------------------------------------------- */

gl_variant_info cli_variant(int v)
{
    gl_variant_info info = {.size = sizeof info};
    if (gl_variant_describe((gl_variant_t)v, &info) != GL_STATUS_SUCCESS)
        info = (gl_variant_info){.size = sizeof info, .variant = v, .rows_of = -1};
    return info;
}

int cli_reference_variant(void)
{
    for (int v = 0; v < gl_variant_count(); ++v)
        if (cli_variant(v).reference && cli_variant(v).precision == GL_PRECISION_FP32)
            return v;
    return -1;
}

double cli_tolerance(int v, int64_t k)
{
    switch (cli_variant(v).precision) {
    case GL_PRECISION_TF32:
        return CLI_TF32_TOLERANCE + CLI_TF32_TOLERANCE_PER_K * (double)k;
    default:
        return CLI_FP32_TOLERANCE;
    }
}

void cli_tiles_text(int v, const gl_tiles *t, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    gl_tile_field_info field = {.size = sizeof field};
    for (int i = 0; n < size && gl_variant_tile_field((gl_variant_t)v, i, &field) == GL_STATUS_SUCCESS;
         ++i) {
        int32_t value = 0;
        if (!field.derived && gl_tiles_get(t, field.name, &value) == GL_STATUS_SUCCESS)
            n += (size_t)snprintf(out + n, size - n, "%s%s=%d", n ? " " : "", field.name,
                                  (int)value);
    }
}

/* ---- output files, written whole or not at all -------------------------------- */

/* The temporaries not yet renamed or removed, for the exit and signal
 * handlers: a slot is set before its file exists and cleared before its
 * name is freed, so a handler sees either nothing or a name to unlink. */
#define MAX_PENDING 16
static char *volatile pending[MAX_PENDING];

static void remove_pending(void)
{
    for (int i = 0; i < MAX_PENDING; ++i) {
        const char *p = pending[i];
        if (p)
            unlink(p);
    }
}

/* SIGINT, SIGTERM, SIGHUP, SIGPIPE: the temporaries go, then the signal
 * ends the tool as it would have (its default action, raised again). */
static void on_signal(int sig)
{
    remove_pending();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns (sig is blocked in it) */
}

static void install_cleanup(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    atexit(remove_pending); /* exit(): bu_die, or a return with outputs still open */
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
        struct sigaction old, sa;
        /* Only where the default would end the tool: an ignored signal (a
         * shell's SIGHUP under nohup, SIGPIPE) stays ignored. */
        if (sigaction(signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(signals[i], &sa, NULL);
    }
}

static int add_pending(char *path)
{
    for (int i = 0; i < MAX_PENDING; ++i)
        if (!pending[i]) {
            pending[i] = path;
            return 0;
        }
    return -1;
}

static void drop_pending(const char *path)
{
    for (int i = 0; i < MAX_PENDING; ++i)
        if (pending[i] == path)
            pending[i] = NULL;
}

/* Where the last '/' of path ends (0: none): its directory part's length. */
static size_t dir_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

static char *dup_or_die(const char *s)
{
    char *d = strdup(s);
    if (!d) {
        fputs("out of host memory\n", stderr);
        exit(CLI_FAILED);
    }
    return d;
}

/* The name of a file that does not exist yet, for comparing: its
 * directory resolved (realpath), then its own name. NULL where the
 * directory cannot be resolved. */
static char *new_file_name(const char *path)
{
    const size_t dlen = dir_length(path);
    char *dir = dup_or_die(dlen ? path : ".");
    if (dlen)
        dir[dlen] = '\0';
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real)
        return NULL;
    const char *base = path + dlen;
    char *name = malloc(strlen(real) + strlen(base) + 2);
    if (name)
        sprintf(name, "%s/%s", real, base);
    free(real);
    return name;
}

/* Whether outputs a and b would write the same file. Two names of one
 * device or pipe (/dev/null, /dev/stdout) are not refused: those are
 * written in place, one after the other, and neither is replaced. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    const int a_exists = stat(a, &sa) == 0, b_exists = stat(b, &sb) == 0;
    if (a_exists && b_exists)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode) &&
               !S_ISFIFO(sa.st_mode) && !S_ISSOCK(sa.st_mode);
    if (!strcmp(a, b))
        return 1;
    if (a_exists || b_exists)
        return 0;
    char *na = new_file_name(a), *nb = new_file_name(b);
    const int same = na && nb && !strcmp(na, nb);
    free(na);
    free(nb);
    return same;
}

/* Closes an output and frees its names; its temporary is removed first
 * unless it was renamed into place. */
static void release_one(cli_output *o, int renamed)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        if (!renamed)
            unlink(o->tmp);
        drop_pending(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->target);
    o->target = NULL;
}

static void discard_one(cli_output *o) { release_one(o, 0); }

void cli_outputs_discard(cli_output *out, int n)
{
    for (int i = 0; i < n; ++i)
        if (out[i].path)
            discard_one(&out[i]);
}

/* Opens one output: its temporary beside the destination, or (for a device
 * or pipe) the destination itself. 0, or -1 after a message. */
static int open_one(const char *tool, cli_output *o)
{
    struct stat st, lst;
    const int exists = stat(o->path, &st) == 0;
    if (!exists && errno != ENOENT) {
        fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(errno));
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(EISDIR));
        return -1;
    }
    /* A device or a pipe is written in place, and so is any name under
     * /dev or /proc (/dev/stdout names the file the shell redirected to:
     * that is not to be replaced by another). */
    if ((exists && !S_ISREG(st.st_mode)) || !strncmp(o->path, "/dev/", 5) ||
        !strncmp(o->path, "/proc/", 6)) {
        if (!(o->f = fopen(o->path, "w"))) {
            fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (exists && access(o->path, W_OK) != 0) { /* as fopen(path, "w") would refuse */
        fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(errno));
        return -1;
    }
    /* A link is replaced through: the file it names gets the new text. */
    char *real = exists && lstat(o->path, &lst) == 0 && S_ISLNK(lst.st_mode)
                     ? realpath(o->path, NULL)
                     : NULL;
    o->target = real ? real : dup_or_die(o->path);
    const size_t dlen = dir_length(o->target);
    const char *base = o->target + dlen;
    if (!*base) { /* "dir/" that does not exist yet */
        fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(EISDIR));
        return -1;
    }
    /* ".NAME.XXXXXX" in the same directory (so the rename stays on one file
     * system); a long NAME is cut so the temporary's name fits NAME_MAX. */
    const int keep = (int)(strlen(base) < 200 ? strlen(base) : 200);
    o->tmp = malloc(dlen + (size_t)keep + 16);
    if (!o->tmp) {
        fprintf(stderr, "%s: out of host memory\n", tool);
        return -1;
    }
    sprintf(o->tmp, "%.*s.%.*s.XXXXXX", (int)dlen, o->target, keep, base);
    if (add_pending(o->tmp) != 0) {
        fprintf(stderr, "%s: too many outputs\n", tool);
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    const int fd = mkstemp(o->tmp);
    if (fd < 0) {
        if (exists) /* a writable file in a directory that is not */
            fprintf(stderr, "%s: cannot write %s: no file can be made beside it: %s\n", tool,
                    o->path, strerror(errno));
        else
            fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(errno));
        drop_pending(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    /* The replacement keeps the old file's owner (where allowed) and
     * permission bits; a new file gets what fopen would give it. */
    if (exists) {
        if (fchown(fd, st.st_uid, st.st_gid) != 0) {
            /* not ours to give: the file becomes the caller's */
        }
        (void)fchmod(fd, st.st_mode & 07777);
    } else {
        const mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    if (!(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", tool, o->path, strerror(errno));
        close(fd);
        return -1;
    }
    return 0;
}

int cli_outputs_open(const char *tool, cli_output *out, int n)
{
    for (int i = 0; i < n; ++i) {
        out[i].f = NULL;
        out[i].tmp = out[i].target = NULL;
        out[i].failed = 0;
    }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n && out[i].path; ++j)
            if (out[j].path && same_file(out[i].path, out[j].path)) {
                if (!strcmp(out[i].path, out[j].path))
                    fprintf(stderr, "%s: %s and %s name the same file, %s: give each its own\n",
                            tool, out[i].option, out[j].option, out[i].path);
                else
                    fprintf(stderr,
                            "%s: %s %s and %s %s name the same file: give each its own\n",
                            tool, out[i].option, out[i].path, out[j].option, out[j].path);
                fprintf(stderr, "Try '%s --help'.\n", tool);
                return CLI_USAGE;
            }
    install_cleanup();
    for (int i = 0; i < n; ++i)
        if (out[i].path && open_one(tool, &out[i]) != 0) {
            cli_outputs_discard(out, n);
            return CLI_FAILED;
        }
    return CLI_OK;
}

int cli_outputs_close(const char *tool, cli_output *out, int n)
{
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        cli_output *o = &out[i];
        if (!o->path || !o->f)
            continue;
        int err = 0;
        errno = 0;
        if (fflush(o->f) != 0 || ferror(o->f))
            err = errno ? errno : EIO;
        /* On disk before it replaces anything (EINVAL: a file system without fsync). */
        if (!err && o->tmp && fsync(fileno(o->f)) != 0 && errno != EINVAL)
            err = errno;
        if (fclose(o->f) != 0 && !err)
            err = errno;
        o->f = NULL;
        if (err || o->failed) {
            if (err)
                fprintf(stderr, "%s: writing %s failed: %s\n", tool, o->path, strerror(err));
            else
                fprintf(stderr, "%s: writing %s failed\n", tool, o->path);
            o->failed = 1;
            failed = 1;
        }
    }
    if (failed) {
        for (int i = 0; i < n; ++i)
            if (out[i].path && out[i].tmp)
                fprintf(stderr, "%s: %s left as it was\n", tool, out[i].path);
        cli_outputs_discard(out, n);
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cli_outputs_commit(const char *tool, cli_output *out, int n)
{
    if (cli_outputs_close(tool, out, n) != CLI_OK)
        return CLI_FAILED;
    for (int i = 0; i < n; ++i) {
        cli_output *o = &out[i];
        if (o->path && o->tmp && rename(o->tmp, o->target) != 0) {
            fprintf(stderr, "%s: cannot replace %s: %s\n", tool, o->path, strerror(errno));
            cli_outputs_discard(out, n); /* the rest stay as they were */
            return CLI_FAILED;
        }
        if (o->path)
            release_one(o, 1);
    }
    return CLI_OK;
}
