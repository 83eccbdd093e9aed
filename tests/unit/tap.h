/* tap: the unit tests' tiny framework.  Each test prints one line,
 * "PASS: name", "FAIL: name: why" or "SKIP: name: why"; tests/run.sh counts
 * them.  A failed T_ASSERT ends its test at once (longjmp) and the file goes
 * on with the next test. */
#ifndef EXADL_TAP_H
#define EXADL_TAP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf tap_jmp_;
static int tap_failed_, tap_skipped_;
static int tap_in_test_; /* 1 while a test runs: tap_jmp_ is valid */
static char tap_why_[1024];

static inline void tap_fail_(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void tap_fail_(const char *file, int line, const char *fmt, ...)
{
    int n = snprintf(tap_why_, sizeof tap_why_, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tap_why_ + n, sizeof tap_why_ - (size_t)n, fmt, ap);
    va_end(ap);
    longjmp(tap_jmp_, 1);
}

static inline void tap_skip_(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void tap_skip_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tap_why_, sizeof tap_why_, fmt, ap);
    va_end(ap);
    longjmp(tap_jmp_, 2);
}

#define T_ASSERT(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond)) tap_fail_(__FILE__, __LINE__, __VA_ARGS__);               \
    } while (0)
#define T_SKIP(...) tap_skip_(__VA_ARGS__)

static inline void tap_run_(const char *name, void (*fn)(void))
{
    int rc = setjmp(tap_jmp_);
    tap_in_test_ = rc == 0;
    if (rc == 0) {
        fn();
        tap_in_test_ = 0;
        printf("PASS: %s\n", name);
    } else if (rc == 1) {
        printf("FAIL: %s: %s\n", name, tap_why_);
        tap_failed_++;
    } else {
        printf("SKIP: %s: %s\n", name, tap_why_);
        tap_skipped_++;
    }
    fflush(stdout);
}

#define T_RUN(fn) tap_run_(#fn, fn)
/* Exit status: 0 when all ran tests passed; the runner counts the lines. */
#define T_DONE() return tap_failed_ ? 1 : 0

#endif
