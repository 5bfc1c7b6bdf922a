/*
 * test_threads.c - the library from many threads at once, on the fake GPU
 * (fake_gpu/), built with ThreadSanitizer and with AddressSanitizer: tables
 * checked, loaded and queried while other threads create handles, pin tiles
 * and run products and argument checks. Every answer is compared with the
 * one the same call gives on one thread, so a parser that shares state
 * between threads shows up as a wrong answer even where the sanitizer
 * cannot see the sharing (strtok's position lives in uninstrumented libc).
 *
 * The first handle creation of a process parses the built-in tables; that
 * race is run in fresh processes (fork), as is a GEMMLADDER_TUNING that
 * names a FIFO, which must fail every creation at once rather than hang.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_gpu.h"
#include "harness.h"
#include "internal.h"

#define THREADS 8

static char dir[64], good1[96], good2[96], bad[96], fifo[96];
static char bad_message[GL_MESSAGE_SIZE];  /* what gl_tuning_check(bad) says on one thread */
static const char *const HEAD = "gemmladder-tuning 1\n# tables for test_threads\n";

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void make_files(void)
{
    strcpy(dir, "/tmp/gl_threads_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(good1, sizeof good1, "%s/good1.txt", dir);
    snprintf(good2, sizeof good2, "%s/good2.txt", dir);
    snprintf(bad, sizeof bad, "%s/bad.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    char text[512];
    snprintf(text, sizeof text, "%ssm_90 autotuned large bm=128 bn=64 bk=16 tm=8 tn=8\n", HEAD);
    write_text(good1, text);
    snprintf(text, sizeof text, "%ssm_90 autotuned large bm=64 bn=128 bk=16 tm=8 tn=8\n", HEAD);
    write_text(good2, text);
    snprintf(text, sizeof text, "%ssm_90 warptile small bm=64 bn=64 bk=16 wm=32 wn=32 "
                                "wniter=1 tm=8 tn=4 threads=128\n"
                                "sm_90 autotuned small bm=64 bn=64 bk=16 tm=8 tn=3\n", HEAD);
    write_text(bad, text);
    if (mkfifo(fifo, 0600) != 0) {
        perror("mkfifo");
        exit(1);
    }
}

static void remove_files(void)
{
    unlink(good1), unlink(good2), unlink(bad), unlink(fifo), rmdir(dir);
}

/* ---- a child process: threads that start together ------------------------ */

typedef struct race {
    pthread_barrier_t start;
    void *(*body)(void *);
    int failures;
    pthread_mutex_t lock;
} race;

static void race_fail(race *r, const char *what, const char *detail)
{
    pthread_mutex_lock(&r->lock);
    if (r->failures++ < 5)
        fprintf(stderr, "  %s: %s\n", what, detail);
    pthread_mutex_unlock(&r->lock);
}

static int run_threads(race *r, void *(*body)(void *))
{
    pthread_t t[THREADS];
    pthread_barrier_init(&r->start, NULL, THREADS);
    pthread_mutex_init(&r->lock, NULL);
    r->body = body;
    for (int i = 0; i < THREADS; ++i)
        pthread_create(&t[i], NULL, body, r);
    for (int i = 0; i < THREADS; ++i)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&r->start);
    return r->failures;
}

static int thread_index(race *r)
{
    static int next;
    const int i = __atomic_fetch_add(&next, 1, __ATOMIC_SEQ_CST);
    pthread_barrier_wait(&r->start);
    return i;
}

/* In a fresh process: half the threads create the first handles (which
 * parses the built-in tables), the other half check tables meanwhile. */
static void *first_creation(void *arg)
{
    race *r = arg;
    if (thread_index(r) % 2 == 0) {
        gl_handle_t h = NULL;
        if (gl_handle_create(&h) != GL_STATUS_SUCCESS)
            race_fail(r, "first gl_handle_create", gl_last_error(NULL));
        gl_handle_destroy(h);
        if (gl_handle_create(&h) != GL_STATUS_SUCCESS) /* the built-in tables stay whole */
            race_fail(r, "second gl_handle_create", gl_last_error(NULL));
        gl_handle_destroy(h);
        return NULL;
    }
    for (int i = 0; i < 40; ++i) {
        if (gl_tuning_check(good1) != GL_STATUS_SUCCESS)
            race_fail(r, "gl_tuning_check(good1)", gl_last_error(NULL));
        if (gl_tuning_check(bad) != GL_STATUS_TUNING_ERROR ||
            strcmp(gl_last_error(NULL), bad_message) != 0)
            race_fail(r, "gl_tuning_check(bad)", gl_last_error(NULL));
    }
    return NULL;
}

/* GEMMLADDER_TUNING names a FIFO: every creation fails at once, saying so;
 * once the variable is unset, the next creation succeeds. */
static void *fifo_creation(void *arg)
{
    race *r = arg;
    thread_index(r);
    gl_handle_t h = NULL;
    if (gl_handle_create(&h) != GL_STATUS_TUNING_ERROR ||
        !strstr(gl_last_error(NULL), "is a FIFO, not a regular file"))
        race_fail(r, "gl_handle_create with a FIFO", gl_last_error(NULL));
    gl_handle_destroy(h);
    return NULL;
}

/* Runs body on THREADS threads in a child process that must finish within
 * `seconds`; returns whether all went well. */
static bool in_child(void *(*body)(void *), const char *env, unsigned seconds)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(seconds);
        if (env)
            setenv("GEMMLADDER_TUNING", env, 1);
        race r = {.failures = 0};
        int failures = run_threads(&r, body);
        if (env) { /* fixed by unsetting the variable: read again, and now fine */
            unsetenv("GEMMLADDER_TUNING");
            gl_handle_t h = NULL;
            if (gl_handle_create(&h) != GL_STATUS_SUCCESS) {
                fprintf(stderr, "  creation after unsetting: %s\n", gl_last_error(NULL));
                ++failures;
            }
            gl_handle_destroy(h);
        }
        _exit(failures ? 1 : 0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return false;
    if (WIFSIGNALED(status))
        fprintf(stderr, "  child ended by signal %d%s\n", WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- one process, many threads --------------------------------------------- */


static gl_tile_params expected_builtin;

/* A query must return one whole row: the built-in one, or one of the two
 * override files, each with its own source, never a mixture. */
static bool consistent(const gl_tiles *t)
{
    if (t->origin == GL_TILES_BUILTIN)
        return t->bm == expected_builtin.bm && t->bn == expected_builtin.bn &&
               strstr(t->source, "built-in sm_90.txt") != NULL;
    if (t->origin != GL_TILES_OVERRIDE || t->line != 3 || t->tm != 8 || t->tn != 8)
        return false;
    if (t->bm == 128 && t->bn == 64)
        return strstr(t->source, "good1.txt") != NULL;
    return t->bm == 64 && t->bn == 128 && strstr(t->source, "good2.txt") != NULL;
}

static void *mixed_work(void *arg)
{
    race *r = arg;
    const int me = thread_index(r);
    gl_handle_t h = NULL;
    if (gl_handle_create(&h) != GL_STATUS_SUCCESS) {
        race_fail(r, "gl_handle_create", gl_last_error(NULL));
        return NULL;
    }
    float *a = fake_gpu_alloc(4 * 4096), *b = fake_gpu_alloc(4 * 4096),
          *c = fake_gpu_alloc(4 * 4096);
    char text[GL_MESSAGE_SIZE];
    for (int i = 0; i < 300; ++i) {
        switch ((i + me) % 8) {
        case 0:
            if (gl_tuning_check(bad) != GL_STATUS_TUNING_ERROR ||
                strcmp(gl_last_error(NULL), bad_message) != 0)
                race_fail(r, "gl_tuning_check(bad)", gl_last_error(NULL));
            break;
        case 1:
            if (gl_tuning_load(i % 3 == 0 ? good1 : i % 3 == 1 ? good2 : NULL) !=
                GL_STATUS_SUCCESS)
                race_fail(r, "gl_tuning_load", gl_last_error(NULL));
            break;
        case 2: {
            gl_tiles t = {.size = sizeof t};
            if (gl_tuning_query(h, GL_VARIANT_AUTOTUNED, 4096, 4096, 4096, &t) !=
                    GL_STATUS_SUCCESS ||
                !consistent(&t)) {
                snprintf(text, sizeof text, "origin %d %dx%d line %d source %s", t.origin, t.bm,
                         t.bn, t.line, t.source);
                race_fail(r, "gl_tuning_query", text);
            }
            break;
        }
        case 3:
            if (gl_sgemm_ex(NULL, GL_VARIANT_NAIVE, GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 4, 5, 6, 1,
                            a, 5 + me % 2, b, 5, 0, c, 5) != GL_STATUS_INVALID_ARGUMENT ||
                !strstr(gl_last_error(NULL), me % 2 ? "" : "lda (5) must be >= max(1, K) = 6"))
                race_fail(r, "argument check", gl_last_error(NULL));
            break;
        case 4: {
            fake_gpu_clear_launches();
            const int m = 1 + me * 7 + i % 5;
            if (gl_sgemm_ex(h, (gl_variant_t)(i % gl_variant_count()), GL_ROW_MAJOR, GL_OP_N,
                            GL_OP_N, m, 8, 8, 1, a, 8, b, 8, 0, c, 8) != GL_STATUS_SUCCESS ||
                fake_gpu_launch_count() != 1 || fake_gpu_launch(0)->m != m)
                race_fail(r, "product", gl_last_error(h));
            break;
        }
        case 5: {
            gl_handle_t other = NULL;
            if (gl_handle_create(&other) != GL_STATUS_SUCCESS)
                race_fail(r, "another gl_handle_create", gl_last_error(NULL));
            gl_handle_destroy(other);
            break;
        }
        case 6: {
            gl_tiles pin = {.size = sizeof pin};
            if (gl_variant_config(GL_VARIANT_WARPTILE, i % 3, &pin) != GL_STATUS_SUCCESS ||
                gl_set_tiles(h, GL_VARIANT_WARPTILE, &pin) != GL_STATUS_SUCCESS)
                race_fail(r, "gl_set_tiles", gl_last_error(h));
            gl_tiles t = {.size = sizeof t};
            if (gl_tuning_query(h, GL_VARIANT_WARPTILE, 64, 64, 64, &t) != GL_STATUS_SUCCESS ||
                t.origin != GL_TILES_PINNED || t.bm != pin.bm || t.wm != pin.wm)
                race_fail(r, "pinned query", gl_last_error(h));
            gl_set_tiles(h, GL_VARIANT_WARPTILE, NULL);
            break;
        }
        default:
            if (gl_tuning_check(good2) != GL_STATUS_SUCCESS)
                race_fail(r, "gl_tuning_check(good2)", gl_last_error(NULL));
        }
    }
    fake_gpu_free(a), fake_gpu_free(b), fake_gpu_free(c);
    gl_handle_destroy(h);
    return NULL;
}

int main(void)
{
    make_files();
    CHECK_STATUS(NULL, gl_tuning_check(bad), GL_STATUS_TUNING_ERROR, ":4: illegal autotuned");
    snprintf(bad_message, sizeof bad_message, "%s", gl_last_error(NULL));

    /* Fresh processes first, while this one has no threads of its own. */
    int clean = 0;
    for (int round = 0; round < 12; ++round)
        clean += in_child(first_creation, NULL, 60);
    CHECK(clean == 12, "first creations racing table checks: %d of 12 processes clean", clean);
    CHECK(in_child(fifo_creation, fifo, 60),
          "GEMMLADDER_TUNING naming a FIFO fails every creation at once");

    gl_handle_t h = NULL;
    CHECK_STATUS(NULL, gl_handle_create(&h), GL_STATUS_SUCCESS, NULL);
    gl_tiles t = {.size = sizeof t};
    CHECK_STATUS(h, gl_tuning_query(h, GL_VARIANT_AUTOTUNED, 4096, 4096, 4096, &t),
                 GL_STATUS_SUCCESS, NULL);
    expected_builtin = (gl_tile_params){t.bm, t.bn, t.bk, t.tm, t.tn, 0, 0, 0, t.threads, 0};
    CHECK(t.origin == GL_TILES_BUILTIN, "the built-in row first");
    gl_handle_destroy(h);

    race r = {.failures = 0};
    CHECK(run_threads(&r, mixed_work) == 0, "%d threads at once: %d wrong answers", THREADS,
          r.failures);
    CHECK_STATUS(NULL, gl_tuning_load(NULL), GL_STATUS_SUCCESS, NULL);
    remove_files();
    return harness_finish("test_threads");
}
