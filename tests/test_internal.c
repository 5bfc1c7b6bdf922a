/*
 * test_internal.c - host-side internals: which GPUs a build's code runs on,
 * and the registry's shape.
 */
#include "harness.h"
#include "engine/engine.h"
#include "internal.h"

static void test_arch_coverage(void)
{
    const char *dflt = "80,86,89,90";
    static const struct { int cc, ptx, want; } cases[] = {
        {80, 90, 1},  {86, 90, 1},  {87, 90, 1}, /* sm_86 code runs on 8.7 */
        {89, 90, 1},  {90, 90, 1},  {100, 90, 1}, /* PTX compute_90 JITs forward */
        {120, 90, 1}, {75, 90, 0},  {70, 90, 0},  {100, 0, 0}, {120, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        CHECK(gl_arch_list_covers(dflt, cases[i].ptx, cases[i].cc) == cases[i].want,
              "archs %s ptx %d on cc %d: want %d", dflt, cases[i].ptx, cases[i].cc,
              cases[i].want);
    CHECK(gl_arch_list_covers("90", 0, 90), "exact");
    CHECK(!gl_arch_list_covers("90", 0, 89), "older minor of another major");
    CHECK(!gl_arch_list_covers("86", 0, 80), "sm_86 code does not run on 8.0");
    CHECK(!gl_arch_list_covers("", 0, 90), "empty list");
    CHECK(gl_arch_list_covers("", 80, 90), "PTX only");
    CHECK(!gl_arch_list_covers("", 90, 80), "PTX newer than the device");
    /* the code that runs: machine code of the major, else the PTX */
    static const struct { const char *archs; int ptx, cc, want; } code[] = {
        {"80,86,89,90", 90, 90, 90}, {"80,86,89,90", 90, 87, 86}, {"80,86,89,90", 90, 100, 90},
        {"80,86,89", 89, 90, 89},    {"80", 80, 90, 80},          {"80", 0, 90, 0},
        {"", 80, 86, 80},            {"90", 0, 80, 0},            {"86,80", 0, 89, 86},
    };
    for (size_t i = 0; i < sizeof code / sizeof code[0]; ++i)
        CHECK(gl_arch_list_code(code[i].archs, code[i].ptx, code[i].cc) == code[i].want,
              "archs %s ptx %d on cc %d: code for %d, want %d", code[i].archs, code[i].ptx,
              code[i].cc, gl_arch_list_code(code[i].archs, code[i].ptx, code[i].cc),
              code[i].want);
}

/* The descriptor table: one row per id, in order, everything a variant
 * needs, and every list of variants derived from it. */
static void test_descriptors(void)
{
    CHECK(gl_variant_count() >= 10 && gl_variant_count() <= GL_VARIANT_MAX, "%d variants",
          (int)gl_variant_count());
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        CHECK(d && d->id == (gl_variant_t)v, "row %d holds its own id", v);
        if (!d)
            continue;
        CHECK(d->name && *d->name && strcmp(gl_variant_name(d->id), d->name) == 0,
              "variant %d has a name", v);
        gl_variant_t back = (gl_variant_t)-1;
        CHECK(gl_variant_from_name(d->name, &back) == GL_STATUS_SUCCESS && back == d->id,
              "'%s' round-trips through gl_variant_from_name", d->name);
        for (int w = 0; w < v; ++w)
            CHECK(strcmp(gl_variant_find((gl_variant_t)w)->name, d->name) != 0,
                  "variants %d and %d share a name", w, v);
        CHECK(d->launch != NULL, "variant %s has a launcher", d->name);
        CHECK(d->precision == GL_PRECISION_FP32 || d->precision == GL_PRECISION_TF32,
              "variant %s is FP32 or TF32 (%d)", d->name, (int)d->precision);
        CHECK(d->precision != GL_PRECISION_TF32 || d->uses_cublas || d->min_cc >= 80,
              "variant %s: TF32 tensor cores need compute capability 8.0", d->name);
        CHECK(d->uses_cublas == (d->schema == NULL) && (d->config_count > 0) != d->uses_cublas,
              "variant %s: cuBLAS has no tiles, every kernel has a schema and configurations",
              d->name);
        CHECK(gl_variant_config_count(d->id) == d->config_count, "%s's count", d->name);
        CHECK(!d->arch_specific || d->min_cc > 0, "%s: architecture-specific code names its "
              "architecture", d->name);
        if (gl_variant_tuned(d)) {
            const gl_variant_desc *rows = gl_variant_find((gl_variant_t)d->rows_of);
            CHECK(rows && gl_variant_takes_rows(rows) && rows->schema == d->schema &&
                      rows->configs == d->configs,
                  "%s reads the rows of a variant with its own rows and the same kernel", d->name);
            CHECK(gl_variant_with_rows(d->name) == (gl_variant_takes_rows(d) ? d : NULL),
                  "tables name %s only if it has rows of its own", d->name);
            CHECK(d->schema->rule != NULL, "%s's tiles are chosen: its schema has a rule",
                  d->name);
        } else {
            CHECK(gl_variant_with_rows(d->name) == NULL, "no rows for fixed %s", d->name);
        }
        if (d->fill) {
            int count = 0;
            CHECK(gl_tiles_compiled(d, d->fill, &count) &&
                      gl_tiles_smem(d->schema, d->fill) <= 48 * 1024,
                  "%s's fill tiles are compiled and fit any GPU's shared memory", d->name);
        }
        /* The rows' facts as gl_variant_describe gives them. */
        gl_variant_info info = {.size = sizeof info};
        CHECK(gl_variant_describe(d->id, &info) == GL_STATUS_SUCCESS && info.variant == v &&
                  strcmp(info.name, d->name) == 0 && info.precision == (int)d->precision &&
                  info.min_cc == d->min_cc && info.arch_specific == d->arch_specific &&
                  info.reference == d->reference && info.engine == d->engine &&
                  info.auto_runs == d->auto_runs && info.slow == d->slow &&
                  info.takes_rows == gl_variant_takes_rows(d) && info.rows_of == d->rows_of &&
                  info.config_count == d->config_count &&
                  info.tile_field_count == (d->schema ? d->schema->field_count : 0),
              "gl_variant_describe(%s) gives its row", d->name);
    }
    CHECK(gl_variant_find((gl_variant_t)gl_variant_count()) == NULL &&
              gl_variant_find((gl_variant_t)-1) == NULL,
          "no row outside the table");
    int references = 0, engines = 0;
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        references += d->reference && d->precision == GL_PRECISION_FP32;
        engines += d->engine;
        CHECK(!d->auto_runs || (d->schema && d->schema->rule && !d->engine),
              "the engine runs %s's kernel on tiles it can choose", d->name);
        CHECK(!d->auto_runs || d->precision == GL_PRECISION_FP32,
              "the engine (FP32) runs %s's kernel of precision %d", d->name, (int)d->precision);
    }
    CHECK(references == 1 && engines == 1, "one FP32 reference (%d) and one engine (%d)",
          references, engines);
    char rows[256], want[256] = "";
    gl_variants_with_rows(rows, sizeof rows);
    for (int v = 0; v < gl_variant_count(); ++v)
        if (gl_variant_takes_rows(gl_variant_find((gl_variant_t)v)))
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", *want ? ", " : "",
                     gl_variant_name((gl_variant_t)v));
    CHECK(*rows && strcmp(rows, want) == 0, "variants with rows: '%s', want '%s'", rows, want);
}

/* The schemas: fields in range, the others 0, every compiled configuration
 * within its variant's schema; and the field table. */
static void test_schemas(void)
{
    for (int f = 0; f < GL_FIELD_COUNT; ++f) {
        CHECK(gl_tile_field_find(gl_tile_fields[f].name) == f, "field %d found by its name", f);
        for (int g = 0; g < f; ++g)
            CHECK(gl_tile_fields[g].in_params != gl_tile_fields[f].in_params &&
                      gl_tile_fields[g].in_tiles != gl_tile_fields[f].in_tiles,
                  "fields %s and %s share no word", gl_tile_fields[g].name,
                  gl_tile_fields[f].name);
        CHECK(gl_tile_fields[f].in_tiles + sizeof(int32_t) <= offsetof(gl_tiles, reserved) ||
                  (gl_tile_fields[f].in_tiles >= offsetof(gl_tiles, reserved) &&
                   gl_tile_fields[f].in_tiles < offsetof(gl_tiles, reserved) + 4 * sizeof(int32_t)),
              "%s is a member of gl_tiles or one of reserved[0..3]", gl_tile_fields[f].name);
    }
    CHECK(gl_tile_field_find("colour") == -1, "no field 'colour'");
    for (int v = 0; v < gl_variant_count(); ++v) {
        const gl_variant_desc *d = gl_variant_find((gl_variant_t)v);
        const gl_tile_schema *s = d->schema;
        if (!s)
            continue;
        for (int i = 0; i < s->field_count; ++i) {
            const gl_tile_range *r = &s->fields[i];
            CHECK(r->field >= 0 && r->field < GL_FIELD_COUNT && 1 <= r->min && r->min <= r->max,
                  "%s: field %d has a range", d->name, i);
            CHECK(!r->derived || s->derive, "%s: a derived field has the schema's derive",
                  d->name);
            for (int j = 0; j < i; ++j)
                CHECK(s->fields[j].field != r->field, "%s lists a field twice", d->name);
            gl_tile_field_info info = {.size = sizeof info};
            CHECK(gl_variant_tile_field(d->id, i, &info) == GL_STATUS_SUCCESS &&
                      strcmp(info.name, gl_tile_fields[r->field].name) == 0 &&
                      info.min == r->min && info.max == r->max &&
                      info.derived == (r->derived != NULL),
                  "gl_variant_tile_field(%s, %d) gives the schema's field", d->name, i);
        }
        for (int c = 0; c < d->config_count; ++c)
            for (int f = 0; f < GL_FIELD_COUNT; ++f) {
                const gl_tile_range *r = gl_tile_range_of(s, (gl_tile_field_id)f);
                const int value = gl_tile_value(&d->configs[c], (gl_tile_field_id)f);
                CHECK(r ? r->min <= value && value <= r->max : value == 0,
                      "%s configuration %d: %s = %d within its schema", d->name, c,
                      gl_tile_fields[f].name, value);
            }
    }
}

/* Rung 8's tiles the engine's tests plan with: the sm_90 table's 128 x 128
 * (medium and large classes) and 64 x 64 x 32 (small), and the fill tiles,
 * 64 x 64 x 16 (configs.h). */
static const gl_tile_params w128 = {128, 128, 16, 4, 4, 64, 32, 2, 256, 0};
static const gl_tile_params w64_32 = {64, 64, 32, 8, 4, 32, 32, 1, 128, 0};
static const gl_tile_params w64 = {64, 64, 16, 8, 4, 32, 32, 1, 128, 0};

/* The library's tiled kernels take a gl_problem and a gl_schedule as their
 * parameters: the empty kernel of gemmladder-bench --overhead takes as many
 * bytes. */
_Static_assert(sizeof(gl_problem) + sizeof(gl_schedule) == 144,
               "tools/gemmladder-bench.c: KERNEL_PARAM_BYTES");

/* What auto does with a problem (engine/plan.c). Pointers are only looked
 * at for their alignment. */
static gl_problem problem(int m, int n, int k, int64_t lda, int64_t ldb, uintptr_t a_offset)
{
    return (gl_problem){m, n, k, 1.0f, 0.0f, (const float *)(uintptr_t)(0x100000 + a_offset), lda,
                        false, (const float *)(uintptr_t)0x200000, ldb, false,
                        (float *)(uintptr_t)0x300000, n};
}

