/* suite_power (suite_power.h). */
#define _GNU_SOURCE
#include "harness/suite/suite_power.h"

#include <stdio.h>
#include <string.h>

#include "harness/util/util.h"

/* a path of the suite: relative to its folder */
static const char *suite_path(ctx_t *c, const char *p)
{
    return p[0] == '/' ? p : path_abs(c->a, path_join(c->a, c->dir, p));
}

static void put(ctx_t *c, kv_t **env, size_t *nenv, size_t *cap, const char *key, const char *v)
{
    for (size_t i = 0; i < *nenv; i++)
        if (!strcmp((*env)[i].key, key)) {
            (*env)[i].value = v;
            return;
        }
    if (*nenv + 1 >= *cap) {
        size_t ncap = *cap * 2 + 8;
        kv_t *e = ar_alloc(c->a, ncap * sizeof *e);
        if (*nenv) memcpy(e, *env, *nenv * sizeof *e);
        *env = e, *cap = ncap;
    }
    (*env)[(*nenv)++] = (kv_t){key, v};
}

int suite_parse_power(ctx_t *c, const ytnode *n, kv_t **env, size_t *nenv, size_t *cap)
{
    static const char *const keys[] = {"powercap_root", "nvml_lib", "meter", "meter_accuracy",
                                       "interval_s", NULL};
    if (yt_expect(c->d, n, YT_MAP, "power", c->err, c->errlen) ||
        yt_check_keys(c->d, n, keys, c->err, c->errlen))
        return -1;
    const ytnode *k;
    const char *s;
    double v;
    if ((k = yt_get(n, "powercap_root"))) {
        if (suite_scalar_str(c, k, "power.powercap_root", &s)) return -1;
        put(c, env, nenv, cap, "EXADL_POWERCAP_ROOT", suite_path(c, s));
    }
    if ((k = yt_get(n, "nvml_lib"))) {
        if (suite_scalar_str(c, k, "power.nvml_lib", &s)) return -1;
        /* a bare name is the loader's to find; a path is the suite's */
        put(c, env, nenv, cap, "EXADL_NVML_LIB", strchr(s, '/') ? suite_path(c, s) : s);
    }
    if ((k = yt_get(n, "meter"))) {
        if (suite_scalar_str(c, k, "power.meter", &s)) return -1;
        if (!strncmp(s, "file:", 5) && s[5])
            s = ar_printf(c->a, "file:%s", suite_path(c, s + 5));
        else if (strncmp(s, "command:", 8) || !s[8 + strspn(s + 8, " \t")])
            return suite_err_at(c, k, "power.meter: '%s' is neither file:PATH nor command:PROGRAM "
                                "[ARGS] (docs/energy.md)", s);
        put(c, env, nenv, cap, "EXADL_POWER_METER", s);
    }
    if ((k = yt_get(n, "meter_accuracy"))) {
        if (suite_num_in(c, k, "power.meter_accuracy", 0, 1, &v)) return -1;
        put(c, env, nenv, cap, "EXADL_POWER_METER_ACCURACY", ar_printf(c->a, "%.17g", v));
    }
    if ((k = yt_get(n, "interval_s"))) {
        if (suite_num_in(c, k, "power.interval_s", 0, 3600, &v)) return -1;
        put(c, env, nenv, cap, "EXADL_POWER_INTERVAL_S", ar_printf(c->a, "%.17g", v));
    }
    return 0;
}
