/* Every registered launcher (harness/launchers/registry.c), as ReFrame's
 * launcher tests do: a unique name that finds it, a line in the help, a
 * suggestion for a misspelt name, a suite that chooses it, and a wrap that
 * keeps the benchmark's argv whole and in order, states the scale and carries
 * the environment only where the launcher says it does.  Then the exact
 * command of each built-in launcher, as the docs promise it. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/launchers/launcher.h"
#include "harness/suite/suite.h"
#include "tests/unit/tap.h"

static char *const inner[] = {"prog", "a b", "--x", "it's", NULL};
static const char *const env_names[] = {"EXADL_T_VAR", "EXADL_T_OTHER", NULL};

/* the text a suite writes to choose l */
static const char *choose_text(const launcher_t *l) { return l->matches ? l->example : l->name; }

static char **wrap(arena_t *a, const launcher_t *l, int scale, int nodes, int rpn,
                   const char *const *env)
{
    launcher_job_t j = {.text = l->matches ? l->example : NULL,
                        .scale = scale,
                        .nodes = nodes,
                        .ranks_per_node = rpn,
                        .env = env};
    return launcher_wrap(a, l, &j, inner);
}

static size_t argv_len(char *const *v)
{
    size_t n = 0;
    while (v[n]) n++;
    return n;
}

/* n as a whole number somewhere in text */
static int mentions_int(const char *text, int n)
{
    char num[32];
    snprintf(num, sizeof num, "%d", n);
    for (const char *p = strstr(text, num); p; p = strstr(p + 1, num)) {
        int before = p > text && p[-1] >= '0' && p[-1] <= '9';
        int after = p[strlen(num)] >= '0' && p[strlen(num)] <= '9';
        if (!before && !after) return 1;
    }
    return 0;
}

/* What the launcher put around inner, as one line; fails unless inner is in
 * v whole and in order (as arguments, or shell-quoted inside `sh -c TEXT`). */
static char *launcher_part(arena_t *a, const launcher_t *l, char **v)
{
    size_t n = argv_len(v), k = argv_len(inner);
    for (size_t i = 0; i + k <= n; i++) {
        size_t m = 0;
        while (m < k && !strcmp(v[i + m], inner[m])) m++;
        if (m == k) { /* the rest, inner left out */
            char **rest = ar_alloc(a, (n - k + 1) * sizeof *rest);
            size_t r = 0;
            for (size_t x = 0; x < n; x++)
                if (x < i || x >= i + k) rest[r++] = v[x];
            return argv_join(a, rest);
        }
    }
    T_ASSERT(n == 3 && !strcmp(v[0], "/bin/sh") && !strcmp(v[1], "-c"),
             "%s: the benchmark's argv is not in '%s' (neither as arguments nor as sh -c TEXT)",
             l->name, argv_join(a, v));
    const char *q = argv_join(a, inner), *at = strstr(v[2], q);
    T_ASSERT(at, "%s: sh -c text '%s' lacks the shell-quoted command '%s'", l->name, v[2], q);
    return ar_printf(a, "/bin/sh -c %.*s%s", (int)(at - v[2]), v[2], at + strlen(q));
}

