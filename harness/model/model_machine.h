/* model_machine: a machine file (reference/machines/NAME.yaml, docs/model.md
 * "Machine files") read into the model's network and negotiation constants.
 * Every figure is a number or a mapping {value, source | assumption, fit}:
 * where the number comes from travels with it into the model's output.
 * Errors name FILE:LINE:COL. */
#ifndef EXADL_HARNESS_MODEL_MACHINE_H
#define EXADL_HARNESS_MODEL_MACHINE_H

#include "harness/model/model.h"
#include "harness/util/util.h"

#define MACHINE_FORMAT_VERSION 1

typedef struct {
    const char *key;        /* "inter_node.bandwidth_Bps" */
    double value;           /* NaN when not given */
    const char *source;     /* public source, or NULL */
    const char *assumption; /* why the number is assumed, or NULL */
    int fit;                /* a run's measurement may replace it */
    int given;
    int line;
} mfig_t;

typedef struct {
    const char *path, *name, *description, *device, *topology;
    mfig_t nodes, ranks_per_node, device_peak_flops;
    mfig_t intra_latency, intra_bandwidth, intra_reduce;
    mfig_t inter_latency, inter_bandwidth, inter_reduce, inter_rails;
    int hierarchical;
    ar_algo_t algo;
    int has_negotiation;
    mfig_t coord_base, coord_per_rank, coord_per_level, coord_per_request, bv_base, bv_per_level;
    mfig_t straggler_cv;    /* std / mean of a rank's step time across ranks */
} mfile_t;

/* 0, or -1 with "FILE:LINE:COL: problem" in err. */
int mfile_load(arena_t *a, const char *path, mfile_t *m, char *err, size_t errlen);

/* The model's network and negotiation constants from the file (negotiation
 * from the latencies when the file has no negotiation block). */
void mfile_net(const mfile_t *m, mnet_t *net, mneg_t *neg);

/* Every figure of the file, for listing with its source (NULL-terminated
 * array of pointers into m; at most 24). */
void mfile_figures(const mfile_t *m, const mfig_t **out);

/* "source: ...", "assumption: ...", "fitted ..." or "not given" (arena). */
const char *mfig_origin(arena_t *a, const mfig_t *f);

#endif
