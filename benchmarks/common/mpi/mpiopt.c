#include "benchmarks/common/mpi/mpiopt.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"

static const char *g_program = "exadl";
static int g_rank;

void mpiopt_init(const char *program, int rank)
{
    g_program = program;
    g_rank = rank;
}

void mpiopt_usage_error(const char *fmt, ...)
{
    if (g_rank == 0) {
        va_list ap;
        fprintf(stderr, "%s: error: ", g_program);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, " (see %s --help)\n", g_program);
        fflush(stderr);
    }
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Finalize();
    exit(2);
}

const char *mpiopt_option(const char *arg, void (*usage)(void), char *name, size_t namelen,
                          const char **inline_val)
{
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
        usage();
        exit(0);
    }
    const char *eq = strncmp(arg, "--", 2) ? NULL : strchr(arg, '=');
    *inline_val = eq ? eq + 1 : NULL;
    if (!eq) return arg;
    snprintf(name, namelen, "%.*s", (int)(eq - arg), arg);
    return name;
}

const char *mpiopt_value(int argc, char **argv, int *i, const char *inline_val)
{
    if (inline_val) return inline_val;
    if (*i + 1 >= argc) mpiopt_usage_error("%s needs a value", argv[*i]);
    return argv[++*i];
}

long long mpiopt_int(const char *opt, const char *val, long long min, long long max)
{
    long long v;
    if (opt_parse_int(val, &v)) mpiopt_usage_error("%s: '%s' is not an integer", opt, val);
    if (v < min || v > max)
        mpiopt_usage_error("%s: %lld is out of range (allowed %lld to %lld)", opt, v, min, max);
    return v;
}

size_t mpiopt_size(const char *opt, const char *val)
{
    size_t v;
    if (opt_parse_size(val, &v))
        mpiopt_usage_error("%s: '%s' is not a size (bytes, with an optional K, M or G suffix)",
                           opt, val);
    return v;
}

static void list_choices(const char *const *choices, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; choices[i] && used + 2 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", choices[i]);
}

int mpiopt_choice(const char *opt, const char *val, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (!strcmp(val, choices[i])) return i;
    char list[256];
    list_choices(choices, list, sizeof list);
    mpiopt_usage_error("%s: unknown value '%s' (choose from: %s)", opt, val, list);
}

int mpiopt_choice_list(const char *opt, const char *val, const char *const *choices, int *picked)
{
    int n = 0, nc = 0;
    while (choices[nc]) picked[nc++] = 0;
    if (!strcmp(val, "all")) {
        for (int i = 0; i < nc; i++) picked[i] = 1;
        return nc;
    }
    if (!*val) mpiopt_usage_error("%s needs a value", opt);
    char *copy = strdup(val), *save = NULL;
    CHECK(copy != NULL, "out of memory for the value of %s", opt);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = mpiopt_choice(opt, tok, choices);
        if (!picked[i]) n++;
        picked[i] = 1;
    }
    free(copy);
    if (n == 0) mpiopt_usage_error("%s needs a value", opt);
    return n;
}