static void expect_plan(gl_problem p, const gl_tile_params *t, bool can_copy, gl_path_t path,
                        bool copy_a, bool copy_b, const char *what)
{
    gl_engine_plan plan;
    gl_engine_plan_for(&p, t, false, 132, can_copy, &plan);
    CHECK(plan.kernel == GL_VARIANT_WARPTILE && plan.path == path && plan.a.made == copy_a &&
              plan.b.made == copy_b &&
              (plan.bytes > 0) == (copy_a || copy_b) && plan.why && *plan.why,
          "%s: path %d (want %d), copies A %d B %d (want %d %d)", what, (int)plan.path,
          (int)path, plan.a.made, plan.b.made, copy_a, copy_b);
    if (copy_a || copy_b)
        CHECK(plan.k % t->bk == 0 && plan.k >= p.k && plan.aligned, "%s: copies padded", what);
}

static void test_engine_plan(void)
{
    const gl_tile_params *t = &w128;
    expect_plan(problem(2048, 2048, 2048, 2048, 2048, 0), t, true, GL_PATH_INTERIOR, false, false,
                "2048^3, aligned whole tiles");
    expect_plan(problem(2000, 2000, 1000, 1000, 2000, 0), t, true, GL_PATH_EDGE_WINDOWS, false,
                false, "2000 x 2000 x 1000: rows on 32 bytes, extents multiples of 4");
    expect_plan(problem(1000, 1000, 1000, 1001, 1000, 0), t, true, GL_PATH_SPLIT_K, true, true,
                "1000^3 with A unaligned: both copied (K padded) for the split that pays");
    expect_plan(problem(2048, 2048, 2048, 2049, 2048, 0), t, true, GL_PATH_PACKED, true, false,
                "2048^3 with A unaligned: A copied");
    expect_plan(problem(4097, 4097, 4097, 4097, 4097, 0), t, true, GL_PATH_PACKED, true, true,
                "4097^3: both copied");
    expect_plan(problem(4097, 4097, 4097, 4097, 4097, 0), t, false, GL_PATH_EDGE_TESTS, false, false,
                "4097^3 without scratch: read in place");
    expect_plan(problem(4096, 127, 4096, 4096, 127, 0), t, true, GL_PATH_SPLIT_K, false, true,
                "4096 x 127 x 4096: the thin B copied, then K split");
    expect_plan(problem(32768, 127, 1024, 1024, 127, 0), t, true, GL_PATH_PACKED, false, true,
                "32768 x 127 x 1024: the thin B copied, enough tiles not to split");
    expect_plan(problem(3807, 2881, 1501, 1501, 2881, 0), t, true, GL_PATH_PACKED, true, true,
                "3807 x 2881 x 1501: copied for a split, K padded in both, then not split");
    expect_plan(problem(2050, 2052, 1001, 1001, 2052, 0), &w64, true, GL_PATH_PACKED, true, true,
                "2050 x 2052 x 1001 on the fill tiles: K padded in both");
    expect_plan(problem(4096, 4096, 4100, 4100, 4096, 0), t, true, GL_PATH_PACKED, true, true,
                "4096 x 4096 x 4100: rows on 16 bytes only, copied");
    expect_plan(problem(2000, 1000, 500, 500, 1000, 16), t, true, GL_PATH_EDGE_WINDOWS, false,
                false, "2000 x 1000 x 500, A on 16 bytes only: copying A does not pay");
    expect_plan(problem(1024, 1024, 1024, 1024, 1024, 4), t, true, GL_PATH_SPLIT_K, true, false,
                "1024^3, A 4 bytes off: A copied for the split that pays");
    expect_plan(problem(1024, 1024, 1024, 1024, 1024, 4), t, false, GL_PATH_EDGE_TESTS, false, false,
                "1024^3, A 4 bytes off, without scratch: read in place");
    expect_plan(problem(64, 64, 64, 64, 64, 0), t, true, GL_PATH_EDGE_TESTS, false, false,
                "64^3: smaller than a tile, too small to copy");
    expect_plan(problem(3000, 127, 1536, 1536, 127, 0), t, true, GL_PATH_SPLIT_K, false, true,
                "3000 x 127 x 1536: B copied, A left, then K split");
    expect_plan(problem(127, 4096, 4096, 4096, 4096, 0), t, true, GL_PATH_SPLIT_K, true, false,
                "127 x 4096 x 4096: A copied into whole tiles, then K split");
    expect_plan(problem(127, 4096, 4096, 4096, 4096, 0), t, false, GL_PATH_EDGE_TESTS, false, false,
                "127 x 4096 x 4096 without scratch: aligned, read in place with tests");
    /* Operands read a float at a time, copied for a split only where it
     * pays against their own kernel (taken 15% slower than the model's)
     * after the copies' traffic, and against a split in place: */
    expect_plan(problem(660, 1442, 2855, 2855, 1442, 0), &w64, true, GL_PATH_SPLIT_K, true, true,
                "660 x 1442 x 2855: splits only for the 15%");
    expect_plan(problem(7303, 54, 1245, 1245, 54, 0), &w64_32, false, GL_PATH_EDGE_TESTS, false, false,
                "7303 x 54 x 1245 without scratch: in place, unsplit");
    {
        /* the copies cost more than the split saves: in place, here on the
         * fill tiles, so on rung 6's kernel */
        gl_engine_plan plan;
        const gl_problem q = problem(441, 3487, 2727, 2727, 3487, 0);
        gl_engine_plan_for(&q, &w64, false, 132, true, &plan);
        CHECK(plan.kernel == GL_VARIANT_VECTORIZED && plan.path == GL_PATH_EDGE_TESTS &&
                  !plan.a.made && !plan.b.made && plan.bytes == 0,
              "441 x 3487 x 2727: kernel %d path %d, copies %d %d (want rung 6 in place)",
              (int)plan.kernel, (int)plan.path, plan.a.made, plan.b.made);
    }
    /* ... else split in place, a float per load, where the copies cost more
     * than they save */
    const struct {
        int m, n, k;
    } split_in_place[] = {{187, 5292, 5171}, {7303, 54, 1245}, {5551, 134, 4077}, {25, 3971, 7238}};
    for (size_t i = 0; i < sizeof split_in_place / sizeof split_in_place[0]; ++i) {
        gl_engine_plan plan;
        const int m = split_in_place[i].m, n = split_in_place[i].n, k = split_in_place[i].k;
        gl_engine_plan_for(&(gl_problem){m, n, k, 1.0f, 0.0f, (const float *)(uintptr_t)0x100000,
                                         k, false, (const float *)(uintptr_t)0x200000, n, false,
                                         (float *)(uintptr_t)0x300000, n},
                           &w64_32, false, 132, true, &plan);
        CHECK(plan.kernel == GL_VARIANT_WARPTILE && plan.path == GL_PATH_SPLIT_K &&
                  plan.splits > 1 && !plan.aligned && !plan.whole && plan.part_depth == 0 &&
                  !plan.a.made && !plan.b.made && plan.parts_offset == 0 &&
                  plan.bytes == (size_t)plan.splits * (size_t)m * (size_t)gl_split_ld(n) *
                                    sizeof(float),
              "%d x %d x %d: path %d, %d parts, aligned %d, copies %d %d (want split in place)",
              m, n, k, (int)plan.path, plan.splits, plan.aligned, plan.a.made, plan.b.made);
    }
    /* Split-K: where the cost model (engine/plan.c) puts a split at under
     * nine tenths of the grid as it is; its tiles are the call's or 128 x
     * 128, unless pinned. */
    const struct {
        gl_problem p;
        const gl_tile_params *t;
        bool can_copy, pinned;
        int parts, bm;
        bool whole; /* the parts read whole tiles, without tests */
    } splits[] = {
        /* 32 blocks: 8 parts make 256, two an SM; A's 127 rows copied into
         * 128, so the parts read whole tiles */
        {problem(127, 4096, 4096, 4096, 4096, 0), t, true, false, 8, 128, true},
        /* operands read a float at a time, copied for a split on 128 x 128
         * tiles and padded to them, not to the call's 64 x 64: whole */
        {problem(1025, 1023, 1027, 1027, 1023, 0), &w64, true, false, 3, 128, true},
        /* 64 blocks of 128 x 128 in 4 parts, two an SM, over 256 blocks of
         * 64 x 64 (two an SM, 8 warps); and a fifth, short, on the 8
         * places left (short_last_part) */
        {problem(1024, 1024, 32768, 32768, 1024, 0), &w64, true, false, 5, 128, true},
        /* K not whole slices: the last part's last slice is tested (and no
         * short part) */
        {problem(1024, 1024, 32760, 32760, 1024, 0), &w64, true, false, 4, 128, false},
        {problem(1024, 1024, 32768, 32768, 1024, 0), t, false, false, 1, 0, false}, /* no scratch */
        /* pinned 64 x 64: 2 parts make four blocks an SM, 16 warps; a
         * third, short, on the places left */
        {problem(1024, 1024, 32768, 32768, 1024, 0), &w64, true, true, 3, 64, true},
        {problem(1024, 1024, 300, 300, 1024, 0), &w64, true, false, 1, 0, false}, /* K too short */
        /* K = 1000: four parts, 256 deep but the last (232), not three of 352 */
        {problem(1000, 1000, 1000, 1000, 1000, 0), &w64, true, false, 4, 128, false},
        {problem(4096, 4096, 4096, 4096, 4096, 0), t, true, false, 1, 0, false}, /* enough blocks */
        /* A not in groups: copied (whole tiles, K padded to 32784), then
         * split as when aligned */
        {problem(1024, 1024, 32768, 32769, 1024, 0), t, true, false, 5, 128, true},
        /* 4 blocks: 64 parts (the most) make 256 */
        {problem(256, 256, 65536, 65536, 256, 0), &w64, true, false, 64, 128, true},
        /* one block, 64 parts, at most */
        {problem(40, 40, 16384, 16384, 40, 0), &w64, true, false, 64, 64, false},
        /* B's rows of 127 floats copied first, padded to 128 (so whole
         * tiles); the parts' rows 128 apart */
        {problem(4096, 127, 4096, 4096, 127, 0), t, true, false, 8, 128, true},
    };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; ++i) {
        gl_engine_plan plan;
        gl_engine_plan_for(&splits[i].p, splits[i].t, splits[i].pinned, 132, splits[i].can_copy,
                           &plan);
        const bool split = plan.path == GL_PATH_SPLIT_K;
        CHECK(split == (splits[i].parts > 1) && (!split || plan.splits == splits[i].parts) &&
                  (!split || plan.tiles.bm == splits[i].bm) &&
                  (!split || plan.whole == splits[i].whole) &&
                  (!split || plan.bytes - plan.parts_offset ==
                                 (size_t)plan.splits * (size_t)splits[i].p.m *
                                     (size_t)gl_split_ld(splits[i].p.n) * sizeof(float)),
              "%d x %d x %d: path %d, %d parts (want %d), whole %d (want %d)", splits[i].p.m,
              splits[i].p.n, splits[i].p.k, (int)plan.path, plan.splits, splits[i].parts,
              plan.whole, splits[i].whole);
    }
    /* Split-K's thin tiles: 128 x 32 for C of 256 columns or fewer, 32 x
     * 128 for 32 rows or fewer, not for 33 */
    const struct {
        int m, n, k, bm, bn;
    } thin[] = {{5618, 71, 1402, 128, 32}, {2165, 77, 601, 128, 32}, {32, 4096, 4096, 32, 128},
                {33, 4096, 4096, 64, 64}, {91, 2885, 3636, 128, 128}};
    for (size_t i = 0; i < sizeof thin / sizeof thin[0]; ++i) {
        gl_engine_plan plan;
        const gl_problem q = problem(thin[i].m, thin[i].n, thin[i].k, thin[i].k, thin[i].n, 0);
        gl_engine_plan_for(&q, &w64, false, 132, true, &plan);
        CHECK(plan.path == GL_PATH_SPLIT_K && plan.tiles.bm == thin[i].bm &&
                  plan.tiles.bn == thin[i].bn,
              "%d x %d x %d: path %d on %d x %d tiles (want split-K on %d x %d)", thin[i].m,
              thin[i].n, thin[i].k, (int)plan.path, plan.tiles.bm, plan.tiles.bn, thin[i].bm,
              thin[i].bn);
    }
    /* 64 x 64 tiles run on rung 6's kernel where their grid fills the SMs,
     * unless pinned. */
    const struct {
        int m, n;
        bool pinned;
        gl_variant_t kernel;
    } kernels[] = {{1024, 1024, false, GL_VARIANT_VECTORIZED}, {1000, 1000, false, GL_VARIANT_VECTORIZED},
                   {512, 512, false, GL_VARIANT_WARPTILE},     {1024, 1024, true, GL_VARIANT_WARPTILE},
                   {728, 728, false, GL_VARIANT_VECTORIZED},   {704, 704, false, GL_VARIANT_WARPTILE},
                   {1024, 1023, false, GL_VARIANT_VECTORIZED}}; /* B's rows off 16 bytes, K 256 */
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
        gl_engine_plan plan;
        const gl_problem q = problem(kernels[i].m, kernels[i].n, 256, 256, kernels[i].n, 0);
        gl_engine_plan_for(&q, &w64, kernels[i].pinned, 132, true, &plan);
        CHECK(plan.kernel == kernels[i].kernel &&
                  (plan.kernel == GL_VARIANT_WARPTILE
                       ? gl_tile_params_equal(&plan.tiles, &w64)
                       : plan.tiles.bm == 64 && plan.tiles.wm == 0 && plan.path == GL_PATH_EDGE_TESTS),
              "%d x %d%s on 64 x 64 tiles: kernel %d (want %d)", kernels[i].m, kernels[i].n,
              kernels[i].pinned ? " pinned" : "", (int)plan.kernel, (int)kernels[i].kernel);
    }
    /* Aligned operands whose grid of 64 x 64 tiles gives some SMs two
     * blocks or fewer (under 3 x 132) are split where the model says so, but
     * not in two parts on 128 x 128 tiles; with three or more blocks an SM
     * they stay on rung 6's kernel. */
    const struct {
        int m, n, k;
        bool trans_b;
        gl_variant_t kernel;
        int parts; /* 1: unsplit */
    } band[] = {{1824, 600, 1248, false, GL_VARIANT_WARPTILE, 3}, /* 290 tiles */
                {272, 5040, 2056, true, GL_VARIANT_VECTORIZED, 1}, /* two on 128 x 128 */
                {2000, 1000, 1000, false, GL_VARIANT_VECTORIZED, 1}}; /* 512 tiles */
    for (size_t i = 0; i < sizeof band / sizeof band[0]; ++i) {
        gl_problem q = problem(band[i].m, band[i].n, band[i].k, band[i].k,
                               band[i].trans_b ? band[i].k : band[i].n, 0);
        q.trans_b = band[i].trans_b;
        gl_engine_plan plan; /* on the sm_90 table's small tiles, 64 x 64 x 32 */
        gl_engine_plan_for(&q, &w64_32, false, 132, true, &plan);
        CHECK(plan.kernel == band[i].kernel && plan.splits == band[i].parts,
              "%d x %d x %d: kernel %d in %d parts (want %d in %d)", band[i].m, band[i].n,
              band[i].k, (int)plan.kernel, plan.splits, (int)band[i].kernel, band[i].parts);
    }
    /* A short K runs on rung 6's kernel, whatever the call's tiles, where
     * its grid gives every SM eight 64 x 64 tiles (8 x 132 = 1056), unless
     * pinned; so, where C's rows are off 16 bytes (here ldc = N), whatever
     * the operands' alignment, does a K of 384 or less, or of 1024 or less
     * where the tiles' grid leaves a quarter of its places empty; and so
     * does an operand read a float at a time in place, for a short K (the
     * engine's in_place). */
    const struct {
        int m, n, k;
        bool pinned;
        gl_variant_t kernel;
    } short_k[] = {{4096, 4096, 64, false, GL_VARIANT_VECTORIZED},
                   {4096, 4096, 16, false, GL_VARIANT_VECTORIZED},
                   {4096, 4096, 68, false, GL_VARIANT_WARPTILE},
                   {4096, 4096, 64, true, GL_VARIANT_WARPTILE},
                   {2112, 2048, 64, false, GL_VARIANT_VECTORIZED}, /* 33 x 32 = 1056 tiles */
                   {2048, 2048, 64, false, GL_VARIANT_WARPTILE},   /* 1024 */
                   {4097, 4097, 128, false, GL_VARIANT_VECTORIZED},
                   {4097, 4097, 384, false, GL_VARIANT_VECTORIZED},
                   {4097, 4097, 388, false, GL_VARIANT_WARPTILE}, /* 1089 blocks, 1320 places */
                   {4097, 4097, 128, true, GL_VARIANT_WARPTILE},
                   {3001, 3001, 1024, false, GL_VARIANT_VECTORIZED}, /* 576 blocks, 792 */
                   {3001, 3001, 1028, false, GL_VARIANT_WARPTILE},
                   {8191, 8191, 512, false, GL_VARIANT_WARPTILE}, /* 4096 blocks, 4224 */
                   {4096, 4097, 128, false, GL_VARIANT_VECTORIZED},  /* B and C off */
                   {4096, 4096, 129, false, GL_VARIANT_WARPTILE},    /* A off, C not */
                   {2049, 2049, 128, false, GL_VARIANT_VECTORIZED},  /* 33 x 33 tiles */
                   /* B read a float at a time, in place: rung 6's kernel for a
                    * K of 128 or less, of 384 or less from one 64 x 64 tile an
                    * SM, of 1024 or less from four (528), whatever C */
                   {83, 1749, 77, false, GL_VARIANT_VECTORIZED},     /* 2 x 28 */
                   {83, 1749, 77, true, GL_VARIANT_WARPTILE},
                   {108, 2217, 130, false, GL_VARIANT_WARPTILE},     /* 2 x 35 */
                   {108, 2217, 223, false, GL_VARIANT_WARPTILE},
                   {1407, 1407, 384, false, GL_VARIANT_VECTORIZED},  /* 22 x 22 */
                   {1407, 1407, 400, false, GL_VARIANT_WARPTILE},
                   {4289, 703, 705, false, GL_VARIANT_VECTORIZED},   /* 68 x 11 */
                   {4289, 703, 1028, false, GL_VARIANT_WARPTILE}};
    for (size_t i = 0; i < sizeof short_k / sizeof short_k[0]; ++i) {
        gl_engine_plan plan;
        const gl_problem q =
            problem(short_k[i].m, short_k[i].n, short_k[i].k, short_k[i].k, short_k[i].n, 0);
        gl_engine_plan_for(&q, t, short_k[i].pinned, 132, true, &plan);
        CHECK(plan.kernel == short_k[i].kernel &&
                  (plan.kernel == GL_VARIANT_WARPTILE ? gl_tile_params_equal(&plan.tiles, t)
                                                      : plan.tiles.bm == 64 && plan.tiles.wm == 0) &&
                  (plan.kernel == GL_VARIANT_WARPTILE || /* rung 6 reads them as they are */
                   plan.aligned == (gl_a_vec4_ok(&q) && gl_b_vec4_ok(&q))) &&
                  strlen(plan.why) < sizeof ((gl_plan *)0)->why,
              "%d x %d x %d%s: kernel %d (want %d)", short_k[i].m, short_k[i].n, short_k[i].k,
              short_k[i].pinned ? " pinned" : "", (int)plan.kernel, (int)short_k[i].kernel);
    }
    /* Copies made where rung 6's kernel would read the operands in place
     * (A read a float at a time, a K it takes): rung 6 where split-K's
     * model puts its grid of 64 x 64 tiles under the copies and rung 8's
     * grid of the call's larger tiles; the copies on the call's 64 x 64
     * tiles, or pinned ones. */
    const struct {
        int m, n, k;
        const gl_tile_params *t;
        bool pinned;
        gl_variant_t kernel;
    } copies_or_rung6[] = {
        {4843, 2716, 101, &w128, false, GL_VARIANT_VECTORIZED}, /* 3.2 rounds of 128 x 128 */
        {1356, 1985, 669, &w128, false, GL_VARIANT_VECTORIZED}, /* 0.67 */
        {5088, 1351, 662, &w128, false, GL_VARIANT_VECTORIZED}, /* the copies' traffic decides */
        {5852, 2140, 293, &w128, false, GL_VARIANT_WARPTILE},   /* 2.96 */
        {4843, 2716, 101, &w128, true, GL_VARIANT_WARPTILE},
        {1982, 2424, 746, &w64, false, GL_VARIANT_WARPTILE}};
    for (size_t i = 0; i < sizeof copies_or_rung6 / sizeof copies_or_rung6[0]; ++i) {
        gl_engine_plan plan;
        const int m = copies_or_rung6[i].m, n = copies_or_rung6[i].n, k = copies_or_rung6[i].k;
        const gl_problem q = problem(m, n, k, k, n, 0);
        gl_engine_plan_for(&q, copies_or_rung6[i].t, copies_or_rung6[i].pinned, 132, true, &plan);
        const bool rung6 = copies_or_rung6[i].kernel == GL_VARIANT_VECTORIZED;
        CHECK(plan.kernel == copies_or_rung6[i].kernel &&
                  (rung6 ? plan.path == GL_PATH_EDGE_TESTS && plan.bytes == 0 && !plan.a.made &&
                               !plan.b.made && plan.k == k && plan.splits == 1
                         : plan.path == GL_PATH_PACKED && plan.a.made && plan.b.made),
              "%d x %d x %d on %d x %d tiles%s: kernel %d path %d (want %d)", m, n, k,
              copies_or_rung6[i].t->bm, copies_or_rung6[i].t->bn,
              copies_or_rung6[i].pinned ? " pinned" : "", (int)plan.kernel, (int)plan.path,
              (int)copies_or_rung6[i].kernel);
    }
    /* An operand read a float at a time, in place, on the fill tiles (rung
     * 6's own shape) at any K: rung 6's kernel; on the table's 64 x 64 x
     * 32, rung 8's (here split, after copies). */
    for (int fill = 0; fill < 2; ++fill) {
        gl_engine_plan plan;
        const gl_problem q = problem(6949, 515, 5576, 5576, 515, 0);
        gl_engine_plan_for(&q, fill ? &w64 : &w64_32, false, 132, true, &plan);
        CHECK(fill ? plan.kernel == GL_VARIANT_VECTORIZED && plan.path == GL_PATH_EDGE_TESTS &&
                         plan.bytes == 0
                   : plan.kernel == GL_VARIANT_WARPTILE && plan.path == GL_PATH_SPLIT_K &&
                         plan.b.made,
              "6949 x 515 x 5576 (B off) on 64 x 64 x %d tiles: kernel %d path %d", fill ? 16 : 32,
              (int)plan.kernel, (int)plan.path);
    }
    /* Copies hold whole tiles of the tiles the plan runs (for the rows
     * above a last round cut off, their rows), whichever tiles they were
     * padded for: a kernel reading whole tiles untested must not read past
     * them (1077 x 197 x 269, both transposed, on 64 x 64 x 32
     * tiles: B once padded only to the 128 x 32 split's 32 columns, then run
     * packed on 64 x 64). A sweep of shapes, layouts and tiles (the
     * half tiles' copies too). */
    {
        const gl_tile_params *tiles[] = {&w128, &w64, &w64_32};
        uint64_t seed = 12345; /* Park and Miller's generator: no product wraps */
#define NEXT_DRAW (seed = seed * 48271 % 2147483647)
        int bad = 0, copied = 0;
        for (int i = 0; i < 30000; ++i) {
            int v[3];
            for (int j = 0; j < 3; ++j) { /* about log-uniform, 1 .. 16383 */
                v[j] = 1 << NEXT_DRAW % 14;
                v[j] += (int)(NEXT_DRAW % (uint64_t)v[j]);
            }
            const bool ta = NEXT_DRAW & 1, tb = NEXT_DRAW & 1;
            const int m = v[0], n = v[1], k = v[2];
            const gl_problem q = {m, n, k, 1.0f, 0.0f, (const float *)(uintptr_t)0x100000,
                                  ta ? m : k, ta, (const float *)(uintptr_t)0x200000,
                                  tb ? k : n, tb, (float *)(uintptr_t)0x300000, n};
            gl_engine_plan plan, tail;
            gl_engine_plan_call(&q, tiles[i % 3], false, 132, 90, true, &plan, &tail);
            if ((plan.kernel != GL_VARIANT_WARPTILE && plan.kernel != GL_VARIANT_PIPELINED) ||
                (!plan.a.made && !plan.b.made) ||
                plan.a.transposed)
                continue;
            ++copied;
            const int64_t a_x = ta ? plan.a.cols : plan.a.rows;
            const int64_t b_x = tb ? plan.b.rows : plan.b.cols;
            if ((plan.a.made && a_x % plan.tiles.bm) || (plan.b.made && b_x % plan.tiles.bn) ||
                (plan.a.made && a_x < m - plan.tail_rows) || (plan.b.made && b_x < n)) {
                if (bad++ < 5)
                    CHECK(false, "%d x %d x %d (trans %d %d): copies %lld, %lld along C for %d x %d "
                                 "tiles",
                          m, n, k, ta, tb, (long long)(plan.a.made ? a_x : 0),
                          (long long)(plan.b.made ? b_x : 0), plan.tiles.bm, plan.tiles.bn);
            }
        }
#undef NEXT_DRAW
        CHECK(bad == 0 && copied > 1000, "copies of whole tiles: %d of %d plans with copies wrong",
              bad, copied);
        gl_engine_plan plan, tail;
        const gl_problem q = {1077, 197, 269, 1.0f, 0.0f, (const float *)(uintptr_t)0x100000,
                              1077, true, (const float *)(uintptr_t)0x200000, 269, true,
                              (float *)(uintptr_t)0x300000, 197};
        gl_engine_plan_call(&q, &w64_32, false, 132, 90, true, &plan, &tail);
        CHECK(!plan.b.made || plan.b.rows % plan.tiles.bn == 0,
              "1077 x 197 x 269 TT: B's copy %d rows for %d-wide tiles", plan.b.rows,
              plan.tiles.bn);
    }
    /* C's rule on the call's 64 x 64 tiles: up to a K of 1024, whatever
     * the grid leaves empty. */
    for (int k = 512; k <= 1028; k += 516) {
        gl_engine_plan plan;
        const gl_problem q = problem(4097, 4097, k, k, 4097, 0);
        gl_engine_plan_for(&q, &w64, false, 132, true, &plan);
        CHECK(plan.kernel == (k <= 1024 ? GL_VARIANT_VECTORIZED : GL_VARIANT_WARPTILE),
              "4097 x 4097 x %d on 64 x 64 tiles: kernel %d", k, (int)plan.kernel);
    }
    /* The cost rule at the limits of the kernels' sizes. */
    gl_engine_plan plan;
    const gl_problem huge = problem(1 << 20, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, 0);
    gl_engine_plan_for(&huge, t, false, 132, true, &plan);
    CHECK(!plan.a.made && !plan.b.made && plan.k == INT32_MAX, "no copy past int sizes");
    /* Split-K's model at the largest aligned sizes: in closed form (a loop
     * over the busiest SM's rounds would take hours here), and no split for
     * a grid this full. */
    const gl_problem big = problem(1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 0);
    gl_engine_plan_for(&big, t, false, 132, true, &plan);
    CHECK(plan.path == GL_PATH_INTERIOR && plan.splits == 1, "2^30 cubed: path %d, %d parts",
          (int)plan.path, plan.splits);
}

