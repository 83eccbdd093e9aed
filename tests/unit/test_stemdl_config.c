/* STEMDL configuration: presets, cfg_set, YAML files good and bad, the
 * whole-configuration checks, and the plan's exact counts for gb2019 and
 * bench256 (reference/stemdl-exact.yaml holds the same numbers).
 *
 * Every bad input must give -1 (or -2 for an unknown key) and a message that
 * says what is wrong; where a file is involved the message starts with
 * "FILE:LINE:COL:" at the offending line. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "tests/unit/tap.h"

static char tmpdir[200];
static char err[1024];

static const char *write_file(const char *name, const void *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    T_ASSERT(f != NULL, "cannot create %s", path);
    T_ASSERT(fwrite(data, 1, len, f) == len, "cannot write %s", path);
    fclose(f);
    return path;
}

#define HAS(s, sub) (strstr((s), (sub)) != NULL)
#define T_HAS(s, sub) T_ASSERT(HAS(s, sub), "message '%s' lacks '%s'", (s), (sub))

static cfg_t preset(const char *name)
{
    cfg_t c;
    memset(&c, 0x5a, sizeof c);
    T_ASSERT(cfg_preset(&c, name) == 0, "preset %s unknown", name);
    return c;
}

/* Load text as NAME over preset tiny; expect failure at LINE with SUB in the
 * message.  line 0: the message names the file but no line is expected. */
static void bad_yaml(const char *name, const char *text, size_t len, int line, const char *sub)
{
    cfg_t c = preset("tiny");
    const char *path = write_file(name, text, len);
    err[0] = 0;
    int rc = cfg_load_yaml(&c, path, err, sizeof err);
    T_ASSERT(rc == -1, "%s: cfg_load_yaml returned %d (message '%s')", name, rc, err);
    T_ASSERT(!HAS(err, "\n"), "%s: message is more than one line: '%s'", name, err);
    char want[600];
    if (line > 0)
        snprintf(want, sizeof want, "%s:%d:", path, line);
    else
        snprintf(want, sizeof want, "%s", path);
    T_ASSERT(strncmp(err, want, strlen(want)) == 0, "%s: message '%s' does not start with '%s'",
             name, err, want);
    if (line > 0) {
        /* FILE:LINE:COL: with a column number */
        const char *p = err + strlen(want);
        T_ASSERT(*p >= '1' && *p <= '9', "%s: no column in '%s'", name, err);
        while (*p >= '0' && *p <= '9') p++;
        T_ASSERT(p[0] == ':' && p[1] == ' ', "%s: '%s' is not FILE:LINE:COL: ...", name, err);
    }
    T_HAS(err, sub);
}
#define BAD(name, text, line, sub) bad_yaml(name, text, sizeof(text) - 1, line, sub)

static void test_presets_validate(void)
{
    const char *const *names = cfg_preset_names();
    int n = 0;
    for (; names[n]; n++) {
        cfg_t c = preset(names[n]);
        err[0] = 0;
        T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "preset %s: %s", names[n], err);
        T_ASSERT(strcmp(c.preset, names[n]) == 0, "preset name %s", c.preset);
        T_ASSERT(c.levels == c.ndown, "%s: levels %d, down has %d", names[n], c.levels, c.ndown);
    }
    T_ASSERT(n == 4, "%d presets, want gb2019, bench256, small, tiny", n);
    const char *want[] = {"gb2019", "bench256", "small", "tiny"};
    for (int i = 0; i < 4; i++) {
        int found = 0;
        for (int j = 0; names[j]; j++) found |= !strcmp(names[j], want[i]);
        T_ASSERT(found, "preset %s missing from cfg_preset_names", want[i]);
    }
    /* gb2019 is the Gordon Bell network (docs/stemdl.md "The network") */
    cfg_t g = preset("gb2019");
    T_ASSERT(g.c_in == 1024 && g.height == 512 && g.width == 512 && g.f0 == 256 && g.k0 == 5 &&
                 g.growth == 256 && g.k == 5 && g.bottleneck == 3 && g.c_out == 1 && g.run.batch == 1,
             "gb2019 sizes");
    const int down[] = {1, 2, 4}, up[] = {4, 2, 1}, td[] = {512, 1024, 2048}, tu[] = {768, 1024, 512};
    T_ASSERT(g.levels == 3, "gb2019 levels %d", g.levels);
    for (int i = 0; i < 3; i++)
        T_ASSERT(g.down[i] == down[i] && g.up[i] == up[i] && g.td[i] == td[i] && g.tu[i] == tu[i],
                 "gb2019 level %d", i);
    cfg_t b = preset("bench256");
    T_ASSERT(b.c_in == 256 && b.height == 256 && b.width == 256 && b.growth == 256 &&
                 b.td[2] == 2048 && b.tu[0] == 768,
             "bench256: C_in 256 at 256x256, the rest as gb2019");
}

