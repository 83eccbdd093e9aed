/* version (version.h). */
#include "harness/util/version.h"

#define EXADL_VERSION "0.3.0"
#ifndef EXADL_COMMIT
#define EXADL_COMMIT "unknown"
#endif

const char *exadl_version(void) { return EXADL_VERSION; }
const char *exadl_commit(void) { return EXADL_COMMIT; }
