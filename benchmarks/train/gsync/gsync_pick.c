/* gsync_pick: the engine of a run (gsync_pick.h, docs/gsync.md). */
#define _GNU_SOURCE
#include "benchmarks/train/gsync/gsync_pick.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

const char *gsync_engine_name(gsync_engine_kind e)
{
    return e == GS_ENGINE_INLINE ? "inline" : e == GS_ENGINE_THREAD ? "thread" : "none";
}

gsync_engine_kind gsync_pick_auto(const gsync_pick_in *in, char *reason, size_t len)
{
    if (in->cuda) {
        snprintf(reason, len, "auto: cuda backend, the compute runs on the device and the "
                              "engine's thread has the host");
        return GS_ENGINE_THREAD;
    }
    int ranks = in->node_ranks > 0 ? in->node_ranks : 1;
    int share = in->online_cpus / ranks;
    int cores = in->affinity_cpus < share ? in->affinity_cpus : share;
    /* 64-bit: threads is at most 4096 by the key's range, but the rule is
     * pure and takes any int */
    int inline_ = (long long)in->threads + 1 > (long long)cores;
    snprintf(reason, len,
             "auto: cpu backend, %d compute thread%s + the engine's thread %s %d core%s for this "
             "rank (min of %d CPU%s in its affinity mask and %d online CPU%s / %d rank%s on the "
             "node)",
             in->threads, in->threads == 1 ? "" : "s", inline_ ? "need more than the" : "fit in the",
             cores, cores == 1 ? "" : "s", in->affinity_cpus, in->affinity_cpus == 1 ? "" : "s",
             in->online_cpus, in->online_cpus == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
    return inline_ ? GS_ENGINE_INLINE : GS_ENGINE_THREAD;
}

/* CPUs in this process's affinity mask; the mask grows until the kernel's
 * fits (EINVAL: more CPUs configured than the set holds). */
static int affinity_cpus(void)
{
    for (int n = 1024; n <= (1 << 20); n *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)n);
        CHECK(set != NULL, "cannot allocate a CPU set of %d CPUs", n);
        size_t bytes = CPU_ALLOC_SIZE((size_t)n);
        CPU_ZERO_S(bytes, set);
        if (sched_getaffinity(0, bytes, set) == 0) {
            int count = CPU_COUNT_S(bytes, set);
            CPU_FREE(set);
            return count;
        }
        int e = errno;
        CPU_FREE(set);
        CHECK(e == EINVAL, "sched_getaffinity: %s", strerror(e));
    }
    check_fail("sched_getaffinity", __FILE__, __LINE__, "more than 2^20 CPUs");
}

gsync_engine_kind gsync_pick_engine(const char *asked, int ranks, int cuda, int threads,
                                    int node_ranks, char *reason, size_t len)
{
    if (ranks <= 1) {
        snprintf(reason, len, "one rank: nothing is reduced");
        return GS_ENGINE_NONE;
    }
    if (!strcmp(asked, "thread") || !strcmp(asked, "inline")) {
        snprintf(reason, len, "asked: engine %s", asked);
        return !strcmp(asked, "thread") ? GS_ENGINE_THREAD : GS_ENGINE_INLINE;
    }
    CHECK(!strcmp(asked, "auto"), "engine '%s' (auto, thread or inline)", asked);
    gsync_pick_in in = {.cuda = cuda, .threads = threads, .node_ranks = node_ranks};
    if (!cuda) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        CHECK(online > 0, "sysconf(_SC_NPROCESSORS_ONLN): %s", check_errno_str());
        in.online_cpus = online > (1 << 30) ? 1 << 30 : (int)online;
        in.affinity_cpus = affinity_cpus();
    }
    return gsync_pick_auto(&in, reason, len);
}

void gsync_pick_apply(gsync_engine_kind e, gsync_cfg *g)
{
    g->inline_engine = e == GS_ENGINE_INLINE;
    if (e == GS_ENGINE_INLINE) g->poll_us = 0;
}
