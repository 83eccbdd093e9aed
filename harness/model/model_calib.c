/* The orchestration model calibrated to a run (model_calib.h). */
#include "harness/model/model_calib.h"

#include <math.h>
#include <string.h>

#include "harness/blocks/orchestration/blk_orchestration.h"
#include "harness/blocks/simulation/blk_simulation.h"
#include "harness/model/model_orch.h"

int model_calibrate_from_run(arena_t *a, const outcome_t *o, size_t n, const mnet_t *net,
                             mneg_t *neg, const char **src, const char **detail)
{
    double sxy = 0, sxx = 0, q[512], xs[512], ys[512];
    const char *what[512];
    size_t m = 0, sim = 0;
    long long pmin = 0, pmax = 0;
    for (size_t i = 0; i < n; i++) {
        const record_t *r = o[i].rec;
        if (o[i].status != LS_OK || !r || !rec_orch(r)->no) continue;
        int counted = 0;
        for (size_t j = 0; j < rec_orch(r)->no && m < 512; j++) {
            const orow_t *w = &rec_orch(r)->o[j];
            int coord = w->mode && !strcmp(w->mode, "coordinator");
            if (w->ranks < 2 || w->ranks > 100000000 || !(w->per_cycle_s > 0) ||
                !isfinite(w->per_cycle_s) || !(w->cycles > 0) || w->tensors < 1 ||
                w->tensors > 100000000)
                continue;
            if (!coord && w->requests > 0) continue; /* the coordinator ran in it too */
            /* requests per rank and cycle; not said: every tensor once per step */
            double k = w->requests > 0 && isfinite(w->requests)
                           ? w->requests / ((double)w->ranks * w->cycles)
                           : (double)w->tensors / w->cycles;
            double x = morch_cycle(net, 1, morch_bv_bytes((int)w->tensors),
                                   coord ? MO_COORDINATOR : MO_BITVECTOR, (int)w->ranks, k, NULL);
            if (!(x > 0)) continue;
            xs[m] = x, ys[m] = w->per_cycle_s;
            what[m] = ar_printf(a, "%lld ranks, %s+%s, k = %.3g per rank and cycle",
                                w->ranks, coord ? "coordinator" : "bitvector",
                                sanitize_name(a, w->grouping ? w->grouping : "?"), coord ? k : 0.0);
            q[m++] = x / w->per_cycle_s;
            sxy += x / w->per_cycle_s;
            sxx += (x / w->per_cycle_s) * (x / w->per_cycle_s);
            if (!pmin || w->ranks < pmin) pmin = w->ranks;
            if (w->ranks > pmax) pmax = w->ranks;
            counted = 1;
        }
        const siminfo_t *s = rec_sim(r);
        if (counted && s && s->simulated) sim++;
    }
    if (!m || !(sxx > 0)) {
        *src = "no orchestration rows at 2 ranks or more (a bit-vector row only without "
               "requests in its timed steps)";
        return -1;
    }
    double s = sxy / sxx, e = 0;
    for (size_t i = 0; i < m; i++) e += (s * q[i] - 1) * (s * q[i] - 1);
    sb_t d = {0};
    for (size_t i = 0; i < m; i++)
        sb_printf(&d, "  %-58s model %9.2f us, run %9.2f us per cycle, model / run %.3f\n",
                  what[i], s * xs[i] * 1e6, ys[i] * 1e6, s * xs[i] / ys[i]);
    *detail = ar_strdup(a, sb_str(&d));
    sb_free(&d);
    neg->from_latency = 1;
    neg->lat_scale = s;
    *src = ar_printf(a, "from the collectives (Open MPI's algorithms), latencies x %.4g fitted to "
                     "%zu orchestration row%s at %lld..%lld ranks (%zu simulated record%s), rms "
                     "relative error %.3f", s, m, m == 1 ? "" : "s", pmin, pmax, sim,
                     sim == 1 ? "" : "s", sqrt(e / m));
    return 0;
}
