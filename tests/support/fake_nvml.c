/* fake_nvml: a stand-in for libnvidia-ml.so.1 that the power module opens
 * through EXADL_NVML_LIB (docs/energy.md "Tests"), so that the tests read
 * exact GPU energies without a GPU.  Its GPUs are files of the folder
 * EXADL_FAKE_NVML_DIR: `count` (the number of GPUs), and per GPU N
 * `gpuN_energy_mj` (the total energy counter) or, where that file is absent,
 * `gpuN_power_mw` (the board's power).  A file holds one value or several
 * separated by blanks: the k-th call of a file's function gets the k-th
 * (the last once they run out), so that a test knows each reading without
 * knowing when it is taken.  A file that cannot be read or parsed
 * answers NVML_ERROR_UNKNOWN (999); a missing energy file
 * NVML_ERROR_NOT_SUPPORTED (3), as a GPU before Volta.  No NVML header: the
 * return codes are ints, devices opaque pointers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev);
int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj);
int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw);
const char *nvmlErrorString(int rc);

enum { OK = 0, UNINITIALIZED = 1, INVALID = 2, NOT_SUPPORTED = 3, UNKNOWN = 999 };

/* calls so far per file name (a handful of GPUs: a small table) */
static struct {
    char name[32];
    unsigned calls;
} calls_of[64];

static unsigned next_call(const char *name)
{
    for (int i = 0; i < 64; i++) {
        if (!calls_of[i].name[0]) snprintf(calls_of[i].name, sizeof calls_of[i].name, "%s", name);
        if (!strcmp(calls_of[i].name, name)) return calls_of[i].calls++;
    }
    return 0;
}

/* the value of file NAME of the folder for this call: 0, NOT_SUPPORTED
 * where absent, UNKNOWN */
static int value(const char *name, unsigned long long *v)
{
    const char *dir = getenv("EXADL_FAKE_NVML_DIR");
    char path[1024], buf[512];
    if (!dir) return UNINITIALIZED;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK)) return NOT_SUPPORTED;
    unsigned k = next_call(name);
    FILE *f = fopen(path, "r");
    if (!f) return UNKNOWN;
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok) return UNKNOWN;
    char *p = buf, *end;
    unsigned long long x = 0;
    int any = 0;
    for (unsigned i = 0; i <= k; i++) {
        unsigned long long y = strtoull(p, &end, 10);
        if (end == p) break;
        x = y, any = 1, p = end;
    }
    *v = x;
    return any ? OK : UNKNOWN;
}

int nvmlInit_v2(void)
{
    return getenv("EXADL_FAKE_NVML_DIR") ? OK : UNINITIALIZED;
}

int nvmlShutdown(void)
{
    return OK;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
    unsigned long long n = 0;
    int rc = value("count", &n);
    *count = (unsigned)n;
    return rc;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev)
{
    *dev = (void *)(uintptr_t)(index + 1);
    return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    char name[32];
    snprintf(name, sizeof name, "gpu%u_energy_mj", (unsigned)((uintptr_t)dev - 1));
    return value(name, mj);
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    char name[32];
    unsigned long long v = 0;
    snprintf(name, sizeof name, "gpu%u_power_mw", (unsigned)((uintptr_t)dev - 1));
    int rc = value(name, &v);
    *mw = (unsigned)v;
    return rc;
}

const char *nvmlErrorString(int rc)
{
    return rc == UNINITIALIZED ? "Uninitialized" : rc == NOT_SUPPORTED ? "Not Supported"
                                                                        : "Unknown Error";
}
