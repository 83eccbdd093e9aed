#include "benchmarks/common/opt.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

int opt_parse_int(const char *val, long long *out)
{
    if (!val || !*val) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

int opt_parse_double(const char *val, double *out)
{
    if (!val || !*val) return -1;
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (*end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int opt_parse_size(const char *val, size_t *out)
{
    if (!val || !isdigit((unsigned char)*val)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10, end++; break;
    case 'M': shift = 20, end++; break;
    case 'G': shift = 30, end++; break;
    default: break;
    }
    if (shift && *end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    if (v > (ULLONG_MAX >> shift) || (v << shift) > (unsigned long long)SIZE_MAX / 2) return -1;
    *out = (size_t)(v << shift);
    return 0;
}

long long opt_int(const char *opt, const char *val, long long min, long long max)
{
    long long v;
    if (!val) check_usage("%s needs a value", opt);
    if (opt_parse_int(val, &v)) check_usage("%s: '%s' is not an integer", opt, val);
    if (v < min || v > max)
        check_usage("%s: %lld is out of range (allowed %lld to %lld)", opt, v, min, max);
    return v;
}

double opt_double(const char *opt, const char *val, double min, double max)
{
    double v;
    if (!val) check_usage("%s needs a value", opt);
    if (opt_parse_double(val, &v)) check_usage("%s: '%s' is not a number", opt, val);
    if (v < min || v > max) check_usage("%s: %g is out of range (allowed %g to %g)", opt, v, min, max);
    return v;
}

int opt_int_list(const char *opt, const char *val, int *out, int cap, int min, int max)
{
    if (!val || !*val) check_usage("%s needs a comma-separated list of integers", opt);
    int n = 0;
    const char *p = val;
    while (*p) {
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            check_usage("%s: '%s' is not a comma-separated list of integers", opt, val);
        memcpy(item, p, len);
        item[len] = 0;
        if (n == cap) check_usage("%s: more than %d values", opt, cap);
        out[n++] = (int)opt_int(opt, item, min, max);
        p += len;
        if (*p == ',') {
            p++;
            if (!*p) check_usage("%s: '%s' ends with a comma", opt, val);
        }
    }
    return n;
}

int opt_choice(const char *opt, const char *val, const char *const *choices)
{
    if (!val) check_usage("%s needs a value", opt);
    for (int i = 0; choices[i]; i++)
        if (!strcmp(val, choices[i])) return i;
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; choices[i] && used + 32 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    check_usage("%s: unknown value '%s' (choose one of: %s)", opt, val, list);
}

int opt_take_check_config(int *argc, char **argv)
{
    int n = 0, found = 0;
    for (int i = 0; i < *argc; i++) {
        if (i > 0 && !strcmp(argv[i], OPT_CHECK_CONFIG)) found = 1;
        else argv[n++] = argv[i];
    }
    for (int i = n; i < *argc; i++) argv[i] = NULL;
    *argc = n;
    return found;
}

int opt_config_valid(void)
{
    printf("%s: %s: the configuration is valid\n", check_program(), OPT_CHECK_CONFIG);
    return fflush(stdout) ? 1 : 0;
}