static void test_unknown_preset(void)
{
    cfg_t c = preset("tiny");
    T_ASSERT(cfg_preset(&c, "gb2020") == -1, "cfg_preset accepted gb2020");
    T_ASSERT(c.c_in == 6, "a failed cfg_preset changed the configuration");
    T_ASSERT(cfg_set(&c, "preset", "huge", err, sizeof err) == -1, "cfg_set preset huge");
    T_HAS(err, "unknown preset 'huge'");
    T_HAS(err, "gb2019");
    BAD("preset.yaml", "growth: 4\npreset: gb2020\n", 2, "unknown preset 'gb2020'");
}

static void test_cfg_set(void)
{
    cfg_t c = preset("tiny");
    T_ASSERT(cfg_set(&c, "growth", "12", err, sizeof err) == 0 && c.growth == 12, "growth: %s", err);
    T_ASSERT(cfg_set(&c, "kernel-timing", "false", err, sizeof err) == 0 && c.run.kernel_timing == 0,
             "'-' and '_' are the same: %s", err);
    T_ASSERT(cfg_set(&c, "image", "32", err, sizeof err) == 0 && c.height == 32 && c.width == 32,
             "image: %s", err);
    T_ASSERT(cfg_set(&c, "down", "1,2,3", err, sizeof err) == 0 && c.ndown == 3 && c.levels == 3 &&
                 c.down[2] == 3,
             "down list: %s", err);
    T_ASSERT(cfg_set(&c, "lr", "2.5e-4", err, sizeof err) == 0 && c.run.lr == 2.5e-4, "lr: %s", err);
    T_ASSERT(cfg_set(&c, "seed", "12345678901", err, sizeof err) == 0 && c.run.seed == 12345678901ULL,
             "seed: %s", err);
    T_ASSERT(cfg_set(&c, "precision", "bf16", err, sizeof err) == 0 && !strcmp(c.run.precision, "bf16"),
             "precision: %s", err);

    /* zero and negative sizes */
    const char *sizes[] = {"c_in", "height", "width", "f0", "k0", "growth", "k", "bottleneck",
                           "c_out", "batch", "steps"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int v = 0; v >= -3; v -= 3) {
            char val[8];
            snprintf(val, sizeof val, "%d", v);
            err[0] = 0;
            T_ASSERT(cfg_set(&c, sizes[i], val, err, sizeof err) == -1, "%s = %d accepted", sizes[i], v);
            T_HAS(err, sizes[i]);
            T_HAS(err, val);
        }
    }
    T_ASSERT(cfg_set(&c, "td", "4,0", err, sizeof err) == -1, "td 4,0 accepted");
    T_HAS(err, "td");
    T_ASSERT(cfg_set(&c, "up", "1,,2", err, sizeof err) == -1, "up 1,,2 accepted");
    T_ASSERT(cfg_set(&c, "up", "1,2,3,4,5,6,7,8,9", err, sizeof err) == -1, "9 levels accepted");
    T_ASSERT(cfg_set(&c, "growth", "12abc", err, sizeof err) == -1, "12abc accepted");
    T_HAS(err, "'12abc' is not an integer");
    T_ASSERT(cfg_set(&c, "lr", "fast", err, sizeof err) == -1, "lr fast accepted");
    T_ASSERT(cfg_set(&c, "lr", "nan", err, sizeof err) == -1, "lr nan accepted");
    T_ASSERT(cfg_set(&c, "kernels", "slow", err, sizeof err) == -1, "kernels slow accepted");
    T_HAS(err, "'slow'");
    T_ASSERT(cfg_set(&c, "kernel_timing", "maybe", err, sizeof err) == -1, "bool maybe accepted");

    /* an unknown key: -2 and the nearest key */
    T_ASSERT(cfg_set(&c, "grwoth", "3", err, sizeof err) == -2, "unknown key not -2");
    T_HAS(err, "did you mean 'growth'");
    T_ASSERT(cfg_set(&c, "bottelneck", "3", err, sizeof err) == -2, "unknown key not -2");
    T_HAS(err, "did you mean 'bottleneck'");
    T_ASSERT(cfg_set(&c, "zzzzzzzzzz", "3", err, sizeof err) == -2, "unknown key not -2");
    T_HAS(err, "unknown parameter 'zzzzzzzzzz'");
}

