/* Spatial parallelism against one rank: run under mpirun with N ranks
 * (tests/it/cosmo_spatial.sh runs N = 2 and 4, oversubscribed; run alone it
 * is N = 1).  For every split S that divides N (N / S data-parallel groups):
 *   - planted halo: each padded input holds f(global voxel, channel) in its
 *     interior and a sentinel in its halo; after the exchange every halo
 *     voxel inside the volume holds f of its global coordinates, every one
 *     outside still the sentinel;
 *   - one training step's loss and weight gradients (summed over all
 *     ranks, divided by the groups) equal those of one rank holding whole
 *     samples with the groups' samples as one batch, within 1e-5 of the
 *     largest gradient (reference kernels; 1e-4 for the fast set), on even
 *     and uneven splits (D = 12: 3 units dealt 2 + 1) and kernel 5;
 *   - the halo bytes the exchanges sent equal cf_part_halo_bytes.
 * Every rank checks, then one allreduce decides, then rank 0 prints: a
 * failing rank never leaves the others waiting in a collective. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"

static int world, me, failed;

/* Every rank's verdict; rank 0 prints the line.  why: this rank's reason. */
static void report(const char *name, int ok, const char *why)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    /* the lowest failing rank's reason */
    int who = ok ? world : me, first;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    char msg[512] = "";
    if (!all) {
        if (me == first && first != 0) MPI_Send(why, 512, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        if (me == 0) {
            if (first == 0) snprintf(msg, sizeof msg, "%s", why);
            else MPI_Recv(msg, 512, MPI_CHAR, first, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (me == 0) {
        if (all) printf("PASS: %s\n", name);
        else printf("FAIL: %s: rank %d: %s\n", name, first, msg);
        fflush(stdout);
    }
    if (!all) failed = 1;
}

static cf_cfg base_cfg(int size, int kernel, int batch, const char *spatial)
{
    cf_cfg c;
    cf_preset(&c, "tiny");
    c.size = size, c.blocks = 2, c.channels = 3, c.filters = 3, c.kernel = kernel;
    c.dense1 = 5, c.dense2 = 3, c.targets = 2;
    c.run.batch = batch;
    snprintf(c.spatial, sizeof c.spatial, "%s", spatial);
    char err[256];
    if (cf_validate(&c, err, sizeof err)) {
        fprintf(stderr, "bad test configuration: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return c;
}

static comm_t world_comm(void)
{
    comm_t c;
    memset(&c, 0, sizeof c);
    c.rank = me, c.size = world, c.world = MPI_COMM_WORLD, c.mpi = 1;
    return c;
}

static float planted(int ch, int z, int y, int x) { return (float)(ch * 1000000 + z * 10000 + y * 100 + x); }
static const float SENTINEL = -12345.0f;

static void test_halo(const char *spatial)
{
    cf_cfg c = base_cfg(16, 3, 2, spatial);
    comm_t cw = world_comm();
    cf_model m;
    char err[512] = "", why[512] = "";
    int ok = cf_model_build(&m, &c, &cw, err, sizeof err) == 0;
    if (!ok) snprintf(why, sizeof why, "%s", err);
    cf_net *n = ok ? cf_net_create(&m, kern_ref_ops(), NULL, c.run.batch, 0, err, sizeof err) : NULL;
    if (ok && !n) ok = 0, snprintf(why, sizeof why, "create: %s", err);
    for (int l = 0; ok && l < c.blocks; l++) {
        t3view P = n->xp[l];
        int h = m.plan.halo, off[3];
        for (int a = 0; a < 3; a++) off[a] = cf_part_offset(&m.plan, &m.part, a, l) - h;
        int E = m.plan.layers[l].ext;
        for (int i = 0; i < P.n; i++)
            for (int ch = 0; ch < P.c; ch++)
                for (int z = 0; z < P.d; z++)
                    for (int y = 0; y < P.h; y++)
                        for (int x = 0; x < P.w; x++) {
                            int in = z >= h && z < P.d - h && y >= h && y < P.h - h && x >= h &&
                                     x < P.w - h;
                            ((float *)P.p)[i * P.sn + ch * P.sc + z * P.sd + y * P.sh + x * P.sw] =
                                in ? planted(ch, off[0] + z, off[1] + y, off[2] + x) + i * 0.5f
                                   : SENTINEL;
                        }
        if (m.comm.cart != MPI_COMM_NULL) {
            cf_halo_start(&n->halo, &P);
            cf_halo_finish(&n->halo);
        }
        for (int i = 0; ok && i < P.n; i++)
            for (int ch = 0; ok && ch < P.c; ch++)
                for (int z = 0; ok && z < P.d; z++)
                    for (int y = 0; ok && y < P.h; y++)
                        for (int x = 0; ok && x < P.w; x++) {
                            int gz = off[0] + z, gy = off[1] + y, gx = off[2] + x;
                            int inside = gz >= 0 && gz < E && gy >= 0 && gy < E && gx >= 0 && gx < E;
                            float want = inside ? planted(ch, gz, gy, gx) + i * 0.5f : SENTINEL;
                            float got = ((float *)P.p)[i * P.sn + ch * P.sc + z * P.sd + y * P.sh + x * P.sw];
                            if (got != want) {
                                ok = 0;
                                snprintf(why, sizeof why,
                                         "level %d sample %d channel %d padded (%d,%d,%d) = global "
                                         "(%d,%d,%d): %g, expected %g",
                                         l, i, ch, z, y, x, gz, gy, gx, got, want);
                            }
                        }
    }
    char name[96];
    snprintf(name, sizeof name, "cosmo_halo_planted_%s_np%d", spatial, world);
    report(name, ok, why);
    cf_net_free(n);
    cf_model_free(&m);
}

/* loss and gradients of one step: spatial over the world, and one rank
 * with whole samples (every rank computes the reference itself) */
static void test_step(int size, int kernel, const char *spatial, int fast, int overlap)
{
    int batch = 1;
    cf_cfg c = base_cfg(size, kernel, batch, spatial);
    c.overlap = overlap;
    comm_t cw = world_comm();
    cf_model m;
    char err[512] = "", why[512] = "";
    int ok = cf_model_build(&m, &c, &cw, err, sizeof err) == 0;
    if (!ok) snprintf(why, sizeof why, "%s", err);
    void *ctx = fast ? kern_fast_create(1) : NULL;
    const kern_ops *ops = fast ? kern_fast_ops() : kern_ref_ops();
    int G = ok ? m.part.groups : 1;
    int64_t P = 0;
    float *g = NULL, *gsum = NULL, *gref = NULL;
    double loss = 0, lsum = 0, lref = 0;
    int64_t sent = 0, want_sent = 0;
    if (ok) {
        cf_net *n = cf_net_create(&m, ops, ctx, batch, 0, err, sizeof err);
        if (!n) {
            ok = 0;
            snprintf(why, sizeof why, "create: %s", err);
        } else {
            P = m.plan.params;
            ktab_t t;
            ktab_init(&t, 256);
            kc_t kc = {.ops = ops, .ctx = ctx, .tab = &t};
            cf_net_init_params(n, 5);
            size_t ni, nt;
            cosmoflow_network.batch_floats(&m, batch, &ni, &nt);
            float *in = malloc(ni * sizeof *in), *tg = malloc(nt * sizeof *tg);
            cosmoflow_network.generate(&m, 21, 0, (int64_t)m.part.group * batch, batch, in, tg);
            cf_net_load(n, in, tg);
            loss = cf_net_forward(n, &kc);
            cf_net_backward(n, &kc, NULL, NULL);
            g = malloc(P * sizeof *g);
            cf_net_grads_to_host(n, g);
            sent = n->halo_bytes;
            want_sent = cf_part_halo_bytes(&m.plan, &m.part, sizeof(float), NULL) * batch;
            free(in), free(tg);
            ktab_free(&t);
            cf_net_free(n);
        }
    }
    /* every rank reaches the collectives, whatever happened above */
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        gsum = malloc(P * sizeof *gsum);
        MPI_Allreduce(g, gsum, (int)P, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&loss, &lsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lsum /= world;
        /* the reference: one rank, whole samples, the groups' samples as one batch */
        cf_cfg rc = c;
        rc.run.batch = G * batch;
        cf_model rm;
        cf_model_whole(&rm, &rc);
        cf_net *r = cf_net_create(&rm, kern_ref_ops(), NULL, rc.run.batch, 0, err, sizeof err);
        ktab_t t;
        ktab_init(&t, 256);
        kc_t kc = {.ops = kern_ref_ops(), .tab = &t};
        cf_net_init_params(r, 5);
        size_t ni, nt;
        cosmoflow_network.batch_floats(&rm, rc.run.batch, &ni, &nt);
        float *in = malloc(ni * sizeof *in), *tg = malloc(nt * sizeof *tg);
        cosmoflow_network.generate(&rm, 21, 0, 0, rc.run.batch, in, tg);
        cf_net_load(r, in, tg);
        lref = cf_net_forward(r, &kc);
        cf_net_backward(r, &kc, NULL, NULL);
        gref = malloc(P * sizeof *gref);
        cf_net_grads_to_host(r, gref);
        free(in), free(tg);
        ktab_free(&t);
        cf_net_free(r);
        cf_model_free(&rm);
        double mx = 0, err_max = 0;
        int64_t at = 0;
        for (int64_t i = 0; i < P; i++) {
            mx = fmax(mx, fabs(gref[i]));
            double d = fabs(gsum[i] / G - gref[i]);
            if (d > err_max) err_max = d, at = i;
        }
        double tol = fast ? 1e-4 : 1e-5;
        if (fabs(lsum - lref) > tol * fabs(lref)) {
            ok = 0;
            snprintf(why, sizeof why, "loss %.9g, one rank %.9g", lsum, lref);
        } else if (err_max > tol * mx) {
            ok = 0;
            snprintf(why, sizeof why, "gradient %lld: %.6g, one rank %.6g (max |g| %.3g)",
                     (long long)at, gsum[at] / G, gref[at], mx);
        } else if (sent != want_sent) {
            ok = 0;
            snprintf(why, sizeof why, "halo bytes sent %lld, cf_part_halo_bytes %lld",
                     (long long)sent, (long long)want_sent);
        }
    } else if (ok) {
        ok = 0;
        snprintf(why, sizeof why, "another rank failed");
    }
    char name[128];
    snprintf(name, sizeof name, "cosmo_step_D%d_k%d_%s_%s%s_np%d", size, kernel, spatial,
             fast ? "fast" : "ref", overlap ? "" : "_no_overlap", world);
    report(name, ok, why);
    free(g), free(gsum), free(gref);
    if (ctx) kern_fast_release(ctx);
    cf_model_free(&m);
}

int main(int argc, char **argv)
{
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    /* splits of this many ranks: all spatial, and half spatial / half data */
    static const char *const by_n[5][6] = {
        {0},
        {"1x1x1", 0},
        {"2x1x1", "1x2x1", "1x1x2", "1x1x1", 0},
        {"3x1x1", "1x1x3", 0},
        {"2x2x1", "4x1x1", "1x2x2", "2x1x1", "2x1x2", 0},
    };
    const char *const *splits = world < 5 ? by_n[world] : NULL;
    if (!splits) {
        if (me == 0) printf("SKIP: cosmo_spatial: no splits listed for %d ranks\n", world);
        MPI_Finalize();
        return 0;
    }
    for (int i = 0; splits[i]; i++) test_halo(splits[i]);
    for (int i = 0; splits[i]; i++) {
        test_step(16, 3, splits[i], 0, 1);
        /* D = 12: 3 units, dealt 2 + 1 (and 1 + 1 + 1); odd last level */
        int s[3];
        cf_parse_spatial(splits[i], s);
        if (s[0] <= 3 && s[1] <= 3 && s[2] <= 3) test_step(12, 3, splits[i], 0, 1);
    }
    /* kernel 5 (halo 2), the fast set with bands, and without overlap */
    test_step(16, 5, splits[0], 0, 1);
    test_step(16, 3, splits[0], 1, 1);
    test_step(16, 3, splits[0], 0, 0);
    MPI_Finalize();
    return failed ? 1 : 0;
}
