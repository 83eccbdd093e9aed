/* sr_master: the search's master (world rank 0): a population of evaluated
 * configurations, a new candidate per decision (tournament selection of two
 * parents, uniform crossover, mutation; never a configuration already
 * generated), sent to a free worker group.  Asynchronous: each returning
 * result is a decision and its group gets the next candidate at once.
 * Synchronous: generations, each decided from the previous one's results
 * taken in candidate order, so that its decisions do not depend on the
 * completion order.  Every random draw comes from the seed in decision
 * order, so a run is reproduced by the same seed and completion order: with
 * --replay the master takes the results in the order an earlier record lists
 * (docs/search.md).
 * defines: sr_master_run, sr_stats_free */
#ifndef EXADL_SEARCH_SR_MASTER_H
#define EXADL_SEARCH_SR_MASTER_H

#include <stddef.h>

#include "benchmarks/search/sr.h"

/* Run the search over ngroups groups of c->group_ranks ranks (group g's
 * leader is world rank 1 + g * group_ranks); every group is sent the stop
 * message at the end.  replay: the completion order to follow (NULL: as the
 * results arrive), nreplay ids.  *cands (malloc'ed, st->generated of them)
 * and st are filled.  0, or -1 with err (the replay diverged). */
int sr_master_run(const sr_cfg *c, int ngroups, const int64_t *replay, int64_t nreplay,
                  sr_cand **cands, sr_stats *st, char *err, size_t errlen);
void sr_stats_free(sr_stats *st);

#endif
