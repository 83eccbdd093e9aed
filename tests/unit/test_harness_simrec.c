/* The simulation block (docs/record.md "simulation"), read into record_t.sim
 * by the common reader for a record of any kind: a block as smpi.sh writes it
 * (peak memory given and absent), a record without one (measured), and bad
 * blocks refused with one message naming FILE:LINE:COL; and the analysis's
 * split of a benchmark's simulated launches from its measured ones. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/analysis/analysis.h"
#include "harness/blocks/recread.h"
#include "harness/blocks/simulation/blk_simulation.h"
#include "tests/unit/tap.h"

static char dir[256], err[1024];

#define N(a) (sizeof(a) / sizeof *(a))
#define T_STR(got, want) T_ASSERT((got) && !strcmp((got), (want)), "%s: read '%s', want '%s'", \
                                  #got, (got) ? (got) : "(null)", (want))

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    T_ASSERT(f, "cannot write %s", path_of(name));
    fputs(text, f);
    fclose(f);
}

#define HEAD(kind) "exadl_record: 1\nbenchmark: " kind "\nstatus: ok\nranks: 16\n"
#define SIM(extra)                                                                                 \
    "simulation:\n  simulated: true\n  simulator: 'SimGrid version 3.32'\n"                        \
    "  platform: '/p/summit-flat.xml'\n  hostfile: '/p/summit.hosts'\n  ranks: 16\n"               \
    "  collectives: 'allreduce:rdb'\n  simulate_computation: 'no'\n  shared_malloc_bytes: 0\n" extra

static void test_good(void)
{
    static const char *const kinds[] = {"skeleton", "orchestration", "collectives", "stemdl"};
    for (size_t i = 0; i < N(kinds); i++) {
        char text[1024];
        snprintf(text, sizeof text, "exadl_record: 1\nbenchmark: %s\nstatus: ok\nranks: 16\n%s",
                 kinds[i], SIM("  wall_s: 106.267\n  peak_memory_bytes: 115712000\n"));
        write_text("g.yaml", text);
        arena_t *a = ar_new();
        record_t r;
        T_ASSERT(record_load(a, path_of("g.yaml"), &r, err, sizeof err) == 0, "%s: %s", kinds[i], err);
        const siminfo_t *sim = rec_sim(&r);
        T_ASSERT(sim && record_simulated(&r), "%s: no simulation block read", kinds[i]);
        T_STR(sim->simulator, "SimGrid version 3.32");
        T_STR(sim->platform, "/p/summit-flat.xml");
        T_STR(sim->hostfile, "/p/summit.hosts");
        T_STR(sim->collectives, "allreduce:rdb");
        T_ASSERT(sim->ranks == 16, "ranks %lld", sim->ranks);
        T_ASSERT(sim->wall_s == 106.267, "wall_s %g", sim->wall_s);
        T_ASSERT(sim->peak_memory_bytes == 115712000, "peak %g", sim->peak_memory_bytes);
        ar_free(a);
    }
    /* peak memory absent (no GNU time): NaN, the rest read */
    write_text("g.yaml", HEAD("orchestration") SIM("  wall_s: 4.5\n"));
    arena_t *a = ar_new();
    record_t r;
    T_ASSERT(record_load(a, path_of("g.yaml"), &r, err, sizeof err) == 0, "%s", err);
    const siminfo_t *sim = rec_sim(&r);
    T_ASSERT(record_simulated(&r) && sim->wall_s == 4.5 && isnan(sim->peak_memory_bytes),
             "wall %g peak %g", sim ? sim->wall_s : -1, sim ? sim->peak_memory_bytes : -1);
    ar_free(a);
    /* a measured record: no block, not simulated */
    write_text("m.yaml", HEAD("orchestration"));
    a = ar_new();
    T_ASSERT(record_load(a, path_of("m.yaml"), &r, err, sizeof err) == 0, "%s", err);
    T_ASSERT(!rec_sim(&r) && !record_simulated(&r), "a record without the block reads as simulated");
    ar_free(a);
    /* simulated: false says so */
    write_text("f.yaml", HEAD("stemdl") "simulation: {simulated: false}\n");
    a = ar_new();
    T_ASSERT(record_load(a, path_of("f.yaml"), &r, err, sizeof err) == 0, "%s", err);
    sim = rec_sim(&r);
    T_ASSERT(sim && !record_simulated(&r) && sim->ranks == -1 && isnan(sim->wall_s),
             "simulated: false");
    ar_free(a);
}

static void test_bad(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {HEAD("skeleton") "simulation: [1, 2]\n",
         "b.yaml:5:13: simulation must be a mapping, not a list"},
        {HEAD("orchestration") "simulation:\n  simulated: maybe\n", "b.yaml:6:14: "},
        {HEAD("orchestration") SIM("  wall_s: -3\n"),
         "b.yaml:14:11: simulation: wall_s must be a time >= 0 s, not -3"},
        {HEAD("collectives") SIM("  wall_s: \"long\"\n"),
         "b.yaml:14:11: expected a number for wall_s, found the quoted string \"long\""},
        {HEAD("skeleton") SIM("  wall_s: 1\n  peak_memory_bytes: -.inf\n"),
         "b.yaml:15:22: simulation: peak_memory_bytes must be a size >= 0"},
        {HEAD("skeleton") "simulation:\n  platform: [a, b]\n",
         "b.yaml:6:13: expected text for platform, found a sequence"},
        {HEAD("skeleton") "simulation:\n  ranks: 0\n",
         "b.yaml:6:10: ranks: 0 is out of range"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        write_text("b.yaml", bad[i].text);
        arena_t *a = ar_new();
        record_t r;
        err[0] = 0;
        int rc = record_load(a, path_of("b.yaml"), &r, err, sizeof err);
        ar_free(a);
        T_ASSERT(rc == -1 && strstr(err, bad[i].want), "case %zu: rc %d, '%s' lacks '%s'", i, rc,
                 err, bad[i].want);
    }
}

static void test_split(void)
{
    siminfo_t yes = {.simulated = 1}, no = {.simulated = 0};
    record_t meas = {0}, sim = {.blk[BLOCK_simulation] = &yes},
             simno = {.blk[BLOCK_simulation] = &no};
    outcome_t o[] = {
        {.bench = "a", .scale = 2, .status = LS_OK, .rec = &meas},
        {.bench = "a", .scale = 4, .status = LS_OK, .rec = &sim},
        {.bench = "a", .scale = 8, .status = LS_OK, .rec = &sim},
        {.bench = "a", .scale = 8, .status = LS_FAILED, .rec = NULL},
        {.bench = "b", .scale = 4, .status = LS_OK, .rec = &sim},       /* simulated only */
        {.bench = "c", .scale = 4, .status = LS_OK, .rec = &simno},     /* simulated: false */
        {.bench = "c", .scale = 2, .status = LS_OK, .rec = &meas},
    };
    arena_t *a = ar_new();
    size_t moved = analysis_split_simulated(a, o, N(o));
    T_ASSERT(moved == 2, "%zu launches moved, want 2", moved);
    static const char *const want[] = {"a", "a (simulated)", "a (simulated)", "a", "b", "c", "c"};
    for (size_t i = 0; i < N(o); i++)
        T_STR(o[i].bench, want[i]);
    T_ASSERT(analysis_split_simulated(a, o, N(o)) == 0, "a second split moves nothing");
    ar_free(a);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/exadl-simrec-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp %s\n", dir);
        return 1;
    }
    T_RUN(test_good);
    T_RUN(test_bad);
    T_RUN(test_split);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    T_DONE();
}
