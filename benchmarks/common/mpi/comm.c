#include "benchmarks/common/mpi/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void abort_all(int code)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

void comm_fail_mpi(int code, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", code);
    check_fail(call, file, line, "MPI error: %s", msg);
}

static inline int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#if EXADL_SMPI
/* Under SimGrid (make smpi): every rank's name to every rank is N^2 bytes,
 * 97 GB at 27,648 simulated ranks.  The node leaders send their simulated
 * host's name (MPI_Get_processor_name; gethostname names the real machine) to
 * rank 0, which alone writes records; the other ranks know only the count.
 * Point to point, not a leaders' communicator: SMPI 3.32's MPI_Comm_split
 * gathers every rank's color at rank 0 and waits on all of them at once,
 * which is quadratic in the ranks (27,648 ranks were still in it after 66
 * minutes). */
enum { HOST_TAG = 0x4057 };

static void comm_hosts_smpi(comm_t *c)
{
    enum { HOSTLEN = MPI_MAX_PROCESSOR_NAME };
    int lead = c->local_rank == 0, len = 0;
    CHECK_MPI(MPI_Allreduce(&lead, &c->nhosts, 1, MPI_INT, MPI_SUM, c->world));
    char me[HOSTLEN] = {0};
    CHECK_MPI(MPI_Get_processor_name(me, &len));
    if (c->rank != 0) {
        if (lead) CHECK_MPI(MPI_Send(me, HOSTLEN, MPI_CHAR, 0, HOST_TAG, c->world));
        return; /* hosts stays NULL: a list per rank is N^2 again */
    }
    c->hosts = XCALLOC((size_t)c->nhosts, sizeof *c->hosts, "host names");
    c->hosts[0] = strdup(me);
    for (int i = 1; i < c->nhosts; i++) {
        char name[HOSTLEN];
        CHECK_MPI(MPI_Recv(name, HOSTLEN, MPI_CHAR, MPI_ANY_SOURCE, HOST_TAG, c->world, MPI_STATUS_IGNORE));
        name[HOSTLEN - 1] = 0;
        c->hosts[i] = strdup(name);
    }
    qsort(c->hosts, (size_t)c->nhosts, sizeof *c->hosts, cmp_str);
}
#endif

void comm_init(int *argc, char ***argv, comm_t *c)
{
    int provided;
    /* serialized: stemdl's gradient-reduction thread makes MPI calls while the
     * main thread makes none (docs/gsync.md) */
    comm_init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided, c);
}

void comm_init_thread(int *argc, char ***argv, int required, int *provided, comm_t *c)
{
    memset(c, 0, sizeof *c);
    CHECK_MPI(MPI_Init_thread(argc, argv, required, provided));
    c->world = MPI_COMM_WORLD;
    c->mpi = 1;
    /* errors come back to CHECK_MPI, which names the call and the rank */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_rank(c->world, &c->rank));
    CHECK_MPI(MPI_Comm_size(c->world, &c->size));
    check_set_rank(c->rank);
    check_set_abort(abort_all);
    CHECK_MPI(MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &c->node));
    CHECK_MPI(MPI_Comm_rank(c->node, &c->local_rank));
    CHECK_MPI(MPI_Comm_size(c->node, &c->local_size));

#if EXADL_SMPI
    comm_hosts_smpi(c);
}
#else
    enum { HOSTLEN = 128 };
    char me[HOSTLEN] = {0};
    strncpy(me, check_host(), HOSTLEN - 1);
    char *all = XMALLOC((size_t)c->size * HOSTLEN, "host names");
    CHECK_MPI(MPI_Allgather(me, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, c->world));
    char **names = XMALLOC((size_t)c->size * sizeof *names, "host names");
    for (int i = 0; i < c->size; i++) names[i] = all + (size_t)i * HOSTLEN;
    qsort(names, (size_t)c->size, sizeof *names, cmp_str);
    c->hosts = XMALLOC((size_t)c->size * sizeof *c->hosts, "host names");
    for (int i = 0; i < c->size; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0) c->hosts[c->nhosts++] = strdup(names[i]);
    free(names);
    free(all);
}
#endif

void comm_init_self(comm_t *c)
{
    memset(c, 0, sizeof *c);
    c->world = c->node = MPI_COMM_NULL;
    c->size = c->local_size = 1;
    c->nhosts = 1;
    c->hosts = XMALLOC(sizeof *c->hosts, "host names");
    c->hosts[0] = strdup(check_host());
}

void comm_finalize(comm_t *c)
{
    for (int i = 0; c->hosts && i < c->nhosts; i++) free(c->hosts[i]);
    free(c->hosts);
    if (!c->mpi) return;
    if (c->node != MPI_COMM_NULL) MPI_Comm_free(&c->node);
    CHECK_MPI(MPI_Finalize());
    check_set_abort(NULL);
}

/* MPI-3 allows this call before MPI_Init, which comm_init_self relies on. */
void comm_library_version(char *buf, int len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    if (MPI_Get_library_version(v, &n) != MPI_SUCCESS) snprintf(v, sizeof v, "unknown");
    v[sizeof v - 1] = 0;
    char *nl = strchr(v, '\n');
    if (nl) *nl = 0;
    snprintf(buf, (size_t)len, "%s", v);
}

void comm_wait(MPI_Request *req, int poll_us)
{
    if (poll_us <= 0) {
        CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
        return;
    }
    struct timespec ts = {0, (long)poll_us * 1000L};
    for (;;) {
        int done = 0;
        CHECK_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (done) return;
        nanosleep(&ts, NULL);
    }
}

double comm_max_double(const comm_t *c, double x)
{
    double out;
    CHECK_MPI(MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, c->world));
    return out;
}