/* C of a few rows or columns: auto's matrix-vector path, and how it views
 * the operands as a matrix and vectors (engine/plan.c). */
typedef struct gemv_want {
    bool along_k;
    int rows, vectors;
    int64_t rs, ks, sx, sxv, sy, syv;
    bool vec;
    int splits;
} gemv_want;

/* Across K, a matrix-vector plan's slices are whole rounds of the kernel's
 * loads (64 k's), cover K, and none is empty; one slice is all of K. */
static bool slices_cover_k(const gl_engine_plan *plan, int k)
{
    const int s = plan->splits, d = plan->gemv.slice;
    return s >= 1 && s <= 64 &&
           (s == 1 ? d == k
                   : d % 64 == 0 && d >= 64 && (int64_t)(s - 1) * d < k && (int64_t)s * d >= k);
}

static void expect_gemv(gl_problem p, bool can_copy, gemv_want w, const char *what)
{
    gl_engine_plan plan;
    gl_engine_plan_for(&p, &w128, false, 132, can_copy, &plan);
    const gl_gemv *g = &plan.gemv;
    CHECK(plan.path == GL_PATH_GEMV && plan.kernel == GL_VARIANT_AUTO && plan.tiles.bm == 0 &&
              g->along_k == w.along_k && g->rows == w.rows && g->vectors == w.vectors &&
              g->rs == w.rs && g->ks == w.ks && g->sx == w.sx && g->sxv == w.sxv &&
              g->sy == w.sy && g->syv == w.syv && g->vec == w.vec && g->k == p.k &&
              plan.splits == w.splits &&
              plan.bytes == (w.splits > 1 && can_copy ? (size_t)w.splits * (size_t)w.vectors *
                                                             (size_t)w.rows * sizeof(float)
                                                       : 0),
          "%s: path %d, along_k %d rows %d vectors %d rs %lld ks %lld sx %lld sxv %lld sy %lld "
          "syv %lld vec %d splits %d",
          what, (int)plan.path, g->along_k, g->rows, g->vectors, (long long)g->rs,
          (long long)g->ks, (long long)g->sx, (long long)g->sxv, (long long)g->sy,
          (long long)g->syv, g->vec, plan.splits);
    if (!g->along_k)
        CHECK(slices_cover_k(&plan, p.k), "%s: %d slices of %d k's for K = %d", what, plan.splits,
              g->slice, p.k);
}

