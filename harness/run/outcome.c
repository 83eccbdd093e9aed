/* Launch outcomes (outcome.h). */
#include "harness/run/outcome.h"

const char *lstatus_name(lstatus_t s)
{
    switch (s) {
    case LS_OK: return "ok";
    case LS_FAILED: return "failed";
    case LS_INVALID: return "invalid";
    case LS_TIMEOUT: return "timeout";
    case LS_INTERRUPTED: return "interrupted";
    case LS_NOTRUN: return "not_run";
    }
    return "?";
}
