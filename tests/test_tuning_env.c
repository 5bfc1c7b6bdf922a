/*
 * test_tuning_env.c - run with GEMMLADDER_TUNING naming an illegal table:
 * handle creation must fail with GL_STATUS_TUNING_ERROR and say which
 * variable, file, line and rule, whether or not there is a GPU; and the
 * failure does not stick: the next creation reads the variable again, so
 * fixing the file, unsetting the variable or an explicit gl_tuning_load each
 * let creation proceed. Each case runs in a process of its own, since the
 * variable is read until a creation has applied it.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static const char *illegal; /* the table the variable names at start */
static char copy[64];       /* a file the cases may rewrite */

/* A creation that got past the tuning tables: a handle, or no GPU. */
static void expect_proceeds(const char *why)
{
    gl_handle_t h = NULL;
    const gl_status_t st = gl_handle_create(&h);
    CHECK(st == GL_STATUS_SUCCESS || st == GL_STATUS_NO_DEVICE, "%s: %s", why,
          gl_last_error(NULL));
    gl_handle_destroy(h);
}

static void expect_fails(const char *path)
{
    char where[512];
    snprintf(where, sizeof where, "GEMMLADDER_TUNING names a table that cannot be used: %s:2:",
             path);
    gl_handle_t h = (gl_handle_t)&h;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_TUNING_ERROR, where);
    CHECK(h == NULL, "no handle on failure");
    CHECK(strstr(gl_last_error(NULL), "16-byte") != NULL, "names the broken rule: %s",
          gl_last_error(NULL));
}

static void write_copy(const char *text)
{
    FILE *f = fopen(copy, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", copy);
}

static void read_again_after_failure(void)
{
    for (int attempt = 0; attempt < 2; ++attempt)
        expect_fails(illegal);
}

static void fixing_the_file(void)
{
    FILE *f = fopen(illegal, "r");
    char text[4096];
    const size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    write_copy(text);
    setenv("GEMMLADDER_TUNING", copy, 1);
    expect_fails(copy);
    write_copy("gemmladder-tuning 1\n");
    expect_proceeds("after the file was fixed");
    /* Applied now: the variable is not read again. */
    setenv("GEMMLADDER_TUNING", illegal, 1);
    expect_proceeds("once a table was applied");
}

static void unsetting_the_variable(void)
{
    expect_fails(illegal);
    unsetenv("GEMMLADDER_TUNING");
    expect_proceeds("after unsetenv");
    setenv("GEMMLADDER_TUNING", illegal, 1);
    expect_proceeds("found unset once: not read again");
}

static void explicit_load(void)
{
    expect_fails(illegal);
    CHECK_STATUS(NULL, gl_tuning_load(illegal), GL_STATUS_TUNING_ERROR, "16-byte");
    expect_fails(illegal); /* a failed load supersedes nothing */
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    expect_proceeds("after gl_tuning_load(NULL)");
}

static void in_child(void (*scenario)(void), const char *name)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        scenario();
        _exit(harness_failures ? 1 : 0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (status %d)", name, status);
}

int main(void)
{
    illegal = getenv("GEMMLADDER_TUNING");
    CHECK(illegal && *illegal, "the test runs with GEMMLADDER_TUNING set");
    if (!illegal)
        return harness_finish("test_tuning_env");
    strcpy(copy, "/tmp/gl_tuning_env_XXXXXX");
    const int fd = mkstemp(copy);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    in_child(read_again_after_failure, "every creation reads the variable until it works");
    in_child(fixing_the_file, "fixing the file");
    in_child(unsetting_the_variable, "unsetting the variable");
    in_child(explicit_load, "gl_tuning_load supersedes the variable");
    unlink(copy);
    return harness_finish("test_tuning_env");
}
