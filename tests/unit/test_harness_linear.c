/* Readers of run folders are linear (issue 30 item 4): journal.yaml, where
 * each line's launch id was compared with every id before it (O(n^2) for a
 * journal of n launches), is read at 2n lines in at most 3x the time of n
 * (tests/unit/doubling.h: CPU time, the minimum of three tries). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/run/runstate.h"
#include "tests/unit/doubling.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/exadl-linear-XXXXXX";

/* DIR/jN/journal.yaml: n launches, then every 8th again (the last wins) */
static void journal_file(size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/j%zu", dir, n);
    T_ASSERT(mkdir(p, 0755) == 0, "mkdir %s", p);
    snprintf(p, sizeof p, "%s/j%zu/journal.yaml", dir, n);
    FILE *f = fopen(p, "w");
    T_ASSERT(f != NULL, "cannot write %s", p);
    for (size_t i = 0; i < n + n / 8; i++)
        fprintf(f, "- {id: \"stemdl-n%zu-r%zu\", status: %s, how: \"exit status 0\", error: null, "
                   "exit_code: 0, signal: -1, elapsed_s: 1.5, step: null, hosts: \"node1\"}\n",
                i % n % 64, i % n, i < n ? "failed" : "ok");
    T_ASSERT(fclose(f) == 0, "cannot write %s", p);
}

static void read_journal(void *ctx, size_t n)
{
    (void)ctx;
    char p[512], err[512];
    snprintf(p, sizeof p, "%s/j%zu", dir, n);
    arena_t *a = ar_new();
    outcome_t *o;
    size_t no;
    int skipped;
    int rc = journal_read(a, p, &o, &no, &skipped, err, sizeof err);
    size_t ok = 0;
    for (size_t i = 0; !rc && i < no; i++) ok += o[i].status == LS_OK;
    ar_free(a);
    T_ASSERT(rc == 0 && no == n && skipped == 0 && ok == n / 8,
             "%zu lines: rc %d, %zu launches, %zu ok (the repeated ones), %d skipped: %s", n, rc, no,
             ok, skipped, rc ? err : "");
}

static void test_journal_linear(void)
{
    size_t n = DOUBLING_N(20000, 32);
    T_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
    journal_file(n);
    journal_file(2 * n);
    double t1, t2, r = doubling_ratio(read_journal, NULL, n, &t1, &t2);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    T_ASSERT(system(cmd) == 0, "cannot remove %s", dir);
    printf("# journal.yaml: n=%zu launches %.3f s, 2n %.3f s (%.2fx)\n", n, t1, t2, r);
    T_ASSERT(r <= DOUBLING_MAX_RATIO, "journal of %zu launches %.3f s, %zu %.3f s: %.2fx (at most "
             "%.1fx)", n, t1, 2 * n, t2, r, DOUBLING_MAX_RATIO);
}

int main(void)
{
    T_RUN(test_journal_linear);
    T_DONE();
}
