/*
 * bench_report.h - the GPU-free half of gemmladder-bench: its command line,
 * and the writers of its results (terminal table, CSV, JSON), plus the
 * reader of Nsight Compute's CSV for --ncu. Results come in as plain structs,
 * so tests/test_bench_report.c can check every writer on fixed inputs
 * without a GPU. Nothing here calls CUDA; the parser only asks the library
 * for variant names.
 */
#ifndef GL_BENCH_REPORT_H
#define GL_BENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BR_MAX_SHAPES 256
#define BR_MAX_VARIANTS 32
/* Largest dimension accepted on the command line, and largest matrix (in
 * elements): far beyond what one GPU can hold, but keeps products in range. */
#define BR_MAX_DIM 16777216
#define BR_MAX_ELEMENTS (INT64_C(1) << 32)

/* "FP32", "TF32", "FP32e": variant v's precision class, for the table. */
const char *br_precision_name(int v);

/* A product's shape, and its form: row-major unless col_major; trans_a: A
 * stored K x M, trans_b: B stored N x K; every matrix contiguous.
 *
 * batch: 0 is a single product, run through gl_sgemm_ex; 1 or more is that
 * many products of the shape in one gl_sgemm_strided_batched call (so 1 is
 * a batch of one, measured against the single call), each operand's
 * matrices back to back (strides M K, K N, M N), or with broadcast_a one A
 * for every product (strideA 0); with pointers, the same matrices in one
 * gl_sgemm_batched call, through arrays of pointers to them. */
typedef struct br_shape {
    int64_t m, n, k;
    int col_major, trans_a, trans_b;
    int64_t batch;
    int broadcast_a;
    int pointers;
} br_shape;

/* Largest batch accepted (gl_sgemm_strided_batched's). */
#define BR_MAX_BATCH INT64_C(2147483647)

/* A row NN shape. */
#define BR_MNK(m_, n_, k_) {.m = (m_), .n = (n_), .k = (k_)}
/* A row NN batch of `b_` products; BR_MNKB_A: with one A for all of them. */
#define BR_MNKB(m_, n_, k_, b_) {.m = (m_), .n = (n_), .k = (k_), .batch = (b_)}
#define BR_MNKB_A(m_, n_, k_, b_) {.m = (m_), .n = (n_), .k = (k_), .batch = (b_), .broadcast_a = 1}

/* "row NN", "col TN", ...: the layout, then op(A) and op(B). */
const char *br_form_name(br_shape s);

/* The products a shape stands for: its batch, or 1 for a single product. */
int64_t br_products(br_shape s);
/* Floats of each operand over the whole batch, as the tool allocates them
 * (A once where it is broadcast). */
int64_t br_floats_a(br_shape s);
int64_t br_floats_b(br_shape s);
int64_t br_floats_c(br_shape s);

/* "1024x1024x1024 row NN", then " x16" for a batch and " bA" for a
 * broadcast A: a shape in messages and progress lines. Written into buf,
 * which is returned. */
const char *br_shape_text(char *buf, size_t size, br_shape s);

typedef enum br_sweep {
    BR_SWEEP_MEDIUM = 0, /* the default */
    BR_SWEEP_QUICK = 1,
    BR_SWEEP_FULL = 2,
    BR_SWEEP_SHAPES = 3, /* --shapes: the engine's goal set */
    BR_SWEEP_BATCHED = 4, /* --batched: issue 45's batched set */
    BR_SWEEP_RANDOM = 5   /* --random SEED: 100 shapes drawn from SEED */
} br_sweep;

typedef enum br_mode {
    BR_MODE_BENCH = 0,        /* the sweep: table, CSV, JSON */
    BR_MODE_HELP = 1,         /* --help */
    BR_MODE_NCU = 2,          /* --ncu: run ncu on this tool's --profile-once */
    BR_MODE_PROFILE_ONCE = 3, /* one call of each chosen rung at --ncu-size */
    BR_MODE_VERSION = 4,      /* --version */
    /* 5 was --replot (removed: python -m gemmladder.plot draws a saved run) */
    BR_MODE_OVERHEAD = 6      /* --overhead: host time per call, GPU kept busy */
} br_mode;

