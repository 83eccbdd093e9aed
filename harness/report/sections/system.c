/* Report section: the machine, from the system block of the successful
 * launch with the most ranks, with every host any launch ran on. */
#include <string.h>

#include "harness/report/runctx.h"
#include "harness/util/esc.h"

static const char *sys_str(const ytnode *sys, const char *a, const char *b)
{
    const ytnode *n = yt_get(sys, a);
    if (b) n = yt_get(n, b);
    return n && n->kind == YT_SCALAR && !yt_is_null(n) ? n->str : "n/a"; /* escaped by md() */
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    sb_puts(o, "\n## System\n\n");
    const ytnode *s = c->an.first_ok ? c->an.first_ok->system : NULL;
    if (!s) {
        sb_puts(o, "No launch wrote a usable record, so nothing is known about the system "
                   "beyond the host name; `exadl sysinfo` prints it.\n");
        return;
    }
    sb_printf(o, "As rank 0 of the largest successful launch (%lld rank%s) recorded it; the hosts "
                 "are those of every launch.\n\n| | |\n|---|---|\n",
              c->an.first_ok->ranks, c->an.first_ok->ranks == 1 ? "" : "s");
    size_t nh;
    const char **h = outcome_hosts(c->a, c->ri.o, c->ri.no, &nh);
    sb_puts(o, "| hosts | ");
    for (size_t i = 0; i < nh && i < 16; i++) sb_printf(o, "%s%s", i ? ", " : "", esc_md(c->a, h[i]));
    if (nh > 16) sb_printf(o, " ... (%zu hosts)", nh);
    sb_puts(o, " |\n");
    if (c->ri.exadl_host && (nh != 1 || strcmp(h[0], c->ri.exadl_host)))
        sb_printf(o, "| exadl ran on | %s |\n", esc_md(c->a, c->ri.exadl_host));
    arena_t *a = c->a; /* record text, escaped for report.md (harness/util/esc.h) */
    sb_printf(o, "| CPU | %s, %s cores |\n", esc_md(a, sys_str(s, "cpu", "model")),
              esc_md(a, sys_str(s, "cpu", "cores")));
    sb_printf(o, "| OS | %s |\n", esc_md(a, sys_str(s, "os", NULL)));
    sb_printf(o, "| GPU | %s x %s (driver %s, compute capability %s) |\n",
              esc_md(a, sys_str(s, "gpu", "model")), esc_md(a, sys_str(s, "gpu", "count")),
              esc_md(a, sys_str(s, "gpu", "driver")), esc_md(a, sys_str(s, "gpu", "compute_capability")));
    /* docs/vcluster.md: the nodes were namespaces of one host; said first, plainly */
    const ytnode *emu = yt_get(s, "network_emulated");
    if (emu && emu->kind == YT_SCALAR && !yt_is_null(emu)) {
        sb_puts(o, "| network | EMULATED, not a real cluster: ");
        for (const char *p = emu->str; *p && p - emu->str < 600; p++) /* untrusted: one cell */
            sb_putn(o, *p == '|' || *p == '\n' || *p == '\r' ? " " : p, 1);
        sb_puts(o, " |\n");
    }
    const ytnode *v = yt_get(s, "versions");
    for (size_t i = 0; v && v->kind == YT_MAP && i < v->n; i++) {
        const ytnode *k = yt_key(v, i), *x = yt_val(v, i);
        if (k->kind == YT_SCALAR && x->kind == YT_SCALAR && !yt_is_null(x))
            sb_printf(o, "| %s | %s |\n", esc_md(c->a, k->str), esc_md(c->a, x->str));
    }
}

const section_t section_system = {.name = "system", .md = md};
