/* safefile (issue 30 D1-D4): writing into a run folder from elsewhere.  A
 * link planted at a folder or file name exadl writes is refused or replaced,
 * never followed; the temporary names of whole-file writes are fresh files;
 * a second writer of a folder is refused naming the first. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/fileio.h"
#include "benchmarks/common/record/record.h"
#include "harness/util/safefile.h"
#include "tests/unit/tap.h"

static char tmpdir[200];
static char err[1024];

static const char *at(const char *name)
{
    static char buf[4][400];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "w");
    T_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", at(name));
}

/* the victim outside the run folder still holds exactly "victim\n" */
static void victim_intact(void)
{
    size_t len;
    char *t = fileio_read(at("outside/victim.txt"), &len, 1 << 20, err, sizeof err);
    T_ASSERT(t && !strcmp(t, "victim\n"), "the file outside was changed: '%s'", t ? t : err);
    free(t);
}

static void setup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/run' '%s/outside'", tmpdir, tmpdir);
    T_ASSERT(system(cmd) == 0, "cannot clean %s", tmpdir);
    T_ASSERT(mkdir(at("run"), 0755) == 0 && mkdir(at("run/records"), 0755) == 0 &&
             mkdir(at("outside"), 0755) == 0, "cannot make the folders");
    put("run/records/a.yaml", "x: 1\n");
    put("outside/victim.txt", "victim\n");
}

static void test_check_rundir(void)
{
    setup();
    T_ASSERT(sf_check_rundir(at("run"), err, sizeof err) == 0, "a clean folder refused: %s", err);
    T_ASSERT(symlink(at("outside"), at("run/plots")) == 0, "symlink");
    T_ASSERT(sf_check_rundir(at("run"), err, sizeof err) == -1, "plots -> outside accepted");
    T_ASSERT(strstr(err, "run/plots is a symbolic link") && !strchr(err, '\n'), "'%s'", err);
    unlink(at("run/plots"));
    T_ASSERT(symlink(at("outside/victim.txt"), at("run/records/b.yaml")) == 0, "symlink");
    T_ASSERT(sf_check_rundir(at("run"), err, sizeof err) == -1, "a record link accepted");
    T_ASSERT(strstr(err, "records/b.yaml is a symbolic link"), "'%s'", err);
    unlink(at("run/records/b.yaml"));
    T_ASSERT(mkfifo(at("run/journal.yaml"), 0644) == 0, "mkfifo");
    T_ASSERT(sf_check_rundir(at("run"), err, sizeof err) == -1, "a FIFO journal accepted");
    T_ASSERT(strstr(err, "journal.yaml is a FIFO"), "'%s'", err);
}

static void test_mkdir_append(void)
{
    setup();
    T_ASSERT(symlink(at("outside"), at("run/model")) == 0, "symlink");
    T_ASSERT(sf_mkdir(at("run/model"), err, sizeof err) == -1, "mkdir accepted a link");
    T_ASSERT(sf_mkdir(at("run/records"), err, sizeof err) == 0, "an existing folder: %s", err);
    T_ASSERT(symlink(at("outside/victim.txt"), at("run/journal.yaml")) == 0, "symlink");
    T_ASSERT(sf_append(at("run/journal.yaml"), "x\n", 2, err, sizeof err) == -1,
             "appended through a link");
    victim_intact();
    T_ASSERT(sf_append(at("run/j2.yaml"), "x\n", 2, err, sizeof err) == 0 &&
             sf_append(at("run/j2.yaml"), "y\n", 2, err, sizeof err) == 0, "append: %s", err);
    char *t = fileio_read(at("run/j2.yaml"), NULL, 1 << 20, err, sizeof err);
    T_ASSERT(t && !strcmp(t, "x\ny\n"), "appended '%s'", t ? t : err);
    free(t);
}

/* a link at the final name is replaced; one at the temporary name is not
 * written through */
static void test_whole_writes(void)
{
    setup();
    T_ASSERT(symlink(at("outside/victim.txt"), at("run/report.md")) == 0, "symlink");
    T_ASSERT(fileio_write_atomic(at("run/report.md"), "r\n", 2, err, sizeof err) == 0, "%s", err);
    victim_intact();
    struct stat st;
    T_ASSERT(lstat(at("run/report.md"), &st) == 0 && S_ISREG(st.st_mode), "the link stayed");
    char tmpname[100];
    snprintf(tmpname, sizeof tmpname, "run/results.yaml.tmp.%ld", (long)getpid());
    T_ASSERT(symlink(at("outside/victim.txt"), at(tmpname)) == 0, "symlink");
    T_ASSERT(fileio_write_atomic(at("run/results.yaml"), "r\n", 2, err, sizeof err) == 0, "%s", err);
    victim_intact();
    snprintf(tmpname, sizeof tmpname, "run/run.yaml.tmp.%ld", (long)getpid());
    T_ASSERT(symlink(at("outside/victim.txt"), at(tmpname)) == 0, "symlink");
    rec_t *w = rec_open(at("run/run.yaml"), err, sizeof err);
    T_ASSERT(w, "rec_open: %s", err);
    rec_map_begin(w);
    rec_kv_int(w, "exadl_run", 1);
    rec_map_end(w);
    T_ASSERT(rec_close(w, err, sizeof err) == 0, "rec_close: %s", err);
    victim_intact();
}

static void test_move_aside(void)
{
    setup();
    char aside[500];
    T_ASSERT(sf_move_aside(at("run/records/a.yaml"), "partial", aside, sizeof aside, err,
                           sizeof err) == 0, "%s", err);
    T_ASSERT(!strcmp(aside, at("run/records/a.yaml.partial-1")), "moved to %s", aside);
    put("run/records/a.yaml", "x: 2\n");
    T_ASSERT(sf_move_aside(at("run/records/a.yaml"), "partial", aside, sizeof aside, err,
                           sizeof err) == 0 && strstr(aside, "a.yaml.partial-2"),
             "the second went to %s", aside);
}

static void test_lock(void)
{
    setup();
    T_ASSERT(sf_lock_dir(at("run"), "exadl test", err, sizeof err) == 0, "first lock: %s", err);
    T_ASSERT(sf_lock_dir(at("run"), "exadl test 2", err, sizeof err) == -1, "locked twice");
    char want[64];
    snprintf(want, sizeof want, "pid %ld;", (long)getpid());
    T_ASSERT(strstr(err, "is in use by another exadl") && strstr(err, want) && strstr(err, "host "),
             "'%s' does not name the holder", err);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/exadl-safefile-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    T_RUN(test_check_rundir);
    T_RUN(test_mkdir_append);
    T_RUN(test_whole_writes);
    T_RUN(test_move_aside);
    T_RUN(test_lock);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    T_DONE();
}
