/* Slurm without a Slurm: the allocation's ranks and nodes from recorded
 * environments (salloc -n 2, salloc -N 1, -N 1 --exclusive, -n 1 -c 2
 * recorded on Debian's Slurm 22.05; -N 4 --exclusive on 64-core nodes,
 * --ntasks-per-node with --gpus-per-node, GPUs without tasks and uneven task
 * counts written as Slurm writes them) and the plans they give; malformed
 * variables refused; hostlists; what srun's and mpirun's lines in a log say;
 * `scontrol show job -o` read; the run folder's journal and run.yaml read
 * back, a torn line skipped.  The real thing: tests/it/slurm.sh. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/run/launchplan.h"
#include "harness/run/runstate.h"
#include "harness/run/slurm.h"
#include "harness/suite/suite.h"
#include "tests/unit/tap.h"

/* an environment as "NAME=value" strings, NULL-terminated */
static const char *lookup(void *ctx, const char *name)
{
    size_t l = strlen(name);
    for (const char *const *e = ctx; *e; e++)
        if (!strncmp(*e, name, l) && (*e)[l] == '=') return *e + l + 1;
    return NULL;
}

static machine_t machine_of(const char *const *env)
{
    machine_t m = {.cores = 2};
    machine_slurm_env(&m, lookup, (void *)env);
    return m;
}

static void expect(const char *what, const char *const *env, int tasks, int nodes, int rpn, int gpn)
{
    machine_t m = machine_of(env);
    T_ASSERT(m.slurm && !m.slurm_error[0], "%s: %s", what, m.slurm_error);
    T_ASSERT(m.slurm_tasks == tasks && m.slurm_nodes == nodes && m.slurm_tasks_per_node == rpn &&
                 m.slurm_gpus_per_node == gpn,
             "%s: tasks %d nodes %d rpn %d gpus %d (want %d %d %d %d; %s)", what, m.slurm_tasks,
             m.slurm_nodes, m.slurm_tasks_per_node, m.slurm_gpus_per_node, tasks, nodes, rpn, gpn,
             m.slurm_how);
    T_ASSERT(machine_devices(&m) == tasks, "%s: auto scales reach %d", what, machine_devices(&m));
}

static void test_recorded(void)
{
    /* salloc -n 2 on a 2-CPU node (recorded) */
    static const char *const n2[] = {"SLURM_JOB_ID=6", "SLURM_JOB_CPUS_PER_NODE=2",
                                     "SLURM_JOB_NUM_NODES=1", "SLURM_NNODES=1", "SLURM_NPROCS=2",
                                     "SLURM_NTASKS=2", "SLURM_TASKS_PER_NODE=2", NULL};
    expect("salloc -n 2", n2, 2, 1, 2, 0);
    /* salloc -N 1: no SLURM_NTASKS, one CPU (recorded); the host's 2 cores must not count */
    static const char *const N1[] = {"SLURM_JOB_ID=9", "SLURM_JOB_CPUS_PER_NODE=1",
                                     "SLURM_JOB_NUM_NODES=1", "SLURM_NNODES=1",
                                     "SLURM_TASKS_PER_NODE=1", NULL};
    expect("salloc -N 1", N1, 1, 1, 1, 0);
    /* salloc -N 1 --exclusive (recorded) */
    static const char *const N1x[] = {"SLURM_JOB_ID=10", "SLURM_JOB_CPUS_PER_NODE=2",
                                      "SLURM_JOB_NUM_NODES=1", "SLURM_TASKS_PER_NODE=2", NULL};
    expect("salloc -N 1 --exclusive", N1x, 2, 1, 2, 0);
    /* salloc -n 1 -c 2 (recorded) */
    static const char *const c2[] = {"SLURM_JOB_ID=11", "SLURM_CPUS_PER_TASK=2",
                                     "SLURM_JOB_CPUS_PER_NODE=2", "SLURM_JOB_NUM_NODES=1",
                                     "SLURM_NPROCS=1", "SLURM_NTASKS=1",
                                     "SLURM_TASKS_PER_NODE=1", NULL};
    expect("salloc -n 1 -c 2", c2, 1, 1, 1, 0);
    /* -N 1 -c 2 without -n: one rank per task's CPUs */
    static const char *const c2N[] = {"SLURM_JOB_ID=12", "SLURM_CPUS_PER_TASK=2",
                                      "SLURM_JOB_CPUS_PER_NODE=4", "SLURM_JOB_NUM_NODES=1", NULL};
    expect("salloc -N 1 -c 2 on 4 CPUs", c2N, 2, 1, 2, 0);
}

