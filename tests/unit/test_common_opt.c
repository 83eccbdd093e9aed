/* opt: command-line values.  opt_parse_* return -1; opt_int, opt_double,
 * opt_int_list and opt_choice end the program on bad input with one line
 * "PROGRAM: error: ..." and exit status 2, so those cases run in a forked
 * child whose stderr and status are checked. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/opt.h"
#include "tests/unit/tap.h"

static void test_parse(void)
{
    long long v;
    T_ASSERT(opt_parse_int("42", &v) == 0 && v == 42, "42");
    T_ASSERT(opt_parse_int("-17", &v) == 0 && v == -17, "-17");
    T_ASSERT(opt_parse_int("9223372036854775807", &v) == 0 && v == LLONG_MAX, "LLONG_MAX");
    T_ASSERT(opt_parse_int("-9223372036854775808", &v) == 0 && v == LLONG_MIN, "LLONG_MIN");
    v = 5;
    const char *bad_ints[] = {"", "x", "12x", "1.5", "1e3", "9223372036854775808", "0x10 ", "4 ", NULL};
    for (int i = 0; bad_ints[i]; i++)
        T_ASSERT(opt_parse_int(bad_ints[i], &v) == -1, "opt_parse_int accepted '%s'", bad_ints[i]);
    T_ASSERT(v == 5, "a failed parse wrote its output");
    T_ASSERT(opt_parse_int(NULL, &v) == -1, "NULL");

    double d;
    T_ASSERT(opt_parse_double("2.5e-3", &d) == 0 && d == 2.5e-3, "2.5e-3");
    T_ASSERT(opt_parse_double("-7", &d) == 0 && d == -7, "-7");
    T_ASSERT(opt_parse_double("0", &d) == 0 && d == 0, "0");
    const char *bad_dbl[] = {"", "abc", "1.5x", "nan", "inf", "-inf", "1e999", "1,5", NULL};
    for (int i = 0; bad_dbl[i]; i++)
        T_ASSERT(opt_parse_double(bad_dbl[i], &d) == -1, "opt_parse_double accepted '%s'", bad_dbl[i]);
    T_ASSERT(opt_parse_double(NULL, &d) == -1, "NULL");
}

/* Run fn(arg) in a child with stderr captured into buf; returns its wait status. */
typedef void (*child_fn)(const char *arg);

static int run_child(child_fn fn, const char *arg, char *buf, size_t len)
{
    int fds[2];
    T_ASSERT(pipe(fds) == 0, "pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    T_ASSERT(pid >= 0, "fork");
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        check_set_program("stemdl");
        fn(arg);
        _exit(0); /* fn returned */
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n < len - 1 && (got = read(fds[0], buf + n, len - 1 - n)) > 0) n += (size_t)got;
    buf[n] = 0;
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return st;
}

/* fn(arg) must exit with status 2 and write exactly one line to stderr,
 * "stemdl: error: ..." containing want. */
