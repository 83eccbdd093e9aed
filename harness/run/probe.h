/* probe: probe.yaml of a run folder.  `exadl run`'s probe stage
 * (harness/cli/run_probe.c) asks, after the sweep and before the analysis,
 * every question the analysis and the checks have for a program: the CPU peak
 * (peak_cpu's output) and the describe answers of reference checks
 * (`stemdl --describe --preset gb2019`), and records them here, so that
 * analysis, checks and report read answers instead of starting programs, and
 * a folder analysed elsewhere gives the numbers of the machine it ran on.
 * Data only: nothing here starts a process (docs/harness.md "probe.yaml").
 * defines: probe_answer_t, probe_t, PROBE_FILE, probe_read, probe_read_or_warn,
 * probe_read_or_fail,
 * probe_read_text,
 * probe_write, probe_write_file, probe_find, probe_answer_set, probe_put */
#ifndef EXADL_HARNESS_PROBE_H
#define EXADL_HARNESS_PROBE_H

#include <stddef.h>

#include "harness/run/interference.h"
#include "harness/util/util.h"

#define PROBE_FORMAT_VERSION 1
#define PROBE_FILE "probe.yaml"

/* One question and its answer: a program by name (no path: the folder may be
 * read where the programs live elsewhere or nowhere) and its arguments. */
typedef struct {
    const char *program;  /* "peak_cpu", "stemdl" */
    const char **args;    /* after the program, NULL-terminated */
    size_t nargs;
    const char *output;   /* what it printed; NULL when it gave no answer */
    const char *error;    /* why no answer, as the report says it; NULL with an output */
} probe_answer_t;

typedef struct {
    const char *path;         /* DIR/probe.yaml */
    int missing;              /* no such file (an older exadl's folder, or removed) */
    int has_peak;             /* the peak question was asked */
    probe_answer_t peak;      /* peak_cpu's */
    int peak_via_launcher;    /* asked as a 1-rank launch on a compute node */
    const char *peak_host;    /* the host exadl asked it from */
    /* the repeated peak probe (docs/harness.md "The peak"): every probe's
     * output (peak.output is the first), where it came from ("measured in
     * this run", "the cache FILE"), the machine it was measured on, when, and
     * how busy the machine was meanwhile; absent in older folders (one probe) */
    const char **peak_outputs;
    size_t npeak_outputs;
    const char *peak_from, *peak_cpu_model, *peak_measured_utc;
    int peak_cpus;
    intf_t peak_intf;
    probe_answer_t *d;        /* describe answers */
    size_t nd, dcap;
} probe_t;

/* DIR/probe.yaml into p: 0; 1 when there is none (p->missing set, p empty);
 * -1 with "FILE:LINE:COL: problem" in err. */
int probe_read(arena_t *a, const char *dir, probe_t *p, char *err, size_t errlen);
/* probe_read where a damaged file counts as missing: its error goes to stderr
 * as "exadl CMD: warning: FILE:LINE:COL: ... (its answers are not used)"
 * (exadl run, which asks the questions again). */
void probe_read_or_warn(arena_t *a, const char *dir, probe_t *p, const char *cmd);
/* probe_read for the commands that only read (analyze, check): a damaged file
 * is bad input, said in one line "exadl CMD: error: FILE:LINE:COL: ..." with
 * what to do; -1 then (the caller exits 2 and writes nothing), else 0 (a
 * missing file is p->missing, said later by what lacks its answers). */
int probe_read_or_fail(arena_t *a, const char *dir, probe_t *p, const char *cmd);
/* The same from text (name: the file, for messages; also the peak cache's
 * reader: the cache is a probe file with a peak only). */
int probe_read_text(arena_t *a, const char *text, size_t len, const char *name, probe_t *p,
                    char *err, size_t errlen);
/* p into DIR/probe.yaml, atomically (a reader sees the old file or the new
 * one); 0, or -1 with err. */
int probe_write(const char *dir, const probe_t *p, char *err, size_t errlen);
/* The same into the file path (the peak cache). */
int probe_write_file(const char *path, const probe_t *p, char *err, size_t errlen);

/* The describe answer to program args[0..nargs), or NULL when none was recorded. */
const probe_answer_t *probe_find(const probe_t *p, const char *program, char *const *args,
                                 size_t nargs);
/* x = the answer to program args[0..nargs) (copied into a): output, or no
 * answer and error. */
void probe_answer_set(arena_t *a, probe_answer_t *x, const char *program, char *const *args,
                      size_t nargs, const char *output, const char *error);
/* Record a describe answer (as probe_answer_set; an earlier one to the same
 * question is replaced). */
void probe_put(arena_t *a, probe_t *p, const char *program, char *const *args, size_t nargs,
               const char *output, const char *error);

#endif
