/* where: values as the suite writes them match what the run records (no,
 * 1M); every key or value that matches nothing is a reference error with a
 * suggestion for a near miss; keys of a row that exists are not errors. */
#include <string.h>

#include "harness/checks/where.h"
#include "tests/unit/tap.h"

static void table(arena_t *a, mtable_t *t)
{
    memset(t, 0, sizeof *t);
    static kv_t p[] = {{"op", "allreduce"}, {"bytes", "1048576"}, {"dtype", "float32"},
                       {"inplace", "false"}, {"preset", "tiny"}};
    metric_t m = {.bench = "collectives", .program = "collectives", .kind = "collectives",
                  .scale = 2, .metric = "busbw_GBps", .value = 3, .params = p, .nparams = 5};
    mtable_add(a, t, &m);
}

static void test_values(void)
{
    T_ASSERT(where_value_same("false", "no") && where_value_same("true", "yes") &&
                 where_value_same("false", "off") && !where_value_same("false", "yes"),
             "yes/no/on/off against true/false");
    T_ASSERT(where_value_same("1048576", "1M") && where_value_same("65536", "64K") &&
                 !where_value_same("1000000", "1M") && where_value_same("8", "8.0"),
             "sizes with binary suffixes, numbers in any notation");
}

static void test_diagnose(void)
{
    arena_t *a = ar_new();
    mtable_t t;
    table(a, &t);
    kv_t typo[] = {{"byte", "8"}};
    const char *d = where_diagnose(a, "busbw_GBps", typo, 1, &t, 1);
    T_ASSERT(d && strstr(d, "reference error") && strstr(d, "'byte'") && strstr(d, "did you mean 'bytes'"),
             "a typo of a key: %s", d ? d : "(none)");
    kv_t bench[] = {{"benchmark", "colectives"}};
    d = where_diagnose(a, "busbw_GBps", bench, 1, &t, 1);
    T_ASSERT(d && strstr(d, "did you mean 'collectives'"), "a typo of a benchmark: %s", d ? d : "(none)");
    kv_t op[] = {{"op", "allreduc"}};
    d = where_diagnose(a, "busbw_GBps", op, 1, &t, 1);
    T_ASSERT(d && strstr(d, "did you mean 'allreduce'") && strstr(d, "recorded: allreduce"),
             "a value no row records: %s", d ? d : "(none)");
    kv_t fine[] = {{"inplace", "no"}, {"bytes", "1M"}, {"scale", "4"}};
    d = where_diagnose(a, "busbw_GBps", fine, 3, &t, 1);
    T_ASSERT(!d, "no, 1M and an absent scale are not reference errors: %s", d ? d : "");
    d = where_diagnose(a, "busbw_GBps", op, 1, &t, 0);
    T_ASSERT(!d, "published references: only keys are checked");
    ar_free(a);
}

int main(void)
{
    T_RUN(test_values);
    T_RUN(test_diagnose);
    T_DONE();
}
