/* fd_links: the plan model's link constants (a message's latency alpha and a
 * link's bandwidth B, docs/spatial.md "Links from measurement") read from a
 * file instead of given as numbers:
 *
 *   - a machine file of `exadl model` (a reference/machines file,
 *     `exadl_machine: 1`): intra_node.latency_s and intra_node.bandwidth_Bps
 *     (the group's ranks share a node; a plain number or {value: ...});
 *   - a collectives record with pingpong rows (`mpirun -np 2 collectives
 *     --op pingpong --record FILE`): alpha the smallest message's median
 *     one-way time, B from the largest: bytes / (its median - alpha).
 *
 * defines: fdl_links, fdl_load */
#ifndef EXADL_FCDENSENET_FD_LINKS_H
#define EXADL_FCDENSENET_FD_LINKS_H

#include <stddef.h>

typedef struct {
    double latency_s, bytes_per_s;
    char source[160]; /* "machine file NAME" / "pingpong record: 8 B and 2097152 B" */
} fdl_links;

/* 0, or -1 with err naming path (and line where the file has one). */
int fdl_load(const char *path, fdl_links *l, char *err, size_t errlen);

#endif
