/* tprog: what the main program of every training workload (stemdl,
 * cosmoflow) shares, so that each program keeps only what is its own:
 *   - the command line: --help, --describe, --sysinfo, --quiet, --check-config
 *     (benchmarks/common/opt.h: parse, validate, exit 0 or 2), --preset,
 *     --config, --record, --dump-weights and single parameters; whatever the
 *     order of the arguments, the preset comes first, then the --config file,
 *     then single parameters (the configuration's keys, keytab.h);
 *   - which answers need no MPI start-up; the start time and the system;
 *   - --sysinfo's `system` block;
 *   - training, then on rank 0 the record (trec.h) and the summary.
 *
 * defines: tprog_args, tprog_cli, tprog_args_parse, tprog_is_local,
 *   tprog_start, tprog_print_sysinfo, tprog_run, tprog_run_init, tprog_train */
#ifndef EXADL_TRAIN_TPROG_H
#define EXADL_TRAIN_TPROG_H

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/train/keytab.h"
#include "benchmarks/train/runcfg.h"
#include "benchmarks/train/train.h"
#include "benchmarks/train/trec.h"

/* The options every training program takes. */
typedef struct {
    const char *record;       /* --record FILE, or NULL */
    const char *config;       /* --config FILE, or NULL */
    int describe;             /* --describe: layer table, nothing allocated */
    int sysinfo;              /* --sysinfo: the record's system block */
    int quiet;                /* --quiet: no progress lines */
    const char *dump_weights; /* --dump-weights PATH: final weights, raw fp32, PATH.<rank> */
} tprog_args;

/* A program's command line: its text, its configuration and its own options. */
typedef struct {
    void (*usage)(FILE *f);   /* --help's text */
    const char *preset;       /* the preset when --preset is not given */
    /* the configuration's keys; "preset" is one of its extra keys */
    const kt_spec *keys;
    /* the whole-configuration check: 0, or -1 with one line in err */
    int (*validate)(const void *cfg, char *err, size_t errlen);
    /* the program's own options that take a value, NULL-terminated (may be
     * NULL); option() is given each with its value, in argument order */
    const char *const *options;
    void (*option)(void *prog, const char *name, const char *value);
} tprog_cli;

/* Parse argv into a (zeroed first) and cfg (the preset, the --config file,
 * then single parameters); prog is given to cli->option.  On bad input
 * prints one line (rank 0) and exits 2; --help prints the usage and exits 0. */
void tprog_args_parse(const tprog_cli *cli, tprog_args *a, void *cfg, void *prog, int argc,
                      char **argv, int rank);

/* 1 when argv asks for an answer that needs no communication (--help, -h,
 * --describe, --sysinfo, --check-config, or the option named also, which may be NULL): the
 * program then skips MPI's start-up. */
int tprog_is_local(int argc, char **argv, const char *also);

/* After parsing: the launch's start time (UTC, ISO 8601) into started_utc
 * and the system it runs on, with the ranks' hosts, into si. */
void tprog_start(const comm_t *comm, sysinfo_t *si, char *started_utc, size_t len);

/* --sysinfo: the `system` block a record would hold (with the backend's
 * devices), on stdout from rank 0.  Returns the exit code, 0. */
int tprog_print_sysinfo(sysinfo_t *si, const runcfg_t *run, comm_t *comm);

/* One training run and what is written after it. */
typedef struct {
    trec_meta_t meta;   /* the record kind (also the program's name in messages), config
                           block, system, command line; error is set here on failure */
    const char *record; /* --record FILE, or NULL */
    char title[96];     /* the summary's title: "preset small" */
    /* lines of the program's own after the summary (rank 0), or NULL */
    void (*summary_more)(const train_result *r);
} tprog_run;

/* A run's record: the header fields (system si, the command line, the
 * start time) and the --record path (or NULL); the program then sets the
 * record kind, its config block and the title. */
void tprog_run_init(tprog_run *run, const sysinfo_t *si, int argc, char **argv,
                    const char *started_utc, const char *record);

/* Train j; on rank 0 write the record (when run->record is set; a failed
 * run's record says why, so that a sweep keeps the reason) and, when it
 * trained, print the summary.  Returns the exit code: 0; 1 when training
 * failed, the record could not be written or a deciding check failed. */
int tprog_train(const train_job *j, tprog_run *run);

#endif
