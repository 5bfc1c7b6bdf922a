/*
 * cli.h - what gemmladder-bench and gemmladder-tune share on their command
 * line: exit statuses, --version, and opening a handle with a message that
 * says why there is no GPU. No CUDA here.
 */
#ifndef GL_CLI_H
#define GL_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "gemmladder.h"

/* Exit statuses of both tools. */
enum cli_exit {
    CLI_OK = 0,
    CLI_WRONG = 1,   /* a wrong result: a rung or configuration was wrong or failed, or a
                        table is invalid */
    CLI_USAGE = 2,   /* a bad command line */
    CLI_NO_GPU = 3,  /* no usable GPU: no NVIDIA driver, one too old, or no device */
    CLI_FAILED = 4,  /* anything else that stopped the run: a CUDA error, an output that
                        cannot be written, a program the tool needs that fails */
    CLI_SKIPPED = 77 /* meson's "skipped": no GPU, when asked for (--skip-without-gpu) */
};

/* The statuses above, as both tools' --help lists them. */
#define CLI_EXIT_HELP                                                                      \
    "Exit status: 0 success; 1 a wrong result; 2 a bad command line; 3 no usable\n"       \
    "GPU (no NVIDIA driver, one older than this CUDA runtime, or no device); 4 another\n" \
    "failure (a CUDA error, an output that cannot be written)"

/* The message for an option getopt_long (with opterr = 0) rejected: c is
 * ':' (a value missing) or '?' (an unknown option, or a value given to one
 * that takes none). Written into buf, which is returned. */
const char *cli_option_error(int c, char *const *argv, char *buf, size_t size);

/* "--name" of the option getopt_long returned as c (or "-c"), written into buf. */
const char *cli_option_name(const struct option *options, int c, char *buf, size_t size);

/* Whether an option's value is missing: empty (--csv=), or the next option
 * taken for it (--sizes --quick). */
int cli_value_missing(const char *value);

/* Prints "<tool> (gemmladder) X.Y.Z", and the loaded library's version where it
 * is not the one the tool was built with. */
void cli_print_version(FILE *out, const char *tool);

/* Creates a handle on the current device. Returns CLI_OK, or, after saying
 * why on stderr ("<tool>: ..."), CLI_NO_GPU (CLI_SKIPPED when
 * skip_without_gpu) or CLI_FAILED. */
int cli_open_handle(const char *tool, gl_handle_t *h, int skip_without_gpu);

#endif
