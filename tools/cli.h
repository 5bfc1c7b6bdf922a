/*
 * cli.h - what gemmladder-bench and gemmladder-tune share on their command
 * line: exit statuses, --version, opening a handle with a message that says
 * why there is no GPU, the variants' facts, and output files written whole
 * or not at all. No CUDA here.
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
    CLI_FAILED = 4,  /* anything else that stopped the run: a CUDA error, an input file
                        that cannot be read (cli_open_input), an output that cannot be
                        written, a program the tool needs that fails */
    CLI_SKIPPED = 77 /* meson's "skipped": no GPU, when asked for (--skip-without-gpu) */
};

/* The statuses above, as both tools' --help lists them. */
#define CLI_EXIT_HELP                                                                      \
    "Exit status: 0 success; 1 a wrong result; 2 a bad command line; 3 no usable\n"       \
    "GPU (no NVIDIA driver, one older than this CUDA runtime, or no device); 4 another\n" \
    "failure (a CUDA error, an input file that cannot be read, an output that cannot\n"  \
    "be written)"

/* The message for an option getopt_long (with opterr = 0) rejected: c is
 * ':' (a value missing) or '?' (an unknown option, an ambiguous prefix of
 * several, or a value given to one that takes none). getopt_long takes a
 * long option's unambiguous prefix for it (--qu for --quick); an ambiguous
 * one is named with its candidates from `options` ("ambiguous option
 * '--sv': --svg or --svg-size?"). Written into buf, which is returned. */
const char *cli_option_error(int c, char *const *argv, const struct option *options, char *buf,
                             size_t size);

/* What both tools' --help says of shortened option names. */
#define CLI_PREFIX_HELP "Option names may be shortened while they stay unambiguous"

/* Opens an input file (the tuner's --check table) for reading, or
 * says why not on stderr ("<tool>: cannot read PATH: reason") and returns
 * NULL: the tool then exits with CLI_FAILED. A directory is refused (it
 * opens, but cannot be read). */
FILE *cli_open_input(const char *tool, const char *path);

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

/* ---- variants: what the tools treat differently, from the library's rows ------- */

/* The facts of variant v (gl_variant_describe); all 0 for an id the library
 * does not know. */
gl_variant_info cli_variant(int v);

/* The variant the others are measured against: the FP32 class's reference
 * (cublas), or -1. */
int cli_reference_variant(void);

/* The relative error ||C - C_ref|| / ||C_ref|| variant v may have on a
 * product K deep (inputs uniform in [-1, 1]), by its precision class: 1e-5
 * for FP32 (and FP32 emulated); for TF32, whose operands are rounded to
 * TF32, 3 * 2^-11 plus 2 K 2^-24 for the FP32 sums, as the tests apply it
 * (tests/harness.h). */
double cli_tolerance(int v, int64_t k);

/* The classes' tolerances (as tests/harness.h holds the library to them):
 * FP32's, and TF32's, CLI_TF32_TOLERANCE + CLI_TF32_TOLERANCE_PER_K x K
 * (3 * 2^-11 + 2 K 2^-24). */
#define CLI_FP32_TOLERANCE 1e-5
#define CLI_TF32_TOLERANCE (3.0 / 2048.0)
#define CLI_TF32_TOLERANCE_PER_K (2.0 / 16777216.0)

/* "name=value ..." for the fields of variant v's tiles that a tuning row
 * gives (those not derived from the others), as tables write them. */
void cli_tiles_text(int v, const gl_tiles *t, char *out, size_t size);

/* ---- output files, written whole or not at all --------------------------------
 *
 * Each output is written to a temporary file beside it (".NAME.XXXXXX" in
 * the destination's directory, made by mkstemp) and renamed over the
 * destination only when every output of the run is complete, so a failed or
 * interrupted run leaves every existing file as it was:
 *
 *   cli_output out[2] = {{.option = "--csv", .path = csv_path},
 *                        {.option = "--json", .path = json_path}};
 *   if ((rc = cli_outputs_open(tool, out, 2)) != CLI_OK) return rc;   before any work
 *   ... write to out[i].f (those whose path is not NULL); set out[i].failed on an error ...
 *   rc = cli_outputs_commit(tool, out, 2);
 *
 * A destination that is a symbolic link is replaced through it (the file it
 * names is replaced, the link stays). One that exists and is not a regular
 * file (a device, a pipe), and any name under /dev or /proc (/dev/stdout),
 * is written in place, as it cannot (or is not to) be replaced.
 * The replacement keeps an existing file's permission bits (otherwise it
 * gets 0666 less the umask); hard links to the old file keep the old text.
 * Until committed or discarded, the temporaries are removed if the tool
 * exits (bu_die) or is ended by SIGINT, SIGTERM, SIGHUP or SIGPIPE. */
typedef struct cli_output {
    const char *option; /* the option that named it ("--csv"), for messages */
    const char *path;   /* as given; NULL: not written (the calls skip it) */
    FILE *f;            /* where to write, once open */
    int failed;         /* set by the caller when writing it failed */
    char *tmp;          /* the temporary (NULL: written in place) */
    char *target;       /* what the temporary replaces: path, or the file a link names */
} cli_output;

/* Checks and opens n outputs before any work. Two that name the same file
 * (the same path, the same existing file, or the same name in the same
 * directory) are refused with CLI_USAGE and a message naming both options;
 * one that cannot be written (a missing or read-only directory, an existing
 * file without write permission, a directory) with CLI_FAILED and the
 * reason. On failure every output is closed again and nothing is left on
 * disk. Messages go to stderr as "<tool>: ...". */
int cli_outputs_open(const char *tool, cli_output *out, int n);

/* Flushes and closes each open output (its temporary synced to disk).
 * Returns CLI_OK, or CLI_FAILED after a message for each output that failed
 * (or was marked failed), having discarded all of them. */
int cli_outputs_close(const char *tool, cli_output *out, int n);

/* cli_outputs_close, then, when all succeeded, each temporary renamed over
 * its destination. Returns CLI_OK or CLI_FAILED (after a message). */
int cli_outputs_commit(const char *tool, cli_output *out, int n);

/* Closes the outputs and removes their temporaries: no destination changes. */
void cli_outputs_discard(cli_output *out, int n);

#endif
