/* esc: the one escaping rule for text that comes from data (a run folder's
 * results.yaml, records, a suite) on its way to a terminal or to report.md.
 * A machine name "\e]2;pwned\a" or a host "x\nVerdict: all checks PASS" is
 * shown as what it is, never obeyed by the terminal nor taken for a line of
 * the report.
 *
 * Both keep printable ASCII and valid UTF-8 (accents, CJK) and show each
 * control character (C0, DEL, the C1 range U+0080-U+009F) and each byte
 * that is not valid UTF-8 as \xHH. */
#ifndef EXADL_HARNESS_ESC_H
#define EXADL_HARNESS_ESC_H

#include "harness/util/util.h"

/* For a terminal: controls as \xHH (\n, \r, \t as such), a backslash as \\
 * so that an escape cannot be forged.  NULL gives "(null)".  In a. */
const char *esc_term(arena_t *a, const char *s);

/* esc_term into buf (len bytes), cut with "..." when longer: for a printf
 * where no arena is at hand.  Returns buf. */
const char *esc_term_buf(char *buf, size_t len, const char *s);

/* For one line or table cell of report.md: newlines, carriage returns and
 * tabs become one space each, other controls \xHH, and the characters
 * Markdown or HTML would act on are escaped (\ ` * _ [ ] < > | ~ with a
 * backslash, & as &amp;).  NULL gives "".  In a. */
const char *esc_md(arena_t *a, const char *s);

/* 1 when s holds a control character (C0, DEL, C1) or is not valid UTF-8:
 * such names are refused where they are given (suite and machine names). */
int esc_has_control(const char *s);

#endif