static void test_engine_gemv(void)
{
    /* {along_k, rows, vectors, rs, ks, sx, sxv, sy, syv, vec, splits} */
    expect_gemv(problem(4096, 1, 4096, 4096, 1, 0), true,
                (gemv_want){true, 4096, 1, 4096, 1, 1, 1, 1, 1, true, 1},
                "4096 x 1 x 4096: A's rows along K, a warp a row");
    expect_gemv(problem(4096, 1, 4096, 4097, 1, 0), true,
                (gemv_want){true, 4096, 1, 4097, 1, 1, 1, 1, 1, false, 1},
                "4096 x 1 x 4096, lda 4097: a float per load");
    /* B's rows run across K: 32 blocks of 128, cut into 16 slices, at most
     * four blocks an SM */
    expect_gemv(problem(1, 4096, 4096, 4096, 4096, 0), true,
                (gemv_want){false, 4096, 1, 1, 4096, 1, 4096, 1, 4096, true, 16},
                "1 x 4096 x 4096: B's rows across K, in slices");
    expect_gemv(problem(1, 4096, 4096, 4096, 4096, 0), false,
                (gemv_want){false, 4096, 1, 1, 4096, 1, 4096, 1, 4096, true, 16},
                "1 x 4096 x 4096 without scratch: the same slices");
    expect_gemv(problem(1, 300, 100, 100, 300, 0), true,
                (gemv_want){false, 300, 1, 1, 300, 1, 100, 1, 300, true, 1},
                "1 x 300 x 100: K too short to cut");
    expect_gemv(problem(1, 1, 5000, 5000, 1, 0), true,
                (gemv_want){true, 1, 1, 5000, 1, 1, 1, 1, 1, true, 1}, "1 x 1 x 5000: a dot product");
    gl_problem t = problem(1, 4096, 4096, 4096, 4096, 0);
    t.trans_a = true, t.lda = 7, t.trans_b = true; /* A stored K x 1, B stored N x K */
    expect_gemv(t, true, (gemv_want){true, 4096, 1, 4096, 1, 7, 1, 1, 4096, false, 1},
                "1 x 4096 x 4096, both transposed: B's rows along K, x strided");
    gl_problem c = problem(4096, 1, 4096, 4096, 1, 0);
    c.trans_a = true, c.lda = 4096, c.ldc = 3; /* A stored K x M */
    expect_gemv(c, true, (gemv_want){false, 4096, 1, 1, 4096, 1, 1, 3, 1, true, 16},
                "4096 x 1 x 4096, A transposed: A's rows across K, y strided");
    /* A few rows of C, B's rows across K: one vector per row of A */
    expect_gemv(problem(8, 4096, 4096, 4096, 4096, 0), true,
                (gemv_want){false, 4096, 8, 1, 4096, 1, 4096, 1, 4096, true, 16},
                "8 x 4096 x 4096: 8 vectors, in slices");
    gl_problem ta = problem(5, 4100, 300, 5, 4100, 0);
    ta.trans_a = true; /* A stored K x M: x_j[k] = A[k][j] */
    expect_gemv(ta, true, (gemv_want){false, 4100, 5, 1, 4100, 5, 1, 1, 4100, true, 3},
                "5 x 4100 x 300, A transposed: vectors strided along K, 4 slices of 75 "
                "rounded up to 3 of 128");
    /* The slices for every K from 64 to 20000 (in steps of 7) and 256 to
     * 8192 rows: whole rounds of loads, covering K, none empty. */
    int bad_k = 0, bad_rows = 0;
    for (int rows = 256; rows <= 8192; rows *= 2)
        for (int k = 64; k <= 20000; k += 7) {
            const gl_problem q = problem(1, rows, k, k, rows, 0);
            gl_engine_plan plan;
            gl_engine_plan_for(&q, &w128, false, 132, true, &plan);
            if (plan.path != GL_PATH_GEMV || !slices_cover_k(&plan, k))
                bad_k = k, bad_rows = rows;
        }
    CHECK(bad_k == 0, "1 x %d x %d: its slices are not whole rounds covering K", bad_rows, bad_k);
    /* 24 blocks of 128 rows: 22 slices of 140 k's, rounded up to whole
     * rounds of loads, are 16 of 192 */
    expect_gemv(problem(1, 3072, 3072, 3072, 3072, 0), true,
                (gemv_want){false, 3072, 1, 1, 3072, 1, 3072, 1, 3072, true, 16},
                "1 x 3072 x 3072: slices of whole rounds");
    /* A few columns of C, A transposed (its rows across K) */
    gl_problem cols = problem(4096, 8, 4096, 4096, 8, 0);
    cols.trans_a = true;
    expect_gemv(cols, true, (gemv_want){false, 4096, 8, 1, 4096, 8, 1, 8, 1, true, 16},
                "4096 x 8 x 4096, A transposed: 8 columns of C");
    /* Not the matrix-vector path: B's rows along K with 8 rows of C, or 9 */
    gl_problem along = problem(8, 4096, 4096, 4096, 4096, 0);
    along.trans_b = true;
    gl_problem many = problem(9, 4096, 4096, 4096, 4096, 0);
    gl_problem rows8 = problem(4096, 8, 4096, 4096, 8, 0);
    const gl_problem tiled[] = {along, many, rows8};
    for (int i = 0; i < 3; ++i) {
        gl_engine_plan plan;
        gl_engine_plan_for(&tiled[i], &w128, false, 132, true, &plan);
        CHECK(plan.path != GL_PATH_GEMV, "%d x %d x %d (trans_b %d): tiles, not the matrix-vector "
              "path", tiled[i].m, tiled[i].n, tiled[i].k, tiled[i].trans_b);
    }
}

/* The grid's last round as a product of its own (gl_engine_plan_call): 128
 * x 128 tiles, two blocks an SM, 264 places on 132 SMs. */
