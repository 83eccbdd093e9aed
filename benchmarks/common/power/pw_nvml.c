/* pw_nvml: every GPU of the node through NVML, opened with dlopen so that a
 * machine without the NVIDIA driver runs (docs/energy.md "NVML").  The total
 * energy counter (mJ since the driver loaded, Volta and later) where the GPU
 * has it, else the board's power (mW) sampled and integrated.  No NVML
 * header: the few types are ints and an opaque pointer. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/power/power.h"

typedef void *nvml_dev;
typedef struct {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned *);
    int (*handle)(unsigned, nvml_dev *);
    int (*energy)(nvml_dev, unsigned long long *);
    int (*power)(nvml_dev, unsigned *);
    const char *(*errstr)(int);
    nvml_dev dev[POWER_MAX_SOURCES];
} nvml_t;

static const char *why(const nvml_t *n, int rc)
{
    const char *e = n->errstr ? n->errstr(rc) : NULL;
    return e ? e : "unknown error";
}

void pw_nvml_open(power_sess_t *s)
{
    nvml_t *n = XCALLOC(1, sizeof *n, "nvml");
    n->lib = dlopen(s->cfg.nvml_lib, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        power_absent(s, "nvml", "%s not loaded: %s", s->cfg.nvml_lib, e ? e : "dlopen failed");
        free(n);
        return;
    }
    /* function pointers from dlsym (POSIX allows the object-to-function cast) */
    *(void **)&n->init = dlsym(n->lib, "nvmlInit_v2");
    *(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
    *(void **)&n->count = dlsym(n->lib, "nvmlDeviceGetCount_v2");
    *(void **)&n->handle = dlsym(n->lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&n->energy = dlsym(n->lib, "nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&n->power = dlsym(n->lib, "nvmlDeviceGetPowerUsage");
    *(void **)&n->errstr = dlsym(n->lib, "nvmlErrorString");
    unsigned count = 0;
    int rc;
    if (!n->init || !n->shutdown || !n->count || !n->handle || (!n->energy && !n->power)) {
        power_absent(s, "nvml", "%s lacks nvmlInit_v2, nvmlDeviceGetCount_v2, "
                                "nvmlDeviceGetHandleByIndex_v2 or both power calls", s->cfg.nvml_lib);
    } else if ((rc = n->init()) != 0) {
        power_absent(s, "nvml", "nvmlInit_v2: %s", why(n, rc));
    } else if ((rc = n->count(&count)) != 0 || count == 0) {
        power_absent(s, "nvml", "nvmlDeviceGetCount_v2: %s", rc ? why(n, rc) : "no GPU");
        n->shutdown();
    } else {
        for (unsigned i = 0; i < count && s->nsrc < POWER_MAX_SOURCES; i++) {
            nvml_dev d = NULL;
            unsigned long long mj;
            unsigned mw;
            int has_energy = 0;
            rc = n->handle(i, &d);
            if (!rc && n->energy) has_energy = n->energy(d, &mj) == 0;
            power_src_t *p = power_add(s, "nvml", "gpu", has_energy);
            snprintf(p->name, sizeof p->name, "nvml:gpu%u", i);
            p->index = (int)i;
            p->per_j = 1e3;
            n->dev[i] = d;
            if (rc) {
                p->ok = 0;
                snprintf(p->reason, sizeof p->reason, "nvmlDeviceGetHandleByIndex_v2: %s",
                         why(n, rc));
            } else if (!has_energy && (!n->power || (rc = n->power(d, &mw)) != 0)) {
                p->ok = 0;
                snprintf(p->reason, sizeof p->reason,
                         "neither the energy counter nor nvmlDeviceGetPowerUsage: %s",
                         n->power ? why(n, rc) : "no such call");
            }
            p->accuracy = has_energy ? NAN : 0.05;
        }
        s->nvml = n;
        return;
    }
    dlclose(n->lib);
    free(n);
}

int pw_nvml_read(power_sess_t *s, power_src_t *src, double *raw)
{
    nvml_t *n = s->nvml;
    nvml_dev d = n->dev[src->index];
    int rc;
    if (src->counter) {
        unsigned long long mj;
        if ((rc = n->energy(d, &mj)) == 0) {
            *raw = (double)mj;
            return 0;
        }
        snprintf(src->reason, sizeof src->reason, "nvmlDeviceGetTotalEnergyConsumption: %s",
                 why(n, rc));
        return -1;
    }
    unsigned mw;
    if ((rc = n->power(d, &mw)) == 0) {
        *raw = mw / 1e3;
        return 0;
    }
    snprintf(src->reason, sizeof src->reason, "nvmlDeviceGetPowerUsage: %s", why(n, rc));
    return -1;
}

void pw_nvml_close(power_sess_t *s)
{
    nvml_t *n = s->nvml;
    if (!n) return;
    n->shutdown();
    dlclose(n->lib);
    free(n);
    s->nvml = NULL;
}
