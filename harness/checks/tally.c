/* Checks counted and reference files labelled (refcheck.h): checks of what
 * a run measured apart from counts of configurations no launch ran (an
 * exact reference's --describe answers), and reference errors apart from
 * failures of the machine. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "harness/checks/refcheck.h"

int check_described(const check_t *c)
{
    return c->source && strcmp(c->source, "run") && strcmp(c->source, "none");
}

void checks_count(const checks_t *c, int *pass, int *fail, int *na)
{
    *pass = *fail = *na = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->c[i].outcome == CK_PASS) (*pass)++;
        else if (c->c[i].outcome == CK_FAIL || c->c[i].outcome == CK_ERROR) (*fail)++;
        else (*na)++;
    }
}

ck_tally_t checks_tally(const checks_t *c)
{
    ck_tally_t t = {0};
    for (size_t i = 0; i < c->n; i++) {
        const check_t *k = &c->c[i];
        int d = check_described(k);
        if (k->outcome == CK_PASS) d ? t.described_pass++ : t.pass++;
        else if (k->outcome == CK_FAIL) d ? t.described_fail++ : t.fail++;
        else if (k->outcome == CK_ERROR) t.ref_errors++;
        else t.na++;
    }
    return t;
}

void checks_tally_text(const ck_tally_t *t, char *buf, size_t len)
{
    sb_t b = {0};
    if (t->pass || t->fail) sb_printf(&b, "checks of this run: %d passed, %d failed", t->pass, t->fail);
    else sb_puts(&b, "checks of this run: none");
    if (t->described_pass || t->described_fail)
        sb_printf(&b, "; counts of configurations not run (--describe): %d passed, %d failed",
                  t->described_pass, t->described_fail);
    if (t->na) sb_printf(&b, "; %d not applicable", t->na);
    if (t->ref_errors)
        sb_printf(&b, "; %d reference error%s", t->ref_errors, t->ref_errors == 1 ? "" : "s");
    snprintf(buf, len, "%s", sb_str(&b));
    sb_free(&b);
}

void references_label(arena_t *a, reference_t *refs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int twin = 0;
        for (size_t j = 0; j < n && !twin; j++)
            twin = j != i && !strcmp(refs[i].name, refs[j].name);
        refs[i].label = twin ? ar_printf(a, "%s (%s)", refs[i].name, refs[i].path) : refs[i].name;
    }
}

void checks_skipped(arena_t *a, checks_t *c, const char *name, const char *reason)
{
    size_t ln = strlen(name);
    for (size_t i = 0; i < c->n; i++) {
        check_t *k = &c->c[i];
        const char *w = k->where ? strstr(k->where, "benchmark=") : NULL;
        if (k->outcome != CK_ERROR || !w || (w != k->where && w[-1] != ' ')) continue;
        w += strlen("benchmark=");
        if (strncmp(w, name, ln) || (w[ln] && w[ln] != ' ')) continue;
        k->outcome = CK_FAIL;
        k->detail = ar_printf(a, "the run skipped %s (%s)", name,
                              reason ? reason : "optional");
    }
}
