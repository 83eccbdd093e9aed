/* tap_check: a failed check (check_fail: a CUDA, cuDNN, cuBLAS or NCCL
 * error in a GPU module, any CHECK) fails the running test instead of
 * exiting the whole test binary, so that the tests after it still run.
 * A test binary calls tap_catch_checks() once at the start of main.
 *
 * The hook longjmps to tap_run_'s setjmp only from the thread that
 * installed it and only while a test runs; elsewhere (another thread, the
 * cleanup after the tests) it returns and check_fail exits as before.  A
 * test that failed this way may leave its device state half made: the GPU
 * tests make their contexts on first use and keep only the ones made whole. */
#ifndef EXADL_TAP_CHECK_H
#define EXADL_TAP_CHECK_H

#include <pthread.h>
#include <stdio.h>

#include "benchmarks/common/check.h"
#include "tests/unit/tap.h"

static pthread_t tap_check_thread_;

static inline void tap_check_abort_(int code)
{
    (void)code;
    if (!tap_in_test_ || !pthread_equal(pthread_self(), tap_check_thread_)) return;
    snprintf(tap_why_, sizeof tap_why_, "check failed: %s", check_last_error());
    longjmp(tap_jmp_, 1);
}

static inline void tap_catch_checks(void)
{
    tap_check_thread_ = pthread_self();
    check_set_abort(tap_check_abort_);
}

#endif
