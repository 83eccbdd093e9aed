/* Processes started, waited for and stopped, and exadl's signals (launch.h);
 * what is read back from them (a probe's output, a log's tail): launch_capture.c. */
#define _GNU_SOURCE
#include "harness/proc/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "harness/proc/proctree.h"

/* exadl's signals (launch.h): stop (the launch is stopped now), drain (it may
 * finish, no other starts), late (after the sweep: noted, the report goes on) */
static volatile sig_atomic_t g_interrupted, g_drain, g_late, g_report_mode;
static volatile pid_t g_launch_pgid; /* the running launch's group, for the crash handler */

/* every signal whose default ends a process and that is not a fault */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF,
                                   SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGPWR
                                   SIGPWR,
#endif
#ifdef SIGSTKFLT
                                   SIGSTKFLT,
#endif
                                   0};
static const int drain_signals[] = {SIGUSR1, SIGUSR2, 0};
/* faults: exadl itself is broken; the launch tree goes with it */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, 0};
static struct sigaction g_old_fault[65];

static void on_signal(int sig)
{
    int drain = sig == SIGUSR1 || sig == SIGUSR2;
    if (g_report_mode) { /* the report is being written: finish it */
        if (!g_late) g_late = sig;
        return;
    }
    if (drain) {
        if (!g_drain) g_drain = sig;
    } else if (!g_interrupted) {
        g_interrupted = sig;
    }
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    pid_t g = g_launch_pgid;
    if (g > 0) kill(-g, SIGKILL);
    proctree_signal(getpid(), SIGKILL);
    sigaction(sig, &g_old_fault[sig], NULL);
    /* sent by someone: raise it again; a real fault repeats when the handler
     * returns, now to the handler before ours (the sanitizers') or the default */
    if (si->si_code <= 0) raise(sig);
}

static void set_handler(int sig, void (*h)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void launch_install_signals(void)
{
    g_report_mode = 0;
    for (int i = 0; stop_signals[i]; i++) set_handler(stop_signals[i], on_signal);
    for (int i = 0; drain_signals[i]; i++) set_handler(drain_signals[i], on_signal);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) set_handler(s, on_signal);
    /* a reader that went away (exadl run | head) must not end the run: writes
     * to stdout fail quietly instead */
    set_handler(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; fault_signals[i]; i++) sigaction(fault_signals[i], &sa, &g_old_fault[fault_signals[i]]);
}

int launch_interrupted(void) { return g_interrupted != 0; }
int launch_draining(void) { return g_drain != 0; }
int launch_stop_signal(void) { return g_interrupted ? g_interrupted : g_drain; }
int launch_late_signal(void) { return g_late; }

void launch_report_mode(void)
{
    g_report_mode = 1;
    set_handler(SIGINT, SIG_DFL); /* a second Ctrl-C ends exadl at once; files are whole or absent */
    g_interrupted = 0;
}

void launch_reset_signals(void)
{
    for (int i = 0; stop_signals[i]; i++) set_handler(stop_signals[i], SIG_DFL);
    for (int i = 0; drain_signals[i]; i++) set_handler(drain_signals[i], SIG_DFL);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) set_handler(s, SIG_DFL);
    for (int i = 0; fault_signals[i]; i++) sigaction(fault_signals[i], &g_old_fault[fault_signals[i]], NULL);
    set_handler(SIGPIPE, SIG_DFL);
    g_interrupted = g_drain = g_late = g_report_mode = 0;
}

static int g_subreaper;

void launch_become_subreaper(void)
{
#ifdef PR_SET_CHILD_SUBREAPER
    g_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
#endif
}

/* orphans of a killed group come to us when we are a subreaper: reap them */
static void reap_orphans(void)
{
    if (!g_subreaper) return;
    for (int i = 0; i < 50; i++) {
        pid_t w;
        while ((w = waitpid(-1, NULL, WNOHANG)) > 0) {
        }
        if (w < 0) return; /* ECHILD: none left */
        sleep_s(0.01);
    }
}

const char *signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: {
        static char buf[16];
        snprintf(buf, sizeof buf, "signal %d", sig);
        return buf;
    }
    }
}

void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL); /* an interrupting signal just ends the nap early */
}

/* Poll for the child, with naps growing from 1 ms to 50 ms. */
static int wait_child(pid_t pid, int *status, double deadline, int use_deadline, int capfd,
                      sb_t *cap)
{
    double nap = 0.001;
    for (;;) {
        if (capfd >= 0) {
            char buf[65536];
            ssize_t n;
            while ((n = read(capfd, buf, sizeof buf)) > 0)
                if (cap->len < ((size_t)4 << 20)) sb_putn(cap, buf, (size_t)n);
        }
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) return 0;
        if (w < 0 && errno != EINTR) return -1;
        if (g_interrupted) return 2;
        if (use_deadline && timer_now_s() >= deadline) return 1;
        sleep_s(nap);
        if (nap < 0.05) nap *= 2;
    }
}

/* SIGKILL to everything below exadl until nothing is left: the launch's
 * group and what its launcher put in groups or sessions of their own */
static void kill_tree(pid_t pgid)
{
    kill(-pgid, SIGKILL);
    for (int i = 0; i < 20 && proctree_signal(getpid(), SIGKILL) > 0; i++) sleep_s(0.005);
}

/* SIGTERM to the group (the launcher forwards it to its ranks: mpirun, srun),
 * wait up to grace for the leader, then SIGKILL to the whole tree. */