static void test_multinode(void)
{
    /* sbatch -N 4 --exclusive on 64-core nodes: 256 ranks, 64 per node (not 64 nodes) */
    static const char *const x4[] = {"SLURM_JOB_ID=20", "SLURM_JOB_NUM_NODES=4",
                                     "SLURM_JOB_CPUS_PER_NODE=64(x4)",
                                     "SLURM_TASKS_PER_NODE=64(x4)", NULL};
    expect("-N 4 --exclusive", x4, 256, 4, 64, 0);
    /* -N 4 --ntasks-per-node=4 --gpus-per-node=4 */
    static const char *const g4[] = {"SLURM_JOB_ID=21", "SLURM_JOB_NUM_NODES=4", "SLURM_NTASKS=16",
                                     "SLURM_NTASKS_PER_NODE=4", "SLURM_TASKS_PER_NODE=4(x4)",
                                     "SLURM_JOB_CPUS_PER_NODE=32(x4)", "SLURM_GPUS_PER_NODE=4",
                                     NULL};
    expect("-N 4 --ntasks-per-node=4 --gpus-per-node=4", g4, 16, 4, 4, 4);
    /* -N 2 --gpus-per-node=a100:4 without tasks: one rank per GPU */
    static const char *const ga[] = {"SLURM_JOB_ID=22", "SLURM_JOB_NUM_NODES=2",
                                     "SLURM_JOB_CPUS_PER_NODE=64(x2)", "SLURM_GPUS_PER_NODE=a100:4",
                                     NULL};
    expect("-N 2 --gpus-per-node=a100:4", ga, 8, 2, 4, 4);
    /* -n 7 over nodes of 2 CPUs: uneven, at most 2 per node */
    static const char *const un[] = {"SLURM_JOB_ID=23", "SLURM_JOB_NUM_NODES=4", "SLURM_NTASKS=7",
                                     "SLURM_TASKS_PER_NODE=2(x3),1",
                                     "SLURM_JOB_CPUS_PER_NODE=2(x3),1", NULL};
    expect("-n 7 uneven", un, 7, 4, 2, 0);
    machine_t m = machine_of(un);
    arena_t *a = ar_new();
    const char *ok7 = machine_check_launch(a, &m, 7, 2), *bad8 = machine_check_launch(a, &m, 8, 2);
    const char *rpn3 = machine_check_launch(a, &m, 6, 3);
    int good = !ok7 && bad8 && strstr(bad8, "scale 8 needs 8 ranks") && strstr(bad8, "holds 7") &&
               rpn3 && strstr(rpn3, "at most 2");
    char b8[256], r3[256];
    snprintf(b8, sizeof b8, "%s", bad8 ? bad8 : "accepted");
    snprintf(r3, sizeof r3, "%s", rpn3 ? rpn3 : "accepted");
    ar_free(a);
    T_ASSERT(good, "uneven: 7 fits, 8 is refused (%s), 3 per node is refused (%s)", b8, r3);
}