/* Whole-configuration checks: each on one line, naming the problem. */
static void test_validate(void)
{
    cfg_t c = preset("gb2019");
    T_ASSERT(cfg_set(&c, "image", "100", err, sizeof err) == 0, "image 100: %s", err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "100x100 with 3 levels accepted");
    T_HAS(err, "not divisible by 2^levels = 8");
    c = preset("gb2019");
    cfg_set(&c, "width", "520", err, sizeof err); /* 520 = 8 * 65: fine */
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "width 520: %s", err);
    cfg_set(&c, "width", "516", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "width 516 accepted");
    T_HAS(err, "516");

    c = preset("gb2019");
    cfg_set(&c, "down", "1,2", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "down of 2 levels, up of 3 accepted");
    T_HAS(err, "list lengths disagree");
    c = preset("gb2019");
    cfg_set(&c, "tu", "1,2,3,4", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "tu of 4 levels accepted");
    T_HAS(err, "tu 4");
    /* all four lists changed together: a valid 2-level network */
    c = preset("gb2019");
    cfg_set(&c, "down", "1,2", err, sizeof err);
    cfg_set(&c, "up", "2,1", err, sizeof err);
    cfg_set(&c, "td", "64,64", err, sizeof err);
    cfg_set(&c, "tu", "32,32", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "a 2-level gb2019: %s", err);

    c = preset("tiny");
    cfg_set(&c, "k", "4", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "k = 4 accepted");
    T_HAS(err, "odd");
    c = preset("tiny");
    cfg_set(&c, "k0", "2", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "k0 = 2 accepted");
    T_HAS(err, "k0=2");

    /* the cpu backend runs fp32 and, on the fast kernels, bf16 (whether the
     * CPU has bf16 is backend.c's question, not the configuration's) */
    c = preset("tiny");
    cfg_set(&c, "precision", "fp16", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "fp16 on the cpu backend accepted");
    T_HAS(err, "fp32 or bf16");
    c = preset("tiny");
    cfg_set(&c, "precision", "bf16", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "bf16 on the cpu fast kernels refused: %s", err);
    cfg_set(&c, "kernels", "reference", err, sizeof err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "bf16 on the reference kernels accepted");
    T_HAS(err, "fast kernels");

    /* a cfg_t filled in by code: sizes must still be positive */
    c = preset("tiny");
    c.growth = 0;
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "growth 0 (set directly) accepted");
    T_HAS(err, "growth");
    c = preset("tiny");
    c.height = -16;
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "height -16 (set directly) accepted");
    c = preset("tiny");
    c.td[1] = 0;
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "td[1] = 0 (set directly) accepted");
}

