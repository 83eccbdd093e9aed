/* block_ids: the record blocks of blocks.def as numbers, BLOCK_<name>, and
 * their count BLOCK_N; what record_t.blk is indexed by.  No includes: the
 * record header (harness/blocks/recread.h) sits below the blocks.
 * defines: block_id, BLOCK_<name> (one per line of blocks.def), BLOCK_N */
#ifndef EXADL_HARNESS_BLOCK_IDS_H
#define EXADL_HARNESS_BLOCK_IDS_H

typedef enum {
#define BLOCK(n) BLOCK_##n,
#include "harness/blocks/blocks.def"
#undef BLOCK
    BLOCK_N
} block_id;

#endif
