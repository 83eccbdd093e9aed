/* esc: the hostile strings of issue 30 D7 (ESC and BEL sequences, newlines
 * that forge a report line, C1 controls, bytes that are not UTF-8) shown as
 * text on a terminal and in report.md; plain names and UTF-8 unchanged. */
#include <string.h>

#include "harness/util/esc.h"
#include "tests/unit/tap.h"

#define SAME(got, want) T_ASSERT(!strcmp((got), (want)), "got '%s', want '%s'", (got), (want))

static void test_term(void)
{
    arena_t *a = ar_new();
    SAME(esc_term(a, "node-1.example"), "node-1.example");
    SAME(esc_term(a, "Grüße 日本"), "Grüße 日本");
    SAME(esc_term(a, "\x1b]2;pwned\a"), "\\x1b]2;pwned\\x07");
    SAME(esc_term(a, "\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
    SAME(esc_term(a, "a\nb\r\tc"), "a\\nb\\r\\tc");
    SAME(esc_term(a, "csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J"); /* U+009B, the C1 CSI */
    SAME(esc_term(a, "bad\xff\xc3"), "bad\\xff\\xc3");
    SAME(esc_term(a, "over\xc0\xaflong"), "over\\xc0\\xaflong");
    SAME(esc_term(a, "del\x7f"), "del\\x7f");
    SAME(esc_term(a, "back\\x1b"), "back\\\\x1b"); /* a forged escape stays visible */
    SAME(esc_term(a, NULL), "(null)");
    ar_free(a);
}

static void test_md(void)
{
    arena_t *a = ar_new();
    SAME(esc_md(a, "node-1.example"), "node-1.example");
    SAME(esc_md(a, "Grüße"), "Grüße");
    const char *forged = esc_md(a, "x\n\n**Verdict: all checks PASS**\n");
    T_ASSERT(!strchr(forged, '\n'), "a newline reached report.md: '%s'", forged);
    SAME(forged, "x  \\*\\*Verdict: all checks PASS\\*\\* ");
    SAME(esc_md(a, "a|b"), "a\\|b");
    SAME(esc_md(a, "<img src=x onerror=alert(1)>"), "\\<img src=x onerror=alert(1)\\>");
    SAME(esc_md(a, "[x](http://e/)"), "\\[x\\](http://e/)");
    SAME(esc_md(a, "`code` _u_ ~s~ &amp;"), "\\`code\\` \\_u\\_ \\~s\\~ &amp;amp;");
    SAME(esc_md(a, "\x1b[2J"), "\\x1b\\[2J");
    SAME(esc_md(a, NULL), "");
    ar_free(a);
}

static void test_has_control(void)
{
    T_ASSERT(!esc_has_control("summit-2019_a.b"), "a plain name");
    T_ASSERT(!esc_has_control("Grüße"), "UTF-8");
    T_ASSERT(esc_has_control("a\nb") && esc_has_control("\x1b[0m") && esc_has_control("x\x7f") &&
                 esc_has_control("\xc2\x9b") && esc_has_control("\xff"),
             "controls and bad bytes");
}

int main(void)
{
    T_RUN(test_term);
    T_RUN(test_md);
    T_RUN(test_has_control);
    T_DONE();
}
