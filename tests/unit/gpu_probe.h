/* gpu_probe: is there an NVIDIA GPU here, for the GPU unit tests whose CUDA
 * module did not load (then a GPU means FAIL, none means SKIP).  The answer
 * is nvidia-smi -L's, as the scripts ask it (the tests/it scripts, bench_*.sh):
 * /proc/driver/nvidia/version, read before, says only that a driver is
 * loaded (a container given no GPU has it too).  EXADL_NVIDIA_SMI names
 * another nvidia-smi (tests/it/gpu_probe.sh gives fakes).
 * defines: gpu_probe_listed, gpu_probe_unloaded */
#ifndef EXADL_TESTS_GPU_PROBE_H
#define EXADL_TESTS_GPU_PROBE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the GPUs nvidia-smi -L lists ("GPU N: ..." lines); 0 where it is missing.
 * popen: the command is a path of plain characters (anything else in
 * EXADL_NVIDIA_SMI is refused as "no GPU"), never shell text from outside */
static inline int gpu_probe_listed(void)
{
    const char *smi = getenv("EXADL_NVIDIA_SMI");
    if (!smi || !*smi) smi = "nvidia-smi";
    if (strlen(smi) > 400 || strspn(smi, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-") !=
                                 strlen(smi))
        return 0;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -L 2>/dev/null", smi);
    FILE *f = popen(cmd, "r");
    if (!f) return 0;
    int n = 0;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "GPU ", 4)) n++;
    (void)pclose(f); /* its status does not matter: the lines listed do */
    return n;
}

/* ndev for a test whose module did not load (why: kcu_load's reason, kept
 * for the message): 0 (SKIP) where nvidia-smi lists no GPU, -1 (FAIL) where
 * it lists one.  (A build without the CUDA path compiles these tests out.) */
static inline int gpu_probe_unloaded(const char *why)
{
    (void)why;
    return gpu_probe_listed() > 0 ? -1 : 0;
}

#endif
