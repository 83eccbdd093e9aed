/* sysinfo: the `system` block of a result record (hosts, CPU, GPU, and the
 * versions of the libraries actually linked and used). */
#ifndef EXADL_SYSINFO_H
#define EXADL_SYSINFO_H

#include "benchmarks/common/record/record.h"

#define SYSINFO_MAX_VERSIONS 16

typedef struct {
    char cpu_model[256];
    int cpu_cores;          /* online logical CPUs of this host */
    char os[256];           /* uname: system, release, machine */
    char **hosts;           /* borrowed, not owned */
    int nhosts;
    char gpu_model[256];    /* empty when no GPU is used */
    int gpu_count;          /* GPUs used by the job */
    char gpu_driver[64];
    char gpu_cc[16];        /* compute capability, "9.0" */
    long long gpu_memory_bytes;
    struct {
        char key[32];
        char value[256];
    } versions[SYSINFO_MAX_VERSIONS];
    int nversions;
} sysinfo_t;

/* CPU model and cores, OS, compiler; the fixed version keys (mpi, nccl, cudnn,
 * cuda_runtime, cuda_driver) start as null until set. */
void sysinfo_collect(sysinfo_t *si);
void sysinfo_set_hosts(sysinfo_t *si, char **hosts, int nhosts);
/* Set (or replace) a version entry; value NULL means "not used". */
void sysinfo_set_version(sysinfo_t *si, const char *key, const char *value);
/* Write `system: {...}` into an open mapping of r. */
void sysinfo_write(const sysinfo_t *si, rec_t *r);

#endif