typedef struct br_options {
    br_mode mode;
    br_sweep sweep;
    br_shape shapes[BR_MAX_SHAPES]; /* in the order they run */
    int nshapes;
    int variants[BR_MAX_VARIANTS]; /* rungs to run besides cuBLAS, ascending ids */
    int nvariants;
    int repeats, warmup;
    /* Rungs 1-2 (naive, coalesced) are skipped on shapes with M*N*K above
     * slow_limit^3; 0 means no limit. */
    int64_t slow_limit;
    uint64_t seed;
    int seed_given;
    const char *csv_path, *json_path; /* NULL: not written */
    int64_t ncu_size;       /* square size for --ncu and --profile-once */
    int skip_without_gpu;   /* exit 77 (meson's "skipped") when there is no GPU */
    /* --workspace-limit: gl_set_workspace_limit on the tool's handle before
     * anything runs (0: auto takes no scratch); unset, the library's
     * default (no cap). */
    int64_t workspace_limit;
    int workspace_limit_given;
    /* --random SEED: the seed its shapes are drawn from (not --seed's, of
     * the inputs); random_set: the shapes are that set (shapes given on the
     * command line replace it, as they replace --batched's). */
    uint64_t random_seed;
    int random_set;
} br_options;

/* Parses the command line (argv[0] is the program). Returns 0 and fills *o,
 * or -1 with a one-line message in err (never exits, never prints). */
int br_parse_args(br_options *o, int argc, char **argv, char *err, size_t err_size);

/* The --help text. */
void br_print_usage(FILE *out);

/* What the report's header line says of --workspace-limit: "auto's scratch
 * limited to N bytes", or "" where it was not given. Written into buf,
 * which is returned. */
const char *br_workspace_text(const br_options *o, char *buf, size_t size);

/* What the report's header line says of --random: "shapes: random set of
 * seed N (--random N)" where the shapes are its set, else "". Written into
 * buf, which is returned. */
const char *br_random_text(const br_options *o, char *buf, size_t size);

/* ---- results ------------------------------------------------------------- */

typedef enum br_status {
    BR_OK = 0,          /* checked, then timed */
    BR_WRONG = 1,       /* result above the tolerance: not timed */
    BR_FAILED = 2,      /* the call returned an error: not timed */
    BR_UNAVAILABLE = 3, /* the rung cannot run on this device or build */
    BR_SKIPPED = 4      /* left out on purpose (slow rung above --slow-limit) */
} br_status;

/* "ok", "wrong", "failed", "unavailable", "skipped". */
const char *br_status_name(br_status status);

/* One rung at one shape. Quantities not measured are NAN. */
typedef struct br_result {
    int variant_id;
    char variant[24]; /* gl_variant_name */
    br_shape shape;
    double runtime_ms;       /* median of the repeats */
    double gflops;           /* 2 M N K batch / time */
    double gbps;             /* 4 (M K + K N + M N) bytes / time, each matrix of
                                the batch once (a broadcast A once) */
    double pct_of_reference; /* 100 * gflops / cuBLAS gflops at this shape */
    double rel_error;        /* ||C - C_ref|| / ||C_ref||, C_ref in float64 */
    br_status status;
} br_result;

/* Everything the writers need. Strings may be NULL (written as ""). */
typedef struct br_report {
    const char *device;      /* bu_device_description: name, clocks, driver, date */
    const char *device_name; /* short, for titles: "NVIDIA H100 80GB HBM3" */
    const char *date;        /* ISO 8601 UTC, "2026-11-21T10:00:00Z" */
    const char *version;     /* gemmladder version string */
    int repeats, warmup;
    uint64_t seed;
    const br_result *results;
    size_t count;
} br_report;

