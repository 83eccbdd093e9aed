#include "benchmarks/collectives/cli.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/opt.h"

static int g_rank;

void coll_cli_set_rank(int rank) { g_rank = rank; }

void coll_usage_error(const char *fmt, ...)
{
    if (g_rank == 0) {
        va_list ap;
        fprintf(stderr, "collectives: error: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, " (see collectives --help)\n");
        fflush(stderr);
    }
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Finalize();
    exit(2);
}

const char *coll_arg_value(int argc, char **argv, int *i, const char *inline_val)
{
    if (inline_val) return inline_val;
    if (*i + 1 >= argc) coll_usage_error("%s needs a value", argv[*i]);
    return argv[++*i];
}

long long coll_arg_int(const char *opt, const char *val, long long min, long long max)
{
    long long v;
    if (opt_parse_int(val, &v)) coll_usage_error("%s: '%s' is not an integer", opt, val);
    if (v < min || v > max)
        coll_usage_error("%s: %lld is out of range (allowed %lld to %lld)", opt, v, min, max);
    return v;
}

size_t coll_arg_size(const char *opt, const char *val)
{
    size_t v;
    if (coll_parse_size(val, &v))
        coll_usage_error("%s: '%s' is not a size (bytes, with an optional K, M or G suffix)", opt,
                         val);
    return v;
}

static void list_choices(const char *const *choices, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; choices[i] && used + 2 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", choices[i]);
}

int coll_arg_choice(const char *opt, const char *val, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (!strcmp(val, choices[i])) return i;
    char list[256];
    list_choices(choices, list, sizeof list);
    coll_usage_error("%s: unknown value '%s' (choose from: %s)", opt, val, list);
}

int coll_arg_choice_list(const char *opt, const char *val, const char *const *choices, int *picked)
{
    int n = 0, nc = 0;
    while (choices[nc]) picked[nc++] = 0;
    if (!strcmp(val, "all")) {
        for (int i = 0; i < nc; i++) picked[i] = 1;
        return nc;
    }
    char *copy = strdup(val), *save = NULL;
    if (!*val) coll_usage_error("%s needs a value", opt);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = coll_arg_choice(opt, tok, choices);
        if (!picked[i]) n++;
        picked[i] = 1;
    }
    free(copy);
    if (n == 0) coll_usage_error("%s needs a value", opt);
    return n;
}
