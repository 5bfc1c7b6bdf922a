/* reference.c - float64 GEMM on the CPU and friends (see reference.h). */
#include "reference.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void case_stored_shape(const gemm_case *c, char which, int64_t *rows, int64_t *cols)
{
    switch (which) {
    case 'A':
        *rows = c->trans_a == GL_OP_T ? c->k : c->m;
        *cols = c->trans_a == GL_OP_T ? c->m : c->k;
        break;
    case 'B':
        *rows = c->trans_b == GL_OP_T ? c->n : c->k;
        *cols = c->trans_b == GL_OP_T ? c->k : c->n;
        break;
    default:
        *rows = c->m;
        *cols = c->n;
    }
}

static int64_t ld_of(const gemm_case *c, char which)
{
    return which == 'A' ? c->lda : which == 'B' ? c->ldb : c->ldc;
}

int64_t case_extent(const gemm_case *c, char which)
{
    int64_t rows, cols;
    case_stored_shape(c, which, &rows, &cols);
    if (rows == 0 || cols == 0)
        return 0;
    const int64_t outer = c->layout == GL_ROW_MAJOR ? rows : cols;
    const int64_t inner = c->layout == GL_ROW_MAJOR ? cols : rows;
    return (outer - 1) * ld_of(c, which) + inner;
}

int case_is_element(const gemm_case *c, char which, int64_t e)
{
    int64_t rows, cols;
    case_stored_shape(c, which, &rows, &cols);
    const int64_t inner = c->layout == GL_ROW_MAJOR ? cols : rows;
    return e % ld_of(c, which) < inner;
}

/* Element (i, j) of a stored operand. */
static float stored(const gemm_case *c, char which, const float *p, int64_t i, int64_t j)
{
    const int64_t ld = ld_of(c, which);
    return c->layout == GL_ROW_MAJOR ? p[i * ld + j] : p[i + j * ld];
}

typedef struct job {
    const gemm_case *c;
    const double *a, *b; /* op(A) m x k and op(B) k x n, dense row-major */
    const float *c0;
    double *ref;
    int64_t row0, row1;
} job;

static void *run_rows(void *arg)
{
    const job *w = arg;
    const gemm_case *c = w->c;
    for (int64_t i = w->row0; i < w->row1; ++i) {
        double *out = w->ref + i * c->n;
        memset(out, 0, sizeof(double) * c->n);
        for (int64_t p = 0; p < c->k; ++p) {
            const double a = w->a[i * c->k + p];
            const double *b = w->b + p * c->n;
            for (int64_t j = 0; j < c->n; ++j)
                out[j] += a * b[j];
        }
        for (int64_t j = 0; j < c->n; ++j) {
            out[j] *= c->alpha;
            if (c->beta != 0.0f)
                out[j] += (double)c->beta * stored(c, 'C', w->c0, i, j);
        }
    }
    return NULL;
}

void reference_gemm(const gemm_case *c, const float *A, const float *B, const float *C0,
                    double *ref)
{
    double *a = malloc(sizeof(double) * (size_t)(c->m * c->k + 1));
    double *b = malloc(sizeof(double) * (size_t)(c->k * c->n + 1));
    if (!a || !b) {
        fprintf(stderr, "reference_gemm: out of memory\n");
        exit(1);
    }
    for (int64_t i = 0; i < c->m; ++i)
        for (int64_t p = 0; p < c->k; ++p)
            a[i * c->k + p] = c->trans_a == GL_OP_T ? stored(c, 'A', A, p, i) : stored(c, 'A', A, i, p);
    for (int64_t p = 0; p < c->k; ++p)
        for (int64_t j = 0; j < c->n; ++j)
            b[p * c->n + j] = c->trans_b == GL_OP_T ? stored(c, 'B', B, j, p) : stored(c, 'B', B, p, j);

    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : cpus > 32 ? 32 : (int)cpus;
    if (c->m * c->n * c->k < (1 << 22))
        threads = 1;
    pthread_t tid[32];
    job jobs[32];
    for (int t = 0; t < threads; ++t) {
        jobs[t] = (job){c, a, b, C0, ref, c->m * t / threads, c->m * (t + 1) / threads};
        if (threads == 1 || pthread_create(&tid[t], NULL, run_rows, &jobs[t]) != 0)
            run_rows(&jobs[t]), tid[t] = 0;
    }
    for (int t = 0; t < threads; ++t)
        if (threads > 1 && tid[t])
            pthread_join(tid[t], NULL);
    free(a);
    free(b);
}

double relative_error(const gemm_case *c, const float *C, const double *ref)
{
    double diff = 0.0, norm = 0.0;
    for (int64_t i = 0; i < c->m; ++i)
        for (int64_t j = 0; j < c->n; ++j) {
            const double x = stored(c, 'C', C, i, j), r = ref[i * c->n + j];
            if (!isfinite(x))
                return INFINITY;
            diff += (x - r) * (x - r);
            norm += r * r;
        }
    return norm > 0.0 ? sqrt(diff / norm) : sqrt(diff);
}

double cancellation(const gemm_case *c, const float *A, const float *B, const float *C0,
                    double ref_norm)
{
    if (c->m * c->n > CANCELLATION_MAX_ELEMENTS)
        return 1.0;
    double norm = 0.0;
    for (int64_t i = 0; i < c->m; ++i)
        for (int64_t j = 0; j < c->n; ++j) {
            double terms = 0.0;
            for (int64_t p = 0; p < c->k; ++p) {
                const float a = c->trans_a == GL_OP_T ? stored(c, 'A', A, p, i)
                                                      : stored(c, 'A', A, i, p);
                const float b = c->trans_b == GL_OP_T ? stored(c, 'B', B, j, p)
                                                      : stored(c, 'B', B, p, j);
                terms += fabs((double)a * b);
            }
            terms *= fabs(c->alpha);
            if (c->beta != 0.0f)
                terms += fabs((double)c->beta * stored(c, 'C', C0, i, j));
            norm += terms * terms;
        }
    norm = sqrt(norm);
    return ref_norm > 0.0 && norm > ref_norm ? norm / ref_norm : 1.0;
}

uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

float rng_uniform(rng *r)
{
    /* 24 random bits, offset by half a step so 0 never comes out. */
    const uint32_t bits = (uint32_t)(rng_next(r) >> 40);
    return ((float)bits + 0.5f) / 8388608.0f - 1.0f;
}

uint64_t test_seed(void)
{
    const char *s = getenv("GL_TEST_SEED");
    if (s && *s)
        return strtoull(s, NULL, 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
}

static const uint32_t poison_bits = 0x7fc0dead;

float poison_value(void)
{
    float f;
    memcpy(&f, &poison_bits, sizeof f);
    return f;
}

int is_poison(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == poison_bits;
}
