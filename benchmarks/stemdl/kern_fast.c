/* PLACEHOLDER: the fast CPU kernel set (to be written). Until then it is the
 * reference set, so that everything links. */
#include <stddef.h>

#include "kern.h"

const kern_ops *kern_fast_ops(void) { return kern_ref_ops(); }
void *kern_fast_create(int threads) { (void)threads; return NULL; }
void kern_fast_release(void *ctx) { (void)ctx; }
const char *kern_fast_library(void) { return "none (placeholder)"; }
