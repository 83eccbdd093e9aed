/* registry: every collective of ops.def in one table; lookup by name and the
 * --op help are loops over it, so no other file lists the operations. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/collectives/coll.h"

const coll_op_t *const coll_ops[] = {
#define COLL_OP(name) &coll_op_##name,
#include "benchmarks/collectives/ops/ops.def"
#undef COLL_OP
    NULL};

const coll_op_t *coll_op_find(const char *name)
{
    for (int i = 0; coll_ops[i]; i++)
        if (!strcmp(coll_ops[i]->name, name)) return coll_ops[i];
    return NULL;
}

int coll_ops_help(char *buf, size_t len, int indent)
{
    int width = 0, used = 0;
    for (int i = 0; coll_ops[i]; i++) {
        int w = (int)strlen(coll_ops[i]->name);
        if (w > width) width = w;
    }
    for (int i = 0; coll_ops[i]; i++) {
        size_t room = (size_t)used < len ? len - (size_t)used : 0;
        used += snprintf(room ? buf + used : NULL, room, "%*s%-*s  %s\n", indent, "", width,
                         coll_ops[i]->name, coll_ops[i]->summary ? coll_ops[i]->summary : "");
    }
    if (len && (size_t)used >= len) buf[len - 1] = 0;
    return used;
}