static void test_registry(void)
{
    arena_t *a = ar_new();
    const char *help = launcher_help(a), *usage = launcher_usage(a);
    size_t n = 0;
    int dflt = 0;
    for (const launcher_t *const *p = launchers; *p; p++, n++) {
        const launcher_t *l = *p;
        T_ASSERT(l->name && l->name[0] && !strpbrk(l->name, " \t\n{}"), "launcher %zu: bad name",
                 n);
        for (const launcher_t *const *q = launchers; q != p; q++)
            T_ASSERT(strcmp((*q)->name, l->name), "name '%s' registered twice", l->name);
        T_ASSERT(l->summary && l->summary[0] && !strchr(l->summary, '\n'),
                 "%s: the summary must be one line", l->name);
        T_ASSERT(l->usage && l->usage[0] && strstr(usage, l->usage), "%s: usage '%s' not in '%s'",
                 l->name, l->usage, usage);
        T_ASSERT(l->wrap, "%s: no wrap", l->name);
        T_ASSERT(launcher_by_name(l->name) == l, "%s: not found by its name", l->name);
        char *line = ar_printf(a, "\n  %s ", l->name);
        T_ASSERT(strstr(help, line) && strstr(help, l->summary), "%s: not in the help:\n%s",
                 l->name, help);
        if (l->matches) {
            T_ASSERT(l->example && l->matches(l->example), "%s: its example does not choose it",
                     l->name);
            T_ASSERT(!l->matches(l->name), "%s: chosen by text, yet its name matches", l->name);
        }
        T_ASSERT(launcher_select(choose_text(l)) == l, "%s: '%s' does not choose it", l->name,
                 choose_text(l));
        T_ASSERT(!launcher_check_text(a, l, choose_text(l)), "%s: its own text is refused",
                 l->name);
        dflt |= launcher_default() == l;
    }
    T_ASSERT(n >= 4, "only %zu launchers registered", n);
    T_ASSERT(dflt, "the default launcher is not registered");
    T_ASSERT(!launcher_by_name("no-such-launcher") && !launcher_select("no-such-launcher"),
             "an unknown name was found");
    ar_free(a);
}

static void test_suggestions(void)
{
    arena_t *a = ar_new();
    int named = 0;
    for (const launcher_t *const *p = launchers; *p; p++) {
        const launcher_t *l = *p;
        char *typo = ar_strdup(a, l->name);
        typo[strlen(typo) - 1] = 'Z';
        if (l->matches) { /* a suite cannot write its name: never suggest it */
            T_ASSERT(!launcher_select(l->name), "%s is chosen by text, not by its name", l->name);
            const char *s = launcher_suggest(typo);
            T_ASSERT(!s || strcmp(s, l->name), "'%s': suggested '%s'", typo, s);
            continue;
        }
        named++;
        T_ASSERT(!launcher_select(typo), "'%s' chose a launcher", typo);
        const char *s = launcher_suggest(typo);
        T_ASSERT(s && !strcmp(s, l->name), "'%s': suggested '%s', not '%s'", typo, s ? s : "none",
                 l->name);
    }
    T_ASSERT(named >= 1, "no launcher is chosen by name");
    T_ASSERT(!launcher_suggest("qqqqqqqqqqqq"), "a far-off name got a suggestion");
    ar_free(a);
}

/* a suite chooses each launcher; a misspelt name gets the suggestion */
static void test_suites(void)
{
    machine_t m = {.cores = 4};
    char err[1024];
    for (const launcher_t *const *p = launchers; *p; p++) {
        const launcher_t *l = *p;
        arena_t *a = ar_new();
        char *text = ar_printf(a, "launcher: \"%s\"\nscales: [1]\nbenchmarks: [{program: "
                                  "/bin/true}]\n", choose_text(l));
        suite_t s;
        int rc = suite_load_text(a, text, strlen(text), "t.yaml", ".", &m, &s, err, sizeof err);
        if (rc) ar_free(a);
        T_ASSERT(rc == 0, "%s: %s", l->name, err);
        T_ASSERT(s.launcher == l, "%s: the suite chose %s", l->name, s.launcher->name);
        if (!l->matches) {
            text = ar_printf(a, "launcher: %sZ\nbenchmarks: [{program: /bin/true}]\n", l->name);
            rc = suite_load_text(a, text, strlen(text), "t.yaml", ".", &m, &s, err, sizeof err);
            char *want = ar_printf(a, "did you mean '%s'", l->name);
            int ok = rc == -1 && strstr(err, want);
            ar_free(a);
            T_ASSERT(ok, "%sZ: %s", l->name, err);
        } else {
            ar_free(a);
        }
    }
    arena_t *a = ar_new();
    static const char unknown[] = "launcher: qqqqqqqqqqqq\nbenchmarks: [{program: /bin/true}]\n";
    int rc = suite_load_text(a, unknown, strlen(unknown), "t.yaml", ".", &m, &(suite_t){0}, err,
                             sizeof err);
    char *want = ar_printf(a, "t.yaml:1:11: unknown launcher 'qqqqqqqqqqqq': use %s",
                           launcher_usage(a));
    int ok = rc == -1 && !strcmp(err, want);
    ar_free(a);
    T_ASSERT(ok, "unknown launcher: '%s'", err);
}

