/* Plots with hostile text (issue 12, D1): gnuplot runs `backticks` and
 * system() from what it reads, so titles, labels and paths from data reach it
 * only through plots_gp_str.  Each string of the hostile set goes through a
 * real gnuplot and must come back exactly as it went in; a plot in a folder
 * whose name holds the whole set, with the set in its title and labels, must
 * be drawn (PNG and SVG) and create no file.  SKIP without gnuplot. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/plots/plots.h"
#include "harness/proc/launch.h"
#include "tests/unit/tap.h"

/* every character gnuplot interprets, alone and in context */
static const char *const hostile[] = {
    "x`touch PWNED_bt`y",
    "q'; system(\"touch PWNED_sys\"); '",
    "q\"; system(\"touch PWNED_dq\"); \"",
    "back\\slash \\n not a newline, trailing \\",
    "two\nlines'; system('touch PWNED_nl'); '",
    "cr\rreturn",
    "@macro @PWNED_at",
    "$(touch PWNED_sh) ${HOME}",
    "semi;colon # not a comment",
    "percent %s %d %n %%",
    "<svg onload=alert(1)> & &amp;",
    "tab\there",
    "bob's runs",
    "",
    "'",
    "''",
    "\\",
    "\"",
    "`",
    "\n",
    "\r\n",
    "utf-8 \xc3\xa9 \xe2\x9c\x93",
    NULL,
};

static char tmpdir[256];
static const char *gnuplot;

/* no file whose name starts with PWNED anywhere under dir */
static int pwned_under(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) && !found) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!strncmp(e->d_name, "PWNED", 5)) found = 1; /* what `touch PWNED_x` makes */
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        struct stat st;
        if (!found && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) found = pwned_under(sub);
    }
    closedir(d);
    return found;
}

static void need_gnuplot(arena_t *a)
{
    gnuplot = path_search(a, "gnuplot");
    if (!gnuplot) T_SKIP("no gnuplot here");
}

/* the quoting alone: 'it''s' and the line-break pieces */
static void test_gp_str_form(void)
{
    arena_t *a = ar_new();
    const char *r1 = plots_gp_str(a, "it's"), *r2 = plots_gp_str(a, "a\nb"),
               *r3 = plots_gp_str(a, ""), *r4 = plots_gp_str(a, "x`y`");
    int ok = !strcmp(r1, "'it'.\"'\".'s'") && !strcmp(r2, "'a'.\"\\n\".'b'") && !strcmp(r3, "''") &&
             !strcmp(r4, "'x`y`'");
    char why[400];
    snprintf(why, sizeof why, "%s | %s | %s | %s", r1, r2, r3, r4);
    ar_free(a);
    T_ASSERT(ok, "quoted as %s", why);
    T_ASSERT(plots_name_ok("b_throughput") && plots_name_ok("x.y-z"), "plain names refused");
    T_ASSERT(!plots_name_ok("../x") && !plots_name_ok("a b") && !plots_name_ok("-e") &&
                 !plots_name_ok("") && !plots_name_ok("x'y") && !plots_name_ok(".hidden"),
             "a name that is not a plain file name accepted");
}

/* each hostile string through a real gnuplot comes back byte for byte */
static void test_gp_str_roundtrip(void)
{
    arena_t *a = ar_new();
    need_gnuplot(a);
    for (int i = 0; hostile[i]; i++) {
        char *cmd = ar_printf(a, "cd %s; set print '-'; print %s", plots_gp_str(a, tmpdir),
                              plots_gp_str(a, hostile[i]));
        char *argv[] = {(char *)gnuplot, "-e", cmd, NULL};
        char why[256] = "";
        char *out = spawn_capture(argv, 30, why, sizeof why);
        char *want = ar_printf(a, "%s\n", hostile[i]);
        int same = out && !strcmp(out, want);
        char *got = ar_strdup(a, out ? out : why);
        free(out);
        if (!same) {
            char *shown = ar_strdup(a, hostile[i]);
            for (char *p = shown; *p; p++)
                if (*p == '\n' || *p == '\r') *p = '|';
            for (char *p = got; *p; p++)
                if (*p == '\n' || *p == '\r') *p = '|';
            char msg[600];
            snprintf(msg, sizeof msg, "string %d '%s' came back as '%s'", i, shown, got);
            ar_free(a);
            T_ASSERT(0, "%s", msg);
        }
    }
    ar_free(a);
    T_ASSERT(!pwned_under(tmpdir) && !pwned_under("."), "a hostile string ran a command");
}

/* a whole plot: the set in the folder name, the title and the labels */
static void test_hostile_plot(void)
{
    arena_t *a = ar_new();
    need_gnuplot(a);
    sb_t all = {0};
    for (int i = 0; hostile[i]; i++) sb_puts(&all, hostile[i]);
    /* a folder name may hold anything but '/', up to 255 bytes */
    char *name = ar_printf(a, "%s%s%s%s%s%s", hostile[0], hostile[1], hostile[2], hostile[4],
                           hostile[6], hostile[7]);
    for (char *p = name; *p; p++)
        if (*p == '/') *p = '_';
    char *dir = ar_printf(a, "%s/%s", tmpdir, name);
    T_ASSERT(mkdir(dir, 0755) == 0, "cannot create the hostile folder");
    plots_t pl;
    T_ASSERT(plots_begin(a, dir, &pl) == 0, "plots_begin: %s", pl.note);
    sb_t dat = {0};
    sb_puts(&dat, "# x y\n1 2\n2 4\n3 5\n");
    const char *title = sb_str(&all);
    for (int k = 0; k < 2; k++) {
        const char *pname = k ? "second" : "first";
        char *gp = ar_printf(a, "%splot '%s.dat' using 1:2 with linespoints title %s\n%s",
                             plots_gp_header(a, pname, title, hostile[1], hostile[4]), pname,
                             plots_gp_str(a, hostile[0]), plots_gp_footer);
        T_ASSERT(plots_add(a, dir, &pl, pname, title, &dat, gp) == 0, "plots_add %s", pname);
    }
    /* a name that is not a plain file name is refused, not drawn */
    T_ASSERT(plots_add(a, dir, &pl, "x'; system('touch PWNED_name'); '", title, &dat, "") == -1,
             "a hostile plot name accepted");
    sb_free(&dat);
    int missing = plots_draw(a, dir, &pl);
    int drawn = pl.n == 2 && pl.p[0].drawn && pl.p[1].drawn;
    char *svg = ar_printf(a, "%s/first.svg", dir), *png = ar_printf(a, "%s/second.png", dir);
    size_t len = 0;
    char ferr[256];
    char *text = fileio_read(svg, &len, 1 << 24, ferr, sizeof ferr);
    int titled = text && strstr(text, "PWNED_sys") && strstr(text, "PWNED_bt");
    free(text);
    sb_free(&all);
    const char *note = pl.note ? ar_strdup(a, pl.note) : "";
    int png_ok = path_is_file(png);
    ar_free(a);
    T_ASSERT(!missing && drawn && png_ok, "plots not drawn (%d missing): %s", missing, note);
    T_ASSERT(titled, "the hostile title is not in the SVG as text");
    T_ASSERT(!pwned_under(tmpdir) && !pwned_under("."), "drawing a hostile plot ran a command");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/exadl-plots-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    /* whatever a command would create relative to the current folder lands here */
    if (chdir(tmpdir)) return perror("chdir"), 1;
    T_RUN(test_gp_str_form);
    T_RUN(test_gp_str_roundtrip);
    T_RUN(test_hostile_plot);
    if (chdir("/")) return 1;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    T_DONE();
}
