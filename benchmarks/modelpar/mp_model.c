#include "benchmarks/modelpar/mp_model.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

int mp_model_build(mp_model *m, const mp_cfg *c, const comm_t *comm, int ranks, int rank,
                   char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->halo = m->group = MPI_COMM_NULL;
    if (mp_geom_make(&m->g, c, ranks, rank, err, errlen)) return -1;
    const mp_geom *g = &m->g;
    m->rank = rank;
    m->left = g->tx > 0 ? rank - 1 : MPI_PROC_NULL;
    m->right = g->tx < g->gx - 1 ? rank + 1 : MPI_PROC_NULL;
    m->up = g->ty > 0 ? rank - g->gx : MPI_PROC_NULL;
    m->down = g->ty < g->gy - 1 ? rank + g->gx : MPI_PROC_NULL;
    m->st = XCALLOC(1, sizeof *m->st, "modelpar statistics");
    m->st->total_steps = (int64_t)c->run.warmup + c->run.steps;
    m->st->warmup = c->run.warmup;
    if (comm && comm->mpi) {
        m->mpi = 1;
        CHECK_MPI(MPI_Comm_dup(comm->world, &m->halo));
        CHECK_MPI(MPI_Comm_split(comm->world, rank / g->M, rank, &m->group));
    }
    return 0;
}

void mp_model_free(mp_model *m)
{
    if (m->halo != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&m->halo));
    if (m->group != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&m->group));
    if (m->st) {
        free(m->st->rank_hwm_bytes);
        free(m->st->rank_alloc_bytes);
        free(m->st->rank_halo_bytes);
        free(m->st);
    }
    m->st = NULL;
}
