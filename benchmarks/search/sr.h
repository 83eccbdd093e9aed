/* sr: what the search program's parts share: its options, the messages
 * between the master and the worker groups, and what the master keeps of
 * every candidate (docs/search.md).
 * defines: sr_cfg, sr_cand, sr_stats, SR_TAG_*, SR_WORK_LEN, SR_RESULT_LEN */
#ifndef EXADL_SEARCH_SR_H
#define EXADL_SEARCH_SR_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/search/sr_space.h"

enum { SR_ASYNC, SR_SYNC };        /* --mode */
enum { SR_EVOLVE, SR_RANDOM };     /* --strategy */
enum { SR_TRAIN, SR_PLANTED };     /* --fitness */

typedef struct {
    int mode, strategy, fitness;
    int64_t evals;                 /* candidates to evaluate (the budget) */
    int population;                /* the master's population */
    int generation;                /* sync: candidates per generation (0: one per group) */
    int group_ranks;               /* ranks per worker group */
    int stop_at_optimum;           /* planted: stop once the optimum is evaluated */
    double cost_s;                 /* planted: simulated seconds of the middle configuration */
    uint64_t seed;
    int steps, batch, threads;     /* train: the budget of each candidate, the batch per rank */
    char kernels[16];
    const char *record, *replay;
    cfg_t base;                    /* the `tiny` preset with the run's parameters */
} sr_cfg;

/* Master -> a group's leader: the candidate (SR_WORK_LEN int64: id, then the
 * genome); an empty message with SR_TAG_STOP ends the worker. */
enum { SR_TAG_WORK = 71, SR_TAG_RESULT = 72, SR_TAG_STOP = 73 };
#define SR_WORK_LEN (1 + SR_GENES)
/* Leader -> master: id, fitness, counted FLOPs, evaluation seconds, and the
 * training's validity (1: valid) */
#define SR_RESULT_LEN 5

/* A candidate as the master keeps it. */
typedef struct {
    sr_genome x;
    int parent_a, parent_b;        /* candidate ids; -1: drawn at random */
    int group;                     /* the worker group that evaluated it */
    double fitness, flops, eval_s; /* as the group returned them */
    int valid;
    double sent_s, done_s;         /* master's clock, from the search's start */
    int64_t done_rank;             /* its place in the completion order, from 0; -1: not done */
} sr_cand;

/* What the master measures. */
typedef struct {
    int64_t evaluated, generated, decisions;
    double wall_s;                 /* first send to last result, master's clock */
    double last_send_s;            /* the last candidate sent: the budget's tail begins */
    int64_t done_at_last_send;     /* completions by then */
    double *decision_cpu_s;        /* [decisions] host CPU time of each decision */
    double decision_wall_s;        /* their sum, master's clock */
    int64_t msgs_sent, msgs_recv, bytes_sent, bytes_recv;
    int64_t evals_to_optimum;      /* planted: completions when the optimum came back (sync: its
                                      id + 1, candidates up to it in candidate order); -1 */
    int64_t *order;                /* [evaluated] candidate ids in completion order */
    int64_t *curve_n;              /* best fitness against candidates evaluated: at each */
    double *curve_f;               /* improvement, the count and the new best */
    int ncurve;
    int64_t best;                  /* candidate id of the best; -1 */
    int replayed;                  /* the completion order was the --replay record's */
    int generations;               /* sync: generations run */
} sr_stats;

#endif
