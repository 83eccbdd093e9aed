#include "benchmarks/train/tprog.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/tpower.h"

static int is_flag(const char *s, const char *name) { return !strcmp(s, name); }

/* The options that take no value. */
static int is_switch(const char *o)
{
    return is_flag(o, "--describe") || is_flag(o, "--sysinfo") || is_flag(o, "--quiet") ||
           is_flag(o, OPT_CHECK_CONFIG);
}

static int is_own_option(const tprog_cli *cli, const char *o)
{
    for (const char *const *n = cli->options; n && *n; n++)
        if (is_flag(o, *n)) return 1;
    return 0;
}

/* The options that take a value and are not configuration keys. */
static int is_program_option(const tprog_cli *cli, const char *o)
{
    return is_flag(o, "--preset") || is_flag(o, "--config") || is_flag(o, "--record") ||
           is_flag(o, "--dump-weights") || is_own_option(cli, o);
}

void tprog_args_parse(const tprog_cli *cli, tprog_args *a, void *cfg, void *prog, int argc,
                      char **argv, int rank)
{
    memset(a, 0, sizeof *a);
    const char *preset = cli->preset;
    int check_only = 0; /* --check-config: parse, validate, say so, exit (opt.h) */
    char err[768];
    /* first pass: flags, --preset, --config and the program's options; every
     * option but the flags takes one value */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (is_flag(o, "--help") || is_flag(o, "-h")) {
            if (rank == 0) {
                cli->usage(stdout);
                tpower_help(stdout);
            }
            exit(0);
        } else if (is_flag(o, "--describe")) {
            a->describe = 1;
        } else if (is_flag(o, "--sysinfo")) {
            a->sysinfo = 1;
        } else if (is_flag(o, "--quiet")) {
            a->quiet = 1;
        } else if (is_flag(o, OPT_CHECK_CONFIG)) {
            check_only = 1;
        } else if (strncmp(o, "--", 2) == 0) {
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                check_usage("%s needs a value (see --help)", o);
            const char *v = argv[++i];
            if (is_flag(o, "--preset")) preset = v;
            else if (is_flag(o, "--config")) a->config = v;
            else if (is_flag(o, "--record")) a->record = v;
            else if (is_flag(o, "--dump-weights")) a->dump_weights = v;
            else if (is_own_option(cli, o)) cli->option(prog, o, v);
        } else {
            check_usage("unexpected argument '%s' (options start with --; see --help)", o);
        }
    }
    /* the preset is the configuration's "preset" key: one message for an
     * unknown one, here and in a --config file */
    if (kt_set(cli->keys, cfg, "preset", preset, err, sizeof err)) check_usage("%s", err);
    if (a->config && kt_load_yaml(cli->keys, cfg, a->config, err, sizeof err))
        check_usage("%s", err);
    /* second pass: single parameters override the preset and the file */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (is_switch(o)) continue;
        const char *v = argv[++i];
        if (is_program_option(cli, o)) continue;
        int rc = kt_set(cli->keys, cfg, o + 2, v, err, sizeof err);
        if (rc == -2) check_usage("%s", err);
        if (rc) check_usage("--%s", err);
    }
    if (cli->validate(cfg, err, sizeof err)) {
        if (a->config) check_usage("%s (after applying %s and the command line)", err, a->config);
        check_usage("%s", err);
    }
    tpower_check_env(); /* the energy settings are configuration too */
    if (check_only) exit(rank == 0 ? opt_config_valid() : 0);
}

int tprog_is_local(int argc, char **argv, const char *also)
{
    for (int i = 1; i < argc; i++)
        if (is_flag(argv[i], "--help") || is_flag(argv[i], "-h") || is_flag(argv[i], "--describe") ||
            is_flag(argv[i], "--sysinfo") || is_flag(argv[i], OPT_CHECK_CONFIG) ||
            (also && is_flag(argv[i], also)))
            return 1;
    return 0;
}

void tprog_start(const comm_t *comm, sysinfo_t *si, char *started_utc, size_t len)
{
    timer_utc_iso(started_utc, len);
    sysinfo_collect(si);
    sysinfo_set_hosts(si, comm->hosts, comm->nhosts);
}

int tprog_print_sysinfo(sysinfo_t *si, const runcfg_t *run, comm_t *comm)
{
    char err[512];
    backend_t be;
    /* the backend adds its devices to si */
    if (backend_open(&be, run, comm, si, err, sizeof err)) check_usage("%s", err);
    if (comm->rank == 0) {
        rec_t *w = rec_open("-", err, sizeof err);
        CHECK(w != NULL, "%s", err);
        rec_map_begin(w);
        sysinfo_write(si, w);
        rec_map_end(w);
        CHECK(rec_close(w, err, sizeof err) == 0, "%s", err);
    }
    backend_close(&be);
    return 0;
}

void tprog_run_init(tprog_run *run, const sysinfo_t *si, int argc, char **argv,
                    const char *started_utc, const char *record)
{
    memset(run, 0, sizeof *run);
    run->meta = (trec_meta_t){.started_utc = started_utc, .argc = argc, .argv = argv, .system = si};
    run->record = record;
}

/* Rank 0: the record at run->record, if one is asked for; 0, or -1 when it
 * could not be written (said on stderr). */
static int write_record(const train_job *j, const train_result *r, const tprog_run *run)
{
    char werr[512];
    if (!run->record || trec_write(run->record, j, r, &run->meta, werr, sizeof werr) == 0) return 0;
    fprintf(stderr, "%s: error: %s\n", run->meta.benchmark, werr);
    return -1;
}

/* --restore DIR: a warm-up, several trainers, sharded weights, or a checkpoint of another
 * rank count or network are bad input, refused in one line (exit 2) before anything is
 * built; a corrupt file, found when the run reads it whole, fails the run (exit 1) */
static void check_restore(const train_job *j)
{
    net_facts f;
    train_facts(j->net, j->model, &f);
    if (j->run->warmup > 0 || j->run->trainers > 1 || f.sharded)
        check_usage("--restore %s: a restored run takes --warmup 0, one trainer and replicated "
                    "weights", j->ckpt->restore);
    char err[768];
    int step = 0;
    if (ckpt_check(j->ckpt, j->comm, f.params, f.fwd_conv_flops, &step, err, sizeof err))
        check_usage("--restore %s: %s", j->ckpt->restore, err);
    if (step >= j->run->steps)
        check_usage("--restore %s: the checkpoint has done %d steps; --steps %d leaves none",
                    j->ckpt->restore, step, j->run->steps);
}

int tprog_train(const train_job *j, tprog_run *run)
{
    char err[768];
    train_result r;
    int rc = 0;
    if (j->ckpt && j->ckpt->restore) check_restore(j);
    if (train_run(j, &r, err, sizeof err)) {
        /* say why in the record too, so that a sweep keeps the reason */
        run->meta.error = err;
        if (j->comm->rank == 0) {
            fprintf(stderr, "%s: error: %s\n", run->meta.benchmark, err);
            (void)write_record(j, NULL, run);
        }
        rc = 1;
    } else {
        if (j->comm->rank == 0) {
            if (write_record(j, &r, run)) rc = 1;
            trec_print_summary(j, &r, run->meta.system, run->meta.benchmark, run->title,
                               run->record);
            if (run->summary_more) run->summary_more(&r);
        }
        if (r.invalid) rc = 1;
    }
    train_result_free(&r);
    run->meta.error = NULL;
    return rc;
}