static void test_yaml_good(void)
{
    cfg_t c = preset("small");
    const char text[] = "# a 2-level network\n"
                        "preset: tiny\n"
                        "image: 32\n"
                        "growth: 7\n"
                        "down: [1, 3]\n"
                        "up:\n"
                        "  - 2\n"
                        "  - 2\n"
                        "lr: 1e-3\n"
                        "kernel_timing: false\n"
                        "precision: \"fp32\"\n"
                        "kernels: reference\n";
    const char *path = write_file("good.yaml", text, sizeof text - 1);
    err[0] = 0;
    T_ASSERT(cfg_load_yaml(&c, path, err, sizeof err) == 0, "good file: %s", err);
    T_ASSERT(!strcmp(c.preset, "tiny") && c.c_in == 6, "preset: key not applied");
    T_ASSERT(c.height == 32 && c.width == 32 && c.growth == 7, "sizes");
    T_ASSERT(c.ndown == 2 && c.down[1] == 3 && c.nup == 2 && c.up[0] == 2, "lists");
    T_ASSERT(c.run.lr == 1e-3 && c.run.kernel_timing == 0 && !strcmp(c.run.kernels, "reference"), "scalars");
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "validate: %s", err);

    /* preset applies first wherever it stands in the file */
    c = preset("small");
    const char late[] = "growth: 9\npreset: tiny\n";
    path = write_file("late.yaml", late, sizeof late - 1);
    T_ASSERT(cfg_load_yaml(&c, path, err, sizeof err) == 0, "late preset: %s", err);
    T_ASSERT(c.growth == 9 && c.c_in == 6, "growth %d c_in %d: preset must not undo growth", c.growth,
             c.c_in);
}

static void test_yaml_bad(void)
{
    /* sizes out of range, with the line of the value */
    BAD("zero.yaml", "image: 32\nc_in: 0\n", 2, "c_in must be between 1");
    BAD("neg.yaml", "growth: -4\n", 1, "growth");
    BAD("neglist.yaml", "k: 3\ndown: [1, -2]\n", 2, "down");
    BAD("notint.yaml", "steps: ten\n", 1, "'ten' is not an integer");
    /* malformed YAML */
    BAD("flow.yaml", "k: 3\ndown: [1, 2\nup: [1, 2]\n", 3, "did not find expected ',' or ']'");
    BAD("indent.yaml", "k: 3\ngrowth: 4\n  f0: 2\n", 3, "mapping values are not allowed");
    BAD("nocolon.yaml", "k: 3\ngrowth\n", 3, "could not find expected ':'");
    BAD("tab.yaml", "k: 3\n\tgrowth: 4\n", 2, "tab");
    /* unknown key: position, nearest key */
    BAD("unknown.yaml", "k: 3\n\ngrowht: 4\n", 3, "unknown key 'growht' (did you mean 'growth'?)");
    BAD("unknown2.yaml", "k: 3\nbatch_size: 4\n", 2, "unknown key 'batch_size'");
    BAD("dash.yaml", "kernel-timing: true\n", 1, "did you mean 'kernel_timing'");
    /* duplicate key */
    BAD("dup.yaml", "k: 3\ngrowth: 4\nk: 5\n", 3, "key 'k' given twice (first at line 1)");
    /* a quoted number or boolean is a string */
    BAD("quoted.yaml", "k: 3\ngrowth: \"12\"\n", 2, "growth must be a number");
    BAD("quoted2.yaml", "lr: '0.1'\n", 1, "lr must be a number");
    BAD("quoted3.yaml", "kernel_timing: \"true\"\n", 1, "kernel_timing must be true or false");
    BAD("quotedlist.yaml", "down: [1, \"2\"]\n", 1, "every entry must be an integer");
    /* a collection where a scalar is expected, and the other way round */
    BAD("list.yaml", "k: 3\ngrowth: [1, 2]\n", 2, "growth must be a single value, not a sequence");
    BAD("map.yaml", "growth: {a: 1}\n", 1, "growth must be a single value, not a mapping");
    BAD("scalar.yaml", "down: 3\n", 1, "down must be a list");
    BAD("nested.yaml", "down: [1, [2]]\n", 1, "every entry must be an integer");
    BAD("preset_list.yaml", "preset: [tiny]\n", 1, "single value");
    /* the top level must be a mapping */
    BAD("toplist.yaml", "- k: 3\n", 1, "must be a mapping");
    BAD("topscalar.yaml", "just words\n", 1, "must be a mapping");
    /* empty files */
    BAD("empty.yaml", "", 1, "empty");
    BAD("comments.yaml", "# nothing here\n\n", 1, "empty");
    /* more than one document */
    BAD("twodocs.yaml", "k: 3\n---\nk: 5\n", 2, "more than one YAML document");
    /* binary garbage: control characters, invalid UTF-8, NUL bytes */
    BAD("ctrl.yaml", "k: 3\ngrowth: 4\n\x01\x02\x03\x04", 3, "control characters");
    BAD("utf8.yaml", "k: 3\ngrowth: \xff\xfe\xfd\n", 2, "UTF-8");
    {
        const char nul[] = "k: 3\ngrowth: 4\x00\x00\x00junk\n";
        bad_yaml("nul.yaml", nul, sizeof nul - 1, 2, "");
    }
    {
        unsigned char junk[512];
        unsigned s = 12345;
        for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)((s = s * 1103515245u + 12345u) >> 16);
        cfg_t c = preset("tiny");
        const char *path = write_file("junk.bin", junk, sizeof junk);
        err[0] = 0;
        T_ASSERT(cfg_load_yaml(&c, path, err, sizeof err) == -1, "random bytes accepted");
        T_ASSERT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
                 "junk: message '%s' does not name the file", err);
    }
    /* aliases that expand without end */
    BAD("laughs.yaml",
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
        7, "document expands to more than");
    /* a file that is not there */
    {
        cfg_t c = preset("tiny");
        char path[512];
        snprintf(path, sizeof path, "%s/absent.yaml", tmpdir);
        T_ASSERT(cfg_load_yaml(&c, path, err, sizeof err) == -1, "absent file accepted");
        T_HAS(err, path);
        T_HAS(err, "No such file");
    }
}

