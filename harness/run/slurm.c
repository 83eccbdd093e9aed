/* What exadl asks Slurm (slurm.h). */
#define _GNU_SOURCE
#include "harness/run/slurm.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/proc/launch.h"

/* a Slurm command's stdout (NULL with why when it fails); no suite env */
static char *ask(arena_t *a, char *const *argv, const char **why)
{
    spawn_opts_t o = {.argv = argv, .timeout_s = 30, .grace_s = 1, .capture = 1};
    spawn_result_t r;
    int bad = spawn_run(&o, &r);
    char *out = r.out ? ar_strndup(a, r.out, r.outlen) : NULL;
    if (bad && why) *why = ar_printf(a, "%s: %s", argv[0], r.why);
    spawn_result_free(&r);
    return bad ? NULL : out;
}

/* "Key=value" of a one-line record: the value up to the next space */
static const char *field(arena_t *a, const char *line, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p += k)
        if ((p == line || p[-1] == ' ' || p[-1] == '\n') && p[k] == '=') {
            const char *v = p + k + 1;
            size_t l = strcspn(v, " \n");
            return l > 200 ? ar_strndup(a, v, 200) : ar_strndup(a, v, l);
        }
    return NULL;
}

static int ival(const char *s) { return s && isdigit((unsigned char)*s) ? atoi(s) : 0; }

double slurm_parse_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || strlen(s) != 19) return NAN;
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || *end) return NAN;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    return t == (time_t)-1 ? NAN : (double)t;
}

void slurm_job_parse(arena_t *a, const char *line, slurm_job_t *j)
{
    memset(j, 0, sizeof *j);
    j->id = field(a, line, "JobId");
    j->name = field(a, line, "JobName");
    j->state = field(a, line, "JobState");
    j->reason = field(a, line, "Reason");
    j->partition = field(a, line, "Partition");
    j->account = field(a, line, "Account");
    j->qos = field(a, line, "QOS");
    j->nodelist = field(a, line, "NodeList");
    j->time_limit = field(a, line, "TimeLimit");
    j->start = field(a, line, "StartTime");
    j->end = field(a, line, "EndTime");
    j->submit_dir = field(a, line, "WorkDir");
    j->nodes = ival(field(a, line, "NumNodes"));
    j->cpus = ival(field(a, line, "NumCPUs"));
    j->tasks = ival(field(a, line, "NumTasks"));
    j->end_epoch = slurm_parse_time(j->end);
    for (const char **p = &j->account; p <= &j->qos; p++)
        if (*p && !strcmp(*p, "(null)")) *p = NULL;
}

int slurm_job_query(arena_t *a, const char *id, slurm_job_t *j, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    j->end_epoch = NAN;
    const char *why = NULL;
    char *argv[] = {"scontrol", "show", "job", "-o", (char *)id, NULL};
    char *out = ask(a, argv, &why);
    if (!out || !strstr(out, "JobId=")) {
        snprintf(err, errlen, "scontrol show job %s: %s", id,
                 why ? why : "no JobId= in its answer");
        return -1;
    }
    slurm_job_parse(a, out, j);
    const char *cl = getenv("SLURM_CLUSTER_NAME");
    j->cluster = cl ? ar_strdup(a, cl) : NULL;
    return 0;
}

int slurm_job_ended(arena_t *a, const char *id, const char **why)
{
    slurm_job_t j;
    char err[512];
    if (slurm_job_query(a, id, &j, err, sizeof err)) {
        /* a job Slurm no longer knows is over; scontrol itself failing says nothing */
        if (strstr(err, "exit status 1")) {
            *why = ar_printf(a, "Slurm job %s has ended (Slurm no longer knows it)", id);
            return 1;
        }
        *why = ar_strdup(a, err);
        return -1;
    }
    if (j.state && strcmp(j.state, "RUNNING") && strcmp(j.state, "CONFIGURING") &&
        strcmp(j.state, "SUSPENDED")) {
        *why = ar_printf(a, "Slurm job %s has ended: state %s%s%s", id, j.state,
                         j.reason && strcmp(j.reason, "None") ? ", reason " : "",
                         j.reason && strcmp(j.reason, "None") ? j.reason : "");
        return 1;
    }
    /* past its end time the job takes no new step, before its state says so */
    if (isfinite(j.end_epoch) && j.end_epoch <= (double)time(NULL)) {
        *why = ar_printf(a, "Slurm job %s reached its time limit (%s, ended %s)", id,
                         j.time_limit ? j.time_limit : "?", j.end);
        return 1;
    }
    *why = NULL;
    return 0;
}

void slurm_step_cancel(arena_t *a, const char *step)
{
    if (strspn(step, "0123456789.+_") != strlen(step)) return; /* read from a log: a step ID only */
    char *argv[] = {"scancel", "--quiet", (char *)step, NULL};
    ask(a, argv, NULL);
}