/* the plan a suite gets in an allocation: -N 4 --exclusive, scale 128 on 2 nodes */
static void test_plan(void)
{
    static const char *const x4[] = {"SLURM_JOB_ID=20", "SLURM_JOB_NUM_NODES=4",
                                     "SLURM_JOB_CPUS_PER_NODE=64(x4)",
                                     "SLURM_TASKS_PER_NODE=64(x4)", NULL};
    machine_t m = machine_of(x4);
    arena_t *a = ar_new();
    char err[1024];
    suite_t s;
    const char *text = "launcher: srun\nlauncher_mpi: pmix\nscales: [128, 256]\n"
                       "benchmarks: [{program: /bin/true}]\n";
    int rc = suite_load_text(a, text, strlen(text), "t.yaml", ".", &m, &s, err, sizeof err);
    launchplan_t p = {0};
    if (!rc) launchplan_build(a, &s, NULL, &p);
    char *l0 = rc || p.n != 2 ? "" : argv_join(a, p.l[0].argv);
    char *l1 = rc || p.n != 2 ? "" : argv_join(a, p.l[1].argv);
    static const char w0[] = "srun --ntasks=128 --nodes=2 --ntasks-per-node=64 --kill-on-bad-exit=1 "
                             "--mpi=pmix --verbose /", /* then the program's path */
        w1[] = "srun --ntasks=256 --nodes=4 --ntasks-per-node=64 --kill-on-bad-exit=1 --mpi=pmix "
               "--verbose /";
    int ok = !rc && !strncmp(l0, w0, strlen(w0)) && !strncmp(l1, w1, strlen(w1));
    char got[1400];
    snprintf(got, sizeof got, "%s | %s | %s", rc ? err : "", l0, l1);
    /* scales past the allocation are refused with what it holds */
    const char *big = "launcher: srun\nscales: [512]\nbenchmarks: [{program: /bin/true}]\n";
    int rc2 = suite_load_text(a, big, strlen(big), "t.yaml", ".", &m, &s, err, sizeof err);
    int refused = rc2 && strstr(err, "t.yaml:3:") && strstr(err, "scale 512 needs 512 ranks") &&
                  strstr(err, "holds 256");
    char e2[1100];
    snprintf(e2, sizeof e2, "%s", err);
    /* auto scales stop at the allocation, not at this host's cores */
    const char *aut = "launcher: srun\nbenchmarks: [{program: /bin/true}]\n";
    int rc3 = suite_load_text(a, aut, strlen(aut), "t.yaml", ".", &m, &s, err, sizeof err);
    int top = rc3 ? -1 : s.bench[0].scales[s.bench[0].nscales - 1];
    /* launcher_mpi belongs to srun */
    const char *mp = "launcher: mpirun\nlauncher_mpi: pmix\nbenchmarks: [{program: /bin/true}]\n";
    machine_t host = {.cores = 2};
    int rc4 = suite_load_text(a, mp, strlen(mp), "t.yaml", ".", &host, &s, err, sizeof err);
    int mpi_refused = rc4 && strstr(err, "launcher_mpi applies to launcher: srun");
    ar_free(a);
    T_ASSERT(ok, "plan: %s", got);
    T_ASSERT(refused, "512 ranks in a 256-rank allocation: %s", e2);
    T_ASSERT(top == 256, "auto scales reach %d, not the allocation's 256", top);
    T_ASSERT(mpi_refused, "launcher_mpi with mpirun accepted");
}