/* D12: every launcher's `uses` is honest (launcher_command and launcher_args
 * appear in its command exactly when it says it uses them), and a suite that
 * gives one to a launcher that would ignore it is refused at the key */
static void test_launcher_options(void)
{
    machine_t m = {.cores = 4};
    char err[1024];
    static const char *const args[] = {"--exadl-t-arg"};
    for (const launcher_t *const *p = launchers; *p; p++) {
        const launcher_t *l = *p;
        arena_t *a = ar_new();
        launcher_job_t j = {.text = l->matches ? l->example : NULL, .command = "exadl-t-cmd",
                            .args = args, .nargs = 1, .scale = 1, .nodes = 1};
        char *line = argv_join(a, launcher_wrap(a, l, &j, inner));
        int cmd = strstr(line, "exadl-t-cmd") != NULL, arg = strstr(line, "--exadl-t-arg") != NULL;
        int says_cmd = !!(l->uses & LAUNCHER_USES_COMMAND), says_arg = !!(l->uses & LAUNCHER_USES_ARGS);
        for (int k = 0; k < 2; k++) {
            const char *key = k ? "launcher_args" : "launcher_command";
            char *text = ar_printf(a, "launcher: \"%s\"\n%s: %s\nbenchmarks: [{program: /bin/true}]\n",
                                   choose_text(l), key, k ? "[--x]" : "/opt/x/mpirun");
            suite_t s;
            int rc = suite_load_text(a, text, strlen(text), "t.yaml", ".", &m, &s, err, sizeof err);
            int uses = k ? says_arg : says_cmd;
            char *want = ar_printf(a, "t.yaml:2:%zu: %s: the %s launcher would ignore it", strlen(key) + 3,
                                   key, l->name);
            int ok = uses ? rc == 0 : rc == -1 && !strncmp(err, want, strlen(want));
            if (!ok) {
                ar_free(a);
                T_ASSERT(0, "%s with %s: rc %d, '%s'", l->name, key, rc, err);
            }
        }
        ar_free(a);
        T_ASSERT(cmd == says_cmd, "%s: launcher_command %s its command but uses says %d: %s", l->name,
                 cmd ? "is in" : "is not in", says_cmd, "");
        T_ASSERT(arg == says_arg, "%s: launcher_args %s its command but uses says %d", l->name,
                 arg ? "are in" : "are not in", says_arg);
    }
}

/* scales 1 (one node) and 4 (two nodes of 2) */
static void test_wrap_every_launcher(void)
{
    static const struct {
        int scale, nodes, rpn;
    } shapes[] = {{1, 1, 0}, {4, 2, 2}};
    for (const launcher_t *const *p = launchers; *p; p++) {
        const launcher_t *l = *p;
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            arena_t *a = ar_new();
            int sc = shapes[k].scale, nodes = shapes[k].nodes, rpn = shapes[k].rpn;
            const char *why = launcher_check_scale(a, l, sc);
            if (why) { /* refused: say so with the scale, and never at 1 */
                int ok = sc > 1 && why[0] && mentions_int(why, sc);
                ar_free(a);
                T_ASSERT(ok, "%s: scale %d refused with '%s'", l->name, sc, why);
                continue;
            }
            char **v = wrap(a, l, sc, nodes, rpn, NULL);
            char *part = launcher_part(a, l, v);
            /* a launcher that adds anything states the ranks it starts */
            T_ASSERT(!part[0] || mentions_int(part, sc), "%s: scale %d not in '%s'", l->name, sc,
                     part);
            char *with_env = launcher_part(a, l, wrap(a, l, sc, nodes, rpn, env_names));
            int carried = strstr(with_env, env_names[0]) && strstr(with_env, env_names[1]);
            if (nodes > 1 && l->exports)
                T_ASSERT(carried, "%s: the variables are not carried at %d nodes: '%s'", l->name,
                         nodes, with_env);
            else
                T_ASSERT(!strcmp(with_env, part), "%s: %d node(s), no exports, yet '%s' != '%s'",
                         l->name, nodes, with_env, part);
            char *empty = launcher_part(a, l, wrap(a, l, sc, nodes, rpn, (const char *[]){NULL}));
            T_ASSERT(!strcmp(empty, part), "%s: no variables, yet '%s' != '%s'", l->name, empty,
                     part);
            ar_free(a);
        }
    }
}