const char *slurm_mpi_types(arena_t *a)
{
    char *argv[] = {"srun", "--mpi=list", NULL};
    char *out = ask(a, argv, NULL);
    if (!out || !strstr(out, "MPI plugin types")) return NULL;
    sb_t b = {0};
    for (char *p = strchr(out, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *l = p + 1;
        if (*l != '\t' && *l != ' ') break; /* the list is the indented lines */
        while (*l == '\t' || *l == ' ') l++;
        size_t n = strspn(l, "abcdefghijklmnopqrstuvwxyz0123456789_");
        if (n) sb_printf(&b, "%s%.*s", b.len ? ", " : "", (int)n, l);
    }
    char *r = b.len ? ar_strdup(a, sb_str(&b)) : NULL;
    sb_free(&b);
    return r;
}

static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

const char *slurm_site_mpi(arena_t *a, const char **source)
{
    const char *t = getenv("SLURM_MPI_TYPE");
    if (t && *t) {
        *source = ar_printf(a, "the site: SLURM_MPI_TYPE=%s (srun reads it)", t);
        return NULL;
    }
    char *argv[] = {"scontrol", "show", "config", NULL};
    char *conf = ask(a, argv, NULL);
    const char *def = conf ? strstr(conf, "\nMpiDefault") : NULL;
    char val[64] = "";
    if (def) sscanf(def, "\nMpiDefault = %63s", val);
    if (val[0] && strcmp(val, "none")) {
        *source = ar_printf(a, "the site: MpiDefault=%s in slurm.conf (srun applies it)", val);
        return NULL;
    }
    const char *types = slurm_mpi_types(a);
    if (listed(types, "pmix")) {
        *source = ar_printf(a, "exadl: pmix, which srun lists (%s), as MpiDefault is %s", types,
                            val[0] ? val : "unknown");
        return "pmix";
    }
    *source = ar_printf(a, "none chosen: srun lists %s and MpiDefault is %s", types ? types : "nothing",
                        val[0] ? val : "unknown");
    return NULL;
}

void slurm_choose_mpi(arena_t *a, suite_t *s)
{
    if (!s->launcher->job_steps) return;
    if (s->launcher_mpi && strcmp(s->launcher_mpi, "auto")) return;
    for (size_t i = 0; i < s->nlauncher_args; i++)
        if (!strncmp(s->launcher_args[i], "--mpi", 5)) {
            s->launcher_mpi = NULL;
            s->launcher_mpi_source = "the suite (launcher_args)";
            return;
        }
    s->launcher_mpi = slurm_site_mpi(a, &s->launcher_mpi_source);
}

/* expand one item ("n[01-03]-ib[1-2]"), appending to hosts */
static int expand_item(arena_t *a, const char *item, const char **hosts, int n, int max)
{
    const char *lb = strchr(item, '[');
    if (!lb) {
        if (!*item) return -1;
        if (n < max) hosts[n] = ar_strdup(a, item);
        return n + 1;
    }
    const char *rb = strchr(lb, ']');
    if (!rb) return -1;
    char *body = ar_strndup(a, lb + 1, (size_t)(rb - lb - 1));
    for (char *r = body, *next; r; r = next) {
        next = strchr(r, ',');
        if (next) *next++ = 0;
        char *dash = strchr(r, '-');
        if (!isdigit((unsigned char)*r)) return -1;
        long lo = strtol(r, NULL, 10), hi = dash ? strtol(dash + 1, NULL, 10) : lo;
        int width = (int)(dash ? dash - r : (long)strlen(r));
        if (hi < lo || hi - lo > 100000 || (dash && !isdigit((unsigned char)dash[1]))) return -1;
        for (long v = lo; v <= hi; v++) {
            char *head = ar_printf(a, "%.*s%0*ld%s", (int)(lb - item), item, width, v, rb + 1);
            if (strchr(rb + 1, '[')) { /* another bracket group follows: expand it too */
                char *save = ar_strdup(a, head);
                n = expand_item(a, save, hosts, n, max);
                if (n < 0) return -1;
            } else {
                if (n < max) hosts[n] = head;
                n++;
            }
            if (n > 1000000) return -1;
        }
    }
    return n;
}

int slurm_hostlist_expand(arena_t *a, const char *list, const char **hosts, int max)
{
    if (!list || !*list) return -1;
    int n = 0, depth = 0;
    const char *start = list;
    for (const char *p = list;; p++) {
        if (*p == '[') depth++;
        else if (*p == ']') depth--;
        if (depth < 0 || depth > 1) return -1;
        if ((*p == ',' && depth == 0) || !*p) {
            char *item = ar_strndup(a, start, (size_t)(p - start));
            n = expand_item(a, item, hosts, n, max);
            if (n < 0) return -1;
            if (!*p) break;
            start = p + 1;
        }
    }
    return depth ? -1 : n;
}
