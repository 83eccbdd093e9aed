/* kern_cuda_load: opens the CUDA module (kern_cuda.h: kcu_load).  Part of the
 * programs, not of the module: it needs no CUDA header and no CUDA library. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/train/kernels/cuda/kern_cuda.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const kcu_api *api;
static char why[512];

static void load(void)
{
    const char *env = getenv("EXADL_CUDA_MODULE");
    const char *name = env && *env ? env : KCU_MODULE;
#if !EXADL_GPU
    if (!(env && *env)) {
        snprintf(why, sizeof why,
                 "this program was built without the CUDA path (build where the CUDA toolkit, "
                 "cuDNN and NCCL are found: docs/stemdl-gpu.md)");
        return;
    }
#endif
    /* RTLD_LOCAL: the module's CUDA symbols stay its own */
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why,
                 "cannot load the CUDA module %s: %s (the CUDA runtime, cuDNN, cuBLAS and NCCL "
                 "must be found by the loader: LD_LIBRARY_PATH, docs/stemdl-gpu.md)",
                 name, e ? e : "unknown error");
        return;
    }
    const kcu_api *a = (const kcu_api *)dlsym(h, KCU_API_SYMBOL);
    if (!a) {
        snprintf(why, sizeof why, "%s has no %s: not an ExaDL CUDA module", name, KCU_API_SYMBOL);
        dlclose(h);
        return;
    }
    /* the module stays open for the life of the process */
    api = a;
}

const kcu_api *kcu_load(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (!api) snprintf(err, errlen, "%s", why);
    return api;
}
