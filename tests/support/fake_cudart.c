/* fake_cudart: preloaded (LD_PRELOAD) over the CUDA runtime, so that a test
 * without a GPU sees a machine whose NVIDIA driver is older than the runtime:
 * cudaGetDeviceCount returns EXADL_FAKE_CUDART_ERROR (default 35,
 * cudaErrorInsufficientDriver) and cudaDriverGetVersion reports
 * EXADL_FAKE_CUDART_DRIVER (default 12080: a driver for CUDA 12.8).  Every
 * other function is the real runtime's.  No CUDA header: cudaError_t is an
 * int-sized enum. */
#include <stdlib.h>

int cudaGetDeviceCount(int *count);
int cudaDriverGetVersion(int *version);

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int cudaGetDeviceCount(int *count)
{
    *count = 0;
    return env_int("EXADL_FAKE_CUDART_ERROR", 35);
}

int cudaDriverGetVersion(int *version)
{
    *version = env_int("EXADL_FAKE_CUDART_DRIVER", 12080);
    return 0;
}
