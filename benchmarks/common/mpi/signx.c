#include "benchmarks/common/mpi/signx.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/signpack.h"

void signx_buf_free(signx_buf *x)
{
    free(x->a);
    free(x->b);
    memset(x, 0, sizeof *x);
}

static void reserve(signx_buf *x, int64_t words)
{
    if (words <= x->cap) return;
    free(x->a);
    free(x->b);
    x->a = XMALLOC((size_t)words * sizeof *x->a, "sign exchange buffer");
    x->b = XMALLOC((size_t)words * sizeof *x->b, "sign exchange buffer");
    x->cap = words;
}

/* The chunk of each rank, and the padded words in a.  a gets the words. */
static int64_t chunk_in(MPI_Comm comm, const uint64_t *w, int64_t nwords, signx_buf *x, int *n,
                        int *me)
{
    CHECK_MPI(MPI_Comm_size(comm, n));
    CHECK_MPI(MPI_Comm_rank(comm, me));
    int64_t chunk = (nwords + *n - 1) / *n;
    CHECK(chunk <= INT_MAX, "sign exchange: %lld words per rank exceed MPI's int counts",
          (long long)chunk);
    reserve(x, chunk * *n > 0 ? chunk * *n : 1);
    memcpy(x->a, w, (size_t)nwords * sizeof *w);
    memset(x->a + nwords, 0, (size_t)(chunk * *n - nwords) * sizeof *w);
    return chunk;
}

/* What the vote and the sum share: an all-to-all of the padded words
 * (b[r * chunk + j] = rank r's word me * chunk + j), this rank's chunk
 * combined (voted, or summed: the reduce-scatter as an all-to-all and a local
 * sum, exactly (n-1) chunks out of every rank, where Open MPI's nonblocking
 * reduce-scatter sent a quarter more on 2 ranks, measured on the loopback),
 * an all-gather in place, the words back.  Returns the bytes a rank sent. */
typedef enum { COMBINE_VOTE, COMBINE_SUM } combine_t;

/* This rank's chunk [c0, c0 + chunk) voted run by run (padding: no run). */
static void vote_runs(const signx_buf *x, int64_t c0, int64_t chunk, int n, int64_t nwords,
                      const signx_run *runs, int nruns, uint64_t *mine)
{
    for (int r = 0; r < nruns; r++) {
        int64_t a = runs[r].word0, b = r + 1 < nruns ? runs[r + 1].word0 : nwords;
        if (a < c0) a = c0;
        if (b > c0 + chunk) b = c0 + chunk;
        if (a >= b) continue;
        sp_vote(x->b + (a - c0), chunk, n, b - a, mine + (a - c0), runs[r].seed, a - runs[r].word0);
    }
}

static int64_t exchange(MPI_Comm comm, uint64_t *words, int64_t nwords, signx_buf *x, int poll_us,
                        combine_t how, const signx_run *runs, int nruns)
{
    int n, me;
    int64_t chunk = chunk_in(comm, words, nwords, x, &n, &me);
    if (chunk == 0) return 0;
    MPI_Request rq;
    CHECK_MPI(MPI_Ialltoall(x->a, (int)chunk, MPI_UINT64_T, x->b, (int)chunk, MPI_UINT64_T, comm,
                            &rq));
    comm_wait(&rq, poll_us);
    uint64_t *mine = x->a + (int64_t)me * chunk;
    if (how == COMBINE_VOTE) vote_runs(x, (int64_t)me * chunk, chunk, n, nwords, runs, nruns, mine);
    else sp_sum(x->b, chunk, n, chunk, mine);
    CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->a, (int)chunk, MPI_UINT64_T,
                             comm, &rq));
    comm_wait(&rq, poll_us);
    memcpy(words, x->a, (size_t)nwords * sizeof *words);
    return 2 * (int64_t)(n - 1) * chunk * (int64_t)sizeof(uint64_t);
}

int64_t signx_vote(MPI_Comm comm, uint64_t *bits, int64_t nwords, uint64_t seed, signx_buf *x,
                   int poll_us)
{
    signx_run one = {.word0 = 0, .seed = seed};
    return exchange(comm, bits, nwords, x, poll_us, COMBINE_VOTE, &one, 1);
}

int64_t signx_vote_runs(MPI_Comm comm, uint64_t *bits, int64_t nwords, const signx_run *runs,
                        int nruns, signx_buf *x, int poll_us)
{
    CHECK(nruns >= 1 && runs[0].word0 == 0, "sign vote: the runs must start at word 0");
    for (int r = 1; r < nruns; r++)
        CHECK(runs[r].word0 >= runs[r - 1].word0 && runs[r].word0 <= nwords,
              "sign vote: run %d starts at word %lld, out of order", r, (long long)runs[r].word0);
    return exchange(comm, bits, nwords, x, poll_us, COMBINE_VOTE, runs, nruns);
}

int64_t signx_sum(MPI_Comm comm, uint64_t *fields, int64_t nwords, signx_buf *x, int poll_us)
{
    return exchange(comm, fields, nwords, x, poll_us, COMBINE_SUM, NULL, 0);
}
