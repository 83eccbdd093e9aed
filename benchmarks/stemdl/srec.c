#include "benchmarks/stemdl/srec.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/trec.h"

int srec_write(const srec_t *s, const char *path, char *err, size_t errlen)
{
    rec_t *w = rec_open(path, err, errlen);
    if (!w) return -1;
    const cfg_t *c = &s->args->cfg;
    const char *status = s->error ? "failed" : (s->result && s->result->invalid ? "invalid" : "ok");
    rec_map_begin(w);
    rec_kv_int(w, "exadl_record", RECORD_FORMAT_VERSION);
    rec_kv_str(w, "benchmark", "stemdl");
    rec_kv_str(w, "status", status);
    if (s->error) {
        rec_kv_str(w, "error", s->error);
    } else if (s->result && s->result->invalid) {
        char why[320] = "validation failed";
        for (int i = 0; i < s->result->nchecks; i++)
            if (s->result->checks[i].decides && !strcmp(s->result->checks[i].outcome, "fail"))
                snprintf(why, sizeof why, "%s: %s", s->result->checks[i].check, s->result->checks[i].detail);
        rec_kv_str(w, "error", why);
    } else {
        rec_key(w, "error");
        rec_null(w);
    }
    rec_kv_str(w, "started_utc", s->started_utc);
    rec_key(w, "command");
    rec_flow_seq_begin(w);
    for (int i = 0; i < s->argc; i++) rec_str(w, s->argv[i]);
    rec_seq_end(w);
    sysinfo_write(s->sys, w);
    cfg_write(c, w);
    trec_write_run(s->job, w);
    s->job->net->write_record(s->job->model, w);
    if (s->result) trec_write_results(s->job, s->result, w);
    rec_map_end(w);
    return rec_close(w, err, errlen);
}

void srec_print_summary(const srec_t *s, const char *record_path)
{
    const cfg_t *c = &s->args->cfg;
    char title[64];
    snprintf(title, sizeof title, "%s%s", c->preset[0] ? "preset " : "custom network", c->preset);
    trec_print_summary(s->job, s->result, s->sys, "stemdl", title, record_path);
}
