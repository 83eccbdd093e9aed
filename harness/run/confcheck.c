/* Each benchmark program checks its own configuration (confcheck.h). */
#define _GNU_SOURCE
#include "harness/run/confcheck.h"

#include <stdlib.h>
#include <string.h>

#include "harness/proc/ask.h"
#include "harness/run/launchplan.h"
#include "harness/workloads/workload.h"

static int skipped(const char *name, const char *const *skip, size_t nskip)
{
    for (size_t i = 0; i < nskip; i++)
        if (!strcmp(skip[i], name)) return 1;
    return 0;
}

int confcheck_suite(arena_t *a, const suite_t *s, const char *const *skip, size_t nskip, sb_t *said,
                    char *err, size_t errlen)
{
    suite_t plain = *s;
    plain.gpu_bind = 0; /* the program itself, not through `exadl bind` */
    for (size_t i = 0; i < s->nbench; i++) {
        const bench_spec_t *b = &s->bench[i];
        const workload_t *w = workload_named(path_basename(b->program));
        if (!b->program_path || !w || !w->check_config || !b->nscales ||
            skipped(b->name, skip, nskip))
            continue;
        argv_t v = {0};
        /* the folder is not made yet: its placeholders relative to it */
        suite_vars_t vars =
            launchplan_vars(a, NULL, ar_printf(a, "%s-n%d-r1", b->name, b->scales[0]));
        argv_push_argv(a, &v, launchplan_bench_argv(a, &plain, b, b->scales[0], NULL, &vars));
        argv_push(a, &v, w->check_config);
        char why[512];
        int code;
        /* the suite's env: a program may need its LD_LIBRARY_PATH to start */
        free(ask_program(argv_done(a, &v), b->env, b->nenv, 60, &code, why, sizeof why));
        if (code == 2) {
            const char *words = strstr(why, ": error: ");
            snprintf(err, errlen, "%s:%d: benchmark %s: %s (%s %s)", s->path, b->line, b->name,
                     words ? words + 9 : why, w->program, w->check_config);
            return -1;
        }
        if (!said) continue;
        if (code == 0)
            sb_printf(said, "  %s: configuration valid (%s %s)\n", b->name, w->program,
                      w->check_config);
        else
            sb_printf(said, "  warning: %s: its configuration could not be checked (%s %s: %s)%s\n",
                      b->name, w->program, w->check_config, why,
                      b->optional ? "; optional: a run skips it" : "");
    }
    return 0;
}