/* ---- the built-ins, exactly ---------------------------------------------------- */
static char *line_of(arena_t *a, const char *name, const launcher_job_t *j, char *const *in)
{
    const launcher_t *l = launcher_by_name(name);
    T_ASSERT(l, "launcher %s is not registered", name);
    return argv_join(a, launcher_wrap(a, l, j, in));
}

static char *const prog[] = {"prog", "a b", NULL};

static void test_local(void)
{
    arena_t *a = ar_new();
    const launcher_t *l = launcher_by_name("local");
    T_ASSERT(l, "local is not registered");
    char *line = line_of(a, "local", &(launcher_job_t){.scale = 1, .nodes = 1,
                                                       .args = (const char *[]){"-q"}, .nargs = 1,
                                                       .env = env_names}, prog);
    T_ASSERT(!strcmp(line, "prog 'a b'"), "local: %s", line);
    T_ASSERT(!launcher_check_scale(a, l, 1), "local refuses one process");
    const char *why = launcher_check_scale(a, l, 2);
    T_ASSERT(why && !strcmp(why, "launcher local starts one process; scale 2 needs mpirun, srun "
                                 "or a template"), "local at 2: %s", why ? why : "accepted");
    ar_free(a);
}

static void test_mpirun(void)
{
    arena_t *a = ar_new();
    const char *saved = getenv("EXADL_MPIRUN");
    char *keep = saved ? ar_strdup(a, saved) : NULL;
    unsetenv("EXADL_MPIRUN");
    T_ASSERT(launcher_default() == launcher_by_name("mpirun"), "mpirun is not the default");
    char *l1 = line_of(a, "mpirun", &(launcher_job_t){.scale = 1, .nodes = 1, .env = env_names},
                       prog);
    char *l2 = line_of(a, "mpirun", &(launcher_job_t){.scale = 2, .nodes = 1,
                                                      .ranks_per_node = 4, .env = env_names}, prog);
    char *l3 = line_of(a, "mpirun",
                       &(launcher_job_t){.scale = 4, .nodes = 2, .ranks_per_node = 2,
                                         .args = (const char *[]){"--bind-to", "none"},
                                         .nargs = 2, .env = (const char *[]){"A", "B", NULL}},
                       prog);
    char *l4 = line_of(a, "mpirun", &(launcher_job_t){.scale = 3, .nodes = 2, .ranks_per_node = 2},
                       prog);
    setenv("EXADL_MPIRUN", "/x/mpirun", 1);
    char *l5 = line_of(a, "mpirun", &(launcher_job_t){.scale = 1, .nodes = 1}, prog);
    char *l6 = line_of(a, "mpirun", &(launcher_job_t){.command = "/opt/mpirun", .scale = 1,
                                                      .nodes = 1}, prog);
    setenv("EXADL_MPIRUN", "", 1);
    char *l7 = line_of(a, "mpirun", &(launcher_job_t){.scale = 1, .nodes = 1}, prog);
    if (keep) setenv("EXADL_MPIRUN", keep, 1);
    else unsetenv("EXADL_MPIRUN");
    T_ASSERT(!strcmp(l1, "mpirun -np 1 prog 'a b'"), "one node: %s", l1);
    T_ASSERT(!strcmp(l2, "mpirun -np 2 prog 'a b'"), "one node, no exports: %s", l2);
    T_ASSERT(!strcmp(l3, "mpirun -x A -x B -np 4 --map-by ppr:2:node --bind-to none prog 'a b'"),
             "two nodes: %s", l3);
    T_ASSERT(!strcmp(l4, "mpirun -np 3 --map-by ppr:2:node prog 'a b'"), "no variables: %s", l4);
    T_ASSERT(!strcmp(l5, "/x/mpirun -np 1 prog 'a b'"), "$EXADL_MPIRUN: %s", l5);
    T_ASSERT(!strcmp(l6, "/opt/mpirun -np 1 prog 'a b'"), "launcher_command wins: %s", l6);
    T_ASSERT(!strcmp(l7, "mpirun -np 1 prog 'a b'"), "empty $EXADL_MPIRUN: %s", l7);
    ar_free(a);
}