static void test_engine_tail(void)
{
    const struct {
        gl_problem p;
        const gl_tile_params *t;
        bool pinned;
        int tail;
        gl_path_t path; /* of the rows above */
        const char *what;
    } cases[] = {
        /* 40 x 24 = 960 tiles: three rounds, then 168 blocks for 264
         * places; 33 rows of tiles (792) above, 776 rows of C after */
        {problem(5000, 3000, 7000, 7000, 3000, 0), &w128, false, 776, GL_PATH_EDGE_WINDOWS,
         "5000 x 3000 x 7000"},
        /* 576 tiles: two rounds and 48 blocks; 22 rows of tiles above */
        {problem(3072, 3072, 1024, 1024, 3072, 0), &w128, false, 3072 - 22 * 128,
         GL_PATH_INTERIOR, "3072 x 3072 x 1024"},
        /* 2209 tiles: eight rounds and 97 blocks, one an SM at most, which
         * run fast; the model keeps them */
        {problem(6000, 6000, 6000, 6000, 6000, 0), &w128, false, 0, GL_PATH_EDGE_WINDOWS,
         "6000^3"},
        /* 1024 tiles: the fourth round 232 of 264 full */
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, false, 0, GL_PATH_INTERIOR, "4096^3"},
        {problem(5000, 3000, 7000, 7000, 3000, 0), &w128, true, 0, GL_PATH_EDGE_WINDOWS,
         "5000 x 3000 x 7000, tiles pinned"},
        {problem(5000, 3000, 1000, 1000, 3000, 0), &w128, false, 0, GL_PATH_EDGE_WINDOWS,
         "5000 x 3000 x 1000: K short"},
        {problem(5000, 3000, 7000, 7000, 3000, 0), &w64, false, 0, GL_PATH_EDGE_TESTS,
         "5000 x 3000 x 7000 on 64 x 64 tiles (rung 6's kernel)"},
        /* the rows above copied (A's rows of 7001 floats), or read in
         * place with tests (N not a multiple of 4; both transposed, so that
         * the operands' rows, M and K long, are read in groups): 45 x 13 =
         * 585 tiles, two rounds and 57 blocks; 40 rows of tiles above */
        {problem(5000, 3000, 7000, 7001, 3000, 0), &w128, false, 776, GL_PATH_PACKED,
         "5000 x 3000 x 7000, A unaligned"},
        {(gl_problem){5760, 1541, 1792, 1.0f, 0.0f, (const float *)(uintptr_t)0x100000, 5760, true,
                      (const float *)(uintptr_t)0x200000, 1792, true, (float *)(uintptr_t)0x300000,
                      1541},
         &w128, false, 5760 - 40 * 128, GL_PATH_EDGE_TESTS, "5760 x 1541 x 1792, both transposed"},
        /* 400 tiles, under two rounds: stream-K (on 90 SMs, below, not) */
        {(gl_problem){1214, 5028, 6491, 1.0f, 0.0f, (const float *)(uintptr_t)0x100000, 1214, true,
                      (const float *)(uintptr_t)0x200000, 5028, false, (float *)(uintptr_t)0x300000,
                      5028},
         &w128, false, 0, GL_PATH_STREAM_K, "1214 x 5028 x 6491, A transposed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        gl_engine_plan_call(&cases[i].p, cases[i].t, cases[i].pinned, 132, 90, true, &plan,
                            &tail_plan);
        CHECK(plan.tail_rows == cases[i].tail && plan.path == cases[i].path,
              "%s: tail of %d rows (want %d), path %d (want %d)", cases[i].what, plan.tail_rows,
              cases[i].tail, (int)plan.path, (int)cases[i].path);
        if (plan.tail_rows > 0) { /* the rest: planned on the 64 x 64 fill tiles */
            const gl_tile_params *tt = gl_engine_tail_tiles();
            CHECK(tt->bm == 64 && tt->bn == 64 &&
                      (tail_plan.kernel == GL_VARIANT_VECTORIZED ||
                       ((tail_plan.kernel == GL_VARIANT_WARPTILE ||
                         tail_plan.kernel == GL_VARIANT_PIPELINED) &&
                        (tail_plan.path == GL_PATH_SPLIT_K ||
                         gl_tile_params_same_tiles(&tail_plan.tiles, tt)))),
                  "%s: the tail on kernel %d, path %d, %d x %d tiles", cases[i].what,
                  (int)tail_plan.kernel, (int)tail_plan.path, tail_plan.tiles.bm,
                  tail_plan.tiles.bn);
        }
    }
    /* Never a matrix-vector tail: a few rows past whole rounds of tiles
     * with a long N once made one, which read the whole product's first
     * rows (its plan held the whole's pointers) and left the last unwritten:
     * 133 x 28164 x 1024, and 257,856 of the shapes of M 129 .. 2100 and N
     * 256 .. 40000 (steps of 4) at K = 1024. */
    for (int m = 129; m <= 1300; m += 127)
        for (int n = 8192; n <= 40000; n += 1004) {
            const gl_problem q = problem(m, n, 1024, 1024, n, 0);
            gl_engine_plan whole, tail;
            gl_engine_plan_call(&q, &w128, false, 132, 90, true, &whole, &tail);
            CHECK(whole.tail_rows == 0 || tail.path != GL_PATH_GEMV,
                  "%d x %d x 1024: a tail of %d rows on the matrix-vector path", m, n,
                  whole.tail_rows);
        }
    gl_engine_plan whole, tail;
    const gl_problem q133 = problem(133, 28164, 1024, 1024, 28164, 0);
    gl_engine_plan_call(&q133, &w128, false, 132, 90, true, &whole, &tail);
    CHECK(whole.tail_rows == 0, "133 x 28164 x 1024: no tail (%d rows)", whole.tail_rows);

    /* None where the rows above would not run as the whole: on 90 SMs
     * (400 tiles for 180 places), copied whole (A's rows of 1214 floats),
     * the rows above would read A in place. */
    const gl_problem t1214 = cases[sizeof cases / sizeof cases[0] - 1].p;
    gl_engine_plan plan, tail_plan;
    gl_engine_plan_call(&t1214, &w128, false, 90, 90, true, &plan, &tail_plan);
    CHECK(plan.tail_rows == 0 && plan.path == GL_PATH_PACKED,
          "1214 x 5028 x 6491, A transposed, 90 SMs: tail of %d rows, path %d", plan.tail_rows,
          (int)plan.path);
}

/* The tiles a call's plan runs on (gl_engine_plan_call): 128 x 64 or 64 x
 * 128 where the call's grid is one round with room left over and theirs
 * runs faster in split-K's model; the call's own where the grid makes
 * several rounds, the tiles are pinned, the call's tiles would copy an
 * operand for a split, or rung 8 would not run on the half tiles. */
static void test_engine_call_tiles(void)
{
    const struct {
        gl_problem p;
        const gl_tile_params *t;
        bool pinned;
        int bm, bn; /* the tiles chosen */
        const char *what;
    } cases[] = {
        /* 25 x 8 = 200 tiles of 128 x 128 for 264 places: 375 of 128 x 64 */
        {problem(3193, 952, 920, 920, 952, 0), &w128, false, 128, 64, "3193 x 952 x 920"},
        {problem(3193, 952, 920, 920, 952, 0), &w128, true, 128, 128, "3193 x 952 x 920, pinned"},
        /* 6 x 32 = 192 tiles: 64 x 128's 12 x 32 = 384 */
        {problem(752, 3984, 216, 216, 3984, 0), &w128, false, 128, 64, "752 x 3984 x 216"},
        {problem(523, 5629, 3488, 3488, 5629, 0), &w128, false, 64, 128, "523 x 5629 x 3488"},
        /* several rounds: the grid already spreads */
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, false, 128, 128, "4096^3"},
        {problem(3480, 2344, 352, 352, 2344, 0), &w128, false, 128, 128, "3480 x 2344 x 352"},
        /* K split on B's copy (its rows of 3209 floats) on 128 x 128 */
        {problem(827, 3209, 4410, 4410, 3209, 0), &w128, false, 128, 128, "827 x 3209 x 4410"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        const gl_tile_params *t = gl_engine_plan_call(&cases[i].p, cases[i].t, cases[i].pinned,
                                                      132, 90, true, &plan, &tail_plan);
        CHECK(t->bm == cases[i].bm && t->bn == cases[i].bn &&
                  (t == cases[i].t) == !gl_engine_half_tiles(t) &&
                  (plan.kernel != GL_VARIANT_WARPTILE || plan.path == GL_PATH_SPLIT_K ||
                   gl_tile_params_equal(&plan.tiles, t)),
              "%s: %d x %d tiles (want %d x %d), the plan's %d x %d", cases[i].what, t->bm,
              t->bn, cases[i].bm, cases[i].bn, plan.tiles.bm, plan.tiles.bn);
    }
    /* The half tiles never replace themselves or tiles narrower than 64. */
    const gl_tile_params half_64x128 = {64, 128, 16, 4, 4, 32, 64, 2, 128, 0};
    const gl_tile_params thin_128x32 = {128, 32, 16, 8, 4, 32, 32, 1, 128, 0};
    const gl_problem q = problem(167, 4234, 605, 605, 4234, 0);
    gl_engine_plan plan, tail_plan;
    CHECK(gl_engine_plan_call(&q, &half_64x128, false, 132, 90, true, &plan, &tail_plan) ==
              &half_64x128,
          "167 x 4234 x 605 on 64 x 128 tiles: other tiles chosen");
    const gl_problem r = problem(4699, 171, 697, 697, 171, 0);
    CHECK(gl_engine_plan_call(&r, &thin_128x32, false, 132, 90, true, &plan, &tail_plan) ==
              &thin_128x32,
          "4699 x 171 x 697 on 128 x 32 tiles: other tiles chosen");
}

/* The engine's own tile lists (engine.h) are entries of rung 8's, whose
 * kernels it launches: the fill, thin, half and stream-K tiles. */
static void test_engine_tile_lists(void)
{
#define TILES(BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS) \
    {BM, BN, BK, TM, TN, WM, WN, WNITER, THREADS, 0},
    const gl_tile_params engine[] = {GL_FILL_TILES, GL_THIN_TILES, GL_HALF_TILES,
                                     GL_STREAM_K_TILES};
    const gl_tile_params rung8[] = {GL_WARPTILE_CONFIGS(TILES)};
#undef TILES
    for (size_t i = 0; i < sizeof engine / sizeof engine[0]; ++i) {
        bool found = false;
        for (size_t j = 0; j < sizeof rung8 / sizeof rung8[0]; ++j)
            found = found || gl_tile_params_equal(&engine[i], &rung8[j]);
        CHECK(found, "the engine's tiles %d x %d x %d are not rung 8's", engine[i].bm,
              engine[i].bn, engine[i].bk);
    }
    CHECK(gl_engine_half_tiles(&engine[3]) && gl_engine_half_tiles(&engine[4]) &&
              !gl_engine_half_tiles(&engine[0]) && gl_engine_thin_tiles(&engine[1]),
          "the half and thin tiles are the lists' entries");
}

/* A copied into its transpose (gl_engine_plan_call's last step): for big
 * products (N of 3072 or more, M N K at least 2^34) that read aligned
 * operands in place, where A's rows run along K; never where A is already
 * transposed, the product is split or copied otherwise, or A's copy would
 * pass 256 MiB. */
