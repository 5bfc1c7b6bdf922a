/* cli.c - exit statuses, --version and opening a handle for the tools (cli.h). */
#include "cli.h"

#include <string.h>

const char *cli_option_error(int c, char *const *argv, char *buf, size_t size)
{
    const char *arg = argv[optind - 1];
    if (c == ':')
        snprintf(buf, size, "%s needs a value", arg);
    else if (optopt && !strncmp(arg, "--", 2))
        snprintf(buf, size, "%.*s takes no value", (int)strcspn(arg, "="), arg);
    else
        snprintf(buf, size, "unknown option '%s'", arg);
    return buf;
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