static void expect_exit2(child_fn fn, const char *arg, const char *want)
{
    char buf[2048];
    int st = run_child(fn, arg, buf, sizeof buf);
    T_ASSERT(WIFEXITED(st), "'%s': child did not exit normally (signal %d)", arg,
             WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    T_ASSERT(WEXITSTATUS(st) == 2, "'%s': exit status %d, want 2 (stderr: '%s')", arg,
             WEXITSTATUS(st), buf);
    T_ASSERT(strncmp(buf, "stemdl: error: ", 15) == 0, "'%s': stderr '%s' does not start with "
             "'stemdl: error: '", arg, buf);
    T_ASSERT(strstr(buf, want) != NULL, "'%s': stderr '%s' lacks '%s'", arg, buf, want);
    char *nl = strchr(buf, '\n');
    T_ASSERT(nl && nl[1] == 0, "'%s': stderr is not exactly one line: '%s'", arg, buf);
}

static void int_1_100(const char *v) { (void)opt_int("--steps", v, 1, 100); }
static void dbl_0_1(const char *v) { (void)opt_double("--lr", v, 0, 1); }
static void list_1_10(const char *v)
{
    int out[3];
    (void)opt_int_list("--down", v, out, 3, 1, 10);
}
static void choice(const char *v)
{
    static const char *const ch[] = {"reference", "fast", NULL};
    (void)opt_choice("--kernels", v, ch);
}

/* Good values return them; run in a child, since a wrongly refused value
 * would end the process.  The child exits 10 + the number of the failed check. */
static void good_values(const char *unused)
{
    (void)unused;
    int out[8], n;
    static const char *const ch[] = {"reference", "fast", NULL};
    if (opt_int("--steps", "10", 1, 100) != 10) _exit(11);
    if (opt_int("--steps", "1", 1, 100) != 1 || opt_int("--steps", "100", 1, 100) != 100) _exit(12);
    if (opt_int("--seed", "-5", -10, 10) != -5) _exit(13);
    if (opt_double("--lr", "0.5", 0, 1) != 0.5 || opt_double("--lr", "1", 0, 1) != 1) _exit(14);
    n = opt_int_list("--down", "1,2,4", out, 8, 1, 10);
    if (n != 3 || out[0] != 1 || out[1] != 2 || out[2] != 4) _exit(15);
    n = opt_int_list("--down", "7", out, 8, 1, 10);
    if (n != 1 || out[0] != 7) _exit(16);
    if (opt_int_list("--down", "1,2,3,4", out, 4, 1, 10) != 4) _exit(17); /* exactly cap */
    if (opt_choice("--kernels", "fast", ch) != 1 || opt_choice("--kernels", "reference", ch) != 0)
        _exit(18);
}

static void test_good_values(void)
{
    char buf[2048];
    int st = run_child(good_values, NULL, buf, sizeof buf);
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
             "good values: child status %d (10+n: check n failed; 2: refused) stderr '%s'",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1, buf);
}

static void test_exits(void)
{
    expect_exit2(int_1_100, "abc", "--steps: 'abc' is not an integer");
    expect_exit2(int_1_100, "", "--steps: '' is not an integer");
    expect_exit2(int_1_100, "0", "--steps: 0 is out of range (allowed 1 to 100)");
    expect_exit2(int_1_100, "101", "out of range");
    expect_exit2(int_1_100, "-5", "out of range");
    expect_exit2(int_1_100, "99999999999999999999", "is not an integer");
    expect_exit2(int_1_100, NULL, "--steps needs a value");
    expect_exit2(dbl_0_1, "x", "--lr: 'x' is not a number");
    expect_exit2(dbl_0_1, "1.5", "--lr: 1.5 is out of range");
    expect_exit2(dbl_0_1, "nan", "is not a number");
    expect_exit2(dbl_0_1, NULL, "--lr needs a value");
    expect_exit2(list_1_10, "1,,2", "--down: '1,,2' is not a comma-separated list");
    expect_exit2(list_1_10, "1,2,", "ends with a comma");
    expect_exit2(list_1_10, ",1", "not a comma-separated list");
    expect_exit2(list_1_10, "", "--down needs a comma-separated list");
    expect_exit2(list_1_10, "1,2,3,4", "--down: more than 3 values");
    expect_exit2(list_1_10, "1,11", "--down: 11 is out of range");
    expect_exit2(list_1_10, "1,x", "'x' is not an integer");
    expect_exit2(choice, "slow", "--kernels: unknown value 'slow' (choose one of: reference, fast)");
    expect_exit2(choice, NULL, "--kernels needs a value");
}

/* --check-config is taken out of the command line wherever it stands (never
 * argv[0]), so that the program's own parser sees only its options */
static void test_check_config(void)
{
    char *v[] = {"prog", "--check-config", "--steps", "3", "--check-config", NULL};
    int argc = 5;
    T_ASSERT(opt_take_check_config(&argc, v) == 1, "found");
    T_ASSERT(argc == 3 && !strcmp(v[0], "prog") && !strcmp(v[1], "--steps") && !strcmp(v[2], "3") &&
             v[3] == NULL, "argv left: %d", argc);
    char *w[] = {"--check-config", "--steps", "3", NULL};
    argc = 3;
    T_ASSERT(opt_take_check_config(&argc, w) == 0 && argc == 3, "argv[0] is the program");
    char *x[] = {"prog", "--check-configs", NULL};
    argc = 2;
    T_ASSERT(opt_take_check_config(&argc, x) == 0 && argc == 2, "only the exact word");
}

int main(void)
{
    T_RUN(test_parse);
    T_RUN(test_good_values);
    T_RUN(test_exits);
    T_RUN(test_check_config);
    T_DONE();
}
