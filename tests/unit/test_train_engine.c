/* The engine option's rule (gsync_pick.h): auto runs the engine inline on a
 * cpu rank whose compute threads leave no core for the engine's thread,
 * where the cores a rank may use are min(its affinity mask, online CPUs /
 * ranks on the node); the cuda backend always keeps the thread; thread and
 * inline are what they say; one rank has no engine.  And what each engine
 * sets in gsync_cfg. */
#include <string.h>

#include "benchmarks/train/gsync/gsync_pick.h"
#include "tests/unit/tap.h"

static char why[256];

static gsync_engine_kind pick(int cuda, int threads, int affinity, int online, int ranks)
{
    gsync_pick_in in = {.cuda = cuda, .threads = threads, .affinity_cpus = affinity,
                        .online_cpus = online, .node_ranks = ranks};
    why[0] = 0;
    gsync_engine_kind e = gsync_pick_auto(&in, why, sizeof why);
    T_ASSERT(why[0] && !strchr(why, '\n'), "the reason is one line: '%s'", why);
    return e;
}

static void test_no_spare_core_inline(void)
{
    /* the lead's case: 2 cores, 2 ranks bound to a core each, 1 thread */
    T_ASSERT(pick(0, 1, 1, 2, 2) == GS_ENGINE_INLINE, "bound, 1 thread: %s", why);
    T_ASSERT(strstr(why, "1 compute thread +") && strstr(why, "1 core for this rank") &&
                 strstr(why, "1 CPU in its affinity mask") && strstr(why, "2 online CPUs / 2 ranks"),
             "the reason names the numbers: %s", why);
    /* unbound (oversubscribed mpirun): the node's share decides */
    T_ASSERT(pick(0, 1, 2, 2, 2) == GS_ENGINE_INLINE, "unbound, 2 cores / 2 ranks: %s", why);
    /* bound to one core on a big node */
    T_ASSERT(pick(0, 1, 1, 64, 1) == GS_ENGINE_INLINE, "one core of 64: %s", why);
    /* threads filling the share: the default threads = cores / ranks */
    T_ASSERT(pick(0, 4, 4, 8, 2) == GS_ENGINE_INLINE, "4 threads on 4 cores: %s", why);
    /* more ranks than CPUs: a share of 0 cores */
    T_ASSERT(pick(0, 1, 2, 2, 3) == GS_ENGINE_INLINE, "3 ranks on 2 CPUs: %s", why);
    T_ASSERT(strstr(why, "0 cores for this rank"), "0 cores: %s", why);
}

static void test_spare_core_thread(void)
{
    T_ASSERT(pick(0, 1, 2, 2, 1) == GS_ENGINE_THREAD, "1 thread on 2 cores: %s", why);
    T_ASSERT(strstr(why, "fit in the 2 cores"), "the reason says it fits: %s", why);
    T_ASSERT(pick(0, 3, 4, 8, 2) == GS_ENGINE_THREAD, "3 threads + 1 on 4 cores: %s", why);
    T_ASSERT(pick(0, 1, 4, 8, 2) == GS_ENGINE_THREAD, "1 thread on 4 cores: %s", why);
    /* the affinity mask is the smaller bound: 2 CPUs of a share of 8 */
    T_ASSERT(pick(0, 2, 2, 16, 2) == GS_ENGINE_INLINE, "2 threads, mask of 2: %s", why);
    T_ASSERT(pick(0, 1, 2, 16, 2) == GS_ENGINE_THREAD, "1 thread, mask of 2: %s", why);
}

static void test_cuda_thread(void)
{
    T_ASSERT(pick(1, 1, 1, 2, 2) == GS_ENGINE_THREAD, "cuda, no spare core: %s", why);
    T_ASSERT(strstr(why, "cuda"), "the reason names the backend: %s", why);
    T_ASSERT(pick(1, 64, 1, 1, 8) == GS_ENGINE_THREAD, "cuda, oversubscribed: %s", why);
}

static void test_asked_and_one_rank(void)
{
    char r[256];
    T_ASSERT(gsync_pick_engine("thread", 2, 0, 4096, 1, r, sizeof r) == GS_ENGINE_THREAD, "thread");
    T_ASSERT(strstr(r, "asked") && strstr(r, "thread"), "asked thread: %s", r);
    T_ASSERT(gsync_pick_engine("inline", 2, 1, 1, 1, r, sizeof r) == GS_ENGINE_INLINE, "inline");
    T_ASSERT(strstr(r, "asked") && strstr(r, "inline"), "asked inline: %s", r);
    T_ASSERT(gsync_pick_engine("auto", 1, 0, 1, 1, r, sizeof r) == GS_ENGINE_NONE, "one rank");
    T_ASSERT(gsync_pick_engine("inline", 1, 0, 1, 1, r, sizeof r) == GS_ENGINE_NONE, "one rank");
    T_ASSERT(strstr(r, "one rank"), "one rank: %s", r);
    T_ASSERT(gsync_pick_engine("auto", 2, 1, 1, 2, r, sizeof r) == GS_ENGINE_THREAD, "auto cuda");
    /* this process's own mask and CPUs: 4096 threads fit on no machine here */
    T_ASSERT(gsync_pick_engine("auto", 2, 0, 4096, 1, r, sizeof r) == GS_ENGINE_INLINE,
             "auto, 4096 threads: %s", r);
    T_ASSERT(strstr(r, "4096 compute threads") && strstr(r, "affinity mask"), "reason: %s", r);
    char small[24];
    gsync_pick_engine("auto", 2, 0, 4096, 1, small, sizeof small);
    T_ASSERT(strlen(small) == sizeof small - 1, "a short buffer holds a cut reason");
    T_ASSERT(!strcmp(gsync_engine_name(GS_ENGINE_NONE), "none") &&
                 !strcmp(gsync_engine_name(GS_ENGINE_THREAD), "thread") &&
                 !strcmp(gsync_engine_name(GS_ENGINE_INLINE), "inline"),
             "names");
}

static void test_apply(void)
{
    gsync_cfg g;
    gsync_cfg_default(&g);
    int poll = g.poll_us;
    T_ASSERT(poll > 0, "the thread polls by default (%d us)", poll);
    gsync_pick_apply(GS_ENGINE_THREAD, &g);
    T_ASSERT(!g.inline_engine && g.poll_us == poll, "thread: today's engine");
    gsync_pick_apply(GS_ENGINE_INLINE, &g);
    T_ASSERT(g.inline_engine == 1 && g.poll_us == 0, "inline: blocking waits on the caller's thread");
    gsync_cfg_default(&g);
    gsync_pick_apply(GS_ENGINE_NONE, &g);
    T_ASSERT(!g.inline_engine && g.poll_us == poll, "none: the defaults");
}

int main(void)
{
    T_RUN(test_no_spare_core_inline);
    T_RUN(test_spare_core_thread);
    T_RUN(test_cuda_thread);
    T_RUN(test_asked_and_one_rank);
    T_RUN(test_apply);
    T_DONE();
}