static void test_malformed(void)
{
    static const struct {
        const char *env[6];
        const char *want;
    } cases[] = {
        {{"SLURM_JOB_ID=1", "SLURM_TASKS_PER_NODE=2(x", NULL}, "SLURM_TASKS_PER_NODE='2(x'"},
        {{"SLURM_JOB_ID=1", "SLURM_NTASKS=two", NULL}, "SLURM_NTASKS='two' is not a whole number"},
        {{"SLURM_JOB_ID=1", "SLURM_JOB_NUM_NODES=2", "SLURM_JOB_CPUS_PER_NODE=4(x3)", NULL},
         "lists 3 node(s) but the allocation has 2"},
        {{"SLURM_JOB_ID=1", "SLURM_GPUS_PER_NODE=a100:", NULL}, "SLURM_GPUS_PER_NODE"},
        {{"SLURM_JOB_ID=1", "SLURM_NTASKS=99999999999", NULL}, "SLURM_NTASKS"},
        {{"SLURM_JOB_ID=1", "SLURM_CPUS_PER_TASK=8", "SLURM_JOB_CPUS_PER_NODE=4", NULL},
         "holds no task"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        machine_t m = machine_of(cases[i].env);
        T_ASSERT(m.slurm && strstr(m.slurm_error, cases[i].want), "case %zu: '%s' (want '%s')", i,
                 m.slurm_error, cases[i].want);
        arena_t *a = ar_new();
        const char *why = machine_check_launch(a, &m, 1, 0);
        int ok = why && strstr(why, "cannot be read");
        ar_free(a);
        T_ASSERT(ok, "case %zu: a launch in an unreadable allocation was accepted", i);
    }
    static const char *const none[] = {"SLURM_NTASKS=8", NULL}; /* no job: not in Slurm */
    machine_t m = machine_of(none);
    T_ASSERT(!m.slurm && machine_devices(&m) == 2, "SLURM_NTASKS without a job counted");
    int v[8];
    T_ASSERT(machine_count_list("72(x2),36", v, 8) == 3 && v[0] == 72 && v[1] == 72 && v[2] == 36,
             "72(x2),36");
    T_ASSERT(machine_count_list("1(x9)", v, 8) == -1 && machine_count_list("", v, 8) == -1 &&
                 machine_count_list("3,", v, 8) == -1 && machine_count_list("(x2)", v, 8) == -1,
             "bad count lists accepted");
}

static void test_hostlist(void)
{
    arena_t *a = ar_new();
    const char *h[16];
    int n1 = slurm_hostlist_expand(a, "n[01-03,07],login1", h, 16);
    char got[256] = "";
    for (int i = 0; i < n1 && i < 16; i++) snprintf(got + strlen(got), sizeof got - strlen(got), "%s ", h[i]);
    int n2 = slurm_hostlist_expand(a, "r[1-2]-n[8-9]", h, 16);
    int ok2 = n2 == 4 && !strcmp(h[0], "r1-n8") && !strcmp(h[3], "r2-n9");
    int bad = slurm_hostlist_expand(a, "n[1-", h, 16) < 0 && slurm_hostlist_expand(a, "n[3-1]", h, 16) < 0 &&
              slurm_hostlist_expand(a, "", h, 16) < 0 && slurm_hostlist_expand(a, "n]", h, 16) < 0 &&
              slurm_hostlist_expand(a, "n[[1]]", h, 16) < 0;
    int one = slurm_hostlist_expand(a, "vm", h, 16) == 1 && !strcmp(h[0], "vm");
    ar_free(a);
    T_ASSERT(n1 == 5 && !strcmp(got, "n01 n02 n03 n07 login1 "), "n[01-03,07],login1: %d: %s", n1, got);
    T_ASSERT(ok2, "two bracket groups");
    T_ASSERT(bad, "a broken hostlist was read");
    T_ASSERT(one, "a plain host");
}

/* srun --verbose's lines as Slurm 22.05 writes them (recorded) */
static void test_srun_log(void)
{
    const launcher_t *srun = launcher_by_name("srun"), *mpirun = launcher_by_name("mpirun");
    arena_t *a = ar_new();
    launch_facts_t f, g, h, k;
    launcher_read_log(a, srun,
                      "# exadl launch x\n"
                      "srun: jobid 5: nodes(2):`n[1-2]', cpu counts: 1(x2)\n"
                      "srun: launching StepId=5.3 on host n1, 1 tasks: 0\n"
                      "srun: launching StepId=5.3 on host n2, 1 tasks: 1\n"
                      "srun: error: n2: task 1: Killed\n"
                      "srun: launch/slurm: _task_finish: n2: task 1: Killed\n", &f);
    launcher_read_log(a, srun,
                      "srun: error: Unable to create step for job 7: Job/step already completing "
                      "or completed\n", &g);
    launch_facts_t q;
    launcher_read_log(a, srun, "srun: error: Unable to create step for job 9: Requested node "
                               "configuration is not available\n", &q);
    T_ASSERT(q.not_started && !q.allocation_over, "a step the job cannot hold: not the job's end");
    launcher_read_log(a, srun,
                      "slurmstepd-vm: error: *** STEP 8.0 ON vm CANCELLED AT 2026-11-23T13:48:19 "
                      "DUE TO TIME LIMIT ***\nsrun: error: vm: tasks 0-1: Killed\n", &h);
    launch_facts_t d;
    launcher_read_log(a, srun,
                      "srun: error: Task launch for StepId=3.1 failed on node n2: Communication "
                      "connection failure\nsrun: error: Application launch failed: Communication "
                      "connection failure\n", &d);
    T_ASSERT(d.cause && !strcmp(d.cause, "task launch failed on node n2: Communication connection "
                                         "failure"),
             "a node whose slurmd is gone is named: %s", d.cause ? d.cause : "-");
    launcher_read_log(a, mpirun,
                      "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 "
                      "(Killed).\n", &k);
    int ok1 = f.step && !strcmp(f.step, "5.3") && f.hosts && !strcmp(f.hosts, "n1,n2") && f.cause &&
              !strcmp(f.cause, "task 1 on n2: Killed") && !f.not_started;
    int ok2 = g.not_started && g.allocation_over && strstr(g.not_started_why, "already completing") &&
              !g.step;
    int ok3 = h.step && !strcmp(h.step, "8.0") && h.cause &&
              strstr(h.cause, "step 8.0 cancelled due to TIME LIMIT") &&
              strstr(h.cause, "tasks 0-1 on vm: Killed");
    int ok4 = k.cause && !strcmp(k.cause, "rank 1 on vm: exited on signal 9 (Killed)");
    char c1[200], c3[200], c4[200];
    snprintf(c1, sizeof c1, "%s | %s | %s", f.step ? f.step : "-", f.hosts ? f.hosts : "-",
             f.cause ? f.cause : "-");
    snprintf(c3, sizeof c3, "%s", h.cause ? h.cause : "-");
    snprintf(c4, sizeof c4, "%s", k.cause ? k.cause : "-");
    ar_free(a);
    T_ASSERT(ok1, "step, hosts, the rank's fate: %s", c1);
    T_ASSERT(ok2, "a step that could not be created");
    T_ASSERT(ok3, "a step cancelled at the time limit: %s", c3);
    T_ASSERT(ok4, "mpirun's word on a killed rank: %s", c4);
}

static void test_scontrol(void)
{
    arena_t *a = ar_new();
    slurm_job_t j;
    slurm_job_parse(a,
                    "JobId=7 JobName=interactive UserId=root(0) GroupId=root(0) MCS_label=N/A "
                    "Priority=1 Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None "
                    "RunTime=00:01:01 TimeLimit=00:01:00 TimeMin=N/A "
                    "StartTime=2026-11-23T13:47:06 EndTime=2026-11-23T13:48:06 Partition=debug "
                    "NodeList=vm NumNodes=1 NumCPUs=2 NumTasks=2 WorkDir=/tmp\n", &j);
    int ok = j.id && !strcmp(j.id, "7") && !strcmp(j.state, "RUNNING") &&
             !strcmp(j.partition, "debug") && !strcmp(j.nodelist, "vm") && j.nodes == 1 &&
             j.cpus == 2 && j.tasks == 2 && !strcmp(j.time_limit, "00:01:00") && !j.account &&
             isfinite(j.end_epoch) &&
             j.end_epoch - slurm_parse_time("2026-11-23T13:47:06") == 60;
    int bad = isnan(slurm_parse_time("Unknown")) && isnan(slurm_parse_time("2026-11-23T13:48"));
    ar_free(a);
    T_ASSERT(ok, "scontrol show job -o read");
    T_ASSERT(bad, "a time that is not one was read");
}

static void test_journal(void)
{
    char dir[] = "/tmp/exadl-journal-XXXXXX";
    T_ASSERT(mkdtemp(dir), "mkdtemp");
    char err[512];
    outcome_t a1 = {.id = "x-n1-r1", .status = LS_OK, .why = "exit status 0", .exit_code = 0,
                    .sig = -1, .elapsed_s = 1.5, .step = "7.1", .hosts = "n1,n2"};
    outcome_t a2 = {.id = "x-n2-r1", .status = LS_FAILED, .why = "task 1 on n2: Killed \"q\"\n\x01",
                    .error = "caf\xc3\xa9 \\ done", .exit_code = 137, .sig = -1, .elapsed_s = 2};
    outcome_t a3 = {.id = "x-n1-r1", .status = LS_INTERRUPTED, .why = "stopped", .exit_code = -1,
                    .sig = 15};
    int w = journal_append(dir, &a1, err, sizeof err) || journal_append(dir, &a2, err, sizeof err) ||
            journal_append(dir, &a3, err, sizeof err);
    char path[600];
    snprintf(path, sizeof path, "%s/journal.yaml", dir);
    FILE *f = fopen(path, "a");
    if (f) fputs("- {id: \"torn\", status: o", f), fclose(f); /* a hard stop mid-line */
    arena_t *a = ar_new();
    outcome_t *o;
    size_t n;
    int skipped;
    int rc = journal_read(a, dir, &o, &n, &skipped, err, sizeof err);
    int ok = !w && !rc && n == 2 && skipped == 1 && !strcmp(o[0].id, "x-n1-r1") &&
             o[0].status == LS_INTERRUPTED && o[0].sig == 15 && !strcmp(o[1].why, a2.why) &&
             o[1].exit_code == 137 && o[1].elapsed_s == 2 && strstr(o[1].error, "caf");
    /* run.yaml round trip */
    runstate_t st = {.suite_dir = "/s", .suite_source = "/s/x.yaml", .started_utc = "t",
                     .command = "exadl run x.yaml", .host = "n1", .launcher_mpi = "pmix",
                     .references = (const char *[]){"references/r.yaml"}, .nreferences = 1,
                     .slurm_jobs = (const char *[]){"7", "9"}, .nslurm_jobs = 2};
    st.machine = (machine_t){.cores = 2, .slurm = 1, .slurm_tasks = 8, .slurm_nodes = 2,
                             .slurm_tasks_per_node = 4, .slurm_job = "7", .slurm_how = "how"};
    runstate_t back;
    int rs = runstate_write(dir, &st, err, sizeof err) || runstate_read(a, dir, &back, err, sizeof err);
    int ok2 = !rs && !strcmp(back.suite_dir, "/s") && back.machine.slurm &&
              back.machine.slurm_tasks == 8 && back.machine.slurm_tasks_per_node == 4 &&
              !strcmp(back.machine.slurm_job, "7") && back.nslurm_jobs == 2 &&
              !strcmp(back.slurm_jobs[1], "9") && !strcmp(back.launcher_mpi, "pmix");
    /* a reference outside the folder is refused */
    snprintf(path, sizeof path, "%s/run.yaml", dir);
    f = fopen(path, "w");
    if (f) fputs("exadl_run: 1\nsuite_dir: /s\nmachine: {cores: 1}\nreferences: [/etc/passwd]\n", f), fclose(f);
    int rb = runstate_read(a, dir, &back, err, sizeof err);
    int ok3 = rb && strstr(err, "not a copy inside the run folder");
    ar_free(a);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    T_ASSERT(ok, "journal round trip: rc %d n %zu skipped %d (%s)", rc, n, skipped, err);
    T_ASSERT(ok2, "run.yaml round trip (%s)", err);
    T_ASSERT(ok3, "a reference outside the folder was read");
}

/* `program: envdump.sh` is found beside the suite (docs: paths are relative
 * to the suite file), after exadl's own bin/ and before PATH */
static void test_program_beside_suite(void)
{
    char dir[] = "/tmp/exadl-beside-XXXXXX";
    T_ASSERT(mkdtemp(dir), "mkdtemp");
    char path[600];
    snprintf(path, sizeof path, "%s/envdump.sh", dir);
    FILE *f = fopen(path, "w");
    T_ASSERT(f, "cannot write %s", path);
    fputs("#!/bin/sh\nenv\n", f);
    fclose(f);
    chmod(path, 0755);
    arena_t *a = ar_new();
    machine_t m = {.cores = 2};
    suite_t s;
    char err[1024];
    const char *text = "launcher: local\nscales: [1]\nbenchmarks: [{program: envdump.sh}]\n";
    int rc = suite_load_text(a, text, strlen(text), "t.yaml", dir, &m, &s, err, sizeof err);
    int ok = !rc && s.bench[0].program_path && !strcmp(s.bench[0].program_path, path);
    const char *gone = "launcher: local\nscales: [1]\nbenchmarks: [{program: nosuch.sh}]\n";
    int rc2 = suite_load_text(a, gone, strlen(gone), "t.yaml", dir, &m, &s, err, sizeof err);
    int said = rc2 && strstr(err, "beside the suite in ") && strstr(err, dir);
    char e[1100];
    snprintf(e, sizeof e, "%s", err);
    ar_free(a);
    unlink(path);
    rmdir(dir);
    T_ASSERT(ok, "envdump.sh beside the suite not found (%d)", rc);
    T_ASSERT(said, "a missing program does not say where it looked: %s", e);
}

int main(void)
{
    T_RUN(test_recorded);
    T_RUN(test_multinode);
    T_RUN(test_plan);
    T_RUN(test_malformed);
    T_RUN(test_hostlist);
    T_RUN(test_srun_log);
    T_RUN(test_scontrol);
    T_RUN(test_journal);
    T_RUN(test_program_beside_suite);
    T_DONE();
}
