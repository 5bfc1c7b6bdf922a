/*
 * test_internal.c - host-side internals: which GPUs a build's code runs on,
 * and the registry's shape.
 */
#include "harness.h"
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
}

static void test_registry(void)
{
    for (int v = 0; v < GL_VARIANT_LIMIT; ++v) {
        const gl_rung *r = gl_rung_find((gl_variant_t)v);
        CHECK(r && r->id == (gl_variant_t)v, "row %d holds its own id", v);
        CHECK(r && r->launch != NULL, "rung %d is built", v);
        CHECK(gl_variant_names[v] && *gl_variant_names[v], "variant %d has a name", v);
        for (int w = 0; w < v; ++w)
            CHECK(strcmp(gl_variant_names[w], gl_variant_names[v]) != 0,
                  "variants %d and %d share a name", w, v);
        int count = 0;
        gl_configs_of((gl_variant_t)v, &count);
        CHECK(v == GL_VARIANT_CUBLAS || count > 0, "rung %s lists its configurations",
              gl_variant_names[v]);
    }
    CHECK(gl_rung_find(GL_VARIANT_CUBLAS)->uses_cublas, "the cuBLAS row uses cuBLAS");
    CHECK(gl_rung_find((gl_variant_t)GL_VARIANT_LIMIT) == NULL, "no row past the end");
    CHECK(gl_variant_count() == GL_VARIANT_LIMIT, "count matches the table");
    CHECK(gl_rung_find(GL_VARIANT_AUTOTUNED)->tuned && gl_rung_find(GL_VARIANT_WARPTILE)->tuned,
          "rungs 7 and 8 are tuned");
    for (int v = 0; v < GL_VARIANT_LIMIT; ++v)
        CHECK(gl_rung_find((gl_variant_t)v)->tuned == gl_variant_is_tuned((gl_variant_t)v),
              "registry and tuning agree which rungs are tuned (%d)", v);
}

/* The cost rule of rungs 6-8's padded copies (gl_pack_pays): where the
 * kernels read operands in place, where a copy runs. */
static void test_pack_rule(void)
{
    CHECK(!gl_pack_pays(1024, 1024, 1024, 1024 * 1024), "no copy at 1024^3");
    CHECK(!gl_pack_pays(1000, 1000, 1000, 1024 * 1008), "nor at 1000^3");
    CHECK(!gl_pack_pays(64, 64, 64, 64 * 64), "nor for a small product");
    CHECK(gl_pack_pays(2048, 2048, 2048, 2048 * 2048), "copies at 2048^3");
    CHECK(gl_pack_pays(4097, 4097, 4097, 4224LL * 4112), "copies at 4097^3");
    CHECK(gl_pack_pays(4096, 127, 4096, 128 * 4096), "copies the thin B of 4096 x 127 x 4096");
    CHECK(!gl_pack_pays(4096, 127, 4096, 4096LL * 4096), "but not its wide A");
    /* The GPU test's shapes, with rung 8's biggest tiles for them. */
    CHECK(gl_pack_pays(1537, 1539, 800, 1792 * 800) && gl_pack_pays(1537, 1539, 800, 800 * 1664),
          "1537 x 1539 x 800 copies both operands");
    CHECK(gl_pack_pays(2050, 2052, 1001, 2304 * 1008) &&
              gl_pack_pays(2050, 2052, 1001, 1008 * 2176),
          "2050 x 2052 x 1001 copies both operands");
    CHECK(gl_pack_pays(3000, 127, 1536, 1536 * 128) && !gl_pack_pays(3000, 127, 1536, 3008 * 1536),
          "3000 x 127 x 1536 copies B only");
    CHECK(gl_pack_pays(INT32_MAX, INT32_MAX, INT32_MAX, INT64_MAX / 2), "no overflow");
}

int main(void)
{
    test_arch_coverage();
    test_registry();
    test_pack_rule();
    return harness_finish("test_internal");
}
