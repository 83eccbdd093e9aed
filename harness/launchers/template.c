/* template: a site's own command, written in the suite as a text with {cmd}
 * (the benchmark's command, shell-quoted) and optionally {ranks}, {nodes} and
 * {ranks_per_node}; run through /bin/sh -c.  Chosen by the text, not by a
 * name.  The environment is the template writer's business (nothing is
 * exported). */
#include <string.h>

#include "harness/launchers/launcher.h"

static const char *const placeholders[] = {"{ranks}", "{nodes}", "{ranks_per_node}", "{cmd}",
                                           NULL};

static int template_matches(const char *text) { return strstr(text, "{cmd}") != NULL; }

static const char *template_check_text(arena_t *a, const char *text)
{
    for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
        int ok = 0;
        for (int i = 0; placeholders[i]; i++)
            if (!strncmp(p, placeholders[i], strlen(placeholders[i]))) ok = 1;
        if (!ok)
            return ar_printf(a, "launcher template: unknown placeholder at '%.20s' (use "
                                "{ranks}, {nodes}, {ranks_per_node}, {cmd})", p);
    }
    return NULL;
}

static char **template_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    int rpn = j->ranks_per_node && j->ranks_per_node < j->scale ? j->ranks_per_node : j->scale;
    sb_t t = {0};
    for (const char *p = j->text; *p;) {
        if (!strncmp(p, "{cmd}", 5)) {
            sb_puts(&t, argv_join(a, inner));
            p += 5;
        } else if (!strncmp(p, "{ranks}", 7)) {
            sb_printf(&t, "%d", j->scale);
            p += 7;
        } else if (!strncmp(p, "{nodes}", 7)) {
            sb_printf(&t, "%d", j->nodes);
            p += 7;
        } else if (!strncmp(p, "{ranks_per_node}", 16)) {
            sb_printf(&t, "%d", rpn);
            p += 16;
        } else {
            sb_putn(&t, p++, 1);
        }
    }
    argv_t v = {0};
    argv_push(a, &v, "/bin/sh");
    argv_push(a, &v, "-c");
    argv_push(a, &v, sb_str(&t));
    sb_free(&t);
    return argv_done(a, &v);
}

const launcher_t launcher_template = {
    .name = "template",
    .summary = "a text with {cmd} (and {ranks}, {nodes}, {ranks_per_node}), run by "
               "/bin/sh -c",
    .usage = "a command template containing {cmd}",
    .example = "mpiexec -n {ranks} -ppn {ranks_per_node} {cmd}",
    .matches = template_matches,
    .check_text = template_check_text,
    .wrap = template_wrap,
};
