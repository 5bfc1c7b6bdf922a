/*
 * test_gpu_concurrency.c - the library under threads.
 *
 *  1. Several threads, each with its own handle and stream, run every rung
 *     at the same time on shared inputs into their own outputs; every result
 *     must match the float64 reference.
 *  2. Meanwhile another thread keeps loading tuning tables (a good one, a
 *     broken one, none): calls in flight must keep giving right answers, and
 *     every load must either succeed or be rejected whole.
 *  3. One handle handed from thread to thread in turn (a handle is used by
 *     one thread at a time, not by one thread forever).
 * Exits 77 where there is no GPU.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <unistd.h>

#include "harness.h"
#include "reference.h"

#define THREADS 4
#define ROUNDS 3

typedef struct shape_data {
    gemm_case c;
    float *dA, *dB; /* shared, read-only */
    double *ref;
} shape_data;

static shape_data shapes[3];
static const int nshapes = 3;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int workers_running;

/* Runs every rung on every shape into this thread's own C, checks each. */
static int run_all(gl_handle_t h, cudaStream_t stream, float *dC, float *hC, const char *who)
{
    int checked = 0;
    for (int s = 0; s < nshapes; ++s) {
        const gemm_case *c = &shapes[s].c;
        for (int v = 0; v < gl_variant_count(); ++v) {
            if (cudaMemsetAsync(dC, 0xff, sizeof(float) * c->m * c->n, stream) != cudaSuccess)
                return -1;
            const gl_status_t st =
                gl_sgemm_ex(h, (gl_variant_t)v, c->layout, c->trans_a, c->trans_b, c->m, c->n,
                            c->k, c->alpha, shapes[s].dA, c->lda, shapes[s].dB, c->ldb, c->beta,
                            dC, c->ldc);
            const cudaError_t sync = cudaStreamSynchronize(stream);
            double err = -1;
            if (st == GL_STATUS_SUCCESS && sync == cudaSuccess &&
                cudaMemcpy(hC, dC, sizeof(float) * c->m * c->n, cudaMemcpyDeviceToHost) ==
                    cudaSuccess)
                err = relative_error(c, hC, shapes[s].ref);
            pthread_mutex_lock(&report_lock);
            CHECK(st == GL_STATUS_SUCCESS && sync == cudaSuccess && err >= 0 &&
                      err <= harness_tolerance(v, c->k),
                  "%s, %s on shape %d: status %s (%s), sync %s, relative error %.3g", who,
                  gl_variant_name(v), s, gl_status_string(st), gl_last_error(h),
                  cudaGetErrorString(sync), err);
            pthread_mutex_unlock(&report_lock);
            ++checked;
        }
    }
    return checked;
}

typedef struct worker {
    int id, checked;
} worker;

static void *own_handle_worker(void *arg)
{
    worker *w = arg;
    gl_handle_t h = NULL;
    cudaStream_t stream = NULL;
    float *dC = NULL, *hC = malloc(sizeof(float) * 1024 * 1024);
    char who[32];
    snprintf(who, sizeof who, "thread %d", w->id);
    if (gl_handle_create(&h) != GL_STATUS_SUCCESS ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
        gl_set_stream(h, stream) != GL_STATUS_SUCCESS ||
        cudaMalloc((void **)&dC, sizeof(float) * 1024 * 1024) != cudaSuccess) {
        pthread_mutex_lock(&report_lock);
        CHECK(0, "%s could not set up: %s", who, gl_last_error(NULL));
        pthread_mutex_unlock(&report_lock);
    } else {
        for (int round = 0; round < ROUNDS; ++round)
            w->checked += run_all(h, stream, dC, hC, who);
    }
    gl_handle_destroy(h);
    if (stream)
        cudaStreamDestroy(stream);
    cudaFree(dC);
    free(hC);
    return NULL;
}

typedef struct loader {
    const char *good, *bad;
    int loads, rejected;
} loader;

static void *table_loader(void *arg)
{
    loader *l = arg;
    while (workers_running) {
        const gl_status_t a = gl_tuning_load(l->good);
        const gl_status_t b = gl_tuning_load(l->bad);
        const gl_status_t c = gl_tuning_load(NULL);
        pthread_mutex_lock(&report_lock);
        CHECK(a == GL_STATUS_SUCCESS && b == GL_STATUS_TUNING_ERROR && c == GL_STATUS_SUCCESS,
              "loads: good %d, broken %d, none %d", a, b, c);
        pthread_mutex_unlock(&report_lock);
        l->loads += 3;
        l->rejected += b == GL_STATUS_TUNING_ERROR;
        usleep(200);
    }
    return NULL;
}

/* A handle passed between threads: each takes its turn, in order. */
typedef struct relay {
    gl_handle_t h;
    int turn, checked;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} relay;

typedef struct relay_arg {
    relay *r;
    int id;
} relay_arg;

static void *relay_worker(void *arg)
{
    relay_arg *a = arg;
    relay *r = a->r;
    float *dC = NULL, *hC = malloc(sizeof(float) * 1024 * 1024);
    cudaMalloc((void **)&dC, sizeof(float) * 1024 * 1024);
    for (int round = 0; round < 2; ++round) {
        pthread_mutex_lock(&r->lock);
        while (r->turn % THREADS != a->id)
            pthread_cond_wait(&r->cond, &r->lock);
        pthread_mutex_unlock(&r->lock);

        char who[48];
        snprintf(who, sizeof who, "relay thread %d, round %d", a->id, round);
        void *stream = NULL;
        gl_get_stream(r->h, &stream);
        const int n = run_all(r->h, (cudaStream_t)stream, dC, hC, who);

        pthread_mutex_lock(&r->lock);
        r->checked += n;
        ++r->turn;
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
    }
    cudaFree(dC);
    free(hC);
    return NULL;
}