static void test_engine_transpose(void)
{
    gl_problem trans_a = problem(4096, 4096, 4096, 4096, 4096, 0);
    trans_a.trans_a = true;
    const struct {
        gl_problem p;
        bool can_copy, transposed;
        gl_path_t path;
        int ld; /* of the copy: M rounded up to 8 */
        const char *what;
    } cases[] = {
        {problem(4096, 4096, 4096, 4096, 4096, 0), true, true, GL_PATH_INTERIOR, 4096, "4096^3"},
        {problem(2048, 4096, 2048, 2048, 4096, 0), true, true, GL_PATH_INTERIOR, 2048,
         "2048 x 4096 x 2048 (M N K = 2^34)"},
        {problem(4096, 4096, 1024, 1024, 4096, 0), true, true, GL_PATH_INTERIOR, 4096,
         "4096 x 4096 x 1024 (M N K = 2^34)"},
        {problem(6004, 6000, 6000, 6000, 6000, 0), true, true, GL_PATH_EDGE_WINDOWS, 6008,
         "6004 x 6000 x 6000 (edge windows; M padded to 8)"},
        {problem(4112, 4120, 1016, 1016, 4120, 0), true, true, GL_PATH_EDGE_WINDOWS, 4112,
         "4112 x 4120 x 1016 (edge windows, K short of the tail's 1024)"},
        {problem(2048, 4096, 2040, 2040, 4096, 0), true, false, GL_PATH_EDGE_WINDOWS, 0,
         "2048 x 4096 x 2040 (M N K under 2^34)"},
        {problem(8192, 3064, 8192, 8192, 3064, 0), true, false, GL_PATH_EDGE_WINDOWS, 0,
         "8192 x 3064 x 8192 (N under 3072)"},
        {trans_a, true, false, GL_PATH_INTERIOR, 0, "4096^3, A transposed"},
        {problem(4096, 4096, 4096, 4096, 4096, 0), false, false, GL_PATH_INTERIOR, 0,
         "4096^3 without scratch"},
        {problem(8200, 8192, 8192, 8192, 8192, 0), true, false, GL_PATH_EDGE_WINDOWS, 0,
         "8200 x 8192 x 8192 (A's copy over 256 MiB)"},
        {problem(4097, 4097, 4097, 4097, 4097, 0), true, false, GL_PATH_PACKED, 0,
         "4097^3 (packed)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        gl_engine_plan_call(&cases[i].p, &w128, false, 132, 90, cases[i].can_copy, &plan, &tail_plan);
        CHECK(plan.path == cases[i].path && plan.tail_rows == 0 &&
                  plan.a.transposed == cases[i].transposed,
              "%s: path %d (want %d), A transposed %d (want %d)", cases[i].what, (int)plan.path,
              (int)cases[i].path, plan.a.transposed, cases[i].transposed);
        if (cases[i].transposed)
            CHECK(plan.a.made && !plan.b.made && plan.a.rows == cases[i].p.k &&
                      plan.a.cols == cases[i].ld && plan.a.offset == 0 &&
                      plan.bytes == (size_t)cases[i].ld * (size_t)cases[i].p.k * sizeof(float) &&
                      plan.k == cases[i].p.k && strstr(plan.why, "transposed") &&
                      strlen(plan.why) < sizeof ((gl_plan *)0)->why,
                  "%s: A's copy is K x %d floats (%d x %d, %zu bytes)", cases[i].what,
                  cases[i].ld, plan.a.rows, plan.a.cols, plan.bytes);
    }
    /* B transposed (rows along K): into its transpose where M is 3072 or
     * more, after A's where A too runs along K. */
    gl_problem nt = problem(4096, 4096, 4096, 4096, 4096, 0), tt = nt, tt_short = nt;
    nt.trans_b = tt.trans_b = tt_short.trans_b = true;
    tt.trans_a = tt_short.trans_a = true;
    tt_short.m = 3064, tt_short.lda = 3064;
    const struct {
        gl_problem p;
        bool a, b; /* transposed copies of A, of B */
        const char *what;
    } b_cases[] = {
        {nt, true, true, "4096^3, B transposed"},
        {tt, false, true, "4096^3, both transposed"},
        {tt_short, false, false, "3064 x 4096 x 4096, both transposed (M under 3072)"},
    };
    for (size_t i = 0; i < sizeof b_cases / sizeof b_cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        const gl_problem *q = &b_cases[i].p;
        gl_engine_plan_call(q, &w128, false, 132, 90, true, &plan, &tail_plan);
        const size_t a_bytes = (size_t)q->k * ((q->m + 7) / 8 * 8) * sizeof(float);
        const size_t b_bytes = (size_t)q->k * ((q->n + 7) / 8 * 8) * sizeof(float);
        CHECK(plan.a.transposed == b_cases[i].a && plan.b.transposed == b_cases[i].b &&
                  plan.a.made == b_cases[i].a && plan.b.made == b_cases[i].b &&
                  (!b_cases[i].b || (plan.b.rows == q->k && plan.b.cols == (q->n + 7) / 8 * 8 &&
                                     plan.b.offset == (b_cases[i].a ? a_bytes : 0))) &&
                  plan.bytes == (b_cases[i].a ? a_bytes : 0) + (b_cases[i].b ? b_bytes : 0) &&
                  strlen(plan.why) < sizeof ((gl_plan *)0)->why,
              "%s: transposed copies of A %d (want %d), of B %d (want %d), %zu bytes, path %d",
              b_cases[i].what, plan.a.transposed, b_cases[i].a, plan.b.transposed, b_cases[i].b,
              plan.bytes, (int)plan.path);
    }
}

/* Split-K whose blocks would make one round with places left over: one
 * part more, the last short, to run on those places (plan.c,
 * short_last_part). 128 x 128 tiles, two blocks an SM: 264 places. */
static void test_engine_short_last_part(void)
{
    const struct {
        gl_problem p;
        int splits, depth;
        bool whole;
        const char *what;
    } cases[] = {
        /* 64 tiles x 4 parts = 256 blocks: 4 parts of 7968 and one of 896,
         * the 64 short ones 8 to each of the 8 places left */
        {problem(1024, 1024, 32768, 32768, 1024, 0), 5, 7968, true, "1024 x 1024 x 32768"},
        /* not with tests: 1000 rows and columns */
        {problem(1000, 1000, 32000, 32000, 1000, 0), 4, 0, false, "1000 x 1000 x 32000"},
        /* 128 tiles x 2 parts: 2 of 8000 and one of 384, the 128 short
         * ones 16 to each of the 8 places left */
        {problem(2048, 1024, 16384, 16384, 1024, 0), 3, 8000, true, "2048 x 1024 x 16384"},
        /* no short part left at the shallower depth: 4 x 256 = 1024, and
         * 32 tiles x 8 parts, 8 x 512 = 4096 */
        {problem(1024, 1024, 1024, 1024, 1024, 0), 4, 0, true, "1024^3"},
        {problem(128, 4096, 4096, 4096, 4096, 0), 8, 0, true, "128 x 4096 x 4096"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan;
        gl_engine_plan_for(&cases[i].p, &w128, false, 132, true, &plan);
        const int depth = cases[i].depth, splits = cases[i].splits;
        CHECK(plan.path == GL_PATH_SPLIT_K && plan.splits == splits &&
                  plan.part_depth == depth && plan.whole == cases[i].whole &&
                  plan.bytes == (size_t)splits * (size_t)cases[i].p.m *
                                    (size_t)gl_split_ld(cases[i].p.n) * sizeof(float) &&
                  (depth == 0) == (strstr(plan.why, "short") == NULL),
              "%s: path %d, %d parts of %d (want %d of %d), whole %d: %s", cases[i].what,
              (int)plan.path, plan.splits, plan.part_depth, splits, depth, plan.whole, plan.why);
        const int last = cases[i].p.k - (plan.splits - 1) * plan.part_depth;
        CHECK(plan.part_depth == 0 || (plan.part_depth % 32 == 0 && last > 0 &&
                                       last < plan.part_depth),
              "%s: parts of %d, the last %d: every part but the last a multiple of 32, the "
              "last short but not empty", cases[i].what, plan.part_depth, last);
        CHECK(strlen(plan.why) < sizeof ((gl_plan *)0)->why, "%s: why (%zu characters) fits "
              "gl_plan.why", cases[i].what, strlen(plan.why));
    }
}

/* Stream-K (plan.c, take_stream_k): grids of 128 x 128 tiles under two
 * rounds of 264 places, with a long K; its shares (engine.h). */
static void test_engine_stream_k(void)
{
    const struct {
        gl_problem p;
        int rounds, left;   /* whole rounds, then the tiles left over */
        bool whole, copy_a; /* copies without tests; A copied (K odd) */
        const char *what;
    } cases[] = {
        {problem(1664, 1664, 1600, 1600, 1664, 0), 0, 169, true, false, "1664 x 1664 x 1600"},
        {problem(7945, 856, 2496, 2496, 856, 0), 1, 441 - 264, false, false, "7945 x 856 x 2496"},
        /* A's rows of 4706 floats: copied into rows of 4708 */
        {problem(922, 4276, 4706, 4706, 4276, 0), 1, 8, false, true, "922 x 4276 x 4706"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        const gl_tile_params *t =
            gl_engine_plan_call(&cases[i].p, &w128, false, 132, 90, true, &plan, &tail_plan);
        const gl_stream_k *s = &plan.stream_k;
        const int slices = (cases[i].p.k + 15) / 16;
        const size_t parts = 264 * 2 * (size_t)128 * 128 * sizeof(float);
        CHECK(plan.path == GL_PATH_STREAM_K && gl_tile_params_equal(t, &w128) &&
                  gl_tile_params_equal(&plan.tiles, &w128) && plan.tail_rows == 0 &&
                  s->shares == 264 && s->rounds == cases[i].rounds && s->slices == slices &&
                  s->steps == (int64_t)cases[i].left * slices && plan.aligned &&
                  plan.whole == cases[i].whole && plan.a.made == cases[i].copy_a &&
                  !plan.b.made && plan.k == cases[i].p.k &&
                  (!plan.a.made || plan.a.cols == 4708) &&
                  plan.bytes == plan.parts_offset + parts &&
                  plan.parts_offset == (plan.a.made ? ((size_t)plan.a.rows * plan.a.cols * 4 +
                                                       255) / 256 * 256
                                                    : 0),
              "%s: path %d, %d shares of %lld steps after %d rounds, whole %d, A copied %d, "
              "%zu bytes: %s",
              cases[i].what, (int)plan.path, s->shares, (long long)s->steps, s->rounds,
              plan.whole, plan.a.made, plan.bytes, plan.why);
        CHECK(strlen(plan.why) < sizeof ((gl_plan *)0)->why, "%s: why (%zu characters) fits "
              "gl_plan.why", cases[i].what, strlen(plan.why));
        /* the shares: in order, covering the steps, each at most a tile */
        bool ok = s->steps > 0;
        for (int64_t b = 0; ok && b < s->shares; ++b) {
            const int64_t x0 = gl_share_start(s, b), x1 = gl_share_start(s, b + 1);
            ok = x1 - x0 <= s->slices && (x1 == x0 || (gl_share_of(s, x0) == b &&
                                                      gl_share_of(s, x1 - 1) == b));
        }
        CHECK(ok && gl_share_start(s, 0) == 0 && gl_share_start(s, s->shares) == s->steps,
              "%s: the shares cover the steps in order, a tile's slices at most", cases[i].what);
    }
    /* The parts, as the kernels see them (gl_share_part): each share's
     * one or two tiles, at places 0 and 1 of its scratch; each tile's parts
     * from its shares in order of K, end to end, over all of its slices;
     * fewer steps than shares leaves some shares empty. */
    const int lefts[] = {1, 2, 8, 100, 263}, depths[] = {1, 2, 64, 100, 295};
    for (int li = 0; li < 5; ++li)
        for (int di = 0; di < 5; ++di) {
            const gl_stream_k sk = {(int64_t)lefts[li] * depths[di], depths[di], 264, 1};
            bool good = true;
            for (int64_t b = 0; b < sk.shares; ++b) { /* places 0, 1 at most once each */
                int used = 0;
                for (int64_t t = 0; t < lefts[li]; ++t) {
                    int s0, s1, j;
                    if (gl_share_part(&sk, b, t, &s0, &s1, &j)) {
                        good = good && (j == 0 || j == 1) && !(used & (1 << j));
                        used |= 1 << j;
                    }
                }
            }
            for (int64_t t = 0; t < lefts[li]; ++t) { /* end to end, in order */
                const int64_t first = t * sk.slices;
                int reached = 0;
                for (int64_t b = gl_share_of(&sk, first);
                     b <= gl_share_of(&sk, first + sk.slices - 1); ++b) {
                    int s0, s1, j;
                    if (gl_share_part(&sk, b, t, &s0, &s1, &j)) {
                        good = good && s0 == reached && s1 > s0;
                        reached = s1;
                    }
                }
                good = good && reached == sk.slices;
            }
            CHECK(good, "%d tiles of %d slices in 264 shares: parts end to end, places 0 and 1",
                  lefts[li], depths[di]);
        }
    /* Not taken: tiles pinned, no scratch, a short K, two rounds or more
     * (4096^3: 1024 tiles), in place of a split whose last part is short
     * (1024 x 1024 x 32768), or before sm_90 (below). */
    const gl_problem p1664 = problem(1664, 1664, 1600, 1600, 1664, 0);
    const struct {
        gl_problem p;
        bool pinned, can_copy;
        const char *what;
    } never[] = {
        {p1664, true, true, "1664 x 1664 x 1600, tiles pinned"},
        {p1664, false, false, "1664 x 1664 x 1600 without scratch"},
        {problem(1664, 1664, 1000, 1000, 1664, 0), false, true, "1664 x 1664 x 1000"},
        {problem(4096, 4096, 4096, 4096, 4096, 0), false, true, "4096^3"},
        {problem(1024, 1024, 32768, 32768, 1024, 0), false, true, "1024 x 1024 x 32768"},
    };
    for (size_t i = 0; i < sizeof never / sizeof never[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        gl_engine_plan_call(&never[i].p, &w128, never[i].pinned, 132, 90, never[i].can_copy, &plan,
                            &tail_plan);
        CHECK(plan.path != GL_PATH_STREAM_K, "%s: stream-K", never[i].what);
    }
    gl_engine_plan plan, tail_plan;
    gl_engine_plan_call(&p1664, &w128, false, 108, 80, true, &plan, &tail_plan);
    CHECK(plan.path != GL_PATH_STREAM_K, "1664 x 1664 x 1600 on sm_80: stream-K");
}

/* Whether two plans say the same, field by field. */
static bool same_plan(const gl_engine_plan *x, const gl_engine_plan *y)
{
    const gl_engine_copy *ca[2] = {&x->a, &x->b}, *cb[2] = {&y->a, &y->b};
    for (int i = 0; i < 2; ++i)
        if (ca[i]->made != cb[i]->made || ca[i]->rows != cb[i]->rows ||
            ca[i]->cols != cb[i]->cols || ca[i]->offset != cb[i]->offset ||
            ca[i]->transposed != cb[i]->transposed)
            return false;
    return x->kernel == y->kernel && gl_tile_params_equal(&x->tiles, &y->tiles) &&
           x->path == y->path && x->aligned == y->aligned && x->k == y->k &&
           x->gemv.mat == y->gemv.mat && x->gemv.x == y->gemv.x && x->gemv.y == y->gemv.y &&
           x->gemv.alpha == y->gemv.alpha && x->gemv.beta == y->gemv.beta &&
           x->splits == y->splits && x->whole == y->whole && x->bytes == y->bytes &&
           x->parts_offset == y->parts_offset && x->part_depth == y->part_depth &&
           x->stream_k.steps == y->stream_k.steps && x->stream_k.shares == y->stream_k.shares &&
           x->stream_k.slices == y->stream_k.slices &&
           x->stream_k.rounds == y->stream_k.rounds && x->tail_rows == y->tail_rows &&
           x->why == y->why;
}

/* A memo's plans, marked: a plan whose `why` is this came from the memo. */
static const char remembered[] = "remembered";

static void mark_memo(gl_plan_memo *memo)
{
    for (int i = 0; i < GL_PLAN_MEMO_ENTRIES; ++i)
        memo->entries[i].plan.why = memo->entries[i].tail_plan.why = remembered;
}

/* One call through the memo: its plan must be the one gl_engine_plan_call
 * makes. Returns whether it came from the memo; marks the memo after. */
static bool ask_memo(gl_plan_memo *memo, const gl_problem *p, const gl_tile_params *t,
                     bool pinned, int sms, int cc, bool can_copy, const char *what)
{
    gl_engine_plan plan, tail_plan, fresh, fresh_tail;
    const gl_tile_params *u =
        gl_engine_plan_remembered(memo, p, t, pinned, sms, cc, can_copy, &plan, &tail_plan);
    const gl_tile_params *v =
        gl_engine_plan_call(p, t, pinned, sms, cc, can_copy, &fresh, &fresh_tail);
    const bool hit = plan.why == remembered;
    if (hit)
        plan.why = fresh.why, tail_plan.why = fresh_tail.why;
    CHECK(same_plan(&plan, &fresh) &&
              (plan.tail_rows == 0 || same_plan(&tail_plan, &fresh_tail)) &&
              (u == t) == (v == t) && gl_tile_params_equal(u, v),
          "memo, %s: the plan gl_engine_plan_call makes (path %d, want %d)", what,
          (int)plan.path, (int)fresh.path);
    mark_memo(memo);
    return hit;
}

/* A handle's memo of its last plans (gl_engine_plan_remembered): the same
 * facts give the remembered plan, any fact the plan reads changed gives a
 * new one, the oldest of eight makes way, matrix-vector plans are made each
 * time, and every plan is the one gl_engine_plan_call makes. */
/* Rung 12's kernel in place of rung 8's on the same tiles (plan.c,
 * gl_engine_on_ring): where the code is for sm_90 or newer, on every path but
 * stream-K's and the matrix-vector kernel's, not on rung 6's plans nor on
 * pinned tiles nor tiles rung 12 does not compile. */
static void test_engine_ring(void)
{
    const gl_variant_desc *ring = gl_variant_find(GL_VARIANT_PIPELINED);
    const struct {
        gl_problem p;
        const gl_tile_params *t;
        bool pinned;
        int cc;
        gl_variant_t kernel;
        const char *what;
    } cases[] = {
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, false, 90, GL_VARIANT_PIPELINED,
         "4096^3 on sm_90"},
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, false, 86, GL_VARIANT_WARPTILE,
         "4096^3 on sm_86"},
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, false, 80, GL_VARIANT_WARPTILE,
         "4096^3 on sm_80"},
        {problem(4096, 4096, 4096, 4096, 4096, 0), &w128, true, 90, GL_VARIANT_WARPTILE,
         "4096^3 on pinned tiles"},
        {problem(128, 128, 128, 128, 128, 0), &w64_32, false, 90, GL_VARIANT_PIPELINED,
         "128^3 on 64 x 64 x 32 tiles"},
        {problem(1000, 1000, 1000, 1000, 1000, 0), &w128, false, 90, GL_VARIANT_PIPELINED,
         "1000^3: split-K"},
        {problem(1664, 1664, 1600, 1600, 1664, 0), &w128, false, 90, GL_VARIANT_WARPTILE,
         "1664 x 1664 x 1600: stream-K"},
        {problem(4096, 4096, 64, 64, 4096, 0), &w128, false, 90, GL_VARIANT_VECTORIZED,
         "4096 x 4096 x 64: rung 6's kernel"},
        {problem(1, 4096, 4096, 4096, 4096, 0), &w128, false, 90, GL_VARIANT_AUTO,
         "1 x 4096 x 4096: the matrix-vector kernel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gl_engine_plan plan, tail_plan;
        gl_engine_plan_call(&cases[i].p, cases[i].t, cases[i].pinned, 132, cases[i].cc, true,
                            &plan, &tail_plan);
        CHECK(plan.kernel == cases[i].kernel, "%s: kernel %d (want %d), path %d", cases[i].what,
              (int)plan.kernel, (int)cases[i].kernel, (int)plan.path);
    }
    /* A sweep: on sm_90 rung 12 runs only its own configurations, never
     * stream-K, and only where sm_80's plan is rung 8's, on the same tiles
     * and path. */
    const gl_tile_params *tiles[] = {&w128, &w64, &w64_32};
    uint64_t seed = 777;
#define NEXT_DRAW (seed = seed * 48271 % 2147483647)
    int ring_plans = 0, bad = 0;
    for (int i = 0; i < 5000; ++i) {
        int v[3];
        for (int j = 0; j < 3; ++j) {
            v[j] = 1 << NEXT_DRAW % 14;
            v[j] += (int)(NEXT_DRAW % (uint64_t)v[j]);
        }
        const gl_problem q = problem(v[0], v[1], v[2], v[2], v[1], 0);
        gl_engine_plan on90, on80, tail90, tail80;
        gl_engine_plan_call(&q, tiles[i % 3], false, 132, 90, false, &on90, &tail90);
        gl_engine_plan_call(&q, tiles[i % 3], false, 132, 80, false, &on80, &tail80);
        if (on90.kernel != GL_VARIANT_PIPELINED) {
            bad += on90.kernel != on80.kernel;
            continue;
        }
        ++ring_plans;
        bool compiled = false;
        for (int c = 0; c < ring->config_count; ++c)
            compiled |= gl_tile_params_equal(&ring->configs[c], &on90.tiles);
        if (!compiled || on90.path == GL_PATH_STREAM_K || on80.kernel != GL_VARIANT_WARPTILE ||
            on80.path != on90.path || !gl_tile_params_same_tiles(&on80.tiles, &on90.tiles) ||
            on90.tiles.stages != 4) {
            if (bad++ < 5)
                CHECK(false, "%d x %d x %d: rung 12's plan on %d x %d x %d tiles, path %d; sm_80's "
                             "kernel %d, path %d",
                      v[0], v[1], v[2], on90.tiles.bm, on90.tiles.bn, on90.tiles.bk,
                      (int)on90.path, (int)on80.kernel, (int)on80.path);
        }
    }
#undef NEXT_DRAW
    CHECK(bad == 0 && ring_plans > 300, "rung 12's plans: %d of %d wrong", bad, ring_plans);
}

static void test_engine_memo(void)
{
    const gl_problem base = problem(5000, 3000, 7000, 7001, 3000, 0); /* packed, a tail */
    gl_plan_memo memo = {0};
    CHECK(!ask_memo(&memo, &base, &w128, false, 132, 90, true, "first call"),
          "memo: the first call is planned");
    CHECK(ask_memo(&memo, &base, &w128, false, 132, 90, true, "the same call"),
          "memo: the same call is remembered");
    gl_problem moved = base;
    moved.alpha = -2.0f, moved.beta = 0.5f;
    moved.a = (const float *)(uintptr_t)0x900000, moved.b = (const float *)(uintptr_t)0xa00000;
    moved.c = (float *)(uintptr_t)0xb00000;
    const gl_tile_params same_tiles = w128; /* equal, elsewhere */
    CHECK(ask_memo(&memo, &moved, &same_tiles, false, 132, 90, true, "moved"),
          "memo: other alpha, beta, and pointers on the same sectors' offsets, remembered");
    gl_engine_plan plan, tail_plan;
    gl_engine_plan_remembered(&memo, &base, &w128, false, 132, 90, true, &plan, &tail_plan);
    CHECK(plan.tail_rows > 0 && plan.a.made, "memo: the first call has a tail and a copy");

    /* each fact the plan reads, changed alone */
    static const char *const facts[] = {"M", "N", "K", "lda", "ldb", "ldc", "A transposed",
                                        "B transposed", "A 16 bytes on", "B 4 bytes on",
                                        "C 16 bytes on", "other tiles", "tiles pinned",
                                        "no scratch", "other SMs", "code for sm_80"};
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; ++i) {
        const char *w = facts[i];
        gl_problem p = base;
        p.m += !strcmp(w, "M"), p.n += !strcmp(w, "N"), p.k += !strcmp(w, "K");
        p.lda += !strcmp(w, "lda"), p.ldb += 4 * !strcmp(w, "ldb"), p.ldc += 4 * !strcmp(w, "ldc");
        p.trans_a ^= !strcmp(w, "A transposed"), p.trans_b ^= !strcmp(w, "B transposed");
        if (p.trans_a)
            p.lda = p.m;
        if (p.trans_b)
            p.ldb = p.k;
        p.a += !strcmp(w, "A 16 bytes on") ? 4 : 0;
        p.b += !strcmp(w, "B 4 bytes on") ? 1 : 0;
        p.c += !strcmp(w, "C 16 bytes on") ? 4 : 0;
        const gl_tile_params *t = !strcmp(w, "other tiles") ? &w64 : &w128;
        const bool pinned = !strcmp(w, "tiles pinned"), can_copy = strcmp(w, "no scratch") != 0;
        const int sms = !strcmp(w, "other SMs") ? 114 : 132;
        const int cc = !strcmp(w, "code for sm_80") ? 80 : 90;
        gl_plan_memo m = {0};
        ask_memo(&m, &base, &w128, false, 132, 90, true, w);
        CHECK(!ask_memo(&m, &p, t, pinned, sms, cc, can_copy, w), "memo, %s: planned again", w);
        CHECK(ask_memo(&m, &p, t, pinned, sms, cc, can_copy, w), "memo, %s: then remembered", w);
        CHECK(ask_memo(&m, &base, &w128, false, 132, 90, true, w),
              "memo, %s: the first call still remembered", w);
    }

    /* eight shapes in turn stay; a ninth takes the oldest's place */
    gl_plan_memo m = {0};
    int hits = 0;
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < GL_PLAN_MEMO_ENTRIES; ++i) {
            const gl_problem p = problem(1000 + 64 * i, 3000, 2000, 2000, 3000, 0);
            hits += ask_memo(&m, &p, &w128, false, 132, 90, true, "eight shapes");
        }
    CHECK(hits == GL_PLAN_MEMO_ENTRIES, "memo: eight shapes asked twice, %d remembered", hits);
    const gl_problem ninth = problem(999, 3000, 2000, 2000, 3000, 0);
    const gl_problem first = problem(1000, 3000, 2000, 2000, 3000, 0);
    const gl_problem third = problem(1128, 3000, 2000, 2000, 3000, 0);
    CHECK(!ask_memo(&m, &ninth, &w128, false, 132, 90, true, "ninth") &&
              !ask_memo(&m, &first, &w128, false, 132, 90, true, "the oldest, again") &&
              ask_memo(&m, &third, &w128, false, 132, 90, true, "the third"),
          "memo: the ninth shape replaces the oldest, which then replaces the second");

    /* a matrix-vector plan holds the call's pointers and alpha: made each time */
    gl_problem gemv = problem(1, 4096, 4096, 4096, 4096, 0);
    for (int i = 0; i < 2; ++i) {
        gemv.a = (const float *)(uintptr_t)(0x700000 + 0x100000 * i), gemv.alpha = 1.0f + i;
        CHECK(!ask_memo(&m, &gemv, &w128, false, 132, 90, true, "matrix-vector"),
              "memo: a matrix-vector plan is made each time");
        gl_engine_plan_remembered(&m, &gemv, &w128, false, 132, 90, true, &plan, &tail_plan);
        CHECK(plan.path == GL_PATH_GEMV && plan.gemv.mat == gemv.b && plan.gemv.x == gemv.a &&
                  plan.gemv.alpha == gemv.alpha,
              "memo, matrix-vector: path %d, the call's own pointers and alpha", (int)plan.path);
    }
}

