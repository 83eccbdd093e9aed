/* The report's loops over its sections (report.h, section.h). */
#define _GNU_SOURCE
#include "harness/report/report.h"

#include <string.h>

void report_si(sb_t *o, double v, const char *unit)
{
    char buf[48];
    fmt_si(v, unit, buf, sizeof buf);
    sb_puts(o, buf);
}

void report_plot_link(sb_t *o, const plots_t *pl, const char *name)
{
    for (size_t i = 0; i < pl->n; i++)
        if (!strcmp(pl->p[i].name, name)) {
            if (pl->p[i].drawn)
                sb_printf(o, "\n![%s](plots/%s.png)\n\n(SVG: [plots/%s.svg](plots/%s.svg); data "
                             "and script: plots/%s.dat, plots/%s.gp)\n",
                          pl->p[i].title, name, name, name, name, name);
            else
                sb_printf(o, "\n(plot %s not drawn; data and script: plots/%s.dat, "
                             "plots/%s.gp)\n", name, name, name);
        }
}

void report_build(runctx_t *c)
{
    for (size_t i = 0; report_sections[i]; i++) {
        const section_t *s = report_sections[i];
        c->section[i] = s->build ? s->build(c) : NULL;
        if (s->metrics) s->metrics(c, c->section[i], &c->t);
    }
}

void report_plots(runctx_t *c, const char *dir)
{
    if (plots_begin(c->a, dir, &c->pl)) return;
    for (size_t i = 0; report_sections[i]; i++)
        if (report_sections[i]->plots) report_sections[i]->plots(c, c->section[i], dir, &c->pl);
    plots_draw(c->a, dir, &c->pl);
}

void report_files(const runctx_t *c)
{
    for (size_t i = 0; report_sections[i]; i++)
        if (report_sections[i]->files) report_sections[i]->files(c, c->section[i]);
}

int report_write(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t o = {0};
    for (size_t i = 0; report_sections[i]; i++)
        if (report_sections[i]->md) report_sections[i]->md(&o, c, c->section[i]);
    int rc = fileio_write_atomic(path, sb_str(&o), o.len, err, errlen);
    sb_free(&o);
    return rc;
}