static void kill_group(pid_t pgid, pid_t pid, int *status, double grace, int *reaped)
{
    kill(-pgid, SIGTERM);
    double end = timer_now_s() + grace;
    while (timer_now_s() < end) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) {
            *reaped = 1;
            break;
        }
        sleep_s(0.02);
    }
    kill_tree(pgid); /* also whatever the leader left behind */
    if (!*reaped && waitpid(pid, status, 0) == pid) *reaped = 1;
}

int spawn_run(const spawn_opts_t *o, spawn_result_t *r)
{
    memset(r, 0, sizeof *r);
    int logfd = open(o->log ? o->log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                     0644);
    if (logfd < 0) {
        snprintf(r->why, sizeof r->why, "cannot create log %s: %s", o->log, strerror(errno));
        return 1;
    }
    if (o->header) { /* a full disk: say so here, not with an empty log */
        size_t len = strlen(o->header);
        ssize_t w = write(logfd, o->header, len);
        if (w != (ssize_t)len) {
            snprintf(r->why, sizeof r->why, "cannot write log %s: %s", o->log ? o->log : "/dev/null",
                     w < 0 ? strerror(errno) : "short write (disk full?)");
            close(logfd);
            return 1;
        }
    }
    int pipefd[2] = {-1, -1};
    if (o->capture && pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(r->why, sizeof r->why, "pipe: %s", strerror(errno));
        close(logfd);
        return 1;
    }
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        snprintf(r->why, sizeof r->why, "pipe: %s", strerror(errno));
        close(logfd);
        return 1;
    }
    fflush(NULL);
    double t0 = timer_now_s();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->why, sizeof r->why, "fork: %s", strerror(errno));
        close(logfd);
        close(errpipe[0]);
        close(errpipe[1]);
        if (o->capture) close(pipefd[0]), close(pipefd[1]);
        return 1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* exadl killed outright (SIGKILL, the OOM killer): the launcher still
         * gets SIGTERM and takes its ranks down */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        for (int s = 1; s < 65; s++)
            if (s != SIGKILL && s != SIGSTOP) sigaction(s, &sa, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(o->capture ? pipefd[1] : logfd, 1);
        dup2(logfd, 2);
        for (size_t i = 0; i < o->nenv; i++) {
            if (o->env[i].value) setenv(o->env[i].key, o->env[i].value, 1);
            else unsetenv(o->env[i].key);
        }
        execvp(o->argv[0], o->argv);
        int e = errno;
        dprintf(2, "exadl: cannot start %s: %s\n", o->argv[0], strerror(e));
        ssize_t w = write(errpipe[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    setpgid(pid, pid); /* both sides set it: no race with an early kill */
    g_launch_pgid = pid;
    close(errpipe[1]);
    if (o->capture) {
        close(pipefd[1]);
        fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    }
    int exec_errno = 0;
    ssize_t got = read(errpipe[0], &exec_errno, sizeof exec_errno); /* EOF at exec */
    close(errpipe[0]);
    int status = 0, reaped = 0;
    sb_t cap = {0};
    int w = wait_child(pid, &status, t0 + o->timeout_s, o->timeout_s > 0,
                       o->capture ? pipefd[0] : -1, &cap);
    if (w == 0) {
        reaped = 1;
        kill_tree(pid); /* leftovers (daemons a launcher forgot, ranks it orphaned) */
    } else if (w == 1 || w == 2) {
        r->timed_out = w == 1;
        r->interrupted = w == 2;
        kill_group(pid, pid, &status, o->grace_s > 0 ? o->grace_s : 5, &reaped);
    }
    g_launch_pgid = 0;
    reap_orphans();
    if (o->capture) {
        char buf[65536];
        ssize_t n;
        while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
            if (cap.len < ((size_t)4 << 20)) sb_putn(&cap, buf, (size_t)n);
        close(pipefd[0]);
        r->out = cap.s ? cap.s : calloc(1, 1);
        r->outlen = cap.len;
    }
    r->elapsed_s = timer_now_s() - t0;
    close(logfd);
    if (got == (ssize_t)sizeof exec_errno && exec_errno) {
        snprintf(r->why, sizeof r->why, "cannot start %s: %s", o->argv[0], strerror(exec_errno));
        return 1;
    }
    r->started = 1;
    if (reaped && WIFEXITED(status)) {
        r->exited = 1;
        r->code = WEXITSTATUS(status);
    } else if (reaped && WIFSIGNALED(status)) {
        r->signaled = 1;
        r->sig = WTERMSIG(status);
    }
    if (r->timed_out)
        snprintf(r->why, sizeof r->why, "timed out after %g s; process group killed",
                 o->timeout_s);
    else if (r->interrupted)
        snprintf(r->why, sizeof r->why, "interrupted (exadl got %s); process group killed",
                 signal_name(g_interrupted));
    else if (r->exited)
        snprintf(r->why, sizeof r->why, "exit status %d", r->code);
    else if (r->signaled)
        snprintf(r->why, sizeof r->why, "killed by %s%s", signal_name(r->sig),
                 WCOREDUMP(status) ? " (core dumped)" : "");
    else
        snprintf(r->why, sizeof r->why, "ended in an unknown way");
    return !(r->exited && r->code == 0 && !r->timed_out && !r->interrupted);
}

int spawn_exec(char *const *argv)
{
    execvp(argv[0], argv);
    return -1;
}

void spawn_result_free(spawn_result_t *r)
{
    free(r->out);
    r->out = NULL;
}