/* the emulated network: its script in front of mpirun, one node whatever the shape */
static void test_netns(void)
{
    arena_t *a = ar_new();
    const char *saved = getenv("EXADL_MPIRUN");
    char *keep = saved ? ar_strdup(a, saved) : NULL;
    unsetenv("EXADL_MPIRUN");
    char *l1 = line_of(a, "netns", &(launcher_job_t){.scale = 2, .nodes = 1, .env = env_names},
                       prog);
    char *l2 = line_of(a, "netns", &(launcher_job_t){.scale = 4, .nodes = 2, .ranks_per_node = 2,
                                                     .args = (const char *[]){"--bind-to", "none"},
                                                     .nargs = 2, .env = env_names}, prog);
    if (keep) setenv("EXADL_MPIRUN", keep, 1);
    char *script = ar_printf(a, "%s/harness/launchers/netns.sh", exadl_root());
    T_ASSERT(!strcmp(l1, ar_printf(a, "%s -- mpirun -np 2 prog 'a b'", script)), "netns: %s", l1);
    T_ASSERT(!strcmp(l2, ar_printf(a, "%s -- mpirun -np 4 --bind-to none prog 'a b'", script)),
             "netns over two nodes stays on one: %s", l2);
    T_ASSERT(access(script, X_OK) == 0, "%s is not an executable file", script);
    ar_free(a);
}

static void test_srun(void)
{
    arena_t *a = ar_new();
    char *l1 = line_of(a, "srun", &(launcher_job_t){.scale = 8, .nodes = 2, .ranks_per_node = 4,
                                                    .env = env_names}, prog);
    char *l2 = line_of(a, "srun", &(launcher_job_t){.scale = 2, .nodes = 1}, prog);
    char *l3 = line_of(a, "srun",
                       &(launcher_job_t){.command = "mysrun", .scale = 2, .nodes = 1,
                                         .ranks_per_node = 8,
                                         .args = (const char *[]){"-A", "x"}, .nargs = 2},
                       prog);
    char *l4 = line_of(a, "srun", &(launcher_job_t){.scale = 1, .nodes = 1, .mpi = "pmix"}, prog);
    T_ASSERT(!strcmp(l1, "srun --ntasks=8 --nodes=2 --ntasks-per-node=4 --kill-on-bad-exit=1 "
                         "--verbose prog 'a b'"), "two nodes (Slurm carries the env): %s", l1);
    T_ASSERT(!strcmp(l2, "srun --ntasks=2 --nodes=1 --kill-on-bad-exit=1 --verbose prog 'a b'"),
             "no ranks per node: %s", l2);
    T_ASSERT(!strcmp(l3, "mysrun --ntasks=2 --nodes=1 --ntasks-per-node=2 --kill-on-bad-exit=1 "
                         "--verbose -A x prog 'a b'"), "command, args, rpn above the scale: %s", l3);
    T_ASSERT(!strcmp(l4, "srun --ntasks=1 --nodes=1 --kill-on-bad-exit=1 --mpi=pmix --verbose prog "
                         "'a b'"), "--mpi: %s", l4);
    ar_free(a);
}

