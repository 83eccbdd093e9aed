#include "harness/model/straggler.h"

#include <math.h>
#include <string.h>

#include "harness/model/model.h"

int straggler_fit(const double *x, size_t steps, size_t ranks, straggler_t *out)
{
    memset(out, 0, sizeof *out);
    if (ranks < 2 || steps < 1) return -1;
    double sum = 0, ss = 0, excess = 0;
    for (size_t s = 0; s < steps; s++) {
        const double *row = x + s * ranks;
        double m = 0, mx = -INFINITY;
        for (size_t r = 0; r < ranks; r++) {
            if (!isfinite(row[r])) return -1;
            m += row[r];
            if (row[r] > mx) mx = row[r];
        }
        sum += m;
        m /= (double)ranks;
        for (size_t r = 0; r < ranks; r++) ss += (row[r] - m) * (row[r] - m);
        excess += mx - m;
    }
    out->steps = steps, out->ranks = ranks;
    out->mean_s = sum / (double)(steps * ranks);
    if (!(out->mean_s > 0)) return -1;
    out->dof = (double)steps * (double)(ranks - 1);
    out->sigma_s = sqrt(ss / out->dof);
    out->cv = out->sigma_s / out->mean_s;
    out->excess_measured_s = excess / (double)steps;
    out->excess_normal_s = out->sigma_s * model_max_normal((int)ranks);
    return 0;
}

int straggler_pool(const straggler_t *f, size_t n, straggler_t *out)
{
    memset(out, 0, sizeof *out);
    double dof = 0, var = 0, mean = 0, em = 0, en = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(f[i].dof > 0)) continue;
        dof += f[i].dof;
        var += f[i].dof * f[i].cv * f[i].cv; /* relative: levels may differ between launches */
        mean += f[i].dof * f[i].mean_s;
        em += f[i].dof * f[i].excess_measured_s / f[i].mean_s;
        en += f[i].dof * f[i].excess_normal_s / f[i].mean_s;
        out->steps += f[i].steps;
        if (f[i].ranks > out->ranks) out->ranks = f[i].ranks;
    }
    if (!(dof > 0)) return -1;
    out->dof = dof;
    out->cv = sqrt(var / dof);
    out->mean_s = mean / dof;
    out->sigma_s = out->cv * out->mean_s;
    out->excess_measured_s = em / dof * out->mean_s;
    out->excess_normal_s = en / dof * out->mean_s;
    return 0;
}

double straggler_expected_max(const straggler_t *s, int p)
{
    return s->mean_s * (1 + s->cv * model_max_normal(p));
}
