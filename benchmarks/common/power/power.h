/* power: the energy and power counters of one node, read over a window
 * (docs/energy.md).  MPI-free: the training runtime starts a session on one
 * rank per node around its timed steps (benchmarks/train/tpower.c).
 *
 * Sources, each where present: Linux powercap (RAPL package and DRAM zones,
 * pw_rapl.c), NVML (every GPU of the node, pw_nvml.c) and a site meter (a
 * file or a command giving the node's energy or power, pw_site.c).  A source
 * that is absent is listed with the reason; one that fails during the window
 * is "n/a" with the reason.  Neither ever counts as zero.
 *
 * defines: power_cfg_t, power_src_t, power_sess_t, power_cfg_env, power_open,
 *   power_start, power_sample, power_stop, power_node, power_close, power_note */
#ifndef EXADL_POWER_H
#define EXADL_POWER_H

#include <pthread.h>
#include <stddef.h>

#define POWER_MAX_SOURCES 24
#define POWER_MAX_ABSENT 3
#define POWER_MAX_POINTS 65536

typedef struct {
    const char *powercap_root; /* the powercap tree (default /sys/class/powercap) */
    const char *nvml_lib;      /* the NVML library dlopen opens (default libnvidia-ml.so.1) */
    const char *meter;         /* "file:PATH" or "command:PROGRAM ARGS" (no shell), or NULL */
    double meter_accuracy;     /* the site meter's relative accuracy (0.01: +-1%); NAN unknown */
    double interval_s;         /* sampling interval; 0: the window's two ends only */
} power_cfg_t;

typedef struct {
    char name[48];           /* "rapl:package-0", "rapl:package-0:dram", "nvml:gpu0", "site:node" */
    char source[8];          /* rapl | nvml | site */
    char domain[16];         /* package | dram | gpu | node */
    int counter;             /* 1: a cumulative energy counter; 0: power samples, integrated */
    double accuracy;         /* relative; NAN: the vendor states none (power_note says why) */
    int ok;                  /* read at every sample of the window */
    char reason[200];        /* !ok: why it is n/a */
    double energy_j;         /* over the window (ok only) */
    double peak_w;           /* highest power between two samples (or the window's average) */
    /* reading state (the readers') */
    char path[512];
    int index;
    double max_range;        /* rapl: max_energy_range_uj, where the counter wraps (0: none) */
    double per_j;            /* counters: raw units per J (1e6 for uJ, 1e3 for mJ) */
    double sum_raw;          /* counters: raw units over the window (whole numbers: exact) */
    double last;             /* last raw reading: uJ, mJ, J or W */
    double last_w;           /* power over the last interval */
    double last_t;
} power_src_t;

typedef struct {
    char source[8];
    char reason[256];
} power_absent_t;

typedef struct {
    double t_s;              /* from the window's start */
    double w;                /* the node's power (its basis' sources) since the last sample */
} power_point_t;

typedef struct {
    power_cfg_t cfg;
    power_src_t src[POWER_MAX_SOURCES];
    int nsrc;
    power_absent_t absent[POWER_MAX_ABSENT];
    int nabsent;
    void *nvml;              /* pw_nvml's library handle */
    double t0, t1;           /* the window, monotonic seconds */
    power_point_t *pts;      /* node power over time (POWER_MAX_POINTS at most) */
    size_t npts;
    int truncated;           /* more samples than POWER_MAX_POINTS: the series stops there */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, stop;
} power_sess_t;

/* The configuration from the environment: EXADL_POWERCAP_ROOT,
 * EXADL_NVML_LIB, EXADL_POWER_METER, EXADL_POWER_METER_ACCURACY,
 * EXADL_POWER_INTERVAL_S (default 0.1).  0, or -1 with err naming the
 * variable and what is wrong with its value. */
int power_cfg_env(power_cfg_t *c, char *err, size_t errlen);

/* Finds the sources (reads no energy yet). */
void power_open(power_sess_t *s, const power_cfg_t *c);
/* The window's first reading, then a sampling thread when interval_s > 0. */
void power_start(power_sess_t *s);
/* One reading of every source (the thread's step). */
void power_sample(power_sess_t *s);
/* Stops the thread and takes the window's last reading. */
void power_stop(power_sess_t *s);

/* The node's energy over the window: the site meter where it was read
 * throughout (basis "meter"), else the sum of the RAPL and NVML sources when
 * each was (basis "components"); NAN with basis "n/a" and why otherwise. */
double power_node(const power_sess_t *s, const char **basis, char *why, size_t whylen);
void power_close(power_sess_t *s);
/* What a source measures and how accurately, in a sentence. */
const char *power_note(const power_src_t *src);

/* the readers' internals (pw_rapl.c, pw_nvml.c, pw_site.c) */
power_src_t *power_add(power_sess_t *s, const char *source, const char *domain, int counter);
void power_absent(power_sess_t *s, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A small file (a counter, a meter's reading) into buf, NUL-ended, its first
 * line only where first_line: 0, or -1 with the path and errno's text in why
 * (the two readers of files share it) */
int pw_read_small(const char *path, char *buf, size_t n, int first_line, char *why,
                  size_t whylen);
/* Each reader: finds its sources (power_add, or power_absent with why), and
 * gives one raw reading of a source in the source's unit (src->per_j units per
 * J for counters, W otherwise): 0, or -1 with src->reason. */
void pw_rapl_open(power_sess_t *s);
int pw_rapl_read(power_src_t *src, double *raw);
void pw_nvml_open(power_sess_t *s);
int pw_nvml_read(power_sess_t *s, power_src_t *src, double *raw);
void pw_nvml_close(power_sess_t *s);
void pw_site_open(power_sess_t *s);
int pw_site_read(power_src_t *src, double *raw);

#endif
