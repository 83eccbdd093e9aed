#include "benchmarks/common/record/bench_record.h"

#include <stdio.h>

/* the program of the record being written, for bench_record_close's message */
static const char *g_program = "exadl";

rec_t *bench_record_open(const char *path, const char *benchmark, const char *status,
                         const char *error, const char *started_utc, int argc, char **argv,
                         const sysinfo_t *si)
{
    char err[512];
    g_program = benchmark;
    rec_t *r = rec_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s: error: record %s\n", benchmark, err);
        return NULL;
    }
    rec_map_begin(r);
    rec_kv_int(r, "exadl_record", RECORD_FORMAT_VERSION);
    rec_kv_str(r, "benchmark", benchmark);
    rec_kv_str(r, "status", status);
    rec_kv_str(r, "error", error);
    rec_kv_str(r, "started_utc", started_utc);
    rec_key(r, "command");
    rec_flow_seq_begin(r);
    for (int i = 0; i < argc; i++) rec_str(r, argv[i]);
    rec_seq_end(r);
    sysinfo_write(si, r);
    return r;
}

int bench_record_close(rec_t *r)
{
    char err[512];
    rec_map_end(r);
    if (rec_close(r, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", g_program, err);
        return -1;
    }
    return 0;
}

void bench_record_validation(rec_t *r, const char *check, const char *outcome,
                             const char *detail)
{
    rec_flow_map_begin(r);
    rec_kv_str(r, "check", check);
    rec_kv_str(r, "outcome", outcome);
    rec_kv_str(r, "detail", detail);
    rec_map_end(r);
}
