/* Fuzz command-line option parsing: the input is an argument list, one per
 * line, given to stemdl's parser (args_parse: every configuration and run
 * key, presets, ranges, then the whole-configuration check) and to exadl
 * model's (numbers with their ranges, scales, modes), and each argument to
 * the common value parsers (opt.h).  Arguments holding '/' are dropped: the
 * parsers would read a file by that name.
 *
 * A parser that finds bad input says so and exits 2; that exit is an answer,
 * not a finding, so exit is wrapped (-Wl,--wrap=exit, tests/fuzz/module
 * rules in the Makefile) and returns here.  A CHECK failure still aborts. */
#define _GNU_SOURCE
#include <setjmp.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/stemdl/args.h"
#include "tests/fuzz/fuzz.h"

/* exadl model's parser is static in its command file */
#include "harness/cli/cmd_model.c"

static jmp_buf exit_jmp;
static int in_parser;

void __real_exit(int code) __attribute__((noreturn));
void __wrap_exit(int code);
void __wrap_exit(int code)
{
    if (in_parser) longjmp(exit_jmp, 1);
    __real_exit(code);
}

static void stemdl_args(int argc, char **argv)
{
    static args_t a; /* static: longjmp leaves nothing on the stack to free */
    in_parser = 1;
    if (setjmp(exit_jmp) == 0) args_parse(&a, argc, argv, 0);
    in_parser = 0;
}

static void model_args(int argc, char **argv)
{
    mopts_t o;
    if (parse_args(argc - 1, argv + 1, &o)) return;
    arena_t *a = ar_new();
    int *scales;
    size_t ns;
    if (o.scales) (void)model_dp_parse_scales(a, o.scales, &scales, &ns);
    if (o.modes) {
        char *s = ar_strdup(a, o.modes), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            mmode_t m;
            (void)model_mode_parse(t, &m);
        }
    }
    ar_free(a);
}

static void values(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        long long v;
        double d;
        size_t z;
        (void)opt_parse_int(argv[i], &v);
        (void)opt_parse_double(argv[i], &d);
        (void)opt_parse_size(argv[i], &z);
        int list[16];
        in_parser = 1;
        if (setjmp(exit_jmp) == 0) (void)opt_int_list("--list", argv[i], list, 16, -1000, 1000000);
        in_parser = 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init();
    char *text = fuzz_text(data, size);
    char *argv[66];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (char *save = NULL, *t = strtok_r(text, "\n", &save); t && argc < 65;
         t = strtok_r(NULL, "\n", &save))
        if (!strchr(t, '/')) argv[argc++] = t;
    argv[argc] = NULL;
    stemdl_args(argc, argv);
    model_args(argc, argv);
    values(argc, argv);
    free(text);
    return 0;
}