/* A failed load leaves no half-applied state visible?  cfg_load_yaml works on
 * the caller's cfg_t in place; this pins down that a good file loads again to
 * the same result, and that an error does not crash on a later good load. */
static void test_yaml_twice(void)
{
    const char text[] = "preset: tiny\ngrowth: 3\n";
    const char *path = write_file("twice.yaml", text, sizeof text - 1);
    cfg_t a = preset("small"), b = preset("gb2019");
    T_ASSERT(cfg_load_yaml(&a, path, err, sizeof err) == 0, "%s", err);
    T_ASSERT(cfg_load_yaml(&b, path, err, sizeof err) == 0, "%s", err);
    T_ASSERT(a.growth == 3 && b.growth == 3 && a.c_in == b.c_in && a.height == b.height,
             "same file, different results");
}

/* ---- the record's config block --------------------------------------------------- */

/* c's config block as a record file; its text in buf. */
static const char *config_text(const cfg_t *c, const char *name)
{
    static char buf[16384];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    rec_t *r = rec_open(path, err, sizeof err);
    T_ASSERT(r != NULL, "rec_open: %s", err);
    rec_map_begin(r);
    cfg_write(c, r);
    rec_map_end(r);
    T_ASSERT(rec_close(r, err, sizeof err) == 0, "rec_close: %s", err);
    FILE *f = fopen(path, "rb");
    T_ASSERT(f != NULL, "cannot read %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    T_ASSERT(HAS(buf, "spatial_plan: ") && HAS(buf, "batch: "), "no config keys in:\n%s", buf);
    return buf;
}

/* The number after "KEY: " in text; NAN when KEY is not there. */
static double key_value(const char *text, const char *key)
{
    char want[64];
    snprintf(want, sizeof want, "%s: ", key);
    const char *at = strstr(text, want);
    return at ? strtod(at + strlen(want), NULL) : NAN;
}

/* The plan model's keys only shape --describe: a record whose run did not
 * set them does not list them (they were noise in every stemdl record). */
static void test_record_leaves_out_unset_model_keys(void)
{
    cfg_t c = preset("tiny");
    const char *text = config_text(&c, "unset.yaml");
    T_ASSERT(!HAS(text, "model_"), "model keys nobody set in the record:\n%s", text);
}

/* Those set, from the command line or a YAML file, are listed (and only
 * they); a preset given after them resets them, values and listing alike. */
static void test_record_keeps_set_model_keys(void)
{
    cfg_t c = preset("tiny");
    T_ASSERT(cfg_set(&c, "model-flops", "1e12", err, sizeof err) == 0, "%s", err);
    T_ASSERT(cfg_set(&c, "model_conv_times", "false", err, sizeof err) == 0, "%s", err);
    const char *text = config_text(&c, "set.yaml");
    T_ASSERT(key_value(text, "model_flops") == 1e12, "model_flops set, not listed:\n%s", text);
    T_ASSERT(HAS(text, "model_conv_times: false"), "model_conv_times set to its default, not listed:\n%s",
             text);
    T_ASSERT(!HAS(text, "model_latency_s") && !HAS(text, "model_links") &&
                 !HAS(text, "model_bytes_per_s") && !HAS(text, "model_memory_bytes"),
             "model keys nobody set in the record:\n%s", text);

    const char yaml[] = "preset: tiny\nmodel_latency_s: 2e-6\n";
    const char *path = write_file("model.yaml", yaml, sizeof yaml - 1);
    cfg_t y = preset("small");
    T_ASSERT(cfg_load_yaml(&y, path, err, sizeof err) == 0, "%s", err);
    text = config_text(&y, "yaml.yaml");
    T_ASSERT(key_value(text, "model_latency_s") == 2e-6, "model_latency_s from YAML, not listed:\n%s",
             text);
    T_ASSERT(!HAS(text, "model_flops"), "model_flops nobody set in the record:\n%s", text);

    T_ASSERT(cfg_set(&c, "preset", "small", err, sizeof err) == 0, "%s", err);
    text = config_text(&c, "reset.yaml");
    T_ASSERT(!HAS(text, "model_"), "model keys a later preset reset, still listed:\n%s", text);
}

/* ---- plan --------------------------------------------------------------------- */

static void test_plan_exact(void)
{
    const struct {
        const char *preset;
        int64_t fwd, weights;
    } want[] = {
        {"gb2019", 17169802854400LL, 220398848LL},
        {"bench256", 3648205619200LL, 215483648LL},
    };
    for (int i = 0; i < 2; i++) {
        cfg_t c = preset(want[i].preset);
        plan_t p;
        plan_build(&p, &c);
        int64_t fwd = p.fwd_conv_flops, w = p.weights;
        int64_t sum = 0, params = 0;
        for (int l = 0; l < p.n; l++) {
            sum += p.layers[l].fwd_flops;
            T_ASSERT(p.layers[l].off_w == params, "%s: layer %s weights at %lld, want %lld",
                     want[i].preset, p.layers[l].name, (long long)p.layers[l].off_w,
                     (long long)params);
            params += p.layers[l].weights;
            if (p.layers[l].bias) params += p.layers[l].c_out;
        }
        int nl = p.n;
        int fin_c = p.layers[p.conv_fin].c_out, init_k = p.layers[p.conv_init].k;
        plan_free(&p);
        T_ASSERT(fwd == want[i].fwd, "%s: forward conv FLOPs per sample %lld, want %lld",
                 want[i].preset, (long long)fwd, (long long)want[i].fwd);
        T_ASSERT(w == want[i].weights, "%s: conv weights %lld, want %lld", want[i].preset,
                 (long long)w, (long long)want[i].weights);
        T_ASSERT(sum == fwd, "%s: layers sum to %lld, total says %lld", want[i].preset,
                 (long long)sum, (long long)fwd);
        T_ASSERT(params == p.params, "%s: parameters %lld, layers give %lld", want[i].preset,
                 (long long)p.params, (long long)params);
        /* conv_init + 7 down + 3 td + 3 bottleneck + 3 tu + 7 up + conv_fin */
        T_ASSERT(nl == 25, "%s: %d layers, want 25", want[i].preset, nl);
        T_ASSERT(fin_c == 1 && init_k == 5, "%s: conv_fin %d maps, conv_init k %d", want[i].preset,
                 fin_c, init_k);
    }
}

/* tiny worked by hand from the wiring of docs/stemdl.md: C_in 6, 16x16, F0 8, k0 3,
 * g 5, k 3, down [1,2], b 2, up [2,1], td [9,12], tu [7,6]. */
static void test_plan_tiny(void)
{
    cfg_t c = preset("tiny");
    plan_t p;
    plan_build(&p, &c);
    const struct {
        const char *name;
        int k, cin, cout, hin, hout;
    } L[] = {
        {"conv_init", 3, 6, 8, 16, 16},
        {"down0.l0", 3, 8, 5, 16, 16},      /* skip0 = 13 */
        {"td0", 1, 13, 9, 16, 16},          /* then pool to 8x8 */
        {"down1.l0", 3, 9, 5, 8, 8},
        {"down1.l1", 3, 14, 5, 8, 8},       /* skip1 = 19 */
        {"td1", 1, 19, 12, 8, 8},           /* pool to 4x4 */
        {"bottleneck.l0", 3, 12, 5, 4, 4},
        {"bottleneck.l1", 3, 17, 5, 4, 4},  /* new maps 10 */
        {"tu0", 1, 10, 7, 4, 8},            /* 7 + skip1 19 = 26 */
        {"up0.l0", 3, 26, 5, 8, 8},
        {"up0.l1", 3, 31, 5, 8, 8},         /* new maps 10 */
        {"tu1", 1, 10, 6, 8, 16},           /* 6 + skip0 13 = 19 */
        {"up1.l0", 3, 19, 5, 16, 16},       /* block output 24 */
        {"conv_fin", 1, 24, 1, 16, 16},
    };
    int n = (int)(sizeof L / sizeof *L);
    int got_n = p.n;
    int64_t fwd = 0, w = 0;
    for (int i = 0; i < n && i < got_n; i++) {
        const plan_layer *l = &p.layers[i];
        int ok = !strcmp(l->name, L[i].name) && l->k == L[i].k && l->c_in == L[i].cin &&
                 l->c_out == L[i].cout && l->h_in == L[i].hin && l->w_in == L[i].hin &&
                 l->h_out == L[i].hout && l->w_out == L[i].hout;
        if (!ok) {
            char msg[200];
            snprintf(msg, sizeof msg, "layer %d: %s k%d %d->%d %dx%d->%dx%d", i, l->name, l->k,
                     l->c_in, l->c_out, l->h_in, l->w_in, l->h_out, l->w_out);
            plan_free(&p);
            T_ASSERT(0, "%s, want %s k%d %d->%d %d->%d", msg, L[i].name, L[i].k, L[i].cin,
                     L[i].cout, L[i].hin, L[i].hout);
        }
        int tconv = L[i].hout > L[i].hin;
        fwd += 2LL * L[i].k * L[i].k * L[i].cin * L[i].cout * (tconv ? L[i].hin : L[i].hout) *
               (tconv ? L[i].hin : L[i].hout);
        w += (int64_t)L[i].k * L[i].k * L[i].cin * L[i].cout;
    }
    int64_t pf = p.fwd_conv_flops, pw = p.weights, pb = p.biases;
    plan_free(&p);
    T_ASSERT(got_n == n, "%d layers, want %d", got_n, n);
    T_ASSERT(pf == fwd, "forward FLOPs %lld, by hand %lld", (long long)pf, (long long)fwd);
    T_ASSERT(pw == w, "weights %lld, by hand %lld", (long long)pw, (long long)w);
    T_ASSERT(pb == 8 + 1, "biases %lld: conv_init 8 + conv_fin 1", (long long)pb);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/exadl-cfg-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("FAIL: mkdtemp %s\n", tmpdir);
        return 1;
    }
    T_RUN(test_presets_validate);
    T_RUN(test_unknown_preset);
    T_RUN(test_cfg_set);
    T_RUN(test_validate);
    T_RUN(test_yaml_good);
    T_RUN(test_yaml_bad);
    T_RUN(test_yaml_twice);
    T_RUN(test_record_leaves_out_unset_model_keys);
    T_RUN(test_record_keeps_set_model_keys);
    T_RUN(test_plan_exact);
    T_RUN(test_plan_tiny);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) printf("# could not remove %s\n", tmpdir);
    T_DONE();
}