/* Auto's plan for a batch (gl_engine_plan_batch): the matrix-vector kernel
 * over matrix-vector products, each product on its own plan where it fills
 * a round alone, K in parts across the batch where its grid is short of a
 * round and K long (with the scratch for it), else one grid of every
 * product's tiles (rung 12's for K of 256 and up on whole tiles of its
 * own, where the device has it); pinned tiles on one grid as they are. */
static void test_engine_batch(void)
{
    static const struct {
        int m, n, k;
        int64_t count;
        const gl_tile_params *t;
        bool pinned;
        int cc;
        gl_batch_mode mode;
        gl_variant_t kernel;
        const char *what;
        size_t budget; /* 0 here: all it wants */
    } cases[] = {
        {1, 4096, 4096, 64, &w128, false, 90, GL_BATCH_GEMV, GL_VARIANT_AUTO, "matrix-vector", 0},
        {4096, 1, 4096, 64, &w128, false, 90, GL_BATCH_GEMV, GL_VARIANT_AUTO, "C one column", 0},
        {4096, 4096, 4096, 4, &w128, false, 90, GL_BATCH_EACH, GL_VARIANT_WARPTILE,
         "products of 1024 tiles each", 0},
        {2176, 2048, 512, 8, &w128, false, 90, GL_BATCH_EACH, GL_VARIANT_WARPTILE,
         "products of a round of tiles (272 of 264)", 0},
        {1024, 1024, 1024, 16, &w128, false, 90, GL_BATCH_GRID, GL_VARIANT_PIPELINED,
         "products of 64 tiles, K 1024", 0},
        {1024, 1024, 1024, 16, &w128, false, 75, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "the same on sm_75, without cp.async", 0},
        {256, 256, 255, 256, &w128, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE, "K under 256", 0},
        {200, 300, 500, 50, &w64_32, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "ragged products: rung 8's kernel", 0},
        {64, 64, 64, 4096, &w64_32, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "a product a tile", 0},
        {4096, 64, 4096, 8, &w64_32, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "64 columns, K 4096: 512 tiles, over half a round", 0},
        {4096, 64, 4096, 2, &w64_32, false, 90, GL_BATCH_SPLIT, GL_VARIANT_WARPTILE,
         "the same, 2 products: 128 tiles, K in parts", 0},
        {4096, 64, 4096, 2, &w64_32, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "the same without scratch", 1},
        {512, 512, 512, 2, &w128, false, 90, GL_BATCH_SPLIT, GL_VARIANT_WARPTILE,
         "two products of 16 tiles, K 512", 0},
        {512, 512, 200, 2, &w128, false, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "K under 512: no parts", 0},
        {1, 4096, 4096, 64, &w128, true, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "pinned tiles, matrix-vector", 0},
        {4096, 4096, 4096, 4, &w128, true, 90, GL_BATCH_GRID, GL_VARIANT_WARPTILE,
         "pinned tiles, big products", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const gl_problem p = problem(cases[i].m, cases[i].n, cases[i].k, cases[i].k, cases[i].n, 0);
        gl_engine_batch_plan plan;
        gl_engine_plan_batch(&p, cases[i].count, cases[i].t, cases[i].pinned, 132, cases[i].cc,
                             cases[i].budget ? cases[i].budget : SIZE_MAX, &plan);
        const size_t want_bytes = plan.mode != GL_BATCH_SPLIT
                                      ? 0
                                      : (size_t)cases[i].count * plan.splits * cases[i].m *
                                            gl_split_ld(cases[i].n) * sizeof(float);
        CHECK(plan.mode != GL_BATCH_SPLIT ||
                  (plan.splits >= 2 && plan.splits <= 8 && plan.bytes == want_bytes &&
                   cases[i].k / plan.splits >= 256 - 31),
              "%s: %d parts, %zu bytes (want %zu)", cases[i].what, plan.splits, plan.bytes,
              want_bytes);
        const bool tiles_ok = plan.mode == GL_BATCH_SPLIT
                                  ? gl_tile_params_equal(&plan.tiles,
                                                         gl_variant_find(GL_VARIANT_AUTO)->fill)
                              : plan.mode != GL_BATCH_GRID ||
                                  (plan.kernel == GL_VARIANT_WARPTILE
                                   ? gl_tile_params_equal(&plan.tiles, cases[i].t)
                                   : gl_tile_params_equal(&plan.tiles,
                                                          gl_variant_find(plan.kernel)->configs));
        CHECK(plan.mode == cases[i].mode && (plan.mode == GL_BATCH_EACH || plan.kernel == cases[i].kernel) &&
                  tiles_ok && plan.why && *plan.why,
              "%s (%d x %d x %d x %lld): mode %d, tiles %dx%d on variant %d (%s)", cases[i].what,
              cases[i].m, cases[i].n, cases[i].k, (long long)cases[i].count, (int)plan.mode,
              plan.tiles.bm, plan.tiles.bn, (int)plan.kernel, plan.why);
    }
    /* The parts: as many as fill the places (132 SMs of five fill-tile
     * blocks: 660), at least 4, at most 8 and K / 256. */
    static const struct {
        int m, n, k;
        int64_t count;
        int parts;
    } splits[] = {
        {4096, 64, 4096, 2, 5},  /* 128 tiles: 660 / 128 */
        {2048, 128, 4096, 4, 4}, /* 256 tiles: 2, at least 4 */
        {64, 64, 8192, 2, 8},    /* 2 tiles: at most 8 */
        {512, 512, 512, 2, 2},   /* K / 256 */
        {300, 200, 1000, 3, 3},  /* K / 256 */
        {300, 200, 511, 3, 1},   /* K under 512: no split */
    };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; ++i) {
        const gl_problem p = problem(splits[i].m, splits[i].n, splits[i].k, splits[i].k,
                                     splits[i].n, 0);
        gl_engine_batch_plan plan;
        gl_engine_plan_batch(&p, splits[i].count, &w64_32, false, 132, 90, SIZE_MAX, &plan);
        const int parts = plan.mode == GL_BATCH_SPLIT ? plan.splits : 1;
        CHECK(parts == splits[i].parts, "%d x %d x %d x %lld: %d parts, expected %d (%s)",
              splits[i].m, splits[i].n, splits[i].k, (long long)splits[i].count, parts,
              splits[i].parts, plan.why);
    }

    /* A matrix-vector batch's products: strides (16-byte loads only where
     * every product's matrix, and x along K, keep them), or pointer arrays
     * moved to the launch's first row as gl_move_to_row moves A and C. */
    const float *const fake_a[1] = {NULL}, *const fake_b[1] = {NULL};
    float *const fake_c[1] = {NULL};
    for (int mat_is_a = 0; mat_is_a < 2; ++mat_is_a)
        for (int trans_a = 0; trans_a < 2; ++trans_a) {
            gl_problem p = problem(1, 4096, 4096, 4096, 4096, 0);
            p.trans_a = trans_a, p.lda = 100, p.ldc = 50;
            gl_gemv g = {.mat_is_a = mat_is_a, .vec = true};
            const gl_batch pointers = {.count = 3, .a_ptrs = fake_a, .b_ptrs = fake_b,
                                       .c_ptrs = fake_c, .row0 = 7};
            const gl_gemv_products q = gl_engine_gemv_products(&g, &p, &pointers);
            const int64_t a_move = 7 * (trans_a ? 1 : 100);
            CHECK(q.y == fake_c && q.mat == (mat_is_a ? fake_a : fake_b) &&
                      q.x == (mat_is_a ? fake_b : fake_a) &&
                      q.moves.a == (mat_is_a ? a_move : 0) &&
                      q.moves.b == (mat_is_a ? 0 : a_move) && q.moves.c == 7 * 50 && g.vec,
                  "pointer arrays, the matrix %s, A %s: moves %lld %lld %lld",
                  mat_is_a ? "A" : "B", trans_a ? "transposed" : "as stored",
                  (long long)q.moves.a, (long long)q.moves.b, (long long)q.moves.c);
            const gl_batch strided = {.count = 3, .a = 4096 + 2, .b = 4096, .c = 4096};
            g.vec = true;
            const gl_gemv_products r = gl_engine_gemv_products(&g, &p, &strided);
            CHECK(!r.y && r.steps.a == (mat_is_a ? 4098 : 4096) &&
                      r.steps.b == (mat_is_a ? 4096 : 4098) && r.steps.c == 4096 &&
                      g.vec == !mat_is_a,
                  "strides, the matrix %s: steps %lld %lld, 16-byte loads %d",
                  mat_is_a ? "A" : "B", (long long)r.steps.a, (long long)r.steps.b, g.vec);
        }
}

int main(void)
{
    test_arch_coverage();
    test_descriptors();
    test_schemas();
    test_engine_plan();
    test_engine_gemv();
    test_engine_tail();
    test_engine_call_tiles();
    test_engine_tile_lists();
    test_engine_transpose();
    test_engine_short_last_part();
    test_engine_stream_k();
    test_engine_ring();
    test_engine_memo();
    test_engine_batch();
    return harness_finish("test_internal");
}