static void test_template(void)
{
    arena_t *a = ar_new();
    const launcher_t *l = launcher_by_name("template");
    T_ASSERT(l && launcher_select("srun -A x {cmd}") == l, "a text with {cmd} is a template");
    T_ASSERT(!launcher_select("srun -A x {cm}"), "a text without {cmd} is not");
    char *l1 = line_of(a, "template",
                       &(launcher_job_t){.text = "srun -A x {cmd}", .scale = 4, .nodes = 2,
                                         .ranks_per_node = 2, .env = env_names,
                                         .args = (const char *[]){"-q"}, .nargs = 1,
                                         .command = "ignored"}, prog);
    T_ASSERT(!strcmp(l1, "/bin/sh -c 'srun -A x prog '\\''a b'\\'''"), "template: %s", l1);
    const char *t = "env R={ranks} N={nodes} P={ranks_per_node} {cmd}";
    char *l2 = line_of(a, "template", &(launcher_job_t){.text = t, .scale = 3, .nodes = 2,
                                                        .ranks_per_node = 2}, prog);
    char *l3 = line_of(a, "template", &(launcher_job_t){.text = t, .scale = 3, .nodes = 1}, prog);
    char *l4 = line_of(a, "template", &(launcher_job_t){.text = "{cmd}; {cmd}", .scale = 1,
                                                        .nodes = 1}, (char *[]){"p", NULL});
    T_ASSERT(!strcmp(l2, "/bin/sh -c 'env R=3 N=2 P=2 prog '\\''a b'\\'''"), "placeholders: %s",
             l2);
    T_ASSERT(!strcmp(l3, "/bin/sh -c 'env R=3 N=1 P=3 prog '\\''a b'\\'''"),
             "one node: every rank on it: %s", l3);
    T_ASSERT(!strcmp(l4, "/bin/sh -c 'p; p'"), "{cmd} twice: %s", l4);
    const char *why = launcher_check_text(a, l, "go {rank} {cmd}");
    T_ASSERT(why && !strcmp(why, "launcher template: unknown placeholder at '{rank} {cmd}' (use "
                                 "{ranks}, {nodes}, {ranks_per_node}, {cmd})"), "placeholder: %s",
             why ? why : "accepted");
    T_ASSERT(!launcher_check_text(a, l, t), "good placeholders refused");
    T_ASSERT(!launcher_check_scale(a, l, 1024), "a template refused 1024 ranks");
    ar_free(a);
}

/* "use local, mpirun, srun, or a command template containing {cmd}": every
 * launcher's usage in registry order, the built-ins' as they always read */
static void test_usage(void)
{
    arena_t *a = ar_new();
    char *u = launcher_usage(a);
    size_t n = 0;
    while (launchers[n]) n++;
    char *want = "";
    for (size_t i = 0; i < n; i++)
        want = ar_printf(a, "%s%s%s", want, i == 0 ? "" : i + 1 == n ? ", or " : ", ",
                         launchers[i]->usage);
    T_ASSERT(!strcmp(u, want), "usage '%s', not '%s'", u, want);
    static const char *const builtin[] = {"local", "mpirun", "srun",
                                          "a command template containing {cmd}", NULL};
    const char *from = u;
    for (size_t i = 0; builtin[i]; i++) { /* each whole, in this order */
        const char *at = strstr(from, builtin[i]);
        size_t len = strlen(builtin[i]);
        T_ASSERT(at && (at == u || at[-1] == ' ') && (!at[len] || at[len] == ','),
                 "usage '%s' lacks '%s' (after '%s')", u, builtin[i], i ? builtin[i - 1] : "");
        from = at + len;
    }
    T_ASSERT(strstr(u, ", or a command template containing {cmd}"), "usage: %s", u);
    ar_free(a);
}

int main(void)
{
    T_RUN(test_registry);
    T_RUN(test_suggestions);
    T_RUN(test_suites);
    T_RUN(test_launcher_options);
    T_RUN(test_wrap_every_launcher);
    T_RUN(test_local);
    T_RUN(test_mpirun);
    T_RUN(test_netns);
    T_RUN(test_srun);
    T_RUN(test_template);
    T_RUN(test_usage);
    T_DONE();
}
