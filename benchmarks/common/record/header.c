#include "benchmarks/common/record/header.h"

rec_t *rec_header_open(const char *path, const rec_header_t *h, char *err, size_t errlen)
{
    rec_t *r = rec_open(path, err, errlen);
    if (!r) return NULL;
    rec_map_begin(r);
    rec_kv_int(r, "exadl_record", RECORD_FORMAT_VERSION);
    rec_kv_str(r, "benchmark", h->benchmark);
    rec_kv_str(r, "status", h->status);
    rec_kv_str(r, "error", h->error);
    rec_kv_str(r, "started_utc", h->started_utc);
    rec_key(r, "command");
    rec_flow_seq_begin(r);
    for (int i = 0; i < h->argc; i++) rec_str(r, h->argv[i]);
    rec_seq_end(r);
    sysinfo_write(h->system, r);
    if (h->config) {
        h->config(r, h->config_arg);
    } else {
        rec_key(r, "config");
        rec_flow_map_begin(r);
        rec_map_end(r);
    }
    rec_kv_int(r, "ranks", h->ranks);
    rec_kv_int(r, "gpus", h->gpus);
    rec_kv_str(r, "backend", h->backend);
    rec_kv_str(r, "precision", h->precision);
    return r;
}

int rec_header_close(rec_t *r, char *err, size_t errlen)
{
    rec_map_end(r);
    return rec_close(r, err, errlen);
}

void rec_validation(rec_t *r, const char *check, const char *outcome, int decides_status,
                    const char *detail)
{
    rec_flow_map_begin(r);
    rec_kv_str(r, "check", check);
    rec_kv_str(r, "outcome", outcome);
    rec_kv_bool(r, "decides_status", decides_status);
    rec_kv_str(r, "detail", detail);
    rec_map_end(r);
}
