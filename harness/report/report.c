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

/* the derived numbers of the block whose report half section s is (NULL: none) */
static const void *self_of(const runctx_t *c, const section_t *s)
{
    for (int i = 0; i < BLOCK_N; i++)
        if (blocks[i]->section && !strcmp(blocks[i]->section, s->name)) return c->d.derived[i];
    return NULL;
}

void report_plots(runctx_t *c, const char *dir)
{
    if (plots_begin(c->a, dir, &c->pl)) return;
    for (const section_t *const *s = report_sections; *s; s++)
        if ((*s)->plots) (*s)->plots(c, self_of(c, *s), dir, &c->pl);
    plots_draw(c->a, dir, &c->pl);
}

void report_files(const runctx_t *c)
{
    for (const section_t *const *s = report_sections; *s; s++)
        if ((*s)->files) (*s)->files(c, self_of(c, *s));
}

int report_write(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t o = {0};
    for (const section_t *const *s = report_sections; *s; s++)
        if ((*s)->md) (*s)->md(&o, c, self_of(c, *s));
    int rc = fileio_write_atomic(path, sb_str(&o), o.len, err, errlen);
    sb_free(&o);
    return rc;
}