/* Fills the derived fields of r from its runtime: gflops, gbps (and leaves
 * pct_of_reference alone). */
void br_fill_rates(br_result *r);

/* The shape the summary shows (and gemmladder.plot's bar panel): size^3 when
 * size > 0 and it was run, else the largest square shape, else the shape
 * with the most work. Returns 0, or -1 when there are no results. */
int br_staircase_shape(const br_report *rep, int64_t size, br_shape *shape);

/* The human table: br_table_header once, then br_table_row per result. */
void br_table_header(FILE *out);
void br_table_row(FILE *out, const br_result *r);
/* The same with a `batch` column after the form (its products, "bA" after
 * them for a broadcast A, "-" for a single product), for runs with batched
 * shapes (br_any_batched); without the column they are the two above. */
void br_table_header_batched(FILE *out, int batch_column);
void br_table_row_batched(FILE *out, const br_result *r, int batch_column);
/* Whether any of the options' shapes is a batch. */
int br_any_batched(const br_options *o);
/* One line per rung: "% of cuBLAS at MxNxK: naive 1.0, ..." at
 * br_staircase_shape(rep, size). */
void br_write_summary(FILE *out, const br_report *rep, int64_t size);

/* For a run with auto (--shapes): auto against the engine's goals, a line
 * each: 90% of cuBLAS on every shape (and which are under), 95% on the
 * geometric mean, 100% where M or N is 1 (with the share of copy_gbps, a
 * device-to-device copy's rate, when it is above 0), each transposed or
 * column-major form's time against the row NN one's at its size, and the
 * shapes where a rung was more than 2% faster. Nothing without auto. */
void br_write_goals(FILE *out, const br_report *rep, double copy_gbps);

/* For a run with auto (--batched): auto against issue 45's goals for
 * batches, a line each: 90% of cuBLAS's strided-batched call on every
 * batched shape (and which are under), 100% on their geometric mean, and
 * each batch of 1 within 5% of the time of the single product of its shape
 * (cuBLAS's change beside it). Nothing without auto. */
void br_write_batch_goals(FILE *out, const br_report *rep);

/* For a run with auto (--random): auto against the goals for a
 * random set, a line each: 90% of cuBLAS on every shape (and which are
 * under), 100% on the geometric mean. Nothing without auto. */
void br_write_random_goals(FILE *out, const br_report *rep);

/* Machine-readable copies. CSV: a header line and one row per result, empty
 * fields for what was not measured. JSON: one object with the device, date,
 * settings and a "results" array (null for what was not measured). Each
 * returns 0, or -1 if writing failed. */
int br_write_csv(FILE *out, const br_report *rep);
int br_write_json(FILE *out, const br_report *rep);

/* The picture is drawn from the JSON by python -m gemmladder.plot; the
 * options that drew it here (--svg, --svg-size, --replot) were removed, and
 * br_parse_args refuses them with a message naming the module. */
#define BR_PICTURE_HELP                                                              \
    "the bench writes --json FILE, and python -m gemmladder.plot FILE -o ladder.svg " \
    "draws the picture (pip install 'gemmladder[plot]')"

/* ---- Nsight Compute ------------------------------------------------------- */

/* Global-load counters of one kernel, summed over its launches. */
typedef struct br_ncu_loads {
    double sectors;  /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
    double requests; /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
    int found;       /* rows seen for this kernel */
} br_ncu_loads;

#define BR_NCU_SECTORS "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define BR_NCU_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"

/* Reads `ncu --csv` output (details page: one row per metric; or raw page:
 * one column per metric), skipping ncu's "==PROF==" lines, and adds up the
 * two load counters of kernels whose name contains kernel_substring.
 * Returns 0, or -1 if no CSV header with a "Kernel Name" column was found. */
int br_parse_ncu_csv(FILE *in, const char *kernel_substring, br_ncu_loads *loads);

#endif