static const char *write_table(const char *text)
{
    static char paths[2][64];
    static int next;
    char *path = paths[next++ % 2];
    strcpy(path, "/tmp/gl_concurrency_XXXXXX");
    const int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write %s", path);
    close(fd);
    return path;
}

int main(void)
{
    gl_handle_t h = NULL;
    const int early = harness_gpu_handle(&h, "test_gpu_concurrency");
    if (early >= 0)
        return early;
    const uint64_t seed = test_seed();
    printf("seed %llu\n", (unsigned long long)seed);
    rng r = {seed};

    const gemm_case cases[3] = {
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_N, 257, 263, 129, 1.0f, 0.0f, 129, 263, 263},
        {GL_ROW_MAJOR, GL_OP_T, GL_OP_N, 1000, 77, 333, 1.0f, 0.0f, 1000, 77, 77},
        {GL_ROW_MAJOR, GL_OP_N, GL_OP_T, 512, 512, 512, 1.0f, 0.0f, 512, 512, 512},
    };
    for (int s = 0; s < nshapes; ++s) {
        shape_data *d = &shapes[s];
        d->c = cases[s];
        const int64_t na = case_extent(&d->c, 'A'), nb = case_extent(&d->c, 'B');
        float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
        for (int64_t e = 0; e < na; ++e)
            A[e] = rng_uniform(&r);
        for (int64_t e = 0; e < nb; ++e)
            B[e] = rng_uniform(&r);
        d->ref = malloc(sizeof(double) * d->c.m * d->c.n);
        reference_gemm(&d->c, A, B, NULL, d->ref);
        CHECK_CUDA(cudaMalloc((void **)&d->dA, sizeof(float) * na));
        CHECK_CUDA(cudaMalloc((void **)&d->dB, sizeof(float) * nb));
        CHECK_CUDA(cudaMemcpy(d->dA, A, sizeof(float) * na, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d->dB, B, sizeof(float) * nb, cudaMemcpyHostToDevice));
        free(A), free(B);
    }
    /* From pageable memory, cudaMemcpy may return before the data lands, and
     * the workers' non-blocking streams do not wait for the default stream:
     * without this, their first kernels could read A and B half-written
     * (initcheck saw it). */
    CHECK_CUDA(cudaDeviceSynchronize());

    /* 1 and 2: own handles in parallel, tables reloaded underneath. */
    /* Rows for this GPU's own architecture, so the loads change what runs. */
    int major = 0, minor = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gl_handle_device(h)));
    CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, gl_handle_device(h)));
    char good[512];
    snprintf(good, sizeof good,
             "gemmladder-tuning 1\n"
             "sm_%d%d warptile small bm=64 bn=64 bk=16 wm=32 wn=32 wniter=2 tm=4 tn=4 threads=128\n"
             "sm_%d%d autotuned small bm=128 bn=128 bk=16 tm=8 tn=8\n",
             major, minor, major, minor);
    loader l = {write_table(good),
                write_table("gemmladder-tuning 1\ndefault autotuned small bm=7 bn=64 bk=16 "
                            "tm=8 tn=4\n"),
                0, 0};
    workers_running = 1;
    pthread_t loader_thread, threads[THREADS];
    worker workers[THREADS];
    pthread_create(&loader_thread, NULL, table_loader, &l);
    for (int t = 0; t < THREADS; ++t) {
        workers[t] = (worker){t, 0};
        pthread_create(&threads[t], NULL, own_handle_worker, &workers[t]);
    }
    int checked = 0;
    for (int t = 0; t < THREADS; ++t) {
        pthread_join(threads[t], NULL);
        checked += workers[t].checked;
    }
    workers_running = 0;
    pthread_join(loader_thread, NULL);
    printf("%d threads with their own handles: %d runs checked; %d table loads meanwhile "
           "(%d broken ones rejected)\n",
           THREADS, checked, l.loads, l.rejected);
    CHECK(checked == THREADS * ROUNDS * nshapes * gl_variant_count(), "every run happened");
    CHECK(l.loads > 0, "tables were loaded while the threads ran");
    gl_tuning_load(NULL);
    unlink(l.good);
    unlink(l.bad);

    /* 3: one handle in turn. */
    relay rl = {h, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    relay_arg args[THREADS];
    for (int t = 0; t < THREADS; ++t) {
        args[t] = (relay_arg){&rl, t};
        pthread_create(&threads[t], NULL, relay_worker, &args[t]);
    }
    for (int t = 0; t < THREADS; ++t)
        pthread_join(threads[t], NULL);
    printf("one handle relayed through %d threads: %d runs checked\n", THREADS, rl.checked);
    CHECK(rl.checked == THREADS * 2 * nshapes * gl_variant_count(), "every relay run happened");

    for (int s = 0; s < nshapes; ++s) {
        cudaFree(shapes[s].dA), cudaFree(shapes[s].dB);
        free(shapes[s].ref);
    }
    gl_handle_destroy(h);
    return harness_finish("test_gpu_concurrency");
}
